/* SPDX-License-Identifier: BSD-3-Clause */
/* The perf.data layer's internal state (include/ptdecode/ptd_perf.h). */
#ifndef PTD_PERF_INT_H
#define PTD_PERF_INT_H

#include "ptdecode/ptd_perf.h"

#include <stddef.h>
#include <stdint.h>

/* perf.data record types (include/uapi/linux/perf_event.h and
 * tools/perf/util/event.h). */
enum {
	ptd_perf_rec_aux = 11,
	ptd_perf_rec_header_attr = 64,
	ptd_perf_rec_header_tracing_data = 66,
	ptd_perf_rec_auxtrace_info = 70,
	ptd_perf_rec_auxtrace = 71,
	ptd_perf_rec_header_feature = 80,
	ptd_perf_rec_compressed = 81,
	ptd_perf_rec_compressed2 = 83
};

/* The CPUID header feature's number (tools/perf/util/header.h). */
enum { ptd_perf_feat_cpuid = 9 };

/* PERF_RECORD_AUX's flags: the AUX area overflowed (trace lost). */
enum { ptd_perf_aux_truncated = 1 };

/* AUXTRACE_INFO's type for Intel PT. */
enum { ptd_perf_auxtrace_intel_pt = 1 };

struct ptd_perf {
	struct ptd_perf_info info;

	/* The trace buffers in file order, and the AUX areas' streams in
	 * increasing idx.  All trace bytes are in @trace, stream by stream:
	 * a stream's buffers lie one after the other there. */
	struct ptd_perf_buffer *buffers;
	size_t num_buffers;
	struct ptd_perf_stream *streams;
	size_t num_streams;
	uint8_t *trace;

	/* The strings info.cpuid and info.filter point to. */
	char cpuid[96];
	char *filter;
};

#endif /* PTD_PERF_INT_H */
