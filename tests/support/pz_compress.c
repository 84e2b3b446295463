/* SPDX-License-Identifier: BSD-3-Clause */
/* pz_compress: write a perf.data file with its sideband compressed as
 * `perf record -z` does (perf_zstd_write.h), or in the directory format of
 * `perf record --threads` (perf_dir_write.h), for the tests on the corpus
 * recording (tests/corpora/check-perf-zstd.sh, check-perf-dir.sh).
 *
 * usage: pz_compress <in> <out> [push [rec_max [compressed2 [level
 *        [feature]]]]]
 *        pz_compress --dir[-aux-in-data] <n> <in> <outdir> [push [rec_max
 *        [compressed2 [level]]]]
 *        pz_compress --aux-sample <layout> <out> [bad]
 * The first prints "<n> records in <m> compressed records"; the second
 * writes <outdir>/data and data.0 ... data.<n-1>, their records compressed
 * if push is given; the third writes a recording of trace in three samples
 * (perf_write.h's aux_samples, sample layout 1, 2 or 3), with "bad" the
 * first sample's AUX size 4096 larger than the record holds.  Exit status
 * 0, or 1 with a message. */
#include "perf_dir_write.h"
#include "perf_zstd_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long pz_arg(int argc, char **argv, int i, long def)
{
	return i < argc ? strtol(argv[i], NULL, 0) : def;
}

/* --aux-sample: a recording of the trace of three samples, 378 bytes of
 * PSB periods cut as [0, 200), [100, 340), [270, 378). */
static int pz_aux_sample(int layout, const char *out, int bad)
{
	static const size_t from[3] = {0, 100, 270}, to[3] = {200, 340, 378};
	static const uint8_t psb[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	                                0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	                                0x02, 0x82, 0x02, 0x82};
	uint8_t t[378];
	struct pw_spec s = pw_good;
	struct pw w;
	FILE *f;
	int ok;

	/* PSB, PSBEND, short TNTs (a value per period, so that no period
	 * is another's), a PSB every 42 bytes. */
	for (size_t i = 0; i < sizeof(t); i += 42) {
		size_t k = sizeof(t) - i < 42 ? sizeof(t) - i : 42;

		memset(t + i, 0x04 + 2 * (int)(i / 42), k);
		memcpy(t + i, psb, k < 16 ? k : 16);
		if (k >= 18) {
			t[i + 16] = 0x02;
			t[i + 17] = 0x23;
		}
	}
	s.sideband = 1;
	s.trace = t;
	s.trace_size = sizeof(t);
	s.trace_idx = 4;
	s.num_snaps = 3;
	s.snap_from = from;
	s.snap_to = to;
	s.aux_samples = layout;
	w = pw_write_file(&s);
	if (bad) {
		size_t at = pw_find_record(&w, 9);

		if (at) {
			size_t size = w.b[at + 6] | (size_t)w.b[at + 7] << 8;

			pw_set_u64(w.b + at + size - 200 - 8, 200 + 4096);
		}
	}
	f = fopen(out, "wb");
	ok = f && fwrite(w.b, 1, w.n, f) == w.n;
	if (f && fclose(f) != 0)
		ok = 0;
	free(w.b);
	if (!ok) {
		perror(out);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pz_spec z;
	struct pw in = {0}, out;
	size_t nrec = 0, ncomp = 0;
	uint8_t chunk[65536];
	size_t n;
	FILE *f;

	if (argc >= 4 && strcmp(argv[1], "--aux-sample") == 0)
		return pz_aux_sample(atoi(argv[2]), argv[3],
		                     argc > 4 && !strcmp(argv[4], "bad"));
	int dir = argc > 2 && strcmp(argv[1], "--dir") == 0;
	int aux_in_data = argc > 2 && strcmp(argv[1], "--dir-aux-in-data") == 0;
	unsigned nthreads = 0;

	dir |= aux_in_data;
	if (dir) {
		nthreads = (unsigned)strtoul(argv[2], NULL, 0);
		argv += 2;
		argc -= 2;
	}
	if (argc < 3 || (dir && !nthreads)) {
		fprintf(stderr,
		        "usage: pz_compress <in> <out> [push [rec_max "
		        "[compressed2 [level [feature]]]]]\n"
		        "       pz_compress --dir[-aux-in-data] <n> <in> "
		        "<outdir> [push [rec_max [compressed2 [level]]]]\n");
		return 1;
	}
	z.push = (size_t)pz_arg(argc, argv, 3, 0);
	z.rec_max = (size_t)pz_arg(argc, argv, 4, 0);
	z.compressed2 = (int)pz_arg(argc, argv, 5, 0);
	z.level = (int)pz_arg(argc, argv, 6, 1);
	z.feature = (int)pz_arg(argc, argv, 7, 0);
	z.num_records = &nrec;
	z.num_compressed = &ncomp;

	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		pw_put(&in, chunk, n);
	fclose(f);
	if (in.n < 16 || memcmp(in.b, "PERFILE2", 8) != 0) {
		fprintf(stderr, "pz_compress: %s: not a perf.data file\n",
		        argv[1]);
		free(in.b);
		return 1;
	}
	if (dir) {
		int err =
		        pd_write_dir(argv[2], in.b, in.n, nthreads, aux_in_data,
		                     argc > 3 ? pz_records_fn : NULL, &z);

		if (err)
			perror(argv[2]);
		free(in.b);
		return err ? 1 : 0;
	}
	out = pz_compress_file(in.b, in.n, &z);
	free(in.b);
	f = fopen(argv[2], "wb");
	if (!f || fwrite(out.b, 1, out.n, f) != out.n || fclose(f) != 0) {
		perror(argv[2]);
		free(out.b);
		return 1;
	}
	free(out.b);
	printf("%zu records in %zu compressed records\n", nrec, ncomp);
	return 0;
}
