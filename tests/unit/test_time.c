/* SPDX-License-Identifier: BSD-3-Clause */
/* The time engine (lib/time) at the module level: the pt_qry_time(3)
 * semantics every decoder forwards to (seed 003: NULL arguments, no time
 * before the first TSC with the relative time given, no CBR before the first
 * CBR, NULL lost counters), and the rules of the accurate estimator, packet
 * by packet through ptd_time_update().  Traces that need the look-ahead go
 * through the public time decoder; see test_time_decoder.c for its API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"

#include "time/time.h"

/* A configuration for packet-by-packet tests: mtc_freq 4, 3 TSC ticks per
 * CTC tick, nominal ratio 4, no buffer to look ahead into. */
static uint8_t ptd_t_nobuf[1];

static void ptd_t_config(struct pt_config *config)
{
	pt_config_init(config);
	config->begin = ptd_t_nobuf;
	config->end = ptd_t_nobuf;
	config->mtc_freq = 4;
	config->cpuid_0x15_eax = 1;
	config->cpuid_0x15_ebx = 3;
	config->nom_freq = 4;
}

static void ptd_t_time(struct ptd_time *time, const struct pt_config *config,
                       enum ptd_time_mode mode)
{
	struct ptd_time_config tconfig;

	ptd_time_config_init(&tconfig);
	tconfig.mode = mode;
	assert_int_equal(ptd_time_init(time, config, &tconfig), 0);
}

/* Feed one packet without look-ahead. */
static void ptd_t_feed(struct ptd_time *time, enum pt_packet_type type,
                       uint64_t a, uint64_t b)
{
	struct pt_packet packet;

	memset(&packet, 0, sizeof(packet));
	packet.type = type;
	switch (type) {
	case ppt_tsc:
		packet.payload.tsc.tsc = a;
		break;
	case ppt_tma:
		packet.payload.tma.ctc = (uint16_t)a;
		packet.payload.tma.fc = (uint16_t)b;
		break;
	case ppt_mtc:
		packet.payload.mtc.ctc = (uint8_t)a;
		break;
	case ppt_cyc:
		packet.payload.cyc.value = a;
		break;
	case ppt_cbr:
		packet.payload.cbr.ratio = (uint8_t)a;
		break;
	default:
		break;
	}
	assert_int_equal(ptd_time_update(time, &packet, NULL), 0);
}

static uint64_t ptd_t_now(const struct ptd_time *time)
{
	uint64_t tsc = 0;
	int err = ptd_time_get_tsc(time, &tsc, NULL, NULL);

	assert_true(err == 0 || err == -pte_no_time);
	return tsc;
}

/* --- seed 003: pt_qry_time() and pt_qry_core_bus_ratio() semantics ----- */

static void test_query_invalid(void **state)
{
	struct pt_config config;
	struct ptd_time time;
	uint32_t lost_mtc, lost_cyc, cbr;
	uint64_t tsc;

	(void)state;
	ptd_t_config(&config);
	ptd_t_time(&time, &config, ptd_time_mode_accurate);

	assert_int_equal(ptd_time_get_tsc(NULL, &tsc, &lost_mtc, &lost_cyc),
	                 -pte_invalid);
	assert_int_equal(ptd_time_get_tsc(&time, NULL, &lost_mtc, &lost_cyc),
	                 -pte_invalid);
	assert_int_equal(ptd_time_get_cbr(NULL, &cbr), -pte_invalid);
	assert_int_equal(ptd_time_get_cbr(&time, NULL), -pte_invalid);
	assert_int_equal(ptd_time_update(NULL, NULL, NULL), -pte_invalid);
	assert_int_equal(ptd_time_update(&time, NULL, NULL), -pte_invalid);
	assert_int_equal(ptd_time_init(NULL, &config, NULL), -pte_invalid);
	assert_int_equal(ptd_time_init(&time, NULL, NULL), -pte_invalid);
}

static void test_query_no_time_initially(void **state)
{
	enum ptd_time_mode modes[] = {ptd_time_mode_accurate,
	                              ptd_time_mode_libipt};
	size_t i;

	(void)state;
	for (i = 0; i < 2; ++i) {
		struct pt_config config;
		struct ptd_time time;
		uint32_t lost_mtc = 7, lost_cyc = 7, cbr = 7;
		uint64_t tsc = 7;

		ptd_t_config(&config);
		ptd_t_time(&time, &config, modes[i]);

		/* No timing packet at all: no time, and it is 0. */
		assert_int_equal(
		        ptd_time_get_tsc(&time, &tsc, &lost_mtc, &lost_cyc),
		        -pte_no_time);
		assert_int_equal(tsc, 0);
		assert_int_equal(lost_mtc, 0);
		assert_int_equal(lost_cyc, 0);

		/* The lost counters may be NULL. */
		tsc = 7;
		assert_int_equal(ptd_time_get_tsc(&time, &tsc, NULL, NULL),
		                 -pte_no_time);
		assert_int_equal(tsc, 0);

		assert_int_equal(ptd_time_get_cbr(&time, &cbr), -pte_no_cbr);
	}
}

/* Before the first TSC the relative time is given with -pte_no_time. */
static void test_query_relative_time(void **state)
{
	enum ptd_time_mode modes[] = {ptd_time_mode_accurate,
	                              ptd_time_mode_libipt};
	size_t i;

	(void)state;
	for (i = 0; i < 2; ++i) {
		struct pt_config config;
		struct ptd_time time;
		uint64_t tsc = 0;

		ptd_t_config(&config);
		ptd_t_time(&time, &config, modes[i]);

		/* The first MTC gives the CTC phase, the next one time. */
		ptd_t_feed(&time, ppt_mtc, 0x10, 0);
		assert_int_equal(ptd_time_get_tsc(&time, &tsc, NULL, NULL),
		                 -pte_no_time);
		assert_int_equal(tsc, 0);
		ptd_t_feed(&time, ppt_mtc, 0x11, 0);
		assert_int_equal(ptd_time_get_tsc(&time, &tsc, NULL, NULL),
		                 -pte_no_time);
		assert_int_equal(tsc, 16 * 3);

		/* CYC with a CBR-based calibration: nom 4 / cbr 2.  libipt
		 * takes the CYC to span the MTC period before (no CYC in
		 * it) and drops its cycles. */
		ptd_t_feed(&time, ppt_cbr, 2, 0);
		ptd_t_feed(&time, ppt_cyc, 5, 0);
		assert_int_equal(ptd_time_get_tsc(&time, &tsc, NULL, NULL),
		                 -pte_no_time);
		assert_int_equal(tsc, 16 * 3 + (i ? 0 : 10));

		/* A TSC makes it wall-clock time. */
		ptd_t_feed(&time, ppt_tsc, 0x100000, 0);
		assert_int_equal(ptd_time_get_tsc(&time, &tsc, NULL, NULL), 0);
		assert_int_equal(tsc, 0x100000);
	}
}

static void test_query_cbr(void **state)
{
	enum ptd_time_mode modes[] = {ptd_time_mode_accurate,
	                              ptd_time_mode_libipt};
	size_t i;

	(void)state;
	for (i = 0; i < 2; ++i) {
		struct pt_config config;
		struct ptd_time time;
		uint32_t cbr = 0;

		ptd_t_config(&config);
		ptd_t_time(&time, &config, modes[i]);

		/* A CBR of 0 is a bad packet and gives no ratio. */
		ptd_t_feed(&time, ppt_cbr, 0, 0);
		assert_int_equal(time.report.time_error, -pte_bad_packet);
		assert_int_equal(ptd_time_get_cbr(&time, &cbr), -pte_no_cbr);

		ptd_t_feed(&time, ppt_cbr, 0x24, 0);
		assert_int_equal(ptd_time_get_cbr(&time, &cbr), 0);
		assert_int_equal(cbr, 0x24);
		ptd_t_feed(&time, ppt_cbr, 0x10, 0);
		assert_int_equal(ptd_time_get_cbr(&time, &cbr), 0);
		assert_int_equal(cbr, 0x10);

		/* Synchronization forgets it, and the time. */
		ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
		ptd_time_reset(&time);
		assert_int_equal(ptd_time_get_cbr(&time, &cbr), -pte_no_cbr);
		assert_int_equal(
		        ptd_time_get_tsc(&time, &config.size, NULL, NULL),
		        -pte_no_time);
	}
}

static void test_lost_counters_reset_by_tsc(void **state)
{
	struct pt_config config;
	struct ptd_time time;
	uint32_t lost_mtc = 0, lost_cyc = 0;
	uint64_t tsc;

	(void)state;
	ptd_t_config(&config);
	config.nom_freq = 0;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);

	ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
	ptd_t_feed(&time, ppt_tma, 0x100, 0);
	/* Next MTC would be 0x11; 0x14 means 3 were dropped. */
	ptd_t_feed(&time, ppt_mtc, 0x14, 0);
	/* Without calibration and without look-ahead, CYCs are lost. */
	ptd_t_feed(&time, ppt_cyc, 0x10, 0);
	assert_true(time.report.cyc_lost);
	ptd_t_feed(&time, ppt_cyc, 0x10, 0);
	assert_int_equal(ptd_time_get_tsc(&time, &tsc, &lost_mtc, &lost_cyc),
	                 0);
	assert_int_equal(lost_mtc, 3);
	assert_int_equal(lost_cyc, 2);
	assert_int_equal(tsc, 0x1000 + 4 * 16 * 3);
	assert_true(time.status.diag & ptd_time_diag_mtc_dropped);
	assert_true(time.status.diag & ptd_time_diag_uncalibrated);

	ptd_t_feed(&time, ppt_tsc, 0x2000, 0);
	assert_int_equal(ptd_time_get_tsc(&time, &tsc, &lost_mtc, &lost_cyc),
	                 0);
	assert_int_equal(lost_mtc, 0);
	assert_int_equal(lost_cyc, 0);
	/* The status keeps the totals. */
	assert_int_equal(time.status.lost_mtc, 3);
	assert_int_equal(time.status.lost_cyc, 2);
}

/* --- TSC, TMA and MTC ---------------------------------------------------- */

/* The time at an MTC is TSC - FC + CTC delta * ebx / eax, converted in one
 * go: with a ratio of 7/3 no rounding accumulates over the MTCs. */
static void test_mtc_exact(void **state)
{
	struct pt_config config;
	struct ptd_time time;
	uint64_t ticks;
	unsigned i;

	(void)state;
	ptd_t_config(&config);
	config.cpuid_0x15_eax = 3;
	config.cpuid_0x15_ebx = 7;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);

	ptd_t_feed(&time, ppt_tsc, 0xa0000, 0);
	ptd_t_feed(&time, ppt_tma, 0x0105, 0x4);
	assert_int_equal(ptd_t_now(&time), 0xa0000);

	/* 0x105 -> 0x110 is 11 CTC ticks, then 16 each. */
	for (i = 0; i < 40; ++i) {
		uint64_t ctc = 11 + 16 * (uint64_t)i;

		ptd_t_feed(&time, ppt_mtc, (0x11 + i) & 0xff, 0);
		ticks = ctc * 7 / 3;
		assert_int_equal(ptd_t_now(&time), 0xa0000 - 4 + ticks);
	}
	assert_int_equal(time.lost_mtc, 0);
}

/* The 8-bit payload wraps. */
static void test_mtc_wrap(void **state)
{
	struct pt_config config;
	struct ptd_time time;

	(void)state;
	ptd_t_config(&config);
	config.mtc_freq = 0;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);

	ptd_t_feed(&time, ppt_tsc, 0xa0000, 0);
	ptd_t_feed(&time, ppt_tma, 0x1fff, 0x1);
	ptd_t_feed(&time, ppt_mtc, 0x00, 0);
	assert_int_equal(ptd_t_now(&time), 0xa0000 - 1 + 3);
	ptd_t_feed(&time, ppt_mtc, 0x01, 0);
	assert_int_equal(ptd_t_now(&time), 0xa0000 - 1 + 6);
	ptd_t_feed(&time, ppt_mtc, 0xfe, 0);
	assert_int_equal(ptd_t_now(&time), 0xa0000 - 1 + 3 * 0xff);
	assert_int_equal(time.lost_mtc, 0xfc);
}

/* mtc_freq 12: the TMA lacks CTC bits that the MTC provides. */
static void test_mtc_low_frequency(void **state)
{
	struct pt_config config;
	struct ptd_time time;

	(void)state;
	ptd_t_config(&config);
	config.mtc_freq = 12;
	config.cpuid_0x15_eax = 2;
	config.cpuid_0x15_ebx = 1;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);

	ptd_t_feed(&time, ppt_tsc, 0xa0018, 0);
	ptd_t_feed(&time, ppt_tma, 0xf020, 0x8);
	ptd_t_feed(&time, ppt_mtc, 0xa0, 0);
	assert_int_equal(ptd_t_now(&time), 0xa0800);
	ptd_t_feed(&time, ppt_mtc, 0xa1, 0);
	assert_int_equal(ptd_t_now(&time), 0xa1000);
	assert_int_equal(time.lost_mtc, 0);
}

/* An MTC between a TSC and its TMA: one for the edge before the TSC says
 * nothing; one for the edge after it is applied once the TMA is there. */
static void test_mtc_between_tsc_and_tma(void **state)
{
	struct pt_config config;
	struct ptd_time time;

	(void)state;
	ptd_t_config(&config);
	config.mtc_freq = 8;
	config.cpuid_0x15_ebx = 4;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);

	/* Stale: the TMA's CTC 0xc2d2 is in period 0xc2; 0xc1 is older. */
	ptd_t_feed(&time, ppt_tsc, 0xa0000, 0);
	ptd_t_feed(&time, ppt_mtc, 0xc1, 0);
	assert_int_equal(ptd_t_now(&time), 0xa0000);
	ptd_t_feed(&time, ppt_tma, 0xc2d2, 0xe);
	assert_int_equal(ptd_t_now(&time), 0xa0000);
	ptd_t_feed(&time, ppt_mtc, 0xc3, 0);
	assert_int_equal(ptd_t_now(&time), 0xa0000 - 0xe + 0x2e * 4);

	/* After the TSC: applied at the TMA. */
	ptd_time_reset(&time);
	ptd_t_feed(&time, ppt_tsc, 0xb0000, 0);
	ptd_t_feed(&time, ppt_mtc, 0xc3, 0);
	assert_int_equal(ptd_t_now(&time), 0xb0000);
	ptd_t_feed(&time, ppt_tma, 0xc2f0, 0x2);
	assert_int_equal(ptd_t_now(&time), 0xb0000 - 0x2 + 0x10 * 4);
	ptd_t_feed(&time, ppt_mtc, 0xc4, 0);
	assert_int_equal(ptd_t_now(&time), 0xb0000 - 0x2 + 0x110 * 4);
}

static void test_tma_bad_context(void **state)
{
	struct pt_config config;
	struct ptd_time time;

	(void)state;
	ptd_t_config(&config);
	ptd_t_time(&time, &config, ptd_time_mode_accurate);

	ptd_t_feed(&time, ppt_tma, 0x10, 0x1);
	assert_int_equal(time.report.time_error, -pte_bad_context);
	assert_true(time.status.diag & ptd_time_diag_bad_tma);

	ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
	ptd_t_feed(&time, ppt_tma, 0x10, 0x1);
	assert_int_equal(time.report.time_error, 0);
	ptd_t_feed(&time, ppt_tma, 0x10, 0x1);
	assert_int_equal(time.report.time_error, -pte_bad_context);
}

/* Without the CPUID 0x15 ratio an MTC cannot be used: an explicit error,
 * counted as lost, and the time does not move (let alone back). */
static void test_mtc_no_cpuid(void **state)
{
	struct pt_config config;
	struct ptd_time time;

	(void)state;
	ptd_t_config(&config);
	config.cpuid_0x15_eax = 0;
	config.cpuid_0x15_ebx = 0;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);

	ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
	ptd_t_feed(&time, ppt_tma, 0x100, 0x1);
	ptd_t_feed(&time, ppt_cbr, 2, 0);
	ptd_t_feed(&time, ppt_cyc, 0x10, 0);
	assert_int_equal(ptd_t_now(&time), 0x1000 + 0x20);
	ptd_t_feed(&time, ppt_mtc, 0x11, 0);
	assert_int_equal(time.report.time_error, -pte_bad_config);
	assert_int_equal(time.lost_mtc, 1);
	assert_true(time.status.diag & ptd_time_diag_no_cpuid_0x15);
	assert_int_equal(ptd_t_now(&time), 0x1000 + 0x20);
	ptd_t_feed(&time, ppt_cyc, 0x10, 0);
	assert_int_equal(ptd_t_now(&time), 0x1000 + 0x40);

	/* libipt's estimator reports the same error. */
	ptd_t_time(&time, &config, ptd_time_mode_libipt);
	ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
	ptd_t_feed(&time, ppt_tma, 0x100, 0x1);
	ptd_t_feed(&time, ppt_mtc, 0x11, 0);
	assert_int_equal(time.report.time_error, -pte_bad_config);
	assert_true(time.status.diag & ptd_time_diag_no_cpuid_0x15);
}

/* An mtc_freq above 15 cannot be IA32_RTIT_CTL.MTCFreq's (4 bits): the
 * accurate estimator does not use the MTCs, as without the CPUID 0x15
 * ratio, but the diagnostic names mtc_freq, not the ratio that was given.
 * (libipt's estimator, and so ptdecode's libipt mode, computes with such
 * an mtc_freq as long as its shifts fit.) */
static void test_mtc_freq_range(void **state)
{
	struct pt_config config;
	struct ptd_time time;

	(void)state;
	ptd_t_config(&config);
	config.mtc_freq = 16;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);
	ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
	ptd_t_feed(&time, ppt_tma, 0x100, 0x1);
	ptd_t_feed(&time, ppt_mtc, 0x11, 0);
	assert_int_equal(time.report.time_error, -pte_bad_config);
	assert_int_equal(time.lost_mtc, 1);
	assert_true(time.status.diag & ptd_time_diag_mtc_freq_range);
	assert_false(time.status.diag & ptd_time_diag_no_cpuid_0x15);
	assert_int_equal(ptd_t_now(&time), 0x1000);

	/* Without the ratio either, both are said. */
	config.cpuid_0x15_eax = 0;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);
	ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
	ptd_t_feed(&time, ppt_tma, 0x100, 0x1);
	ptd_t_feed(&time, ppt_mtc, 0x11, 0);
	assert_true(time.status.diag & ptd_time_diag_mtc_freq_range);
	assert_true(time.status.diag & ptd_time_diag_no_cpuid_0x15);
}

/* An mtc_freq that does not fit the first MTC after a TMA is reported. */
static void test_mtc_freq_diagnostic(void **state)
{
	struct pt_config config;
	struct ptd_time time;

	(void)state;
	ptd_t_config(&config);
	config.mtc_freq = 0; /* the trace has 3 */
	ptd_t_time(&time, &config, ptd_time_mode_accurate);

	ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
	ptd_t_feed(&time, ppt_tma, 0x3f35, 0x0);
	ptd_t_feed(&time, ppt_mtc, 0xe7, 0);
	assert_true(time.status.diag & ptd_time_diag_bad_mtc_freq);

	/* The right one says nothing. */
	config.mtc_freq = 3;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);
	ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
	ptd_t_feed(&time, ppt_tma, 0x3f35, 0x0);
	ptd_t_feed(&time, ppt_mtc, 0xe7, 0);
	assert_false(time.status.diag & ptd_time_diag_bad_mtc_freq);
}

/* CYCs that wait for calibration while CBRs are there point at nom_freq. */
static void test_no_nom_freq_diagnostic(void **state)
{
	struct pt_config config;
	struct ptd_time time;

	(void)state;
	ptd_t_config(&config);
	config.nom_freq = 0;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);

	ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
	ptd_t_feed(&time, ppt_cbr, 0x20, 0);
	ptd_t_feed(&time, ppt_cyc, 0x100, 0);
	assert_true(time.report.cyc_lost);
	assert_true(time.status.diag & ptd_time_diag_no_nom_freq);
	assert_int_equal(ptd_t_now(&time), 0x1000);
}

/* --- calibration -------------------------------------------------------- */

static void test_calibration_sources(void **state)
{
	struct pt_config config;
	struct ptd_time time;
	uint64_t fcr;

	(void)state;
	ptd_t_config(&config);
	ptd_t_time(&time, &config, ptd_time_mode_accurate);
	assert_int_equal(ptd_time_get_fcr(&time, &fcr), -pte_no_time);
	assert_int_equal(ptd_time_get_fcr(&time, NULL), -pte_invalid);

	/* CBR with the nominal ratio: 4 / 8 = 0.5. */
	ptd_t_feed(&time, ppt_cbr, 8, 0);
	assert_int_equal(ptd_time_get_fcr(&time, &fcr), 0);
	assert_int_equal(fcr, 0x80);

	/* Two MTCs and the cycles between them: 48 ticks / 0x60 cycles. */
	ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
	ptd_t_feed(&time, ppt_tma, 0x100, 0);
	ptd_t_feed(&time, ppt_mtc, 0x11, 0);
	ptd_t_feed(&time, ppt_cyc, 0x60, 0);
	ptd_t_feed(&time, ppt_mtc, 0x12, 0);
	assert_int_equal(ptd_time_get_fcr(&time, &fcr), 0);
	assert_int_equal(fcr, 0x80);
	ptd_t_feed(&time, ppt_cyc, 0x30, 0);
	ptd_t_feed(&time, ppt_mtc, 0x13, 0);
	assert_int_equal(ptd_time_get_fcr(&time, &fcr), 0);
	assert_int_equal(fcr, 0x100);

	/* Two TSCs in PSB+, without MTCs: 0x300 ticks / 0x100 cycles. */
	config.nom_freq = 0;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);
	ptd_t_feed(&time, ppt_psb, 0, 0);
	ptd_t_feed(&time, ppt_tsc, 0x1000, 0);
	ptd_t_feed(&time, ppt_psbend, 0, 0);
	ptd_t_feed(&time, ppt_cyc, 0x100, 0);
	assert_int_equal(ptd_time_get_fcr(&time, &fcr), -pte_no_time);
	ptd_t_feed(&time, ppt_psb, 0, 0);
	ptd_t_feed(&time, ppt_tsc, 0x1300, 0);
	ptd_t_feed(&time, ppt_psbend, 0, 0);
	assert_int_equal(ptd_time_get_fcr(&time, &fcr), 0);
	assert_int_equal(fcr, 0x300);

	/* A TSC outside PSB+ does not calibrate (it may follow a gap). */
	ptd_t_feed(&time, ppt_cyc, 0x100, 0);
	ptd_t_feed(&time, ppt_tsc, 0x9000, 0);
	assert_int_equal(ptd_time_get_fcr(&time, &fcr), 0);
	assert_int_equal(fcr, 0x300);
}

/* An OVF drops the calibration, unless keep_tcal_on_ovf. */
static void test_calibration_ovf(void **state)
{
	struct ptd_time_config tconfig;
	struct pt_config config;
	struct ptd_time time;
	uint64_t fcr;

	(void)state;
	ptd_t_config(&config);
	ptd_t_time(&time, &config, ptd_time_mode_accurate);
	ptd_t_feed(&time, ppt_cbr, 8, 0);
	ptd_t_feed(&time, ppt_ovf, 0, 0);
	assert_int_equal(ptd_time_get_fcr(&time, &fcr), -pte_no_time);

	ptd_time_config_init(&tconfig);
	tconfig.keep_tcal_on_ovf = 1;
	assert_int_equal(ptd_time_init(&time, &config, &tconfig), 0);
	ptd_t_feed(&time, ppt_cbr, 8, 0);
	ptd_t_feed(&time, ppt_ovf, 0, 0);
	assert_int_equal(ptd_time_get_fcr(&time, &fcr), 0);
	assert_int_equal(fcr, 0x80);

	/* --no-tcal: nothing calibrates. */
	ptd_time_config_init(&tconfig);
	tconfig.no_tcal = 1;
	assert_int_equal(ptd_time_init(&time, &config, &tconfig), 0);
	ptd_t_feed(&time, ppt_cbr, 8, 0);
	assert_int_equal(ptd_time_get_fcr(&time, &fcr), -pte_no_time);
}

/* Monotonic: a TSC below what was already reported holds the time. */
static void test_never_backwards(void **state)
{
	struct pt_config config;
	struct ptd_time time;
	uint64_t tsc;

	(void)state;
	ptd_t_config(&config);
	config.mtc_freq = 4;
	config.cpuid_0x15_eax = 2;
	config.cpuid_0x15_ebx = 1;
	ptd_t_time(&time, &config, ptd_time_mode_accurate);

	ptd_t_feed(&time, ppt_tsc, 0xa0000, 0);
	ptd_t_feed(&time, ppt_tma, 0xf012, 0x6);
	ptd_t_feed(&time, ppt_mtc, 0x2, 0);
	ptd_t_feed(&time, ppt_mtc, 0x3, 0);
	assert_int_equal(ptd_t_now(&time), 0xa0009);
	ptd_t_feed(&time, ppt_tsc, 0xa0008, 0);
	assert_int_equal(ptd_time_get_tsc(&time, &tsc, NULL, NULL), 0);
	assert_int_equal(tsc, 0xa0009);
	assert_true(time.status.diag & ptd_time_diag_clamped);
	assert_int_equal(time.status.clamped, 1);

	/* libipt's goes back. */
	ptd_t_time(&time, &config, ptd_time_mode_libipt);
	ptd_t_feed(&time, ppt_tsc, 0xa0000, 0);
	ptd_t_feed(&time, ppt_tma, 0xf012, 0x6);
	ptd_t_feed(&time, ppt_mtc, 0x2, 0);
	ptd_t_feed(&time, ppt_mtc, 0x3, 0);
	ptd_t_feed(&time, ppt_tsc, 0xa0008, 0);
	assert_int_equal(ptd_t_now(&time), 0xa0008);
}

/* VMX TSC scaling: MTC deltas are scaled, TSC packets are not; with
 * tsc_host_time the host's TSC is reported. */
static void test_vmx_scaling(void **state)
{
	struct ptd_time_config tconfig;
	struct pt_config config;
	struct ptd_time time;

	(void)state;
	ptd_t_config(&config);
	config.mtc_freq = 0;
	config.cpuid_0x15_ebx = 100;
	ptd_time_config_init(&tconfig);
	tconfig.tsc_multiplier = UINT64_C(1) << 47; /* 0.5 */
	tconfig.tsc_offset = 0x10000;
	assert_int_equal(ptd_time_init(&time, &config, &tconfig), 0);

	ptd_t_feed(&time, ppt_tsc, 0x50000, 0);
	ptd_t_feed(&time, ppt_tma, 0x10, 0x8);
	/* 0x10 -> 0x20: 16 CTC = 1600 host ticks = 800 guest ticks; the FC
	 * of 8 host ticks is 4 guest ticks. */
	ptd_t_feed(&time, ppt_mtc, 0x20, 0);
	assert_int_equal(ptd_t_now(&time), 0x50000 - 4 + 800);

	/* Host time: (guest - offset) / 0.5. */
	tconfig.tsc_host_time = 1;
	assert_int_equal(ptd_time_init(&time, &config, &tconfig), 0);
	ptd_t_feed(&time, ppt_tsc, 0x50000, 0);
	assert_int_equal(ptd_t_now(&time), (0x50000 - 0x10000) * 2);

	/* Host time needs something to convert with. */
	tconfig.tsc_multiplier = 0;
	tconfig.tsc_offset = 0;
	assert_int_equal(ptd_time_init(&time, &config, &tconfig),
	                 -pte_bad_config);
	tconfig.tsc_host_time = 0;
	tconfig.mode = (enum ptd_time_mode)7;
	assert_int_equal(ptd_time_init(&time, &config, &tconfig),
	                 -pte_bad_config);
}

/* Fixed-point helpers. */
static void test_arithmetic(void **state)
{
	(void)state;
	assert_int_equal(ptd_time_muldiv(10, 7, 3), 23);
	assert_int_equal(ptd_time_muldiv(UINT64_MAX, UINT64_MAX, UINT64_MAX),
	                 UINT64_MAX);
	assert_int_equal(ptd_time_muldiv(UINT64_MAX, 2, 1), UINT64_MAX);
	assert_int_equal(ptd_time_muldiv(1, 1, 0), UINT64_MAX);
	assert_int_equal(ptd_time_mulshr(3, UINT64_C(1) << 47, 48), 1);
	assert_int_equal(ptd_time_mulshr(UINT64_MAX, 4, 1), UINT64_MAX);
}

/* ------------------------------------------------------------------------ */
/* The look-ahead scans over runs of one-byte packets                        */
/* ------------------------------------------------------------------------ */

/* A deterministic pseudo-random sequence for the generated traces. */
static uint32_t ptd_t_rand(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* What a stretch of packets that are not timing packets holds. */
struct ptd_t_fill {
	uint64_t cycles[1024]; /* the CYC values, in order */
	size_t ncyc;
	int after_cyc; /* the last packet but PAD was a CYC (1 if none) */
};

/* Append up to @max random packets that the scans step over (PAD, TNT-8,
 * CYC of one byte and longer, TIP with every IP compression) to @pkts at
 * *@n; mostly one-byte packets, in runs, as in real traces.  With @with_cyc
 * 0, no CYC. */
static void ptd_t_fill(struct pt_packet *pkts, size_t *n, size_t max,
                       uint32_t *seed, int with_cyc, struct ptd_t_fill *f)
{
	static const enum pt_ip_compression ipcs[] = {
	        pt_ipc_suppressed, pt_ipc_update_16, pt_ipc_update_32,
	        pt_ipc_sext_48,    pt_ipc_update_48, pt_ipc_full};
	size_t count = ptd_t_rand(seed) % (max + 1), i;

	for (i = 0; i < count; ++i) {
		struct pt_packet *pkt = &pkts[(*n)++];
		unsigned r = ptd_t_rand(seed) % 16;

		if (!with_cyc && r >= 8 && r < 14)
			r = 4;
		if (r < 3) {
			*pkt = ptd_t_packet(ppt_pad);
		} else if (r < 8) {
			*pkt = ptd_t_packet(ppt_tnt_8);
			pkt->payload.tnt.bit_size =
			        (uint8_t)(1 + ptd_t_rand(seed) % 6);
			pkt->payload.tnt.payload =
			        ptd_t_rand(seed) &
			        ((1u << pkt->payload.tnt.bit_size) - 1);
			f->after_cyc = 0;
		} else if (r < 14) {
			/* Mostly one-byte CYCs (values below 32). */
			uint64_t v = (r < 13) ? ptd_t_rand(seed) % 32
			                      : ptd_t_rand(seed) % 100000;

			*pkt = ptd_t_packet(ppt_cyc);
			pkt->payload.cyc.value = v;
			f->cycles[f->ncyc++] = v;
			f->after_cyc = 1;
		} else {
			*pkt = ptd_t_packet(ppt_tip);
			pkt->payload.ip.ipc = ipcs[ptd_t_rand(seed) % 6];
			pkt->payload.ip.ip = (uint64_t)ptd_t_rand(seed) << 12;
			if (pkt->payload.ip.ipc == pt_ipc_sext_48)
				pkt->payload.ip.ip &= (UINT64_C(1) << 47) - 1;
			f->after_cyc = 0;
		}
	}
}

/* An engine on @config (ptd_t_config() for the trace [@buf, @buf + @size))
 * at a TSC and its TMA with CTC @tma_ctc (with mtc_freq 4, 0x100 makes the
 * next MTC's payload 0x11); returns the look-ahead over the whole trace. */
static struct ptd_time_ahead ptd_t_anchored_at(struct ptd_time *time,
                                               struct pt_config *config,
                                               uint8_t *buf, size_t size,
                                               uint16_t tma_ctc)
{
	struct ptd_time_ahead ahead;

	ptd_t_config(config);
	config->begin = buf;
	config->end = buf + size;
	ptd_t_time(time, config, ptd_time_mode_accurate);
	ptd_t_feed(time, ppt_tsc, 100000, 0);
	ptd_t_feed(time, ppt_tma, tma_ctc, 0);
	memset(&ahead, 0, sizeof(ahead));
	ahead.pos = buf;
	ahead.end = buf + size;
	return ahead;
}

/* ptd_t_anchored_at() with the TMA's CTC at 0x100. */
static struct ptd_time_ahead ptd_t_anchored(struct ptd_time *time,
                                            struct pt_config *config,
                                            uint8_t *buf, size_t size)
{
	return ptd_t_anchored_at(time, config, buf, size, 0x100);
}

/* The segment look-ahead counts the cycles of every CYC up to the MTC that
 * ends the segment, weighted as one by one, and tells whether a CYC comes
 * right before the MTC, whatever runs of one-byte packets lie between
 * (they are stepped over 16 bytes at a time where SSE2 is available). */
static void test_lookahead_runs(void **state)
{
	static uint8_t buf[2048];
	static struct pt_packet pkts[256];
	uint32_t seed = 1;

	(void)state;
	for (int trial = 0; trial < 600; ++trial) {
		struct ptd_t_fill f = {{0}, 0, 1};
		struct ptd_time_ahead ahead;
		struct ptd_time_from from;
		struct ptd_time_scan scan;
		struct ptd_wcyc ref;
		struct pt_config config;
		struct ptd_time time;
		uint64_t sum = 0;
		size_t n = 0, size;

		if (trial % 5)
			ptd_t_fill(pkts, &n, 120, &seed, 1, &f);
		else {
			/* The MTC right after the CYC, PADs aside (the
			 * look-ahead's short cut). */
			size_t pads = trial % 11;

			while (pads--)
				pkts[n++] = ptd_t_packet(ppt_pad);
		}
		pkts[n] = ptd_t_packet(ppt_mtc);
		pkts[n++].payload.mtc.ctc = 0x11;
		while (n < 200)
			pkts[n++] = ptd_t_packet(ppt_pad);
		size = ptd_t_encode(buf, sizeof(buf), pkts, n);

		ahead = ptd_t_anchored(&time, &config, buf, size);

		memset(&from, 0, sizeof(from));
		from.wall = &time.est.acc.wall;
		/* Known ratio, none yet, or a CYC to come that spans a
		 * change of it (then the CYCs are weighed one by one). */
		switch (trial % 3) {
		case 0:
			ptd_wcyc_cbr(&from.wcyc, 10);
			break;
		case 1:
			break;
		default:
			ptd_wcyc_cbr(&from.wcyc, 10);
			ptd_wcyc_cbr(&from.wcyc, 14);
			break;
		}
		ref = from.wcyc;
		for (size_t i = 0; i < f.ncyc; ++i) {
			sum += f.cycles[i];
			ptd_wcyc_add(&ref, f.cycles[i], UINT64_MAX);
		}

		assert_int_equal(
		        ptd_time_lookahead(&ahead, &time.cfg, &from, &scan), 0);
		assert_true(scan.have_end);
		assert_false(scan.end_is_tsc);
		assert_int_equal(scan.periods, 1);
		/* One MTC period after the TMA: 16 CTC ticks of 3 TSC
		 * ticks. */
		assert_int_equal(scan.end_time, 100000 + 16 * 3);
		assert_int_equal(scan.cycles, sum);
		assert_int_equal(scan.end_after_cyc, f.after_cyc);
		assert_int_equal(scan.wcyc.weight, ref.weight);
		assert_int_equal(scan.wcyc.unknown, ref.unknown);
		assert_int_equal(scan.wcyc.have_span, ref.have_span);
		assert_int_equal(scan.wcyc.span_cycles, ref.span_cycles);
	}
}

/* The anchor scan (at a TMA, the MTCs up to the next TSC and TMA measured
 * against them) sees only the timing packets: the same result with or
 * without other packets between them. */
static void test_anchor_scan_runs(void **state)
{
	static uint8_t buf[2][8192];
	static struct pt_packet pkts[2][1024];
	uint32_t seed = 7;

	(void)state;
	for (int trial = 0; trial < 200; ++trial) {
		uint64_t actual[2] = {0, 0}, predicted[2] = {0, 0};
		/* CTC ticks per MTC period 16, TSC ticks per CTC tick 3,
		 * plus some error for the scan to measure. */
		const uint64_t tsc = 100000 + 11 * 16 * 3 + trial % 40;

		for (int v = 0; v < 2; ++v) {
			struct ptd_t_fill f = {{0}, 0, 1};
			struct ptd_time_ahead ahead;
			struct pt_config config;
			struct ptd_time time;
			size_t n = 0, size;
			uint32_t s = seed;

			for (unsigned k = 1; k <= 11; ++k) {
				if (v)
					ptd_t_fill(pkts[v], &n, 60, &s, 1, &f);
				pkts[v][n] = ptd_t_packet(ppt_mtc);
				pkts[v][n++].payload.mtc.ctc =
				        (uint8_t)(0x10 + k);
			}
			if (v)
				ptd_t_fill(pkts[v], &n, 60, &s, 1, &f);
			pkts[v][n] = ptd_t_packet(ppt_tsc);
			pkts[v][n++].payload.tsc.tsc = tsc;
			if (v)
				ptd_t_fill(pkts[v], &n, 3, &s, 0, &f);
			pkts[v][n] = ptd_t_packet(ppt_tma);
			pkts[v][n].payload.tma.ctc = 0x1b0;
			pkts[v][n++].payload.tma.fc = 0;
			while (n < 1000 && n % 64)
				pkts[v][n++] = ptd_t_packet(ppt_pad);
			pkts[v][n++] = ptd_t_packet(ppt_pad);
			size = ptd_t_encode(buf[v], sizeof(buf[v]), pkts[v], n);

			ahead = ptd_t_anchored(&time, &config, buf[v], size);
			assert_int_equal(
			        ptd_time_scan_anchor(&ahead, &time.cfg,
			                             &time.est.acc.wall,
			                             &actual[v], &predicted[v]),
			        1);
			if (v)
				seed = s;
		}
		assert_int_equal(actual[0], actual[1]);
		assert_int_equal(predicted[0], predicted[1]);
		assert_int_equal(actual[0], tsc - 100000);
		assert_int_equal(predicted[0], 11 * 16 * 3);
	}
}

/* The anchor scan counts the CTC of MTCs whose 8-bit payload wraps (0xff
 * to 0x00) after the first MTC, where it moves the CTC state in local
 * variables: the same measurement as without the wrap. */
static void test_anchor_scan_wrap(void **state)
{
	static uint8_t buf[8192];
	static struct pt_packet pkts[1024];
	uint32_t seed = 11;

	(void)state;
	for (int trial = 0; trial < 100; ++trial) {
		struct ptd_t_fill f = {{0}, 0, 1};
		struct ptd_time_ahead ahead;
		struct pt_config config;
		struct ptd_time time;
		uint64_t actual = 0, predicted = 0;
		size_t n = 0, size;
		/* The TMA at the anchor is at payload 0xfa; the MTCs are 0xfb
		 * to 0xff and on from 0x00 (the wrap at the trial's MTC
		 * number 5 + trial % 4 after the start, or so). */
		const unsigned first = 0xfb - (unsigned)(trial % 4);
		const unsigned count = 11;
		const uint64_t tsc = 100000 + count * 16 * 3 + trial % 40;

		for (unsigned k = 0; k < count; ++k) {
			ptd_t_fill(pkts, &n, 60, &seed, 1, &f);
			pkts[n] = ptd_t_packet(ppt_mtc);
			pkts[n++].payload.mtc.ctc = (uint8_t)(first + k);
		}
		ptd_t_fill(pkts, &n, 60, &seed, 1, &f);
		pkts[n] = ptd_t_packet(ppt_tsc);
		pkts[n++].payload.tsc.tsc = tsc;
		pkts[n] = ptd_t_packet(ppt_tma);
		pkts[n].payload.tma.ctc =
		        (uint16_t)(((first + count - 1) & 0xff) << 4);
		pkts[n++].payload.tma.fc = 0;
		while (n < 1000 && n % 64)
			pkts[n++] = ptd_t_packet(ppt_pad);
		pkts[n++] = ptd_t_packet(ppt_pad);
		size = ptd_t_encode(buf, sizeof(buf), pkts, n);

		ahead = ptd_t_anchored_at(&time, &config, buf, size,
		                          (uint16_t)((first - 1) << 4));
		assert_int_equal(ptd_time_scan_anchor(&ahead, &time.cfg,
		                                      &time.est.acc.wall,
		                                      &actual, &predicted),
		                 1);
		assert_int_equal(actual, tsc - 100000);
		assert_int_equal(predicted, count * 16 * 3);
	}
}

/* Set @config up for the @size bytes at @buf, @time on it (the accurate
 * estimator), and return a packet decoder synchronized at its start. */
static struct pt_packet_decoder *ptd_t_over(struct pt_config *config,
                                            uint8_t *buf, size_t size,
                                            struct ptd_time *time)
{
	struct pt_packet_decoder *decoder;

	ptd_t_config(config);
	config->begin = buf;
	config->end = buf + size;
	ptd_t_time(time, config, ptd_time_mode_accurate);
	decoder = pt_pkt_alloc_decoder(config);
	assert_non_null(decoder);
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	return decoder;
}

/* Decode the next packet of @decoder (over @buf of @size bytes) and give
 * it to @time with the look-ahead from there. */
static void ptd_t_step(struct pt_packet_decoder *decoder, struct ptd_time *time,
                       const uint8_t *buf, size_t size)
{
	struct ptd_time_ahead ahead;
	struct pt_packet pkt;
	uint64_t off = 0;

	assert_true(pt_pkt_next(decoder, &pkt, sizeof(pkt)) > 0);
	assert_int_equal(pt_pkt_get_offset(decoder, &off), 0);
	ahead.pos = buf + off;
	ahead.end = buf + size;
	memset(&ahead.state, 0, sizeof(ahead.state));
	assert_int_equal(ptd_time_update(time, &pkt, &ahead), 0);
}

/* The PSB+ that the random timing streams start with: TSC @tsc, a TMA with
 * CTC 0x100, CBR 20.  Returns the number of packets written to @pkts. */
static size_t ptd_t_psb_start(struct pt_packet *pkts, uint64_t tsc)
{
	size_t n = 0;

	pkts[n++] = ptd_t_packet(ppt_psb);
	pkts[n] = ptd_t_packet(ppt_tsc);
	pkts[n++].payload.tsc.tsc = tsc;
	pkts[n] = ptd_t_packet(ppt_tma);
	pkts[n++].payload.tma.ctc = 0x100;
	pkts[n] = ptd_t_packet(ppt_cbr);
	pkts[n++].payload.cbr.ratio = 20;
	pkts[n++] = ptd_t_packet(ppt_psbend);
	return n;
}

/* ptd_time_cyc_fast(), ptd_time_update()'s inline path for CYC packets,
 * gives exactly what ptd_time_apply() gives, packet for packet, on random
 * streams of timing packets (TSC, TMA, MTC with dropped ones, CYC, CBR,
 * PSB+, OVF) with other packets between them. */
static void test_cyc_fast_path(void **state)
{
	static uint8_t buf[16384];
	static struct pt_packet pkts[4096];
	uint32_t seed = 3;
	unsigned taken = 0;

	(void)state;
	for (int trial = 0; trial < 60; ++trial) {
		struct ptd_t_fill f = {{0}, 0, 1};
		struct pt_packet_decoder *decoder;
		struct ptd_time a, b;
		struct pt_config config;
		uint64_t tsc = 100000;
		uint8_t ctc = 0x10;
		size_t n, size;

		n = ptd_t_psb_start(pkts, tsc);
		while (n < 3000) {
			unsigned r = ptd_t_rand(&seed) % 64;

			f.ncyc = 0;
			ptd_t_fill(pkts, &n, 12, &seed, 1, &f);
			if (r < 40) {
				/* Mostly the next MTC, sometimes one after
				 * a few dropped ones. */
				ctc = (uint8_t)(ctc + 1 + (r < 3 ? r : 0));
				pkts[n] = ptd_t_packet(ppt_mtc);
				pkts[n++].payload.mtc.ctc = ctc;
			} else if (r < 43) {
				pkts[n] = ptd_t_packet(ppt_cbr);
				pkts[n++].payload.cbr.ratio =
				        (uint8_t)(8 + ptd_t_rand(&seed) % 30);
			} else if (r == 43) {
				pkts[n++] = ptd_t_packet(ppt_ovf);
			} else if (r == 44) {
				tsc += 16 * 3 * 40;
				pkts[n++] = ptd_t_packet(ppt_psb);
				pkts[n] = ptd_t_packet(ppt_tsc);
				pkts[n++].payload.tsc.tsc = tsc;
				pkts[n++] = ptd_t_packet(ppt_psbend);
			}
		}
		size = ptd_t_encode(buf, sizeof(buf), pkts, n);

		decoder = ptd_t_over(&config, buf, size, &a);
		ptd_t_time(&b, &config, ptd_time_mode_accurate);
		for (;;) {
			struct ptd_time_ahead ahead;
			struct pt_packet pkt;
			uint64_t off = 0, ta = 0, tb = 0;
			uint32_t ma = 0, mb = 0, ca = 0, cb = 0;
			int ret = pt_pkt_next(decoder, &pkt, sizeof(pkt));

			if (ret == -pte_eos)
				break;
			assert_true(ret > 0);
			assert_int_equal(pt_pkt_get_offset(decoder, &off), 0);
			ahead.pos = buf + off;
			ahead.end = buf + size;
			memset(&ahead.state, 0, sizeof(ahead.state));
			assert_int_equal(ptd_time_apply(&a, &pkt, &ahead), 0);
			if (pkt.type == ppt_cyc &&
			    ptd_time_cyc_fast(&b, pkt.payload.cyc.value))
				++taken;
			else
				assert_int_equal(
				        ptd_time_update(&b, &pkt, &ahead), 0);

			assert_int_equal(ptd_time_get_tsc(&a, &ta, &ma, &ca),
			                 ptd_time_get_tsc(&b, &tb, &mb, &cb));
			assert_int_equal(ta, tb);
			assert_int_equal(ma, mb);
			assert_int_equal(ca, cb);
			assert_int_equal(a.est.acc.seg_cycles,
			                 b.est.acc.seg_cycles);
			assert_int_equal(a.est.acc.last_cyc_time,
			                 b.est.acc.last_cyc_time);
			assert_int_equal(a.est.acc.tcal.ratio,
			                 b.est.acc.tcal.ratio);
			assert_int_equal(a.est.acc.seg_wcyc.weight,
			                 b.est.acc.seg_wcyc.weight);
			assert_int_equal(a.report.time_error,
			                 b.report.time_error);
		}
		pt_pkt_free_decoder(decoder);
	}
	/* The fast path was taken, and not only a few times. */
	assert_true(taken > 10000);
}

/* The plan of a segment whose first CYC is the one sent with the MTC that
 * ends it (ptd_acc_scan_next_mtc(), without the look-ahead) is the plan the
 * look-ahead makes: stream A has segments "CYC, PADs, MTC", stream B the
 * same with a CYC of 0 cycles after the first CYC, so that B's plans come
 * from the look-ahead's loop; a CYC of 0 cycles changes neither the cycles
 * nor the time.  Both are decoded in lockstep and compared after every
 * packet of A (B's extra CYCs aside): times, lost MTCs, and the plan with
 * what the MTC reuses of it.  (lost_cyc differs: it counts the CYCs before
 * calibration, and B has more.)  MTCs advance by one to four periods and
 * the CYCs count few to many cycles, so segments are rescaled, clamped
 * (a gap before the MTC) and, after an OVF, placed backward. */
static void test_plan_next_mtc(void **state)
{
	static uint8_t bufa[32768], bufb[32768];
	static struct pt_packet pa[4096], pb[4096];
	static uint8_t extra[4096];
	uint32_t seed = 11;
	unsigned plans[8] = {0};

	(void)state;
	for (int trial = 0; trial < 40; ++trial) {
		struct pt_packet_decoder *da, *db;
		struct pt_config ca, cb;
		struct ptd_time a, b;
		size_t na = 0, nb = 0, sa, sb, ib = 0;
		uint8_t ctc = 0x10;

#define BOTH(p)                                                                \
	do {                                                                   \
		pa[na++] = (p);                                                \
		extra[nb] = 0;                                                 \
		pb[nb++] = (p);                                                \
	} while (0)
		BOTH(ptd_t_packet(ppt_psb));
		BOTH(ptd_t_packet(ppt_tsc));
		pa[na - 1].payload.tsc.tsc = pb[nb - 1].payload.tsc.tsc =
		        100000;
		BOTH(ptd_t_packet(ppt_tma));
		pa[na - 1].payload.tma.ctc = pb[nb - 1].payload.tma.ctc = 0x100;
		BOTH(ptd_t_packet(ppt_cbr));
		pa[na - 1].payload.cbr.ratio = pb[nb - 1].payload.cbr.ratio =
		        20;
		BOTH(ptd_t_packet(ppt_psbend));
		while (na < 3000) {
			unsigned r = ptd_t_rand(&seed) % 64;
			struct pt_packet p = ptd_t_packet(ppt_tnt_8);

			/* Something between the segments, no CYC. */
			p.payload.tnt.bit_size = 1;
			if (r & 1)
				BOTH(p);
			if (r == 7 || r == 8) {
				/* An OVF, and a CBR that gives a ratio
				 * again, for the backward plan. */
				BOTH(ptd_t_packet(ppt_ovf));
				BOTH(ptd_t_packet(ppt_cbr));
				pa[na - 1].payload.cbr.ratio =
				        pb[nb - 1].payload.cbr.ratio = 24;
			} else if (r == 9) {
				BOTH(ptd_t_packet(ppt_cbr));
				pa[na - 1].payload.cbr.ratio =
				        pb[nb - 1].payload.cbr.ratio =
				                (uint8_t)(8 + r % 30);
			}
			p = ptd_t_packet(ppt_cyc);
			p.payload.cyc.value =
			        (r < 32) ? ptd_t_rand(&seed) % 300
			                 : ptd_t_rand(&seed) % 3000;
			BOTH(p);
			/* B: the extra CYC of 0 cycles. */
			extra[nb] = 1;
			pb[nb++] = ptd_t_packet(ppt_cyc);
			for (unsigned k = ptd_t_rand(&seed) % 3; k; --k)
				BOTH(ptd_t_packet(ppt_pad));
			/* Mostly the next period, else two to four on. */
			r = ptd_t_rand(&seed) % 8;
			ctc = (uint8_t)(ctc + (r < 5 ? 1 : r - 3));
			p = ptd_t_packet(ppt_mtc);
			p.payload.mtc.ctc = ctc;
			BOTH(p);
		}
#undef BOTH
		sa = ptd_t_encode(bufa, sizeof(bufa), pa, na);
		sb = ptd_t_encode(bufb, sizeof(bufb), pb, nb);
		da = ptd_t_over(&ca, bufa, sa, &a);
		db = ptd_t_over(&cb, bufb, sb, &b);
		for (size_t ia = 0; ia < na; ++ia) {
			const struct ptd_acc *xa = &a.est.acc, *xb = &b.est.acc;
			uint64_t ta = 0, tb = 0;
			uint32_t ma = 0, mb = 0;

			ptd_t_step(da, &a, bufa, sa);
			ptd_t_step(db, &b, bufb, sb);
			++ib;
			if (ib < nb && extra[ib]) {
				ptd_t_step(db, &b, bufb, sb);
				++ib;
			}
			assert_int_equal(ptd_time_get_tsc(&a, &ta, &ma, NULL),
			                 ptd_time_get_tsc(&b, &tb, &mb, NULL));
			assert_int_equal(ta, tb);
			assert_int_equal(ma, mb);
			assert_int_equal(xa->plan, xb->plan);
			if (xa->plan == ptd_seg_none)
				continue;
			if (pa[ia].type == ppt_cyc && xa->plan < 8)
				plans[xa->plan]++;
			assert_int_equal(xa->plan_end, xb->plan_end);
			assert_int_equal(xa->plan_cycles, xb->plan_cycles);
			assert_int_equal(xa->plan_weight, xb->plan_weight);
			assert_int_equal(xa->plan_unknown_weight,
			                 xb->plan_unknown_weight);
			assert_int_equal(xa->plan_split, xb->plan_split);
			assert_int_equal(xa->plan_end_after_cyc,
			                 xb->plan_end_after_cyc);
			assert_int_equal(!xa->la_next, !xb->la_next);
			assert_int_equal(xa->la_elapsed, xb->la_elapsed);
			assert_int_equal(xa->la_ctc, xb->la_ctc);
			assert_int_equal(xa->la_step.time, xb->la_step.time);
			assert_int_equal(xa->la_step.periods,
			                 xb->la_step.periods);
		}
		pt_pkt_free_decoder(da);
		pt_pkt_free_decoder(db);
	}
	/* Every kind of plan came up (25,326 rescaled, 7,131 clamped, 1,047
	 * backward when written). */
	assert_true(plans[ptd_seg_rescale] > 1000);
	assert_true(plans[ptd_seg_clamp] > 100);
	assert_true(plans[ptd_seg_backward] > 10);
}

/* ptd_time_cyc_mtc() leaves the time engine exactly as ptd_time_update()
 * for the CYC, the PADs and the MTC would have, byte for byte: stream A is
 * decoded packet by packet, stream B (the same packets) takes every "CYC,
 * PADs, MTC" through ptd_time_cyc_mtc() where it accepts them, and the two
 * engines are compared wherever both stand at the same packet.  The
 * segments are pairs of one CYC and its MTC, or have more CYCs and other
 * packets, MTCs advance by one to four periods (lost MTCs, clamped plans),
 * CYCs count 0 to 3000 cycles, and CBRs, OVFs and PSB+ with TSC and TMA
 * come between them, so the cases it declines come up as well. */
static void test_cyc_mtc_pair(void **state)
{
	static uint8_t buf[32768];
	static struct pt_packet pkts[4096];
	uint32_t seed = 17;
	unsigned taken = 0, declined = 0;

	(void)state;
	for (int trial = 0; trial < 40; ++trial) {
		struct pt_packet_decoder *da, *db;
		struct pt_config config;
		struct ptd_time a, b;
		uint64_t tsc = 100000;
		size_t n, size, ia, ib;
		uint8_t ctc = 0x10;

		n = ptd_t_psb_start(pkts, tsc);
		while (n < 3000) {
			unsigned r = ptd_t_rand(&seed) % 64;
			struct pt_packet p;

			if (r < 6) {
				p = ptd_t_packet(ppt_cbr);
				p.payload.cbr.ratio =
				        (uint8_t)(8 + ptd_t_rand(&seed) % 30);
				pkts[n++] = p;
			} else if (r == 6) {
				pkts[n++] = ptd_t_packet(ppt_ovf);
			} else if (r == 7) {
				tsc += 16 * 3 * 40 *
				       (1 + ptd_t_rand(&seed) % 4);
				pkts[n++] = ptd_t_packet(ppt_psb);
				pkts[n] = ptd_t_packet(ppt_tsc);
				pkts[n++].payload.tsc.tsc = tsc;
				pkts[n] = ptd_t_packet(ppt_tma);
				pkts[n++].payload.tma.ctc =
				        (uint16_t)((ctc + 1) << 3);
				pkts[n++] = ptd_t_packet(ppt_psbend);
			}
			/* A segment with more than one CYC, now and then. */
			for (unsigned k = (r % 5 == 0) ? 1 + r % 3 : 0; k;
			     --k) {
				p = ptd_t_packet(ppt_cyc);
				p.payload.cyc.value = ptd_t_rand(&seed) % 200;
				pkts[n++] = p;
				p = ptd_t_packet(ppt_tnt_8);
				p.payload.tnt.bit_size = 1;
				pkts[n++] = p;
			}
			p = ptd_t_packet(ppt_cyc);
			p.payload.cyc.value =
			        (r % 11 == 0) ? 0
			        : (r < 40)    ? ptd_t_rand(&seed) % 300
			                      : ptd_t_rand(&seed) % 3000;
			pkts[n++] = p;
			for (unsigned k = ptd_t_rand(&seed) % 3; k; --k)
				pkts[n++] = ptd_t_packet(ppt_pad);
			r = ptd_t_rand(&seed) % 8;
			ctc = (uint8_t)(ctc + (r < 5 ? 1 : r - 3));
			p = ptd_t_packet(ppt_mtc);
			p.payload.mtc.ctc = ctc;
			pkts[n++] = p;
		}
		size = ptd_t_encode(buf, sizeof(buf), pkts, n);
		da = ptd_t_over(&config, buf, size, &a);
		b = a;
		db = pt_pkt_alloc_decoder(&config);
		assert_non_null(db);
		assert_int_equal(pt_pkt_sync_set(db, 0), 0);
		for (ia = 0, ib = 0; ib < n;) {
			size_t j = ib + 1;

			if (pkts[ib].type == ppt_cyc) {
				while (j < n && pkts[j].type == ppt_pad)
					++j;
			}
			if (pkts[ib].type == ppt_cyc && j < n &&
			    pkts[j].type == ppt_mtc &&
			    ptd_time_cyc_mtc(&b, pkts[ib].payload.cyc.value,
			                     pkts[j].payload.mtc.ctc)) {
				struct pt_packet skip;

				++taken;
				for (; ib <= j; ++ib)
					assert_true(pt_pkt_next(db, &skip,
					                        sizeof(skip)) >
					            0);
			} else {
				if (pkts[ib].type == ppt_cyc && j < n &&
				    pkts[j].type == ppt_mtc)
					++declined;
				ptd_t_step(db, &b, buf, size);
				++ib;
			}
			for (; ia < ib; ++ia)
				ptd_t_step(da, &a, buf, size);
			assert_memory_equal(&a, &b, sizeof(a));
		}
		pt_pkt_free_decoder(da);
		pt_pkt_free_decoder(db);
	}
	/* Both ways came up often (18,924 and 11,418 when written). */
	assert_true(taken > 10000);
	assert_true(declined > 1000);
}

/* The anchor scan measures up to the TSC and TMA of the next PSB+, and
 * gives up at a PSB+ without a TSC (TSC packets are off from there: no
 * end to measure to, even if a TSC and TMA come later). */
static void test_anchor_scan_psb(void **state)
{
	static uint8_t buf[1024];
	struct pt_packet pkts[64];

	(void)state;
	for (int with_tsc = 0; with_tsc < 2; ++with_tsc) {
		struct ptd_time_ahead ahead;
		struct pt_config config;
		struct ptd_time time;
		uint64_t actual = 0, predicted = 0;
		size_t n = 0, size;

		for (unsigned k = 1; k <= 11; ++k) {
			pkts[n] = ptd_t_packet(ppt_mtc);
			pkts[n++].payload.mtc.ctc = (uint8_t)(0x10 + k);
		}
		pkts[n++] = ptd_t_packet(ppt_psb);
		if (!with_tsc)
			pkts[n++] = ptd_t_packet(ppt_psbend);
		pkts[n] = ptd_t_packet(ppt_tsc);
		pkts[n++].payload.tsc.tsc = 100000 + 11 * 16 * 3;
		pkts[n] = ptd_t_packet(ppt_tma);
		pkts[n++].payload.tma.ctc = 0x1b0;
		if (with_tsc)
			pkts[n++] = ptd_t_packet(ppt_psbend);
		while (n < 40)
			pkts[n++] = ptd_t_packet(ppt_pad);
		size = ptd_t_encode(buf, sizeof(buf), pkts, n);

		ahead = ptd_t_anchored(&time, &config, buf, size);
		assert_int_equal(ptd_time_scan_anchor(&ahead, &time.cfg,
		                                      &time.est.acc.wall,
		                                      &actual, &predicted),
		                 with_tsc);
		if (with_tsc) {
			assert_int_equal(actual, 11 * 16 * 3);
			assert_int_equal(predicted, 11 * 16 * 3);
		}
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_query_invalid),
	        cmocka_unit_test(test_query_no_time_initially),
	        cmocka_unit_test(test_query_relative_time),
	        cmocka_unit_test(test_query_cbr),
	        cmocka_unit_test(test_lost_counters_reset_by_tsc),
	        cmocka_unit_test(test_mtc_exact),
	        cmocka_unit_test(test_mtc_wrap),
	        cmocka_unit_test(test_mtc_low_frequency),
	        cmocka_unit_test(test_mtc_between_tsc_and_tma),
	        cmocka_unit_test(test_tma_bad_context),
	        cmocka_unit_test(test_mtc_no_cpuid),
	        cmocka_unit_test(test_mtc_freq_range),
	        cmocka_unit_test(test_mtc_freq_diagnostic),
	        cmocka_unit_test(test_no_nom_freq_diagnostic),
	        cmocka_unit_test(test_calibration_sources),
	        cmocka_unit_test(test_calibration_ovf),
	        cmocka_unit_test(test_never_backwards),
	        cmocka_unit_test(test_vmx_scaling),
	        cmocka_unit_test(test_arithmetic),
	        cmocka_unit_test(test_cyc_mtc_pair),
	        cmocka_unit_test(test_lookahead_runs),
	        cmocka_unit_test(test_anchor_scan_runs),
	        cmocka_unit_test(test_anchor_scan_wrap),
	        cmocka_unit_test(test_anchor_scan_psb),
	        cmocka_unit_test(test_cyc_fast_path),
	        cmocka_unit_test(test_plan_next_mtc),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
