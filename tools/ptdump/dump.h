/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: the decode loop.
 *
 * Synchronizes onto the first PSB (or takes offset 0 with --no-sync), then
 * decodes and prints packet after packet.  A packet that cannot be decoded
 * is reported as a diagnostic line, and dumping goes on at the next PSB
 * (pt_pkt_sync_forward()), with all tracking state reset.  The end of the
 * trace, including a packet cut off by it, ends the dump normally. */
#ifndef PTDUMP_DUMP_H
#define PTDUMP_DUMP_H

#include "options.h"
#include "ptdecode/intel-pt.h"

#include <stdint.h>
#include <stdio.h>

/* What a dump saw. */
struct ptdump_stats {
	/* Packets decoded (shown or hidden). */
	uint64_t packets;
	/* Packets that could not be decoded or shown; ptdump reported each
	 * and resynchronized. */
	uint64_t errors;
	/* With --time or --tcal: what the time decoder noticed about the
	 * trace and its configuration (enum ptd_time_diag bits). */
	uint32_t time_diag;
};

/* Dump the trace in [config->begin, config->end) to @out and count what it
 * saw in @stats.  With @sb (started: ptd_sb_start()), print its records
 * before the timing packets whose time reaches them, and those left at the
 * end.  Returns 0, or a negative pt_error_code for an error that stopped
 * the dump early. */
int ptdump_dump(const struct pt_config *config,
                const struct ptdump_options *options, FILE *out,
                struct ptdump_stats *stats, struct ptd_sb_session *sb);

#endif /* PTDUMP_DUMP_H */
