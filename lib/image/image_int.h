/* SPDX-License-Identifier: BSD-3-Clause */
/* The traced image's structure, shared by the files of lib/image. */
#ifndef PTD_IMAGE_INT_H
#define PTD_IMAGE_INT_H

#include "image/section.h"

#include <stddef.h>
#include <stdint.h>

/* One section of an image. */
struct ptd_image_entry {
	/* The section (a reference). */
	struct ptd_section *sec;

	/* Its address space, whole (see asid.h). */
	struct pt_asid asid;

	/* Its isid: that of the image section cache it came from, or 0. */
	int isid;

	/* The section's bytes at sec->vaddr once the image has mapped it (the
	 * image then holds one use of the mapping), else NULL. */
	const uint8_t *data;

	/* sec->vaddr and sec->size, here for the search. */
	uint64_t vaddr;
	uint64_t size;
};

/* Where a lookup found a section: in the address space (cr3, vmcs), the
 * bytes [lo, lo + span] are at begin.  section is the entry's section if
 * that is all of it, else NULL. */
struct ptd_image_window {
	uint64_t lo;
	uint64_t span;
	uint64_t cr3;
	uint64_t vmcs;
	const uint8_t *begin;
	struct ptd_section *section;
	int isid;
};

/* An entry of the sorted index: the entry's address and position. */
struct ptd_image_key {
	uint64_t vaddr;
	size_t pos;
};

/* The number of lookups an image remembers. */
enum { ptd_image_windows = 8 };

struct pt_image {
	/* A copy of the user's name, or NULL. */
	char *name;

	/* The sections, oldest first.  Sections whose address spaces match
	 * each other never overlap. */
	struct ptd_image_entry *entries;
	size_t count;
	size_t capacity;

	/* The read-memory callback and its context. */
	read_memory_callback_t *callback;
	void *context;

	/* At least the end of every entry (vaddr + size, up to 2^64): a new
	 * section that starts there overlaps none (the common case of
	 * sections added in address order needs no search). */
	unsigned __int128 max_end;

	/* At most the start of every entry: a new section that ends there
	 * overlaps none either (sections added in reverse address order). */
	uint64_t min_start;

	/* Changes with every change of the sections or the callback. */
	uint64_t generation;

	/* The entries sorted by address, made by the first search after a
	 * change in an image of more than a few entries, and whether any two
	 * entries overlap (sections of address spaces that do not match
	 * each other may).  Without overlaps, a binary search finds the only
	 * entry that can hold an address. */
	struct ptd_image_key *index;
	size_t index_capacity;
	int index_valid;
	int overlaps;

	/* The last lookups (valid while the image does not change), and the
	 * one to try first. */
	struct ptd_image_window windows[ptd_image_windows];
	unsigned nwindows;
	unsigned mru;
};

/* Add @sec (the caller's reference, which the image takes on success) to
 * @image in the whole address space @asid with @isid, the newest section
 * winning where sections of matching address spaces overlap.  Returns 0 or
 * -pte_nomem (nothing changed then). */
int ptd_image_add_section(struct pt_image *image, struct ptd_section *sec,
                          const struct pt_asid *asid, int isid);

#endif /* PTD_IMAGE_INT_H */
