/* SPDX-License-Identifier: BSD-3-Clause */
/* libipt 2.0.5's query decoder, loaded at run time, driven through a
 * simulated trace to record the time it reports at every query point.
 *
 * ptdecode and libipt export the same symbol names, so ptsim-accuracy
 * cannot link libipt: it dlopen()s "libipt.so.2" (or the library named by
 * the environment variable PTD_LIBIPT) with RTLD_LOCAL and, where the
 * sanitizers allow it, RTLD_DEEPBIND, as tests/diff does.  struct pt_config
 * has the same layout in both libraries; libipt's struct pt_event is
 * mirrored in ipt_query.c. */
#ifndef PTSIM_IPT_QUERY_H
#define PTSIM_IPT_QUERY_H

#include "estimate.h"
#include "sim.h"

#include <stddef.h>

/* A libipt query decoder (opaque). */
struct ptsim_ipt_qry;

/* libipt's event as the query decoder returns it. */
struct ptsim_ipt_event;

struct ptsim_libipt {
	void *handle;
	char version[64];

	const char *(*errstr)(enum pt_error_code code);
	struct ptsim_ipt_qry *(*alloc)(const struct pt_config *config);
	void (*free_decoder)(struct ptsim_ipt_qry *decoder);
	int (*sync_forward)(struct ptsim_ipt_qry *decoder, uint64_t *ip);
	int (*get_offset)(const struct ptsim_ipt_qry *decoder,
	                  uint64_t *offset);
	int (*cond_branch)(struct ptsim_ipt_qry *decoder, int *taken);
	int (*indirect_branch)(struct ptsim_ipt_qry *decoder, uint64_t *ip);
	int (*event)(struct ptsim_ipt_qry *decoder,
	             struct ptsim_ipt_event *event, size_t size);
	int (*time)(struct ptsim_ipt_qry *decoder, uint64_t *time,
	            uint32_t *lost_mtc, uint32_t *lost_cyc);
};

/* Load libipt.  Returns 0, or -1 with a message in @msg. */
int ptsim_libipt_open(struct ptsim_libipt *ipt, char *msg, size_t size);

/* Unload it (a zeroed @ipt is allowed). */
void ptsim_libipt_close(struct ptsim_libipt *ipt);

/* Decode @trace with libipt's query decoder, configured from the trace's
 * .cfg values, following the synthetic program that the truth describes
 * (each TNT bit and TIP target is checked), and store pt_qry_time() after
 * every query in @est at the query point that the query consumed.  A
 * decoder error or a divergence from the program sets est->failed.
 * Returns 0, or -1 if the decoder cannot be allocated (out of memory). */
int ptsim_libipt_estimate(const struct ptsim_libipt *ipt,
                          const struct ptsim_trace *trace,
                          struct ptsim_estimates *est);

#endif /* PTSIM_IPT_QUERY_H */
