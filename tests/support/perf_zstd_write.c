/* SPDX-License-Identifier: BSD-3-Clause */
/* Compressing a perf.data file's sideband as `perf record -z` does
 * (perf_zstd_write.h). */
#include "perf_zstd_write.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static uint64_t pz_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; --i)
		v = v << 8 | p[i];
	return v;
}

static uint32_t pz_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

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

	while (at + 8 <= end) {
		uint32_t type = pz_le32(b + at);
		size_t size = (size_t)b[at + 6] | (size_t)b[at + 7] << 8;

		if (size < 8 || size > end - at)
			abort();
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
		if (type == 71) /* AUXTRACE: its trace follows it. */
			size += (size_t)pz_le64(b + at + 8);
		if (size > end - at)
			abort();
		pw_put(out, b + at, size);
		at += size;
	}
	if (ring.n)
		pz_flush(out, z, ring.b, ring.n);
	free(ring.b);
}

struct pw pz_compress_file(const uint8_t *b, size_t n, const struct pz_spec *z)
{
	if (z->num_records)
		*z->num_records = 0;
	if (z->num_compressed)
		*z->num_compressed = 0;
	struct pw out = {0};
	uint64_t hsize = pz_le64(b + 8);

	if (hsize == 16) {
		/* The pipe format: records to the end. */
		pw_put(&out, b, 16);
		pz_records(&out, z, b, 16, n);
		return out;
	}
	{
		uint64_t attr_size = pz_le64(b + 16);
		uint64_t attrs = pz_le64(b + 24), attrs_size = pz_le64(b + 32);
		uint64_t data = pz_le64(b + 40), data_size = pz_le64(b + 48);
		uint64_t old_end, new_end, delta;
		unsigned nfeat = 0;

		/* (A file of a `perf record` that did not finish: records to
		 * the end, no features.) */
		if (!data_size) {
			pw_put(&out, b, (size_t)data);
			pz_records(&out, z, b, (size_t)data, n);
			return out;
		}
		old_end = data + data_size;

		pw_put(&out, b, (size_t)data);
		pz_records(&out, z, b, (size_t)data, (size_t)old_end);
		new_end = out.n;
		for (unsigned bit = 0; bit < 256; ++bit)
			if (b[72 + bit / 8] >> (bit % 8) & 1)
				nfeat += 1;
		/* What follows the data moves by @delta: the feature table
		 * (16 bytes longer with the COMPRESSED feature, whose entry
		 * is the last, as no feature above 27 is set here), the
		 * features and the attributes' ids. */
		delta = out.n - old_end + (z->feature ? 16 : 0);
		pw_put(&out, b + old_end, 16 * (size_t)nfeat);
		if (z->feature) {
			if (b[72 + 27 / 8] >> (27 % 8) & 1)
				abort();
			for (unsigned bit = 28; bit < 256; ++bit)
				if (b[72 + bit / 8] >> (bit % 8) & 1)
					abort();
			out.b[72 + 27 / 8] |= 1u << (27 % 8);
			pw_u64(&out, n + delta);
			pw_u64(&out, 20);
		}
		pw_put(&out, b + old_end + 16 * nfeat,
		       n - (size_t)old_end - 16 * nfeat);
		if (z->feature) {
			/* {version, type (1: zstd), level, ratio, mmap_len}:
			 * perf decompresses into buffers of mmap_len. */
			pw_u32(&out, 1);
			pw_u32(&out, 1);
			pw_u32(&out, (uint32_t)z->level);
			pw_u32(&out, 2);
			pw_u32(&out, 1u << 20);
		}
		pw_set_u64(out.b + 48, new_end - data);
		for (uint64_t a = attrs; a + attr_size <= attrs + attrs_size;
		     a += attr_size) {
			uint8_t *ids = out.b + a + attr_size - 16;

			if (pz_le64(ids) >= old_end)
				pw_set_u64(ids, pz_le64(ids) + delta);
		}
		/* (@delta may be "negative": unsigned arithmetic, then
		 * the pointer.) */
		for (unsigned i = 0; i < nfeat; ++i) {
			uint64_t at = old_end + delta -
			              (z->feature ? 16u : 0u) + 16u * i;
			uint8_t *e = out.b + (size_t)at;

			pw_set_u64(e, pz_le64(e) + delta);
		}
	}
	return out;
}
