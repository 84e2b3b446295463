/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ptdecode extension: Intel PT recordings in Linux perf's perf.data files.
 * Included by ptdecode.h.
 *
 * `perf record -e intel_pt//` writes the trace into a perf.data file as
 * PERF_RECORD_AUXTRACE records: buffers of raw Intel PT packets, each tagged
 * with the index of the AUX area it came from (one per CPU when perf traces
 * per CPU, the default), the CPU and the thread.  The configuration a decoder
 * needs is spread over the file: the intel_pt event's attr.config (the
 * IA32_RTIT_CTL settings), the AUXTRACE_INFO record (the CPUID 0x15 ratio,
 * the nominal ratio, perf's TSC conversion) and the CPUID header feature
 * (family, model and stepping, for the errata).
 *
 * ptd_perf_parse() reads all of that from a file held in memory:
 *
 *     struct ptd_perf *perf;
 *     struct ptd_perf_diag diag;
 *     struct ptd_perf_stream stream;
 *     struct pt_config config;
 *
 *     if (ptd_perf_read(&perf, "perf.data", &diag) < 0) {
 *             fprintf(stderr, "perf.data:%llu: %s\n",
 *                     (unsigned long long)diag.offset, diag.message);
 *             return 1;
 *     }
 *     for (size_t i = 0; i < ptd_perf_num_streams(perf); ++i) {
 *             ptd_perf_get_stream(perf, i, &stream);
 *             pt_config_init(&config);
 *             ptd_perf_config(perf, &config, NULL);
 *             config.begin = (uint8_t *)stream.data;
 *             config.end = (uint8_t *)stream.data + stream.size;
 *             ... decode CPU stream.cpu's trace with any decoder ...
 *     }
 *     ptd_perf_free(perf);
 *
 * What is read: the file header (perf's "PERFILE2" format, little-endian),
 * the attributes, the data section's records and the header features; also
 * the pipe format (`perf record -o -`), whose attributes and features come as
 * records, and files of an interrupted `perf record` (data size 0 in the
 * header: the records are read to the end of the file), the directory of
 * `perf record --threads` (ptd_perf_read()), zstd-compressed sideband
 * (`perf record -z`, where ptdecode was built with zstd; otherwise the
 * compressed records are skipped and counted) and the trace in samples of
 * `perf record --aux-sample`.  What is not: big-endian files and the
 * obsolete "PERFFILE" format.  Snapshot recordings (`perf record -S`) are
 * read, their streams without what one snapshot repeats of the one before
 * (the trace of samples too).  Of the sideband, the memory
 * maps (MMAP, MMAP2), process names (COMM), context switches (SWITCH,
 * SWITCH_CPU_WIDE, and ITRACE_START, the task that tracing started with),
 * forks and exits are read, with their times; ptd_perf_task_at() tells which
 * task ran on a CPU at a given time.  Other sideband records (samples
 * without PERF_SAMPLE_AUX, LOST, NAMESPACES, KSYMBOL, TEXT_POKE, ...) are
 * skipped.
 *
 * Bad input is expected: every length and offset is checked against the
 * file, and an error says what is wrong and at which byte offset of the file
 * (struct ptd_perf_diag).  Record layouts: Linux tools/perf/util/header.h and
 * include/uapi/linux/perf_event.h; AUXTRACE_INFO for Intel PT:
 * tools/perf/util/intel-pt.h.  See docs/perf.md.
 */
#ifndef PTD_PERF_H
#define PTD_PERF_H

#include "intel-pt.h"
#include "ptd_clock.h"
#include "ptd_rtit.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A perf.data file that ptd_perf_parse() or ptd_perf_read() has read. */
struct ptd_perf;

/** Where and why reading a perf.data file failed. */
struct ptd_perf_diag {
	/** The byte offset in the file of the header, record or field that
	 * is wrong (0 for problems of the file as a whole). */
	uint64_t offset;
	/** A one-line description; empty after success. */
	char message[160];
};

/** Read the perf.data file @buf of @size bytes into *@perf.
 *
 * The trace data is copied: @buf may be freed afterwards.  On success *@perf
 * must be freed with ptd_perf_free().  Returns 0 or a negative error:
 *   - -pte_invalid for a NULL argument;
 *   - -pte_bad_file for a file that is not a valid perf.data file (a wrong
 *     magic number, sizes or offsets outside the file, a record shorter than
 *     its header, a truncated trace buffer, an AUXTRACE_INFO record that is
 *     too short);
 *   - -pte_not_supported for valid files ptdecode cannot read (big-endian,
 *     the obsolete v1 format, a recording of another kind of AUX trace than
 *     Intel PT: BTS, ARM CoreSight, ...);
 *   - -pte_bad_config for a recording without Intel PT trace (no
 *     AUXTRACE_INFO record, or no attribute for its PMU);
 *   - -pte_nomem.
 * @diag (may be NULL) receives the offset and a message on error. */
extern pt_export int ptd_perf_parse(struct ptd_perf **perf, const void *buf,
                                    size_t size, struct ptd_perf_diag *diag);

/** ptd_perf_parse() of the file at @path ("-" for standard input).  A
 * regular file is mapped rather than read, so the memory it takes is about
 * its trace's size.  A directory is the format of `perf record --threads`:
 * its file "data" is read, and then the records of its files data.0,
 * data.1, ... (perf's threads' ring buffers and AUX areas, each file's
 * compressed sideband a zstd stream of its own), as if they followed the
 * data file's records (info.dir_files counts them); an error in one of
 * them names it ("data.2: ...") with @diag's offset in it.  The file
 * offsets of such a recording (file_offset of buffers, maps, ...) count
 * through the files one after the other: "data", then data.0, data.1, ...
 * Returns ptd_perf_parse()'s errors, and -pte_bad_file (with the reason in
 * @diag) if a file cannot be read. */
extern pt_export int ptd_perf_read(struct ptd_perf **perf, const char *path,
                                   struct ptd_perf_diag *diag);

/** Free @perf (NULL is allowed). */
extern pt_export void ptd_perf_free(struct ptd_perf *perf);

/** Free the trace bytes of @perf and keep the rest: the configuration and
 * the sideband.  Afterwards the @data of every stream and buffer is NULL
 * (their sizes and places stay).  For a program that has copied the trace
 * it decodes (or is done with it) and goes on using the sideband, such as
 * the context switches while it decodes: a system-wide recording holds the
 * trace of every CPU. */
extern pt_export void ptd_perf_free_trace(struct ptd_perf *perf);

/** What a perf.data file says about its Intel PT recording. */
struct ptd_perf_info {
	/** The intel_pt event: its PMU type (AUXTRACE_INFO priv[0], which
	 * is also the attribute's type), attr.config, attr.sample_type, and
	 * attr.exclude_kernel and exclude_user (0 or 1). */
	uint32_t pmu_type;
	uint64_t config;
	uint64_t sample_type;
	uint8_t exclude_kernel, exclude_user;

	/** perf's TSC to perf time conversion (priv[1..3]) and whether it is
	 * valid (priv[4], CAP_USER_TIME_ZERO). */
	struct ptd_perf_tc tc;
	uint8_t have_tc;

	/** The attr.config bits of the tsc, noretcomp, mtc and cyc terms and
	 * the field of mtc_period (priv[5], [6], [10], [14], [11]; 0 where
	 * the record is too short to have them). */
	uint64_t tsc_bit, noretcomp_bit, mtc_bit, cyc_bit, mtc_freq_bits;

	/** How perf recorded context switches (priv[7]: 0 none, 1 the
	 * sched_switch tracepoint, 2 PERF_RECORD_SWITCH, 3
	 * PERF_RECORD_SWITCH_CPU_WIDE), snapshot mode (priv[8]) and whether
	 * the AUX areas are per CPU (priv[9]). */
	uint32_t have_sched_switch;
	uint8_t snapshot_mode, per_cpu_mmaps;

	/** CPUID.15H EBX (numerator, priv[12]) and EAX (denominator,
	 * priv[13]); the maximum non-turbo ratio (priv[15]); 0 if unknown. */
	uint32_t tsc_ctc_n, tsc_ctc_d;
	uint32_t max_nonturbo_ratio;

	/** perf's address filter string (priv[16] and after; "" if none). */
	const char *filter;

	/** The CPUID header feature, e.g. "GenuineIntel,6,78,3" ("" if the
	 * file has none), and the processor it names (vendor pcv_unknown
	 * unless it is GenuineIntel with a family, model and stepping). */
	const char *cpuid;
	struct pt_cpu cpu;

	/** The number of trace buffers (AUXTRACE records, or with @sampled
	 * the samples with trace), of trace bytes in them, and of compressed
	 * records (PERF_RECORD_COMPRESSED and COMPRESSED2: `perf record -z`
	 * compresses the sideband, never the trace of AUXTRACE records; the
	 * samples of --aux-sample, their trace included, go with the
	 * sideband). */
	uint64_t num_buffers, trace_bytes, num_compressed;

	/** The number of samples with Intel PT trace in them (`perf record
	 * --aux-sample`: PERF_SAMPLE_AUX).  In a recording without AUXTRACE
	 * records, each such sample is a trace buffer of the AUX area of its
	 * CPU (of its thread, without a CPU; idx is that number), and the
	 * streams are assembled as in snapshot mode: a sample holds the last
	 * bytes of the trace when it was taken, so it may repeat the one
	 * before or leave a gap after it. */
	uint64_t num_aux_samples;
	/** 1 if the trace buffers are those samples' trace (the recording
	 * has no AUXTRACE records); their streams are then assembled as in
	 * snapshot mode. */
	uint8_t sampled;

	/** The number of PERF_RECORD_AUX records with the TRUNCATED flag: the
	 * AUX area was full and the kernel dropped trace (the decoder then
	 * sees an overflow or a gap). */
	uint64_t num_truncated;

	/** 1 for the pipe format (`perf record -o -`). */
	uint8_t pipe;

	/** For the directory of `perf record --threads`: the number of its
	 * data.<n> files, whose records were read after those of its data
	 * file (0 for a single file). */
	uint32_t dir_files;

	/** 1 if the file has compressed records and ptdecode was built
	 * without zstd: the sideband in them (memory maps, process names,
	 * switches, ..., and samples with their trace) was skipped.  Where
	 * ptdecode has zstd, the compressed sideband is read as if it were not
	 * compressed. */
	uint8_t compressed_skipped;

	/** 1 if the header's data size is 0: `perf record` did not finish
	 * (killed, out of space).  The records were read to the end of the
	 * file, as perf reads them, and the header features (the CPUID one
	 * among them) were not. */
	uint8_t incomplete;
};

/** Store what @perf says about its recording in @info.  The strings point
 * into @perf.  Returns 0 or -pte_invalid for a NULL argument. */
extern pt_export int ptd_perf_get_info(const struct ptd_perf *perf,
                                       struct ptd_perf_info *info);

/** Configure a decoder for @perf's trace.
 *
 * @config must have been initialized with pt_config_init(); its buffer,
 * callbacks and flags are left alone.  Set are cpu and errata (from the
 * CPUID feature), cpuid_0x15_eax/ebx, mtc_freq (attr.config's mtc_period)
 * and nom_freq, through ptd_rtit_ctl_from_perf() and ptd_rtit_config(), so
 * the settings are checked as there; addr_filter is cleared (perf records
 * its address filters as a string of symbols, info.filter, not as
 * ranges); @diag (may be NULL) receives that
 * check's notes (e.g. no TSC packets, an unknown processor) and, on error,
 * its reason.  Returns 0, -pte_invalid for a NULL @perf or @config or a
 * @config->size below sizeof(struct pt_config), or -pte_bad_config if
 * attr.config has bits that are not intel_pt options or the settings cannot
 * be decoded (MTC packets without the CPUID 0x15 ratio, for one).  After
 * -pte_bad_config the fields above hold the file's values as they are (the
 * processor and its errata, mtc_freq from attr.config, the ratio and the
 * nominal ratio, 0 where the file has none), so that a tool can still
 * decode what does not depend on them, packets for one. */
extern pt_export int ptd_perf_config(const struct ptd_perf *perf,
                                     struct pt_config *config,
                                     struct ptd_rtit_diag *diag);

/** One trace buffer: one PERF_RECORD_AUXTRACE record (or, in a recording of
 * trace in samples, info.num_aux_samples, the trace of one sample: then
 * @aux_offset and @reference are 0, and @file_offset is that of the bytes,
 * or, for a sample in compressed sideband, of its compressed record). */
struct ptd_perf_buffer {
	/** The raw Intel PT bytes (up to 7 zero bytes of padding at the end
	 * included, as perf writes them) and their number. */
	const uint8_t *data;
	uint64_t size;
	/** The offset of the data in the file. */
	uint64_t file_offset;
	/** The buffer's position in its AUX area (it grows from buffer to
	 * buffer of one area) and the TSC when perf copied it. */
	uint64_t aux_offset, reference;
	/** The AUX area (decode queue), the thread (-1 when perf traced
	 * whole CPUs) and the CPU (-1 when perf traced per thread). */
	uint32_t idx;
	int32_t tid, cpu;
};

/** The number of trace buffers in @perf (0 for NULL). */
extern pt_export size_t ptd_perf_num_buffers(const struct ptd_perf *perf);

/** Store trace buffer @i (in file order) of @perf in @buffer.  Its data
 * points into @perf.  Returns 0, -pte_invalid for a NULL argument, or
 * -pte_eos if @i is not below ptd_perf_num_buffers(). */
extern pt_export int ptd_perf_get_buffer(const struct ptd_perf *perf, size_t i,
                                         struct ptd_perf_buffer *buffer);

/** The trace of one AUX area: its buffers one after the other, in file
 * order, which is the order perf read them (the trace of one CPU, in
 * per-CPU recordings).  In snapshot mode, each buffer is a snapshot of the
 * AUX area and may begin with trace that the one before already has: that
 * part is left out (@repeated), so that the stream holds each packet once;
 * where trace was lost between two snapshots an OVF says so (@gaps).  (The
 * streams of a snapshot recording are a copy of their own: the file's trace
 * is held twice, until ptd_perf_free_trace().) */
struct ptd_perf_stream {
	/** The concatenated trace and its size. */
	const uint8_t *data;
	uint64_t size;
	/** The AUX area, and the thread and CPU of its first buffer (-1 as
	 * in struct ptd_perf_buffer). */
	uint32_t idx;
	int32_t tid, cpu;
	/** The number of buffers. */
	uint64_t num_buffers;
	/** In snapshot mode (info.snapshot_mode) and for the trace of samples
	 * (info.sampled): the bytes at the start of later buffers that
	 * repeat what the buffer before holds, which @data leaves out (0
	 * otherwise). */
	uint64_t repeated;
	/** In snapshot mode and for samples: the places where a buffer does
	 * not overlap the one before (the ring wrapped: trace was lost).  @data
	 * has an OVF packet there, and goes on at that buffer's first PSB. */
	uint64_t gaps;
};

/** The number of AUX areas with trace in @perf (0 for NULL). */
extern pt_export size_t ptd_perf_num_streams(const struct ptd_perf *perf);

/** Store the trace of AUX area @i of @perf (areas in increasing idx) in
 * @stream.  Its data points into @perf.  Returns 0, -pte_invalid for a NULL
 * argument, or -pte_eos if @i is not below ptd_perf_num_streams(). */
extern pt_export int ptd_perf_get_stream(const struct ptd_perf *perf, size_t i,
                                         struct ptd_perf_stream *stream);

/** A memory map of the recording's sideband: PERF_RECORD_MMAP or
 * PERF_RECORD_MMAP2, as perf wrote it for every mapping of code (the
 * kernel and its modules at the start, then each process's executable and
 * libraries).  Use it to build a traced image: the bytes of @filename from
 * @pgoff on, @len of them, lie at @start in process @pid. */
struct ptd_perf_mmap {
	/** The process and thread (-1 for the kernel's maps). */
	int32_t pid, tid;
	/** The address, the size and the offset in the file. */
	uint64_t start, len, pgoff;
	/** The file (or "[kernel.kallsyms]_text", "[vdso]", ...). */
	const char *filename;
	/** The CPU mode (PERF_RECORD_MISC_CPUMODE): 1 kernel, 2 user, 3
	 * hypervisor, 4 guest kernel, 5 guest user. */
	uint8_t cpumode;
	/** 1 for PERF_RECORD_MMAP2, which has @prot and @flags (mmap(2)'s)
	 * and either the file's build ID (@build_id_size bytes) or its
	 * device and inode (not kept). */
	uint8_t mmap2;
	uint8_t build_id_size;
	uint8_t build_id[20];
	uint32_t prot, flags;
	/** The perf time of the record, if the attributes record one
	 * (sample_id_all with PERF_SAMPLE_TIME): @have_time. */
	uint8_t have_time;
	uint64_t time;
	/** The offset of the record in the file (for a record of compressed
	 * sideband, that of the compressed record it came out of first). */
	uint64_t file_offset;
	/** The record's place in the file's order of sideband records
	 * (maps, names, switches, forks and exits counted together, those
	 * inside compressed records where they are): the order perf wrote
	 * them in, for records whose times are equal or missing. */
	uint64_t seq;
};

/** The number of memory maps in @perf's sideband (0 for NULL). */
extern pt_export size_t ptd_perf_num_mmaps(const struct ptd_perf *perf);

/** Store memory map @i (in file order) of @perf in @mmap; its filename
 * points into @perf.  Returns 0, -pte_invalid for a NULL argument, or
 * -pte_eos if @i is not below ptd_perf_num_mmaps(). */
extern pt_export int ptd_perf_get_mmap(const struct ptd_perf *perf, size_t i,
                                       struct ptd_perf_mmap *mmap);

/** A process name in @perf's sideband: PERF_RECORD_COMM. */
struct ptd_perf_comm {
	/** The process and thread. */
	int32_t pid, tid;
	/** The name (the first 15 characters of the program's name). */
	const char *comm;
	/** 1 if the name comes with an exec() (PERF_RECORD_MISC_COMM_EXEC):
	 * the process's memory maps before it are gone. */
	uint8_t exec;
	/** The perf time, as in struct ptd_perf_mmap. */
	uint8_t have_time;
	uint64_t time;
	/** The offset of the record in the file (for a record of compressed
	 * sideband, that of the compressed record it came out of first). */
	uint64_t file_offset;
	/** The record's place in the file's order of sideband records
	 * (maps, names, switches, forks and exits counted together, those
	 * inside compressed records where they are): the order perf wrote
	 * them in, for records whose times are equal or missing. */
	uint64_t seq;
};

/** The number of process names in @perf's sideband (0 for NULL). */
extern pt_export size_t ptd_perf_num_comms(const struct ptd_perf *perf);

/** Store process name @i (in file order) of @perf in @comm; the name points
 * into @perf.  Returns 0, -pte_invalid for a NULL argument, or -pte_eos if
 * @i is not below ptd_perf_num_comms(). */
extern pt_export int ptd_perf_get_comm(const struct ptd_perf *perf, size_t i,
                                       struct ptd_perf_comm *comm);

/** A context switch in @perf's sideband, or the start of tracing.
 *
 * perf records PERF_RECORD_SWITCH when it traces threads with context
 * switch events (`perf record --switch-events`), PERF_RECORD_SWITCH_CPU_WIDE
 * when it traces whole CPUs (which also names the task on the other side of
 * the switch), and PERF_RECORD_ITRACE_START for the task running when
 * tracing started on a CPU.  perf records switches for Intel PT by default
 * where it can (info.have_sched_switch says which kind). */
struct ptd_perf_switch {
	/** The task the record is about: switched in (@out 0) or out (@out
	 * 1), or that tracing started with (@start 1).  For switches from
	 * the sample_id trailer's PERF_SAMPLE_TID (-1 if the attributes do
	 * not record it), for ITRACE_START from the record. */
	int32_t pid, tid;
	/** SWITCH_CPU_WIDE only: the task switched to (@out 1) or from (@out
	 * 0); -1 otherwise. */
	int32_t next_prev_pid, next_prev_tid;
	/** The CPU (the trailer's PERF_SAMPLE_CPU), -1 if not recorded. */
	int32_t cpu;
	/** A switch out (PERF_RECORD_MISC_SWITCH_OUT), one with the task
	 * still runnable (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT), a
	 * SWITCH_CPU_WIDE record, an ITRACE_START record. */
	uint8_t out, preempt, cpu_wide, start;
	/** The perf time, as in struct ptd_perf_mmap. */
	uint8_t have_time;
	uint64_t time;
	/** The offset of the record in the file (for a record of compressed
	 * sideband, that of the compressed record it came out of first). */
	uint64_t file_offset;
	/** The record's place in the file's order of sideband records
	 * (maps, names, switches, forks and exits counted together, those
	 * inside compressed records where they are): the order perf wrote
	 * them in, for records whose times are equal or missing. */
	uint64_t seq;
};

/** The number of context switches and starts of tracing in @perf's
 * sideband (0 for NULL). */
extern pt_export size_t ptd_perf_num_switches(const struct ptd_perf *perf);

/** Store context switch @i (in file order) of @perf in @sw.  Returns 0,
 * -pte_invalid for a NULL argument, or -pte_eos if @i is not below
 * ptd_perf_num_switches(). */
extern pt_export int ptd_perf_get_switch(const struct ptd_perf *perf, size_t i,
                                         struct ptd_perf_switch *sw);

/** A new task or the end of one: PERF_RECORD_FORK or PERF_RECORD_EXIT. */
struct ptd_perf_task {
	/** 1 for an exit, 0 for a fork. */
	uint8_t exit;
	/** The task and its parent: process and thread.  A fork with @pid
	 * equal to @ppid made a thread; otherwise a process, which starts
	 * with the memory maps of its parent until it execs. */
	int32_t pid, ppid, tid, ptid;
	/** The record's own perf time (its time field; a trailer's time, if
	 * any, is the same). */
	uint64_t time;
	/** The offset of the record in the file (for a record of compressed
	 * sideband, that of the compressed record it came out of first). */
	uint64_t file_offset;
	/** The record's place in the file's order of sideband records
	 * (maps, names, switches, forks and exits counted together, those
	 * inside compressed records where they are): the order perf wrote
	 * them in, for records whose times are equal or missing. */
	uint64_t seq;
};

/** The number of forks and exits in @perf's sideband (0 for NULL). */
extern pt_export size_t ptd_perf_num_tasks(const struct ptd_perf *perf);

/** Store fork or exit @i (in file order) of @perf in @task.  Returns 0,
 * -pte_invalid for a NULL argument, or -pte_eos if @i is not below
 * ptd_perf_num_tasks(). */
extern pt_export int ptd_perf_get_task(const struct ptd_perf *perf, size_t i,
                                       struct ptd_perf_task *task);

/** Which task ran on @cpu at perf time @time, by the context switches of
 * @perf's sideband.
 *
 * The last switch or start of tracing on @cpu at or before @time says: the
 * task switched in or that tracing started with, or for a switch out of
 * SWITCH_CPU_WIDE the task switched to.  Records without a time or a CPU
 * are not used; of records with the same time, the later one in the file
 * wins.  Convert a trace's TSC to perf time with ptd_perf_tsc_to_ns() and
 * info.tc.
 *
 * Returns 1 and sets *@pid and *@tid to the task; 2 and the same when
 * @time lies inside a context switch: after a switch out that names the
 * next task, before that task's switch in.  The CPU then runs the kernel's
 * switch code: it loads the next task's page tables somewhere in there, and
 * a trace of the task going out (perf traces tasks, not CPUs, by default)
 * goes on until its tracing is switched off, a little after the switch out
 * was recorded.  Returns 0 if the sideband does not say (no such record on
 * @cpu up to @time, or the last is a switch out that names no next task: a
 * PERF_RECORD_SWITCH of a traced thread); -pte_invalid for a NULL
 * argument. */
extern pt_export int ptd_perf_task_at(const struct ptd_perf *perf, int32_t cpu,
                                      uint64_t time, int32_t *pid,
                                      int32_t *tid);

/** ptd_perf_task_at() with the stretch of time its answer holds for: *@from
 * is the time of the record that gives it (0 before the first record of
 * @cpu), *@to the time of the next record of @cpu (UINT64_MAX after the
 * last).  So @time lies in [*@from, *@to), and a tool can tell how near a
 * switch it is, or ask for the next record after a switch out that names no
 * task.  Returns what ptd_perf_task_at() returns (*@from and *@to are set
 * with 0 too). */
extern pt_export int ptd_perf_task_span(const struct ptd_perf *perf,
                                        int32_t cpu, uint64_t time,
                                        int32_t *pid, int32_t *tid,
                                        uint64_t *from, uint64_t *to);

#ifdef __cplusplus
}
#endif

#endif /* PTD_PERF_H */
