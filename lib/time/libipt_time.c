/* SPDX-License-Identifier: BSD-3-Clause */
/* libipt's online TSC estimator, for users who must reproduce libipt's
 * numbers (ptd_time_mode_libipt, ptdump --time-libipt).
 *
 * Written from the documented rules of libipt 2.x (pt_time.c, and ptdump's
 * way of driving it), not from its code.  In short:
 *
 *   TSC  time = base = the TSC; the CTC and cycle state is cleared; the lost
 *        counters are reset.
 *   TMA  base -= FC, fc += FC (the time stays); the CTC bits the MTCs cover
 *        are taken from the TMA, and if all of them fit in its 16 bits the
 *        TMA counts as an MTC.
 *   MTC  ignored between a TSC and its TMA; the first MTC without TMA only
 *        sets the CTC; otherwise the CTC delta (one 8-bit wrap corrected)
 *        is converted to ticks with ebx / eax, truncating at each MTC, added
 *        to base, and the time snaps to it (CYC progress is dropped).
 *   CYC  without a calibration counted as lost; else fc += cyc * fcr >> 8,
 *        time = base + fc; the first CYC after an MTC first subtracts the
 *        cycles expected for earlier MTC periods it spans.
 *   CBR  stored.
 *
 * Calibration (fcr = TSC ticks per cycle, 8 fractional bits): from two MTCs
 * and the cycles between them; from two TSCs in PSB+ if no MTC was seen;
 * from nom_freq / CBR; a CBR outside PSB+ starts over.  SKL168 discards the
 * first MTC-based calibration after a PSB if it looks affected.  An OVF
 * resets the calibration, or only its references with keep_tcal_on_ovf. */
#include "time.h"

#include <string.h>

/* ----------------------------------------------------------------------- */
/* Time                                                                      */
/* ----------------------------------------------------------------------- */

/* The MTC payload size in bits and the TMA's CTC size. */
enum { ptd_lib_mtc_bits = 8, ptd_lib_tma_bits = 16 };

/* The CTC distance from @last to @ctc, with one wrap of the MTC-covered
 * bits corrected. */
static int ptd_lib_ctc_delta(uint32_t *delta, uint32_t ctc, uint32_t last,
                             const struct ptd_time_cfg *cfg)
{
	if (cfg->mtc_freq + ptd_lib_mtc_bits >= 32)
		return -pte_bad_config;
	if (ctc < last) {
		ctc += UINT32_C(1) << (cfg->mtc_freq + ptd_lib_mtc_bits);
		if (ctc < last)
			return -pte_bad_packet;
	}
	*delta = ctc - last;
	return 0;
}

/* CTC ticks to TSC ticks, truncating. */
static int ptd_lib_ctc_fc(uint64_t *fc, uint64_t ctc,
                          const struct ptd_time_cfg *cfg)
{
	if (!cfg->eax || !cfg->ebx)
		return -pte_bad_config;
	*fc = (ctc * cfg->ebx) / cfg->eax;
	return 0;
}

static void ptd_lib_time_tsc(struct ptd_lib_time *t, uint64_t tsc)
{
	t->have_tsc = 1;
	t->have_tma = 0;
	t->have_mtc = 0;
	t->tsc = tsc;
	t->base = tsc;
	t->ctc = 0;
	t->fc = 0;
	t->lost_mtc = 0;
	t->lost_cyc = 0;
}

static int ptd_lib_time_cbr(struct ptd_lib_time *t, uint8_t cbr)
{
	if (!cbr)
		return -pte_bad_packet;
	t->have_cbr = 1;
	t->cbr = cbr;
	return 0;
}

static int ptd_lib_time_tma(struct ptd_lib_time *t,
                            const struct pt_packet_tma *tma,
                            const struct ptd_time_cfg *cfg)
{
	uint32_t bits;

	if (!t->have_tsc || t->have_tma)
		return -pte_bad_context;
	if (t->have_mtc)
		return -pte_internal;
	bits = (uint32_t)cfg->mtc_freq + ptd_lib_mtc_bits;
	if (bits >= 32)
		return -pte_bad_config;

	t->have_tma = 1;
	t->base -= tma->fc;
	t->fc += tma->fc;

	/* All the bits an MTC carries are in the TMA: it counts as one. */
	if (bits <= ptd_lib_tma_bits)
		t->have_mtc = 1;
	t->ctc = tma->ctc & ((UINT32_C(1) << bits) - 1);
	t->ctc_cyc = t->ctc;
	return 0;
}

static int ptd_lib_time_mtc(struct ptd_lib_time *t, uint8_t payload,
                            const struct ptd_time_cfg *cfg)
{
	uint32_t last, ctc, delta;
	uint64_t ticks;
	int had_mtc, err;

	/* MTCs between a TSC and its TMA are ignored. */
	if (t->have_tsc && !t->have_tma)
		return 0;
	if (cfg->mtc_freq + ptd_lib_mtc_bits >= 32)
		return -pte_bad_config;

	last = t->ctc;
	ctc = (uint32_t)payload << cfg->mtc_freq;
	had_mtc = t->have_mtc;

	if (t->fc || t->lost_cyc || !had_mtc)
		t->ctc_cyc = ctc;
	t->have_mtc = 1;
	t->fc = 0;
	t->ctc = ctc;
	t->lost_cyc = 0;

	if (!had_mtc) {
		uint32_t lo, hi, tma_mask;

		/* Without a TMA, the first MTC only gives the CTC. */
		if (!t->have_tma)
			return 0;

		/* The TMA lacked the high bits: take them from this MTC,
		 * borrowing one if its low bits are below the TMA's. */
		tma_mask = (UINT32_C(1) << ptd_lib_tma_bits) - 1;
		if (last & ~tma_mask)
			return -pte_internal;
		lo = ctc & tma_mask;
		hi = ctc & ~tma_mask;
		if (lo < last) {
			hi -= UINT32_C(1) << ptd_lib_tma_bits;
			hi &= UINT32_C(0xff) << cfg->mtc_freq;
		}
		last |= hi;
	}

	err = ptd_lib_ctc_delta(&delta, ctc, last, cfg);
	if (err < 0) {
		t->lost_mtc++;
		return err;
	}
	err = ptd_lib_ctc_fc(&ticks, delta, cfg);
	if (err < 0)
		return err;

	t->base += ticks;
	t->tsc = t->base;
	return 0;
}

/* The cycles of a CYC that belong to the current MTC period when the CYC
 * spans earlier periods, estimated with @fcr. */
static int ptd_lib_adjust_cyc(uint64_t *cyc, const struct ptd_lib_time *t,
                              const struct ptd_time_cfg *cfg, uint64_t fcr)
{
	uint32_t delta;
	uint64_t fc, earlier;
	int err;

	if (t->ctc == t->ctc_cyc)
		return 0;

	err = ptd_lib_ctc_delta(&delta, t->ctc, t->ctc_cyc, cfg);
	if (err < 0)
		return err;
	err = ptd_lib_ctc_fc(&fc, delta, cfg);
	if (err < 0)
		return err;

	earlier = (fc << PTD_FCR_SHIFT) / fcr;
	*cyc = (*cyc > earlier) ? *cyc - earlier : 0;
	return 0;
}

static int ptd_lib_time_cyc(struct ptd_lib_time *t, uint64_t cyc,
                            const struct ptd_time_cfg *cfg, uint64_t fcr)
{
	if (!fcr) {
		t->lost_cyc++;
		return 0;
	}
	if (!t->fc) {
		int err = ptd_lib_adjust_cyc(&cyc, t, cfg, fcr);

		if (err < 0)
			return err;
	}
	t->fc += (cyc * fcr) >> PTD_FCR_SHIFT;
	t->tsc = t->base + t->fc;
	return 0;
}

/* ----------------------------------------------------------------------- */
/* Calibration                                                               */
/* ----------------------------------------------------------------------- */

static void ptd_lib_tcal_init(struct ptd_lib_tcal *c)
{
	memset(c, 0, sizeof(*c));
	c->min_fcr = UINT64_MAX;
}

static int ptd_lib_tcal_have(const struct ptd_lib_tcal *c)
{
	return c->min_fcr <= c->max_fcr;
}

static void ptd_lib_tcal_set(struct ptd_lib_tcal *c, uint64_t fcr)
{
	c->fcr = fcr;
	if (fcr < c->min_fcr)
		c->min_fcr = fcr;
	if (fcr > c->max_fcr)
		c->max_fcr = fcr;
}

/* A TSC outside PSB+ may follow lost time: only remember it. */
static void ptd_lib_tcal_tsc(struct ptd_lib_tcal *c, uint64_t tsc)
{
	c->tsc = tsc;
	c->cyc_tsc = 0;
}

static int ptd_lib_tcal_header_tsc(struct ptd_lib_tcal *c, uint64_t tsc)
{
	uint64_t last = c->tsc, cyc = c->cyc_tsc, delta;

	c->tsc = tsc;
	c->cyc_tsc = 0;
	if (!last || !cyc)
		return 0;
	/* MTCs calibrate better. */
	if (c->have_mtc)
		return 0;

	if (tsc < last) {
		tsc += UINT64_C(1) << 56;
		if (tsc < last)
			return -pte_bad_packet;
	}
	delta = tsc - last;
	if (delta & ~(UINT64_MAX >> PTD_FCR_SHIFT))
		return -pte_internal;
	ptd_lib_tcal_set(c, (delta << PTD_FCR_SHIFT) / cyc);
	return 0;
}

static int ptd_lib_tcal_header_cbr(struct ptd_lib_tcal *c, uint8_t cbr,
                                   const struct ptd_time_cfg *cfg)
{
	if (!cfg->nom_freq)
		return 0;
	if (!cbr)
		return -pte_bad_packet;
	ptd_lib_tcal_set(c, ((uint64_t)cfg->nom_freq << PTD_FCR_SHIFT) / cbr);
	return 0;
}

static int ptd_lib_tcal_mtc(struct ptd_lib_tcal *c, uint8_t payload,
                            const struct ptd_time_cfg *cfg)
{
	uint32_t last = c->ctc, ctc, delta;
	uint64_t cyc = c->cyc_mtc, fc, fcr;
	int skl168 = c->check_skl168, err;

	c->check_skl168 = 0;
	if (cfg->mtc_freq + ptd_lib_mtc_bits >= 32)
		return -pte_bad_config;
	ctc = (uint32_t)payload << cfg->mtc_freq;

	if (!c->have_mtc) {
		c->cyc_mtc = 0;
		c->ctc = ctc;
		c->have_mtc = 1;
		return 0;
	}
	/* No cycles yet: the period extends to the next MTC. */
	if (!cyc)
		return 0;

	c->cyc_mtc = 0;
	c->ctc = ctc;
	c->lost_mtc++;

	err = ptd_lib_ctc_delta(&delta, ctc, last, cfg);
	if (err < 0)
		return err;
	err = ptd_lib_ctc_fc(&fc, delta, cfg);
	if (err < 0)
		return err;
	if (fc & ~(UINT64_MAX >> PTD_FCR_SHIFT))
		return -pte_internal;
	fcr = (fc << PTD_FCR_SHIFT) / cyc;

	if (skl168) {
		/* A lost MTC. */
		if ((UINT32_C(1) << cfg->mtc_freq) < delta)
			return 0;
		/* A lost 4096-cycle wrap CYC. */
		if (cfg->mtc_freq < 10 && ptd_lib_tcal_have(c) &&
		    ((c->fcr * (cyc + 0xf00)) >> PTD_FCR_SHIFT) < fc)
			return 0;
	}

	ptd_lib_tcal_set(c, fcr);
	c->lost_mtc = 0;
	return 0;
}

static void ptd_lib_tcal_cyc(struct ptd_lib_tcal *c, uint64_t cyc)
{
	c->cyc_mtc += cyc;
	c->cyc_tsc += cyc;
}

static void ptd_lib_tcal_ovf(struct ptd_lib_tcal *c)
{
	c->tsc = 0;
	c->cyc_tsc = 0;
	c->cyc_mtc = 0;
	c->ctc = 0;
	c->have_mtc = 0;
}

/* ----------------------------------------------------------------------- */
/* Driving both, as libipt's ptdump does                                     */
/* ----------------------------------------------------------------------- */

void ptd_lib_init(struct ptd_lib *lib)
{
	memset(&lib->time, 0, sizeof(lib->time));
	ptd_lib_tcal_init(&lib->tcal);
}

int ptd_lib_fcr(const struct ptd_lib *lib, uint64_t *fcr)
{
	if (!ptd_lib_tcal_have(&lib->tcal))
		return -pte_no_time;
	*fcr = lib->tcal.fcr;
	return 0;
}

static void ptd_lib_cyc(struct ptd_lib *lib, const struct ptd_time_cfg *cfg,
                        uint64_t cyc, struct ptd_time_report *report)
{
	uint64_t fcr = 0;
	int err;

	if (!cfg->opt.no_tcal) {
		if (ptd_lib_fcr(lib, &fcr) < 0)
			fcr = 0;
		ptd_lib_tcal_cyc(&lib->tcal, cyc);
	}
	err = ptd_lib_time_cyc(&lib->time, cyc, cfg, fcr);
	if (err < 0)
		report->time_error = err;
	else if (!fcr)
		report->cyc_lost = 1;
}

void ptd_lib_update(struct ptd_lib *lib, const struct ptd_time_cfg *cfg,
                    const struct pt_packet *packet, int in_psb,
                    struct ptd_time_report *report)
{
	int tcal = !cfg->opt.no_tcal;

	switch (packet->type) {
	case ppt_psb:
		if (cfg->skl168)
			lib->tcal.check_skl168 = 1;
		break;

	case ppt_ovf:
		if (cfg->opt.keep_tcal_on_ovf)
			ptd_lib_tcal_ovf(&lib->tcal);
		else
			ptd_lib_tcal_init(&lib->tcal);
		break;

	case ppt_tsc:
		if (tcal) {
			if (in_psb)
				report->tcal_error = ptd_lib_tcal_header_tsc(
				        &lib->tcal, packet->payload.tsc.tsc);
			else
				ptd_lib_tcal_tsc(&lib->tcal,
				                 packet->payload.tsc.tsc);
		}
		ptd_lib_time_tsc(&lib->time, packet->payload.tsc.tsc);
		break;

	case ppt_cbr:
		if (tcal) {
			/* Outside PSB+, a frequency change: start over. */
			if (!in_psb)
				ptd_lib_tcal_init(&lib->tcal);
			report->tcal_error = ptd_lib_tcal_header_cbr(
			        &lib->tcal, packet->payload.cbr.ratio, cfg);
		}
		report->time_error =
		        ptd_lib_time_cbr(&lib->time, packet->payload.cbr.ratio);
		break;

	case ppt_tma:
		report->time_error =
		        ptd_lib_time_tma(&lib->time, &packet->payload.tma, cfg);
		break;

	case ppt_mtc:
		if (tcal)
			report->tcal_error = ptd_lib_tcal_mtc(
			        &lib->tcal, packet->payload.mtc.ctc, cfg);
		report->time_error = ptd_lib_time_mtc(
		        &lib->time, packet->payload.mtc.ctc, cfg);
		break;

	case ppt_cyc:
		if (!cfg->opt.no_cyc)
			ptd_lib_cyc(lib, cfg, packet->payload.cyc.value,
			            report);
		break;

	default:
		break;
	}
}
