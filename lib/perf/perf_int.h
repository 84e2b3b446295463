/* SPDX-License-Identifier: BSD-3-Clause */
/* The perf.data layer's internal state (include/ptdecode/ptd_perf.h). */
#ifndef PTD_PERF_INT_H
#define PTD_PERF_INT_H

#include "ptdecode/ptd_perf.h"
#include "ptdecode/ptd_pevent.h"

#include <stddef.h>
#include <stdint.h>

/* perf.data record types (include/uapi/linux/perf_event.h and
 * tools/perf/util/event.h). */
enum {
	ptd_perf_rec_mmap = 1,
	ptd_perf_rec_comm = 3,
	ptd_perf_rec_exit = 4,
	ptd_perf_rec_fork = 7,
	ptd_perf_rec_sample = 9,
	ptd_perf_rec_mmap2 = 10,
	ptd_perf_rec_aux = 11,
	ptd_perf_rec_itrace_start = 12,
	ptd_perf_rec_switch = 14,
	ptd_perf_rec_switch_cpu_wide = 15,
	ptd_perf_rec_header_attr = 64,
	ptd_perf_rec_header_tracing_data = 66,
	ptd_perf_rec_auxtrace_info = 70,
	ptd_perf_rec_auxtrace = 71,
	ptd_perf_rec_header_feature = 80,
	ptd_perf_rec_compressed = 81,
	ptd_perf_rec_compressed2 = 83
};

/* sample_type bits the reader looks at: PERF_SAMPLE_ID, IDENTIFIER and AUX
 * (include/uapi/linux/perf_event.h). */
enum {
	ptd_perf_sample_id_bit = 1 << 6,
	ptd_perf_sample_identifier_bit = 1 << 16,
	ptd_perf_sample_aux_bit = 1 << 20
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
	/* In snapshot mode: the streams' trace without the bytes each
	 * snapshot repeats (perf_snapshot.c). */
	uint8_t *snap_trace;

	/* The sideband's memory maps and process names, in file order; their
	 * strings are in @strings. */
	struct ptd_perf_mmap *mmaps;
	size_t num_mmaps;
	struct ptd_perf_comm *comms;
	size_t num_comms;
	char *strings;

	/* The context switches (with the starts of tracing) and the forks
	 * and exits, in file order (perf_tasks.c). */
	struct ptd_perf_switch *switches;
	size_t num_switches;
	struct ptd_perf_task *tasks;
	size_t num_tasks;
	/* Who runs where from when: one entry per switch with a time and a
	 * CPU, sorted by CPU, time and file order (ptd_perf_task_at()). */
	struct ptd_perf_run *runs;
	size_t num_runs;

	/* The strings info.cpuid and info.filter point to. */
	char cpuid[96];
	char *filter;
};

/* From @time on, task @pid/@tid runs on @cpu (-1/-1: a task the sideband
 * does not name); @out: the CPU is switching to it (a switch out that names
 * it). */
struct ptd_perf_run {
	uint64_t time;
	int32_t cpu, pid, tid;
	uint32_t order, out;
};

/* A sideband record that ptd_perf_take_sideband() decodes: its offset in
 * the file, or with @kept in the records kept from the compressed sideband;
 * its size and type; and its place in the file for the record's
 * file_offset and for messages (for a record of the compressed sideband,
 * the offset of the compressed record it begins in). */
struct ptd_perf_side {
	uint64_t at, size, file_at;
	uint32_t type;
	int kept;
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

/* Where a record's sample_id trailer has its fields: its size and the
 * offsets of TID (pid, tid), TIME and CPU from the record's end (0 for a
 * field it does not have). */
struct ptd_perf_trailer {
	uint64_t size;
	uint64_t tid_from_end, time_from_end, cpu_from_end;
};

/* The trailer of the record @r of @size bytes: the attributes' one if they
 * agree, else that of the attribute its sample id (the trailer's last word,
 * PERF_SAMPLE_IDENTIFIER) names; none (size 0) if neither is known. */
struct ptd_perf_trailer ptd_perf_record_trailer(const struct ptd_perf_layout *l,
                                                const uint8_t *r,
                                                uint64_t size);

/* The fixed part of a context switch, ITRACE_START, FORK or EXIT record of
 * @type (its header included), or 0 for other types. */
uint64_t ptd_perf_task_fixed(uint32_t type);

/* Count the record of @type (one of ptd_perf_task_fixed()'s) in @perf's
 * arrays' sizes, @nswitches or @ntasks. */
void ptd_perf_count_task(uint32_t type, size_t *nswitches, size_t *ntasks);

/* Allocate @perf's arrays of switches and tasks for @nswitches and @ntasks
 * records.  Returns 0 or -pte_nomem. */
int ptd_perf_alloc_tasks(struct ptd_perf *perf, size_t nswitches,
                         size_t ntasks);

/* Decode the record @r of @size bytes and @type (one of
 * ptd_perf_task_fixed()'s, checked to be long enough for it and its
 * trailer @tr) at file offset @at, the @seq-th sideband record, into
 * @perf's switches or tasks. */
void ptd_perf_take_task(struct ptd_perf *perf, const uint8_t *r, uint64_t size,
                        uint32_t type, const struct ptd_perf_trailer *tr,
                        uint64_t at, uint64_t seq);

/* How many bytes at the start of the snapshot @cur repeat the end of the
 * snapshot @prev before it (0 if none); *@prev_end: where @prev's trace ends,
 * before perf's zero padding; *@first_psb: @cur's first PSB (@cur_size if
 * none). */
uint64_t ptd_perf_snapshot_overlap(const uint8_t *prev, uint64_t prev_size,
                                   const uint8_t *cur, uint64_t cur_size,
                                   uint64_t *prev_end, uint64_t *first_psb);

/* Point @perf's streams at copies of their buffers without the bytes that
 * each buffer repeats of the one before (snapshot mode), counted in each
 * stream's @repeated, and with an OVF where two do not overlap (@gaps).
 * Returns 0 or -pte_nomem. */
int ptd_perf_snapshot_streams(struct ptd_perf *perf);

/* Sort the switches into @perf's runs.  Returns 0 or -pte_nomem. */
int ptd_perf_build_runs(struct ptd_perf *perf);

#if defined(__GNUC__)
#define PTD_PRINTF_PERF(f, a) __attribute__((format(printf, f, a)))
#else
#define PTD_PRINTF_PERF(f, a)
#endif

/* Set @diag (if not NULL) to @offset and the message @fmt.  Returns
 * @err. */
PTD_PRINTF_PERF(4, 5)
int ptd_perf_fail(struct ptd_perf_diag *diag, int err, uint64_t offset,
                  const char *fmt, ...);

/* The fixed part of a sideband record of @type (its header included, not
 * its trailer), and the record's name for messages ("MMAP2"). */
uint64_t ptd_perf_side_fixed(uint32_t type);
const char *ptd_perf_side_name(uint32_t type);

/* Decode the sideband records @side[0..@n) of the file @buf (or of @kept,
 * where they say so) into @perf's mmaps and comms, with their times where
 * @layout tells where they are.  Returns 0, -pte_nomem, or -pte_bad_file
 * for a record too short for its fields and trailer, with @diag set. */
int ptd_perf_take_sideband(struct ptd_perf *perf, const uint8_t *buf,
                           const uint8_t *kept,
                           const struct ptd_perf_side *side, size_t n,
                           const struct ptd_perf_layout *layout,
                           struct ptd_perf_diag *diag);

/* How the samples of an event are laid out: its attribute's sample_type,
 * read_format, branch_sample_type and register masks (0 where the
 * attribute is too short to have them). */
struct ptd_perf_sample_layout {
	uint64_t sample_type, read_format, branch_sample_type;
	uint64_t regs_user, regs_intr;
};

/* The trace in a sample (perf_sample.c): its offset in the record and
 * size, and the sample's task, CPU and time where it has them (-1, -1 and
 * have_time 0 otherwise); @why: the field a cut-off sample ends in. */
struct ptd_perf_aux_sample {
	uint64_t data_at, size, time;
	int32_t pid, tid, cpu;
	int have_time;
	const char *why;
};

/* Find the trace in the PERF_RECORD_SAMPLE @r of @size bytes (its header
 * included) laid out as @l says.  Returns 1 (@out set), 0 if @l has no
 * PERF_SAMPLE_AUX, or -1 if the record ends before its fields do (@out->why
 * names the field). */
int ptd_perf_sample_aux(const struct ptd_perf_sample_layout *l,
                        const uint8_t *r, uint64_t size,
                        struct ptd_perf_aux_sample *out);

/* More records of the same recording after the file: [@begin, @end) of the
 * buffer (the data.<n> files of a directory, perf_dir.c). */
struct ptd_perf_part {
	uint64_t begin, end;
};

/* ptd_perf_parse() of the file in the first @size bytes of @buf, whose
 * records go on in @parts[0..@nparts) further on in @buf (@diag cleared,
 * arguments checked by the caller). */
int ptd_perf_parse_parts(struct ptd_perf **out, const void *buf, size_t size,
                         const struct ptd_perf_part *parts, size_t nparts,
                         struct ptd_perf_diag *diag);

/* Read the directory @path of `perf record --threads` (or --kcore): its
 * "data" file and the records of its "data.<n>" files.  Errors name the
 * file and its offset. */
int ptd_perf_read_dir(struct ptd_perf **out, const char *path,
                      struct ptd_perf_diag *diag);

/* The decompression of the compressed sideband (perf_zstd.c): one zstd
 * stream over the payloads of the compressed records in file order. */
struct ptd_perf_unzip;

/* Take whole records from the @n decompressed bytes at @bytes: store in
 * *@used how many bytes the records taken fill (a record that does not end
 * within @n is left for the next call).  Returns 0 or a negative error. */
typedef int ptd_perf_unzip_take_fn(void *ctx, const uint8_t *bytes, size_t n,
                                   size_t *used);

/* The *why of ptd_perf_unzip_feed() when the stream expands beyond its
 * limit. */
extern const char ptd_perf_unzip_over_limit[];

/* Start a stream that may expand to at most @limit bytes.  Returns 0,
 * -pte_nomem, or -pte_not_supported if ptdecode was built without zstd. */
int ptd_perf_unzip_new(struct ptd_perf_unzip **out, uint64_t limit);
void ptd_perf_unzip_free(struct ptd_perf_unzip *z);

/* Decompress the payload @data of @len bytes, handing the records to @take
 * as they come.  Returns 0, @take's error, or -pte_bad_file with *@why
 * saying what is wrong with the compressed data. */
int ptd_perf_unzip_feed(struct ptd_perf_unzip *z, const uint8_t *data,
                        size_t len, ptd_perf_unzip_take_fn *take, void *ctx,
                        const char **why);

/* The bytes decompressed and not taken (the start of a record). */
size_t ptd_perf_unzip_left(const struct ptd_perf_unzip *z);

#endif /* PTD_PERF_INT_H */
