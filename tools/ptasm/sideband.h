/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: perf_event sideband files ("pevent" directives), for the --pevent
 * options of ptdump and ptxed.  See docs/ptasm.md, "Sideband". */
#ifndef PTASM_SIDEBAND_H
#define PTASM_SIDEBAND_H

#include "diag.h"
#include "lexer.h"
#include "program.h"

#include <stddef.h>
#include <stdint.h>

/* Parse the rest of a "pevent" line from @lexer: the start of a sideband
 * file or one of its records.  For a record, *@file is its file's index
 * plus one and *@rec its index in the file (for a label); for a file
 * start, *@file is 0.  Returns 0, or -1 after reporting an error. */
int ptasm_sb_parse(struct ptasm_program *program, struct ptasm_lexer *lexer,
                   struct ptasm_diag *diag, unsigned line, size_t *file,
                   size_t *rec);

/* One sideband file as written: its bytes and the offset of each record
 * (offsets[nrecs] is the size). */
struct ptasm_sb_out {
	uint8_t *data;
	size_t size;
	uint64_t *offsets;
};

/* Write the records of each sideband file of @program into @out (an array
 * of program->nsb entries, allocated here), with @binname as the file name
 * of the MMAPs of the code.  Returns 0, or -1 after reporting an error. */
int ptasm_sb_encode(const struct ptasm_program *program, const char *binname,
                    struct ptasm_sb_out **out, struct ptasm_diag *diag);

/* Free @n files of @out. */
void ptasm_sb_out_free(struct ptasm_sb_out *out, size_t n);

#endif /* PTASM_SIDEBAND_H */
