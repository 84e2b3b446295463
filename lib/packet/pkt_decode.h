/* SPDX-License-Identifier: BSD-3-Clause */
/* Decoding of one Intel PT packet.
 *
 * This is the hot path of every layer above the packet decoder, so it lives
 * in a header as a static inline function: the packet decoder, and later the
 * query decoder, inline it into their loops.
 *
 * ptd_pkt_decode() reads the packet at @pos in [@pos, @end) and never reads
 * outside that range.  It returns the number of bytes consumed (> 0) with the
 * packet in @pkt (pkt->size is the packet's own size; the two differ only
 * for the SKD007 work-around, where a broken CYC byte is skipped before the
 * OVF), 0 if the unknown-packet callback consumed nothing, or a negative
 * pt_error_code. */
#ifndef PTD_PKT_DECODE_H
#define PTD_PKT_DECODE_H

#include "ptdecode/intel-pt.h"

#include "pkt_format.h"
#include "pkt_tables.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Decoder state that changes how bytes decode: the BIP item size (4 or 8)
 * inside a PEBS BBP..BEP block, 0 outside. */
struct ptd_pkt_state {
	uint8_t bip_size;
};

/* Read @n <= 8 little-endian bytes at @p; [p, p + n) lies before @end. */
static inline uint64_t ptd_pkt_le(const uint8_t *p, unsigned n,
                                  const uint8_t *end)
{
	uint64_t v = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if ((size_t)(end - p) >= 8) {
		memcpy(&v, p, 8);
		if (n < 8)
			v &= (UINT64_C(1) << (8 * n)) - 1;
		return v;
	}
#else
	(void)end;
#endif
	for (unsigned i = 0; i < n; ++i)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Split a TNT payload (stop bit included) into size and outcomes. */
static inline int ptd_pkt_tnt(struct pt_packet *pkt, uint64_t raw)
{
	unsigned bits;

	if (raw < 2)
		return -pte_bad_packet;
	bits = 63u - (unsigned)__builtin_clzll(raw);
	pkt->payload.tnt.bit_size = (uint8_t)bits;
	pkt->payload.tnt.payload = raw & ~(UINT64_C(1) << bits);
	return 0;
}

/* The payload size of an IP packet by IP compression, -1 if reserved. */
static const int8_t ptd_pkt_ip_size[8] = {0, 2, 4, 6, 6, -1, 8, -1};

static inline int ptd_pkt_ip(struct pt_packet *pkt, enum pt_packet_type type,
                             const uint8_t *pos, const uint8_t *end)
{
	unsigned ipc = pos[0] >> 5;
	int n = ptd_pkt_ip_size[ipc];

	if (n < 0)
		return -pte_bad_packet;
	if (end - pos < 1 + n)
		return -pte_eos;
	pkt->type = type;
	pkt->size = (uint8_t)(1 + n);
	pkt->payload.ip.ipc = (enum pt_ip_compression)ipc;
	pkt->payload.ip.ip = n ? ptd_pkt_le(pos + 1, (unsigned)n, end) : 0;
	return 1 + n;
}

static inline int ptd_pkt_cyc(struct pt_packet *pkt, const uint8_t *pos,
                              const uint8_t *end)
{
	const uint8_t *p = pos + 1;
	uint64_t value = pos[0] >> 3;
	unsigned shift = 5;
	int ext = pos[0] & 0x04;

	while (ext) {
		uint64_t bits;

		if (p >= end)
			return -pte_eos;
		bits = *p++;
		ext = (int)(bits & 1);
		if (shift + 7 > 64)
			return -pte_bad_packet;
		value |= (bits >> 1) << shift;
		shift += 7;
	}
	pkt->type = ppt_cyc;
	pkt->size = (uint8_t)(p - pos);
	pkt->payload.cyc.value = value;
	return (int)(p - pos);
}

/* Call the configured decoder for an unknown opcode. */
static inline int ptd_pkt_unknown(struct pt_packet *pkt, const uint8_t *pos,
                                  const uint8_t *end,
                                  const struct pt_config *config)
{
	int size;

	if (!config->decode.callback)
		return -pte_bad_opc;
	pkt->payload.unknown.packet = pos;
	pkt->payload.unknown.priv = NULL;
	size = config->decode.callback(&pkt->payload.unknown, config, pos,
	                               config->decode.context);
	if (size < 0)
		return size;
	if (size > UCHAR_MAX)
		return -pte_invalid;
	if (end - pos < size)
		return -pte_eos;
	pkt->type = ppt_unknown;
	pkt->size = (uint8_t)size;
	return size;
}

/* Fixed-size packets without payload: fill type and size. */
static inline int ptd_pkt_plain(struct pt_packet *pkt, enum pt_packet_type type,
                                int size, const uint8_t *pos,
                                const uint8_t *end)
{
	if (end - pos < size)
		return -pte_eos;
	pkt->type = type;
	pkt->size = (uint8_t)size;
	return size;
}

/* A PIP packet with the 48-bit payload @raw (NR in bit 0, CR3 bits 51:5
 * above it). */
static inline int ptd_pkt_pip(struct pt_packet *pkt, uint64_t raw)
{
	pkt->type = ppt_pip;
	pkt->size = PTD_PS_PIP;
	pkt->payload.pip.nr = raw & 1;
	pkt->payload.pip.cr3 = (raw >> 1) << 5;
	return PTD_PS_PIP;
}

/* A MODE packet with payload byte @bits: fills @pkt and returns 0, or -1
 * for a reserved leaf (then @pkt is partly written). */
static inline int ptd_pkt_mode(struct pt_packet *pkt, unsigned bits)
{
	pkt->payload.mode.leaf = (enum pt_mode_leaf)(bits & PTD_MODE_LEAF_MASK);
	if ((bits & PTD_MODE_LEAF_MASK) == pt_mol_exec) {
		struct pt_packet_mode_exec *e = &pkt->payload.mode.bits.exec;

		memset(e, 0, sizeof(*e));
		e->csl = (bits & PTD_MODE_EXEC_CSL) ? 1 : 0;
		e->csd = (bits & PTD_MODE_EXEC_CSD) ? 1 : 0;
		e->iflag = (bits & PTD_MODE_EXEC_IF) ? 1 : 0;
	} else if ((bits & PTD_MODE_LEAF_MASK) == pt_mol_tsx) {
		struct pt_packet_mode_tsx *t = &pkt->payload.mode.bits.tsx;

		memset(t, 0, sizeof(*t));
		t->intx = (bits & PTD_MODE_TSX_INTX) ? 1 : 0;
		t->abrt = (bits & PTD_MODE_TSX_ABRT) ? 1 : 0;
	} else {
		return -1;
	}
	pkt->type = ppt_mode;
	pkt->size = PTD_PS_MODE;
	return 0;
}

/* Packets that start with the 0x02 escape. */
static inline int ptd_pkt_decode_ext(const uint8_t *pos, const uint8_t *end,
                                     const struct pt_config *config,
                                     struct pt_packet *pkt,
                                     struct ptd_pkt_state *state)
{
	ptrdiff_t avail = end - pos;
	uint8_t ext;

	if (avail < 2)
		return -pte_eos;
	ext = pos[1];
	switch (ptd_pkt_ext_class[ext]) {
	case PKX_PSB:
		if (avail < PTD_PS_PSB)
			return -pte_eos;
		for (int i = 2; i < PTD_PS_PSB; i += 2) {
			if (pos[i] != PTD_OPC_EXT || pos[i + 1] != PTD_EXT_PSB)
				return -pte_bad_packet;
		}
		state->bip_size = 0;
		return ptd_pkt_plain(pkt, ppt_psb, PTD_PS_PSB, pos, end);

	case PKX_TNT64: {
		int err;

		if (avail < PTD_PS_TNT64)
			return -pte_eos;
		err = ptd_pkt_tnt(pkt, ptd_pkt_le(pos + 2, 6, end));
		if (err < 0)
			return err;
		pkt->type = ppt_tnt_64;
		pkt->size = PTD_PS_TNT64;
		return PTD_PS_TNT64;
	}

	case PKX_PIP:
		if (avail < PTD_PS_PIP)
			return -pte_eos;
		return ptd_pkt_pip(pkt, ptd_pkt_le(pos + 2, 6, end));

	case PKX_OVF:
		state->bip_size = 0;
		return ptd_pkt_plain(pkt, ppt_ovf, PTD_PS_OVF, pos, end);

	case PKX_PSBEND:
		return ptd_pkt_plain(pkt, ppt_psbend, PTD_PS_PSBEND, pos, end);

	case PKX_STOP:
		return ptd_pkt_plain(pkt, ppt_stop, PTD_PS_STOP, pos, end);

	case PKX_CBR:
		if (avail < PTD_PS_CBR)
			return -pte_eos;
		pkt->type = ppt_cbr;
		pkt->size = PTD_PS_CBR;
		pkt->payload.cbr.ratio = pos[2];
		return PTD_PS_CBR;

	case PKX_TMA: {
		uint16_t fc;

		if (avail < PTD_PS_TMA)
			return -pte_eos;
		fc = (uint16_t)(pos[5] | (pos[6] << 8));
		if ((fc & ~PTD_TMA_FC_MASK) || pos[4]) {
			/* SKZ84: a corrupted TMA is followed by one bogus
			 * byte; report both as one invalid packet. */
			if (!config->errata.skz84)
				return -pte_bad_packet;
			if (avail < PTD_PS_TMA + 1)
				return -pte_eos;
			pkt->type = ppt_invalid;
			pkt->size = PTD_PS_TMA + 1;
			return PTD_PS_TMA + 1;
		}
		pkt->type = ppt_tma;
		pkt->size = PTD_PS_TMA;
		pkt->payload.tma.ctc = (uint16_t)(pos[2] | (pos[3] << 8));
		pkt->payload.tma.fc = fc;
		return PTD_PS_TMA;
	}

	case PKX_VMCS:
		if (avail < PTD_PS_VMCS)
			return -pte_eos;
		pkt->type = ppt_vmcs;
		pkt->size = PTD_PS_VMCS;
		pkt->payload.vmcs.base = ptd_pkt_le(pos + 2, 5, end) << 12;
		return PTD_PS_VMCS;

	case PKX_EXT2:
		if (avail < 3)
			return -pte_eos;
		if (pos[2] != PTD_EXT2_MNT)
			return ptd_pkt_unknown(pkt, pos, end, config);
		if (avail < PTD_PS_MNT)
			return -pte_eos;
		pkt->type = ppt_mnt;
		pkt->size = PTD_PS_MNT;
		pkt->payload.mnt.payload = ptd_pkt_le(pos + 3, 8, end);
		return PTD_PS_MNT;

	case PKX_EXSTOP:
		pkt->payload.exstop.ip = (ext & 0x80) ? 1 : 0;
		return ptd_pkt_plain(pkt, ppt_exstop, PTD_PS_EXSTOP, pos, end);

	case PKX_MWAIT: {
		uint64_t raw;

		if (avail < PTD_PS_MWAIT)
			return -pte_eos;
		raw = ptd_pkt_le(pos + 2, 8, end);
		pkt->type = ppt_mwait;
		pkt->size = PTD_PS_MWAIT;
		pkt->payload.mwait.hints = (uint32_t)raw;
		pkt->payload.mwait.ext = (uint32_t)(raw >> 32);
		return PTD_PS_MWAIT;
	}

	case PKX_PWRE:
		if (avail < PTD_PS_PWRE)
			return -pte_eos;
		pkt->type = ppt_pwre;
		pkt->size = PTD_PS_PWRE;
		memset(&pkt->payload.pwre, 0, sizeof(pkt->payload.pwre));
		pkt->payload.pwre.hw = (pos[2] & PTD_PWRE_HW) ? 1 : 0;
		pkt->payload.pwre.state = pos[3] >> 4;
		pkt->payload.pwre.sub_state = pos[3] & 0xf;
		return PTD_PS_PWRE;

	case PKX_PWRX:
		if (avail < PTD_PS_PWRX)
			return -pte_eos;
		pkt->type = ppt_pwrx;
		pkt->size = PTD_PS_PWRX;
		memset(&pkt->payload.pwrx, 0, sizeof(pkt->payload.pwrx));
		pkt->payload.pwrx.last = pos[2] >> 4;
		pkt->payload.pwrx.deepest = pos[2] & 0xf;
		pkt->payload.pwrx.interrupt =
		        (pos[3] & PTD_PWRX_WR_INT) ? 1 : 0;
		pkt->payload.pwrx.store = (pos[3] & PTD_PWRX_WR_STORE) ? 1 : 0;
		pkt->payload.pwrx.autonomous =
		        (pos[3] & PTD_PWRX_WR_HW) ? 1 : 0;
		return PTD_PS_PWRX;

	case PKX_PTW: {
		uint8_t plc = (ext >> 5) & 3;
		int n;

		if (plc > 1)
			return -pte_bad_packet;
		n = plc ? 8 : 4;
		if (avail < 2 + n)
			return -pte_eos;
		pkt->type = ppt_ptw;
		pkt->size = (uint8_t)(2 + n);
		pkt->payload.ptw.payload =
		        ptd_pkt_le(pos + 2, (unsigned)n, end);
		pkt->payload.ptw.plc = plc;
		pkt->payload.ptw.ip = (ext & 0x80) ? 1 : 0;
		return 2 + n;
	}

	case PKX_CFE:
		if (avail < PTD_PS_CFE)
			return -pte_eos;
		pkt->type = ppt_cfe;
		pkt->size = PTD_PS_CFE;
		pkt->payload.cfe.type =
		        (enum pt_cfe_type)(pos[2] & PTD_CFE_TYPE_MASK);
		pkt->payload.cfe.vector = pos[3];
		pkt->payload.cfe.ip = (pos[2] & PTD_CFE_IP) ? 1 : 0;
		return PTD_PS_CFE;

	case PKX_EVD:
		if (avail < PTD_PS_EVD)
			return -pte_eos;
		pkt->type = ppt_evd;
		pkt->size = PTD_PS_EVD;
		pkt->payload.evd.type =
		        (enum pt_evd_type)(pos[2] & PTD_EVD_TYPE_MASK);
		pkt->payload.evd.payload = ptd_pkt_le(pos + 3, 8, end);
		return PTD_PS_EVD;

	case PKX_BBP:
		if (avail < PTD_PS_BBP)
			return -pte_eos;
		pkt->type = ppt_bbp;
		pkt->size = PTD_PS_BBP;
		pkt->payload.bbp.type = pos[2] & PTD_BBP_TYPE_MASK;
		pkt->payload.bbp.sz = (pos[2] & PTD_BBP_SZ) ? 1 : 0;
		state->bip_size = (pos[2] & PTD_BBP_SZ) ? 4 : 8;
		return PTD_PS_BBP;

	case PKX_BEP:
		pkt->payload.bep.ip = (ext & 0x80) ? 1 : 0;
		state->bip_size = 0;
		return ptd_pkt_plain(pkt, ppt_bep, PTD_PS_BEP, pos, end);

	default:
		return ptd_pkt_unknown(pkt, pos, end, config);
	}
}

/* SKD007: an OVF may replace the second byte of a CYC.  A 2-byte CYC whose
 * second byte is the 0x02 escape, followed by the OVF extension byte, is
 * taken to be a CYC cut short by an OVF: drop the CYC, report the OVF. */
static inline int ptd_pkt_skd007(struct pt_packet *pkt, const uint8_t *pos,
                                 const uint8_t *end, int size,
                                 struct ptd_pkt_state *state)
{
	if (size != 2 || pos[1] != PTD_OPC_EXT || end - pos < 3 ||
	    pos[2] != PTD_EXT_OVF)
		return size;
	/* The OVF ends a PEBS block like any other OVF. */
	state->bip_size = 0;
	pkt->type = ppt_ovf;
	pkt->size = PTD_PS_OVF;
	return 1 + PTD_PS_OVF;
}

/* The branch-free path for packets that the first byte fully describes
 * (PAD, TNT-8, TIP/TIP.PGE/TIP.PGD/FUP, TSC, MTC, one-byte CYC).  Needs at
 * least 9 bytes at @pos.  Returns the packet size, or 0 (with @pkt
 * clobbered) if the general decoder must handle the packet. */
static inline int ptd_pkt_decode_fast(const uint8_t *pos, struct pt_packet *pkt)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const struct ptd_pkt_fast *f = &ptd_pkt_fast[pos[0]];
	uint64_t w, head, a, b;

	_Static_assert(offsetof(struct pt_packet, size) == 4 &&
	                       offsetof(struct pt_packet, payload) == 8 &&
	                       sizeof(struct pt_packet) == 24 &&
	                       offsetof(struct pt_packet_ip, ip) == 8 &&
	                       offsetof(struct pt_packet_tnt, payload) == 8,
	               "struct pt_packet layout");

	memcpy(&w, pos + 1, sizeof(w));
	head = f->type | ((uint64_t)f->size << 32);
	a = f->a_const | (w & f->a_mask);
	b = f->b_const | (w & f->b_mask);
	memcpy((uint8_t *)pkt, &head, sizeof(head));
	memcpy((uint8_t *)pkt + 8, &a, sizeof(a));
	memcpy((uint8_t *)pkt + 16, &b, sizeof(b));
	return f->size;
#else
	(void)pos;
	(void)pkt;
	return 0;
#endif
}

/* Whether @b0 and @b1 make a CYC of two bytes (the extension bit set, the
 * second byte ends it) that ptd_pkt_decode() decodes as such, that is,
 * unless the second byte is the 0x02 escape (SKD007 may make an OVF of
 * it); and its cycles. */
static inline int ptd_pkt_is_cyc2(unsigned b0, unsigned b1)
{
	return (b0 & 0x07) == 0x07 && !(b1 & 1) && b1 != PTD_OPC_EXT;
}

static inline uint64_t ptd_pkt_cyc2_value(unsigned b0, unsigned b1)
{
	return (uint64_t)(b0 >> 3) | ((uint64_t)(b1 >> 1) << 5);
}

/* The second step for the timing-dense traces: the CYC of two bytes at
 * @pos (ptd_pkt_is_cyc2()).  Needs 2 bytes at @pos.  Returns 2, or 0
 * (nothing written) for any other packet. */
static inline int ptd_pkt_decode_cyc2(const uint8_t *pos, struct pt_packet *pkt)
{
	if (!ptd_pkt_is_cyc2(pos[0], pos[1]))
		return 0;
	pkt->type = ppt_cyc;
	pkt->size = 2;
	pkt->payload.cyc.value = ptd_pkt_cyc2_value(pos[0], pos[1]);
	return 2;
}

/* Decode the packet at @pos; see the top of this file. */
static inline int ptd_pkt_decode(const uint8_t *pos, const uint8_t *end,
                                 const struct pt_config *config,
                                 struct pt_packet *pkt,
                                 struct ptd_pkt_state *state)
{
	uint8_t opc;

	if (end - pos > 8 && !state->bip_size) {
		int size = ptd_pkt_decode_fast(pos, pkt);

		if (size)
			return size;
	}
	if (pos >= end)
		return -pte_eos;
	opc = pos[0];

	if (state->bip_size && (opc & PTD_OPM_BIP) == PTD_OPC_BIP) {
		int n = state->bip_size;

		if (end - pos < 1 + n)
			return -pte_eos;
		pkt->type = ppt_bip;
		pkt->size = (uint8_t)(1 + n);
		pkt->payload.bip.id = opc >> 3;
		pkt->payload.bip.payload =
		        ptd_pkt_le(pos + 1, (unsigned)n, end);
		return 1 + n;
	}

	switch (ptd_pkt_class[opc]) {
	case PKC_TNT8:
		pkt->type = ppt_tnt_8;
		pkt->size = 1;
		(void)ptd_pkt_tnt(pkt, opc >> 1);
		return 1;

	case PKC_PAD:
		pkt->type = ppt_pad;
		pkt->size = 1;
		return 1;

	case PKC_TIP:
		return ptd_pkt_ip(pkt, ppt_tip, pos, end);

	case PKC_TIP_PGE:
		return ptd_pkt_ip(pkt, ppt_tip_pge, pos, end);

	case PKC_TIP_PGD:
		return ptd_pkt_ip(pkt, ppt_tip_pgd, pos, end);

	case PKC_FUP:
		return ptd_pkt_ip(pkt, ppt_fup, pos, end);

	case PKC_CYC: {
		int size;

		if (!(opc & 0x04)) {
			pkt->type = ppt_cyc;
			pkt->size = 1;
			pkt->payload.cyc.value = opc >> 3;
			return 1;
		}
		size = ptd_pkt_cyc(pkt, pos, end);
		if (size > 0 && config->errata.skd007)
			size = ptd_pkt_skd007(pkt, pos, end, size, state);
		return size;
	}

	case PKC_MTC:
		if (end - pos < PTD_PS_MTC)
			return -pte_eos;
		pkt->type = ppt_mtc;
		pkt->size = PTD_PS_MTC;
		pkt->payload.mtc.ctc = pos[1];
		return PTD_PS_MTC;

	case PKC_TSC:
		if (end - pos < PTD_PS_TSC)
			return -pte_eos;
		pkt->type = ppt_tsc;
		pkt->size = PTD_PS_TSC;
		pkt->payload.tsc.tsc = ptd_pkt_le(pos + 1, 7, end);
		return PTD_PS_TSC;

	case PKC_MODE: {
		uint8_t bits;

		if (end - pos < PTD_PS_MODE)
			return -pte_eos;
		bits = pos[1];
		if (ptd_pkt_mode(pkt, bits) < 0)
			return -pte_bad_packet;
		return PTD_PS_MODE;
	}

	case PKC_EXT:
		return ptd_pkt_decode_ext(pos, end, config, pkt, state);

	case PKC_TRIG: {
		uint8_t flags;
		int size;

		if (end - pos < PTD_PS_TRIG)
			return -pte_eos;
		flags = pos[1];
		size = PTD_PS_TRIG;
		memset(&pkt->payload.trig, 0, sizeof(pkt->payload.trig));
		if (flags & PTD_TRIG_ICNTV) {
			if (end - pos < PTD_PS_TRIG_ICNT)
				return -pte_eos;
			pkt->payload.trig.icnt =
			        (uint16_t)(pos[3] | (pos[4] << 8));
			size = PTD_PS_TRIG_ICNT;
		}
		pkt->type = ppt_trig;
		pkt->size = (uint8_t)size;
		pkt->payload.trig.trbv = pos[2];
		pkt->payload.trig.ip = (flags & PTD_TRIG_IP) ? 1 : 0;
		pkt->payload.trig.icntv = (flags & PTD_TRIG_ICNTV) ? 1 : 0;
		pkt->payload.trig.mult = (flags & PTD_TRIG_MULT) ? 1 : 0;
		return size;
	}

	default:
		return ptd_pkt_unknown(pkt, pos, end, config);
	}
}

#endif /* PTD_PKT_DECODE_H */
