/* SPDX-License-Identifier: BSD-3-Clause */
/* Wall-clock references for the accurate estimator: TSC, TMA and MTC
 * (Intel SDM 36.8.3).
 *
 * A TSC gives the time.  The TMA after it gives CTC[15:0] and the
 * FastCounter at that TSC: the crystal clock edge with that CTC value was
 * at TSC - FastCounter, the anchor.  An MTC carries CTC[mtc_freq+7 :
 * mtc_freq] of the edge at which it was sent.  The CTC ticks from the anchor
 * to each MTC are added up across wraps of the 8-bit payload, and the total
 * is converted to TSC ticks in one go (ebx / eax, then VMX scaling), so
 * rounding does not accumulate.
 *
 * A payload that moves on by k > 1 periods means k - 1 MTCs were dropped.
 * 256 periods or more in one step (a payload that did not change, or a
 * wrap) are recognised when the cycles counted since the last reference say
 * so. */
#include "time.h"

#include <string.h>

void ptd_wall_init(struct ptd_wall *wall)
{
	memset(wall, 0, sizeof(*wall));
}

void ptd_wall_tsc(struct ptd_wall *wall, uint64_t tsc)
{
	wall->time = tsc;
	wall->anchor = tsc;
	wall->ctc_ticks = 0;
	wall->ctc = 0;
	wall->have_tsc = 1;
	wall->have_tma = 0;
	wall->have_ctc = 0;
	wall->partial = 0;
	wall->pending = 0;
}

/* The CTC bits an MTC covers: [mtc_freq + 7 : 0]. */
static uint32_t ptd_wall_mtc_mask(const struct ptd_time_cfg *cfg)
{
	return (UINT32_C(1) << (cfg->mtc_freq + 8)) - 1;
}

int ptd_wall_tma(struct ptd_wall *wall, const struct ptd_time_cfg *cfg,
                 const struct pt_packet_tma *tma)
{
	uint64_t fc;

	if (!wall->have_tsc || wall->have_tma)
		return -pte_bad_context;

	fc = ptd_time_scale(cfg, tma->fc);
	wall->anchor = (wall->time > fc) ? wall->time - fc : 0;
	wall->ctc_ticks = 0;
	wall->have_tma = 1;
	wall->have_ctc = 1;
	if (cfg->mtc_freq + 8 <= 16) {
		wall->ctc = tma->ctc & ptd_wall_mtc_mask(cfg);
		wall->partial = 0;
	} else {
		wall->ctc = tma->ctc;
		wall->partial = 1;
	}
	return 0;
}

/* The CTC estimate in CTC ticks for @elapsed TSC ticks of the trace's
 * domain. */
static uint64_t ptd_wall_ticks_to_ctc(const struct ptd_time_cfg *cfg,
                                      uint64_t elapsed)
{
	if (cfg->opt.tsc_multiplier)
		elapsed = ptd_time_muldiv(elapsed, UINT64_C(1) << 48,
		                          cfg->opt.tsc_multiplier);
	return ptd_time_muldiv(elapsed, cfg->eax, cfg->ebx);
}

uint64_t ptd_wall_ticks(const struct ptd_wall *wall,
                        const struct ptd_time_cfg *cfg, uint64_t ctc_ticks)
{
	uint64_t ticks = ptd_time_ctc_ticks(cfg, ctc_ticks);

	if (!wall->corr_den)
		return ticks;
	return ptd_time_muldiv(ticks, wall->corr_num, wall->corr_den);
}

int ptd_wall_ctc_at(const struct ptd_wall *wall, const struct ptd_time_cfg *cfg,
                    uint16_t tma_ctc, uint64_t *ticks)
{
	uint64_t wrap, delta;

	if (!wall->have_ctc || !ptd_time_cfg_has_ctc(cfg))
		return -pte_bad_context;

	wrap = (wall->partial || cfg->mtc_freq + 8 > 16)
	               ? (UINT64_C(1) << 16)
	               : (UINT64_C(1) << (cfg->mtc_freq + 8));
	delta = (uint64_t)(tma_ctc - wall->ctc) & (wrap - 1);
	if (delta <= wrap / 2) {
		*ticks = wall->ctc_ticks + delta;
		return 0;
	}
	/* The TMA lies before the last MTC (an MTC ahead of its TSC in
	 * PSB+). */
	delta = wrap - delta;
	if (delta > wall->ctc_ticks)
		return -pte_bad_context;
	*ticks = wall->ctc_ticks - delta;
	return 0;
}

/* The MTC @payload relative to the CTC state (@ctc, @partial) with
 * @ctc_ticks from the anchor at @anchor. */
static void ptd_wall_step(const struct ptd_wall *wall,
                          const struct ptd_time_cfg *cfg, uint32_t ctc,
                          int partial, uint64_t anchor, uint64_t ctc_ticks,
                          uint8_t payload, uint64_t elapsed,
                          struct ptd_mtc_step *step)
{
	uint32_t freq = cfg->mtc_freq;
	uint32_t next = (uint32_t)payload << freq;
	uint64_t wrap, delta, low;

	wrap = partial ? (UINT64_C(1) << 16) : (UINT64_C(1) << (freq + 8));
	delta = (uint64_t)(next - ctc) & (wrap - 1);

	/* A full wrap (or more) of MTC periods when the cycles say so.  An
	 * unchanged CTC is the same edge otherwise: a TSC right on an MTC
	 * edge is followed by that edge's MTC. */
	if (elapsed) {
		/* At most one wrap (the SDM does not expect more than 256
		 * MTCs in a row to be dropped), and only when the estimate
		 * is clearly close to it: a ratio can be off, and one that
		 * is far off says nothing. */
		uint64_t lo = delta + wrap - wrap / 4;
		uint64_t hi = delta + wrap + wrap / 4;
		int near;

		if (cfg->opt.tsc_multiplier) {
			uint64_t est = ptd_wall_ticks_to_ctc(cfg, elapsed);

			near = est > lo && est < hi;
		} else {
			/* The same test on est = floor(elapsed * eax / ebx)
			 * without the division: est > lo exactly when
			 * elapsed * eax >= (lo + 1) * ebx, est < hi when
			 * elapsed * eax < hi * ebx. */
			__extension__ typedef unsigned __int128 u128;
			u128 e = (u128)elapsed * cfg->eax;

			near = e >= (u128)(lo + 1) * cfg->ebx &&
			       e < (u128)hi * cfg->ebx;
		}
		if (near)
			delta += wrap;
	}

	low = ctc & ((UINT32_C(1) << freq) - 1);
	step->periods = (low + delta) >> freq;
	step->ctc = next & ptd_wall_mtc_mask(cfg);
	step->ctc_ticks = ctc_ticks + delta;
	step->time = anchor + ptd_wall_ticks(wall, cfg, step->ctc_ticks);
}

int ptd_wall_mtc(const struct ptd_wall *wall, const struct ptd_time_cfg *cfg,
                 uint8_t payload, uint64_t elapsed, struct ptd_mtc_step *step)
{
	if (!ptd_time_cfg_has_ctc(cfg))
		return -pte_bad_config;

	memset(step, 0, sizeof(*step));
	if (wall->have_tsc && !wall->have_tma) {
		/* Between a TSC and its TMA.  A second MTC there means the
		 * TMA is not coming: the first one gives the phase, at about
		 * the TSC's time. */
		if (!wall->pending)
			return 2;
		ptd_wall_step(wall, cfg,
		              (uint32_t)wall->pending_ctc << cfg->mtc_freq, 0,
		              wall->time, 0, payload, elapsed, step);
		return 0;
	}
	if (!wall->have_ctc)
		return 1;

	ptd_wall_step(wall, cfg, wall->ctc, wall->partial, wall->anchor,
	              wall->ctc_ticks, payload, elapsed, step);
	return 0;
}

uint64_t ptd_wall_mtc_ctc(struct ptd_wall *wall, const struct ptd_time_cfg *cfg,
                          uint8_t payload)
{
	uint32_t freq = cfg->mtc_freq;
	uint32_t next = (uint32_t)payload << freq;
	uint64_t wrap, delta, low;

	/* As ptd_wall_step() with @elapsed 0. */
	wrap = wall->partial ? (UINT64_C(1) << 16)
	                     : (UINT64_C(1) << (freq + 8));
	delta = (uint64_t)(next - wall->ctc) & (wrap - 1);
	low = wall->ctc & ((UINT32_C(1) << freq) - 1);
	wall->ctc_ticks += delta;
	wall->ctc = next & ptd_wall_mtc_mask(cfg);
	wall->partial = 0;
	wall->have_ctc = 1;
	return (low + delta) >> freq;
}

void ptd_wall_apply_mtc(struct ptd_wall *wall, const struct ptd_time_cfg *cfg,
                        uint8_t payload, int status,
                        const struct ptd_mtc_step *step, uint64_t now)
{
	switch (status) {
	case 0:
		if (wall->have_tsc && !wall->have_tma) {
			/* We gave up waiting for the TMA. */
			wall->have_tma = 1;
			wall->pending = 0;
			wall->anchor = wall->time;
		}
		ptd_wall_take_step(wall, step);
		break;

	case 1:
		wall->time = now;
		wall->anchor = now;
		wall->ctc_ticks = 0;
		wall->ctc = ((uint32_t)payload << cfg->mtc_freq) &
		            ptd_wall_mtc_mask(cfg);
		wall->partial = 0;
		wall->have_ctc = 1;
		break;

	case 2:
		wall->pending = 1;
		wall->pending_ctc = payload;
		break;

	default:
		break;
	}
}

int ptd_wall_resolve_pending(struct ptd_wall *wall,
                             const struct ptd_time_cfg *cfg,
                             struct ptd_mtc_step *step)
{
	uint32_t tma_period, ahead, mask;

	if (!wall->pending)
		return 0;
	wall->pending = 0;
	if (!ptd_time_cfg_has_ctc(cfg) || !wall->have_ctc)
		return 0;

	/* The MTC was sent after the TSC, but it may report the crystal
	 * clock edge before it: then it says nothing new. */
	mask = (cfg->mtc_freq <= 8) ? 0xff
	                            : (UINT32_C(1) << (16 - cfg->mtc_freq)) - 1;
	tma_period = wall->ctc >> cfg->mtc_freq;
	ahead = (uint32_t)(wall->pending_ctc - tma_period) & mask;
	if (!ahead || ahead > mask / 2)
		return 0;

	ptd_wall_step(wall, cfg, wall->ctc, wall->partial, wall->anchor,
	              wall->ctc_ticks, wall->pending_ctc, 0, step);
	ptd_wall_apply_mtc(wall, cfg, wall->pending_ctc, 0, step, 0);
	return 1;
}

int ptd_wall_mtc_follows_tma(uint16_t tma_ctc, uint8_t payload, unsigned freq)
{
	unsigned bits;
	uint32_t mask;

	if (freq > 15)
		return 0;
	bits = (freq <= 8) ? 8 : 16 - freq;
	mask = (UINT32_C(1) << bits) - 1;
	return ((((uint32_t)tma_ctc >> freq) + 1) & mask) == (payload & mask);
}
