/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: x86 instruction decoding (lib/ild) on arbitrary bytes.
 *
 * Input: byte 0 bits 1:0 select the mode (0: 16-bit, 1: 32-bit, 2: 64-bit,
 * 3: each of the three in turn); bit 2 also formats every instruction
 * (Intel and AT&T).  The rest is code, decoded at every offset.
 *
 * Checks: no crash or sanitizer report (every decode sees a buffer of
 * exactly the bytes it may read); a decoded instruction has a size of 1 to
 * 15 bytes, no more than were available; it decodes the same from exactly
 * its own bytes and not at all from one byte less; its class is the one
 * its kind implies (the table below, from docs/ild.md); only near relative
 * branches are direct and only they have a displacement; formatting
 * succeeds exactly where decoding does; ptem_unknown never decodes; the
 * result is the one Zydis alone gives (ptd_ild_decode_zydis(), without the
 * table for common 64-bit instructions, lib/ild/fast64.c). */
#include "fuzz_common.h"

#include "ild/ild.h"
#include "ild/ild_fast.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The class of every kind (docs/ild.md), written independently of the
 * library's own table. */
static enum pt_insn_class fuzz_ild_class(enum ptd_ild_kind kind)
{
	switch (kind) {
	case ptd_ik_call_rel:
	case ptd_ik_call_ind:
		return ptic_call;
	case ptd_ik_ret:
		return ptic_return;
	case ptd_ik_jmp_rel:
	case ptd_ik_jmp_ind:
		return ptic_jump;
	case ptd_ik_jcc:
		return ptic_cond_jump;
	case ptd_ik_call_far:
	case ptd_ik_int:
	case ptd_ik_syscall:
	case ptd_ik_sysenter:
	case ptd_ik_vmcall:
		return ptic_far_call;
	case ptd_ik_ret_far:
	case ptd_ik_iret:
	case ptd_ik_sysret:
	case ptd_ik_sysexit:
	case ptd_ik_vmlaunch:
	case ptd_ik_vmresume:
	case ptd_ik_uiret:
		return ptic_far_return;
	case ptd_ik_jmp_far:
		return ptic_far_jump;
	case ptd_ik_ptwrite:
		return ptic_ptwrite;
	case ptd_ik_other:
	case ptd_ik_vmptrld:
	case ptd_ik_mov_cr3:
		return ptic_other;
	}
	return ptic_unknown;
}

/* Decode @avail bytes copied from @code into a buffer of exactly that
 * size. */
static int fuzz_ild_decode(struct ptd_ild_ctx *ctx, struct ptd_ild *insn,
                           const uint8_t *code, size_t avail,
                           enum pt_exec_mode mode)
{
	uint8_t *copy = fuzz_alloc(avail);
	int status;

	memcpy(copy, code, avail);
	memset(insn, 0x5a, sizeof(*insn));
	status = ptd_ild_decode(ctx, insn, avail ? copy : NULL, avail, mode);
	free(copy);
	return status;
}

static void fuzz_ild_at(struct ptd_ild_ctx *ctx, const uint8_t *code,
                        size_t avail, enum pt_exec_mode mode, int format)
{
	struct ptd_ild insn, again;
	int status, other;

	status = fuzz_ild_decode(ctx, &insn, code, avail, mode);
	FUZZ_CHECK(status == 0 || status == -pte_bad_insn, "status %d", status);
	/* The table for common 64-bit instructions gives Zydis's result. */
	{
		uint8_t *copy = fuzz_alloc(avail);
		struct ptd_ild zonly;
		int zs;

		memcpy(copy, code, avail);
		memset(&zonly, 0x5a, sizeof(zonly));
		zs = ptd_ild_decode_zydis(ctx, &zonly, avail ? copy : NULL,
		                          avail, mode);
		free(copy);
		FUZZ_CHECK(
		        zs == status && (zs || memcmp(&zonly, &insn,
		                                      sizeof(insn)) == 0),
		        "ptd_ild_decode() %d size %u kind %u, Zydis alone %d "
		        "size %u kind %u",
		        status, insn.size, insn.kind, zs, zonly.size,
		        zonly.kind);
	}
	if (format) {
		char text[256];
		int fs = ptd_ild_format(ctx, text, sizeof(text), code, avail,
		                        mode, 0x1000, avail & 1);

		FUZZ_CHECK(fs == (status ? -pte_bad_insn : 0),
		           "format %d, decode %d", fs, status);
		if (!fs)
			FUZZ_CHECK(memchr(text, '\0', sizeof(text)) != NULL &&
			                   text[0] != '\0',
			           "text not terminated or empty");
	}
	if (status)
		return;

	FUZZ_CHECK(insn.size >= 1 && insn.size <= pt_max_insn_size &&
	                   insn.size <= avail,
	           "size %u, %zu available", insn.size, avail);
	FUZZ_CHECK(insn.kind <= ptd_ik_uiret, "kind %u", insn.kind);
	FUZZ_CHECK(insn.iclass == fuzz_ild_class(insn.kind),
	           "kind %u, class %u", insn.kind, insn.iclass);
	if (insn.kind == ptd_ik_call_rel || insn.kind == ptd_ik_jmp_rel ||
	    insn.kind == ptd_ik_jcc)
		FUZZ_CHECK(insn.is_direct == 1, "kind %u not direct",
		           insn.kind);
	else
		FUZZ_CHECK(insn.is_direct == 0 && insn.disp == 0,
		           "kind %u: direct %u, disp %d", insn.kind,
		           insn.is_direct, insn.disp);

	/* Exactly its own bytes are enough, one less is not. */
	other = fuzz_ild_decode(ctx, &again, code, insn.size, mode);
	FUZZ_CHECK(other == 0 && memcmp(&insn, &again, sizeof(insn)) == 0,
	           "decodes differently from its own %u bytes (%d)", insn.size,
	           other);
	other = fuzz_ild_decode(ctx, &again, code, insn.size - 1u, mode);
	FUZZ_CHECK(other == -pte_bad_insn, "decodes from %u bytes (%d)",
	           insn.size - 1u, other);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum pt_exec_mode modes[] = {ptem_16bit, ptem_32bit,
	                                          ptem_64bit};
	struct ptd_ild_ctx *ctx;
	struct ptd_ild insn;
	size_t pos, m, first, last;
	int format;

	if (size < 1)
		return 0;
	ctx = ptd_ild_alloc();
	FUZZ_CHECK(ctx != NULL, "allocation failed");
	format = (data[0] >> 2) & 1;
	first = data[0] & 3;
	last = first;
	if (first == 3) {
		first = 0;
		last = 2;
	}
	++data;
	--size;
	/* Inputs are small; bound the work anyway. */
	if (size > 4096)
		size = 4096;

	for (m = first; m <= last; ++m)
		for (pos = 0; pos <= size; ++pos)
			fuzz_ild_at(ctx, data + pos, size - pos, modes[m],
			            format);

	if (size)
		FUZZ_CHECK(fuzz_ild_decode(ctx, &insn, data, size,
		                           ptem_unknown) == -pte_bad_insn,
		           "ptem_unknown decodes");
	ptd_ild_free(ctx);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
