/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/ild's decoders behind ptd_ild_decode(): the table-driven one for the
 * commonest instructions of 64-bit code (fast64.c) and Zydis (ild.c). */
#ifndef PTD_ILD_FAST_H
#define PTD_ILD_FAST_H

#include "ild/ild.h"

#include <stddef.h>
#include <stdint.h>

/* Decode the instruction at @code (@avail bytes readable) in 64-bit mode
 * into @insn (size, kind, is_direct, disp; not the class) if it is one of
 * the instructions fast64.c knows: returns 1; else returns 0 and leaves
 * @insn alone (Zydis decides).  Reads at most min(@avail, 15) bytes. */
int ptd_ild_fast64(struct ptd_ild *insn, const uint8_t *code, size_t avail);

/* ptd_ild_decode() with Zydis only (for tests that compare the two). */
int ptd_ild_decode_zydis(struct ptd_ild_ctx *ctx, struct ptd_ild *insn,
                         const uint8_t *code, size_t avail,
                         enum pt_exec_mode mode);

#endif /* PTD_ILD_FAST_H */
