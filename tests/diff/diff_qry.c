/* SPDX-License-Identifier: BSD-3-Clause */
/* Differential test of the query decoder against libipt 2.0.5's.
 *
 * A generator writes random traces that are valid at the query level: PSB+
 * with FUP, MODE and PIP/VMCS, TIP.PGE, TNT-8/TNT-64, TIPs with every IP
 * compression, FUP+TIP asynchronous branches (with PIP, VMCS and MODE.Exec
 * in flight), TIP.PGD and FUP+TIP.PGD, MODE.TSX, OVF with and without FUP,
 * PTWRITE, EXSTOP, MWAIT, PWRE/PWRX, MNT, STOP and the timing packets (TSC,
 * TMA, MTC, CYC, CBR) with a plausible clock.  A driver that knows nothing of
 * the program queries both decoders the same way (an event while one is
 * pending, else a conditional branch, else an indirect branch; on an error,
 * sync forward) and records every result: return values, flags, taken bits,
 * IPs, events with all fields, pt_qry_time() and the offset.  The records
 * must be equal.  Our decoder runs with the libipt time estimator
 * (ptd_qry_alloc_decoder with ptd_time_mode_libipt), so that times compare
 * number for number; the one documented difference is that we stamp every
 * event with its time where libipt 2.0.5 leaves has_tsc clear (EXSTOP,
 * MWAIT, PWRE, PWRX, PTWRITE, and VMCS bound to an asynchronous branch):
 * for those, times are compared only where libipt gives one.
 *
 * Each trace is also decoded with ptd_qry_next_batch(), whose items must be
 * our pull API's results one for one, failed calls and their flags included
 * (with libipt's and, for every fourth trace, our own time estimator).
 *
 * With --corrupt, one to three bytes of each trace are overwritten first
 * (chosen by the seed), and the two decoders are driven in lockstep, call
 * by call, in a child process per trace that gets a few seconds (so that
 * neither decoder can hang or crash the run), for at most eight calls per
 * byte: errors, their offsets and the resynchronization at the next PSB are
 * compared too.  The first difference of a trace is reported (with
 * PTD_DIFF_QRY_DUMP=<prefix>, the corrupted trace is written to
 * <prefix>-<trace>.pt and its configuration, as ptqry's options, to
 * <prefix>-<trace>.args) and the next trace taken; at the end the differences
 * are counted by kind.  Differences of the kinds docs/compatibility.md
 * describes (documented_diff()) are counted apart; more other differing
 * traces than --max-diffs (default 0) fail; a hang or crash in libipt is
 * counted apart and does not.
 *
 * With --cut (alone or with --corrupt), each trace ends at a random offset
 * in its second half, so that the end usually cuts a packet off, as the
 * end of a perf AUX buffer does; the two decoders run in lockstep as with
 * --corrupt.
 *
 * With --sync backward or --sync set (alone or with --corrupt or --cut),
 * the lockstep walk synchronizes with pt_qry_sync_backward() or
 * pt_qry_sync_set() instead of pt_qry_sync_forward(), at the start, after
 * errors and every few calls (struct sync_plan), and compares each
 * synchronization's status, IP, sync offset and offset.
 *
 * Usage: diff_qry [--seed N] [--traces N] [--kb N] [--corrupt] [--cut]
 *        [--sync backward|set] [--max-diffs N] [-v]
 * Exit status: 0 pass, 1 failure, 77 libipt.so.2 not loadable (skip). */
#define _DEFAULT_SOURCE /* fork, alarm, MAP_ANONYMOUS */

#include "ptdecode/ptdecode.h"

#include "known_diff.h"
#include "libipt_dl.h"
#include "pktgen.h"
#include "qry_format.h"
#include "sync_plan.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTD_EXIT_SKIP 77

/* ----------------------------------------------------------------------- */
/* The generator                                                            */
/* ----------------------------------------------------------------------- */

struct gen {
	struct ptd_rng rng;
	struct pt_encoder *enc;
	const struct pt_config *config;
	int err;
	/* Tracing is on; an IP is known (for compressed IPs). */
	int enabled;
	uint64_t last_ip;
	/* The clock. */
	uint64_t tsc;
	uint64_t ctc;
	int have_tsc;
};

static unsigned below(struct gen *g, unsigned n)
{
	return (unsigned)ptd_rng_below(&g->rng, n);
}

static void emit(struct gen *g, const struct pt_packet *pkt)
{
	if (g->err)
		return;
	if (pt_enc_next(g->enc, pkt) < 0)
		g->err = 1;
}

static void emit_type(struct gen *g, enum pt_packet_type type)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = type;
	emit(g, &pkt);
}

static uint64_t random_ip(struct gen *g)
{
	static const uint64_t bases[] = {UINT64_C(0x400000),
	                                 UINT64_C(0x7fff12340000),
	                                 UINT64_C(0xffffffff81000000)};
	uint64_t base = bases[below(g, 3)];

	switch (below(g, 4)) {
	case 0:
		return (g->last_ip & ~UINT64_C(0xffff)) | below(g, 0x10000);
	case 1:
		return (g->last_ip & ~UINT64_C(0xffffffff)) |
		       (ptd_rng_next(&g->rng) & 0xffffffff);
	default:
		return base + (ptd_rng_next(&g->rng) & 0xfffff);
	}
}

/* An IP packet to @ip with a compression that reaches it from last_ip. */
static void emit_ip(struct gen *g, enum pt_packet_type type, uint64_t ip,
                    int allow_suppressed)
{
	struct pt_packet pkt;
	uint64_t hi = g->last_ip ^ ip;
	unsigned choice;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = type;
	choice = below(g, 6);
	if (allow_suppressed && choice == 0) {
		pkt.payload.ip.ipc = pt_ipc_suppressed;
		emit(g, &pkt);
		return;
	}
	if (choice <= 2 && !(hi >> 16))
		pkt.payload.ip.ipc = pt_ipc_update_16;
	else if (choice <= 3 && !(hi >> 32))
		pkt.payload.ip.ipc = pt_ipc_update_32;
	else if (choice == 4 && !(hi >> 48))
		pkt.payload.ip.ipc = pt_ipc_update_48;
	else if (choice == 5 &&
	         ((ip >> 47) == 0 || (ip >> 47) == UINT64_C(0x1ffff)))
		pkt.payload.ip.ipc = pt_ipc_sext_48;
	else
		pkt.payload.ip.ipc = pt_ipc_full;
	pkt.payload.ip.ip = ip;
	if (pkt.payload.ip.ipc == pt_ipc_sext_48 ||
	    pkt.payload.ip.ipc == pt_ipc_update_48)
		pkt.payload.ip.ip &= UINT64_C(0xffffffffffff);
	emit(g, &pkt);
	g->last_ip = ip;
}

static void emit_tsc(struct gen *g)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	g->tsc += 1000 + below(g, 100000);
	pkt.type = ppt_tsc;
	pkt.payload.tsc.tsc = g->tsc & ((UINT64_C(1) << 56) - 1);
	emit(g, &pkt);
	g->have_tsc = 1;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_tma;
	pkt.payload.tma.ctc = (uint16_t)g->ctc;
	pkt.payload.tma.fc = (uint16_t)below(g, 512);
	emit(g, &pkt);
}

/* Some timing packets. */
static void emit_timing(struct gen *g)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	switch (below(g, 10)) {
	case 0:
	case 1:
	case 2:
		g->ctc += UINT64_C(1) << g->config->mtc_freq;
		g->ctc &= ~((UINT64_C(1) << g->config->mtc_freq) - 1);
		pkt.type = ppt_mtc;
		pkt.payload.mtc.ctc = (uint8_t)(g->ctc >> g->config->mtc_freq);
		emit(g, &pkt);
		break;
	case 3:
	case 4:
	case 5:
		pkt.type = ppt_cyc;
		pkt.payload.cyc.value = 1 + below(g, 300);
		emit(g, &pkt);
		break;
	case 6:
		emit_tsc(g);
		break;
	case 7:
		pkt.type = ppt_cbr;
		pkt.payload.cbr.ratio = (uint8_t)(8 + below(g, 30));
		emit(g, &pkt);
		break;
	default:
		emit_type(g, ppt_pad);
		break;
	}
}

static void maybe_timing(struct gen *g)
{
	while (below(g, 3) == 0)
		emit_timing(g);
}

static void emit_mode_exec(struct gen *g)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_mode;
	pkt.payload.mode.leaf = pt_mol_exec;
	pkt.payload.mode.bits.exec =
	        pt_set_exec_mode((enum pt_exec_mode)(1 + below(g, 3)));
	emit(g, &pkt);
}

static void emit_pip(struct gen *g)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_pip;
	pkt.payload.pip.cr3 = (ptd_rng_next(&g->rng) & UINT64_C(0xffffffffff))
	                      << 5;
	pkt.payload.pip.nr = below(g, 2);
	emit(g, &pkt);
}

static void emit_vmcs(struct gen *g)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_vmcs;
	pkt.payload.vmcs.base = (ptd_rng_next(&g->rng) & UINT64_C(0xfffffff))
	                        << 12;
	emit(g, &pkt);
}

static void emit_tsx(struct gen *g)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_mode;
	pkt.payload.mode.leaf = pt_mol_tsx;
	switch (below(g, 3)) {
	case 0:
		pkt.payload.mode.bits.tsx.intx = 1;
		break;
	case 1:
		pkt.payload.mode.bits.tsx.abrt = 1;
		break;
	default:
		break;
	}
	emit(g, &pkt);
}

static void emit_psb(struct gen *g)
{
	emit_type(g, ppt_psb);
	if (below(g, 4))
		emit_tsc(g);
	if (below(g, 2)) {
		struct pt_packet pkt;

		memset(&pkt, 0, sizeof(pkt));
		pkt.type = ppt_cbr;
		pkt.payload.cbr.ratio = (uint8_t)(8 + below(g, 30));
		emit(g, &pkt);
	}
	emit_mode_exec(g);
	if (below(g, 2))
		emit_pip(g);
	if (!below(g, 4))
		emit_vmcs(g);
	if (!below(g, 8))
		emit_tsx(g);
	if (g->enabled) {
		struct pt_packet pkt;

		memset(&pkt, 0, sizeof(pkt));
		pkt.type = ppt_fup;
		pkt.payload.ip.ipc = pt_ipc_full;
		pkt.payload.ip.ip = g->last_ip;
		emit(g, &pkt);
	}
	emit_type(g, ppt_psbend);
}

static void emit_tnt(struct gen *g)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	if (below(g, 4)) {
		pkt.type = ppt_tnt_8;
		pkt.payload.tnt.bit_size = (uint8_t)(1 + below(g, 6));
	} else {
		pkt.type = ppt_tnt_64;
		pkt.payload.tnt.bit_size = (uint8_t)(1 + below(g, 47));
	}
	pkt.payload.tnt.payload =
	        ptd_rng_next(&g->rng) &
	        ((UINT64_C(1) << pkt.payload.tnt.bit_size) - 1);
	emit(g, &pkt);
}

/* One step of the program while tracing is on. */
static void step_enabled(struct gen *g)
{
	struct pt_packet pkt;
	unsigned k = below(g, 100);

	memset(&pkt, 0, sizeof(pkt));
	if (k < 35) {
		emit_tnt(g);
	} else if (k < 50) {
		emit_ip(g, ppt_tip, random_ip(g), 1);
	} else if (k < 58) {
		/* An asynchronous branch, maybe with a paging/VMCS/mode
		 * change. */
		emit_ip(g, ppt_fup, random_ip(g), 0);
		maybe_timing(g);
		if (!below(g, 3)) {
			if (!below(g, 3))
				emit_vmcs(g);
			emit_pip(g);
		}
		if (!below(g, 3))
			emit_mode_exec(g);
		maybe_timing(g);
		if (below(g, 6)) {
			emit_ip(g, ppt_tip, random_ip(g), 1);
		} else {
			emit_ip(g, ppt_tip_pgd, random_ip(g), 1);
			g->enabled = 0;
		}
	} else if (k < 62) {
		emit_mode_exec(g);
		emit_ip(g, ppt_tip, random_ip(g), 0);
	} else if (k < 65) {
		emit_pip(g);
	} else if (k < 66) {
		emit_vmcs(g);
	} else if (k < 70) {
		emit_ip(g, ppt_tip_pgd, random_ip(g), 1);
		g->enabled = 0;
	} else if (k < 72) {
		emit_tsx(g);
		emit_ip(g, ppt_fup, random_ip(g), 0);
	} else if (k < 74) {
		pkt.type = ppt_ptw;
		pkt.payload.ptw.plc = (uint8_t)below(g, 2);
		pkt.payload.ptw.payload = ptd_rng_next(&g->rng);
		if (!pkt.payload.ptw.plc)
			pkt.payload.ptw.payload &= 0xffffffff;
		pkt.payload.ptw.ip = below(g, 2);
		emit(g, &pkt);
		if (pkt.payload.ptw.ip)
			emit_ip(g, ppt_fup, random_ip(g), 0);
	} else if (k < 75) {
		pkt.type = ppt_mwait;
		pkt.payload.mwait.hints = below(g, 256);
		pkt.payload.mwait.ext = below(g, 2);
		emit(g, &pkt);
		emit_ip(g, ppt_fup, random_ip(g), 0);
	} else if (k < 76) {
		pkt.type = ppt_pwre;
		pkt.payload.pwre.state = (uint8_t)below(g, 16);
		pkt.payload.pwre.sub_state = (uint8_t)below(g, 16);
		pkt.payload.pwre.hw = below(g, 2);
		emit(g, &pkt);
		memset(&pkt, 0, sizeof(pkt));
		pkt.type = ppt_exstop;
		pkt.payload.exstop.ip = below(g, 2);
		emit(g, &pkt);
		if (pkt.payload.exstop.ip)
			emit_ip(g, ppt_fup, random_ip(g), 0);
		memset(&pkt, 0, sizeof(pkt));
		pkt.type = ppt_pwrx;
		pkt.payload.pwrx.last = (uint8_t)below(g, 16);
		pkt.payload.pwrx.deepest = (uint8_t)below(g, 16);
		pkt.payload.pwrx.interrupt = below(g, 2);
		emit(g, &pkt);
	} else if (k < 77) {
		pkt.type = ppt_mnt;
		pkt.payload.mnt.payload = ptd_rng_next(&g->rng);
		emit(g, &pkt);
	} else if (k < 79) {
		/* An overflow. */
		const struct pt_errata *errata = &g->config->errata;
		unsigned e = below(g, 8);

		emit_type(g, ppt_ovf);
		maybe_timing(g);
		if (e == 0 && errata->apl11) {
			/* APL11: a TIP.PGD after the OVF. */
			emit_ip(g, ppt_tip_pgd, random_ip(g), 1);
			g->enabled = 0;
		} else if (e == 1 && errata->apl12) {
			/* APL12: a FUP although tracing is off. */
			emit_ip(g, ppt_fup, random_ip(g), 0);
			g->enabled = 0;
		} else if (e == 2 && errata->skd010) {
			/* SKD010: the FUP is missing. */
			emit_ip(g, ppt_tip, random_ip(g), 0);
		} else if (below(g, 2)) {
			emit_ip(g, ppt_fup, random_ip(g), 0);
		} else {
			g->enabled = 0;
		}
	} else if (k < 81) {
		emit_psb(g);
	} else {
		emit_timing(g);
	}
}

/* One step while tracing is off. */
static void step_disabled(struct gen *g)
{
	struct pt_packet pkt;
	unsigned k = below(g, 100);

	memset(&pkt, 0, sizeof(pkt));
	if (k < 30) {
		if (below(g, 2))
			emit_mode_exec(g);
		maybe_timing(g);
		emit_ip(g, ppt_tip_pge, random_ip(g), 0);
		g->enabled = 1;
	} else if (k < 40) {
		emit_pip(g);
	} else if (k < 45) {
		emit_vmcs(g);
	} else if (k < 50) {
		emit_tsx(g);
	} else if (k < 55) {
		emit_psb(g);
	} else if (k < 58) {
		emit_type(g, ppt_ovf);
	} else if (k < 60) {
		emit_type(g, ppt_stop);
	} else {
		emit_timing(g);
	}
}

/* Write a trace into @config's buffer; returns its size. */
static size_t generate(const struct pt_config *config, uint64_t seed)
{
	struct gen g;
	uint64_t offset = 0;
	size_t limit = (size_t)(config->end - config->begin) - 256;

	memset(&g, 0, sizeof(g));
	ptd_rng_seed(&g.rng, seed);
	g.config = config;
	g.enc = pt_alloc_encoder(config);
	if (!g.enc)
		return 0;
	g.enabled = 1;
	g.last_ip = UINT64_C(0x400000);
	g.tsc = UINT64_C(0x100000000) + below(&g, 1000000);
	emit_psb(&g);
	for (;;) {
		if (pt_enc_get_offset(g.enc, &offset) < 0 || offset >= limit ||
		    g.err)
			break;
		if (g.enabled)
			step_enabled(&g);
		else
			step_disabled(&g);
	}
	(void)pt_enc_get_offset(g.enc, &offset);
	pt_free_encoder(g.enc);
	return (size_t)offset;
}

/* ----------------------------------------------------------------------- */
/* The driver                                                               */
/* ----------------------------------------------------------------------- */

enum rec_kind { rec_sync, rec_cond, rec_indirect, rec_event };

struct rec {
	enum rec_kind kind;
	int status;
	uint64_t value;
	struct pt_event ev;
	int time_status;
	uint64_t tsc;
	uint32_t lost_mtc, lost_cyc;
	uint64_t offset;
	/* Synchronizations: pt_qry_get_sync_offset()'s result and offset. */
	int sync_status;
	uint64_t sync_offset;
};

struct log {
	struct rec *recs;
	size_t n, cap;
};

static struct rec *log_add(struct log *log)
{
	if (log->n == log->cap) {
		size_t cap = log->cap ? 2 * log->cap : 4096;
		struct rec *recs = realloc(log->recs, cap * sizeof(*recs));

		if (!recs)
			return NULL;
		log->recs = recs;
		log->cap = cap;
	}
	memset(&log->recs[log->n], 0, sizeof(log->recs[0]));
	return &log->recs[log->n++];
}

/* The operations of one decoder. */
struct ops {
	void *dec;
	int (*sync_forward)(void *dec, uint64_t *ip);
	int (*cond)(void *dec, int *taken);
	int (*indirect)(void *dec, uint64_t *ip);
	int (*event)(void *dec, struct pt_event *ev);
	int (*time)(void *dec, uint64_t *tsc, uint32_t *mtc, uint32_t *cyc);
	int (*offset)(void *dec, uint64_t *offset);
	int (*sync_backward)(void *dec, uint64_t *ip);
	int (*sync_set)(void *dec, uint64_t *ip, uint64_t offset);
	int (*sync_offset)(void *dec, uint64_t *offset);
};

static const struct ptd_libipt *g_ipt;

static int ipt_sync(void *d, uint64_t *ip)
{
	return g_ipt->qry_sync_forward(d, ip);
}
static int ipt_cond(void *d, int *t)
{
	return g_ipt->qry_cond_branch(d, t);
}
static int ipt_ind(void *d, uint64_t *ip)
{
	return g_ipt->qry_indirect_branch(d, ip);
}
static int ipt_event(void *d, struct pt_event *ev)
{
	struct ptd_ipt_event iev;
	size_t n = sizeof(iev) < sizeof(*ev) ? sizeof(iev) : sizeof(*ev);
	int status;

	memset(&iev, 0, sizeof(iev));
	status = g_ipt->qry_event(d, &iev, sizeof(iev));
	memset(ev, 0, sizeof(*ev));
	memcpy(ev, &iev, n);
	return status;
}
static int ipt_time(void *d, uint64_t *t, uint32_t *m, uint32_t *c)
{
	return g_ipt->qry_time(d, t, m, c);
}
static int ipt_offset(void *d, uint64_t *o)
{
	return g_ipt->qry_get_offset(d, o);
}
static int ipt_sync_backward(void *d, uint64_t *ip)
{
	return g_ipt->qry_sync_backward(d, ip);
}
static int ipt_sync_set(void *d, uint64_t *ip, uint64_t o)
{
	return g_ipt->qry_sync_set(d, ip, o);
}
static int ipt_sync_offset(void *d, uint64_t *o)
{
	return g_ipt->qry_get_sync_offset(d, o);
}

static int our_sync(void *d, uint64_t *ip)
{
	return pt_qry_sync_forward(d, ip);
}
static int our_cond(void *d, int *t)
{
	return pt_qry_cond_branch(d, t);
}
static int our_ind(void *d, uint64_t *ip)
{
	return pt_qry_indirect_branch(d, ip);
}
static int our_event(void *d, struct pt_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	return pt_qry_event(d, ev, sizeof(*ev));
}
static int our_time(void *d, uint64_t *t, uint32_t *m, uint32_t *c)
{
	return pt_qry_time(d, t, m, c);
}
static int our_offset(void *d, uint64_t *o)
{
	return pt_qry_get_offset(d, o);
}
static int our_sync_backward(void *d, uint64_t *ip)
{
	return pt_qry_sync_backward(d, ip);
}
static int our_sync_set(void *d, uint64_t *ip, uint64_t o)
{
	return pt_qry_sync_set(d, ip, o);
}
static int our_sync_offset(void *d, uint64_t *o)
{
	return pt_qry_get_sync_offset(d, o);
}

/* One call of the driver, chosen by the status of the one before
 * (@status; negative: an error or the start, so sync forward), recorded in
 * @r with pt_qry_time() and the offset after it; returns its status.  A
 * synchronization that fails with -pte_eos is the end of the trace. */
static int drive_step(const struct ops *ops, int status, struct rec *r)
{
	memset(r, 0, sizeof(*r));
	if (status >= 0 && !(status & pts_event_pending) && (status & pts_eos))
		status = -pte_eos;
	if (status < 0) {
		uint64_t ip = 0;

		status = ops->sync_forward(ops->dec, &ip);
		r->kind = rec_sync;
		r->value =
		        (status >= 0 && !(status & pts_ip_suppressed)) ? ip : 0;
		r->sync_status = ops->sync_offset(ops->dec, &r->sync_offset);
	} else if (status & pts_event_pending) {
		r->kind = rec_event;
		status = ops->event(ops->dec, &r->ev);
	} else {
		int taken = 0;

		r->kind = rec_cond;
		status = ops->cond(ops->dec, &taken);
		if (status == -pte_bad_query) {
			uint64_t ip = 0;

			r->kind = rec_indirect;
			status = ops->indirect(ops->dec, &ip);
			r->value =
			        (status >= 0 && !(status & pts_ip_suppressed))
			                ? ip
			                : 0;
		} else {
			r->value = (uint64_t)taken;
		}
	}
	r->status = status;
	r->time_status =
	        ops->time(ops->dec, &r->tsc, &r->lost_mtc, &r->lost_cyc);
	(void)ops->offset(ops->dec, &r->offset);
	return status;
}

static int drive(const struct ops *ops, struct log *log, size_t max)
{
	int status = -pte_nosync;

	while (log->n < max) {
		struct rec *r = log_add(log);

		if (!r)
			return -1;
		status = drive_step(ops, status, r);
		if (r->kind == rec_sync && status == -pte_eos) {
			/* The end: not a result. */
			log->n--;
			return 0;
		}
	}
	return 0;
}

/* ----------------------------------------------------------------------- */
/* Comparison                                                               */
/* ----------------------------------------------------------------------- */

/* The IP-like fields of @ev that are valid, by type, into @out; returns
 * how many. */
static int event_fields(const struct pt_event *ev, uint64_t *out)
{
	int n = 0;
	int ip = !ev->ip_suppressed;

	switch (ev->type) {
	case ptev_enabled:
		out[n++] = ev->variant.enabled.ip;
		break;
	case ptev_disabled:
		if (ip)
			out[n++] = ev->variant.disabled.ip;
		break;
	case ptev_async_disabled:
		out[n++] = ev->variant.async_disabled.at;
		if (ip)
			out[n++] = ev->variant.async_disabled.ip;
		break;
	case ptev_async_branch:
		out[n++] = ev->variant.async_branch.from;
		if (ip)
			out[n++] = ev->variant.async_branch.to;
		break;
	case ptev_paging:
		out[n++] = ev->variant.paging.cr3;
		out[n++] = ev->variant.paging.non_root;
		break;
	case ptev_async_paging:
		out[n++] = ev->variant.async_paging.cr3;
		out[n++] = ev->variant.async_paging.non_root;
		if (ip)
			out[n++] = ev->variant.async_paging.ip;
		break;
	case ptev_overflow:
		if (ip)
			out[n++] = ev->variant.overflow.ip;
		break;
	case ptev_exec_mode:
		out[n++] = ev->variant.exec_mode.mode;
		if (ip)
			out[n++] = ev->variant.exec_mode.ip;
		break;
	case ptev_tsx:
		out[n++] = ev->variant.tsx.speculative;
		out[n++] = ev->variant.tsx.aborted;
		if (ip)
			out[n++] = ev->variant.tsx.ip;
		break;
	case ptev_vmcs:
		out[n++] = ev->variant.vmcs.base;
		break;
	case ptev_async_vmcs:
		out[n++] = ev->variant.async_vmcs.base;
		if (ip)
			out[n++] = ev->variant.async_vmcs.ip;
		break;
	case ptev_exstop:
		if (ip)
			out[n++] = ev->variant.exstop.ip;
		break;
	case ptev_mwait:
		out[n++] = ev->variant.mwait.hints;
		out[n++] = ev->variant.mwait.ext;
		if (ip)
			out[n++] = ev->variant.mwait.ip;
		break;
	case ptev_pwre:
		out[n++] = ev->variant.pwre.state;
		out[n++] = ev->variant.pwre.sub_state;
		/* Not hw: the packet layers read it from different bits
		 * (docs/compatibility.md). */
		break;
	case ptev_pwrx:
		out[n++] = ev->variant.pwrx.last;
		out[n++] = ev->variant.pwrx.deepest;
		out[n++] = ev->variant.pwrx.interrupt;
		out[n++] = ev->variant.pwrx.store;
		out[n++] = ev->variant.pwrx.autonomous;
		break;
	case ptev_ptwrite:
		out[n++] = ev->variant.ptwrite.size;
		out[n++] = ev->variant.ptwrite.payload;
		if (ip)
			out[n++] = ev->variant.ptwrite.ip;
		break;
	case ptev_cbr:
		out[n++] = ev->variant.cbr.ratio;
		break;
	case ptev_mnt:
		out[n++] = ev->variant.mnt.payload;
		break;
	default:
		break;
	}
	return n;
}

static int same_event(const struct pt_event *a, const struct pt_event *b)
{
	uint64_t fa[8], fb[8];
	int na, nb;

	if (a->type != b->type || a->ip_suppressed != b->ip_suppressed ||
	    a->status_update != b->status_update)
		return 0;
	if (!(ptd_known_unstamped(a->type) && !a->has_tsc)) {
		if (a->has_tsc != b->has_tsc || a->tsc != b->tsc ||
		    a->lost_mtc != b->lost_mtc || a->lost_cyc != b->lost_cyc)
			return 0;
	}
	na = event_fields(a, fa);
	nb = event_fields(b, fb);
	return na == nb && !memcmp(fa, fb, (size_t)na * sizeof(fa[0]));
}

static const char *kind_name(enum rec_kind k)
{
	static const char *const names[] = {"sync", "cond", "indirect",
	                                    "event"};
	return names[k];
}

static void print_rec(const char *who, const struct rec *r)
{
	fprintf(stderr,
	        "  %-7s %-8s status %d value %" PRIx64 " time %d %" PRIx64
	        " mtc %u cyc %u off %" PRIx64,
	        who, kind_name(r->kind), r->status, r->value, r->time_status,
	        r->tsc, r->lost_mtc, r->lost_cyc, r->offset);
	if (r->kind == rec_event && r->status >= 0) {
		uint64_t f[8];
		int n = event_fields(&r->ev, f);

		fprintf(stderr, " ev %d sup %u su %u has_tsc %u tsc %" PRIx64,
		        r->ev.type, r->ev.ip_suppressed, r->ev.status_update,
		        r->ev.has_tsc, r->ev.tsc);
		for (int i = 0; i < n; ++i)
			fprintf(stderr, " %" PRIx64, f[i]);
	}
	fprintf(stderr, "\n");
}

static int same_rec(const struct rec *a, const struct rec *b)
{
	if (a->kind != b->kind || a->status != b->status ||
	    a->value != b->value || a->offset != b->offset)
		return 0;
	if (a->time_status != b->time_status || a->tsc != b->tsc ||
	    a->lost_mtc != b->lost_mtc || a->lost_cyc != b->lost_cyc)
		return 0;
	if (a->kind == rec_event && a->status >= 0)
		return same_event(&a->ev, &b->ev);
	if (a->kind == rec_sync && (a->sync_status != b->sync_status ||
	                            a->sync_offset != b->sync_offset))
		return 0;
	return 1;
}

/* ----------------------------------------------------------------------- */
/* The batch interface against our pull API                                 */
/* ----------------------------------------------------------------------- */

/* The next record of @log from *@i that the batch interface reports as an
 * item (a result, or a failed call but a synchronization's -pte_nosync),
 * or NULL.  (drive() records no synchronization that fails with -pte_eos:
 * the end.) */
static const struct rec *next_reported(const struct log *log, size_t *i)
{
	while (*i < log->n) {
		const struct rec *r = &log->recs[(*i)++];

		if (r->kind != rec_sync || r->status != -pte_nosync)
			return r;
	}
	return NULL;
}

/* The flags of the error item for the failed call @r: which call failed
 * (and so the status before it). */
static int error_flags(const struct rec *r)
{
	switch (r->kind) {
	case rec_sync:
		return ptd_qry_item_resync;
	case rec_event:
		return ptd_qry_item_event_pending;
	case rec_indirect:
		return ptd_qry_item_indirect;
	default:
		return 0;
	}
}

/* Whether batch result @b of item @it (outcome @bit of a run; @ev its
 * event) is pull result @r. */
static int same_item(const struct ptd_qry_item *it, unsigned bit,
                     const struct pt_event *ev, const struct rec *r)
{
	static const int kinds[] = {ptd_qry_item_sync, ptd_qry_item_tnt,
	                            ptd_qry_item_tip, ptd_qry_item_event};
	const int eflags = ptd_qry_item_event_pending | ptd_qry_item_indirect |
	                   ptd_qry_item_resync;

	if (r->status < 0) {
		if (it->kind != ptd_qry_item_error || it->error != r->status ||
		    it->value != r->offset ||
		    (it->flags & eflags) != error_flags(r))
			return 0;
	} else {
		if (it->flags & eflags)
			return 0;
		if (it->kind != kinds[r->kind])
			return 0;
		if (it->kind == ptd_qry_item_tnt) {
			if (((it->value >> (it->count - 1 - bit)) & 1) !=
			    r->value)
				return 0;
		} else if (it->kind == ptd_qry_item_event) {
			if (memcmp(ev, &r->ev, sizeof(*ev)))
				return 0;
		} else if (it->value != r->value)
			return 0;
	}
	return it->tsc == r->tsc && it->lost_mtc == r->lost_mtc &&
	       it->lost_cyc == r->lost_cyc &&
	       !!(it->flags & ptd_qry_item_has_tsc) == (r->time_status >= 0);
}

/* Decode the trace of @config with ptd_qry_next_batch() (batches of varying
 * sizes) and compare every result with our pull API's, @log.  Returns 0 if
 * they agree. */
static int check_batch(const struct pt_config *config,
                       const struct ptd_time_config *tconfig,
                       const struct log *log, unsigned trace)
{
	struct ptd_qry_item items[64];
	struct pt_event events[32];
	struct pt_query_decoder *dec;
	size_t i = 0, calls = 0;
	const struct rec *r;

	dec = ptd_qry_alloc_decoder(config, tconfig);
	if (!dec)
		return -1;
	for (;;) {
		size_t want = 2 + calls % 63;
		int n = ptd_qry_next_batch(dec, items, want, events,
		                           (calls % 7) ? want / 2 : 0);

		calls++;
		if (n == -pte_eos)
			break;
		if (n == 0 && !((calls - 1) % 7))
			continue;
		if (n < 0) {
			fprintf(stderr, "diff_qry: trace %u: batch: %d\n",
			        trace, n);
			pt_qry_free_decoder(dec);
			return -1;
		}
		for (int k = 0; k < n; ++k) {
			const struct ptd_qry_item *it = &items[k];
			unsigned m =
			        it->kind == ptd_qry_item_tnt ? it->count : 1;

			for (unsigned b = 0; b < m; ++b) {
				const struct pt_event *ev =
				        it->kind == ptd_qry_item_event
				                ? &events[it->value]
				                : NULL;

				r = next_reported(log, &i);
				if (r && same_item(it, b, ev, r))
					continue;
				fprintf(stderr,
				        "diff_qry: trace %u: batch item of "
				        "kind "
				        "%d (value %#" PRIx64
				        ", error %d) differs from pull result "
				        "%zu\n",
				        trace, it->kind, it->value, it->error,
				        i - 1);
				if (r)
					print_rec("pull", r);
				pt_qry_free_decoder(dec);
				return -1;
			}
		}
	}
	pt_qry_free_decoder(dec);
	if (next_reported(log, &i)) {
		fprintf(stderr,
		        "diff_qry: trace %u: the batch ends before result "
		        "%zu\n",
		        trace, i - 1);
		return -1;
	}
	return 0;
}

/* Whether the time fields of event @ev are the time of pull result @r. */
static int same_time(const struct pt_event *ev, const struct rec *r)
{
	return ev->tsc == r->tsc && ev->lost_mtc == r->lost_mtc &&
	       ev->lost_cyc == r->lost_cyc &&
	       ev->has_tsc == (r->time_status >= 0);
}

/* Whether @ev is a PSB+'s tracing status (event decoder). */
static int evt_is_status(const struct pt_event *ev)
{
	return ev->status_update &&
	       (ev->type == ptev_enabled || ev->type == ptev_disabled);
}

/* pt_evt_next() past the PSB+ tracing status events (the one kind the pull
 * API does not report) into @ev; returns its result. */
static int evt_next_answer(struct pt_event_decoder *dec, struct pt_event *ev)
{
	int st;

	do {
		st = pt_evt_next(dec, ev, sizeof(*ev));
	} while (st == 0 && evt_is_status(ev));
	return st;
}

/* What check_evt() counted. */
struct evt_counts {
	uint64_t events, tnt, status;
};

/* Decode the trace of @config with the event decoder (pt_evt_*) and
 * compare it with our pull API's results, @log (@complete: the log goes to
 * the end of the trace): each ptev_tnt must be as many pt_qry_cond_branch()
 * results as it has outcomes, each with the time of the event, each
 * ptev_tip a pt_qry_indirect_branch() result, every other event a
 * pt_qry_event() result, every error the pull API's, and every
 * synchronization the pull API's (but where the pull API's fails in its
 * read-ahead beyond a good PSB+, the event decoder fails there in
 * pt_evt_next(), with the same error and offset).  The tracing status that
 * starts each PSB+ is the one event the pull API does not report; a
 * ptev_enabled first after a synchronization must have the
 * synchronization's IP (a synchronization at a PSB+ without an IP may take
 * one from a FUP after it).  Returns 0 if they agree. */
static int check_evt(const struct pt_config *config,
                     const struct ptd_time_config *tconfig,
                     const struct log *log, int complete, unsigned trace,
                     struct evt_counts *counts)
{
	struct pt_event_decoder *dec = ptd_evt_alloc_decoder(config, tconfig);
	struct pt_event ev;
	const char *what = NULL;
	unsigned left = 0;
	size_t i = 0;
	int st = 0, after_sync = 0;

	if (!dec)
		return -1;
	while (i < log->n && !what) {
		const struct rec *r = &log->recs[i];

		if (r->kind == rec_sync) {
			uint64_t off = 0;

			if (left) {
				what = "outcomes left at a synchronization";
				break;
			}
			st = pt_evt_sync_forward(dec);
			if (r->status < 0 && st == 0) {
				/* The pull API's synchronization failed in its
				 * read-ahead beyond a good PSB+: the event
				 * decoder fails there in pt_evt_next(), after
				 * the PSB+'s tracing status. */
				uint64_t at = 0;

				st = evt_next_answer(dec, &ev);
				if (st != r->status ||
				    pt_evt_get_offset(dec, &at) < 0 ||
				    at != r->offset)
					what = "failed synchronization";
				after_sync = 0;
				i++;
				continue;
			}
			if ((r->status < 0) ? st != r->status : st != 0)
				what = "synchronization status";
			else if (r->status >= 0 &&
			         (pt_evt_get_sync_offset(dec, &off) < 0 ||
			          off != r->sync_offset))
				what = "synchronization offset";
			after_sync = r->status >= 0;
			i++;
			continue;
		}
		if (!left) {
			memset(&ev, 0xa5, sizeof(ev));
			st = pt_evt_next(dec, &ev, sizeof(ev));
			if (st < 0) {
				if (r->status != st)
					what = "error";
				i++;
				continue;
			}
			counts->events++;
			if (evt_is_status(&ev)) {
				const struct rec *s =
				        i ? &log->recs[i - 1] : NULL;

				counts->status++;
				if ((ev.type == ptev_enabled) ==
				    ev.ip_suppressed)
					what = "tracing status's IP";
				else if (after_sync && s &&
				         s->kind == rec_sync &&
				         ev.type == ptev_enabled &&
				         ((s->status & pts_ip_suppressed) ||
				          ev.variant.enabled.ip != s->value))
					/* (Tracing off in the PSB+: the pull
					 * API may take the IP from a FUP after
					 * it.) */
					what = "tracing status at "
					       "synchronization";
				after_sync = 0;
				continue;
			}
			after_sync = 0;
			if (ev.type == ptev_tnt) {
				if (!ev.variant.tnt.size ||
				    ev.variant.tnt.size > 47)
					what = "TNT size";
				left = ev.variant.tnt.size;
				counts->tnt++;
				continue;
			}
			if (ev.type == ptev_tip) {
				uint64_t ip = ev.ip_suppressed
				                      ? 0
				                      : ev.variant.tip.ip;

				if (r->kind != rec_indirect || r->status < 0 ||
				    r->value != ip ||
				    !(r->status & pts_ip_suppressed) !=
				            !ev.ip_suppressed ||
				    !same_time(&ev, r))
					what = "indirect branch";
				i++;
				continue;
			}
			if (r->kind != rec_event || r->status < 0 ||
			    memcmp(&ev, &r->ev, sizeof(ev)))
				what = "event";
			i++;
			continue;
		}
		/* The next outcome of the current ptev_tnt. */
		left--;
		if (r->kind != rec_cond || r->status < 0 ||
		    r->value != ((ev.variant.tnt.bits >> left) & 1) ||
		    !same_time(&ev, r))
			what = "conditional branch";
		i++;
	}
	if (!what && left)
		what = "outcomes left at the end";
	if (!what && complete) {
		/* The end: the pull API's last synchronization found no PSB.
		 * The event decoder is at the end of the trace, or still at
		 * the pull API's last error, or not synchronized after a
		 * synchronization that failed; a PSB+ at the end may still
		 * tell its tracing status. */
		const struct rec *last = log->n ? &log->recs[log->n - 1] : NULL;
		int want = -pte_eos;

		if (last && last->status < 0)
			want = last->kind == rec_sync ? -pte_nosync
			                              : last->status;
		st = evt_next_answer(dec, &ev);
		if (st != want)
			what = "the end";
		else if ((st = pt_evt_sync_forward(dec)) == 0) {
			/* The pull API's last synchronization read a good
			 * PSB+, and the end cut off a packet after it: the
			 * event decoder synchronizes there, and says
			 * -pte_eos after the PSB+'s status. */
			st = evt_next_answer(dec, &ev);
			if (st != -pte_eos ||
			    pt_evt_sync_forward(dec) != -pte_eos)
				what = "synchronization at the end";
		} else if (st != -pte_eos) {
			what = "synchronization at the end";
		}
	}
	pt_evt_free_decoder(dec);
	if (what) {
		fprintf(stderr,
		        "diff_qry: trace %u: event decoder: %s differs at pull "
		        "result %zu (pt_evt_next %d, event type %d)\n",
		        trace, what, i ? i - 1 : 0, st, (int)ev.type);
		if (i && i - 1 < log->n)
			print_rec("pull", &log->recs[i - 1]);
		return -1;
	}
	return 0;
}

/* ----------------------------------------------------------------------- */
/* The traces and the decoders                                              */
/* ----------------------------------------------------------------------- */

/* Configure and generate trace @t of @seed into @buf (@kb KiB); returns its
 * size (@config->end set), or 0 if the generator failed.  @rng is left for
 * the trace's other random choices. */
/* --keep-tcal: keep_tcal_on_ovf in both decoders. */
static int keep_tcal;

static size_t make_trace(struct pt_config *config, struct ptd_rng *rng,
                         uint8_t *buf, unsigned kb, uint64_t seed, unsigned t)
{
	size_t size;

	ptd_rng_seed(rng, seed * 1000003u + t);
	pt_config_init(config);
	config->begin = buf;
	config->end = buf + (size_t)kb * 1024;
	config->cpuid_0x15_eax = 1 + (uint32_t)ptd_rng_below(rng, 3);
	config->cpuid_0x15_ebx = config->cpuid_0x15_eax *
	                         (1 + (uint32_t)ptd_rng_below(rng, 100));
	config->mtc_freq = (uint8_t)ptd_rng_below(rng, 10);
	config->nom_freq = (uint8_t)(ptd_rng_below(rng, 2) ? 24 : 0);
	/* The errata of this layer change how OVF and PSB+ are read; on
	 * valid traces the results must not change. */
	config->errata.bdm70 = ptd_rng_below(rng, 2) ? 1 : 0;
	config->errata.skd010 = ptd_rng_below(rng, 2) ? 1 : 0;
	config->errata.apl11 = ptd_rng_below(rng, 2) ? 1 : 0;
	config->errata.apl12 = ptd_rng_below(rng, 2) ? 1 : 0;
	/* SKD007 does change them where a 2-byte CYC ends in 02 and a CYC
	 * f3 follows (an OVF then); both decoders must agree on those. */
	config->errata.skd007 = ptd_rng_below(rng, 2) ? 1 : 0;
	/* SKL168 changes libipt's calibration at a PSB (times compare with
	 * ptdecode's libipt mode). */
	config->errata.skl168 = ptd_rng_below(rng, 2) ? 1 : 0;
	size = generate(config, seed * 7919u + t);
	if (size)
		config->end = buf + size;
	config->flags.variant.query.keep_tcal_on_ovf = (uint32_t)keep_tcal;
	return size;
}

/* Allocate both decoders for @config into @a (libipt's) and @b (ours, with
 * the libipt time estimator); returns 0 or -1. */
static int make_decoders(const struct pt_config *config, struct ops *a,
                         struct ops *b)
{
	struct ptd_time_config tconfig;

	a->dec = g_ipt->qry_alloc_decoder(config);
	ptd_time_config_init(&tconfig);
	tconfig.mode = ptd_time_mode_libipt;
	b->dec = ptd_qry_alloc_decoder(config, &tconfig);
	a->sync_forward = ipt_sync;
	a->cond = ipt_cond;
	a->indirect = ipt_ind;
	a->event = ipt_event;
	a->time = ipt_time;
	a->offset = ipt_offset;
	a->sync_backward = ipt_sync_backward;
	a->sync_set = ipt_sync_set;
	a->sync_offset = ipt_sync_offset;
	b->sync_forward = our_sync;
	b->cond = our_cond;
	b->indirect = our_ind;
	b->event = our_event;
	b->time = our_time;
	b->offset = our_offset;
	b->sync_backward = our_sync_backward;
	b->sync_set = our_sync_set;
	b->sync_offset = our_sync_offset;
	return a->dec && b->dec ? 0 : -1;
}

static void free_decoders(struct ops *a, struct ops *b)
{
	if (a->dec)
		g_ipt->qry_free_decoder(a->dec);
	if (b->dec)
		pt_qry_free_decoder(b->dec);
}

/* ----------------------------------------------------------------------- */
/* Corrupted traces (--corrupt)                                             */
/* ----------------------------------------------------------------------- */

/* Seconds one corrupted trace may take (in its own process) before it is
 * abandoned; a trace takes milliseconds. */
enum { corrupt_timeout = 10 };

/* The bytes overwritten in a trace. */
struct damage {
	unsigned n;
	size_t at[3];
	uint8_t old[3], now[3];
};

/* Overwrite one to three bytes of the @size bytes at @buf, chosen by @rng;
 * record them in @d. */
static void corrupt(uint8_t *buf, size_t size, struct ptd_rng *rng,
                    struct damage *d)
{
	memset(d, 0, sizeof(*d));
	if (!size)
		return;
	d->n = 1 + (unsigned)ptd_rng_below(rng, 3);
	for (unsigned i = 0; i < d->n; ++i) {
		d->at[i] = (size_t)ptd_rng_below(rng, size);
		d->old[i] = buf[d->at[i]];
		d->now[i] = (uint8_t)ptd_rng_below(rng, 256);
		buf[d->at[i]] = d->now[i];
	}
}

/* Where in the trace a difference is. */
enum where {
	where_sync,    /* the call is a synchronization */
	where_psbplus, /* just after one, or after a status update */
	where_ovf,     /* within three calls of an overflow event */
	where_other,
	where_count
};

static const char *const where_names[] = {"sync", "PSB+", "after OVF",
                                          "elsewhere"};

/* One corrupted trace decoded by both decoders in lockstep, in a child
 * process; the child writes this into memory it shares with the parent. */
struct lockstep {
	/* The decoder in a call (0 libipt, 1 ours, -1 neither): whose call a
	 * hang or crash is in. */
	volatile int in_call;
	int done;
	/* Calls compared (all equal), failed ones among them. */
	uint64_t calls, errors;
	/* The limit on calls was reached. */
	int cut;
	/* Backward synchronizations whose status flags libipt dropped. */
	uint64_t sync_flags;
	/* The first difference: both results, its call's index, where it is,
	 * and up to three equal results before it (ctx[0] the oldest). */
	int differs;
	uint64_t at;
	enum where where;
	struct rec ipt, ours;
	struct rec ctx[3];
	unsigned nctx;
};

/* How the lockstep walk synchronizes (--sync): forward from each error
 * (pt_qry_sync_forward(), the default), backward (pt_qry_sync_backward()
 * at the start, after each error and every sync_every calls, to the start
 * of the trace), or at chosen offsets (pt_qry_sync_set() there, likewise:
 * every PSB of the trace from the last to the first, with offsets that are
 * no PSB's between them, and the end of the buffer). */
enum sync_mode { sync_forward, sync_backward, sync_set };

static enum sync_mode sync_mode = sync_forward;

enum { sync_every = 24, sync_plan_max = 96 };

/* The offsets for sync_set, and the walk's place among them (for
 * sync_backward only the count of synchronizations). */
struct sync_plan {
	uint64_t offsets[sync_plan_max];
	unsigned n, next;
};

static void sync_plan_init(struct sync_plan *plan,
                           const struct pt_config *config)
{
	memset(plan, 0, sizeof(*plan));
	if (sync_mode == sync_backward) {
		/* Enough for every PSB of a trace. */
		plan->n = UINT32_MAX;
		return;
	}
	plan->n = (unsigned)ptd_sync_plan(config->begin, config->end,
	                                  plan->offsets, sync_plan_max);
}

/* Whether the walk synchronizes before its next call: after an error (or
 * pts_eos, or at the start) and after @limit calls. */
static int sync_due(int status, uint64_t since, uint64_t limit)
{
	if (status < 0 || since >= limit)
		return 1;
	return !(status & pts_event_pending) && (status & pts_eos);
}

/* One synchronization of the walk (sync_backward or sync_set at the plan's
 * next offset), recorded in @r as drive_step() records one; returns its
 * status. */
static int sync_step(const struct ops *ops, const struct sync_plan *plan,
                     struct rec *r)
{
	uint64_t ip = 0;
	int status;

	memset(r, 0, sizeof(*r));
	r->kind = rec_sync;
	if (sync_mode == sync_backward)
		status = ops->sync_backward(ops->dec, &ip);
	else
		status =
		        ops->sync_set(ops->dec, &ip, plan->offsets[plan->next]);
	r->value = (status >= 0 && !(status & pts_ip_suppressed)) ? ip : 0;
	r->status = status;
	r->sync_status = ops->sync_offset(ops->dec, &r->sync_offset);
	r->time_status =
	        ops->time(ops->dec, &r->tsc, &r->lost_mtc, &r->lost_cyc);
	(void)ops->offset(ops->dec, &r->offset);
	return status;
}

/* Drive @a and @b through their traces, call by call, for at most @max
 * calls or up to the first difference, into @ls. */
static void walk_lockstep(const struct ops *a, const struct ops *b,
                          const struct pt_config *config, uint64_t max,
                          struct lockstep *ls)
{
	int sa = -pte_nosync, sb = -pte_nosync;
	int in_psbplus = 0;
	uint64_t ovf_age = UINT64_MAX, since = 0, limit = sync_every;
	struct sync_plan plan;
	struct rec ra, rb;

	sync_plan_init(&plan, config);
	while (ls->calls < max) {
		if (sync_mode != sync_forward && sync_due(sa, since, limit)) {
			if (plan.next >= plan.n)
				return;
			ls->in_call = 0;
			sa = sync_step(a, &plan, &ra);
			ls->in_call = 1;
			sb = sync_step(b, &plan, &rb);
			ls->in_call = -1;
			plan.next++;
			since = 0;
			/* Backward, two of three synchronizations follow the
			 * one before at once, so that the walk moves back to
			 * the trace's start (the calls after the third may
			 * pass the next PSB, and the one after them goes back
			 * to it); the others decode a few calls first. */
			limit = sync_mode == sync_backward && plan.next % 3
			                ? 0
			                : 1 + (plan.next * 7) % sync_every;
			/* libipt 2.0.5's pt_qry_sync_backward() returns 0
			 * instead of the status flags its documentation
			 * promises (and pt_qry_sync_forward() returns);
			 * ptdecode returns them (docs/compatibility.md).  The
			 * walk goes on with ptdecode's for both. */
			if (sync_mode == sync_backward && sa == 0 && sb > 0) {
				ra.status = sb;
				sa = sb;
				ls->sync_flags++;
			}
		} else {
			ls->in_call = 0;
			sa = drive_step(a, sa, &ra);
			ls->in_call = 1;
			sb = drive_step(b, sb, &rb);
			ls->in_call = -1;
			since++;
		}
		if (!same_rec(&ra, &rb)) {
			ls->differs = 1;
			ls->at = ls->calls;
			ls->ipt = ra;
			ls->ours = rb;
			if (ra.kind == rec_sync || rb.kind == rec_sync)
				ls->where = where_sync;
			else if (in_psbplus)
				ls->where = where_psbplus;
			else if (ovf_age < 3)
				ls->where = where_ovf;
			else
				ls->where = where_other;
			return;
		}
		ls->calls++;
		if (ra.status < 0)
			ls->errors++;
		if (ls->nctx == 3)
			memmove(&ls->ctx[0], &ls->ctx[1],
			        2 * sizeof(ls->ctx[0]));
		else
			ls->nctx++;
		ls->ctx[ls->nctx - 1] = ra;
		if (ra.kind == rec_sync && sa == -pte_eos &&
		    sync_mode != sync_set)
			return;
		in_psbplus = ra.status >= 0 &&
		             (ra.kind == rec_sync ||
		              (ra.kind == rec_event && ra.ev.status_update));
		if (ra.kind == rec_event && ra.status >= 0 &&
		    ra.ev.type == ptev_overflow)
			ovf_age = 0;
		else if (ovf_age < UINT64_MAX)
			ovf_age++;
	}
	ls->cut = 1;
}

/* Decode @config's trace with both decoders in a child process that gets
 * corrupt_timeout seconds, into @ls (shared with the child).  Returns the
 * child's wait status, or -1 if it could not be started. */
static int run_isolated(const struct pt_config *config, uint64_t max,
                        struct lockstep *ls)
{
	int status;
	pid_t pid;

	memset((void *)ls, 0, sizeof(*ls));
	ls->in_call = -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("diff_qry: fork");
		return -1;
	}
	if (pid == 0) {
		struct ops a, b;

		alarm(corrupt_timeout);
		if (make_decoders(config, &a, &b) < 0)
			_exit(2);
		walk_lockstep(&a, &b, config, max, ls);
		free_decoders(&a, &b);
		ls->done = 1;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("diff_qry: waitpid");
		return -1;
	}
	return status;
}

/* A kind of difference: the call, both statuses, both event types (-1 if
 * none), the first field that differs and where; how often, and the first
 * trace with it. */
struct diff_kind {
	enum rec_kind kind_a, kind_b;
	int status_a, status_b, ev_a, ev_b;
	const char *what;
	enum where where;
	unsigned count, first;
};

/* The first thing in which @a and @b differ. */
static const char *diff_what(const struct rec *a, const struct rec *b)
{
	if (a->kind != b->kind)
		return "call";
	if (a->status != b->status)
		return "status";
	if (a->value != b->value)
		return a->kind == rec_cond ? "taken" : "ip";
	if (a->kind == rec_event && a->status >= 0 &&
	    !same_event(&a->ev, &b->ev))
		return "event";
	if (a->offset != b->offset)
		return "offset";
	return "time";
}

/* A short name of status or error code @status (into @buf). */
static const char *status_name(int status, char *buf, size_t size)
{
	const char *error = ptqry_error_name(status);

	if (status < 0 && error)
		snprintf(buf, size, "-pte_%s", error);
	else if (status < 0)
		snprintf(buf, size, "%d", status);
	else
		snprintf(buf, size, "%s%s%s%s", status ? "" : "0",
		         (status & pts_event_pending) ? "E" : "",
		         (status & pts_ip_suppressed) ? "S" : "",
		         (status & pts_eos) ? "X" : "");
	return buf;
}

/* The name of event type @type, or "?". */
static const char *event_name(int type)
{
	const char *name = ptqry_event_name(type);

	return name ? name : "?";
}

static int event_type_of(const struct rec *r)
{
	return r->kind == rec_event && r->status >= 0 ? (int)r->ev.type : -1;
}

/* Count the difference @ls of trace @t in @kinds (@n of at most @cap). */
static void count_diff(struct diff_kind *kinds, unsigned *n, unsigned cap,
                       const struct lockstep *ls, unsigned t)
{
	struct diff_kind k;

	memset(&k, 0, sizeof(k));
	k.kind_a = ls->ipt.kind;
	k.kind_b = ls->ours.kind;
	k.status_a = ls->ipt.status;
	k.status_b = ls->ours.status;
	k.ev_a = event_type_of(&ls->ipt);
	k.ev_b = event_type_of(&ls->ours);
	k.what = diff_what(&ls->ipt, &ls->ours);
	k.where = ls->where;
	for (unsigned i = 0; i < *n; ++i) {
		struct diff_kind *o = &kinds[i];

		if (o->kind_a == k.kind_a && o->kind_b == k.kind_b &&
		    o->status_a == k.status_a && o->status_b == k.status_b &&
		    o->ev_a == k.ev_a && o->ev_b == k.ev_b &&
		    !strcmp(o->what, k.what) && o->where == k.where) {
			o->count++;
			return;
		}
	}
	if (*n == cap)
		return;
	k.count = 1;
	k.first = t;
	kinds[(*n)++] = k;
}

/* Whether the first difference of a trace, libipt's result @a against ours
 * @b, is of a kind that docs/compatibility.md ("The query decoder")
 * describes, and which (doc_none if not):
 * - libipt fails with -pte_bad_opc at a packet of a later libipt (or at
 *   the PSB of a PSB+ holding one) that ptdecode decodes: ptdecode goes
 *   on, or fails no earlier;
 * - libipt fails with -pte_bad_context or -pte_bad_packet at a timing
 *   packet that its time update rejects (or at the PSB of a PSB+ holding
 *   one, or after an OVF whose SKD010 look-ahead meets one), where
 *   ptdecode takes what it can and goes on, or fails no earlier;
 * - a PWRE event whose HW bit differs: ptdecode reads it where the Intel
 *   SDM puts it (bit 7 of the packet's byte 2), libipt 2.0.5 from bit 3;
 * - a backward synchronization from a position @prev inside a PSB (one that
 *   a corrupted packet before it overlaps): libipt's search, aligned to
 *   the position, skips that PSB and goes to an earlier one, ptdecode's
 *   takes it (the pt_pkt_sync_backward() row of the table). */
enum doc_kind {
	doc_none,
	doc_later_packet,
	doc_timing,
	doc_pwre_hw,
	doc_psb_inside,
	doc_kinds
};

static const char *const doc_names[doc_kinds] = {
        "", "at packets of a later libipt", "at timing packets libipt rejects",
        "in PWRE's HW bit", "backward from inside a PSB"};

/* Whether a PSB starts in [@at - 16, @at) of @config's buffer, with @at
 * inside or right after it. */
static int psb_around(const struct pt_config *config, uint64_t at)
{
	uint64_t s;

	for (s = at > 16 ? at - 16 : 0; s < at; ++s)
		if (ptd_psb_at(config->begin, config->end, s))
			return 1;
	return 0;
}

static enum doc_kind documented_diff(const struct pt_config *config,
                                     const struct rec *a, const struct rec *b,
                                     const struct rec *prev)
{
	const int later = b->status >= 0 || b->offset >= a->offset;

	if (sync_mode == sync_backward && a->kind == rec_sync &&
	    b->kind == rec_sync && a->status >= 0 && b->status >= 0 && prev &&
	    a->offset < prev->offset && psb_around(config, prev->offset))
		return doc_psb_inside;

	if (a->kind == rec_event && b->kind == rec_event && a->status >= 0 &&
	    a->status == b->status && a->ev.type == ptev_pwre &&
	    b->ev.type == ptev_pwre &&
	    a->ev.variant.pwre.state == b->ev.variant.pwre.state &&
	    a->ev.variant.pwre.sub_state == b->ev.variant.pwre.sub_state &&
	    a->ev.variant.pwre.hw != b->ev.variant.pwre.hw)
		return doc_pwre_hw;
	if (a->status == -pte_bad_opc && later &&
	    ptd_known_later_packet(config, a->offset))
		return doc_later_packet;
	if ((a->status == -pte_bad_context || a->status == -pte_bad_packet) &&
	    later && ptd_known_rejected_timing(config, a->offset))
		return doc_timing;
	return doc_none;
}

static int by_count(const void *pa, const void *pb)
{
	const struct diff_kind *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* With PTD_DIFF_QRY_DUMP=<prefix>, write the trace of @config (as
 * compared: corrupted) to <prefix>-<t>.pt, for ptdump, and its
 * configuration to <prefix>-<t>.args, as options of ptqry (which replays
 * the trace on either decoder: ptqry $(cat <prefix>-<t>.args) --steps
 * [--libipt | --time-libipt] <prefix>-<t>.pt). */
static void dump_corrupted(const struct pt_config *config, unsigned t)
{
	const char *prefix = getenv("PTD_DIFF_QRY_DUMP");
	char path[4096];
	FILE *f;

	if (!prefix || !*prefix)
		return;
	snprintf(path, sizeof(path), "%s-%u.pt", prefix, t);
	f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(config->begin, 1, (size_t)(config->end - config->begin), f);
	fclose(f);
	/* The configuration, as ptqry's options (and the errata, which
	 * ptqry takes as --errata). */
	snprintf(path, sizeof(path), "%s-%u.args", prefix, t);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f,
	        "--mtc-freq %u --nom-freq %u --cpuid-0x15.eax %u "
	        "--cpuid-0x15.ebx %u",
	        config->mtc_freq, config->nom_freq, config->cpuid_0x15_eax,
	        config->cpuid_0x15_ebx);
	/* (make_trace() sets only these four.) */
	if (config->flags.variant.query.keep_tcal_on_ovf)
		fprintf(f, " --keep-tcal-on-ovf");
	if (config->errata.bdm70 || config->errata.skd010 ||
	    config->errata.apl11 || config->errata.apl12 ||
	    config->errata.skd007 || config->errata.skl168)
		fprintf(f, " --errata %s%s%s%s%s%s",
		        config->errata.bdm70 ? "bdm70," : "",
		        config->errata.skd010 ? "skd010," : "",
		        config->errata.apl11 ? "apl11," : "",
		        config->errata.apl12 ? "apl12," : "",
		        config->errata.skd007 ? "skd007," : "",
		        config->errata.skl168 ? "skl168," : "");
	fputc('\n', f);
	fclose(f);
}

/* --corrupt: every trace with one to three bytes overwritten (@corrupted),
 * and with --cut (@cut_end) ended at a random offset in its second half, where
 * the end usually cuts a packet off (as the end of a perf AUX buffer does),
 * decoded by both decoders in lockstep in a child process; the first
 * difference of each trace is reported.  Returns the exit status. */
/* check_evt() on trace @config, against our pull API driven by itself (at
 * most @max results) with the accurate time estimator. */
static int check_evt_alone(const struct pt_config *config, uint64_t max,
                           unsigned trace, struct evt_counts *counts)
{
	struct ops a, b;
	struct log log = {0};
	int err = -1;

	if (make_decoders(config, &a, &b) == 0) {
		pt_qry_free_decoder(b.dec);
		b.dec = pt_qry_alloc_decoder(config);
		if (b.dec && drive(&b, &log, (size_t)max) == 0)
			err = check_evt(config, NULL, &log, log.n < max, trace,
			                counts);
	}
	free(log.recs);
	free_decoders(&a, &b);
	return err;
}

static int run_corrupt(uint8_t *buf, uint64_t seed, unsigned traces,
                       unsigned kb, unsigned max_diffs, int verbose,
                       int corrupted, int cut_end)
{
	enum { max_kinds = 256 };
	struct diff_kind *kinds = calloc(max_kinds, sizeof(*kinds));
	struct lockstep *ls;
	unsigned nkinds = 0, diffs = 0, abandoned = 0, cut = 0, evt_diffs = 0;
	struct evt_counts evt_counts = {0, 0, 0};
	unsigned documented[doc_kinds] = {0};
	uint64_t sync_flags = 0;
	uint64_t total_bytes = 0, total_calls = 0, total_errors = 0;

	ls = mmap(NULL, sizeof(*ls), PROT_READ | PROT_WRITE,
	          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!kinds || ls == MAP_FAILED) {
		fprintf(stderr, "diff_qry: out of memory\n");
		free(kinds);
		return 1;
	}
	for (unsigned t = 0; t < traces; ++t) {
		struct pt_config config;
		struct ptd_rng rng;
		struct damage d;
		size_t size = make_trace(&config, &rng, buf, kb, seed, t);
		enum doc_kind why;
		int status;

		if (!size) {
			fprintf(stderr, "diff_qry: generator failed\n");
			return 1;
		}
		if (corrupted)
			corrupt(buf, size, &rng, &d);
		else
			memset(&d, 0, sizeof(d));
		if (cut_end) {
			size = size / 2 +
			       (size_t)ptd_rng_below(&rng, size - size / 2);
			config.end = buf + size;
		}
		total_bytes += size;
		status = run_isolated(&config, 8 * (uint64_t)size + 1000, ls);
		if (status < 0)
			return 1;
		total_calls += ls->calls;
		total_errors += ls->errors;
		sync_flags += ls->sync_flags;
		cut += (unsigned)ls->cut;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
		    !ls->done) {
			const char *who = ls->in_call == 0   ? "libipt"
			                  : ls->in_call == 1 ? "ptdecode"
			                                     : "the test";
			int hang = WIFSIGNALED(status) &&
			           WTERMSIG(status) == SIGALRM;

			fprintf(stderr,
			        "diff_qry: seed %" PRIu64 " trace %u: %s %s "
			        "after %" PRIu64 " calls (status 0x%x)\n",
			        seed, t, who, hang ? "hung" : "crashed",
			        ls->calls, (unsigned)status);
			dump_corrupted(&config, t);
			/* libipt's own hangs and crashes are not ours. */
			if (ls->in_call == 0)
				abandoned++;
			else
				diffs++;
			continue;
		}
		/* The event decoder must give our pull API's results here,
		 * too (errors and resynchronization included). */
		if (check_evt_alone(&config, 8 * (uint64_t)size + 1000, t,
		                    &evt_counts) < 0) {
			dump_corrupted(&config, t);
			evt_diffs++;
		}
		if (verbose)
			fprintf(stderr,
			        "trace %u: %zu bytes, %" PRIu64 " calls%s\n", t,
			        size, ls->calls,
			        ls->differs ? ", differs" : "");
		if (!ls->differs)
			continue;
		why = documented_diff(&config, &ls->ipt, &ls->ours,
		                      ls->nctx ? &ls->ctx[ls->nctx - 1] : NULL);
		if (why != doc_none) {
			documented[why]++;
			if (verbose)
				fprintf(stderr,
				        "trace %u: call %" PRIu64
				        " differs as documented (%s)\n",
				        t, ls->at, doc_names[why]);
			continue;
		}
		diffs++;
		count_diff(kinds, &nkinds, max_kinds, ls, t);
		fprintf(stderr,
		        "diff_qry: seed %" PRIu64
		        " trace %u (%zu bytes%s, corrupted:",
		        seed, t, size, cut_end ? " after the cut" : "");
		for (unsigned i = 0; i < d.n; ++i)
			fprintf(stderr, " %zx %02x->%02x", d.at[i], d.old[i],
			        d.now[i]);
		fprintf(stderr, "): call %" PRIu64 " differs (%s, %s)\n",
		        ls->at, diff_what(&ls->ipt, &ls->ours),
		        where_names[ls->where]);
		for (unsigned i = 0; i < ls->nctx; ++i)
			print_rec("both", &ls->ctx[i]);
		print_rec("libipt", &ls->ipt);
		print_rec("ours", &ls->ours);
		dump_corrupted(&config, t);
	}
	munmap(ls, sizeof(*ls));
	printf("diff_qry: %s: %u traces, %" PRIu64 " bytes, %" PRIu64
	       " calls compared (%" PRIu64 " errors), %u traces differ, %u "
	       "abandoned (libipt hung or crashed), %u cut short, %u differ "
	       "as documented (%u %s, %u %s, %u %s, %u %s)\n",
	       corrupted && cut_end ? "--corrupt --cut"
	       : corrupted          ? "--corrupt"
	       : cut_end            ? "--cut"
	                            : "lockstep",
	       traces, total_bytes, total_calls, total_errors, diffs, abandoned,
	       cut,
	       documented[doc_later_packet] + documented[doc_timing] +
	               documented[doc_pwre_hw] + documented[doc_psb_inside],
	       documented[doc_later_packet], doc_names[doc_later_packet],
	       documented[doc_timing], doc_names[doc_timing],
	       documented[doc_pwre_hw], doc_names[doc_pwre_hw],
	       documented[doc_psb_inside], doc_names[doc_psb_inside]);
	if (sync_mode == sync_backward)
		printf("diff_qry: %" PRIu64 " backward synchronizations where "
		       "libipt returned 0 instead of the status flags "
		       "(documented)\n",
		       sync_flags);
	qsort(kinds, nkinds, sizeof(*kinds), by_count);
	for (unsigned i = 0; i < nkinds; ++i) {
		const struct diff_kind *k = &kinds[i];

		char sa[32], sb[32];

		printf("  %4u x %-8s libipt %s", k->count, kind_name(k->kind_a),
		       status_name(k->status_a, sa, sizeof(sa)));
		if (k->ev_a >= 0)
			printf(" %s", event_name(k->ev_a));
		printf(", ours ");
		if (k->kind_b != k->kind_a)
			printf("%s ", kind_name(k->kind_b));
		printf("%s", status_name(k->status_b, sb, sizeof(sb)));
		if (k->ev_b >= 0)
			printf(" %s", event_name(k->ev_b));
		printf(": %s differs, %s (first: trace %u)\n", k->what,
		       where_names[k->where], k->first);
	}
	free(kinds);
	if (diffs && diffs <= max_diffs)
		printf("diff_qry: %u differing traces, at most %u expected "
		       "(--max-diffs): passed\n",
		       diffs, max_diffs);
	printf("diff_qry: event decoder: %" PRIu64 " events (%" PRIu64
	       " TNT packets, %" PRIu64 " PSB+ tracing status), %u traces "
	       "where they are not the query decoder's results\n",
	       evt_counts.events, evt_counts.tnt, evt_counts.status, evt_diffs);
	return diffs > max_diffs || evt_diffs ? 1 : 0;
}

/* ----------------------------------------------------------------------- */
/* Valid traces                                                             */
/* ----------------------------------------------------------------------- */

static int run_valid(uint8_t *buf, uint64_t seed, unsigned traces, unsigned kb,
                     int verbose)
{
	uint64_t total_recs = 0, total_bytes = 0, counts[4] = {0};
	struct evt_counts evt_counts = {0, 0, 0};
	int failures = 0;

	for (unsigned t = 0; t < traces && failures < 3; ++t) {
		struct pt_config config;
		struct ptd_time_config tconfig;
		struct log la = {0}, lb = {0};
		struct ops a, b;
		size_t size, max = 20u * 1000 * 1000;
		struct ptd_rng rng;

		size = make_trace(&config, &rng, buf, kb, seed, t);
		if (!size) {
			fprintf(stderr, "diff_qry: generator failed\n");
			return 1;
		}
		total_bytes += size;
		if (make_decoders(&config, &a, &b) < 0) {
			fprintf(stderr, "diff_qry: alloc failed\n");
			return 1;
		}
		ptd_time_config_init(&tconfig);
		tconfig.mode = ptd_time_mode_libipt;

		if (drive(&a, &la, max) < 0 || drive(&b, &lb, max) < 0) {
			fprintf(stderr, "diff_qry: out of memory\n");
			return 1;
		}
		for (size_t i = 0; i < la.n || i < lb.n; ++i) {
			if (i < la.n && i < lb.n &&
			    same_rec(&la.recs[i], &lb.recs[i])) {
				counts[la.recs[i].kind]++;
				continue;
			}
			fprintf(stderr,
			        "diff_qry: trace %u (seed %" PRIu64
			        ", %zu bytes): result %zu differs\n",
			        t, seed, size, i);
			for (size_t j = i >= 3 ? i - 3 : 0; j < i; ++j)
				print_rec("both", &la.recs[j]);
			if (i < la.n)
				print_rec("libipt", &la.recs[i]);
			if (i < lb.n)
				print_rec("ours", &lb.recs[i]);
			failures++;
			dump_corrupted(&config, t);
			break;
		}
		/* ptd_qry_next_batch() must give our pull API's results,
		 * with both time estimators, and so must the event decoder. */
		if (!failures && check_batch(&config, &tconfig, &lb, t) < 0)
			failures++;
		if (!failures && check_evt(&config, &tconfig, &lb, lb.n < max,
		                           t, &evt_counts) < 0)
			failures++;
		if (!failures && (t & 3) == 0) {
			struct ptd_time_config acc;
			struct log lc = {0};
			struct ops c = b;

			ptd_time_config_init(&acc);
			c.dec = ptd_qry_alloc_decoder(&config, &acc);
			if (!c.dec || drive(&c, &lc, max) < 0 ||
			    check_batch(&config, &acc, &lc, t) < 0)
				failures++;
			pt_qry_free_decoder(c.dec);
			free(lc.recs);
		}
		total_recs += la.n;
		if (verbose)
			fprintf(stderr, "trace %u: %zu bytes, %zu results\n", t,
			        size, la.n);
		free(la.recs);
		free(lb.recs);
		free_decoders(&a, &b);
	}
	printf("diff_qry: %u traces, %" PRIu64 " bytes, %" PRIu64
	       " results (%" PRIu64 " syncs, %" PRIu64 " branches, %" PRIu64
	       " indirect, %" PRIu64 " events): %s\n",
	       traces, total_bytes, total_recs, counts[rec_sync],
	       counts[rec_cond], counts[rec_indirect], counts[rec_event],
	       failures ? "DIFFERENCES" : "equal");
	printf("diff_qry: event decoder: %" PRIu64 " events (%" PRIu64
	       " TNT packets, %" PRIu64 " PSB+ tracing status): %s\n",
	       evt_counts.events, evt_counts.tnt, evt_counts.status,
	       failures ? "DIFFERENCES" : "the query decoder's results");
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ptd_libipt ipt;
	uint64_t seed = 1;
	unsigned traces = 50, kb = 256, max_diffs = 0;
	int verbose = 0, corrupted = 0, cut = 0, status;
	char msg[256];
	uint8_t *buf;

	for (int i = 1; i < argc; ++i) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--traces") && i + 1 < argc)
			traces = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--kb") && i + 1 < argc)
			kb = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--corrupt"))
			corrupted = 1;
		else if (!strcmp(argv[i], "--cut"))
			cut = 1;
		else if (!strcmp(argv[i], "--keep-tcal"))
			keep_tcal = 1;
		else if (!strcmp(argv[i], "--sync") && i + 1 < argc &&
		         !strcmp(argv[i + 1], "backward"))
			sync_mode = sync_backward, ++i;
		else if (!strcmp(argv[i], "--sync") && i + 1 < argc &&
		         !strcmp(argv[i + 1], "set"))
			sync_mode = sync_set, ++i;
		else if (!strcmp(argv[i], "--max-diffs") && i + 1 < argc)
			max_diffs = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else {
			fprintf(stderr,
			        "usage: diff_qry [--seed N] [--traces N] "
			        "[--kb N] [--corrupt] [--cut] "
			        "[--sync backward|set] [--max-diffs N] [-v]\n");
			return 2;
		}
	}
	if (kb < 1) {
		fprintf(stderr, "diff_qry: --kb must be at least 1\n");
		return 2;
	}
	if (ptd_libipt_open(&ipt, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "diff_qry: skipped: %s\n", msg);
		return PTD_EXIT_SKIP;
	}
	g_ipt = &ipt;
	buf = malloc((size_t)kb * 1024);
	if (!buf)
		return 1;
	if (corrupted || cut || sync_mode != sync_forward)
		status = run_corrupt(buf, seed, traces, kb, max_diffs, verbose,
		                     corrupted, cut);
	else
		status = run_valid(buf, seed, traces, kb, verbose);
	free(buf);
	ptd_libipt_close(&ipt);
	return status;
}
