/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Batch flow decoding: many instructions or blocks per call (an extension;
 * libipt has nothing like it).
 *
 * Part of ptdecode's extensions (include <ptdecode/ptdecode.h>).  A
 * negative return value is a negated enum pt_error_code.
 *
 * pt_insn_next() costs a call, a 48-byte structure and a pt_insn_time()
 * call per instruction.  ptd_flow_next_insns() fills arrays instead: the IP
 * of every instruction, in the order pt_insn_next() reports them, and its
 * time as pt_insn_time() would report it right after that pt_insn_next().
 * ptd_flow_next_blocks() fills an array of struct ptd_flow_block.  Both stop
 * at events (the caller drains them with ptd_flow_batch_event(), as with
 * pt_insn_event()) and at errors; after an error, ptd_flow_batch_sync_forward()
 * continues at the next PSB, as with the libipt decoders:
 *
 *     struct ptd_flow_batch *dec = ptd_flow_batch_alloc(&config, NULL);
 *     ptd_flow_batch_set_image(dec, image);
 *     for (;;) {
 *         int status = ptd_flow_batch_sync_forward(dec);
 *         if (status < 0)
 *             break;                                  (-pte_eos: done)
 *         for (;;) {
 *             size_t n;
 *             while (status & pts_event_pending) {
 *                 struct pt_event ev;
 *                 status = ptd_flow_batch_event(dec, &ev, sizeof(ev));
 *                 if (status < 0)
 *                     break;
 *             }
 *             if (status < 0 || (status & pts_eos))
 *                 break;
 *             status = ptd_flow_next_insns(dec, ips, tscs, cap, &n);
 *             use ips[0..n), tscs[0..n) (also when status < 0)
 *             if (status < 0)
 *                 break;      (ptd_flow_batch_get_offset(),
 *                              ptd_flow_batch_error_ip() tell where)
 *         }
 *         if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
 *             break;
 *     }
 *
 * ptd_flow_decode_insns() and ptd_flow_decode_blocks() do the same with the
 * events in the same call, in an array beside the instructions or blocks,
 * so that a call does not stop at every event (a trace that leaves the
 * traced code often, through calls into libraries outside an IP filter,
 * has a pair of events every few dozen branches).
 *
 * Expanding the arrays gives exactly the instructions, events, errors and
 * times of the same loop over pt_insn_next()/pt_insn_event()/pt_insn_time()
 * (tests/flow_batch checks it instruction by instruction on the libxdc
 * corpora and on generated traces).  The decoder is ptdecode's
 * instruction-flow decoder underneath; between events it follows a cache of
 * straight-line runs of code (docs/flow-batch.md). */

#ifndef PTD_FLOW_BATCH_H
#define PTD_FLOW_BATCH_H

#include "intel-pt.h"
#include "ptd_time.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A batch flow decoder (opaque). */
struct ptd_flow_batch;

/** One block of ptd_flow_next_blocks(): @ninsn instructions that lie one
 * after the other in memory, from @ip to @end_ip (the IP of the last one).
 * A block ends after a branch of any kind (also a direct jump or call, so
 * that the instructions are contiguous), before an event, at an error, at
 * 65535 instructions and where the array is full.  So blocks are not
 * libipt's pt_blk_next() blocks (those follow direct jumps and calls in the
 * block cache, and split where libipt's cache rules say); the instructions,
 * read in order, are pt_insn_next()'s. */
struct ptd_flow_block {
	/** The IP of the first and of the last instruction. */
	uint64_t ip;
	uint64_t end_ip;
	/** The time after the last instruction, as pt_insn_time() reports
	 * it (the time of every instruction of the block but the last is the
	 * time before the block's trace query, the time of the previous
	 * block). */
	uint64_t tsc;
	/** The number of instructions, 1 to 65535. */
	uint16_t ninsn;
	/** The class of the last instruction (enum pt_insn_class). */
	uint8_t iclass;
	/** The execution mode (enum pt_exec_mode). */
	uint8_t mode;
	uint32_t reserved;
};

/** Allocate a batch flow decoder for @config (copied; the trace buffer
 * must outlive the decoder) with the time engine options of @tconfig (NULL
 * for the defaults, as ptd_qry_alloc_decoder()).  The decoder starts with an
 * empty image of its own.  Returns NULL if @config is NULL or invalid or
 * memory runs out. */
extern pt_export struct ptd_flow_batch *
ptd_flow_batch_alloc(const struct pt_config *config,
                     const struct ptd_time_config *tconfig);

/** Free @dec (NULL is ignored). */
extern pt_export void ptd_flow_batch_free(struct ptd_flow_batch *dec);

/** Use @image (not copied, must outlive its use; NULL: the decoder's own
 * image).  Returns 0 or -pte_invalid. */
extern pt_export int ptd_flow_batch_set_image(struct ptd_flow_batch *dec,
                                              struct pt_image *image);

/** The image in use (the decoder's own one unless set), or NULL for a NULL
 * @dec. */
extern pt_export struct pt_image *
ptd_flow_batch_get_image(struct ptd_flow_batch *dec);

/** Synchronize onto the next PSB, as pt_insn_sync_forward().  Returns
 * status flags (pts_event_pending: drain events first) or a negative
 * error (-pte_invalid for a NULL @dec, -pte_eos: no more PSB, a decode
 * error of the PSB+). */
extern pt_export int ptd_flow_batch_sync_forward(struct ptd_flow_batch *dec);

/** Synchronize onto the last PSB before the current position, as
 * pt_insn_sync_backward(); returns as ptd_flow_batch_sync_forward()
 * (-pte_eos: no PSB before the position). */
extern pt_export int ptd_flow_batch_sync_backward(struct ptd_flow_batch *dec);

/** Synchronize onto the PSB at @offset, as pt_insn_sync_set(); returns as
 * ptd_flow_batch_sync_forward(), or -pte_eos, -pte_nosync or
 * -pte_bad_packet where no good PSB starts at @offset. */
extern pt_export int ptd_flow_batch_sync_set(struct ptd_flow_batch *dec,
                                             uint64_t offset);

/** Store the trace offset in @offset, as pt_insn_get_offset(): 0,
 * -pte_invalid for NULL arguments, -pte_nosync before synchronization.
 * Asking for it while decoding is correct but slower (docs/flow.md). */
extern pt_export int ptd_flow_batch_get_offset(struct ptd_flow_batch *dec,
                                               uint64_t *offset);

/** Store the offset of the last synchronization point in @offset, as
 * pt_insn_get_sync_offset(): 0, -pte_invalid for NULL arguments,
 * -pte_nosync before synchronization. */
extern pt_export int
ptd_flow_batch_get_sync_offset(const struct ptd_flow_batch *dec,
                               uint64_t *offset);

/** Decode up to @n instructions: the IP of each into @ips and, if @tscs is
 * not NULL, its time into @tscs (what pt_insn_time() would give after
 * pt_insn_next() returned it: an estimate, or the relative time where
 * pt_insn_time() says -pte_no_time).  Sets *@count to the number written,
 * also on errors.
 *
 * Stops when @n instructions are written, when an event is pending (after
 * the instruction it follows; drain with ptd_flow_batch_event()), at the end
 * of the trace (pts_eos) and at an error.  Returns the status flags of the
 * last instruction (those pt_insn_next() would return for it), 0 with
 * *@count 0 for @n 0, or a negative error: -pte_invalid for NULL arguments;
 * -pte_no_enable if tracing is disabled and no event is pending (-pte_eos at
 * the end); otherwise a decode error of the instruction flow.  On an error
 * the instructions before it are in the arrays; if the instruction at the
 * error point was decoded (pt_insn_next() would have returned it together
 * with the error) it is the last one written.  ptd_flow_batch_error_ip()
 * gives its IP, or the IP that could not be fetched
 * (-pte_nomap, -pte_bad_insn), or 0 (-pte_no_enable).
 *
 * Entries from *@count up to @n of @ips and @tscs are scratch: the decoder
 * may write them (whole steps of IPs are faster than exact ones).  @ips and
 * @tscs must not overlap.  A caller that reads the arrays right after each
 * call is fastest with about 1024 entries: IPs and times then stay in the
 * L1 data cache until it reads them (docs/flow-batch.md). */
extern pt_export int ptd_flow_next_insns(struct ptd_flow_batch *dec,
                                         uint64_t *ips, uint64_t *tscs,
                                         size_t n, size_t *count);

/** Decode up to @n blocks into @blocks (see struct ptd_flow_block).  Stops
 * and returns as ptd_flow_next_insns(), with *@count the number of blocks
 * written. */
extern pt_export int ptd_flow_next_blocks(struct ptd_flow_batch *dec,
                                          struct ptd_flow_block *blocks,
                                          size_t n, size_t *count);

/** Where ptd_flow_decode_insns() and ptd_flow_decode_blocks() put the
 * events they report. */
struct ptd_flow_events {
	/** Room for @n events, and for the place of each. */
	struct pt_event *events;
	size_t *at;
	size_t n;
	/** Set by the call: the number of events written.  Event i came
	 * after the first at[i] instructions (blocks) the call wrote and
	 * before the others: at[i] 0 is before the first one, at[i] equal
	 * to the call's count after the last one.  Events at the same place
	 * came in the order of the array. */
	size_t count;
};

/** ptd_flow_next_insns() that reports events in the same call instead of
 * stopping at them: each event that pt_insn_event() would report next is
 * written to @ev (as ptd_flow_batch_event() writes it, the whole struct
 * pt_event), with its place among the instructions, and decoding goes on.
 * Events pending when the call starts (after a synchronization, or left by
 * the last call) come first.
 *
 * Stops when @n instructions are written (*@count), when @ev is full and
 * another event is pending (the status has pts_event_pending: call again,
 * or drain it with ptd_flow_batch_event()), at the end of the trace
 * (pts_eos: after its last event) and at errors (as ptd_flow_next_insns();
 * an error of an event is returned with the events before it written).
 * With @n 0 it only reports the pending events.  Returns the status flags
 * of the last instruction or event (the last call's if there was neither),
 * or a negative error: -pte_invalid (nothing written) for NULL arguments,
 * @ev->n 0 or NULL @ev->events or @ev->at.
 *
 * The whole decoding loop:
 *
 *     int status = ptd_flow_batch_sync_forward(dec);
 *     while (status >= 0) {
 *         status = ptd_flow_decode_insns(dec, ips, tscs, cap, &n, &ev);
 *         use ips[0..n), tscs[0..n), ev.events[0..ev.count) at ev.at[]
 *         if (status >= 0 && (status & pts_eos))
 *             break;                                      (done)
 *         if (status < 0 && status != -pte_eos) {
 *             report it (ptd_flow_batch_get_offset(),
 *                        ptd_flow_batch_error_ip()), then go on
 *             status = ptd_flow_batch_sync_forward(dec);   at the next PSB
 *         }
 *     }                                   (-pte_eos from either: done)
 *
 * The results are the same as those of the loop of ptd_flow_next_insns()
 * and ptd_flow_batch_event() (tests/flow_batch checks them). */
extern pt_export int ptd_flow_decode_insns(struct ptd_flow_batch *dec,
                                           uint64_t *ips, uint64_t *tscs,
                                           size_t n, size_t *count,
                                           struct ptd_flow_events *ev);
/** ptd_flow_next_blocks() that reports events in the same call, as
 * ptd_flow_decode_insns(): @ev's places count blocks. */
extern pt_export int ptd_flow_decode_blocks(struct ptd_flow_batch *dec,
                                            struct ptd_flow_block *blocks,
                                            size_t n, size_t *count,
                                            struct ptd_flow_events *ev);
/** Report the pending event (at most @size bytes of it) as pt_insn_event():
 * status flags or a negative error. */
extern pt_export int ptd_flow_batch_event(struct ptd_flow_batch *dec,
                                          struct pt_event *event, size_t size);

/** The IP of the last error returned by ptd_flow_next_insns(),
 * ptd_flow_next_blocks() or ptd_flow_decode_*(): the instruction that failed
 * or that could not be fetched (0 for -pte_no_enable and -pte_eos, and for
 * an error of an event in ptd_flow_decode_*()).  Returns 0, or
 * -pte_invalid. */
extern pt_export int ptd_flow_batch_error_ip(const struct ptd_flow_batch *dec,
                                             uint64_t *ip);

/** The time after the last instruction, as pt_insn_time(). */
extern pt_export int ptd_flow_batch_time(struct ptd_flow_batch *dec,
                                         uint64_t *time, uint32_t *lost_mtc,
                                         uint32_t *lost_cyc);

/** The current address space, as pt_insn_asid(). */
extern pt_export int ptd_flow_batch_asid(const struct ptd_flow_batch *dec,
                                         struct pt_asid *asid, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PTD_FLOW_BATCH_H */
