/* SPDX-License-Identifier: BSD-3-Clause */
/* Compressing the sideband of a perf.data file as `perf record -z` does,
 * for the tests of the reader's decompression (tests/unit/test_perf.c,
 * tests/corpora) and the fuzz seeds: every run of the kernel's records
 * (types below 64: MMAP, COMM, SWITCH, AUX, ...) between the records perf
 * writes itself (AUXTRACE with its trace, FINISHED_ROUND, ...) becomes
 * PERF_RECORD_COMPRESSED or COMPRESSED2 records.  As perf does, the bytes
 * go in pushes, each one zstd frame, and a push's compressed bytes are cut
 * into records of a bounded size; pushes here are cut at any byte, so that
 * records span compressed records and frames as they do where perf's ring
 * buffer wraps. */
#ifndef PTD_PERF_ZSTD_WRITE_H
#define PTD_PERF_ZSTD_WRITE_H

#include "perf_write.h"

struct pz_spec {
	/* Bytes of records per zstd frame (0: a run of records in one). */
	size_t push;
	/* Bytes of compressed data per record (0: 60000). */
	size_t rec_max;
	/* COMPRESSED2 records (u64 data_size, padded to 8 bytes) instead of
	 * COMPRESSED. */
	int compressed2;
	/* zstd's compression level. */
	int level;
	/* Add the header feature COMPRESSED (27), which perf needs to read
	 * the file (its decompression buffers' size); file format only. */
	int feature;
	/* Set by pz_compress_file(): the records it compressed and the
	 * compressed records it wrote. */
	size_t *num_records, *num_compressed;
};

/* The perf.data file @b of @n bytes (file or pipe format, little-endian,
 * checked by the caller) with its sideband compressed as @z says: the header's
 * data size and the offsets of what follows the data (the feature table's
 * entries, the attributes' ids) are moved with it.  Aborts if the records do
 * not parse.  Free .b when done. */
struct pw pz_compress_file(const uint8_t *b, size_t n, const struct pz_spec *z);

/* pw_records_fn: the records [@at, @end) of @b with the kernel's
 * compressed as @ctx (a struct pz_spec) says (for pd_write_dir()). */
void pz_records_fn(struct pw *out, const uint8_t *b, size_t at, size_t end,
                   void *ctx);

#endif /* PTD_PERF_ZSTD_WRITE_H */
