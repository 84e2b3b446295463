/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdecode's time estimator (include/ptdecode/ptd_time.h) run over a
 * simulated trace. */
#ifndef PTSIM_EST_PTD_H
#define PTSIM_EST_PTD_H

#include "estimate.h"
#include "sim.h"

/* Decode @trace with ptdecode's time decoder (ptd_time_next()), in
 * accurate mode or, with @libipt_mode, in libipt mode, configured from the
 * trace's .cfg values including VMX TSC scaling, and store the estimated
 * TSC of every packet in @est.  Returns 0, or -1 if the decoder cannot be
 * allocated (est->error says why). */
int ptsim_ptd_estimate(const struct ptsim_trace *trace,
                       struct ptsim_estimates *est, int libipt_mode);

#endif /* PTSIM_EST_PTD_H */
