/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: one line of the packet listing. */
/* (glibc's fwrite_unlocked(): ptdump prints from one thread.) */
#define _DEFAULT_SOURCE 1

#include "line.h"

#include "ptdecode/intel-pt.h"

#include <stdarg.h>
#include <string.h>

void ptdump_line_init(struct ptdump_line *line)
{
	/* (Every column is a string: an empty one is all it takes.) */
	line->offset[0] = '\0';
	line->raw[0] = '\0';
	line->opcode[0] = '\0';
	line->payload[0] = '\0';
	line->track_id[0] = '\0';
	line->track[0] = '\0';
	line->skip = 0;
}

static const char ptdump_hex[] = "0123456789abcdef";

void ptdump_line_hex16(char field[17], uint64_t value)
{
	int i;

	for (i = 15; i >= 0; --i) {
		field[i] = ptdump_hex[value & 0xf];
		value >>= 4;
	}
	field[16] = '\0';
}

int ptdump_line_set(char *field, size_t size, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(field, size, fmt, ap);
	va_end(ap);
	if (len < 0) {
		field[0] = '\0';
		return -pte_internal;
	}
	return ((size_t)len < size) ? 0 : -pte_internal;
}

int ptdump_line_set_raw(struct ptdump_line *line, const uint8_t *begin,
                        size_t size)
{
	size_t room = (sizeof(line->raw) - 1) / 2;
	size_t n = (size < room) ? size : room;
	size_t i;

	for (i = 0; i < n; ++i) {
		line->raw[2 * i] = ptdump_hex[begin[i] >> 4];
		line->raw[2 * i + 1] = ptdump_hex[begin[i] & 0xf];
	}
	line->raw[2 * n] = '\0';
	return (n == size) ? 0 : -pte_internal;
}

/* Append @text to the line at *@p (which has room for it), padded with
 * spaces to @width if @width is not 0. */
static void ptdump_put(char **p, const char *text, size_t width)
{
	size_t len = strlen(text);

	memcpy(*p, text, len);
	*p += len;
	if (len < width) {
		memset(*p, ' ', width - len);
		*p += width - len;
	}
}

void ptdump_line_print(FILE *out, const struct ptdump_line *line,
                       int show_offset)
{
	/* Every column at its widest (its field's size) and padded, the
	 * separators and the newline: less than 256 bytes. */
	char buf[256], *p = buf;
	const char *sep = "";

	/* (Each column is padded to at most its field's size.) */
	_Static_assert(ptdump_width_offset <= sizeof(line->offset) &&
	                       ptdump_width_raw <= sizeof(line->raw) &&
	                       ptdump_width_opcode <= sizeof(line->opcode) &&
	                       ptdump_width_payload <= sizeof(line->payload) &&
	                       ptdump_width_track_id <= sizeof(line->track_id),
	               "no column is padded beyond its field");
	_Static_assert(sizeof(line->offset) + sizeof(line->raw) +
	                               sizeof(line->opcode) +
	                               sizeof(line->payload) +
	                               sizeof(line->track_id) +
	                               sizeof(line->track) + 8 <
	                       sizeof(buf),
	               "a line fits into the buffer");

	if (line->skip)
		return;

	if (show_offset) {
		ptdump_put(&p, line->offset, ptdump_width_offset);
		sep = " ";
	}
	if (line->raw[0]) {
		ptdump_put(&p, sep, 0);
		ptdump_put(&p, line->raw, ptdump_width_raw);
		sep = " ";
	}

	/* Like libipt's ptdump, pad the opcode only when a payload follows. */
	ptdump_put(&p, sep, 0);
	ptdump_put(&p, line->opcode,
	           line->payload[0] ? ptdump_width_opcode : 0);

	if (line->track_id[0]) {
		*p++ = ' ';
		ptdump_put(&p, line->payload, ptdump_width_payload);
		*p++ = ' ';
		ptdump_put(&p, line->track_id, ptdump_width_track_id);
		ptdump_put(&p, line->track, 0);
	} else if (line->payload[0]) {
		*p++ = ' ';
		ptdump_put(&p, line->payload, 0);
	}
	*p++ = '\n';
#if defined(__GLIBC__)
	fwrite_unlocked(buf, 1, (size_t)(p - buf), out);
#else
	fwrite(buf, 1, (size_t)(p - buf), out);
#endif
}
