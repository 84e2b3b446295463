/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers of the image unit tests (test_image*.c, test_iscache.c): files
 * with known bytes in a private temporary folder.
 *
 * Include after <cmocka.h> and test_util.h. */
#ifndef PTD_TEST_IMAGE_UTIL_H
#define PTD_TEST_IMAGE_UTIL_H

/* (The including file defines _POSIX_C_SOURCE 200809L first.) */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The byte at offset @off of test file number @n: different in every file
 * and at neighbouring offsets. */
static inline uint8_t ptd_ti_byte(unsigned n, uint64_t off)
{
	return (uint8_t)(off * 7 + (off >> 8) * 13 + n * 101 + 1);
}

/* A temporary folder and the files in it. */
struct ptd_ti_dir {
	char path[64];
	char files[8][96];
	unsigned nfiles;
};

static inline void ptd_ti_dir_open(struct ptd_ti_dir *dir)
{
	memset(dir, 0, sizeof(*dir));
	snprintf(dir->path, sizeof(dir->path), "/tmp/ptd-image-XXXXXX");
	assert_non_null(mkdtemp(dir->path));
}

/* Write @size bytes to a new file of @dir; return its name. */
static inline const char *ptd_ti_write(struct ptd_ti_dir *dir, const char *name,
                                       const void *buf, size_t size)
{
	char *path;
	FILE *file;

	assert_true(dir->nfiles < 8);
	path = dir->files[dir->nfiles++];
	{
		char tmp[sizeof(dir->files[0])];

		snprintf(tmp, sizeof(tmp), "%s/%s", dir->path, name);
		memcpy(path, tmp, sizeof(tmp));
	}
	file = fopen(path, "wb");
	assert_non_null(file);
	assert_int_equal(fwrite(buf, 1, size, file), size);
	assert_int_equal(fclose(file), 0);
	return path;
}

/* Write a new file of @dir with @size bytes ptd_ti_byte(@n, offset). */
static inline const char *ptd_ti_file(struct ptd_ti_dir *dir, const char *name,
                                      unsigned n, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	const char *path;
	size_t i;

	assert_non_null(buf);
	for (i = 0; i < size; ++i)
		buf[i] = ptd_ti_byte(n, i);
	path = ptd_ti_write(dir, name, buf, size);
	free(buf);
	return path;
}

static inline void ptd_ti_dir_close(struct ptd_ti_dir *dir)
{
	unsigned i;

	for (i = 0; i < dir->nfiles; ++i)
		unlink(dir->files[i]);
	rmdir(dir->path);
}

/* An address space with the given CR3 and VMCS. */
static inline struct pt_asid ptd_ti_asid(uint64_t cr3, uint64_t vmcs)
{
	struct pt_asid asid;

	pt_asid_init(&asid);
	asid.cr3 = cr3;
	asid.vmcs = vmcs;
	return asid;
}

#endif /* PTD_TEST_IMAGE_UTIL_H */
