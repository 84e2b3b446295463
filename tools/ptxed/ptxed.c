/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: reconstruct and print the instruction flow of an Intel PT trace.
 *
 * A libipt-compatible ptxed on top of ptdecode's block and instruction-flow
 * decoders; see ptxed.h for its parts and docs/ptxed.md for its use.
 *
 * Exit status, as libipt's ptxed: 0 when the trace was decoded (decode
 * errors are reported in the output and do not change it) and after --help
 * and --version, 1 for command-line, file and set-up errors, when the
 * output cannot be written, and when memory runs out for the sideband. */
#define _POSIX_C_SOURCE 200809L

#include "decode.h"
#include "disas.h"
#include "icache.h"
#include "options.h"
#include "print.h"
#include "sideband.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name to use in messages: argv[0] without its directory. */
static const char *ptxed_prog_name(const char *argv0)
{
	const char *slash;

	if (!argv0 || !argv0[0])
		return "ptxed";
	slash = strrchr(argv0, '/');
	return slash ? slash + 1 : argv0;
}

/* The heading of an AUX area of --perf without <idx>, written out before
 * the area's messages on stderr. */
static void ptxed_heading(const struct ptxed_run *run)
{
	/* (With --quiet, only to say whose statistics follow.) */
	if ((run->areas.all || run->areas.later) &&
	    (!run->options.quiet || run->options.print_stats)) {
		printf("[aux area %" PRIu32 ": cpu %" PRId32 ", tid %" PRId32
		       "]\n",
		       run->areas.idx, run->areas.cpu, run->areas.tid);
		fflush(stdout);
	}
}

/* Decode the trace @run loaded, with a heading for an AUX area of --perf
 * without <idx>.  Returns 0, or 1 if the output cannot be written or
 * memory ran out for the sideband. */
static int ptxed_decode_run(struct ptxed_run *run, struct ptd_ild_ctx *ild,
                            const char *prog)
{
	int status = 0;

	ptxed_heading(run);
	/* The sideband files' first records (their errors come first). */
	if (ptxed_sb_any(run->decoder.sb))
		ptxed_sb_start(run->decoder.sb);
	/* (Without the cache, ptxed is slower but the same.) */
	run->decoder.icache = ptxed_icache_alloc();
	if (!ptxed_decode(&run->decoder, &run->options, &run->stats, ild))
		fprintf(stderr,
		        "%s: warning: no PSB packet in the trace, nothing to "
		        "decode.\n",
		        prog);
	if (run->options.print_stats)
		ptxed_print_stats(&run->stats);
	if (ptxed_sb_failed(run->decoder.sb))
		status = 1;
	if (fflush(stdout) != 0) {
		fprintf(stderr, "%s: error writing the output.\n", prog);
		status = 1;
	}
	ptxed_icache_free(run->decoder.icache);
	run->decoder.icache = NULL;
	return status;
}

/* A copy of the @argc strings of @argv (which parsing changes: it cuts
 * ":<base>" off file arguments), NULL-terminated; NULL if out of memory. */
static char **ptxed_copy_args(int argc, char *const argv[])
{
	char **copy = calloc((size_t)argc + 1, sizeof(*copy));

	if (!copy)
		return NULL;
	for (int k = 0; k < argc; ++k) {
		copy[k] = strdup(argv[k]);
		if (!copy[k]) {
			for (int j = 0; j < k; ++j)
				free(copy[j]);
			free(copy);
			return NULL;
		}
	}
	return copy;
}

static void ptxed_free_args(int argc, char **args)
{
	if (!args)
		return;
	for (int k = 0; k < argc; ++k)
		free(args[k]);
	free(args);
}

/* --perf without <idx> on a file of several AUX areas: after the first
 * area's run, the others', each with the command line @orig (as it was
 * before parsing) with --perf <file>:<idx>.  Returns ptxed's exit
 * status. */
static int ptxed_more_areas(struct ptxed_run *run, int argc, char **orig,
                            struct ptd_ild_ctx *ild, const char *prog)
{
	struct ptxed_perf_areas areas = run->areas;
	int argi = run->perf_argi, status = 0;

	/* (The list is this function's now.) */
	run->areas.rest = NULL;
	for (size_t k = 0; k < areas.num_rest; ++k) {
		char **args = ptxed_copy_args(argc, orig);
		char arg[4096];

		if (!args) {
			fprintf(stderr, "%s: out of memory.\n", prog);
			status = 1;
			break;
		}
		if (snprintf(arg, sizeof(arg), "%s:%" PRIu32, orig[argi],
		             areas.rest[k]) >= (int)sizeof(arg)) {
			fprintf(stderr, "%s: %s: path too long.\n", prog,
			        orig[argi]);
			ptxed_free_args(argc, args);
			status = 1;
			break;
		}
		free(args[argi]);
		args[argi] = arg;
		ptxed_run_fini(run);
		switch (ptxed_parse(run, argc, args, 1, areas.shared, prog)) {
		case ptxed_parse_run:
			if (ptxed_decode_run(run, ild, prog))
				status = 1;
			break;
		case ptxed_parse_done:
			/* --help or --version after a --perf whose first area
			 * could not be loaded (the first run stopped there):
			 * said once, and the end, as when the first run gets
			 * to it. */
			k = areas.num_rest;
			break;
		case ptxed_parse_error:
			/* (An area that cannot be loaded is its own
			 * failure; any other error would be every
			 * area's.) */
			fflush(stdout);
			status = 1;
			if (!run->areas.load_failed)
				k = areas.num_rest;
			break;
		}
		args[argi] = NULL;
		ptxed_free_args(argc, args);
	}
	free(areas.rest);
	return status;
}

/* The size of stdout's buffer. */
enum { ptxed_outbuf_size = 1 << 16 };

int main(int argc, char *argv[])
{
	const char *prog = ptxed_prog_name(argc > 0 ? argv[0] : NULL);
	char *outbuf;
	struct ptd_ild_ctx *ild;
	struct ptxed_run run;
	enum ptxed_parse_status first;
	struct ptd_perf *shared;
	char **orig;
	int status;

	/* A large output buffer.  stdout uses it until the process ends
	 * (after main() returns, when exit() flushes it), so it is never
	 * freed; without it, stdout keeps its own. */
	outbuf = malloc(ptxed_outbuf_size);
	if (outbuf)
		setvbuf(stdout, outbuf, _IOFBF, ptxed_outbuf_size);
	/* (The command line as given, for the runs of more AUX areas.) */
	orig = ptxed_copy_args(argc, argv);
	if (!orig) {
		fprintf(stderr, "%s: out of memory.\n", prog);
		return 1;
	}
	first = ptxed_parse(&run, argc, argv, 0, NULL, prog);
	/* (With several AUX areas, the runs share the file read now.) */
	shared = run.areas.shared;
	switch (first) {
	case ptxed_parse_run:
		break;
	case ptxed_parse_done:
		ptxed_run_fini(&run);
		ptd_perf_free(shared);
		ptxed_free_args(argc, orig);
		return fflush(stdout) == 0 ? 0 : 1;
	case ptxed_parse_error:
		fflush(stdout);
		/* (With --perf without <idx>, the first area that cannot be
		 * loaded does not keep the others from being decoded.) */
		if (run.areas.all && run.areas.load_failed)
			break;
		ptxed_run_fini(&run);
		ptd_perf_free(shared);
		ptxed_free_args(argc, orig);
		return 1;
	}

	ild = ptxed_disas_alloc();
	if (!ild) {
		fprintf(stderr, "%s: out of memory.\n", prog);
		ptxed_run_fini(&run);
		ptd_perf_free(shared);
		ptxed_free_args(argc, orig);
		return 1;
	}
	if (run.options.perf_time && !run.options.have_perf_tc)
		fprintf(stderr,
		        "%s: warning: --perf:time needs --perf and a perf.data "
		        "file with perf's time conversion: times are TSCs.\n",
		        prog);
	if (run.options.perf_tasks && !run.decoder.tasks && !run.areas.all)
		fprintf(stderr,
		        "%s: warning: --perf:tasks prints nothing without "
		        "--perf:images on the AUX area of a perf.data file "
		        "with context switches of its CPU.\n",
		        prog);
	status = first == ptxed_parse_run ? ptxed_decode_run(&run, ild, prog)
	                                  : 1;
	if (run.areas.all && ptxed_more_areas(&run, argc, orig, ild, prog))
		status = 1;
	ptxed_disas_free(ild);
	ptxed_run_fini(&run);
	/* (After the tasks of the last run, which may use it.) */
	ptd_perf_free(shared);
	ptxed_free_args(argc, orig);
	return status;
}
