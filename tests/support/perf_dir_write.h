/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing a perf.data file in the directory format of `perf record
 * --threads`, for the tests of the reader (tests/unit/test_perf.c,
 * tests/corpora): "data" keeps the header, the attributes, the records perf
 * writes itself and the features (with DIR_FORMAT, version 1), and the
 * records that perf's threads write go to data.0 ... data.<n-1>: each AUX
 * area's trace (its AUXTRACE records with their bytes) to the file of its
 * index modulo n, and the kernel's records (maps, names, switches, AUX
 * records, ...) in n runs, the first run to data.0, so that they stay in
 * their order when the files are read one after the other. */
#ifndef PTD_PERF_DIR_WRITE_H
#define PTD_PERF_DIR_WRITE_H

#include "perf_write.h"

/* Write the perf.data file @b of @n bytes (file format, with features) as
 * the directory @dir (made if need be) with @nthreads data.<n> files; with
 * @aux_in_data, the trace stays in "data" (perf 6.1's `perf report` reads
 * the trace only from there); @fn (NULL: copy) writes each data.<n> file's
 * records, e.g. compressed.
 * Returns 0, or -1 with errno set if a file cannot be written; aborts if the
 * records do not parse. */
int pd_write_dir(const char *dir, const uint8_t *b, size_t n, unsigned nthreads,
                 int aux_in_data, pw_records_fn *fn, void *ctx);

#endif /* PTD_PERF_DIR_WRITE_H */
