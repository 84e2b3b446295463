/* SPDX-License-Identifier: BSD-3-Clause */
/* Compressing a perf.data file's sideband as `perf record -z` does
 * (perf_zstd_write.h). */
#include "perf_zstd_write.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Whether perf writes records of @type through its ring buffers (and so
 * compresses them): the kernel's records, not AUXTRACE (the trace) or the
 * records perf makes itself (64 and up). */
static int pz_ring_record(uint32_t type)
{
	return type < 64;
}

/* One compressed record of @len bytes of zstd data @d. */
static void pz_record(struct pw *out, const struct pz_spec *z, const uint8_t *d,
                      size_t len)
{
	if (z->num_compressed)
		*z->num_compressed += 1;
	if (z->compressed2) {
		size_t size = (16 + len + 7) / 8 * 8;

		pw_u32(out, 83);
		pw_u32(out, (uint32_t)size << 16);
		pw_u64(out, len);
		pw_put(out, d, len);
		pw_zero(out, size - 16 - len);
	} else {
		pw_u32(out, 81);
		pw_u32(out, (uint32_t)(8 + len) << 16);
		pw_put(out, d, len);
	}
}

/* The @n bytes at @b as pushes of z->push bytes, each one zstd frame cut
 * into records of at most z->rec_max bytes of compressed data. */
static void pz_flush(struct pw *out, const struct pz_spec *z, const uint8_t *b,
                     size_t n)
{
	size_t push = z->push ? z->push : n;
	size_t cap = ZSTD_compressBound(push);
	uint8_t *c = malloc(cap ? cap : 1);

	if (!c)
		abort();
	for (size_t at = 0; at < n; at += push) {
		size_t len = n - at < push ? n - at : push;
		size_t clen = ZSTD_compress(c, cap, b + at, len, z->level);
		size_t max = z->rec_max ? z->rec_max : 60000;

		if (ZSTD_isError(clen))
			abort();
		for (size_t k = 0; k < clen; k += max)
			pz_record(out, z, c + k,
			          clen - k < max ? clen - k : max);
	}
	free(c);
}

/* The records [@at, @end) of @b, the ring buffers' ones compressed. */
static void pz_records(struct pw *out, const struct pz_spec *z,
                       const uint8_t *b, size_t at, size_t end)
{
	struct pw ring = {0};

	while (at < end) {
		uint32_t type = pw_get_u32(b + at);
		size_t size = pw_record_len(b, at, end);

		if (pz_ring_record(type)) {
			if (z->num_records)
				*z->num_records += 1;
			pw_put(&ring, b + at, size);
			at += size;
			continue;
		}
		if (ring.n) {
			pz_flush(out, z, ring.b, ring.n);
			ring.n = 0;
		}
		pw_put(out, b + at, size);
		at += size;
	}
	if (ring.n)
		pz_flush(out, z, ring.b, ring.n);
	free(ring.b);
}

void pz_records_fn(struct pw *out, const uint8_t *b, size_t at, size_t end,
                   void *ctx)
{
	pz_records(out, ctx, b, at, end);
}

struct pw pz_compress_file(const uint8_t *b, size_t n, const struct pz_spec *z)
{
	uint8_t payload[20];
	struct pw_feature feat = {27, payload, sizeof(payload)};

	if (z->num_records)
		*z->num_records = 0;
	if (z->num_compressed)
		*z->num_compressed = 0;
	/* {version, type (1: zstd), level, ratio, mmap_len}: perf
	 * decompresses into buffers of mmap_len. */
	pw_set_u32(payload, 1);
	pw_set_u32(payload + 4, 1);
	pw_set_u32(payload + 8, (uint32_t)z->level);
	pw_set_u32(payload + 12, 2);
	pw_set_u32(payload + 16, 1u << 20);
	return pw_rewrite_data(b, n, pz_records_fn, (void *)z,
	                       z->feature ? &feat : NULL, z->feature ? 1 : 0);
}
