/* SPDX-License-Identifier: BSD-3-Clause */
/* The log of the PSB+ the query decoder decodes, for the event decoder
 * (lib/event): each PSB+'s tracing status, which the pull API does not
 * report, with where it came among the pull API's results. */
#include "qry_decoder.h"

#include <string.h>

void ptd_qry_log_psb(struct pt_query_decoder *decoder)
{
	struct ptd_qry_psb_log *log = decoder->psb_log;
	struct ptd_qry_psb_rec *rec;
	uint64_t ip = 0;
	int on = ptd_last_ip_query(&ip, &decoder->ip) == 0;

	/* A PSB+ that an OVF ends while tracing is off tells nothing: the
	 * overflow comes next. */
	if (!on && decoder->next.type == ppt_ovf)
		return;
	if (log->n < ptd_qry_psb_log_size)
		rec = &log->rec[log->n++];
	else
		rec = &log->rec[ptd_qry_psb_log_size - 1];
	memset(rec, 0, sizeof(*rec));
	rec->seq = log->results;
	rec->ev.status_update = 1;
	if (on) {
		rec->ev.type = ptev_enabled;
		rec->ev.variant.enabled.ip = ip;
	} else {
		rec->ev.type = ptev_disabled;
		rec->ev.ip_suppressed = 1;
	}
	rec->ev.has_tsc =
	        ptd_time_get_tsc(&decoder->time, &rec->ev.tsc,
	                         &rec->ev.lost_mtc, &rec->ev.lost_cyc) == 0;
}
