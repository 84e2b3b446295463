/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: dumping the trace in a perf.data file (--perf, --perf:aux; a
 * ptdecode extension, see docs/ptdump.md). */
#ifndef PTDUMP_PERF_H
#define PTDUMP_PERF_H

#include "options.h"

#include <stdint.h>

/* Dump the trace of the AUX areas of the perf.data file @filename that
 * @args select, each configured from the file and the command line's
 * overrides.  ORs the time decoder's notes into *@time_diag.  Returns the
 * exit status: 0, 1 for a file that cannot be read or an AUX area it does
 * not have (a message went to stderr), or the pt_error_code of an error that
 * stopped a dump. */
int ptdump_perf(const struct ptdump_args *args, const char *filename,
                const char *prog, uint32_t *time_diag);

#endif /* PTDUMP_PERF_H */
