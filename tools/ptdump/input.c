/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: loading the trace named on the command line. */
#include "input.h"

#include "options.h"
#include "ptdecode/intel-pt.h"
#include "read_all.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Parse "<from>" or "<from>-<to>".  Returns 1 for a start only, 2 for a
 * start and an end, 0 if @text is not a range. */
static int ptdump_parse_range(const char *text, uint64_t *from, uint64_t *to)
{
	const char *rest;

	if (ptdump_parse_u64(text, &rest, from) < 0)
		return 0;
	if (!*rest)
		return 1;
	if (*rest != '-' || ptdump_parse_u64(rest + 1, NULL, to) < 0)
		return 0;
	return 2;
}

int ptdump_trace_parse(struct ptdump_trace *trace, const char *arg,
                       const char *prog, FILE *err)
{
	const char *colon = strrchr(arg, ':');
	size_t len = strlen(arg);
	int parts = 0;

	memset(trace, 0, sizeof(*trace));
	if (colon)
		parts = ptdump_parse_range(colon + 1, &trace->from, &trace->to);
	if (parts > 0)
		len = (size_t)(colon - arg);
	if (parts == 2) {
		trace->has_to = 1;
		if (trace->to <= trace->from) {
			fprintf(err,
			        "%s: bad range in %s: the end (0x%" PRIx64
			        ") must lie after the start (0x%" PRIx64 ").\n",
			        prog, arg, trace->to, trace->from);
			return -pte_invalid;
		}
	}

	trace->filename = malloc(len + 1);
	if (!trace->filename) {
		fprintf(err, "%s: out of memory.\n", prog);
		return -1;
	}
	memcpy(trace->filename, arg, len);
	trace->filename[len] = '\0';
	return 0;
}

/* Print why opening or reading failed; hint at the range syntax when the
 * name has a ':' that was not taken as a range. */
static void ptdump_file_error(const char *prog, const char *what,
                              const char *filename, int errnum, FILE *err)
{
	fprintf(err, "%s: failed to %s %s: %s.\n", prog, what, filename,
	        strerror(errnum));
	if (strchr(filename, ':'))
		fprintf(err,
		        "%s: note: a range is given as <file>:<from>[-<to>] "
		        "with numbers, e.g. trace.bin:0x1000-0x2000.\n",
		        prog);
}

int ptdump_trace_load(struct ptdump_trace *trace, const char *prog, FILE *err)
{
	uint64_t limit = trace->has_to ? trace->to : UINT64_MAX;
	uint8_t *buffer;
	size_t size;
	FILE *file;
	int status, errnum;

	/* "-" is standard input, as for ptd_perf_read() (--perf). */
	errno = 0;
	file = strcmp(trace->filename, "-") == 0 ? stdin
	                                         : fopen(trace->filename, "rb");
	if (!file) {
		ptdump_file_error(prog, "open", trace->filename, errno, err);
		return -1;
	}
	status = ptd_tool_read_all(file, limit, &buffer, &size);
	errnum = errno; /* (fclose() may change it.) */
	if (file != stdin)
		fclose(file);
	if (status == -2) {
		fprintf(err, "%s: out of memory loading %s.\n", prog,
		        trace->filename);
		return -1;
	}
	if (status < 0) {
		ptdump_file_error(prog, "read", trace->filename, errnum, err);
		return -1;
	}

	if (!size) {
		fprintf(err, "%s: %s is empty.\n", prog, trace->filename);
		goto err_buffer;
	}
	if (trace->from >= size) {
		fprintf(err,
		        "%s: bad offset 0x%" PRIx64 " into %s: the file has "
		        "0x%zx bytes.\n",
		        prog, trace->from, trace->filename, size);
		goto err_buffer;
	}
	if (trace->has_to && trace->to > size) {
		fprintf(err,
		        "%s: bad range 0x%" PRIx64 "-0x%" PRIx64 " in %s: the "
		        "file has 0x%zx bytes.\n",
		        prog, trace->from, trace->to, trace->filename, size);
		goto err_buffer;
	}

	/* Keep only [from, to). */
	size -= (size_t)trace->from;
	memmove(buffer, buffer + trace->from, size);
	trace->buffer = buffer;
	trace->size = size;
	trace->to = trace->from + size;
	return 0;

err_buffer:
	free(buffer);
	return -1;
}

void ptdump_trace_fini(struct ptdump_trace *trace)
{
	free(trace->buffer);
	free(trace->filename);
	trace->buffer = NULL;
	trace->filename = NULL;
}
