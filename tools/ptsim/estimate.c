/* SPDX-License-Identifier: BSD-3-Clause */
/* Estimates storage; see estimate.h. */
#include "estimate.h"

#include <stdlib.h>
#include <string.h>

int ptsim_estimates_init(struct ptsim_estimates *e,
                         const struct ptsim_trace *trace)
{
	size_t n = trace->nrecs ? trace->nrecs : 1;

	memset(e, 0, sizeof(*e));
	e->tsc = calloc(n, sizeof(*e->tsc));
	e->have = calloc(n, sizeof(*e->have));
	if (!e->tsc || !e->have) {
		ptsim_estimates_fini(e);
		return -1;
	}
	e->n = trace->nrecs;
	return 0;
}

void ptsim_estimates_fini(struct ptsim_estimates *e)
{
	free(e->tsc);
	free(e->have);
	memset(e, 0, sizeof(*e));
}

int ptsim_is_query_point(const struct ptsim_rec *r)
{
	if (r->flags & PTSIM_HEADER)
		return 0;
	switch (r->packet.type) {
	case ppt_tnt_8:
	case ppt_tnt_64:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		return 1;
	default:
		return 0;
	}
}

size_t ptsim_find_offset(const struct ptsim_trace *trace, size_t from,
                         uint64_t offset)
{
	size_t lo = from, hi = trace->nrecs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (trace->recs[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < trace->nrecs && trace->recs[lo].offset == offset)
		return lo;
	return trace->nrecs;
}
