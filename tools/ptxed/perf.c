/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the trace of one AUX area of a perf.data file. */
#define _POSIX_C_SOURCE 200809L

#include "perf.h"

#include "load.h"
#include "load_elf.h"
#include "perf_input.h"
#include "ptdecode/ptdecode.h"
#include "tasks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The AUX area @idx of @perf (for @has_idx 0 the first, with the others
 * in @areas). */
static int ptxed_perf_stream(const struct ptd_perf *perf, int has_idx,
                             uint64_t idx, struct ptd_perf_stream *stream,
                             struct ptxed_perf_areas *areas, const char *file,
                             const char *prog)
{
	char names[256];

	ptd_tool_perf_areas(perf, names, sizeof(names));
	if (!ptd_perf_num_streams(perf)) {
		fprintf(stderr, "%s: %s holds no Intel PT trace.\n", prog,
		        file);
		return -1;
	}
	if (!has_idx) {
		size_t n = ptd_perf_num_streams(perf);

		if (ptd_perf_get_stream(perf, 0, stream) < 0)
			return -1;
		areas->idx = stream->idx;
		areas->cpu = stream->cpu;
		areas->tid = stream->tid;
		/* (Standard input can be read once: one area of it.) */
		if (n > 1 && !strcmp(file, "-")) {
			fprintf(stderr,
			        "%s: standard input has several AUX areas "
			        "(%s): "
			        "choose one with --perf -:<idx>.\n",
			        prog, names);
			return -1;
		}
		if (n > 1) {
			areas->all = 1;
			areas->rest = calloc(n - 1, sizeof(*areas->rest));
			if (!areas->rest) {
				fprintf(stderr, "%s: out of memory.\n", prog);
				return -1;
			}
			for (size_t i = 1; i < n; ++i) {
				struct ptd_perf_stream st;

				if (ptd_perf_get_stream(perf, i, &st) == 0)
					areas->rest[areas->num_rest++] = st.idx;
			}
		}
		return 0;
	}
	for (size_t i = 0; i < ptd_perf_num_streams(perf); ++i)
		if (ptd_perf_get_stream(perf, i, stream) == 0 &&
		    stream->idx == idx) {
			areas->idx = stream->idx;
			areas->cpu = stream->cpu;
			areas->tid = stream->tid;
			return 0;
		}
	fprintf(stderr, "%s: %s has no AUX area %" PRIu64 " (it has %s).\n",
	        prog, file, idx, names);
	return -1;
}

/* The process whose thread AUX area @stream traced, or -1. */
static int32_t ptxed_perf_pid(const struct ptd_perf *perf,
                              const struct ptd_perf_stream *stream)
{
	for (size_t i = 0; i < ptd_perf_num_comms(perf); ++i) {
		struct ptd_perf_comm c;

		if (ptd_perf_get_comm(perf, i, &c) == 0 && c.tid == stream->tid)
			return c.pid;
	}
	for (size_t i = 0; i < ptd_perf_num_mmaps(perf); ++i) {
		struct ptd_perf_mmap m;

		if (ptd_perf_get_mmap(perf, i, &m) == 0 && m.tid == stream->tid)
			return m.pid;
	}
	return -1;
}

/* Whether the context switches of @perf place a task on @cpu. */
static int ptxed_perf_has_switches(const struct ptd_perf *perf, int32_t cpu)
{
	for (size_t i = 0; i < ptd_perf_num_switches(perf); ++i) {
		struct ptd_perf_switch sw;

		if (ptd_perf_get_switch(perf, i, &sw) == 0 && sw.have_time &&
		    sw.cpu == cpu)
			return 1;
	}
	return 0;
}

/* --perf:images without context switches: the code memory maps of the
 * process AUX area @stream traced, from its last exec on.  Returns the
 * number of maps added, or -1 after a message if the area names no
 * process. */
static int ptxed_perf_images(const struct ptd_perf *perf,
                             const struct ptd_perf_stream *stream,
                             const struct ptxed_perf_image *img,
                             const char *file, const char *prog)
{
	struct ptxed_maps_to to;
	struct ptxed_eras *eras;
	int32_t pid;
	int added;

	if (stream->tid < 0) {
		fprintf(stderr,
		        "%s: %s: AUX area %" PRIu32 " traced whole CPUs (no "
		        "thread) and the file has no context switches of its "
		        "CPU: --perf:images needs one or the other (perf "
		        "record -e intel_pt// <program>, or perf record "
		        "--switch-events).\n",
		        prog, file, stream->idx);
		return -1;
	}
	pid = ptxed_perf_pid(perf, stream);
	if (pid < 0) {
		fprintf(stderr,
		        "%s: %s has no memory map or name of thread %" PRId32
		        ", which AUX area %" PRIu32 " traced.\n",
		        prog, file, stream->tid, stream->idx);
		return -1;
	}
	to.iscache = img->iscache;
	to.image = img->image;
	to.verbose = img->verbose;
	to.file = file;
	to.prog = prog;
	to.warn_each = 1;
	to.missing = 0;
	to.first_missing = NULL;
	/* The last era: the maps after the last exec. */
	eras = ptxed_eras_alloc(perf);
	if (!eras) {
		fprintf(stderr, "%s: out of memory.\n", prog);
		return -1;
	}
	added = ptxed_eras_add_maps(
	        eras, pid, ptxed_eras_at(eras, pid, UINT64_MAX), &to, NULL);
	ptxed_eras_free(eras);
	if (!added)
		fprintf(stderr,
		        "%s: warning: %s: no code of process %" PRId32
		        " could be loaded.\n",
		        prog, file, pid);
	return added;
}

/* --perf:images: the images of the tasks on the AUX area's CPU if the
 * context switches say which runs when, else the traced process's maps.
 * Takes @perf when it returns 1 (tasks made) unless it is @shared by the
 * areas' runs; 0: maps loaded; -1 after a message. */
static int ptxed_perf_load_images(struct ptd_perf *perf, int shared,
                                  const struct ptd_perf_stream *stream,
                                  const struct ptxed_perf_image *img,
                                  const char *file, const char *prog)
{
	struct ptd_perf_info info;

	if (ptd_perf_get_info(perf, &info) == 0 && info.have_tc &&
	    stream->cpu >= 0 && ptxed_perf_has_switches(perf, stream->cpu)) {
		*img->tasks = ptxed_tasks_alloc(
		        perf, !shared, &info.tc, stream->cpu,
		        stream->tid >= 0 ? ptxed_perf_pid(perf, stream) : -1,
		        img->iscache, img->image, img->verbose, file, prog);
		if (!*img->tasks) {
			fprintf(stderr, "%s: out of memory.\n", prog);
			return -1;
		}
		/* Only the sideband is needed from here on: the trace of
		 * this area is copied, and a system-wide recording holds
		 * every CPU's (which the other areas' runs need from a
		 * shared file). */
		if (!shared)
			ptd_perf_free_trace(perf);
		return 1;
	}
	return ptxed_perf_images(perf, stream, img, file, prog) < 0 ? -1 : 0;
}

/* --perf:images on the directory of `perf record --kcore`: the copy of the
 * kernel's and its modules' code that perf took from /proc/kcore
 * (<dir>/kcore_dir/kcore, an ELF core file whose PT_LOAD segments lie at the
 * kernel's addresses) goes into the image every task's image starts from,
 * as `--elf` would put it.  Returns 0 (also when there is none), or -1
 * after a message. */
static int ptxed_perf_kcore(const char *dir, const struct ptxed_perf_image *img,
                            const char *prog)
{
	char path[4096];
	struct stat st;

	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (snprintf(path, sizeof(path), "%s/kcore_dir/kcore", dir) >=
	    (int)sizeof(path))
		return 0;
	if (stat(path, &st) != 0)
		return 0;
	if (img->verbose)
		fprintf(stderr, "%s: loading the kernel's code from %s.\n",
		        prog, path);
	return ptxed_load_elf(img->iscache, img->image, path, 0, 0, prog,
	                      img->verbose);
}

/* Free @perf unless the areas' runs share it. */
static void ptxed_perf_release(struct ptd_perf *perf,
                               const struct ptxed_perf_areas *areas)
{
	if (perf != areas->shared)
		ptd_perf_free(perf);
}

int ptxed_load_perf(struct pt_config *config, uint32_t given, char *arg,
                    const struct ptxed_perf_image *img,
                    struct ptxed_perf_areas *areas, const char *prog)
{
	struct ptd_perf *perf = areas->shared;
	struct ptd_perf_diag diag;
	struct ptd_perf_stream stream;
	uint64_t idx = 0;
	uint8_t *buffer;
	int has_idx;

	has_idx = ptxed_split_base(arg, &idx);
	if (!perf && ptd_perf_read(&perf, arg, &diag) < 0) {
		fprintf(stderr, "%s: %s:%" PRIu64 ": %s.\n", prog, arg,
		        diag.offset, diag.message);
		return -1;
	}
	if (ptxed_perf_stream(perf, has_idx, idx, &stream, areas, arg, prog) <
	    0) {
		ptxed_perf_release(perf, areas);
		return -1;
	}
	/* The other areas' runs take the file as it is read now. */
	if (areas->all)
		areas->shared = perf;

	if (!areas->later)
		ptd_tool_perf_warnings(perf, arg, prog);
	ptd_tool_perf_config(config, given, perf, arg,
	                     areas->later ? NULL : prog);
	/* (A failure from here on is this area's: the others can still be
	 * decoded.) */
	areas->load_failed = 1;
	{
		struct ptd_perf_info info;

		if (ptd_perf_get_info(perf, &info) == 0 && info.have_tc) {
			*img->tc = info.tc;
			*img->have_tc = 1;
		}
	}
	if (!stream.size) {
		fprintf(stderr, "%s: AUX area %" PRIu32 " of %s is empty.\n",
		        prog, stream.idx, arg);
		ptxed_perf_release(perf, areas);
		return -1;
	}
	buffer = malloc((size_t)stream.size);
	if (!buffer) {
		fprintf(stderr, "%s: failed to allocate memory for %s.\n", prog,
		        arg);
		ptxed_perf_release(perf, areas);
		return -1;
	}
	memcpy(buffer, stream.data, (size_t)stream.size);
	config->begin = buffer;
	config->end = buffer + stream.size;
	if (img->load) {
		int took;

		if (ptxed_perf_kcore(arg, img, prog) < 0) {
			ptxed_perf_release(perf, areas);
			return -1;
		}
		took = ptxed_perf_load_images(perf, perf == areas->shared,
		                              &stream, img, arg, prog);

		/* (With tasks, @perf is theirs now unless shared;
		 * ptxed_run_fini() frees the buffer.) */
		if (took > 0) {
			areas->load_failed = 0;
			return 0;
		}
		if (took < 0) {
			ptxed_perf_release(perf, areas);
			return -1;
		}
	}
	ptxed_perf_release(perf, areas);
	areas->load_failed = 0;
	return 0;
}
