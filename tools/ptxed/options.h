/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the command line.
 *
 * As in libipt's ptxed, arguments are handled in order: --raw, --elf and
 * --page-dump add to the image at once, --pt loads the trace and allocates
 * the decoder with the configuration given so far (so --cpu, the timing
 * options, --filter:*, the decoder choice and its flags must come before
 * it), and --help and --version act when they are seen. */
#ifndef PTXED_OPTIONS_H
#define PTXED_OPTIONS_H

#include "perf.h"
#include "ptxed.h"

/* Everything a run needs. */
struct ptxed_run {
	struct ptxed_decoder decoder;
	struct ptxed_options options;
	struct ptxed_stats stats;
	/* The configuration; begin/end hold the loaded trace. */
	struct pt_config config;
	/* The configuration values the command line gave (enum
	 * ptd_tool_given): --perf does not replace them. */
	uint32_t given;
	/* --perf without <idx> on a file of several AUX areas: the areas
	 * the run after this one decodes (perf.h), and the place of the
	 * file's argument in argv (for those runs' command lines). */
	struct ptxed_perf_areas areas;
	int perf_argi;
};

/* How to go on after ptxed_parse(). */
enum ptxed_parse_status {
	ptxed_parse_run,  /* decode */
	ptxed_parse_done, /* exit 0 (--help, --version, as libipt) */
	ptxed_parse_error /* exit 1 */
};

/* Set up @run (its image and section cache) and handle the arguments;
 * @later: the run of a later AUX area of --perf (no warnings about the
 * file), which takes the file as the first run read it, @shared (the
 * first run leaves it in run->areas.shared). */
enum ptxed_parse_status ptxed_parse(struct ptxed_run *run, int argc,
                                    char *argv[], int later,
                                    struct ptd_perf *shared, const char *prog);

/* Free what @run holds. */
void ptxed_run_fini(struct ptxed_run *run);

#endif /* PTXED_OPTIONS_H */
