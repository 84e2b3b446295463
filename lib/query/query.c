/* SPDX-License-Identifier: BSD-3-Clause */
/* The query decoder: pt_qry_*.
 *
 * The decoder stays a few packets ahead of its user: after each result it
 * reads on up to the next packet that matters to a query (a TNT, a TIP, or a
 * packet that makes an event), applying the packets in between (timing, PAD,
 * PSB+ without events).  Events whose IP comes with a later packet wait in the
 * event queue (evq.h) for it.  The rules for which packet an event binds to,
 * and the status flags, are libipt's (docs/compatibility.md). */
#include "qry_decoder.h"

#include "../common/config.h"
#include "packet/pkt_sync.h"
#include "ptdecode/ptdecode.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Packets                                                                    */
/* ------------------------------------------------------------------------ */

static unsigned ptd_qry_flags(enum pt_packet_type type)
{
	switch (type) {
	case ppt_tip:
		return ptd_qf_tip;
	case ppt_tnt_8:
	case ppt_tnt_64:
		return ptd_qf_tnt;
	case ppt_fup:
		return ptd_qf_fup;
	case ppt_psbend:
		return ptd_qf_psbend;
	case ppt_ovf:
		return ptd_qf_psbend | ptd_qf_event;
	case ppt_tip_pge:
	case ppt_tip_pgd:
	case ppt_pip:
	case ppt_mode:
	case ppt_stop:
	case ppt_vmcs:
	case ppt_mnt:
	case ppt_exstop:
	case ppt_mwait:
	case ppt_pwre:
	case ppt_pwrx:
	case ppt_ptw:
	case ppt_cbr:
	case ppt_trig:
		return ptd_qf_event;
	default:
		return 0;
	}
}

/* ptd_qry_flags() for a decoded packet: CFE and EVD of types libipt does not
 * know make no event (the decoder skips them while reading ahead). */
unsigned ptd_qry_packet_flags(const struct pt_packet *packet)
{
	switch (packet->type) {
	case ppt_cfe:
		switch (packet->payload.cfe.type) {
		case pt_cfe_intr:
		case pt_cfe_iret:
		case pt_cfe_smi:
		case pt_cfe_rsm:
		case pt_cfe_sipi:
		case pt_cfe_init:
		case pt_cfe_vmentry:
		case pt_cfe_vmexit:
		case pt_cfe_vmexit_intr:
		case pt_cfe_shutdown:
		case pt_cfe_uintr:
		case pt_cfe_uiret:
		case pt_cfe_swintr:
		case pt_cfe_syscall:
			return ptd_qf_event;
		default:
			return 0;
		}
	case ppt_evd:
		switch (packet->payload.evd.type) {
		case pt_evd_cr2:
		case pt_evd_vmxq:
		case pt_evd_vmxr:
			return ptd_qf_event;
		default:
			return 0;
		}
	default:
		return ptd_qry_flags(packet->type);
	}
}

/* The type of the packet at @pos by its opcode alone (as libipt's decoder
 * functions are chosen), for a packet that does not decode (cut off by the
 * end of the buffer, or with a bad payload: a reserved IP compression or
 * mode leaf), or ppt_invalid if the opcode does not tell. */
static enum pt_packet_type ptd_qry_opcode_type(const uint8_t *pos,
                                               const uint8_t *end)
{
	uint8_t opc = pos[0];

	if ((opc & 0x3) == 0x1) {
		switch (opc & 0x1f) {
		case 0x0d:
			return ppt_tip;
		case 0x11:
			return ppt_tip_pge;
		case 0x01:
			return ppt_tip_pgd;
		case 0x1d:
			return ppt_fup;
		}
	}
	if (opc == 0x99)
		return ppt_mode;
	if (opc != 0x02 || end - pos < 2)
		return ppt_invalid;
	if ((pos[1] & 0x1f) == 0x12)
		return ppt_ptw;
	switch (pos[1]) {
	case 0xa3:
		return ppt_tnt_64;
	case 0x43:
		return ppt_pip;
	case 0xc8:
		return ppt_vmcs;
	case 0xc3:
		/* MNT is 02 C3 88: with another third byte (or none) the
		 * opcode is not known. */
		return end - pos >= 3 && pos[2] == 0x88 ? ppt_mnt : ppt_invalid;
	case 0x03:
		return ppt_cbr;
	case 0xc2:
		return ppt_mwait;
	case 0x22:
		return ppt_pwre;
	case 0xa2:
		return ppt_pwrx;
	}
	return ppt_invalid;
}

#if defined(__GNUC__) || defined(__clang__)
/* Out of the decoding paths: code for packets that do not decode. */
#define PTD_QRY_COLD __attribute__((noinline, cold))
#else
#define PTD_QRY_COLD
#endif

/* The type of the status packet at @pos that the end of the buffer cuts
 * off (TSC, TMA, MTC, CYC, PSB: the packets that the read-ahead decodes
 * rather than stopping before them), by its opcode, or ppt_invalid.  Cut
 * off, they end the trace, and the read-ahead moves beyond them
 * (ptd_qry_read_ahead()), as libipt's does.  (Only for a cut-off packet:
 * one with a bad payload, a TMA's reserved bits say, fails where it is.) */
static enum pt_packet_type ptd_qry_cut_status_type(const uint8_t *pos,
                                                   const uint8_t *end)
{
	uint8_t opc = pos[0];

	/* (CYC: bits 1:0 of the opcode byte; the rest is payload.) */
	if ((opc & PTD_OPC_CYC) == PTD_OPC_CYC)
		return ppt_cyc;
	if (opc == PTD_OPC_MTC)
		return ppt_mtc;
	if (opc == PTD_OPC_TSC)
		return ppt_tsc;
	if (opc != PTD_OPC_EXT || end - pos < 2)
		return ppt_invalid;
	if (pos[1] == PTD_EXT_TMA)
		return ppt_tma;
	if (pos[1] == PTD_EXT_PSB)
		return ppt_psb;
	return ppt_invalid;
}

/* ptd_qry_fetch() for a packet that does not decode (@size: 0 or the
 * negative error).  A packet that the end of the buffer cuts off, or whose
 * payload is bad, is still recognised by its opcode: the read-ahead stops
 * before it as before a good one of its type, and the error comes when it
 * is processed, as in libipt (an event before it is reported first).  Out
 * of line and cold: the decoding paths do not pay for it. */
PTD_QRY_COLD static int ptd_qry_fetch_failed(struct pt_query_decoder *decoder,
                                             int size)
{
	const uint8_t *end = decoder->config.end;
	enum pt_packet_type type;

	if (!size)
		size = -pte_bad_packet;
	type = ptd_qry_opcode_type(decoder->pos, end);
	if (type == ppt_invalid && size == -pte_eos)
		type = ptd_qry_cut_status_type(decoder->pos, end);
	if (type == ppt_invalid) {
		decoder->next_err = size;
		return size;
	}
	decoder->next.type = type;
	decoder->next_err = size;
	decoder->next_flags = ptd_qry_flags(type);
	decoder->have_next = 1;
	return 0;
}

int ptd_qry_fetch(struct pt_query_decoder *decoder)
{
	struct ptd_pkt_state state = decoder->pstate;
	const uint8_t *end = decoder->config.end;
	int size;

	decoder->have_next = 0;
	decoder->next_err = 0;
	if (decoder->pos >= end) {
		decoder->next_err = -pte_eos;
		return -pte_eos;
	}
	size = ptd_pkt_decode(decoder->pos, end, &decoder->config,
	                      &decoder->next, &state);
	if (size <= 0)
		return ptd_qry_fetch_failed(decoder, size);
	/* SKD007: the packet decoder gives the OVF that replaced a CYC's
	 * second byte at the CYC's first byte, and counts that byte in the
	 * size.  The query decoder stands at the OVF itself, past the broken
	 * byte, as libipt's does (pt_qry_get_offset() tells). */
	if (decoder->next.type == ppt_ovf && size > decoder->next.size) {
		decoder->pos += size - decoder->next.size;
		size = decoder->next.size;
	}
	decoder->next_size = size;
	decoder->next_pstate = state;
	decoder->next_flags = ptd_qry_packet_flags(&decoder->next);
	decoder->have_next = 1;
	return 0;
}

void ptd_qry_consume(struct pt_query_decoder *decoder)
{
	struct ptd_time_ahead ahead;

	ahead.pos = decoder->pos + decoder->next_size;
	ahead.end = decoder->config.end;
	ahead.state = decoder->next_pstate;
	(void)ptd_time_update(&decoder->time, &decoder->next, &ahead);

	decoder->pos = ahead.pos;
	decoder->pstate = decoder->next_pstate;
	decoder->have_next = 0;
}

int ptd_qry_walk_next(struct ptd_qry_walk *walk, struct pt_packet *packet,
                      uint64_t *offset, struct ptd_time_ahead *ahead)
{
	struct ptd_pkt_state before = walk->pstate;
	int size;

	if (offset)
		*offset = (uint64_t)(walk->pos - walk->config->begin);
	if (walk->pos >= walk->config->end)
		return -pte_eos;
	size = ptd_pkt_decode(walk->pos, walk->config->end, walk->config,
	                      packet, &walk->pstate);
	if (size < 0)
		return size;
	if (!size)
		return -pte_bad_packet;
	/* SKD007: libipt 2.0.5's look-aheads read packets without the
	 * work-around, which only its decoding of a CYC applies (here
	 * ptd_qry_fetch()): to them the bytes of an OVF that replaced a CYC's
	 * second byte are that 2-byte CYC (which ends no PEBS block). */
	if (packet->type == ppt_ovf && size > packet->size) {
		walk->pstate = before;
		size = ptd_pkt_cyc(packet, walk->pos, walk->config->end);
	}
	walk->pos += size;
	if (ahead) {
		ahead->pos = walk->pos;
		ahead->end = walk->config->end;
		ahead->state = walk->pstate;
	}
	return size;
}

/* ------------------------------------------------------------------------ */
/* Time                                                                       */
/* ------------------------------------------------------------------------ */

void ptd_qry_stamp(struct pt_query_decoder *decoder, struct ptd_evq_slot *slot)
{
	struct pt_event *ev = &slot->ev;

	ev->has_tsc = ptd_time_get_tsc(&decoder->time, &ev->tsc, &ev->lost_mtc,
	                               &ev->lost_cyc) == 0;
	slot->stamped = 1;
}

void ptd_qry_snapshot(struct pt_query_decoder *decoder)
{
	struct ptd_qry_time *last = &decoder->last_time;

	last->tsc_status = ptd_time_get_tsc(&decoder->time, &last->tsc,
	                                    &last->lost_mtc, &last->lost_cyc);
	last->cbr_status = ptd_time_get_cbr(&decoder->time, &last->cbr);
	/* 0 without a ratio, as the batch items say it. */
	if (last->cbr_status < 0)
		last->cbr = 0;
}

static void ptd_qry_clear_snapshot(struct pt_query_decoder *decoder)
{
	memset(&decoder->last_time, 0, sizeof(decoder->last_time));
	decoder->last_time.tsc_status = -pte_no_time;
	decoder->last_time.cbr_status = -pte_no_cbr;
}

/* ------------------------------------------------------------------------ */
/* State                                                                      */
/* ------------------------------------------------------------------------ */

void ptd_qry_reset_state(struct pt_query_decoder *decoder)
{
	decoder->enabled = 0;
	decoder->consume_packet = 0;
	decoder->iflag = 0;
	decoder->mode_exec_valid = 0;
	decoder->event = NULL;
	ptd_last_ip_init(&decoder->ip);
	ptd_tnt_cache_init(&decoder->tnt);
	ptd_evq_init(&decoder->evq);
	ptd_qry_clear_snapshot(decoder);
}

/* The oldest event of the TIP ring if a FUP that comes first binds it,
 * or NULL. */
static struct ptd_evq_slot *
ptd_qry_tip_event_at_fup(const struct pt_query_decoder *decoder)
{
	struct ptd_evq_slot *slot;

	slot = ptd_evq_peek((struct ptd_evq *)&decoder->evq, ptd_evb_tip);
	return slot && slot->fup_too ? slot : NULL;
}

/* Whether the FUP at pos will report an event: one waits for it that is
 * not only there to consume it. */
static int ptd_qry_fup_will_event(const struct pt_query_decoder *decoder)
{
	const struct ptd_evq *evq = &decoder->evq;

	if (ptd_qry_tip_event_at_fup(decoder))
		return 1;
	for (unsigned i = 0; i < evq->count[ptd_evb_fup]; ++i)
		if (!evq->ring[ptd_evb_fup]
		              [(evq->begin[ptd_evb_fup] + i) % PTD_EVQ_SIZE]
		                      .ignore)
			return 1;
	return 0;
}

static int ptd_qry_will_event(const struct pt_query_decoder *decoder)
{
	unsigned flags;

	if (!decoder->have_next)
		return 0;
	flags = decoder->next_flags;
	if (flags & ptd_qf_event)
		return 1;
	if (flags & ptd_qf_psbend)
		return ptd_evq_pending(&decoder->evq, ptd_evb_psbend);
	if (flags & ptd_qf_tip)
		return ptd_evq_pending(&decoder->evq, ptd_evb_tip);
	if (flags & ptd_qf_fup)
		return ptd_qry_fup_will_event(decoder);
	return 0;
}

static int ptd_qry_will_eos(const struct pt_query_decoder *decoder)
{
	if (decoder->have_next)
		return 0;
	return decoder->pos >= decoder->config.end ||
	       decoder->next_err == -pte_eos;
}

int ptd_qry_status(const struct pt_query_decoder *decoder)
{
	int flags = 0;

	if (ptd_tnt_cache_is_empty(&decoder->tnt)) {
		if (ptd_qry_will_event(decoder))
			flags |= pts_event_pending;
		if (ptd_qry_will_eos(decoder))
			flags |= pts_eos;
	}
	return flags;
}

/* The error that fetching the packet at pos gives (again). */
static int ptd_qry_fetch_error(struct pt_query_decoder *decoder)
{
	int err = ptd_qry_fetch(decoder);

	if (err < 0)
		return err;
	return -pte_internal;
}

/* ------------------------------------------------------------------------ */
/* Events                                                                     */
/* ------------------------------------------------------------------------ */

/* Set *@ip to the last IP, or mark @ev's IP suppressed. */
static int ptd_qry_event_ip(uint64_t *ip, struct pt_event *ev,
                            const struct pt_query_decoder *decoder)
{
	int err = ptd_last_ip_query(ip, &decoder->ip);

	if (err < 0) {
		if (err != -pte_noip && err != -pte_ip_suppressed)
			return err;
		ev->ip_suppressed = 1;
	}
	return 0;
}

static void ptd_qry_publish(struct pt_query_decoder *decoder,
                            struct ptd_evq_slot *slot)
{
	/* Events libipt leaves without a time get the time of the packet
	 * that completes them. */
	if (!slot->stamped)
		ptd_qry_stamp(decoder, slot);
	decoder->event = slot;
}

int ptd_qry_pending_psb_event(struct pt_query_decoder *decoder)
{
	struct ptd_evq_slot *slot;
	struct pt_event *ev;
	int err = 0;

	slot = ptd_evq_dequeue(&decoder->evq, ptd_evb_psbend);
	if (!slot)
		return 0;
	ev = &slot->ev;
	ev->status_update = 1;
	ptd_qry_stamp(decoder, slot);
	switch (ev->type) {
	case ptev_async_paging:
		err = ptd_qry_event_ip(&ev->variant.async_paging.ip, ev,
		                       decoder);
		break;
	case ptev_exec_mode:
		err = ptd_qry_event_ip(&ev->variant.exec_mode.ip, ev, decoder);
		break;
	case ptev_iflags:
		err = ptd_qry_event_ip(&ev->variant.iflags.ip, ev, decoder);
		break;
	case ptev_tsx:
		err = ptd_qry_event_ip(&ev->variant.tsx.ip, ev, decoder);
		break;
	case ptev_async_vmcs:
		err = ptd_qry_event_ip(&ev->variant.async_vmcs.ip, ev, decoder);
		break;
	case ptev_cbr:
		break;
	case ptev_mnt:
		/* MNT may come anywhere: not a status update. */
		ev->status_update = 0;
		break;
	default:
		return -pte_internal;
	}
	if (err < 0)
		return err;
	ptd_qry_publish(decoder, slot);
	return 1;
}

int ptd_qry_ovf_disabled(struct pt_query_decoder *decoder)
{
	struct ptd_evq_slot *slot = ptd_evq_standalone(&decoder->evq);

	slot->ev.type = ptev_overflow;
	/* Tracing was off when the overflow ended. */
	slot->ev.ip_suppressed = 1;
	decoder->enabled = 0;
	ptd_qry_stamp(decoder, slot);
	ptd_qry_publish(decoder, slot);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* PSB+                                                                       */
/* ------------------------------------------------------------------------ */

/* BDM70: a PSB+ while tracing is off may carry the FUP of a TIP.PGE that
 * follows it.  Returns 1 if a TIP.PGE follows the PSB+ (then that FUP does
 * not mean that tracing is on), 0 if not, or an error. */
static int ptd_qry_bdm70(const struct pt_query_decoder *decoder)
{
	struct ptd_qry_walk walk;
	struct pt_packet pkt;

	walk.config = &decoder->config;
	walk.pos = decoder->pos + decoder->next_size;
	walk.pstate = decoder->next_pstate;
	for (;;) {
		int size;

		/* PADs go on, too: a PSB+ and what follows it are often
		 * padded. */
		if (!walk.pstate.bip_size)
			walk.pos =
			        ptd_qry_skip_pads(walk.pos, walk.config->end);
		size = ptd_qry_walk_next(&walk, &pkt, NULL, NULL);
		if (size < 0)
			return size == -pte_eos ? 0 : size;
		switch (pkt.type) {
		case ppt_tip_pge:
			return 1;
		case ppt_pad:
		case ppt_tsc:
		case ppt_cbr:
		case ppt_psbend:
		case ppt_pip:
		case ppt_mode:
		case ppt_vmcs:
		case ppt_tma:
		case ppt_mtc:
		case ppt_cyc:
		case ppt_mnt:
			continue;
		default:
			return 0;
		}
	}
}

static int ptd_qry_header_event(struct pt_query_decoder *decoder)
{
	const struct pt_packet *pkt = &decoder->next;
	struct ptd_evq_slot *slot;
	struct pt_event *ev;

	slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_psbend);
	if (!slot)
		return -pte_nomem;
	ev = &slot->ev;
	switch (pkt->type) {
	case ppt_mode:
		if (pkt->payload.mode.leaf == pt_mol_exec) {
			const struct pt_packet_mode_exec *exec =
			        &pkt->payload.mode.bits.exec;

			ev->type = ptev_exec_mode;
			ev->variant.exec_mode.mode = pt_get_exec_mode(exec);
			if (!decoder->config.flags.variant.query
			             .enable_iflags_events)
				break;
			/* Event Trace: the PSB+ restates IF, too. */
			slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_psbend);
			if (!slot)
				return -pte_nomem;
			slot->ev.type = ptev_iflags;
			slot->ev.variant.iflags.iflag = exec->iflag;
			decoder->iflag = exec->iflag;
			decoder->mode_exec_valid = 1;
		} else {
			ev->type = ptev_tsx;
			ev->variant.tsx.speculative =
			        pkt->payload.mode.bits.tsx.intx;
			ev->variant.tsx.aborted =
			        pkt->payload.mode.bits.tsx.abrt;
		}
		break;
	case ppt_pip:
		ev->type = ptev_async_paging;
		ev->variant.async_paging.cr3 = pkt->payload.pip.cr3;
		ev->variant.async_paging.non_root = pkt->payload.pip.nr;
		break;
	case ppt_vmcs:
		ev->type = ptev_async_vmcs;
		ev->variant.async_vmcs.base = pkt->payload.vmcs.base;
		break;
	case ppt_cbr:
		ev->type = ptev_cbr;
		ev->variant.cbr.ratio = pkt->payload.cbr.ratio;
		break;
	case ppt_mnt:
		ev->type = ptev_mnt;
		ev->variant.mnt.payload = pkt->payload.mnt.payload;
		break;
	default:
		return -pte_internal;
	}
	return 0;
}

/* Read the packets of a PSB+ up to its PSBEND (or an OVF in it). */
static int ptd_qry_read_psb_header(struct pt_query_decoder *decoder)
{
	ptd_last_ip_init(&decoder->ip);
	for (;;) {
		int err;

		/* A PAD changes nothing (neither the packet state nor the
		 * time): skip runs of them without the general fetch. */
		decoder->pos =
		        ptd_qry_skip_pads(decoder->pos, decoder->config.end);
		err = ptd_qry_fetch(decoder);

		if (err < 0)
			return err;
		if (decoder->next_flags & ptd_qf_psbend)
			return 0;

		/* A packet that does not belong in a PSB+ is out of context
		 * whatever its payload (libipt looks at the opcode first); a
		 * header packet that did not decode (decoder->next_err, its
		 * type from the opcode) fails with its error. */
		switch (decoder->next.type) {
		case ppt_fup:
			if (decoder->next_err)
				return decoder->next_err;
			if (decoder->config.errata.bdm70 && !decoder->enabled) {
				err = ptd_qry_bdm70(decoder);
				if (err < 0)
					return err;
				if (err)
					break;
			}
			err = ptd_last_ip_update(&decoder->ip,
			                         &decoder->next.payload.ip);
			if (err < 0)
				return err;
			if (decoder->next.payload.ip.ipc != pt_ipc_suppressed)
				decoder->enabled = 1;
			break;
		case ppt_mode:
		case ppt_pip:
		case ppt_vmcs:
		case ppt_cbr:
		case ppt_mnt:
			if (decoder->next_err)
				return decoder->next_err;
			err = ptd_qry_header_event(decoder);
			if (err < 0)
				return err;
			break;
		case ppt_tsc:
		case ppt_tma:
		case ppt_mtc:
		case ppt_cyc:
			/* One that the end of the buffer cuts off ends the
			 * trace, as in libipt (ptd_qry_fetch_failed()). */
			if (decoder->next_err)
				return decoder->next_err;
			break;
		case ppt_pad:
		case ppt_unknown:
			break;
		default:
			return -pte_bad_context;
		}
		ptd_qry_consume(decoder);
	}
}

static int ptd_qry_decode_psb(struct pt_query_decoder *decoder)
{
	const uint8_t *psb = decoder->pos;
	struct ptd_pkt_state pstate = decoder->pstate;
	int err;

	/* Event data that no CFE completed before the PSB is dropped. */
	ptd_evq_clear(&decoder->evq, ptd_evb_cfe);
	ptd_qry_consume(decoder);
	err = ptd_qry_read_psb_header(decoder);
	if (!err && decoder->psb_log)
		ptd_qry_log_psb(decoder);
	if (err < 0) {
		/* A PSB's opcode where a packet of the PSB+ did not decode is
		 * out of context whatever its payload, as libipt looks at the
		 * opcode first (ptd_qry_fetch() gives other packets of known
		 * opcodes their type, which the header loop checks). */
		if (err != -pte_eos &&
		    ptd_sync_opcode_at(decoder->pos, decoder->config.end))
			err = -pte_bad_context;
		/* Stay at the PSB so that the caller can resynchronize. */
		decoder->pos = psb;
		decoder->pstate = pstate;
		ptd_evq_clear(&decoder->evq, ptd_evb_psbend);
		(void)ptd_qry_fetch(decoder);
		return err;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Packets that make events                                                   */
/* ------------------------------------------------------------------------ */

/* Finish an IP packet whose events were published: keep it while more of
 * them wait. */
static int ptd_qry_finish_ip(struct pt_query_decoder *decoder, enum ptd_evb evb)
{
	if (ptd_evq_pending(&decoder->evq, evb))
		return 0;
	if (!decoder->consume_packet)
		return 0;
	decoder->consume_packet = 0;
	ptd_qry_consume(decoder);
	return 0;
}

static int ptd_qry_decode_tip(struct pt_query_decoder *decoder)
{
	struct ptd_evq_slot *slot;
	struct pt_event *ev;
	int err;

	err = ptd_last_ip_update(&decoder->ip, &decoder->next.payload.ip);
	if (err < 0)
		return err;

	slot = ptd_evq_dequeue(&decoder->evq, ptd_evb_tip);
	if (!slot) {
		ptd_qry_consume(decoder);
		return 0;
	}
	ev = &slot->ev;
	switch (ev->type) {
	case ptev_async_branch:
		decoder->consume_packet = 1;
		err = ptd_qry_event_ip(&ev->variant.async_branch.to, ev,
		                       decoder);
		break;
	case ptev_async_paging:
		err = ptd_qry_event_ip(&ev->variant.async_paging.ip, ev,
		                       decoder);
		break;
	case ptev_async_vmcs:
		err = ptd_qry_event_ip(&ev->variant.async_vmcs.ip, ev, decoder);
		break;
	case ptev_exec_mode:
		err = ptd_qry_event_ip(&ev->variant.exec_mode.ip, ev, decoder);
		break;
	case ptev_iflags:
		err = ptd_qry_event_ip(&ev->variant.iflags.ip, ev, decoder);
		break;
	default:
		return -pte_bad_context;
	}
	if (err < 0)
		return err;
	ptd_qry_publish(decoder, slot);
	return ptd_qry_finish_ip(decoder, ptd_evb_tip);
}

static int ptd_qry_decode_tip_pge(struct pt_query_decoder *decoder)
{
	struct ptd_evq_slot *slot;
	int err;

	err = ptd_last_ip_update(&decoder->ip, &decoder->next.payload.ip);
	if (err < 0)
		return err;

	/* The enabled event comes first, then what waits for this TIP. */
	if (!decoder->consume_packet) {
		slot = ptd_evq_standalone(&decoder->evq);
		slot->ev.type = ptev_enabled;
		if (ptd_last_ip_query(&slot->ev.variant.enabled.ip,
		                      &decoder->ip) < 0)
			return -pte_bad_packet;
		ptd_qry_stamp(decoder, slot);
		/* Outcomes left over from before are of no use now. */
		ptd_tnt_cache_init(&decoder->tnt);
		decoder->consume_packet = 1;
		decoder->enabled = 1;
	} else {
		slot = ptd_evq_dequeue(&decoder->evq, ptd_evb_tip);
		if (!slot)
			return -pte_internal;
		if (slot->ev.type == ptev_exec_mode)
			err = ptd_qry_event_ip(&slot->ev.variant.exec_mode.ip,
			                       &slot->ev, decoder);
		else if (slot->ev.type == ptev_iflags)
			err = ptd_qry_event_ip(&slot->ev.variant.iflags.ip,
			                       &slot->ev, decoder);
		else
			return -pte_bad_context;
		if (err < 0)
			return err;
	}
	ptd_qry_publish(decoder, slot);
	if (ptd_evq_pending(&decoder->evq, ptd_evb_tip))
		return 0;
	decoder->consume_packet = 0;
	ptd_qry_consume(decoder);
	return 0;
}

static int ptd_qry_decode_tip_pgd(struct pt_query_decoder *decoder)
{
	struct ptd_evq_slot *slot;
	struct pt_event *ev;
	int err;

	err = ptd_last_ip_update(&decoder->ip, &decoder->next.payload.ip);
	if (err < 0)
		return err;

	slot = ptd_evq_dequeue(&decoder->evq, ptd_evb_tip);
	if (slot) {
		ev = &slot->ev;
		switch (ev->type) {
		case ptev_async_branch: {
			uint64_t at = ev->variant.async_branch.from;

			ev->type = ptev_async_disabled;
			ev->variant.async_disabled.at = at;
			err = ptd_qry_event_ip(&ev->variant.async_disabled.ip,
			                       ev, decoder);
			if (err < 0)
				return err;
			break;
		}
		case ptev_async_paging:
		case ptev_async_vmcs:
		case ptev_exec_mode:
		case ptev_iflags:
			/* Applied with tracing off: no IP. */
			ev->ip_suppressed = 1;
			break;
		default:
			return -pte_bad_context;
		}
	} else {
		slot = ptd_evq_standalone(&decoder->evq);
		ev = &slot->ev;
		ev->type = ptev_disabled;
		err = ptd_qry_event_ip(&ev->variant.disabled.ip, ev, decoder);
		if (err < 0)
			return err;
		ptd_qry_stamp(decoder, slot);
	}
	ptd_qry_publish(decoder, slot);
	if (ptd_evq_pending(&decoder->evq, ptd_evb_tip))
		return 0;
	decoder->enabled = 0;
	ptd_qry_consume(decoder);
	return 0;
}

/* The next event a FUP binds: a MODE.Exec event that may bind to a FUP
 * (enable_iflags_events) first, then the FUP ring's. */
static struct ptd_evq_slot *ptd_qry_fup_event(struct pt_query_decoder *decoder)
{
	if (ptd_qry_tip_event_at_fup(decoder))
		return ptd_evq_dequeue(&decoder->evq, ptd_evb_tip);
	return ptd_evq_dequeue(&decoder->evq, ptd_evb_fup);
}

/* Whether events still wait for the FUP at pos. */
static int ptd_qry_fup_pending(const struct pt_query_decoder *decoder)
{
	return ptd_evq_pending(&decoder->evq, ptd_evb_fup) ||
	       ptd_qry_tip_event_at_fup(decoder) != NULL;
}

/* Fill in the IP of an event that binds to a FUP. */
static int ptd_qry_fup_event_ip(struct pt_query_decoder *decoder,
                                struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_overflow:
		return ptd_last_ip_query(&ev->variant.overflow.ip,
		                         &decoder->ip);
	case ptev_tsx:
		return ptd_qry_event_ip(&ev->variant.tsx.ip, ev, decoder);
	case ptev_exstop:
		return ptd_qry_event_ip(&ev->variant.exstop.ip, ev, decoder);
	case ptev_mwait:
		return ptd_qry_event_ip(&ev->variant.mwait.ip, ev, decoder);
	case ptev_ptwrite:
		return ptd_qry_event_ip(&ev->variant.ptwrite.ip, ev, decoder);
	case ptev_exec_mode:
		return ptd_qry_event_ip(&ev->variant.exec_mode.ip, ev, decoder);
	case ptev_iflags:
		return ptd_qry_event_ip(&ev->variant.iflags.ip, ev, decoder);
	case ptev_interrupt:
		return ptd_qry_event_ip(&ev->variant.interrupt.ip, ev, decoder);
	case ptev_iret:
		return ptd_qry_event_ip(&ev->variant.iret.ip, ev, decoder);
	case ptev_smi:
		return ptd_qry_event_ip(&ev->variant.smi.ip, ev, decoder);
	case ptev_init:
		return ptd_qry_event_ip(&ev->variant.init.ip, ev, decoder);
	case ptev_vmentry:
		return ptd_qry_event_ip(&ev->variant.vmentry.ip, ev, decoder);
	case ptev_vmexit:
		return ptd_qry_event_ip(&ev->variant.vmexit.ip, ev, decoder);
	case ptev_shutdown:
		return ptd_qry_event_ip(&ev->variant.shutdown.ip, ev, decoder);
	case ptev_uintr:
		return ptd_qry_event_ip(&ev->variant.uintr.ip, ev, decoder);
	case ptev_uiret:
		return ptd_qry_event_ip(&ev->variant.uiret.ip, ev, decoder);
	case ptev_swintr:
		return ptd_qry_event_ip(&ev->variant.swintr.ip, ev, decoder);
	case ptev_syscall:
		return ptd_qry_event_ip(&ev->variant.syscall.ip, ev, decoder);
	case ptev_trig:
		return ptd_qry_event_ip(&ev->variant.trig.ip, ev, decoder);
	case ptev_rsm:
	case ptev_sipi:
		/* They carry no IP: the FUP only places them. */
		return ev->ip_suppressed ? 0 : -pte_internal;
	default:
		return -pte_internal;
	}
}

static int ptd_qry_decode_fup(struct pt_query_decoder *decoder)
{
	struct ptd_evq_slot *slot;
	uint64_t ip;
	int err;

	err = ptd_last_ip_update(&decoder->ip, &decoder->next.payload.ip);
	if (err < 0)
		return err;

	for (;;) {
		slot = ptd_qry_fup_event(decoder);
		if (!slot || !slot->ignore)
			break;
		decoder->consume_packet = 1;
	}
	if (!slot) {
		/* Only events that consume the FUP were bound to it. */
		if (decoder->consume_packet) {
			decoder->consume_packet = 0;
			ptd_qry_consume(decoder);
			return 0;
		}
		/* An asynchronous branch; it completes at the next TIP. */
		err = ptd_last_ip_query(&ip, &decoder->ip);
		if (err < 0)
			return err;
		slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_tip);
		if (!slot)
			return -pte_nomem;
		slot->ev.type = ptev_async_branch;
		slot->ev.variant.async_branch.from = ip;
		ptd_qry_stamp(decoder, slot);
		ptd_qry_consume(decoder);
		return 0;
	}

	/* Which events consume the FUP (no asynchronous branch follows) is
	 * libipt's: all but an aborting MODE.TSX and the unbound Event Trace
	 * events. */
	switch (slot->ev.type) {
	case ptev_overflow:
	case ptev_exstop:
	case ptev_mwait:
	case ptev_ptwrite:
		decoder->consume_packet = 1;
		break;
	case ptev_tsx:
		if (!slot->ev.variant.tsx.aborted)
			decoder->consume_packet = 1;
		break;
	default:
		if (slot->bound || slot->fup_too)
			decoder->consume_packet = 1;
		break;
	}
	err = ptd_qry_fup_event_ip(decoder, &slot->ev);
	if (err < 0)
		return err;
	ptd_qry_publish(decoder, slot);
	if (ptd_qry_fup_pending(decoder) || !decoder->consume_packet)
		return 0;
	decoder->consume_packet = 0;
	ptd_qry_consume(decoder);
	return 0;
}

static int ptd_qry_decode_pip(struct pt_query_decoder *decoder)
{
	const struct pt_packet_pip *pip = &decoder->next.payload.pip;
	struct ptd_evq_slot *slot;

	/* With an asynchronous branch in flight, the new CR3 applies at its
	 * target; otherwise now. */
	if (ptd_evq_find(&decoder->evq, ptd_evb_tip, ptev_async_branch)) {
		slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_tip);
		if (!slot)
			return -pte_nomem;
		slot->ev.type = ptev_async_paging;
		slot->ev.variant.async_paging.cr3 = pip->cr3;
		slot->ev.variant.async_paging.non_root = pip->nr;
		ptd_qry_stamp(decoder, slot);
	} else {
		slot = ptd_evq_standalone(&decoder->evq);
		slot->ev.type = ptev_paging;
		slot->ev.variant.paging.cr3 = pip->cr3;
		slot->ev.variant.paging.non_root = pip->nr;
		ptd_qry_stamp(decoder, slot);
		ptd_qry_publish(decoder, slot);
	}
	ptd_qry_consume(decoder);
	return 0;
}

static int ptd_qry_decode_vmcs(struct pt_query_decoder *decoder)
{
	uint64_t base = decoder->next.payload.vmcs.base;
	struct ptd_evq_slot *slot, *paging;

	/* A VMCS change that comes with an in-flight paging change is
	 * reported before it. */
	slot = ptd_evq_find(&decoder->evq, ptd_evb_tip, ptev_async_paging);
	if (slot) {
		paging = ptd_evq_enqueue(&decoder->evq, ptd_evb_tip);
		if (!paging)
			return -pte_nomem;
		*paging = *slot;
		slot->ev.type = ptev_async_vmcs;
		slot->ev.variant.async_vmcs.base = base;
		ptd_qry_consume(decoder);
		return 0;
	}
	if (ptd_evq_find(&decoder->evq, ptd_evb_tip, ptev_async_branch)) {
		slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_tip);
		if (!slot)
			return -pte_nomem;
		slot->ev.type = ptev_async_vmcs;
		slot->ev.variant.async_vmcs.base = base;
		ptd_qry_stamp(decoder, slot);
		ptd_qry_consume(decoder);
		return 0;
	}
	slot = ptd_evq_standalone(&decoder->evq);
	slot->ev.type = ptev_vmcs;
	slot->ev.variant.vmcs.base = base;
	ptd_qry_stamp(decoder, slot);
	ptd_qry_publish(decoder, slot);
	ptd_qry_consume(decoder);
	return 0;
}

/* Event Trace (enable_iflags_events): a MODE.Exec also reports a change of
 * RFLAGS.IF, and binds to a FUP that comes before the next TIP, as in
 * libipt's event decoder.  @exec_mode is the execution mode event just
 * queued. */
static int ptd_qry_mode_iflags(struct pt_query_decoder *decoder,
                               struct ptd_evq_slot *exec_mode,
                               const struct pt_packet_mode_exec *exec)
{
	struct ptd_evq_slot *slot;

	exec_mode->fup_too = 1;
	if (decoder->mode_exec_valid && decoder->iflag == exec->iflag)
		return 0;
	slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_tip);
	if (!slot)
		return -pte_nomem;
	slot->ev.type = ptev_iflags;
	slot->ev.variant.iflags.iflag = exec->iflag;
	slot->fup_too = 1;
	decoder->iflag = exec->iflag;
	decoder->mode_exec_valid = 1;
	return 0;
}

static int ptd_qry_decode_mode(struct pt_query_decoder *decoder)
{
	const struct pt_packet_mode *mode = &decoder->next.payload.mode;
	struct ptd_evq_slot *slot;

	if (mode->leaf == pt_mol_exec) {
		/* MODE.Exec applies at the next TIP. */
		slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_tip);
		if (!slot)
			return -pte_nomem;
		slot->ev.type = ptev_exec_mode;
		slot->ev.variant.exec_mode.mode =
		        pt_get_exec_mode(&mode->bits.exec);
		ptd_qry_stamp(decoder, slot);
		if (decoder->config.flags.variant.query.enable_iflags_events) {
			int err = ptd_qry_mode_iflags(decoder, slot,
			                              &mode->bits.exec);

			if (err < 0)
				return err;
		}
	} else {
		/* MODE.TSX applies at the next FUP, or now with tracing
		 * off. */
		if (!decoder->enabled) {
			slot = ptd_evq_standalone(&decoder->evq);
			slot->ev.ip_suppressed = 1;
			ptd_qry_publish(decoder, slot);
		} else {
			slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_fup);
			if (!slot)
				return -pte_nomem;
		}
		slot->ev.type = ptev_tsx;
		slot->ev.variant.tsx.speculative = mode->bits.tsx.intx;
		slot->ev.variant.tsx.aborted = mode->bits.tsx.abrt;
		ptd_qry_stamp(decoder, slot);
	}
	ptd_qry_consume(decoder);
	return 0;
}

static int ptd_qry_decode_psbend(struct pt_query_decoder *decoder)
{
	int status = ptd_qry_pending_psb_event(decoder);

	if (status)
		return status < 0 ? status : 0;
	ptd_qry_consume(decoder);
	return 0;
}

/* Packets that make a standalone event or wait for a FUP. */
static int ptd_qry_decode_simple(struct pt_query_decoder *decoder)
{
	const struct pt_packet *pkt = &decoder->next;
	struct ptd_evq_slot *slot;
	int ptw_size;

	switch (pkt->type) {
	case ppt_stop:
		slot = ptd_evq_standalone(&decoder->evq);
		slot->ev.type = ptev_stop;
		break;
	case ppt_mnt:
		slot = ptd_evq_standalone(&decoder->evq);
		slot->ev.type = ptev_mnt;
		slot->ev.variant.mnt.payload = pkt->payload.mnt.payload;
		break;
	case ppt_pwre:
		slot = ptd_evq_standalone(&decoder->evq);
		slot->ev.type = ptev_pwre;
		slot->ev.variant.pwre.state = pkt->payload.pwre.state;
		slot->ev.variant.pwre.sub_state = pkt->payload.pwre.sub_state;
		slot->ev.variant.pwre.hw = pkt->payload.pwre.hw ? 1 : 0;
		break;
	case ppt_pwrx:
		slot = ptd_evq_standalone(&decoder->evq);
		slot->ev.type = ptev_pwrx;
		slot->ev.variant.pwrx.last = pkt->payload.pwrx.last;
		slot->ev.variant.pwrx.deepest = pkt->payload.pwrx.deepest;
		slot->ev.variant.pwrx.interrupt =
		        pkt->payload.pwrx.interrupt ? 1 : 0;
		slot->ev.variant.pwrx.store = pkt->payload.pwrx.store ? 1 : 0;
		slot->ev.variant.pwrx.autonomous =
		        pkt->payload.pwrx.autonomous ? 1 : 0;
		break;
	case ppt_cbr:
		/* The time engine takes the CBR first. */
		ptd_qry_consume(decoder);
		slot = ptd_evq_standalone(&decoder->evq);
		slot->ev.type = ptev_cbr;
		slot->ev.variant.cbr.ratio = pkt->payload.cbr.ratio;
		ptd_qry_publish(decoder, slot);
		return 0;
	case ppt_exstop:
		if (pkt->payload.exstop.ip) {
			slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_fup);
			if (!slot)
				return -pte_nomem;
			slot->ev.type = ptev_exstop;
			ptd_qry_consume(decoder);
			return 0;
		}
		slot = ptd_evq_standalone(&decoder->evq);
		slot->ev.type = ptev_exstop;
		slot->ev.ip_suppressed = 1;
		break;
	case ppt_mwait:
		slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_fup);
		if (!slot)
			return -pte_nomem;
		slot->ev.type = ptev_mwait;
		slot->ev.variant.mwait.hints = pkt->payload.mwait.hints;
		slot->ev.variant.mwait.ext = pkt->payload.mwait.ext;
		ptd_qry_consume(decoder);
		return 0;
	case ppt_ptw:
		ptw_size = pt_ptw_size(pkt->payload.ptw.plc);
		if (ptw_size < 0)
			return ptw_size;
		if (pkt->payload.ptw.ip) {
			slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_fup);
			if (!slot)
				return -pte_nomem;
		} else {
			slot = ptd_evq_standalone(&decoder->evq);
			slot->ev.ip_suppressed = 1;
		}
		slot->ev.type = ptev_ptwrite;
		slot->ev.variant.ptwrite.size = (uint8_t)ptw_size;
		slot->ev.variant.ptwrite.payload = pkt->payload.ptw.payload;
		if (pkt->payload.ptw.ip) {
			ptd_qry_consume(decoder);
			return 0;
		}
		break;
	default:
		return -pte_internal;
	}
	ptd_qry_stamp(decoder, slot);
	ptd_qry_publish(decoder, slot);
	ptd_qry_consume(decoder);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Event Trace: CFE, EVD; TRIG                                               */
/* ------------------------------------------------------------------------ */

/* How a CFE without its IP bit binds. */
enum ptd_cfe_bind {
	/* To the FUP of the asynchronous transfer while tracing is on
	 * (the FUP then still starts the asynchronous branch); standalone
	 * otherwise. */
	ptd_cfe_bind_fup,
	/* Always standalone. */
	ptd_cfe_bind_none
};

/* Turn a CFE into an event; EVD packets before it may have started it (an
 * interrupt with CR2, a VM exit with its reason and qualification).  The
 * bindings are those of libipt's event decoder: with the IP bit the event
 * binds to the next FUP and consumes it; without, see enum ptd_cfe_bind.
 * CFE types that libipt does not know are skipped, with the FUP their IP
 * bit announces. */
static int ptd_qry_decode_cfe(struct pt_query_decoder *decoder)
{
	const struct pt_packet_cfe *cfe = &decoder->next.payload.cfe;
	struct ptd_evq_slot *pending, *slot;
	enum ptd_cfe_bind bind = ptd_cfe_bind_fup;
	struct pt_event ev;
	int has_ip = 1;

	pending = ptd_evq_peek(&decoder->evq, ptd_evb_cfe);
	memset(&ev, 0, sizeof(ev));
	switch (cfe->type) {
	case pt_cfe_intr:
		if (pending && pending->ev.type != ptev_interrupt)
			return -pte_bad_context;
		if (pending)
			ev = pending->ev;
		ev.type = ptev_interrupt;
		ev.variant.interrupt.vector = cfe->vector;
		break;
	case pt_cfe_vmexit:
	case pt_cfe_vmexit_intr:
		if (pending && pending->ev.type != ptev_vmexit)
			return -pte_bad_context;
		if (pending)
			ev = pending->ev;
		ev.type = ptev_vmexit;
		if (cfe->type == pt_cfe_vmexit_intr) {
			ev.variant.vmexit.has_vector = 1;
			ev.variant.vmexit.vector = cfe->vector;
		}
		break;
	case pt_cfe_iret:
		ev.type = ptev_iret;
		bind = ptd_cfe_bind_none;
		break;
	case pt_cfe_vmentry:
		ev.type = ptev_vmentry;
		bind = ptd_cfe_bind_none;
		break;
	case pt_cfe_shutdown:
		ev.type = ptev_shutdown;
		bind = ptd_cfe_bind_none;
		break;
	case pt_cfe_uiret:
		ev.type = ptev_uiret;
		bind = ptd_cfe_bind_none;
		break;
	case pt_cfe_smi:
		ev.type = ptev_smi;
		break;
	case pt_cfe_init:
		ev.type = ptev_init;
		break;
	case pt_cfe_uintr:
		ev.type = ptev_uintr;
		ev.variant.uintr.vector = cfe->vector;
		break;
	case pt_cfe_swintr:
		ev.type = ptev_swintr;
		ev.variant.swintr.vector = cfe->vector;
		break;
	case pt_cfe_syscall:
		ev.type = ptev_syscall;
		break;
	case pt_cfe_rsm:
		ev.type = ptev_rsm;
		has_ip = 0;
		break;
	case pt_cfe_sipi:
		ev.type = ptev_sipi;
		ev.variant.sipi.vector = cfe->vector;
		has_ip = 0;
		break;
	default:
		if (pending)
			return -pte_bad_context;
		if (cfe->ip) {
			slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_fup);
			if (!slot)
				return -pte_nomem;
			slot->ignore = 1;
			slot->bound = 1;
		}
		ptd_qry_consume(decoder);
		return 0;
	}
	if (pending && ev.type != ptev_interrupt && ev.type != ptev_vmexit)
		return -pte_bad_context;
	if (!has_ip) {
		/* RSM and SIPI have no IP to give. */
		if (cfe->ip)
			return -pte_bad_packet;
		ev.ip_suppressed = 1;
	}

	if (cfe->ip || (bind == ptd_cfe_bind_fup && decoder->enabled)) {
		slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_fup);
		if (!slot)
			return -pte_nomem;
		slot->ev = ev;
		slot->bound = cfe->ip;
	} else {
		slot = ptd_evq_standalone(&decoder->evq);
		slot->ev = ev;
		slot->ev.ip_suppressed = 1;
		ptd_qry_stamp(decoder, slot);
		ptd_qry_publish(decoder, slot);
	}
	if (pending)
		(void)ptd_evq_dequeue(&decoder->evq, ptd_evb_cfe);
	ptd_qry_consume(decoder);
	return 0;
}

/* EVD: data for the CFE that follows (the event waits in the CFE ring). */
static int ptd_qry_decode_evd(struct pt_query_decoder *decoder)
{
	const struct pt_packet_evd *evd = &decoder->next.payload.evd;
	struct ptd_evq_slot *slot = ptd_evq_peek(&decoder->evq, ptd_evb_cfe);

	switch (evd->type) {
	case pt_evd_cr2:
		if (slot)
			return -pte_bad_context;
		slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_cfe);
		if (!slot)
			return -pte_nomem;
		slot->ev.type = ptev_interrupt;
		slot->ev.variant.interrupt.has_cr2 = 1;
		slot->ev.variant.interrupt.cr2 = evd->payload;
		break;
	case pt_evd_vmxq:
	case pt_evd_vmxr:
		if (!slot) {
			slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_cfe);
			if (!slot)
				return -pte_nomem;
			slot->ev.type = ptev_vmexit;
		}
		if (slot->ev.type != ptev_vmexit)
			return -pte_bad_context;
		if (evd->type == pt_evd_vmxq) {
			if (slot->ev.variant.vmexit.has_vmxq)
				return -pte_bad_context;
			slot->ev.variant.vmexit.has_vmxq = 1;
			slot->ev.variant.vmexit.vmxq = evd->payload;
		} else {
			if (slot->ev.variant.vmexit.has_vmxr)
				return -pte_bad_context;
			slot->ev.variant.vmexit.has_vmxr = 1;
			slot->ev.variant.vmexit.vmxr = evd->payload;
		}
		break;
	default:
		/* Data libipt does not know: skipped. */
		break;
	}
	ptd_qry_consume(decoder);
	return 0;
}

/* TRIG: with its IP bit the anchor is the next FUP (and the count must be
 * zero); without, the anchor is the last IP (an IP of 0 in the event) and
 * the event stands alone, with its IP suppressed if it has no count. */
static int ptd_qry_decode_trig(struct pt_query_decoder *decoder)
{
	const struct pt_packet_trig *trig = &decoder->next.payload.trig;
	struct ptd_evq_slot *slot;

	if (trig->ip) {
		if (!trig->icntv || trig->icnt)
			return -pte_bad_packet;
		slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_fup);
		if (!slot)
			return -pte_nomem;
		slot->bound = 1;
	} else {
		/* A count needs tracing on; with tracing off the anchor is
		 * exact. */
		if (trig->icntv && trig->icnt && !decoder->enabled)
			return -pte_bad_packet;
		slot = ptd_evq_standalone(&decoder->evq);
		if (trig->icntv)
			slot->ev.variant.trig.icnt = trig->icnt;
		else
			slot->ev.ip_suppressed = 1;
	}
	slot->ev.type = ptev_trig;
	slot->ev.variant.trig.trbv = trig->trbv;
	slot->ev.variant.trig.mult = trig->mult;
	if (!trig->ip) {
		ptd_qry_stamp(decoder, slot);
		ptd_qry_publish(decoder, slot);
	}
	ptd_qry_consume(decoder);
	return 0;
}

/* Process the packet at pos (decoder->next). */
static int ptd_qry_decode(struct pt_query_decoder *decoder)
{
	int err;

	if (decoder->next_err)
		return decoder->next_err;

	switch (decoder->next.type) {
	case ppt_psb:
		return ptd_qry_decode_psb(decoder);
	case ppt_psbend:
		return ptd_qry_decode_psbend(decoder);
	case ppt_tip:
		return ptd_qry_decode_tip(decoder);
	case ppt_tnt_8:
	case ppt_tnt_64:
		err = ptd_tnt_cache_add(&decoder->tnt,
		                        &decoder->next.payload.tnt);
		if (err < 0)
			return err;
		ptd_qry_consume(decoder);
		return 0;
	case ppt_tip_pge:
		return ptd_qry_decode_tip_pge(decoder);
	case ppt_tip_pgd:
		return ptd_qry_decode_tip_pgd(decoder);
	case ppt_fup:
		return ptd_qry_decode_fup(decoder);
	case ppt_pip:
		return ptd_qry_decode_pip(decoder);
	case ppt_vmcs:
		return ptd_qry_decode_vmcs(decoder);
	case ppt_mode:
		return ptd_qry_decode_mode(decoder);
	case ppt_ovf:
		return ptd_qry_decode_ovf(decoder);
	case ppt_stop:
	case ppt_mnt:
	case ppt_pwre:
	case ppt_pwrx:
	case ppt_cbr:
	case ppt_exstop:
	case ppt_mwait:
	case ppt_ptw:
		return ptd_qry_decode_simple(decoder);
	case ppt_cfe:
		return ptd_qry_decode_cfe(decoder);
	case ppt_evd:
		return ptd_qry_decode_evd(decoder);
	case ppt_trig:
		return ptd_qry_decode_trig(decoder);
	default:
		/* Timing packets (the time engine takes them), PAD, and
		 * packets without meaning at this layer. */
		ptd_qry_consume(decoder);
		return 0;
	}
}

/* The CYC @pkt of @size bytes at *@pos and the MTC after it (PADs aside)
 * given to the time engine in one step (ptd_time_cyc_mtc()), as the
 * read-ahead below would give them one after the other.  Returns 1 with
 * *@pos after the MTC if taken, 0 (nothing changed) if not.  @limit: at
 * least 16 bytes lie beyond it; only where no PEBS block is open. */
static int ptd_qry_cyc_mtc(struct pt_query_decoder *decoder,
                           const struct pt_packet *pkt, const uint8_t **pos,
                           int size, const uint8_t *limit)
{
	const uint8_t *q = ptd_qry_skip_pads(*pos + size, limit);

	if (q >= limit || q[0] != PTD_OPC_MTC ||
	    !ptd_time_cyc_mtc(&decoder->time, pkt->payload.cyc.value, q[1]))
		return 0;
	*pos = q + 2;
	return 1;
}

/* The common part of the read-ahead, in a tight loop: PAD (skipped) and
 * TSC, TMA, MTC and CYC (fed to the time engine, as ptd_qry_decode() would
 * consume them) up to a TNT, TIP, TIP.PGE or TIP.PGD, where the read-ahead
 * stops whatever is pending.  Returns 1 with that packet fetched as
 * ptd_qry_fetch() leaves it, or 0 with decoder->pos at a packet for the
 * general loop (any other packet, a decode error, the last bytes of the
 * buffer, a PEBS block). */
static int ptd_qry_ahead_fast(struct pt_query_decoder *decoder)
{
	const struct pt_config *config = &decoder->config;
	const uint8_t *const end = config->end;
	const uint8_t *const limit = end - 16;
	const uint8_t *pos = decoder->pos;
	struct pt_packet *pkt = &decoder->next;
	int stop = 0;

	if (decoder->pstate.bip_size)
		return 0;
	while (pos < limit) {
		struct ptd_pkt_state state = {0};
		struct ptd_time_ahead ahead;
		int size;

		if (*pos == 0) {
			pos = ptd_qry_skip_pad(pos);
			continue;
		}
		size = ptd_pkt_decode_fast(pos, pkt);
		if (!size)
			size = ptd_pkt_decode_cyc2(pos, pkt);
		if (!size) {
			size = ptd_pkt_decode(pos, end, config, pkt, &state);
			if (size <= 0 || state.bip_size)
				break;
		}
		switch (pkt->type) {
		case ppt_tnt_8:
		case ppt_tnt_64:
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
			decoder->next_size = size;
			decoder->next_err = 0;
			decoder->next_pstate = state;
			decoder->next_flags = ptd_qry_packet_flags(pkt);
			decoder->have_next = 1;
			stop = 1;
			break;
		case ppt_cyc:
			/* A CYC and the MTC after it in one step, where the
			 * time engine can. */
			if (ptd_qry_cyc_mtc(decoder, pkt, &pos, size, limit))
				continue;
			/* fall through */
		case ppt_tsc:
		case ppt_tma:
		case ppt_mtc:
			ahead.pos = pos + size;
			ahead.end = end;
			ahead.state = state;
			(void)ptd_time_update(&decoder->time, pkt, &ahead);
			pos += size;
			continue;
		default:
			break;
		}
		break;
	}
	decoder->pos = pos;
	return stop;
}

int ptd_qry_read_ahead(struct pt_query_decoder *decoder)
{
	if (ptd_qry_ahead_fast(decoder))
		return 0;
	for (;;) {
		int err = ptd_qry_fetch(decoder);

		if (err < 0)
			return err;
		if (decoder->next_flags & (ptd_qf_tip | ptd_qf_tnt))
			return 0;
		if (ptd_qry_will_event(decoder))
			return 0;
		err = ptd_qry_decode(decoder);
		if (err < 0) {
			/* A status packet cut off at the end ends the
			 * trace. */
			if (err == -pte_eos) {
				decoder->pos = decoder->config.end;
				decoder->have_next = 0;
				decoder->next_err = -pte_eos;
			}
			return err;
		}
		/* Back to the tight loop: nothing it takes can be an event,
		 * and it stops where this loop would. */
		if (ptd_qry_ahead_fast(decoder))
			return 0;
	}
}

/* ------------------------------------------------------------------------ */
/* The API                                                                    */
/* ------------------------------------------------------------------------ */

struct pt_query_decoder *
ptd_qry_alloc_decoder(const struct pt_config *config,
                      const struct ptd_time_config *tconfig)
{
	struct pt_query_decoder *decoder;
	struct ptd_time_config topt;

	if (!config)
		return NULL;
	decoder = malloc(sizeof(*decoder));
	if (!decoder)
		return NULL;
	memset(decoder, 0, sizeof(*decoder));
	if (ptd_config_from_user(&decoder->config, config) < 0)
		goto fail;

	ptd_time_config_init(&topt);
	if (tconfig) {
		size_t size = tconfig->size < sizeof(topt) ? tconfig->size
		                                           : sizeof(topt);

		if (size <
		    offsetof(struct ptd_time_config, mode) + sizeof(topt.mode))
			goto fail;
		memcpy(&topt, tconfig, size);
		topt.size = sizeof(topt);
	}
	if (decoder->config.flags.variant.query.keep_tcal_on_ovf)
		topt.keep_tcal_on_ovf = 1;
	if (ptd_time_init(&decoder->time, &decoder->config, &topt) < 0)
		goto fail;
	ptd_qry_reset_state(decoder);
	ptd_qry_lean_init(decoder);
	return decoder;

fail:
	free(decoder);
	return NULL;
}

struct pt_query_decoder *pt_qry_alloc_decoder(const struct pt_config *config)
{
	return ptd_qry_alloc_decoder(config, NULL);
}

void pt_qry_free_decoder(struct pt_query_decoder *decoder)
{
	free(decoder);
}

/* Start decoding at the PSB at @pos. */
static int ptd_qry_start(struct pt_query_decoder *decoder, const uint8_t *pos,
                         uint64_t *ip)
{
	int status, err;

	ptd_qry_reset_state(decoder);
	ptd_time_reset(&decoder->time);
	decoder->batch_error = 0;
	if (decoder->psb_log)
		decoder->psb_log->n = 0;
	decoder->sync = pos;
	decoder->pos = pos;
	decoder->pstate.bip_size = 0;

	err = ptd_qry_fetch(decoder);
	if (err < 0)
		return err;
	if (decoder->next_err || decoder->next.type != ppt_psb)
		return -pte_nosync;
	err = ptd_qry_decode_psb(decoder);
	if (err < 0)
		return err;

	/* The start IP is the PSB+'s, before reading ahead into a next
	 * PSB+; without one 0, as libipt stores it, also where the read-ahead
	 * then fails. */
	if (ip) {
		if (ptd_last_ip_query(ip, &decoder->ip) == 0)
			ip = NULL;
		else
			*ip = 0;
	}

	err = ptd_qry_read_ahead(decoder);
	if (err < 0)
		return err;

	status = ptd_qry_status(decoder);
	if (ip && ptd_last_ip_query(ip, &decoder->ip) < 0) {
		/* No IP: 0, as libipt gives. */
		*ip = 0;
		status |= pts_ip_suppressed;
	}
	return status;
}

int pt_qry_sync_forward(struct pt_query_decoder *decoder, uint64_t *ip)
{
	const uint8_t *pos, *sync;

	if (!decoder)
		return -pte_invalid;
	pos = decoder->pos ? decoder->pos : decoder->config.begin;
	/* (An error inside a PSB that a packet decoded from garbage partly
	 * consumed leaves the position inside it: ptd_sync_next() looks
	 * back.) */
	sync = ptd_sync_next(pos, decoder->sync, decoder->config.begin,
	                     decoder->config.end);
	if (!sync)
		return -pte_eos;
	return ptd_qry_start(decoder, sync, ip);
}

/* pt_qry_sync_backward() from @start: the last PSB before it whose PSB+
 * ends before the end of the buffer and leaves the decoder elsewhere than
 * at @start. */
static int ptd_qry_sync_back(struct pt_query_decoder *decoder, uint64_t *ip,
                             const uint8_t *start)
{
	const uint8_t *sync = start;

	for (;;) {
		int status;

		sync = ptd_sync_backward(sync, decoder->config.begin,
		                         decoder->config.end);
		if (!sync)
			return -pte_eos;
		status = ptd_qry_start(decoder, sync, ip);
		if (status < 0) {
			/* A PSB+ cut off at the end is no start. */
			if (status == -pte_eos)
				continue;
			return status;
		}
		if (decoder->pos != start)
			return status;
	}
}

int pt_qry_sync_backward(struct pt_query_decoder *decoder, uint64_t *ip)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_qry_sync_back(
	        decoder, ip, decoder->pos ? decoder->pos : decoder->config.end);
}

int ptd_qry_sync_backward_from(struct pt_query_decoder *decoder, uint64_t *ip,
                               uint64_t offset)
{
	const uint8_t *begin = decoder->config.begin;

	if (offset > (uint64_t)(decoder->config.end - begin))
		return -pte_internal;
	return ptd_qry_sync_back(decoder, ip, begin + offset);
}

int pt_qry_sync_set(struct pt_query_decoder *decoder, uint64_t *ip,
                    uint64_t offset)
{
	const uint8_t *pos;
	int err;

	if (!decoder)
		return -pte_invalid;
	if (offset > (uint64_t)(decoder->config.end - decoder->config.begin))
		return -pte_eos;
	/* As libipt answers where no good PSB starts. */
	pos = decoder->config.begin + offset;
	err = ptd_sync_at(pos, decoder->config.end);
	if (err < 0)
		return err;
	return ptd_qry_start(decoder, pos, ip);
}

int pt_qry_get_offset(const struct pt_query_decoder *decoder, uint64_t *offset)
{
	if (!decoder || !offset)
		return -pte_invalid;
	if (!decoder->pos)
		return -pte_nosync;
	*offset = (uint64_t)(decoder->pos - decoder->config.begin);
	return 0;
}

int pt_qry_get_sync_offset(const struct pt_query_decoder *decoder,
                           uint64_t *offset)
{
	if (!decoder || !offset)
		return -pte_invalid;
	if (!decoder->sync)
		return -pte_nosync;
	*offset = (uint64_t)(decoder->sync - decoder->config.begin);
	return 0;
}

const struct pt_config *
pt_qry_get_config(const struct pt_query_decoder *decoder)
{
	return decoder ? &decoder->config : NULL;
}

/* Refill the TNT cache from the next TNT packet. */
static int ptd_qry_cache_tnt(struct pt_query_decoder *decoder)
{
	int err;

	for (;;) {
		unsigned flags;

		if (!decoder->have_next)
			return ptd_qry_fetch_error(decoder);
		if (ptd_qry_will_event(decoder))
			return -pte_bad_query;
		flags = decoder->next_flags;
		if (flags & ptd_qf_tip)
			return -pte_bad_query;

		decoder->event = NULL;
		err = ptd_qry_decode(decoder);
		if (err < 0)
			return err;
		if (decoder->event)
			return -pte_event_ignored;
		if (flags & ptd_qf_tnt)
			break;
		err = ptd_qry_read_ahead(decoder);
		if (err < 0)
			return err;
	}

	ptd_qry_snapshot(decoder);
	ptd_qry_log_result(decoder);
	err = ptd_qry_read_ahead(decoder);
	if (err < 0 && err != -pte_eos)
		return err;
	return 0;
}

int pt_qry_cond_branch(struct pt_query_decoder *decoder, int *taken)
{
	int query;

	if (!decoder || !taken)
		return -pte_invalid;
	if (!decoder->pos)
		return -pte_nosync;

	if (ptd_tnt_cache_is_empty(&decoder->tnt)) {
		int err = ptd_qry_cache_tnt(decoder);

		if (err < 0)
			return err;
	}
	query = ptd_tnt_cache_query(&decoder->tnt);
	if (query < 0)
		return query;
	*taken = query;
	return ptd_qry_status(decoder);
}

int pt_qry_indirect_branch(struct pt_query_decoder *decoder, uint64_t *addr)
{
	int flags = 0, err;

	if (!decoder || !addr)
		return -pte_invalid;
	if (!decoder->pos)
		return -pte_nosync;

	for (;;) {
		unsigned nflags;

		if (!decoder->have_next)
			return ptd_qry_fetch_error(decoder);
		if (ptd_qry_will_event(decoder))
			return -pte_bad_query;
		nflags = decoder->next_flags;
		/* A TNT while outcomes are pending: the user is lost. */
		if ((nflags & ptd_qf_tnt) &&
		    !ptd_tnt_cache_is_empty(&decoder->tnt))
			return -pte_bad_query;

		decoder->event = NULL;
		err = ptd_qry_decode(decoder);
		if (err < 0)
			return err;
		if (decoder->event)
			return -pte_event_ignored;
		if (nflags & ptd_qf_tip) {
			uint64_t ip;

			if (ptd_last_ip_query(&ip, &decoder->ip) < 0)
				flags |= pts_ip_suppressed;
			else
				*addr = ip;
			break;
		}
		err = ptd_qry_read_ahead(decoder);
		if (err < 0)
			return err;
	}

	ptd_qry_snapshot(decoder);
	ptd_qry_log_result(decoder);
	err = ptd_qry_read_ahead(decoder);
	if (err < 0 && err != -pte_eos)
		return err;
	return flags | ptd_qry_status(decoder);
}

int pt_qry_event(struct pt_query_decoder *decoder, struct pt_event *event,
                 size_t size)
{
	int err;

	if (!decoder || !event)
		return -pte_invalid;
	if (size < offsetof(struct pt_event, variant))
		return -pte_invalid;
	if (!decoder->pos)
		return -pte_nosync;
	if (!ptd_tnt_cache_is_empty(&decoder->tnt))
		return -pte_bad_query;
	if (size > sizeof(*event))
		size = sizeof(*event);

	for (;;) {
		if (!decoder->have_next)
			return ptd_qry_fetch_error(decoder);
		if ((decoder->next_flags & (ptd_qf_tip | ptd_qf_tnt)) &&
		    !ptd_qry_will_event(decoder))
			return -pte_bad_query;

		decoder->event = NULL;
		err = ptd_qry_decode(decoder);
		if (err < 0)
			return err;
		if (decoder->event) {
			/* (A copy of known size for a whole event: see
			 * flow_event() in lib/flow/flow.c.) */
			if (size == sizeof(*event))
				*event = decoder->event->ev;
			else
				memcpy(event, &decoder->event->ev, size);
			break;
		}
		err = ptd_qry_read_ahead(decoder);
		if (err < 0)
			return err;
	}

	ptd_qry_snapshot(decoder);
	ptd_qry_log_result(decoder);
	err = ptd_qry_read_ahead(decoder);
	if (err < 0 && err != -pte_eos)
		return err;
	return ptd_qry_status(decoder);
}

int pt_qry_time(struct pt_query_decoder *decoder, uint64_t *time,
                uint32_t *lost_mtc, uint32_t *lost_cyc)
{
	if (!decoder || !time)
		return -pte_invalid;
	*time = decoder->last_time.tsc;
	if (lost_mtc)
		*lost_mtc = decoder->last_time.lost_mtc;
	if (lost_cyc)
		*lost_cyc = decoder->last_time.lost_cyc;
	return decoder->last_time.tsc_status;
}

int pt_qry_core_bus_ratio(struct pt_query_decoder *decoder, uint32_t *cbr)
{
	if (!decoder || !cbr)
		return -pte_invalid;
	if (decoder->last_time.cbr_status < 0)
		return decoder->last_time.cbr_status;
	*cbr = decoder->last_time.cbr;
	return 0;
}
