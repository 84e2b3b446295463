/* SPDX-License-Identifier: BSD-3-Clause */
/* Instruction fetch and the per-section decode caches of the flow layer. */
#include "fmem.h"

#include <stdlib.h>
#include <string.h>

int ptd_fmem_init(struct ptd_fmem *mem)
{
	memset(mem, 0, sizeof(*mem));
	mem->ild = ptd_ild_alloc();
	if (!mem->ild)
		return -pte_nomem;
	return 0;
}

void ptd_fmem_flush(struct ptd_fmem *mem)
{
	size_t i;
	uint32_t p;

	for (i = 0; i < mem->nsecs; i++) {
		struct ptd_fsec *sec = &mem->secs[i];

		for (p = 0; p < sec->npages; p++) {
			free(sec->pages[p]);
			if (sec->bpages)
				free(sec->bpages[p]);
		}
		free(sec->pages);
		free(sec->bpages);
	}
	mem->nsecs = 0;
	mem->cur = NULL;
}

void ptd_fmem_fini(struct ptd_fmem *mem)
{
	ptd_fmem_flush(mem);
	free(mem->secs);
	mem->secs = NULL;
	mem->capacity = 0;
	ptd_ild_free(mem->ild);
	mem->ild = NULL;
}

void ptd_fmem_set_image(struct ptd_fmem *mem, struct pt_image *image)
{
	ptd_fmem_flush(mem);
	mem->image = image;
	mem->generation_at = ptd_image_generation_at(image);
	mem->generation = mem->generation_at ? *mem->generation_at : 0;
}

struct ptd_fce *ptd_fmem_page_entry(struct ptd_fsec *sec, uint64_t off)
{
	uint64_t p = off >> ptd_fpage_bits;
	struct ptd_fce *page;

	if (p >= sec->npages)
		return NULL;
	page = sec->pages[p];
	if (!page) {
		page = calloc((size_t)1 << ptd_fpage_bits, sizeof(*page));
		if (!page)
			return NULL;
		sec->pages[p] = page;
	}
	return &page[off & ((1u << ptd_fpage_bits) - 1)];
}

/* Make the section that holds @ip the current one.  Returns 0, -pte_nomap
 * if no section holds it, or another error. */
int ptd_fmem_select(struct ptd_fmem *mem, const struct pt_asid *asid,
                    uint64_t ip)
{
	struct ptd_msec msec;
	struct ptd_fsec *sec;
	size_t i;
	uint64_t npages;
	int err;

	mem->cur = NULL;
	if (!mem->image)
		return -pte_nomap;
	err = ptd_image_find(mem->image, &msec, asid, ip);
	if (err < 0)
		return err;
	if (!msec.size || ip - msec.vaddr >= msec.size)
		return -pte_internal;

	for (i = 0; i < mem->nsecs; i++) {
		sec = &mem->secs[i];
		if (sec->section == msec.section && sec->mem == msec.begin &&
		    sec->vaddr == msec.vaddr && sec->size == msec.size) {
			sec->isid = msec.isid;
			mem->cur = sec;
			return 0;
		}
	}

	if (mem->nsecs == mem->capacity) {
		size_t cap = mem->capacity ? 2 * mem->capacity : 8;
		struct ptd_fsec *secs;

		secs = realloc(mem->secs, cap * sizeof(*secs));
		if (!secs)
			return -pte_nomem;
		mem->secs = secs;
		mem->capacity = cap;
	}
	npages = (msec.size + (1u << ptd_fpage_bits) - 1) >> ptd_fpage_bits;
	if (npages > UINT32_MAX)
		return -pte_nomem;
	sec = &mem->secs[mem->nsecs];
	memset(sec, 0, sizeof(*sec));
	sec->pages = calloc((size_t)npages, sizeof(*sec->pages));
	if (!sec->pages)
		return -pte_nomem;
	sec->npages = (uint32_t)npages;
	sec->section = msec.section;
	sec->mem = msec.begin;
	sec->vaddr = msec.vaddr;
	sec->size = msec.size;
	sec->isid = msec.isid;
	mem->nsecs++;
	mem->cur = sec;
	return 0;
}

static void finsn_from(struct ptd_finsn *insn, const struct ptd_ild *d)
{
	insn->size = d->size;
	insn->iclass = d->iclass;
	insn->kind = d->kind;
	insn->is_direct = d->is_direct ? 1 : 0;
	insn->disp = d->disp;
}

/* Decode from the image byte by byte (the read-memory callback, or an
 * instruction that crosses the end of its section). */
static int fmem_fetch_image(struct ptd_fmem *mem, struct ptd_finsn *insn,
                            const struct pt_asid *asid, uint64_t ip,
                            enum pt_exec_mode mode, int truncated)
{
	struct ptd_ild d;
	uint16_t have = 0;
	int isid = 0, err;

	/* Where no section holds the IP, libipt's decoders report the isid
	 * -pte_nomap, unless the read-memory callback answered (0). */
	insn->isid = -pte_nomap;
	if (!mem->image)
		return -pte_nomap;
	while (have < pt_max_insn_size) {
		/* (ptd_image_read() sets 0 if it asked the callback.) */
		int part_isid = -pte_nomap;
		int got = ptd_image_read(
		        mem->image, &part_isid, insn->buf + have,
		        (uint16_t)(pt_max_insn_size - have), asid, ip + have);

		if (got < 0) {
			if (!have) {
				insn->isid = got == -pte_nomap ? part_isid : 0;
				return got;
			}
			break;
		}
		if (!got)
			break;
		if (!have)
			isid = part_isid;
		have = (uint16_t)(have + got);
		/* One read is enough unless the bytes were cut short. */
		err = ptd_ild_decode(mem->ild, &d, insn->buf, have, mode);
		if (!err) {
			insn->ip = ip;
			insn->raw = insn->buf;
			finsn_from(insn, &d);
			insn->truncated = (truncated || got < have) ? 1 : 0;
			insn->mode = (uint8_t)mode;
			insn->isid = isid;
			return 0;
		}
		if (err != -pte_bad_insn)
			return err;
	}
	insn->ip = ip;
	insn->raw = insn->buf;
	insn->size = (uint8_t)have;
	insn->isid = isid;
	return -pte_bad_insn;
}

int ptd_fmem_fetch_slow(struct ptd_fmem *mem, struct ptd_finsn *insn,
                        const struct pt_asid *asid, uint64_t ip,
                        enum pt_exec_mode mode)
{
	struct ptd_fsec *sec = mem->cur;
	struct ptd_fce *e;
	struct ptd_ild d;
	uint64_t off, avail;
	int err;

	insn->truncated = 0;
	insn->mode = (uint8_t)mode;
	if (!sec || ip - sec->vaddr >= sec->size) {
		err = ptd_fmem_select(mem, asid, ip);
		if (err < 0) {
			if (err != -pte_nomap)
				return err;
			/* No section: maybe the read-memory callback. */
			insn->sec = NULL;
			return fmem_fetch_image(mem, insn, asid, ip, mode, 0);
		}
		sec = mem->cur;
	}

	insn->sec = sec;
	off = ip - sec->vaddr;
	avail = sec->size - off;
	if (avail > pt_max_insn_size)
		avail = pt_max_insn_size;
	err = ptd_ild_decode(mem->ild, &d, sec->mem + off, (size_t)avail, mode);
	if (err < 0) {
		if (err != -pte_bad_insn || avail == pt_max_insn_size) {
			insn->ip = ip;
			insn->raw = sec->mem + off;
			insn->size = (uint8_t)avail;
			insn->isid = sec->isid;
			return err;
		}
		/* The instruction may continue in the next section. */
		err = fmem_fetch_image(mem, insn, asid, ip, mode, 1);
		if (!err)
			insn->isid = sec->isid;
		return err;
	}

	insn->ip = ip;
	insn->raw = sec->mem + off;
	finsn_from(insn, &d);
	insn->isid = sec->isid;

	e = ptd_fmem_page_entry(sec, off);
	if (e && (unsigned)mode < 4) {
		e->size = d.size;
		e->iclass = d.iclass;
		e->kind = d.kind;
		e->disp = d.disp;
		e->flags = (uint8_t)((d.is_direct ? ptd_fce_direct : 0) |
		                     ((unsigned)mode << ptd_fce_mode_shift));
	}
	return 0;
}
