/* SPDX-License-Identifier: BSD-3-Clause */
/* The time engine: the interface of time.h and the accurate estimator.
 *
 * The accurate estimator splits the trace into segments between wall-clock
 * references (TSC, MTC).  A reference's time is exact (wall.c).  The CYC
 * packets of a segment are placed by a plan, worked out at the segment's
 * first CYC with a look-ahead to the next reference (lookahead.c):
 *
 *   rescale  the next reference is an MTC (or a TSC that the cycles
 *            account for): the time at a CYC is start + (end - start) *
 *            cycles / total cycles, so the last CYC lands exactly on it;
 *   clamp    the next reference is a TSC after a gap that the cycles do not
 *            count (deep sleep, tracing off), or the segment crosses a PSB
 *            under SKL168: start + cycles * ratio, never beyond the end;
 *   open     no reference ahead: start + cycles * ratio;
 *   backward after an OVF the start is unknown: end - remaining cycles *
 *            ratio.
 *
 * Whatever the plan, the reported time never goes backwards: an estimate
 * below the last reported time reports the last time again (and is counted
 * in the status as a clamp when it is a reference). */
#include "time.h"

#include "packet/pkt_batch.h"

#include <string.h>

/* Fill @cfg->skip from the packet decoder's fast table. */
static void ptd_time_init_skip(struct ptd_time_cfg *cfg)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (unsigned opc = 0; opc < 256; ++opc) {
		const struct ptd_pkt_fast *f = &ptd_pkt_fast[opc];
		uint8_t e;

		if (!f->size || f->size > PTD_SKIP_SIZE || f->type == ppt_mtc ||
		    f->type == ppt_tsc)
			continue;
		e = f->size;
		if (f->type == ppt_cyc)
			e |= PTD_SKIP_CYC;
		if (f->type != ppt_pad)
			e |= PTD_SKIP_OTHER;
		cfg->skip[opc] = e;
	}
#else
	(void)cfg;
#endif
}

int ptd_time_init(struct ptd_time *time, const struct pt_config *config,
                  const struct ptd_time_config *tconfig)
{
	struct ptd_time_config opt;

	if (!time || !config)
		return -pte_invalid;

	ptd_time_config_init(&opt);
	if (tconfig) {
		size_t size = tconfig->size;

		if (size < offsetof(struct ptd_time_config, mode) +
		                   sizeof(tconfig->mode))
			return -pte_bad_config;
		if (size > sizeof(opt))
			size = sizeof(opt);
		memcpy(&opt, tconfig, size);
		opt.size = sizeof(opt);
	}
	if (opt.mode != ptd_time_mode_accurate &&
	    opt.mode != ptd_time_mode_libipt)
		return -pte_bad_config;
	if (opt.tsc_host_time && !opt.tsc_multiplier && !opt.tsc_offset)
		return -pte_bad_config;

	memset(time, 0, sizeof(*time));
	time->cfg.config = config;
	time->cfg.eax = config->cpuid_0x15_eax;
	time->cfg.ebx = config->cpuid_0x15_ebx;
	time->cfg.mtc_freq = config->mtc_freq;
	time->cfg.nom_freq = config->nom_freq;
	time->cfg.skl168 = config->errata.skl168;
#if PTD_PKT_BATCH_AVX2
	time->cfg.avx2 = ptd_pkt_batch_avx2_usable() ? 1 : 0;
#endif
	time->cfg.opt = opt;
	ptd_time_init_skip(&time->cfg);
	ptd_time_reset(time);
	return 0;
}

/* Start a new segment at reference time @start. */
static void ptd_acc_segment(struct ptd_acc *acc, uint64_t start)
{
	acc->seg_start = start;
	acc->seg_cycles = 0;
	ptd_wcyc_restart(&acc->seg_wcyc);
	acc->plan = ptd_seg_none;
	acc->unknown_start = 0;
}

void ptd_time_reset(struct ptd_time *time)
{
	if (!time)
		return;

	time->tsc = 0;
	time->lost_mtc = 0;
	time->lost_cyc = 0;
	time->cbr = 0;
	time->have_tsc = 0;
	time->have_cbr = 0;
	time->in_psb = 0;
	memset(&time->report, 0, sizeof(time->report));

	if (time->cfg.opt.mode == ptd_time_mode_libipt) {
		ptd_lib_init(&time->est.lib);
		return;
	}

	memset(&time->est.acc, 0, sizeof(time->est.acc));
	ptd_wall_init(&time->est.acc.wall);
	ptd_tcal_init(&time->est.acc.tcal);
	ptd_acc_segment(&time->est.acc, 0);
}

static void ptd_time_lost_mtc(struct ptd_time *time, uint64_t n)
{
	uint64_t sum = (uint64_t)time->lost_mtc + n;

	time->lost_mtc = (sum > UINT32_MAX) ? UINT32_MAX : (uint32_t)sum;
	time->status.lost_mtc += n;
}

/* A CYC before the core:TSC ratio is calibrated: counted in lost_cyc as
 * libipt counts it, whether or not it could be placed by interpolation. */
static void ptd_time_lost_cyc(struct ptd_time *time)
{
	if (time->lost_cyc < UINT32_MAX)
		time->lost_cyc++;
	time->status.lost_cyc++;
	time->status.diag |= ptd_time_diag_uncalibrated;
}

/* A CYC that could not be converted to time at all. */
static void ptd_time_cyc_unplaced(struct ptd_time *time)
{
	time->report.cyc_lost = 1;
	if (time->est.acc.seen_cbr && !time->cfg.nom_freq)
		time->status.diag |= ptd_time_diag_no_nom_freq;
}

/* The TSC ticks that @cycles take at the calibrated ratio. */
static uint64_t ptd_acc_ticks(const struct ptd_acc *acc, uint64_t cycles)
{
	return ptd_time_mulshr(cycles, acc->tcal.ratio, PTD_TCAL_SHIFT);
}

/* A reference at @t ends the current segment and starts the next one.
 * @mtc: it is an MTC (time runs on through it, so a CYC after it may still
 * count cycles from before it). */
static void ptd_acc_reference(struct ptd_time *time, uint64_t t, int mtc)
{
	struct ptd_acc *acc = &time->est.acc;

	acc->pre_cycles = 0;
	if (mtc && !acc->seg_cycles && acc->have_cyc && acc->tcal.have_ratio &&
	    acc->tcal.ratio && t > acc->last_cyc_time) {
		/* No CYC since the previous reference: the next CYC also
		 * counts the cycles from the last CYC up to here. */
		acc->pre_cycles = ptd_time_muldiv(t - acc->last_cyc_time,
		                                  UINT64_C(1) << PTD_TCAL_SHIFT,
		                                  acc->tcal.ratio);
	}

	ptd_time_report(time, t, 1);
	ptd_acc_segment(acc, t);
	time->lost_cyc = 0;
}

/* Whether MTCs that make @predicted TSC ticks of a stretch that the TSCs
 * at its ends make @actual ticks contradict the TSCs.  Less time by the
 * MTCs than by the TSCs is what a gap without MTCs looks like (deep sleep,
 * more than a wrap of MTCs lost): only more time, by more than two MTC
 * periods and 0.1 %, shows a wrong conversion. */
static int ptd_acc_contradicts(const struct ptd_time *time, uint64_t actual,
                               uint64_t predicted)
{
	uint64_t diff, period, limit;

	diff = (predicted > actual) ? predicted - actual : 0;
	period = ptd_time_ctc_ticks(&time->cfg, UINT64_C(1)
	                                                << time->cfg.mtc_freq);
	limit = (predicted >> 10 > 2 * period) ? predicted >> 10 : 2 * period;
	return diff > limit;
}

/* While the conversion is trusted (no correction), whether the TSC @tsc
 * contradicts the MTCs since the last TMA: the last MTC's time is more
 * ahead of the TMA's anchor than the TSC is. */
static int ptd_acc_distrusts(const struct ptd_time *time, uint64_t tsc)
{
	const struct ptd_wall *wall = &time->est.acc.wall;

	if (!wall->have_tma || !wall->have_ctc || wall->corr_den ||
	    wall->time <= wall->anchor)
		return 0;
	return ptd_acc_contradicts(time,
	                           tsc > wall->anchor ? tsc - wall->anchor : 0,
	                           wall->time - wall->anchor);
}

static void ptd_acc_tsc(struct ptd_time *time, const struct pt_packet_tsc *tsc)
{
	struct ptd_acc *acc = &time->est.acc;
	uint64_t t = tsc->tsc;
	int first = !time->have_tsc;

	if (acc->anchor_trusted && ptd_acc_distrusts(time, t))
		acc->anchor_trusted = 0;
	ptd_wall_tsc(&acc->wall, t);
	/* References in relative time do not mix with wall-clock ones. */
	if (first)
		ptd_tcal_forget_refs(&acc->tcal);
	if (!time->cfg.opt.no_tcal)
		ptd_tcal_tsc(&acc->tcal, t, time->in_psb);

	/* The first TSC turns relative time into wall-clock time. */
	if (first)
		time->tsc = t;
	ptd_acc_reference(time, t, 0);
	time->have_tsc = 1;
	time->lost_mtc = 0;
	acc->check_mtc_freq = 0;
}

/* An MTC with a time at @step.  (Inline: ptd_time_mtc_planned() takes
 * most MTCs of CYC-dense traces through it.) */
static inline __attribute__((always_inline)) void
ptd_acc_mtc_time(struct ptd_time *time, const struct ptd_mtc_step *step)
{
	struct ptd_acc *acc = &time->est.acc;

	if (step->periods > 1) {
		ptd_time_lost_mtc(time, step->periods - 1);
		time->status.diag |= ptd_time_diag_mtc_dropped;
	}
	if (!time->cfg.opt.no_tcal)
		ptd_tcal_mtc(&acc->tcal, &time->cfg, step->time, step->periods);
	ptd_acc_reference(time, step->time, 1);
}

/* Check the first MTC after a TMA against mtc_freq. */
static void ptd_acc_check_mtc_freq(struct ptd_time *time, uint8_t payload)
{
	struct ptd_acc *acc = &time->est.acc;
	unsigned freq;

	if (!acc->check_mtc_freq)
		return;
	acc->check_mtc_freq = 0;

	if (ptd_wall_mtc_follows_tma(acc->tma_ctc, payload, time->cfg.mtc_freq))
		return;

	/* Dropped MTCs, or a wrong mtc_freq?  Another value that fits
	 * exactly is the better explanation. */
	for (freq = 0; freq <= 12; ++freq) {
		if (freq == time->cfg.mtc_freq)
			continue;
		if (ptd_wall_mtc_follows_tma(acc->tma_ctc, payload, freq)) {
			time->status.diag |= ptd_time_diag_bad_mtc_freq;
			return;
		}
	}
}

/* The TSC ticks that the cycles of the current segment take: the estimate
 * ptd_wall_mtc() needs at the MTC that ends it (0 without one). */
static uint64_t ptd_acc_mtc_elapsed(const struct ptd_acc *acc)
{
	if (acc->unknown_start || !acc->tcal.have_ratio)
		return 0;
	return ptd_acc_ticks(acc, acc->seg_cycles);
}

/* Whether the segment's look-ahead worked out the step of the MTC with
 * payload @ctc at the current packet (where the trace goes on at @ahead)
 * for the estimate @elapsed: then acc->la_step is its ptd_wall_mtc(). */
static int ptd_acc_la_planned(const struct ptd_acc *acc, uint8_t ctc,
                              const struct ptd_time_ahead *ahead,
                              uint64_t elapsed)
{
	return acc->la_next && ahead && ahead->pos == acc->la_next &&
	       ctc == acc->la_ctc && elapsed == acc->la_elapsed;
}

static void ptd_acc_mtc(struct ptd_time *time, const struct pt_packet_mtc *mtc,
                        const struct ptd_time_ahead *ahead)
{
	struct ptd_acc *acc = &time->est.acc;
	struct ptd_mtc_step step;
	uint64_t elapsed;
	int status;

	if (!ptd_time_cfg_has_ctc(&time->cfg)) {
		/* Without the CPUID 0x15 ratio (or with a bad mtc_freq), an
		 * MTC cannot be converted: say so, and count it as lost. */
		time->report.time_error = -pte_bad_config;
		time->status.diag |= ptd_time_cfg_no_ctc_diag(&time->cfg);
		ptd_time_lost_mtc(time, 1);
		return;
	}

	ptd_acc_check_mtc_freq(time, mtc->ctc);

	/* The segment's look-ahead may have worked it out already. */
	elapsed = ptd_acc_mtc_elapsed(acc);
	if (ptd_acc_la_planned(acc, mtc->ctc, ahead, elapsed)) {
		step = acc->la_step;
		status = 0;
	} else
		status = ptd_wall_mtc(&acc->wall, &time->cfg, mtc->ctc, elapsed,
		                      &step);
	ptd_wall_apply_mtc(&acc->wall, &time->cfg, mtc->ctc, status, &step,
	                   time->tsc);
	switch (status) {
	case 0:
		ptd_acc_mtc_time(time, &step);
		break;

	case 1:
		/* The first MTC without a TMA: it gives the CTC phase, and
		 * the time goes on from where it is. */
		if (!time->cfg.opt.no_tcal)
			ptd_tcal_mtc(&acc->tcal, &time->cfg, time->tsc, 1);
		ptd_acc_reference(time, time->tsc, 0);
		break;

	default:
		/* Between a TSC and its TMA: kept until the TMA. */
		break;
	}
}

int ptd_time_mtc_planned(struct ptd_time *time, uint8_t ctc,
                         const struct ptd_time_ahead *ahead)
{
	struct ptd_acc *acc = &time->est.acc;
	struct ptd_wall *wall = &acc->wall;
	const struct ptd_mtc_step *step = &acc->la_step;

	/* ptd_acc_mtc() with the step of the segment's look-ahead, when
	 * ptd_wall_apply_mtc() only takes the step over (the wall is not
	 * between a TSC and its TMA) and no mtc_freq check is due. */
	if (time->cfg.opt.mode == ptd_time_mode_libipt || !acc->la_next ||
	    acc->check_mtc_freq || (wall->have_tsc && !wall->have_tma) ||
	    !ptd_time_cfg_has_ctc(&time->cfg) ||
	    !ptd_acc_la_planned(acc, ctc, ahead, ptd_acc_mtc_elapsed(acc)))
		return 0;

	memset(&time->report, 0, sizeof(time->report));
	ptd_wall_take_step(wall, step);
	ptd_acc_mtc_time(time, step);
	acc->la_next = NULL;
	return 1;
}

/* Check the CTC -> TSC conversion against the next TSC and TMA: if the MTCs
 * up to them disagree with them, the configuration is wrong (CPUID 0x15, or
 * VMX TSC scaling not configured); the TSCs are right by definition, so the
 * MTC times are corrected to meet them.
 *
 * The check looks ahead over the packets up to the next TSC: on a trace
 * with TSCs only in PSB+, it reads the trace twice.  So once a check has
 * found the conversion right, the next TSCs and TMAs skip it, and
 * ptd_acc_tsc() instead compares each TSC with the MTCs before it
 * (ptd_acc_distrusts()); the first TSC that they contradict brings the
 * check back from that TSC's TMA on.  A trace whose conversion is wrong is
 * checked at every TSC as before; one whose conversion turns wrong later
 * (a trace that goes into a VMX guest with TSC scaling) has the stretch up
 * to the first TSC that shows it uncorrected. */
static void ptd_acc_check_anchor(struct ptd_time *time,
                                 const struct ptd_time_ahead *ahead)
{
	struct ptd_acc *acc = &time->est.acc;
	uint64_t actual, predicted;

	if (acc->anchor_trusted)
		return;
	if (!ahead || ptd_time_scan_anchor(ahead, &time->cfg, &acc->wall,
	                                   &actual, &predicted) <= 0)
		return;

	if (!predicted || !ptd_acc_contradicts(time, actual, predicted)) {
		acc->wall.corr_num = 0;
		acc->wall.corr_den = 0;
		acc->anchor_trusted = predicted != 0;
		return;
	}
	acc->wall.corr_num = actual;
	acc->wall.corr_den = predicted;
	time->status.diag |= ptd_time_diag_ctc_ratio;
}

static void ptd_acc_tma(struct ptd_time *time, const struct pt_packet_tma *tma,
                        const struct ptd_time_ahead *ahead)
{
	struct ptd_acc *acc = &time->est.acc;
	struct ptd_mtc_step step;
	int err;

	err = ptd_wall_tma(&acc->wall, &time->cfg, tma);
	if (err < 0) {
		time->report.time_error = err;
		time->status.diag |= ptd_time_diag_bad_tma;
		return;
	}
	ptd_acc_check_anchor(time, ahead);

	acc->check_mtc_freq = 1;
	acc->tma_ctc = tma->ctc;
	if (ptd_wall_resolve_pending(&acc->wall, &time->cfg, &step)) {
		acc->check_mtc_freq = 0;
		ptd_acc_mtc_time(time, &step);
	}
}

/* The estimate the plan gives after @cycles cycles of the segment; sets
 * *@lost if it has none. */
static uint64_t ptd_acc_place(const struct ptd_time *time, uint64_t cycles,
                              int *lost)
{
	const struct ptd_acc *acc = &time->est.acc;
	uint64_t t, span;

	*lost = 0;
	switch (acc->plan) {
	case ptd_seg_rescale:
		return ptd_acc_rescaled(acc);

	case ptd_seg_clamp:
		/* The CYC sent with the reference is at its time. */
		if (acc->plan_end_after_cyc && cycles >= acc->plan_cycles)
			return acc->plan_end;
		t = acc->seg_start + ptd_acc_ticks(acc, cycles);
		return (t > acc->plan_end) ? acc->plan_end : t;

	case ptd_seg_backward:
		if (cycles > acc->plan_cycles)
			cycles = acc->plan_cycles;
		span = ptd_acc_ticks(acc, acc->plan_cycles - cycles);
		return (acc->plan_end > span) ? acc->plan_end - span : 0;

	case ptd_seg_none:
	case ptd_seg_open:
	default:
		if (!acc->tcal.have_ratio) {
			*lost = 1;
			return acc->seg_start;
		}
		t = acc->seg_start + ptd_acc_ticks(acc, cycles);
		return (t < acc->seg_start) ? UINT64_MAX : t;
	}
}

/* The cycles of the CYC spanning the segment's one frequency change that
 * ran at the old ratio, worked out so that the segment ends at the right
 * time: nom_freq / CBR is the exact TSC ticks per cycle.  Updates
 * @acc->plan_weight; leaves @acc->plan_split at UINT64_MAX (half) if it
 * cannot be worked out. */
static void ptd_acc_solve_split(struct ptd_time *time, const struct ptd_wcyc *w)
{
	struct ptd_acc *acc = &time->est.acc;
	uint64_t c, half, wf, wt, guess, rest, target, x;
	int64_t num, den;

	acc->plan_split = UINT64_MAX;
	if (!w->have_span || w->changes != 1 || !time->cfg.nom_freq ||
	    time->cfg.opt.tsc_multiplier || acc->plan_end <= acc->seg_start)
		return;

	c = w->span_cycles;
	half = c / 2;
	wf = ptd_cbr_weight(w->span_from);
	wt = ptd_cbr_weight(w->span_to);
	guess = half * wf + (c - half) * wt;
	if (acc->plan_weight < guess || c > (UINT64_C(1) << 40))
		return;
	rest = acc->plan_weight - guess;
	target = ptd_time_muldiv(acc->plan_end - acc->seg_start,
	                         UINT64_C(1) << 20, time->cfg.nom_freq);
	if (target > INT64_MAX / 2 || rest > INT64_MAX / 2)
		return;

	/* rest + x * wf + (c - x) * wt = target */
	num = (int64_t)target - (int64_t)rest - (int64_t)(c * wt);
	den = (int64_t)wf - (int64_t)wt;
	if (!den)
		return;
	if ((num < 0) != (den < 0))
		x = 0;
	else {
		x = (uint64_t)(num / den);
		if (x > c)
			x = c;
	}
	acc->plan_split = x;
	acc->plan_weight = rest + x * wf + (c - x) * wt;
}

/* The plan for the current segment from what the look-ahead found ahead of
 * its first CYC (@scan, ptd_time_lookahead()).  acc->plan is
 * ptd_seg_open and acc->plan_split UINT64_MAX on entry. */
static inline void ptd_acc_plan_scan(struct ptd_time *time,
                                     const struct ptd_time_scan *scan)
{
	struct ptd_acc *acc = &time->est.acc;
	uint64_t span, predicted;

	acc->la_next = scan->mtc_next;
	acc->la_elapsed = scan->mtc_elapsed;
	acc->la_step = scan->mtc_step;
	acc->la_ctc = scan->mtc_ctc;
	if (!scan->have_end)
		return;

	/* Before the first TSC, time is relative: a TSC ahead is no end
	 * to rescale to. */
	if (scan->end_is_tsc && !time->have_tsc)
		return;

	acc->plan_end = scan->end_time;
	acc->plan_cycles = scan->cycles;
	acc->plan_unknown_weight = scan->unknown_weight;
	acc->plan_weight = ptd_wcyc_total(&scan->wcyc, scan->unknown_weight);
	acc->plan_end_after_cyc = scan->end_after_cyc;

	if (acc->unknown_start) {
		if (acc->tcal.have_ratio)
			acc->plan = ptd_seg_backward;
		return;
	}

	/* A reference before the segment start: the configuration or the
	 * trace is not consistent.  Hold the time until the reference. */
	if (acc->plan_end < acc->seg_start)
		acc->plan_end = acc->seg_start;

	acc->plan = ptd_seg_rescale;
	ptd_acc_solve_split(time, &scan->wcyc);
	if (!acc->tcal.have_ratio || !acc->plan_cycles)
		return;

	if (time->cfg.skl168 && scan->crosses_psb) {
		acc->plan = ptd_seg_clamp;
		return;
	}
	if (!scan->end_is_tsc && scan->periods == 1)
		return;

	/* More time than the cycles account for: a gap (deep sleep, tracing
	 * off) before the reference.  Allow for some calibration error. */
	span = acc->plan_end - acc->seg_start;
	predicted = ptd_acc_ticks(acc, acc->plan_cycles);
	if (span > predicted + predicted / 8 + 16)
		acc->plan = ptd_seg_clamp;
}

/* What ptd_time_lookahead() finds for the commonest segment of CYC-dense
 * traces, without its set-up: the segment's first CYC is the one sent with
 * the MTC that ends it, which follows right after it (PADs aside) and gives
 * a time.  Fills @scan and returns 1 in that case, else returns 0 (then the
 * look-ahead's loop finds the end). */
static int ptd_acc_scan_next_mtc(const struct ptd_time *time,
                                 const struct ptd_time_ahead *ahead,
                                 uint64_t cycles, struct ptd_time_scan *scan)
{
	const struct ptd_acc *acc = &time->est.acc;
	const uint8_t *pos;
	uint64_t elapsed = 0;

	if (!ahead->pos || !ahead->end || ahead->state.bip_size ||
	    !time->cfg.config)
		return 0;
	pos = ahead->pos;
	while (pos < ahead->end && !*pos)
		++pos;
	if (ahead->end - pos < 2 || pos[0] != PTD_OPC_MTC)
		return 0;
	/* The cycles up to the MTC: the segment's and this CYC's. */
	scan->cycles = ptd_time_sat_add(acc->seg_cycles, cycles);
	if (acc->tcal.have_ratio)
		elapsed = ptd_acc_ticks(acc, scan->cycles);
	if (ptd_wall_mtc(&acc->wall, &time->cfg, pos[1], elapsed,
	                 &scan->mtc_step) != 0)
		return 0;
	scan->wcyc = acc->seg_wcyc;
	ptd_wcyc_add(&scan->wcyc, cycles, UINT64_MAX);
	scan->unknown_weight = ptd_cbr_weight(0);
	/* Every field is set (no memset: this is the hot case). */
	scan->have_end = 1;
	scan->end_is_tsc = 0;
	scan->end_in_psb = 0;
	scan->crosses_psb = 0;
	scan->end_time = scan->mtc_step.time;
	scan->periods = scan->mtc_step.periods;
	scan->end_after_cyc = 1;
	scan->mtc_next = pos + 2;
	scan->mtc_elapsed = elapsed;
	scan->mtc_ctc = pos[1];
	return 1;
}

/* Work out how the current segment's CYCs map to time.  @cycles are those
 * of the current CYC, not counted yet. */
static void ptd_acc_plan(struct ptd_time *time,
                         const struct ptd_time_ahead *ahead, uint64_t cycles)
{
	struct ptd_acc *acc = &time->est.acc;
	struct ptd_time_scan scan;
	struct ptd_time_from from;

	acc->plan = ptd_seg_open;
	acc->plan_split = UINT64_MAX;
	if (!ahead)
		return;
	if (!ptd_acc_scan_next_mtc(time, ahead, cycles, &scan)) {
		memset(&from, 0, sizeof(from));
		from.wall = &acc->wall;
		from.cycles = acc->seg_cycles;
		from.wcyc = acc->seg_wcyc;
		from.cyc = cycles;
		from.have_cyc = 1;
		from.in_psb = time->in_psb;
		from.have_ratio = acc->tcal.have_ratio;
		from.ratio = acc->tcal.ratio;
		if (ptd_time_lookahead(ahead, &time->cfg, &from, &scan) < 0)
			return;
	}
	ptd_acc_plan_scan(time, &scan);
}

static void ptd_acc_cyc(struct ptd_time *time, const struct pt_packet_cyc *cyc,
                        const struct ptd_time_ahead *ahead)
{
	struct ptd_acc *acc = &time->est.acc;
	uint64_t cycles = cyc->value, t;
	int lost;

	if (!acc->tcal.have_ratio)
		ptd_time_lost_cyc(time);

	/* Calibrate with the cycles as they are: the split below is an
	 * estimate made with the ratio. */
	if (!time->cfg.opt.no_tcal)
		ptd_tcal_cyc(&acc->tcal, cycles);

	/* The first CYC after MTCs without CYC also counts the cycles
	 * before them; those do not belong to this segment. */
	if (acc->pre_cycles) {
		cycles = (cycles > acc->pre_cycles) ? cycles - acc->pre_cycles
		                                    : 0;
		acc->pre_cycles = 0;
	}

	if (acc->plan == ptd_seg_none)
		ptd_acc_plan(time, ahead, cycles);

	ptd_acc_count_cyc(acc, cycles);
	t = ptd_acc_place(time, acc->seg_cycles, &lost);
	if (lost) {
		ptd_time_cyc_unplaced(time);
		return;
	}
	acc->last_cyc_time = t;
	ptd_time_report(time, t, 0);
}

int ptd_time_cyc_slow(struct ptd_time *time, uint64_t cycles,
                      const struct ptd_time_ahead *ahead)
{
	struct pt_packet_cyc cyc;

	/* ptd_time_apply() for a CYC, without its dispatch. */
	if (time->cfg.opt.mode == ptd_time_mode_libipt || time->cfg.opt.no_cyc)
		return 0;
	memset(&time->report, 0, sizeof(time->report));
	cyc.value = cycles;
	ptd_acc_cyc(time, &cyc, ahead);
	return 1;
}

int ptd_time_cyc_mtc(struct ptd_time *time, uint64_t cycles, uint8_t ctc)
{
	struct ptd_acc *acc = &time->est.acc;
	struct ptd_wall *wall = &acc->wall;
	struct ptd_mtc_step step;
	uint64_t seg_cycles, elapsed, t;

	/* The segment's first CYC (no plan yet), no cycles set aside for it,
	 * a calibrated ratio, one known core:bus ratio with no change in the
	 * segment (so the weights are exact and ptd_acc_solve_split() has
	 * nothing to solve), and a wall clock that gives the MTC a time
	 * (ptd_wall_mtc() status 0, as ptd_acc_scan_next_mtc() requires), no
	 * mtc_freq check due (as ptd_time_mtc_planned() requires). */
	if (time->cfg.opt.mode == ptd_time_mode_libipt ||
	    time->cfg.opt.no_cyc || time->cfg.opt.no_tcal ||
	    !acc->tcal.have_ratio || acc->plan != ptd_seg_none ||
	    acc->pre_cycles || acc->unknown_start || acc->check_mtc_freq ||
	    !acc->seg_wcyc.cbr || acc->seg_wcyc.span_old ||
	    acc->seg_wcyc.have_span || !wall->have_ctc ||
	    (wall->have_tsc && !wall->have_tma) ||
	    !ptd_time_cfg_has_ctc(&time->cfg))
		return 0;
	seg_cycles = ptd_time_sat_add(acc->seg_cycles, cycles);
	elapsed = ptd_acc_ticks(acc, seg_cycles);
	if (ptd_wall_mtc(wall, &time->cfg, ctc, elapsed, &step) != 0)
		return 0;

	/* The CYC: ptd_acc_cyc() with the plan of ptd_acc_scan_next_mtc()
	 * and ptd_acc_plan_scan() (the MTC ends the segment, at the time
	 * ptd_wall_mtc() gives it, after these cycles). */
	memset(&time->report, 0, sizeof(time->report));
	ptd_tcal_cyc(&acc->tcal, cycles);
	/* (The weights in place, no copy of struct ptd_wcyc: its small
	 * fields would make a copy's wide loads wait for narrow stores.  At
	 * one known ratio, ptd_wcyc_add() only adds the weight.) */
	ptd_wcyc_add(&acc->seg_wcyc, cycles, UINT64_MAX);
	acc->plan_end = step.time;
	acc->plan_cycles = seg_cycles;
	acc->plan_unknown_weight = ptd_cbr_weight(0);
	acc->plan_weight =
	        ptd_wcyc_total(&acc->seg_wcyc, acc->plan_unknown_weight);
	acc->plan_end_after_cyc = 1;
	acc->plan_split = UINT64_MAX;
	if (acc->plan_end < acc->seg_start)
		acc->plan_end = acc->seg_start;
	acc->have_cyc = 1;
	acc->seg_cycles = seg_cycles;
	/* ptd_acc_place(): the segment's last CYC, with all of the plan's
	 * cycles and weight, is at the plan's end, whether the plan rescales
	 * (the whole weight) or clamps (the CYC sent with its reference).  So
	 * which of the two ptd_acc_plan_scan() would choose makes no
	 * difference here, and the MTC's new segment drops the plan. */
	if (acc->plan_weight && acc->plan_end > acc->seg_start)
		t = acc->plan_end;
	else
		t = acc->seg_start;
	acc->last_cyc_time = t;
	ptd_time_report(time, t, 0);

	/* The MTC: ptd_time_mtc_planned() with the step just worked out (and
	 * the look-ahead's record of it as that leaves it). */
	acc->la_elapsed = elapsed;
	acc->la_step.time = step.time;
	acc->la_step.ctc_ticks = step.ctc_ticks;
	acc->la_step.ctc = step.ctc;
	acc->la_step.periods = step.periods;
	acc->la_ctc = ctc;
	memset(&time->report, 0, sizeof(time->report));
	ptd_wall_take_step(wall, &step);
	ptd_acc_mtc_time(time, &step);
	acc->la_next = NULL;
	return 1;
}

static void ptd_acc_cbr(struct ptd_time *time, const struct pt_packet_cbr *cbr)
{
	struct ptd_acc *acc = &time->est.acc;
	int lost;

	if (!cbr->ratio) {
		time->report.time_error = -pte_bad_packet;
		return;
	}
	time->cbr = cbr->ratio;
	time->have_cbr = 1;
	acc->seen_cbr = 1;
	ptd_wcyc_cbr(&acc->seg_wcyc, cbr->ratio);

	if (time->cfg.opt.no_tcal)
		return;

	/* Cycles so far ran at the old ratio: restart the segment's
	 * ratio-based part here. */
	if (acc->plan == ptd_seg_open || acc->plan == ptd_seg_clamp) {
		uint64_t t = ptd_acc_place(time, acc->seg_cycles, &lost);

		if (!lost) {
			if (acc->plan == ptd_seg_clamp)
				acc->plan_cycles =
				        (acc->plan_cycles > acc->seg_cycles)
				                ? acc->plan_cycles -
				                          acc->seg_cycles
				                : 0;
			acc->seg_start = t;
			acc->seg_cycles = 0;
			ptd_wcyc_restart(&acc->seg_wcyc);
		}
	}
	time->report.tcal_error =
	        ptd_tcal_cbr(&acc->tcal, &time->cfg, cbr->ratio, time->in_psb);
}

static void ptd_acc_ovf(struct ptd_time *time)
{
	struct ptd_acc *acc = &time->est.acc;

	if (time->cfg.opt.keep_tcal_on_ovf)
		ptd_tcal_forget_refs(&acc->tcal);
	else
		ptd_tcal_init(&acc->tcal);

	/* Packets were lost: the time since is unknown until the next
	 * reference. */
	ptd_acc_segment(acc, time->tsc);
	acc->unknown_start = 1;
	acc->pre_cycles = 0;
	acc->check_mtc_freq = 0;
}

static void ptd_acc_update(struct ptd_time *time,
                           const struct pt_packet *packet,
                           const struct ptd_time_ahead *ahead)
{
	struct ptd_acc *acc = &time->est.acc;

	switch (packet->type) {
	case ppt_psb:
		ptd_tcal_psb(&acc->tcal, &time->cfg);
		break;

	case ppt_ovf:
		acc->la_next = NULL;
		ptd_acc_ovf(time);
		break;

	case ppt_tsc:
		acc->la_next = NULL;
		ptd_acc_tsc(time, &packet->payload.tsc);
		break;

	case ppt_tma:
		acc->la_next = NULL;
		ptd_acc_tma(time, &packet->payload.tma, ahead);
		break;

	case ppt_mtc:
		ptd_acc_mtc(time, &packet->payload.mtc, ahead);
		acc->la_next = NULL;
		break;

	case ppt_cyc:
		if (!time->cfg.opt.no_cyc)
			ptd_acc_cyc(time, &packet->payload.cyc, ahead);
		break;

	case ppt_cbr:
		ptd_acc_cbr(time, &packet->payload.cbr);
		break;

	default:
		break;
	}
}

/* Take over libipt's state after an update and note what it tells. */
static void ptd_lib_sync(struct ptd_time *time, const struct pt_packet *packet)
{
	const struct ptd_lib_time *lt = &time->est.lib.time;

	time->tsc = lt->tsc;
	time->lost_mtc = lt->lost_mtc;
	time->lost_cyc = lt->lost_cyc;
	time->cbr = lt->cbr;
	time->have_tsc = lt->have_tsc;
	time->have_cbr = lt->have_cbr;

	switch (packet->type) {
	case ppt_mtc:
		if (time->report.time_error == -pte_bad_config)
			time->status.diag |=
			        ptd_time_cfg_no_ctc_diag(&time->cfg);
		break;

	case ppt_tma:
		if (time->report.time_error == -pte_bad_context)
			time->status.diag |= ptd_time_diag_bad_tma;
		break;

	case ppt_cyc:
		if (time->report.cyc_lost) {
			time->status.lost_cyc++;
			time->status.diag |= ptd_time_diag_uncalibrated;
			if (lt->have_cbr && !time->cfg.nom_freq)
				time->status.diag |= ptd_time_diag_no_nom_freq;
		}
		break;

	default:
		break;
	}
}

int ptd_time_apply(struct ptd_time *time, const struct pt_packet *packet,
                   const struct ptd_time_ahead *ahead)
{
	if (!time || !packet)
		return -pte_invalid;

	memset(&time->report, 0, sizeof(time->report));
	if (packet->type == ppt_psb)
		time->in_psb = 1;

	if (time->cfg.opt.mode == ptd_time_mode_libipt) {
		ptd_lib_update(&time->est.lib, &time->cfg, packet, time->in_psb,
		               &time->report);
		ptd_lib_sync(time, packet);
	} else
		ptd_acc_update(time, packet, ahead);

	/* An OVF ends a PSB+ as PSBEND does: libipt's decoders stop reading
	 * the PSB+ there, and what follows is not the PSB+'s (a CBR after it
	 * is a change of frequency, a TSC no calibration point).  (ptdump's
	 * view differs: ptd_time_next().) */
	if (packet->type == ppt_psbend || packet->type == ppt_ovf)
		time->in_psb = 0;
	return 0;
}

int ptd_time_get_fcr(const struct ptd_time *time, uint64_t *fcr)
{
	const struct ptd_tcal *tcal;

	if (!time || !fcr)
		return -pte_invalid;
	if (time->cfg.opt.mode == ptd_time_mode_libipt)
		return ptd_lib_fcr(&time->est.lib, fcr);

	tcal = &time->est.acc.tcal;
	if (!tcal->have_ratio)
		return -pte_no_time;
	*fcr = tcal->ratio >> (PTD_TCAL_SHIFT - PTD_FCR_SHIFT);
	return 0;
}
