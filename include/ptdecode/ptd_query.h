/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Query decoder extensions: the batch interface that hands out many TNT
 * decisions, IPs and events with their times per call.
 *
 * Part of ptdecode's extensions (include <ptdecode/ptdecode.h>).  Everything
 * here has the ptd_ prefix; a negative return value is a negated
 * enum pt_error_code.
 *
 * The pull API of intel-pt.h costs one call per conditional branch, and a
 * pt_qry_time() call per result to learn its time.  ptd_qry_next_batch()
 * does the same work as a program that drives the pull API to the end of the
 * trace, but returns its results as an array of items: a run of up to 64
 * conditional-branch outcomes that share one time is one item.  The results
 * are those of the pull API, item for item: expanding the items (each TNT
 * outcome as one pt_qry_cond_branch() result) gives exactly the sequence of
 * results, IPs, events, errors and pt_qry_time() values of this loop:
 *
 *     status = -pte_nosync;
 *     for (;;) {
 *         if (status < 0) {                   (an item "error" for the call
 *                                              that failed, unless -pte_nosync)
 *             status = pt_qry_sync_forward(...);        (an item "sync")
 *             if (status == -pte_eos)
 *                 stop;
 *         } else if (status & pts_event_pending)
 *             status = pt_qry_event(...);               (an item "event")
 *         else if (status & pts_eos)
 *             status = -pte_nosync;
 *         else {
 *             status = pt_qry_cond_branch(...);         (items "tnt")
 *             if (status == -pte_bad_query)
 *                 status = pt_qry_indirect_branch(...); (an item "tip")
 *         }
 *     }
 *
 * with pt_qry_time() after every step.  Every call of the loop that fails
 * is an error item, but for pt_qry_sync_forward()'s -pte_eos (the end: no
 * PSB follows, or the PSB+ that follows is cut short by the end or by the
 * next PSB; the loop stops there until a pull function synchronizes the
 * decoder) and -pte_nosync: so the end of the trace that pts_eos
 * announced has no item, while a query that fails with -pte_eos (the trace
 * ends inside a packet, or before a packet that the query needs, the TIP
 * that a FUP's event binds to, say) is an error item -pte_eos, before the
 * end.  An error item's
 * flags tell the status before it (ptd_qry_item_event_pending) and which
 * call failed.  So a decode error costs what it costs the pull API (the
 * rest of its PSB segment) and decoding goes on at the next PSB by itself.
 * The instruction-flow and block decoders are such programs; they follow
 * the items instead of calling the pull API.
 */

#ifndef PTD_QUERY_H
#define PTD_QUERY_H

#include "intel-pt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a struct ptd_qry_item reports. */
enum ptd_qry_item_kind {
	/** Conditional branch outcomes (pt_qry_cond_branch() results). */
	ptd_qry_item_tnt = 1,
	/** An indirect branch target (a pt_qry_indirect_branch() result). */
	ptd_qry_item_tip,
	/** An event (a pt_qry_event() result). */
	ptd_qry_item_event,
	/** The decoder synchronized at a PSB (a pt_qry_sync_forward()
	 * result): decoding starts afresh here. */
	ptd_qry_item_sync,
	/** A call of the loop failed (a negative result, -pte_eos of a
	 * query included; see the flags for which call); the decoder
	 * synchronizes at the next PSB, and a sync item follows unless the
	 * trace ends (or an error item of that synchronization). */
	ptd_qry_item_error
};

/** Bits of struct ptd_qry_item's flags. */
enum ptd_qry_item_flag {
	/** tip, sync: the IP is suppressed (pts_ip_suppressed); @value is
	 * 0. */
	ptd_qry_item_ip_suppressed = 1 << 0,
	/** @tsc is a TSC estimate: pt_qry_time() returned 0 (without it,
	 * pt_qry_time() returned -pte_no_time and @tsc is the relative time
	 * it gave). */
	ptd_qry_item_has_tsc = 1 << 1,
	/** error: the status that the pull API returned with the result
	 * before the error (the last event, outcome, TIP or synchronization)
	 * had pts_event_pending, so the call that failed is pt_qry_event().
	 * Without this flag and the next two, that status was 0 (no status
	 * flag but pts_ip_suppressed) and the call that failed is
	 * pt_qry_cond_branch().  (An error item never follows a status with
	 * pts_eos: the loop makes no query then, and pt_qry_sync_forward()
	 * finds no PSB after it.) */
	ptd_qry_item_event_pending = 1 << 2,
	/** error: the status before the error was 0 (as without a flag),
	 * pt_qry_cond_branch() returned -pte_bad_query (the next packet is a
	 * TIP), and the call that failed is pt_qry_indirect_branch(). */
	ptd_qry_item_indirect = 1 << 3,
	/** error: the call that failed is the pt_qry_sync_forward() after an
	 * error item (no result came before it). */
	ptd_qry_item_resync = 1 << 4
};

/** One result of ptd_qry_next_batch() (32 bytes). */
struct ptd_qry_item {
	/** What it is (enum ptd_qry_item_kind). */
	uint8_t kind;
	/** Bits of enum ptd_qry_item_flag. */
	uint8_t flags;
	/** tnt: the number of outcomes, 1 to 64; 0 otherwise. */
	uint8_t count;
	/** The core:bus ratio after the result, as pt_qry_core_bus_ratio()
	 * reports it (0 where it returns -pte_no_cbr: a CBR packet with
	 * ratio 0 changes no ratio).  It changes where the time engine
	 * reads a CBR packet, which may be before the result that reports
	 * it (a CBR of a PSB+ applies from the first event of the PSB+ on,
	 * and one that the decoder skips after an OVF comes with no
	 * event). */
	uint8_t cbr;
	/** error: the negative error code (enum pt_error_code) that the
	 * failed call returned; 0 otherwise. */
	int32_t error;
	/** The time of the result as pt_qry_time() reports it after it:
	 * the lost MTC and CYC counts and the time (see @flags). */
	uint32_t lost_mtc;
	uint32_t lost_cyc;
	uint64_t tsc;
	/** By @kind:
	 *  - tnt: the outcomes, 1 for taken, the oldest in bit @count - 1
	 *    and the newest in bit 0 (as in libipt's ptev_tnt);
	 *  - tip: the target (0 with ptd_qry_item_ip_suppressed);
	 *  - event: the index of the event in the @events array of the
	 *    ptd_qry_next_batch() call that returned the item;
	 *  - sync: the IP at which tracing starts (0 with
	 *    ptd_qry_item_ip_suppressed);
	 *  - error: the offset of the packet that failed, as
	 *    pt_qry_get_offset() reports it after the failed call. */
	uint64_t value;
};

/** Decode the next results of @decoder into @items and @events.
 *
 * Writes up to @nitems items to @items and the events they refer to to
 * @events (up to @nevents, in order: the first event item of the call
 * refers to @events[0]).  An unsynchronized decoder synchronizes at the
 * first PSB of its buffer first; after that, the call continues where the
 * last one stopped.  A call stops when @items or @events are full (it keeps
 * room for two items so that an error and the synchronization after it come
 * together), or at the end of the trace.  Consecutive conditional branch
 * outcomes with the same time are merged into one item of up to 64
 * outcomes, within a call.
 *
 * The pull functions (pt_qry_*) may be used between calls: the next call
 * continues from the decoder's state.  pt_qry_time() and
 * pt_qry_core_bus_ratio() then answer for the last item returned (as its
 * @tsc, @lost_mtc, @lost_cyc, @flags and @cbr tell).
 *
 * Returns the number of items written (> 0); 0 if the next result is an
 * event and @events has no room for it (@nevents 0); -pte_eos at the end of
 * the trace when there are no items (and in the calls after it, until a
 * pull function synchronizes the decoder); or -pte_invalid for a NULL
 * @decoder or @items, @nitems < 2, or a NULL @events with @nevents > 0. */
extern pt_export int ptd_qry_next_batch(struct pt_query_decoder *decoder,
                                        struct ptd_qry_item *items,
                                        size_t nitems, struct pt_event *events,
                                        size_t nevents);

#ifdef __cplusplus
}
#endif

#endif /* PTD_QUERY_H */
