/* SPDX-License-Identifier: BSD-3-Clause */
/* Time estimates of a decoder for the packets of a simulated trace, to be
 * compared with the truth (accuracy.c). */
#ifndef PTSIM_ESTIMATE_H
#define PTSIM_ESTIMATE_H

#include "sim.h"

#include <stddef.h>
#include <stdint.h>

/* One estimate per record of a trace. */
struct ptsim_estimates {
	uint64_t *tsc; /* the estimated TSC at record i */
	uint8_t *have; /* 1 if the decoder gave an estimate at record i */
	size_t n;      /* the number of records */

	/* Set when the decoder failed before the end of the trace: the
	 * estimates after @error_offset are missing. */
	int failed;
	uint64_t error_offset;
	char error[256];
};

/* Allocate estimates for @trace (none given yet).  Returns 0 or -1. */
int ptsim_estimates_init(struct ptsim_estimates *e,
                         const struct ptsim_trace *trace);
void ptsim_estimates_fini(struct ptsim_estimates *e);

/* 1 if record @r is a point where every decoder is compared with the truth:
 * a CYC-eligible packet outside PSB+ that a query decoder stops at (TNT,
 * TIP, TIP.PGE, TIP.PGD). */
int ptsim_is_query_point(const struct ptsim_rec *r);

/* The index of the record at @offset in @trace, searching from @from;
 * trace->nrecs if there is none. */
size_t ptsim_find_offset(const struct ptsim_trace *trace, size_t from,
                         uint64_t offset);

#endif /* PTSIM_ESTIMATE_H */
