/* SPDX-License-Identifier: BSD-3-Clause */
/* The compressed sideband of `perf record -z`: the payloads of
 * PERF_RECORD_COMPRESSED and COMPRESSED2 records, in file order, are one
 * zstd stream whose output is a sequence of ordinary records.  perf cuts
 * that stream where its ring buffers' chunks end, so a zstd frame may go on
 * in the next compressed record and a record may begin in one and end in a
 * later one.  The output goes through a window of fixed size: what is
 * decompressed is handed to the caller as soon as the window holds whole
 * records, and only the start of a record that goes on stays behind, so the
 * memory this takes does not depend on how much the stream expands. */
#include "perf_int.h"

#include <stdlib.h>
#include <string.h>

const char ptd_perf_unzip_over_limit[] = "over the limit";

#ifdef PTD_HAVE_ZSTD
#include <zstd.h>

enum {
	/* The window: two records of the largest size (16-bit sizes). */
	ptd_unzip_window = 2 * 65536
};

struct ptd_perf_unzip {
	ZSTD_DStream *ds;
	uint8_t *win;
	/* Bytes in the window (a record's start that goes on). */
	size_t n;
	/* Bytes decompressed so far, and how many may come. */
	uint64_t total, limit;
};

int ptd_perf_unzip_new(struct ptd_perf_unzip **out, uint64_t limit)
{
	struct ptd_perf_unzip *z;

	*out = NULL;
	z = calloc(1, sizeof(*z));
	if (!z)
		return -pte_nomem;
	z->ds = ZSTD_createDStream();
	z->win = malloc(ptd_unzip_window);
	if (!z->ds || !z->win) {
		ptd_perf_unzip_free(z);
		return -pte_nomem;
	}
	if (ZSTD_isError(ZSTD_initDStream(z->ds))) {
		ptd_perf_unzip_free(z);
		return -pte_nomem;
	}
	z->limit = limit;
	*out = z;
	return 0;
}

void ptd_perf_unzip_free(struct ptd_perf_unzip *z)
{
	if (!z)
		return;
	ZSTD_freeDStream(z->ds);
	free(z->win);
	free(z);
}

int ptd_perf_unzip_feed(struct ptd_perf_unzip *z, const uint8_t *data,
                        size_t len, ptd_perf_unzip_take_fn *take, void *ctx,
                        const char **why)
{
	ZSTD_inBuffer in = {data, len, 0};

	*why = NULL;
	for (;;) {
		ZSTD_outBuffer out = {z->win + z->n, ptd_unzip_window - z->n,
		                      0};
		size_t ret = ZSTD_decompressStream(z->ds, &out, &in);
		size_t used = 0;
		int err;

		if (ZSTD_isError(ret)) {
			*why = ZSTD_getErrorName(ret);
			return -pte_bad_file;
		}
		z->n += out.pos;
		z->total += out.pos;
		if (z->total > z->limit) {
			*why = ptd_perf_unzip_over_limit;
			return -pte_bad_file;
		}
		if (out.pos) {
			err = take(ctx, z->win, z->n, &used);
			if (err < 0)
				return err;
			/* (take() leaves at most a record's start, which
			 * is shorter than half the window.) */
			memmove(z->win, z->win + used, z->n - used);
			z->n -= used;
		}
		/* Done when the input is taken and the output is not held
		 * back for want of room. */
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

size_t ptd_perf_unzip_left(const struct ptd_perf_unzip *z)
{
	return z ? z->n : 0;
}

#else /* !PTD_HAVE_ZSTD */

int ptd_perf_unzip_new(struct ptd_perf_unzip **out, uint64_t limit)
{
	(void)limit;
	*out = NULL;
	return -pte_not_supported;
}

void ptd_perf_unzip_free(struct ptd_perf_unzip *z)
{
	(void)z;
}

int ptd_perf_unzip_feed(struct ptd_perf_unzip *z, const uint8_t *data,
                        size_t len, ptd_perf_unzip_take_fn *take, void *ctx,
                        const char **why)
{
	(void)z;
	(void)data;
	(void)len;
	(void)take;
	(void)ctx;
	*why = "ptdecode was built without zstd";
	return -pte_not_supported;
}

size_t ptd_perf_unzip_left(const struct ptd_perf_unzip *z)
{
	(void)z;
	return 0;
}

#endif /* PTD_HAVE_ZSTD */
