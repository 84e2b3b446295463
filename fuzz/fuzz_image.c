/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the traced image (lib/image) against a plain model.
 *
 * Input: a script of operations, 4 bytes each: an opcode byte and three
 * argument bytes.  Two images and an image section cache of memory sections
 * are built with ptd_image_add_buffer(), ptd_iscache_add_buffer(),
 * pt_image_add_cached(), pt_image_copy() and pt_image_remove_by_asid(), in
 * four address spaces (any, two CR3s, a CR3 with a VMCS), at addresses in a
 * small window so that sections overlap; lookups read single bytes.
 *
 * The model keeps every image as a list of pieces (address, size, address
 * space, the section's bytes and isid) and applies libipt's rules in the
 * most direct way: a new section cuts what it covers out of every piece of a
 * matching address space; a lookup takes the newest piece that holds the
 * address in a matching address space.  Checks: every return value and
 * removal count, every byte and isid read (ptd_image_read,
 * ptd_image_read_memory, ptd_image_find and the bytes of the window it
 * returns), pt_iscache_read, and no sanitizer report. */
#include "fuzz_common.h"

#include "image/image.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	fi_max_ops = 256,
	fi_max_pieces = 512,
	fi_max_cached = 32,
	fi_window = 0x400 /* addresses 0x1000 .. 0x1000 + 0x400 + 0xff */
};

static const struct pt_asid fi_asids[4] = {
        {sizeof(struct pt_asid), UINT64_MAX, UINT64_MAX},
        {sizeof(struct pt_asid), 0x1000, UINT64_MAX},
        {sizeof(struct pt_asid), 0x2000, UINT64_MAX},
        {sizeof(struct pt_asid), 0x1000, 0x7000},
};

/* A section's bytes: section id @id, offset @off. */
static uint8_t fi_byte(unsigned id, uint64_t off)
{
	return (uint8_t)(id * 29 + off * 7 + (off >> 3));
}

struct fi_piece {
	uint64_t vaddr, size;
	unsigned asid;
	unsigned id;    /* the section's bytes */
	uint64_t start; /* the section's address (its byte 0) */
	int isid;
};

struct fi_model {
	struct fi_piece p[fi_max_pieces];
	size_t n;
	int full;
	/* Room for fi_model_add(). */
	struct fi_piece out[fi_max_pieces], extra[2 * fi_max_pieces];
};

static int fi_match(unsigned a, unsigned b)
{
	const struct pt_asid *x = &fi_asids[a], *y = &fi_asids[b];

	return (x->cr3 == UINT64_MAX || y->cr3 == UINT64_MAX ||
	        x->cr3 == y->cr3) &&
	       (x->vmcs == UINT64_MAX || y->vmcs == UINT64_MAX ||
	        x->vmcs == y->vmcs);
}

/* Add @np to @m: cut it out of matching pieces (an empty section inside a
 * piece splits it, as in libipt), then append it. */
static void fi_model_add(struct fi_model *m, const struct fi_piece *np)
{
	struct fi_piece *out = m->out, *extra = m->extra;
	size_t i, n = 0, nextra = 0;
	uint64_t b = np->vaddr, e = np->vaddr + np->size;

	if (m->full)
		return;
	for (i = 0; i < m->n; ++i) {
		const struct fi_piece *q = &m->p[i];
		uint64_t qe = q->vaddr + q->size;

		if (!fi_match(q->asid, np->asid) || e <= q->vaddr || qe <= b) {
			out[n++] = *q;
			continue;
		}
		if (q->vaddr < b) {
			extra[nextra] = *q;
			extra[nextra++].size = b - q->vaddr;
		}
		if (e < qe) {
			extra[nextra] = *q;
			extra[nextra].vaddr = e;
			extra[nextra++].size = qe - e;
		}
	}
	if (n + 1 + nextra > fi_max_pieces) {
		m->full = 1;
		return;
	}
	out[n++] = *np;
	for (i = 0; i < nextra; ++i)
		out[n++] = extra[i];
	memcpy(m->p, out, n * sizeof(out[0]));
	m->n = n;
}

static int fi_model_remove(struct fi_model *m, unsigned asid)
{
	size_t i, w = 0;
	int removed = 0;

	for (i = 0; i < m->n; ++i) {
		if (fi_match(m->p[i].asid, asid))
			removed += 1;
		else
			m->p[w++] = m->p[i];
	}
	m->n = w;
	return removed;
}

/* The newest piece that holds @vaddr for lookups in @asid, or NULL. */
static const struct fi_piece *fi_model_find(const struct fi_model *m,
                                            unsigned asid, uint64_t vaddr)
{
	size_t i;

	for (i = m->n; i-- > 0;)
		if (vaddr - m->p[i].vaddr < m->p[i].size &&
		    fi_match(m->p[i].asid, asid))
			return &m->p[i];
	return NULL;
}

struct fi_state {
	struct pt_image *image[2];
	struct fi_model model[2];
	struct pt_image_section_cache *iscache;
	/* The cache's sections: id, address, size; isid i + 1. */
	struct fi_piece cached[fi_max_cached];
	unsigned ncached;
	unsigned next_id;
	uint8_t *bufs[fi_max_ops + fi_max_cached];
	unsigned nbufs;
};

/* A buffer with the bytes of section @id (kept until the end: borrowed
 * buffers must outlive their sections). */
static const uint8_t *fi_buffer(struct fi_state *st, unsigned id, uint64_t size)
{
	uint8_t *buf = fuzz_alloc((size_t)size);
	uint64_t i;

	for (i = 0; i < size; ++i)
		buf[i] = fi_byte(id, i);
	st->bufs[st->nbufs++] = buf;
	return buf;
}

static void fi_lookup(struct fi_state *st, unsigned k, unsigned asid,
                      uint64_t vaddr)
{
	const struct fi_piece *want = fi_model_find(&st->model[k], asid, vaddr);
	struct ptd_msec msec;
	uint8_t byte = 0;
	int isid = -1, got;

	got = ptd_image_read(st->image[k], &isid, &byte, 1, &fi_asids[asid],
	                     vaddr);
	if (!want) {
		FUZZ_CHECK(got == -pte_nomap, "read at %llx: %d, want nomap",
		           (unsigned long long)vaddr, got);
		FUZZ_CHECK(ptd_image_find(st->image[k], &msec, &fi_asids[asid],
		                          vaddr) == -pte_nomap,
		           "find at %llx", (unsigned long long)vaddr);
		return;
	}
	FUZZ_CHECK(got == 1, "read at %llx: %d", (unsigned long long)vaddr,
	           got);
	FUZZ_CHECK(byte == fi_byte(want->id, vaddr - want->start),
	           "byte at %llx", (unsigned long long)vaddr);
	FUZZ_CHECK(isid == want->isid, "isid at %llx: %d, want %d",
	           (unsigned long long)vaddr, isid, want->isid);

	FUZZ_CHECK(ptd_image_find(st->image[k], &msec, &fi_asids[asid],
	                          vaddr) == 0,
	           "find at %llx", (unsigned long long)vaddr);
	FUZZ_CHECK(vaddr - msec.vaddr < msec.size, "window");
	FUZZ_CHECK(msec.isid == want->isid, "window isid");
	/* The first and the last byte of the window are the piece's, or a
	 * piece's of the same section the lookup finds there too. */
	{
		uint64_t at[2] = {msec.vaddr, msec.vaddr + msec.size - 1};
		unsigned j;

		for (j = 0; j < 2; ++j) {
			const struct fi_piece *p;

			p = fi_model_find(&st->model[k], asid, at[j]);
			FUZZ_CHECK(p && p->id == want->id &&
			                   msec.begin[at[j] - msec.vaddr] ==
			                           fi_byte(p->id,
			                                   at[j] - p->start),
			           "window byte at %llx",
			           (unsigned long long)at[j]);
		}
	}
	FUZZ_CHECK(ptd_image_read_memory(st->image[k], &byte, 1,
	                                 &fi_asids[asid], vaddr) == 1 &&
	                   byte == fi_byte(want->id, vaddr - want->start),
	           "read_memory at %llx", (unsigned long long)vaddr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fi_state *st = fuzz_alloc(sizeof(*st));
	size_t pos, nops = 0;
	unsigned i, k;

	memset(st, 0, sizeof(*st));
	st->image[0] = pt_image_alloc("a");
	st->image[1] = pt_image_alloc("b");
	st->iscache = pt_iscache_alloc("c");
	FUZZ_CHECK(st->image[0] && st->image[1] && st->iscache, "alloc");

	for (pos = 0; pos + 4 <= size && nops < fi_max_ops; pos += 4, ++nops) {
		uint8_t op = data[pos], a1 = data[pos + 1], a2 = data[pos + 2],
		        a3 = data[pos + 3];
		unsigned asid = (op >> 3) & 3;
		struct fi_piece np;
		int got, want;

		k = (op >> 5) & 1;
		switch (op & 7) {
		case 0:
		case 1: /* a memory section */
			np.vaddr = 0x1000 + (((uint64_t)a1 << 2) | (a3 & 3));
			np.size = (op & 1) ? a2 : (uint64_t)a2 * 4;
			np.asid = asid;
			np.id = st->next_id++;
			np.start = np.vaddr;
			np.isid = 0;
			got = ptd_image_add_buffer(
			        st->image[k], fi_buffer(st, np.id, np.size),
			        np.size, &fi_asids[asid], np.vaddr, a3 & 4);
			FUZZ_CHECK(got == 0, "add_buffer: %d", got);
			fi_model_add(&st->model[k], &np);
			break;
		case 2: /* a section of the cache */
			if (st->ncached < fi_max_cached && (a3 & 1)) {
				np.vaddr = 0x1000 + ((uint64_t)a1 << 2);
				np.size = (uint64_t)a2 * 2;
				np.id = st->next_id++;
				np.start = np.vaddr;
				got = ptd_iscache_add_buffer(
				        st->iscache,
				        fi_buffer(st, np.id, np.size), np.size,
				        np.vaddr, a3 & 2);
				FUZZ_CHECK(got == (int)st->ncached + 1,
				           "iscache isid %d", got);
				np.isid = got;
				st->cached[st->ncached++] = np;
			}
			if (!st->ncached)
				break;
			np = st->cached[a1 % st->ncached];
			np.asid = asid;
			got = pt_image_add_cached(st->image[k], st->iscache,
			                          np.isid, &fi_asids[asid]);
			FUZZ_CHECK(got == 0, "add_cached: %d", got);
			fi_model_add(&st->model[k], &np);
			break;
		case 3: /* a bad isid */
			got = pt_image_add_cached(st->image[k], st->iscache,
			                          (int)st->ncached + 1 + a1 % 3,
			                          NULL);
			FUZZ_CHECK(got == -pte_bad_image, "bad isid: %d", got);
			break;
		case 4: /* copy */
			got = pt_image_copy(st->image[k], st->image[!k]);
			FUZZ_CHECK(got == 0, "copy: %d", got);
			for (i = 0; i < st->model[!k].n; ++i)
				fi_model_add(&st->model[k],
				             &st->model[!k].p[i]);
			break;
		case 5: /* remove */
			want = fi_model_remove(&st->model[k], asid);
			got = pt_image_remove_by_asid(st->image[k],
			                              &fi_asids[asid]);
			FUZZ_CHECK(got == want, "removed %d, want %d", got,
			           want);
			break;
		case 6: /* cache read */
			if (!st->ncached)
				break;
			np = st->cached[a1 % st->ncached];
			{
				uint8_t buf[520];
				uint64_t off = a2 % (np.size + 2);

				got = pt_iscache_read(st->iscache, buf,
				                      (uint64_t)a3 + 1, np.isid,
				                      np.vaddr + off);
				if (off >= np.size)
					FUZZ_CHECK(got == -pte_nomap,
					           "iscache read: %d", got);
				else {
					uint64_t n = np.size - off;

					if (n > (uint64_t)a3 + 1)
						n = (uint64_t)a3 + 1;
					FUZZ_CHECK(got == (int)n,
					           "iscache read: %d", got);
					FUZZ_CHECK(buf[n - 1] ==
					                   fi_byte(np.id,
					                           off + n - 1),
					           "iscache byte");
				}
			}
			break;
		default: /* lookups */
			for (i = 0; i < 4; ++i)
				fi_lookup(st, k, (asid + i) & 3,
				          0x1000 +
				                  (((uint64_t)a1 << 2) |
				                   (a2 & 3)) +
				                  (uint64_t)i * a3);
			break;
		}
		if (st->model[0].full || st->model[1].full)
			break;
	}

	/* Finally every address of the window in both images. */
	if (!st->model[0].full && !st->model[1].full)
		for (k = 0; k < 2; ++k)
			for (i = 0; i < fi_window + 0x100; i += 5)
				fi_lookup(st, k, i & 3, 0x1000 + i);

	pt_image_free(st->image[0]);
	pt_image_free(st->image[1]);
	pt_iscache_free(st->iscache);
	for (i = 0; i < st->nbufs; ++i)
		free(st->bufs[i]);
	free(st);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
