/* SPDX-License-Identifier: BSD-3-Clause */
/* A length decoder for the commonest instructions of 64-bit code, ahead of
 * Zydis (ild.c).
 *
 * Decoding a run of code the first time is most of what a flow decoder does
 * on a trace it has not seen (about 800 instructions of Zydis's minimal mode
 * per instruction, 40 % of the batch flow's time on one pass over libxdc's
 * mruby trace).  Compiled code is mostly a few dozen legacy-encoded opcodes
 * (MOV, LEA, the ALU, PUSH/POP, TEST, the branches, MOVZX, SETcc, CMOVcc,
 * NOP), whose length follows from a table, the ModRM and SIB bytes and the
 * operand-size and REX.W prefixes.  This file decodes those and nothing
 * else: anything it does not know for certain (other opcodes and prefixes,
 * LOCK, REP, VEX/EVEX, address-size overrides, branches with an
 * operand-size prefix, group members that are undefined or rare, a length
 * that would pass the bytes at hand or 15) goes to Zydis, which also
 * decides what is invalid.  tests/unit/test_ild_corpus.c checks that both
 * give the same result, field for field, on the C library's code, on all
 * opcode pairs after the prefixes and escapes, and on random bytes. */
#include "ild/ild_fast.h"

/* What the table says about an opcode (0: not decoded here). */
enum {
	/* Bits 2:0, the immediate. */
	f_imm_none = 0,
	f_imm8 = 1,
	f_immz = 2,  /* 16 bits with 0x66 (and no REX.W), else 32 */
	f_immv = 3,  /* MOV r, imm: 64 bits with REX.W, 16 with 0x66 */
	f_imm16 = 4, /* RET imm16 */
	f_imm_mask = 7,
	/* Bit 3: a ModRM byte follows. */
	f_modrm = 8,
	/* Bits 7:4, what else to check or report. */
	f_plain = 0x10,  /* ptd_ik_other, nothing to check */
	f_jcc8 = 0x20,   /* Jcc, LOOPcc, JrCXZ rel8 */
	f_jcc32 = 0x30,  /* Jcc rel32 */
	f_jmp8 = 0x40,   /* JMP rel8 */
	f_jmp32 = 0x50,  /* JMP rel32 */
	f_call32 = 0x60, /* CALL rel32 */
	f_ret = 0x70,    /* RET, RET imm16 */
	f_grp5 = 0x80,   /* FF: INC, DEC, CALL, JMP, PUSH r/m */
	f_grp3 = 0x90,   /* F6, F7: TEST imm, NOT, NEG, MUL, ... */
	f_mem = 0xa0,    /* LEA: a memory operand only */
	f_reg0 = 0xb0,   /* C6, C7, 8F, 0F 1F: only /0 */
	f_reg01 = 0xc0,  /* FE: only /0 and /1 */
	f_shift = 0xd0,  /* shifts and rotates: not /6 */
	f_reg47 = 0xe0,  /* 0F BA: only /4 to /7 */
	f_no66 = 0xf0,   /* BSWAP: not with 0x66 */
	f_what = 0xf0
};

#define ALU(op)                                                                \
	[(op) + 0] = f_plain | f_modrm, [(op) + 1] = f_plain | f_modrm,        \
	        [(op) + 2] = f_plain | f_modrm,                                \
	        [(op) + 3] = f_plain | f_modrm, [(op) + 4] = f_plain | f_imm8, \
	        [(op) + 5] = f_plain | f_immz

/* The one-byte opcodes in 64-bit mode. */
static const uint8_t ptd_fast_map1[256] = {
        ALU(0x00),
        ALU(0x08),
        ALU(0x10),
        ALU(0x18),
        ALU(0x20),
        ALU(0x28),
        ALU(0x30),
        ALU(0x38),
        [0x50 ... 0x5f] = f_plain,
        [0x63] = f_plain | f_modrm,
        [0x68] = f_plain | f_immz,
        [0x69] = f_plain | f_modrm | f_immz,
        [0x6a] = f_plain | f_imm8,
        [0x6b] = f_plain | f_modrm | f_imm8,
        [0x70 ... 0x7f] = f_jcc8 | f_imm8,
        [0x80] = f_plain | f_modrm | f_imm8,
        [0x81] = f_plain | f_modrm | f_immz,
        [0x83] = f_plain | f_modrm | f_imm8,
        [0x84 ... 0x8b] = f_plain | f_modrm,
        [0x8d] = f_mem | f_modrm,
        [0x8f] = f_reg0 | f_modrm,
        [0x90 ... 0x99] = f_plain,
        [0xa8] = f_plain | f_imm8,
        [0xa9] = f_plain | f_immz,
        [0xb0 ... 0xb7] = f_plain | f_imm8,
        [0xb8 ... 0xbf] = f_plain | f_immv,
        [0xc0] = f_shift | f_modrm | f_imm8,
        [0xc1] = f_shift | f_modrm | f_imm8,
        [0xc2] = f_ret | f_imm16,
        [0xc3] = f_ret,
        [0xc6] = f_reg0 | f_modrm | f_imm8,
        [0xc7] = f_reg0 | f_modrm | f_immz,
        [0xc9] = f_plain,
        [0xd0 ... 0xd3] = f_shift | f_modrm,
        [0xe0 ... 0xe3] = f_jcc8 | f_imm8,
        [0xe8] = f_call32 | f_immz,
        [0xe9] = f_jmp32 | f_immz,
        [0xeb] = f_jmp8 | f_imm8,
        [0xf6] = f_grp3 | f_modrm,
        [0xf7] = f_grp3 | f_modrm,
        [0xfe] = f_reg01 | f_modrm,
        [0xff] = f_grp5 | f_modrm,
};

/* The two-byte opcodes (0F xx) in 64-bit mode, without 0xf2/0xf3. */
static const uint8_t ptd_fast_map2[256] = {
        [0x1f] = f_reg0 | f_modrm,
        [0x40 ... 0x4f] = f_plain | f_modrm,
        [0x80 ... 0x8f] = f_jcc32 | f_immz,
        [0x90 ... 0x9f] = f_reg0 | f_modrm,
        [0xa3] = f_plain | f_modrm,
        [0xa4] = f_plain | f_modrm | f_imm8,
        [0xa5] = f_plain | f_modrm,
        [0xab] = f_plain | f_modrm,
        [0xac] = f_plain | f_modrm | f_imm8,
        [0xad] = f_plain | f_modrm,
        [0xaf] = f_plain | f_modrm,
        [0xb0] = f_plain | f_modrm,
        [0xb1] = f_plain | f_modrm,
        [0xb3] = f_plain | f_modrm,
        [0xb6] = f_plain | f_modrm,
        [0xb7] = f_plain | f_modrm,
        [0xba] = f_reg47 | f_modrm | f_imm8,
        [0xbb] = f_plain | f_modrm,
        [0xbc] = f_plain | f_modrm,
        [0xbd] = f_plain | f_modrm,
        [0xbe] = f_plain | f_modrm,
        [0xbf] = f_plain | f_modrm,
        [0xc0] = f_plain | f_modrm,
        [0xc1] = f_plain | f_modrm,
        [0xc8 ... 0xcf] = f_no66,
};

int ptd_ild_fast64(struct ptd_ild *insn, const uint8_t *code, size_t avail)
{
	const uint8_t *p = code, *end = code + (avail < 15 ? avail : 15);
	unsigned osz = 0, rexw = 0, entry, what, imm = 0, reg = 0, op;
	enum ptd_ild_kind kind = ptd_ik_other;
	size_t size;

	/* Prefixes: the operand size and the segments, then REX. */
	for (;;) {
		unsigned b;

		if (p >= end)
			return 0;
		b = *p;
		if (b == 0x66) {
			osz = 1;
		} else if (b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e ||
		           b == 0x64 || b == 0x65) {
			/* (Segment overrides, branch hints.) */
		} else {
			break;
		}
		++p;
	}
	if ((*p & 0xf0) == 0x40) {
		rexw = (*p >> 3) & 1;
		if (++p >= end)
			return 0;
		/* A REX prefix counts only right before the opcode. */
		if ((*p & 0xf0) == 0x40 || *p == 0x66)
			return 0;
	}

	if (*p == 0x0f) {
		if (++p >= end)
			return 0;
		op = 0x100 | *p++;
		entry = ptd_fast_map2[op & 0xff];
	} else {
		op = *p++;
		entry = ptd_fast_map1[op];
	}
	if (!entry)
		return 0;

	if (entry & f_modrm) {
		unsigned modrm, mod, rm;

		if (p >= end)
			return 0;
		modrm = *p++;
		mod = modrm >> 6;
		rm = modrm & 7;
		reg = (modrm >> 3) & 7;
		if (mod != 3) {
			unsigned disp = 0;

			if (rm == 4) {
				if (p >= end)
					return 0;
				if (mod == 0 && (*p & 7) == 5)
					disp = 4;
				++p;
			} else if (mod == 0 && rm == 5) {
				disp = 4; /* RIP-relative */
			}
			if (mod == 1)
				disp = 1;
			else if (mod == 2)
				disp = 4;
			p += disp;
		} else if ((entry & f_what) == f_mem) {
			return 0; /* LEA with a register: invalid */
		}
	}

	switch (entry & f_imm_mask) {
	case f_imm8:
		imm = 1;
		break;
	case f_immz:
		imm = (osz && !rexw) ? 2 : 4;
		break;
	case f_immv:
		imm = rexw ? 8 : osz ? 2 : 4;
		break;
	case f_imm16:
		imm = 2;
		break;
	default:
		break;
	}

	what = entry & f_what;
	switch (what) {
	case f_plain:
	case f_mem:
		break;
	case f_reg0:
		if (reg)
			return 0;
		break;
	case f_reg01:
		if (reg > 1)
			return 0;
		break;
	case f_shift:
		if (reg == 6)
			return 0;
		break;
	case f_reg47:
		if (reg < 4)
			return 0;
		break;
	case f_no66:
		if (osz)
			return 0;
		break;
	case f_grp3:
		/* TEST r/m, imm (/0; /1 is an alias left to Zydis). */
		if (reg == 1)
			return 0;
		if (!reg)
			imm = op == 0xf6 ? 1 : (osz && !rexw) ? 2 : 4;
		break;
	case f_grp5:
		if (reg == 2 || reg == 4) {
			if (osz)
				return 0;
			kind = reg == 2 ? ptd_ik_call_ind : ptd_ik_jmp_ind;
		} else if (reg == 3 || reg == 5 || reg == 7) {
			return 0; /* far CALL/JMP, invalid */
		}
		break;
	default:
		/* The branches: not with 0x66 (its effect on them differs
		 * between vendors). */
		if (osz)
			return 0;
		switch (what) {
		case f_jcc8:
		case f_jcc32:
			kind = ptd_ik_jcc;
			break;
		case f_jmp8:
		case f_jmp32:
			kind = ptd_ik_jmp_rel;
			break;
		case f_call32:
			kind = ptd_ik_call_rel;
			break;
		default: /* f_ret */
			kind = ptd_ik_ret;
			break;
		}
		break;
	}

	size = (size_t)(p - code) + imm;
	if (size > (size_t)(end - code))
		return 0;

	insn->size = (uint8_t)size;
	insn->kind = (uint8_t)kind;
	insn->is_direct = 0;
	insn->disp = 0;
	if (kind == ptd_ik_jcc || kind == ptd_ik_jmp_rel ||
	    kind == ptd_ik_call_rel) {
		const uint8_t *ip = p;

		insn->is_direct = 1;
		if (imm == 1) {
			insn->disp = (int8_t)ip[0];
		} else {
			uint32_t v = (uint32_t)ip[0] | (uint32_t)ip[1] << 8 |
			             (uint32_t)ip[2] << 16 |
			             (uint32_t)ip[3] << 24;

			insn->disp = (int32_t)v;
		}
	}
	return 1;
}
