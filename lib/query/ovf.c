/* SPDX-License-Identifier: BSD-3-Clause */
/* Overflow: OVF with and without a FUP, and the errata that make the packets
 * after an OVF lie (SKD010, APL11, APL12).
 *
 * After an OVF the processor resumes either with tracing on, and then sends a
 * FUP with the IP where it resumes (the overflow event binds to it), or with
 * tracing off, and then the overflow event stands alone and tracing comes
 * back with a TIP.PGE.  The errata break that rule:
 *
 *   SKD010  the FUP may be missing although tracing is on;
 *   APL11   a TIP.PGD may follow the OVF (tracing off, without FUP);
 *   APL12   a FUP may follow the OVF although tracing is off.
 *
 * Each is detected by scanning ahead without moving the decoder; the time
 * engine is carried along on a copy so that the packets skipped still count
 * for timing. */
#include "qry_decoder.h"

#include <string.h>

/* Walk from the decoder's position. */
static void ptd_qry_walk_init(struct ptd_qry_walk *walk,
                              const struct pt_query_decoder *decoder)
{
	walk->config = &decoder->config;
	walk->pos = decoder->pos;
	walk->pstate = decoder->pstate;
}

/* Whether the PSB+ the walk is in carries a FUP; that FUP goes to
 * @packet.  Returns 1, 0, or an error. */
static int ptd_qry_find_header_fup(struct ptd_qry_walk *walk,
                                   struct pt_packet *packet)
{
	for (;;) {
		int size = ptd_qry_walk_next(walk, packet, NULL, NULL);

		if (size < 0)
			return size;
		if (packet->type == ppt_psbend)
			return 0;
		if (packet->type == ppt_fup)
			return 1;
	}
}

/* Move the decoder to @offset with @time and @pstate. */
static void ptd_qry_resume(struct pt_query_decoder *decoder, uint64_t offset,
                           const struct ptd_pkt_state *pstate,
                           const struct ptd_time *time)
{
	decoder->pos = decoder->config.begin + offset;
	decoder->pstate = *pstate;
	decoder->time = *time;
	decoder->have_next = 0;
}

/* Apply a timing packet of a scan to @time. */
static void ptd_qry_scan_time(struct ptd_time *time,
                              const struct pt_packet *packet,
                              const struct ptd_time_ahead *ahead)
{
	switch (packet->type) {
	case ppt_tsc:
	case ppt_tma:
	case ppt_mtc:
	case ppt_cyc:
	case ppt_cbr:
		(void)ptd_time_update(time, packet, ahead);
		break;
	default:
		break;
	}
}

/* SKD010: resume at @ip_packet's IP, with tracing on. */
static int ptd_qry_skd010_recover(struct pt_query_decoder *decoder,
                                  const struct pt_packet_ip *ip_packet,
                                  const struct ptd_time *time, uint64_t offset,
                                  const struct ptd_pkt_state *pstate)
{
	struct ptd_last_ip ip = decoder->ip;
	struct ptd_evq_slot *slot;
	int err;

	err = ptd_last_ip_update(&ip, ip_packet);
	if (err < 0)
		return err;
	slot = ptd_evq_standalone(&decoder->evq);
	slot->ev.type = ptev_overflow;
	if (ptd_last_ip_query(&slot->ev.variant.overflow.ip, &ip) < 0)
		return -pte_bad_context;
	ptd_qry_resume(decoder, offset, pstate, time);
	decoder->enabled = 1;
	decoder->ip = ip;
	ptd_qry_stamp(decoder, slot);
	decoder->event = slot;
	return 0;
}

/* SKD010: returns 0 if handled, 1 if not, or an error. */
static int ptd_qry_skd010(struct pt_query_decoder *decoder)
{
	struct ptd_qry_walk walk;
	struct ptd_time time = decoder->time;
	struct {
		struct ptd_time time;
		uint64_t offset;
		struct ptd_pkt_state pstate;
		int have;
	} tsx;

	tsx.have = 0;
	ptd_qry_walk_init(&walk, decoder);
	for (;;) {
		struct ptd_pkt_state before = walk.pstate;
		struct ptd_time_ahead ahead;
		struct pt_packet pkt;
		uint64_t offset;
		int size, err;

		size = ptd_qry_walk_next(&walk, &pkt, &offset, &ahead);
		if (size < 0)
			return size == -pte_eos ? 1 : size;

		switch (pkt.type) {
		case ppt_tip_pge:
		case ppt_tnt_8:
		case ppt_tnt_64:
		case ppt_ovf:
		case ppt_stop:
		case ppt_unknown:
		case ppt_invalid:
		case ppt_mwait:
			return 1;
		case ppt_tip_pgd:
			ptd_qry_resume(decoder, offset + (uint64_t)size,
			               &walk.pstate, &time);
			return ptd_qry_ovf_disabled(decoder);
		case ppt_mode:
			if (pkt.payload.mode.leaf == pt_mol_tsx) {
				if (tsx.have)
					return 1;
				tsx.have = 1;
				tsx.offset = offset;
				tsx.time = time;
				tsx.pstate = before;
			}
			break;
		case ppt_fup:
			if (tsx.have)
				return ptd_qry_skd010_recover(
				        decoder, &pkt.payload.ip, &tsx.time,
				        tsx.offset, &tsx.pstate);
			return ptd_qry_skd010_recover(decoder, &pkt.payload.ip,
			                              &time, offset, &before);
		case ppt_tip:
			return ptd_qry_skd010_recover(
			        decoder, &pkt.payload.ip, &time,
			        offset + (uint64_t)size, &walk.pstate);
		case ppt_psb:
			err = ptd_qry_find_header_fup(&walk, &pkt);
			if (err < 0)
				return err == -pte_eos ? 1 : err;
			if (!err)
				return 1;
			return ptd_qry_skd010_recover(decoder, &pkt.payload.ip,
			                              &time, offset, &before);
		case ppt_psbend:
			return -pte_bad_context;
		case ppt_exstop:
			if (pkt.payload.exstop.ip)
				return 1;
			break;
		case ppt_ptw:
			if (pkt.payload.ptw.ip)
				return 1;
			break;
		case ppt_cfe:
			/* Skipping it would need its FUP skipped, too. */
			if (pkt.payload.cfe.ip)
				return 1;
			break;
		default:
			ptd_qry_scan_time(&time, &pkt, &ahead);
			break;
		}
	}
}

/* APL11: a TIP.PGD after the OVF; resume after it with tracing off.
 * Returns 0 if handled, 1 if not, or an error. */
static int ptd_qry_apl11(struct pt_query_decoder *decoder)
{
	struct ptd_qry_walk walk;
	struct ptd_time time = decoder->time;

	ptd_qry_walk_init(&walk, decoder);
	for (;;) {
		struct ptd_time_ahead ahead;
		struct pt_packet pkt;
		uint64_t offset;
		int size;

		size = ptd_qry_walk_next(&walk, &pkt, &offset, &ahead);
		if (size < 0)
			return size;
		switch (pkt.type) {
		case ppt_tip_pgd:
			ptd_qry_resume(decoder, offset + (uint64_t)size,
			               &walk.pstate, &time);
			return ptd_qry_ovf_disabled(decoder);
		case ppt_invalid:
			return -pte_bad_opc;
		case ppt_psbend:
		case ppt_tip:
		case ppt_tnt_8:
		case ppt_tnt_64:
			return -pte_bad_context;
		case ppt_unknown:
		case ppt_pad:
		case ppt_mnt:
		case ppt_tsc:
		case ppt_tma:
		case ppt_mtc:
		case ppt_cyc:
		case ppt_cbr:
		case ppt_cfe:
		case ppt_evd:
		case ppt_trig:
			ptd_qry_scan_time(&time, &pkt, &ahead);
			break;
		default:
			return 1;
		}
	}
}

/* APL12: a FUP after the OVF although tracing is off.  @fup_end is where
 * the FUP ends.  Returns 0 if handled, 1 if not, or an error. */
static int ptd_qry_apl12(struct pt_query_decoder *decoder,
                         const uint8_t *fup_end,
                         const struct ptd_pkt_state *fup_pstate)
{
	struct ptd_qry_walk walk;
	int disabled = 0;

	walk.config = &decoder->config;
	walk.pos = fup_end;
	walk.pstate = *fup_pstate;
	for (;;) {
		struct pt_packet pkt;
		int size = ptd_qry_walk_next(&walk, &pkt, NULL, NULL);

		if (size < 0) {
			if (size == -pte_eos)
				return 1;
			return size;
		}
		switch (pkt.type) {
		case ppt_stop:
		case ppt_tip_pge:
			disabled = 1;
			break;
		case ppt_tnt_8:
		case ppt_tnt_64:
		case ppt_tip:
		case ppt_tip_pgd:
		case ppt_ovf:
		case ppt_unknown:
		case ppt_invalid:
			return 1;
		case ppt_psb: {
			int err = ptd_qry_find_header_fup(&walk, &pkt);

			if (err == -pte_eos)
				return 1;
			if (err < 0)
				return err;
			if (err)
				return 1;
			disabled = 1;
			break;
		}
		case ppt_psbend:
			return -pte_bad_context;
		default:
			continue;
		}
		if (disabled)
			break;
	}

	/* Skip up to and including the FUP, keeping the time. */
	walk.pos = decoder->pos;
	walk.pstate = decoder->pstate;
	while (walk.pos < fup_end) {
		struct ptd_time_ahead ahead;
		struct pt_packet pkt;
		int size = ptd_qry_walk_next(&walk, &pkt, NULL, &ahead);

		if (size < 0)
			return size;
		switch (pkt.type) {
		case ppt_mode:
		case ppt_pip:
		case ppt_vmcs:
			return -pte_internal;
		default:
			ptd_qry_scan_time(&decoder->time, &pkt, &ahead);
			break;
		}
	}
	decoder->pos = fup_end;
	decoder->pstate = *fup_pstate;
	decoder->have_next = 0;
	return ptd_qry_ovf_disabled(decoder);
}

/* Look for the FUP an OVF binds to.  Returns 1 with @end and @pstate after
 * it, 0 if tracing is off after the OVF, or an error (-pte_bad_context for
 * packets that cannot come there). */
static int ptd_qry_find_ovf_fup(const struct pt_query_decoder *decoder,
                                const uint8_t **end,
                                struct ptd_pkt_state *pstate)
{
	struct ptd_qry_walk walk;

	ptd_qry_walk_init(&walk, decoder);
	for (;;) {
		struct pt_packet pkt;
		int size = ptd_qry_walk_next(&walk, &pkt, NULL, NULL);

		if (size < 0)
			return size;
		switch (pkt.type) {
		case ppt_fup:
			*end = walk.pos;
			*pstate = walk.pstate;
			return 1;
		case ppt_invalid:
			return -pte_bad_opc;
		case ppt_unknown:
		case ppt_pad:
		case ppt_mnt:
		case ppt_cbr:
		case ppt_tsc:
		case ppt_tma:
		case ppt_mtc:
		case ppt_cyc:
			continue;
		case ppt_psbend:
		case ppt_tip:
		case ppt_tip_pgd:
		case ppt_tnt_8:
		case ppt_tnt_64:
			return -pte_bad_context;
		default:
			return 0;
		}
	}
}

int ptd_qry_decode_ovf(struct pt_query_decoder *decoder)
{
	const uint8_t *fup_end = NULL;
	struct ptd_pkt_state fup_pstate;
	struct ptd_evq_slot *slot;
	int status, found;

	/* PSB+ events come first. */
	status = ptd_qry_pending_psb_event(decoder);
	if (status)
		return status < 0 ? status : 0;

	/* Everything but the time starts afresh. */
	ptd_qry_reset_state(decoder);
	ptd_qry_consume(decoder);

	memset(&fup_pstate, 0, sizeof(fup_pstate));
	found = ptd_qry_find_ovf_fup(decoder, &fup_end, &fup_pstate);
	if (found <= 0) {
		if (decoder->config.errata.skd010) {
			status = ptd_qry_skd010(decoder);
			if (status <= 0)
				return status;
		}
		if (decoder->config.errata.apl11 && found == -pte_bad_context) {
			status = ptd_qry_apl11(decoder);
			if (status <= 0)
				return status;
		}
		/* An OVF at the end of the trace stands alone. */
		if (found < 0 && found != -pte_eos)
			return found;
		return ptd_qry_ovf_disabled(decoder);
	}

	if (decoder->config.errata.apl12) {
		status = ptd_qry_apl12(decoder, fup_end, &fup_pstate);
		if (status <= 0)
			return status;
	}

	/* Tracing resumes at the FUP. */
	slot = ptd_evq_enqueue(&decoder->evq, ptd_evb_fup);
	if (!slot)
		return -pte_nomem;
	slot->ev.type = ptev_overflow;
	decoder->enabled = 1;
	ptd_qry_stamp(decoder, slot);
	return 0;
}
