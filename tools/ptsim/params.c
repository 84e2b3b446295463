/* SPDX-License-Identifier: BSD-3-Clause */
/* ptsim parameters and presets; see params.h. */
#include "params.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* How a parameter is stored. */
enum ptsim_kind { ptsim_u64, ptsim_i64, ptsim_str };

struct ptsim_param_desc {
	const char *key;
	enum ptsim_kind kind;
	size_t offset;
	int64_t min; /* for numbers */
	uint64_t max;
	const char *help;
};

#define PTSIM_U(field, lo, hi, text)                                           \
	{                                                                      \
#field, ptsim_u64, offsetof(struct ptsim_params, field), (lo), \
		        (hi), (text)                                           \
	}

static const struct ptsim_param_desc ptsim_descs[] = {
        {"cpu", ptsim_str, offsetof(struct ptsim_params, cpu), 0, 0,
         "processor for the decoders' errata: none or f/m[/s]"},
        /* (About 1.3 bytes of memory and of .truth file per tick: the
         * bound keeps a run within about 1.4 GB.) */
        PTSIM_U(duration, 1000, UINT64_C(1) << 30,
                "host TSC ticks to simulate"),
        PTSIM_U(tsc0, 0, UINT64_C(1) << 52, "host TSC at the start"),
        PTSIM_U(art0, 0, UINT64_C(1) << 52,
                "crystal clock (ART) count at the start"),
        PTSIM_U(eax, 1, 1u << 16, "CPUID 0x15 EAX (TSC = ART * ebx / eax)"),
        PTSIM_U(ebx, 1, 1u << 24, "CPUID 0x15 EBX"),
        PTSIM_U(nom_freq, 1, 255, "maximum non-turbo ratio (P1)"),
        PTSIM_U(cbr, 1, 255, "core:bus ratio at the start"),
        PTSIM_U(cbr_min, 1, 255, "lowest ratio of a frequency change"),
        PTSIM_U(cbr_max, 1, 255, "highest ratio of a frequency change"),
        {"core_ppm", ptsim_i64, offsetof(struct ptsim_params, core_ppm),
         -100000, 100000,
         "core clock deviation from cbr/nom_freq in parts per million"},
        PTSIM_U(freq_interval, 0, UINT64_C(1) << 40,
                "mean ticks between frequency changes (0: none)"),
        PTSIM_U(mtc, 0, 1, "MTCEn"),
        PTSIM_U(mtc_freq, 0, 15, "MTCFreq: MTC every 2^mtc_freq ART ticks"),
        PTSIM_U(mtc_drop, 0, 1000,
                "per mille of MTCs that start a burst of dropped MTCs"),
        PTSIM_U(mtc_drop_burst, 1, 254,
                "longest burst of dropped MTCs (254 in a row at most)"),
        PTSIM_U(cyc, 0, 1, "CYCEn"),
        PTSIM_U(cyc_thresh, 0, 15,
                "CycThresh: a CYC needs 2^(n-1) cycles (0: any)"),
        PTSIM_U(cyc_wrap, 0, UINT64_C(1) << 40,
                "standalone CYC after this many cycles (0: never)"),
        PTSIM_U(psb_period, 64, 1u << 24, "bytes between PSBs"),
        PTSIM_U(gap_min, 1, 1u << 24,
                "fewest core cycles between control-flow packets"),
        PTSIM_U(gap_max, 1, 1u << 24,
                "most core cycles between control-flow packets"),
        PTSIM_U(long_gap, 0, 1000, "per mille of gaps that are long"),
        PTSIM_U(long_gap_max, 1, 1u << 28, "longest long gap in cycles"),
        PTSIM_U(tip, 0, 1000,
                "per mille of control-flow packets that "
                "are TIPs (the rest are TNTs)"),
        PTSIM_U(sleep_interval, 0, UINT64_C(1) << 40,
                "mean ticks between deep sleeps (0: none)"),
        PTSIM_U(sleep_min, 1, UINT64_C(1) << 36, "shortest deep sleep"),
        PTSIM_U(sleep_max, 1, UINT64_C(1) << 36, "longest deep sleep"),
        PTSIM_U(vmx_multiplier, 0, UINT64_MAX,
                "VMX TSC multiplier, 48 fraction bits (0: no VMX)"),
        PTSIM_U(vmx_offset, 0, UINT64_MAX, "VMX TSC offset"),
};

#define PTSIM_NDESCS (sizeof(ptsim_descs) / sizeof(ptsim_descs[0]))

struct ptsim_preset {
	const char *name;
	const char *help;
	const char *settings;
};

static const struct ptsim_preset ptsim_presets[] = {
        {"steady", "constant core clock (ratio 26, nominal 21)", ""},
        {"fraction", "TSC:crystal ratio 250/3, not an integer",
         "eax=3 ebx=250 nom_freq=25 cbr=31"},
        {"freq", "core frequency changes (CBR) every 50k ticks on average",
         "freq_interval=50000"},
        {"dropmtc", "dropped MTCs: single ones and bursts of up to 8",
         "mtc_drop=40 mtc_drop_burst=8"},
        {"dropmtc-long", "rare bursts of up to 200 dropped MTCs",
         "mtc_drop=4 mtc_drop_burst=200 duration=20000000 psb_period=65536"},
        {"sparsecyc", "high CYC threshold (2048 cycles) and long gaps",
         "cyc_thresh=12 long_gap=20 long_gap_max=20000"},
        {"sleep", "deep sleeps: the TSC jumps, CYC counts active cycles",
         "sleep_interval=300000"},
        {"vmx", "VMX TSC scaling 1.25 and offsetting (guest trace)",
         "vmx_multiplier=0x1400000000000 vmx_offset=0x100000000000"},
        {"mtc0", "MTCFreq 0 with frequency changes",
         "mtc_freq=0 freq_interval=150000"},
        {"mtc3", "MTCFreq 3 with frequency changes",
         "mtc_freq=3 freq_interval=150000"},
        {"mtc9",
         "MTCFreq 9 (the TMA lacks CTC bit 16) with frequency "
         "changes",
         "mtc_freq=9 freq_interval=150000"},
        {"nocyc", "no CYC packets (CYCEn 0)", "cyc=0 freq_interval=150000"},
        {"nomtc", "no MTC packets (MTCEn 0): CYC between TSCs only",
         "mtc=0 freq_interval=150000"},
        {"mixed",
         "frequency changes, dropped MTCs, deep sleeps, core clock off "
         "its ratio by -0.15%",
         "freq_interval=200000 mtc_drop=20 mtc_drop_burst=6 "
         "sleep_interval=500000 core_ppm=-1500 long_gap=5 "
         "long_gap_max=10000"},
};

#define PTSIM_NPRESETS (sizeof(ptsim_presets) / sizeof(ptsim_presets[0]))

void ptsim_params_default(struct ptsim_params *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "steady");
	snprintf(p->cpu, sizeof(p->cpu), "none");
	p->seed = 1;
	p->duration = 4000000;
	p->tsc0 = UINT64_C(0x2000000000);
	p->art0 = UINT64_C(0x51e0000);
	p->eax = 2;
	p->ebx = 176;
	p->nom_freq = 21;
	p->cbr = 26;
	p->cbr_min = 8;
	p->cbr_max = 40;
	p->mtc = 1;
	p->mtc_freq = 3;
	p->mtc_drop_burst = 1;
	p->cyc = 1;
	p->cyc_wrap = 4096;
	p->psb_period = 4096;
	p->gap_min = 20;
	p->gap_max = 300;
	p->long_gap_max = 5000;
	p->tip = 300;
	p->sleep_min = 20000;
	p->sleep_max = 400000;
}

static const struct ptsim_param_desc *ptsim_desc(const char *key)
{
	size_t i;

	for (i = 0; i < PTSIM_NDESCS; ++i)
		if (strcmp(ptsim_descs[i].key, key) == 0)
			return &ptsim_descs[i];
	return NULL;
}

int ptsim_params_known(const char *key)
{
	return ptsim_desc(key) != NULL;
}

int ptsim_params_set(struct ptsim_params *p, const char *key, const char *value,
                     char *msg, size_t size)
{
	const struct ptsim_param_desc *d = ptsim_desc(key);
	char *base = (char *)p, *end;

	if (!d) {
		snprintf(msg, size, "unknown parameter '%s'", key);
		return -1;
	}
	if (d->kind == ptsim_str) {
		if (strlen(value) >= PTSIM_NAME_MAX || !*value) {
			snprintf(msg, size, "%s: bad value '%s'", key, value);
			return -1;
		}
		snprintf(base + d->offset, PTSIM_NAME_MAX, "%s", value);
		return 0;
	}
	errno = 0;
	if (d->kind == ptsim_i64) {
		long long v = strtoll(value, &end, 0);

		if (errno || end == value || *end || v < d->min ||
		    (v > 0 && (unsigned long long)v > d->max)) {
			snprintf(msg, size,
			         "%s: '%s' is not a number in [%" PRId64
			         ", %" PRIu64 "]",
			         key, value, d->min, d->max);
			return -1;
		}
		*(int64_t *)(void *)(base + d->offset) = (int64_t)v;
		return 0;
	}
	if (*value == '-') {
		snprintf(msg, size, "%s: '%s' is negative", key, value);
		return -1;
	}
	{
		unsigned long long v = strtoull(value, &end, 0);

		if (errno || end == value || *end ||
		    v < (unsigned long long)d->min || v > d->max) {
			snprintf(msg, size,
			         "%s: '%s' is not a number in [%" PRId64
			         ", %" PRIu64 "]",
			         key, value, d->min, d->max);
			return -1;
		}
		*(uint64_t *)(void *)(base + d->offset) = (uint64_t)v;
	}
	return 0;
}

uint64_t ptsim_params_cyc_threshold(const struct ptsim_params *p)
{
	if (p->cyc_thresh == 0)
		return 0;
	return UINT64_C(1) << (p->cyc_thresh - 1);
}

int ptsim_params_check(const struct ptsim_params *p, char *msg, size_t size)
{
	if (p->ebx / p->eax >= 512) {
		snprintf(
		        msg, size,
		        "ebx/eax must be below 512 (the TMA fast counter has 9 "
		        "bits)");
		return -1;
	}
	if (p->ebx < p->eax) {
		snprintf(msg, size, "ebx must not be below eax");
		return -1;
	}
	if (p->cbr_min > p->cbr_max || p->gap_min > p->gap_max ||
	    p->sleep_min > p->sleep_max) {
		snprintf(msg, size,
		         "a range has its minimum above its maximum");
		return -1;
	}
	if (p->long_gap_max < p->gap_max && p->long_gap) {
		snprintf(msg, size, "long_gap_max must be at least gap_max");
		return -1;
	}
	if (p->vmx_multiplier && p->vmx_multiplier > (UINT64_C(16) << 48)) {
		snprintf(msg, size,
		         "vmx_multiplier above 16.0 is not supported");
		return -1;
	}
	return 0;
}

/* The value of parameter @d in @p as text. */
static void ptsim_param_value(char *out, size_t size,
                              const struct ptsim_param_desc *d,
                              const struct ptsim_params *p)
{
	const char *base = (const char *)p;

	if (d->kind == ptsim_str)
		snprintf(out, size, "%s", base + d->offset);
	else if (d->kind == ptsim_i64)
		snprintf(out, size, "%" PRId64,
		         *(const int64_t *)(const void *)(base + d->offset));
	else
		snprintf(out, size, "%" PRIu64,
		         *(const uint64_t *)(const void *)(base + d->offset));
}

void ptsim_params_print(FILE *out, const struct ptsim_params *p)
{
	size_t i;

	for (i = 0; i < PTSIM_NDESCS; ++i) {
		char value[64];

		ptsim_param_value(value, sizeof(value), &ptsim_descs[i], p);
		fprintf(out, "  %-15s %-16s %s\n", ptsim_descs[i].key, value,
		        ptsim_descs[i].help);
	}
}

void ptsim_params_dump(FILE *out, const struct ptsim_params *p,
                       const char *prefix)
{
	size_t i;

	for (i = 0; i < PTSIM_NDESCS; ++i) {
		char value[64];

		ptsim_param_value(value, sizeof(value), &ptsim_descs[i], p);
		fprintf(out, "%s%s %s\n", prefix, ptsim_descs[i].key, value);
	}
}

size_t ptsim_preset_count(void)
{
	return PTSIM_NPRESETS;
}

const char *ptsim_preset_name(size_t i)
{
	return i < PTSIM_NPRESETS ? ptsim_presets[i].name : NULL;
}

const char *ptsim_preset_help(size_t i)
{
	return i < PTSIM_NPRESETS ? ptsim_presets[i].help : NULL;
}

const char *ptsim_preset_settings(size_t i)
{
	return i < PTSIM_NPRESETS ? ptsim_presets[i].settings : NULL;
}

/* Apply "key=value key=value ..." to @p. */
static int ptsim_apply_settings(struct ptsim_params *p, const char *settings,
                                char *msg, size_t size)
{
	const char *s = settings;

	while (*s) {
		char item[128], *eq;
		size_t n = strcspn(s, " ");

		if (n == 0) {
			s += 1;
			continue;
		}
		if (n >= sizeof(item)) {
			snprintf(msg, size, "preset setting too long");
			return -1;
		}
		memcpy(item, s, n);
		item[n] = '\0';
		s += n;
		eq = strchr(item, '=');
		if (!eq) {
			snprintf(msg, size, "preset setting '%s' lacks '='",
			         item);
			return -1;
		}
		*eq = '\0';
		if (ptsim_params_set(p, item, eq + 1, msg, size) < 0)
			return -1;
	}
	return 0;
}

int ptsim_preset_load(struct ptsim_params *p, const char *name, uint64_t seed,
                      char *msg, size_t size)
{
	size_t i;

	for (i = 0; i < PTSIM_NPRESETS; ++i) {
		if (strcmp(ptsim_presets[i].name, name) != 0)
			continue;
		ptsim_params_default(p);
		snprintf(p->name, sizeof(p->name), "%s", name);
		p->seed = seed;
		return ptsim_apply_settings(p, ptsim_presets[i].settings, msg,
		                            size);
	}
	snprintf(msg, size, "unknown scenario '%s' (ptsim --list shows them)",
	         name);
	return -1;
}
