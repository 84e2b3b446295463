/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: turning the statements of a program into trace bytes. */
#ifndef PTASM_ENCODE_H
#define PTASM_ENCODE_H

#include "diag.h"
#include "program.h"
#include "sideband.h"

#include <stddef.h>
#include <stdint.h>

/* The encoded trace. */
struct ptasm_trace {
	/* The trace bytes (owned). */
	uint8_t *data;
	size_t size;

	/* The offset of every statement; offsets[nstmts] is the size. */
	uint64_t *offsets;
	size_t noffsets;

	/* The sideband files (sideband.h; owned), one per "pevent primary"
	 * or "pevent secondary". */
	struct ptasm_sb_out *sb;
	size_t nsb;
};

/* Encode the statements of @program: packets with the library's
 * pt_enc_next(), raw bytes as they are.  Returns 0 with the result in @trace,
 * or -1 after reporting errors. */
int ptasm_encode(const struct ptasm_program *program, struct ptasm_diag *diag,
                 struct ptasm_trace *trace);

/* Free what @trace owns and clear it. */
void ptasm_trace_free(struct ptasm_trace *trace);

/* Return the offset of the label @label in @trace (for a label of a
 * sideband record, its offset in its file). */
uint64_t ptasm_label_offset(const struct ptasm_trace *trace,
                            const struct ptasm_label *label);

#endif /* PTASM_ENCODE_H */
