/* SPDX-License-Identifier: BSD-3-Clause */
/* The time engine: TSC estimation from TSC, TMA, MTC, CYC and CBR packets.
 *
 * A struct ptd_time follows one packet stream, packet by packet
 * (ptd_time_update()), and answers pt_qry_time()-style queries at any point
 * (ptd_time_get_tsc(), ptd_time_get_cbr()).  Decoders own one each and
 * forward to it; see docs/design-time.md and, for the rules, docs/time.md.
 *
 * Two estimators live behind the one interface:
 *
 *   accurate (time.c, wall.c, tcal.c, lookahead.c)  ptdecode's own: exact at
 *       every MTC and TSC, CYC progress interpolated between them with the
 *       help of a look-ahead in the trace, monotonic;
 *   libipt (libipt_time.c)  libipt's online estimator, rule for rule.
 *
 * Units: all times are TSC ticks in the domain of the trace's TSC packets
 * (the guest's TSC under VMX TSC scaling); ptd_time_get_tsc() converts to the
 * host's TSC when ptd_time_config.tsc_host_time asks for it. */
#ifndef PTD_TIME_INTERNAL_H
#define PTD_TIME_INTERNAL_H

#include "ptdecode/ptd_time.h"

#include "packet/pkt_decode.h"

#include <stdint.h>

/* Core:TSC ratios of the accurate estimator: TSC ticks per core cycle as
 * unsigned fixed point with this many fractional bits. */
#define PTD_TCAL_SHIFT 32

/* libipt's fixed-point ratio ("fcr") has 8 fractional bits. */
#define PTD_FCR_SHIFT 8

/* ----------------------------------------------------------------------- */
/* Arithmetic helpers (tcal.c)                                              */
/* ----------------------------------------------------------------------- */

/* ptd_time_muldiv() where @a * @b does not fit in 64 bits (out of line:
 * the 128-bit division is a library call). */
uint64_t ptd_time_muldiv_wide(uint64_t a, uint64_t b, uint64_t c);

/* floor(@a * @b / @c) without intermediate overflow; saturates at
 * UINT64_MAX, and gives UINT64_MAX for @c 0.  (Inline: the time engine
 * calls it for nearly every timing packet.) */
static inline uint64_t ptd_time_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t p;

	if (!c)
		return UINT64_MAX;
	/* The product fits in 64 bits nearly always: then a 64-bit division
	 * gives the same quotient, at a fraction of the 128-bit one's cost. */
	if (!__builtin_mul_overflow(a, b, &p))
		return p / c;
	return ptd_time_muldiv_wide(a, b, c);
}

/* @a + @b, saturating. */
static inline uint64_t ptd_time_sat_add(uint64_t a, uint64_t b)
{
	return (a > UINT64_MAX - b) ? UINT64_MAX : a + b;
}

/* floor(@a * @b / 2^@shift), saturating; @shift < 128. */
static inline uint64_t ptd_time_mulshr(uint64_t a, uint64_t b, unsigned shift)
{
	__extension__ typedef unsigned __int128 ptd_u128_t;
	ptd_u128_t q = ((ptd_u128_t)a * b) >> shift;

	return (q > UINT64_MAX) ? UINT64_MAX : (uint64_t)q;
}

/* ----------------------------------------------------------------------- */
/* Configuration                                                             */
/* ----------------------------------------------------------------------- */

/* What the engine needs from struct pt_config and struct ptd_time_config. */
struct ptd_time_cfg {
	/* The decoder's configuration: trace bounds, decode callback and
	 * errata, for the look-ahead.  Owned by the caller. */
	const struct pt_config *config;

	/* CPUID 0x15: TSC ticks per CTC tick are ebx / eax. */
	uint32_t eax, ebx;
	/* IA32_RTIT_CTL.MTCFreq and the nominal core:bus ratio. */
	uint8_t mtc_freq, nom_freq;
	/* Erratum SKL168 applies. */
	uint32_t skl168 : 1;
	/* The anchor scan may use ptd_pkt_skip_avx2() (the CPU has AVX2). */
	uint32_t avx2 : 1;

	/* The caller's options. */
	struct ptd_time_config opt;

	/* For the look-ahead scans, by first byte: the size of a packet
	 * that the first byte fully describes and that ptd_pkt_decode()
	 * decodes from its fast table (PTD_SKIP_SIZE bits; 0: decode it,
	 * and so for MTC and TSC), with PTD_SKIP_CYC for a one-byte CYC and
	 * PTD_SKIP_OTHER for anything but PAD.  All 0 (no skipping) unless
	 * ptd_time_init() filled it. */
	uint8_t skip[256];
};

#define PTD_SKIP_SIZE 0x0f
#define PTD_SKIP_CYC 0x10
#define PTD_SKIP_OTHER 0x20

/* Whether crystal-clock values can be converted to TSC ticks. */
static inline int ptd_time_cfg_has_ctc(const struct ptd_time_cfg *cfg)
{
	return cfg->eax && cfg->ebx && cfg->mtc_freq <= 15;
}

/* Why MTC and TMA packets cannot be used where ptd_time_cfg_has_ctc() says
 * so: an mtc_freq out of range, no CPUID 0x15 ratio, or both. */
static inline uint32_t ptd_time_cfg_no_ctc_diag(const struct ptd_time_cfg *cfg)
{
	return (cfg->mtc_freq > 15 ? ptd_time_diag_mtc_freq_range : 0) |
	       (!cfg->eax || !cfg->ebx ? ptd_time_diag_no_cpuid_0x15 : 0);
}

/* Convert a delta in host TSC ticks into the trace's TSC domain (VMX TSC
 * scaling); the identity without a multiplier. */
static inline uint64_t ptd_time_scale(const struct ptd_time_cfg *cfg,
                                      uint64_t ticks)
{
	if (!cfg->opt.tsc_multiplier)
		return ticks;
	return ptd_time_mulshr(ticks, cfg->opt.tsc_multiplier, 48);
}

/* Convert @ctc crystal-clock ticks into TSC ticks of the trace's domain:
 * scale(ctc * ebx / eax), converted in one go.  Requires
 * ptd_time_cfg_has_ctc(). */
static inline uint64_t ptd_time_ctc_ticks(const struct ptd_time_cfg *cfg,
                                          uint64_t ctc)
{
	return ptd_time_scale(cfg, ptd_time_muldiv(ctc, cfg->ebx, cfg->eax));
}

/* ----------------------------------------------------------------------- */
/* Wall-clock references: TSC, TMA, MTC (wall.c)                            */
/* ----------------------------------------------------------------------- */

/* What is known about wall-clock time from TSC, TMA and MTC packets. */
struct ptd_wall {
	/* The time of the last reference (TSC or MTC). */
	uint64_t time;

	/* The time at the CTC anchor (TSC - FastCounter at a TMA, or the
	 * first MTC without a TMA), and the CTC ticks from the anchor to the
	 * last MTC. */
	uint64_t anchor;
	uint64_t ctc_ticks;

	/* CTC bits [mtc_freq + 7 : 0] (at most 16 of them after a TMA, see
	 * @partial) at the last MTC or TMA. */
	uint32_t ctc;

	/* A correction of the CTC -> TSC conversion measured from two TSCs
	 * and the MTCs between them: times from the anchor are multiplied by
	 * @corr_num / @corr_den (none while @corr_den is 0). */
	uint64_t corr_num, corr_den;

	/* A TSC packet was seen. */
	uint32_t have_tsc : 1;
	/* The TSC got its TMA (or we gave up waiting for it). */
	uint32_t have_tma : 1;
	/* The CTC phase is known: @ctc and @anchor are valid. */
	uint32_t have_ctc : 1;
	/* @ctc holds only the 16 bits of a TMA while an MTC carries more
	 * (mtc_freq > 8): the next MTC is compared modulo 2^16. */
	uint32_t partial : 1;
	/* An MTC arrived between the TSC and its TMA; @pending_ctc is its
	 * payload. */
	uint32_t pending : 1;
	uint8_t pending_ctc;
};

/* The outcome of an MTC for the wall clock (ptd_wall_mtc()). */
struct ptd_mtc_step {
	/* The MTC's time and the new CTC state. */
	uint64_t time;
	uint64_t ctc_ticks;
	uint32_t ctc;
	/* MTC periods since the previous MTC or TMA (1 when none was
	 * dropped). */
	uint64_t periods;
};

/* Take over the time and CTC state of an MTC's @step (ptd_wall_mtc() gave
 * 0) into @wall, which is not between a TSC and its TMA. */
static inline void ptd_wall_take_step(struct ptd_wall *wall,
                                      const struct ptd_mtc_step *step)
{
	wall->time = step->time;
	wall->ctc_ticks = step->ctc_ticks;
	wall->ctc = step->ctc;
	wall->partial = 0;
	wall->have_ctc = 1;
}

/* Reset @wall: no reference at all. */
void ptd_wall_init(struct ptd_wall *wall);

/* Apply a TSC packet of value @tsc (56 bits, the trace's domain). */
void ptd_wall_tsc(struct ptd_wall *wall, uint64_t tsc);

/* Apply a TMA packet.  Returns 0, or -pte_bad_context for a TMA without a
 * TSC or a second TMA for one TSC (then @wall is unchanged). */
int ptd_wall_tma(struct ptd_wall *wall, const struct ptd_time_cfg *cfg,
                 const struct pt_packet_tma *tma);

/* Work out what an MTC with CTC payload @payload means, without changing
 * @wall.  @elapsed is an estimate of the TSC ticks since the last reference
 * (from CYC packets), or 0 if there is none; it decides how many times the
 * 8-bit payload wrapped when more than 255 MTCs in a row were dropped.
 *
 * Returns 0 with @step filled, 1 if the MTC only tells the CTC phase (the
 * first MTC without a TMA: no time yet), 2 if it lies between a TSC and its
 * TMA (kept by ptd_wall_apply_mtc() until the TMA), or -pte_bad_config
 * without the CPUID 0x15 ratio or with mtc_freq above 15. */
int ptd_wall_mtc(const struct ptd_wall *wall, const struct ptd_time_cfg *cfg,
                 uint8_t payload, uint64_t elapsed, struct ptd_mtc_step *step);

/* Apply the MTC @payload to @wall as ptd_wall_mtc() worked it out (its
 * return value @status and @step); @now is the current estimate, which
 * becomes the anchor of a phase-only MTC. */
void ptd_wall_apply_mtc(struct ptd_wall *wall, const struct ptd_time_cfg *cfg,
                        uint8_t payload, int status,
                        const struct ptd_mtc_step *step, uint64_t now);

/* After a TMA: settle an MTC that came between the TSC and the TMA.
 * Returns 1 if it marks a crystal clock edge after the TSC (then it was
 * applied and @step says where), 0 if there was none or it is older. */
int ptd_wall_resolve_pending(struct ptd_wall *wall,
                             const struct ptd_time_cfg *cfg,
                             struct ptd_mtc_step *step);

/* The TSC ticks @ctc_ticks CTC ticks after @wall's anchor take, with the
 * measured correction. */
uint64_t ptd_wall_ticks(const struct ptd_wall *wall,
                        const struct ptd_time_cfg *cfg, uint64_t ctc_ticks);

/* The CTC ticks from @wall's anchor to a TMA with CTC @tma_ctc that follows
 * its last MTC (or TMA) within half a wrap, either way.  Returns 0 with
 * @ticks set, or -pte_bad_context if the CTC phase is not known or the TMA
 * lies before the anchor. */
int ptd_wall_ctc_at(const struct ptd_wall *wall, const struct ptd_time_cfg *cfg,
                    uint16_t tma_ctc, uint64_t *ticks);

/* The CTC part of ptd_wall_mtc() and ptd_wall_apply_mtc() for an MTC
 * without a cycle estimate (@elapsed 0), where ptd_wall_mtc() gives 0
 * (@wall has its CTC phase and is not between a TSC and its TMA, @cfg has
 * the CTC ratio): moves @wall's CTC on to @payload and returns the MTC
 * periods it advanced.  @wall's time is not updated (the anchor scan does
 * not use it, and this leaves out the conversion to TSC ticks). */
uint64_t ptd_wall_mtc_ctc(struct ptd_wall *wall, const struct ptd_time_cfg *cfg,
                          uint8_t payload);

/* Whether the first MTC after a TMA with CTC @tma_ctc, @payload, fits
 * mtc_freq @freq as the very next MTC. */
int ptd_wall_mtc_follows_tma(uint16_t tma_ctc, uint8_t payload, unsigned freq);

/* ----------------------------------------------------------------------- */
/* Calibration of the accurate estimator (tcal.c)                           */
/* ----------------------------------------------------------------------- */

/* The core:TSC ratio and what it is computed from. */
struct ptd_tcal {
	/* TSC ticks per core cycle, PTD_TCAL_SHIFT fractional bits. */
	uint64_t ratio;

	/* The time of the last MTC and the cycles counted since. */
	uint64_t mtc_time;
	uint64_t mtc_cyc;

	/* The last TSC (in PSB+, or outside it) and the cycles since. */
	uint64_t tsc_time;
	uint64_t tsc_cyc;

	uint32_t have_ratio : 1;
	uint32_t have_mtc : 1;
	uint32_t have_tsc : 1;
	/* An MTC calibrated; TSC-based calibration then stays off. */
	uint32_t mtc_calibrated : 1;
	/* SKL168: the next calibrating MTC follows a PSB. */
	uint32_t check_skl168 : 1;
};

/* Forget everything. */
void ptd_tcal_init(struct ptd_tcal *tcal);

/* Forget the references but keep the ratio (OVF with keep_tcal_on_ovf). */
void ptd_tcal_forget_refs(struct ptd_tcal *tcal);

/* Count @cycles core cycles. */
static inline void ptd_tcal_cyc(struct ptd_tcal *tcal, uint64_t cycles)
{
	tcal->mtc_cyc = ptd_time_sat_add(tcal->mtc_cyc, cycles);
	tcal->tsc_cyc = ptd_time_sat_add(tcal->tsc_cyc, cycles);
}

/* A PSB (for SKL168). */
void ptd_tcal_psb(struct ptd_tcal *tcal, const struct ptd_time_cfg *cfg);

/* An MTC at @time, @periods MTC periods after the previous one. */
void ptd_tcal_mtc(struct ptd_tcal *tcal, const struct ptd_time_cfg *cfg,
                  uint64_t time, uint64_t periods);

/* A TSC at @time; @in_psb: inside PSB+ (only those calibrate; one outside
 * follows a gap, so it also ends the MTC-based calibration period). */
void ptd_tcal_tsc(struct ptd_tcal *tcal, uint64_t time, int in_psb);

/* A CBR of @ratio; @in_psb: inside PSB+ (outside, the frequency changed and
 * the references are dropped).  Returns 0 or -pte_bad_packet for ratio 0. */
int ptd_tcal_cbr(struct ptd_tcal *tcal, const struct ptd_time_cfg *cfg,
                 uint8_t ratio, int in_psb);

/* ----------------------------------------------------------------------- */
/* Cycles weighted by frequency (tcal.c)                                     */
/* ----------------------------------------------------------------------- */

/* Core cycles weighted by the time one takes at the core:bus ratio of the
 * moment (1 / CBR), so that rescaling follows frequency changes inside a
 * segment.  Cycles counted while no CBR is known are kept apart and get the
 * weight of the first CBR that follows.  The first CYC after a CBR that
 * changed the ratio spans the change: some of its cycles ran at the old
 * ratio; how many is worked out from the segment's end time if it is the
 * segment's only change (see ptd_acc_plan()), half of them otherwise. */
struct ptd_wcyc {
	uint64_t weight;  /* sum of cycles * ptd_cbr_weight(cbr) */
	uint64_t unknown; /* cycles without a known CBR */
	uint64_t cbr_w;   /* ptd_cbr_weight(@cbr), while @cbr is not 0 */
	uint8_t cbr;      /* the current core:bus ratio (0: unknown) */
	uint8_t span_old; /* the next CYC spans a change from this ratio */
	uint32_t changes; /* ratio changes since the restart */

	/* The CYC spanning the first change: its cycles and ratios. */
	uint32_t have_span : 1;
	uint8_t span_from, span_to;
	uint64_t span_cycles;
};

/* The weight of one cycle at core:bus ratio @cbr (0: unknown). */
static inline uint64_t ptd_cbr_weight(uint8_t cbr)
{
	return cbr ? (UINT64_C(1) << 20) / cbr : UINT64_C(1) << 20;
}

/* Start counting anew; the current ratio stays. */
void ptd_wcyc_restart(struct ptd_wcyc *wcyc);

/* A CBR packet with ratio @cbr. */
void ptd_wcyc_cbr(struct ptd_wcyc *wcyc, uint8_t cbr);

/* ptd_wcyc_add() without a known ratio or across a change of it. */
void ptd_wcyc_add_slow(struct ptd_wcyc *wcyc, uint64_t cycles, uint64_t split);

/* Add the @cycles of a CYC.  @split is how many cycles of a CYC spanning
 * the first change ran at the old ratio (UINT64_MAX: not known, half).
 * (Inline for the common case, one ratio: it runs for every CYC.) */
static inline void ptd_wcyc_add(struct ptd_wcyc *wcyc, uint64_t cycles,
                                uint64_t split)
{
	if (wcyc->cbr && !wcyc->span_old) {
		wcyc->weight = ptd_time_sat_add(
		        wcyc->weight, ptd_time_mulshr(cycles, wcyc->cbr_w, 0));
		return;
	}
	ptd_wcyc_add_slow(wcyc, cycles, split);
}

/* The total weight, with @unknown_weight for cycles without a CBR. */
static inline uint64_t ptd_wcyc_total(const struct ptd_wcyc *wcyc,
                                      uint64_t unknown_weight)
{
	return ptd_time_sat_add(
	        wcyc->weight,
	        ptd_time_mulshr(wcyc->unknown, unknown_weight, 0));
}

/* ----------------------------------------------------------------------- */
/* Look-ahead (lookahead.c)                                                  */
/* ----------------------------------------------------------------------- */

/* Where the trace continues after the current packet. */
struct ptd_time_ahead {
	const uint8_t *pos;
	const uint8_t *end;
	struct ptd_pkt_state state;
};

/* What lies ahead up to the next wall-clock reference.  (ptd_time_lookahead()
 * and time.c's ptd_acc_scan_next_mtc() set every field one by one, without a
 * memset, on the hot path of CYC-dense traces: a field added here must be
 * set there too.) */
struct ptd_time_scan {
	/* The reference's time (valid with @have_end). */
	uint64_t end_time;
	/* Core cycles of the CYC packets before it, and their weights. */
	uint64_t cycles;
	struct ptd_wcyc wcyc;
	/* The weight of cycles counted before the first CBR. */
	uint64_t unknown_weight;
	/* MTC periods to the reference (MTC only). */
	uint64_t periods;
	/* A reference was found. */
	uint32_t have_end : 1;
	/* It is a TSC packet; it lies inside PSB+. */
	uint32_t end_is_tsc : 1;
	uint32_t end_in_psb : 1;
	/* A PSB lies on the way. */
	uint32_t crosses_psb : 1;
	/* The reference directly follows a CYC (PADs aside): that CYC was
	 * sent with it, at its time. */
	uint32_t end_after_cyc : 1;

	/* The reference is an MTC, and ptd_wall_mtc() gave its time (status
	 * 0) from the wall clock the scan started with, unchanged: where the
	 * trace goes on after it (NULL otherwise), its payload, the elapsed
	 * ticks and the step.  The engine takes the step from here when it
	 * gets to that MTC with the same payload and elapsed ticks, instead
	 * of working it out again (ptd_wall_mtc() is a function of these
	 * and the wall clock only). */
	const uint8_t *mtc_next;
	uint64_t mtc_elapsed;
	struct ptd_mtc_step mtc_step;
	uint8_t mtc_ctc;
};

/* Measure the CTC -> TSC conversion between the TSC and TMA that set
 * @wall's anchor and the next TSC and TMA ahead: the TSC ticks between the
 * two anchors in @actual, what the MTCs between them make of it in
 * @predicted.  Returns 1 if measured, 0 if not (no second TSC and TMA, an
 * OVF, a decode error or a PSB+ without TSC on the way, too few MTCs), or a
 * negative error code for bad arguments. */
int ptd_time_scan_anchor(const struct ptd_time_ahead *ahead,
                         const struct ptd_time_cfg *cfg,
                         const struct ptd_wall *wall, uint64_t *actual,
                         uint64_t *predicted);

/* Where a look-ahead starts: the engine's state after the current packet. */
struct ptd_time_from {
	/* The wall clock. */
	const struct ptd_wall *wall;
	/* The cycles of the segment so far, plain and weighted. */
	uint64_t cycles;
	struct ptd_wcyc wcyc;
	/* The current CYC, not counted yet (with @have_cyc). */
	uint64_t cyc;
	uint32_t have_cyc : 1;
	/* Inside PSB+. */
	uint32_t in_psb : 1;
	/* The core:TSC ratio, if known. */
	uint32_t have_ratio : 1;
	uint64_t ratio;
};

/* Scan the packets at @ahead for the next reference, starting from @from.
 * Stops at an MTC or TSC that sets a time, and gives up at an OVF, a decode
 * error or the end.  Returns 0 (with or without a reference) or a negative
 * error code for bad arguments. */
int ptd_time_lookahead(const struct ptd_time_ahead *ahead,
                       const struct ptd_time_cfg *cfg,
                       const struct ptd_time_from *from,
                       struct ptd_time_scan *scan);

/* ----------------------------------------------------------------------- */
/* libipt's estimator (libipt_time.c)                                       */
/* ----------------------------------------------------------------------- */

/* libipt's time state. */
struct ptd_lib_time {
	uint64_t tsc;  /* the estimate */
	uint64_t base; /* time at the last TSC/MTC, minus the TMA's FC */
	uint64_t fc;   /* ticks since @base (TMA FC and CYC) */
	uint32_t ctc;  /* the last CTC value */
	uint32_t ctc_cyc;
	uint32_t lost_mtc, lost_cyc;
	uint8_t cbr;
	uint32_t have_tsc : 1, have_cbr : 1, have_tma : 1, have_mtc : 1;
};

/* libipt's calibration state. */
struct ptd_lib_tcal {
	uint64_t fcr, min_fcr, max_fcr;
	uint64_t tsc, cyc_tsc, cyc_mtc;
	uint32_t ctc;
	uint32_t lost_mtc;
	uint32_t have_mtc : 1, check_skl168 : 1;
};

/* libipt's estimator with ptdump's way of driving it. */
struct ptd_lib {
	struct ptd_lib_time time;
	struct ptd_lib_tcal tcal;
};

/* What went wrong at the last packet, as ptd_time_packet reports it. */
struct ptd_time_report {
	int tcal_error;
	int time_error;
	uint32_t cyc_lost : 1;
};

/* Reset both parts. */
void ptd_lib_init(struct ptd_lib *lib);

/* Apply @packet; @in_psb: it lies between PSB and PSBEND.  Sets
 * @report's errors as libipt's ptdump would print them. */
void ptd_lib_update(struct ptd_lib *lib, const struct ptd_time_cfg *cfg,
                    const struct pt_packet *packet, int in_psb,
                    struct ptd_time_report *report);

/* libipt's fcr, or -pte_no_time while not calibrated. */
int ptd_lib_fcr(const struct ptd_lib *lib, uint64_t *fcr);

/* ----------------------------------------------------------------------- */
/* The engine (time.c)                                                       */
/* ----------------------------------------------------------------------- */

/* How the CYC packets of the current segment map to time. */
enum ptd_seg_plan {
	/* Not worked out yet: the next CYC looks ahead. */
	ptd_seg_none,
	/* No reference ahead: start + cycles * ratio. */
	ptd_seg_open,
	/* Rescale the cycles so that they end exactly at the reference. */
	ptd_seg_rescale,
	/* start + cycles * ratio, but never beyond the reference (time
	 * passed that CYC does not count, e.g. in a deep sleep). */
	ptd_seg_clamp,
	/* The start is unknown (after an OVF): count back from the
	 * reference with the ratio. */
	ptd_seg_backward
};

/* The accurate estimator's state. */
struct ptd_acc {
	struct ptd_wall wall;
	struct ptd_tcal tcal;

	/* The segment since the last reference: its start time, the cycles
	 * counted in it, and how they map to time. */
	uint64_t seg_start;
	uint64_t seg_cycles;
	enum ptd_seg_plan plan;
	uint64_t plan_end;
	uint64_t plan_cycles;
	uint64_t plan_weight;
	uint64_t plan_unknown_weight;
	uint64_t plan_split;
	/* The segment's cycles weighted by frequency. */
	struct ptd_wcyc seg_wcyc;
	/* The segment's last CYC comes with the reference. */
	uint32_t plan_end_after_cyc : 1;

	/* Cycles of the next CYC that belong before the segment start (the
	 * CYC spans one or more MTCs). */
	uint64_t pre_cycles;

	/* The estimate at the last CYC, before clamping. */
	uint64_t last_cyc_time;

	/* The time since the last OVF is unknown until a reference. */
	uint32_t unknown_start : 1;
	/* A CYC was seen since the last reset. */
	uint32_t have_cyc : 1;
	/* A CBR was seen (for the nom_freq diagnostic). */
	uint32_t seen_cbr : 1;
	/* The last TMA's CTC, for the mtc_freq check at the next MTC. */
	uint32_t check_mtc_freq : 1;
	/* The last look-ahead to the next TSC found the CTC -> TSC
	 * conversion right: later TSCs and TMAs skip the look-ahead and only
	 * check, at each TSC, that the MTCs before it agree (time.c,
	 * ptd_acc_check_anchor()). */
	uint32_t anchor_trusted : 1;
	uint16_t tma_ctc;

	/* The MTC that ends the current segment, as the segment's
	 * look-ahead worked it out (ptd_time_scan.mtc_next and the rest;
	 * @la_next NULL if none).  Dropped at every TSC, TMA, MTC and OVF,
	 * the packets that change the wall clock or the segment. */
	const uint8_t *la_next;
	uint64_t la_elapsed;
	struct ptd_mtc_step la_step;
	uint8_t la_ctc;
};

/* One time engine. */
struct ptd_time {
	struct ptd_time_cfg cfg;

	/* The estimate reported at the last packet (monotonic in accurate
	 * mode), the lost counters and the last CBR. */
	uint64_t tsc;
	uint32_t lost_mtc, lost_cyc;
	uint8_t cbr;
	uint32_t have_tsc : 1;
	uint32_t have_cbr : 1;
	uint32_t in_psb : 1;

	/* The last packet's problems. */
	struct ptd_time_report report;

	/* What was noticed since ptd_time_init(). */
	struct ptd_time_status status;

	union {
		struct ptd_acc acc;
		struct ptd_lib lib;
	} est;
};

/* Initialize @time for @config (kept by reference: the caller keeps it
 * alive) and @tconfig (copied; NULL for the defaults).  Returns 0,
 * -pte_invalid for a NULL @time or @config, or -pte_bad_config for options
 * that are not valid. */
int ptd_time_init(struct ptd_time *time, const struct pt_config *config,
                  const struct ptd_time_config *tconfig);

/* Restart after synchronization: no time, no calibration, no CBR.  The
 * status (time->status) is kept. */
void ptd_time_reset(struct ptd_time *time);

/* ptd_time_update() for every packet, out of line (ptd_time_update() takes
 * the common case of CYC packets inline first). */
int ptd_time_apply(struct ptd_time *time, const struct pt_packet *packet,
                   const struct ptd_time_ahead *ahead);

/* The estimate of the accurate estimator's rescale plan (ptd_seg_rescale)
 * for the cycles counted in the segment so far: the segment's weighted
 * cycles rescaled to end exactly at the plan's reference. */
static inline uint64_t ptd_acc_rescaled(const struct ptd_acc *acc)
{
	uint64_t weight;

	if (!acc->plan_weight || acc->plan_end <= acc->seg_start)
		return acc->seg_start;
	weight = ptd_wcyc_total(&acc->seg_wcyc, acc->plan_unknown_weight);
	if (weight > acc->plan_weight)
		weight = acc->plan_weight;
	return acc->seg_start + ptd_time_muldiv(acc->plan_end - acc->seg_start,
	                                        weight, acc->plan_weight);
}

/* Report the estimate @t at the current packet, never going backwards.
 * @ref: @t is a reference's exact time (a clamp is then worth noting). */
static inline void ptd_time_report(struct ptd_time *time, uint64_t t, int ref)
{
	if (t >= time->tsc) {
		time->tsc = t;
		return;
	}
	if (ref) {
		time->status.diag |= ptd_time_diag_clamped;
		time->status.clamped++;
	}
}

/* Count the @cycles of a CYC in the current segment, plain and weighted. */
static inline void ptd_acc_count_cyc(struct ptd_acc *acc, uint64_t cycles)
{
	acc->have_cyc = 1;
	acc->seg_cycles = ptd_time_sat_add(acc->seg_cycles, cycles);
	ptd_wcyc_add(&acc->seg_wcyc, cycles, acc->plan_split);
}

/* ptd_time_apply() for a CYC packet of @cycles cycles in the common case of
 * CYC-dense traces: the accurate estimator, calibrated, in a segment whose
 * rescale plan is made, at a known core:bus ratio, and no cycles to set
 * aside.  Returns 1 when it applied the CYC exactly as ptd_time_apply()
 * would have, 0 (nothing changed) otherwise. */
static inline int ptd_time_cyc_fast(struct ptd_time *time, uint64_t cycles)
{
	struct ptd_acc *acc = &time->est.acc;
	uint64_t t;

	if (time->cfg.opt.mode == ptd_time_mode_libipt ||
	    time->cfg.opt.no_cyc || time->cfg.opt.no_tcal ||
	    !acc->tcal.have_ratio || acc->pre_cycles ||
	    acc->plan != ptd_seg_rescale || !acc->seg_wcyc.cbr ||
	    acc->seg_wcyc.span_old)
		return 0;

	memset(&time->report, 0, sizeof(time->report));
	ptd_tcal_cyc(&acc->tcal, cycles);
	ptd_acc_count_cyc(acc, cycles);
	t = ptd_acc_rescaled(acc);
	acc->last_cyc_time = t;
	ptd_time_report(time, t, 0);
	return 1;
}

/* ptd_time_apply() for a CYC packet of @cycles cycles that
 * ptd_time_cyc_fast() does not take (a segment's first CYC above all),
 * without the dispatch on the packet type: the accurate estimator with CYCs
 * on.  Returns 1 when it applied the CYC exactly as ptd_time_apply() would
 * have, 0 (nothing changed) otherwise. */
int ptd_time_cyc_slow(struct ptd_time *time, uint64_t cycles,
                      const struct ptd_time_ahead *ahead);

/* ptd_time_apply() for an MTC packet with payload @ctc in the common case
 * of CYC-dense traces: the accurate estimator, and the segment's look-ahead
 * worked out this MTC's step (ptd_acc.la_step).
 * Returns 1 when it applied the MTC exactly as ptd_time_apply() would have,
 * 0 (nothing changed) otherwise. */
int ptd_time_mtc_planned(struct ptd_time *time, uint8_t ctc,
                         const struct ptd_time_ahead *ahead);

/* ptd_time_update() for a CYC packet of @cycles cycles and then for the MTC
 * packet with payload @ctc that follows it (PADs aside), in one step, in the
 * commonest case of CYC-dense traces: the CYC is the first of its segment, so
 * the MTC ends the segment and the CYC is placed at the MTC's time (stretches
 * where tracing is off are made of such pairs).  Nothing else reads the time
 * between the two. Returns 1 when it applied both exactly as two
 * ptd_time_update() calls would have, 0 (nothing changed) otherwise.  (It
 * restates the plan that ptd_acc_scan_next_mtc() and ptd_acc_plan_scan()
 * would make rather than calling them: the two ptd_time_update() calls
 * with the MTC built in place measured 8 % slower on DynamoRIO b598b46a.) */
int ptd_time_cyc_mtc(struct ptd_time *time, uint64_t cycles, uint8_t ctc);

/* Whether the accurate estimator does nothing with packets of @type but
 * clear the report (ptd_acc_update() and ptd_time_apply()'s PSB+ tracking
 * take only these eight). */
static inline int ptd_time_ignores(enum pt_packet_type type)
{
	switch (type) {
	case ppt_psb:
	case ppt_psbend:
	case ppt_ovf:
	case ppt_tsc:
	case ppt_tma:
	case ppt_mtc:
	case ppt_cyc:
	case ppt_cbr:
		return 0;
	default:
		return 1;
	}
}

/* Apply @packet.  @ahead says where the trace goes on after it (the
 * accurate estimator reads ahead from there); NULL if unknown, then CYC
 * packets are placed with the calibrated ratio only.  Returns 0, or
 * -pte_invalid for a NULL @time or @packet.  Problems with the time itself
 * are not errors: see time->report and time->status.  (Inline for the
 * common case of CYC packets, ptd_time_cyc_fast(), MTC packets the
 * look-ahead worked out, ptd_time_mtc_planned(), and the packets the
 * accurate estimator ignores.) */
static inline int ptd_time_update(struct ptd_time *time,
                                  const struct pt_packet *packet,
                                  const struct ptd_time_ahead *ahead)
{
	if (!time || !packet)
		return ptd_time_apply(time, packet, ahead);
	/* CYC first, the commonest timing packet.  (A switch here measured
	 * 2-3 % slower on DynamoRIO b598b46a.) */
	if (packet->type == ppt_cyc) {
		if (ptd_time_cyc_fast(time, packet->payload.cyc.value) ||
		    ptd_time_cyc_slow(time, packet->payload.cyc.value, ahead))
			return 0;
	} else if (packet->type == ppt_mtc) {
		if (ptd_time_mtc_planned(time, packet->payload.mtc.ctc, ahead))
			return 0;
	} else if (ptd_time_ignores(packet->type) &&
	           time->cfg.opt.mode != ptd_time_mode_libipt) {
		memset(&time->report, 0, sizeof(time->report));
		return 0;
	}
	return ptd_time_apply(time, packet, ahead);
}

/* pt_qry_time(): the estimate in @tsc (converted to host TSC with
 * tsc_host_time), the lost counters in @lost_mtc and @lost_cyc if they are
 * not NULL.  Returns 0, -pte_invalid if @time or @tsc is NULL, or
 * -pte_no_time without a TSC since the last reset (@tsc is then the
 * relative time, 0 before any timing packet). */
static inline int ptd_time_get_tsc(const struct ptd_time *time, uint64_t *tsc,
                                   uint32_t *lost_mtc, uint32_t *lost_cyc)
{
	uint64_t t;

	if (!time || !tsc)
		return -pte_invalid;

	t = time->tsc;
	if (time->cfg.opt.tsc_host_time) {
		/* guest = ((host * mult) >> 48) + offset */
		uint64_t mult = time->cfg.opt.tsc_multiplier;

		if (time->have_tsc)
			t -= time->cfg.opt.tsc_offset;
		if (!mult)
			mult = UINT64_C(1) << 48;
		t = ptd_time_muldiv(t, UINT64_C(1) << 48, mult);
	}
	*tsc = t;
	if (lost_mtc)
		*lost_mtc = time->lost_mtc;
	if (lost_cyc)
		*lost_cyc = time->lost_cyc;
	return time->have_tsc ? 0 : -pte_no_time;
}

/* pt_qry_core_bus_ratio(): returns 0, -pte_invalid for NULL arguments, or
 * -pte_no_cbr without a CBR since the last reset. */
static inline int ptd_time_get_cbr(const struct ptd_time *time, uint32_t *cbr)
{
	if (!time || !cbr)
		return -pte_invalid;
	if (!time->have_cbr)
		return -pte_no_cbr;
	*cbr = time->cbr;
	return 0;
}

/* The calibration in libipt's format (TSC ticks per cycle, 8 fractional
 * bits).  Returns 0, -pte_invalid, or -pte_no_time while not calibrated. */
int ptd_time_get_fcr(const struct ptd_time *time, uint64_t *fcr);

#endif /* PTD_TIME_INTERNAL_H */
