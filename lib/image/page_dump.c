/* SPDX-License-Identifier: BSD-3-Clause */
/* ptd_image_add_page_dump(): page dumps in the libxdc/kAFL format. */
#define _POSIX_C_SOURCE 200809L

#include "common/le.h"
#include "image/asid.h"
#include "image/file.h"
#include "image/image_int.h"
#include "ptdecode/ptd_image.h"

#include <stdio.h>
#include <stdlib.h>

enum { ptd_dump_page = 4096 };

/* Read all of @path into a new buffer (@*size bytes).  Returns 0,
 * -pte_invalid if it cannot be opened, -pte_bad_file, or -pte_nomem. */
static int ptd_read_file(const char *path, uint8_t **pbuf, size_t *size)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *file;

	file = fopen(path, "rb");
	if (!file)
		return -pte_invalid;
	for (;;) {
		size_t n;

		if (len == cap) {
			uint8_t *more;

			cap = cap ? 2 * cap : 4096;
			more = cap > len ? realloc(buf, cap) : NULL;
			if (!more) {
				free(buf);
				fclose(file);
				return -pte_nomem;
			}
			buf = more;
		}
		n = fread(buf + len, 1, cap - len, file);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(file)) {
		free(buf);
		fclose(file);
		return -pte_bad_file;
	}
	fclose(file);
	*pbuf = buf;
	*size = len;
	return 0;
}

int ptd_image_add_page_dump(struct pt_image *image, const char *addr_path,
                            const char *dump_path, const struct pt_asid *uasid)
{
	struct ptd_section **secs = NULL;
	size_t size, npages, i, nsecs = 0;
	struct pt_asid asid;
	uint64_t dump_size;
	uint8_t *addrs;
	int errcode;

	if (!image || !addr_path || !dump_path)
		return -pte_invalid;
	ptd_asid_from_user(&asid, uasid);
	errcode = ptd_read_file(addr_path, &addrs, &size);
	if (errcode < 0)
		return errcode;
	errcode = ptd_file_size(dump_path, &dump_size);
	if (errcode < 0)
		goto out;
	npages = size / 8;
	if (size % 8 != 0 || dump_size / ptd_dump_page < npages) {
		errcode = -pte_bad_file;
		goto out;
	}
	if (npages) {
		secs = malloc(npages * sizeof(*secs));
		if (!secs) {
			errcode = -pte_nomem;
			goto out;
		}
	}

	/* One section per run of mapped pages that follow each other in the
	 * address list and in memory; make them all before adding any. */
	for (i = 0; i < npages && errcode >= 0;) {
		uint64_t vaddr = ptd_le64(addrs + 8 * i);
		size_t first = i;

		i += 1;
		if (vaddr & (ptd_dump_page - 1))
			continue;
		while (i < npages && vaddr + (i - first) * ptd_dump_page != 0 &&
		       ptd_le64(addrs + 8 * i) ==
		               vaddr + (i - first) * ptd_dump_page)
			i += 1;
		errcode = ptd_section_new_file(
		        &secs[nsecs], dump_path,
		        (uint64_t)first * ptd_dump_page,
		        (uint64_t)(i - first) * ptd_dump_page, vaddr, NULL);
		nsecs += errcode >= 0;
	}
	if (errcode >= 0) {
		for (i = 0; i < nsecs && errcode >= 0; ++i) {
			errcode =
			        ptd_image_add_section(image, secs[i], &asid, 0);
			if (errcode >= 0)
				secs[i] = NULL;
		}
	}
	for (i = 0; i < nsecs; ++i)
		ptd_section_put(secs[i]);
	if (errcode >= 0)
		errcode = nsecs > (size_t)INT32_MAX ? INT32_MAX : (int)nsecs;
out:
	free(secs);
	free(addrs);
	return errcode;
}
