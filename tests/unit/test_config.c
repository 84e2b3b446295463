/* SPDX-License-Identifier: BSD-3-Clause */
/* Configuration, errata, errors, version, and the packet decoder's API
 * details: pt_config compatibility across sizes, pt_cpu_errata(),
 * ptd_cpu_parse(), pt_errstr(), pt_errcode(), pt_library_version(),
 * ptd_pkt_next_batch() against pt_pkt_next(), and pt_pkt_next() with a
 * packet size other than ours. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"

#include "packet/pkt_decoder.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void test_config_init(void **state)
{
	struct pt_config config;
	const uint8_t *bytes = (const uint8_t *)&config;
	size_t i;

	(void)state;
	memset(&config, 0xa5, sizeof(config));
	pt_config_init(&config);
	assert_int_equal(config.size, sizeof(config));
	for (i = sizeof(config.size); i < sizeof(config); ++i)
		assert_int_equal(bytes[i], 0);
}

static void test_config_bounds(void **state)
{
	uint8_t buf[16] = {0};
	struct pt_config config;
	struct pt_packet_decoder *decoder;
	struct pt_packet packet;

	(void)state;
	assert_null(pt_pkt_alloc_decoder(NULL));
	pt_config_init(&config);
	assert_null(pt_pkt_alloc_decoder(&config));
	config.begin = buf;
	assert_null(pt_pkt_alloc_decoder(&config));
	config.begin = NULL;
	config.end = buf;
	assert_null(pt_pkt_alloc_decoder(&config));
	config.begin = buf + 1;
	config.end = buf;
	assert_null(pt_pkt_alloc_decoder(&config));
	assert_null(pt_alloc_encoder(&config));

	/* An empty buffer is fine. */
	config.begin = buf;
	config.end = buf;
	decoder = pt_pkt_alloc_decoder(&config);
	assert_non_null(decoder);
	assert_int_equal(pt_pkt_sync_forward(decoder), -pte_eos);
	assert_int_equal(pt_pkt_sync_backward(decoder), -pte_eos);
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	assert_int_equal(pt_pkt_sync_set(decoder, 1), -pte_eos);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
	                 -pte_eos);
	pt_pkt_free_decoder(decoder);
	pt_pkt_free_decoder(NULL);
	assert_null(pt_pkt_get_config(NULL));
}

/* A caller that knows an older, smaller pt_config: what it did not pass is
 * zero in the decoder's copy, even if its memory holds something else. */
static void test_config_smaller(void **state)
{
	static const uint8_t bad_tma[] = {0x02, 0x73, 0, 0, 1, 0, 0, 0};
	uint8_t buf[sizeof(bad_tma)];
	struct pt_config config;
	struct pt_packet_decoder *decoder;
	const struct pt_config *copy;
	struct pt_packet packet;

	(void)state;
	memcpy(buf, bad_tma, sizeof(buf));
	memset(&config, 0xa5, sizeof(config));
	config.begin = buf;
	config.end = buf + sizeof(buf);
	config.decode.callback = NULL;
	config.decode.context = NULL;
	config.errata.skz84 = 1;

	/* Too small to hold the buffer bounds. */
	config.size = 0;
	assert_null(pt_pkt_alloc_decoder(&config));
	config.size = offsetof(struct pt_config, end);
	assert_null(pt_pkt_alloc_decoder(&config));
	assert_null(pt_alloc_encoder(&config));

	/* Just the bounds. */
	config.size = offsetof(struct pt_config, decode);
	decoder = pt_pkt_alloc_decoder(&config);
	assert_non_null(decoder);
	copy = pt_pkt_get_config(decoder);
	assert_non_null(copy);
	assert_int_equal(copy->size, sizeof(struct pt_config));
	assert_ptr_equal(copy->begin, buf);
	assert_ptr_equal(copy->end, buf + sizeof(buf));
	assert_null(copy->decode.callback);
	assert_null(copy->decode.context);
	assert_int_equal(copy->errata.skz84, 0);
	assert_int_equal(copy->cpu.vendor, pcv_unknown);
	assert_int_equal(copy->mtc_freq, 0);
	/* The errata bit the caller did not pass does not apply. */
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
	                 -pte_bad_packet);
	pt_pkt_free_decoder(decoder);

	/* Up to and including the errata. */
	config.size = offsetof(struct pt_config, cpuid_0x15_eax);
	decoder = pt_pkt_alloc_decoder(&config);
	assert_non_null(decoder);
	copy = pt_pkt_get_config(decoder);
	assert_int_equal(copy->errata.skz84, 1);
	assert_int_equal(copy->cpuid_0x15_eax, 0);
	assert_int_equal(copy->nom_freq, 0);
	assert_int_equal(copy->addr_filter.config.addr_cfg, 0);
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 8);
	assert_int_equal(packet.type, ppt_invalid);
	pt_pkt_free_decoder(decoder);
}

/* A caller that knows a newer, bigger pt_config: the extra bytes are
 * ignored. */
static void test_config_bigger(void **state)
{
	uint8_t buf[4] = {0};
	struct big_config {
		struct pt_config config;
		uint8_t future[128];
	} * big;
	struct pt_packet_decoder *decoder;
	struct pt_encoder *encoder;
	const struct pt_config *copy;

	(void)state;
	big = malloc(sizeof(*big));
	assert_non_null(big);
	memset(big, 0xa5, sizeof(*big));
	pt_config_init(&big->config);
	big->config.size = sizeof(*big);
	big->config.begin = buf;
	big->config.end = buf + sizeof(buf);
	big->config.mtc_freq = 3;
	big->config.cpu.vendor = pcv_intel;
	big->config.cpu.family = 6;
	big->config.errata.skd007 = 1;

	decoder = pt_pkt_alloc_decoder(&big->config);
	assert_non_null(decoder);
	copy = pt_pkt_get_config(decoder);
	assert_int_equal(copy->size, sizeof(struct pt_config));
	assert_ptr_equal(copy->begin, buf);
	assert_int_equal(copy->mtc_freq, 3);
	assert_int_equal(copy->cpu.family, 6);
	assert_int_equal(copy->errata.skd007, 1);
	assert_memory_equal((const uint8_t *)copy + sizeof(copy->size),
	                    (const uint8_t *)&big->config + sizeof(copy->size),
	                    sizeof(struct pt_config) - sizeof(copy->size));
	pt_pkt_free_decoder(decoder);

	encoder = pt_alloc_encoder(&big->config);
	assert_non_null(encoder);
	copy = pt_enc_get_config(encoder);
	assert_int_equal(copy->size, sizeof(struct pt_config));
	assert_int_equal(copy->mtc_freq, 3);
	pt_free_encoder(encoder);
	free(big);
}

struct errata_case {
	uint16_t family;
	uint8_t model;
	const char *errata;
};

/* The errata of each processor, from libipt's table (docs: libipt-notes
 * §2), written as a list of names. */
static const struct errata_case errata_cases[] = {
        {6, 0x3d, "bdm70 bdm64"},
        {6, 0x47, "bdm70 bdm64"},
        {6, 0x4f, "bdm70 bdm64"},
        {6, 0x56, "bdm70 bdm64"},
        {6, 0x4e, "bdm70 skd007 skd022 skd010 skl014 skl168"},
        {6, 0x5e, "bdm70 skd007 skd022 skd010 skl014 skl168"},
        {6, 0x8e, "bdm70 skd007 skd022 skd010 skl014 skl168"},
        {6, 0x9e, "bdm70 skd007 skd022 skd010 skl014 skl168"},
        {6, 0xa5, "bdm70 skd007 skd022 skd010 skl014 skl168"},
        {6, 0xa6, "bdm70 skd007 skd022 skd010 skl014 skl168"},
        {6, 0x55, "bdm70 skl014 skd022 skz84"},
        {6, 0x6a, "bdm70 skl014 skd022 skz84"},
        {6, 0x6c, "bdm70 skl014 skd022 skz84"},
        {6, 0x8f, "bdm70 skd022 skz84"},
        {6, 0xcf, "bdm70 skd022 skz84"},
        {6, 0xad, "bdm70 skd022 skz84"},
        {6, 0xae, "bdm70 skd022 skz84"},
        {0x13, 0x01, "bdm70 skd022 skz84"},
        {6, 0x66, "bdm70 skl014 skd022"},
        {6, 0x7d, "bdm70 skl014 skd022"},
        {6, 0x7e, "bdm70 skl014 skd022"},
        {6, 0x8c, "bdm70 skl014 skd022"},
        {6, 0x8d, "bdm70 skl014 skd022"},
        {6, 0xa7, "bdm70 skl014 skd022"},
        {6, 0xa8, "bdm70 skl014 skd022"},
        {6, 0x97, "bdm70 skd022 apl11"},
        {6, 0x9a, "bdm70 skd022 apl11"},
        {6, 0xba, "bdm70 skd022 apl11"},
        {6, 0xb7, "bdm70 skd022 apl11"},
        {6, 0xbf, "bdm70 skd022 apl11"},
        {6, 0xc5, "bdm70 skd022 apl11"},
        {6, 0xc6, "bdm70 skd022 apl11"},
        {6, 0xb5, "bdm70 skd022 apl11"},
        {6, 0xaa, "bdm70 skd022 apl11"},
        {6, 0xac, "bdm70 skd022 apl11"},
        {6, 0xbd, "bdm70 skd022 apl11"},
        {6, 0xcc, "bdm70 skd022 apl11"},
        {6, 0xd5, "bdm70 skd022 apl11"},
        {0x12, 0x01, "bdm70 skd022 apl11"},
        {0x12, 0x03, "bdm70 skd022 apl11"},
        {6, 0x5c, "apl12 apl11"},
        {6, 0x5f, "apl12 apl11"},
        {6, 0x7a, "apl11"},
        {6, 0x86, "apl11"},
        {6, 0x96, "apl11"},
        {6, 0x9c, "apl11"},
        {6, 0xb6, "apl11"},
        {6, 0xaf, "apl11"},
        {6, 0xdd, "apl11"},
};

static int has(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = strstr(list, name); p; p = strstr(p + 1, name)) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	}
	return 0;
}

static void check_errata(const struct pt_errata *e, const char *list)
{
	size_t i;

	assert_int_equal(e->bdm70, has(list, "bdm70"));
	assert_int_equal(e->bdm64, has(list, "bdm64"));
	assert_int_equal(e->skd007, has(list, "skd007"));
	assert_int_equal(e->skd022, has(list, "skd022"));
	assert_int_equal(e->skd010, has(list, "skd010"));
	assert_int_equal(e->skl014, has(list, "skl014"));
	assert_int_equal(e->apl12, has(list, "apl12"));
	assert_int_equal(e->apl11, has(list, "apl11"));
	assert_int_equal(e->skl168, has(list, "skl168"));
	assert_int_equal(e->skz84, has(list, "skz84"));
	for (i = 0; i < ARRAY_SIZE(e->reserved); ++i)
		assert_int_equal(e->reserved[i], 0);
}

static void test_cpu_errata(void **state)
{
	struct pt_errata errata, before;
	struct pt_cpu cpu;
	size_t i;
	unsigned model;

	(void)state;
	memset(&cpu, 0, sizeof(cpu));
	cpu.vendor = pcv_intel;
	for (i = 0; i < ARRAY_SIZE(errata_cases); ++i) {
		unsigned stepping;

		for (stepping = 0; stepping < 16; stepping += 5) {
			cpu.family = errata_cases[i].family;
			cpu.model = errata_cases[i].model;
			cpu.stepping = (uint8_t)stepping;
			memset(&errata, 0, sizeof(errata));
			assert_int_equal(pt_cpu_errata(&errata, &cpu), 0);
			check_errata(&errata, errata_cases[i].errata);
		}
	}

	/* Every other family 6 model is unknown: -pte_bad_cpu and no
	 * errata (the struct is cleared, as by libipt). */
	for (model = 0; model < 256; ++model) {
		int known = 0;

		for (i = 0; i < ARRAY_SIZE(errata_cases); ++i)
			known |= errata_cases[i].family == 6 &&
			         errata_cases[i].model == model;
		if (known)
			continue;
		cpu.family = 6;
		cpu.model = (uint8_t)model;
		memset(&before, 0, sizeof(before));
		memset(&errata, 0xff, sizeof(errata));
		assert_int_equal(pt_cpu_errata(&errata, &cpu), -pte_bad_cpu);
		assert_memory_equal(&errata, &before, sizeof(errata));
	}
	cpu.family = 0x13;
	cpu.model = 0x02;
	assert_int_equal(pt_cpu_errata(&errata, &cpu), -pte_bad_cpu);
	cpu.family = 0x0f;
	cpu.model = 0x4e;
	assert_int_equal(pt_cpu_errata(&errata, &cpu), -pte_bad_cpu);

	/* Not Intel: no errata known. */
	cpu.vendor = pcv_unknown;
	cpu.family = 6;
	cpu.model = 0x4e;
	memset(&errata, 0, sizeof(errata));
	assert_int_equal(pt_cpu_errata(&errata, &cpu), -pte_bad_cpu);
	check_errata(&errata, "");

	/* Bits already set are cleared: the processor's errata only (a
	 * program that passes a struct it did not clear gets them, as with
	 * libipt). */
	cpu.vendor = pcv_intel;
	cpu.model = 0x3d;
	memset(&errata, 0xff, sizeof(errata));
	assert_int_equal(pt_cpu_errata(&errata, &cpu), 0);
	check_errata(&errata, "bdm70 bdm64");

	assert_int_equal(pt_cpu_errata(NULL, &cpu), -pte_invalid);
	assert_int_equal(pt_cpu_errata(&errata, NULL), -pte_invalid);
}

static void test_cpu_parse(void **state)
{
	static const struct {
		const char *s;
		uint16_t family;
		uint8_t model, stepping;
	} good[] = {
	        {"6/78", 6, 78, 0},
	        {"6/0x4e/3", 6, 0x4e, 3},
	        {"6/0x4E", 6, 0x4e, 0},
	        {"0x6/0x9e/0xa", 6, 0x9e, 10},
	        {"6/158/9", 6, 158, 9},
	        {"65535/255/255", 0xffff, 0xff, 0xff},
	        {"0x13/1", 0x13, 1, 0},
	        {"0/0/0", 0, 0, 0},
	        /* A leading zero is decimal, not octal. */
	        {"6/010", 6, 10, 0},
	        {"06/0158/09", 6, 158, 9},
	};
	static const char *const bad[] = {
	        "",
	        "6",
	        "6/",
	        "/78",
	        "6/78/",
	        "6/256",
	        "65536/1",
	        "6/78/256",
	        "6/78x",
	        " 6/78",
	        "6/ 78",
	        "6/-1",
	        "-6/78",
	        "6//78",
	        "6/78/3/1",
	        "abc",
	        "6/0x",
	        "6/0x100",
	        "0x10000/1",
	        "6/78 ",
	        "None",
	        "none ",
	        "6/+78",
	        "6.78",
	        "99999999999999999999/1",
	};
	struct pt_cpu cpu;
	struct pt_errata errata;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); ++i) {
		memset(&cpu, 0xa5, sizeof(cpu));
		if (ptd_cpu_parse(&cpu, good[i].s) != 0)
			fail_msg("\"%s\" does not parse", good[i].s);
		assert_int_equal(cpu.vendor, pcv_intel);
		assert_int_equal(cpu.family, good[i].family);
		assert_int_equal(cpu.model, good[i].model);
		assert_int_equal(cpu.stepping, good[i].stepping);
	}
	for (i = 0; i < ARRAY_SIZE(bad); ++i) {
		if (ptd_cpu_parse(&cpu, bad[i]) != -pte_bad_cpu)
			fail_msg("\"%s\" parses", bad[i]);
	}

	memset(&cpu, 0xa5, sizeof(cpu));
	assert_int_equal(ptd_cpu_parse(&cpu, "none"), 0);
	assert_int_equal(cpu.vendor, pcv_unknown);
	memset(&errata, 0, sizeof(errata));
	assert_int_equal(pt_cpu_errata(&errata, &cpu), -pte_bad_cpu);

	assert_int_equal(ptd_cpu_parse(NULL, "6/78"), -pte_invalid);
	assert_int_equal(ptd_cpu_parse(&cpu, NULL), -pte_invalid);

	/* Parse, then look up: 6/78 is Skylake. */
	assert_int_equal(ptd_cpu_parse(&cpu, "6/78"), 0);
	assert_int_equal(pt_cpu_errata(&errata, &cpu), 0);
	assert_int_equal(errata.skd007, 1);
	assert_int_equal(errata.skl168, 1);
	assert_int_equal(errata.skz84, 0);
}

static void test_errstr(void **state)
{
	const char *seen[pte_bad_cpu + 1];
	int code, other;

	(void)state;
	for (code = pte_ok; code <= pte_bad_cpu; ++code) {
		const char *s = pt_errstr((enum pt_error_code)code);

		assert_non_null(s);
		assert_true(strlen(s) > 0);
		assert_string_not_equal(s, "internal error.");
		for (other = 0; other < code; ++other)
			if (strcmp(seen[other], s) == 0)
				fail_msg("codes %d and %d share \"%s\"", other,
				         code, s);
		seen[code] = s;
	}
	/* The texts libipt prints, where tools compare output. */
	assert_string_equal(pt_errstr(pte_ok), "OK");
	assert_string_equal(pt_errstr(pte_eos), "reached end of trace stream");
	assert_string_equal(pt_errstr(pte_no_time), "no timing information");
	assert_string_equal(pt_errstr(pte_no_cbr), "no core:bus ratio");
	assert_string_equal(pt_errstr(pte_bad_config), "bad configuration");
	assert_string_equal(pt_errstr(pte_bad_query),
	                    "trace stream does not match query");
	assert_string_equal(pt_errstr(pte_nosync), "decoder out of sync");
	assert_string_equal(pt_errstr(pte_bad_opc), "unknown opcode");
	/* Not an error code: libipt's text (the period tells it from
	 * pte_internal's). */
	assert_string_equal(pt_errstr((enum pt_error_code)(pte_bad_cpu + 1)),
	                    "internal error.");
	assert_string_equal(pt_errstr((enum pt_error_code)31),
	                    "internal error.");
	assert_string_equal(pt_errstr((enum pt_error_code) - pte_bad_opc),
	                    "internal error.");
}

static void test_errcode(void **state)
{
	int code;

	(void)state;
	assert_int_equal(pt_errcode(0), pte_ok);
	assert_int_equal(pt_errcode(1), pte_ok);
	assert_int_equal(pt_errcode(16), pte_ok);
	assert_int_equal(pt_errcode(INT32_MAX), pte_ok);
	for (code = pte_ok; code <= pte_bad_cpu; ++code)
		assert_int_equal(pt_errcode(-code), code);
	/* The enumeration values are libipt's. */
	assert_int_equal(pte_eos, 7);
	assert_int_equal(pte_no_time, 15);
	assert_int_equal(pte_no_cbr, 16);
	assert_int_equal(pte_bad_cpu, 27);
}

static void test_version(void **state)
{
	struct pt_version v = pt_library_version();
	char want[32];

	(void)state;
	assert_int_equal(v.major, LIBIPT_VERSION_MAJOR);
	assert_int_equal(v.minor, LIBIPT_VERSION_MINOR);
	assert_int_equal(v.patch, LIBIPT_VERSION_PATCH);
	assert_int_equal(v.major, 2);
	assert_int_equal(v.minor, 2);
	assert_int_equal(LIBIPT_VERSION, 0x202);
	assert_non_null(v.ext);
	snprintf(want, sizeof(want), "%d.%d.%d", PTDECODE_VERSION_MAJOR,
	         PTDECODE_VERSION_MINOR, PTDECODE_VERSION_PATCH);
	assert_string_equal(ptd_version_string(), want);
	assert_non_null(strstr(v.ext, "ptdecode"));
	assert_non_null(strstr(v.ext, want));
	/* As libipt's suffixes: no leading '-' (its tools print one). */
	assert_true(v.ext[0] != '-');
}

/* Packet type names, as ptdump prints them. */
static void test_packet_type_names(void **state)
{
	static const char *const names[] = {
	        "<invalid>", "<unknown>", "pad",     "psb",   "psbend", "fup",
	        "tip",       "tip.pge",   "tip.pgd", "tnt.8", "tnt.64", "mode",
	        "pip",       "vmcs",      "cbr",     "tsc",   "tma",    "mtc",
	        "cyc",       "stop",      "ovf",     "mnt",   "exstop", "mwait",
	        "pwre",      "pwrx",      "ptw",     "cfe",   "evd",    "trig",
	        "bbp",       "bip",       "bep"};
	int type;

	(void)state;
	assert_int_equal(ARRAY_SIZE(names), ppt_bep + 1);
	for (type = ppt_invalid; type <= ppt_bep; ++type) {
		const char *name =
		        ptd_packet_type_name((enum pt_packet_type)type);

		assert_non_null(name);
		assert_string_equal(name, names[type]);
	}
	assert_null(ptd_packet_type_name((enum pt_packet_type)(ppt_bep + 1)));
	assert_null(ptd_packet_type_name((enum pt_packet_type)63));
}

/* The reference: every packet, offset and result that pt_pkt_next() gives
 * from offset 0 to the end, resyncing with pt_pkt_sync_forward() after
 * errors. */
struct reference {
	struct pt_packet packets[600];
	uint64_t offsets[600];
	int results[600];
	size_t n;
};

static void reference_decode(struct reference *ref, uint8_t *buf, size_t size,
                             const struct pt_errata *errata)
{
	struct pt_packet_decoder *decoder = ptd_t_decoder(buf, size, errata);

	ref->n = 0;
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	for (;;) {
		int errcode;

		assert_true(ref->n < ARRAY_SIZE(ref->packets));
		assert_int_equal(
		        pt_pkt_get_offset(decoder, &ref->offsets[ref->n]), 0);
		errcode = pt_pkt_next(decoder, &ref->packets[ref->n],
		                      sizeof(ref->packets[ref->n]));
		ref->results[ref->n++] = errcode;
		if (errcode == -pte_eos)
			break;
		if (errcode < 0 && pt_pkt_sync_forward(decoder) < 0)
			break;
	}
	pt_pkt_free_decoder(decoder);
}

/* Decode the same with ptd_pkt_next_batch(@count) and compare; with the
 * portable loop if @portable, else with the loop the CPU supports best. */
static void check_batch_loop(const struct reference *ref, uint8_t *buf,
                             size_t size, const struct pt_errata *errata,
                             size_t count, int portable)
{
	struct pt_packet_decoder *decoder = ptd_t_decoder(buf, size, errata);
	struct pt_packet packets[64];
	uint64_t offsets[64];
	size_t i = 0;
	/* How many packets short of @count the previous call stopped. */
	size_t short_by = 0;

	assert_true(count <= ARRAY_SIZE(packets));
	if (portable)
		decoder->avx2 = 0;
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	while (i < ref->n) {
		/* Offsets are optional: leave them out for one count. */
		uint64_t *want_offsets = (count == 3) ? NULL : offsets;
		int got = ptd_pkt_next_batch(decoder, packets, count,
		                             want_offsets);
		int k;

		if (ref->results[i] < 0) {
			/* The error comes alone, first in its call. */
			if (got != ref->results[i])
				fail_msg("count %zu, ref %zu: batch %d, "
				         "expected %d",
				         count, i, got, ref->results[i]);
			if (i + 1 == ref->n)
				break;
			assert_int_equal(pt_pkt_sync_forward(decoder), 0);
			short_by = 0;
			++i;
			continue;
		}
		assert_true(got > 0);
		assert_true((size_t)got <= count);
		/* A call stops at most 7 packets short where more follow
		 * (ptdecode.h): this call found more after the last one. */
		if (short_by > 7)
			fail_msg("count %zu, packet %zu: a call returned %zu "
			         "packets short",
			         count, i, short_by);
		short_by = count - (size_t)got;
		for (k = 0; k < got; ++k, ++i) {
			const char *diff;

			assert_true(i < ref->n);
			if (ref->results[i] < 0)
				fail_msg("count %zu: batch decoded packet %zu "
				         "where pt_pkt_next failed (%d)",
				         count, i, ref->results[i]);
			diff = ptd_pkt_diff(&packets[k], &ref->packets[i]);
			if (diff)
				fail_msg("count %zu, packet %zu: %s differs",
				         count, i, diff);
			if (want_offsets) {
				if (offsets[k] != ref->offsets[i])
					fail_msg(
					        "count %zu, packet %zu: offset "
					        "%llu, expected %llu",
					        count, i,
					        (unsigned long long)offsets[k],
					        (unsigned long long)
					                ref->offsets[i]);
			}
		}
		/* The decoder is where pt_pkt_next() would be. */
		if (i < ref->n) {
			uint64_t offset;

			assert_int_equal(pt_pkt_get_offset(decoder, &offset),
			                 0);
			assert_int_equal(offset, ref->offsets[i]);
		}
	}
	pt_pkt_free_decoder(decoder);
}

/* check_batch_loop() with both loops. */
static void check_batch(const struct reference *ref, uint8_t *buf, size_t size,
                        const struct pt_errata *errata, size_t count)
{
	check_batch_loop(ref, buf, size, errata, count, 0);
	check_batch_loop(ref, buf, size, errata, count, 1);
}

/* A stream with runs of PADs and TNT-8s (the batch fast paths), blocks
 * where TNT-8 bytes are BIPs, and errors in the middle. */
static size_t batch_stream(uint8_t *buf, size_t max)
{
	struct pt_packet p[160];
	size_t n = 0, size, i;

#define ADD(t)                                                                 \
	do {                                                                   \
		assert_true(n < ARRAY_SIZE(p));                                \
		p[n++] = ptd_t_packet(t);                                      \
	} while (0)
#define PL p[n - 1].payload
	ADD(ppt_psb);
	ADD(ppt_psbend);
	for (i = 0; i < 40; ++i)
		ADD(ppt_pad);
	for (i = 0; i < 30; ++i) {
		ADD(ppt_tnt_8);
		PL.tnt.bit_size = (uint8_t)(1 + i % 6);
		PL.tnt.payload = i & ((1u << PL.tnt.bit_size) - 1);
	}
	ADD(ppt_tip);
	PL.ip.ipc = pt_ipc_update_32;
	PL.ip.ip = 0x1000;
	ADD(ppt_bbp);
	PL.bbp.sz = 1;
	for (i = 0; i < 5; ++i) {
		ADD(ppt_bip);
		PL.bip.id = (uint8_t)i;
		PL.bip.payload = i;
		ADD(ppt_pad);
	}
	ADD(ppt_bep);
	for (i = 0; i < 9; ++i) {
		ADD(ppt_tnt_8);
		PL.tnt.bit_size = 1;
		ADD(ppt_cyc);
		PL.cyc.value = i << (i * 5);
	}
	ADD(ppt_psb);
	for (i = 0; i < 7; ++i)
		ADD(ppt_pad);
	ADD(ppt_mtc);
	ADD(ppt_tsc);
	ADD(ppt_tnt_64);
	PL.tnt.bit_size = 33;
	ADD(ppt_psb);
	ADD(ppt_psbend);
	ADD(ppt_pad);
#undef PL
#undef ADD
	size = ptd_t_encode(buf, max, p, n);
	return size;
}

static void test_batch_equivalence(void **state)
{
	static const size_t counts[] = {1, 2, 3, 7, 8, 16, 33, 64};
	uint8_t enc[1024];
	struct reference *ref;
	size_t size, c, corrupt;

	(void)state;
	ref = malloc(sizeof(*ref));
	assert_non_null(ref);
	size = batch_stream(enc, sizeof(enc));

	/* The stream as it is, then with an unknown opcode at a few places
	 * (in a PAD run, a TNT run, the block, the second segment), then
	 * cut short. */
	for (corrupt = 0; corrupt < 7; ++corrupt) {
		static const size_t at[] = {0, 30, 70, 101, 0, 0, 0};
		size_t len = size;
		uint8_t *buf;

		if (corrupt >= 1 && corrupt <= 3)
			assert_true(at[corrupt] < size);
		if (corrupt == 4)
			len = size - 1; /* cuts the last PAD */
		if (corrupt == 5)
			len = size / 2;
		buf = ptd_t_dup(enc, len);
		if (corrupt >= 1 && corrupt <= 3)
			buf[at[corrupt]] = 0x05;
		if (corrupt == 6)
			buf[size - 3] = 0x05; /* the last PSBEND */
		reference_decode(ref, buf, len, NULL);
		assert_true(ref->n > 10);
		for (c = 0; c < ARRAY_SIZE(counts); ++c)
			check_batch(ref, buf, len, NULL, counts[c]);
		free(buf);
	}
	free(ref);
}

static void test_batch_api(void **state)
{
	static const uint8_t bytes[] = {0x00, 0x00, 0x05, 0x00};
	uint8_t *buf = ptd_t_dup(bytes, sizeof(bytes));
	struct pt_packet_decoder *decoder;
	struct pt_packet packets[4];
	uint64_t offsets[4], offset;

	(void)state;
	decoder = ptd_t_decoder(buf, sizeof(bytes), NULL);
	assert_int_equal(ptd_pkt_next_batch(decoder, packets, 4, offsets),
	                 -pte_nosync);
	assert_int_equal(ptd_pkt_next_batch(NULL, packets, 4, offsets),
	                 -pte_invalid);
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	assert_int_equal(ptd_pkt_next_batch(decoder, NULL, 4, offsets),
	                 -pte_invalid);
	assert_int_equal(ptd_pkt_next_batch(decoder, packets, 0, offsets),
	                 -pte_invalid);

	/* Two PADs, then the error, handed to the next call. */
	assert_int_equal(ptd_pkt_next_batch(decoder, packets, 4, offsets), 2);
	assert_int_equal(offsets[0], 0);
	assert_int_equal(offsets[1], 1);
	assert_int_equal(pt_pkt_get_offset(decoder, &offset), 0);
	assert_int_equal(offset, 2);
	assert_int_equal(ptd_pkt_next_batch(decoder, packets, 4, offsets),
	                 -pte_bad_opc);
	assert_int_equal(ptd_pkt_next_batch(decoder, packets, 4, offsets),
	                 -pte_bad_opc);
	assert_int_equal(pt_pkt_next(decoder, &packets[0], sizeof(packets[0])),
	                 -pte_bad_opc);
	assert_int_equal(pt_pkt_get_offset(decoder, &offset), 0);
	assert_int_equal(offset, 2);
	assert_int_equal(pt_pkt_sync_set(decoder, 3), 0);
	assert_int_equal(ptd_pkt_next_batch(decoder, packets, 4, NULL), 1);
	assert_int_equal(ptd_pkt_next_batch(decoder, packets, 4, NULL),
	                 -pte_eos);
	pt_pkt_free_decoder(decoder);
	free(buf);
}

/* Under SKD007, the OVF that replaces a CYC: the batch API reports the
 * same offset as pt_pkt_get_offset() before pt_pkt_next() does (the CYC's
 * first byte, where the decoder stood; at first it reported the OVF's own
 * 02: found by fuzz_packet). */
static void test_batch_skd007_offset(void **state)
{
	static const uint8_t bytes[] = {0x00, 0x07, 0x02, 0xf3, 0x00};
	uint8_t *buf = ptd_t_dup(bytes, sizeof(bytes));
	struct pt_errata errata;
	struct reference *ref;

	(void)state;
	memset(&errata, 0, sizeof(errata));
	errata.skd007 = 1;
	ref = malloc(sizeof(*ref));
	assert_non_null(ref);
	reference_decode(ref, buf, sizeof(bytes), &errata);
	assert_int_equal(ref->n, 4);
	assert_int_equal(ref->packets[1].type, ppt_ovf);
	assert_int_equal(ref->offsets[1], 1);
	check_batch(ref, buf, sizeof(bytes), &errata, 2);
	check_batch(ref, buf, sizeof(bytes), &errata, 4);
	free(ref);
	free(buf);
}

/* SKD007 under the batch API, apart from the offset: same packets, same
 * positions. */
static void test_batch_skd007(void **state)
{
	static const uint8_t bytes[] = {0x00, 0x07, 0x02, 0xf3, 0x00};
	uint8_t *buf = ptd_t_dup(bytes, sizeof(bytes));
	struct pt_packet_decoder *decoder;
	struct pt_packet packets[4];
	struct pt_errata errata;
	uint64_t offset;

	(void)state;
	memset(&errata, 0, sizeof(errata));
	errata.skd007 = 1;
	decoder = ptd_t_decoder(buf, sizeof(bytes), &errata);
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	assert_int_equal(ptd_pkt_next_batch(decoder, packets, 2, NULL), 2);
	assert_int_equal(packets[0].type, ppt_pad);
	assert_int_equal(packets[1].type, ppt_ovf);
	assert_int_equal(packets[1].size, 2);
	assert_int_equal(pt_pkt_get_offset(decoder, &offset), 0);
	assert_int_equal(offset, 4);
	assert_int_equal(ptd_pkt_next_batch(decoder, packets, 4, NULL), 1);
	assert_int_equal(packets[0].type, ppt_pad);
	pt_pkt_free_decoder(decoder);
	free(buf);
}

/* Every pair of first bytes, with and without SKD007, after runs of PADs of
 * several lengths (so at many places of the batch decoder's blocks and
 * lanes) and before an OVF extension byte and more PADs: the batch decoder
 * finds the same packets as pt_pkt_next().  The buffer is long enough for
 * the batch decoder's SIMD loop (pkt_batch_avx2.c) to run over several of
 * its chunks. */
static void test_batch_opcode_pairs(void **state)
{
	static const size_t runs[] = {0,   1,   3,   4,   5,   15,  16,
	                              30,  31,  32,  33,  60,  127, 128,
	                              130, 159, 160, 190, 250, 300};
	/* Several chunks of the SIMD loop, and fewer PADs than the
	 * reference has room for. */
	enum { SIZE = 560 };
	struct reference *ref;
	struct pt_errata errata;
	uint8_t *buf;
	unsigned b0, b1;
	int skd007;

	(void)state;
	ref = malloc(sizeof(*ref));
	buf = malloc(SIZE);
	assert_non_null(ref);
	assert_non_null(buf);
	for (skd007 = 0; skd007 < 2; ++skd007) {
		memset(&errata, 0, sizeof(errata));
		errata.skd007 = (uint32_t)skd007;
		for (b0 = 0; b0 < 256; ++b0) {
			for (b1 = 0; b1 < 256; ++b1) {
				size_t at =
				        runs[(b0 * 7 + b1) % ARRAY_SIZE(runs)];

				memset(buf, 0, SIZE);
				buf[at] = (uint8_t)b0;
				buf[at + 1] = (uint8_t)b1;
				buf[at + 2] = 0xf3; /* OVF after 0x02 */
				reference_decode(ref, buf, SIZE, &errata);
				check_batch(ref, buf, SIZE, &errata, 64);
			}
		}
	}
	free(buf);
	free(ref);
}

/* pt_pkt_next() with the packet size of an older or newer caller. */
static void test_next_packet_size(void **state)
{
	static const uint8_t bytes[] = {0x19, 1, 2, 3, 4, 5, 6, 7, 0x00};
	uint8_t *buf = ptd_t_dup(bytes, sizeof(bytes));
	struct pt_packet_decoder *decoder;
	struct pt_packet ref;
	struct {
		struct pt_packet packet;
		uint8_t more[40];
	} big;
	size_t small, i;

	(void)state;
	decoder = ptd_t_decoder(buf, sizeof(bytes), NULL);
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	assert_int_equal(pt_pkt_next(decoder, &ref, sizeof(ref)), 8);
	assert_int_equal(ref.type, ppt_tsc);
	assert_int_equal(ref.payload.tsc.tsc, UINT64_C(0x07060504030201));

	/* Bigger: our packet, then zeros. */
	memset(&big, 0xa5, sizeof(big));
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	assert_int_equal(pt_pkt_next(decoder, &big.packet, sizeof(big)), 8);
	ptd_t_assert_packet(&big.packet, &ref);
	for (i = 0; i < sizeof(big.more); ++i)
		assert_int_equal(big.more[i], 0);

	/* Smaller: the leading bytes, nothing after them. */
	for (small = 0; small < sizeof(ref); ++small) {
		union {
			struct pt_packet packet;
			uint8_t bytes[sizeof(struct pt_packet) + 8];
		} out;

		memset(&out, 0xa5, sizeof(out));
		assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
		assert_int_equal(pt_pkt_next(decoder, &out.packet, small), 8);
		assert_memory_equal(out.bytes, &ref, small);
		for (i = small; i < sizeof(out.bytes); ++i)
			assert_int_equal(out.bytes[i], 0xa5);
		assert_int_equal(pt_pkt_next(decoder, &out.packet, small), 1);
	}
	pt_pkt_free_decoder(decoder);
	free(buf);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_config_init),
	        cmocka_unit_test(test_config_bounds),
	        cmocka_unit_test(test_config_smaller),
	        cmocka_unit_test(test_config_bigger),
	        cmocka_unit_test(test_cpu_errata),
	        cmocka_unit_test(test_cpu_parse),
	        cmocka_unit_test(test_errstr),
	        cmocka_unit_test(test_errcode),
	        cmocka_unit_test(test_version),
	        cmocka_unit_test(test_packet_type_names),
	        cmocka_unit_test(test_batch_equivalence),
	        cmocka_unit_test(test_batch_api),
	        cmocka_unit_test(test_batch_skd007_offset),
	        cmocka_unit_test(test_batch_skd007),
	        cmocka_unit_test(test_batch_opcode_pairs),
	        cmocka_unit_test(test_next_packet_size),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
