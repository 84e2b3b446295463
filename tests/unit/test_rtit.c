/* SPDX-License-Identifier: BSD-3-Clause */
/* Configuration from trace-control state (ptd_rtit.h, lib/common/rtit.c):
 * the IA32_RTIT_CTL layout bit by bit, reserved bits of every register,
 * CPUID-enumerated features and encodings, address ranges, the CTC:TSC
 * ratio for MTC, notes, the XSAVE trace component and perf's attr.config. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ptdecode/ptdecode.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A processor with every Intel PT feature, all encodings and four address
 * ranges, a 24 MHz crystal at 100/2 and nominal ratio 12. */
static struct ptd_rtit_cpu full_cpu(void)
{
	struct ptd_rtit_cpu c;

	memset(&c, 0, sizeof(c));
	c.cpu.vendor = pcv_intel;
	c.cpu.family = 6;
	c.cpu.model = 0x4e; /* Skylake client */
	c.cpu.stepping = 3;
	c.have = ptd_rtit_have_cpuid_0x14;
	c.cpuid_0x14_0_eax = 1;
	c.cpuid_0x14_0_ebx = 0x1ff;
	c.cpuid_0x14_0_ecx = 0x8000000f;
	c.cpuid_0x14_1_eax = 0xffff0004;
	c.cpuid_0x14_1_ebx = 0xffffffff;
	c.cpuid_0x15_eax = 2;
	c.cpuid_0x15_ebx = 100;
	c.cpuid_0x15_ecx = 24000000;
	c.platform_info = 0x0c00;
	c.maxphyaddr = 39;
	return c;
}

/* The CPUID leaf 0x14 of a Skylake client (i7-6700K class): CR3 filter,
 * PSB/CYC, IP filter, MTC, PTWRITE absent, power events absent; ToPA,
 * multiple ToPA entries, single range; 2 ranges, MTC periods 0x249, CYC
 * thresholds 0x3fff, PSB periods 0x3f. */
static struct ptd_rtit_cpu skl_cpu(void)
{
	struct ptd_rtit_cpu c = full_cpu();

	c.cpuid_0x14_0_ebx = 0xf;
	c.cpuid_0x14_0_ecx = 0x7;
	c.cpuid_0x14_1_eax = 0x02490002;
	c.cpuid_0x14_1_ebx = 0x003f3fff;
	c.cpuid_0x15_ecx = 0;
	return c;
}

/* A plain running trace: TraceEn, OS, User, ToPA, TSCEn, BranchEn. */
static struct ptd_rtit_msrs plain_msrs(void)
{
	struct ptd_rtit_msrs m;

	memset(&m, 0, sizeof(m));
	m.ctl = PTD_RTIT_CTL_TRACEEN | PTD_RTIT_CTL_OS | PTD_RTIT_CTL_USER |
	        PTD_RTIT_CTL_TOPA | PTD_RTIT_CTL_TSCEN | PTD_RTIT_CTL_BRANCHEN;
	m.status = PTD_RTIT_STATUS_FILTEREN | PTD_RTIT_STATUS_CONTEXTEN |
	           PTD_RTIT_STATUS_TRIGGEREN;
	m.output_base = 0x12345000;
	m.output_mask_ptrs = 0x7f;
	return m;
}

/* Run ptd_rtit_config() on a copy of @config, expect @err, and on error
 * check that nothing was written. */
static struct ptd_rtit_diag run(int err, const struct ptd_rtit_msrs *m,
                                const struct ptd_rtit_cpu *c)
{
	struct pt_config config, before;
	struct ptd_rtit_trace trace, trace_before;
	struct ptd_rtit_diag diag;

	pt_config_init(&config);
	config.mtc_freq = 0xee;
	config.nom_freq = 0xdd;
	before = config;
	memset(&trace, 0x5a, sizeof(trace));
	trace_before = trace;
	memset(&diag, 0x5a, sizeof(diag));

	assert_int_equal(ptd_rtit_config(&config, &trace, &diag, m, c), err);
	assert_int_equal(diag.error, err);
	if (err < 0) {
		assert_memory_equal(&config, &before, sizeof(config));
		assert_memory_equal(&trace, &trace_before, sizeof(trace));
		assert_true(diag.message[0] != '\0');
		assert_non_null(
		        memchr(diag.message, '\0', sizeof(diag.message)));
	} else {
		assert_string_equal(diag.message, "");
		assert_int_equal(diag.msr, 0);
		assert_true(diag.bits == 0);
		assert_int_equal(diag.notes, trace.notes);
	}
	return diag;
}

static void expect_msg(const struct ptd_rtit_diag *d, const char *part)
{
	if (!strstr(d->message, part))
		fail_msg("message \"%s\" lacks \"%s\"", d->message, part);
}

/* The Skylake perf.data of the corpus: attr.config 0x300e601, user and
 * kernel, CPUID 0x15 100/2, nominal ratio 12. */
static void test_perf_sample(void **state)
{
	struct ptd_rtit_cpu c = skl_cpu();
	struct ptd_rtit_msrs m;
	struct ptd_rtit_trace t;
	struct ptd_rtit_diag d;
	struct pt_config config;
	uint8_t buf[4];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.output_mask_ptrs = 0x7f;
	assert_int_equal(ptd_rtit_ctl_from_perf(&m.ctl, 0x300e601, 0, 0), 0);
	assert_true(m.ctl == (0x300e601ull | PTD_RTIT_CTL_OS |
	                      PTD_RTIT_CTL_USER | PTD_RTIT_CTL_TOPA));

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + sizeof(buf);
	config.flags.variant.query.keep_tcal_on_ovf = 1;
	assert_int_equal(ptd_rtit_config(&config, &t, &d, &m, &c), 0);

	/* What the decoder needs. */
	assert_ptr_equal(config.begin, buf);
	assert_ptr_equal(config.end, buf + sizeof(buf));
	assert_int_equal(config.flags.variant.query.keep_tcal_on_ovf, 1);
	assert_int_equal(config.cpu.vendor, pcv_intel);
	assert_int_equal(config.cpu.family, 6);
	assert_int_equal(config.cpu.model, 0x4e);
	assert_int_equal(config.cpu.stepping, 3);
	assert_int_equal(config.errata.skd007, 1);
	assert_int_equal(config.errata.skl168, 1);
	assert_int_equal(config.errata.bdm70, 1);
	assert_int_equal(config.errata.skz84, 0);
	assert_int_equal(config.cpuid_0x15_eax, 2);
	assert_int_equal(config.cpuid_0x15_ebx, 100);
	assert_int_equal(config.mtc_freq, 3);
	assert_int_equal(config.nom_freq, 12);
	assert_true(config.addr_filter.config.addr_cfg == 0);

	/* The decoded state. */
	assert_int_equal(t.trace_en, 1);
	assert_int_equal(t.cyc_en, 0);
	assert_int_equal(t.os, 1);
	assert_int_equal(t.user, 1);
	assert_int_equal(t.topa, 1);
	assert_int_equal(t.mtc_en, 1);
	assert_int_equal(t.tsc_en, 1);
	assert_int_equal(t.dis_retc, 0);
	assert_int_equal(t.branch_en, 1);
	assert_int_equal(t.mtc_freq, 3);
	assert_int_equal(t.mtc_period, 8);
	assert_int_equal(t.psb_freq, 3);
	assert_true(t.psb_period == 16384);
	assert_int_equal(t.cyc_thresh, 0);
	assert_int_equal(t.cyc_threshold, 0);
	assert_int_equal(t.nom_freq, 12);
	assert_true(t.tsc_hz == 1200000000ull); /* no crystal Hz: 12 x 100 */
	assert_int_equal(t.lip, 0);
	assert_int_equal(d.notes, 0);
	assert_int_equal(t.notes, 0);
}

static void test_ctl_bits(void **state)
{
	struct ptd_rtit_cpu c = full_cpu();
	struct ptd_rtit_msrs m = plain_msrs();
	struct ptd_rtit_trace t;
	struct pt_config config;

	(void)state;
	m.ctl = ~(PTD_RTIT_CTL_RESERVED | PTD_RTIT_CTL_ADDR_CFG(0) |
	          PTD_RTIT_CTL_ADDR_CFG(1) | PTD_RTIT_CTL_ADDR_CFG(2) |
	          PTD_RTIT_CTL_ADDR_CFG(3) | PTD_RTIT_CTL_FABRICEN);
	m.ctl |= (2ull << 32) | (1ull << 36) | (2ull << 40) | (1ull << 44);
	m.ctl &= ~(0xfull << 14);
	m.ctl |= 9ull << 14;
	m.ctl &= ~(0xfull << 19);
	m.ctl |= 5ull << 19;
	m.ctl &= ~(0xfull << 24);
	m.ctl |= 0xaull << 24;
	m.addr_a[0] = 0x1000;
	m.addr_b[0] = 0x2000;
	m.addr_a[1] = 0x400000;
	m.addr_b[1] = 0x400fff;
	m.addr_a[2] = 0xffffffff81000000ull;
	m.addr_b[2] = 0xffffffff82000000ull;
	m.addr_a[3] = 0x7fff0000;
	m.addr_b[3] = 0x7fff0000;
	m.cr3_match = 0x1234000;

	pt_config_init(&config);
	assert_int_equal(ptd_rtit_config(&config, &t, NULL, &m, &c), 0);
	assert_int_equal(t.trace_en, 1);
	assert_int_equal(t.cyc_en, 1);
	assert_int_equal(t.os, 1);
	assert_int_equal(t.user, 1);
	assert_int_equal(t.pwr_evt_en, 1);
	assert_int_equal(t.fup_on_ptw, 1);
	assert_int_equal(t.fabric_en, 0);
	assert_int_equal(t.cr3_filter, 1);
	assert_int_equal(t.topa, 1);
	assert_int_equal(t.mtc_en, 1);
	assert_int_equal(t.tsc_en, 1);
	assert_int_equal(t.dis_retc, 1);
	assert_int_equal(t.ptw_en, 1);
	assert_int_equal(t.branch_en, 1);
	assert_int_equal(t.event_en, 1);
	assert_int_equal(t.dis_tnt, 1);
	assert_int_equal(t.inject_psb_pmi_on_enable, 1);
	assert_int_equal(t.mtc_freq, 9);
	assert_int_equal(t.mtc_period, 512);
	assert_int_equal(t.cyc_thresh, 5);
	assert_int_equal(t.cyc_threshold, 16);
	assert_int_equal(t.psb_freq, 10);
	assert_true(t.psb_period == (1ull << 21));
	assert_int_equal(t.addr_cfg[0], 2);
	assert_int_equal(t.addr_cfg[1], 1);
	assert_int_equal(t.addr_cfg[2], 2);
	assert_int_equal(t.addr_cfg[3], 1);
	assert_true(t.cr3_match == 0x1234000);
	assert_int_equal(t.lip, 1);
	assert_true(t.tsc_hz == 1200000000ull);

	assert_int_equal(config.mtc_freq, 9);
	assert_true(config.addr_filter.config.addr_cfg == 0x1212);
	assert_int_equal(config.addr_filter.config.ctl.addr0_cfg, 2);
	assert_int_equal(config.addr_filter.config.ctl.addr1_cfg, 1);
	assert_int_equal(config.addr_filter.config.ctl.addr2_cfg, 2);
	assert_int_equal(config.addr_filter.config.ctl.addr3_cfg, 1);
	assert_true(config.addr_filter.addr0_a == 0x1000);
	assert_true(config.addr_filter.addr0_b == 0x2000);
	assert_true(config.addr_filter.addr1_a == 0x400000);
	assert_true(config.addr_filter.addr1_b == 0x400fff);
	assert_true(config.addr_filter.addr2_a == 0xffffffff81000000ull);
	assert_true(config.addr_filter.addr2_b == 0xffffffff82000000ull);
	assert_true(config.addr_filter.addr3_a == 0x7fff0000);
	assert_true(config.addr_filter.addr3_b == 0x7fff0000);
	assert_int_equal(t.notes & ptd_rtit_note_no_tnt, ptd_rtit_note_no_tnt);
}

/* Every single CTL bit on top of a plain trace, on a processor with every
 * feature: refused exactly when reserved or when it makes an ADDRn_CFG
 * above 2. */
static void test_ctl_each_bit(void **state)
{
	struct ptd_rtit_cpu c = full_cpu();
	unsigned b;

	(void)state;
	for (b = 0; b < 64; ++b) {
		struct ptd_rtit_msrs m = plain_msrs();
		uint64_t bit = 1ull << b;
		int bad_cfg = b >= 32 && b < 48 && (b % 4) >= 2;
		int bad = (bit & PTD_RTIT_CTL_RESERVED) || bad_cfg;
		struct ptd_rtit_diag d;

		m.ctl |= bit;
		d = run(bad ? -pte_bad_config : 0, &m, &c);
		if (!bad)
			continue;
		assert_int_equal(d.msr, PTD_MSR_IA32_RTIT_CTL);
		if (bad_cfg) {
			char name[32];

			snprintf(name, sizeof(name), "ADDR%u_CFG",
			         (b - 32) / 4);
			expect_msg(&d, name);
			assert_true(d.bits ==
			            PTD_RTIT_CTL_ADDR_CFG((b - 32) / 4));
		} else {
			char num[24];

			snprintf(num, sizeof(num), "reserved bit %u set", b);
			expect_msg(&d, num);
			assert_true(d.bits == bit);
		}
	}
}

static void test_ctl_reserved_list(void **state)
{
	struct ptd_rtit_cpu c = full_cpu();
	struct ptd_rtit_msrs m = plain_msrs();
	struct ptd_rtit_diag d;

	(void)state;
	m.ctl |= PTD_RTIT_CTL_RESERVED;
	d = run(-pte_bad_config, &m, &c);
	assert_true(d.bits == PTD_RTIT_CTL_RESERVED);
	expect_msg(&d, "reserved bits 63:57, 54:48, 30:28, 23, 18 set");
	assert_true(PTD_RTIT_CTL_RESERVED == 0xfe7f000070840000ull);
}

static void test_addr_cfg(void **state)
{
	struct ptd_rtit_cpu c = full_cpu();
	struct ptd_rtit_msrs m;
	struct ptd_rtit_diag d;
	unsigned n, v;

	(void)state;
	for (n = 0; n < 4; ++n) {
		for (v = 0; v < 16; ++v) {
			m = plain_msrs();
			m.ctl |= (uint64_t)v << PTD_RTIT_CTL_ADDR_CFG_SHIFT(n);
			d = run(v <= 2 ? 0 : -pte_bad_config, &m, &c);
			if (v > 2) {
				expect_msg(&d, "valid are 0 (off), 1 (filter) "
				               "and 2 (trace stop)");
				assert_true(d.bits == PTD_RTIT_CTL_ADDR_CFG(n));
			}
		}
	}

	/* Ranges beyond what the processor has. */
	c.cpuid_0x14_1_eax = (c.cpuid_0x14_1_eax & ~7u) | 2;
	m = plain_msrs();
	m.ctl |= 1ull << PTD_RTIT_CTL_ADDR_CFG_SHIFT(1);
	run(0, &m, &c);
	m.ctl |= 1ull << PTD_RTIT_CTL_ADDR_CFG_SHIFT(2);
	d = run(-pte_bad_config, &m, &c);
	expect_msg(&d, "ADDR2_CFG (bits 43:40) = 1, but the processor has 2 "
	               "address ranges");
	/* No sub-leaf 1: no ranges at all. */
	c = full_cpu();
	c.cpuid_0x14_0_eax = 0;
	m = plain_msrs();
	m.ctl |= 2ull << PTD_RTIT_CTL_ADDR_CFG_SHIFT(0);
	d = run(-pte_bad_config, &m, &c);
	expect_msg(&d, "has 0 address ranges");
	expect_msg(&d, "sub-leaf 1 is not enumerated");
	/* Without CPUID leaf 0x14 nothing limits the ranges. */
	c.have = 0;
	m.ctl |= 1ull << PTD_RTIT_CTL_ADDR_CFG_SHIFT(3);
	d = run(0, &m, &c);
	assert_true(d.notes & ptd_rtit_note_no_cpuid_0x14);
}

static void test_addr_ranges(void **state)
{
	struct ptd_rtit_cpu c = full_cpu();
	struct ptd_rtit_msrs m;
	struct ptd_rtit_diag d;
	unsigned n;

	(void)state;
	for (n = 0; n < 4; ++n) {
		/* A > B is refused only for a range in use. */
		m = plain_msrs();
		m.addr_a[n] = 0x2000;
		m.addr_b[n] = 0x1000;
		run(0, &m, &c);
		m.ctl |= 1ull << PTD_RTIT_CTL_ADDR_CFG_SHIFT(n);
		d = run(-pte_bad_config, &m, &c);
		assert_int_equal(d.msr, PTD_MSR_IA32_RTIT_ADDR0_A + 2 * n);
		expect_msg(&d, "is above");
		m.ctl &= ~PTD_RTIT_CTL_ADDR_CFG(n);
		m.ctl |= 2ull << PTD_RTIT_CTL_ADDR_CFG_SHIFT(n);
		run(-pte_bad_config, &m, &c);
		/* A single address is a valid range. */
		m.addr_b[n] = 0x2000;
		run(0, &m, &c);

		/* Non-canonical addresses are refused, in use or not. */
		m = plain_msrs();
		m.addr_a[n] = 0x0100000000000000ull;
		d = run(-pte_bad_config, &m, &c);
		assert_int_equal(d.msr, PTD_MSR_IA32_RTIT_ADDR0_A + 2 * n);
		expect_msg(&d, "not a canonical address");
		m = plain_msrs();
		m.addr_b[n] = 0xfe00000000000000ull;
		d = run(-pte_bad_config, &m, &c);
		assert_int_equal(d.msr, PTD_MSR_IA32_RTIT_ADDR0_A + 2 * n + 1);
		/* 57-bit canonical addresses are fine. */
		m = plain_msrs();
		m.addr_a[n] = 0x00ff000000000000ull;
		m.addr_b[n] = 0xff00000000000000ull;
		run(0, &m, &c);
	}
}

static void test_mtc_ratio(void **state)
{
	struct ptd_rtit_cpu c = full_cpu();
	struct ptd_rtit_msrs m = plain_msrs();
	struct ptd_rtit_diag d;
	struct pt_config config;

	(void)state;
	m.ctl |= PTD_RTIT_CTL_MTCEN | (3ull << PTD_RTIT_CTL_MTCFREQ_SHIFT);
	run(0, &m, &c);

	c.cpuid_0x15_ebx = 0;
	d = run(-pte_bad_config, &m, &c);
	assert_true(d.bits == PTD_RTIT_CTL_MTCEN);
	expect_msg(&d, "MTCEn (bit 9) is set, but the CTC:TSC ratio "
	               "CPUID.15H EBX/EAX is not known (0/2)");
	c = full_cpu();
	c.cpuid_0x15_eax = 0;
	run(-pte_bad_config, &m, &c);
	d = run(-pte_bad_config, &m, NULL);
	expect_msg(&d, "(0/0)");

	/* MTCFreq without MTCEn is fine, with a note; the config still
	 * carries it. */
	m = plain_msrs();
	m.ctl |= 3ull << PTD_RTIT_CTL_MTCFREQ_SHIFT;
	d = run(0, &m, &c);
	assert_true(d.notes & ptd_rtit_note_mtc_freq_unused);
	pt_config_init(&config);
	assert_int_equal(ptd_rtit_config(&config, NULL, NULL, &m, &c), 0);
	assert_int_equal(config.mtc_freq, 3);
	/* A half-known ratio is not passed on. */
	assert_int_equal(config.cpuid_0x15_eax, 0);
	assert_int_equal(config.cpuid_0x15_ebx, 0);
}

struct feature_case {
	uint64_t ctl;
	int ecx;
	unsigned bit;
	const char *text;
};

static void test_cpuid_features(void **state)
{
	static const struct feature_case cases[] = {
	        {PTD_RTIT_CTL_CR3FILTER, 0, 0, "CR3Filter (bit 7) set"},
	        {PTD_RTIT_CTL_CYCEN, 0, 1, "CYCEn (bit 1)"},
	        {1ull << PTD_RTIT_CTL_CYCTHRESH_SHIFT, 0, 1, "CycThresh"},
	        {1ull << PTD_RTIT_CTL_PSBFREQ_SHIFT, 0, 1, "PSBFreq"},
	        {PTD_RTIT_CTL_MTCEN, 0, 3, "MTCEn (bit 9)"},
	        {1ull << PTD_RTIT_CTL_MTCFREQ_SHIFT, 0, 3, "MTCFreq"},
	        {PTD_RTIT_CTL_PTWEN, 0, 4, "PTWEn (bit 12)"},
	        {PTD_RTIT_CTL_FUPONPTW, 0, 4, "FUPonPTW (bit 5)"},
	        {PTD_RTIT_CTL_PWREVTEN, 0, 5, "PwrEvtEn (bit 4) set"},
	        {PTD_RTIT_CTL_INJECTPSBPMI, 0, 6, "InjectPsbPmiOnEnable"},
	        {PTD_RTIT_CTL_EVENTEN, 0, 7, "EventEn (bit 31) set"},
	        {PTD_RTIT_CTL_DISTNT, 0, 8, "DisTNT (bit 55) set"},
	        {PTD_RTIT_CTL_TOPA, 1, 0, "ToPA (bit 8) set"},
	        {PTD_RTIT_CTL_FABRICEN, 1, 3, "FabricEn (bit 6) set"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		const struct feature_case *fc = &cases[i];
		struct ptd_rtit_cpu c = full_cpu();
		struct ptd_rtit_msrs m = plain_msrs();
		struct ptd_rtit_diag d;
		char where[48];

		/* The plain trace uses ToPA; the ToPA case needs another
		 * output scheme on the side. */
		m.ctl |= fc->ctl;
		if (fc->ctl == PTD_RTIT_CTL_TOPA)
			m.ctl &= ~PTD_RTIT_CTL_TRACEEN;
		run(0, &m, &c);
		if (fc->ecx)
			c.cpuid_0x14_0_ecx &= ~(1u << fc->bit);
		else
			c.cpuid_0x14_0_ebx &= ~(1u << fc->bit);
		d = run(-pte_bad_config, &m, &c);
		assert_int_equal(d.msr, PTD_MSR_IA32_RTIT_CTL);
		assert_true(d.bits == fc->ctl);
		expect_msg(&d, fc->text);
		snprintf(where, sizeof(where), "CPUID.(EAX=14H,ECX=0):%s[%u]",
		         fc->ecx ? "ECX" : "EBX", fc->bit);
		expect_msg(&d, where);
		/* Without leaf 0x14 the bit is accepted. */
		c.have = 0;
		run(0, &m, &c);
	}
}

static void test_output_schemes(void **state)
{
	struct ptd_rtit_cpu c = full_cpu();
	struct ptd_rtit_msrs m = plain_msrs();
	struct ptd_rtit_diag d;

	(void)state;
	/* Single-range output. */
	m.ctl &= ~PTD_RTIT_CTL_TOPA;
	m.output_mask_ptrs = 0xfff;
	run(0, &m, &c);
	c.cpuid_0x14_0_ecx &= ~(1u << 2);
	d = run(-pte_bad_config, &m, &c);
	expect_msg(&d, "single-range output");
	expect_msg(&d, "ECX[2] is 0");
	/* Not while tracing is off, nor with FabricEn. */
	m.ctl &= ~PTD_RTIT_CTL_TRACEEN;
	d = run(0, &m, &c);
	assert_true(d.notes & ptd_rtit_note_trace_disabled);
	m.ctl |= PTD_RTIT_CTL_TRACEEN | PTD_RTIT_CTL_FABRICEN;
	d = run(0, &m, &c);
	assert_true(d.notes & ptd_rtit_note_fabric);
}

static void test_other_reserved(void **state)
{
	struct ptd_rtit_cpu c = full_cpu();
	struct ptd_rtit_msrs m;
	struct ptd_rtit_diag d;
	unsigned b;

	(void)state;
	for (b = 0; b < 64; ++b) {
		uint64_t bit = 1ull << b;

		m = plain_msrs();
		m.status |= bit;
		d = run((bit & PTD_RTIT_STATUS_RESERVED) ? -pte_bad_config : 0,
		        &m, &c);
		if (bit & PTD_RTIT_STATUS_RESERVED) {
			assert_int_equal(d.msr, PTD_MSR_IA32_RTIT_STATUS);
			assert_true(d.bits == bit);
			expect_msg(&d, "IA32_RTIT_STATUS");
		}

		/* OUTPUT_BASE: bits 6:0 and from MAXPHYADDR (39) on. */
		m = plain_msrs();
		m.output_base |= bit;
		d = run((b < 7 || b >= 39) ? -pte_bad_config : 0, &m, &c);
		if (b < 7 || b >= 39) {
			assert_int_equal(d.msr, PTD_MSR_IA32_RTIT_OUTPUT_BASE);
			assert_true(d.bits == bit);
		}

		/* CR3_MATCH: bits 4:0. */
		m = plain_msrs();
		m.cr3_match |= bit;
		d = run(b < 5 ? -pte_bad_config : 0, &m, &c);
		if (b < 5)
			assert_int_equal(d.msr, PTD_MSR_IA32_RTIT_CR3_MATCH);
	}
	assert_true(PTD_RTIT_STATUS_RESERVED == 0xfffe0000ffffff08ull);

	/* Unknown MAXPHYADDR: only bits 6:0 are checked. */
	c.maxphyaddr = 0;
	m = plain_msrs();
	m.output_base = 0xfff0000000000000ull;
	run(0, &m, &c);
	m.output_base |= 0x40;
	d = run(-pte_bad_config, &m, &c);
	expect_msg(&d, "reserved bit 6 set");
}

static void test_encodings(void **state)
{
	struct ptd_rtit_cpu c = skl_cpu();
	struct ptd_rtit_msrs m;
	struct ptd_rtit_diag d;
	unsigned v;

	(void)state;
	for (v = 0; v < 16; ++v) {
		int ok = (0x249 >> v) & 1;

		m = plain_msrs();
		m.ctl |= PTD_RTIT_CTL_MTCEN |
		         ((uint64_t)v << PTD_RTIT_CTL_MTCFREQ_SHIFT);
		d = run(ok ? 0 : -pte_bad_config, &m, &c);
		if (!ok) {
			expect_msg(&d, "MTCFreq (bits 17:14)");
			expect_msg(&d, "0x0249");
		}

		ok = (0x3fff >> v) & 1;
		m = plain_msrs();
		m.ctl |= PTD_RTIT_CTL_CYCEN |
		         ((uint64_t)v << PTD_RTIT_CTL_CYCTHRESH_SHIFT);
		d = run(ok ? 0 : -pte_bad_config, &m, &c);
		if (!ok)
			expect_msg(&d, "CycThresh (bits 22:19)");

		ok = (0x3f >> v) & 1;
		m = plain_msrs();
		m.ctl |= (uint64_t)v << PTD_RTIT_CTL_PSBFREQ_SHIFT;
		d = run(ok ? 0 : -pte_bad_config, &m, &c);
		if (!ok)
			expect_msg(&d, "PSBFreq (bits 27:24) = ");
	}

	/* The Skylake has no PTWRITE. */
	m = plain_msrs();
	m.ctl |= PTD_RTIT_CTL_PTWEN;
	run(-pte_bad_config, &m, &c);
}

static void test_notes(void **state)
{
	struct ptd_rtit_cpu c = full_cpu();
	struct ptd_rtit_msrs m;
	struct ptd_rtit_diag d;
	uint32_t bit;

	(void)state;
	m = plain_msrs();
	d = run(0, &m, &c);
	assert_int_equal(d.notes, 0);

	m.ctl = PTD_RTIT_CTL_TOPA | PTD_RTIT_CTL_CYCEN | PTD_RTIT_CTL_FUPONPTW |
	        (2ull << PTD_RTIT_CTL_CYCTHRESH_SHIFT) | PTD_RTIT_CTL_DISTNT;
	m.status = PTD_RTIT_STATUS_ERROR | PTD_RTIT_STATUS_STOPPED;
	m.output_mask_ptrs = 0;
	c.platform_info = 0;
	c.cpu.model = 0x01;
	d = run(0, &m, &c);
	assert_int_equal(
	        d.notes,
	        ptd_rtit_note_trace_disabled | ptd_rtit_note_no_cpl |
	                ptd_rtit_note_no_branch | ptd_rtit_note_no_tnt |
	                ptd_rtit_note_no_tsc | ptd_rtit_note_cyc_without_tsc |
	                ptd_rtit_note_cyc_calibration |
	                ptd_rtit_note_fup_on_ptw_unused |
	                ptd_rtit_note_status_error |
	                ptd_rtit_note_status_stopped |
	                ptd_rtit_note_lower_mask | ptd_rtit_note_cpu_unknown |
	                ptd_rtit_note_no_nom_freq);

	c = full_cpu();
	m = plain_msrs();
	m.ctl |= 1ull << PTD_RTIT_CTL_CYCTHRESH_SHIFT;
	d = run(0, &m, &c);
	assert_int_equal(d.notes, ptd_rtit_note_cyc_thresh_unused);

	/* Single-range masks. */
	m = plain_msrs();
	m.ctl &= ~PTD_RTIT_CTL_TOPA;
	m.output_mask_ptrs = 0x00000100000003ffull;
	d = run(0, &m, &c);
	assert_int_equal(d.notes, 0);
	m.output_mask_ptrs = 0x00000400000003ffull;
	d = run(0, &m, &c);
	assert_int_equal(d.notes, ptd_rtit_note_output_mask);
	m.output_mask_ptrs = 0x5ff;
	d = run(0, &m, &c);
	assert_int_equal(d.notes, ptd_rtit_note_output_mask);

	/* No processor at all. */
	m = plain_msrs();
	d = run(0, &m, NULL);
	assert_int_equal(d.notes, ptd_rtit_note_cpu_unknown |
	                                  ptd_rtit_note_no_cpuid_0x14);

	/* Every note has a text, nothing else has. */
	for (bit = 1; bit; bit <<= 1) {
		const char *s = ptd_rtit_note_str(bit);

		if (bit <= ptd_rtit_note_no_nom_freq) {
			assert_non_null(s);
			assert_true(strlen(s) > 10);
		} else {
			assert_null(s);
		}
	}
	assert_null(ptd_rtit_note_str(0));
	assert_null(
	        ptd_rtit_note_str(ptd_rtit_note_fabric | ptd_rtit_note_no_tsc));
}

static void test_config_fields(void **state)
{
	struct ptd_rtit_cpu c = full_cpu();
	struct ptd_rtit_msrs m = plain_msrs();
	struct ptd_rtit_trace t;
	struct pt_config config;

	(void)state;
	/* Errata are replaced, not merged. */
	pt_config_init(&config);
	config.errata.skz84 = 1;
	config.errata.apl11 = 1;
	assert_int_equal(ptd_rtit_config(&config, &t, NULL, &m, &c), 0);
	assert_int_equal(config.errata.skz84, 0);
	assert_int_equal(config.errata.apl11, 0);
	assert_int_equal(config.errata.skd007, 1);

	/* An unknown vendor: no errata. */
	c.cpu.vendor = pcv_unknown;
	assert_int_equal(ptd_rtit_config(&config, &t, NULL, &m, &c), 0);
	assert_int_equal(config.errata.skd007, 0);
	assert_int_equal(config.cpu.vendor, pcv_unknown);
	assert_true(t.notes & ptd_rtit_note_cpu_unknown);

	/* A Xeon with SKZ84. */
	c = full_cpu();
	c.cpu.model = 85;
	c.cpuid_0x15_ebx = 308;
	c.cpuid_0x15_ecx = 25000000;
	c.platform_info = 37 << 8;
	assert_int_equal(ptd_rtit_config(&config, &t, NULL, &m, &c), 0);
	assert_int_equal(config.errata.skz84, 1);
	assert_int_equal(config.nom_freq, 37);
	assert_int_equal(config.cpuid_0x15_ebx, 308);
	assert_true(t.tsc_hz == 3850000000ull); /* crystal wins */

	/* No processor: everything processor-related is cleared. */
	config.nom_freq = 9;
	assert_int_equal(ptd_rtit_config(&config, &t, NULL, &m, NULL), 0);
	assert_int_equal(config.cpu.vendor, pcv_unknown);
	assert_int_equal(config.cpu.family, 0);
	assert_int_equal(config.nom_freq, 0);
	assert_int_equal(config.cpuid_0x15_eax, 0);
	assert_true(t.tsc_hz == 0);

	/* The output registers, decoded. */
	m.status = PTD_RTIT_STATUS_PENDPSB | PTD_RTIT_STATUS_PENDTOPAPMI |
	           (0x1abcdull << PTD_RTIT_STATUS_BYTECNT_SHIFT);
	m.output_mask_ptrs = 0x0000123400000a7full;
	assert_int_equal(ptd_rtit_config(&config, &t, NULL, &m, NULL), 0);
	assert_int_equal(t.pend_psb, 1);
	assert_int_equal(t.pend_topa_pmi, 1);
	assert_int_equal(t.filter_en, 0);
	assert_int_equal(t.packet_byte_cnt, 0x1abcd);
	assert_int_equal(t.output_mask, 0xa7f);
	assert_int_equal(t.topa_entry_offset, 0xa0);
	assert_int_equal(t.output_offset, 0x1234);
	assert_true(t.output_base == 0x12345000);
}

static void test_bad_args(void **state)
{
	struct ptd_rtit_msrs m = plain_msrs();
	struct ptd_rtit_diag d;
	struct pt_config config;

	(void)state;
	pt_config_init(&config);
	assert_int_equal(ptd_rtit_config(NULL, NULL, &d, &m, NULL),
	                 -pte_invalid);
	assert_int_equal(d.error, -pte_invalid);
	assert_int_equal(ptd_rtit_config(&config, NULL, NULL, NULL, NULL),
	                 -pte_invalid);
	config.size = offsetof(struct pt_config, addr_filter);
	assert_int_equal(ptd_rtit_config(&config, NULL, &d, &m, NULL),
	                 -pte_invalid);
	assert_non_null(strstr(d.message, "pt_config_init"));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; ++i)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void test_xsave(void **state)
{
	uint8_t area[0x80];
	struct ptd_rtit_cpu c = full_cpu();
	struct ptd_rtit_msrs m;
	struct ptd_rtit_trace t;
	struct ptd_rtit_diag d;
	struct pt_config config;
	uint64_t ctl = PTD_RTIT_CTL_TRACEEN | PTD_RTIT_CTL_USER |
	               PTD_RTIT_CTL_TOPA | PTD_RTIT_CTL_TSCEN |
	               PTD_RTIT_CTL_MTCEN | PTD_RTIT_CTL_BRANCHEN |
	               (6ull << PTD_RTIT_CTL_MTCFREQ_SHIFT) |
	               (1ull << PTD_RTIT_CTL_ADDR_CFG_SHIFT(0)) |
	               (2ull << PTD_RTIT_CTL_ADDR_CFG_SHIFT(1));

	(void)state;
	memset(area, 0xee, sizeof(area)); /* reserved bytes are ignored */
	put_le64(area + 0x00, ctl);
	put_le64(area + 0x08, 0x0000000123456000ull);
	put_le64(area + 0x10, 0x000000200000007full);
	put_le64(area + 0x18, 0x0000004000000007ull);
	put_le64(area + 0x20, 0x00000000abcde000ull);
	put_le64(area + 0x28, 0x0000000000401000ull);
	put_le64(area + 0x30, 0x0000000000401fffull);
	put_le64(area + 0x38, 0xffffffff81000000ull);
	put_le64(area + 0x40, 0xffffffff81ffffffull);

	memset(&m, 0x77, sizeof(m));
	assert_int_equal(ptd_rtit_from_xsave(&m, &d, area, 0x48), 0);
	assert_true(m.ctl == ctl);
	assert_true(m.output_base == 0x0000000123456000ull);
	assert_true(m.output_mask_ptrs == 0x000000200000007full);
	assert_true(m.status == 0x0000004000000007ull);
	assert_true(m.cr3_match == 0x00000000abcde000ull);
	assert_true(m.addr_a[0] == 0x401000 && m.addr_b[0] == 0x401fff);
	assert_true(m.addr_a[1] == 0xffffffff81000000ull);
	assert_true(m.addr_b[1] == 0xffffffff81ffffffull);
	assert_true(m.addr_a[2] == 0 && m.addr_b[2] == 0);
	assert_true(m.addr_a[3] == 0 && m.addr_b[3] == 0);

	pt_config_init(&config);
	assert_int_equal(ptd_rtit_config_from_xsave(&config, &t, &d, area,
	                                            sizeof(area), &c),
	                 0);
	assert_int_equal(config.mtc_freq, 6);
	assert_true(config.addr_filter.config.addr_cfg == 0x21);
	assert_true(config.addr_filter.addr1_b == 0xffffffff81ffffffull);
	assert_int_equal(t.packet_byte_cnt, 0x40);
	assert_int_equal(t.output_offset, 0x20);
	assert_int_equal(t.trigger_en, 1);
	assert_int_equal(t.os, 0);

	/* Too small, NULL. */
	assert_int_equal(ptd_rtit_from_xsave(&m, &d, area, 0x47), -pte_invalid);
	assert_non_null(strstr(d.message, "Table 36-13"));
	assert_int_equal(ptd_rtit_from_xsave(NULL, &d, area, 0x48),
	                 -pte_invalid);
	assert_int_equal(ptd_rtit_from_xsave(&m, NULL, NULL, 0x48),
	                 -pte_invalid);
	assert_int_equal(
	        ptd_rtit_config_from_xsave(&config, NULL, &d, area, 0x40, &c),
	        -pte_invalid);

	/* Ranges 2 and 3 do not exist in XSAVE state. */
	put_le64(area, ctl | (1ull << PTD_RTIT_CTL_ADDR_CFG_SHIFT(3)));
	assert_int_equal(
	        ptd_rtit_config_from_xsave(&config, NULL, &d, area, 0x48, &c),
	        -pte_bad_config);
	assert_non_null(strstr(d.message, "ADDR2_CFG or ADDR3_CFG"));
	assert_true(d.bits == 1ull << PTD_RTIT_CTL_ADDR_CFG_SHIFT(3));

	/* The checks of ptd_rtit_config() apply. */
	put_le64(area, ctl | (1ull << 18));
	assert_int_equal(
	        ptd_rtit_config_from_xsave(&config, NULL, &d, area, 0x48, &c),
	        -pte_bad_config);
	assert_non_null(strstr(d.message, "reserved bit 18"));
	put_le64(area, ctl);
	put_le64(area + 0x30, 0x400fff);
	assert_int_equal(
	        ptd_rtit_config_from_xsave(&config, NULL, &d, area, 0x48, &c),
	        -pte_bad_config);
	assert_int_equal(d.msr, PTD_MSR_IA32_RTIT_ADDR0_A);
}

static void test_ctl_from_perf(void **state)
{
	uint64_t ctl = 0;

	(void)state;
	/* Default intel_pt//: BranchEn is set. */
	assert_int_equal(ptd_rtit_ctl_from_perf(&ctl, 0, 0, 0), 0);
	assert_true(ctl == (PTD_RTIT_CTL_TRACEEN | PTD_RTIT_CTL_TOPA |
	                    PTD_RTIT_CTL_BRANCHEN | PTD_RTIT_CTL_OS |
	                    PTD_RTIT_CTL_USER));
	/* intel_pt/pt,branch=0/u: bit 0 passes BranchEn through. */
	assert_int_equal(ptd_rtit_ctl_from_perf(&ctl, 1, 1, 0), 0);
	assert_true(ctl == (PTD_RTIT_CTL_TRACEEN | PTD_RTIT_CTL_TOPA |
	                    PTD_RTIT_CTL_USER));
	/* cyc,cyc_thresh=2,mtc_period=6,noretcomp,k. */
	assert_int_equal(ptd_rtit_ctl_from_perf(&ctl, 0x118a02ull, 0, 1), 0);
	assert_true(ctl ==
	            (0x118a02ull | PTD_RTIT_CTL_TRACEEN | PTD_RTIT_CTL_TOPA |
	             PTD_RTIT_CTL_BRANCHEN | PTD_RTIT_CTL_OS));
	/* event, notnt, ptw, fup_on_ptw, pwr_evt. */
	assert_int_equal(ptd_rtit_ctl_from_perf(
	                         &ctl,
	                         (1ull << 55) | (1ull << 31) | (1ull << 12) |
	                                 (1ull << 5) | (1ull << 4),
	                         1, 1),
	                 0);
	assert_true(ctl == ((1ull << 55) | (1ull << 31) | (1ull << 12) |
	                    (1ull << 5) | (1ull << 4) | PTD_RTIT_CTL_TRACEEN |
	                    PTD_RTIT_CTL_TOPA | PTD_RTIT_CTL_BRANCHEN));
	/* Not intel_pt options: OS, CR3 filter, ToPA, ADDRn_CFG, reserved. */
	ctl = 5;
	assert_int_equal(ptd_rtit_ctl_from_perf(&ctl, 1ull << 2, 0, 0),
	                 -pte_bad_config);
	assert_int_equal(ptd_rtit_ctl_from_perf(&ctl, 1ull << 7, 0, 0),
	                 -pte_bad_config);
	assert_int_equal(ptd_rtit_ctl_from_perf(&ctl, 1ull << 8, 0, 0),
	                 -pte_bad_config);
	assert_int_equal(ptd_rtit_ctl_from_perf(&ctl, 1ull << 32, 0, 0),
	                 -pte_bad_config);
	assert_int_equal(ptd_rtit_ctl_from_perf(&ctl, 1ull << 18, 0, 0),
	                 -pte_bad_config);
	assert_true(ctl == 5);
	assert_int_equal(ptd_rtit_ctl_from_perf(NULL, 0, 0, 0), -pte_invalid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_perf_sample),
	        cmocka_unit_test(test_ctl_bits),
	        cmocka_unit_test(test_ctl_each_bit),
	        cmocka_unit_test(test_ctl_reserved_list),
	        cmocka_unit_test(test_addr_cfg),
	        cmocka_unit_test(test_addr_ranges),
	        cmocka_unit_test(test_mtc_ratio),
	        cmocka_unit_test(test_cpuid_features),
	        cmocka_unit_test(test_output_schemes),
	        cmocka_unit_test(test_other_reserved),
	        cmocka_unit_test(test_encodings),
	        cmocka_unit_test(test_notes),
	        cmocka_unit_test(test_config_fields),
	        cmocka_unit_test(test_bad_args),
	        cmocka_unit_test(test_xsave),
	        cmocka_unit_test(test_ctl_from_perf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
