/* SPDX-License-Identifier: BSD-3-Clause */
/* Files of file sections (POSIX). */
#define _POSIX_C_SOURCE 200809L

#include "image/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int ptd_file_stat(const char *filename, uint64_t *size, int64_t *mtime)
{
	struct stat st;

	if (stat(filename, &st) != 0 || st.st_size < 0)
		return -pte_invalid;
	*size = (uint64_t)st.st_size;
	if (mtime)
		*mtime = (int64_t)st.st_mtime;
	return 0;
}

int ptd_file_size(const char *filename, uint64_t *size)
{
	return ptd_file_stat(filename, size, NULL);
}

/* Read @size bytes at @offset of @fd into @buf.  Returns 0 or -1. */
static int ptd_read_all(int fd, uint8_t *buf, size_t size, uint64_t offset)
{
	while (size) {
		ssize_t n = pread(fd, buf, size, (off_t)offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		size -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

int ptd_file_map(const char *filename, uint64_t offset, uint64_t size,
                 uint64_t fsize, int64_t mtime, const uint8_t **data,
                 void **base, size_t *len, enum ptd_map_kind *kind)
{
	uint64_t page, skip;
	struct stat st;
	long pagesize;
	void *mem;
	int fd;

	if (!filename || !data || !base || !len || !kind)
		return -pte_internal;
	if (size > SIZE_MAX || offset > (uint64_t)INT64_MAX)
		return -pte_bad_file;
	/* A file that is gone is not the traced code either (libipt 2.0.5
	 * says -pte_bad_image for it, too). */
	fd = open(filename, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -pte_bad_image;
	if (fstat(fd, &st) != 0 || st.st_size < 0) {
		close(fd);
		return -pte_bad_image;
	}
	/* The file changed since the section was made (a rebuilt binary):
	 * its bytes are not the traced code, as libipt says.  (Mapping
	 * beyond the end of a shorter one would also fault on access.) */
	if ((uint64_t)st.st_size != fsize || (int64_t)st.st_mtime != mtime ||
	    (uint64_t)st.st_size < offset ||
	    (uint64_t)st.st_size - offset < size) {
		close(fd);
		return -pte_bad_image;
	}

	pagesize = sysconf(_SC_PAGESIZE);
	page = pagesize > 0 ? (uint64_t)pagesize : 4096;
	skip = offset % page;
	if (size && size <= SIZE_MAX - skip) {
		mem = mmap(NULL, (size_t)(size + skip), PROT_READ, MAP_PRIVATE,
		           fd, (off_t)(offset - skip));
		if (mem != MAP_FAILED) {
			close(fd);
			*base = mem;
			*len = (size_t)(size + skip);
			*kind = ptd_map_mmap;
			*data = (const uint8_t *)mem + skip;
			return 0;
		}
	}

	/* No mmap (or an empty section): read the bytes. */
	mem = malloc(size ? (size_t)size : 1);
	if (!mem) {
		close(fd);
		return -pte_nomem;
	}
	if (ptd_read_all(fd, mem, (size_t)size, offset) < 0) {
		free(mem);
		close(fd);
		return -pte_bad_file;
	}
	close(fd);
	*base = mem;
	*len = (size_t)size;
	*kind = ptd_map_heap;
	*data = mem;
	return 0;
}

void ptd_file_unmap(void *base, size_t len, enum ptd_map_kind kind)
{
	switch (kind) {
	case ptd_map_mmap:
		munmap(base, len);
		break;
	case ptd_map_heap:
		free(base);
		break;
	case ptd_map_none:
		break;
	}
}
