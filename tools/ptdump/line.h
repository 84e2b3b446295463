/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: one line of the packet listing.
 *
 * A packet is first formatted into the columns of a struct ptdump_line and
 * then printed in one go, so that every part of ptdump (packet formatting,
 * last-IP tracking and, later, timing) fills its own column without knowing
 * the layout.  The layout is libipt ptdump's:
 *
 *	offset  raw bytes  opcode  payload  tracking-id tracking-value
 *
 * with each column left-aligned and padded to a fixed width (see enum
 * ptdump_column_width) and a single space between columns.  Columns that
 * are switched off or empty are left out; nothing is padded after the last
 * column that has content.  A value longer than its column is printed in
 * full and pushes the following columns to the right. */
#ifndef PTDUMP_LINE_H
#define PTDUMP_LINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Printed width of each column, separating space not included. */
enum ptdump_column_width {
	ptdump_width_offset = 17,
	ptdump_width_raw = 33,
	ptdump_width_opcode = 10,
	ptdump_width_payload = 25,
	ptdump_width_track_id = 5
};

/* The columns of one line; an empty string is an empty column. */
struct ptdump_line {
	/* The packet's offset in the trace, 16 hex digits. */
	char offset[24];
	/* The packet's bytes in hex, with --raw: at most 16 (a PSB). */
	char raw[ptdump_width_raw];
	/* The packet's name, e.g. "tip.pge". */
	char opcode[16];
	/* The packet's payload; long enough for a 47-bit TNT. */
	char payload[64];
	/* What the tracking column shows, e.g. "ip", "cr3", "em". */
	char track_id[8];
	/* The tracked value. */
	char track[32];
	/* Set: do not print this line (e.g. a PAD with --no-pad). */
	uint32_t skip : 1;
};

/* Clear all columns. */
void ptdump_line_init(struct ptdump_line *line);

/* Write @value as 16 hexadecimal digits and a NUL to @field (printf's
 * "%016" PRIx64, without its cost: the offset of every line). */
void ptdump_line_hex16(char field[17], uint64_t value);

/* Format into the column @field of @size bytes.  Returns 0, or -pte_internal
 * if the text did not fit (the column then holds a truncated text). */
int ptdump_line_set(char *field, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

/* ptdump_line_set() for a column array of struct ptdump_line. */
#define ptdump_set(field, ...)                                                 \
	ptdump_line_set((field), sizeof(field), __VA_ARGS__)

/* Write the hex bytes [@begin, @begin + @size) to the raw column.  Returns
 * 0, or -pte_internal if they did not all fit (the column then holds the
 * leading bytes). */
int ptdump_line_set_raw(struct ptdump_line *line, const uint8_t *begin,
                        size_t size);

/* Print @line to @out, with or without the offset column.  Does nothing
 * for a line marked skip. */
void ptdump_line_print(FILE *out, const struct ptdump_line *line,
                       int show_offset);

#endif /* PTDUMP_LINE_H */
