/* SPDX-License-Identifier: BSD-3-Clause */
/* Clock conversions (ptd_clock.h, lib/time/conv.c): exact 128-bit
 * multiply-divide, TSC <-> ns, TSC frequency from the nominal ratio, CPUID
 * 0x15 and perf, perf time with the anchor of the perf-data corpus, core
 * frequency, IPC and the frequency meter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ptdecode/ptdecode.h"
#include "test_util.h"
#include "time/conv.h"

#include <stdint.h>

/* The perf-data corpus (../shared/corpora/perf-data): Skylake m7-6Y75,
 * AUXTRACE_INFO time_shift 31, time_mult 1789569706, time_zero
 * 0xfffffff86343cb91; perf prints TSC 0xbc4cbefc32 as 641.256845844. */
static const struct ptd_perf_tc skl_tc = {31, 1789569706u,
                                          0xfffffff86343cb91ull};
#define SKL_TSC 0xbc4cbefc32ull
#define SKL_NS 641256845844ull

static void test_muldiv_basics(void **state)
{
	uint64_t q = 7;

	(void)state;
	assert_int_equal(ptd_muldiv(&q, 10, 3, 4, ptd_round_down), 0);
	assert_int_equal(q, 7);
	assert_int_equal(ptd_muldiv(&q, 10, 3, 4, ptd_round_nearest), 0);
	assert_int_equal(q, 8); /* 7.5 rounds up */
	assert_int_equal(ptd_muldiv(&q, 10, 3, 4, ptd_round_up), 0);
	assert_int_equal(q, 8);
	assert_int_equal(ptd_muldiv(&q, 9, 3, 4, ptd_round_nearest), 0);
	assert_int_equal(q, 7); /* 6.75 */
	assert_int_equal(ptd_muldiv(&q, 12, 1, 4, ptd_round_up), 0);
	assert_int_equal(q, 3); /* exact: no rounding */

	/* The largest product, divided back. */
	assert_int_equal(ptd_muldiv(&q, UINT64_MAX, UINT64_MAX, UINT64_MAX,
	                            ptd_round_up),
	                 0);
	assert_true(q == UINT64_MAX);
	q = 5;
	assert_int_equal(ptd_muldiv(&q, UINT64_MAX, 2, 1, ptd_round_down),
	                 -pte_overflow);
	assert_int_equal(q, 5);
	assert_int_equal(ptd_muldiv(&q, UINT64_MAX, 1, 1, ptd_round_up), 0);
	assert_true(q == UINT64_MAX);
	/* Rounding up can push the quotient over the top. */
	assert_int_equal(ptd_muldiv(&q, UINT64_MAX, 2, 2, ptd_round_up), 0);
	assert_true(q == UINT64_MAX);
	assert_int_equal(ptd_muldiv(&q, 1, 0, 7, ptd_round_up), 0);
	assert_int_equal(q, 0);
	assert_int_equal(ptd_muldiv(&q, 1, 1, 0, ptd_round_down), -pte_invalid);
	assert_int_equal(ptd_muldiv(NULL, 1, 1, 1, ptd_round_down),
	                 -pte_invalid);
	assert_int_equal(ptd_muldiv_portable(&q, 1, 1, 0, ptd_round_down),
	                 -pte_invalid);
	assert_int_equal(
	        ptd_muldiv_portable(&q, UINT64_MAX, 3, 2, ptd_round_down),
	        -pte_overflow);
}

/* The portable path agrees with 128-bit integers (or, without them, with
 * identities that hold exactly). */
static void test_muldiv_portable(void **state)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	int i, r;

	(void)state;
	for (i = 0; i < 200000; ++i) {
		uint64_t a = ptd_t_rand64(&s), b = ptd_t_rand64(&s),
		         d = ptd_t_rand64(&s);
		uint64_t q1 = 0, q2 = 0;
		int e1, e2;

		/* Vary the magnitudes so both overflow and exact quotients
		 * are common. */
		a >>= i % 64;
		b >>= (i / 64) % 64;
		d >>= (i / 7) % 64;
		if (!d)
			d = 1;
		r = i % 3;
		e1 = ptd_muldiv(&q1, a, b, d, (enum ptd_round)r);
		e2 = ptd_muldiv_portable(&q2, a, b, d, (enum ptd_round)r);
		assert_int_equal(e1, e2);
		if (!e1)
			assert_true(q1 == q2);
#if defined(__SIZEOF_INT128__)
		{
			unsigned __int128 p = (unsigned __int128)a * b;
			unsigned __int128 x = p / d, rem = p % d;

			if (r == ptd_round_up && rem)
				++x;
			if (r == ptd_round_nearest && rem * 2 >= d)
				++x;
			assert_int_equal(e2, (x >> 64) ? -pte_overflow : 0);
			if (!e2)
				assert_true(q2 == (uint64_t)x);
		}
#endif
	}
}

static void test_tsc_hz(void **state)
{
	uint64_t hz = 1;

	(void)state;
	assert_true(ptd_ratio_hz(12) == 1200000000ull);
	assert_true(ptd_ratio_hz(37) == 3700000000ull);
	assert_true(ptd_ratio_hz(255) == 25500000000ull);
	assert_true(ptd_ratio_hz(0) == 0);

	/* 24 MHz crystal, TSC:crystal 100/2. */
	assert_int_equal(ptd_tsc_hz_from_cpuid_0x15(&hz, 2, 100, 24000000), 0);
	assert_true(hz == 1200000000ull);
	/* 25 MHz crystal, 308/2 (Xeon 6/85): 3.85 GHz. */
	assert_int_equal(ptd_tsc_hz_from_cpuid_0x15(&hz, 2, 308, 25000000), 0);
	assert_true(hz == 3850000000ull);
	/* Rounded to nearest: 19.2 MHz * 3 / 7 = 8228571.43. */
	assert_int_equal(ptd_tsc_hz_from_cpuid_0x15(&hz, 7, 3, 19200000), 0);
	assert_true(hz == 8228571ull);
	assert_int_equal(ptd_tsc_hz_from_cpuid_0x15(&hz, 2, 100, 0),
	                 -pte_bad_config);
	assert_int_equal(ptd_tsc_hz_from_cpuid_0x15(&hz, 0, 100, 1),
	                 -pte_bad_config);
	assert_int_equal(ptd_tsc_hz_from_cpuid_0x15(&hz, 2, 0, 1),
	                 -pte_bad_config);
	assert_int_equal(ptd_tsc_hz_from_cpuid_0x15(NULL, 2, 100, 1),
	                 -pte_invalid);
	assert_int_equal(ptd_tsc_hz_from_cpuid_0x15(&hz, UINT32_MAX, UINT32_MAX,
	                                            UINT32_MAX),
	                 0);
	assert_true(hz == UINT32_MAX);
}

static void test_tsc_ns(void **state)
{
	uint64_t ns = 0, tsc = 0;

	(void)state;
	assert_int_equal(ptd_tsc_to_ns(&ns, 1200000000ull, 1200000000ull), 0);
	assert_true(ns == 1000000000ull);
	/* Rounded down: 1 tick at 1.2 GHz is 0.83 ns. */
	assert_int_equal(ptd_tsc_to_ns(&ns, 1, 1200000000ull), 0);
	assert_true(ns == 0);
	assert_int_equal(ptd_tsc_to_ns(&ns, 6, 1200000000ull), 0);
	assert_true(ns == 5);
	/* The full range at 1 GHz and above. */
	assert_int_equal(ptd_tsc_to_ns(&ns, UINT64_MAX, 1000000000ull), 0);
	assert_true(ns == UINT64_MAX);
	assert_int_equal(ptd_tsc_to_ns(&ns, UINT64_MAX, 3700000000ull), 0);
	assert_true(ns == 4985606506407986922ull);
	/* Below 1 GHz large values overflow. */
	ns = 3;
	assert_int_equal(ptd_tsc_to_ns(&ns, UINT64_MAX, 100000000ull),
	                 -pte_overflow);
	assert_true(ns == 3);
	assert_int_equal(ptd_tsc_to_ns(&ns, 1, 0), -pte_invalid);
	assert_int_equal(ptd_tsc_to_ns(NULL, 1, 1), -pte_invalid);

	assert_int_equal(ptd_ns_to_tsc(&tsc, 1000000000ull, 1200000000ull), 0);
	assert_true(tsc == 1200000000ull);
	assert_int_equal(ptd_ns_to_tsc(&tsc, 1, 1200000000ull), 0);
	assert_true(tsc == 1);
	assert_int_equal(ptd_ns_to_tsc(&tsc, UINT64_MAX, 1000000000ull), 0);
	assert_true(tsc == UINT64_MAX);
	assert_int_equal(ptd_ns_to_tsc(&tsc, UINT64_MAX, 1000000001ull),
	                 -pte_overflow);
	assert_int_equal(ptd_ns_to_tsc(&tsc, 1, 0), -pte_invalid);
	assert_int_equal(ptd_ns_to_tsc(NULL, 1, 1), -pte_invalid);
}

/* Round trips: ns -> tsc -> ns never gains time and loses less than one
 * tick's worth. */
static void test_tsc_ns_roundtrip(void **state)
{
	static const uint64_t freqs[] = {1200000000ull, 2100000000ull,
	                                 3696000003ull, 1000000000ull,
	                                 24000000ull};
	uint64_t s = 42;
	size_t f;
	int i;

	(void)state;
	for (f = 0; f < sizeof(freqs) / sizeof(freqs[0]); ++f) {
		for (i = 0; i < 10000; ++i) {
			uint64_t ns = ptd_t_rand64(&s) >> 8, tsc, back;

			assert_int_equal(ptd_ns_to_tsc(&tsc, ns, freqs[f]), 0);
			assert_int_equal(ptd_tsc_to_ns(&back, tsc, freqs[f]),
			                 0);
			assert_true(back <= ns);
			/* One tick is at most ceil(1e9 / hz) ns. */
			assert_true(ns - back <= 1000000000ull / freqs[f] + 1);
		}
	}
}

static void test_perf_anchor(void **state)
{
	uint64_t ns = 0, tsc = 0, hz = 0;

	(void)state;
	assert_int_equal(ptd_perf_tsc_to_ns(&ns, &skl_tc, SKL_TSC), 0);
	assert_true(ns == SKL_NS);

	/* perf's inverse rounds down: two ticks early here. */
	assert_int_equal(ptd_perf_ns_to_tsc(&tsc, &skl_tc, SKL_NS), 0);
	assert_true(tsc == 808741436464ull);
	assert_true(tsc == SKL_TSC - 2);

	/* The first TSC that perf prints as SKL_NS. */
	assert_int_equal(ptd_perf_ns_to_tsc_first(&tsc, &skl_tc, SKL_NS), 0);
	assert_true(tsc == 808741436465ull);
	assert_int_equal(ptd_perf_tsc_to_ns(&ns, &skl_tc, tsc), 0);
	assert_true(ns == SKL_NS);
	assert_int_equal(ptd_perf_tsc_to_ns(&ns, &skl_tc, tsc - 1), 0);
	assert_true(ns == SKL_NS - 1);

	/* TSC 0 is time_zero, a "negative" time. */
	assert_int_equal(ptd_perf_tsc_to_ns(&ns, &skl_tc, 0), 0);
	assert_true(ns == skl_tc.time_zero);

	/* 10^9 * 2^31 / 1789569706 = 1.2 GHz. */
	assert_int_equal(ptd_perf_tsc_hz(&hz, &skl_tc), 0);
	assert_true(hz == 1200000000ull);
}

/* The DynamoRIO corpus' conversion: time_shift 31, time_mult 581029125
 * (a 3.696 GHz TSC; nominal ratio 37). */
static void test_perf_dynamorio(void **state)
{
	const struct ptd_perf_tc tc = {31, 581029125u, 18444502336406842448ull};
	uint64_t hz = 0, ns, tsc;

	(void)state;
	assert_int_equal(ptd_perf_tsc_hz(&hz, &tc), 0);
	assert_true(hz == 3696000003ull);
	/* perf's fallback for the nominal ratio. */
	assert_int_equal((hz + 50000000ull) / 100000000ull, 37);

	/* Every value goes back to itself or just before it. */
	for (tsc = 0x100000000ull; tsc < 0x100000000ull + 5000; ++tsc) {
		uint64_t back, first;

		assert_int_equal(ptd_perf_tsc_to_ns(&ns, &tc, tsc), 0);
		assert_int_equal(ptd_perf_ns_to_tsc(&back, &tc, ns), 0);
		assert_true(back <= tsc);
		assert_int_equal(ptd_perf_ns_to_tsc_first(&first, &tc, ns), 0);
		assert_true(first <= tsc);
		assert_int_equal(ptd_perf_tsc_to_ns(&back, &tc, first), 0);
		assert_true(back == ns);
		if (first) {
			assert_int_equal(
			        ptd_perf_tsc_to_ns(&back, &tc, first - 1), 0);
			assert_true(back - tc.time_zero < ns - tc.time_zero);
		}
	}
}

/* perf's formula wraps in 64 bits exactly as perf's C code does. */
static void test_perf_formula(void **state)
{
	const struct ptd_perf_tc zero = {0, 1, 0};
	const struct ptd_perf_tc wide = {32, UINT32_MAX, 5};
	uint64_t ns, tsc;

	(void)state;
	/* shift 0, mult 1: the identity. */
	assert_int_equal(ptd_perf_tsc_to_ns(&ns, &zero, 12345), 0);
	assert_true(ns == 12345);
	assert_int_equal(ptd_perf_ns_to_tsc(&tsc, &zero, 12345), 0);
	assert_true(tsc == 12345);
	assert_int_equal(ptd_perf_ns_to_tsc_first(&tsc, &zero, 12345), 0);
	assert_true(tsc == 12345);

	/* shift 32, mult 2^32 - 1: ns = 5 + floor(tsc * (1 - 2^-32)). */
	assert_int_equal(ptd_perf_tsc_to_ns(&ns, &wide, 1ull << 40), 0);
	assert_true(ns == 5 + (1ull << 40) - (1ull << 8));
	assert_int_equal(ptd_perf_tsc_to_ns(&ns, &wide, UINT64_MAX), 0);
	assert_true(ns == 5 + UINT64_MAX - (1ull << 32));

	/* The top of the range: no TSC value is that late. */
	assert_int_equal(ptd_perf_ns_to_tsc_first(&tsc, &wide, 4),
	                 -pte_overflow);
	assert_int_equal(ptd_perf_ns_to_tsc_first(
	                         &tsc, &wide, 5 + UINT64_MAX - (1ull << 32)),
	                 0);
	assert_true(tsc == UINT64_MAX);
}

static void test_perf_errors(void **state)
{
	struct ptd_perf_tc tc = skl_tc;
	uint64_t v;

	(void)state;
	assert_int_equal(ptd_perf_tsc_to_ns(NULL, &tc, 1), -pte_invalid);
	assert_int_equal(ptd_perf_tsc_to_ns(&v, NULL, 1), -pte_invalid);
	assert_int_equal(ptd_perf_ns_to_tsc(NULL, &tc, 1), -pte_invalid);
	assert_int_equal(ptd_perf_ns_to_tsc(&v, NULL, 1), -pte_invalid);
	assert_int_equal(ptd_perf_ns_to_tsc_first(NULL, &tc, 1), -pte_invalid);
	assert_int_equal(ptd_perf_ns_to_tsc_first(&v, NULL, 1), -pte_invalid);
	assert_int_equal(ptd_perf_tsc_hz(NULL, &tc), -pte_invalid);
	assert_int_equal(ptd_perf_tsc_hz(&v, NULL), -pte_invalid);

	tc.time_mult = 0;
	assert_int_equal(ptd_perf_tsc_to_ns(&v, &tc, 1), -pte_bad_config);
	assert_int_equal(ptd_perf_ns_to_tsc(&v, &tc, 1), -pte_bad_config);
	assert_int_equal(ptd_perf_ns_to_tsc_first(&v, &tc, 1), -pte_bad_config);
	assert_int_equal(ptd_perf_tsc_hz(&v, &tc), -pte_bad_config);
	tc.time_mult = 1;
	tc.time_shift = 64;
	assert_int_equal(ptd_perf_tsc_to_ns(&v, &tc, 1), -pte_bad_config);
	assert_int_equal(ptd_perf_ns_to_tsc(&v, &tc, 1), -pte_bad_config);
	assert_int_equal(ptd_perf_ns_to_tsc_first(&v, &tc, 1), -pte_bad_config);
	assert_int_equal(ptd_perf_tsc_hz(&v, &tc), -pte_bad_config);
	tc.time_shift = 63;
	tc.time_zero = 0;
	assert_int_equal(ptd_perf_tsc_to_ns(&v, &tc, UINT64_MAX), 0);
	assert_true(v == 1);
	/* 10^9 * 2^63 does not fit. */
	assert_int_equal(ptd_perf_tsc_hz(&v, &tc), -pte_overflow);
}

static void test_core_hz(void **state)
{
	uint64_t hz = 0;

	(void)state;
	/* 36.8.3.4: 2900 cycles in 1200 ticks of a 1.2 GHz TSC. */
	assert_int_equal(ptd_core_hz(&hz, 2900, 1200, 1200000000ull), 0);
	assert_true(hz == 2900000000ull);
	/* Rounded to nearest. */
	assert_int_equal(ptd_core_hz(&hz, 2, 3, 1000000000ull), 0);
	assert_true(hz == 666666667ull);
	assert_int_equal(ptd_core_hz(&hz, 0, 3, 1000000000ull), 0);
	assert_true(hz == 0);
	/* Large counts stay exact. */
	assert_int_equal(
	        ptd_core_hz(&hz, 1ull << 62, 1ull << 61, 3696000003ull), 0);
	assert_true(hz == 2 * 3696000003ull);
	assert_int_equal(ptd_core_hz(&hz, UINT64_MAX, 1, 2), -pte_overflow);
	assert_int_equal(ptd_core_hz(&hz, 1, 0, 1), -pte_invalid);
	assert_int_equal(ptd_core_hz(&hz, 1, 1, 0), -pte_invalid);
	assert_int_equal(ptd_core_hz(NULL, 1, 1, 1), -pte_invalid);

	/* The coarse value from CBR. */
	assert_true(ptd_ratio_hz(29) == 2900000000ull);
}

static void test_ipc(void **state)
{
	double ipc = -1;

	(void)state;
	assert_int_equal(ptd_ipc(&ipc, 300, 200), 0);
	assert_true(ipc == 1.5);
	assert_int_equal(ptd_ipc(&ipc, 0, 200), 0);
	assert_true(ipc == 0.0);
	assert_int_equal(ptd_ipc(&ipc, 1, 0), -pte_invalid);
	assert_int_equal(ptd_ipc(NULL, 1, 1), -pte_invalid);
}

static void test_freq_meter(void **state)
{
	struct ptd_freq_meter m;
	struct ptd_freq_sample s;

	(void)state;
	assert_int_equal(ptd_freq_meter_init(&m, 1200000000ull), 0);

	/* Cycles before the first reference are not attributed. */
	assert_int_equal(ptd_freq_meter_cyc(&m, 999), 0);
	assert_int_equal(ptd_freq_meter_ref(&m, &s, 1000), 0);

	/* 2900 cycles in 1200 ticks: 2.9 GHz. */
	assert_int_equal(ptd_freq_meter_cyc(&m, 1000), 0);
	assert_int_equal(ptd_freq_meter_cyc(&m, 1900), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(ptd_freq_meter_ref(&m, &s, 2200), 1);
	assert_true(s.begin_tsc == 1000 && s.end_tsc == 2200);
	assert_true(s.cycles == 2900);
	assert_true(s.hz == 2900000000ull);

	/* A reference at the same time carries the cycles over. */
	assert_int_equal(ptd_freq_meter_cyc(&m, 600), 0);
	assert_int_equal(ptd_freq_meter_ref(&m, &s, 2200), 0);
	assert_int_equal(ptd_freq_meter_cyc(&m, 600), 0);
	assert_int_equal(ptd_freq_meter_ref(&m, NULL, 3400), 1);
	assert_int_equal(ptd_freq_meter_cyc(&m, 2400), 0);
	assert_int_equal(ptd_freq_meter_ref(&m, &s, 4600), 1);
	assert_true(s.begin_tsc == 3400 && s.cycles == 2400);
	assert_true(s.hz == 2400000000ull);

	/* Time going backwards restarts the meter. */
	assert_int_equal(ptd_freq_meter_cyc(&m, 5), 0);
	assert_int_equal(ptd_freq_meter_ref(&m, &s, 4000), -pte_bad_query);
	assert_true(m.have_ref && m.ref_tsc == 4000 && m.cycles == 0);
	assert_int_equal(ptd_freq_meter_cyc(&m, 1200), 0);
	assert_int_equal(ptd_freq_meter_ref(&m, &s, 5200), 1);
	assert_true(s.hz == 1200000000ull);

	/* Reset: the next reference starts afresh. */
	assert_int_equal(ptd_freq_meter_cyc(&m, 77), 0);
	assert_int_equal(ptd_freq_meter_reset(&m), 0);
	assert_int_equal(ptd_freq_meter_ref(&m, &s, 100), 0);

	/* Overflow of the cycle count. */
	assert_int_equal(ptd_freq_meter_cyc(&m, UINT64_MAX), 0);
	assert_int_equal(ptd_freq_meter_cyc(&m, 1), -pte_overflow);
	assert_true(m.cycles == UINT64_MAX);
	/* and of the frequency: the reference still moves on. */
	assert_int_equal(ptd_freq_meter_ref(&m, &s, 101), -pte_overflow);
	assert_true(m.ref_tsc == 101 && m.cycles == 0);

	/* Without a TSC frequency: cycles and ticks, hz 0. */
	assert_int_equal(ptd_freq_meter_init(&m, 0), 0);
	assert_int_equal(ptd_freq_meter_ref(&m, &s, 10), 0);
	assert_int_equal(ptd_freq_meter_cyc(&m, 30), 0);
	assert_int_equal(ptd_freq_meter_ref(&m, &s, 20), 1);
	assert_true(s.cycles == 30 && s.hz == 0);

	assert_int_equal(ptd_freq_meter_init(NULL, 1), -pte_invalid);
	assert_int_equal(ptd_freq_meter_reset(NULL), -pte_invalid);
	assert_int_equal(ptd_freq_meter_cyc(NULL, 1), -pte_invalid);
	assert_int_equal(ptd_freq_meter_ref(NULL, &s, 1), -pte_invalid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_muldiv_basics),
	        cmocka_unit_test(test_muldiv_portable),
	        cmocka_unit_test(test_tsc_hz),
	        cmocka_unit_test(test_tsc_ns),
	        cmocka_unit_test(test_tsc_ns_roundtrip),
	        cmocka_unit_test(test_perf_anchor),
	        cmocka_unit_test(test_perf_dynamorio),
	        cmocka_unit_test(test_perf_formula),
	        cmocka_unit_test(test_perf_errors),
	        cmocka_unit_test(test_core_hz),
	        cmocka_unit_test(test_ipc),
	        cmocka_unit_test(test_freq_meter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
