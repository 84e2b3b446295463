/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: writing the expected output and the arguments of a tool. */
#ifndef PTASM_EXPECT_H
#define PTASM_EXPECT_H

#include "diag.h"
#include "encode.h"
#include "program.h"

#include <stdint.h>
#include <stdio.h>

/* The part of the trace file the tools are given ("; range:"). */
struct ptasm_range {
	int has_from, has_to;
	uint64_t from, to;
};

/* Resolve the "; range:" of @program against @trace into @range.  Returns 0,
 * or -1 after reporting an error. */
int ptasm_resolve_range(const struct ptasm_program *program,
                        const struct ptasm_trace *trace,
                        struct ptasm_range *range, struct ptasm_diag *diag);

/* Write the expect block of @tool to @out, one line each, replacing
 *   %<label>   by the label's offset as 16 hex digits,
 *   %%<label>  by the label's offset in hex without leading zeros,
 *   %?<label>[.<n>]  by 16 characters: the low n bytes in hex, '?' for the
 *              others (n from 0 to 8, default 8),
 *   %@<label>  (also with %% and %?) only a label of the x86 code,
 * where offsets count from the start of @range and the label "eos" is the
 * end of the trace; a label of the x86 code is replaced by its address.
 * Returns 0, or -1 after reporting errors. */
int ptasm_write_expect(FILE *out, const struct ptasm_tool *tool,
                       const struct ptasm_program *program,
                       const struct ptasm_trace *trace,
                       const struct ptasm_range *range,
                       struct ptasm_diag *diag);

/* Write the command-line arguments for @tool to @out, one per line: the
 * "; opt:" arguments, for ptdump and ptxed the sideband files named
 * @sbnames (program->nsb of them, each with its --pevent:* settings),
 * "--cpu <cpu>" for a "; cpu:" line, and last the trace file @ptfile with
 * the range as ":<from>[-<to>]".  For ptxed, the code image comes first
 * ("--raw <binfile>:<org>"), and "--no-inst --pt" before the trace file.
 * Returns 0, or -1 if writing fails. */
int ptasm_write_args(FILE *out, const struct ptasm_tool *tool,
                     const struct ptasm_program *program, const char *ptfile,
                     const char *binfile, char *const *sbnames,
                     const struct ptasm_range *range);

#endif /* PTASM_EXPECT_H */
