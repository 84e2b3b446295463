/* SPDX-License-Identifier: BSD-3-Clause
 *
 * x86 instruction length decoding and classification for the flow decoders
 * (internal interface of lib/ild).  Backed by Zydis 4.
 */

#ifndef PTD_ILD_H
#define PTD_ILD_H

#include "intel-pt.h"

#include <stddef.h>
#include <stdint.h>

/* The fine-grained kind of an instruction: what the flow decoders need
 * beyond enum pt_insn_class (which events bind to it, whether it needs
 * trace). */
enum ptd_ild_kind {
	ptd_ik_other,    /* no change of control flow */
	ptd_ik_call_rel, /* near CALL rel16/rel32 */
	ptd_ik_call_ind, /* near CALL r/m */
	ptd_ik_ret,      /* near RET, RET imm16 */
	ptd_ik_jmp_rel,  /* near JMP rel8/rel16/rel32 */
	ptd_ik_jmp_ind,  /* near JMP r/m */
	ptd_ik_jcc,      /* Jcc, LOOP, LOOPcc, JrCXZ */
	ptd_ik_call_far, /* far CALL, direct or indirect */
	ptd_ik_jmp_far,  /* far JMP, direct or indirect */
	ptd_ik_ret_far,  /* far RET */
	ptd_ik_int,      /* INT n, INT3, INTO, INT1 */
	ptd_ik_iret,     /* IRET, IRETD, IRETQ; ERETS, ERETU (FRED) */
	ptd_ik_syscall,  /* SYSCALL */
	ptd_ik_sysret,   /* SYSRET */
	ptd_ik_sysenter, /* SYSENTER */
	ptd_ik_sysexit,  /* SYSEXIT */
	ptd_ik_vmlaunch, /* VMLAUNCH */
	ptd_ik_vmresume, /* VMRESUME */
	ptd_ik_vmcall,   /* VMCALL (AMD VMMCALL: ptd_ik_other, as libipt) */
	ptd_ik_vmptrld,  /* VMPTRLD */
	ptd_ik_mov_cr3,  /* MOV CR3, r */
	ptd_ik_ptwrite,  /* PTWRITE */
	ptd_ik_uiret     /* UIRET */
};

/* One decoded instruction.  See docs/ild.md for the class of every kind.
 *
 * is_direct is set for the near relative branches only (ptd_ik_call_rel,
 * ptd_ik_jmp_rel, ptd_ik_jcc); like libipt, far direct CALL/JMP ptr16:16/32
 * are not direct (their target comes from the trace).  disp is the sign-
 * extended rel8/rel16/rel32 of a direct branch (0 otherwise); the target is
 * ptd_ild_branch_target(). */
struct ptd_ild {
	uint8_t size;      /* length in bytes, 1..15 */
	uint8_t iclass;    /* enum pt_insn_class */
	uint8_t kind;      /* enum ptd_ild_kind */
	uint8_t is_direct; /* branch with the target in the instruction */
	int32_t disp;      /* near relative branch: ip + size + disp */
};

/* The target of the direct branch @insn at @ip: ip + size + disp in 64-bit
 * arithmetic, in every mode, as libipt computes it.  With a 16-bit operand
 * size (16-bit code, or 0x66 in 32-bit code) the CPU wraps the offset
 * within the 64 KiB code segment; trace IPs are linear addresses and the
 * code segment's base is not known, so neither we nor libipt wrap.  (In
 * 64-bit mode, 0x66 does not shorten a near branch on Intel CPUs: rel32.) */
static inline uint64_t ptd_ild_branch_target(const struct ptd_ild *insn,
                                             uint64_t ip)
{
	return ip + insn->size + (uint64_t)(int64_t)insn->disp;
}

/* Decoding context: one per decoder, never shared between threads. */
struct ptd_ild_ctx;

/* Allocate and free a decoding context.  Returns NULL if memory runs out. */
struct ptd_ild_ctx *ptd_ild_alloc(void);
void ptd_ild_free(struct ptd_ild_ctx *ctx);

/* Decode the instruction at @code (@avail bytes readable) in @mode into
 * @insn.  Returns 0, -pte_bad_insn if the bytes are not a valid instruction
 * or it does not fit in @avail bytes, -pte_bad_insn for ptem_unknown, or
 * -pte_invalid for NULL arguments (@code may be NULL if @avail is 0).
 * Reads nothing beyond code[min(avail, 15) - 1]; a decode that succeeds
 * with @avail bytes gives the same result with more, and none with fewer
 * than its size.  @insn is not written on errors. */
int ptd_ild_decode(struct ptd_ild_ctx *ctx, struct ptd_ild *insn,
                   const uint8_t *code, size_t avail, enum pt_exec_mode mode);

/* Write the disassembly of the instruction at @code (at address @ip) as a
 * NUL-terminated line into @buffer (Intel syntax; AT&T if @att).  Returns
 * 0, -pte_bad_insn, or -pte_invalid (also when @size is too small). */
int ptd_ild_format(struct ptd_ild_ctx *ctx, char *buffer, size_t size,
                   const uint8_t *code, size_t avail, enum pt_exec_mode mode,
                   uint64_t ip, int att);

#endif /* PTD_ILD_H */
