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
	return ptd_flow_sync(&decoder->flow, 0, 0);
}

int pt_blk_sync_backward(struct pt_block_decoder *decoder)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_flow_sync(&decoder->flow, 1, 0);
}

int pt_blk_sync_set(struct pt_block_decoder *decoder, uint64_t offset)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_flow_sync(&decoder->flow, 2, offset);
}

int pt_blk_resync(struct pt_block_decoder *decoder)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_flow_sync(&decoder->flow, 0, 0);
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

/* Add @insn, which the flow executed with result @status, to @block.
 * Returns 1 if the block goes on, 0 if it ends. */
static int blk_add(const struct ptd_flow *flow, struct pt_block *block,
                   const struct ptd_finsn *insn, int status)
{
	const struct pt_conf_flags *flags = &flow->config.flags;

	block->ninsn++;
	block->end_ip = insn->ip;
	block->iclass = (enum pt_insn_class)insn->iclass;
	if (insn->truncated) {
		memcpy(block->raw, insn->raw, insn->size);
		block->size = insn->size;
		block->truncated = 1;
		return 0;
	}
	if (status < 0 || (status & pts_event_pending))
		return 0;
	if (needed_trace(insn))
		return 0;
	if (flags->variant.block.end_on_call && insn->iclass == ptic_call)
		return 0;
	if (flags->variant.block.end_on_jump && insn->iclass == ptic_jump)
		return 0;
	return block->ninsn < UINT16_MAX;
}

/* Fill @block from the current position on.  Returns status flags or a
 * negative error (with @block holding the instructions up to the error). */
static int blk_proceed(struct ptd_flow *flow, struct pt_block *block)
{
	const int stop_on_jump = flow->config.flags.variant.block.end_on_jump;
	const struct ptd_fsec *bsec = NULL;
	struct ptd_fpath *prev = flow->mem.last_path;
	int prev_slot = flow->mem.last_slot;
	struct ptd_finsn insn;
	int status = 0;

	if (!flow->enabled) {
		if (flow->process_event || (flow->status & pts_event_pending))
			return ptd_flow_status(flow, pts_event_pending);
		if (flow->status & pts_eos)
			return -pte_eos;
		return -pte_no_enable;
	}

	for (;;) {
		const struct ptd_fsec *sec = flow->mem.cur;

		/* While no event waits, follow the cached paths: no
		 * instruction on them needs trace or binds an event. */
		if (sec && flow->ip - sec->vaddr < sec->size &&
		    ptd_flow_quiet(flow) && (!block->ninsn || sec == bsec)) {
			struct ptd_fpath *path = NULL;

			/* Where the last path's branch went, most likely. */
			if (prev) {
				path = prev->succ[prev_slot];
				if (!path || path->ip != flow->ip ||
				    path->mode != (uint8_t)flow->mode) {
					path = ptd_fmem_path(
					        &flow->mem, flow->ip,
					        flow->mode, stop_on_jump);
					prev->succ[prev_slot] = path;
				}
				prev = NULL;
				flow->mem.last_path = NULL;
			} else {
				path = ptd_fmem_path(&flow->mem, flow->ip,
				                     flow->mode, stop_on_jump);
			}
			if (path && (path->ninsn || path->term) &&
			    (uint32_t)block->ninsn + path->ninsn < UINT16_MAX) {
				if (!block->ninsn) {
					bsec = sec;
					block->isid = sec->isid;
				}
				if (path->ninsn) {
					block->ninsn = (uint16_t)(block->ninsn +
					                          path->ninsn);
					block->end_ip = path->last_ip;
					block->iclass =
					        (enum pt_insn_class)
					                path->last_iclass;
				}
				flow->ip = path->next_ip;
				if (!path->term) {
					if (stop_on_jump &&
					    block->iclass == ptic_jump)
						return ptd_flow_status(flow, 0);
					if (block->ninsn >= UINT16_MAX)
						return ptd_flow_status(flow, 0);
					continue;
				}
				ptd_fmem_path_term(sec, path, &insn);
				status = ptd_flow_exec(flow, &insn);
				/* Remember where the branch went. */
				if (insn.iclass == ptic_cond_jump) {
					prev = path;
					prev_slot =
					        flow->ip != insn.ip + insn.size;
				} else if (insn.iclass == ptic_call &&
				           insn.is_direct) {
					prev = path;
					prev_slot = 0;
				}
				if (!blk_add(flow, block, &insn, status)) {
					flow->mem.last_path = prev;
					flow->mem.last_slot = prev_slot;
					return status;
				}
				continue;
			}
		}
		prev = NULL;
		flow->mem.last_path = NULL;

		insn.raw = NULL;
		insn.size = 0;
		status = ptd_flow_fetch(flow, &insn);
		if (status < 0)
			return status;

		/* A block stays in one section. */
		if (block->ninsn) {
			if (insn.sec != bsec || insn.isid != block->isid)
				return ptd_flow_status(flow, 0);
		} else {
			bsec = insn.sec;
			block->isid = insn.isid;
		}

		status = ptd_flow_exec(flow, &insn);
		if (!blk_add(flow, block, &insn, status))
			return status;
	}
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
	return status;
}

int pt_blk_event(struct pt_block_decoder *decoder, struct pt_event *event,
                 size_t size)
{
	if (!decoder || !event)
		return -pte_invalid;
	return ptd_flow_event(&decoder->flow, event, size);
}
