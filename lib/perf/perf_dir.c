/* SPDX-License-Identifier: BSD-3-Clause */
/* The directory format of perf.data (`perf record --threads`, and
 * `--kcore`): a directory holding "data", a perf.data file of the file
 * format with the header, the attributes, the records perf writes itself
 * (AUXTRACE_INFO among them) and the features, and "data.<n>" files of
 * records without a header, one per thread of perf record, each with what
 * that thread read from its ring buffers and AUX areas (the trace of its
 * CPUs with their AUXTRACE records, the kernel's sideband, each thread's
 * compressed sideband a zstd stream of its own).  The files are read into
 * one buffer, "data" first and then data.0, data.1, ... in the order of
 * their numbers, and parsed as one file whose records go on in the other
 * files' parts of the buffer. */
#define _POSIX_C_SOURCE 200809L

#include "perf_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The files read: their names and where each starts in the buffer. */
struct dir_files {
	uint8_t *buf;
	size_t size, cap;
	/* The data.<n> files' numbers, in increasing order. */
	unsigned long *nums;
	size_t num, cap_nums;
};

/* Append the file @dir/@name to @f->buf. */
static int dir_read(struct dir_files *f, const char *dir, const char *name,
                    struct ptd_perf_diag *diag)
{
	char path[4096];
	FILE *file;
	int err = 0;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return ptd_perf_fail(diag, -pte_bad_file, 0,
		                     "the path %s/%s is "
		                     "too long",
		                     dir, name);
	file = fopen(path, "rb");
	if (!file)
		return ptd_perf_fail(diag, -pte_bad_file, 0,
		                     "cannot open %s: %s", path,
		                     strerror(errno));
	for (;;) {
		size_t got;

		if (f->size == f->cap) {
			size_t cap = f->cap ? 2 * f->cap : (size_t)1 << 20;
			uint8_t *buf;

			if (cap < f->cap) {
				err = -pte_nomem;
				break;
			}
			buf = realloc(f->buf, cap);
			if (!buf) {
				err = -pte_nomem;
				break;
			}
			f->buf = buf;
			f->cap = cap;
		}
		got = fread(f->buf + f->size, 1, f->cap - f->size, file);
		f->size += got;
		if (got == 0) {
			if (ferror(file))
				err = ptd_perf_fail(diag, -pte_bad_file, 0,
				                    "cannot read %s: %s", path,
				                    strerror(errno));
			break;
		}
	}
	fclose(file);
	if (err == -pte_nomem)
		ptd_perf_fail(diag, err, 0, "out of memory reading %s", path);
	return err;
}

static int dir_cmp_num(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return (x > y) - (x < y);
}

/* The numbers of the data.<n> files in @path, sorted. */
static int dir_list(struct dir_files *f, const char *path,
                    struct ptd_perf_diag *diag)
{
	DIR *dir = opendir(path);
	struct dirent *e;

	if (!dir)
		return ptd_perf_fail(diag, -pte_bad_file, 0,
		                     "cannot open %s: %s", path,
		                     strerror(errno));
	while ((e = readdir(dir)) != NULL) {
		const char *n = e->d_name;
		char *end;
		unsigned long num;

		/* "data." and decimal digits only. */
		if (strncmp(n, "data.", 5) != 0 || n[5] < '0' || n[5] > '9')
			continue;
		errno = 0;
		num = strtoul(n + 5, &end, 10);
		if (*end || errno || (n[5] == '0' && n[6]))
			continue; /* (Not as perf names them: "data.07".) */
		if (f->num == f->cap_nums) {
			size_t cap = f->cap_nums ? 2 * f->cap_nums : 16;
			unsigned long *nums;

			nums = realloc(f->nums, cap * sizeof(*nums));
			if (!nums) {
				closedir(dir);
				return ptd_perf_fail(diag, -pte_nomem, 0,
				                     "out of memory");
			}
			f->nums = nums;
			f->cap_nums = cap;
		}
		f->nums[f->num++] = num;
	}
	closedir(dir);
	if (f->num)
		qsort(f->nums, f->num, sizeof(*f->nums), dir_cmp_num);
	return 0;
}

/* Put @prefix before @diag's message (cut at its end if need be). */
static void dir_prefix(struct ptd_perf_diag *diag, const char *prefix)
{
	size_t len = strlen(prefix), size = sizeof(diag->message);
	size_t msg = strnlen(diag->message, size - 1);

	if (len >= size)
		return;
	if (msg > size - 1 - len)
		msg = size - 1 - len;
	memmove(diag->message + len, diag->message, msg);
	memcpy(diag->message, prefix, len);
	diag->message[len + msg] = '\0';
}

int ptd_perf_read_dir(struct ptd_perf **out, const char *path,
                      struct ptd_perf_diag *diag)
{
	struct dir_files f;
	struct ptd_perf_part *parts = NULL;
	size_t main_size;
	int err;

	memset(&f, 0, sizeof(f));
	*out = NULL;
	err = dir_list(&f, path, diag);
	if (err >= 0)
		err = dir_read(&f, path, "data", diag);
	if (err >= 0 && f.num) {
		parts = calloc(f.num, sizeof(*parts));
		if (!parts)
			err = ptd_perf_fail(diag, -pte_nomem, 0,
			                    "out of memory");
	}
	main_size = f.size;
	for (size_t i = 0; err >= 0 && parts && i < f.num; ++i) {
		char name[32];

		snprintf(name, sizeof(name), "data.%lu", f.nums[i]);
		parts[i].begin = f.size;
		err = dir_read(&f, path, name, diag);
		parts[i].end = f.size;
	}
	if (err >= 0) {
		err = ptd_perf_parse_parts(out, f.buf ? f.buf : (uint8_t *)"",
		                           main_size, parts, f.num, diag);
		/* An offset in a data.<n> file: say which, and where in it. */
		if (err < 0 && diag && diag->offset >= main_size) {
			for (size_t i = 0; i < f.num; ++i) {
				char name[32];

				if (diag->offset < parts[i].begin ||
				    diag->offset >= parts[i].end)
					continue;
				snprintf(name, sizeof(name),
				         "data.%lu: ", f.nums[i]);
				dir_prefix(diag, name);
				diag->offset -= parts[i].begin;
				break;
			}
		} else if (err < 0 && diag) {
			dir_prefix(diag, "data: ");
		}
	}
	free(parts);
	free(f.nums);
	free(f.buf);
	return err;
}
