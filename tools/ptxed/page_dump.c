/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading libxdc page dumps; see page_dump.h. */
#include "page_dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read all of @name into a malloc'ed buffer.  Returns 0 or -1. */
static int ptxed_read_all(const char *name, uint8_t **data, size_t *size,
                          char *msg, size_t msgsize)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *file;

	file = fopen(name, "rb");
	if (!file) {
		snprintf(msg, msgsize, "cannot open %s: %s", name,
		         strerror(errno));
		return -1;
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			size_t ncap = cap ? 2 * cap : 4096;
			uint8_t *nbuf = realloc(buf, ncap);

			if (!nbuf) {
				snprintf(msg, msgsize, "out of memory");
				free(buf);
				fclose(file);
				return -1;
			}
			buf = nbuf;
			cap = ncap;
		}
		got = fread(buf + len, 1, cap - len, file);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(file)) {
		snprintf(msg, msgsize, "cannot read %s", name);
		free(buf);
		fclose(file);
		return -1;
	}
	fclose(file);
	*data = buf;
	*size = len;
	return 0;
}

int ptxed_page_runs(const char *addr_file, uint64_t dump_size,
                    struct ptxed_page_run **runs, size_t *nruns, char *msg,
                    size_t msgsize)
{
	struct ptxed_page_run *out = NULL;
	size_t size, npages, i, n = 0;
	uint8_t *data;

	if (ptxed_read_all(addr_file, &data, &size, msg, msgsize) < 0)
		return -1;
	if (size % 8) {
		snprintf(msg, msgsize,
		         "%s: size %zu is not a multiple of 8 (at offset %zu)",
		         addr_file, size, size - size % 8);
		free(data);
		return -1;
	}
	npages = size / 8;
	if (npages > dump_size / ptxed_page_size) {
		snprintf(msg, msgsize,
		         "%s: %zu pages, but the dump holds only %llu (page "
		         "%llu "
		         "at address-file offset %llu has no content)",
		         addr_file, npages,
		         (unsigned long long)(dump_size / ptxed_page_size),
		         (unsigned long long)(dump_size / ptxed_page_size),
		         (unsigned long long)(dump_size / ptxed_page_size * 8));
		free(data);
		return -1;
	}
	out = malloc((npages ? npages : 1) * sizeof(*out));
	if (!out) {
		snprintf(msg, msgsize, "out of memory");
		free(data);
		return -1;
	}
	for (i = 0; i < npages; ++i) {
		uint64_t addr = 0;
		int b;

		for (b = 7; b >= 0; --b)
			addr = (addr << 8) | data[i * 8 + (size_t)b];
		if (addr & (ptxed_page_size - 1))
			continue; /* not mapped: no content */
		if (n && out[n - 1].vaddr + out[n - 1].size == addr &&
		    out[n - 1].offset + out[n - 1].size ==
		            (uint64_t)i * ptxed_page_size) {
			out[n - 1].size += ptxed_page_size;
			continue;
		}
		out[n].vaddr = addr;
		out[n].offset = (uint64_t)i * ptxed_page_size;
		out[n].size = ptxed_page_size;
		n += 1;
	}
	free(data);
	*runs = out;
	*nruns = n;
	return 0;
}
