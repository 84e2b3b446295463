/* SPDX-License-Identifier: BSD-3-Clause */
/* Wrap a raw trace into a perf.data file (tests/support/perf_write.h), for
 * the tests of ptxed --perf (check-ptxed-perf.sh).
 *
 * Usage: perf_wrap <trace> <perf.data> <idx> [--pipe]
 *
 * The file holds pw_good's recording (a Skylake, 6/78/3, with mtc_freq 3,
 * nominal ratio 12 and CPUID 0x15 ratio 2/100) with a small buffer in AUX
 * area 0 and the trace, split in two buffers, in AUX area <idx>. */
#include "perf_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct pw_spec spec = pw_good;
	struct pw w;
	uint8_t *buf = NULL;
	size_t size = 0, cap = 0;
	FILE *f;

	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "--pipe"))) {
		fprintf(stderr, "usage: perf_wrap <trace> <perf.data> <idx> "
		                "[--pipe]\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		fprintf(stderr, "perf_wrap: cannot open %s\n", argv[1]);
		return 1;
	}
	for (;;) {
		size_t got;

		if (size == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				return 1;
		}
		got = fread(buf + size, 1, cap - size, f);
		if (!got)
			break;
		size += got;
	}
	fclose(f);

	spec.trace = buf;
	spec.trace_size = size;
	spec.trace_idx = (uint32_t)strtoul(argv[3], NULL, 0);
	w = argc == 5 ? pw_write_pipe(&spec) : pw_write_file(&spec);
	f = fopen(argv[2], "wb");
	if (!f || fwrite(w.b, 1, w.n, f) != w.n || fclose(f) != 0) {
		fprintf(stderr, "perf_wrap: cannot write %s\n", argv[2]);
		return 1;
	}
	free(w.b);
	free(buf);
	return 0;
}
