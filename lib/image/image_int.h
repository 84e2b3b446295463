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
};

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

	/* Changes with every change of the sections or the callback. */
	uint64_t generation;

	/* The last lookup: in address space last_asid, the entry last_index
	 * holds [last_lo, last_lo + last_span]; last_whole if that is all of
	 * the entry's section. */
	int last_valid;
	int last_whole;
	struct pt_asid last_asid;
	size_t last_index;
	uint64_t last_lo;
	uint64_t last_span;
};

/* Add @sec (the caller's reference, which the image takes on success) to
 * @image in the whole address space @asid with @isid, the newest section
 * winning where sections of matching address spaces overlap.  Returns 0 or
 * -pte_nomem (nothing changed then). */
int ptd_image_add_section(struct pt_image *image, struct ptd_section *sec,
                          const struct pt_asid *asid, int isid);

#endif /* PTD_IMAGE_INT_H */
