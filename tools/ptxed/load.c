/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: loading the trace and the traced memory image; see load.h. */
#define _POSIX_C_SOURCE 200809L /* fseeko, fork, mkstemp */

#include "load.h"

#include "page_dump.h"
#include "read_all.h"
#include "tool_args.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int ptxed_split_base(char *arg, uint64_t *base)
{
	char *colon = strrchr(arg, ':'), *rest;
	uint64_t value;

	if (!colon || !colon[1] || colon[1] == '-')
		return 0;
	errno = 0;
	value = strtoull(colon + 1, &rest, 0);
	if (errno || *rest)
		return 0;
	*base = value;
	*colon = 0;
	return 1;
}

/* The size of @name, or -1 after a message. */
static int ptxed_file_size(const char *name, uint64_t *size, const char *prog)
{
	struct stat st;

	if (stat(name, &st) != 0) {
		fprintf(stderr, "%s: failed to open %s: %s.\n", prog, name,
		        strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: %s is not a regular file.\n", prog, name);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return 0;
}

/* The message for the reversed or empty range <@from>-<@to> of @arg (as
 * libipt's ptxed begins it, and why). */
static void ptxed_bad_range(const char *arg, uint64_t from, uint64_t to,
                            const char *prog)
{
	fprintf(stderr,
	        "%s: bad file %s: %s (the range's end, 0x%" PRIx64
	        ", must lie after its start, 0x%" PRIx64 ").\n",
	        prog, arg, pt_errstr(pte_invalid), to, from);
}

/* Whether @name is standard input ("-") or a pipe or FIFO (/dev/stdin of
 * a pipe, a shell's <(...)): read from start to end, without seeking.
 * (Not devices, which may never end: /dev/zero.) */
static int ptxed_is_stream(const char *name)
{
	struct stat st;

	if (strcmp(name, "-") == 0)
		return 1;
	return stat(name, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* A note that the trace @buf of @size bytes from @offset of @name is a
 * perf.data file, which --perf reads (as a raw trace it fails). */
static void ptxed_perf_note(const uint8_t *buf, uint64_t size, uint64_t offset,
                            const char *name, const char *prog)
{
	if (!offset && size >= 8 && memcmp(buf, "PERFILE2", 8) == 0)
		fprintf(stderr,
		        "%s: note: %s is a perf.data file; --perf decodes the "
		        "trace it holds.\n",
		        prog, name);
}

/* Check the range [@offset, @offset + *@size) (*@size 0: to the end) of
 * the @total bytes of @name (@what: "the file", or "it" for a stream), and
 * set *@size to the range's size.  Returns 0, or -1 after a message. */
static int ptxed_check_range(const char *name, const char *what, uint64_t total,
                             uint64_t offset, uint64_t *size, const char *prog)
{
	if (!total) {
		fprintf(stderr, "%s: %s is empty.\n", prog, name);
		return -1;
	}
	if (total <= offset) {
		fprintf(stderr,
		        "%s: bad offset 0x%" PRIx64
		        " into %s: %s has 0x%" PRIx64 " bytes.\n",
		        prog, offset, name, what, total);
		return -1;
	}
	if (!*size) {
		*size = total - offset;
	} else if (total - offset < *size) {
		fprintf(stderr,
		        "%s: bad range 0x%" PRIx64 " in %s: %s has 0x%" PRIx64
		        " bytes.\n",
		        prog, offset + *size, name, what, total);
		return -1;
	}
	return 0;
}

/* ptxed_load_pt() for a stream @name (ptxed_is_stream()): all of it up to
 * the end of the range [@offset, @offset + @size) (@size 0: to the end),
 * then the range checked as for a file. */
static int ptxed_load_pt_stream(struct pt_config *config, const char *name,
                                uint64_t offset, uint64_t size,
                                const char *prog)
{
	const int in = strcmp(name, "-") == 0;
	uint64_t limit = size ? offset + size : UINT64_MAX;
	uint8_t *buffer = NULL;
	size_t got = 0;
	FILE *file;
	int status, errnum;

	errno = 0;
	file = in ? stdin : fopen(name, "rb");
	if (!file) {
		fprintf(stderr, "%s: failed to open %s: %s.\n", prog, name,
		        strerror(errno));
		return -1;
	}
	status = ptd_tool_read_all(file, limit, &buffer, &got);
	errnum = errno; /* (fclose() may change it.) */
	if (!in)
		fclose(file);
	if (status == -2) {
		fprintf(stderr, "%s: failed to allocate memory for %s.\n", prog,
		        name);
		return -1;
	}
	if (status < 0) {
		fprintf(stderr, "%s: failed to load %s: %s.\n", prog, name,
		        strerror(errnum));
		return -1;
	}
	if (ptxed_check_range(name, "it", got, offset, &size, prog) < 0) {
		free(buffer);
		return -1;
	}
	memmove(buffer, buffer + offset, (size_t)size);
	ptxed_perf_note(buffer, size, offset, name, prog);
	config->begin = buffer;
	config->end = buffer + size;
	return 0;
}

int ptxed_load_pt(struct pt_config *config, char *arg, const char *prog)
{
	uint64_t offset, size, fsize;
	uint8_t *buffer;
	FILE *file;
	int err;

	err = ptd_tool_split_range(arg, &offset, &size);
	if (err < 0) {
		ptxed_bad_range(arg, offset, size, prog);
		return -1;
	}
	if (ptxed_is_stream(arg))
		return ptxed_load_pt_stream(config, arg, offset, size, prog);
	if (ptxed_file_size(arg, &fsize, prog) < 0 ||
	    ptxed_check_range(arg, "the file", fsize, offset, &size, prog) < 0)
		return -1;
	if (size > SIZE_MAX) {
		fprintf(stderr, "%s: %s is too big.\n", prog, arg);
		return -1;
	}
	buffer = malloc((size_t)size);
	if (!buffer) {
		fprintf(stderr, "%s: failed to allocate memory for %s.\n", prog,
		        arg);
		return -1;
	}
	file = fopen(arg, "rb");
	if (!file || fseeko(file, (off_t)offset, SEEK_SET) != 0 ||
	    fread(buffer, (size_t)size, 1, file) != 1) {
		fprintf(stderr, "%s: failed to load %s: %s.\n", prog, arg,
		        strerror(errno ? errno : EIO));
		if (file)
			fclose(file);
		free(buffer);
		return -1;
	}
	fclose(file);
	ptxed_perf_note(buffer, size, offset, arg, prog);
	config->begin = buffer;
	config->end = buffer + size;
	return 0;
}

int ptxed_add_section(struct pt_image_section_cache *iscache,
                      struct pt_image *image, const char *file, uint64_t offset,
                      uint64_t size, uint64_t vaddr, const char *prog,
                      int flags)
{
	const int verbose = flags & ptxed_load_verbose;
	int isid, err;

	/* Addresses do not wrap: what lies beyond the end of the address
	 * space is never fetched. */
	if (vaddr && size > 0 - vaddr) {
		if (!(flags & ptxed_load_quiet))
			fprintf(stderr,
			        "%s: warning: %s at 0x%" PRIx64 ": 0x%" PRIx64
			        " bytes extend beyond the end of the address "
			        "space; "
			        "cut there.\n",
			        prog, file, vaddr, size - (0 - vaddr));
		size = 0 - vaddr;
	}
	isid = pt_iscache_add_file(iscache, file, offset, size, vaddr);
	if (isid < 0) {
		fprintf(stderr, "%s: failed to add %s at 0x%" PRIx64 ": %s.\n",
		        prog, file, vaddr, pt_errstr(pt_errcode(isid)));
		return -1;
	}
	err = pt_image_add_cached(image, iscache, isid, NULL);
	if (err < 0) {
		fprintf(stderr, "%s: failed to add %s at 0x%" PRIx64 ": %s.\n",
		        prog, file, vaddr, pt_errstr(pt_errcode(err)));
		return -1;
	}
	if (verbose && vaddr && !(vaddr + size))
		/* (Up to the end of the address space, 2^64.) */
		printf("[%s: 0x%" PRIx64 "-0x%" PRIx64 " at 0x%" PRIx64
		       "-0x10000000000000000, isid %d]\n",
		       file, offset, offset + size, vaddr, isid);
	else if (verbose)
		printf("[%s: 0x%" PRIx64 "-0x%" PRIx64 " at 0x%" PRIx64
		       "-0x%" PRIx64 ", isid %d]\n",
		       file, offset, offset + size, vaddr, vaddr + size, isid);
	return 0;
}

int ptxed_load_raw(struct pt_image_section_cache *iscache,
                   struct pt_image *image, char *arg, const char *prog,
                   int flags)
{
	uint64_t base = 0, offset, size, fsize;
	int err;

	if (!ptxed_split_base(arg, &base)) {
		fprintf(stderr, "%s: failed to parse base address from '%s'.\n",
		        prog, arg);
		return -1;
	}
	err = ptd_tool_split_range(arg, &offset, &size);
	if (err < 0) {
		ptxed_bad_range(arg, offset, size, prog);
		return -1;
	}
	if (ptxed_file_size(arg, &fsize, prog) < 0)
		return -1;
	if (!fsize) {
		fprintf(stderr, "%s: bad range in %s: the file is empty.\n",
		        prog, arg);
		return -1;
	}
	if (fsize <= offset) {
		fprintf(stderr,
		        "%s: bad range in %s: the file has 0x%" PRIx64
		        " bytes, the range starts at 0x%" PRIx64 ".\n",
		        prog, arg, fsize, offset);
		return -1;
	}
	/* A range past the end of the file is cut there, as libipt's ptxed
	 * does (a page-sized window over a shorter dump, say). */
	if (!size || fsize - offset < size)
		size = fsize - offset;
	return ptxed_add_section(iscache, image, arg, offset, size, base, prog,
	                         flags);
}

int ptxed_load_page_dump(struct pt_image_section_cache *iscache,
                         struct pt_image *image, const char *arg,
                         const char *prog, int flags)
{
	struct ptxed_page_run *runs;
	const char *colon = strchr(arg, ':');
	char *addr_file, msg[512];
	uint64_t dump_size;
	size_t nruns, i;
	int err = 0;

	if (!colon || colon == arg || !colon[1]) {
		fprintf(stderr,
		        "%s: --page-dump: expected <addr-file>:<dump-file>, "
		        "got '%s'.\n",
		        prog, arg);
		return -1;
	}
	addr_file = malloc((size_t)(colon - arg) + 1);
	if (!addr_file) {
		fprintf(stderr, "%s: out of memory.\n", prog);
		return -1;
	}
	memcpy(addr_file, arg, (size_t)(colon - arg));
	addr_file[colon - arg] = 0;
	if (ptxed_file_size(colon + 1, &dump_size, prog) < 0) {
		free(addr_file);
		return -1;
	}
	if (ptxed_page_runs(addr_file, dump_size, &runs, &nruns, msg,
	                    sizeof(msg)) < 0) {
		fprintf(stderr, "%s: --page-dump: %s.\n", prog, msg);
		free(addr_file);
		return -1;
	}
	/* (As --elf warns for a file without a loadable segment.) */
	if (!nruns && !(flags & ptxed_load_quiet))
		fprintf(stderr,
		        "%s: warning: --page-dump %s: the address file maps no "
		        "page: nothing loaded.\n",
		        prog, arg);
	for (i = 0; i < nruns && !err; ++i)
		err = ptxed_add_section(iscache, image, colon + 1,
		                        runs[i].offset, runs[i].size,
		                        runs[i].vaddr, prog, flags);
	free(runs);
	free(addr_file);
	return err;
}
