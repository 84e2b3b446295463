/* SPDX-License-Identifier: BSD-3-Clause */
/* Error statistics; see metrics.h. */
#include "metrics.h"

#include <string.h>

void ptsim_accuracy_measure(struct ptsim_accuracy *acc,
                            const struct ptsim_trace *trace,
                            const struct ptsim_estimates *est,
                            enum ptsim_points which)
{
	uint64_t prev = 0;
	int have_prev = 0, mtc_since = 0;
	size_t i;

	memset(acc, 0, sizeof(*acc));
	acc->failed = est->failed ? 1 : 0;
	for (i = 0; i < trace->nrecs && i < est->n; ++i) {
		const struct ptsim_rec *r = &trace->recs[i];
		uint64_t err;

		if (r->packet.type == ppt_mtc)
			mtc_since = 1;
		if (which == ptsim_points_query && !ptsim_is_query_point(r))
			continue;
		acc->points += 1;
		if (!est->have[i])
			continue;
		acc->measured += 1;
		err = est->tsc[i] > r->tsc ? est->tsc[i] - r->tsc
		                           : r->tsc - est->tsc[i];
		acc->sum_abs += (double)err;
		if (err > acc->max_abs || acc->measured == 1) {
			acc->max_abs = err;
			acc->max_offset = r->offset;
		}
		if (have_prev && est->tsc[i] < prev) {
			acc->backwards += 1;
			if (prev - est->tsc[i] > acc->max_back)
				acc->max_back = prev - est->tsc[i];
			if (mtc_since)
				acc->back_at_mtc += 1;
		}
		prev = est->tsc[i];
		have_prev = 1;
		mtc_since = 0;
	}
}

void ptsim_accuracy_add(struct ptsim_accuracy *total,
                        const struct ptsim_accuracy *one)
{
	total->points += one->points;
	total->measured += one->measured;
	total->sum_abs += one->sum_abs;
	if (one->max_abs > total->max_abs) {
		total->max_abs = one->max_abs;
		total->max_offset = one->max_offset;
	}
	total->backwards += one->backwards;
	if (one->max_back > total->max_back)
		total->max_back = one->max_back;
	total->back_at_mtc += one->back_at_mtc;
	total->failed += one->failed;
}

double ptsim_accuracy_mean(const struct ptsim_accuracy *acc)
{
	return acc->measured ? acc->sum_abs / (double)acc->measured : 0.0;
}
