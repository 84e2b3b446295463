/* SPDX-License-Identifier: BSD-3-Clause */
/* Intel PT packet formats: opcodes, sizes and payload layouts.
 *
 * The numbers come from the Intel SDM, Vol. 3C, "Intel Processor Trace",
 * section "Packet Definitions".  Shared by the decoder and the encoder. */
#ifndef PTD_PKT_FORMAT_H
#define PTD_PKT_FORMAT_H

#include "ptdecode/intel-pt.h"

#include <stdint.h>

/* First-byte classes (see pkt_tables.h). */
enum ptd_pkt_class {
	PKC_UNKNOWN,
	PKC_PAD,
	PKC_EXT,
	PKC_TNT8,
	PKC_TIP,
	PKC_TIP_PGE,
	PKC_TIP_PGD,
	PKC_FUP,
	PKC_MODE,
	PKC_TSC,
	PKC_MTC,
	PKC_CYC,
	PKC_TRIG
};

/* Second-byte classes after the 0x02 escape. */
enum ptd_pkt_ext_class {
	PKX_UNKNOWN,
	PKX_PSB,
	PKX_TNT64,
	PKX_PIP,
	PKX_OVF,
	PKX_PSBEND,
	PKX_CBR,
	PKX_TMA,
	PKX_STOP,
	PKX_VMCS,
	PKX_EXT2,
	PKX_EXSTOP,
	PKX_MWAIT,
	PKX_PWRE,
	PKX_PWRX,
	PKX_PTW,
	PKX_CFE,
	PKX_EVD,
	PKX_BBP,
	PKX_BEP
};

/* Opcodes (first byte). */
enum {
	PTD_OPC_PAD = 0x00,
	PTD_OPC_EXT = 0x02,
	PTD_OPC_TIP = 0x0d,
	PTD_OPC_TIP_PGE = 0x11,
	PTD_OPC_TIP_PGD = 0x01,
	PTD_OPC_FUP = 0x1d,
	PTD_OPC_MODE = 0x99,
	PTD_OPC_TSC = 0x19,
	PTD_OPC_MTC = 0x59,
	PTD_OPC_CYC = 0x03,
	PTD_OPC_TRIG = 0xd9,
	/* BIP: item id in bits 7:3, bits 2:0 = 100b. */
	PTD_OPC_BIP = 0x04,
	PTD_OPM_BIP = 0x07
};

/* Extension opcodes (second byte after 0x02). */
enum {
	PTD_EXT_PSB = 0x82,
	PTD_EXT_TNT64 = 0xa3,
	PTD_EXT_PIP = 0x43,
	PTD_EXT_OVF = 0xf3,
	PTD_EXT_PSBEND = 0x23,
	PTD_EXT_CBR = 0x03,
	PTD_EXT_TMA = 0x73,
	PTD_EXT_STOP = 0x83,
	PTD_EXT_VMCS = 0xc8,
	PTD_EXT_EXT2 = 0xc3,
	PTD_EXT_EXSTOP = 0x62,
	PTD_EXT_EXSTOP_IP = 0xe2,
	PTD_EXT_MWAIT = 0xc2,
	PTD_EXT_PWRE = 0x22,
	PTD_EXT_PWRX = 0xa2,
	PTD_EXT_PTW = 0x12, /* low 5 bits; bit 7 IP, bits 6:5 size code */
	PTD_EXT_CFE = 0x13,
	PTD_EXT_EVD = 0x53,
	PTD_EXT_BBP = 0x63,
	PTD_EXT_BEP = 0x33,
	PTD_EXT_BEP_IP = 0xb3,
	PTD_EXT2_MNT = 0x88
};

/* Packet sizes in bytes. */
enum {
	PTD_PS_PSB = 16,
	PTD_PS_PSBEND = 2,
	PTD_PS_OVF = 2,
	PTD_PS_STOP = 2,
	PTD_PS_MODE = 2,
	PTD_PS_TSC = 8,
	PTD_PS_MTC = 2,
	PTD_PS_TNT64 = 8,
	PTD_PS_PIP = 8,
	PTD_PS_CBR = 4,
	PTD_PS_TMA = 7,
	PTD_PS_VMCS = 7,
	PTD_PS_MNT = 11,
	PTD_PS_EXSTOP = 2,
	PTD_PS_MWAIT = 10,
	PTD_PS_PWRE = 4,
	PTD_PS_PWRX = 7,
	PTD_PS_CFE = 4,
	PTD_PS_EVD = 11,
	PTD_PS_TRIG = 3,
	PTD_PS_TRIG_ICNT = 5,
	PTD_PS_BBP = 3,
	PTD_PS_BEP = 2,
	/* The longest CYC: one opcode byte and 8 extension bytes, 5 + 8 * 7 =
	 * 61 payload bits.  A ninth extension byte is a bad packet, as in
	 * libipt; the encoder refuses values that would need one. */
	PTD_PS_CYC_MAX = 9,
	/* The longest packet of all (PSB). */
	PTD_PS_MAX = 16
};

/* Payload bits a CYC packet can carry. */
#define PTD_CYC_MAX_BITS 61

/* Payload bits. */
enum {
	PTD_MODE_LEAF_MASK = 0xe0,
	PTD_MODE_EXEC_CSL = 0x01,
	PTD_MODE_EXEC_CSD = 0x02,
	PTD_MODE_EXEC_IF = 0x04,
	PTD_MODE_TSX_INTX = 0x01,
	PTD_MODE_TSX_ABRT = 0x02,
	PTD_TMA_FC_MASK = 0x1ff,
	/* PWRE byte 2 bit 7 (SDM Table "PWRE Packet Definition"). */
	PTD_PWRE_HW = 0x80,
	/* PWRX wake reasons, byte 3 bits 0, 2, 3. */
	PTD_PWRX_WR_INT = 0x01,
	PTD_PWRX_WR_STORE = 0x04,
	PTD_PWRX_WR_HW = 0x08,
	PTD_CFE_TYPE_MASK = 0x1f,
	PTD_CFE_IP = 0x80,
	PTD_EVD_TYPE_MASK = 0x1f,
	PTD_TRIG_IP = 0x80,
	PTD_TRIG_ICNTV = 0x40,
	PTD_TRIG_MULT = 0x20,
	PTD_BBP_SZ = 0x80,
	PTD_BBP_TYPE_MASK = 0x1f
};

/* One entry of the branch-free decoding table (pkt_tables.h).  A packet
 * whose first byte determines its size and layout is decoded as:
 *   bytes 0..7 of struct pt_packet:   type, size
 *   bytes 8..15 (payload slot A):     a_const | (next 8 bytes & a_mask)
 *   bytes 16..23 (payload slot B):    b_const | (next 8 bytes & b_mask)
 * where "next 8 bytes" are the bytes after the opcode, little-endian.
 * size 0 marks opcodes that need the general decoder. */
struct ptd_pkt_fast {
	uint32_t type;
	uint8_t size;
	uint64_t a_const, a_mask, b_const, b_mask;
};

/* One entry of the image table of the batch decoder (pkt_tables.h): the
 * packet is the 32-byte value  c | ((w & m) << c[3])  stored at its place in
 * the output array, where w is the 8 bytes after the opcode (little-endian)
 * in each 64-bit lane.  Lane 0 is the type and size, lanes 1 and 2 the
 * payload slots A and B of struct ptd_pkt_fast, and lane 3 spills into the
 * next packet (which is written later) and doubles as the shift count.  An
 * entry is one 64-byte cache line. */
struct ptd_pkt_image {
	_Alignas(64) uint64_t c[4];
	uint64_t m[4];
};

/* Lane 0 of an image: struct pt_packet's type and size fields. */
#define PTD_IMG_HEAD(type, size) ((uint64_t)(type) | ((uint64_t)(size) << 32))

#endif /* PTD_PKT_FORMAT_H */
