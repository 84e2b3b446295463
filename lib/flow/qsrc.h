/* SPDX-License-Identifier: BSD-3-Clause */
/* The flow decoders' source of trace results: the query decoder's pull API
 * (pt_qry_*), or its batch interface (ptd_qry_next_batch()) behind the same
 * calls.
 *
 * In batch mode the query decoder runs ahead and hands out its results as
 * items; the calls below take them one by one and answer exactly as the pull
 * API would at that point: the same values, status flags, errors and times.
 * Only the decoder's position is further on.  Where the position matters
 * (an offset asked for, a synchronization) and where the items tell less
 * than the flow decoder's next step depends on (a decode error next, an
 * indirect branch asked for while conditional branch outcomes are pending;
 * see qsrc.c), a second decoder replays the calls made since the last
 * synchronization point with the pull API to reach the state the pull API
 * would have and takes over; batches go on from the next synchronization
 * (the end of the trace inside a packet is a decode error here).  The
 * replay starts from a copy of the query decoder taken between two batches
 * where one was taken since (see @base), so the log does not grow over the
 * whole trace. */
#ifndef PTD_FLOW_QSRC_H
#define PTD_FLOW_QSRC_H

#include "ptdecode/intel-pt.h"
#include "ptdecode/ptdecode.h"

#include <stdint.h>

/* The items and events of a batch.  Each batch costs the flow decoders a
 * refill (the batch decoder's chains end there); on mruby, with an event
 * pair about every 30 blocks, 1024 and 256 made the batch block flow about
 * 3 % faster than 256 and 64, and 2048 and 512 the instruction flow another
 * 2 % (docs/flow-batch.md, stop 18); once the chains took the event pairs
 * themselves (stop 19), 4096 and 1024 another 1 % on both, for 200 KiB per
 * decoder. */
enum { ptd_qsrc_nitems = 4096, ptd_qsrc_nevents = 1024 };

struct ptd_qsrc {
	struct pt_query_decoder *qry;

	/* What a replacement decoder is made of. */
	struct pt_config config;
	struct ptd_time_config tconfig;
	int have_tconfig;

	/* Use ptd_qry_next_batch() now; @batch_wanted: again after the next
	 * synchronization (0 once the caller asked for an offset while
	 * decoding, other than right after a failed call: see
	 * ptd_qsrc_offset()).  Where the pull API took over up to the next
	 * synchronization (see above), @batch is 0. */
	int batch;
	int batch_wanted;

	/* The caller's last decoding call failed (ptd_qsrc_result());
	 * @offset_asked: the caller asked for an offset other than right
	 * after a failed call (then the next replay for an offset ends
	 * batches for good). */
	int failed;
	int offset_asked;

	/* The items of the last batch, the next one at @pos; @used outcomes
	 * of a tnt item at @pos are taken.  @end: the batch reported the end
	 * of the trace. */
	struct ptd_qry_item items[ptd_qsrc_nitems];
	struct pt_event events[ptd_qsrc_nevents];
	uint32_t n, pos;
	uint8_t used;
	int end;

	/* The time and core:bus ratio after the last result taken (@cbr 0:
	 * -pte_no_cbr, as in struct ptd_qry_item). */
	uint64_t tsc;
	uint32_t lost_mtc, lost_cyc;
	int tsc_status;
	uint32_t cbr;

	/* The last synchronization point (offset of its PSB, if known) and
	 * the results taken since. */
	uint64_t sync_offset;
	int sync_known;
	/* The calls made since then, one byte each (ptd_qsrc_call_*), as
	 * the pull API would have seen them, for the replay. */
	uint8_t *log;
	size_t nlog, caplog;
	/* With @have_base, the log starts later than the synchronization
	 * point: at @base, a copy of the query decoder taken between two
	 * batch calls once every result before was taken (qry_copy.h), with
	 * @base_status the pull API's status flags there.  Such a copy is
	 * taken when a batch is fetched and the log holds @ckpt_calls calls
	 * or more, all of them answered or refused with -pte_bad_query
	 * because the next item is of another kind (@log_clean), so that
	 * the log does not grow over the whole trace.  The pull API refuses
	 * such a call before it moves (an event query while outcomes are
	 * pending or a TIP or TNT packet comes next, a branch query while an
	 * event or the other kind of branch comes next); a refusal after it
	 * has moved (pt_qry_event() past a MODE.TSX that waits for its FUP,
	 * say) is never made up from the items: the batch makes it an error
	 * item, and a call that fails on an error item or at the end clears
	 * @log_clean.  @base stays allocated for the next copy. */
	struct pt_query_decoder *base;
	int have_base, base_status;
	int log_clean;
	uint32_t ckpt_calls;
	/* The items and events a batch call may return (at most
	 * ptd_qsrc_nitems and ptd_qsrc_nevents; tests make them small so
	 * that batch boundaries, and copies, fall everywhere). */
	uint32_t nitems, nevents;
	/* The query decoder's sync offset after the last batch call. */
	uint64_t batch_sync_offset;
};

/* Set up @qs for @config with time engine options @tconfig (NULL for the
 * defaults) and the query flags in @config; @batch selects batch mode.
 * Returns 0 or -pte_nomem. */
int ptd_qsrc_init(struct ptd_qsrc *qs, const struct pt_config *config,
                  const struct ptd_time_config *tconfig, int batch);
void ptd_qsrc_fini(struct ptd_qsrc *qs);

enum { ptd_qsrc_call_cond = 1, ptd_qsrc_call_indirect, ptd_qsrc_call_event };

/* Which synchronization ptd_qsrc_sync() and ptd_flow_sync() do. */
enum ptd_qsrc_how {
	/* pt_qry_sync_forward() from the current point. */
	ptd_qsrc_forward,
	/* pt_qry_sync_backward() from the current point. */
	ptd_qsrc_backward,
	/* pt_qry_sync_set() at the offset given. */
	ptd_qsrc_set,
	/* Backward to the last PSB before the offset given
	 * (ptd_qry_sync_backward_from()). */
	ptd_qsrc_backward_on
};

/* Synchronize the query decoder as @how says (@offset only for
 * ptd_qsrc_set and ptd_qsrc_backward_on); stores the PSB+'s IP to @ip.  Returns
 * status flags or a negative error. */
int ptd_qsrc_sync(struct ptd_qsrc *qs, enum ptd_qsrc_how how, uint64_t offset,
                  uint64_t *ip);

/* As pt_qry_cond_branch(), pt_qry_indirect_branch(), pt_qry_event(),
 * pt_qry_time(), pt_qry_core_bus_ratio(), pt_qry_get_offset(),
 * pt_qry_get_sync_offset() at the current point. */
int ptd_qsrc_cond_slow(struct ptd_qsrc *qs, int *taken);

/* The common case of ptd_qsrc_cond() inline: an outcome of a buffered TNT
 * run, with the next result buffered too. */
static inline int ptd_qsrc_cond(struct ptd_qsrc *qs, int *taken)
{
	const struct ptd_qry_item *it, *next;
	uint32_t pos = qs->pos;

	if (!qs->batch || pos >= qs->n || qs->nlog >= qs->caplog)
		return ptd_qsrc_cond_slow(qs, taken);
	it = &qs->items[pos];
	if (it->kind != ptd_qry_item_tnt)
		return ptd_qsrc_cond_slow(qs, taken);
	if (qs->used + 1u < it->count) {
		next = it;
	} else if (pos + 1 < qs->n && it[1].kind != ptd_qry_item_error) {
		next = it + 1;
	} else {
		return ptd_qsrc_cond_slow(qs, taken);
	}
	if (qs->sync_known)
		qs->log[qs->nlog++] = ptd_qsrc_call_cond;
	*taken = (int)((it->value >> (it->count - 1 - qs->used)) & 1);
	qs->tsc = it->tsc;
	qs->lost_mtc = it->lost_mtc;
	qs->lost_cyc = it->lost_cyc;
	qs->tsc_status = (it->flags & ptd_qry_item_has_tsc) ? 0 : -pte_no_time;
	qs->cbr = it->cbr;
	if (next == it) {
		qs->used++;
		return 0;
	}
	qs->pos = pos + 1;
	qs->used = 0;
	return next->kind == ptd_qry_item_event ? pts_event_pending : 0;
}
int ptd_qsrc_indirect(struct ptd_qsrc *qs, uint64_t *ip);
int ptd_qsrc_event(struct ptd_qsrc *qs, struct pt_event *event);
/* pt_qry_time() after the last answer (inline: flow decoders' callers ask
 * after every instruction). */
static inline int ptd_qsrc_time(const struct ptd_qsrc *qs, uint64_t *tsc,
                                uint32_t *lost_mtc, uint32_t *lost_cyc)
{
	if (!qs->batch)
		return pt_qry_time(qs->qry, tsc, lost_mtc, lost_cyc);
	*tsc = qs->tsc;
	if (lost_mtc)
		*lost_mtc = qs->lost_mtc;
	if (lost_cyc)
		*lost_cyc = qs->lost_cyc;
	return qs->tsc_status;
}
int ptd_qsrc_cbr(const struct ptd_qsrc *qs, uint32_t *cbr);
int ptd_qsrc_offset(struct ptd_qsrc *qs, uint64_t *offset);
int ptd_qsrc_sync_offset(const struct ptd_qsrc *qs, uint64_t *offset);

/* Note the result @status of a decoding call of the flow decoder's caller
 * (pt_*_next(), pt_*_event(), a synchronization; not the queries above):
 * an offset asked for right after a failure is a diagnostic, which does not
 * end batches (ptd_qsrc_offset()).  Returns @status. */
static inline int ptd_qsrc_result(struct ptd_qsrc *qs, int status)
{
	qs->failed = status < 0;
	return status;
}

/* The time and core:bus ratio after the result @it (for the pull-style
 * answers of pt_*_time() and pt_*_core_bus_ratio()). */
static inline void ptd_qsrc_take_time(struct ptd_qsrc *qs,
                                      const struct ptd_qry_item *it)
{
	qs->tsc = it->tsc;
	qs->lost_mtc = it->lost_mtc;
	qs->lost_cyc = it->lost_cyc;
	qs->tsc_status = (it->flags & ptd_qry_item_has_tsc) ? 0 : -pte_no_time;
	qs->cbr = it->cbr;
}

#endif /* PTD_FLOW_QSRC_H */
