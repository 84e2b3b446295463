/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: command-line options. */
#include "options.h"

#include "diag.h"

#include "perf_input.h"
#include "tool_args.h"

#include "ptdecode/ptdecode.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int ptdump_parse_u64(const char *text, const char **rest, uint64_t *value)
{
	unsigned long long v;
	char *end;

	if (!text || !isdigit((unsigned char)text[0]))
		return -1;

	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno || end == text)
		return -1;
	if (rest)
		*rest = end;
	else if (*end)
		return -1;

	*value = (uint64_t)v;
	return 0;
}

/* The help text after the usage line, one line per entry. */
static const char *const ptdump_help_text[] = {
        "",
        "Print the Intel Processor Trace packets in <ptfile>, one per line.",
        "",
        "options:",
        "  --help|-h                 print this text and exit.",
        "  --version                 print the version and exit.",
        "  --no-sync                 start at offset 0, not at the first PSB.",
        "  --quiet                   print nothing but diagnostics.",
        "  --no-pad                  hide PAD packets.",
        "  --no-timing               hide timing packets (TSC, TMA, MTC, CYC,",
        "                            CBR).",
        "  --no-cyc                  hide CYC packets.",
        "  --no-offset               hide the offset column.",
        "  --raw                     show the packet bytes in hex.",
        "  --lastip                  show the last IP on IP packets.",
        "  --exec-mode               show the execution mode on mode.exec.",
        "  --time                    show the estimated TSC on timing packets.",
        "  --tcal                    show the time calibration (TSC ticks per",
        "                            core cycle) on timing packets.",
        "  --time-delta              show time and calibration as the",
        "                            difference to the previous value.",
        "  --no-tcal                 do not calibrate (CYC packets then give",
        "                            no time unless ptdecode's estimator can",
        "                            interpolate them).",
        "  --no-wall-clock           print relative time instead of an error",
        "                            while there was no TSC packet.",
        "  --keep-tcal-on-ovf        keep the calibration over an overflow.",
        "  --time-libipt             estimate time as libipt does (default:",
        "                            ptdecode's monotonic, interpolating",
        "                            estimator; see docs/time.md).",
        "  --vmx-tsc-multiplier <n>  a guest's trace: the VMCS TSC multiplier",
        "                            (48 fraction bits; 0x1000000000000 is 1).",
        "  --vmx-tsc-offset <n>      a guest's trace: the VMCS TSC offset.",
        "  --vmx-host-time           show host TSC values instead of the",
        "                            guest's (needs one of the two above).",
        "  --cpu none|f/m[/s]        the processor (family/model[/stepping])",
        "                            whose errata to work around; none: no",
        "                            errata (the default).",
        "  --mtc-freq <n>            IA32_RTIT_CTL.MTCFreq (bits 17:14).",
        "  --nom-freq <n>            the nominal (maximum non-turbo) ratio,",
        "                            MSR_PLATFORM_INFO[15:8].",
        "  --cpuid-0x15.eax <n>      CPUID[0x15].EAX (TSC:CTC denominator).",
        "  --cpuid-0x15.ebx <n>      CPUID[0x15].EBX (TSC:CTC numerator).",
        "  --perf                    <ptfile> is a perf.data file (or the",
        "                            directory of perf record --threads):",
        "                            dump the trace of each AUX area,",
        "                            configured from the file (the four",
        "                            options above and --cpu override it;",
        "                            ptdecode extension).",
        "  --perf:aux <idx>          as --perf, only AUX area <idx>, without",
        "                            a heading (ptdecode extension).",
        "  --perf:sideband           <ptfile> is a perf.data file: print its",
        "                            memory maps, process names, context",
        "                            switches, forks and exits in time order",
        "                            instead of the trace (ptdecode "
        "extension).",
        "  --sb:compact|--sb         print sideband records, one line each.",
        "  --sb:verbose              print sideband records, a line per",
        "                            field.",
        "  --sb:filename             show the sideband file's name.",
        "  --sb:offset               show the record's offset in its file.",
        "  --sb:time                 show the record's time as a TSC.",
        "  --sb:warn                 also show sideband warnings.",
        "  --pevent <file>[:<from>[-<to>]]",
        "                            print the perf_event sideband records",
        "                            of <file> (libipt's perf-read-",
        "                            sideband.bash writes them) among the",
        "                            packets, each before the timing packet",
        "                            whose time reaches it; the settings",
        "                            below apply to the files after them.",
        "  --pevent:primary <file>[:<from>[-<to>]]",
        "  --pevent:secondary <file>[:<from>[-<to>]]",
        "                            the same as --pevent.",
        "  --pevent:sample-type <n>  perf_event_attr.sample_type of the",
        "                            records (default: 0).",
        "  --pevent:sample-config <id>:<n>",
        "                            records that end in the identifier <id>",
        "                            have sample type <n> (libipt 2.1).",
        "  --pevent:time-zero <n>    perf_event_mmap_page.time_zero",
        "                            (default: 0).",
        "  --pevent:time-shift <n>   perf_event_mmap_page.time_shift",
        "                            (default: 0).",
        "  --pevent:time-mult <n>    perf_event_mmap_page.time_mult",
        "                            (default: 1).",
        "  --pevent:tsc-offset <n>   show records <n> TSC ticks earlier.",
        "  --pevent:kernel-start <n> the kernel's start address (ignored).",
        "  --pevent:sysroot <dir>    ignored (ptxed's).",
        "  --pevent:kcore <file>     ignored (ptxed's).",
        "  --pevent:vdso-x64 <file>  ignored (ptxed's).",
        "  --pevent:vdso-x32 <file>  ignored (ptxed's).",
        "  --pevent:vdso-ia32 <file> ignored (ptxed's).",
        "  <ptfile>[:<from>[-<to>]]  the raw trace (- for standard input); "
        "with",
        "                            a range, only the bytes from offset "
        "<from>",
        "                            up to, but not including, offset <to>.",
        "",
        "Numbers are decimal, hexadecimal with 0x, or octal with a leading 0.",
        "See docs/ptdump.md for the output format.",
};

static void ptdump_help(FILE *out, const char *prog)
{
	size_t i;

	fprintf(out, "usage: %s [<options>] <ptfile>[:<from>[-<to>]]\n", prog);
	for (i = 0; i < sizeof(ptdump_help_text) / sizeof(ptdump_help_text[0]);
	     ++i)
		fprintf(out, "%s\n", ptdump_help_text[i]);
}

static void ptdump_version(FILE *out, const char *prog)
{
	struct pt_version v = pt_library_version();

	fprintf(out, "%s-%s / libipt-%u.%u.%u%s%s\n", prog,
	        ptd_version_string(), (unsigned)v.major, (unsigned)v.minor,
	        (unsigned)v.patch, v.ext && v.ext[0] ? "-" : "",
	        v.ext ? v.ext : "");
}

/* Fetch the value of option argv[*idx] into @value, at most @max.  Advances
 * *idx past the value.  Returns 0, or -1 after printing an error. */
static int ptdump_option_number(uint64_t *value, uint64_t max, int *idx,
                                int argc, char *argv[], const char *prog,
                                FILE *err)
{
	const char *option = argv[*idx];
	const char *arg = (*idx + 1 < argc) ? argv[*idx + 1] : NULL;

	if (!arg || !arg[0] || (arg[0] == '-' && arg[1] == '-')) {
		fprintf(err, "%s: %s: missing argument.\n", prog, option);
		return -1;
	}
	*idx += 1;

	/* As libipt's ptdump, whatever strtoull() takes: a sign (-1 is the
	 * largest value, a negative VMX TSC offset its two's complement)
	 * and leading blanks included. */
	{
		char *end;

		errno = 0;
		*value = strtoull(arg, &end, 0);
		if (errno || end == arg || *end) {
			fprintf(err, "%s: %s: bad argument: %s.\n", prog,
			        option, arg);
			return -1;
		}
	}
	if (*value > max) {
		fprintf(err,
		        "%s: %s: value too big: %s (at most %" PRIu64 ").\n",
		        prog, option, arg, max);
		return -1;
	}
	return 0;
}

static int ptdump_option_cpu(struct pt_cpu *cpu, int *idx, int argc,
                             char *argv[], const char *prog, FILE *err)
{
	const char *arg = (*idx + 1 < argc) ? argv[*idx + 1] : NULL;

	if (!ptd_tool_cpu(cpu, arg, prog, err))
		return -1;
	*idx += 1;
	return 0;
}

/* Set the flag for a simple (value-less) option.  Returns 1 if @arg is one,
 * 0 if not. */
static int ptdump_option_flag(struct ptdump_options *o, const char *arg)
{
	if (strcmp(arg, "--no-sync") == 0)
		o->no_sync = 1;
	else if (strcmp(arg, "--quiet") == 0)
		o->quiet = 1;
	else if (strcmp(arg, "--no-pad") == 0)
		o->no_pad = 1;
	else if (strcmp(arg, "--no-timing") == 0)
		o->no_timing = 1;
	else if (strcmp(arg, "--no-cyc") == 0)
		o->no_cyc = 1;
	else if (strcmp(arg, "--no-offset") == 0)
		o->show_offset = 0;
	else if (strcmp(arg, "--raw") == 0)
		o->show_raw_bytes = 1;
	else if (strcmp(arg, "--lastip") == 0)
		o->show_last_ip = 1;
	else if (strcmp(arg, "--exec-mode") == 0)
		o->show_exec_mode = 1;
	else if (strcmp(arg, "--time") == 0)
		o->show_time = 1;
	else if (strcmp(arg, "--tcal") == 0)
		o->show_tcal = 1;
	else if (strcmp(arg, "--time-delta") == 0)
		o->show_time_as_delta = 1;
	else if (strcmp(arg, "--no-tcal") == 0)
		o->no_tcal = 1;
	else if (strcmp(arg, "--no-wall-clock") == 0)
		o->no_wall_clock = 1;
	else if (strcmp(arg, "--keep-tcal-on-ovf") == 0)
		o->keep_tcal_on_ovf = 1;
	else if (strcmp(arg, "--time-libipt") == 0)
		o->time_libipt = 1;
	else if (strcmp(arg, "--vmx-host-time") == 0)
		o->vmx_host_time = 1;
	else
		return 0;
	return 1;
}

enum ptdump_parse_status ptdump_parse_args(struct ptdump_args *args, int argc,
                                           char *argv[], const char *prog,
                                           FILE *out, FILE *err)
{
	int idx;

	memset(args, 0, sizeof(*args));
	ptd_sb_init(&args->sb);
	args->options.show_offset = 1;
	args->perf_aux = -1;

	for (idx = 1; idx < argc; ++idx) {
		const char *arg = argv[idx];
		uint64_t value;

		/* The first argument that is not an option names the trace
		 * and must be the last one; "--" ends the options, and "-"
		 * (standard input, also with a range: "-:<from>") is no
		 * option. */
		if (arg[0] != '-' || !arg[1] || arg[1] == ':' ||
		    strcmp(arg, "--") == 0) {
			if (strcmp(arg, "--") == 0)
				idx += 1;
			if (idx >= argc)
				break;
			if (idx != argc - 1) {
				fprintf(err,
				        "%s: the trace file must be the last "
				        "argument (got '%s' after '%s').  Use "
				        "--help or -h for help.\n",
				        prog, argv[idx + 1], argv[idx]);
				return ptdump_parse_error;
			}
			args->trace_arg = argv[idx];
			break;
		}

		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			ptdump_help(out, prog);
			return ptdump_parse_done;
		}
		if (strcmp(arg, "--version") == 0) {
			ptdump_version(out, prog);
			return ptdump_parse_done;
		}

		if (ptdump_option_flag(&args->options, arg)) {
			/* As libipt's, --quiet silences the sideband flags
			 * given before it. */
			if (!strcmp(arg, "--quiet"))
				args->sb.print = 0;
			if (args->options.show_time &&
			    args->options.show_tcal) {
				fprintf(err,
				        "%s: specify either --time or "
				        "--tcal.\n",
				        prog);
				return ptdump_parse_error;
			}
			continue;
		}

		if (strcmp(arg, "--cpu") == 0) {
			if (ptdump_option_cpu(&args->cpu, &idx, argc, argv,
			                      prog, err) < 0)
				return ptdump_parse_error;
			args->given |= ptd_tool_given_cpu;
		} else if (strcmp(arg, "--mtc-freq") == 0) {
			if (ptdump_option_number(&value, UINT8_MAX, &idx, argc,
			                         argv, prog, err) < 0)
				return ptdump_parse_error;
			args->mtc_freq = (uint8_t)value;
			args->given |= ptd_tool_given_mtc_freq;
			ptd_tool_mtc_freq_check(value, prog, err);
		} else if (strcmp(arg, "--nom-freq") == 0) {
			if (ptdump_option_number(&value, UINT8_MAX, &idx, argc,
			                         argv, prog, err) < 0)
				return ptdump_parse_error;
			args->nom_freq = (uint8_t)value;
			args->given |= ptd_tool_given_nom_freq;
		} else if (strcmp(arg, "--cpuid-0x15.eax") == 0) {
			if (ptdump_option_number(&value, UINT32_MAX, &idx, argc,
			                         argv, prog, err) < 0)
				return ptdump_parse_error;
			args->cpuid_0x15_eax = (uint32_t)value;
			args->given |= ptd_tool_given_eax;
		} else if (strcmp(arg, "--vmx-tsc-multiplier") == 0) {
			if (ptdump_option_number(&value, UINT64_MAX, &idx, argc,
			                         argv, prog, err) < 0)
				return ptdump_parse_error;
			args->options.vmx_tsc_multiplier = value;
		} else if (strcmp(arg, "--vmx-tsc-offset") == 0) {
			if (ptdump_option_number(&value, UINT64_MAX, &idx, argc,
			                         argv, prog, err) < 0)
				return ptdump_parse_error;
			args->options.vmx_tsc_offset = value;
		} else if (strcmp(arg, "--cpuid-0x15.ebx") == 0) {
			if (ptdump_option_number(&value, UINT32_MAX, &idx, argc,
			                         argv, prog, err) < 0)
				return ptdump_parse_error;
			args->cpuid_0x15_ebx = (uint32_t)value;
			args->given |= ptd_tool_given_ebx;
		} else if (strcmp(arg, "--perf") == 0) {
			args->perf = 1;
		} else if (strcmp(arg, "--perf:sideband") == 0) {
			args->perf = 1;
			args->perf_sideband = 1;
		} else if (strcmp(arg, "--perf:aux") == 0) {
			if (ptdump_option_number(&value, UINT32_MAX, &idx, argc,
			                         argv, prog, err) < 0)
				return ptdump_parse_error;
			args->perf = 1;
			args->perf_aux = (int64_t)value;
		} else {
			int res = ptd_sb_option(&args->sb, ptd_sb_ptdump, argc,
			                        argv, &idx, prog, err);

			if (res < 0)
				return ptdump_parse_error;
			if (res > 0)
				continue;
			fprintf(err,
			        "%s: unknown option: %s.  Use --help or -h for "
			        "help.\n",
			        prog, arg);
			return ptdump_parse_error;
		}
	}

	if (args->perf_sideband && args->perf_aux >= 0) {
		fprintf(err,
		        "%s: --perf:sideband prints the file's sideband, "
		        "--perf:aux the trace of one AUX area: give one of "
		        "them.\n",
		        prog);
		return ptdump_parse_error;
	}
	if (args->perf && args->sb.print && !ptd_sb_any(&args->sb))
		fprintf(err,
		        "%s: warning: the --sb options print the records of "
		        "--pevent files and do nothing with --perf "
		        "(--perf:sideband prints the file's sideband).\n",
		        prog);

	if (args->perf && ptd_sb_any(&args->sb)) {
		fprintf(err,
		        "%s: --pevent files go with a raw trace; --perf reads "
		        "the sideband of the perf.data file itself "
		        "(--perf:sideband prints it).\n",
		        prog);
		return ptdump_parse_error;
	}

	if (args->options.vmx_host_time && !args->options.vmx_tsc_multiplier &&
	    !args->options.vmx_tsc_offset) {
		fprintf(err,
		        "%s: --vmx-host-time needs a --vmx-tsc-multiplier or "
		        "--vmx-tsc-offset other than 0 (0 is none).\n",
		        prog);
		return ptdump_parse_error;
	}

	if (!args->trace_arg) {
		fprintf(err,
		        "%s: no processor trace file specified.  Use --help or "
		        "-h for help.\n",
		        prog);
		return ptdump_parse_error;
	}
	return ptdump_parse_run;
}

void ptdump_args_config(struct pt_config *config,
                        const struct ptdump_args *args)
{
	pt_config_init(config);
	config->cpu = args->cpu;
	config->mtc_freq = args->mtc_freq;
	config->nom_freq = args->nom_freq;
	config->cpuid_0x15_eax = args->cpuid_0x15_eax;
	config->cpuid_0x15_ebx = args->cpuid_0x15_ebx;
	if (config->cpu.vendor != pcv_unknown) {
		int err = pt_cpu_errata(&config->errata, &config->cpu);

		if (err < 0)
			ptdump_diag(stdout, 0, "failed to determine errata",
			            err);
	}
}
