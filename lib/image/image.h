/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The traced image as the flow decoders see it (internal interface of
 * lib/image; the public API is in intel-pt.h, section 9, and ptd_image.h).
 *
 * The flow layer never reads an image byte by byte: it asks for the mapped
 * section that holds an address and then decodes straight out of the
 * section's memory, caching what it learns per section.
 */

#ifndef PTD_IMAGE_H_INTERNAL
#define PTD_IMAGE_H_INTERNAL

#include "intel-pt.h"

#include <stdint.h>

struct ptd_section;

/* A mapped section: the code bytes of [vaddr, vaddr + size) in memory. */
struct ptd_msec {
	/* The bytes at vaddr; valid while the image holds the section. */
	const uint8_t *begin;
	/* The virtual address of begin[0] and the number of bytes. */
	uint64_t vaddr;
	uint64_t size;
	/* The image section identifier (0 if the section has none). */
	int isid;
	/* The section itself, for ptd_section_cache().  Normally [vaddr,
	 * vaddr + size) is the whole section.  When newer sections of other
	 * address spaces that the lookup's address space also matches cover
	 * parts of it, it is only the part around the address looked up, and
	 * section is NULL (no per-section cache for such a part). */
	struct ptd_section *section;
};

/* Find the section of @image that contains @vaddr in address space @asid,
 * mapping it if it is not mapped yet, and describe it in @msec.
 *
 * Returns 0, -pte_nomap if no section holds @vaddr (the read-memory
 * callback is not consulted: use ptd_image_read() for that), -pte_invalid
 * for NULL arguments, or another error from mapping the file
 * (-pte_bad_file, -pte_nomem). */
int ptd_image_find(struct pt_image *image, struct ptd_msec *msec,
                   const struct pt_asid *asid, uint64_t vaddr);

/* Read up to @size bytes at @vaddr in @asid into @buffer: from the section
 * holding @vaddr (not beyond its end), or else through the image's
 * read-memory callback.  Stores the section's isid in @isid (0 for the
 * callback).  Returns the number of bytes read (> 0), -pte_nomap, or
 * another negative error. */
int ptd_image_read(struct pt_image *image, int *isid, uint8_t *buffer,
                   uint16_t size, const struct pt_asid *asid, uint64_t vaddr);

/* A number that changes whenever @image changes (a section added or
 * removed, the callback set), so that a decoder can tell when the sections
 * it remembers may be gone. */
uint64_t ptd_image_generation(const struct pt_image *image);

/* Where @image keeps that number (valid as long as @image lives), for
 * decoders that check it on every call without a function call. */
const uint64_t *ptd_image_generation_at(const struct pt_image *image);

/* The per-section cache slot for the flow layer (its block cache).  The
 * section owns the cache once set and frees it with @free_cache when the
 * section itself goes away.  ptd_section_set_cache() fails with
 * -pte_bad_context if a cache is already set.  The slot is not locked:
 * whoever shares a section between threads must not use the slot from more
 * than one of them. */
void *ptd_section_cache(const struct ptd_section *section);
int ptd_section_set_cache(struct ptd_section *section, void *cache,
                          void (*free_cache)(void *cache));

#endif /* PTD_IMAGE_H_INTERNAL */
