/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdecode's time estimator; see est_ptd.h. */
#include "est_ptd.h"

#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int ptsim_ptd_estimate(const struct ptsim_trace *trace,
                       struct ptsim_estimates *est, int libipt_mode)
{
	struct ptd_time_decoder *dec;
	struct ptd_time_config tconfig;
	struct pt_config config;
	size_t i = 0;
	int status;

	if (ptsim_decoder_config(&config, &trace->params, trace->buf,
	                         trace->buf + trace->size) < 0) {
		snprintf(est->error, sizeof(est->error), "bad cpu");
		est->failed = 1;
		return -1;
	}
	ptd_time_config_init(&tconfig);
	tconfig.mode =
	        libipt_mode ? ptd_time_mode_libipt : ptd_time_mode_accurate;
	tconfig.tsc_multiplier = trace->params.vmx_multiplier;
	tconfig.tsc_offset = trace->params.vmx_offset;
	dec = ptd_time_alloc_decoder(&config, &tconfig);
	if (!dec) {
		snprintf(est->error, sizeof(est->error),
		         "cannot allocate a time decoder");
		est->failed = 1;
		return -1;
	}
	status = ptd_time_sync_forward(dec);
	while (status >= 0) {
		struct ptd_time_packet pkt;

		status = ptd_time_next(dec, &pkt, sizeof(pkt));
		if (status < 0)
			break;
		i = ptsim_find_offset(trace, i, pkt.offset);
		if (i == trace->nrecs) {
			status = -pte_internal;
			break;
		}
		if (pkt.has_tsc) {
			est->tsc[i] = pkt.tsc;
			est->have[i] = 1;
		}
	}
	if (status != -pte_eos) {
		uint64_t offset = 0;

		(void)ptd_time_get_offset(dec, &offset);
		est->failed = 1;
		est->error_offset = offset;
		snprintf(est->error, sizeof(est->error),
		         "ptd_time_next at 0x%" PRIx64 ": %s", offset,
		         pt_errstr(pt_errcode(status)));
	}
	ptd_time_free_decoder(dec);
	return 0;
}
