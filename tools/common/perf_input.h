/* SPDX-License-Identifier: BSD-3-Clause */
/* What ptdump --perf and ptxed --perf share: the configuration from a
 * perf.data file under the command line's values, and the list of a file's
 * AUX areas for messages. */
#ifndef PTD_TOOL_PERF_INPUT_H
#define PTD_TOOL_PERF_INPUT_H

#include "ptdecode/ptdecode.h"

#include <stddef.h>
#include <stdint.h>

/* The configuration values a command line gave (--cpu, --mtc-freq,
 * --nom-freq, --cpuid-0x15.eax, --cpuid-0x15.ebx): they win over the
 * file's. */
enum ptd_tool_given {
	ptd_tool_given_cpu = 1 << 0,
	ptd_tool_given_mtc_freq = 1 << 1,
	ptd_tool_given_nom_freq = 1 << 2,
	ptd_tool_given_eax = 1 << 3,
	ptd_tool_given_ebx = 1 << 4
};

/* Set the processor and its errata, mtc_freq, nom_freq and the CPUID 0x15
 * ratio of @config from @perf (ptd_perf_config()), except those in @given
 * (enum ptd_tool_given).  A problem with the file's values is printed as a
 * warning naming @file, prefixed by @prog (none for a NULL @prog); the
 * values are taken anyway. */
void ptd_tool_perf_config(struct pt_config *config, uint32_t given,
                          const struct ptd_perf *perf, const char *file,
                          const char *prog);

/* Warn on stderr, prefixed by @prog and naming @file, about what in
 * @perf's recording costs trace or exactness: snapshot mode (gaps between
 * snapshots; the repeated bytes left out), AUX areas that overflowed, an
 * unfinished `perf record`. */
void ptd_tool_perf_warnings(const struct ptd_perf *perf, const char *file,
                            const char *prog);

/* Write the AUX areas of @perf to @buf as "0, 3" ("" for none). */
void ptd_tool_perf_areas(const struct ptd_perf *perf, char *buf, size_t size);

#endif /* PTD_TOOL_PERF_INPUT_H */
