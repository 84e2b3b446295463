/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing small perf.data files byte by byte, in the file and the pipe
 * format, for the tests of the perf.data reader (tests/unit/test_perf.c) and
 * the seeds of its fuzz target (fuzz/gen_seeds.c). */
#ifndef PTD_PERF_WRITE_H
#define PTD_PERF_WRITE_H

#include <stddef.h>
#include <stdint.h>

/* A growing byte buffer (aborts when out of memory). */
struct pw {
	uint8_t *b;
	size_t n, cap;
};

void pw_put(struct pw *w, const void *p, size_t n);
void pw_u64(struct pw *w, uint64_t v);
void pw_u32(struct pw *w, uint32_t v);
void pw_zero(struct pw *w, size_t n);
/* Store @v little-endian at @p. */
void pw_set_u64(uint8_t *p, uint64_t v);
void pw_set_u32(uint8_t *p, uint32_t v);
/* Read a little-endian value at @p. */
uint64_t pw_get_u64(const uint8_t *p);
uint32_t pw_get_u32(const uint8_t *p);

/* What the files contain. */
struct pw_spec {
	/* AUXTRACE_INFO: its type, how many priv words, the filter. */
	uint32_t auxtrace_type;
	unsigned npriv;
	const char *filter;
	/* The CPUID feature (NULL: none). */
	const char *cpuid;
	/* Records to add: a second AUXTRACE_INFO, a compressed record (an
	 * empty zstd frame). */
	int second_info, compressed;
	/* The intel_pt attribute's type (8 matches priv[0]). */
	uint32_t attr_type;
	/* A trace of @trace_size bytes (NULL: the three buffers of pw_good):
	 * then the file has pw_trace_b in AUX area 0 and @trace, in two
	 * buffers, in AUX area @trace_idx (not 0). */
	const uint8_t *trace;
	size_t trace_size;
	uint32_t trace_idx;
	/* Variants perf writes: AUXTRACE records of this header size (0:
	 * 48), the tid -1 of system-wide recordings, attr.exclude_user, a
	 * HEADER_TRACING_DATA record (24 bytes of data after it), a
	 * PERF_RECORD_AUX with the TRUNCATED flag, and a file of an
	 * interrupted `perf record` (data size 0, no feature section, the
	 * feature bits set). */
	unsigned aux_header_size;
	int tid_minus_one, exclude_user, tracing_data, truncated_aux;
	/* The AUXTRACE records' thread unless @tid_minus_one (0: 3174). */
	uint32_t aux_tid;
	int interrupted;
	/* Sideband with sample_id_all trailers (TID, TIME, CPU, IDENTIFIER
	 * 42) instead of the plain MMAP record: an MMAP of the kernel (time
	 * 1000), an MMAP2 of "/bin/prog" with a build ID (2000), one of
	 * "/lib/libc.so.6" with device and inode (3000), a COMM "prog" with
	 * exec (4000).  With @mixed_types (file format), the second
	 * attribute's sample_type has no CPU and its id 43 names it in one more
	 * COMM, "other" (5000), whose trailer is 24 bytes. */
	int sideband, mixed_types;
	/* With @sideband and @switches, after the COMMs (trailers of CPU 1
	 * unless said otherwise, id 42): an ITRACE_START of 3174/3174 (time
	 * 500); SWITCH_CPU_WIDE records 3174 out to 0 (600), 0 in from 3174
	 * (601); a FORK of 3175 from 3174 (650); SWITCH_CPU_WIDE 0 out
	 * preempted to 3175/3176 (700), 3175/3176 in (702); on CPU 2
	 * PERF_RECORD_SWITCHes of 3175/3176 out (800) and 3174 in (750);
	 * SWITCH_CPU_WIDE 3177 in from 3175/3176 (702 again); an EXIT of
	 * thread 3176 of 3175 (900). */
	int switches;
	/* AUXTRACE_INFO's SNAPSHOT_MODE (priv[8]); with @trace and
	 * @num_snaps, the buffers of AUX area @trace_idx are the @num_snaps
	 * slices [@snap_from[i], @snap_to[i]) of @trace, each followed by
	 * @snap_pad[i] zero bytes (@snap_pad may be NULL), instead of its two
	 * halves. */
	int snapshot;
	size_t num_snaps;
	const size_t *snap_from, *snap_to, *snap_pad;
	/* With @trace and @num_snaps: the slices as the trace of samples of
	 * a third event (`perf record --aux-sample`; "cycles", id 44, CPU
	 * @trace_idx) instead of AUXTRACE records, laid out as
	 * pw_sample_type(@aux_samples) says (1, 2 or 3). */
	int aux_samples;
	/* Whole records (pw_comm(), pw_mmap2_at(), pw_switch_cpu_wide()) to
	 * add after those, before the trace. */
	const uint8_t *extra;
	size_t extra_size;
	/* With @mmap_file: a COMM with exec of process 3174 and MMAP2s
	 * (user mode, executable, no trailers): "/nonexistent/before-exec"
	 * at @mmap_start before the COMM, "/nonexistent/other-process" of
	 * process 3175 and @mmap_file (its whole size @mmap_len from offset
	 * 0) at @mmap_start after it. */
	const char *mmap_file;
	uint64_t mmap_start, mmap_len;
};

/* Records with full sample_id trailers (TID of the record's task, TIME,
 * CPU, IDENTIFIER 42), for pw_spec.extra: a COMM (with exec or not), a
 * user-mode executable MMAP2 of @file (@len bytes from offset 0) at @start,
 * a SWITCH_CPU_WIDE of @pid/@tid switching in or @out, to or from
 * @np_pid/@np_tid, a FORK, and a PERF_RECORD_SWITCH. */
void pw_comm(struct pw *w, uint32_t pid, uint32_t tid, const char *comm,
             int exec, uint64_t time, uint32_t cpu);
void pw_mmap2_at(struct pw *w, uint32_t pid, uint64_t start, uint64_t len,
                 const char *file, uint64_t time, uint32_t cpu);
void pw_switch_cpu_wide(struct pw *w, int out, uint32_t pid, uint32_t tid,
                        uint32_t np_pid, uint32_t np_tid, uint64_t time,
                        uint32_t cpu);
void pw_fork(struct pw *w, uint32_t pid, uint32_t ppid, uint64_t time,
             uint32_t cpu);
/* A PERF_RECORD_SWITCH of @pid/@tid, in or @out (no other task named). */
void pw_switch_thread(struct pw *w, int out, uint32_t pid, uint32_t tid,
                      uint64_t time, uint32_t cpu);

/* The sample_type of the sampling event of pw_spec.aux_samples @layout:
 * 1 what `perf record --aux-sample` sets (IDENTIFIER, IP, TID, TIME, CPU,
 * PERIOD, AUX); 2 every field perf 6.1 reads (READ as a group with every
 * read_format bit, CALLCHAIN, RAW, BRANCH_STACK with the hardware index,
 * REGS_USER, STACK_USER, WEIGHT_STRUCT, ..., CODE_PAGE_SIZE, AUX); 3 the
 * same with the branch counters of Linux 6.8 (branch_sample_type bit 19). */
uint64_t pw_sample_type(int layout);

/* A recording of Intel PT (PMU type 8, attr.config 0x300e601 with
 * exclude_kernel, sample_type 0x10087, a Skylake "GenuineIntel,6,78,3",
 * AUXTRACE_INFO with 17 priv words: perf's TSC conversion 31 / 1789569706 /
 * 0xfffffff86343cb91, CPUID 0x15 100/2, nominal ratio 12) with an MMAP
 * record, three trace buffers (AUX areas 1, 0 and 1: pw_trace_a, _b, _c;
 * tid 3174, reference 0xbc4cd519a6 + idx, AUX offsets 0, 0 and 16) and a
 * FINISHED_ROUND. */
extern const struct pw_spec pw_good;
extern const uint8_t pw_trace_a[16], pw_trace_b[8], pw_trace_c[8];

/* The recording of @s in the file format (a HOSTNAME and, with a cpuid, a
 * CPUID feature) and in the pipe format.  Free .b when done. */
struct pw pw_write_file(const struct pw_spec *s);
struct pw pw_write_pipe(const struct pw_spec *s);

/* Writes the new data section of pw_rewrite_data(): the records [@at,
 * @end) of the file @b (their header sizes checked: it aborts otherwise),
 * as it likes, to @out. */
typedef void pw_records_fn(struct pw *out, const uint8_t *b, size_t at,
                           size_t end, void *ctx);

/* A header feature to add: its number and payload. */
struct pw_feature {
	unsigned bit;
	const void *data;
	size_t size;
};

/* The perf.data file @b of @n bytes (little-endian; the file format, whose
 * data section @fn rewrites, or the pipe format, whose records after its
 * 16-byte header it rewrites) with a new data section: the header's data
 * size and the offsets of what follows the data (the feature table's
 * entries, the attributes' ids) move with it, and the @nfeat features @feat
 * (numbers increasing and above every feature the file has) are added to
 * a file of the file format that has features (a pipe, or the file of a
 * perf record that did not finish, gets none).  Free .b when done. */
struct pw pw_rewrite_data(const uint8_t *b, size_t n, pw_records_fn *fn,
                          void *ctx, const struct pw_feature *feat,
                          size_t nfeat);

/* The offset in @w (a file of the file format) of the first record of
 * @type in its data section, or 0 if it has none. */
size_t pw_find_record(const struct pw *w, uint32_t type);

/* The length of the record at @b + @at (its trace included for an
 * AUXTRACE record), checked to lie before @end (it aborts otherwise). */
size_t pw_record_len(const uint8_t *b, size_t at, size_t end);

#endif /* PTD_PERF_WRITE_H */
