/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing a perf.data file in the directory format (perf_dir_write.h). */
#define _POSIX_C_SOURCE 200809L
#include "perf_dir_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* pw_records_fn for "data": the records perf writes itself, and the
 * trace's if *@ctx (aux_in_data) says so. */
static void pd_own_records(struct pw *out, const uint8_t *b, size_t at,
                           size_t end, void *ctx)
{
	int aux_in_data = *(const int *)ctx;

	while (at < end) {
		uint32_t type = pw_get_u32(b + at);
		size_t len = pw_record_len(b, at, end);

		if (type >= 64 && (type != 71 || aux_in_data))
			pw_put(out, b + at, len);
		at += len;
	}
}

static int pd_write(const char *dir, const char *name, const struct pw *w)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	if (w->n && fwrite(w->b, 1, w->n, f) != w->n) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

int pd_write_dir(const char *dir, const uint8_t *b, size_t n, unsigned nthreads,
                 int aux_in_data, pw_records_fn *fn, void *ctx)
{
	uint8_t version[8];
	struct pw_feature feat = {24, version, sizeof(version)};
	struct pw main_file, *thread;
	uint64_t data = pw_get_u64(b + 40), end = data + pw_get_u64(b + 48);
	size_t kernel = 0, k = 0;
	int err = 0;

	if (!nthreads || pw_get_u64(b + 8) == 16 || end == data || end > n)
		abort();
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -1;
	pw_set_u64(version, 1);
	main_file =
	        pw_rewrite_data(b, n, pd_own_records, &aux_in_data, &feat, 1);
	thread = calloc(nthreads, sizeof(*thread));
	if (!thread)
		abort();
	for (size_t at = (size_t)data; at < end;
	     at += pw_record_len(b, at, (size_t)end))
		if (pw_get_u32(b + at) < 64)
			kernel += 1;
	for (size_t at = (size_t)data; at < end;) {
		uint32_t type = pw_get_u32(b + at);
		size_t len = pw_record_len(b, at, (size_t)end);

		if (type == 71 && !aux_in_data)
			pw_put(&thread[pw_get_u32(b + at + 32) % nthreads],
			       b + at, len);
		else if (type < 64)
			pw_put(&thread[k++ * nthreads / kernel], b + at, len);
		at += len;
	}
	if (pd_write(dir, "data", &main_file) != 0)
		err = -1;
	for (unsigned i = 0; i < nthreads && !err; ++i) {
		struct pw out = {0};
		char name[32];

		if (fn)
			fn(&out, thread[i].b ? thread[i].b : (uint8_t *)"", 0,
			   thread[i].n, ctx);
		snprintf(name, sizeof(name), "data.%u", i);
		if (pd_write(dir, name, fn ? &out : &thread[i]) != 0)
			err = -1;
		free(out.b);
	}
	for (unsigned i = 0; i < nthreads; ++i)
		free(thread[i].b);
	free(thread);
	free(main_file.b);
	return err;
}
