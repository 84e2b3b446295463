/* SPDX-License-Identifier: BSD-3-Clause */
/* The accurate estimator's look-ahead.
 *
 * At the first CYC after a wall-clock reference A, the estimator wants to
 * know where the next reference B lies: its time and the core cycles the
 * CYC packets count up to it.  The CYC progress between A and B can then be
 * rescaled to land exactly on B (see time.c).  This scan decodes the
 * packets after the current one, on a copy of the wall-clock state, until
 * the first MTC or TSC that sets a time.  Every packet is scanned at most
 * once more this way (once per segment between references). */
#include "time.h"

#include "packet/pkt_batch.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define PTD_SCAN_SSE2 1
#else
#define PTD_SCAN_SSE2 0
#endif

#if PTD_SCAN_SSE2
/* The 16 bytes at @pos as packet openers, one bit per byte: which are
 * one-byte packets other than CYC (PAD and TNT-8: even bytes but the 0x02
 * escape), which are one-byte CYCs (xxxxx011), and which are PAD (0x00).
 * Each one-byte packet is followed by the next packet, so a run of them from
 * @pos can be stepped over at once where packets are only counted or
 * skipped.  Only valid while no PEBS block is open. */
struct ptd_scan_ones {
	__m128i bytes, cyc;
	unsigned even, cycs, pads;
};

static inline struct ptd_scan_ones ptd_scan_ones(const uint8_t *pos)
{
	struct ptd_scan_ones o;
	__m128i even;

	o.bytes = _mm_loadu_si128((const __m128i *)pos);
	even = _mm_cmpeq_epi8(_mm_and_si128(o.bytes, _mm_set1_epi8(1)),
	                      _mm_setzero_si128());
	even = _mm_andnot_si128(
	        _mm_cmpeq_epi8(o.bytes, _mm_set1_epi8(PTD_OPC_EXT)), even);
	o.cyc = _mm_cmpeq_epi8(_mm_and_si128(o.bytes, _mm_set1_epi8(7)),
	                       _mm_set1_epi8(3));
	o.even = (unsigned)_mm_movemask_epi8(even);
	o.cycs = (unsigned)_mm_movemask_epi8(o.cyc);
	o.pads = (unsigned)_mm_movemask_epi8(
	        _mm_cmpeq_epi8(o.bytes, _mm_setzero_si128()));
	return o;
}

/* The length of the run of bits set in @mask from bit 0 (at most 16). */
static inline unsigned ptd_scan_run(unsigned mask)
{
	return (unsigned)__builtin_ctz(~mask);
}

/* The cycles of the one-byte CYCs among the first @n bytes of @o. */
static inline uint64_t ptd_scan_ones_cycles(const struct ptd_scan_ones *o,
                                            unsigned n)
{
	const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
	                                   12, 13, 14, 15);
	const __m128i in = _mm_cmplt_epi8(iota, _mm_set1_epi8((char)n));
	__m128i v, sad;

	v = _mm_and_si128(_mm_srli_epi16(o->bytes, 3), _mm_set1_epi8(0x1f));
	v = _mm_and_si128(v, _mm_and_si128(o->cyc, in));
	sad = _mm_sad_epu8(v, _mm_setzero_si128());
	return (uint64_t)(unsigned)_mm_cvtsi128_si32(sad) +
	       (uint64_t)(unsigned)_mm_extract_epi16(sad, 4);
}
#endif

/* Skip the packets at @pos that the first byte describes (PAD, TNT-8,
 * TIP, TIP.PGE, TIP.PGD, FUP and one-byte CYC) and two-byte CYCs up to the
 * first TSC or other packet: ptd_pkt_decode() decodes them from the same
 * table (see ptd_time_cfg.skip) and rules, so the scans see nothing else
 * in them.  MTCs are skipped, too: if @wall is not NULL, their CTC moves
 * it on and *@mtcs counts the MTC periods (ptd_wall_mtc_ctc(); after the
 * first, whose CTC may be partial, the same steps on local copies of the
 * CTC state, which MTC-dense traces make the scan's most frequent work).
 * With @walk (cfg->avx2), ptd_pkt_skip_avx2() steps over the
 * packets this loop skips but MTCs, many at a time, and the loop takes
 * what it stops at.
 * Otherwise runs of one-byte packets go 16 bytes at a time with SSE2, runs
 * of PAD 8 bytes at a time without.  Only valid while no PEBS block is open
 * (bip_size 0).  Returns where to decode next. */
static const uint8_t *ptd_scan_skip(const uint8_t *pos, const uint8_t *end,
                                    const struct ptd_time_cfg *cfg,
                                    struct ptd_wall *wall, uint64_t *mtcs,
                                    struct ptd_pkt_skip *walk)
{
	/* The CTC state while @local (@wall is not partial; the mask is set
	 * then, when the scan has the CTC ratio and a valid mtc_freq). */
	uint32_t freq = 0, mask = 0, ctc = 0;
	uint64_t ticks = 0, periods = 0;
	int local = 0;

	while (end - pos > 8) {
		unsigned e = cfg->skip[pos[0]];

#if PTD_PKT_BATCH_AVX2
		/* The packets this loop skips, many at a time, from one that
		 * the first byte describes (not from a two-byte CYC or an
		 * MTC: where those come one after the other, as in stretches
		 * of timing packets alone, the loop below is faster). */
		if (walk && (e & PTD_SKIP_SIZE)) {
			pos = ptd_pkt_skip_avx2(walk, pos, end);
			if (end - pos <= 8)
				break;
			e = cfg->skip[pos[0]];
		}
#else
		(void)walk;
#endif
#if PTD_SCAN_SSE2
		/* Runs of PAD, TNT-8 and one-byte CYC in one go, from a
		 * one-byte packet (not from others: MTC-dense traces have
		 * runs of MTCs and two-byte CYCs).  The other one-byte
		 * packets (TIP and the like without an IP) are not in a run,
		 * and go on below. */
		if ((e & PTD_SKIP_SIZE) == 1 && end - pos >= 16) {
			const struct ptd_scan_ones o = ptd_scan_ones(pos);
			const unsigned n = ptd_scan_run(o.even | o.cycs);

			if (n) {
				pos += n;
				continue;
			}
		}
#endif
		if (!(e & PTD_SKIP_SIZE)) {
			if (pos[0] == PTD_OPC_MTC) {
				if (local) {
					/* ptd_wall_mtc_ctc() without a
					 * partial CTC.  @ctc comes from an
					 * MTC, so its bits below @freq are 0
					 * and the periods are delta >> freq. */
					const uint32_t next = (uint32_t)pos[1]
					                      << freq;
					const uint32_t delta =
					        (next - ctc) & mask;

					periods += delta >> freq;
					ticks += delta;
					ctc = next & mask;
				} else if (wall) {
					*mtcs += ptd_wall_mtc_ctc(wall, cfg,
					                          pos[1]);
					freq = cfg->mtc_freq;
					mask = (UINT32_C(1) << (freq + 8)) - 1;
					ticks = wall->ctc_ticks;
					ctc = wall->ctc;
					local = 1;
				}
				pos += 2;
				continue;
			}
			if (!ptd_pkt_is_cyc2(pos[0], pos[1]))
				break;
			pos += 2;
			continue;
		}

		if (!pos[0]) {
			uint64_t w;

			memcpy(&w, pos, sizeof(w));
			if (!w) {
				pos += 8;
				continue;
			}
		}
		pos += e & PTD_SKIP_SIZE;
	}
	if (local) {
		wall->ctc_ticks = ticks;
		wall->ctc = ctc;
		*mtcs += periods;
	}
	return pos;
}

/* ptd_pkt_decode() with its first step (the fast table, for MTC, TSC and
 * CYC here) inline. */
static inline int ptd_scan_decode(const uint8_t *pos, const uint8_t *end,
                                  const struct ptd_time_cfg *cfg,
                                  struct pt_packet *packet,
                                  struct ptd_pkt_state *state)
{
	if (end - pos > 8 && !state->bip_size) {
		int size = ptd_pkt_decode_fast(pos, packet);

		if (size)
			return size;
	}
	return ptd_pkt_decode(pos, end, cfg->config, packet, state);
}

/* A CYC met during the scan. */
static void ptd_scan_cyc(struct ptd_time_scan *scan, uint64_t cycles)
{
	scan->cycles = (scan->cycles > UINT64_MAX - cycles)
	                       ? UINT64_MAX
	                       : scan->cycles + cycles;
	ptd_wcyc_add(&scan->wcyc, cycles, UINT64_MAX);
}

/* ptd_scan_skip() for the segment look-ahead: one-byte CYCs are taken on
 * the way (their cycles counted in @scan unless @no_cyc), not stopped at.
 * *@after_cyc tells whether the last packet other than PAD was a CYC. */
static const uint8_t *ptd_scan_skip_cyc(const uint8_t *pos, const uint8_t *end,
                                        const struct ptd_time_cfg *cfg,
                                        int no_cyc, struct ptd_time_scan *scan,
                                        int *after_cyc)
{
	int ac = *after_cyc;

	while (end - pos > 8) {
		unsigned byte, e;

#if PTD_SCAN_SSE2
		/* Runs of one-byte packets in one go.  Their CYCs' cycles
		 * count as one sum, which ptd_wcyc_add() weighs as it would
		 * weigh them one by one, unless a CYC spans a change of the
		 * core:bus ratio (then the CYCs go one by one below). */
		if (end - pos >= 16) {
			const struct ptd_scan_ones o = ptd_scan_ones(pos);
			const int sum = no_cyc || !scan->wcyc.span_old;
			const unsigned n =
			        ptd_scan_run(sum ? (o.even | o.cycs) : o.even);

			if (n) {
				const unsigned in = (1u << n) - 1;
				const unsigned other = in & ~o.pads;

				if (!no_cyc && (o.cycs & in))
					ptd_scan_cyc(scan, ptd_scan_ones_cycles(
					                           &o, n));
				if (other)
					ac = (int)((o.cycs >>
					            (31 -
					             __builtin_clz(other))) &
					           1);
				pos += n;
				if (n == 16 || end - pos <= 8)
					continue;
			}
		}
#endif
		byte = pos[0];
		e = cfg->skip[byte];
		if (!byte) {
			uint64_t w;

			memcpy(&w, pos, sizeof(w));
			pos += w ? 1 : 8;
			continue;
		}
		if (!(e & PTD_SKIP_SIZE)) {
			unsigned next = pos[1];

			/* A two-byte CYC (not one that SKD007 may make an
			 * OVF of: those go to the decoder). */
			if (!ptd_pkt_is_cyc2(byte, next))
				break;
			if (!no_cyc)
				ptd_scan_cyc(scan,
				             ptd_pkt_cyc2_value(byte, next));
			ac = 1;
			pos += 2;
			continue;
		}
		if (e & PTD_SKIP_CYC) {
			if (!no_cyc)
				ptd_scan_cyc(scan, byte >> 3);
			ac = 1;
		} else
			ac = 0;
		pos += e & PTD_SKIP_SIZE;
	}
	*after_cyc = ac;
	return pos;
}

/* An MTC met during the scan, which goes on at @next after it; @fresh: the
 * scan has not changed @wall yet.  Returns 1 if it ends the scan. */
static int ptd_scan_mtc(struct ptd_wall *wall, const struct ptd_time_cfg *cfg,
                        uint8_t payload, uint64_t elapsed,
                        struct ptd_time_scan *scan, const uint8_t *next,
                        int fresh)
{
	struct ptd_mtc_step step;
	int status;

	status = ptd_wall_mtc(wall, cfg, payload, elapsed, &step);
	switch (status) {
	case 0:
		scan->have_end = 1;
		scan->end_time = step.time;
		scan->periods = step.periods;
		if (fresh) {
			scan->mtc_next = next;
			scan->mtc_elapsed = elapsed;
			scan->mtc_step = step;
			scan->mtc_ctc = payload;
		}
		return 1;

	case 1:
		/* Only the CTC phase: no time ahead we could use. */
		return 1;

	case 2:
		ptd_wall_apply_mtc(wall, cfg, payload, status, &step, 0);
		return 0;

	default:
		/* Not usable (no CPUID 0x15 ratio): look further. */
		return 0;
	}
}

int ptd_time_lookahead(const struct ptd_time_ahead *ahead,
                       const struct ptd_time_cfg *cfg,
                       const struct ptd_time_from *from,
                       struct ptd_time_scan *scan)
{
	struct ptd_pkt_state state;
	struct ptd_wall w;
	const uint8_t *pos;
	int after_cyc, in_psb, fresh = 1;

	if (!ahead || !cfg || !cfg->config || !from || !from->wall || !scan)
		return -pte_internal;

	/* Every field (not a memset, which compilers make a `rep stos` here
	 * whose start-up costs more than the stores; this runs once per MTC
	 * period in CYC-dense traces). */
	scan->end_time = 0;
	scan->cycles = from->cycles;
	scan->wcyc = from->wcyc;
	scan->unknown_weight = ptd_cbr_weight(0);
	scan->periods = 0;
	scan->have_end = 0;
	scan->end_is_tsc = 0;
	scan->end_in_psb = 0;
	scan->crosses_psb = 0;
	scan->end_after_cyc = 0;
	scan->mtc_next = NULL;
	scan->mtc_elapsed = 0;
	memset(&scan->mtc_step, 0, sizeof(scan->mtc_step));
	scan->mtc_ctc = 0;
	if (from->have_cyc)
		ptd_scan_cyc(scan, from->cyc);
	if (!ahead->pos || !ahead->end)
		return 0;

	in_psb = from->in_psb;
	w = *from->wall;
	state = ahead->state;
	after_cyc = 1;
	for (pos = ahead->pos; pos < ahead->end;) {
		struct pt_packet packet;
		uint64_t elapsed;
		int size;

		if (!state.bip_size) {
			pos = ptd_scan_skip_cyc(pos, ahead->end, cfg,
			                        cfg->opt.no_cyc, scan,
			                        &after_cyc);
			if (pos >= ahead->end)
				break;
		}
		size = ptd_scan_decode(pos, ahead->end, cfg, &packet, &state);
		if (size <= 0)
			return 0;
		pos += size;

		scan->end_after_cyc = after_cyc;
		if (packet.type != ppt_pad)
			after_cyc = (packet.type == ppt_cyc);

		switch (packet.type) {
		case ppt_cyc:
			if (!cfg->opt.no_cyc)
				ptd_scan_cyc(scan, packet.payload.cyc.value);
			break;

		case ppt_cbr:
			/* Cycles before the first CBR ran at its ratio. */
			if (!scan->wcyc.cbr && packet.payload.cbr.ratio)
				scan->unknown_weight = ptd_cbr_weight(
				        packet.payload.cbr.ratio);
			ptd_wcyc_cbr(&scan->wcyc, packet.payload.cbr.ratio);
			break;

		case ppt_psb:
			in_psb = 1;
			scan->crosses_psb = 1;
			break;

		case ppt_psbend:
			in_psb = 0;
			break;

		case ppt_ovf:
			/* Packets were lost: what follows says nothing about
			 * this segment. */
			return 0;

		case ppt_tsc:
			scan->have_end = 1;
			scan->end_is_tsc = 1;
			scan->end_in_psb = in_psb ? 1 : 0;
			scan->end_time = packet.payload.tsc.tsc;
			return 0;

		case ppt_tma: {
			struct ptd_mtc_step step;

			fresh = 0;
			if (ptd_wall_tma(&w, cfg, &packet.payload.tma) < 0)
				break;
			if (ptd_wall_resolve_pending(&w, cfg, &step)) {
				scan->have_end = 1;
				scan->end_time = step.time;
				scan->periods = step.periods;
				return 0;
			}
			break;
		}

		case ppt_mtc:
			elapsed = from->have_ratio
			                  ? ptd_time_mulshr(scan->cycles,
			                                    from->ratio,
			                                    PTD_TCAL_SHIFT)
			                  : 0;
			if (ptd_scan_mtc(&w, cfg, packet.payload.mtc.ctc,
			                 elapsed, scan, pos, fresh))
				return 0;
			/* It changed @w, or looked further without it. */
			fresh = 0;
			break;

		default:
			break;
		}
	}
	return 0;
}

int ptd_time_scan_anchor(const struct ptd_time_ahead *ahead,
                         const struct ptd_time_cfg *cfg,
                         const struct ptd_wall *wall, uint64_t *actual,
                         uint64_t *predicted)
{
	struct ptd_pkt_state state;
	struct ptd_wall w;
	const uint8_t *pos;
	uint64_t tsc = 0, mtcs = 0;
	struct ptd_pkt_skip walk;
	/* @psb_no_tsc: inside a PSB+ that has had no TSC so far. */
	int have_tsc = 0, psb_no_tsc = 0;

	if (!ahead || !cfg || !cfg->config || !wall || !actual || !predicted)
		return -pte_internal;
	if (!ahead->pos || !ahead->end || !wall->have_tma || !wall->have_ctc ||
	    !ptd_time_cfg_has_ctc(cfg))
		return 0;

	walk.chunk = NULL;
	/* Follow the MTCs with the conversion as configured. */
	w = *wall;
	w.corr_num = 0;
	w.corr_den = 0;
	state = ahead->state;
	for (pos = ahead->pos; pos < ahead->end;) {
		struct pt_packet packet;
		uint64_t ticks, anchor, fc;
		int size;

		if (!state.bip_size) {
			pos = ptd_scan_skip(pos, ahead->end, cfg,
			                    have_tsc ? NULL : &w, &mtcs,
			                    cfg->avx2 ? &walk : NULL);
			if (pos >= ahead->end)
				break;
		}
		size = ptd_scan_decode(pos, ahead->end, cfg, &packet, &state);
		if (size <= 0)
			return 0;
		pos += size;

		switch (packet.type) {
		case ppt_ovf:
			return 0;

		case ppt_psb:
			psb_no_tsc = 1;
			break;

		case ppt_psbend:
			/* A PSB+ without a TSC: TSC packets are off there
			 * (TSCEn clear: another configuration, a VMX guest
			 * tracing with its own settings, or traces put one
			 * after the other), and the stretch has no end to
			 * measure to (docs/time.md, "TSCs win"). */
			if (psb_no_tsc)
				return 0;
			break;

		case ppt_mtc:
			if (have_tsc)
				break;
			/* @w has its TMA and CTC phase (checked above, and
			 * nothing here takes them away): ptd_wall_mtc() would
			 * give 0; only the CTC matters for the scan. */
			mtcs += ptd_wall_mtc_ctc(&w, cfg,
			                         packet.payload.mtc.ctc);
			break;

		case ppt_tsc:
			if (have_tsc)
				return 0;
			psb_no_tsc = 0;
			have_tsc = 1;
			tsc = packet.payload.tsc.tsc;
			break;

		case ppt_tma:
			if (!have_tsc)
				break;
			/* Enough MTC periods for a measurement that rounding
			 * does not spoil. */
			if (mtcs < 8)
				return 0;
			if (ptd_wall_ctc_at(&w, cfg, packet.payload.tma.ctc,
			                    &ticks) < 0)
				return 0;
			fc = ptd_time_scale(cfg, packet.payload.tma.fc);
			anchor = (tsc > fc) ? tsc - fc : 0;
			if (anchor <= wall->anchor)
				return 0;
			*actual = anchor - wall->anchor;
			*predicted = ptd_wall_ticks(&w, cfg, ticks);
			return 1;

		default:
			break;
		}
	}
	return 0;
}
