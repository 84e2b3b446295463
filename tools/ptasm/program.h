/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: the in-memory form of a parsed .pta file.
 *
 * The parser (parser.c) fills a struct ptasm_program; the encoder (encode.c)
 * turns its statements into trace bytes and label offsets; the expectation
 * writer (expect.c) writes the expected tool output and the tool arguments. */
#ifndef PTASM_PROGRAM_H
#define PTASM_PROGRAM_H

#include "ptdecode/intel-pt.h"

#include <stddef.h>
#include <stdint.h>

/* What a statement puts into the trace. */
enum ptasm_stmt_kind {
	/* One packet, encoded with pt_enc_next(), @count times. */
	PTASM_STMT_PACKET,
	/* Bytes copied verbatim (raw, fill). */
	PTASM_STMT_BYTES
};

/* One directive that produces trace bytes. */
struct ptasm_stmt {
	/* The source line. */
	unsigned line;

	enum ptasm_stmt_kind kind;

	/* PTASM_STMT_PACKET: the packet and how often to repeat it. */
	struct pt_packet packet;
	unsigned count;

	/* PTASM_STMT_BYTES: the bytes (owned). */
	uint8_t *bytes;
	size_t nbytes;

	/* An IP packet whose IP names a code label (owned, NULL for a
	 * number): the IP is the label's address plus @ip_adjust, cut to the
	 * bits of the packet's IP compression (code.c). */
	char *ip_label;
	int64_t ip_adjust;
};

/* A label: a name for the offset of the statement that follows it, or of
 * a sideband record. */
struct ptasm_label {
	char *name;
	unsigned line;
	/* The index of the next statement (nstmts: the end of the trace). */
	size_t stmt;
	/* A label of a sideband record: its file's index plus one (0 for a
	 * label of the trace) and the record's index in the file. */
	size_t sb_file;
	size_t sb_rec;
};

/* The sample_id fields of a sideband record, in the order libipt's tools
 * print them (the file's sample type says which are written). */
struct ptasm_sb_samples {
	uint32_t pid, tid;
	uint64_t time, id;
	uint32_t cpu;
	uint64_t stream_id, identifier;
};

/* One record of a sideband file (sideband.c). */
struct ptasm_sb_rec {
	unsigned line;
	/* The perf_event type and misc; @raw: the record is @str's @nraw
	 * bytes as they are (a bad record). */
	uint32_t type;
	uint16_t misc;
	int raw;
	/* The type's numbers in the order of its layout (pid and tid count
	 * as one u32 each). */
	uint64_t f[12];
	unsigned nf;
	/* MMAP, MMAP2 and COMM: the string (owned); @bin: an MMAP's file is
	 * the code's .bin file, whose name is known when it is written. */
	char *str;
	size_t nraw;
	int bin;
	struct ptasm_sb_samples samples;
};

/* A perf_event sideband file ("pevent primary|secondary"): the settings
 * libipt's tools read it with (--pevent:* options) and its records. */
struct ptasm_sb_file {
	unsigned line;
	int primary;
	uint64_t sample_type;
	uint64_t time_zero, time_shift, time_mult, tsc_offset;
	struct ptasm_sb_rec *recs;
	size_t nrecs, recs_cap;
};

/* One line of an expected-output block. */
struct ptasm_expect_line {
	unsigned line;
	char *text;
};

/* Everything ptasm knows about one tool: its options and its expected
 * output. */
struct ptasm_tool {
	char *name;

	/* Command-line arguments from "; opt:" lines (owned strings). */
	char **args;
	size_t nargs, args_cap;

	/* The "expect <tool>" block, if there is one. */
	int has_expect;
	unsigned expect_line;
	struct ptasm_expect_line *lines;
	size_t nlines, lines_cap;
};

/* An offset given as a number or as a label name. */
struct ptasm_ref {
	int present;
	unsigned line;
	/* NULL for a number. */
	char *label;
	/* The number, or what to add to the label's offset. */
	uint64_t value;
	int64_t adjust;
};

/* A label of the x86 code: its name and address, from nasm's map file. */
struct ptasm_symbol {
	char *name;
	uint64_t addr;
};

/* The x86 code of a .pta file with code (one with an "org" line). */
struct ptasm_code {
	/* The file has code; the line of its first "org". */
	int present;
	unsigned org_line;

	/* The lines that belong to expect blocks, which nasm must not see:
	 * one flag per line (index 0 is line 1). */
	uint8_t *skip;
	size_t nlines;

	/* After assembly: the load address of the flat binary (nasm's
	 * program origin), its size and the labels. */
	uint64_t org;
	uint64_t size;
	struct ptasm_symbol *symbols;
	size_t nsymbols, symbols_cap;
};

/* A whole .pta file. */
struct ptasm_program {
	struct ptasm_stmt *stmts;
	size_t nstmts, stmts_cap;

	struct ptasm_label *labels;
	size_t nlabels, labels_cap;

	struct ptasm_tool *tools;
	size_t ntools, tools_cap;

	/* "; cpu:" (owned, NULL if absent). */
	char *cpu;
	unsigned cpu_line;

	/* "; range:" - the part of the trace the tools are given. */
	struct ptasm_ref range_from, range_to;

	/* The x86 code, if the file has some. */
	struct ptasm_code code;

	/* Sideband files, in the order they were started. */
	struct ptasm_sb_file *sb;
	size_t nsb, sb_cap;
};

/* The default tool of "; opt:" lines. */
#define PTASM_DEFAULT_TOOL "ptdump"

/* Free everything @program owns and clear it. */
void ptasm_program_free(struct ptasm_program *program);

/* Return the tool named @name (of @len characters), adding it if
 * @create is set.  Returns NULL if there is no such tool or memory runs
 * out. */
struct ptasm_tool *ptasm_program_tool(struct ptasm_program *program,
                                      const char *name, size_t len, int create);

/* Return the label named @name (of @len characters), or NULL. */
const struct ptasm_label *
ptasm_program_label(const struct ptasm_program *program, const char *name,
                    size_t len);

/* Return the code label named @name (of @len characters), or NULL. */
const struct ptasm_symbol *
ptasm_program_symbol(const struct ptasm_program *program, const char *name,
                     size_t len);

#endif /* PTASM_PROGRAM_H */
