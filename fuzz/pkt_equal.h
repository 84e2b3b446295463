/* SPDX-License-Identifier: BSD-3-Clause */
/* Field-by-field comparison of two decoded or to-be-encoded packets.
 *
 * Shared by the fuzz targets and the unit tests.  Only the fields that the
 * packet type defines are compared (never padding or the unused part of the
 * payload union), and TRIG's icnt only when icntv says it is valid. */
#ifndef PTD_PKT_EQUAL_H
#define PTD_PKT_EQUAL_H

#include "ptdecode/intel-pt.h"

#include <stddef.h>

#define PTD_PKT_CMP(field)                                                     \
	do {                                                                   \
		if (a->payload.field != b->payload.field)                      \
			return #field;                                         \
	} while (0)

/* Compare the payloads of @a and @b, which have the same type; return the
 * name of the first field that differs, or NULL. */
static inline const char *ptd_pkt_payload_diff(const struct pt_packet *a,
                                               const struct pt_packet *b)
{
	switch (a->type) {
	case ppt_invalid:
	case ppt_pad:
	case ppt_psb:
	case ppt_psbend:
	case ppt_stop:
	case ppt_ovf:
		return NULL;

	case ppt_unknown:
		PTD_PKT_CMP(unknown.packet);
		PTD_PKT_CMP(unknown.priv);
		return NULL;

	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		PTD_PKT_CMP(ip.ipc);
		PTD_PKT_CMP(ip.ip);
		return NULL;

	case ppt_tnt_8:
	case ppt_tnt_64:
		PTD_PKT_CMP(tnt.bit_size);
		PTD_PKT_CMP(tnt.payload);
		return NULL;

	case ppt_mode:
		PTD_PKT_CMP(mode.leaf);
		switch (a->payload.mode.leaf) {
		case pt_mol_exec:
			PTD_PKT_CMP(mode.bits.exec.csl);
			PTD_PKT_CMP(mode.bits.exec.csd);
			PTD_PKT_CMP(mode.bits.exec.iflag);
			return NULL;
		case pt_mol_tsx:
			PTD_PKT_CMP(mode.bits.tsx.intx);
			PTD_PKT_CMP(mode.bits.tsx.abrt);
			return NULL;
		}
		return "mode.leaf (not a leaf)";

	case ppt_pip:
		PTD_PKT_CMP(pip.cr3);
		PTD_PKT_CMP(pip.nr);
		return NULL;

	case ppt_vmcs:
		PTD_PKT_CMP(vmcs.base);
		return NULL;

	case ppt_cbr:
		PTD_PKT_CMP(cbr.ratio);
		return NULL;

	case ppt_tsc:
		PTD_PKT_CMP(tsc.tsc);
		return NULL;

	case ppt_tma:
		PTD_PKT_CMP(tma.ctc);
		PTD_PKT_CMP(tma.fc);
		return NULL;

	case ppt_mtc:
		PTD_PKT_CMP(mtc.ctc);
		return NULL;

	case ppt_cyc:
		PTD_PKT_CMP(cyc.value);
		return NULL;

	case ppt_mnt:
		PTD_PKT_CMP(mnt.payload);
		return NULL;

	case ppt_exstop:
		PTD_PKT_CMP(exstop.ip);
		return NULL;

	case ppt_mwait:
		PTD_PKT_CMP(mwait.hints);
		PTD_PKT_CMP(mwait.ext);
		return NULL;

	case ppt_pwre:
		PTD_PKT_CMP(pwre.state);
		PTD_PKT_CMP(pwre.sub_state);
		PTD_PKT_CMP(pwre.hw);
		return NULL;

	case ppt_pwrx:
		PTD_PKT_CMP(pwrx.last);
		PTD_PKT_CMP(pwrx.deepest);
		PTD_PKT_CMP(pwrx.interrupt);
		PTD_PKT_CMP(pwrx.store);
		PTD_PKT_CMP(pwrx.autonomous);
		return NULL;

	case ppt_ptw:
		PTD_PKT_CMP(ptw.payload);
		PTD_PKT_CMP(ptw.plc);
		PTD_PKT_CMP(ptw.ip);
		return NULL;

	case ppt_cfe:
		PTD_PKT_CMP(cfe.type);
		PTD_PKT_CMP(cfe.vector);
		PTD_PKT_CMP(cfe.ip);
		return NULL;

	case ppt_evd:
		PTD_PKT_CMP(evd.type);
		PTD_PKT_CMP(evd.payload);
		return NULL;

	case ppt_trig:
		PTD_PKT_CMP(trig.trbv);
		PTD_PKT_CMP(trig.ip);
		PTD_PKT_CMP(trig.icntv);
		PTD_PKT_CMP(trig.mult);
		if (a->payload.trig.icntv)
			PTD_PKT_CMP(trig.icnt);
		return NULL;

	case ppt_bbp:
		PTD_PKT_CMP(bbp.type);
		PTD_PKT_CMP(bbp.sz);
		return NULL;

	case ppt_bip:
		PTD_PKT_CMP(bip.id);
		PTD_PKT_CMP(bip.payload);
		return NULL;

	case ppt_bep:
		PTD_PKT_CMP(bep.ip);
		return NULL;
	}
	return "type (not a packet type)";
}

/* Compare type, size and payload of @a and @b; return the name of the first
 * field that differs, or NULL if the packets are equal. */
static inline const char *ptd_pkt_diff(const struct pt_packet *a,
                                       const struct pt_packet *b)
{
	if (a->type != b->type)
		return "type";
	if (a->size != b->size)
		return "size";
	return ptd_pkt_payload_diff(a, b);
}

#undef PTD_PKT_CMP

#endif /* PTD_PKT_EQUAL_H */
