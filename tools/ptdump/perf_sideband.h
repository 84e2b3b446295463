/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: the sideband of a perf.data file (--perf:sideband; a ptdecode
 * extension, see docs/ptdump.md). */
#ifndef PTDUMP_PERF_SIDEBAND_H
#define PTDUMP_PERF_SIDEBAND_H

/* Print the sideband records of the perf.data file @filename that
 * ptdecode reads (memory maps, process names, context switches and starts
 * of tracing, forks and exits), one per line in perf-time order (records
 * without a time first, in file order), to stdout.  Returns the exit
 * status: 0, or 1 for a file that cannot be read (a message went to
 * stderr). */
int ptdump_perf_sideband(const char *filename, const char *prog);

#endif /* PTDUMP_PERF_SIDEBAND_H */
