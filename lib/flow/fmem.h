/* SPDX-License-Identifier: BSD-3-Clause */
/* The flow decoders' view of the traced code: instructions fetched from the
 * traced image and decoded once per address.
 *
 * Every section the decoder runs in gets a decode cache: pages of entries,
 * one entry per code byte offset, allocated when code in the page is first
 * executed.  An entry holds what the flow decoders need of the instruction
 * at that address (size, class, kind, branch displacement).  The block
 * decoder's cache (block_decoder.c) has 64-bit entries in pages of its own.
 *
 * The caches belong to one decoder (no sharing, no locks) and are dropped
 * when the image changes (ptd_image_generation()). */
#ifndef PTD_FLOW_FMEM_H
#define PTD_FLOW_FMEM_H

#include "ptdecode/intel-pt.h"

#include "ild/ild.h"
#include "image/image.h"

#include <stddef.h>
#include <stdint.h>

/* One decoded instruction as the flow decoders use it. */
struct ptd_finsn {
	uint64_t ip;
	/* The instruction's bytes (@size of them): in the section's memory
	 * or in @buf. */
	const uint8_t *raw;
	uint8_t size;
	uint8_t iclass;    /* enum pt_insn_class */
	uint8_t kind;      /* enum ptd_ild_kind */
	uint8_t is_direct; /* near branch with a displacement */
	uint8_t truncated; /* the bytes come from more than one section */
	uint8_t mode;      /* enum pt_exec_mode */
	int32_t disp;
	int isid;
	/* The section cache the instruction came from (NULL: the
	 * read-memory callback or bytes from several sections). */
	const struct ptd_fsec *sec;
	uint8_t buf[pt_max_insn_size];
};

/* A cache entry: the instruction at one address (valid if @size). */
struct ptd_fce {
	uint8_t size;
	uint8_t iclass;
	uint8_t kind;
	uint8_t flags; /* ptd_fce_* */
	int32_t disp;
};

enum {
	ptd_fce_direct = 1 << 0,
	ptd_fce_mode_shift = 4 /* two bits of enum pt_exec_mode */
};

enum { ptd_fpage_bits = 10 };

/* The decode cache of one section. */
struct ptd_fsec {
	const struct ptd_section *section;
	const uint8_t *mem;
	uint64_t vaddr;
	uint64_t size;
	int isid;
	uint32_t npages;
	struct ptd_fce **pages;
	/* The block decoder's cache: one 64-bit entry per code byte, in
	 * pages like @pages (see block_decoder.c). */
	uint64_t **bpages;
};

/* The memory of one flow decoder. */
struct ptd_fmem {
	struct pt_image *image;
	/* The image's generation when the caches were filled, and where the
	 * image keeps its current one (NULL without an image). */
	uint64_t generation;
	const uint64_t *generation_at;
	/* The section of the last fetch (may be NULL). */
	struct ptd_fsec *cur;
	/* Every section cache. */
	struct ptd_fsec *secs;
	size_t nsecs, capacity;
	struct ptd_ild_ctx *ild;
};

/* Set up and tear down @mem.  ptd_fmem_init() returns 0 or -pte_nomem. */
int ptd_fmem_init(struct ptd_fmem *mem);
void ptd_fmem_fini(struct ptd_fmem *mem);

/* Use @image from now on (drops the caches). */
void ptd_fmem_set_image(struct ptd_fmem *mem, struct pt_image *image);

/* Drop the caches (the image changed). */
void ptd_fmem_flush(struct ptd_fmem *mem);

/* Whether the image changed since the caches were filled. */
static inline int ptd_fmem_stale(const struct ptd_fmem *mem)
{
	return mem->generation_at && *mem->generation_at != mem->generation;
}

/* Drop the caches if the image changed since the last call.  The flow
 * decoders call it at the start of every pt_*_next() and pt_*_event(). */
static inline void ptd_fmem_check(struct ptd_fmem *mem)
{
	if (ptd_fmem_stale(mem)) {
		ptd_fmem_flush(mem);
		mem->generation = *mem->generation_at;
	}
}

/* Forget the current section (the address space changed). */
static inline void ptd_fmem_forget(struct ptd_fmem *mem)
{
	mem->cur = NULL;
}

/* Make the section that holds @ip in @asid the current one: 0, -pte_nomap,
 * or another error. */
int ptd_fmem_select(struct ptd_fmem *mem, const struct pt_asid *asid,
                    uint64_t ip);

/* Fetch and decode the instruction at @ip in @mode in address space @asid
 * into @insn.  Returns 0, -pte_nomap, -pte_bad_insn, or another error.  On
 * an error @insn->isid is what libipt reports (-pte_nomap when no section
 * holds @ip). */
int ptd_fmem_fetch_slow(struct ptd_fmem *mem, struct ptd_finsn *insn,
                        const struct pt_asid *asid, uint64_t ip,
                        enum pt_exec_mode mode);

/* The cache entry for @ip, if @ip lies in the current section: NULL
 * otherwise.  Allocates the page on first use (NULL if memory runs out:
 * the caller then takes the slow path). */
struct ptd_fce *ptd_fmem_page_entry(struct ptd_fsec *sec, uint64_t off);

/* The entry for offset @off (below sec->size) if its page exists, else
 * NULL. */
static inline struct ptd_fce *ptd_fsec_entry(const struct ptd_fsec *sec,
                                             uint64_t off)
{
	struct ptd_fce *page = sec->pages[off >> ptd_fpage_bits];

	return page ? &page[off & ((1u << ptd_fpage_bits) - 1)] : NULL;
}

/* Whether @e (may be NULL) holds a decoded instruction for @mode. */
static inline int ptd_fce_holds(const struct ptd_fce *e, enum pt_exec_mode mode)
{
	return e && e->size &&
	       ((e->flags >> ptd_fce_mode_shift) & 3) == (unsigned)mode;
}

static inline struct ptd_fce *ptd_fmem_entry(struct ptd_fmem *mem, uint64_t ip)
{
	struct ptd_fsec *sec = mem->cur;
	struct ptd_fce *e;
	uint64_t off;

	if (!sec)
		return NULL;
	off = ip - sec->vaddr;
	if (off >= sec->size)
		return NULL;
	e = ptd_fsec_entry(sec, off);
	return e ? e : ptd_fmem_page_entry(sec, off);
}

/* Fetch the instruction at @ip: from the cache when possible. */
static inline int ptd_fmem_fetch(struct ptd_fmem *mem, struct ptd_finsn *insn,
                                 const struct pt_asid *asid, uint64_t ip,
                                 enum pt_exec_mode mode)
{
	struct ptd_fce *e = ptd_fmem_entry(mem, ip);

	if (ptd_fce_holds(e, mode)) {
		const struct ptd_fsec *sec = mem->cur;

		insn->ip = ip;
		insn->raw = sec->mem + (ip - sec->vaddr);
		insn->size = e->size;
		insn->iclass = e->iclass;
		insn->kind = e->kind;
		insn->is_direct = e->flags & ptd_fce_direct;
		insn->truncated = 0;
		insn->mode = (uint8_t)mode;
		insn->disp = e->disp;
		insn->isid = sec->isid;
		insn->sec = sec;
		return 0;
	}
	return ptd_fmem_fetch_slow(mem, insn, asid, ip, mode);
}

#endif /* PTD_FLOW_FMEM_H */
