/* SPDX-License-Identifier: BSD-3-Clause */
/* The instruction-flow decoder: pt_insn_*. */
#include "flow.h"

#include <stdlib.h>
#include <string.h>

struct pt_insn_decoder {
	struct ptd_flow flow;
};

struct pt_insn_decoder *
ptd_insn_alloc_decoder(const struct pt_config *config,
                       const struct ptd_time_config *tconfig)
{
	struct pt_insn_decoder *decoder;

	if (!config)
		return NULL;
	decoder = malloc(sizeof(*decoder));
	if (!decoder)
		return NULL;
	if (ptd_flow_init(&decoder->flow, config, tconfig, 0) < 0) {
		free(decoder);
		return NULL;
	}
	return decoder;
}

struct pt_insn_decoder *pt_insn_alloc_decoder(const struct pt_config *config)
{
	return ptd_insn_alloc_decoder(config, NULL);
}

void pt_insn_free_decoder(struct pt_insn_decoder *decoder)
{
	if (!decoder)
		return;
	ptd_flow_fini(&decoder->flow);
	free(decoder);
}

int pt_insn_sync_forward(struct pt_insn_decoder *decoder)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_flow_sync(&decoder->flow, ptd_qsrc_forward, 0);
}

int pt_insn_sync_backward(struct pt_insn_decoder *decoder)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_flow_sync(&decoder->flow, ptd_qsrc_backward, 0);
}

int pt_insn_sync_set(struct pt_insn_decoder *decoder, uint64_t offset)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_flow_sync(&decoder->flow, ptd_qsrc_set, offset);
}

int pt_insn_resync(struct pt_insn_decoder *decoder)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_flow_sync(&decoder->flow, ptd_qsrc_forward, 0);
}

int pt_insn_get_offset(const struct pt_insn_decoder *decoder, uint64_t *offset)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_qsrc_offset((struct ptd_qsrc *)&decoder->flow.qs, offset);
}

int pt_insn_get_sync_offset(const struct pt_insn_decoder *decoder,
                            uint64_t *offset)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_qsrc_sync_offset(&decoder->flow.qs, offset);
}

struct pt_image *pt_insn_get_image(struct pt_insn_decoder *decoder)
{
	if (!decoder)
		return NULL;
	return decoder->flow.image;
}

int pt_insn_set_image(struct pt_insn_decoder *decoder, struct pt_image *image)
{
	if (!decoder)
		return -pte_invalid;
	ptd_flow_set_image(&decoder->flow, image);
	return 0;
}

const struct pt_config *
pt_insn_get_config(const struct pt_insn_decoder *decoder)
{
	if (!decoder)
		return NULL;
	return &decoder->flow.qs.config;
}

int pt_insn_time(struct pt_insn_decoder *decoder, uint64_t *time,
                 uint32_t *lost_mtc, uint32_t *lost_cyc)
{
	if (!decoder || !time)
		return -pte_invalid;
	return ptd_qsrc_time(&decoder->flow.qs, time, lost_mtc, lost_cyc);
}

int pt_insn_core_bus_ratio(struct pt_insn_decoder *decoder, uint32_t *cbr)
{
	if (!decoder || !cbr)
		return -pte_invalid;
	return ptd_qsrc_cbr(&decoder->flow.qs, cbr);
}

int pt_insn_asid(const struct pt_insn_decoder *decoder, struct pt_asid *asid,
                 size_t size)
{
	if (!decoder || !asid)
		return -pte_invalid;
	return ptd_flow_asid(&decoder->flow, asid, size);
}

/* Copy @insn to the user's @uinsn of @size bytes. */
static void insn_to_user(struct pt_insn *uinsn, size_t size,
                         const struct pt_insn *insn)
{
	if (uinsn == insn)
		return;
	if (size > sizeof(*insn)) {
		memset((uint8_t *)uinsn + sizeof(*insn), 0,
		       size - sizeof(*insn));
		size = sizeof(*insn);
	}
	memcpy(uinsn, insn, size);
}

static __attribute__((noinline)) int
insn_next(struct ptd_flow *flow, struct pt_insn *uinsn, size_t size)
{
	struct ptd_finsn fi;
	struct pt_insn local, *insn;
	int status;

	/* Without tracing enabled, only events can move us on. */
	if (!flow->enabled) {
		if (flow->status & pts_eos)
			return -pte_eos;
		return -pte_no_enable;
	}
	ptd_fmem_check(&flow->mem);

	insn = size == sizeof(local) ? uinsn : &local;
	memset(insn, 0, sizeof(*insn));
	insn->speculative = flow->speculative;
	insn->ip = flow->ip;
	insn->mode = flow->mode;

	fi.raw = NULL;
	fi.size = 0;
	fi.isid = 0;
	status = ptd_flow_fetch(flow, &fi);
	if (status < 0) {
		/* The IP and mode tell where it failed. */
		insn->isid = fi.isid;
		if (status == -pte_bad_insn && fi.size <= pt_max_insn_size &&
		    fi.raw) {
			ptd_flow_copy_raw(insn->raw, fi.raw, fi.size);
			insn->size = fi.size;
		}
		insn_to_user(uinsn, size, insn);
		return status;
	}

	insn->isid = fi.isid;
	insn->iclass = (enum pt_insn_class)fi.iclass;
	insn->size = fi.size;
	ptd_flow_copy_raw(insn->raw, fi.raw, fi.size);
	insn->truncated = fi.truncated;
	insn_to_user(uinsn, size, insn);

	/* Most instructions: no event waits, no branch. */
	if (fi.iclass == ptic_other && ptd_flow_quiet(flow)) {
		flow->ip = fi.ip + fi.size;
		return ptd_flow_status(flow, 0);
	}
	return ptd_flow_exec(flow, &fi);
}

/* insn_next() for the commonest call, inline in pt_insn_next() and with no
 * function call (so no registers to save): a whole struct pt_insn, tracing
 * on, no event waiting, and an instruction that is no branch in the decode
 * cache of the current section.  Returns 1 with the status in *@status, or
 * 0 if it does not apply (nothing done). */
static inline int insn_next_fast(struct ptd_flow *flow, struct pt_insn *insn,
                                 int *status)
{
	const struct ptd_fmem *mem = &flow->mem;
	const struct ptd_fsec *sec = mem->cur;
	const struct ptd_fce *e;
	uint64_t off;

	if (!flow->enabled || !ptd_flow_quiet(flow) || !sec ||
	    ptd_fmem_stale(mem))
		return 0;
	off = flow->ip - sec->vaddr;
	if (off >= sec->size)
		return 0;
	e = ptd_fsec_entry(sec, off);
	if (!ptd_fce_holds(e, flow->mode) || e->iclass != ptic_other)
		return 0;

	memset(insn, 0, sizeof(*insn));
	insn->ip = flow->ip;
	insn->isid = sec->isid;
	insn->mode = flow->mode;
	insn->iclass = ptic_other;
	insn->size = e->size;
	ptd_flow_copy_raw(insn->raw, sec->mem + off, e->size);
	if (flow->speculative)
		insn->speculative = 1;
	flow->ip += e->size;
	*status = ptd_flow_status(flow, 0);
	return 1;
}

int pt_insn_next(struct pt_insn_decoder *decoder, struct pt_insn *uinsn,
                 size_t size)
{
	int status;

	if (!decoder || !uinsn)
		return -pte_invalid;
	/* (The expectation keeps gcc from compiling the fast path as a cold
	 * one, with a `rep stos` for its memset() that halved the speed.) */
	if (__builtin_expect(
	            size != sizeof(*uinsn) ||
	                    !insn_next_fast(&decoder->flow, uinsn, &status),
	            0))
		status = insn_next(&decoder->flow, uinsn, size);
	return ptd_qsrc_result(&decoder->flow.qs, status);
}

int pt_insn_event(struct pt_insn_decoder *decoder, struct pt_event *event,
                  size_t size)
{
	if (!decoder || !event)
		return -pte_invalid;
	return ptd_flow_event(&decoder->flow, event, size);
}
