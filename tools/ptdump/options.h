/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: command-line options.
 *
 * The options and their behaviour are those of libipt's ptdump: options
 * come first, then exactly one trace file, which must be the last argument.
 * Options are handled in order, so --help and --version act as soon as they
 * are seen. */
#ifndef PTDUMP_OPTIONS_H
#define PTDUMP_OPTIONS_H

#include "ptdecode/intel-pt.h"
#include "sb.h"

#include <stdint.h>
#include <stdio.h>

/* What to show and how to decode. */
struct ptdump_options {
	/* Show the offset column (cleared by --no-offset). */
	uint32_t show_offset : 1;
	/* --raw: show the packet bytes. */
	uint32_t show_raw_bytes : 1;
	/* --lastip: show the last IP on IP packets. */
	uint32_t show_last_ip : 1;
	/* --exec-mode: show the execution mode on MODE.Exec packets. */
	uint32_t show_exec_mode : 1;
	/* --quiet: print nothing but diagnostics. */
	uint32_t quiet : 1;
	/* --no-pad: hide PAD packets. */
	uint32_t no_pad : 1;
	/* --no-sync: start decoding at offset 0 instead of the first PSB. */
	uint32_t no_sync : 1;
	/* --no-timing: hide TSC, TMA, MTC, CYC and CBR packets. */
	uint32_t no_timing : 1;
	/* --no-cyc: hide CYC packets (and, with timing, ignore them). */
	uint32_t no_cyc : 1;

	/* Timing options. */
	/* --time: show the estimated TSC on timing packets. */
	uint32_t show_time : 1;
	/* --tcal: show the time calibration. */
	uint32_t show_tcal : 1;
	/* --time-delta: show time and calibration as deltas. */
	uint32_t show_time_as_delta : 1;
	/* --no-tcal: do not calibrate. */
	uint32_t no_tcal : 1;
	/* --no-wall-clock: show relative time when there is no TSC. */
	uint32_t no_wall_clock : 1;
	/* --keep-tcal-on-ovf: keep the calibration over an OVF. */
	uint32_t keep_tcal_on_ovf : 1;
	/* --time-libipt: libipt's estimator instead of ptdecode's. */
	uint32_t time_libipt : 1;
	/* --vmx-host-time: show host TSC values for a guest's trace. */
	uint32_t vmx_host_time : 1;

	/* --vmx-tsc-multiplier, --vmx-tsc-offset: a guest's VMX TSC scaling
	 * and offsetting (0: none). */
	uint64_t vmx_tsc_multiplier;
	uint64_t vmx_tsc_offset;
};

/* Everything the command line says. */
struct ptdump_args {
	struct ptdump_options options;

	/* The processor (--cpu); vendor pcv_unknown means no errata. */
	struct pt_cpu cpu;
	/* --mtc-freq, --nom-freq, --cpuid-0x15.eax, --cpuid-0x15.ebx. */
	uint8_t mtc_freq;
	uint8_t nom_freq;
	uint32_t cpuid_0x15_eax;
	uint32_t cpuid_0x15_ebx;

	/* Which of the five above the command line gave (enum
	 * ptd_tool_given): with --perf they win over the file's values. */
	uint32_t given;

	/* --perf: the file is a perf.data file; dump the trace of every AUX
	 * area (@perf_aux -1) or of AUX area @perf_aux (--perf:aux). */
	uint32_t perf : 1;
	/* --perf:sideband: the file's sideband instead of its trace. */
	uint32_t perf_sideband : 1;
	int64_t perf_aux;

	/* The trace argument as given: <file>[:<from>[-<to>]]. */
	const char *trace_arg;

	/* --pevent files and --sb:* flags (sb.h): the sideband records to
	 * print among the packets; free with ptd_sb_fini(). */
	struct ptd_sb_session sb;
};

/* How to go on after ptdump_parse_args(). */
enum ptdump_parse_status {
	/* Dump the trace. */
	ptdump_parse_run,
	/* Stop with exit status 0 (after --help or --version). */
	ptdump_parse_done,
	/* Stop with exit status 1; a message went to the error stream. */
	ptdump_parse_error
};

/* Parse the number @text as strtoull() with base 0 would (decimal, 0x hex,
 * 0 octal) but strictly: no sign, no white space, no overflow.  With @rest
 * NULL the whole text must be the number; otherwise parsing stops at the
 * first character that does not belong to it and @rest points there.
 * Returns 0, or -1 if @text does not start with a valid number. */
int ptdump_parse_u64(const char *text, const char **rest, uint64_t *value);

/* Initialize @config with the processor, its errata and the timing values
 * of @args.  An unknown processor is reported in the listing on stdout, as
 * libipt's ptdump does, and the trace is decoded without errata. */
void ptdump_args_config(struct pt_config *config,
                        const struct ptdump_args *args);

/* Parse @argc/@argv into @args.  @prog names ptdump in messages.  Help and
 * version go to @out, error messages to @err.  Sideband files are loaded
 * as their options come; @args->sb must be freed with ptd_sb_fini()
 * whatever the result. */
enum ptdump_parse_status ptdump_parse_args(struct ptdump_args *args, int argc,
                                           char *argv[], const char *prog,
                                           FILE *out, FILE *err);

#endif /* PTDUMP_OPTIONS_H */
