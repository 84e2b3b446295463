/* SPDX-License-Identifier: BSD-3-Clause */
/* ptqry: the driver of query expectations (docs/ptasm.md, "Query
 * expectations").
 *
 *   ptqry [<options>] --script <file> <trace>[:<from>[-<to>]]
 *   ptqry [<options>] --auto <trace>[:<from>[-<to>]]
 *   ptqry [<options>] --steps|--batch <trace>[:<from>[-<to>]]
 *
 * With --script, every line of <file> names a pt_qry_* call (sync, cond,
 * indirect, event, time, ...); ptqry makes these calls in this order on a
 * query decoder over the trace and prints, for each, one line that says
 * what the call returned, in the format of the expectation lines.  An
 * expectation is thus its own script: the output equals the script exactly
 * when every call returned what the script says.  With --auto, ptqry drives
 * the decoder the way a client that does not know the code would (an event
 * while one is pending, else a conditional branch, else an indirect branch;
 * sync forward after errors) and prints the same kind of lines, a draft for
 * a new expectation.
 *
 * --libipt runs the calls on libipt 2.0.5 instead of ptdecode.  --steps and
 * --batch print the results of the standard query loop from the pull API and
 * from ptd_qry_next_batch() in one format (qry_steps.h), for comparing the
 * two. */
#include "qry_backend.h"
#include "qry_calls.h"
#include "qry_steps.h"

#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	PTQRY_EXIT_OK = 0,
	PTQRY_EXIT_ERROR = 1,
	PTQRY_EXIT_USAGE = 2,
	PTQRY_EXIT_SKIP = 77
};

struct ptqry_options {
	struct ptqry_decoder_options decoder;
	const char *script;
	const char *trace;
	int auto_mode;
	int steps;
	int batch;
	int events;
	int libipt;
	int no_libipt;
	/* --errata: the names of errata to set besides --cpu's. */
	const char *errata;
};

static void ptqry_usage(FILE *out, const char *prog)
{
	fprintf(out,
	        "usage: %s [<options>] --script <file> "
	        "<trace>[:<from>[-<to>]]\n"
	        "       %s [<options>] --auto|--steps|--batch|--events "
	        "<trace>[:<from>[-<to>]]\n"
	        "\n"
	        "Make the pt_qry_* calls that the lines of <file> name on a "
	        "query decoder\n"
	        "over the trace and print what each returned, in the same "
	        "format\n"
	        "(docs/ptasm.md, \"Query expectations\").\n"
	        "\n"
	        "options:\n"
	        "  -h, --help               print this text and exit.\n"
	        "  --script <file>          the calls to make.\n"
	        "  --auto                   choose the calls as a client that "
	        "knows no code\n"
	        "                           would, to draft an expectation.\n"
	        "  --steps                  run the standard query loop "
	        "(<ptdecode/ptd_query.h>)\n"
	        "                           and print each result and the "
	        "time after it.\n"
	        "  --batch                  the same with ptd_qry_next_batch() "
	        "(ptdecode only).\n"
	        "  --events                 decode with the event decoder "
	        "(pt_evt_*, ptdecode\n"
	        "                           only) and print every event.\n"
	        "  --libipt                 use libipt 2.0.5 (libipt.so.2, or "
	        "$PTD_LIBIPT)\n"
	        "                           instead of ptdecode; exit 77 if it "
	        "cannot be loaded.\n"
	        "  --no-libipt              the expectation differs from "
	        "libipt on purpose:\n"
	        "                           with --libipt, exit 77 at once.\n"
	        "  --cpu none|<f>/<m>[/<s>] the errata of this processor.\n"
	        "  --errata <list>          these errata besides --cpu's, by "
	        "name,\n"
	        "                           comma-separated: bdm70, bdm64, "
	        "skd007, skd022,\n"
	        "                           skd010, skl014, apl12, apl11, "
	        "skl168, skz84\n"
	        "                           (diff_qry's dumps give them so).\n"
	        "  --mtc-freq <n>           IA32_RTIT_CTL.MTCFreq.\n"
	        "  --nom-freq <n>           the nominal core:bus ratio.\n"
	        "  --cpuid-0x15.eax <n>     CPUID leaf 0x15 EAX.\n"
	        "  --cpuid-0x15.ebx <n>     CPUID leaf 0x15 EBX.\n"
	        "  --time-libipt            ptdecode uses libipt's time "
	        "estimator.\n"
	        "  --keep-tcal-on-ovf       keep the time calibration across "
	        "overflows.\n"
	        "  --iflags                 report ptev_iflags events.\n",
	        prog, prog);
}

static int ptqry_number(const char *prog, const char *opt, const char *arg,
                        uint64_t max, uint64_t *value)
{
	char *end;

	if (!arg) {
		fprintf(stderr, "%s: %s: missing argument.\n", prog, opt);
		return -1;
	}
	*value = strtoull(arg, &end, 0);
	if (!*arg || *end || *value > max) {
		fprintf(stderr, "%s: %s: bad argument: %s.\n", prog, opt, arg);
		return -1;
	}
	return 0;
}

/* The argument @arg of option @opt into *@value; -1 if it is missing. */
static int ptqry_string(const char *prog, const char *opt, const char *arg,
                        const char **value)
{
	if (!arg) {
		fprintf(stderr, "%s: %s: missing argument.\n", prog, opt);
		return -1;
	}
	*value = arg;
	return 0;
}

/* Set the errata named in the comma-separated @list in @errata (empty
 * names are skipped).  Returns 0, or -1 for an unknown name. */
static int ptqry_errata(const char *prog, const char *list,
                        struct pt_errata *errata)
{
	while (list && *list) {
		size_t n = strcspn(list, ",");

#define PTQRY_ERRATUM(name)                                                    \
	if (n == sizeof(#name) - 1 && !strncmp(list, #name, n)) {              \
		errata->name = 1;                                              \
		goto next;                                                     \
	}
		if (!n)
			goto next;
		PTQRY_ERRATUM(bdm70)
		PTQRY_ERRATUM(bdm64)
		PTQRY_ERRATUM(skd007)
		PTQRY_ERRATUM(skd022)
		PTQRY_ERRATUM(skd010)
		PTQRY_ERRATUM(skl014)
		PTQRY_ERRATUM(apl12)
		PTQRY_ERRATUM(apl11)
		PTQRY_ERRATUM(skl168)
		PTQRY_ERRATUM(skz84)
#undef PTQRY_ERRATUM
		fprintf(stderr, "%s: --errata: unknown erratum: %.*s.\n", prog,
		        (int)n, list);
		return -1;
	next:
		list += n;
		if (*list == ',')
			++list;
	}
	return 0;
}

/* Parse the command line.  Returns -1 to exit with @*status. */
static int ptqry_parse_args(int argc, char **argv, struct ptqry_options *opts,
                            int *status)
{
	const char *prog = argv[0] ? argv[0] : "ptqry";
	struct pt_config *config = &opts->decoder.config;
	int i;

	memset(opts, 0, sizeof(*opts));
	pt_config_init(config);
	*status = PTQRY_EXIT_USAGE;
	for (i = 1; i < argc; ++i) {
		const char *arg = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t v;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			ptqry_usage(stdout, prog);
			*status = PTQRY_EXIT_OK;
			return -1;
		} else if (!strcmp(arg, "--script")) {
			if (ptqry_string(prog, arg, next, &opts->script) < 0)
				return -1;
			++i;
		} else if (!strcmp(arg, "--auto")) {
			opts->auto_mode = 1;
		} else if (!strcmp(arg, "--steps")) {
			opts->steps = 1;
		} else if (!strcmp(arg, "--batch")) {
			opts->batch = 1;
		} else if (!strcmp(arg, "--events")) {
			opts->events = 1;
		} else if (!strcmp(arg, "--libipt")) {
			opts->libipt = 1;
		} else if (!strcmp(arg, "--no-libipt")) {
			opts->no_libipt = 1;
		} else if (!strcmp(arg, "--cpu")) {
			if (!next || ptd_cpu_parse(&config->cpu, next) < 0) {
				fprintf(stderr, "%s: --cpu: bad cpu: %s.\n",
				        prog, next ? next : "(none)");
				return -1;
			}
			memset(&config->errata, 0, sizeof(config->errata));
			if (config->cpu.vendor != pcv_unknown &&
			    pt_cpu_errata(&config->errata, &config->cpu) < 0) {
				fprintf(stderr, "%s: --cpu: unknown cpu: %s.\n",
				        prog, next);
				return -1;
			}
			++i;
		} else if (!strcmp(arg, "--errata")) {
			if (ptqry_string(prog, arg, next, &opts->errata) < 0)
				return -1;
			++i;
		} else if (!strcmp(arg, "--mtc-freq")) {
			if (ptqry_number(prog, arg, next, 0xf, &v) < 0)
				return -1;
			config->mtc_freq = (uint8_t)v;
			++i;
		} else if (!strcmp(arg, "--nom-freq")) {
			if (ptqry_number(prog, arg, next, 0xff, &v) < 0)
				return -1;
			config->nom_freq = (uint8_t)v;
			++i;
		} else if (!strcmp(arg, "--cpuid-0x15.eax")) {
			if (ptqry_number(prog, arg, next, UINT32_MAX, &v) < 0)
				return -1;
			config->cpuid_0x15_eax = (uint32_t)v;
			++i;
		} else if (!strcmp(arg, "--cpuid-0x15.ebx")) {
			if (ptqry_number(prog, arg, next, UINT32_MAX, &v) < 0)
				return -1;
			config->cpuid_0x15_ebx = (uint32_t)v;
			++i;
		} else if (!strcmp(arg, "--time-libipt")) {
			opts->decoder.time_libipt = 1;
		} else if (!strcmp(arg, "--keep-tcal-on-ovf")) {
			config->flags.variant.query.keep_tcal_on_ovf = 1;
		} else if (!strcmp(arg, "--iflags")) {
			config->flags.variant.query.enable_iflags_events = 1;
		} else if (arg[0] == '-' && arg[1]) {
			fprintf(stderr, "%s: unknown option: %s.\n", prog, arg);
			return -1;
		} else if (opts->trace) {
			fprintf(stderr, "%s: only one trace, please.\n", prog);
			return -1;
		} else {
			opts->trace = arg;
		}
	}
	if (!opts->trace || (!!opts->script + opts->auto_mode + opts->steps +
	                     opts->batch + opts->events) != 1) {
		fprintf(stderr,
		        "%s: need a trace and one of --script, --auto, "
		        "--steps, "
		        "--batch and --events.  Use --help for help.\n",
		        prog);
		return -1;
	}
	if ((opts->batch || opts->events) && opts->libipt) {
		fprintf(stderr,
		        "%s: libipt 2.0.5 has no batch interface and no event "
		        "decoder.\n",
		        prog);
		return -1;
	}
	/* After the loop: --cpu sets the errata anew wherever it comes. */
	if (ptqry_errata(prog, opts->errata, &config->errata) < 0)
		return -1;
	return 0;
}

/* ---- input ------------------------------------------------------------- */

/* Read all of @name into a new buffer. */
static uint8_t *ptqry_read_file(const char *name, size_t *size)
{
	FILE *file = fopen(name, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!file)
		return NULL;
	for (;;) {
		size_t n;

		if (len == cap) {
			uint8_t *more;

			cap = cap ? 2 * cap : 4096;
			more = realloc(buf, cap + 1);
			if (!more) {
				free(buf);
				fclose(file);
				return NULL;
			}
			buf = more;
		}
		n = fread(buf + len, 1, cap - len, file);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(file)) {
		free(buf);
		buf = NULL;
	}
	fclose(file);
	if (buf)
		buf[len] = 0;
	*size = len;
	return buf;
}

/* Load "<file>[:<from>[-<to>]]" into @config's buffer (@*buf owns it). */
static int ptqry_load_trace(const char *prog, const char *arg,
                            struct pt_config *config, uint8_t **buf)
{
	size_t size = strlen(arg) + 1;
	char *name = malloc(size);
	uint64_t from = 0, to = 0;
	int has_to = 0;
	char *colon, *end;

	if (!name)
		return -1;
	memcpy(name, arg, size);
	colon = strrchr(name, ':');
	if (colon) {
		char *dash;

		*colon = '\0';
		from = strtoull(colon + 1, &end, 0);
		dash = end;
		if (*dash == '-') {
			to = strtoull(dash + 1, &end, 0);
			has_to = 1;
		}
		if (end == colon + 1 || *end) {
			fprintf(stderr, "%s: bad range in %s.\n", prog, arg);
			free(name);
			return -1;
		}
	}
	*buf = ptqry_read_file(name, &size);
	if (!*buf) {
		fprintf(stderr, "%s: cannot read %s.\n", prog, name);
		free(name);
		return -1;
	}
	free(name);
	if (!has_to)
		to = size;
	if (from > size || to > size || to < from) {
		fprintf(stderr, "%s: range outside the trace: %s.\n", prog,
		        arg);
		return -1;
	}
	config->begin = *buf + from;
	config->end = *buf + to;
	return 0;
}

int main(int argc, char **argv)
{
	const char *prog = argv[0] ? argv[0] : "ptqry";
	struct ptqry_options opts;
	struct ptqry_backend be;
	uint8_t *trace = NULL;
	char *script = NULL;
	char msg[256];
	int status, err;

	if (ptqry_parse_args(argc, argv, &opts, &status) < 0)
		return status;
	if (opts.libipt && opts.no_libipt) {
		printf("%s: this expectation differs from libipt 2.0.5 on "
		       "purpose; not checked against it.\n",
		       prog);
		return PTQRY_EXIT_SKIP;
	}
	if (ptqry_load_trace(prog, opts.trace, &opts.decoder.config, &trace) <
	    0) {
		free(trace);
		return PTQRY_EXIT_ERROR;
	}
	if (opts.script) {
		size_t size;

		script = (char *)ptqry_read_file(opts.script, &size);
		if (!script) {
			fprintf(stderr, "%s: cannot read %s.\n", prog,
			        opts.script);
			free(trace);
			return PTQRY_EXIT_ERROR;
		}
	}

	if (opts.events) {
		status = ptqry_steps_events(&opts.decoder) < 0
		                 ? PTQRY_EXIT_ERROR
		                 : PTQRY_EXIT_OK;
		if (fflush(stdout) != 0)
			status = PTQRY_EXIT_ERROR;
		free(script);
		free(trace);
		return status;
	}
	if (opts.libipt)
		err = ptqry_open_libipt(&be, &opts.decoder, msg, sizeof(msg));
	else
		err = ptqry_open_ptdecode(&be, &opts.decoder, msg, sizeof(msg));
	if (err < 0) {
		fprintf(stderr, "%s: %s.\n", prog, msg);
		free(script);
		free(trace);
		return err == -2 ? PTQRY_EXIT_SKIP : PTQRY_EXIT_ERROR;
	}

	status = PTQRY_EXIT_OK;
	if (opts.script) {
		if (ptqry_run_script(&be, opts.script, script) < 0)
			status = PTQRY_EXIT_USAGE;
	} else if (opts.steps) {
		ptqry_steps_pull(&be);
	} else if (opts.batch) {
		if (ptqry_steps_batch(be.decoder) < 0)
			status = PTQRY_EXIT_ERROR;
	} else {
		ptqry_run_auto(&be);
	}
	if (fflush(stdout) != 0)
		status = PTQRY_EXIT_ERROR;

	ptqry_close(&be);
	free(script);
	free(trace);
	return status;
}
