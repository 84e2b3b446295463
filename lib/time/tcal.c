/* SPDX-License-Identifier: BSD-3-Clause */
/* Calibration of the core:TSC ratio for the accurate estimator, and the
 * fixed-point arithmetic the time engine shares.
 *
 * The ratio (TSC ticks per core cycle) comes from, latest wins:
 *   - two MTCs and the CYC cycles between them (exact MTC times);
 *   - two TSCs in PSB+ and the cycles between them, while no MTC has
 *     calibrated (MTCs are finer);
 *   - a CBR with the nominal ratio: nom_freq / CBR (SDM 36.8.3.2: P1/CBR).
 * A CBR outside PSB+ is a frequency change: the references are dropped. */
#include "time.h"

#include <string.h>

__extension__ typedef unsigned __int128 ptd_u128;

uint64_t ptd_time_muldiv_wide(uint64_t a, uint64_t b, uint64_t c)
{
	ptd_u128 q;

	if (!c)
		return UINT64_MAX;
	q = ((ptd_u128)a * b) / c;
	return (q > UINT64_MAX) ? UINT64_MAX : (uint64_t)q;
}

void ptd_tcal_init(struct ptd_tcal *tcal)
{
	memset(tcal, 0, sizeof(*tcal));
}

void ptd_tcal_forget_refs(struct ptd_tcal *tcal)
{
	tcal->have_mtc = 0;
	tcal->have_tsc = 0;
	tcal->mtc_cyc = 0;
	tcal->tsc_cyc = 0;
	tcal->check_skl168 = 0;
}

void ptd_tcal_psb(struct ptd_tcal *tcal, const struct ptd_time_cfg *cfg)
{
	if (cfg->skl168)
		tcal->check_skl168 = 1;
}

static void ptd_tcal_set(struct ptd_tcal *tcal, uint64_t ticks, uint64_t cycles)
{
	if (!cycles || !ticks)
		return;
	tcal->ratio =
	        ptd_time_muldiv(ticks, UINT64_C(1) << PTD_TCAL_SHIFT, cycles);
	tcal->have_ratio = 1;
}

/* SKL168: a CYC, maybe with its MTC, may be dropped right before a PSB.
 * Whether the calibration over @ticks and @cycles across a PSB looks like
 * it. */
static int ptd_tcal_skl168(const struct ptd_tcal *tcal,
                           const struct ptd_time_cfg *cfg, uint64_t ticks,
                           uint64_t cycles, uint64_t periods)
{
	/* An MTC was lost: the case is clear. */
	if (periods > 1)
		return 1;

	/* A lost CYC of a 4096-cycle wrap shows only with frequent MTCs
	 * and a ratio to compare with; allow for some variation. */
	if (cfg->mtc_freq < 10 && tcal->have_ratio) {
		uint64_t expected;

		expected = ptd_time_mulshr(ptd_time_sat_add(cycles, 0xf00),
		                           tcal->ratio, PTD_TCAL_SHIFT);
		if (expected < ticks)
			return 1;
	}
	return 0;
}

void ptd_tcal_mtc(struct ptd_tcal *tcal, const struct ptd_time_cfg *cfg,
                  uint64_t time, uint64_t periods)
{
	uint64_t ticks, cycles;
	int skl168;

	skl168 = tcal->check_skl168;
	tcal->check_skl168 = 0;

	if (!tcal->have_mtc || time < tcal->mtc_time) {
		tcal->have_mtc = 1;
		tcal->mtc_time = time;
		tcal->mtc_cyc = 0;
		return;
	}

	/* Without cycles, wait: the period extends to the next MTC. */
	cycles = tcal->mtc_cyc;
	if (!cycles)
		return;

	ticks = time - tcal->mtc_time;
	tcal->mtc_time = time;
	tcal->mtc_cyc = 0;

	if (skl168 && ptd_tcal_skl168(tcal, cfg, ticks, cycles, periods))
		return;

	ptd_tcal_set(tcal, ticks, cycles);
	tcal->mtc_calibrated = 1;
}

void ptd_tcal_tsc(struct ptd_tcal *tcal, uint64_t time, int in_psb)
{
	if (in_psb && tcal->have_tsc && !tcal->mtc_calibrated &&
	    time > tcal->tsc_time)
		ptd_tcal_set(tcal, time - tcal->tsc_time, tcal->tsc_cyc);

	/* Outside PSB+, a TSC follows time the cycles did not count (tracing
	 * off, deep sleep): no calibration period may span it. */
	if (!in_psb) {
		tcal->have_mtc = 0;
		tcal->mtc_cyc = 0;
	}

	tcal->have_tsc = 1;
	tcal->tsc_time = time;
	tcal->tsc_cyc = 0;
}

int ptd_tcal_cbr(struct ptd_tcal *tcal, const struct ptd_time_cfg *cfg,
                 uint8_t ratio, int in_psb)
{
	if (!ratio)
		return -pte_bad_packet;

	/* Outside PSB+, a CBR reports a frequency change: cycles counted so
	 * far were at another frequency. */
	if (!in_psb)
		ptd_tcal_init(tcal);

	if (cfg->nom_freq) {
		ptd_tcal_set(tcal, cfg->nom_freq, ratio);
		/* Cycles are not scaled; TSC ticks are (VMX TSC scaling). */
		if (cfg->opt.tsc_multiplier)
			tcal->ratio = ptd_time_mulshr(
			        tcal->ratio, cfg->opt.tsc_multiplier, 48);
	}
	return 0;
}

void ptd_wcyc_restart(struct ptd_wcyc *wcyc)
{
	uint8_t cbr = wcyc->cbr;
	uint64_t cbr_w = wcyc->cbr_w;

	memset(wcyc, 0, sizeof(*wcyc));
	wcyc->cbr = cbr;
	wcyc->cbr_w = cbr_w;
}

void ptd_wcyc_cbr(struct ptd_wcyc *wcyc, uint8_t cbr)
{
	if (!cbr)
		return;
	if (wcyc->cbr && cbr != wcyc->cbr) {
		if (!wcyc->span_old)
			wcyc->span_old = wcyc->cbr;
		wcyc->changes++;
	}
	wcyc->cbr = cbr;
	wcyc->cbr_w = ptd_cbr_weight(cbr);
}

void ptd_wcyc_add_slow(struct ptd_wcyc *wcyc, uint64_t cycles, uint64_t split)
{
	uint64_t old;

	if (!wcyc->cbr) {
		wcyc->unknown = ptd_time_sat_add(wcyc->unknown, cycles);
		return;
	}
	if (!wcyc->span_old) {
		wcyc->weight = ptd_time_sat_add(
		        wcyc->weight,
		        ptd_time_mulshr(cycles, ptd_cbr_weight(wcyc->cbr), 0));
		return;
	}

	if (wcyc->changes == 1 && !wcyc->have_span) {
		wcyc->have_span = 1;
		wcyc->span_from = wcyc->span_old;
		wcyc->span_to = wcyc->cbr;
		wcyc->span_cycles = cycles;
	} else
		split = UINT64_MAX;
	old = (split == UINT64_MAX) ? cycles / 2
	                            : (split < cycles ? split : cycles);

	wcyc->weight = ptd_time_sat_add(
	        wcyc->weight,
	        ptd_time_mulshr(old, ptd_cbr_weight(wcyc->span_old), 0));
	wcyc->weight = ptd_time_sat_add(
	        wcyc->weight,
	        ptd_time_mulshr(cycles - old, ptd_cbr_weight(wcyc->cbr), 0));
	wcyc->span_old = 0;
}
