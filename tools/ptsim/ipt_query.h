/* SPDX-License-Identifier: BSD-3-Clause */
/* libipt 2.0.5's query decoder, loaded at run time, driven through a
 * simulated trace to record the time it reports at every query point.
 *
 * ptdecode and libipt export the same symbol names, so ptsim-accuracy
 * cannot link libipt: it loads it at run time with ptd_libipt_open()
 * (tests/support/libipt_dl.h), as tests/diff and bench/pkt_bench do. */
#ifndef PTSIM_IPT_QUERY_H
#define PTSIM_IPT_QUERY_H

#include "estimate.h"
#include "libipt_dl.h"
#include "sim.h"

/* Decode @trace with libipt's query decoder, configured from the trace's
 * .cfg values, following the synthetic program that the truth describes
 * (each TNT bit and TIP target is checked), and store pt_qry_time() after
 * every query in @est at the query point that the query consumed.  A
 * decoder error or a divergence from the program sets est->failed.
 * Returns 0, or -1 if the decoder cannot be allocated (out of memory). */
int ptsim_libipt_estimate(const struct ptd_libipt *ipt,
                          const struct ptsim_trace *trace,
                          struct ptsim_estimates *est);

#endif /* PTSIM_IPT_QUERY_H */
