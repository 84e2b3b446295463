/* SPDX-License-Identifier: BSD-3-Clause */
/* The packet encoder: pt_alloc_encoder(), pt_enc_*(). */
#include "ptdecode/intel-pt.h"

#include "../common/config.h"
#include "pkt_format.h"

#include <stdlib.h>
#include <string.h>

struct pt_encoder {
	/* Our copy of the user's configuration. */
	struct pt_config config;

	/* The next byte to write. */
	uint8_t *pos;

	/* BIP payload size inside a BBP..BEP block, 0 outside. */
	uint8_t bip_size;
};

struct pt_encoder *pt_alloc_encoder(const struct pt_config *config)
{
	struct pt_encoder *encoder;

	if (!config)
		return NULL;
	encoder = malloc(sizeof(*encoder));
	if (!encoder)
		return NULL;
	memset(encoder, 0, sizeof(*encoder));
	if (ptd_config_from_user(&encoder->config, config) < 0) {
		free(encoder);
		return NULL;
	}
	encoder->pos = encoder->config.begin;
	return encoder;
}

void pt_free_encoder(struct pt_encoder *encoder)
{
	free(encoder);
}

int pt_enc_sync_set(struct pt_encoder *encoder, uint64_t offset)
{
	if (!encoder)
		return -pte_invalid;
	if (offset > (uint64_t)(encoder->config.end - encoder->config.begin))
		return -pte_eos;
	encoder->pos = encoder->config.begin + offset;
	encoder->bip_size = 0;
	return 0;
}

int pt_enc_get_offset(const struct pt_encoder *encoder, uint64_t *offset)
{
	if (!encoder || !offset)
		return -pte_invalid;
	*offset = (uint64_t)(encoder->pos - encoder->config.begin);
	return 0;
}

const struct pt_config *pt_enc_get_config(const struct pt_encoder *encoder)
{
	return encoder ? &encoder->config : NULL;
}

/* Store @n little-endian bytes of @v at @p. */
static void ptd_put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; ++i)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Check that @v fits in @bits bits. */
static int ptd_fits(uint64_t v, unsigned bits)
{
	return bits >= 64 || (v >> bits) == 0;
}

/* Encode @pkt into @buf (at least PTD_PS_MAX bytes); return its size or a
 * negative error.  @bip_size is the encoder's block state. */
static int ptd_encode(uint8_t *buf, const struct pt_packet *pkt,
                      uint8_t *bip_size)
{
	const uint8_t ext = PTD_OPC_EXT;

	switch (pkt->type) {
	case ppt_pad:
		buf[0] = PTD_OPC_PAD;
		return 1;

	case ppt_psb:
		for (int i = 0; i < PTD_PS_PSB; i += 2) {
			buf[i] = ext;
			buf[i + 1] = PTD_EXT_PSB;
		}
		return PTD_PS_PSB;

	case ppt_psbend:
		buf[0] = ext;
		buf[1] = PTD_EXT_PSBEND;
		return PTD_PS_PSBEND;

	case ppt_ovf:
		buf[0] = ext;
		buf[1] = PTD_EXT_OVF;
		return PTD_PS_OVF;

	case ppt_stop:
		buf[0] = ext;
		buf[1] = PTD_EXT_STOP;
		return PTD_PS_STOP;

	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
	case ppt_fup: {
		static const int8_t size[8] = {0, 2, 4, 6, 6, -1, 8, -1};
		uint8_t opc = pkt->type == ppt_tip       ? PTD_OPC_TIP
		              : pkt->type == ppt_tip_pge ? PTD_OPC_TIP_PGE
		              : pkt->type == ppt_tip_pgd ? PTD_OPC_TIP_PGD
		                                         : PTD_OPC_FUP;
		unsigned ipc = (unsigned)pkt->payload.ip.ipc;
		int n;

		if (ipc > 7 || size[ipc] < 0)
			return -pte_invalid;
		n = size[ipc];
		buf[0] = (uint8_t)(opc | (ipc << 5));
		ptd_put_le(buf + 1, pkt->payload.ip.ip, (unsigned)n);
		return 1 + n;
	}

	case ppt_tnt_8:
	case ppt_tnt_64: {
		unsigned bits = pkt->payload.tnt.bit_size;
		uint64_t raw;

		/* (libipt's error codes: -pte_bad_packet for a TNT-8,
		 * -pte_invalid for a TNT-64.  Unlike libipt, no packet
		 * without outcomes and no payload wider than its bits: the
		 * bytes would not decode to the packet.) */
		if (pkt->type == ppt_tnt_8 ? (bits < 1 || bits > 6)
		                           : (bits < 1 || bits > 47))
			return pkt->type == ppt_tnt_8 ? -pte_bad_packet
			                              : -pte_invalid;
		if (!ptd_fits(pkt->payload.tnt.payload, bits))
			return pkt->type == ppt_tnt_8 ? -pte_bad_packet
			                              : -pte_invalid;
		raw = pkt->payload.tnt.payload | (UINT64_C(1) << bits);
		if (pkt->type == ppt_tnt_8) {
			/* Inside a PEBS block, xxxxx100b is a BIP. */
			if (*bip_size &&
			    ((raw << 1) & PTD_OPM_BIP) == PTD_OPC_BIP)
				return -pte_bad_packet;
			buf[0] = (uint8_t)(raw << 1);
			return 1;
		}
		buf[0] = ext;
		buf[1] = PTD_EXT_TNT64;
		ptd_put_le(buf + 2, raw, 6);
		return PTD_PS_TNT64;
	}

	case ppt_mode: {
		uint8_t bits;

		switch (pkt->payload.mode.leaf) {
		case pt_mol_exec:
			bits = (uint8_t)((pkt->payload.mode.bits.exec.csl
			                          ? PTD_MODE_EXEC_CSL
			                          : 0) |
			                 (pkt->payload.mode.bits.exec.csd
			                          ? PTD_MODE_EXEC_CSD
			                          : 0) |
			                 (pkt->payload.mode.bits.exec.iflag
			                          ? PTD_MODE_EXEC_IF
			                          : 0));
			break;
		case pt_mol_tsx:
			bits = (uint8_t)(pt_mol_tsx |
			                 (pkt->payload.mode.bits.tsx.intx
			                          ? PTD_MODE_TSX_INTX
			                          : 0) |
			                 (pkt->payload.mode.bits.tsx.abrt
			                          ? PTD_MODE_TSX_ABRT
			                          : 0));
			break;
		default:
			return -pte_bad_packet;
		}
		buf[0] = PTD_OPC_MODE;
		buf[1] = bits;
		return PTD_PS_MODE;
	}

	case ppt_pip: {
		/* Bits 51:5 of CR3, as libipt (the others are not in the
		 * packet: PCID bits, say). */
		uint64_t cr3 = pkt->payload.pip.cr3;

		buf[0] = ext;
		buf[1] = PTD_EXT_PIP;
		ptd_put_le(buf + 2, ((cr3 >> 5) << 1) | pkt->payload.pip.nr, 6);
		return PTD_PS_PIP;
	}

	case ppt_tsc:
		/* The low 56 bits, as libipt. */
		buf[0] = PTD_OPC_TSC;
		ptd_put_le(buf + 1, pkt->payload.tsc.tsc, 7);
		return PTD_PS_TSC;

	case ppt_cbr:
		buf[0] = ext;
		buf[1] = PTD_EXT_CBR;
		buf[2] = pkt->payload.cbr.ratio;
		buf[3] = 0;
		return PTD_PS_CBR;

	case ppt_tma:
		if (pkt->payload.tma.fc & ~PTD_TMA_FC_MASK)
			return -pte_bad_packet;
		buf[0] = ext;
		buf[1] = PTD_EXT_TMA;
		ptd_put_le(buf + 2, pkt->payload.tma.ctc, 2);
		buf[4] = 0;
		ptd_put_le(buf + 5, pkt->payload.tma.fc, 2);
		return PTD_PS_TMA;

	case ppt_mtc:
		buf[0] = PTD_OPC_MTC;
		buf[1] = pkt->payload.mtc.ctc;
		return PTD_PS_MTC;

	case ppt_cyc: {
		uint64_t v = pkt->payload.cyc.value;
		int n = 1;

		if (!ptd_fits(v, PTD_CYC_MAX_BITS))
			return -pte_bad_packet;
		buf[0] = (uint8_t)(PTD_OPC_CYC | ((v & 0x1f) << 3));
		v >>= 5;
		if (v)
			buf[0] |= 0x04;
		while (v) {
			buf[n] = (uint8_t)((v & 0x7f) << 1);
			v >>= 7;
			if (v)
				buf[n] |= 1;
			++n;
		}
		return n;
	}

	case ppt_vmcs:
		/* Bits 51:12 of the base, as libipt. */
		buf[0] = ext;
		buf[1] = PTD_EXT_VMCS;
		ptd_put_le(buf + 2, pkt->payload.vmcs.base >> 12, 5);
		return PTD_PS_VMCS;

	case ppt_mnt:
		buf[0] = ext;
		buf[1] = PTD_EXT_EXT2;
		buf[2] = PTD_EXT2_MNT;
		ptd_put_le(buf + 3, pkt->payload.mnt.payload, 8);
		return PTD_PS_MNT;

	case ppt_exstop:
		buf[0] = ext;
		buf[1] = pkt->payload.exstop.ip ? PTD_EXT_EXSTOP_IP
		                                : PTD_EXT_EXSTOP;
		return PTD_PS_EXSTOP;

	case ppt_mwait:
		buf[0] = ext;
		buf[1] = PTD_EXT_MWAIT;
		ptd_put_le(buf + 2, pkt->payload.mwait.hints, 4);
		ptd_put_le(buf + 6, pkt->payload.mwait.ext, 4);
		return PTD_PS_MWAIT;

	case ppt_pwre:
		/* (The 4-bit fields masked, as libipt.) */
		buf[0] = ext;
		buf[1] = PTD_EXT_PWRE;
		buf[2] = pkt->payload.pwre.hw ? PTD_PWRE_HW : 0;
		buf[3] = (uint8_t)(((pkt->payload.pwre.state & 0xf) << 4) |
		                   (pkt->payload.pwre.sub_state & 0xf));
		return PTD_PS_PWRE;

	case ppt_pwrx:
		buf[0] = ext;
		buf[1] = PTD_EXT_PWRX;
		buf[2] = (uint8_t)(((pkt->payload.pwrx.last & 0xf) << 4) |
		                   (pkt->payload.pwrx.deepest & 0xf));
		buf[3] =
		        (uint8_t)((pkt->payload.pwrx.interrupt ? PTD_PWRX_WR_INT
		                                               : 0) |
		                  (pkt->payload.pwrx.store ? PTD_PWRX_WR_STORE
		                                           : 0) |
		                  (pkt->payload.pwrx.autonomous ? PTD_PWRX_WR_HW
		                                                : 0));
		buf[4] = buf[5] = buf[6] = 0;
		return PTD_PS_PWRX;

	case ppt_ptw: {
		uint8_t plc = pkt->payload.ptw.plc;
		/* The error of a bad size is pt_ptw_size()'s; a payload is
		 * cut to the size, as libipt does. */
		int n = pt_ptw_size(plc);

		if (n < 0)
			return n;
		buf[0] = ext;
		buf[1] = (uint8_t)(PTD_EXT_PTW | (plc << 5) |
		                   (pkt->payload.ptw.ip ? 0x80 : 0));
		ptd_put_le(buf + 2, pkt->payload.ptw.payload, (unsigned)n);
		return 2 + n;
	}

	case ppt_cfe:
		/* (The type masked to its bits, as libipt.) */
		buf[0] = ext;
		buf[1] = PTD_EXT_CFE;
		buf[2] = (uint8_t)(((unsigned)pkt->payload.cfe.type &
		                    PTD_CFE_TYPE_MASK) |
		                   (pkt->payload.cfe.ip ? PTD_CFE_IP : 0));
		buf[3] = pkt->payload.cfe.vector;
		return PTD_PS_CFE;

	case ppt_evd:
		buf[0] = ext;
		buf[1] = PTD_EXT_EVD;
		buf[2] = (uint8_t)((unsigned)pkt->payload.evd.type &
		                   PTD_EVD_TYPE_MASK);
		ptd_put_le(buf + 3, pkt->payload.evd.payload, 8);
		return PTD_PS_EVD;

	case ppt_trig:
		buf[0] = PTD_OPC_TRIG;
		buf[1] =
		        (uint8_t)((pkt->payload.trig.ip ? PTD_TRIG_IP : 0) |
		                  (pkt->payload.trig.icntv ? PTD_TRIG_ICNTV
		                                           : 0) |
		                  (pkt->payload.trig.mult ? PTD_TRIG_MULT : 0));
		buf[2] = pkt->payload.trig.trbv;
		if (!pkt->payload.trig.icntv)
			return PTD_PS_TRIG;
		ptd_put_le(buf + 3, pkt->payload.trig.icnt, 2);
		return PTD_PS_TRIG_ICNT;

	case ppt_bbp:
		if (pkt->payload.bbp.type > PTD_BBP_TYPE_MASK)
			return -pte_bad_packet;
		buf[0] = ext;
		buf[1] = PTD_EXT_BBP;
		buf[2] = (uint8_t)(pkt->payload.bbp.type |
		                   (pkt->payload.bbp.sz ? PTD_BBP_SZ : 0));
		*bip_size = pkt->payload.bbp.sz ? 4 : 8;
		return PTD_PS_BBP;

	case ppt_bip: {
		unsigned n = *bip_size;

		if (!n || pkt->payload.bip.id > 0x1f ||
		    !ptd_fits(pkt->payload.bip.payload, 8 * n))
			return -pte_bad_packet;
		buf[0] = (uint8_t)(PTD_OPC_BIP | (pkt->payload.bip.id << 3));
		ptd_put_le(buf + 1, pkt->payload.bip.payload, n);
		return (int)(1 + n);
	}

	case ppt_bep:
		buf[0] = ext;
		buf[1] = pkt->payload.bep.ip ? PTD_EXT_BEP_IP : PTD_EXT_BEP;
		*bip_size = 0;
		return PTD_PS_BEP;

	case ppt_invalid:
	case ppt_unknown:
		break;
	}
	return -pte_bad_opc;
}

/* The size of @pkt where libipt's encoder checks for room before it looks
 * at the payload (so a packet with a bad payload that would not fit either
 * is -pte_eos, as there), or 0. */
static int ptd_enc_reserve(const struct pt_packet *pkt)
{
	switch (pkt->type) {
	case ppt_pad:
		return 1;
	case ppt_psb:
		return PTD_PS_PSB;
	case ppt_psbend:
	case ppt_ovf:
	case ppt_stop:
	case ppt_mtc:
	case ppt_mode:
	case ppt_exstop:
		return 2;
	case ppt_tnt_64:
		return PTD_PS_TNT64;
	case ppt_pip:
		return PTD_PS_PIP;
	case ppt_tsc:
		return PTD_PS_TSC;
	case ppt_cbr:
		return PTD_PS_CBR;
	case ppt_tma:
		return PTD_PS_TMA;
	case ppt_vmcs:
		return PTD_PS_VMCS;
	case ppt_mnt:
		return PTD_PS_MNT;
	case ppt_mwait:
		return PTD_PS_MWAIT;
	case ppt_pwre:
		return PTD_PS_PWRE;
	case ppt_pwrx:
		return PTD_PS_PWRX;
	case ppt_cfe:
		return PTD_PS_CFE;
	case ppt_evd:
		return PTD_PS_EVD;
	case ppt_trig:
		return pkt->payload.trig.icntv ? PTD_PS_TRIG_ICNT : PTD_PS_TRIG;
	default:
		return 0;
	}
}

int pt_enc_next(struct pt_encoder *encoder, const struct pt_packet *packet)
{
	uint8_t buf[PTD_PS_MAX];
	uint8_t bip_size;
	int size;

	if (!encoder || !packet)
		return -pte_invalid;
	if (encoder->config.end - encoder->pos < ptd_enc_reserve(packet))
		return -pte_eos;

	bip_size = encoder->bip_size;
	if (packet->type == ppt_psb || packet->type == ppt_ovf)
		bip_size = 0;
	size = ptd_encode(buf, packet, &bip_size);
	if (size < 0)
		return size;
	if (encoder->config.end - encoder->pos < size)
		return -pte_eos;

	memcpy(encoder->pos, buf, (size_t)size);
	encoder->pos += size;
	encoder->bip_size = bip_size;
	return size;
}
