/* SPDX-License-Identifier: BSD-3-Clause */
/* Wrap a raw trace into a perf.data file (tests/support/perf_write.h), for
 * the tests of ptxed --perf (check-ptxed-perf.sh).
 *
 * Usage: perf_wrap <trace> <perf.data> <idx> [--pipe] [--mmap <file>:<addr>]
 *
 * The file holds pw_good's recording (a Skylake, 6/78/3, with mtc_freq 3,
 * nominal ratio 12 and CPUID 0x15 ratio 2/100) with a small buffer in AUX
 * area 0 and the trace, split in two buffers, in AUX area <idx> (thread
 * 3174).  With --mmap, the sideband maps <file> at <addr> into process 3174
 * after its exec (and two maps that must not count, perf_write.h). */
#define _POSIX_C_SOURCE 200809L

#include "perf_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct pw_spec spec = pw_good;
	struct pw w;
	uint8_t *buf = NULL;
	size_t size = 0, cap = 0;
	FILE *f;

	int pipe = 0, bad = argc < 4;

	for (int i = 4; i < argc && !bad; ++i) {
		if (!strcmp(argv[i], "--pipe")) {
			pipe = 1;
		} else if (!strcmp(argv[i], "--mmap") && i + 1 < argc) {
			char *colon = strrchr(argv[++i], ':');
			struct stat st;

			if (!colon) {
				bad = 1;
				break;
			}
			*colon = '\0';
			if (stat(argv[i], &st) != 0) {
				bad = 1;
				break;
			}
			spec.mmap_file = argv[i];
			spec.mmap_start = strtoull(colon + 1, NULL, 0);
			spec.mmap_len = (uint64_t)st.st_size;
		} else {
			bad = 1;
		}
	}
	if (bad) {
		fprintf(stderr, "usage: perf_wrap <trace> <perf.data> <idx> "
		                "[--pipe] [--mmap <file>:<addr>]\n");
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
			uint8_t *grown;

			cap = cap ? 2 * cap : 65536;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				fclose(f);
				return 1;
			}
			buf = grown;
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
	w = pipe ? pw_write_pipe(&spec) : pw_write_file(&spec);
	f = fopen(argv[2], "wb");
	if (!f || fwrite(w.b, 1, w.n, f) != w.n || fclose(f) != 0) {
		fprintf(stderr, "perf_wrap: cannot write %s\n", argv[2]);
		return 1;
	}
	free(w.b);
	free(buf);
	return 0;
}
