/* SPDX-License-Identifier: BSD-3-Clause */
/* Files of file sections: their size, and mapping a range of one. */
#ifndef PTD_IMAGE_FILE_H
#define PTD_IMAGE_FILE_H

#include "image/section.h"

#include <stddef.h>
#include <stdint.h>

/* Store the size of @filename in @size.  Returns 0, or -pte_invalid if the
 * file does not exist or cannot be examined (as libipt). */
int ptd_file_size(const char *filename, uint64_t *size);

/* ptd_file_size(), and the time of the file's last change (seconds, as
 * stat() gives it) in @mtime unless it is NULL. */
int ptd_file_stat(const char *filename, uint64_t *size, int64_t *mtime);

/* Map the @size bytes at @offset in @filename, whose size and change time
 * were @fsize and @mtime when the section was made: with mmap() where
 * possible, else by reading them into allocated memory.  Stores the address
 * of the first byte in @data and what ptd_file_unmap() needs in @base, @len
 * and @kind.  Returns 0, -pte_bad_image if the file cannot be opened or
 * its size or change time is not what it was (as libipt), -pte_bad_file if
 * it cannot be read, or -pte_nomem. */
int ptd_file_map(const char *filename, uint64_t offset, uint64_t size,
                 uint64_t fsize, int64_t mtime, const uint8_t **data,
                 void **base, size_t *len, enum ptd_map_kind *kind);

/* Undo ptd_file_map() (ptd_map_none does nothing). */
void ptd_file_unmap(void *base, size_t len, enum ptd_map_kind kind);

#endif /* PTD_IMAGE_FILE_H */
