/* SPDX-License-Identifier: BSD-3-Clause */
/* ptd_image_find() speed: the lookup the flow decoders make whenever the
 * code they follow leaves the current section.
 *
 * An image of N memory sections (64 KiB each, 1 MiB apart, one address
 * space) is searched 20 million times in four patterns: always the same
 * section, two sections alternating (the first and the last), four in
 * round robin, and a random one each time.  Each pattern runs 5 times;
 * the best and the median time per lookup are printed.  Then the time to
 * build images of N sections: added in address order, in reverse order,
 * and copied into an empty image.
 *
 * Usage: image_bench [--sections N] [--lookups N] [--smoke]
 * Pin it for stable numbers: taskset -c 1 bench/image_bench. */
#define _POSIX_C_SOURCE 200809L

#include "ptdecode/ptdecode.h"

#include "image/image.h"

#include "bench_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	static const char *const names[] = {"same section", "2 alternating",
	                                    "4 round robin", "random"};
	static uint8_t buf[1 << 16];
	unsigned long nsec = 200, n = 20000000, i;
	struct pt_image *image;
	struct pt_asid asid;
	struct ptd_msec msec;
	uint64_t sum = 0;
	int a, pat, rep;

	for (a = 1; a < argc; ++a) {
		if (strcmp(argv[a], "--sections") == 0 && a + 1 < argc)
			nsec = strtoul(argv[++a], NULL, 0);
		else if (strcmp(argv[a], "--lookups") == 0 && a + 1 < argc)
			n = strtoul(argv[++a], NULL, 0);
		else if (strcmp(argv[a], "--smoke") == 0)
			n = 100000;
		else {
			fprintf(stderr, "usage: image_bench [--sections N] "
			                "[--lookups N] [--smoke]\n");
			return 2;
		}
	}
	if (nsec < 4)
		nsec = 4;
	image = pt_image_alloc(NULL);
	if (!image)
		return 1;
	pt_asid_init(&asid);
	asid.cr3 = 0x1000;
	for (i = 0; i < nsec; ++i)
		if (ptd_image_add_buffer(image, buf, sizeof(buf), &asid,
		                         0x400000 + (uint64_t)i * 0x100000,
		                         0) < 0)
			return 1;

	for (pat = 0; pat < 4; ++pat) {
		double t[5], best, median;

		for (rep = 0; rep < 5; ++rep) {
			unsigned x = 1;
			double t0 = bench_now(CLOCK_MONOTONIC);

			for (i = 0; i < n; ++i) {
				uint64_t s, vaddr;

				switch (pat) {
				case 0:
					s = 0;
					break;
				case 1:
					s = (i & 1) ? nsec - 1 : 0;
					break;
				case 2:
					s = (i & 3) * (nsec / 4);
					break;
				default:
					x = x * 1103515245u + 12345u;
					s = (x >> 8) % nsec;
					break;
				}
				vaddr = 0x400000 + s * 0x100000 + (i & 0xfff);
				if (ptd_image_find(image, &msec, &asid, vaddr) <
				    0) {
					fprintf(stderr, "lookup failed\n");
					return 1;
				}
				sum += msec.begin[vaddr - msec.vaddr];
			}
			t[rep] = bench_now(CLOCK_MONOTONIC) - t0;
		}
		bench_best_median(t, 5, &best, &median);
		printf("%-14s %4lu sections: best %6.1f median %6.1f "
		       "ns/lookup\n",
		       names[pat], nsec, best * 1e9 / (double)n,
		       median * 1e9 / (double)n);
	}
	pt_image_free(image);

	/* Building images: N sections added in address order, in reverse
	 * address order (each one searched against all before it), and a
	 * copy into an empty image. */
	{
		struct pt_image *fwd = pt_image_alloc(NULL),
		                *rev = pt_image_alloc(NULL),
		                *copy = pt_image_alloc(NULL);
		double t0, t1, t2, t3;

		if (!fwd || !rev || !copy)
			return 1;
		t0 = bench_now(CLOCK_MONOTONIC);
		for (i = 0; i < nsec; ++i)
			if (ptd_image_add_buffer(fwd, buf, 0x1000, &asid,
			                         (uint64_t)i * 0x2000, 0) < 0)
				return 1;
		t1 = bench_now(CLOCK_MONOTONIC);
		for (i = nsec; i-- > 0;)
			if (ptd_image_add_buffer(rev, buf, 0x1000, &asid,
			                         (uint64_t)i * 0x2000, 0) < 0)
				return 1;
		t2 = bench_now(CLOCK_MONOTONIC);
		if (pt_image_copy(copy, fwd) != 0)
			return 1;
		t3 = bench_now(CLOCK_MONOTONIC);
		printf("build %4lu sections: in order %.3f ms, reverse order "
		       "%.3f ms, copy %.3f ms\n",
		       nsec, (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3);
		pt_image_free(fwd);
		pt_image_free(rev);
		pt_image_free(copy);
	}
	/* Keep the reads. */
	return sum == UINT64_MAX;
}
