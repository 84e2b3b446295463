/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the command line; see options.h. */
#include "options.h"
#include "load.h"
#include "load_elf.h"
#include "perf.h"
#include "perf_input.h"
#include "sideband.h"
#include "tasks.h"
#include "tool_args.h"

#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ptxed_help(const char *prog)
{
	static const char *const lines[] = {
	        "options:",
	        "  --help|-h                            this text.",
	        "  --version                            display version "
	        "information and exit.",
	        "  --att                                print instructions in "
	        "att format.",
	        "  --no-inst                            do not print "
	        "instructions (only addresses).",
	        "  --quiet|-q                           do not print anything "
	        "(except errors).",
	        "  --offset                             print the offset into "
	        "the trace file.",
	        "  --time                               print the current "
	        "timestamp.",
	        "  --raw-insn                           print the raw bytes of "
	        "each instruction.",
	        "  --check                              check instruction "
	        "sizes and classes (expensive).",
	        "  --resync-on-error                    resync after an error "
	        "instead of skipping to the next PSB.",
	        "  --iscache-limit <size>               set the image section "
	        "cache limit to <size> bytes.",
	        "  --event:time                         print the tsc for "
	        "events if available.",
	        "  --event:ip                           print the ip of events "
	        "if available.",
	        "  --event:tick                         request tick events.",
	        "  --event:iflags                       request iflags events.",
	        "  --filter:addr<n>_cfg <cfg>           set "
	        "IA32_RTIT_CTL.ADDRn_CFG to <cfg>.",
	        "  --filter:addr<n>_a <base>            set IA32_RTIT_ADDRn_A "
	        "to <base>.",
	        "  --filter:addr<n>_b <limit>           set IA32_RTIT_ADDRn_B "
	        "to <limit>.",
	        "  --stat                               print statistics (even "
	        "when quiet).",
	        "                                       collects all "
	        "statistics "
	        "unless one or more are selected.",
	        "  --stat:insn                          collect number of "
	        "instructions.",
	        "  --stat:blocks                        collect number of "
	        "blocks.",
	        "  --sb:compact|--sb                    print sideband "
	        "records, one line each.",
	        "  --sb:verbose                         print sideband "
	        "records, a line per field.",
	        "  --sb:filename                        show the sideband "
	        "file's name.",
	        "  --sb:offset                          show the record's "
	        "offset in its file.",
	        "  --sb:time                            show the record's time "
	        "as a TSC.",
	        "  --sb:switch                          print the new image's "
	        "name at context switches.",
	        "  --sb:warn                            also print sideband "
	        "warnings.",
	        "  --pevent:primary <file>[:<from>[-<to>]]",
	        "                                       load the perf_event "
	        "sideband records of",
	        "                                       <file> (of the trace's "
	        "CPU: they switch",
	        "                                       images); the settings "
	        "below apply to the",
	        "                                       files after them.",
	        "  --pevent:secondary <file>[:<from>[-<to>]]",
	        "                                       load records of other "
	        "CPUs (they update",
	        "                                       processes, never "
	        "switch).",
	        "  --pevent:sample-type <n>             "
	        "perf_event_attr.sample_type (default: 0).",
	        "  --pevent:sample-config <id>:<n>      records that end in "
	        "the identifier <id> have",
	        "                                       sample type <n> "
	        "(libipt 2.1).",
	        "  --pevent:time-zero <n>               "
	        "perf_event_mmap_page.time_zero (default: 0).",
	        "  --pevent:time-shift <n>              "
	        "perf_event_mmap_page.time_shift (default: 0).",
	        "  --pevent:time-mult <n>               "
	        "perf_event_mmap_page.time_mult (default: 1).",
	        "  --pevent:tsc-offset <n>              apply records <n> TSC "
	        "ticks earlier.",
	        "  --pevent:kernel-start <n>            the kernel's start "
	        "address (where to switch).",
	        "  --pevent:sysroot <dir>               put <dir> before the "
	        "files that records map.",
	        "  --pevent:kcore <file>[:<base>]       load the kernel from a "
	        "core dump (ELF).",
	        "  --pevent:vdso-x64 <file>             use <file> as the "
	        "64-bit vdso.",
	        "  --pevent:vdso-x32 <file>             use <file> as the "
	        "x32 vdso.",
	        "  --pevent:vdso-ia32 <file>            use <file> as the "
	        "32-bit vdso.",
	        "  --verbose|-v                         print various "
	        "information (even when quiet).",
	        "  --pt <file>[:<from>[-<to>]]          load the processor "
	        "trace data from <file>.",
	        "                                       an optional offset or "
	        "range can be given.",
	        "  --perf <file>[:<idx>]                load the trace of AUX "
	        "area <idx> of the",
	        "                                       perf.data <file> "
	        "instead (every area in",
	        "                                       turn without <idx>; "
	        "ptdecode extension;",
	        "                                       see docs/ptxed.md).",
	        "  --perf:images                        with --perf: load the "
	        "traced process's",
	        "                                       memory maps from the "
	        "file's sideband, and",
	        "                                       switch to the code of "
	        "the task that runs",
	        "                                       at context switches "
	        "(ptdecode extension;",
	        "                                       before --perf).",
	        "  --perf:tasks                         with --perf:images: "
	        "print a line when the",
	        "                                       task changes "
	        "(ptdecode extension).",
	        "  --perf:time                          with --perf: print "
	        "the times of --time",
	        "                                       and --event:time in "
	        "perf time (seconds;",
	        "                                       ptdecode extension).",
	        "  --elf <file>[:<base>]                load an ELF from "
	        "<file> "
	        "at address <base>.",
	        "                                       use the default load "
	        "address if <base> is omitted.",
	        "  --raw <file>[:<from>[-<to>]]:<base>  load a raw binary from "
	        "<file> at address <base>.",
	        "                                       an optional offset or "
	        "range can be given.",
	        "  --page-dump <addr-file>:<dump-file>  load a libxdc page "
	        "dump "
	        "(ptdecode extension).",
	        "  --cpu none|f/m[/s]                   set cpu to the given "
	        "value and decode according to:",
	        "                                         none     spec "
	        "(default)",
	        "                                         f/m[/s]  "
	        "family/model[/stepping]",
	        "  --mtc-freq <n>                       set the MTC frequency "
	        "(IA32_RTIT_CTL[17:14]) to <n>.",
	        "  --nom-freq <n>                       set the nominal "
	        "frequency (MSR_PLATFORM_INFO[15:8]) to <n>.",
	        "  --cpuid-0x15.eax <n>                 set the value of "
	        "cpuid[0x15].eax.",
	        "  --cpuid-0x15.ebx <n>                 set the value of "
	        "cpuid[0x15].ebx.",
	        "  --time-libipt                        estimate time as "
	        "libipt 2.0.5 does (ptdecode",
	        "                                       extension; default: "
	        "ptdecode's estimator).",
	        "  --insn-decoder                       use the instruction "
	        "flow decoder.",
	        "  --insn:keep-tcal-on-ovf              preserve timing "
	        "calibration on overflow.",
	        "  --block-decoder                      use the block decoder "
	        "(default).",
	        "  --block:show-blocks                  show blocks in the "
	        "output.",
	        "  --block:end-on-call                  set the end-on-call "
	        "block decoder flag.",
	        "  --block:end-on-jump                  set the end-on-jump "
	        "block decoder flag.",
	        "  --block:keep-tcal-on-ovf             preserve timing "
	        "calibration on overflow.",
	        "",
	        "You must specify at least one binary, ELF file or page dump "
	        "(--raw|--elf|--page-dump).",
	        "You must specify exactly one processor trace file (--pt).",
	};
	size_t i;

	printf("usage: %s [<options>]\n\n", prog);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); ++i)
		puts(lines[i]);
}

static void ptxed_version(const char *prog)
{
	struct pt_version v = pt_library_version();

	printf("%s-%s / libipt-%u.%u.%u%s%s\n", prog, ptd_version_string(),
	       (unsigned)v.major, (unsigned)v.minor, (unsigned)v.patch,
	       v.ext && v.ext[0] ? "-" : "", v.ext ? v.ext : "");
}

static int ptxed_have_decoder(const struct ptxed_decoder *decoder)
{
	return decoder->variant.insn != NULL;
}

/* --pt, or --perf (@perf): load the trace and allocate the decoder. */
static int ptxed_alloc_decoder(struct ptxed_run *run, char *arg, int perf,
                               const char *prog)
{
	struct ptxed_decoder *decoder = &run->decoder;
	struct ptd_time_config tconfig;
	struct pt_config config;
	int err;

	if (run->config.cpu.vendor) {
		err = pt_cpu_errata(&run->config.errata, &run->config.cpu);
		if (err < 0)
			printf("[0, 0: config error: %s]\n",
			       pt_errstr(pt_errcode(err)));
	}
	if (perf) {
		struct ptxed_perf_image img = {
		        decoder->iscache,          decoder->image,
		        run->options.perf_images,  run->options.verbose,
		        &decoder->tasks,           &run->options.perf_tc,
		        &run->options.have_perf_tc};

		if (ptxed_load_perf(&run->config, run->given, arg, &img,
		                    &run->areas, prog))
			return -1;
	} else if (ptxed_load_pt(&run->config, arg, prog)) {
		return -1;
	}

	config = run->config;
	ptd_time_config_init(&tconfig);
	if (run->options.time_libipt)
		tconfig.mode = ptd_time_mode_libipt;
	if (decoder->type == ptxed_insn_decoder) {
		config.flags = decoder->insn_flags;
		decoder->variant.insn =
		        ptd_insn_alloc_decoder(&config, &tconfig);
		if (!decoder->variant.insn) {
			fprintf(stderr, "%s: failed to create decoder.\n",
			        prog);
			return -1;
		}
	} else {
		config.flags = decoder->block_flags;
		decoder->variant.block =
		        ptd_blk_alloc_decoder(&config, &tconfig);
		if (!decoder->variant.block) {
			fprintf(stderr, "%s: failed to create decoder.\n",
			        prog);
			return -1;
		}
	}
	err = ptxed_set_image(decoder, decoder->image);
	if (err < 0) {
		fprintf(stderr, "%s: failed to set image.\n", prog);
		return -1;
	}
	return 0;
}

/* --filter:addr<n>_cfg|_a|_b.  Returns 1 if @arg is one (with *idx moved
 * past its value), -1 after an error, 0 if it is not. */
static int ptxed_filter_option(struct ptxed_run *run, const char *arg, int *idx,
                               int argc, char *argv[], const char *prog)
{
	struct pt_conf_addr_filter *filter = &run->config.addr_filter;
	const char *value = *idx < argc ? argv[*idx] : NULL;
	uint64_t *ranges[4][2] = {{&filter->addr0_a, &filter->addr0_b},
	                          {&filter->addr1_a, &filter->addr1_b},
	                          {&filter->addr2_a, &filter->addr2_b},
	                          {&filter->addr3_a, &filter->addr3_b}};
	uint64_t number;
	unsigned n;

	if (strncmp(arg, "--filter:addr", 13) != 0 || arg[13] < '0' ||
	    arg[13] > '3')
		return 0;
	n = (unsigned)(arg[13] - '0');
	if (strcmp(arg + 14, "_cfg") && strcmp(arg + 14, "_a") &&
	    strcmp(arg + 14, "_b"))
		return 0;
	if (ptxed_have_decoder(&run->decoder)) {
		fprintf(stderr, "%s: please specify %s before --pt.\n", prog,
		        arg);
		return -1;
	}
	*idx += 1;
	if (strcmp(arg + 14, "_cfg") == 0) {
		if (!ptd_tool_number(&number, 15, arg, value, prog, stderr))
			return -1;
		run->config.addr_filter.config.addr_cfg |= number << (4 * n);
		return 1;
	}
	if (!ptd_tool_number(&number, UINT64_MAX, arg, value, prog, stderr))
		return -1;
	*ranges[n][arg[15] == 'b'] = number;
	return 1;
}

/* Options that set a flag.  Returns 1 if @arg is one. */
static int ptxed_flag_option(struct ptxed_run *run, const char *arg)
{
	struct ptxed_options *o = &run->options;
	struct ptxed_decoder *d = &run->decoder;

	if (!strcmp(arg, "--att"))
		o->att_format = 1;
	else if (!strcmp(arg, "--no-inst"))
		o->dont_print_insn = 1;
	else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q"))
		o->quiet = 1;
	else if (!strcmp(arg, "--offset"))
		o->print_offset = 1;
	else if (!strcmp(arg, "--perf:tasks"))
		o->perf_tasks = 1;
	else if (!strcmp(arg, "--perf:time"))
		o->perf_time = 1;
	else if (!strcmp(arg, "--time"))
		o->print_time = 1;
	else if (!strcmp(arg, "--raw-insn"))
		o->print_raw_insn = 1;
	else if (!strcmp(arg, "--check"))
		o->check = 1;
	else if (!strcmp(arg, "--resync-on-error"))
		o->resync_on_error = 1;
	else if (!strcmp(arg, "--event:time"))
		o->print_event_time = 1;
	else if (!strcmp(arg, "--event:ip"))
		o->print_event_ip = 1;
	else if (!strcmp(arg, "--event:tick")) {
		d->block_flags.variant.block.enable_tick_events = 1;
		d->insn_flags.variant.insn.enable_tick_events = 1;
	}
#if (LIBIPT_VERSION >= 0x201)
	else if (!strcmp(arg, "--event:iflags")) {
		d->block_flags.variant.block.enable_iflags_events = 1;
		d->insn_flags.variant.insn.enable_iflags_events = 1;
	} else if (!strcmp(arg, "--insn:keep-tcal-on-ovf"))
		d->insn_flags.variant.insn.keep_tcal_on_ovf = 1;
	else if (!strcmp(arg, "--block:keep-tcal-on-ovf"))
		d->block_flags.variant.block.keep_tcal_on_ovf = 1;
#endif
	else if (!strcmp(arg, "--stat"))
		o->print_stats = 1;
	else if (!strcmp(arg, "--stat:insn")) {
		o->print_stats = 1;
		run->stats.flags |= ptxed_stat_insn;
	} else if (!strcmp(arg, "--stat:blocks")) {
		o->print_stats = 1;
		run->stats.flags |= ptxed_stat_blocks;
	} else if (!strcmp(arg, "--verbose") || !strcmp(arg, "-v"))
		o->verbose = 1;
	else if (!strcmp(arg, "--block:show-blocks"))
		o->track_blocks = 1;
	else if (!strcmp(arg, "--block:end-on-call"))
		d->block_flags.variant.block.end_on_call = 1;
	else if (!strcmp(arg, "--block:end-on-jump"))
		d->block_flags.variant.block.end_on_jump = 1;
	else
		return 0;
	return 1;
}

/* Options with a numeric value for the configuration.  Returns 1 if @arg
 * is one, -1 after an error, 0 if it is not. */
static int ptxed_config_option(struct ptxed_run *run, const char *arg, int *idx,
                               int argc, char *argv[], const char *prog)
{
	const char *value = *idx < argc ? argv[*idx] : NULL;
	struct pt_config *config = &run->config;
	uint64_t number;

	if (!strcmp(arg, "--mtc-freq") || !strcmp(arg, "--nom-freq")) {
		*idx += 1;
		if (!ptd_tool_number(&number, UINT8_MAX, arg, value, prog,
		                     stderr))
			return -1;
		if (arg[2] == 'm') {
			config->mtc_freq = (uint8_t)number;
			run->given |= ptd_tool_given_mtc_freq;
			/* (Once, not again for each AUX area.) */
			if (!run->areas.later)
				ptd_tool_mtc_freq_check(number, prog, stderr);
		} else {
			config->nom_freq = (uint8_t)number;
			run->given |= ptd_tool_given_nom_freq;
		}
		return 1;
	}
	if (!strcmp(arg, "--cpuid-0x15.eax") ||
	    !strcmp(arg, "--cpuid-0x15.ebx")) {
		*idx += 1;
		if (!ptd_tool_number(&number, UINT32_MAX, arg, value, prog,
		                     stderr))
			return -1;
		if (arg[14] == 'a') {
			config->cpuid_0x15_eax = (uint32_t)number;
			run->given |= ptd_tool_given_eax;
		} else {
			config->cpuid_0x15_ebx = (uint32_t)number;
			run->given |= ptd_tool_given_ebx;
		}
		return 1;
	}
	if (!strcmp(arg, "--iscache-limit")) {
		int err;

		*idx += 1;
		if (!ptd_tool_number(&number, UINT64_MAX, arg, value, prog,
		                     stderr))
			return -1;
		err = pt_iscache_set_limit(run->decoder.iscache, number);
		if (err < 0) {
			fprintf(stderr,
			        "%s: error setting iscache limit: %s.\n", prog,
			        pt_errstr(pt_errcode(err)));
			return -1;
		}
		return 1;
	}
	return ptxed_filter_option(run, arg, idx, argc, argv, prog);
}

/* --pevent files with --perf, which brings its own sideband. */
static enum ptxed_parse_status ptxed_perf_and_sideband(const char *prog)
{
	fprintf(stderr,
	        "%s: --pevent files go with --pt; --perf takes the sideband "
	        "of the perf.data file itself (--perf:images).\n",
	        prog);
	return ptxed_parse_error;
}

/* How --raw, --elf and --page-dump load (enum ptxed_load_flags): their
 * warnings once, not again for each later AUX area of --perf. */
static int ptxed_load_flags_of(const struct ptxed_run *run)
{
	return (run->options.verbose ? ptxed_load_verbose : 0) |
	       (run->areas.later ? ptxed_load_quiet : 0);
}

enum ptxed_parse_status ptxed_parse(struct ptxed_run *run, int argc,
                                    char *argv[], int later,
                                    struct ptd_perf *shared, const char *prog)
{
	struct ptxed_decoder *decoder = &run->decoder;
	int i;

	memset(run, 0, sizeof(*run));
	run->areas.later = later;
	run->areas.shared = shared;
	pt_config_init(&run->config);
	decoder->type = ptxed_block_decoder;
	decoder->iscache = pt_iscache_alloc(NULL);
	decoder->image = pt_image_alloc(NULL);
	decoder->sb = decoder->iscache ? ptxed_sb_alloc(decoder->iscache, prog)
	                               : NULL;
	if (!decoder->iscache || !decoder->image || !decoder->sb) {
		fprintf(stderr, "%s: failed to allocate image.\n", prog);
		return ptxed_parse_error;
	}

	for (i = 1; i < argc;) {
		char *arg = argv[i++];
		const char *option = arg;
		int res;

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			ptxed_help(prog);
			return ptxed_parse_done;
		}
		if (!strcmp(arg, "--version")) {
			ptxed_version(prog);
			return ptxed_parse_done;
		}
		if (ptxed_flag_option(run, arg))
			continue;
		if (!strcmp(arg, "--perf:images")) {
			/* It changes how --perf loads the file (after --pt it
			 * does nothing, and says so below). */
			if (run->perf_argi) {
				fprintf(stderr,
				        "%s: please specify %s before "
				        "--perf.\n",
				        prog, arg);
				return ptxed_parse_error;
			}
			run->options.perf_images = 1;
			continue;
		}
		res = ptxed_config_option(run, arg, &i, argc, argv, prog);
		if (res < 0)
			return ptxed_parse_error;
		if (res > 0)
			continue;
		if (!strcmp(arg, "--insn-decoder") ||
		    !strcmp(arg, "--block-decoder") ||
		    !strcmp(arg, "--time-libipt")) {
			/* They choose how the decoder is made. */
			if (ptxed_have_decoder(decoder)) {
				fprintf(stderr,
				        "%s: please specify %s before the pt "
				        "source file.\n",
				        prog, arg);
				return ptxed_parse_error;
			}
			if (arg[2] == 't')
				run->options.time_libipt = 1;
			else
				decoder->type = arg[2] == 'i'
				                        ? ptxed_insn_decoder
				                        : ptxed_block_decoder;
			continue;
		}
		if (!strcmp(arg, "--cpu")) {
			if (ptxed_have_decoder(decoder)) {
				fprintf(stderr,
				        "%s: please specify cpu before the pt "
				        "source file.\n",
				        prog);
				return ptxed_parse_error;
			}
			if (i >= argc) {
				fprintf(stderr,
				        "%s: --cpu: missing argument.\n", prog);
				return ptxed_parse_done;
			}
			arg = argv[i++];
			run->given |= ptd_tool_given_cpu;
			if (!ptd_tool_cpu(&run->config.cpu, arg, prog, stderr))
				return ptxed_parse_error;
			continue;
		}
		if (strcmp(arg, "--pt") && strcmp(arg, "--perf") &&
		    strcmp(arg, "--raw") && strcmp(arg, "--elf") &&
		    strcmp(arg, "--page-dump")) {
			/* (ptxed_sb_option() counts from the option.) */
			int at = i - 1;

			res = ptxed_sb_option(decoder->sb, argc, argv, &at,
			                      run->options.verbose);
			if (res < 0)
				return ptxed_parse_error;
			if (res > 0) {
				i = at + 1;
				continue;
			}
			fprintf(stderr, "%s: unknown option: %s.\n", prog, arg);
			return ptxed_parse_error;
		}
		/* The options with a file argument.  As libipt's ptxed, a
		 * missing file argument ends ptxed without an error. */
		if (i >= argc) {
			fprintf(stderr, "%s: %s: missing argument.\n", prog,
			        option);
			return ptxed_parse_done;
		}
		arg = argv[i++];
		if (!strcmp(option, "--pt") || !strcmp(option, "--perf")) {
			if (ptxed_have_decoder(decoder)) {
				fprintf(stderr,
				        "%s: duplicate pt sources: %s.\n", prog,
				        arg);
				return ptxed_parse_error;
			}
			if (option[3] == 'e' && ptxed_sb_any(decoder->sb))
				return ptxed_perf_and_sideband(prog);
			if (option[3] == 'e')
				run->perf_argi = i - 1;
			if (ptxed_alloc_decoder(run, arg, option[3] == 'e',
			                        prog) < 0)
				return ptxed_parse_error;
		} else if (!strcmp(option, "--raw")) {
			if (ptxed_load_raw(decoder->iscache, decoder->image,
			                   arg, prog,
			                   ptxed_load_flags_of(run)) < 0) {
				fprintf(stderr,
				        "%s: --raw: failed to load '%s'.\n",
				        prog, arg);
				return ptxed_parse_error;
			}
		} else if (!strcmp(option, "--elf")) {
			uint64_t base = 0;
			int has_base = ptxed_split_base(arg, &base);

			if (ptxed_load_elf(decoder->iscache, decoder->image,
			                   arg, base, has_base, prog,
			                   ptxed_load_flags_of(run)) < 0)
				return ptxed_parse_error;
		} else if (ptxed_load_page_dump(decoder->iscache,
		                                decoder->image, arg, prog,
		                                ptxed_load_flags_of(run)) < 0) {
			return ptxed_parse_error;
		}
	}

	if (!ptxed_have_decoder(decoder)) {
		fprintf(stderr, "%s: no pt file.\n", prog);
		return ptxed_parse_error;
	}
	if (ptxed_sb_any(decoder->sb) && run->perf_argi)
		return ptxed_perf_and_sideband(prog);
	if (run->options.perf_images && !run->perf_argi)
		fprintf(stderr,
		        "%s: warning: --perf:images does nothing without "
		        "--perf.\n",
		        prog);
	/* Without a selection, collect all statistics of the decoder. */
	if (run->options.print_stats && !run->stats.flags) {
		run->stats.flags |= ptxed_stat_insn;
		if (decoder->type == ptxed_block_decoder)
			run->stats.flags |= ptxed_stat_blocks;
	}
	return ptxed_parse_run;
}

void ptxed_run_fini(struct ptxed_run *run)
{
	if (run->decoder.type == ptxed_insn_decoder)
		pt_insn_free_decoder(run->decoder.variant.insn);
	else
		pt_blk_free_decoder(run->decoder.variant.block);
	ptxed_tasks_free(run->decoder.tasks);
	ptxed_sb_free(run->decoder.sb);
	pt_image_free(run->decoder.image);
	pt_iscache_free(run->decoder.iscache);
	free(run->config.begin);
	free(run->areas.rest);
}
