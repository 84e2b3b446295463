/* SPDX-License-Identifier: BSD-3-Clause */
/* The flow engine: following the code with the query decoder, binding events
 * to instructions and IPs, errata BDM64, SKD022 and SKL014. */
#include "flow.h"

#include "common/config.h"

#include <stdlib.h>
#include <string.h>

enum {
	/* How far BDM64 looks for a straight path to the abort IP. */
	ptd_bdm64_max_steps = 0x100
};

int ptd_flow_filter_check(const struct pt_conf_addr_filter *filter, uint64_t ip)
{
	const uint64_t a[4] = {filter->addr0_a, filter->addr1_a,
	                       filter->addr2_a, filter->addr3_a};
	const uint64_t b[4] = {filter->addr0_b, filter->addr1_b,
	                       filter->addr2_b, filter->addr3_b};
	int have_filter = 0, inside = 0;
	unsigned n;

	for (n = 0; n < 4; n++) {
		unsigned cfg =
		        (unsigned)(filter->config.addr_cfg >> (4 * n)) & 0xf;

		if (cfg == 1) {
			have_filter = 1;
			if (a[n] <= ip && ip <= b[n])
				inside = 1;
		} else if (cfg == 2) {
			if (a[n] <= ip && ip <= b[n])
				return 0;
		}
	}
	return have_filter ? inside : 1;
}

/* --- Instruction properties ---------------------------------------------- */

static int insn_is_far(const struct ptd_finsn *insn)
{
	return insn->iclass == ptic_far_call ||
	       insn->iclass == ptic_far_return || insn->iclass == ptic_far_jump;
}

static int insn_is_branch(const struct ptd_finsn *insn)
{
	switch (insn->iclass) {
	case ptic_call:
	case ptic_return:
	case ptic_jump:
	case ptic_cond_jump:
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
	case ptic_indirect:
		return 1;
	default:
		return 0;
	}
}

static int insn_changes_cpl(const struct ptd_finsn *insn)
{
	switch (insn->kind) {
	case ptd_ik_int:
	case ptd_ik_iret:
	case ptd_ik_syscall:
	case ptd_ik_sysret:
	case ptd_ik_sysenter:
	case ptd_ik_sysexit:
		return 1;
	default:
		return 0;
	}
}

static int insn_changes_cr3(const struct ptd_finsn *insn)
{
	return insn->kind == ptd_ik_mov_cr3;
}

static int insn_binds_to_pip(const struct ptd_finsn *insn)
{
	switch (insn->kind) {
	case ptd_ik_mov_cr3:
	case ptd_ik_vmlaunch:
	case ptd_ik_vmresume:
		return 1;
	default:
		return insn_is_far(insn);
	}
}

static int insn_binds_to_vmcs(const struct ptd_finsn *insn)
{
	switch (insn->kind) {
	case ptd_ik_vmptrld:
	case ptd_ik_vmlaunch:
	case ptd_ik_vmresume:
		return 1;
	default:
		return insn_is_far(insn);
	}
}

/* The IP after @insn if it does not need trace: 0, -pte_bad_query if it
 * does, -pte_bad_insn if it is not known. */
static int insn_next_ip(uint64_t *ip, const struct ptd_finsn *insn)
{
	uint64_t next = insn->ip + insn->size;

	switch (insn->iclass) {
	case ptic_other:
	case ptic_ptwrite:
		break;
	case ptic_call:
	case ptic_jump:
		if (!insn->is_direct)
			return -pte_bad_query;
		next += (uint64_t)(int64_t)insn->disp;
		break;
	case ptic_unknown:
		return -pte_bad_insn;
	default:
		return -pte_bad_query;
	}
	*ip = next;
	return 0;
}

/* Whether the code from @begin reaches @end in at most @steps instructions
 * without needing trace: 1 yes, 0 no, or a negative error. */
static int range_is_contiguous(struct ptd_flow *flow, uint64_t begin,
                               uint64_t end, size_t steps)
{
	struct ptd_finsn insn;
	uint64_t ip = begin;

	while (ip != end) {
		int err;

		if (!steps--)
			return 0;
		err = ptd_fmem_fetch(&flow->mem, &insn, &flow->asid, ip,
		                     flow->mode);
		if (err < 0)
			return err;
		err = insn_next_ip(&ip, &insn);
		if (err < 0)
			return err;
	}
	return 1;
}

/* --- Set-up -----------------------------------------------------------------
 */

static void flow_reset(struct ptd_flow *flow)
{
	flow->mode = ptem_unknown;
	flow->ip = 0;
	flow->status = 0;
	flow->enabled = 0;
	flow->process_event = 0;
	flow->speculative = 0;
	flow->process_insn = 0;
	flow->bound_paging = 0;
	flow->bound_vmcs = 0;
	flow->bound_ptwrite = 0;
	flow->et_branch = 0;
	if (flow->block)
		memset(&flow->event, 0, sizeof(flow->event));
	ptd_retstack_init(&flow->retstack);
	pt_asid_init(&flow->asid);
	ptd_fmem_forget(&flow->mem);
}

int ptd_flow_init(struct ptd_flow *flow, const struct pt_config *uconfig,
                  const struct ptd_time_config *tconfig, int block)
{
	struct pt_config qconfig;
	int err;

	memset(flow, 0, sizeof(*flow));
	err = ptd_config_from_user(&flow->config, uconfig);
	if (err < 0)
		return err;
	flow->block = block ? 1 : 0;
	flow->tick = block ? flow->config.flags.variant.block.enable_tick_events
	                   : flow->config.flags.variant.insn.enable_tick_events;

	/* The query decoder gets only the flags that concern it. */
	qconfig = flow->config;
	memset(&qconfig.flags, 0, sizeof(qconfig.flags));
	if (block) {
		qconfig.flags.variant.query.keep_tcal_on_ovf =
		        flow->config.flags.variant.block.keep_tcal_on_ovf;
		qconfig.flags.variant.query.enable_iflags_events =
		        flow->config.flags.variant.block.enable_iflags_events;
	} else {
		qconfig.flags.variant.query.keep_tcal_on_ovf =
		        flow->config.flags.variant.insn.keep_tcal_on_ovf;
		qconfig.flags.variant.query.enable_iflags_events =
		        flow->config.flags.variant.insn.enable_iflags_events;
	}
	err = ptd_qsrc_init(&flow->qs, &qconfig, tconfig, 1);
	if (err < 0) {
		ptd_qsrc_fini(&flow->qs);
		return err;
	}

	err = ptd_fmem_init(&flow->mem);
	if (err < 0) {
		ptd_qsrc_fini(&flow->qs);
		return err;
	}
	flow->default_image = pt_image_alloc(NULL);
	if (!flow->default_image) {
		ptd_fmem_fini(&flow->mem);
		ptd_qsrc_fini(&flow->qs);
		return -pte_nomem;
	}
	flow->image = flow->default_image;
	ptd_fmem_set_image(&flow->mem, flow->image);
	flow_reset(flow);
	return 0;
}

void ptd_flow_fini(struct ptd_flow *flow)
{
	ptd_fmem_fini(&flow->mem);
	pt_image_free(flow->default_image);
	ptd_qsrc_fini(&flow->qs);
}

void ptd_flow_set_image(struct ptd_flow *flow, struct pt_image *image)
{
	if (!image)
		image = flow->default_image;
	flow->image = image;
	ptd_fmem_set_image(&flow->mem, image);
}

int ptd_flow_asid(const struct ptd_flow *flow, struct pt_asid *asid,
                  size_t size)
{
	struct pt_asid copy = flow->asid;

	if (size < sizeof(asid->size))
		return -pte_invalid;
	if (size > sizeof(copy))
		size = sizeof(copy);
	copy.size = size;
	memcpy(asid, &copy, size);
	return 0;
}

/* --- Queries -------------------------------------------------------------- */

/* Make a tick event if the time changed since the last event. */
int ptd_flow_tick(struct ptd_flow *flow, uint64_t ip)
{
	struct pt_event *ev = &flow->event;
	uint64_t tsc = 0;
	uint32_t lost_mtc = 0, lost_cyc = 0;
	int err;

	if (!flow->enabled)
		return -pte_internal;
	if (flow->process_event)
		return 0;
	err = ptd_qsrc_time(&flow->qs, &tsc, &lost_mtc, &lost_cyc);
	if (err < 0 && err != -pte_no_time)
		return err;
	if (tsc == ev->tsc)
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->type = ptev_tick;
	ev->variant.tick.ip = ip;
	ev->has_tsc = err != -pte_no_time;
	ev->tsc = tsc;
	ev->lost_mtc = lost_mtc;
	ev->lost_cyc = lost_cyc;
	flow->process_event = 1;
	return 1;
}

int ptd_flow_indirect_branch(struct ptd_flow *flow, uint64_t *ip, uint64_t evip)
{
	int status = ptd_qsrc_indirect(&flow->qs, ip);

	if (status >= 0 && flow->tick) {
		int err = ptd_flow_tick(flow, evip);

		if (err < 0)
			return err;
	}
	return status;
}

/* Proceed past @insn (at flow->ip): the next IP, with trace if needed.
 * Near calls push their return address unless @pushed says it is done. */
static int flow_proceed(struct ptd_flow *flow, const struct ptd_finsn *insn,
                        int pushed)
{
	/* The block decoder's tick events name the branch, the instruction
	 * decoder's the IP after it. */
	uint64_t evip = flow->block ? insn->ip : insn->ip + insn->size;
	int status, taken;

	flow->ip = insn->ip + insn->size;

	/* The most frequent branch first, outside the switch. */
	if (insn->iclass == ptic_cond_jump) {
		status = ptd_flow_cond_branch(flow, &taken, evip);
		if (status < 0)
			return status;
		flow->status = status;
		if (taken)
			flow->ip += (uint64_t)(int64_t)insn->disp;
		return 0;
	}

	switch (insn->iclass) {
	case ptic_other:
	case ptic_ptwrite:
		return 0;

	case ptic_cond_jump:
		status = ptd_flow_cond_branch(flow, &taken, evip);
		if (status < 0)
			return status;
		flow->status = status;
		if (!taken)
			return 0;
		flow->ip += (uint64_t)(int64_t)insn->disp;
		return 0;

	case ptic_call:
		/* A call to the next instruction (position-independent code
		 * reading its IP) does not return. */
		if (!pushed && (!insn->is_direct || insn->disp))
			ptd_retstack_push(&flow->retstack, flow->ip);
		if (insn->is_direct) {
			flow->ip += (uint64_t)(int64_t)insn->disp;
			return 0;
		}
		break;

	case ptic_return:
		/* A compressed return is a taken TNT bit. */
		status = ptd_flow_cond_branch(flow, &taken, evip);
		if (status >= 0) {
			flow->status = status;
			if (!taken)
				return -pte_bad_retcomp;
			return ptd_retstack_pop(&flow->retstack, &flow->ip);
		}
		break;

	case ptic_jump:
		if (insn->is_direct) {
			flow->ip += (uint64_t)(int64_t)insn->disp;
			return 0;
		}
		break;

	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
	case ptic_indirect:
		break;

	default:
		return -pte_bad_insn;
	}

	status = ptd_flow_indirect_branch(flow, &flow->ip, evip);
	if (status < 0)
		return status;
	flow->status = status;
	if (status & pts_ip_suppressed)
		return -pte_noip;
	return 0;
}

/* --- Event binding
 * ------------------------------------------------------------- */

/* The events of libipt 2.1 and later (Event Trace, iflags, TRIG): whether
 * @ev is one, and the IP it names in *@ip (0 if none). */
static int flow_late_event(const struct pt_event *ev, uint64_t *ip)
{
	switch (ev->type) {
	case ptev_iflags:
		*ip = ev->variant.iflags.ip;
		return 1;
	case ptev_interrupt:
		*ip = ev->variant.interrupt.ip;
		return 1;
	case ptev_iret:
		*ip = ev->variant.iret.ip;
		return 1;
	case ptev_smi:
		*ip = ev->variant.smi.ip;
		return 1;
	case ptev_rsm:
		*ip = ev->variant.rsm.ip;
		return 1;
	case ptev_init:
		*ip = ev->variant.init.ip;
		return 1;
	case ptev_vmentry:
		*ip = ev->variant.vmentry.ip;
		return 1;
	case ptev_vmexit:
		*ip = ev->variant.vmexit.ip;
		return 1;
	case ptev_shutdown:
		*ip = ev->variant.shutdown.ip;
		return 1;
	case ptev_uintr:
		*ip = ev->variant.uintr.ip;
		return 1;
	case ptev_uiret:
		*ip = ev->variant.uiret.ip;
		return 1;
	case ptev_trig:
		*ip = ev->variant.trig.ip;
		return 1;
	case ptev_swintr:
		*ip = ev->variant.swintr.ip;
		return 1;
	case ptev_syscall:
		*ip = ev->variant.syscall.ip;
		return 1;
	case ptev_sipi:
		*ip = 0;
		return 1;
	default:
		return 0;
	}
}

/* Fetch the next event if one is waiting: 1 if an event is being processed,
 * 0 if none, or a negative error. */
static int flow_event_pending(struct ptd_flow *flow)
{
	int status;

	if (flow->process_event)
		return 1;
	if (!(flow->status & pts_event_pending))
		return 0;
	status = ptd_qsrc_event(&flow->qs, &flow->event);
	if (status < 0)
		return status;
	flow->process_event = 1;
	flow->status = status;
	return 1;
}

/* SKL014: a TIP.PGD without IP may come from a direct jump or call whose
 * target lies outside the filter ranges. */
static int flow_at_skl014(const struct ptd_flow *flow,
                          const struct ptd_finsn *insn)
{
	uint64_t target;

	if (insn->iclass != ptic_call && insn->iclass != ptic_jump)
		return 0;
	if (!insn->is_direct)
		return 0;
	target = insn->ip + insn->size + (uint64_t)(int64_t)insn->disp;
	return !ptd_flow_filter_check(&flow->config.addr_filter, target);
}

/* Whether a synchronous disable binds to @insn. */
static int flow_at_disabled(const struct ptd_flow *flow,
                            const struct pt_event *ev,
                            const struct ptd_finsn *insn)
{
	if (ev->ip_suppressed) {
		if (insn_is_far(insn) || insn_changes_cpl(insn) ||
		    insn_changes_cr3(insn))
			return 1;
		/* Without a filter configuration the erratum cannot apply. */
		if (flow->config.addr_filter.config.addr_cfg &&
		    flow->config.errata.skl014 && flow_at_skl014(flow, insn))
			return 1;
		return 0;
	}

	switch (insn->iclass) {
	case ptic_other:
	case ptic_ptwrite:
		return 0;
	case ptic_call:
	case ptic_jump:
		/* A direct branch elsewhere than the disable IP is not it. */
		if (insn->is_direct &&
		    insn->ip + insn->size + (uint64_t)(int64_t)insn->disp !=
		            ev->variant.disabled.ip)
			return 0;
		return 1;
	case ptic_unknown:
		return -pte_bad_insn;
	default:
		return 1;
	}
}

/* Whether @insn needs trace to be followed. */
static int insn_needs_trace(const struct ptd_finsn *insn)
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

/* The block decoder binds a synchronous disable differently from the
 * instruction decoder: to the first instruction that needs trace, to a
 * MOV CR3 if the IP is suppressed (or, with SKL014 and a filter, to a direct
 * branch that leaves the filter ranges), and else to the instruction after
 * which the flow reaches the disable IP (see flow_check_ip_event()).
 * Returns status flags with pts_event_pending if the event binds to @insn,
 * 0 if not, or a negative error. */
static int flow_blk_at_disabled(struct ptd_flow *flow,
                                const struct pt_event *ev,
                                const struct ptd_finsn *insn)
{
	if (insn->iclass == ptic_unknown)
		return -pte_bad_insn;
	if (insn_needs_trace(insn)) {
		/* After a call, tracing most likely resumes at its return. */
		if (insn->iclass == ptic_call || insn->iclass == ptic_far_call)
			flow->ip = insn->ip + insn->size;
		else
			flow->ip = 0;
		return ptd_flow_status(flow, pts_event_pending);
	}
	if (!ev->ip_suppressed)
		return 0;
	if (insn_changes_cr3(insn) ||
	    (flow->config.addr_filter.config.addr_cfg &&
	     flow->config.errata.skl014 && flow_at_skl014(flow, insn))) {
		flow->ip = insn->ip;
		return ptd_flow_status(flow, pts_event_pending);
	}
	return 0;
}

static int flow_postpone(struct ptd_flow *flow, const struct ptd_finsn *insn)
{
	if (!flow->process_insn) {
		flow->process_insn = 1;
		flow->insn = *insn;
		/* The bytes may live in @insn's buffer. */
		if (insn->raw == insn->buf)
			flow->insn.raw = flow->insn.buf;
	}
	return ptd_flow_status(flow, pts_event_pending);
}

static void flow_clear_postponed(struct ptd_flow *flow)
{
	flow->process_insn = 0;
	flow->bound_paging = 0;
	flow->bound_vmcs = 0;
	flow->bound_ptwrite = 0;
}

static int flow_proceed_postponed(struct ptd_flow *flow)
{
	int status;

	if (!flow->process_insn)
		return -pte_internal;
	if (flow->enabled) {
		status = flow_proceed(flow, &flow->insn, 0);
		if (status < 0)
			return status;
	}
	flow_clear_postponed(flow);
	return 0;
}

/* Events that bind to @insn itself (before proceeding past it).  Returns
 * status flags with pts_event_pending if one does, else 0, or an error. */
static int flow_check_insn_event(struct ptd_flow *flow,
                                 const struct ptd_finsn *insn)
{
	struct pt_event *ev = &flow->event;
	int status;

	status = flow_event_pending(flow);
	if (status <= 0)
		return status;

	switch (ev->type) {
	case ptev_enabled:
	case ptev_overflow:
	case ptev_async_paging:
	case ptev_async_vmcs:
	case ptev_async_disabled:
	case ptev_async_branch:
	case ptev_exec_mode:
	case ptev_tsx:
	case ptev_stop:
	case ptev_exstop:
	case ptev_mwait:
	case ptev_pwre:
	case ptev_pwrx:
	case ptev_tick:
	case ptev_cbr:
	case ptev_mnt:
		return 0;

	case ptev_disabled:
		if (flow->block)
			return flow_blk_at_disabled(flow, ev, insn);
		status = flow_at_disabled(flow, ev, insn);
		if (status <= 0)
			return status;
		/* Where we expect tracing to resume. */
		status = insn_next_ip(&flow->ip, insn);
		if (status < 0) {
			flow->ip = 0;
			if (status != -pte_bad_query)
				return status;
			/* After a call, most likely at its return address. */
			if (insn->iclass == ptic_call ||
			    insn->iclass == ptic_far_call)
				flow->ip = insn->ip + insn->size;
		}
		break;

	case ptev_paging:
		if (flow->bound_paging || !insn_binds_to_pip(insn))
			return 0;
		flow->bound_paging = 1;
		return flow_postpone(flow, insn);

	case ptev_vmcs:
		if (flow->bound_vmcs || !insn_binds_to_vmcs(insn))
			return 0;
		flow->bound_vmcs = 1;
		return flow_postpone(flow, insn);

	case ptev_ptwrite:
		if (flow->bound_ptwrite)
			return 0;
		if (ev->ip_suppressed) {
			if (insn->iclass != ptic_ptwrite)
				return 0;
			ev->variant.ptwrite.ip = flow->ip;
			ev->ip_suppressed = 0;
		} else if (flow->ip != ev->variant.ptwrite.ip) {
			return 0;
		}
		flow->bound_ptwrite = 1;
		return flow_postpone(flow, insn);

	default: {
		uint64_t ip;

		/* The later events bind to IPs, not to instructions. */
		if (flow_late_event(ev, &ip))
			return 0;
		break;
	}
	}
	return ptd_flow_status(flow, pts_event_pending);
}

/* BDM64: right before a TSX abort, the trace of the branch before it may be
 * wrong.  If the abort IP cannot be reached from where that branch led us,
 * assume the branch went to the abort IP. */
static int flow_bdm64(struct ptd_flow *flow, const struct pt_event *ev,
                      const struct ptd_finsn *insn)
{
	int status;

	if (!ev->variant.tsx.aborted || !insn_is_branch(insn))
		return 0;
	status = range_is_contiguous(flow, flow->ip, ev->variant.tsx.ip,
	                             ptd_bdm64_max_steps);
	if (status > 0)
		return 0;
	flow->ip = ev->variant.tsx.ip;
	return 1;
}

/* SKD022: an asynchronous disable at VMLAUNCH or VMRESUME may be a
 * synchronous one with a bogus FUP; turn it into one. */
static int flow_skd022(struct ptd_flow *flow)
{
	struct pt_event *ev = &flow->event;
	struct ptd_finsn insn;
	uint64_t ip;

	if (ptd_fmem_fetch(&flow->mem, &insn, &flow->asid, flow->ip,
	                   flow->mode) < 0)
		return 0;
	if (insn.kind != ptd_ik_vmlaunch && insn.kind != ptd_ik_vmresume)
		return 0;
	ip = ev->variant.async_disabled.ip;
	ev->type = ptev_disabled;
	ev->variant.disabled.ip = ip;
	return 1;
}

/* Events that bind to the current IP.  @insn is the instruction we just
 * proceeded past, or NULL. */
static int flow_check_ip_event(struct ptd_flow *flow,
                               const struct ptd_finsn *insn)
{
	struct pt_event *ev = &flow->event;
	int status;

	status = flow_event_pending(flow);
	if (status <= 0) {
		if (status < 0)
			return status;
		return ptd_flow_status(flow, 0);
	}

	switch (ev->type) {
	case ptev_disabled:
		/* The block decoder binds it where the flow reaches its IP. */
		if (flow->block && insn && !ev->ip_suppressed &&
		    flow->ip == ev->variant.disabled.ip)
			return ptd_flow_status(flow, pts_event_pending);
		break;

	case ptev_async_disabled:
		if (ev->variant.async_disabled.at != flow->ip)
			break;
		if (flow->config.errata.skd022) {
			status = flow_skd022(flow);
			if (status > 0)
				break;
		}
		return ptd_flow_status(flow, pts_event_pending);

	case ptev_tsx:
		if (!ev->ip_suppressed) {
			if (insn && flow->config.errata.bdm64) {
				status = flow_bdm64(flow, ev, insn);
				if (status < 0)
					return status;
			}
			if (flow->ip != ev->variant.tsx.ip)
				break;
		}
		return ptd_flow_status(flow, pts_event_pending);

	case ptev_async_branch:
		if (ev->variant.async_branch.from != flow->ip)
			break;
		return ptd_flow_status(flow, pts_event_pending);

	case ptev_exec_mode:
		if (!ev->ip_suppressed && ev->variant.exec_mode.ip != flow->ip)
			break;
		return ptd_flow_status(flow, pts_event_pending);

	case ptev_paging:
	case ptev_vmcs:
	case ptev_ptwrite:
		if (flow->enabled)
			break;
		return ptd_flow_status(flow, pts_event_pending);

	case ptev_async_paging:
		if (!ev->ip_suppressed &&
		    ev->variant.async_paging.ip != flow->ip)
			break;
		return ptd_flow_status(flow, pts_event_pending);

	case ptev_async_vmcs:
		if (!ev->ip_suppressed && ev->variant.async_vmcs.ip != flow->ip)
			break;
		return ptd_flow_status(flow, pts_event_pending);

	case ptev_exstop:
		if (!ev->ip_suppressed && flow->enabled &&
		    flow->ip != ev->variant.exstop.ip)
			break;
		return ptd_flow_status(flow, pts_event_pending);

	case ptev_mwait:
		if (!ev->ip_suppressed && flow->enabled &&
		    flow->ip != ev->variant.mwait.ip)
			break;
		return ptd_flow_status(flow, pts_event_pending);

	case ptev_enabled:
	case ptev_overflow:
	case ptev_stop:
	case ptev_pwre:
	case ptev_pwrx:
	case ptev_tick:
	case ptev_cbr:
	case ptev_mnt:
		return ptd_flow_status(flow, pts_event_pending);

	default: {
		uint64_t ip;

		/* The later events: at their IP (an IP of 0 or a
		 * suppressed one, or tracing disabled: right away). */
		if (!flow_late_event(ev, &ip))
			break;
		if (!ev->ip_suppressed && ip && flow->enabled && ip != flow->ip)
			break;
		return ptd_flow_status(flow, pts_event_pending);
	}
	}
	return ptd_flow_status(flow, 0);
}

/* --- The API-level operations ------------------------------------------------
 */

static int flow_sync(struct ptd_flow *flow, enum ptd_qsrc_how how,
                     uint64_t offset)
{
	const int backward = how == ptd_qsrc_backward;
	int status;

	if (!backward)
		flow->back_known = 0;
	else if (flow->back_known) {
		how = ptd_qsrc_backward_on;
		offset = flow->back_psb;
	}
	flow_reset(flow);
	ptd_fmem_check(&flow->mem);
	status = ptd_qsrc_sync(&flow->qs, how, offset, &flow->ip);
	if (status < 0) {
		uint64_t at, psb;
		int have;

		/* A PSB+ that failed: the next backward synchronization goes
		 * to a PSB before where the query decoder stopped, as
		 * libipt's does, or before the failed PSB itself where that
		 * lies before (libipt's would try that PSB again).  (No PSB
		 * (there): the decoder stays where it was, as libipt's, and a
		 * later backward synchronization goes from there as
		 * before.) */
		if (backward && status != -pte_eos) {
			have = pt_qry_get_offset(flow->qs.qry, &at) >= 0;
			if (pt_qry_get_sync_offset(flow->qs.qry, &psb) >= 0 &&
			    (!have || psb < at)) {
				at = psb;
				have = 1;
			}
			if (have) {
				flow->back_known = 1;
				flow->back_psb = at;
			}
		}
		return status;
	}
	if (backward) {
		flow->back_known = flow->qs.sync_known ? 1 : 0;
		flow->back_psb = flow->qs.sync_offset;
	}
	flow->status = status;
	if (!(status & pts_ip_suppressed))
		flow->enabled = 1;
	return flow_check_ip_event(flow, NULL);
}

int ptd_flow_sync(struct ptd_flow *flow, enum ptd_qsrc_how how, uint64_t offset)
{
	return ptd_qsrc_result(&flow->qs, flow_sync(flow, how, offset));
}

int ptd_flow_check_ip_event(struct ptd_flow *flow, const struct ptd_finsn *insn)
{
	return flow_check_ip_event(flow, insn);
}

int ptd_flow_exec_pushed(struct ptd_flow *flow, const struct ptd_finsn *insn,
                         int pushed)
{
	int status;

	/* Most instructions: no event waits, no branch. */
	if (insn->iclass == ptic_other && ptd_flow_quiet(flow)) {
		flow->ip = insn->ip + insn->size;
		return ptd_flow_status(flow, 0);
	}

	if (!ptd_flow_quiet(flow)) {
		status = flow_check_insn_event(flow, insn);
		if (status != 0) {
			if (status < 0 || (status & pts_event_pending))
				return status;
		}
	}

	status = flow_proceed(flow, insn, pushed);
	if (status < 0)
		return status;

	if (ptd_flow_quiet(flow))
		return ptd_flow_status(flow, 0);
	return flow_check_ip_event(flow, insn);
}

int ptd_flow_exec(struct ptd_flow *flow, const struct ptd_finsn *insn)
{
	return ptd_flow_exec_pushed(flow, insn, 0);
}

static int flow_process_paging(struct ptd_flow *flow, uint64_t cr3)
{
	if (flow->asid.cr3 != cr3) {
		flow->asid.cr3 = cr3;
		ptd_fmem_forget(&flow->mem);
	}
	return 0;
}

static int flow_process_vmcs(struct ptd_flow *flow, uint64_t vmcs)
{
	if (flow->asid.vmcs != vmcs) {
		flow->asid.vmcs = vmcs;
		ptd_fmem_forget(&flow->mem);
	}
	return 0;
}

static int flow_event(struct ptd_flow *flow, struct pt_event *uevent,
                      size_t size)
{
	struct pt_event *ev = &flow->event;
	int status;

	if (!flow->process_event)
		return -pte_bad_query;
	ptd_fmem_check(&flow->mem);

	switch (ev->type) {
	case ptev_enabled:
		/* Tracing resumes where it was disabled. */
		if (flow->ip == ev->variant.enabled.ip)
			ev->variant.enabled.resumed = 1;
		if (ev->status_update)
			return -pte_bad_context;
		if (ev->ip_suppressed)
			return -pte_noip;
		if (flow->enabled)
			return -pte_bad_context;
		flow->ip = ev->variant.enabled.ip;
		flow->enabled = 1;
		break;

	case ptev_async_disabled:
		if ((flow->block || !ev->ip_suppressed) &&
		    flow->ip != ev->variant.async_disabled.at)
			return -pte_bad_query;
		/* fall through */
	case ptev_disabled:
		if (ev->status_update || !flow->enabled)
			return -pte_bad_context;
		/* We keep the IP: tracing may resume there. */
		flow->enabled = 0;
		break;

	case ptev_async_branch:
		if (flow->ip != ev->variant.async_branch.from)
			return -pte_bad_query;
		if (ev->status_update || !flow->enabled)
			return -pte_bad_context;
		flow->ip = ev->variant.async_branch.to;
		break;

	case ptev_async_paging:
		if (!ev->ip_suppressed &&
		    flow->ip != ev->variant.async_paging.ip)
			return -pte_bad_query;
		/* fall through */
	case ptev_paging:
		flow_process_paging(flow, ev->variant.paging.cr3);
		break;

	case ptev_async_vmcs:
		if (!ev->ip_suppressed && flow->ip != ev->variant.async_vmcs.ip)
			return -pte_bad_query;
		/* fall through */
	case ptev_vmcs:
		flow_process_vmcs(flow, ev->variant.vmcs.base);
		break;

	case ptev_overflow:
		if (ev->status_update)
			return -pte_bad_context;
		if (ev->ip_suppressed) {
			/* The overflow ended while tracing was off. */
			flow->enabled = 0;
			flow->ip = 0;
		} else {
			flow->ip = ev->variant.overflow.ip;
			flow->enabled = 1;
		}
		/* The transaction state is not known any more. */
		flow->speculative = 0;
		break;

	case ptev_exec_mode:
		if (flow->block && !ev->ip_suppressed &&
		    flow->ip != ev->variant.exec_mode.ip)
			return -pte_bad_query;
		if (ev->status_update && flow->enabled &&
		    flow->mode != ptem_unknown &&
		    flow->mode != ev->variant.exec_mode.mode)
			return -pte_bad_status_update;
		flow->mode = ev->variant.exec_mode.mode;
		break;

	case ptev_tsx:
		if (flow->block && !ev->ip_suppressed &&
		    flow->ip != ev->variant.tsx.ip)
			return -pte_bad_query;
		flow->speculative = ev->variant.tsx.speculative;
		break;

	case ptev_stop:
		if (ev->status_update || flow->enabled)
			return -pte_bad_context;
		break;

	case ptev_exstop:
		if (!ev->ip_suppressed && flow->enabled &&
		    flow->ip != ev->variant.exstop.ip)
			return -pte_bad_query;
		break;

	case ptev_mwait:
		if (!ev->ip_suppressed && flow->enabled &&
		    flow->ip != ev->variant.mwait.ip)
			return -pte_bad_query;
		break;

	case ptev_pwre:
	case ptev_pwrx:
	case ptev_ptwrite:
	case ptev_tick:
	case ptev_cbr:
	case ptev_mnt:
		break;

	default: {
		uint64_t ip;

		/* The later events report what happened; the flow goes on
		 * by the other events and the branches.  After an
		 * asynchronous transfer (its FUP went to this event), the
		 * target comes as the next TIP. */
		if (!flow_late_event(ev, &ip))
			return -pte_bad_query;
		switch (ev->type) {
		case ptev_interrupt:
		case ptev_smi:
		case ptev_init:
		case ptev_vmexit:
		case ptev_shutdown:
		case ptev_uintr:
			if (flow->enabled && !ev->ip_suppressed &&
			    ip == flow->ip)
				flow->et_branch = 1;
			break;
		default:
			break;
		}
		break;
	}
	}

	/* A whole event is the usual case: a copy of known size, which the
	 * compiler makes a few vector moves (memcpy() of a variable size
	 * became a rep movsq, about 3 % of the batch instruction flow's time
	 * on mruby, an event per 15 runs). */
	if (size >= sizeof(*ev))
		*uevent = *ev;
	else
		memcpy(uevent, ev, size);
	flow->process_event = 0;

	/* More events may bind to the instruction we are holding; once they
	 * are done, proceed past it. */
	if (flow->process_insn) {
		status = flow_check_insn_event(flow, &flow->insn);
		if (status != 0) {
			if (status < 0 || (status & pts_event_pending))
				return status;
		}
		status = flow_proceed_postponed(flow);
		if (status < 0)
			return status;
	}
	status = flow_check_ip_event(flow, NULL);
	if (status < 0 || (status & pts_event_pending) || !flow->et_branch)
		return status;

	/* The target of the asynchronous transfer. */
	flow->et_branch = 0;
	status = ptd_qsrc_indirect(&flow->qs, &flow->ip);
	if (status < 0)
		return status;
	flow->status = status;
	if (status & pts_ip_suppressed)
		return -pte_noip;
	return flow_check_ip_event(flow, NULL);
}

int ptd_flow_event(struct ptd_flow *flow, struct pt_event *uevent, size_t size)
{
	return ptd_qsrc_result(&flow->qs, flow_event(flow, uevent, size));
}
