/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: one line of the packet listing. */
#include "line.h"

#include "ptdecode/intel-pt.h"

#include <stdarg.h>
#include <string.h>

void ptdump_line_init(struct ptdump_line *line)
{
	memset(line, 0, sizeof(*line));
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
	static const char hex[] = "0123456789abcdef";
	size_t room = (sizeof(line->raw) - 1) / 2;
	size_t n = (size < room) ? size : room;
	size_t i;

	for (i = 0; i < n; ++i) {
		line->raw[2 * i] = hex[begin[i] >> 4];
		line->raw[2 * i + 1] = hex[begin[i] & 0xf];
	}
	line->raw[2 * n] = '\0';
	return (n == size) ? 0 : -pte_internal;
}

void ptdump_line_print(FILE *out, const struct ptdump_line *line,
                       int show_offset)
{
	const char *sep = "";

	if (line->skip)
		return;

	if (show_offset) {
		fprintf(out, "%-*s", (int)ptdump_width_offset, line->offset);
		sep = " ";
	}
	if (line->raw[0]) {
		fprintf(out, "%s%-*s", sep, (int)ptdump_width_raw, line->raw);
		sep = " ";
	}

	/* Like libipt's ptdump, pad the opcode only when a payload follows. */
	if (line->payload[0])
		fprintf(out, "%s%-*s", sep, (int)ptdump_width_opcode,
		        line->opcode);
	else
		fprintf(out, "%s%s", sep, line->opcode);

	if (line->track_id[0])
		fprintf(out, " %-*s %-*s%s", (int)ptdump_width_payload,
		        line->payload, (int)ptdump_width_track_id,
		        line->track_id, line->track);
	else if (line->payload[0])
		fprintf(out, " %s", line->payload);

	fputc('\n', out);
}
