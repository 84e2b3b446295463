/* SPDX-License-Identifier: BSD-3-Clause */
/* The flow engine shared by the instruction-flow decoder (pt_insn_*) and the
 * block decoder (pt_blk_*).
 *
 * It follows the traced code one instruction at a time, asks the query
 * decoder about every branch that needs trace, and binds the query
 * decoder's events to instructions and IPs the way libipt 2.0.5 does.  The
 * block decoder adds straight-line runs from the decode cache on top (see
 * block_decoder.c). */
#ifndef PTD_FLOW_FLOW_H
#define PTD_FLOW_FLOW_H

#include "ptdecode/intel-pt.h"
#include "ptdecode/ptdecode.h"

#include "fmem.h"
#include "qsrc.h"
#include "retstack.h"

#include <stdint.h>
#include <string.h>

struct ptd_flow {
	/* The query decoder's results we follow, and our copy of the
	 * configuration (errata, filter ranges, flags). */
	struct ptd_qsrc qs;
	struct pt_config config;

	/* The traced image (the user's or @default_image). */
	struct pt_image *image;
	struct pt_image *default_image;
	struct ptd_fmem mem;

	/* The address space, the IP of the next instruction, the mode. */
	struct pt_asid asid;
	uint64_t ip;
	enum pt_exec_mode mode;

	/* The status flags of the last query (pts_event_pending, pts_eos). */
	int status;

	/* The event being processed (with @process_event). */
	struct pt_event event;

	/* An instruction whose events are being reported (with
	 * @process_insn): we proceed past it once they are done. */
	struct ptd_finsn insn;

	struct ptd_retstack retstack;

	uint32_t enabled : 1;
	uint32_t process_event : 1;
	uint32_t speculative : 1;
	uint32_t process_insn : 1;
	uint32_t bound_paging : 1;
	uint32_t bound_vmcs : 1;
	uint32_t bound_ptwrite : 1;
	/* Report tick events; this is a block decoder (libipt's block
	 * decoder differs from its instruction decoder in a few details). */
	uint32_t tick : 1;
	uint32_t block : 1;
	/* An Event Trace event of an asynchronous transfer was reported at
	 * the current IP: its target comes as the next TIP. */
	uint32_t et_branch : 1;
	/* The last synchronization was a backward one, to the PSB at
	 * @back_psb (whatever the decoder did after its PSB+: an error, or
	 * decoding on): the next backward synchronization goes to the PSB
	 * before that one, so that a loop of backward synchronizations goes
	 * back PSB by PSB to the start, with or without decoding in between
	 * (libipt 2.0.5's does without, as its backward synchronization reads
	 * nothing after the PSB+).  A forward or set synchronization ends
	 * it. */
	uint32_t back_known : 1;
	uint64_t back_psb;
};

/* Set up @flow for @config (copied) with the time engine options @tconfig
 * (NULL for the defaults); @block selects the block decoder's behaviour.
 * Returns 0 or a negative error. */
int ptd_flow_init(struct ptd_flow *flow, const struct pt_config *config,
                  const struct ptd_time_config *tconfig, int block);
void ptd_flow_fini(struct ptd_flow *flow);

/* Synchronize forward, backward or at @offset (@how: ptd_qsrc_forward,
 * ptd_qsrc_backward or ptd_qsrc_set).  Returns status flags or a negative
 * error.  (This, ptd_flow_event() and the decoders'
 * next functions tell the query source how the caller's call ended:
 * ptd_qsrc_result().) */
int ptd_flow_sync(struct ptd_flow *flow, enum ptd_qsrc_how how,
                  uint64_t offset);

/* Use @image (NULL: the default image). */
void ptd_flow_set_image(struct ptd_flow *flow, struct pt_image *image);

/* Copy the address space to the user's @asid of @size bytes. */
int ptd_flow_asid(const struct ptd_flow *flow, struct pt_asid *asid,
                  size_t size);

/* Copy an instruction's @size bytes (at most pt_max_insn_size) from @src
 * to @dst: two copies of a fixed size that overlap in the middle, which
 * compile to a few loads and stores, where memcpy() with a variable size
 * is a call (one per instruction in pt_insn_next()).  Neither side is read
 * or written outside its @size bytes. */
static inline void ptd_flow_copy_raw(uint8_t *dst, const uint8_t *src,
                                     uint8_t size)
{
	if (size >= 8) {
		memcpy(dst, src, 8);
		memcpy(dst + size - 8, src + size - 8, 8);
	} else if (size >= 4) {
		memcpy(dst, src, 4);
		memcpy(dst + size - 4, src + size - 4, 4);
	} else if (size >= 2) {
		memcpy(dst, src, 2);
		memcpy(dst + size - 2, src + size - 2, 2);
	} else if (size) {
		dst[0] = src[0];
	}
}

/* Fetch the instruction at the current IP into @insn.  Returns 0 or a
 * negative error (then @insn->ip, ->isid and the bytes read are set). */
static inline int ptd_flow_fetch(struct ptd_flow *flow, struct ptd_finsn *insn)
{
	return ptd_fmem_fetch(&flow->mem, insn, &flow->asid, flow->ip,
	                      flow->mode);
}

/* Execute @insn (just fetched at the current IP): bind events to it,
 * proceed past it (with trace where needed) and bind events to the next IP.
 * Returns status flags (with pts_event_pending: report events now) or a
 * negative error. */
int ptd_flow_exec(struct ptd_flow *flow, const struct ptd_finsn *insn);

/* As ptd_flow_exec(), but with @pushed the return address of a near call
 * is already on the return stack. */
int ptd_flow_exec_pushed(struct ptd_flow *flow, const struct ptd_finsn *insn,
                         int pushed);

/* Make a tick event at @ip if the time changed since the last event:
 * 1 if made, 0 if not, or a negative error. */
int ptd_flow_tick(struct ptd_flow *flow, uint64_t ip);

/* Ask for a conditional branch or an indirect branch target (status flags
 * or an error), with a tick event at @evip if the time changed. */
static inline int ptd_flow_cond_branch(struct ptd_flow *flow, int *taken,
                                       uint64_t evip)
{
	int status = ptd_qsrc_cond(&flow->qs, taken);

	if (status >= 0 && flow->tick) {
		int err = ptd_flow_tick(flow, evip);

		if (err < 0)
			return err;
	}
	return status;
}

int ptd_flow_indirect_branch(struct ptd_flow *flow, uint64_t *ip,
                             uint64_t evip);

/* Events that bind to the current IP (after @insn, which may be NULL). */
int ptd_flow_check_ip_event(struct ptd_flow *flow,
                            const struct ptd_finsn *insn);

/* Report the pending event in @event (@size bytes) and go on.  Returns
 * status flags or a negative error. */
int ptd_flow_event(struct ptd_flow *flow, struct pt_event *event, size_t size);

/* The status flags for the current state plus @flags. */
static inline int ptd_flow_status(const struct ptd_flow *flow, int flags)
{
	if (!flow->enabled)
		flags |= pts_ip_suppressed;
	if ((flow->status & pts_eos) && !flow->process_event)
		flags |= pts_eos;
	return flags;
}

/* No event is waiting or being processed and no instruction is held: the
 * next ordinary instructions cannot bind an event. */
static inline int ptd_flow_quiet(const struct ptd_flow *flow)
{
	return !(flow->status & pts_event_pending) && !flow->process_event &&
	       !flow->process_insn;
}

/* Inside the IP filter: 1 if @ip would be traced by @filter's ranges. */
int ptd_flow_filter_check(const struct pt_conf_addr_filter *filter,
                          uint64_t ip);

/* The status after the flow moved on to a new IP (by @insn, which may be
 * NULL): events that bind there, or the status flags. */
static inline int ptd_flow_after(struct ptd_flow *flow,
                                 const struct ptd_finsn *insn)
{
	if (ptd_flow_quiet(flow))
		return ptd_flow_status(flow, 0);
	return ptd_flow_check_ip_event(flow, insn);
}

#endif /* PTD_FLOW_FLOW_H */
