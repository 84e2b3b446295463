/* SPDX-License-Identifier: BSD-3-Clause */
/* The image section cache as the image sees it. */
#ifndef PTD_IMAGE_ISCACHE_H
#define PTD_IMAGE_ISCACHE_H

#include "image/section.h"

#include <stddef.h>

struct pt_image_section_cache {
	/* A copy of the user's name, or NULL. */
	char *name;

	/* The lock, limit and idle list shared with the file sections. */
	struct ptd_iscache_core *core;

	/* Under core->lock: the sections, isid i at index i - 1. */
	struct ptd_section **sections;
	size_t count;
	size_t capacity;

	/* Under core->lock: the file sections by file name, offset, size and
	 * address, for pt_iscache_add_file(): an open-addressing table of
	 * isids (0: empty) with a power-of-two number of slots, at most half
	 * of them used. */
	int *table;
	size_t table_size;
	size_t table_used;
};

/* Store a new reference to the section @isid of @iscache in @psec.
 * Returns 0, -pte_bad_image if there is no such section, or -pte_bad_lock. */
int ptd_iscache_lookup(struct pt_image_section_cache *iscache, int isid,
                       struct ptd_section **psec);

#endif /* PTD_IMAGE_ISCACHE_H */
