/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the trace of one AUX area of a perf.data file (--perf; a ptdecode
 * extension, see docs/ptxed.md). */
#ifndef PTXED_PERF_H
#define PTXED_PERF_H

#include "ptdecode/intel-pt.h"
#include "ptdecode/ptd_clock.h"

#include <stdint.h>

struct ptxed_tasks;

/* Where --perf:images puts the memory maps of the traced process. */
struct ptxed_perf_image {
	struct pt_image_section_cache *iscache;
	struct pt_image *image;
	/* --perf:images given; --verbose given. */
	int load, verbose;
	/* Where the task images go when the trace's CPU has context
	 * switches (tasks.h). */
	struct ptxed_tasks **tasks;
	/* Where perf's time conversion goes, if the file has it. */
	struct ptd_perf_tc *tc;
	int *have_tc;
};

/* The AUX areas of a perf.data file that --perf without <idx> decodes in
 * turn. */
struct ptxed_perf_areas {
	/* In: a later area's run (no warnings about the file again). */
	int later;
	/* Out: the area loaded (its index, CPU and thread, for a heading);
	 * @all set if --perf named no area and the file has several: the
	 * area loaded is the first, @rest[0..@num_rest) (malloc()ed) the
	 * others. */
	uint32_t idx;
	int32_t cpu, tid;
	int all;
	uint32_t *rest;
	size_t num_rest;
	/* Out: the area was chosen, but loading it (its trace or its
	 * images) failed: the other areas can still be decoded. */
	int load_failed;
	/* In: the file as the first area's run read it (NULL: read it now);
	 * out: with @all, the file read, kept for the other areas' runs (the
	 * caller frees it with ptd_perf_free() after the last of them), so
	 * that a large recording is read and parsed once. */
	struct ptd_perf *shared;
};

/* Load the trace of AUX area <idx> of the perf.data file @arg
 * ("<file>[:<idx>]"; without <idx>, the file's first area, the others
 * listed in @areas when it has several) into
 * @config's buffer (malloc()ed) and take the file's processor, errata,
 * mtc_freq, nom_freq and CPUID 0x15 ratio, except those in @given (enum
 * ptd_tool_given, tools/common/perf_input.h).  With @img->load: if the
 * file's context switches say which task runs on the area's CPU (and the
 * file has perf's time conversion), set *@img->tasks to switch to each
 * task's image as it runs (tasks.h); otherwise add the memory maps of the
 * AUX area's process to @img->image.  Returns 0 or -1 after a message. */
int ptxed_load_perf(struct pt_config *config, uint32_t given, char *arg,
                    const struct ptxed_perf_image *img,
                    struct ptxed_perf_areas *areas, const char *prog);

#endif /* PTXED_PERF_H */
