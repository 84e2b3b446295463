/* SPDX-License-Identifier: BSD-3-Clause */
/* What ptdump --perf and ptxed --perf share (perf_input.h). */
#include "perf_input.h"

#include <inttypes.h>
#include <stdio.h>

void ptd_tool_perf_config(struct pt_config *config, uint32_t given,
                          const struct ptd_perf *perf, const char *file,
                          const char *prog)
{
	struct ptd_rtit_diag diag;
	struct pt_config from;

	/* (After an error the file's values are there as they are.) */
	pt_config_init(&from);
	if (ptd_perf_config(perf, &from, &diag) < 0 && prog)
		fprintf(stderr, "%s: warning: %s: %s.\n", prog, file,
		        diag.message);
	if (!(given & ptd_tool_given_cpu)) {
		config->cpu = from.cpu;
		config->errata = from.errata;
	}
	if (!(given & ptd_tool_given_mtc_freq))
		config->mtc_freq = from.mtc_freq;
	if (!(given & ptd_tool_given_nom_freq))
		config->nom_freq = from.nom_freq;
	if (!(given & ptd_tool_given_eax))
		config->cpuid_0x15_eax = from.cpuid_0x15_eax;
	if (!(given & ptd_tool_given_ebx))
		config->cpuid_0x15_ebx = from.cpuid_0x15_ebx;
}

void ptd_tool_perf_warnings(const struct ptd_perf *perf, const char *file,
                            const char *prog)
{
	struct ptd_perf_info info;

	if (ptd_perf_get_info(perf, &info) < 0)
		return;
	if (info.incomplete)
		fprintf(stderr,
		        "%s: warning: %s: perf record did not finish (the "
		        "header's data size is 0); read to the end of the "
		        "file.\n",
		        prog, file);
	if (info.snapshot_mode || info.sampled) {
		uint64_t repeated = 0, gaps = 0;

		for (size_t i = 0; i < ptd_perf_num_streams(perf); ++i) {
			struct ptd_perf_stream st;

			if (ptd_perf_get_stream(perf, i, &st) == 0) {
				repeated += st.repeated;
				gaps += st.gaps;
			}
		}
		if (info.sampled)
			fprintf(stderr,
			        "%s: warning: %s holds its trace in %" PRIu64
			        " sample%s (perf record --aux-sample): "
			        "%" PRIu64 " bytes that samples repeat are "
			        "left out, and trace is lost where two samples "
			        "do not overlap (%" PRIu64 " place%s, an OVF "
			        "in the trace).\n",
			        prog, file, info.num_aux_samples,
			        info.num_aux_samples == 1 ? "" : "s", repeated,
			        gaps, gaps == 1 ? "" : "s");
		else
			fprintf(stderr,
			        "%s: warning: %s was recorded in snapshot "
			        "mode: %" PRIu64 " bytes that snapshots repeat "
			        "are left out, and trace is lost where two "
			        "snapshots do not overlap (%" PRIu64
			        " place%s, "
			        "an OVF in the trace).\n",
			        prog, file, repeated, gaps,
			        gaps == 1 ? "" : "s");
	}
	if (info.compressed_skipped)
		fprintf(stderr,
		        "%s: warning: %s: its sideband is compressed (perf "
		        "record -z) and this ptdecode was built without zstd: "
		        "%" PRIu64 " compressed record%s skipped, with the "
		        "memory maps, process names, switches and samples in "
		        "them "
		        "(build ptdecode with zstd, Debian's libzstd-dev, to "
		        "read them).\n",
		        prog, file, info.num_compressed,
		        info.num_compressed == 1 ? "" : "s");
	if (info.num_truncated)
		fprintf(stderr,
		        "%s: warning: %s: an AUX area overflowed %" PRIu64
		        " time%s: trace was lost there.\n",
		        prog, file, info.num_truncated,
		        info.num_truncated == 1 ? "" : "s");
}

void ptd_tool_perf_areas(const struct ptd_perf *perf, char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < ptd_perf_num_streams(perf) && len < size; ++i) {
		struct ptd_perf_stream st;
		int n;

		if (ptd_perf_get_stream(perf, i, &st) < 0)
			break;
		n = snprintf(buf + len, size - len, "%s%" PRIu32, i ? ", " : "",
		             st.idx);
		if (n < 0)
			break;
		len += (size_t)n;
	}
}
