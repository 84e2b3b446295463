/* SPDX-License-Identifier: BSD-3-Clause */
/* libipt's query decoder; see ipt_query.h. */
#define _GNU_SOURCE /* RTLD_DEEPBIND */

#include "ipt_query.h"

#include "ptdecode/ptdecode.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* AddressSanitizer refuses RTLD_DEEPBIND; plain RTLD_LOCAL is enough there
 * (see tests/diff/libipt_dl.c). */
#if defined(__SANITIZE_ADDRESS__)
#define PTSIM_DL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) ||     \
        __has_feature(thread_sanitizer)
#define PTSIM_DL_SANITIZED 1
#endif
#endif

#if defined(PTSIM_DL_SANITIZED) || !defined(RTLD_DEEPBIND)
#define PTSIM_DL_FLAGS (RTLD_NOW | RTLD_LOCAL)
#else
#define PTSIM_DL_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#endif

/* libipt 2.0.5's struct pt_event (intel-pt.h): the fields up to the
 * variant, then room for the largest variant. */
struct ptsim_ipt_event {
	int type; /* enum pt_event_type */
	uint32_t ip_suppressed : 1;
	uint32_t status_update : 1;
	uint32_t has_tsc : 1;
	uint64_t tsc;
	uint32_t lost_mtc;
	uint32_t lost_cyc;
	uint64_t reserved[2];
	uint64_t variant[8];
};

/* libipt's enum pt_event_type values we look at, and enum
 * pt_status_flag. */
enum {
	PTSIM_PTEV_ENABLED = 0,
	PTSIM_PTEV_DISABLED = 1,
	PTSIM_PTS_EVENT_PENDING = 1 << 0,
	PTSIM_PTS_EOS = 1 << 2
};

/* libipt's struct pt_version. */
struct ptsim_ipt_version {
	uint8_t major;
	uint8_t minor;
	uint16_t patch;
	uint32_t build;
	const char *ext;
};

/* ISO C has no conversion from void * to a function pointer; POSIX
 * guarantees that dlsym's result can be used as one, so copy the bits. */
static int ptsim_dl_sym(void *handle, const char *name, void *fn, size_t fnsize,
                        char *msg, size_t size)
{
	void *sym;

	if (fnsize != sizeof(sym)) {
		snprintf(msg, size, "function pointers differ from void *");
		return -1;
	}
	dlerror();
	sym = dlsym(handle, name);
	if (!sym) {
		const char *err = dlerror();

		snprintf(msg, size, "the libipt library lacks %s: %s", name,
		         err ? err : "NULL");
		return -1;
	}
	memcpy(fn, &sym, sizeof(sym));
	return 0;
}

#define PTSIM_SYM(ipt, field, name)                                            \
	ptsim_dl_sym((ipt)->handle, name, &(ipt)->field, sizeof((ipt)->field), \
	             msg, size)

int ptsim_libipt_open(struct ptsim_libipt *ipt, char *msg, size_t size)
{
	const char *name = getenv("PTD_LIBIPT");
	struct ptsim_ipt_version (*version)(void) = NULL;

	if (!name || !*name)
		name = "libipt.so.2";
	memset(ipt, 0, sizeof(*ipt));
	ipt->handle = dlopen(name, PTSIM_DL_FLAGS);
	if (!ipt->handle) {
		const char *err = dlerror();

		snprintf(msg, size, "cannot load %s: %s", name,
		         err ? err : "unknown error");
		return -1;
	}
	if (ptsim_dl_sym(ipt->handle, "pt_library_version", &version,
	                 sizeof(version), msg, size) < 0 ||
	    PTSIM_SYM(ipt, errstr, "pt_errstr") < 0 ||
	    PTSIM_SYM(ipt, alloc, "pt_qry_alloc_decoder") < 0 ||
	    PTSIM_SYM(ipt, free_decoder, "pt_qry_free_decoder") < 0 ||
	    PTSIM_SYM(ipt, sync_forward, "pt_qry_sync_forward") < 0 ||
	    PTSIM_SYM(ipt, get_offset, "pt_qry_get_offset") < 0 ||
	    PTSIM_SYM(ipt, cond_branch, "pt_qry_cond_branch") < 0 ||
	    PTSIM_SYM(ipt, indirect_branch, "pt_qry_indirect_branch") < 0 ||
	    PTSIM_SYM(ipt, event, "pt_qry_event") < 0 ||
	    PTSIM_SYM(ipt, time, "pt_qry_time") < 0) {
		ptsim_libipt_close(ipt);
		return -1;
	}
	{
		struct ptsim_ipt_version v = version();

		snprintf(ipt->version, sizeof(ipt->version), "%u.%u.%u",
		         v.major, v.minor, v.patch);
	}
	return 0;
}

void ptsim_libipt_close(struct ptsim_libipt *ipt)
{
	if (ipt->handle)
		dlclose(ipt->handle);
	memset(ipt, 0, sizeof(*ipt));
}

/* The state of one run through a trace. */
struct ptsim_ipt_run {
	const struct ptsim_libipt *ipt;
	const struct ptsim_trace *t;
	struct ptsim_estimates *est;
	struct ptsim_ipt_qry *dec;
	size_t next; /* the next query point to look for, a record index */
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
ptsim_ipt_fail(struct ptsim_ipt_run *run, int status, const char *fmt, ...)
{
	struct ptsim_estimates *est = run->est;
	uint64_t offset = 0;
	va_list ap;
	int n;

	(void)run->ipt->get_offset(run->dec, &offset);
	est->failed = 1;
	est->error_offset = offset;
	va_start(ap, fmt);
	n = vsnprintf(est->error, sizeof(est->error), fmt, ap);
	va_end(ap);
	if (status < 0 && n >= 0 && (size_t)n < sizeof(est->error))
		snprintf(est->error + n, sizeof(est->error) - (size_t)n, ": %s",
		         run->ipt->errstr((enum pt_error_code) - status));
	return -1;
}

/* The next query point from run->next on; trace->nrecs at the end. */
static size_t ptsim_ipt_next_point(struct ptsim_ipt_run *run)
{
	while (run->next < run->t->nrecs &&
	       !ptsim_is_query_point(&run->t->recs[run->next]))
		run->next += 1;
	return run->next;
}

/* Record pt_qry_time() as the estimate of record @i. */
static void ptsim_ipt_record(struct ptsim_ipt_run *run, size_t i)
{
	uint64_t tsc = 0;
	int status = run->ipt->time(run->dec, &tsc, NULL, NULL);

	/* -pte_no_time: relative time, not comparable with the truth. */
	if (status >= 0) {
		run->est->tsc[i] = tsc;
		run->est->have[i] = 1;
	}
}

/* Take the pending events; an enabled or disabled event is the TIP.PGE or
 * TIP.PGD query point. */
static int ptsim_ipt_events(struct ptsim_ipt_run *run, int *status)
{
	while (*status & PTSIM_PTS_EVENT_PENDING) {
		struct ptsim_ipt_event ev;
		enum pt_packet_type want;
		size_t i;

		memset(&ev, 0, sizeof(ev));
		*status = run->ipt->event(run->dec, &ev, sizeof(ev));
		if (*status < 0)
			return ptsim_ipt_fail(run, *status, "pt_qry_event");
		if (ev.type != PTSIM_PTEV_ENABLED &&
		    ev.type != PTSIM_PTEV_DISABLED)
			continue;
		want = ev.type == PTSIM_PTEV_ENABLED ? ppt_tip_pge
		                                     : ppt_tip_pgd;
		i = ptsim_ipt_next_point(run);
		if (i == run->t->nrecs || run->t->recs[i].packet.type != want)
			return ptsim_ipt_fail(run, 0, "unexpected %s event",
			                      want == ppt_tip_pge ? "enabled"
			                                          : "disabled");
		ptsim_ipt_record(run, i);
		run->next = i + 1;
	}
	return 0;
}

/* Query the TNT or TIP at record @i. */
static int ptsim_ipt_branch(struct ptsim_ipt_run *run, size_t i, int *status)
{
	const struct pt_packet *pkt = &run->t->recs[i].packet;
	uint64_t offset = 0;

	(void)run->ipt->get_offset(run->dec, &offset);
	if (offset != run->t->recs[i].offset)
		return ptsim_ipt_fail(run, 0,
		                      "at 0x%" PRIx64 " instead of the %s at "
		                      "0x%" PRIx64,
		                      offset, ptd_packet_type_name(pkt->type),
		                      run->t->recs[i].offset);
	if (pkt->type == ppt_tip) {
		uint64_t ip = 0;

		*status = run->ipt->indirect_branch(run->dec, &ip);
		if (*status < 0)
			return ptsim_ipt_fail(run, *status,
			                      "pt_qry_indirect_branch");
		if (ip != pkt->payload.ip.ip)
			return ptsim_ipt_fail(run, 0, "TIP to 0x%" PRIx64, ip);
		ptsim_ipt_record(run, i);
	} else if (pkt->type == ppt_tnt_8 || pkt->type == ppt_tnt_64) {
		unsigned bit, n = pkt->payload.tnt.bit_size;

		for (bit = 0; bit < n; ++bit) {
			int taken = 0, want;

			*status = run->ipt->cond_branch(run->dec, &taken);
			if (*status < 0)
				return ptsim_ipt_fail(run, *status,
				                      "pt_qry_cond_branch");
			want = (int)((pkt->payload.tnt.payload >>
			              (n - 1 - bit)) &
			             1u);
			if (!taken != !want)
				return ptsim_ipt_fail(run, 0,
				                      "TNT bit %u wrong", bit);
			if (bit == 0)
				ptsim_ipt_record(run, i);
		}
	} else {
		return ptsim_ipt_fail(run, 0, "%s expected as an event",
		                      ptd_packet_type_name(pkt->type));
	}
	run->next = i + 1;
	return 0;
}

int ptsim_libipt_estimate(const struct ptsim_libipt *ipt,
                          const struct ptsim_trace *trace,
                          struct ptsim_estimates *est)
{
	struct ptsim_ipt_run run;
	struct pt_config config;
	uint64_t ip = 0;
	int status;

	memset(&run, 0, sizeof(run));
	run.ipt = ipt;
	run.t = trace;
	run.est = est;
	if (ptsim_decoder_config(&config, &trace->params, trace->buf,
	                         trace->buf + trace->size) < 0) {
		snprintf(est->error, sizeof(est->error), "bad cpu");
		est->failed = 1;
		return 0;
	}
	run.dec = ipt->alloc(&config);
	if (!run.dec)
		return -1;
	status = ipt->sync_forward(run.dec, &ip);
	if (status < 0)
		(void)ptsim_ipt_fail(&run, status, "pt_qry_sync_forward");
	while (!est->failed) {
		size_t i;

		if (ptsim_ipt_events(&run, &status) < 0)
			break;
		i = ptsim_ipt_next_point(&run);
		if (status & PTSIM_PTS_EOS) {
			if (i != trace->nrecs)
				(void)ptsim_ipt_fail(&run, 0,
				                     "the end of the trace "
				                     "before 0x%" PRIx64,
				                     trace->recs[i].offset);
			break;
		}
		if (i == trace->nrecs) {
			(void)ptsim_ipt_fail(&run, 0,
			                     "more trace after the last query "
			                     "point");
			break;
		}
		if (ptsim_ipt_branch(&run, i, &status) < 0)
			break;
	}
	ipt->free_decoder(run.dec);
	return 0;
}
