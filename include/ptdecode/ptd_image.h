/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Traced image extensions: images and section caches filled from memory buffers
 * (JIT code, memory dumps), and loaders for common dump formats.
 *
 * Part of ptdecode's extensions (include <ptdecode/ptdecode.h>).  Everything
 * here has the ptd_ prefix; a negative return value is a negated
 * enum pt_error_code.
 */

#ifndef PTD_IMAGE_H
#define PTD_IMAGE_H

#include "intel-pt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Add the @size bytes at @buf to @image as a section loaded at @vaddr in
 * address space @asid (NULL for any), by the rules of pt_image_add_file():
 * the newest section wins where sections of matching address spaces
 * overlap.
 *
 * With @copy non-zero the bytes are copied now and @buf may be reused at
 * once.  With @copy zero the section refers to @buf, which the caller keeps
 * alive and unchanged for as long as any image (or copy of one) holds the
 * section.  Unlike the read-memory callback, such sections are cached by
 * the block decoder like file sections.  A section that reaches beyond the
 * end of the address space is cut there.  Returns 0 or: -pte_invalid for a
 * NULL @image or @buf, -pte_nomem. */
extern pt_export int ptd_image_add_buffer(struct pt_image *image,
                                          const void *buf, uint64_t size,
                                          const struct pt_asid *asid,
                                          uint64_t vaddr, int copy);

/** Add the @size bytes at @buf, loaded at @vaddr, to @iscache, as
 * ptd_image_add_buffer() does for an image (@copy likewise).  Every call
 * adds a new section: buffers are not compared.  Add it to images with
 * pt_image_add_cached().  Returns the section's isid (> 0) or: -pte_invalid
 * for a NULL @iscache or @buf, -pte_nomem. */
extern pt_export int
ptd_iscache_add_buffer(struct pt_image_section_cache *iscache, const void *buf,
                       uint64_t size, uint64_t vaddr, int copy);

/** Add a page dump in the libxdc/kAFL format to @image, in address space
 * @asid (NULL for any).
 *
 * @addr_path holds little-endian 64-bit page addresses; an address whose
 * low 12 bits are not all zero marks a page that was not mapped.
 * @dump_path holds the 4096-byte pages in the same order (page i at offset
 * i * 4096; unmapped pages have a slot too).  Each run of consecutive
 * entries that are mapped and whose addresses follow each other page by
 * page becomes one file section of @dump_path (mapped on first use, removed
 * with pt_image_remove_by_filename(@dump_path)); later pages win over
 * earlier ones at the same address.
 *
 * Returns the number of sections added (0 if no page is mapped) or:
 * -pte_invalid for a NULL @image, @addr_path or @dump_path, or a file that
 * cannot be opened; -pte_bad_file if the size of @addr_path is not a
 * multiple of 8 or if @dump_path is shorter than 4096 bytes times the
 * number of addresses; -pte_nomem.  After an error other than -pte_nomem
 * nothing has been added. */
extern pt_export int ptd_image_add_page_dump(struct pt_image *image,
                                             const char *addr_path,
                                             const char *dump_path,
                                             const struct pt_asid *asid);

/** Copy up to @size bytes of @image's memory at @vaddr in address space
 * @asid (NULL for any) into @buffer: from the section that holds @vaddr
 * (never beyond its end), or else through the image's read-memory callback,
 * as the flow decoders read code.  Returns the number of bytes copied (> 0)
 * or: -pte_invalid for a NULL @image or @buffer or a zero @size; -pte_nomap
 * if nothing holds @vaddr; an error from mapping a file (-pte_bad_image for
 * one that is gone or changed since it was added, -pte_bad_file,
 * -pte_nomem) or from the callback. */
extern pt_export int ptd_image_read_memory(struct pt_image *image,
                                           uint8_t *buffer, size_t size,
                                           const struct pt_asid *asid,
                                           uint64_t vaddr);

#ifdef __cplusplus
}
#endif

#endif /* PTD_IMAGE_H */
