/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/ild: length, class, kind and displacement of hand-picked encodings in
 * every mode (expected values from the Intel SDM, volume 2), truncation,
 * bad bytes, API errors and the formatter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"

#include "ild/ild.h"

/* Modes as bits, for table rows valid in several modes. */
enum { M16 = 1 << 0, M32 = 1 << 1, M64 = 1 << 2, MALL = M16 | M32 | M64 };

struct ild_case {
	unsigned modes;
	uint8_t len; /* bytes in code */
	uint8_t code[15];
	uint8_t size; /* expected size */
	uint8_t iclass;
	uint8_t kind;
	uint8_t is_direct;
	int32_t disp;
};

#define B(...)                                                                 \
	sizeof((uint8_t[]){__VA_ARGS__}),                                      \
	{                                                                      \
		__VA_ARGS__                                                    \
	}

static const struct ild_case ild_cases[] = {
        /* Plain instructions. */
        {MALL, B(0x90), 1, ptic_other, ptd_ik_other, 0, 0},
        {MALL, B(0x89, 0xc0), 2, ptic_other, ptd_ik_other, 0, 0},
        {M64, B(0x48, 0x89, 0xe5), 3, ptic_other, ptd_ik_other, 0, 0},
        {M64, B(0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8), 10, ptic_other,
         ptd_ik_other, 0, 0},
        {M32, B(0xb8, 1, 2, 3, 4), 5, ptic_other, ptd_ik_other, 0, 0},
        {M16, B(0xb8, 1, 2), 3, ptic_other, ptd_ik_other, 0, 0},
        {M16, B(0x66, 0xb8, 1, 2, 3, 4), 6, ptic_other, ptd_ik_other, 0, 0},
        {M32, B(0x66, 0xb8, 1, 2), 4, ptic_other, ptd_ik_other, 0, 0},
        /* ModRM/SIB/disp forms, 16-bit addressing. */
        {M32 | M64, B(0x8b, 0x84, 0x24, 1, 2, 3, 4), 7, ptic_other,
         ptd_ik_other, 0, 0},
        {M16, B(0x8b, 0x87, 1, 2), 4, ptic_other, ptd_ik_other, 0, 0},
        {M16, B(0x8b, 0x06, 1, 2), 4, ptic_other, ptd_ik_other, 0, 0},
        {M32, B(0x67, 0x8b, 0x06, 1, 2), 5, ptic_other, ptd_ik_other, 0, 0},
        {M64, B(0x8b, 0x05, 1, 2, 3, 4), 6, ptic_other, ptd_ik_other, 0, 0},
        /* The longest legal instruction: 15 bytes. */
        {M64,
         B(0x2e, 0x2e, 0x2e, 0x48, 0x81, 0x84, 0x24, 1, 2, 3, 4, 5, 6, 7, 8),
         15, ptic_other, ptd_ik_other, 0, 0},
        {M64, B(0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00), 10,
         ptic_other, ptd_ik_other, 0, 0},
        {M64, B(0xf3, 0x0f, 0x1e, 0xfa), 4, ptic_other, ptd_ik_other, 0, 0},
        /* VEX, EVEX (maps 1, 2, 3, 5), in 32-bit mode too. */
        {M32 | M64, B(0xc5, 0xf8, 0x77), 3, ptic_other, ptd_ik_other, 0, 0},
        {M32 | M64, B(0xc4, 0xe2, 0x79, 0x00, 0xc0), 5, ptic_other,
         ptd_ik_other, 0, 0},
        {M32 | M64, B(0xc4, 0xe3, 0x79, 0x0f, 0xc0, 0x01), 6, ptic_other,
         ptd_ik_other, 0, 0},
        {M32 | M64, B(0x62, 0xf1, 0x7c, 0x48, 0x58, 0xc0), 6, ptic_other,
         ptd_ik_other, 0, 0},
        {M64, B(0x62, 0xf5, 0x7c, 0x48, 0x58, 0xc0), 6, ptic_other,
         ptd_ik_other, 0, 0},
        {M64, B(0x62, 0xf1, 0x7c, 0x48, 0x58, 0x80, 1, 2, 3, 4), 10, ptic_other,
         ptd_ik_other, 0, 0},
        /* LES/LDS/BOUND where VEX/EVEX would be in 64-bit mode. */
        {M32, B(0xc4, 0x00), 2, ptic_other, ptd_ik_other, 0, 0},
        {M32, B(0xc5, 0x00), 2, ptic_other, ptd_ik_other, 0, 0},
        {M32, B(0x62, 0x00), 2, ptic_other, ptd_ik_other, 0, 0},
        /* 0F 38 and 0F 3A maps. */
        {MALL, B(0x66, 0x0f, 0x38, 0x00, 0xc1), 5, ptic_other, ptd_ik_other, 0,
         0},
        {MALL, B(0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08), 6, ptic_other,
         ptd_ik_other, 0, 0},

        /* Near CALL. */
        {M32 | M64, B(0xe8, 0x10, 0, 0, 0), 5, ptic_call, ptd_ik_call_rel, 1,
         0x10},
        {M32 | M64, B(0xe8, 0xfb, 0xff, 0xff, 0xff), 5, ptic_call,
         ptd_ik_call_rel, 1, -5},
        {M16, B(0xe8, 0xfd, 0xff), 3, ptic_call, ptd_ik_call_rel, 1, -3},
        {M16, B(0x66, 0xe8, 0, 0, 1, 0), 6, ptic_call, ptd_ik_call_rel, 1,
         0x10000},
        {M32, B(0x66, 0xe8, 0x00, 0x80), 4, ptic_call, ptd_ik_call_rel, 1,
         -0x8000},
        /* Intel ignores 0x66 on near branches in 64-bit mode: rel32. */
        {M64, B(0x66, 0xe8, 0x00, 0x80, 0, 0), 6, ptic_call, ptd_ik_call_rel, 1,
         0x8000},
        {M64, B(0xf2, 0xe8, 1, 0, 0, 0), 6, ptic_call, ptd_ik_call_rel, 1,
         1}, /* BND */
        {MALL, B(0xff, 0xd0), 2, ptic_call, ptd_ik_call_ind, 0, 0},
        {M64, B(0x41, 0xff, 0xd3), 3, ptic_call, ptd_ik_call_ind, 0, 0},
        {M64, B(0xff, 0x15, 1, 2, 3, 4), 6, ptic_call, ptd_ik_call_ind, 0, 0},
        {M64, B(0x3e, 0xff, 0xd0), 3, ptic_call, ptd_ik_call_ind, 0,
         0}, /* NOTRACK */
        {M64, B(0xf2, 0xff, 0xd0), 3, ptic_call, ptd_ik_call_ind, 0, 0},
        {M32, B(0xff, 0x14, 0x85, 1, 2, 3, 4), 7, ptic_call, ptd_ik_call_ind, 0,
         0},
        /* Near RET. */
        {MALL, B(0xc3), 1, ptic_return, ptd_ik_ret, 0, 0},
        {MALL, B(0xc2, 0x08, 0x00), 3, ptic_return, ptd_ik_ret, 0, 0},
        {M64, B(0xf2, 0xc3), 2, ptic_return, ptd_ik_ret, 0, 0},
        {M64, B(0xf3, 0xc3), 2, ptic_return, ptd_ik_ret, 0, 0},
        {M64, B(0x66, 0xc3), 2, ptic_return, ptd_ik_ret, 0, 0},
        /* Near JMP. */
        {MALL, B(0xeb, 0xfe), 2, ptic_jump, ptd_ik_jmp_rel, 1, -2},
        {MALL, B(0xeb, 0x7f), 2, ptic_jump, ptd_ik_jmp_rel, 1, 127},
        {MALL, B(0xeb, 0x80), 2, ptic_jump, ptd_ik_jmp_rel, 1, -128},
        {M32 | M64, B(0xe9, 0, 0, 0, 0x80), 5, ptic_jump, ptd_ik_jmp_rel, 1,
         INT32_MIN},
        {M16, B(0xe9, 0xff, 0x7f), 3, ptic_jump, ptd_ik_jmp_rel, 1, 0x7fff},
        {M64, B(0x66, 0xe9, 1, 0, 0, 0), 6, ptic_jump, ptd_ik_jmp_rel, 1, 1},
        {M32, B(0x66, 0xe9, 1, 0), 4, ptic_jump, ptd_ik_jmp_rel, 1, 1},
        {M64, B(0xf2, 0xe9, 1, 0, 0, 0), 6, ptic_jump, ptd_ik_jmp_rel, 1, 1},
        {MALL, B(0xff, 0xe0), 2, ptic_jump, ptd_ik_jmp_ind, 0, 0},
        {M64, B(0x3e, 0xff, 0xe0), 3, ptic_jump, ptd_ik_jmp_ind, 0, 0},
        {M64, B(0x41, 0xff, 0x24, 0xc4), 4, ptic_jump, ptd_ik_jmp_ind, 0, 0},
        {M64, B(0xf2, 0xff, 0x25, 1, 2, 3, 4), 7, ptic_jump, ptd_ik_jmp_ind, 0,
         0},
        /* Jcc, LOOP, JrCXZ. */
        {MALL, B(0x74, 0x05), 2, ptic_cond_jump, ptd_ik_jcc, 1, 5},
        {MALL, B(0x7f, 0xf0), 2, ptic_cond_jump, ptd_ik_jcc, 1, -16},
        {M32 | M64, B(0x0f, 0x84, 0x10, 0, 0, 0), 6, ptic_cond_jump, ptd_ik_jcc,
         1, 0x10},
        {M16, B(0x0f, 0x8f, 0xfe, 0xff), 4, ptic_cond_jump, ptd_ik_jcc, 1, -2},
        {M16, B(0x66, 0x0f, 0x85, 0, 0, 2, 0), 7, ptic_cond_jump, ptd_ik_jcc, 1,
         0x20000},
        {M32, B(0x66, 0x0f, 0x85, 0xfe, 0xff), 5, ptic_cond_jump, ptd_ik_jcc, 1,
         -2},
        {M64, B(0x66, 0x0f, 0x85, 0xfe, 0xff, 0xff, 0xff), 7, ptic_cond_jump,
         ptd_ik_jcc, 1, -2},
        {M64, B(0x2e, 0x74, 0x02), 3, ptic_cond_jump, ptd_ik_jcc, 1,
         2}, /* branch hint */
        {M64, B(0x3e, 0x0f, 0x84, 0, 1, 0, 0), 7, ptic_cond_jump, ptd_ik_jcc, 1,
         0x100},
        {M64, B(0xf2, 0x75, 0x02), 3, ptic_cond_jump, ptd_ik_jcc, 1, 2},
        {M64, B(0x48, 0x0f, 0x84, 1, 0, 0, 0), 7, ptic_cond_jump, ptd_ik_jcc, 1,
         1},
        {MALL, B(0xe0, 0xfe), 2, ptic_cond_jump, ptd_ik_jcc, 1, -2},
        {MALL, B(0xe1, 0x10), 2, ptic_cond_jump, ptd_ik_jcc, 1, 0x10},
        {MALL, B(0xe2, 0xfc), 2, ptic_cond_jump, ptd_ik_jcc, 1, -4},
        {MALL, B(0xe3, 0x03), 2, ptic_cond_jump, ptd_ik_jcc, 1, 3},
        {MALL, B(0x67, 0xe3, 0x03), 3, ptic_cond_jump, ptd_ik_jcc, 1, 3},
        {MALL, B(0x67, 0xe2, 0x03), 3, ptic_cond_jump, ptd_ik_jcc, 1, 3},

        /* Far transfers. */
        {M32, B(0x9a, 1, 2, 3, 4, 5, 6), 7, ptic_far_call, ptd_ik_call_far, 0,
         0},
        {M16, B(0x9a, 1, 2, 3, 4), 5, ptic_far_call, ptd_ik_call_far, 0, 0},
        {M32, B(0x66, 0x9a, 1, 2, 3, 4), 6, ptic_far_call, ptd_ik_call_far, 0,
         0},
        {MALL, B(0xff, 0x18), 2, ptic_far_call, ptd_ik_call_far, 0, 0},
        {M64, B(0x48, 0xff, 0x1c, 0x24), 4, ptic_far_call, ptd_ik_call_far, 0,
         0},
        {M32, B(0xea, 1, 2, 3, 4, 5, 6), 7, ptic_far_jump, ptd_ik_jmp_far, 0,
         0},
        {M16, B(0xea, 1, 2, 3, 4), 5, ptic_far_jump, ptd_ik_jmp_far, 0, 0},
        {MALL, B(0xff, 0x28), 2, ptic_far_jump, ptd_ik_jmp_far, 0, 0},
        {M64, B(0xff, 0x2c, 0x24), 3, ptic_far_jump, ptd_ik_jmp_far, 0, 0},
        {MALL, B(0xcb), 1, ptic_far_return, ptd_ik_ret_far, 0, 0},
        {MALL, B(0xca, 0x10, 0x00), 3, ptic_far_return, ptd_ik_ret_far, 0, 0},
        {M64, B(0x48, 0xcb), 2, ptic_far_return, ptd_ik_ret_far, 0, 0},
        {MALL, B(0xcc), 1, ptic_far_call, ptd_ik_int, 0, 0},
        {MALL, B(0xcd, 0x80), 2, ptic_far_call, ptd_ik_int, 0, 0},
        {M16 | M32, B(0xce), 1, ptic_far_call, ptd_ik_int, 0, 0},
        {MALL, B(0xf1), 1, ptic_far_call, ptd_ik_int, 0, 0},
        {MALL, B(0xcf), 1, ptic_far_return, ptd_ik_iret, 0, 0},
        {M16 | M32, B(0x66, 0xcf), 2, ptic_far_return, ptd_ik_iret, 0, 0},
        {M64, B(0x48, 0xcf), 2, ptic_far_return, ptd_ik_iret, 0, 0},
        {M64, B(0x0f, 0x05), 2, ptic_far_call, ptd_ik_syscall, 0, 0},
        {M64, B(0x0f, 0x07), 2, ptic_far_return, ptd_ik_sysret, 0, 0},
        {M64, B(0x48, 0x0f, 0x07), 3, ptic_far_return, ptd_ik_sysret, 0, 0},
        {M16 | M32, B(0x0f, 0x34), 2, ptic_far_call, ptd_ik_sysenter, 0, 0},
        {M64, B(0x0f, 0x34), 2, ptic_far_call, ptd_ik_sysenter, 0, 0},
        {M32, B(0x0f, 0x35), 2, ptic_far_return, ptd_ik_sysexit, 0, 0},
        {M64, B(0x48, 0x0f, 0x35), 3, ptic_far_return, ptd_ik_sysexit, 0, 0},
        {M32 | M64, B(0x0f, 0x01, 0xc1), 3, ptic_far_call, ptd_ik_vmcall, 0, 0},
        {M32 | M64, B(0x0f, 0x01, 0xc2), 3, ptic_far_return, ptd_ik_vmlaunch, 0,
         0},
        {M32 | M64, B(0x0f, 0x01, 0xc3), 3, ptic_far_return, ptd_ik_vmresume, 0,
         0},
        {M64, B(0xf3, 0x0f, 0x01, 0xec), 4, ptic_far_return, ptd_ik_uiret, 0,
         0},
        /* FRED, which Zydis 4.0 does not know. */
        {M64, B(0xf2, 0x0f, 0x01, 0xca), 4, ptic_far_return, ptd_ik_iret, 0, 0},
        {M64, B(0xf3, 0x0f, 0x01, 0xca), 4, ptic_far_return, ptd_ik_iret, 0, 0},
        {M64, B(0xf3, 0x48, 0x0f, 0x01, 0xca), 5, ptic_far_return, ptd_ik_iret,
         0, 0},
        {M64, B(0x0f, 0x01, 0xca), 3, ptic_other, ptd_ik_other, 0,
         0}, /* CLAC */

        /* Other kinds the flow decoders look at. */
        {M32 | M64, B(0x0f, 0x01, 0xd9), 3, ptic_other, ptd_ik_other, 0,
         0}, /* VMMCALL */
        {M32 | M64, B(0x0f, 0xc7, 0x30), 3, ptic_other, ptd_ik_vmptrld, 0, 0},
        {M64, B(0x0f, 0xc7, 0x34, 0x24), 4, ptic_other, ptd_ik_vmptrld, 0, 0},
        {M32 | M64, B(0x66, 0x0f, 0xc7, 0x30), 4, ptic_other, ptd_ik_other, 0,
         0}, /* VMCLEAR */
        {M32 | M64, B(0xf3, 0x0f, 0xc7, 0x30), 4, ptic_other, ptd_ik_other, 0,
         0}, /* VMXON */
        {M64, B(0x0f, 0x22, 0xd8), 3, ptic_other, ptd_ik_mov_cr3, 0, 0},
        {M64, B(0x41, 0x0f, 0x22, 0xd8), 4, ptic_other, ptd_ik_mov_cr3, 0, 0},
        {M32, B(0x0f, 0x22, 0xd8), 3, ptic_other, ptd_ik_mov_cr3, 0, 0},
        {M64, B(0x0f, 0x22, 0xc0), 3, ptic_other, ptd_ik_other, 0, 0}, /* CR0 */
        {M64, B(0x44, 0x0f, 0x22, 0xc0), 4, ptic_other, ptd_ik_other, 0,
         0}, /* CR8 */
        {M64, B(0x0f, 0x20, 0xd8), 3, ptic_other, ptd_ik_other, 0,
         0}, /* MOV r, CR3 */
        {M32 | M64, B(0xf3, 0x0f, 0xae, 0xe0), 4, ptic_ptwrite, ptd_ik_ptwrite,
         0, 0},
        {M64, B(0xf3, 0x48, 0x0f, 0xae, 0xe0), 5, ptic_ptwrite, ptd_ik_ptwrite,
         0, 0},
        {M64, B(0xf3, 0x48, 0x0f, 0xae, 0x20), 5, ptic_ptwrite, ptd_ik_ptwrite,
         0, 0},
        {M32 | M64, B(0xf3, 0x0f, 0xae, 0x25, 1, 2, 3, 4), 8, ptic_ptwrite,
         ptd_ik_ptwrite, 0, 0},
        {M64, B(0x66, 0xf3, 0x0f, 0xae, 0xe0), 5, ptic_other, ptd_ik_other, 0,
         0}, /* 0x66: #UD */
        {M64, B(0x0f, 0xae, 0x20), 3, ptic_other, ptd_ik_other, 0,
         0}, /* XSAVE */
        /* Relative, but not a branch for the flow decoders. */
        {M32 | M64, B(0xc7, 0xf8, 1, 0, 0, 0), 6, ptic_other, ptd_ik_other, 0,
         0},                                                     /* XBEGIN */
        {M64, B(0x0f, 0x0b), 2, ptic_other, ptd_ik_other, 0, 0}, /* UD2 */
        {MALL, B(0xf4), 1, ptic_other, ptd_ik_other, 0, 0},      /* HLT */
};

static const enum pt_exec_mode ild_modes[] = {ptem_16bit, ptem_32bit,
                                              ptem_64bit};

static const char *ild_mode_name(enum pt_exec_mode mode)
{
	return mode == ptem_16bit ? "16" : mode == ptem_32bit ? "32" : "64";
}

/* Decode @code (copied to a buffer of exactly @avail bytes). */
static int ild_decode(struct ptd_ild_ctx *ctx, struct ptd_ild *insn,
                      const uint8_t *code, size_t avail, enum pt_exec_mode mode)
{
	uint8_t *copy = ptd_t_dup(code, avail);
	int status;

	memset(insn, 0xa5, sizeof(*insn));
	status = ptd_ild_decode(ctx, insn, copy, avail, mode);
	free(copy);
	return status;
}

static void test_table(void **state)
{
	struct ptd_ild_ctx *ctx = ptd_ild_alloc();
	size_t i, m;

	(void)state;
	assert_non_null(ctx);
	for (i = 0; i < sizeof(ild_cases) / sizeof(ild_cases[0]); ++i) {
		const struct ild_case *c = &ild_cases[i];

		for (m = 0; m < 3; ++m) {
			struct ptd_ild insn;
			int status;

			if (!(c->modes & (1u << m)))
				continue;
			status = ild_decode(ctx, &insn, c->code, c->len,
			                    ild_modes[m]);
			if (!c->size) {
				if (status != -pte_bad_insn)
					fail_msg("case %zu, %s-bit: %d", i,
					         ild_mode_name(ild_modes[m]),
					         status);
				continue;
			}
			if (status != 0 || insn.size != c->size ||
			    insn.iclass != c->iclass || insn.kind != c->kind ||
			    insn.is_direct != c->is_direct ||
			    insn.disp != c->disp)
				fail_msg("case %zu, %s-bit: status %d size "
				         "%u/%u class %u/%u kind %u/%u direct "
				         "%u/%u disp %d/%d",
				         i, ild_mode_name(ild_modes[m]), status,
				         insn.size, c->size, insn.iclass,
				         c->iclass, insn.kind, c->kind,
				         insn.is_direct, c->is_direct,
				         insn.disp, c->disp);
		}
	}
	ptd_ild_free(ctx);
}

/* Every kind appears in the table, and its class is the documented one. */
static void test_every_kind(void **state)
{
	unsigned seen = 0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ild_cases) / sizeof(ild_cases[0]); ++i)
		if (ild_cases[i].size)
			seen |= 1u << ild_cases[i].kind;
	assert_int_equal(seen, (1u << (ptd_ik_uiret + 1)) - 1);
}

/* Every instruction of the table cut short: -pte_bad_insn, never a read
 * past @avail (ASan checks that: the copy is exactly @avail bytes). */
static void test_truncated(void **state)
{
	struct ptd_ild_ctx *ctx = ptd_ild_alloc();
	size_t i, m, avail;

	(void)state;
	assert_non_null(ctx);
	for (i = 0; i < sizeof(ild_cases) / sizeof(ild_cases[0]); ++i) {
		const struct ild_case *c = &ild_cases[i];

		for (m = 0; m < 3; ++m) {
			if (!(c->modes & (1u << m)) || !c->size)
				continue;
			for (avail = 0; avail < c->size; ++avail) {
				struct ptd_ild insn;
				int status = ild_decode(ctx, &insn, c->code,
				                        avail, ild_modes[m]);

				/* A prefix of some instructions is itself an
				 * instruction (LES in 32-bit mode is not in
				 * the table); then it must be shorter. */
				if (status == 0 && insn.size <= avail)
					continue;
				if (status != -pte_bad_insn)
					fail_msg("case %zu, %s-bit, %zu bytes: "
					         "%d",
					         i, ild_mode_name(ild_modes[m]),
					         avail, status);
			}
		}
	}
	ptd_ild_free(ctx);
}

/* Bytes that are no instruction in some mode. */
static void test_bad(void **state)
{
	static const struct {
		unsigned modes;
		uint8_t len;
		uint8_t code[16];
	} bad[] = {
	        {M64, B(0x06)},                         /* PUSH ES */
	        {M64, B(0x9a, 1, 2, 3, 4, 5, 6)},       /* far CALL ptr */
	        {M64, B(0xea, 1, 2, 3, 4, 5, 6)},       /* far JMP ptr */
	        {M64, B(0xce)},                         /* INTO */
	        {M64, B(0xd5, 0x0a)},                   /* AAD / REX2 */
	        {MALL, B(0xff, 0xd8)},                  /* far CALL reg */
	        {MALL, B(0xff, 0xe8)},                  /* far JMP reg */
	        {MALL, B(0xff, 0xff)},                  /* FF /7 */
	        {MALL, B(0x0f, 0x0a)},                  /* undefined */
	        {M16 | M32, B(0xf2, 0x0f, 0x01, 0xca)}, /* ERETS */
	        {M64, B(0x44, 0x0f, 0x22, 0xd8)},       /* CR11 */
	        {M64, B(0xf0, 0x90)},                   /* LOCK NOP */
	        /* 16 bytes: longer than 15. */
	        {M64, B(0x2e, 0x2e, 0x2e, 0x2e, 0x48, 0x81, 0x84, 0x24, 1, 2, 3,
	                4, 5, 6, 7, 8)},
	        {MALL, B(0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
	                 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x90)},
	};
	struct ptd_ild_ctx *ctx = ptd_ild_alloc();
	size_t i, m;

	(void)state;
	assert_non_null(ctx);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
		for (m = 0; m < 3; ++m) {
			struct ptd_ild insn;
			int status;

			if (!(bad[i].modes & (1u << m)))
				continue;
			status = ild_decode(ctx, &insn, bad[i].code, bad[i].len,
			                    ild_modes[m]);
			if (status != -pte_bad_insn)
				fail_msg("bad %zu, %s-bit: %d (size %u)", i,
				         ild_mode_name(ild_modes[m]), status,
				         insn.size);
		}
	}
	ptd_ild_free(ctx);
}

static void test_api_errors(void **state)
{
	static const uint8_t nop[] = {0x90};
	struct ptd_ild_ctx *ctx = ptd_ild_alloc();
	struct ptd_ild insn;
	char text[64];

	(void)state;
	assert_non_null(ctx);
	assert_int_equal(ptd_ild_decode(NULL, &insn, nop, 1, ptem_64bit),
	                 -pte_invalid);
	assert_int_equal(ptd_ild_decode(ctx, NULL, nop, 1, ptem_64bit),
	                 -pte_invalid);
	assert_int_equal(ptd_ild_decode(ctx, &insn, NULL, 1, ptem_64bit),
	                 -pte_invalid);
	assert_int_equal(ptd_ild_decode(ctx, &insn, NULL, 0, ptem_64bit),
	                 -pte_bad_insn);
	assert_int_equal(ptd_ild_decode(ctx, &insn, nop, 1, ptem_unknown),
	                 -pte_bad_insn);
	assert_int_equal(
	        ptd_ild_decode(ctx, &insn, nop, 1, (enum pt_exec_mode)7),
	        -pte_bad_insn);
	assert_int_equal(ptd_ild_decode(ctx, &insn, nop, 1, ptem_64bit), 0);
	assert_int_equal(insn.size, 1);

	assert_int_equal(ptd_ild_format(NULL, text, sizeof(text), nop, 1,
	                                ptem_64bit, 0, 0),
	                 -pte_invalid);
	assert_int_equal(ptd_ild_format(ctx, NULL, sizeof(text), nop, 1,
	                                ptem_64bit, 0, 0),
	                 -pte_invalid);
	assert_int_equal(ptd_ild_format(ctx, text, 0, nop, 1, ptem_64bit, 0, 0),
	                 -pte_invalid);
	assert_int_equal(ptd_ild_format(ctx, text, sizeof(text), NULL, 1,
	                                ptem_64bit, 0, 0),
	                 -pte_invalid);
	assert_int_equal(ptd_ild_format(ctx, text, sizeof(text), nop, 1,
	                                ptem_unknown, 0, 0),
	                 -pte_bad_insn);
	/* Too small for the text. */
	assert_int_equal(ptd_ild_format(ctx, text, 2, nop, 1, ptem_64bit, 0, 0),
	                 -pte_invalid);
	ptd_ild_free(ctx);
	ptd_ild_free(NULL);
}

/* Branch targets: ip + size + disp in 64-bit arithmetic. */
static void test_branch_target(void **state)
{
	static const struct {
		enum pt_exec_mode mode;
		uint8_t len;
		uint8_t code[8];
		uint64_t ip, target;
	} cases[] = {
	        {ptem_64bit, B(0xe8, 0xfb, 0xff, 0xff, 0xff), 0x401000,
	         0x401000},
	        {ptem_64bit, B(0xeb, 0x10), 0x7ffff000, 0x7ffff012},
	        {ptem_64bit, B(0x66, 0xe9, 0, 0, 0, 0x80),
	         0xffffffff81000000ull, 0xffffffff01000006ull},
	        {ptem_32bit, B(0x0f, 0x84, 0, 0x10, 0, 0), 0x8048000,
	         0x8049006},
	        /* 16-bit operand size: no wrap at 64 KiB (see ild.h). */
	        {ptem_16bit, B(0xe9, 0x00, 0x80), 0x7c00, 0x7c00 + 3 - 0x8000},
	        {ptem_16bit, B(0xeb, 0x7f), 0xfff0, 0x10071},
	        {ptem_32bit, B(0x66, 0xe8, 0xff, 0x7f), 0x1000, 0x9003},
	};
	struct ptd_ild_ctx *ctx = ptd_ild_alloc();
	size_t i;

	(void)state;
	assert_non_null(ctx);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		struct ptd_ild insn;

		assert_int_equal(ild_decode(ctx, &insn, cases[i].code,
		                            cases[i].len, cases[i].mode),
		                 0);
		assert_true(insn.is_direct);
		assert_int_equal(ptd_ild_branch_target(&insn, cases[i].ip),
		                 cases[i].target);
	}
	ptd_ild_free(ctx);
}

static void test_format(void **state)
{
	static const struct {
		enum pt_exec_mode mode;
		uint8_t len;
		uint8_t code[8];
		uint64_t ip;
		int att;
		const char *text;
	} cases[] = {
	        {ptem_64bit, B(0x48, 0x89, 0xe5), 0, 0, "mov rbp, rsp"},
	        {ptem_64bit, B(0x48, 0x89, 0xe5), 0, 1, "mov %rsp, %rbp"},
	        {ptem_64bit, B(0xe8, 0xfb, 0xff, 0xff, 0xff), 0x401000, 0,
	         "call 0x0000000000401000"},
	        {ptem_32bit, B(0xeb, 0xfe), 0x1000, 0, "jmp 0x00001000"},
	        {ptem_16bit, B(0xc3), 0, 0, "ret"},
	        {ptem_64bit, B(0xf3, 0x0f, 0x01, 0xca), 0, 0, "eretu"},
	        {ptem_64bit, B(0xf2, 0x0f, 0x01, 0xca), 0, 1, "erets"},
	};
	struct ptd_ild_ctx *ctx = ptd_ild_alloc();
	size_t i;

	(void)state;
	assert_non_null(ctx);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		char text[96];
		uint8_t *copy = ptd_t_dup(cases[i].code, cases[i].len);

		assert_int_equal(ptd_ild_format(ctx, text, sizeof(text), copy,
		                                cases[i].len, cases[i].mode,
		                                cases[i].ip, cases[i].att),
		                 0);
		free(copy);
		assert_string_equal(text, cases[i].text);
	}
	{
		static const uint8_t bad[] = {0x06};
		char text[32];

		assert_int_equal(ptd_ild_format(ctx, text, sizeof(text), bad, 1,
		                                ptem_64bit, 0, 0),
		                 -pte_bad_insn);
	}
	ptd_ild_free(ctx);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_table),
	        cmocka_unit_test(test_every_kind),
	        cmocka_unit_test(test_truncated),
	        cmocka_unit_test(test_bad),
	        cmocka_unit_test(test_api_errors),
	        cmocka_unit_test(test_branch_target),
	        cmocka_unit_test(test_format),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
