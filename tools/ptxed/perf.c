/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the trace of one AUX area of a perf.data file. */
#define _POSIX_C_SOURCE 200809L

#include "perf.h"

#include "load.h"
#include "perf_input.h"
#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The AUX area @idx (or the only one, for @has_idx 0) of @perf. */
static int ptxed_perf_stream(const struct ptd_perf *perf, int has_idx,
                             uint64_t idx, struct ptd_perf_stream *stream,
                             const char *file, const char *prog)
{
	char areas[256];

	ptd_tool_perf_areas(perf, areas, sizeof(areas));
	if (!ptd_perf_num_streams(perf)) {
		fprintf(stderr, "%s: %s holds no Intel PT trace.\n", prog,
		        file);
		return -1;
	}
	if (!has_idx) {
		if (ptd_perf_num_streams(perf) > 1) {
			fprintf(stderr,
			        "%s: %s has several AUX areas (%s): choose "
			        "one with --perf %s:<idx>.\n",
			        prog, file, areas, file);
			return -1;
		}
		return ptd_perf_get_stream(perf, 0, stream) < 0 ? -1 : 0;
	}
	for (size_t i = 0; i < ptd_perf_num_streams(perf); ++i)
		if (ptd_perf_get_stream(perf, i, stream) == 0 &&
		    stream->idx == idx)
			return 0;
	fprintf(stderr, "%s: %s has no AUX area %" PRIu64 " (it has %s).\n",
	        prog, file, idx, areas);
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

/* Add the code of one memory map @m of @file's process to the image;
 * returns 1 if added, 0 if its file cannot be read. */
static int ptxed_perf_image(const struct ptd_perf_mmap *m,
                            const struct ptxed_perf_image *img,
                            const char *file, const char *prog)
{
	struct stat st;
	uint64_t size = m->len;

	if (stat(m->filename, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size <= m->pgoff) {
		fprintf(stderr,
		        "%s: warning: %s: %s (mapped at 0x%" PRIx64
		        ") cannot be read: its code is missing.\n",
		        prog, file, m->filename, m->start);
		return 0;
	}
	/* (A map may reach past the file's end, to the end of its page.) */
	if (size > (uint64_t)st.st_size - m->pgoff)
		size = (uint64_t)st.st_size - m->pgoff;
	return ptxed_add_section(img->iscache, img->image, m->filename,
	                         m->pgoff, size, m->start, prog,
	                         img->verbose) == 0;
}

/* --perf:images: the code memory maps of the process AUX area @stream
 * traced, from its last exec on.  Returns the number of maps added, or -1
 * after a message if the area names no process. */
static int ptxed_perf_images(const struct ptd_perf *perf,
                             const struct ptd_perf_stream *stream,
                             const struct ptxed_perf_image *img,
                             const char *file, const char *prog)
{
	uint64_t after = 0;
	int32_t pid;
	int added = 0;

	if (stream->tid < 0) {
		fprintf(stderr,
		        "%s: %s: AUX area %" PRIu32 " traced whole CPUs (no "
		        "thread): --perf:images needs the recording of a "
		        "program (perf record -e intel_pt// <program>).\n",
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
	/* An exec replaces the process's maps. */
	for (size_t i = 0; i < ptd_perf_num_comms(perf); ++i) {
		struct ptd_perf_comm c;

		if (ptd_perf_get_comm(perf, i, &c) == 0 && c.pid == pid &&
		    c.exec && c.file_offset > after)
			after = c.file_offset;
	}
	for (size_t i = 0; i < ptd_perf_num_mmaps(perf); ++i) {
		struct ptd_perf_mmap m;

		/* User code of that process: cpumode 2, executable (MMAP2
		 * says; MMAP records are of code only), a file ("[vdso]" and
		 * the like are not). */
		if (ptd_perf_get_mmap(perf, i, &m) < 0 || m.pid != pid ||
		    m.file_offset < after || m.cpumode != 2 ||
		    (m.mmap2 && !(m.prot & 4)) || m.filename[0] == '[')
			continue;
		added += ptxed_perf_image(&m, img, file, prog);
	}
	if (!added)
		fprintf(stderr,
		        "%s: warning: %s: no code of process %" PRId32
		        " could be loaded.\n",
		        prog, file, pid);
	return added;
}

int ptxed_load_perf(struct pt_config *config, uint32_t given, char *arg,
                    const struct ptxed_perf_image *img, const char *prog)
{
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;
	struct ptd_perf_stream stream;
	uint64_t idx = 0;
	uint8_t *buffer;
	int has_idx;

	has_idx = ptxed_split_base(arg, &idx);
	if (ptd_perf_read(&perf, arg, &diag) < 0) {
		fprintf(stderr, "%s: %s:%" PRIu64 ": %s.\n", prog, arg,
		        diag.offset, diag.message);
		return -1;
	}
	if (ptxed_perf_stream(perf, has_idx, idx, &stream, arg, prog) < 0) {
		ptd_perf_free(perf);
		return -1;
	}

	ptd_tool_perf_warnings(perf, arg, prog);
	ptd_tool_perf_config(config, given, perf, arg, prog);
	if (img->load && ptxed_perf_images(perf, &stream, img, arg, prog) < 0) {
		ptd_perf_free(perf);
		return -1;
	}

	if (!stream.size) {
		fprintf(stderr, "%s: AUX area %" PRIu32 " of %s is empty.\n",
		        prog, stream.idx, arg);
		ptd_perf_free(perf);
		return -1;
	}
	buffer = malloc((size_t)stream.size);
	if (!buffer) {
		fprintf(stderr, "%s: failed to allocate memory for %s.\n", prog,
		        arg);
		ptd_perf_free(perf);
		return -1;
	}
	memcpy(buffer, stream.data, (size_t)stream.size);
	config->begin = buffer;
	config->end = buffer + stream.size;
	ptd_perf_free(perf);
	return 0;
}
