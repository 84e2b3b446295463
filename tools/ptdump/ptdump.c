/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: print the packets of an Intel Processor Trace.
 *
 * A libipt-compatible ptdump on top of ptdecode's packet decoder.  The
 * command line and the output format are those of libipt's ptdump; see
 * docs/ptdump.md.  This file ties the parts together:
 *
 *	options.c	command line
 *	input.c		loading <file>[:<from>[-<to>]]
 *	dump.c		decode loop, resynchronization, tracking
 *	format.c	packet -> opcode and payload columns
 *	last_ip.c	last-IP tracking for --lastip
 *	line.c		column layout of a listing line
 *	timing.c	the time column for --time and --tcal
 *	diag.c		"[offset: what: error]" diagnostic lines
 *	perf.c		--perf: the trace in a perf.data file
 *
 * Exit status: 0 on success (decode errors that ptdump recovered from by
 * resynchronizing included), 1 for command-line and file errors, and the
 * pt_error_code of an error that stopped the dump, as libipt's ptdump. */
#include "diag.h"
#include "dump.h"
#include "input.h"
#include "options.h"
#include "perf.h"
#include "perf_sideband.h"
#include "timing.h"

#include "ptdecode/ptdecode.h"

#include <stdio.h>
#include <string.h>

/* The name to use in messages: argv[0] without its directory. */
static const char *ptdump_prog_name(const char *argv0)
{
	const char *slash;

	if (!argv0 || !argv0[0])
		return "ptdump";
	slash = strrchr(argv0, '/');
	return slash ? slash + 1 : argv0;
}

/* Everything after the command line was parsed (into @args). */
static int ptdump_run(struct ptdump_args *args, const char *prog)
{
	struct ptdump_stats stats;
	struct ptdump_trace trace;
	struct pt_config config;
	int err, status;

	err = ptdump_trace_parse(&trace, args->trace_arg, prog, stderr);
	if (err < 0) {
		ptdump_trace_fini(&trace);
		return (err == -1) ? 1 : -err;
	}

	if (args->perf) {
		uint32_t time_diag = 0;

		if (trace.from || trace.has_to) {
			fprintf(stderr,
			        "%s: --perf takes no range (%s): it dumps "
			        "whole "
			        "AUX areas.\n",
			        prog, args->trace_arg);
			ptdump_trace_fini(&trace);
			return 1;
		}
		status = args->perf_sideband
		                 ? ptdump_perf_sideband(trace.filename, prog)
		                 : ptdump_perf(args, trace.filename, prog,
		                               &time_diag);
		ptdump_trace_fini(&trace);
		ptdump_timing_summary(time_diag, prog, stderr);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "%s: error writing the listing.\n",
			        prog);
			if (!status)
				status = 1;
		}
		return status;
	}

	ptdump_args_config(&config, args);

	if (ptdump_trace_load(&trace, prog, stderr) < 0) {
		ptdump_trace_fini(&trace);
		return 1;
	}
	config.begin = trace.buffer;
	config.end = trace.buffer + trace.size;
	if (!trace.from && trace.size >= 8 &&
	    memcmp(trace.buffer, "PERFILE2", 8) == 0)
		fprintf(stderr,
		        "%s: note: %s is a perf.data file; --perf dumps the "
		        "trace it holds.\n",
		        prog, trace.filename);

	if (ptd_sb_any(&args->sb))
		ptd_sb_start(&args->sb);
	err = ptdump_dump(&config, &args->options, stdout, &stats,
	                  ptd_sb_any(&args->sb) ? &args->sb : NULL);
	status = (err < 0) ? -err : 0;
	if (!err && !stats.packets && !stats.errors) {
		if (args->options.no_sync)
			fprintf(stderr,
			        "%s: warning: %s ends inside its first packet, "
			        "nothing to dump.\n",
			        prog, args->trace_arg);
		else
			fprintf(stderr,
			        "%s: warning: no PSB packet in %s, nothing to "
			        "dump (--no-sync decodes from the start).\n",
			        prog, args->trace_arg);
	}

	ptdump_trace_fini(&trace);
	ptdump_timing_summary(stats.time_diag, prog, stderr);

	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: error writing the listing.\n", prog);
		if (!status)
			status = 1;
	}
	return status;
}

int main(int argc, char *argv[])
{
	const char *prog = ptdump_prog_name(argc > 0 ? argv[0] : NULL);
	struct ptdump_args args;
	int status;

	switch (ptdump_parse_args(&args, argc, argv, prog, stdout, stderr)) {
	case ptdump_parse_run:
		status = ptdump_run(&args, prog);
		break;
	case ptdump_parse_done:
		status = (fflush(stdout) == 0) ? 0 : 1;
		break;
	case ptdump_parse_error:
	default:
		status = 1;
		break;
	}
	ptd_sb_fini(&args.sb);
	return status;
}
