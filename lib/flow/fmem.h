/* SPDX-License-Identifier: BSD-3-Clause */
/* The flow decoders' view of the traced code: instructions fetched from the
 * traced image and decoded once per address.
 *
 * Every section the decoder runs in gets a decode cache: pages of entries,
 * one entry per code byte offset, allocated when code in the page is first
 * executed.  An entry holds what the flow decoders need of the instruction
 * at that address (size, class, kind, branch displacement) and, for the
 * block decoder, the length of the straight-line run that starts there: how
 * many instructions without any effect on the control flow or on event
 * binding follow before the next instruction that needs attention.
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
	/* The block decoder's entry for this address (see block_decoder.c):
	 * @bqual 0 means none. */
	int32_t bdisp;
	uint16_t bninsn;
	uint8_t bqual;
	uint8_t bmode_isize; /* mode in bits 1:0, size in bits 7:2 */
};

enum {
	ptd_fce_direct = 1 << 0,
	ptd_fce_mode_shift = 4 /* two bits of enum pt_exec_mode */
};

/* A straight path through the code of one section: from @ip on, @ninsn
 * instructions that need no trace and bind no event while none is waiting
 * (ordinary instructions and direct jumps), the last one at @last_ip, then
 * the instruction at @next_ip.  With @term, that instruction lies in the
 * section too and its decoding is here (@t_*); else the path ends at the
 * section's end, at an instruction that does not decode in the section, or
 * at the length limit, and @next_ip is where the flow goes on. */
struct ptd_fpath {
	uint64_t ip;
	uint64_t next_ip;
	uint64_t last_ip;
	uint32_t ninsn;
	uint8_t used;
	uint8_t mode;
	uint8_t last_iclass;
	uint8_t term;
	uint8_t t_size;
	uint8_t t_iclass;
	uint8_t t_kind;
	uint8_t t_direct;
	int32_t t_disp;
	/* The paths the flow went on with after the terminating instruction
	 * (filled in by the block decoder): [0] after a not-taken
	 * conditional branch or a direct call, [1] after a taken one. */
	struct ptd_fpath *succ[2];
};

/* Paths live in chunks that never move. */
struct ptd_fchunk {
	struct ptd_fchunk *next;
	uint32_t used;
	struct ptd_fpath path[255];
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
	/* The paths that start in the section: open addressing by IP. */
	struct ptd_fpath **paths;
	uint32_t path_mask;
	uint32_t npaths;
	struct ptd_fchunk *chunks;
};

/* The memory of one flow decoder. */
struct ptd_fmem {
	struct pt_image *image;
	uint64_t generation;
	/* The section of the last fetch (may be NULL). */
	struct ptd_fsec *cur;
	/* Every section cache. */
	struct ptd_fsec *secs;
	size_t nsecs, capacity;
	struct ptd_ild_ctx *ild;
	/* The block decoder's last path whose terminating branch it
	 * followed, and which successor slot that went to (cleared whenever
	 * the caches or the current section are dropped). */
	struct ptd_fpath *last_path;
	int last_slot;
};

/* Set up and tear down @mem.  ptd_fmem_init() returns 0 or -pte_nomem. */
int ptd_fmem_init(struct ptd_fmem *mem);
void ptd_fmem_fini(struct ptd_fmem *mem);

/* Use @image from now on (drops the caches). */
void ptd_fmem_set_image(struct ptd_fmem *mem, struct pt_image *image);

/* Drop the caches if the image changed since the last call.  The flow
 * decoders call it at the start of every pt_*_next() and pt_*_event(). */
void ptd_fmem_check(struct ptd_fmem *mem);

/* Forget the current section (the address space changed). */
static inline void ptd_fmem_forget(struct ptd_fmem *mem)
{
	mem->cur = NULL;
	mem->last_path = NULL;
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

static inline struct ptd_fce *ptd_fmem_entry(struct ptd_fmem *mem, uint64_t ip)
{
	struct ptd_fsec *sec = mem->cur;
	uint64_t off;
	struct ptd_fce *page;

	if (!sec)
		return NULL;
	off = ip - sec->vaddr;
	if (off >= sec->size)
		return NULL;
	page = sec->pages[off >> ptd_fpage_bits];
	if (!page)
		return ptd_fmem_page_entry(sec, off);
	return &page[off & ((1u << ptd_fpage_bits) - 1)];
}

/* Fetch the instruction at @ip: from the cache when possible. */
static inline int ptd_fmem_fetch(struct ptd_fmem *mem, struct ptd_finsn *insn,
                                 const struct pt_asid *asid, uint64_t ip,
                                 enum pt_exec_mode mode)
{
	struct ptd_fce *e = ptd_fmem_entry(mem, ip);

	if (e && e->size &&
	    ((e->flags >> ptd_fce_mode_shift) & 3) == (unsigned)mode) {
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

/* The path from @ip in @mode, @ip lying in the current section (mem->cur);
 * with @stop_on_jump, direct jumps end paths like other branches.  Returns
 * NULL if memory runs out (take the slow path). */
struct ptd_fpath *ptd_fmem_path_build(struct ptd_fmem *mem, uint64_t ip,
                                      enum pt_exec_mode mode, int stop_on_jump);

static inline struct ptd_fpath *ptd_fmem_path(struct ptd_fmem *mem, uint64_t ip,
                                              enum pt_exec_mode mode,
                                              int stop_on_jump)
{
	const struct ptd_fsec *sec = mem->cur;

	if (sec->paths) {
		uint32_t h = (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> 40);
		struct ptd_fpath *p;

		for (;; h++) {
			p = sec->paths[h & sec->path_mask];
			if (!p)
				break;
			if (p->ip == ip && p->mode == (uint8_t)mode)
				return p;
		}
	}
	return ptd_fmem_path_build(mem, ip, mode, stop_on_jump);
}

/* Fill @insn with the terminating instruction of @path (path->term set),
 * from section @sec. */
static inline void ptd_fmem_path_term(const struct ptd_fsec *sec,
                                      const struct ptd_fpath *path,
                                      struct ptd_finsn *insn)
{
	insn->ip = path->next_ip;
	insn->raw = sec->mem + (path->next_ip - sec->vaddr);
	insn->size = path->t_size;
	insn->iclass = path->t_iclass;
	insn->kind = path->t_kind;
	insn->is_direct = path->t_direct;
	insn->truncated = 0;
	insn->mode = path->mode;
	insn->disp = path->t_disp;
	insn->isid = sec->isid;
	insn->sec = sec;
}

#endif /* PTD_FLOW_FMEM_H */
