/* SPDX-License-Identifier: BSD-3-Clause */
/* Error statistics of time estimates against the truth. */
#ifndef PTSIM_METRICS_H
#define PTSIM_METRICS_H

#include "estimate.h"
#include "sim.h"

#include <stdint.h>

/* Which records are compared. */
enum ptsim_points {
	/* The query points (ptsim_is_query_point()): where both decoders
	 * are compared. */
	ptsim_points_query,
	/* Every packet. */
	ptsim_points_all
};

struct ptsim_accuracy {
	uint64_t points;      /* records compared */
	uint64_t measured;    /* ... that had an estimate */
	double sum_abs;       /* sum of |estimate - truth| */
	uint64_t max_abs;     /* the largest |estimate - truth| */
	uint64_t max_offset;  /* the offset of that record */
	uint64_t backwards;   /* estimates below the previous estimate */
	uint64_t max_back;    /* the largest such step back */
	uint64_t back_at_mtc; /* steps back right after an MTC */
	uint64_t failed;      /* traces the decoder did not finish */
};

/* Compare @est with @trace's truth at @which records. */
void ptsim_accuracy_measure(struct ptsim_accuracy *acc,
                            const struct ptsim_trace *trace,
                            const struct ptsim_estimates *est,
                            enum ptsim_points which);

/* Add @one to @total (for several seeds of a scenario). */
void ptsim_accuracy_add(struct ptsim_accuracy *total,
                        const struct ptsim_accuracy *one);

/* The mean absolute error (0 without measurements). */
double ptsim_accuracy_mean(const struct ptsim_accuracy *acc);

#endif /* PTSIM_METRICS_H */
