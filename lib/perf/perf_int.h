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
	ptd_perf_rec_mmap = 1,
	ptd_perf_rec_comm = 3,
	ptd_perf_rec_mmap2 = 10,
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

	/* The sideband's memory maps and process names, in file order; their
	 * strings are in @strings. */
	struct ptd_perf_mmap *mmaps;
	size_t num_mmaps;
	struct ptd_perf_comm *comms;
	size_t num_comms;
	char *strings;

	/* The strings info.cpuid and info.filter point to. */
	char cpuid[96];
	char *filter;
};

/* A sideband record that ptd_perf_take_sideband() decodes: its offset in
 * the file, size and type. */
struct ptd_perf_side {
	uint64_t at, size;
	uint32_t type;
};

/* How the records' sample_id trailers are laid out: each attribute's
 * sample_type, which attribute each sample id belongs to, and whether the
 * attributes have sample_id_all (perf sets it for all or none). */
struct ptd_perf_layout {
	const uint64_t *types;
	size_t num_attrs;
	const uint64_t *ids;
	const uint32_t *id_attr;
	size_t num_ids;
	int sample_id_all;
};

/* Decode the sideband records @side[0..@n) of the file @buf into @perf's
 * mmaps and comms, with their times where @layout tells where they are.
 * Returns 0, -pte_nomem, or -pte_bad_file for a record too short for its
 * fields and trailer, with @diag set. */
int ptd_perf_take_sideband(struct ptd_perf *perf, const uint8_t *buf,
                           const struct ptd_perf_side *side, size_t n,
                           const struct ptd_perf_layout *layout,
                           struct ptd_perf_diag *diag);

#endif /* PTD_PERF_INT_H */
