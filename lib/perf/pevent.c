/* SPDX-License-Identifier: BSD-3-Clause */
/* perf_event sideband records one at a time (include/ptdecode/ptd_pevent.h).
 *
 * Layouts (include/uapi/linux/perf_event.h), offsets from the record's
 * start (the 8-byte header: type u32, misc u16, size u16):
 *   MMAP          pid@8 tid@12 addr@16 len@24 pgoff@32 filename@40
 *   MMAP2         the same up to pgoff, then maj@40 min@44 ino@48
 *                 ino_generation@56 (or build_id_size@40, build_id@44 with
 *                 MISC_MMAP_BUILD_ID), prot@64 flags@68 filename@72
 *   LOST          id@8 lost@16
 *   COMM          pid@8 tid@12 comm@16
 *   EXIT, FORK    pid@8 ppid@12 tid@16 ptid@20 time@24
 *   THROTTLE      time@8 id@16 stream_id@24 (and UNTHROTTLE)
 *   AUX           aux_offset@8 aux_size@16 flags@24
 *   ITRACE_START  pid@8 tid@12
 *   LOST_SAMPLES  lost@8
 *   SWITCH        nothing
 *   SWITCH_CPU_WIDE next_prev_pid@8 next_prev_tid@12
 * Strings are NUL-terminated and padded to 8 bytes; the sample_id fields
 * follow at the end of the record, 8 bytes each. */
#include "ptdecode/ptd_pevent.h"

#include "common/le.h"

#include <string.h>

void ptd_pevent_config_init(struct ptd_pevent_config *config)
{
	if (!config)
		return;
	memset(config, 0, sizeof(*config));
	config->tc.time_mult = 1;
}

const char *ptd_pevent_type_name(uint32_t type)
{
	switch (type) {
	case ptd_pevent_mmap:
		return "PERF_RECORD_MMAP";
	case ptd_pevent_lost:
		return "PERF_RECORD_LOST";
	case ptd_pevent_comm:
		return "PERF_RECORD_COMM";
	case ptd_pevent_exit:
		return "PERF_RECORD_EXIT";
	case ptd_pevent_throttle:
		return "PERF_RECORD_THROTTLE";
	case ptd_pevent_unthrottle:
		return "PERF_RECORD_UNTHROTTLE";
	case ptd_pevent_fork:
		return "PERF_RECORD_FORK";
	case ptd_pevent_mmap2:
		return "PERF_RECORD_MMAP2";
	case ptd_pevent_aux:
		return "PERF_RECORD_AUX";
	case ptd_pevent_itrace_start:
		return "PERF_RECORD_ITRACE_START";
	case ptd_pevent_lost_samples:
		return "PERF_RECORD_LOST_SAMPLES";
	case ptd_pevent_switch:
		return "PERF_RECORD_SWITCH";
	case ptd_pevent_switch_cpu_wide:
		return "PERF_RECORD_SWITCH_CPU_WIDE";
	default:
		return NULL;
	}
}

/* The size of the fixed fields of a record of @type (the header included;
 * the string of MMAP, MMAP2 and COMM after them needs at least one byte),
 * or 0 for a type this file does not know. */
static size_t pev_fixed_size(uint32_t type)
{
	switch (type) {
	case ptd_pevent_mmap:
		return 40;
	case ptd_pevent_lost:
		return 24;
	case ptd_pevent_comm:
		return 16;
	case ptd_pevent_exit:
	case ptd_pevent_fork:
		return 32;
	case ptd_pevent_throttle:
	case ptd_pevent_unthrottle:
		return 32;
	case ptd_pevent_mmap2:
		return 72;
	case ptd_pevent_aux:
		return 32;
	case ptd_pevent_itrace_start:
		return 16;
	case ptd_pevent_lost_samples:
		return 16;
	case ptd_pevent_switch:
		return 8;
	case ptd_pevent_switch_cpu_wide:
		return 16;
	default:
		return 0;
	}
}

/* The number of bytes of the sample_id fields of @sample_type. */
static size_t pev_sample_size(uint64_t sample_type)
{
	static const uint64_t bits[] = {
	        ptd_pevent_sample_tid, ptd_pevent_sample_time,
	        ptd_pevent_sample_id,  ptd_pevent_sample_stream_id,
	        ptd_pevent_sample_cpu, ptd_pevent_sample_identifier};
	size_t size = 0;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); ++i)
		if (sample_type & bits[i])
			size += 8;
	return size;
}

/* Read the sample_id fields of sample type @type at @p (pev_sample_size()
 * bytes). */
static int pev_read_sample(struct ptd_pevent_sample *s, const uint8_t *p,
                           const struct ptd_pevent_config *config,
                           uint64_t type)
{
	if (type & ptd_pevent_sample_tid) {
		s->pid = ptd_le32(p);
		s->tid = ptd_le32(p + 4);
		s->present |= ptd_pevent_sample_tid;
		p += 8;
	}
	if (type & ptd_pevent_sample_time) {
		int err;

		s->time = ptd_le64(p);
		err = ptd_perf_ns_to_tsc(&s->tsc, &config->tc, s->time);
		if (err < 0)
			return err;
		s->present |= ptd_pevent_sample_time;
		p += 8;
	}
	if (type & ptd_pevent_sample_id) {
		s->id = ptd_le64(p);
		s->present |= ptd_pevent_sample_id;
		p += 8;
	}
	if (type & ptd_pevent_sample_stream_id) {
		s->stream_id = ptd_le64(p);
		s->present |= ptd_pevent_sample_stream_id;
		p += 8;
	}
	if (type & ptd_pevent_sample_cpu) {
		s->cpu = ptd_le32(p);
		s->present |= ptd_pevent_sample_cpu;
		p += 8;
	}
	if (type & ptd_pevent_sample_identifier) {
		s->identifier = ptd_le64(p);
		s->present |= ptd_pevent_sample_identifier;
	}
	return 0;
}

/* The string from @p to @end: up to its first NUL. */
static struct ptd_pevent_string pev_string(const uint8_t *p, const uint8_t *end)
{
	struct ptd_pevent_string s;
	const uint8_t *nul = memchr(p, 0, (size_t)(end - p));

	s.str = (const char *)p;
	s.len = (size_t)((nul ? nul : end) - p);
	return s;
}

/* Read the fields of a record of known @type and @size at @r, whose
 * sample_id fields start at @fields_end. */
static void pev_read_fields(struct ptd_pevent_record *rec, const uint8_t *r,
                            const uint8_t *fields_end)
{
	switch (rec->type) {
	case ptd_pevent_mmap:
	case ptd_pevent_mmap2:
		rec->u.mmap.pid = ptd_le32(r + 8);
		rec->u.mmap.tid = ptd_le32(r + 12);
		rec->u.mmap.addr = ptd_le64(r + 16);
		rec->u.mmap.len = ptd_le64(r + 24);
		rec->u.mmap.pgoff = ptd_le64(r + 32);
		if (rec->type == ptd_pevent_mmap) {
			rec->u.mmap.filename = pev_string(r + 40, fields_end);
			break;
		}
		/* (The device and inode fields as they lie, also where a
		 * build ID takes their place.) */
		rec->u.mmap.maj = ptd_le32(r + 40);
		rec->u.mmap.min = ptd_le32(r + 44);
		rec->u.mmap.ino = ptd_le64(r + 48);
		rec->u.mmap.ino_generation = ptd_le64(r + 56);
		if (rec->misc & ptd_pevent_misc_mmap_build_id) {
			uint8_t n = r[40];

			rec->u.mmap.build_id_size = n > 20 ? 20 : n;
			memcpy(rec->u.mmap.build_id, r + 44, 20);
		}
		rec->u.mmap.prot = ptd_le32(r + 64);
		rec->u.mmap.flags = ptd_le32(r + 68);
		rec->u.mmap.filename = pev_string(r + 72, fields_end);
		break;

	case ptd_pevent_lost:
		rec->u.lost.id = ptd_le64(r + 8);
		rec->u.lost.lost = ptd_le64(r + 16);
		break;

	case ptd_pevent_comm:
		rec->u.comm.pid = ptd_le32(r + 8);
		rec->u.comm.tid = ptd_le32(r + 12);
		rec->u.comm.comm = pev_string(r + 16, fields_end);
		break;

	case ptd_pevent_exit:
	case ptd_pevent_fork:
		rec->u.task.pid = ptd_le32(r + 8);
		rec->u.task.ppid = ptd_le32(r + 12);
		rec->u.task.tid = ptd_le32(r + 16);
		rec->u.task.ptid = ptd_le32(r + 20);
		rec->u.task.time = ptd_le64(r + 24);
		break;

	case ptd_pevent_throttle:
	case ptd_pevent_unthrottle:
		rec->u.throttle.time = ptd_le64(r + 8);
		rec->u.throttle.id = ptd_le64(r + 16);
		rec->u.throttle.stream_id = ptd_le64(r + 24);
		break;

	case ptd_pevent_aux:
		rec->u.aux.offset = ptd_le64(r + 8);
		rec->u.aux.size = ptd_le64(r + 16);
		rec->u.aux.flags = ptd_le64(r + 24);
		break;

	case ptd_pevent_itrace_start:
		rec->u.itrace_start.pid = ptd_le32(r + 8);
		rec->u.itrace_start.tid = ptd_le32(r + 12);
		break;

	case ptd_pevent_lost_samples:
		rec->u.lost_samples.lost = ptd_le64(r + 8);
		break;

	case ptd_pevent_switch_cpu_wide:
		rec->u.switch_cpu_wide.pid = ptd_le32(r + 8);
		rec->u.switch_cpu_wide.tid = ptd_le32(r + 12);
		break;

	default:
		break;
	}
}

int ptd_pevent_read(struct ptd_pevent_record *record, const uint8_t *begin,
                    const uint8_t *end, const struct ptd_pevent_config *config)
{
	size_t left, fixed, sample, need;
	uint64_t stype;
	const uint8_t *fields_end;
	int err;

	if (!record || !begin || !end || !config || begin > end)
		return -pte_invalid;
	if (begin == end)
		return -pte_eos;
	left = (size_t)(end - begin);
	if (left < 8)
		return -pte_bad_file;

	memset(record, 0, sizeof(*record));
	record->type = ptd_le32(begin);
	record->misc = (uint16_t)(begin[4] | begin[5] << 8);
	record->size = (uint16_t)(begin[6] | begin[7] << 8);
	if (record->size < 8 || record->size > left)
		return -pte_bad_file;

	fixed = pev_fixed_size(record->type);
	if (!fixed)
		return record->size;
	stype = config->sample_type;
	/* Another event's sample type, named by the identifier at the end. */
	if (config->by_id && record->size >= fixed + 8) {
		const uint64_t id = ptd_le64(begin + record->size - 8);

		for (size_t i = 0; i < config->nby_id; ++i)
			if (config->by_id[i].identifier == id) {
				stype = config->by_id[i].sample_type;
				if (!(stype & ptd_pevent_sample_identifier))
					return -pte_bad_config;
				break;
			}
	}
	sample = pev_sample_size(stype);
	/* A string needs at least its NUL. */
	need = fixed + sample;
	if (record->type == ptd_pevent_mmap ||
	    record->type == ptd_pevent_mmap2 || record->type == ptd_pevent_comm)
		need += 1;
	if (record->size < need)
		return -pte_bad_file;

	fields_end = begin + record->size - sample;
	pev_read_fields(record, begin, fields_end);
	err = pev_read_sample(&record->sample, fields_end, config, stype);
	if (err < 0)
		return err;
	return record->size;
}
