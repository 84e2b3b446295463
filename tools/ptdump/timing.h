/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: the timing column (--time, --tcal).
 *
 * With --time or --tcal, ptdump decodes with ptdecode's time decoder
 * (ptd_time_next(), <ptdecode/ptd_time.h>) and shows, in the tracking
 * column of TSC, TMA, MTC and CYC lines, the estimated TSC ("tsc") or, of
 * TSC, CBR and MTC lines, the core:TSC calibration ("fcr"), as libipt's
 * ptdump does, with its diagnostics:
 *
 *	[<offset>: error calibrating time: <error>]
 *	[<offset>: error updating time: <error>]
 *	[<offset>: calibration error: no timing information]
 *	[<offset>: error updating time: no calibration]
 *	[<offset>: error printing time: no timing information]
 *
 * The estimator is ptdecode's accurate one, or libipt's with
 * --time-libipt. */
#ifndef PTDUMP_TIMING_H
#define PTDUMP_TIMING_H

#include "line.h"
#include "options.h"

#include "ptdecode/ptdecode.h"

#include <stdint.h>
#include <stdio.h>

/* What --time-delta compares with: the last values printed. */
struct ptdump_timing {
	uint64_t tsc;
	uint64_t fcr;
};

/* Forget the last values (at the start and after resynchronizing). */
void ptdump_timing_reset(struct ptdump_timing *timing);

/* The time decoder options that the command line asks for. */
void ptdump_timing_config(struct ptd_time_config *tconfig,
                          const struct ptdump_options *options);

/* Put the timing column of @packet at @offset into @line, and print the
 * timing diagnostics of the packet to @out. */
void ptdump_timing_track(struct ptdump_line *line, struct ptdump_timing *timing,
                         const struct ptd_time_packet *packet,
                         const struct ptdump_options *options, uint64_t offset,
                         FILE *out);

/* Print the timing diagnostics @diag (enum ptd_time_diag bits: what the
 * time decoder noticed about the trace and its configuration) to @err, one
 * line each, prefixed by @prog. */
void ptdump_timing_summary(uint32_t diag, const char *prog, FILE *err);

#endif /* PTDUMP_TIMING_H */
