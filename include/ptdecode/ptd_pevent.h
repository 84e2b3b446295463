/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ptdecode extension: perf_event sideband records, one at a time.
 * Included by ptdecode.h.
 *
 * The kernel reports what happens to the traced processes (memory maps,
 * process names, forks and exits, context switches, lost data) as
 * perf_event records in the perf_event ring buffer; perf stores them in
 * perf.data as they come.  libipt's tools read them from "sideband files":
 * the records of one CPU (or of no CPU) copied out of perf.data one after
 * the other, as libipt's script/perf-read-sideband.bash writes them
 * (perf.data-sideband-cpu<N>.pevent, perf.data-sideband.pevent), or as a
 * program that calls perf_event_open() itself saves its ring buffer.  Such a
 * file has no header: how the records' sample_id fields are laid out
 * (perf_event_attr.sample_type) and how their perf times convert to TSC
 * (perf_event_mmap_page's time_zero, time_shift and time_mult) must be
 * given, as `ptdump --pevent:sample-type ...` and the other --pevent options
 * give them.  (A perf.data file itself is read with ptd_perf_read(),
 * ptd_perf.h, which finds both in the file.)
 *
 *     struct ptd_pevent_config cfg;
 *     struct ptd_pevent_record rec;
 *     size_t at = 0;
 *     int size;
 *
 *     ptd_pevent_config_init(&cfg);
 *     cfg.sample_type = 0x10086;          // IP|TID|TIME|CPU|IDENTIFIER
 *     while ((size = ptd_pevent_read(&rec, buf + at, buf + n, &cfg)) > 0) {
 *             ... rec.type, rec.sample.tsc, rec.mmap.filename ...
 *             at += (size_t)size;
 *     }
 *     if (size != -pte_eos)
 *             ... the record at byte @at is bad ...
 *
 * Record layouts: include/uapi/linux/perf_event.h.  Little-endian files
 * only, as perf writes them on x86.  See docs/sideband.md. */
#ifndef PTD_PEVENT_H
#define PTD_PEVENT_H

#include "intel-pt.h"
#include "ptd_clock.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The perf_event record types (enum perf_event_type) that
 * ptd_pevent_read() knows the layout of. */
enum ptd_pevent_type {
	ptd_pevent_mmap = 1,
	ptd_pevent_lost = 2,
	ptd_pevent_comm = 3,
	ptd_pevent_exit = 4,
	ptd_pevent_throttle = 5,
	ptd_pevent_unthrottle = 6,
	ptd_pevent_fork = 7,
	ptd_pevent_mmap2 = 10,
	ptd_pevent_aux = 11,
	ptd_pevent_itrace_start = 12,
	ptd_pevent_lost_samples = 13,
	ptd_pevent_switch = 14,
	ptd_pevent_switch_cpu_wide = 15
};

/** Bits of a record's misc field (PERF_RECORD_MISC_*). */
enum ptd_pevent_misc {
	/** The processor mode (kernel 1, user 2, hypervisor 3, guest kernel
	 * 4, guest user 5). */
	ptd_pevent_misc_cpumode = 0x7,
	/** COMM: the name changed at an exec (PERF_RECORD_MISC_COMM_EXEC);
	 * SWITCH, SWITCH_CPU_WIDE: the task is switched out
	 * (PERF_RECORD_MISC_SWITCH_OUT). */
	ptd_pevent_misc_comm_exec = 1 << 13,
	ptd_pevent_misc_switch_out = 1 << 13,
	/** MMAP2: the record carries a build ID instead of the device and
	 * inode (PERF_RECORD_MISC_MMAP_BUILD_ID); SWITCH: the task was
	 * preempted (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT). */
	ptd_pevent_misc_mmap_build_id = 1 << 14,
	ptd_pevent_misc_switch_out_preempt = 1 << 14
};

/** Bits of PERF_RECORD_AUX's flags (PERF_AUX_FLAG_*). */
enum ptd_pevent_aux_flag {
	/** The AUX area was full: trace was lost. */
	ptd_pevent_aux_truncated = 0x01,
	/** The record describes a snapshot (overwrite mode). */
	ptd_pevent_aux_overwrite = 0x02,
	/** The record holds a gap (a partial sample). */
	ptd_pevent_aux_partial = 0x04,
	/** Another event wrote the same area at the same time. */
	ptd_pevent_aux_collision = 0x08
};

/** The PERF_SAMPLE_* bits of the sample_id fields that a record ends in
 * (with perf_event_attr.sample_id_all), in the order they come: TID, TIME,
 * ID, STREAM_ID, CPU, IDENTIFIER.  Other bits of a sample_type (IP, say,
 * which only samples carry) are ignored. */
enum ptd_pevent_sample_bit {
	ptd_pevent_sample_tid = 1 << 1,
	ptd_pevent_sample_time = 1 << 2,
	ptd_pevent_sample_id = 1 << 6,
	ptd_pevent_sample_cpu = 1 << 7,
	ptd_pevent_sample_stream_id = 1 << 9,
	ptd_pevent_sample_identifier = 1 << 16
};

/** The sample type of the records of one event, by its identifier. */
struct ptd_pevent_sample_config {
	/** The event's PERF_SAMPLE_IDENTIFIER value. */
	uint64_t identifier;
	/** Its perf_event_attr.sample_type (with IDENTIFIER). */
	uint64_t sample_type;
};

/** How the records of a sideband file were recorded. */
struct ptd_pevent_config {
	/** perf_event_attr.sample_type of the event that wrote them: which
	 * sample_id fields every record ends in (enum
	 * ptd_pevent_sample_bit). */
	uint64_t sample_type;
	/** perf time to TSC: perf_event_mmap_page's time_zero, time_shift
	 * and time_mult.  ptd_pevent_config_init() sets time_mult 1 and the
	 * others 0 (TSC = perf time). */
	struct ptd_perf_tc tc;
	/** Records of several events with different sample types (libipt
	 * 2.1's --pevent:sample-config): @nby_id entries at @by_id (NULL for
	 * none).  A record whose last 8 bytes, after its fixed fields, are
	 * the identifier of an entry has that entry's sample type (the first
	 * entry of that identifier); other records have @sample_type. */
	const struct ptd_pevent_sample_config *by_id;
	size_t nby_id;
};

/** Set @config to the defaults: no sample_id fields; TSC = perf time; no
 * sample types by identifier.  (NULL is ignored.) */
extern pt_export void ptd_pevent_config_init(struct ptd_pevent_config *config);

/** A record's sample_id fields.  Those that the sample_type does not have
 * are 0. */
struct ptd_pevent_sample {
	/** PERF_SAMPLE_TID: the process and thread. */
	uint32_t pid, tid;
	/** PERF_SAMPLE_TIME: the perf time, and the TSC it converts to. */
	uint64_t time;
	uint64_t tsc;
	/** PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_IDENTIFIER. */
	uint64_t id, stream_id, identifier;
	/** PERF_SAMPLE_CPU: the CPU (the u32 after it is reserved). */
	uint32_t cpu;
	/** The sample_type bits that were read (enum
	 * ptd_pevent_sample_bit). */
	uint64_t present;
};

/** A string of a record: @len bytes at @str, up to the first NUL or the
 * end of the field if the record has none.  Points into the caller's
 * buffer. */
struct ptd_pevent_string {
	const char *str;
	size_t len;
};

/** One perf_event record. */
struct ptd_pevent_record {
	/** The header: type (enum ptd_pevent_type, or any other value for a
	 * record ptd_pevent_read() does not know: then only the header and
	 * @size are valid), misc (enum ptd_pevent_misc) and size in bytes,
	 * the header included. */
	uint32_t type;
	uint16_t misc;
	uint16_t size;

	/** The fields of the record's type. */
	union {
		/** MMAP and MMAP2 (the fields after @pgoff: MMAP2 only).
		 * @maj, @min, @ino and @ino_generation are the bytes at
		 * their places, also with ptd_pevent_misc_mmap_build_id,
		 * where @build_id_size and @build_id hold the build ID that
		 * takes their place (its size byte and 20 bytes, as perf
		 * writes it). */
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			uint8_t build_id_size;
			uint8_t build_id[20];
			uint32_t prot, flags;
			struct ptd_pevent_string filename;
		} mmap;
		/** LOST: the event and the number of records lost. */
		struct {
			uint64_t id, lost;
		} lost;
		/** COMM. */
		struct {
			uint32_t pid, tid;
			struct ptd_pevent_string comm;
		} comm;
		/** FORK and EXIT (the task, its parent, and the perf time). */
		struct {
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} task;
		/** THROTTLE and UNTHROTTLE. */
		struct {
			uint64_t time, id, stream_id;
		} throttle;
		/** AUX: where the new trace lies in the AUX area, and enum
		 * ptd_pevent_aux_flag. */
		struct {
			uint64_t offset, size, flags;
		} aux;
		/** ITRACE_START: the task tracing started in. */
		struct {
			uint32_t pid, tid;
		} itrace_start;
		/** LOST_SAMPLES. */
		struct {
			uint64_t lost;
		} lost_samples;
		/** SWITCH_CPU_WIDE: the next task (switched out) or the one
		 * before (switched in).  SWITCH has no fields. */
		struct {
			uint32_t pid, tid;
		} switch_cpu_wide;
	} u;

	/** The sample_id fields (not read for unknown types). */
	struct ptd_pevent_sample sample;
};

/** Read the record at @begin (the file ends at @end) into @record, with the
 * sample_id fields and time conversion of @config.
 *
 * Returns the size of the record in bytes (so the next one starts there),
 * or a negative error code:
 *   - -pte_eos at the end (@begin == @end);
 *   - -pte_invalid for NULL arguments or @begin after @end;
 *   - -pte_bad_file for a record that is not valid: fewer than 8 bytes
 *     left, a size below 8 or beyond @end, or a record of a known type too
 *     short for its fields and its sample_id fields;
 *   - -pte_bad_config for a time conversion that is not valid (time_mult 0
 *     or time_shift above 63) when the sample_type has TIME, or a record
 *     that @config->by_id gives a sample type without IDENTIFIER.
 * A record of a type ptd_pevent_read() does not know is returned with its
 * header only (the caller may skip it). */
extern pt_export int ptd_pevent_read(struct ptd_pevent_record *record,
                                     const uint8_t *begin, const uint8_t *end,
                                     const struct ptd_pevent_config *config);

/** The name of record type @type, as perf and libipt print it
 * ("PERF_RECORD_MMAP", ...), or NULL for a type ptd_pevent_read() does not
 * know. */
extern pt_export const char *ptd_pevent_type_name(uint32_t type);

#ifdef __cplusplus
}
#endif

#endif /* PTD_PEVENT_H */
