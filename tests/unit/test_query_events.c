/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the query decoder's Event Trace events (CFE, EVD), TRIG and
 * iflags: traces built with our encoder, every event checked with the packet
 * it binds to, its IP, its payload and its time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptdecode/ptdecode.h"

#include "test_util.h"

static void add_cfe(struct ptd_t_trace *t, enum pt_cfe_type type,
                    uint8_t vector, int ip)
{
	struct pt_packet *p = ptd_t_add(t, ppt_cfe);

	p->payload.cfe.type = type;
	p->payload.cfe.vector = vector;
	p->payload.cfe.ip = ip ? 1 : 0;
}

static void add_evd(struct ptd_t_trace *t, enum pt_evd_type type,
                    uint64_t payload)
{
	struct pt_packet *p = ptd_t_add(t, ppt_evd);

	p->payload.evd.type = type;
	p->payload.evd.payload = payload;
}

static void add_mode_exec(struct ptd_t_trace *t, enum pt_exec_mode mode,
                          int iflag)
{
	struct pt_packet *p = ptd_t_add(t, ppt_mode);

	p->payload.mode.leaf = pt_mol_exec;
	p->payload.mode.bits.exec = pt_set_exec_mode(mode);
	p->payload.mode.bits.exec.iflag = iflag ? 1 : 0;
}

/* PSB+ at 0x401000 with tracing on and TSC @tsc. */
static void add_psb(struct ptd_t_trace *t, uint64_t tsc, int iflag)
{
	ptd_t_add(t, ppt_psb);
	ptd_t_add_tsc(t, tsc);
	add_mode_exec(t, ptem_64bit, iflag);
	ptd_t_add_ip(t, ppt_fup, pt_ipc_full, 0x401000);
	ptd_t_add(t, ppt_psbend);
}

/* What a user following the trace sees, in order. */
enum item_kind { item_event, item_tnt, item_tip, item_error };

struct item {
	enum item_kind kind;
	struct pt_event ev; /* item_event */
	uint64_t ip;        /* item_tip */
	int taken;          /* item_tnt */
	int error;          /* item_error */
};

struct run {
	struct item items[64];
	size_t n;
};

static void record(struct run *r, const struct item *it)
{
	assert_true(r->n < sizeof(r->items) / sizeof(r->items[0]));
	r->items[r->n++] = *it;
}

/* Decode @t to its end like a flow decoder would: events when pending,
 * otherwise a conditional branch, or else an indirect branch. */
static void drive(struct ptd_t_trace *t, int iflags_events, struct run *r)
{
	struct pt_query_decoder *dec;
	struct pt_config config;
	uint64_t ip = 0;
	int status;

	ptd_t_trace_encode(t);
	memset(r, 0, sizeof(*r));
	pt_config_init(&config);
	config.begin = t->buf;
	config.end = t->buf + t->size;
	config.flags.variant.query.enable_iflags_events = iflags_events ? 1 : 0;
	dec = pt_qry_alloc_decoder(&config);
	assert_non_null(dec);

	status = pt_qry_sync_forward(dec, &ip);
	for (;;) {
		struct item it;

		memset(&it, 0, sizeof(it));
		if (status < 0) {
			if (status == -pte_eos)
				break;
			it.kind = item_error;
			it.error = status;
			record(r, &it);
			break;
		}
		if (status & pts_event_pending) {
			status = pt_qry_event(dec, &it.ev, sizeof(it.ev));
			if (status >= 0) {
				/* The query decoder leaves branches to the
				 * branch queries. */
				assert_int_not_equal(it.ev.type, ptev_tip);
				assert_int_not_equal(it.ev.type, ptev_tnt);
				it.kind = item_event;
				record(r, &it);
			}
			continue;
		}
		if (status & pts_eos)
			break;
		status = pt_qry_cond_branch(dec, &it.taken);
		if (status >= 0) {
			it.kind = item_tnt;
			record(r, &it);
			continue;
		}
		if (status != -pte_bad_query)
			continue;
		status = pt_qry_indirect_branch(dec, &it.ip);
		if (status >= 0) {
			it.kind = item_tip;
			record(r, &it);
		}
	}
	pt_qry_free_decoder(dec);
}

/* The @i-th item, which must be an event of @type. */
static const struct pt_event *event_at(const struct run *r, size_t i,
                                       enum pt_event_type type)
{
	assert_true(i < r->n);
	assert_int_equal(r->items[i].kind, item_event);
	assert_int_equal(r->items[i].ev.type, type);
	return &r->items[i].ev;
}

/* Skip the PSB+ status events (exec_mode, and iflags with the flag). */
static size_t after_psb(const struct run *r, int iflags_events)
{
	size_t i = 0;

	assert_true(event_at(r, i++, ptev_exec_mode)->status_update);
	if (iflags_events)
		assert_true(event_at(r, i++, ptev_iflags)->status_update);
	return i;
}

/* EVD(cr2) CFE(intr, IP) FUP TIP: the interrupt binds to the FUP, with CR2,
 * vector, IP and the time at the FUP, and consumes it: the TIP is a plain
 * indirect branch. */
static void test_interrupt_bound(void **state)
{
	struct ptd_t_trace t = {0};
	struct run r;
	const struct pt_event *ev;
	size_t i;

	(void)state;
	add_psb(&t, 0x1000, 0);
	add_evd(&t, pt_evd_cr2, 0xdead000);
	add_cfe(&t, pt_cfe_intr, pt_cfe_intr_pf, 1);
	ptd_t_add_tsc(&t, 0x2000);
	ptd_t_add_ip(&t, ppt_fup, pt_ipc_update_16, 0x1234);
	ptd_t_add_ip(&t, ppt_tip, pt_ipc_full, 0xffffffff81000000);
	drive(&t, 0, &r);

	i = after_psb(&r, 0);
	ev = event_at(&r, i++, ptev_interrupt);
	assert_int_equal(ev->variant.interrupt.vector, pt_cfe_intr_pf);
	assert_int_equal(ev->variant.interrupt.has_cr2, 1);
	assert_true(ev->variant.interrupt.cr2 == 0xdead000);
	assert_int_equal(ev->ip_suppressed, 0);
	assert_true(ev->variant.interrupt.ip == 0x401234);
	assert_int_equal(ev->has_tsc, 1);
	assert_true(ev->tsc == 0x2000);
	assert_int_equal(ev->status_update, 0);
	assert_int_equal(r.items[i].kind, item_tip);
	assert_true(r.items[i].ip == 0xffffffff81000000);
	assert_int_equal(r.n, i + 1);
}

/* CFE(intr) without IP while tracing is on: the interrupt binds to the FUP
 * of the transfer and the asynchronous branch still follows. */
static void test_interrupt_unbound(void **state)
{
	struct ptd_t_trace t = {0};
	struct run r;
	const struct pt_event *ev;
	size_t i;

	(void)state;
	add_psb(&t, 0x1000, 0);
	add_cfe(&t, pt_cfe_intr, 32, 0);
	ptd_t_add_ip(&t, ppt_fup, pt_ipc_update_16, 0x2000);
	ptd_t_add_ip(&t, ppt_tip, pt_ipc_full, 0xffffffff81000000);
	drive(&t, 0, &r);

	i = after_psb(&r, 0);
	ev = event_at(&r, i++, ptev_interrupt);
	assert_int_equal(ev->variant.interrupt.vector, 32);
	assert_int_equal(ev->variant.interrupt.has_cr2, 0);
	assert_true(ev->variant.interrupt.ip == 0x402000);
	ev = event_at(&r, i++, ptev_async_branch);
	assert_true(ev->variant.async_branch.from == 0x402000);
	assert_true(ev->variant.async_branch.to == 0xffffffff81000000);
	assert_int_equal(r.n, i);
}

/* With tracing off, CFEs stand alone with their IP suppressed and the time
 * of the CFE. */
static void test_standalone_disabled(void **state)
{
	struct ptd_t_trace t = {0};
	struct run r;
	const struct pt_event *ev;
	size_t i = 0;

	(void)state;
	ptd_t_add(&t, ppt_psb);
	ptd_t_add_tsc(&t, 0x1000);
	ptd_t_add(&t, ppt_psbend);
	add_cfe(&t, pt_cfe_intr, 2, 0);
	ptd_t_add_tsc(&t, 0x1100);
	add_cfe(&t, pt_cfe_sipi, 0x9a, 0);
	add_cfe(&t, pt_cfe_init, 0, 0);
	add_cfe(&t, pt_cfe_smi, 0, 0);
	add_cfe(&t, pt_cfe_uintr, 7, 0);
	add_cfe(&t, pt_cfe_swintr, 0x80, 0);
	add_cfe(&t, pt_cfe_syscall, 0, 0);
	ptd_t_add_ip(&t, ppt_tip_pge, pt_ipc_full, 0x500000);
	drive(&t, 0, &r);

	ev = event_at(&r, i++, ptev_interrupt);
	assert_int_equal(ev->variant.interrupt.vector, 2);
	assert_int_equal(ev->ip_suppressed, 1);
	assert_true(ev->tsc == 0x1000);
	ev = event_at(&r, i++, ptev_sipi);
	assert_int_equal(ev->variant.sipi.vector, 0x9a);
	assert_int_equal(ev->ip_suppressed, 1);
	assert_true(ev->tsc == 0x1100);
	assert_int_equal(event_at(&r, i++, ptev_init)->ip_suppressed, 1);
	assert_int_equal(event_at(&r, i++, ptev_smi)->ip_suppressed, 1);
	ev = event_at(&r, i++, ptev_uintr);
	assert_int_equal(ev->variant.uintr.vector, 7);
	assert_int_equal(ev->ip_suppressed, 1);
	ev = event_at(&r, i++, ptev_swintr);
	assert_int_equal(ev->variant.swintr.vector, 0x80);
	assert_int_equal(ev->ip_suppressed, 1);
	assert_int_equal(event_at(&r, i++, ptev_syscall)->ip_suppressed, 1);
	ev = event_at(&r, i++, ptev_enabled);
	assert_true(ev->variant.enabled.ip == 0x500000);
	assert_int_equal(r.n, i);
}

/* IRET, VM entry, shutdown and UIRET without IP stand alone even with
 * tracing on; with IP they bind to the FUP. */
static void test_standalone_always(void **state)
{
	static const struct {
		enum pt_cfe_type cfe;
		enum pt_event_type ev;
	} kinds[] = {{pt_cfe_iret, ptev_iret},
	             {pt_cfe_vmentry, ptev_vmentry},
	             {pt_cfe_shutdown, ptev_shutdown},
	             {pt_cfe_uiret, ptev_uiret}};

	(void)state;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); ++k) {
		struct ptd_t_trace t = {0};
		struct run r;
		const struct pt_event *ev;
		size_t i;

		add_psb(&t, 0x1000, 0);
		add_cfe(&t, kinds[k].cfe, 0, 0);
		add_cfe(&t, kinds[k].cfe, 0, 1);
		ptd_t_add_ip(&t, ppt_fup, pt_ipc_update_16, 0x3000);
		ptd_t_add_ip(&t, ppt_tip, pt_ipc_update_16, 0x4000);
		drive(&t, 0, &r);

		i = after_psb(&r, 0);
		ev = event_at(&r, i++, kinds[k].ev);
		assert_int_equal(ev->ip_suppressed, 1);
		ev = event_at(&r, i++, kinds[k].ev);
		assert_int_equal(ev->ip_suppressed, 0);
		/* Every variant with an IP keeps it in its first 8 bytes
		 * after the other fields; compare through the type. */
		switch (kinds[k].ev) {
		case ptev_iret:
			assert_true(ev->variant.iret.ip == 0x403000);
			break;
		case ptev_vmentry:
			assert_true(ev->variant.vmentry.ip == 0x403000);
			break;
		case ptev_shutdown:
			assert_true(ev->variant.shutdown.ip == 0x403000);
			break;
		default:
			assert_true(ev->variant.uiret.ip == 0x403000);
			break;
		}
		/* The FUP was consumed: the TIP is an indirect branch. */
		assert_int_equal(r.items[i].kind, item_tip);
		assert_true(r.items[i].ip == 0x404000);
		assert_int_equal(r.n, i + 1);
	}
}

/* A VM exit: EVD vmxr and vmxq, then CFE vmexit_intr with its vector and
 * the FUP of the exit. */
static void test_vmexit(void **state)
{
	struct ptd_t_trace t = {0};
	struct run r;
	const struct pt_event *ev;
	size_t i;

	(void)state;
	add_psb(&t, 0x1000, 0);
	add_evd(&t, pt_evd_vmxr, 1);
	add_evd(&t, pt_evd_vmxq, 0x55);
	add_cfe(&t, pt_cfe_vmexit_intr, 0x20, 1);
	ptd_t_add_ip(&t, ppt_fup, pt_ipc_update_16, 0x5000);
	add_cfe(&t, pt_cfe_vmexit, 0, 1);
	ptd_t_add_ip(&t, ppt_fup, pt_ipc_update_16, 0x6000);
	drive(&t, 0, &r);

	i = after_psb(&r, 0);
	ev = event_at(&r, i++, ptev_vmexit);
	assert_int_equal(ev->variant.vmexit.has_vector, 1);
	assert_int_equal(ev->variant.vmexit.vector, 0x20);
	assert_int_equal(ev->variant.vmexit.has_vmxr, 1);
	assert_true(ev->variant.vmexit.vmxr == 1);
	assert_int_equal(ev->variant.vmexit.has_vmxq, 1);
	assert_true(ev->variant.vmexit.vmxq == 0x55);
	assert_true(ev->variant.vmexit.ip == 0x405000);
	ev = event_at(&r, i++, ptev_vmexit);
	assert_int_equal(ev->variant.vmexit.has_vector, 0);
	assert_int_equal(ev->variant.vmexit.has_vmxr, 0);
	assert_int_equal(ev->variant.vmexit.has_vmxq, 0);
	assert_true(ev->variant.vmexit.ip == 0x406000);
	assert_int_equal(r.n, i);
}

/* RSM binds to the FUP of the transfer without taking its IP; an RSM or
 * SIPI with the IP bit is a bad packet; EVD data that does not fit the CFE
 * is a bad context. */
static void test_rsm_and_errors(void **state)
{
	struct ptd_t_trace t = {0};
	struct run r;
	const struct pt_event *ev;
	size_t i;

	(void)state;
	add_psb(&t, 0x1000, 0);
	add_cfe(&t, pt_cfe_rsm, 0, 0);
	ptd_t_add_ip(&t, ppt_fup, pt_ipc_update_16, 0x7000);
	ptd_t_add_ip(&t, ppt_tip, pt_ipc_update_16, 0x8000);
	add_cfe(&t, pt_cfe_rsm, 0, 1);
	drive(&t, 0, &r);

	i = after_psb(&r, 0);
	ev = event_at(&r, i++, ptev_rsm);
	assert_int_equal(ev->ip_suppressed, 1);
	ev = event_at(&r, i++, ptev_async_branch);
	assert_true(ev->variant.async_branch.from == 0x407000);
	assert_true(ev->variant.async_branch.to == 0x408000);
	assert_int_equal(r.items[i].kind, item_error);
	assert_int_equal(r.items[i].error, -pte_bad_packet);

	memset(&t, 0, sizeof(t));
	add_psb(&t, 0x1000, 0);
	add_evd(&t, pt_evd_cr2, 0x1000);
	add_cfe(&t, pt_cfe_iret, 0, 1);
	drive(&t, 0, &r);
	i = after_psb(&r, 0);
	assert_int_equal(r.items[i].kind, item_error);
	assert_int_equal(r.items[i].error, -pte_bad_context);

	memset(&t, 0, sizeof(t));
	add_psb(&t, 0x1000, 0);
	add_evd(&t, pt_evd_vmxr, 1);
	add_evd(&t, pt_evd_vmxr, 2);
	add_cfe(&t, pt_cfe_vmexit, 0, 1);
	drive(&t, 0, &r);
	i = after_psb(&r, 0);
	assert_int_equal(r.items[i].kind, item_error);
	assert_int_equal(r.items[i].error, -pte_bad_context);
}

/* A CFE type libipt does not know is skipped, with the FUP its IP bit
 * binds; an unknown EVD type is skipped. */
static void test_unknown_cfe(void **state)
{
	struct ptd_t_trace t = {0};
	struct run r;
	size_t i;

	(void)state;
	add_psb(&t, 0x1000, 0);
	add_evd(&t, (enum pt_evd_type)7, 0x77);
	add_cfe(&t, (enum pt_cfe_type)0x1f, 0, 1);
	ptd_t_add_ip(&t, ppt_fup, pt_ipc_update_16, 0x9000);
	ptd_t_add_ip(&t, ppt_tip, pt_ipc_update_16, 0xa000);
	drive(&t, 0, &r);

	i = after_psb(&r, 0);
	assert_int_equal(r.items[i].kind, item_tip);
	assert_true(r.items[i].ip == 0x40a000);
	assert_int_equal(r.n, i + 1);
}

/* TRIG: standalone with a count or without (IP suppressed), bound to a FUP
 * with its IP bit; bad combinations are bad packets. */
static void test_trig(void **state)
{
	struct ptd_t_trace t = {0};
	struct pt_packet *p;
	struct run r;
	const struct pt_event *ev;
	size_t i;

	(void)state;
	add_psb(&t, 0x1000, 0);
	p = ptd_t_add(&t, ppt_trig);
	p->payload.trig.trbv = 0x3;
	p->payload.trig.icntv = 1;
	p->payload.trig.icnt = 12;
	p->payload.trig.mult = 1;
	p = ptd_t_add(&t, ppt_trig);
	p->payload.trig.trbv = 0x1;
	ptd_t_add_tsc(&t, 0x3000);
	p = ptd_t_add(&t, ppt_trig);
	p->payload.trig.trbv = 0x4;
	p->payload.trig.ip = 1;
	p->payload.trig.icntv = 1;
	ptd_t_add_tsc(&t, 0x4000);
	ptd_t_add_ip(&t, ppt_fup, pt_ipc_update_16, 0xb000);
	p = ptd_t_add(&t, ppt_trig);
	p->payload.trig.ip = 1;
	p->payload.trig.icntv = 1;
	p->payload.trig.icnt = 1;
	drive(&t, 0, &r);

	i = after_psb(&r, 0);
	ev = event_at(&r, i++, ptev_trig);
	assert_int_equal(ev->variant.trig.trbv, 0x3);
	assert_int_equal(ev->variant.trig.icnt, 12);
	assert_int_equal(ev->variant.trig.mult, 1);
	assert_int_equal(ev->ip_suppressed, 0);
	assert_true(ev->variant.trig.ip == 0);
	assert_true(ev->tsc == 0x1000);
	ev = event_at(&r, i++, ptev_trig);
	assert_int_equal(ev->variant.trig.trbv, 0x1);
	assert_int_equal(ev->ip_suppressed, 1);
	ev = event_at(&r, i++, ptev_trig);
	assert_int_equal(ev->variant.trig.trbv, 0x4);
	assert_int_equal(ev->variant.trig.icnt, 0);
	assert_true(ev->variant.trig.ip == 0x40b000);
	assert_true(ev->tsc == 0x4000);
	assert_int_equal(r.items[i].kind, item_error);
	assert_int_equal(r.items[i].error, -pte_bad_packet);
}

/* iflags events only with enable_iflags_events: the PSB+ restates IF; a
 * MODE.Exec that changes IF gives an iflags event after the exec_mode
 * event, both bound to the FUP (consumed) or TIP that comes first; one
 * that does not change IF gives none. */
static void test_iflags(void **state)
{
	struct ptd_t_trace t = {0};
	struct run r;
	const struct pt_event *ev;
	size_t i;

	(void)state;
	add_psb(&t, 0x1000, 1);
	add_mode_exec(&t, ptem_64bit, 0);
	ptd_t_add_ip(&t, ppt_fup, pt_ipc_update_16, 0xc000);
	add_mode_exec(&t, ptem_64bit, 0);
	ptd_t_add_ip(&t, ppt_tip, pt_ipc_update_16, 0xd000);
	add_mode_exec(&t, ptem_32bit, 1);
	ptd_t_add_ip(&t, ppt_tip, pt_ipc_update_16, 0xe000);

	drive(&t, 1, &r);
	i = 0;
	ev = event_at(&r, i++, ptev_exec_mode);
	assert_int_equal(ev->status_update, 1);
	ev = event_at(&r, i++, ptev_iflags);
	assert_int_equal(ev->status_update, 1);
	assert_int_equal(ev->variant.iflags.iflag, 1);
	assert_true(ev->variant.iflags.ip == 0x401000);
	/* IF cleared, bound to the FUP (e.g. CLI). */
	ev = event_at(&r, i++, ptev_exec_mode);
	assert_true(ev->variant.exec_mode.ip == 0x40c000);
	ev = event_at(&r, i++, ptev_iflags);
	assert_int_equal(ev->variant.iflags.iflag, 0);
	assert_true(ev->variant.iflags.ip == 0x40c000);
	assert_int_equal(ev->status_update, 0);
	/* No IF change: the execution mode alone, at the TIP, which is an
	 * indirect branch, too. */
	ev = event_at(&r, i++, ptev_exec_mode);
	assert_true(ev->variant.exec_mode.ip == 0x40d000);
	assert_int_equal(r.items[i].kind, item_tip);
	assert_true(r.items[i++].ip == 0x40d000);
	/* Mode and IF change at a TIP. */
	ev = event_at(&r, i++, ptev_exec_mode);
	assert_int_equal(ev->variant.exec_mode.mode, ptem_32bit);
	assert_true(ev->variant.exec_mode.ip == 0x40e000);
	ev = event_at(&r, i++, ptev_iflags);
	assert_int_equal(ev->variant.iflags.iflag, 1);
	assert_true(ev->variant.iflags.ip == 0x40e000);
	assert_int_equal(r.items[i].kind, item_tip);
	assert_true(r.items[i++].ip == 0x40e000);
	assert_int_equal(r.n, i);

	/* Without the flag: libipt 2.0's behaviour, no iflags events, and
	 * the FUP after a MODE.Exec starts an asynchronous branch. */
	drive(&t, 0, &r);
	for (i = 0; i < r.n; ++i)
		if (r.items[i].kind == item_event)
			assert_int_not_equal(r.items[i].ev.type, ptev_iflags);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_interrupt_bound),
	        cmocka_unit_test(test_interrupt_unbound),
	        cmocka_unit_test(test_standalone_disabled),
	        cmocka_unit_test(test_standalone_always),
	        cmocka_unit_test(test_vmexit),
	        cmocka_unit_test(test_rsm_and_errors),
	        cmocka_unit_test(test_unknown_cfe),
	        cmocka_unit_test(test_trig),
	        cmocka_unit_test(test_iflags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
