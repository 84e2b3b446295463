/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: reconstruct and print the instruction flow of an Intel PT trace.
 *
 * A libipt-compatible ptxed on top of ptdecode's block and instruction-flow
 * decoders; see ptxed.h for its parts and docs/ptxed.md for its use.
 *
 * Exit status, as libipt's ptxed: 0 when the trace was decoded (decode
 * errors are reported in the output and do not change it) and after --help
 * and --version, 1 for command-line, file and set-up errors. */
#include "decode.h"
#include "disas.h"
#include "icache.h"
#include "options.h"
#include "print.h"

#include <stdio.h>
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

int main(int argc, char *argv[])
{
	const char *prog = ptxed_prog_name(argc > 0 ? argv[0] : NULL);
	static char outbuf[1 << 16];
	struct ptd_ild_ctx *ild;
	struct ptxed_run run;
	int status = 0;

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	switch (ptxed_parse(&run, argc, argv, prog)) {
	case ptxed_parse_run:
		break;
	case ptxed_parse_done:
		ptxed_run_fini(&run);
		return fflush(stdout) == 0 ? 0 : 1;
	case ptxed_parse_error:
		fflush(stdout);
		ptxed_run_fini(&run);
		return 1;
	}

	ild = ptxed_disas_alloc();
	if (!ild) {
		fprintf(stderr, "%s: out of memory.\n", prog);
		ptxed_run_fini(&run);
		return 1;
	}
	if (run.options.perf_time && !run.options.have_perf_tc)
		fprintf(stderr,
		        "%s: warning: --perf:time needs --perf and a perf.data "
		        "file with perf's time conversion: times are TSCs.\n",
		        prog);
	if (run.options.perf_tasks && !run.decoder.tasks)
		fprintf(stderr,
		        "%s: warning: --perf:tasks prints nothing without "
		        "--perf:images on the AUX area of a perf.data file "
		        "with context switches of its CPU.\n",
		        prog);
	/* (Without the cache, ptxed is slower but the same.) */
	run.decoder.icache = ptxed_icache_alloc();
	if (!ptxed_decode(&run.decoder, &run.options, &run.stats, ild))
		fprintf(stderr,
		        "%s: warning: no PSB packet in the trace, nothing to "
		        "decode.\n",
		        prog);
	if (run.options.print_stats)
		ptxed_print_stats(&run.stats);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "%s: error writing the output.\n", prog);
		status = 1;
	}
	ptxed_icache_free(run.decoder.icache);
	run.decoder.icache = NULL;
	ptxed_disas_free(ild);
	ptxed_run_fini(&run);
	return status;
}
