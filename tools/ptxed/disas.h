/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: instruction decoding for printing, block walking and --check, on
 * top of ptdecode's instruction decoder (lib/ild, Zydis). */
#ifndef PTXED_DISAS_H
#define PTXED_DISAS_H

#include "intel-pt.h"

#include <stddef.h>
#include <stdint.h>

struct ptd_ild_ctx;

/* What ptxed needs to know about one instruction. */
struct ptxed_insn_info {
	uint8_t size;
	uint8_t iclass; /* enum pt_insn_class */
	/* The IP of the next instruction if control goes on inside a block:
	 * after the instruction, or at the target of a direct jump or call. */
	uint64_t next_ip;
};

/* Allocate and free the decoding context.  Returns NULL if out of memory. */
struct ptd_ild_ctx *ptxed_disas_alloc(void);
void ptxed_disas_free(struct ptd_ild_ctx *ctx);

/* Decode the instruction at @ip from @code (@avail bytes).  Returns 0 or a
 * negative pt_error_code. */
int ptxed_disas_decode(struct ptd_ild_ctx *ctx, struct ptxed_insn_info *info,
                       const uint8_t *code, size_t avail,
                       enum pt_exec_mode mode, uint64_t ip);

/* Disassemble into @buf.  Returns 0 or a negative pt_error_code. */
int ptxed_disas_format(struct ptd_ild_ctx *ctx, char *buf, size_t size,
                       const uint8_t *code, size_t avail,
                       enum pt_exec_mode mode, uint64_t ip, int att);

#endif /* PTXED_DISAS_H */
