/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the trace of one AUX area of a perf.data file. */
#include "perf.h"

#include "load.h"
#include "perf_input.h"
#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The AUX area @idx (or the only one, for @has_idx 0) of @perf. */
static int ptxed_perf_stream(const struct ptd_perf *perf, int has_idx,
                             uint64_t idx, struct ptd_perf_stream *stream,
                             const char *file, const char *prog)
{
	char areas[256];

	ptd_tool_perf_areas(perf, areas, sizeof(areas));
	if (!ptd_perf_num_streams(perf)) {
		fprintf(stderr, "%s: %s holds no Intel PT trace.\n", prog,
		        file);
		return -1;
	}
	if (!has_idx) {
		if (ptd_perf_num_streams(perf) > 1) {
			fprintf(stderr,
			        "%s: %s has several AUX areas (%s): choose "
			        "one with --perf %s:<idx>.\n",
			        prog, file, areas, file);
			return -1;
		}
		return ptd_perf_get_stream(perf, 0, stream) < 0 ? -1 : 0;
	}
	for (size_t i = 0; i < ptd_perf_num_streams(perf); ++i)
		if (ptd_perf_get_stream(perf, i, stream) == 0 &&
		    stream->idx == idx)
			return 0;
	fprintf(stderr, "%s: %s has no AUX area %" PRIu64 " (it has %s).\n",
	        prog, file, idx, areas);
	return -1;
}

int ptxed_load_perf(struct pt_config *config, uint32_t given, char *arg,
                    const char *prog)
{
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;
	struct ptd_perf_stream stream;
	uint64_t idx = 0;
	uint8_t *buffer;
	int has_idx;

	has_idx = ptxed_split_base(arg, &idx);
	if (ptd_perf_read(&perf, arg, &diag) < 0) {
		fprintf(stderr, "%s: %s:%" PRIu64 ": %s.\n", prog, arg,
		        diag.offset, diag.message);
		return -1;
	}
	if (ptxed_perf_stream(perf, has_idx, idx, &stream, arg, prog) < 0) {
		ptd_perf_free(perf);
		return -1;
	}

	ptd_tool_perf_warnings(perf, arg, prog);
	ptd_tool_perf_config(config, given, perf, arg, prog);

	if (!stream.size) {
		fprintf(stderr, "%s: AUX area %" PRIu32 " of %s is empty.\n",
		        prog, stream.idx, arg);
		ptd_perf_free(perf);
		return -1;
	}
	buffer = malloc((size_t)stream.size);
	if (!buffer) {
		fprintf(stderr, "%s: failed to allocate memory for %s.\n", prog,
		        arg);
		ptd_perf_free(perf);
		return -1;
	}
	memcpy(buffer, stream.data, (size_t)stream.size);
	config->begin = buffer;
	config->end = buffer + stream.size;
	ptd_perf_free(perf);
	return 0;
}
