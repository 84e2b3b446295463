/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: dumping the trace in a perf.data file. */
#include "perf.h"

#include "dump.h"
#include "perf_input.h"
#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>

int ptdump_perf(const struct ptdump_args *args, const char *filename,
                const char *prog, uint32_t *time_diag)
{
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;
	struct pt_config base;
	size_t found = 0;
	int status = 0, err;

	err = ptd_perf_read(&perf, filename, &diag);
	if (err < 0) {
		fprintf(stderr, "%s: %s:%" PRIu64 ": %s.\n", prog, filename,
		        diag.offset, diag.message);
		return 1;
	}

	ptd_tool_perf_warnings(perf, filename, prog);
	ptdump_args_config(&base, args);
	ptd_tool_perf_config(&base, args->given, perf, filename, prog);

	for (size_t i = 0; i < ptd_perf_num_streams(perf); ++i) {
		struct ptd_perf_stream st;
		struct ptdump_stats stats;
		struct pt_config config = base;

		if (ptd_perf_get_stream(perf, i, &st) < 0)
			break;
		if (args->perf_aux >= 0 && st.idx != (uint64_t)args->perf_aux)
			continue;
		found += 1;
		if (args->perf_aux < 0 && !args->options.quiet) {
			printf("# AUX area %" PRIu32 " (cpu %" PRId32
			       ", tid %" PRId32 "): %" PRIu64
			       " bytes in %" PRIu64 " buffer%s",
			       st.idx, st.cpu, st.tid, st.size, st.num_buffers,
			       st.num_buffers == 1 ? "" : "s");
			if (st.repeated || st.gaps)
				printf(" (%" PRIu64 " repeated bytes left out, "
				       "%" PRIu64 " gap%s)",
				       st.repeated, st.gaps,
				       st.gaps == 1 ? "" : "s");
			putchar('\n');
		}
		config.begin = (uint8_t *)st.data;
		config.end = (uint8_t *)st.data + st.size;
		err = ptdump_dump(&config, &args->options, stdout, &stats,
		                  NULL);
		if (err < 0)
			status = -err;
		*time_diag |= stats.time_diag;
		if (!err && !stats.packets && !stats.errors)
			fprintf(stderr,
			        "%s: warning: no PSB packet in AUX area "
			        "%" PRIu32 " of %s, nothing to dump.\n",
			        prog, st.idx, filename);
	}

	if (!found && args->perf_aux >= 0) {
		char areas[256];

		ptd_tool_perf_areas(perf, areas, sizeof(areas));
		fprintf(stderr, "%s: %s has no AUX area %" PRId64 " (%s%s).\n",
		        prog, filename, args->perf_aux,
		        areas[0] ? "it has " : "it has none", areas);
		status = 1;
	} else if (!found) {
		fprintf(stderr, "%s: warning: %s holds no Intel PT trace.\n",
		        prog, filename);
	}
	ptd_perf_free(perf);
	return status;
}
