/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: loading the trace named on the command line.
 *
 * The trace argument is <file>[:<from>[-<to>]]: the whole file, the bytes
 * from offset <from> to its end, or the bytes in [<from>, <to>).  As in
 * libipt's ptdump, the range is taken from the last ':' and only if what
 * follows it parses as a range; otherwise the ':' belongs to the file name. */
#ifndef PTDUMP_INPUT_H
#define PTDUMP_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A trace loaded into memory. */
struct ptdump_trace {
	/* The file name, without the range. */
	char *filename;
	/* The loaded bytes; offset 0 is file offset @from. */
	uint8_t *buffer;
	size_t size;
	/* The range: [@from, @to) of the file. */
	uint64_t from;
	uint64_t to;
	/* Set if the argument gave <to>. */
	uint32_t has_to : 1;
};

/* Split @arg into file name and range.  Returns 0, -1 if out of memory, or
 * -pte_invalid if the range is empty or reversed; a message went to @err. */
int ptdump_trace_parse(struct ptdump_trace *trace, const char *arg,
                       const char *prog, FILE *err);

/* Load the range of the file that ptdump_trace_parse() found.  Returns 0 or
 * -1; a message went to @err. */
int ptdump_trace_load(struct ptdump_trace *trace, const char *prog, FILE *err);

/* Release what @trace holds (safe after a failed parse or load). */
void ptdump_trace_fini(struct ptdump_trace *trace);

#endif /* PTDUMP_INPUT_H */
