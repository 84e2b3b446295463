/* SPDX-License-Identifier: BSD-3-Clause */
/* libipt's query decoder; see ipt_query.h. */
#include "ipt_query.h"

#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The state of one run through a trace. */
struct ptsim_ipt_run {
	const struct ptd_libipt *ipt;
	const struct ptsim_trace *t;
	struct ptsim_estimates *est;
	struct ptd_ipt_qry_decoder *dec;
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

	(void)run->ipt->qry_get_offset(run->dec, &offset);
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
	int status = run->ipt->qry_time(run->dec, &tsc, NULL, NULL);

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
	while (*status & PTD_IPT_PTS_EVENT_PENDING) {
		struct ptd_ipt_event ev;
		enum pt_packet_type want;
		size_t i;

		memset(&ev, 0, sizeof(ev));
		*status = run->ipt->qry_event(run->dec, &ev, sizeof(ev));
		if (*status < 0)
			return ptsim_ipt_fail(run, *status, "pt_qry_event");
		if (ev.type != PTD_IPT_PTEV_ENABLED &&
		    ev.type != PTD_IPT_PTEV_DISABLED)
			continue;
		want = ev.type == PTD_IPT_PTEV_ENABLED ? ppt_tip_pge
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

	(void)run->ipt->qry_get_offset(run->dec, &offset);
	if (offset != run->t->recs[i].offset)
		return ptsim_ipt_fail(run, 0,
		                      "at 0x%" PRIx64 " instead of the %s at "
		                      "0x%" PRIx64,
		                      offset, ptd_packet_type_name(pkt->type),
		                      run->t->recs[i].offset);
	if (pkt->type == ppt_tip) {
		uint64_t ip = 0;

		*status = run->ipt->qry_indirect_branch(run->dec, &ip);
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

			*status = run->ipt->qry_cond_branch(run->dec, &taken);
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

int ptsim_libipt_estimate(const struct ptd_libipt *ipt,
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
	run.dec = ipt->qry_alloc_decoder(&config);
	if (!run.dec)
		return -1;
	status = ipt->qry_sync_forward(run.dec, &ip);
	if (status < 0)
		(void)ptsim_ipt_fail(&run, status, "pt_qry_sync_forward");
	while (!est->failed) {
		size_t i;

		if (ptsim_ipt_events(&run, &status) < 0)
			break;
		i = ptsim_ipt_next_point(&run);
		if (status & PTD_IPT_PTS_EOS) {
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
	ipt->qry_free_decoder(run.dec);
	return 0;
}
