/* SPDX-License-Identifier: BSD-3-Clause */
/* x86 instruction length, class and branch displacement with Zydis 4; see
 * ild.h and docs/ild.md.
 *
 * Zydis finds the length and the mnemonic in its minimal mode (no operand
 * decoding, which costs more than the rest); the class follows from the
 * mnemonic, the opcode and the raw ModRM and prefix bytes, all of which
 * minimal mode provides.  tests/unit/test_ild_corpus.c checks on a large
 * instruction corpus and on random bytes that minimal and full mode agree
 * on validity and length.  In 64-bit code ptd_ild_decode() first tries the
 * table of fast64.c, which gives the same results for the instructions it
 * takes (the same test checks that too). */
#include "ild/ild.h"
#include "ild/ild_fast.h"

#include <Zydis/Zydis.h>

#include <stdlib.h>
#include <string.h>

/* The three machine modes in the order of enum pt_exec_mode (ptem_16bit is
 * 1). */
enum { PTD_ILD_MODES = 3 };

struct ptd_ild_ctx {
	/* Minimal-mode decoders for ptd_ild_decode(). */
	ZydisDecoder minimal[PTD_ILD_MODES];
	/* Full decoders for ptd_ild_format(). */
	ZydisDecoder full[PTD_ILD_MODES];
	ZydisFormatter intel;
	ZydisFormatter att;
};

static int ptd_ild_init_decoder(ZydisDecoder *decoder, int index, int minimal)
{
	static const ZydisMachineMode machine[PTD_ILD_MODES] = {
	        ZYDIS_MACHINE_MODE_LEGACY_16, ZYDIS_MACHINE_MODE_LEGACY_32,
	        ZYDIS_MACHINE_MODE_LONG_64};
	static const ZydisStackWidth stack[PTD_ILD_MODES] = {
	        ZYDIS_STACK_WIDTH_16, ZYDIS_STACK_WIDTH_32,
	        ZYDIS_STACK_WIDTH_64};

	if (!ZYAN_SUCCESS(
	            ZydisDecoderInit(decoder, machine[index], stack[index])))
		return -1;
	/* Intel's branches (0x66 ignored on near branches in 64-bit mode) are
	 * Zydis's default; make the choice explicit. */
	if (!ZYAN_SUCCESS(ZydisDecoderEnableMode(
	            decoder, ZYDIS_DECODER_MODE_AMD_BRANCHES, ZYAN_FALSE)))
		return -1;
	if (!ZYAN_SUCCESS(
	            ZydisDecoderEnableMode(decoder, ZYDIS_DECODER_MODE_MINIMAL,
	                                   minimal ? ZYAN_TRUE : ZYAN_FALSE)))
		return -1;
	return 0;
}

struct ptd_ild_ctx *ptd_ild_alloc(void)
{
	struct ptd_ild_ctx *ctx = calloc(1, sizeof(*ctx));
	int i;

	if (!ctx)
		return NULL;
	for (i = 0; i < PTD_ILD_MODES; ++i) {
		if (ptd_ild_init_decoder(&ctx->minimal[i], i, 1) < 0 ||
		    ptd_ild_init_decoder(&ctx->full[i], i, 0) < 0)
			goto fail;
	}
	if (!ZYAN_SUCCESS(ZydisFormatterInit(&ctx->intel,
	                                     ZYDIS_FORMATTER_STYLE_INTEL)) ||
	    !ZYAN_SUCCESS(
	            ZydisFormatterInit(&ctx->att, ZYDIS_FORMATTER_STYLE_ATT)))
		goto fail;
	return ctx;

fail:
	free(ctx);
	return NULL;
}

void ptd_ild_free(struct ptd_ild_ctx *ctx)
{
	free(ctx);
}

/* The decoder index of @mode, or -1 for ptem_unknown and bad values. */
static int ptd_ild_mode_index(enum pt_exec_mode mode)
{
	switch (mode) {
	case ptem_16bit:
		return 0;
	case ptem_32bit:
		return 1;
	case ptem_64bit:
		return 2;
	case ptem_unknown:
		break;
	}
	return -1;
}

/* Whether @zi carries an operand-size prefix (0x66). */
static int ptd_ild_has_osz(const ZydisDecodedInstruction *zi)
{
	ZyanU8 i;

	for (i = 0;
	     i < zi->raw.prefix_count && i < ZYDIS_MAX_INSTRUCTION_LENGTH;
	     ++i) {
		if (zi->raw.prefixes[i].value == 0x66)
			return 1;
	}
	return 0;
}

/* The kind of the CALL or JMP @zi: relative, far or indirect. */
static enum ptd_ild_kind ptd_ild_call_jmp(const ZydisDecodedInstruction *zi,
                                          enum ptd_ild_kind rel,
                                          enum ptd_ild_kind far,
                                          enum ptd_ild_kind ind)
{
	/* ZYDIS_ATTRIB_IS_RELATIVE is also set for RIP-relative memory
	 * operands (CALL [rip + disp]); the immediate tells a rel8/16/32. */
	if (zi->raw.imm[0].is_relative)
		return rel;
	if (zi->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
		return far;
	return ind;
}

/* The kind of the instruction Zydis decoded into @zi. */
static enum ptd_ild_kind ptd_ild_kind_of(const ZydisDecodedInstruction *zi)
{
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_CALL:
		return ptd_ild_call_jmp(zi, ptd_ik_call_rel, ptd_ik_call_far,
		                        ptd_ik_call_ind);
	case ZYDIS_MNEMONIC_JMP:
		return ptd_ild_call_jmp(zi, ptd_ik_jmp_rel, ptd_ik_jmp_far,
		                        ptd_ik_jmp_ind);
	case ZYDIS_MNEMONIC_RET:
		return zi->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR
		               ? ptd_ik_ret_far
		               : ptd_ik_ret;
	case ZYDIS_MNEMONIC_JB:
	case ZYDIS_MNEMONIC_JBE:
	case ZYDIS_MNEMONIC_JL:
	case ZYDIS_MNEMONIC_JLE:
	case ZYDIS_MNEMONIC_JNB:
	case ZYDIS_MNEMONIC_JNBE:
	case ZYDIS_MNEMONIC_JNL:
	case ZYDIS_MNEMONIC_JNLE:
	case ZYDIS_MNEMONIC_JNO:
	case ZYDIS_MNEMONIC_JNP:
	case ZYDIS_MNEMONIC_JNS:
	case ZYDIS_MNEMONIC_JNZ:
	case ZYDIS_MNEMONIC_JO:
	case ZYDIS_MNEMONIC_JP:
	case ZYDIS_MNEMONIC_JS:
	case ZYDIS_MNEMONIC_JZ:
	case ZYDIS_MNEMONIC_JCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_JRCXZ:
	case ZYDIS_MNEMONIC_LOOP:
	case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE:
		/* The legacy-map Jcc only: Zydis's KNC mode (off) would
		 * decode VEX mask branches with these mnemonics. */
		return zi->encoding == ZYDIS_INSTRUCTION_ENCODING_LEGACY
		               ? ptd_ik_jcc
		               : ptd_ik_other;
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
		return ptd_ik_int;
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
		return ptd_ik_iret;
	case ZYDIS_MNEMONIC_SYSCALL:
		return ptd_ik_syscall;
	case ZYDIS_MNEMONIC_SYSRET:
		return ptd_ik_sysret;
	case ZYDIS_MNEMONIC_SYSENTER:
		return ptd_ik_sysenter;
	case ZYDIS_MNEMONIC_SYSEXIT:
		return ptd_ik_sysexit;
	case ZYDIS_MNEMONIC_VMLAUNCH:
		return ptd_ik_vmlaunch;
	case ZYDIS_MNEMONIC_VMRESUME:
		return ptd_ik_vmresume;
	case ZYDIS_MNEMONIC_VMCALL:
		return ptd_ik_vmcall;
	case ZYDIS_MNEMONIC_VMPTRLD:
		return ptd_ik_vmptrld;
	case ZYDIS_MNEMONIC_UIRET:
		return ptd_ik_uiret;
	case ZYDIS_MNEMONIC_PTWRITE:
		/* 0x66 makes PTWRITE #UD; libipt calls it other. */
		return ptd_ild_has_osz(zi) ? ptd_ik_other : ptd_ik_ptwrite;
	case ZYDIS_MNEMONIC_MOV:
		/* MOV CR, r is 0F 22 /r; CR3 is reg 3 without REX.R (which
		 * would make it CR11, which Zydis rejects anyway). */
		if (zi->opcode_map == ZYDIS_OPCODE_MAP_0F &&
		    zi->opcode == 0x22 && zi->raw.modrm.reg == 3 &&
		    !zi->raw.rex.R)
			return ptd_ik_mov_cr3;
		return ptd_ik_other;
	default:
		return ptd_ik_other;
	}
}

/* The class of each kind, as libipt classifies those instructions. */
static const uint8_t ptd_ild_class[] = {
        [ptd_ik_other] = ptic_other,
        [ptd_ik_call_rel] = ptic_call,
        [ptd_ik_call_ind] = ptic_call,
        [ptd_ik_ret] = ptic_return,
        [ptd_ik_jmp_rel] = ptic_jump,
        [ptd_ik_jmp_ind] = ptic_jump,
        [ptd_ik_jcc] = ptic_cond_jump,
        [ptd_ik_call_far] = ptic_far_call,
        [ptd_ik_jmp_far] = ptic_far_jump,
        [ptd_ik_ret_far] = ptic_far_return,
        [ptd_ik_int] = ptic_far_call,
        [ptd_ik_iret] = ptic_far_return,
        [ptd_ik_syscall] = ptic_far_call,
        [ptd_ik_sysret] = ptic_far_return,
        [ptd_ik_sysenter] = ptic_far_call,
        [ptd_ik_sysexit] = ptic_far_return,
        [ptd_ik_vmlaunch] = ptic_far_return,
        [ptd_ik_vmresume] = ptic_far_return,
        [ptd_ik_vmcall] = ptic_far_call,
        [ptd_ik_vmptrld] = ptic_other,
        [ptd_ik_mov_cr3] = ptic_other,
        [ptd_ik_ptwrite] = ptic_ptwrite,
        [ptd_ik_uiret] = ptic_far_return,
};

/* Whether @byte is a legacy prefix (groups 1 to 4). */
static int ptd_ild_is_legacy_prefix(uint8_t byte)
{
	switch (byte) {
	case 0x26:
	case 0x2e:
	case 0x36:
	case 0x3e:
	case 0x64:
	case 0x65:
	case 0x66:
	case 0x67:
	case 0xf0:
	case 0xf2:
	case 0xf3:
		return 1;
	default:
		return 0;
	}
}

/* FRED's ERETS (F2 0F 01 CA) and ERETU (F3 0F 01 CA), 64-bit mode only,
 * which Zydis 4.0 does not know (the last of F2/F3 decides which, as for
 * other mandatory prefixes).  Returns the length and stores that prefix in
 * @last_rep, or returns 0 if @code does not hold one. */
static size_t ptd_ild_eret_size(const uint8_t *code, size_t avail,
                                uint8_t *last_rep)
{
	size_t pos = 0;
	uint8_t rep = 0;

	if (avail > ZYDIS_MAX_INSTRUCTION_LENGTH)
		avail = ZYDIS_MAX_INSTRUCTION_LENGTH;
	while (pos < avail && ptd_ild_is_legacy_prefix(code[pos])) {
		if (code[pos] == 0xf2 || code[pos] == 0xf3)
			rep = code[pos];
		++pos;
	}
	if (pos < avail && (code[pos] & 0xf0) == 0x40)
		++pos; /* REX */
	if (!rep || avail < 3 || pos > avail - 3)
		return 0;
	if (code[pos] != 0x0f || code[pos + 1] != 0x01 || code[pos + 2] != 0xca)
		return 0;
	*last_rep = rep;
	return pos + 3;
}

int ptd_ild_decode(struct ptd_ild_ctx *ctx, struct ptd_ild *insn,
                   const uint8_t *code, size_t avail, enum pt_exec_mode mode)
{
	if (mode == ptem_64bit && ctx && insn && code &&
	    ptd_ild_fast64(insn, code, avail)) {
		insn->iclass = ptd_ild_class[insn->kind];
		return 0;
	}
	return ptd_ild_decode_zydis(ctx, insn, code, avail, mode);
}

int ptd_ild_decode_zydis(struct ptd_ild_ctx *ctx, struct ptd_ild *insn,
                         const uint8_t *code, size_t avail,
                         enum pt_exec_mode mode)
{
	ZydisDecodedInstruction zi;
	enum ptd_ild_kind kind;
	int index;

	if (!ctx || !insn || (!code && avail))
		return -pte_invalid;
	index = ptd_ild_mode_index(mode);
	if (index < 0)
		return -pte_bad_insn;
	if (avail > ZYDIS_MAX_INSTRUCTION_LENGTH)
		avail = ZYDIS_MAX_INSTRUCTION_LENGTH;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
	            &ctx->minimal[index], NULL, code, avail, &zi))) {
		uint8_t rep;
		size_t size = mode == ptem_64bit
		                      ? ptd_ild_eret_size(code, avail, &rep)
		                      : 0;

		if (!size)
			return -pte_bad_insn;
		insn->size = (uint8_t)size;
		insn->kind = ptd_ik_iret;
		insn->iclass = ptic_far_return;
		insn->is_direct = 0;
		insn->disp = 0;
		return 0;
	}

	kind = ptd_ild_kind_of(&zi);
	insn->size = zi.length;
	insn->kind = (uint8_t)kind;
	insn->iclass = ptd_ild_class[kind];
	insn->is_direct = 0;
	insn->disp = 0;
	if (kind == ptd_ik_call_rel || kind == ptd_ik_jmp_rel ||
	    kind == ptd_ik_jcc) {
		insn->is_direct = 1;
		insn->disp = (int32_t)zi.raw.imm[0].value.s;
	}
	return 0;
}

int ptd_ild_format(struct ptd_ild_ctx *ctx, char *buffer, size_t size,
                   const uint8_t *code, size_t avail, enum pt_exec_mode mode,
                   uint64_t ip, int att)
{
	ZydisDecodedOperand operands[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction zi;
	int index;

	if (!ctx || !buffer || !size || (!code && avail))
		return -pte_invalid;
	index = ptd_ild_mode_index(mode);
	if (index < 0)
		return -pte_bad_insn;
	if (avail > ZYDIS_MAX_INSTRUCTION_LENGTH)
		avail = ZYDIS_MAX_INSTRUCTION_LENGTH;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&ctx->full[index], code, avail,
	                                         &zi, operands))) {
		static const char erets[] = "erets", eretu[] = "eretu";
		uint8_t rep;
		size_t eret = mode == ptem_64bit
		                      ? ptd_ild_eret_size(code, avail, &rep)
		                      : 0;

		if (!eret)
			return -pte_bad_insn;
		if (size < sizeof(erets))
			return -pte_invalid;
		memcpy(buffer, rep == 0xf2 ? erets : eretu, sizeof(erets));
		return 0;
	}

	if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(
	            att ? &ctx->att : &ctx->intel, &zi, operands,
	            zi.operand_count_visible, buffer, size, ip, NULL)))
		return -pte_invalid;
	return 0;
}
