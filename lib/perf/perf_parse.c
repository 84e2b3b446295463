/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading a perf.data file: header, attributes, records, features.
 *
 * The file header (struct perf_file_header, 104 bytes): magic "PERFILE2",
 * header size, attribute entry size, then {offset, size} of the attribute
 * and data sections and a 256-bit map of the header features, whose table of
 * {offset, size} follows the data section.  The pipe format has only the
 * magic and a header size of 16; attributes and features come as records.
 * Every record starts with {u32 type, u16 misc, u16 size}; an AUXTRACE
 * record's trace bytes follow it and are not counted in its size. */
#define _POSIX_C_SOURCE 200809L

#include "perf_int.h"

#include "common/le.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The magic numbers, read as little-endian 64-bit values. */
#define PTD_PERF_MAGIC2 UINT64_C(0x32454c4946524550)         /* "PERFILE2" */
#define PTD_PERF_MAGIC2_SWAPPED UINT64_C(0x50455246494c4532) /* big-endian */
#define PTD_PERF_MAGIC1 UINT64_C(0x454c494646524550)         /* "PERFFILE" */

enum {
	/* sizeof(struct perf_file_header). */
	ptd_perf_header_size = 104,
	/* The pipe format's header: magic and size. */
	ptd_perf_pipe_header_size = 16,
	/* PERF_ATTR_SIZE_VER0: the fields up to bp_len / config2. */
	ptd_perf_attr_min = 64,
	/* An AUXTRACE record without its trace. */
	ptd_perf_auxtrace_size = 48,
	/* AUXTRACE_INFO: type and reserved, then priv[]. */
	ptd_perf_info_priv = 16,
	/* The fewest priv[] words perf accepts (PMU_TYPE to PER_CPU_MMAPS). */
	ptd_perf_priv_min = 10
};

/* What the parse has found so far. */
struct perf_parse {
	const uint8_t *buf;
	uint64_t size;
	/* The bytes read in all: @size, and a directory's other files. */
	uint64_t total_size;
	struct ptd_perf_diag *diag;

	/* The intel_pt attribute: found when its type is known. */
	struct perf_attr {
		uint32_t type;
		uint64_t config, sample_type, flags;
		struct ptd_perf_sample_layout layout;
	} * attrs;
	size_t num_attrs, cap_attrs;

	/* The AUXTRACE_INFO record (offset 0: none yet). */
	uint64_t info_at, info_size;

	/* The CPUID feature's string (offset 0: none). */
	uint64_t cpuid_at, cpuid_len;

	struct ptd_perf_buffer *buffers;
	size_t num_buffers, cap_buffers;

	/* The trace in samples (perf_sample.c), as buffers, and where each
	 * one's bytes are: in @kept at @sample_kept[i], or in the file at
	 * its file_offset (@sample_kept[i] UINT64_MAX).  Whether an
	 * attribute has PERF_SAMPLE_AUX. */
	struct ptd_perf_buffer *samples;
	uint64_t *sample_kept;
	size_t num_samples, cap_samples;
	int any_aux_sample;

	/* The sideband records for ptd_perf_take_sideband(), and the
	 * sample ids of the attributes (@id_attr: the attribute's index). */
	struct ptd_perf_side *side;
	size_t num_side, cap_side;
	uint64_t *ids;
	uint32_t *id_attr;
	size_t num_ids, cap_ids;

	/* The sideband records of the compressed records (perf_zstd.c),
	 * copied out of the decompression's window: @num_kept bytes. */
	struct ptd_perf_unzip *unzip;
	uint8_t *kept;
	size_t num_kept, cap_kept;
	/* The offset of the compressed record being read, and of the last
	 * one whose payload a record began in. */
	uint64_t unzip_at, unzip_begun_at;

	uint64_t num_compressed, num_truncated;
	int pipe, incomplete, compressed_skipped;
};

int ptd_perf_fail(struct ptd_perf_diag *diag, int err, uint64_t offset,
                  const char *fmt, ...)
{
	va_list ap;

	if (!diag)
		return err;
	diag->offset = offset;
	va_start(ap, fmt);
	vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
	va_end(ap);
	return err;
}

/* Whether [@off, @off + @len) lies inside the file. */
static int perf_within(const struct perf_parse *p, uint64_t off, uint64_t len)
{
	return off <= p->size && len <= p->size - off;
}

/* Note that the attribute just added has the @n sample ids at @ids (8
 * bytes each, inside the file). */
static int perf_add_ids(struct perf_parse *p, const uint8_t *ids, uint64_t n)
{
	for (uint64_t i = 0; i < n; ++i) {
		if (p->num_ids == p->cap_ids) {
			size_t cap = p->cap_ids ? 2 * p->cap_ids : 16;
			uint64_t *v = realloc(p->ids, cap * sizeof(*v));
			uint32_t *a;

			if (!v)
				return -pte_nomem;
			p->ids = v;
			a = realloc(p->id_attr, cap * sizeof(*a));
			if (!a)
				return -pte_nomem;
			p->id_attr = a;
			p->cap_ids = cap;
		}
		p->ids[p->num_ids] = ptd_le64(ids + 8 * i);
		p->id_attr[p->num_ids] = (uint32_t)(p->num_attrs - 1);
		p->num_ids += 1;
	}
	return 0;
}

/* Add the attribute @a of @avail bytes (its own size field may say
 * less). */
static int perf_add_attr(struct perf_parse *p, const uint8_t *a, uint64_t avail)
{
	struct perf_attr *attr;

	if (p->num_attrs == p->cap_attrs) {
		size_t cap = p->cap_attrs ? 2 * p->cap_attrs : 8;
		struct perf_attr *attrs;

		attrs = realloc(p->attrs, cap * sizeof(*attrs));
		if (!attrs)
			return -pte_nomem;
		p->attrs = attrs;
		p->cap_attrs = cap;
	}
	attr = &p->attrs[p->num_attrs++];
	attr->type = ptd_le32(a);
	attr->config = ptd_le64(a + 8);
	attr->sample_type = ptd_le64(a + 24);
	attr->flags = ptd_le64(a + 40);
	/* What lays out its samples: read_format at 32 (in every version),
	 * branch_sample_type at 72, sample_regs_user at 80 and
	 * sample_regs_intr at 96, where the attribute is long enough. */
	if (ptd_le32(a + 4) && ptd_le32(a + 4) < avail)
		avail = ptd_le32(a + 4);
	memset(&attr->layout, 0, sizeof(attr->layout));
	attr->layout.sample_type = attr->sample_type;
	attr->layout.read_format = ptd_le64(a + 32);
	if (avail >= 80)
		attr->layout.branch_sample_type = ptd_le64(a + 72);
	if (avail >= 88)
		attr->layout.regs_user = ptd_le64(a + 80);
	if (avail >= 104)
		attr->layout.regs_intr = ptd_le64(a + 96);
	if (attr->sample_type & ptd_perf_sample_aux_bit)
		p->any_aux_sample = 1;
	return 0;
}

/* A CPUID feature at @off, @size bytes: {u32 len; char str[len]}.  @where:
 * the offset of what locates it (for errors). */
static int perf_cpuid(struct perf_parse *p, uint64_t where, uint64_t off,
                      uint64_t size)
{
	uint64_t len;

	if (size < 4 || !perf_within(p, off, size))
		return ptd_perf_fail(
		        p->diag, -pte_bad_file, where,
		        "the CPUID feature (%llu bytes) does not fit "
		        "in the file",
		        (unsigned long long)size);
	len = ptd_le32(p->buf + off);
	if (len > size - 4)
		return ptd_perf_fail(
		        p->diag, -pte_bad_file, where,
		        "the CPUID feature's string of %llu bytes is "
		        "longer than the feature",
		        (unsigned long long)len);
	p->cpuid_at = off + 4;
	p->cpuid_len = len;
	return 0;
}

/* The file format's header, attributes and feature table. */
static int perf_file_header(struct perf_parse *p, uint64_t *data_begin,
                            uint64_t *data_end)
{
	const uint8_t *b = p->buf;
	uint64_t attr_size, attrs_off, attrs_size, data_off, data_size;
	uint64_t table, nfeat = 0, i;
	int err;

	if (p->size < ptd_perf_header_size)
		return ptd_perf_fail(p->diag, -pte_bad_file, 0,
		                     "%llu bytes are too few for the perf.data "
		                     "header (%d)",
		                     (unsigned long long)p->size,
		                     ptd_perf_header_size);
	attr_size = ptd_le64(b + 16);
	attrs_off = ptd_le64(b + 24);
	attrs_size = ptd_le64(b + 32);
	data_off = ptd_le64(b + 40);
	data_size = ptd_le64(b + 48);

	if (attr_size < ptd_perf_attr_min + 16)
		return ptd_perf_fail(
		        p->diag, -pte_bad_file, 16,
		        "an attribute entry size of %llu bytes (at "
		        "least %d)",
		        (unsigned long long)attr_size, ptd_perf_attr_min + 16);
	if (!perf_within(p, attrs_off, attrs_size) ||
	    attrs_size % attr_size != 0)
		return ptd_perf_fail(
		        p->diag, -pte_bad_file, 24,
		        "the attribute section (offset %llu, %llu "
		        "bytes) is not whole entries inside the file",
		        (unsigned long long)attrs_off,
		        (unsigned long long)attrs_size);
	for (i = 0; i < attrs_size / attr_size; ++i) {
		const uint8_t *entry = b + attrs_off + i * attr_size;
		uint64_t ids_off = ptd_le64(entry + attr_size - 16);
		uint64_t ids_size = ptd_le64(entry + attr_size - 8);

		err = perf_add_attr(p, entry, attr_size - 16);
		/* Its sample ids (for the sideband's times); ids that lie
		 * outside the file are left out, they only cost times. */
		if (err >= 0 && perf_within(p, ids_off, ids_size))
			err = perf_add_ids(p, b + ids_off, ids_size / 8);
		if (err < 0)
			return err;
	}
	if (!perf_within(p, data_off, data_size))
		return ptd_perf_fail(
		        p->diag, -pte_bad_file, 40,
		        "the data section (offset %llu, %llu bytes) "
		        "ends beyond the file's %llu bytes",
		        (unsigned long long)data_off,
		        (unsigned long long)data_size,
		        (unsigned long long)p->size);
	*data_begin = data_off;
	*data_end = data_off + data_size;

	/* An interrupted `perf record` leaves the data size 0 and writes no
	 * features: the records go to the end of the file (as perf reads
	 * such a file). */
	if (!data_size) {
		p->incomplete = 1;
		*data_end = p->size;
		return 0;
	}

	/* The feature table: an entry per bit set, in bit order. */
	table = data_off + data_size;
	for (i = 0; i < 256; ++i) {
		uint64_t entry, off, size;

		if (!(ptd_le64(b + 72 + 8 * (i / 64)) >> (i % 64) & 1))
			continue;
		entry = table + 16 * nfeat++;
		if (!perf_within(p, entry, 16))
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, entry,
			        "the table of header features ends "
			        "beyond the file (feature %llu)",
			        (unsigned long long)i);
		off = ptd_le64(b + entry);
		size = ptd_le64(b + entry + 8);
		if (!perf_within(p, off, size))
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, entry,
			        "header feature %llu (offset %llu, "
			        "%llu bytes) ends beyond the file's "
			        "%llu bytes",
			        (unsigned long long)i, (unsigned long long)off,
			        (unsigned long long)size,
			        (unsigned long long)p->size);
		if (i == ptd_perf_feat_cpuid) {
			err = perf_cpuid(p, entry, off, size);
			if (err < 0)
				return err;
		}
	}
	return 0;
}

static int perf_add_side(struct perf_parse *p, uint64_t at, uint64_t size,
                         uint32_t type, uint64_t file_at, int kept)
{
	if (p->num_side == p->cap_side) {
		size_t cap = p->cap_side ? 2 * p->cap_side : 64;
		struct ptd_perf_side *side;

		side = realloc(p->side, cap * sizeof(*side));
		if (!side)
			return -pte_nomem;
		p->side = side;
		p->cap_side = cap;
	}
	p->side[p->num_side].at = at;
	p->side[p->num_side].size = size;
	p->side[p->num_side].file_at = file_at;
	p->side[p->num_side].type = type;
	p->side[p->num_side].kept = kept;
	p->num_side += 1;
	return 0;
}

/* Copy the @size bytes @r to the end of p->kept. */
static int perf_keep(struct perf_parse *p, const uint8_t *r, uint64_t size)
{
	if (size > p->cap_kept - p->num_kept) {
		size_t cap = p->cap_kept ? p->cap_kept : 4096;
		uint8_t *kept;

		while (size > cap - p->num_kept) {
			if (cap > SIZE_MAX / 2)
				return -pte_nomem;
			cap *= 2;
		}
		kept = realloc(p->kept, cap);
		if (!kept)
			return -pte_nomem;
		p->kept = kept;
		p->cap_kept = cap;
	}
	memcpy(p->kept + p->num_kept, r, (size_t)size);
	p->num_kept += (size_t)size;
	return 0;
}

/* Keep the sideband record @r of @size bytes and @type, from the compressed
 * sideband of the record at @file_at. */
static int perf_keep_side(struct perf_parse *p, const uint8_t *r, uint64_t size,
                          uint32_t type, uint64_t file_at)
{
	int err = perf_keep(p, r, size);

	if (err < 0)
		return err;
	return perf_add_side(p, p->num_kept - size, size, type, file_at, 1);
}

static int perf_add_buffer(struct perf_parse *p, uint64_t rec, uint64_t size)
{
	const uint8_t *r = p->buf + rec;
	struct ptd_perf_buffer *buf;

	if (p->num_buffers == p->cap_buffers) {
		size_t cap = p->cap_buffers ? 2 * p->cap_buffers : 16;
		struct ptd_perf_buffer *bufs;

		bufs = realloc(p->buffers, cap * sizeof(*bufs));
		if (!bufs)
			return -pte_nomem;
		p->buffers = bufs;
		p->cap_buffers = cap;
	}
	buf = &p->buffers[p->num_buffers++];
	memset(buf, 0, sizeof(*buf));
	buf->size = ptd_le64(r + 8);
	buf->aux_offset = ptd_le64(r + 16);
	buf->reference = ptd_le64(r + 24);
	buf->idx = ptd_le32(r + 32);
	buf->tid = (int32_t)ptd_le32(r + 36);
	buf->cpu = (int32_t)ptd_le32(r + 40);
	buf->file_offset = rec + size;
	/* (data is set when the trace is copied.) */
	return 0;
}

/* The attribute whose event took the sample @r of @size bytes: the only
 * one, the one its IDENTIFIER names, or the one its ID names where the
 * attributes' samples agree in layout; NULL if none is known. */
static const struct perf_attr *perf_sample_attr(const struct perf_parse *p,
                                                const uint8_t *r, uint64_t size)
{
	uint64_t st, id, at;
	int same = 1, identified = 1;

	if (p->num_attrs == 1)
		return &p->attrs[0];
	if (!p->num_attrs)
		return NULL;
	st = p->attrs[0].sample_type;
	for (size_t i = 0; i < p->num_attrs; ++i) {
		if (p->attrs[i].sample_type != st)
			same = 0;
		if (!(p->attrs[i].sample_type & ptd_perf_sample_identifier_bit))
			identified = 0;
	}
	if (identified) {
		at = 8;
	} else if (same && (st & ptd_perf_sample_id_bit)) {
		/* ID after IP, TID, TIME and ADDR. */
		at = 8;
		for (unsigned bit = 0; bit < 4; ++bit)
			if (st & (UINT64_C(1) << bit))
				at += 8;
	} else {
		return NULL;
	}
	if (size < at + 8)
		return NULL;
	id = ptd_le64(r + at);
	for (size_t i = 0; i < p->num_ids; ++i)
		if (p->ids[i] == id && p->id_attr[i] < p->num_attrs)
			return &p->attrs[p->id_attr[i]];
	return NULL;
}

/* The sample @r of @size bytes (at @at in the file, or with @inner in the
 * compressed sideband): if its event has PERF_SAMPLE_AUX, its trace becomes
 * a buffer of AUX area @cpu (or @tid, or 0), its bytes kept if @inner. */
static int perf_sample(struct perf_parse *p, const uint8_t *r, uint64_t size,
                       uint64_t at, int inner)
{
	const struct perf_attr *attr;
	struct ptd_perf_aux_sample aux;
	struct ptd_perf_buffer *b;
	uint64_t kept = UINT64_MAX;
	int found;

	if (!p->any_aux_sample)
		return 0;
	attr = perf_sample_attr(p, r, size);
	if (!attr)
		return 0;
	found = ptd_perf_sample_aux(&attr->layout, r, size, &aux);
	if (found < 0)
		return ptd_perf_fail(
		        p->diag, -pte_bad_file, at,
		        "a SAMPLE record of %llu bytes ends inside "
		        "its %s field",
		        (unsigned long long)size, aux.why);
	if (!found || !aux.size)
		return 0;
	if (p->num_samples == p->cap_samples) {
		size_t cap = p->cap_samples ? 2 * p->cap_samples : 16;
		struct ptd_perf_buffer *bufs;
		uint64_t *where;

		bufs = realloc(p->samples, cap * sizeof(*bufs));
		if (!bufs)
			return -pte_nomem;
		p->samples = bufs;
		where = realloc(p->sample_kept, cap * sizeof(*where));
		if (!where)
			return -pte_nomem;
		p->sample_kept = where;
		p->cap_samples = cap;
	}
	if (inner) {
		int err = perf_keep(p, r + aux.data_at, aux.size);

		if (err < 0)
			return err;
		kept = p->num_kept - aux.size;
	}
	b = &p->samples[p->num_samples];
	memset(b, 0, sizeof(*b));
	b->size = aux.size;
	b->file_offset = inner ? at : at + aux.data_at;
	b->idx = aux.cpu >= 0   ? (uint32_t)aux.cpu
	         : aux.tid >= 0 ? (uint32_t)aux.tid
	                        : 0;
	b->tid = aux.tid;
	b->cpu = aux.cpu;
	p->sample_kept[p->num_samples++] = kept;
	return 0;
}

/* A record of the kernel's, from the file (at @at) or, with @inner, from the
 * compressed sideband (begun in the compressed record at @at): the sideband
 * that ptd_perf_take_sideband() reads is noted (kept, where it came out of
 * the compressed sideband: too short a record is refused before it takes
 * memory), full AUX areas are counted, the trace in samples is taken; other
 * records are skipped. */
static int perf_kernel_record(struct perf_parse *p, const uint8_t *r,
                              uint32_t type, uint64_t size, uint64_t at,
                              int inner)
{
	uint64_t fixed = ptd_perf_side_fixed(type);

	if (fixed && !inner)
		return perf_add_side(p, at, size, type, at, 0);
	if (fixed && size < fixed)
		return ptd_perf_fail(
		        p->diag, -pte_bad_file, at,
		        "%s %s record of %llu bytes (at least %llu) in the "
		        "compressed sideband of the record at %llu",
		        (ptd_perf_side_name(type)[0] == 'E' ||
		         ptd_perf_side_name(type)[0] == 'I')
		                ? "an"
		                : "a",
		        ptd_perf_side_name(type), (unsigned long long)size,
		        (unsigned long long)fixed, (unsigned long long)at);
	if (fixed)
		return perf_keep_side(p, r, size, type, at);

	switch (type) {
	case ptd_perf_rec_aux:
		/* {aux_offset, aux_size, flags}: a full AUX area lost
		 * trace. */
		if (size >= 32 && (ptd_le64(r + 24) & ptd_perf_aux_truncated))
			p->num_truncated += 1;
		return 0;

	case ptd_perf_rec_sample:
		return perf_sample(p, r, size, at, inner);

	default:
		return 0;
	}
}

/* A record of the compressed sideband.  (perf writes AUXTRACE records and
 * the header's records itself, never through the compressed ring
 * buffers.) */
static int perf_inner_record(struct perf_parse *p, const uint8_t *r,
                             uint32_t type, uint64_t size)
{
	if (type == ptd_perf_rec_auxtrace ||
	    type == ptd_perf_rec_header_tracing_data)
		/* Their data would follow them in the stream. */
		return ptd_perf_fail(
		        p->diag, -pte_not_supported, p->unzip_begun_at,
		        "a record of type %u inside the compressed "
		        "sideband of the record at %llu (perf "
		        "writes none there)",
		        (unsigned)type, (unsigned long long)p->unzip_begun_at);
	return perf_kernel_record(p, r, type, size, p->unzip_begun_at, 1);
}

/* ptd_perf_unzip_take_fn for perf_compressed(): the whole records of the
 * decompressed bytes @b[0..@n). */
static int perf_take_inner(void *ctx, const uint8_t *b, size_t n, size_t *used)
{
	struct perf_parse *p = ctx;
	size_t off = 0;

	while (n - off >= 8) {
		uint32_t type = ptd_le32(b + off);
		uint64_t size = (uint64_t)b[off + 6] | (uint64_t)b[off + 7]
		                                               << 8;
		int err;

		if (size < 8)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, p->unzip_begun_at,
			        "a record of type %u with a size of "
			        "%llu bytes (at least 8) in the "
			        "compressed sideband of the record at "
			        "%llu",
			        (unsigned)type, (unsigned long long)size,
			        (unsigned long long)p->unzip_begun_at);
		if (size > n - off)
			break;
		err = perf_inner_record(p, b + off, type, size);
		if (err < 0)
			return err;
		off += (size_t)size;
		/* The next record begins in the record being read. */
		p->unzip_begun_at = p->unzip_at;
	}
	*used = off;
	return 0;
}

/* How far the compressed sideband may expand: @ratio times the file's size
 * (a directory's files together) and @extra_mib MiB more.  perf's sideband
 * shrinks to a half to a tenth; the records kept from it, their entries and the
 * arrays made of them take about four times its bytes, so this bounds the
 * memory a crafted file can ask for. */
enum { ptd_perf_unzip_ratio = 32, ptd_perf_unzip_extra_mib = 16 };

static uint64_t perf_unzip_limit(const struct perf_parse *p)
{
	uint64_t extra = (uint64_t)ptd_perf_unzip_extra_mib << 20;

	if (p->total_size > (UINT64_MAX - extra) / ptd_perf_unzip_ratio)
		return UINT64_MAX;
	return p->total_size * ptd_perf_unzip_ratio + extra;
}

/* The compressed record (COMPRESSED or COMPRESSED2, @type) at @at of @size
 * bytes: its payload goes on the sideband's zstd stream.  Without zstd, the
 * sideband in it is skipped (info.compressed_skipped). */
static int perf_compressed(struct perf_parse *p, uint64_t at, uint32_t type,
                           uint64_t size)
{
	const uint8_t *r = p->buf + at;
	const uint8_t *data = r + 8;
	uint64_t len = size - 8;
	const char *why = NULL;
	int err;

	if (type == ptd_perf_rec_compressed2) {
		/* {u64 data_size, data[], padding to 8 bytes}. */
		if (size < 16)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "a COMPRESSED2 record of %llu bytes "
			        "(at least 16)",
			        (unsigned long long)size);
		len = ptd_le64(r + 8);
		data = r + 16;
		if (len > size - 16)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "a COMPRESSED2 record of %llu bytes "
			        "with %llu bytes of data",
			        (unsigned long long)size,
			        (unsigned long long)len);
	}
	if (p->compressed_skipped)
		return 0;
	if (!p->unzip) {
		uint64_t limit = perf_unzip_limit(p);

		err = ptd_perf_unzip_new(&p->unzip, limit);
		if (err == -pte_not_supported) {
			p->compressed_skipped = 1;
			return 0;
		}
		if (err < 0)
			return err;
		p->unzip_begun_at = at;
	}
	p->unzip_at = at;
	if (!ptd_perf_unzip_left(p->unzip))
		p->unzip_begun_at = at;
	err = ptd_perf_unzip_feed(p->unzip, data, (size_t)len, perf_take_inner,
	                          p, &why);
	if (err < 0 && why == ptd_perf_unzip_over_limit)
		return ptd_perf_fail(
		        p->diag, err, at,
		        "the compressed sideband expands to more than "
		        "%llu bytes (%d times the file's size and %d "
		        "MiB), the limit for its memory",
		        (unsigned long long)perf_unzip_limit(p),
		        ptd_perf_unzip_ratio, ptd_perf_unzip_extra_mib);
	if (err < 0 && why)
		return ptd_perf_fail(
		        p->diag, err, at,
		        "the compressed sideband does not decompress "
		        "(zstd: %s)",
		        why);
	return err;
}

/* After the last record: the compressed sideband must not end inside a
 * record (unless `perf record` did not finish). */
static int perf_unzip_end(struct perf_parse *p)
{
	size_t left = ptd_perf_unzip_left(p->unzip);

	if (!left || p->incomplete)
		return 0;
	return ptd_perf_fail(
	        p->diag, -pte_bad_file, p->unzip_begun_at,
	        "the compressed sideband ends inside a record: %zu "
	        "bytes of it, begun in the compressed record at "
	        "%llu",
	        left, (unsigned long long)p->unzip_begun_at);
}

/* One record at @at of @size bytes (its header checked); *@next is where
 * the next one starts. */
static int perf_record(struct perf_parse *p, uint64_t at, uint32_t type,
                       uint64_t size, uint64_t end, uint64_t *next)
{
	const uint8_t *r = p->buf + at;
	uint64_t trace;
	int err;

	*next = at + size;
	switch (type) {
	case ptd_perf_rec_auxtrace:
		if (size < ptd_perf_auxtrace_size)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "an AUXTRACE record of %llu bytes (at "
			        "least %d)",
			        (unsigned long long)size,
			        ptd_perf_auxtrace_size);
		trace = ptd_le64(r + 8);
		if (trace > end - *next)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "an AUXTRACE record's %llu trace bytes "
			        "run %llu bytes past the end of the data",
			        (unsigned long long)trace,
			        (unsigned long long)(trace - (end - *next)));
		err = perf_add_buffer(p, at, size);
		if (err < 0)
			return err;
		*next += trace;
		return 0;

	case ptd_perf_rec_auxtrace_info: {
		uint32_t kind;

		if (size < ptd_perf_info_priv)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "an AUXTRACE_INFO record of %llu bytes "
			        "(at least %d)",
			        (unsigned long long)size, ptd_perf_info_priv);
		kind = ptd_le32(r + 8);
		if (kind != ptd_perf_auxtrace_intel_pt)
			return ptd_perf_fail(
			        p->diag, -pte_not_supported, at,
			        "the recording holds AUX trace of type "
			        "%u, not Intel PT (type 1)",
			        (unsigned)kind);
		if (size < ptd_perf_info_priv + 8 * ptd_perf_priv_min)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "an AUXTRACE_INFO record of %llu bytes "
			        "(Intel PT needs at least %d)",
			        (unsigned long long)size,
			        ptd_perf_info_priv + 8 * ptd_perf_priv_min);
		if (p->info_at)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "a second AUXTRACE_INFO record (the "
			        "first is at %llu)",
			        (unsigned long long)p->info_at);
		p->info_at = at;
		p->info_size = size;
		return 0;
	}

	case ptd_perf_rec_header_attr:
		/* The attribute (its own size at offset 4), then ids. */
		if (size < 8 + ptd_perf_attr_min ||
		    ptd_le32(r + 8 + 4) < ptd_perf_attr_min ||
		    ptd_le32(r + 8 + 4) > size - 8)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "a HEADER_ATTR record of %llu bytes "
			        "does not hold its attribute",
			        (unsigned long long)size);
		/* (Its ids follow the attribute.) */
		err = perf_add_attr(p, r + 8, ptd_le32(r + 8 + 4));
		if (err < 0)
			return err;
		return perf_add_ids(p, r + 8 + ptd_le32(r + 8 + 4),
		                    (size - 8 - ptd_le32(r + 8 + 4)) / 8);

	case ptd_perf_rec_header_feature:
		if (size < 16)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "a HEADER_FEATURE record of %llu bytes",
			        (unsigned long long)size);
		if (ptd_le64(r + 8) == ptd_perf_feat_cpuid)
			return perf_cpuid(p, at, at + 16, size - 16);
		return 0;

	case ptd_perf_rec_header_tracing_data: {
		/* The pipe format's tracepoint data: {u32 size, u32 pad},
		 * then size bytes that the record's size does not count. */
		uint64_t more;

		if (size < 16)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "a HEADER_TRACING_DATA record of %llu "
			        "bytes (at least 16)",
			        (unsigned long long)size);
		more = ptd_le32(r + 8);
		if (more > end - *next)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "HEADER_TRACING_DATA's %llu bytes run "
			        "past the end of the data",
			        (unsigned long long)more);
		*next += more;
		return 0;
	}

	case ptd_perf_rec_compressed:
	case ptd_perf_rec_compressed2:
		p->num_compressed += 1;
		return perf_compressed(p, at, type, size);

	default:
		return perf_kernel_record(p, r, type, size, at, 0);
	}
}

static int perf_records(struct perf_parse *p, uint64_t at, uint64_t end)
{
	while (at < end) {
		uint64_t size, next;
		uint32_t type;
		int err;

		if (end - at < 8)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "a record header cut off after %llu "
			        "bytes",
			        (unsigned long long)(end - at));
		type = ptd_le32(p->buf + at);
		size = (uint64_t)p->buf[at + 6] | (uint64_t)p->buf[at + 7] << 8;
		if (size < 8)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "a record of type %u with a size of "
			        "%llu bytes (at least 8)",
			        (unsigned)type, (unsigned long long)size);
		if (size > end - at)
			return ptd_perf_fail(
			        p->diag, -pte_bad_file, at,
			        "a record of type %u and %llu bytes "
			        "runs past the end of the data (%llu "
			        "bytes left)",
			        (unsigned)type, (unsigned long long)size,
			        (unsigned long long)(end - at));
		err = perf_record(p, at, type, size, end, &next);
		if (err < 0)
			return err;
		at = next;
	}
	return 0;
}

/* The pieces of AUXTRACE_INFO (priv[i] is at @priv + 8 i). */
static int perf_take_info(struct ptd_perf *perf, const struct perf_parse *p)
{
	struct ptd_perf_info *info = &perf->info;
	const uint8_t *priv = p->buf + p->info_at + ptd_perf_info_priv;
	uint64_t n = (p->info_size - ptd_perf_info_priv) / 8, shift;
	size_t i;

	info->pmu_type = (uint32_t)ptd_le64(priv);
	shift = ptd_le64(priv + 8);
	info->tc.time_shift = (uint16_t)(shift > 63 ? 0 : shift);
	info->tc.time_mult = (uint32_t)ptd_le64(priv + 16);
	info->tc.time_zero = ptd_le64(priv + 24);
	info->have_tc =
	        ptd_le64(priv + 32) && shift <= 63 && info->tc.time_mult;
	info->tsc_bit = ptd_le64(priv + 40);
	info->noretcomp_bit = ptd_le64(priv + 48);
	info->have_sched_switch = (uint32_t)ptd_le64(priv + 56);
	info->snapshot_mode = ptd_le64(priv + 64) ? 1 : 0;
	info->per_cpu_mmaps = ptd_le64(priv + 72) ? 1 : 0;
	if (n >= 15) {
		info->mtc_bit = ptd_le64(priv + 80);
		info->mtc_freq_bits = ptd_le64(priv + 88);
		info->tsc_ctc_n = (uint32_t)ptd_le64(priv + 96);
		info->tsc_ctc_d = (uint32_t)ptd_le64(priv + 104);
		info->cyc_bit = ptd_le64(priv + 112);
	}
	if (n >= 16)
		info->max_nonturbo_ratio = (uint32_t)ptd_le64(priv + 120);
	perf->filter = NULL;
	if (n >= 17) {
		uint64_t len = ptd_le64(priv + 128);

		/* The string, NUL-terminated, in roundup(len + 1, 8) bytes. */
		if (len && len >= 8 * (n - 17))
			return ptd_perf_fail(
			        p->diag, -pte_bad_file,
			        p->info_at + ptd_perf_info_priv + 128,
			        "the address filter string of %llu "
			        "bytes does not fit in AUXTRACE_INFO",
			        (unsigned long long)len);
		if (len) {
			perf->filter = malloc((size_t)len + 1);
			if (!perf->filter)
				return -pte_nomem;
			memcpy(perf->filter, priv + 136, (size_t)len);
			perf->filter[len] = '\0';
		}
	}
	info->filter = perf->filter ? perf->filter : "";

	/* The intel_pt attribute. */
	for (i = 0; i < p->num_attrs; ++i)
		if (p->attrs[i].type == info->pmu_type)
			break;
	if (i == p->num_attrs)
		return ptd_perf_fail(
		        p->diag, -pte_bad_config, p->info_at,
		        "no event attribute has the Intel PT PMU's "
		        "type %u",
		        (unsigned)info->pmu_type);
	info->config = p->attrs[i].config;
	info->sample_type = p->attrs[i].sample_type;
	/* perf_event_attr bits: 4 exclude_user, 5 exclude_kernel. */
	info->exclude_user = (uint8_t)(p->attrs[i].flags >> 4 & 1);
	info->exclude_kernel = (uint8_t)(p->attrs[i].flags >> 5 & 1);
	return 0;
}

/* The CPUID feature, "GenuineIntel,6,78,3", into info.cpuid and cpu. */
static void perf_take_cpuid(struct ptd_perf *perf, const struct perf_parse *p)
{
	struct ptd_perf_info *info = &perf->info;
	unsigned long v[3];
	const char *s;
	char *end;
	size_t len = (size_t)p->cpuid_len, k;

	memset(&info->cpu, 0, sizeof(info->cpu));
	if (len >= sizeof(perf->cpuid))
		len = sizeof(perf->cpuid) - 1;
	if (p->cpuid_at)
		memcpy(perf->cpuid, p->buf + p->cpuid_at, len);
	perf->cpuid[len] = '\0';
	info->cpuid = perf->cpuid;

	if (strncmp(perf->cpuid, "GenuineIntel,", 13) != 0)
		return;
	s = perf->cpuid + 13;
	for (k = 0; k < 3; ++k) {
		if (*s < '0' || *s > '9')
			return;
		v[k] = strtoul(s, &end, 10);
		s = end;
		if (k < 2 && *s++ != ',')
			return;
	}
	/* (perf may add more fields after the stepping.) */
	if ((*s && *s != ',') || v[0] > 0xffff || v[1] > 0xff || v[2] > 0xff)
		return;
	info->cpu.vendor = pcv_intel;
	info->cpu.family = (uint16_t)v[0];
	info->cpu.model = (uint8_t)v[1];
	info->cpu.stepping = (uint8_t)v[2];
}

static int perf_cmp_idx(const void *a, const void *b)
{
	const struct ptd_perf_stream *x = a, *y = b;

	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Group the buffers by AUX area and copy their trace, stream by stream. */
static int perf_take_trace(struct ptd_perf *perf, struct perf_parse *p)
{
	uint64_t total = 0, at;
	const uint64_t *kept = NULL;
	size_t i, s;

	/* The trace of AUXTRACE records; or, in a recording without any,
	 * the trace in samples (perf record --aux-sample), each sample a
	 * snapshot of the AUX area, assembled as snapshots are. */
	perf->info.num_aux_samples = p->num_samples;
	if (!p->num_buffers && p->num_samples) {
		perf->buffers = p->samples;
		perf->num_buffers = p->num_samples;
		p->samples = NULL;
		kept = p->sample_kept;
		perf->info.sampled = 1;
	} else {
		perf->buffers = p->buffers;
		perf->num_buffers = p->num_buffers;
		p->buffers = NULL;
	}
	for (i = 0; i < perf->num_buffers; ++i) {
		struct ptd_perf_buffer *b = &perf->buffers[i];

		/* (Each buffer lies inside the file, which lies in memory.) */
		total += b->size;
		for (s = 0; s < perf->num_streams; ++s)
			if (perf->streams[s].idx == b->idx)
				break;
		if (s == perf->num_streams) {
			struct ptd_perf_stream *st;

			/* At most one stream per buffer. */
			if (!perf->streams) {
				perf->streams = calloc(perf->num_buffers,
				                       sizeof(*perf->streams));
				if (!perf->streams)
					return -pte_nomem;
			}
			st = &perf->streams[perf->num_streams++];
			st->idx = b->idx;
			st->tid = b->tid;
			st->cpu = b->cpu;
		}
		perf->streams[s].size += b->size;
		perf->streams[s].num_buffers += 1;
	}
	perf->info.num_buffers = perf->num_buffers;
	perf->info.trace_bytes = total;
	if (perf->num_streams)
		qsort(perf->streams, perf->num_streams, sizeof(*perf->streams),
		      perf_cmp_idx);

	if (total > SIZE_MAX - 1)
		return -pte_nomem;
	perf->trace = malloc(total ? (size_t)total : 1);
	if (!perf->trace)
		return -pte_nomem;
	at = 0;
	for (s = 0; s < perf->num_streams; ++s) {
		struct ptd_perf_stream *st = &perf->streams[s];

		st->data = perf->trace + at;
		for (i = 0; i < perf->num_buffers; ++i) {
			struct ptd_perf_buffer *b = &perf->buffers[i];

			if (b->idx != st->idx)
				continue;
			memcpy(perf->trace + at,
			       kept && kept[i] != UINT64_MAX
			               ? p->kept + kept[i]
			               : p->buf + b->file_offset,
			       (size_t)b->size);
			b->data = perf->trace + at;
			at += b->size;
		}
	}
	if (perf->info.snapshot_mode || kept)
		return ptd_perf_snapshot_streams(perf);
	return 0;
}

int ptd_perf_parse(struct ptd_perf **out, const void *buf, size_t size,
                   struct ptd_perf_diag *diag)
{
	if (diag)
		memset(diag, 0, sizeof(*diag));
	if (!out || !buf)
		return ptd_perf_fail(diag, -pte_invalid, 0, "a NULL argument");
	return ptd_perf_parse_parts(out, buf, size, NULL, 0, diag);
}

/* Each part's records, a zstd stream of its own (perf compresses each
 * thread's ring buffers apart). */
static int perf_parts(struct perf_parse *p, const struct ptd_perf_part *parts,
                      size_t nparts)
{
	int err = 0;

	for (size_t i = 0; i < nparts && err >= 0; ++i) {
		err = perf_unzip_end(p);
		ptd_perf_unzip_free(p->unzip);
		p->unzip = NULL;
		if (err >= 0)
			err = perf_records(p, parts[i].begin, parts[i].end);
	}
	return err;
}

int ptd_perf_parse_parts(struct ptd_perf **out, const void *buf, size_t size,
                         const struct ptd_perf_part *parts, size_t nparts,
                         struct ptd_perf_diag *diag)
{
	struct perf_parse p;
	struct ptd_perf *perf;
	uint64_t magic, hsize, begin = 0, end = 0;
	int err;

	*out = NULL;

	memset(&p, 0, sizeof(p));
	p.buf = buf;
	p.size = size;
	p.total_size = nparts ? parts[nparts - 1].end : size;
	p.diag = diag;
	if (size < ptd_perf_pipe_header_size)
		return ptd_perf_fail(
		        diag, -pte_bad_file, 0,
		        "%zu bytes are too few for a perf.data file", size);
	magic = ptd_le64(p.buf);
	if (magic == PTD_PERF_MAGIC2_SWAPPED)
		return ptd_perf_fail(diag, -pte_not_supported, 0,
		                     "a big-endian perf.data file");
	if (magic == PTD_PERF_MAGIC1)
		return ptd_perf_fail(diag, -pte_not_supported, 0,
		                     "a perf.data file of the obsolete format "
		                     "\"PERFFILE\"");
	if (magic != PTD_PERF_MAGIC2)
		return ptd_perf_fail(
		        diag, -pte_bad_file, 0,
		        "not a perf.data file (no \"PERFILE2\" at the "
		        "start)");

	hsize = ptd_le64(p.buf + 8);
	if (hsize == ptd_perf_pipe_header_size) {
		p.pipe = 1;
		begin = ptd_perf_pipe_header_size;
		end = size;
		err = 0;
	} else if (hsize < ptd_perf_header_size) {
		err = ptd_perf_fail(
		        diag, -pte_bad_file, 8,
		        "a header size of %llu bytes (%d, or 16 for "
		        "the pipe format)",
		        (unsigned long long)hsize, ptd_perf_header_size);
	} else if (hsize > size) {
		err = ptd_perf_fail(diag, -pte_bad_file, 8,
		                    "the file ends after %zu bytes, inside its "
		                    "%llu-byte header",
		                    size, (unsigned long long)hsize);
	} else {
		err = perf_file_header(&p, &begin, &end);
	}
	if (err >= 0)
		err = perf_records(&p, begin, end);
	if (err >= 0 && nparts) {
		if (p.pipe)
			err = ptd_perf_fail(
			        diag, -pte_bad_file, 8,
			        "a directory's data file in the pipe "
			        "format");
		else
			err = perf_parts(&p, parts, nparts);
	}
	if (err >= 0)
		err = perf_unzip_end(&p);
	if (err >= 0 && !p.info_at)
		err = ptd_perf_fail(diag, -pte_bad_config, 0,
		                    "no Intel PT trace: the file has no "
		                    "AUXTRACE_INFO record (not recorded with "
		                    "-e intel_pt//?)");

	perf = NULL;
	if (err >= 0) {
		perf = calloc(1, sizeof(*perf));
		if (!perf)
			err = -pte_nomem;
	}
	if (err >= 0)
		err = perf_take_info(perf, &p);
	if (err >= 0) {
		perf_take_cpuid(perf, &p);
		perf->info.num_compressed = p.num_compressed;
		perf->info.compressed_skipped = (uint8_t)p.compressed_skipped;
		perf->info.num_truncated = p.num_truncated;
		perf->info.pipe = (uint8_t)p.pipe;
		perf->info.dir_files = (uint32_t)nparts;
		perf->info.incomplete = (uint8_t)p.incomplete;
		err = perf_take_trace(perf, &p);
	}
	if (err >= 0) {
		/* The sideband's trailers: how each attribute lays them out
		 * (its sample_type), and which attribute a record's sample id
		 * names. */
		struct ptd_perf_layout layout;
		uint64_t *types = malloc((p.num_attrs ? p.num_attrs : 1) *
		                         sizeof(*types));

		if (!types) {
			err = -pte_nomem;
		} else {
			for (size_t i = 0; i < p.num_attrs; ++i)
				types[i] = p.attrs[i].sample_type;
			layout.types = types;
			layout.num_attrs = p.num_attrs;
			layout.ids = p.ids;
			layout.id_attr = p.id_attr;
			layout.num_ids = p.num_ids;
			layout.sample_id_all =
			        p.num_attrs ? (int)(p.attrs[0].flags >> 18 & 1)
			                    : 0;
			err = ptd_perf_take_sideband(perf, p.buf, p.kept,
			                             p.side, p.num_side,
			                             &layout, diag);
			free(types);
		}
	}
	free(p.attrs);
	free(p.buffers);
	free(p.samples);
	free(p.sample_kept);
	free(p.side);
	free(p.kept);
	ptd_perf_unzip_free(p.unzip);
	free(p.ids);
	free(p.id_attr);
	if (err < 0) {
		if (err == -pte_nomem && diag && !diag->message[0])
			ptd_perf_fail(diag, err, 0, "out of memory");
		ptd_perf_free(perf);
		return err;
	}
	*out = perf;
	return 0;
}

/* Read all of @file (a pipe has no size to ask for). */
static int perf_read_stream(struct ptd_perf **out, FILE *file, const char *path,
                            struct ptd_perf_diag *diag)
{
	uint8_t *buf = NULL;
	size_t size = 0, cap = 0;
	int err;

	for (;;) {
		size_t got;

		if (size == cap) {
			size_t ncap = cap ? 2 * cap : (size_t)1 << 20;
			uint8_t *nbuf;

			if (ncap < cap) {
				err = -pte_nomem;
				break;
			}
			nbuf = realloc(buf, ncap);
			if (!nbuf) {
				err = -pte_nomem;
				break;
			}
			buf = nbuf;
			cap = ncap;
		}
		got = fread(buf + size, 1, cap - size, file);
		size += got;
		if (got == 0) {
			err = ferror(file) ? -pte_bad_file : 0;
			break;
		}
	}
	if (err == -pte_bad_file)
		ptd_perf_fail(diag, err, size, "cannot read %s: %s", path,
		              strerror(errno));
	else if (err == -pte_nomem)
		ptd_perf_fail(diag, err, size, "out of memory reading %s",
		              path);
	else
		err = ptd_perf_parse(out, buf ? (const void *)buf : "", size,
		                     diag);
	free(buf);
	return err;
}

int ptd_perf_read(struct ptd_perf **out, const char *path,
                  struct ptd_perf_diag *diag)
{
	struct stat st;
	FILE *file;
	void *map;
	int fd, err;

	if (diag)
		memset(diag, 0, sizeof(*diag));
	if (!out || !path)
		return ptd_perf_fail(diag, -pte_invalid, 0, "a NULL argument");
	*out = NULL;
	if (strcmp(path, "-") == 0)
		return perf_read_stream(out, stdin, "standard input", diag);

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return ptd_perf_fail(diag, -pte_bad_file, 0,
		                     "cannot open %s: %s", path,
		                     strerror(errno));
	/* A directory is perf record --threads' format (perf_dir.c). */
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return ptd_perf_read_dir(out, path, diag);
	}
	/* A regular file is mapped: the trace is then in memory once, in
	 * the copy the parse makes. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= SIZE_MAX) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
		           0);
		if (map != MAP_FAILED) {
			close(fd);
			err = ptd_perf_parse(out, map, (size_t)st.st_size,
			                     diag);
			munmap(map, (size_t)st.st_size);
			return err;
		}
	}
	file = fdopen(fd, "rb");
	if (!file) {
		err = errno;
		close(fd);
		return ptd_perf_fail(diag, -pte_bad_file, 0,
		                     "cannot read %s: %s", path, strerror(err));
	}
	err = perf_read_stream(out, file, path, diag);
	fclose(file);
	return err;
}
