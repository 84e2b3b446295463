/* SPDX-License-Identifier: BSD-3-Clause */
/* The block decoder: pt_blk_*.
 *
 * A block is what the flow engine executes between two stops: an event to
 * report, a branch that needed trace, a change of section, a direct call or
 * jump with end_on_call/end_on_jump, a truncated instruction, or 65535
 * instructions.  While no event is waiting, the straight-line runs of the
 * decode cache move the block over ordinary instructions without looking
 * at them one by one. */
#include "flow.h"

#include <stdlib.h>
#include <string.h>

struct pt_block_decoder {
	struct ptd_flow flow;
};

struct pt_block_decoder *
ptd_blk_alloc_decoder(const struct pt_config *config,
                      const struct ptd_time_config *tconfig)
{
	struct pt_block_decoder *decoder;

	if (!config)
		return NULL;
	decoder = malloc(sizeof(*decoder));
	if (!decoder)
		return NULL;
	if (ptd_flow_init(&decoder->flow, config, tconfig, 1) < 0) {
		free(decoder);
		return NULL;
	}
	return decoder;
}

struct pt_block_decoder *pt_blk_alloc_decoder(const struct pt_config *config)
{
	return ptd_blk_alloc_decoder(config, NULL);
}

void pt_blk_free_decoder(struct pt_block_decoder *decoder)
{
	if (!decoder)
		return;
	ptd_flow_fini(&decoder->flow);
	free(decoder);
}

int pt_blk_sync_forward(struct pt_block_decoder *decoder)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_flow_sync(&decoder->flow, ptd_qsrc_forward, 0);
}

int pt_blk_sync_backward(struct pt_block_decoder *decoder)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_flow_sync(&decoder->flow, ptd_qsrc_backward, 0);
}

int pt_blk_sync_set(struct pt_block_decoder *decoder, uint64_t offset)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_flow_sync(&decoder->flow, ptd_qsrc_set, offset);
}

int pt_blk_resync(struct pt_block_decoder *decoder)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_flow_sync(&decoder->flow, ptd_qsrc_forward, 0);
}

int pt_blk_get_offset(const struct pt_block_decoder *decoder, uint64_t *offset)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_qsrc_offset((struct ptd_qsrc *)&decoder->flow.qs, offset);
}

int pt_blk_get_sync_offset(const struct pt_block_decoder *decoder,
                           uint64_t *offset)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_qsrc_sync_offset(&decoder->flow.qs, offset);
}

struct pt_image *pt_blk_get_image(struct pt_block_decoder *decoder)
{
	if (!decoder)
		return NULL;
	return decoder->flow.image;
}

int pt_blk_set_image(struct pt_block_decoder *decoder, struct pt_image *image)
{
	if (!decoder)
		return -pte_invalid;
	ptd_flow_set_image(&decoder->flow, image);
	return 0;
}

const struct pt_config *
pt_blk_get_config(const struct pt_block_decoder *decoder)
{
	if (!decoder)
		return NULL;
	return &decoder->flow.qs.config;
}

int pt_blk_time(struct pt_block_decoder *decoder, uint64_t *time,
                uint32_t *lost_mtc, uint32_t *lost_cyc)
{
	if (!decoder || !time)
		return -pte_invalid;
	return ptd_qsrc_time(&decoder->flow.qs, time, lost_mtc, lost_cyc);
}

int pt_blk_core_bus_ratio(struct pt_block_decoder *decoder, uint32_t *cbr)
{
	if (!decoder || !cbr)
		return -pte_invalid;
	return ptd_qsrc_cbr(&decoder->flow.qs, cbr);
}

int pt_blk_asid(const struct pt_block_decoder *decoder, struct pt_asid *asid,
                size_t size)
{
	if (!decoder || !asid)
		return -pte_invalid;
	return ptd_flow_asid(&decoder->flow, asid, size);
}

/* Whether the flow needed trace to get past @insn, which ends a block. */
static int needed_trace(const struct ptd_finsn *insn)
{
	switch (insn->iclass) {
	case ptic_other:
	case ptic_ptwrite:
		return 0;
	case ptic_call:
	case ptic_jump:
		return !insn->is_direct;
	default:
		return 1;
	}
}

/* --- The block cache
 * ----------------------------------------------------------
 *
 * While no event waits, blocks follow libipt 2.0.5's block cache, so that
 * they start and end where libipt's do.  Every instruction address of a
 * section may get an entry: "from here, @bninsn instructions to the
 * decision point at @bdisp bytes", with what to do there (@bqual).  An
 * address without an entry is filled by walking the code one instruction at
 * a time and adding entries on the way back; such a walk ends the block where
 * it stops: at a branch that needs trace, after a direct call, after a
 * backward or (with end_on_jump) any direct jump, where the code leaves the
 * section, where it meets code that has entries, or after 1024 steps.  With
 * entries, a block goes on through direct calls and jumps up to the next
 * branch that needs trace.  libipt's entries are narrower (some chains need
 * extra hops); the blocks are the same. */

enum blk_qual {
	bq_none,
	bq_again,    /* go on at the decision point */
	bq_cond,     /* a conditional branch */
	bq_decode,   /* decode the instruction there and decide */
	bq_ind_call, /* a near indirect call */
	bq_return,   /* a near return */
	bq_indirect  /* an indirect jump or far transfer */
};

enum {
	/* The most instructions one cache fill walks. */
	bcache_fill_steps = 0x400
};

/* A block cache entry: libipt's 32 bits (a signed 16-bit displacement to
 * the decision point, 8 bits of instruction count, the mode, the qualifier
 * and a 3-bit instruction size, 0 if unknown; longer chains go through
 * bq_again entries) and, for a conditional branch, its displacement, so
 * that a taken branch needs no decoding. */
struct bce {
	int32_t disp;
	uint32_t ninsn;
	unsigned mode, qual, isize;
	int32_t bdisp;
};

static uint64_t *bce_slot(struct ptd_fsec *sec, uint64_t ip)
{
	uint64_t off = ip - sec->vaddr;
	uint64_t *page;

	if (off >= sec->size)
		return NULL;
	if (!sec->bpages) {
		sec->bpages = calloc(sec->npages, sizeof(*sec->bpages));
		if (!sec->bpages)
			return NULL;
	}
	page = sec->bpages[off >> ptd_fpage_bits];
	if (!page) {
		page = calloc((size_t)1 << ptd_fpage_bits, sizeof(*page));
		if (!page)
			return NULL;
		sec->bpages[off >> ptd_fpage_bits] = page;
	}
	return &page[off & ((1u << ptd_fpage_bits) - 1)];
}

static void bce_unpack(uint64_t raw, struct bce *e)
{
	e->bdisp = (int32_t)(uint32_t)(raw >> 32);
	e->disp = (int16_t)(raw & 0xffff);
	e->ninsn = (raw >> 16) & 0xff;
	e->mode = (raw >> 24) & 3;
	e->qual = (raw >> 26) & 7;
	e->isize = (raw >> 29) & 7;
}

static int in_sec(const struct ptd_fsec *sec, uint64_t ip)
{
	return ip - sec->vaddr < sec->size;
}

/* Store an entry for @ip (its fields must fit). */
static int bce_put(struct ptd_fsec *sec, uint64_t ip, enum blk_qual qual,
                   uint32_t ninsn, int64_t disp, unsigned mode, unsigned isize,
                   int32_t bdisp)
{
	uint64_t *slot = bce_slot(sec, ip);

	if (!slot)
		return -pte_nomem;
	*slot = (uint64_t)(((uint32_t)(uint16_t)(int16_t)disp) |
	                   ((ninsn & 0xff) << 16) | ((mode & 3) << 24) |
	                   (((unsigned)qual & 7) << 26) |
	                   ((isize < 8 ? isize : 0) << 29)) |
	        ((uint64_t)(uint32_t)bdisp << 32);
	return 0;
}

/* A trampoline at @ip to the next instruction at @nip: go on there. */
static int bce_again(struct ptd_fsec *sec, uint64_t ip, uint64_t nip,
                     unsigned mode)
{
	int64_t disp = (int64_t)(nip - ip);

	if (disp != (int16_t)disp)
		return bce_put(sec, ip, bq_decode, 1, 0, mode, 0, 0);
	return bce_put(sec, ip, bq_again, 1, disp, mode, 0, 0);
}

/* Push the return address of a near call (not of a call to the next
 * instruction). */
static void blk_log_call(struct ptd_flow *flow, const struct ptd_finsn *insn)
{
	if (insn->iclass != ptic_call)
		return;
	if (insn->is_direct && !insn->disp)
		return;
	ptd_retstack_push(&flow->retstack, insn->ip + insn->size);
}

/* The next IP without trace: 0, -pte_bad_query, -pte_bad_insn. */
static int blk_next_ip(uint64_t *ip, const struct ptd_finsn *insn)
{
	switch (insn->iclass) {
	case ptic_other:
	case ptic_ptwrite:
		*ip = insn->ip + insn->size;
		return 0;
	case ptic_call:
	case ptic_jump:
		if (!insn->is_direct)
			return -pte_bad_query;
		*ip = insn->ip + insn->size + (uint64_t)(int64_t)insn->disp;
		return 0;
	case ptic_unknown:
		return -pte_bad_insn;
	default:
		return -pte_bad_query;
	}
}

static int end_on(const struct ptd_flow *flow, const struct ptd_finsn *insn)
{
	const struct pt_conf_flags *flags = &flow->config.flags;

	return (flags->variant.block.end_on_call &&
	        insn->iclass == ptic_call) ||
	       (flags->variant.block.end_on_jump && insn->iclass == ptic_jump);
}

/* Add the instruction at the current IP to @block (not switching image
 * section identifiers inside a block, the truncated instruction last).
 * Returns 1 if added (then @insn has it), 0 if it does not fit, or an
 * error. */
static int blk_one_insn(struct ptd_flow *flow, struct pt_block *block,
                        struct ptd_finsn *insn, int push)
{
	int status;

	if (block->ninsn == UINT16_MAX || block->truncated)
		return 0;
	insn->raw = NULL;
	insn->size = 0;
	status = ptd_flow_fetch(flow, insn);
	if (status < 0)
		return status;
	if (insn->isid != block->isid) {
		if (block->ninsn)
			return 0;
		block->isid = insn->isid;
	}
	if (insn->truncated) {
		ptd_flow_copy_raw(block->raw, insn->raw, insn->size);
		block->size = insn->size;
		block->truncated = 1;
	}
	if (push)
		blk_log_call(flow, insn);
	block->iclass = (enum pt_insn_class)insn->iclass;
	block->end_ip = insn->ip;
	block->ninsn++;
	return 1;
}

/* The instruction at @ip needed trace: get the next IP from it.  Returns
 * status flags or an error. */
static int blk_with_trace(struct ptd_flow *flow, const struct ptd_finsn *insn)
{
	/* The instruction logged its call already. */
	flow->ip = insn->ip;
	return ptd_flow_exec_pushed(flow, insn, 1);
}

/* Without a cache (the read-memory callback, code outside the section):
 * one instruction after the other up to a branch that needs trace. */
static int blk_uncached(struct ptd_flow *flow, struct pt_block *block)
{
	struct ptd_finsn insn;
	int status;

	for (;;) {
		status = blk_one_insn(flow, block, &insn, 1);
		if (status <= 0)
			return status < 0 ? status : ptd_flow_after(flow, NULL);
		status = blk_next_ip(&flow->ip, &insn);
		if (status < 0) {
			if (status != -pte_bad_query)
				return status;
			return blk_with_trace(flow, &insn);
		}
		if (end_on(flow, &insn))
			return ptd_flow_after(flow, &insn);
	}
}

/* Fill the cache from the current IP on (see above).  Returns 0 or an
 * error; if the flow used trace at the end, *@traced is set and *@status
 * holds the status flags. */
static int blk_fill(struct ptd_flow *flow, struct pt_block *block,
                    struct ptd_fsec *sec, size_t steps, int *traced,
                    int *status)
{
	const int end_on_jump = flow->config.flags.variant.block.end_on_jump;
	struct ptd_finsn insn;
	struct bce next;
	uint64_t *slot;
	uint64_t nip, dip;
	int64_t disp;
	int err;

	err = blk_one_insn(flow, block, &insn, 1);
	if (err <= 0)
		return err;

	err = blk_next_ip(&flow->ip, &insn);
	if (err < 0) {
		enum blk_qual qual = bq_indirect;
		unsigned isize = insn.size < 8 ? insn.size : 0;

		if (err != -pte_bad_query)
			return err;
		switch (insn.iclass) {
		case ptic_call:
			qual = bq_ind_call;
			break;
		case ptic_return:
			qual = bq_return;
			break;
		case ptic_cond_jump:
			qual = bq_cond;
			break;
		default:
			break;
		}
		if (block->truncated)
			qual = bq_decode;
		if (insn.sec == sec && !insn.truncated) {
			err = bce_put(sec, insn.ip, qual, 1, 0, insn.mode,
			              isize, qual == bq_cond ? insn.disp : 0);
			if (err < 0)
				return err;
		}
		*traced = 1;
		*status = blk_with_trace(flow, &insn);
		return *status < 0 ? *status : 0;
	}
	if (insn.sec != sec || insn.truncated)
		return 0;

	nip = flow->ip;
	/* Stop after direct calls (the cache does not push), backward and
	 * (with end_on_jump) all direct jumps, and where the code leaves the
	 * section. */
	if (insn.iclass == ptic_call ||
	    (insn.iclass == ptic_jump && (insn.disp < 0 || end_on_jump)) ||
	    !in_sec(sec, nip) || block->truncated)
		return bce_put(sec, insn.ip, bq_decode, 1, 0, insn.mode, 0, 0);

	slot = bce_slot(sec, nip);
	if (!slot)
		return -pte_nomem;
	bce_unpack(*slot, &next);
	/* An entry made in another mode (the same code run in another mode
	 * before) is filled anew, as one that is not there. */
	if (!next.qual || next.mode != insn.mode) {
		/* Too long a walk: the next time, go on from @nip. */
		if (!--steps)
			return bce_again(sec, insn.ip, nip, insn.mode);
		err = blk_fill(flow, block, sec, steps, traced, status);
		if (err < 0)
			return err;
		bce_unpack(*slot, &next);
		if (!next.qual || next.mode != insn.mode)
			return 0;
	}
	dip = nip + (uint64_t)(int64_t)next.disp;
	if (!in_sec(sec, dip))
		return 0;
	/* Chain the entry, or hop when it does not fit. */
	disp = (int64_t)(dip - insn.ip);
	if (next.ninsn + 1 > 0xff || disp != (int16_t)disp)
		return bce_again(sec, insn.ip, nip, insn.mode);
	return bce_put(sec, insn.ip, (enum blk_qual)next.qual, next.ninsn + 1,
	               disp, insn.mode, next.isize, next.bdisp);
}

/* A truncated instruction at the decision point: decode it through the
 * image, which ends the block. */
static int blk_truncated(struct ptd_flow *flow, struct pt_block *block)
{
	struct ptd_finsn insn;
	int status;

	status = ptd_fmem_fetch_slow(&flow->mem, &insn, &flow->asid, flow->ip,
	                             flow->mode);
	if (status < 0)
		return status;
	if (!insn.truncated)
		return -pte_internal;
	ptd_flow_copy_raw(block->raw, insn.raw, insn.size);
	block->iclass = (enum pt_insn_class)insn.iclass;
	block->size = insn.size;
	block->truncated = 1;
	blk_log_call(flow, &insn);
	status = blk_next_ip(&flow->ip, &insn);
	if (status < 0) {
		if (status != -pte_bad_query)
			return status;
		return blk_with_trace(flow, &insn);
	}
	return ptd_flow_after(flow, &insn);
}

/* The end of a cached block at an indirect branch whose query returned
 * @status: as for the same branch decoded (flow_proceed()), a target with its
 * IP suppressed is -pte_noip.  (libipt 2.0.5's block decoder checks this only
 * for blocks it decodes, not for those it takes from its cache, where it goes
 * on at the branch itself: the same trace then gave other errors depending
 * on what had been cached.) */
static int blk_cached_target(struct ptd_flow *flow, int status)
{
	flow->status = status;
	if (status & pts_ip_suppressed)
		return -pte_noip;
	return ptd_flow_after(flow, NULL);
}

/* Follow the cache from the current IP in @sec.  Returns status flags or an
 * error. */
static int blk_cached(struct ptd_flow *flow, struct pt_block *block,
                      struct ptd_fsec *sec)
{
	for (;;) {
		uint64_t *slot = bce_slot(sec, flow->ip);
		struct bce e;
		struct ptd_finsn insn;
		uint64_t nip, ip;
		uint32_t ninsn;
		int status, taken, err;

		if (!slot)
			return -pte_nomem;
		bce_unpack(*slot, &e);
		/* No entry, or one made in another mode: decode and fill. */
		if (!e.qual || e.mode != ((unsigned)flow->mode & 3)) {
			int traced = 0;

			status = 0;
			err = blk_fill(flow, block, sec, bcache_fill_steps,
			               &traced, &status);
			if (err < 0)
				return err;
			if (traced)
				return status;
			return ptd_flow_after(flow, NULL);
		}

		nip = flow->ip + (uint64_t)(int64_t)e.disp;
		if (!in_sec(sec, nip))
			return blk_uncached(flow, block);
		ninsn = (uint32_t)block->ninsn + e.ninsn;
		if (ninsn > UINT16_MAX)
			return ptd_flow_after(flow, NULL);
		flow->ip = nip;
		block->end_ip = nip;
		block->ninsn = (uint16_t)ninsn;
		block->mode = (enum pt_exec_mode)e.mode;

		switch (e.qual) {
		case bq_again:
			block->iclass = ptic_unknown;
			continue;

		case bq_cond:
			block->iclass = ptic_cond_jump;
			if (!e.isize)
				break;
			status = ptd_flow_cond_branch(flow, &taken, nip);
			if (status < 0)
				return status;
			flow->status = status;
			ip = nip;
			if (taken)
				ip += (uint64_t)(int64_t)e.bdisp;
			flow->ip = ip + e.isize;
			return ptd_flow_after(flow, NULL);

		case bq_ind_call:
			block->iclass = ptic_call;
			ip = nip + e.isize;
			if (!e.isize) {
				status = ptd_flow_fetch(flow, &insn);
				if (status < 0)
					return status;
				ip = nip + insn.size;
			}
			ptd_retstack_push(&flow->retstack, ip);
			status = ptd_flow_indirect_branch(flow, &flow->ip, nip);
			if (status < 0)
				return status;
			return blk_cached_target(flow, status);

		case bq_return:
			block->iclass = ptic_return;
			status = ptd_flow_cond_branch(flow, &taken, nip);
			if (status < 0) {
				if (status != -pte_bad_query)
					return status;
				status = ptd_flow_indirect_branch(
				        flow, &flow->ip, nip);
				if (status < 0)
					return status;
				return blk_cached_target(flow, status);
			}
			flow->status = status;
			if (!taken)
				return -pte_bad_retcomp;
			status = ptd_retstack_pop(&flow->retstack, &flow->ip);
			if (status < 0)
				return status;
			return ptd_flow_after(flow, NULL);

		case bq_indirect:
			block->iclass = ptic_unknown;
			status = ptd_flow_indirect_branch(flow, &flow->ip, nip);
			if (status < 0)
				return status;
			return blk_cached_target(flow, status);

		default:
			break;
		}

		/* bq_decode, or a conditional branch of unknown size. */
		status = ptd_flow_fetch(flow, &insn);
		if (status < 0) {
			if (status != -pte_bad_insn)
				return status;
			return blk_truncated(flow, block);
		}
		if (insn.sec != sec || insn.truncated)
			return blk_truncated(flow, block);
		block->iclass = (enum pt_insn_class)insn.iclass;
		blk_log_call(flow, &insn);
		status = blk_next_ip(&flow->ip, &insn);
		if (status < 0) {
			if (status != -pte_bad_query)
				return status;
			return blk_with_trace(flow, &insn);
		}
		if (end_on(flow, &insn) || !in_sec(sec, flow->ip))
			return ptd_flow_after(flow, &insn);
	}
}

/* While an event waits: one instruction after the other, each bound to the
 * event where it belongs, up to a branch that needs trace or the event. */
static int blk_events(struct ptd_flow *flow, struct pt_block *block)
{
	struct ptd_finsn insn;
	int status;

	for (;;) {
		status = blk_one_insn(flow, block, &insn, 0);
		if (status <= 0)
			return status < 0 ? status : ptd_flow_status(flow, 0);
		status = ptd_flow_exec(flow, &insn);
		if (status < 0 || (status & pts_event_pending))
			return status;
		if (needed_trace(&insn) || end_on(flow, &insn))
			return status;
		/* No event waits any more: go on as without events. */
		if (ptd_flow_quiet(flow))
			return status;
	}
}

/* Fill @block from the current position on.  Returns status flags or a
 * negative error (with @block holding the instructions up to the error). */
static int blk_proceed(struct ptd_flow *flow, struct pt_block *block)
{
	struct ptd_fsec *sec;
	int err;

	/* Without tracing enabled, only events can move us on, and the
	 * status after the last one said whether one waits: as
	 * pt_insn_next() does (and libipt's instruction-flow decoder), this
	 * does not take one that it did not announce (a TIP.PGD while
	 * tracing is off). */
	if (!flow->enabled) {
		if (flow->status & pts_eos)
			return -pte_eos;
		return -pte_no_enable;
	}
	if (!ptd_flow_quiet(flow))
		return blk_events(flow, block);

	sec = flow->mem.cur;
	if (!sec || !in_sec(sec, flow->ip)) {
		err = ptd_fmem_select(&flow->mem, &flow->asid, flow->ip);
		if (err < 0) {
			if (err != -pte_nomap)
				return err;
			return blk_uncached(flow, block);
		}
		sec = flow->mem.cur;
	}
	block->isid = sec->isid;
	return blk_cached(flow, block, sec);
}

int pt_blk_next(struct pt_block_decoder *decoder, struct pt_block *ublock,
                size_t size)
{
	struct ptd_flow *flow;
	struct pt_block local, *block;
	int status;

	if (!decoder || !ublock)
		return -pte_invalid;
	flow = &decoder->flow;
	ptd_fmem_check(&flow->mem);

	block = size == sizeof(local) ? ublock : &local;
	memset(block, 0, sizeof(*block));
	block->ip = flow->ip;
	block->mode = flow->mode;
	block->speculative = flow->speculative;

	status = blk_proceed(flow, block);

	if (block != ublock) {
		if (size > sizeof(*block)) {
			memset((uint8_t *)ublock + sizeof(*block), 0,
			       size - sizeof(*block));
			size = sizeof(*block);
		}
		memcpy(ublock, block, size);
	}
	return ptd_qsrc_result(&flow->qs, status);
}

int pt_blk_event(struct pt_block_decoder *decoder, struct pt_event *event,
                 size_t size)
{
	if (!decoder || !event)
		return -pte_invalid;
	return ptd_flow_event(&decoder->flow, event, size);
}
