/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed_ref: the instruction flow of an instruction-flow decoder printed as
 * libipt's ptxed prints it with --no-inst: one line per instruction with its
 * address ("? " before speculative ones), events in brackets, errors as
 * "[<offset>, <ip>: <kind>: <message>]".  With --libipt the decoder is
 * libipt 2.0.5's (loaded with dlopen, libipt.so.2 or $PTD_LIBIPT): the trace
 * tests use it to confirm that the "expect ptxed" blocks of the .pta files
 * are libipt's answers; with --ptdecode it is ptdecode's, which the trace
 * tests check against the same blocks (docs/ptasm.md).  With --batch it
 * prints nothing of the flow: it checks that ptdecode's batch flow decoder
 * (ptd_flow_batch.h, with its events apart and in the same call, and its
 * blocks) gives ptdecode's pt_insn_next() flow on the trace
 * (tests/flow_batch/fb_check.h), and says "batch: ok" or what differs.
 *
 *   ptxed_ref --libipt|--ptdecode|--batch --raw <file>:<base> [--cpu <cpu>]
 *             [--no-inst] [--event:ip] [--event:time] [--event:tick]
 *             [--filter:addr<n>_cfg|_a|_b <value>] [--insn-decoder]
 *             [--block-decoder] --pt <file>[:<from>[-<to>]]
 *
 * Exit status: 0, 1 for errors, 2 for a bad command line, 77 if libipt cannot
 * be loaded or the options ask for something this reference does not do (or,
 * with --libipt, say --no-libipt). */
#define _POSIX_C_SOURCE 200809L

#include "fb_check.h"
#include "ref_lib.h"

#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { XREF_OK = 0, XREF_ERROR = 1, XREF_USAGE = 2, XREF_SKIP = 77 };

/* ---- output ------------------------------------------------------------ */

static const char *xref_mode(int mode)
{
	switch (mode) {
	case ptem_16bit:
		return "16-bit";
	case ptem_32bit:
		return "32-bit";
	case ptem_64bit:
		return "64-bit";
	default:
		return "unknown";
	}
}

/* What to print with the events (ptxed's --event:ip and --event:time). */
struct xref_print {
	int event_ip;
	int event_time;
};

/* ", <key>: <ip>" with --event:ip. */
static void xref_ip(const struct xref_print *opt, const char *key, uint64_t ip)
{
	if (opt->event_ip)
		printf(", %s: %016" PRIx64, key, ip);
}

/* ", <key>: <ip>" with --event:ip unless the event's IP is suppressed. */
static void xref_eip(const struct xref_print *opt, const struct pt_event *ev,
                     const char *key, uint64_t ip)
{
	if (!ev->ip_suppressed)
		xref_ip(opt, key, ip);
}

/* The events of libipt 2.0.5, as its ptxed prints them. */
static void xref_print_event(const struct xref_print *opt,
                             const struct pt_event *ev)
{
	printf("[");
	if (opt->event_time && ev->has_tsc)
		printf("%016" PRIx64 "  ", ev->tsc);
	switch (ev->type) {
	case ptev_enabled:
		printf("%s",
		       ev->variant.enabled.resumed ? "resumed" : "enabled");
		xref_ip(opt, "ip", ev->variant.enabled.ip);
		break;
	case ptev_disabled:
		printf("disabled");
		xref_eip(opt, ev, "ip", ev->variant.disabled.ip);
		break;
	case ptev_async_disabled:
		printf("disabled");
		xref_ip(opt, "at", ev->variant.async_disabled.at);
		xref_eip(opt, ev, "ip", ev->variant.async_disabled.ip);
		break;
	case ptev_async_branch:
		printf("interrupt");
		xref_ip(opt, "from", ev->variant.async_branch.from);
		xref_eip(opt, ev, "to", ev->variant.async_branch.to);
		break;
	case ptev_paging:
		printf("paging, cr3: %016" PRIx64 "%s", ev->variant.paging.cr3,
		       ev->variant.paging.non_root ? ", nr" : "");
		break;
	case ptev_async_paging:
		printf("paging, cr3: %016" PRIx64 "%s",
		       ev->variant.async_paging.cr3,
		       ev->variant.async_paging.non_root ? ", nr" : "");
		xref_ip(opt, "ip", ev->variant.async_paging.ip);
		break;
	case ptev_overflow:
		printf("overflow");
		xref_eip(opt, ev, "ip", ev->variant.overflow.ip);
		break;
	case ptev_exec_mode:
		printf("exec mode: %s", xref_mode(ev->variant.exec_mode.mode));
		xref_eip(opt, ev, "ip", ev->variant.exec_mode.ip);
		break;
	case ptev_tsx:
		if (ev->variant.tsx.aborted)
			printf("aborted");
		else if (ev->variant.tsx.speculative)
			printf("begin transaction");
		else
			printf("committed");
		xref_eip(opt, ev, "ip", ev->variant.tsx.ip);
		break;
	case ptev_stop:
		printf("stopped");
		break;
	case ptev_vmcs:
		printf("vmcs, base: %016" PRIx64, ev->variant.vmcs.base);
		break;
	case ptev_async_vmcs:
		printf("vmcs, base: %016" PRIx64, ev->variant.async_vmcs.base);
		xref_ip(opt, "ip", ev->variant.async_vmcs.ip);
		break;
	case ptev_exstop:
		printf("exstop");
		xref_eip(opt, ev, "ip", ev->variant.exstop.ip);
		break;
	case ptev_mwait:
		printf("mwait %" PRIx32 " %" PRIx32, ev->variant.mwait.hints,
		       ev->variant.mwait.ext);
		xref_eip(opt, ev, "ip", ev->variant.mwait.ip);
		break;
	case ptev_pwre:
		printf("pwre c%u.%u%s", (ev->variant.pwre.state + 1u) & 0xf,
		       (ev->variant.pwre.sub_state + 1u) & 0xf,
		       ev->variant.pwre.hw ? " hw" : "");
		break;
	case ptev_pwrx:
		printf("pwrx %s%s%sc%u (c%u)",
		       ev->variant.pwrx.interrupt ? "int: " : "",
		       ev->variant.pwrx.store ? "st: " : "",
		       ev->variant.pwrx.autonomous ? "hw: " : "",
		       (ev->variant.pwrx.last + 1u) & 0xf,
		       (ev->variant.pwrx.deepest + 1u) & 0xf);
		break;
	case ptev_ptwrite:
		printf("ptwrite: %" PRIx64, ev->variant.ptwrite.payload);
		xref_eip(opt, ev, "ip", ev->variant.ptwrite.ip);
		break;
	case ptev_tick:
		printf("tick");
		xref_eip(opt, ev, "ip", ev->variant.tick.ip);
		break;
	case ptev_cbr:
		printf("cbr: %x", (unsigned)ev->variant.cbr.ratio);
		break;
	case ptev_mnt:
		printf("mnt: %" PRIx64, ev->variant.mnt.payload);
		break;
	default:
		printf("event %d", (int)ev->type);
		break;
	}
	printf("]\n");
}

static void xref_diagnose(const struct ref_lib *lib, void *decoder, uint64_t ip,
                          const char *kind, int status)
{
	uint64_t pos = 0;

	if (lib->insn_get_offset(decoder, &pos) < 0)
		printf("[?, %" PRIx64 ": %s: %s]\n", ip, kind,
		       lib->errstr(status < 0 ? -status : status));
	else
		printf("[%" PRIx64 ", %" PRIx64 ": %s: %s]\n", pos, ip, kind,
		       lib->errstr(status < 0 ? -status : status));
}

/* Report the pending events; returns the last status. */
static int xref_drain(const struct ref_lib *lib, const struct xref_print *opt,
                      void *decoder, int status)
{
	while (status >= 0 && (status & pts_event_pending)) {
		struct ref_event ev;

		memset(&ev, 0, sizeof(ev));
		status = lib->insn_event(decoder, &ev.ev, sizeof(ev));
		if (status < 0)
			break;
		if (!ev.ev.status_update)
			xref_print_event(opt, &ev.ev);
	}
	return status;
}

static void xref_decode(const struct ref_lib *lib, const struct xref_print *opt,
                        void *decoder)
{
	struct ref_insn insn;
	uint64_t sync = 0;

	memset(&insn, 0, sizeof(insn));
	for (;;) {
		int status = lib->insn_sync_forward(decoder);

		if (status < 0) {
			uint64_t new_sync;

			if (status == -pte_eos)
				break;
			xref_diagnose(lib, decoder, insn.ip, "sync error",
			              status);
			if (lib->insn_get_sync_offset(decoder, &new_sync) < 0 ||
			    new_sync <= sync)
				break;
			sync = new_sync;
			continue;
		}
		for (;;) {
			status = xref_drain(lib, opt, decoder, status);
			if (status < 0)
				break;
			if (status & pts_eos) {
				if (!(status & pts_ip_suppressed))
					printf("[end of trace]\n");
				status = -pte_eos;
				break;
			}
			memset(&insn, 0, sizeof(insn));
			status = lib->insn_next(decoder, &insn, sizeof(insn));
			if (status < 0) {
				if (insn.iclass != 0)
					printf("%s%016" PRIx64 "\n",
					       insn.speculative ? "? " : "",
					       insn.ip);
				break;
			}
			printf("%s%016" PRIx64 "\n",
			       insn.speculative ? "? " : "", insn.ip);
		}
		if (status == -pte_eos)
			break;
		xref_diagnose(lib, decoder, insn.ip, "error", status);
	}
}

/* ---- input ------------------------------------------------------------- */

static uint8_t *xref_read(const char *name, size_t *size)
{
	FILE *file = fopen(name, "rb");
	uint8_t *buf = NULL;
	long len;

	if (!file)
		return NULL;
	if (fseek(file, 0, SEEK_END) == 0 && (len = ftell(file)) >= 0 &&
	    fseek(file, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)len + 1);
		if (buf && fread(buf, 1, (size_t)len, file) != (size_t)len) {
			free(buf);
			buf = NULL;
		}
		*size = (size_t)len;
	}
	fclose(file);
	return buf;
}

/* ptxed's --filter:addr<n>_cfg|_a|_b <value>; @what points after "addr". */
static int xref_filter(struct pt_config *config, const char *what,
                       const char *arg)
{
	struct pt_conf_addr_filter *f = &config->addr_filter;
	uint64_t *ends[4][2] = {{&f->addr0_a, &f->addr0_b},
	                        {&f->addr1_a, &f->addr1_b},
	                        {&f->addr2_a, &f->addr2_b},
	                        {&f->addr3_a, &f->addr3_b}};
	unsigned n = (unsigned)(what[0] - '0');
	char *end;
	uint64_t value = strtoull(arg, &end, 0);

	if (n > 3 || !*arg || *end)
		return -1;
	if (!strcmp(what + 1, "_cfg")) {
		if (value > 0xf)
			return -1;
		f->config.addr_cfg &= ~(UINT64_C(0xf) << (4 * n));
		f->config.addr_cfg |= value << (4 * n);
		return 0;
	}
	if (!strcmp(what + 1, "_a")) {
		*ends[n][0] = value;
		return 0;
	}
	if (!strcmp(what + 1, "_b")) {
		*ends[n][1] = value;
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *raw = NULL, *pt = NULL;
	struct pt_config config;
	struct ref_lib lib;
	uint64_t from = 0, to = 0, base;
	void *image, *decoder;
	char *ptname, *colon, *end;
	uint8_t *trace;
	size_t size;
	int has_to = 0, status = XREF_OK, which = 0, no_libipt = 0;
	int insn_decoder = 0, libipt_time = 0;
	struct xref_print print = {0, 0};

	pt_config_init(&config);
	for (int i = 1; i < argc; ++i) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--no-inst")) {
			continue;
		} else if (!strcmp(argv[i], "--libipt")) {
			which = 1;
		} else if (!strcmp(argv[i], "--ptdecode")) {
			which = 2;
		} else if (!strcmp(argv[i], "--batch")) {
			which = 3;
		} else if (!strcmp(argv[i], "--no-libipt")) {
			no_libipt = 1;
		} else if (!strcmp(argv[i], "--time-libipt") && which) {
			/* ptxed's libipt time estimate: libipt's own, or
			 * ptdecode's ptd_time_mode_libipt (--batch compares
			 * two ptdecode decoders and needs neither). */
			libipt_time = 1;
		} else if (!strncmp(argv[i], "--filter:addr", 13) && next) {
			if (xref_filter(&config, argv[i] + 13, next) < 0) {
				fprintf(stderr, "ptxed_ref: bad %s %s.\n",
				        argv[i], next);
				return XREF_USAGE;
			}
			++i;
		} else if (!strcmp(argv[i], "--event:ip")) {
			print.event_ip = 1;
		} else if (!strcmp(argv[i], "--event:time")) {
			print.event_time = 1;
		} else if (!strcmp(argv[i], "--event:tick")) {
			config.flags.variant.insn.enable_tick_events = 1;
		} else if (!strcmp(argv[i], "--insn-decoder")) {
			insn_decoder = 1;
		} else if (!strcmp(argv[i], "--block-decoder")) {
			/* The same flow, but for tick events (below). */
			insn_decoder = 0;
		} else if (!strcmp(argv[i], "--raw") && next) {
			raw = next;
			++i;
		} else if (!strcmp(argv[i], "--pt") && next) {
			pt = next;
			++i;
		} else if ((!strcmp(argv[i], "--mtc-freq") ||
		            !strcmp(argv[i], "--nom-freq") ||
		            !strcmp(argv[i], "--cpuid-0x15.eax") ||
		            !strcmp(argv[i], "--cpuid-0x15.ebx")) &&
		           next) {
			/* The timing configuration, as ptxed's. */
			unsigned long long v = strtoull(next, &end, 0);

			if (*end || !*next) {
				fprintf(stderr, "ptxed_ref: bad %s %s.\n",
				        argv[i], next);
				return XREF_USAGE;
			}
			if (!strcmp(argv[i], "--mtc-freq"))
				config.mtc_freq = (uint8_t)v;
			else if (!strcmp(argv[i], "--nom-freq"))
				config.nom_freq = (uint8_t)v;
			else if (argv[i][14] == 'a')
				config.cpuid_0x15_eax = (uint32_t)v;
			else
				config.cpuid_0x15_ebx = (uint32_t)v;
			++i;
		} else if (!strcmp(argv[i], "--cpu") && next) {
			if (ptd_cpu_parse(&config.cpu, next) < 0) {
				fprintf(stderr, "ptxed_ref: bad cpu %s.\n",
				        next);
				return XREF_USAGE;
			}
			if (config.cpu.vendor != pcv_unknown)
				(void)pt_cpu_errata(&config.errata,
				                    &config.cpu);
			++i;
		} else {
			printf("ptxed_ref: option %s is not supported; the "
			       "expectation is not checked here.\n",
			       argv[i]);
			return XREF_SKIP;
		}
	}
	if (!raw || !pt || !which) {
		fprintf(stderr,
		        "usage: %s --libipt|--ptdecode|--batch --raw "
		        "<file>:<base> "
		        "[--cpu <cpu>] [--no-inst] --pt "
		        "<file>[:<from>[-<to>]]\n",
		        argv[0]);
		return XREF_USAGE;
	}
	/* ptxed's default is the block decoder, whose tick events have other
	 * IPs than the instruction-flow decoder's, which this prints. */
	if (config.flags.variant.insn.enable_tick_events && !insn_decoder &&
	    which != 3) {
		printf("ptxed_ref: ticks of the block decoder are not "
		       "supported (give --insn-decoder); the expectation is "
		       "not checked here.\n");
		return XREF_SKIP;
	}
	if (which == 1 && no_libipt) {
		printf("ptxed_ref: this expectation differs from libipt 2.0.5 "
		       "on purpose; not checked against it.\n");
		return XREF_SKIP;
	}
	if (which >= 2)
		ref_lib_ptdecode(&lib, libipt_time);
	else if (ref_lib_load_libipt(&lib) < 0)
		return XREF_SKIP;

	/* The trace, with an optional range. */
	ptname = malloc(strlen(pt) + 1);
	if (!ptname)
		return XREF_ERROR;
	strcpy(ptname, pt);
	colon = strrchr(ptname, ':');
	if (colon) {
		*colon = '\0';
		from = strtoull(colon + 1, &end, 0);
		if (*end == '-') {
			to = strtoull(end + 1, &end, 0);
			has_to = 1;
		}
	}
	trace = xref_read(ptname, &size);
	free(ptname);
	if (!trace || from > size || (has_to && (to > size || to < from))) {
		fprintf(stderr, "ptxed_ref: cannot read the trace %s.\n", pt);
		free(trace);
		return XREF_ERROR;
	}
	config.begin = trace + from;
	config.end = trace + (has_to ? to : size);

	/* The code image: "<file>:<base>". */
	{
		char *name = malloc(strlen(raw) + 1);
		char *sep;

		if (!name) {
			free(trace);
			return XREF_ERROR;
		}
		strcpy(name, raw);
		sep = strrchr(name, ':');
		if (!sep) {
			fprintf(stderr, "ptxed_ref: --raw needs "
			                "<file>:<base>.\n");
			free(name);
			free(trace);
			return XREF_USAGE;
		}
		*sep = '\0';
		base = strtoull(sep + 1, NULL, 0);
		image = lib.image_alloc("ptxed_ref");
		if (!image || lib.image_add_file(image, name, 0, UINT64_MAX,
		                                 NULL, base) < 0) {
			fprintf(stderr, "ptxed_ref: cannot load %s.\n", name);
			free(name);
			free(trace);
			return XREF_ERROR;
		}
		free(name);
	}

	if (which == 3) {
		/* The array sizes of tests/flow_batch: whole runs, one
		 * entry, and 7 (runs cut by a full array). */
		static const size_t caps[] = {4096, 1, 7};
		struct fb_check_result res;

		for (size_t k = 0; k < sizeof(caps) / sizeof(caps[0]); ++k) {
			char name[64];
			int r;

			snprintf(name, sizeof(name), "batch (arrays of %zu)",
			         caps[k]);
			r = fb_check(name, &config, image, caps[k], 0, &res);
			if (r) {
				printf("batch: %s differs from pt_insn_next() "
				       "(%d)\n",
				       name, r);
				status = XREF_ERROR;
			}
		}
		if (status == XREF_OK)
			printf("batch: ok\n");
		lib.image_free(image);
		free(trace);
		ref_lib_close(&lib);
		return status;
	}

	decoder = lib.insn_alloc(&config);
	if (!decoder || lib.insn_set_image(decoder, image) < 0) {
		fprintf(stderr, "ptxed_ref: cannot set up the decoder.\n");
		status = XREF_ERROR;
	} else {
		xref_decode(&lib, &print, decoder);
	}
	if (decoder)
		lib.insn_free(decoder);
	lib.image_free(image);
	free(trace);
	if (fflush(stdout) != 0)
		status = XREF_ERROR;
	ref_lib_close(&lib);
	return status;
}
