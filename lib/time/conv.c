/* SPDX-License-Identifier: BSD-3-Clause */
/* Clock conversions: TSC <-> nanoseconds, perf time, core frequency, IPC
 * (Intel SDM Vol. 3C 36.8.3.4, 36.3.6; Vol. 3B 18.17).  See ptd_clock.h. */
#include "time/conv.h"

#include "ptdecode/ptdecode.h"

/* ------------------------------------------------------------------------ */
/* Exact 64 x 64 / 64 arithmetic                                             */
/* ------------------------------------------------------------------------ */

/* The amount to add to the product before a floor division so that the
 * quotient comes out rounded as @round says. */
static uint64_t conv_bias(uint64_t d, enum ptd_round round)
{
	switch (round) {
	case ptd_round_nearest:
		return d / 2;
	case ptd_round_up:
		return d - 1;
	case ptd_round_down:
		break;
	}
	return 0;
}

int ptd_muldiv_portable(uint64_t *q, uint64_t a, uint64_t b, uint64_t d,
                        enum ptd_round round)
{
	uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
	uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
	uint64_t ll, lh, hl, hh, mid, lo, hi, bias, r, quot;
	int i;

	if (!q || !d)
		return -pte_invalid;

	/* The 128-bit product hi:lo. */
	ll = a_lo * b_lo;
	lh = a_lo * b_hi;
	hl = a_hi * b_lo;
	hh = a_hi * b_hi;
	mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
	lo = (ll & 0xffffffffu) | (mid << 32);
	hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);

	bias = conv_bias(d, round);
	lo += bias;
	if (lo < bias)
		++hi;

	/* The quotient fits in 64 bits if and only if hi < d. */
	if (hi >= d)
		return -pte_overflow;

	/* Long division, one bit at a time; r < d throughout. */
	r = hi;
	quot = 0;
	for (i = 63; i >= 0; --i) {
		uint64_t carry = r >> 63;

		r = (r << 1) | ((lo >> i) & 1);
		quot <<= 1;
		if (carry || r >= d) {
			r -= d;
			quot |= 1;
		}
	}
	*q = quot;
	return 0;
}

int ptd_muldiv(uint64_t *q, uint64_t a, uint64_t b, uint64_t d,
               enum ptd_round round)
{
#if defined(__SIZEOF_INT128__)
	unsigned __int128 p;

	if (!q || !d)
		return -pte_invalid;
	p = (unsigned __int128)a * b + conv_bias(d, round);
	/* No carry out: a * b <= (2^64 - 1)^2 = 2^128 - 2^65 + 1. */
	p /= d;
	if (p >> 64)
		return -pte_overflow;
	*q = (uint64_t)p;
	return 0;
#else
	return ptd_muldiv_portable(q, a, b, d, round);
#endif
}

/* ------------------------------------------------------------------------ */
/* TSC frequency and TSC <-> nanoseconds                                     */
/* ------------------------------------------------------------------------ */

uint64_t ptd_ratio_hz(uint8_t ratio)
{
	return (uint64_t)ratio * PTD_BUS_HZ;
}

int ptd_tsc_hz_from_cpuid_0x15(uint64_t *hz, uint32_t eax, uint32_t ebx,
                               uint32_t ecx)
{
	if (!hz)
		return -pte_invalid;
	if (!eax || !ebx || !ecx)
		return -pte_bad_config;
	/* ecx * ebx < 2^64: no overflow, the division cannot fail. */
	return ptd_muldiv(hz, ecx, ebx, eax, ptd_round_nearest);
}

int ptd_tsc_to_ns(uint64_t *ns, uint64_t tsc, uint64_t tsc_hz)
{
	if (!ns || !tsc_hz)
		return -pte_invalid;
	return ptd_muldiv(ns, tsc, PTD_NS_PER_SEC, tsc_hz, ptd_round_down);
}

int ptd_ns_to_tsc(uint64_t *tsc, uint64_t ns, uint64_t tsc_hz)
{
	if (!tsc || !tsc_hz)
		return -pte_invalid;
	return ptd_muldiv(tsc, ns, tsc_hz, PTD_NS_PER_SEC, ptd_round_down);
}

/* ------------------------------------------------------------------------ */
/* perf time                                                                 */
/* ------------------------------------------------------------------------ */

static int conv_perf_check(const void *out, const struct ptd_perf_tc *tc)
{
	if (!out || !tc)
		return -pte_invalid;
	if (!tc->time_mult || tc->time_shift > 63)
		return -pte_bad_config;
	return 0;
}

/* perf's tsc_to_perf_time() without time_zero, in wrapping 64-bit
 * arithmetic. */
static uint64_t conv_perf_delta(const struct ptd_perf_tc *tc, uint64_t tsc)
{
	uint64_t mask = (1ull << tc->time_shift) - 1;
	uint64_t quot = tsc >> tc->time_shift, rem = tsc & mask;

	return quot * tc->time_mult + ((rem * tc->time_mult) >> tc->time_shift);
}

int ptd_perf_tsc_to_ns(uint64_t *ns, const struct ptd_perf_tc *tc, uint64_t tsc)
{
	int err = conv_perf_check(ns, tc);

	if (err < 0)
		return err;
	*ns = tc->time_zero + conv_perf_delta(tc, tsc);
	return 0;
}

int ptd_perf_ns_to_tsc(uint64_t *tsc, const struct ptd_perf_tc *tc, uint64_t ns)
{
	uint64_t t, quot, rem;
	int err = conv_perf_check(tsc, tc);

	if (err < 0)
		return err;
	t = ns - tc->time_zero;
	quot = t / tc->time_mult;
	rem = t % tc->time_mult;
	*tsc = (quot << tc->time_shift) +
	       ((rem << tc->time_shift) / tc->time_mult);
	return 0;
}

int ptd_perf_ns_to_tsc_first(uint64_t *tsc, const struct ptd_perf_tc *tc,
                             uint64_t ns)
{
	uint64_t first, exact;
	int err = conv_perf_check(tsc, tc);

	if (err < 0)
		return err;

	/* The smallest tsc with floor(tsc * mult / 2^shift) >= t is
	 * ceil(t * 2^shift / mult). */
	err = ptd_muldiv(&first, ns - tc->time_zero, 1ull << tc->time_shift,
	                 tc->time_mult, ptd_round_up);
	if (err < 0)
		return err;

	/* perf's formula must give the exact time there. */
	err = ptd_muldiv(&exact, first, tc->time_mult, 1ull << tc->time_shift,
	                 ptd_round_down);
	if (err < 0 || exact != conv_perf_delta(tc, first))
		return -pte_overflow;
	*tsc = first;
	return 0;
}

int ptd_perf_tsc_hz(uint64_t *hz, const struct ptd_perf_tc *tc)
{
	int err = conv_perf_check(hz, tc);

	if (err < 0)
		return err;
	return ptd_muldiv(hz, PTD_NS_PER_SEC, 1ull << tc->time_shift,
	                  tc->time_mult, ptd_round_nearest);
}

/* ------------------------------------------------------------------------ */
/* Core frequency and IPC                                                    */
/* ------------------------------------------------------------------------ */

int ptd_core_hz(uint64_t *hz, uint64_t cycles, uint64_t tsc_ticks,
                uint64_t tsc_hz)
{
	if (!hz || !tsc_ticks || !tsc_hz)
		return -pte_invalid;
	return ptd_muldiv(hz, cycles, tsc_hz, tsc_ticks, ptd_round_nearest);
}

int ptd_ipc(double *ipc, uint64_t insns, uint64_t cycles)
{
	if (!ipc || !cycles)
		return -pte_invalid;
	*ipc = (double)insns / (double)cycles;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Frequency over time                                                       */
/* ------------------------------------------------------------------------ */

int ptd_freq_meter_init(struct ptd_freq_meter *meter, uint64_t tsc_hz)
{
	if (!meter)
		return -pte_invalid;
	meter->tsc_hz = tsc_hz;
	meter->ref_tsc = 0;
	meter->cycles = 0;
	meter->have_ref = 0;
	return 0;
}

int ptd_freq_meter_reset(struct ptd_freq_meter *meter)
{
	if (!meter)
		return -pte_invalid;
	meter->ref_tsc = 0;
	meter->cycles = 0;
	meter->have_ref = 0;
	return 0;
}

int ptd_freq_meter_cyc(struct ptd_freq_meter *meter, uint64_t cyc)
{
	if (!meter)
		return -pte_invalid;
	if (meter->cycles + cyc < cyc)
		return -pte_overflow;
	meter->cycles += cyc;
	return 0;
}

int ptd_freq_meter_ref(struct ptd_freq_meter *meter,
                       struct ptd_freq_sample *sample, uint64_t tsc)
{
	struct ptd_freq_sample s;
	int err = 0;

	if (!meter)
		return -pte_invalid;

	if (!meter->have_ref || tsc < meter->ref_tsc) {
		err = meter->have_ref ? -pte_bad_query : 0;
		meter->have_ref = 1;
		meter->ref_tsc = tsc;
		meter->cycles = 0;
		return err;
	}
	if (tsc == meter->ref_tsc)
		return 0;

	s.begin_tsc = meter->ref_tsc;
	s.end_tsc = tsc;
	s.cycles = meter->cycles;
	s.hz = 0;
	if (meter->tsc_hz)
		err = ptd_core_hz(&s.hz, s.cycles, tsc - meter->ref_tsc,
		                  meter->tsc_hz);
	meter->ref_tsc = tsc;
	meter->cycles = 0;
	if (err < 0)
		return err;
	if (sample)
		*sample = s;
	return 1;
}
