/* SPDX-License-Identifier: BSD-3-Clause */
/* ptsim's model parameters, their command-line names, and the named
 * scenarios (presets).  docs/ptsim.md describes every parameter. */
#ifndef PTSIM_PARAMS_H
#define PTSIM_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest scenario name and cpu string, with the terminating NUL. */
#define PTSIM_NAME_MAX 48

struct ptsim_params {
	char name[PTSIM_NAME_MAX]; /* scenario name */
	char cpu[PTSIM_NAME_MAX];  /* "none" or family/model[/stepping] */
	uint64_t seed;

	uint64_t duration; /* host TSC ticks to simulate */
	uint64_t tsc0;     /* host TSC at the start (a CTC edge) */
	uint64_t art0;     /* ART (crystal clock count) at the start */

	uint64_t eax, ebx; /* CPUID 0x15: TSC = ART * ebx / eax */
	uint64_t nom_freq; /* maximum non-turbo ratio (P1) */
	uint64_t cbr;      /* initial core:bus ratio */
	uint64_t cbr_min;  /* range of ratios for frequency changes */
	uint64_t cbr_max;
	int64_t core_ppm;       /* core clock deviation from cbr / nom_freq */
	uint64_t freq_interval; /* mean ticks between changes, 0: none */

	uint64_t mtc;            /* MTCEn */
	uint64_t mtc_freq;       /* MTCFreq */
	uint64_t mtc_drop;       /* per mille of MTCs that start a drop burst */
	uint64_t mtc_drop_burst; /* longest burst of dropped MTCs */

	uint64_t cyc;        /* CYCEn */
	uint64_t cyc_thresh; /* CycThresh (encoded: 0, or 2^(n-1) cycles) */
	uint64_t cyc_wrap;   /* standalone CYC after this many cycles, 0 off */

	uint64_t psb_period; /* bytes between PSBs */
	uint64_t gap_min;    /* core cycles between control-flow packets */
	uint64_t gap_max;
	uint64_t long_gap;     /* per mille of gaps of up to long_gap_max */
	uint64_t long_gap_max; /* cycles */
	uint64_t tip;          /* per mille of branches that are TIPs */

	uint64_t sleep_interval; /* mean ticks between deep sleeps, 0: none */
	uint64_t sleep_min;      /* deep sleep duration range in ticks */
	uint64_t sleep_max;

	uint64_t vmx_multiplier; /* TSC multiplier, 48 fraction bits; 0 off */
	uint64_t vmx_offset;     /* TSC offset */
};

/* Set @p to the defaults (the "steady" scenario with seed 1). */
void ptsim_params_default(struct ptsim_params *p);

/* Set parameter @key to @value (the text after '=').  Returns 0, or -1
 * with a message in @msg. */
int ptsim_params_set(struct ptsim_params *p, const char *key, const char *value,
                     char *msg, size_t size);

/* 1 if @key names a parameter. */
int ptsim_params_known(const char *key);

/* Check @p for values the model cannot simulate.  Returns 0, or -1 with a
 * message in @msg. */
int ptsim_params_check(const struct ptsim_params *p, char *msg, size_t size);

/* The CYC threshold in cycles for the CycThresh encoding of @p. */
uint64_t ptsim_params_cyc_threshold(const struct ptsim_params *p);

/* Print every parameter with its current value and help text. */
void ptsim_params_print(FILE *out, const struct ptsim_params *p);

/* Print every parameter as "<prefix><key> <value>", one a line. */
void ptsim_params_dump(FILE *out, const struct ptsim_params *p,
                       const char *prefix);

/* Named scenarios. */
size_t ptsim_preset_count(void);
const char *ptsim_preset_name(size_t i);
const char *ptsim_preset_help(size_t i);

/* The preset's parameter settings, "key=value ..." (for documentation). */
const char *ptsim_preset_settings(size_t i);

/* Set @p to the defaults with preset @name applied and the seed @seed.
 * Returns 0, or -1 with a message if there is no such preset. */
int ptsim_preset_load(struct ptsim_params *p, const char *name, uint64_t seed,
                      char *msg, size_t size);

#endif /* PTSIM_PARAMS_H */
