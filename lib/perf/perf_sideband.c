/* SPDX-License-Identifier: BSD-3-Clause */
/* The sideband of a perf.data file: memory maps (PERF_RECORD_MMAP, MMAP2)
 * and process names (PERF_RECORD_COMM), with their times, and the sample_id
 * trailers of all sideband records.  Context switches, forks and exits are
 * perf_tasks.c's.
 *
 * Layouts (include/uapi/linux/perf_event.h), offsets from the record's
 * start: MMAP pid@8 tid@12 start@16 len@24 pgoff@32 filename@40; MMAP2 the
 * same up to pgoff, then {maj, min, ino, ino_generation} or, with
 * PERF_RECORD_MISC_MMAP_BUILD_ID, {build_id_size u8, 3 reserved, build_id[20]}
 * at 40, prot@64 flags@68 filename@72; COMM pid@8 tid@12 comm@16.  Strings
 * are NUL-terminated and padded to 8 bytes.  With sample_id_all, the record
 * ends in a trailer of the sample_type's TID, TIME, ID, STREAM_ID, CPU and
 * IDENTIFIER fields (8 bytes each, in that order). */
#include "perf_int.h"

#include "common/le.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The trailer of an attribute of @sample_type. */
static struct ptd_perf_trailer sb_trailer(uint64_t sample_type)
{
	static const uint64_t fields[] = {
	        ptd_pevent_sample_tid, ptd_pevent_sample_time,
	        ptd_pevent_sample_id,  ptd_pevent_sample_stream_id,
	        ptd_pevent_sample_cpu, ptd_pevent_sample_identifier};
	struct ptd_perf_trailer t = {0, 0, 0, 0};
	uint64_t tid_at = 0, time_at = 0, cpu_at = 0;

	/* (The offsets are kept + 1, so that 0 says "none".) */
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i) {
		if (!(sample_type & fields[i]))
			continue;
		if (fields[i] == ptd_pevent_sample_tid)
			tid_at = t.size + 1;
		else if (fields[i] == ptd_pevent_sample_time)
			time_at = t.size + 1;
		else if (fields[i] == ptd_pevent_sample_cpu)
			cpu_at = t.size + 1;
		t.size += 8;
	}
	if (tid_at)
		t.tid_from_end = t.size - (tid_at - 1);
	if (time_at)
		t.time_from_end = t.size - (time_at - 1);
	if (cpu_at)
		t.cpu_from_end = t.size - (cpu_at - 1);
	return t;
}

/* The bits of sample_type that make up the trailer. */
#define PTD_SB_TRAILER_BITS                                                    \
	((uint64_t)(ptd_pevent_sample_tid | ptd_pevent_sample_time |           \
	            ptd_pevent_sample_id | ptd_pevent_sample_stream_id |       \
	            ptd_pevent_sample_cpu | ptd_pevent_sample_identifier))

struct ptd_perf_trailer ptd_perf_record_trailer(const struct ptd_perf_layout *l,
                                                const uint8_t *r, uint64_t size)
{
	struct ptd_perf_trailer none = {0, 0, 0, 0};
	uint64_t first, id;
	int same = 1, identified = 1;

	if (!l->sample_id_all || !l->num_attrs)
		return none;
	first = l->types[0] & PTD_SB_TRAILER_BITS;
	for (size_t i = 0; i < l->num_attrs; ++i) {
		if ((l->types[i] & PTD_SB_TRAILER_BITS) != first)
			same = 0;
		if (!(l->types[i] & ptd_pevent_sample_identifier))
			identified = 0;
	}
	if (same)
		return sb_trailer(first);
	if (!identified || size < 16)
		return none;
	id = ptd_le64(r + size - 8);
	for (size_t i = 0; i < l->num_ids; ++i)
		if (l->ids[i] == id && l->id_attr[i] < l->num_attrs)
			return sb_trailer(l->types[l->id_attr[i]]);
	return none;
}

/* The length of the string at @s, at most @max bytes long (the record may
 * end without a NUL). */
static size_t sb_strnlen(const uint8_t *s, uint64_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		++n;
	return n;
}

/* The name of a record @type for messages. */
const char *ptd_perf_side_name(uint32_t type)
{
	switch (type) {
	case ptd_perf_rec_mmap:
		return "MMAP";
	case ptd_perf_rec_mmap2:
		return "MMAP2";
	case ptd_perf_rec_comm:
		return "COMM";
	case ptd_perf_rec_exit:
		return "EXIT";
	case ptd_perf_rec_fork:
		return "FORK";
	case ptd_perf_rec_itrace_start:
		return "ITRACE_START";
	case ptd_perf_rec_switch:
		return "SWITCH";
	default:
		return "SWITCH_CPU_WIDE";
	}
}

/* The record @side is too short: @need bytes at least. */
static int sb_fail(struct ptd_perf_diag *diag, const struct ptd_perf_side *side,
                   uint64_t need)
{
	const char *what = ptd_perf_side_name(side->type);

	if (diag) {
		int n;

		diag->offset = side->file_at;
		n = snprintf(
		        diag->message, sizeof(diag->message),
		        "%s %s record of %llu bytes (at least %llu with its "
		        "sample_id trailer)%s",
		        (what[0] == 'E' || what[0] == 'I') ? "an" : "a", what,
		        (unsigned long long)side->size,
		        (unsigned long long)need,
		        side->kept ? " in the compressed sideband of the "
		                     "record here"
		                   : "");
		if (n < 0)
			diag->message[0] = '\0';
	}
	return -pte_bad_file;
}

uint64_t ptd_perf_side_fixed(uint32_t type)
{
	switch (type) {
	case ptd_perf_rec_mmap:
		return 40;
	case ptd_perf_rec_mmap2:
		return 72;
	case ptd_perf_rec_comm:
		return 16;
	default:
		return ptd_perf_task_fixed(type);
	}
}

/* Where the record @side lies: in the file @buf or in @kept. */
static const uint8_t *sb_record(const uint8_t *buf, const uint8_t *kept,
                                const struct ptd_perf_side *side)
{
	return (side->kept ? kept : buf) + side->at;
}

int ptd_perf_take_sideband(struct ptd_perf *perf, const uint8_t *buf,
                           const uint8_t *kept,
                           const struct ptd_perf_side *side, size_t n,
                           const struct ptd_perf_layout *layout,
                           struct ptd_perf_diag *diag)
{
	size_t nmmaps = 0, ncomms = 0, nswitches = 0, ntasks = 0, strings = 0;
	size_t used = 0;
	int err;

	/* Check every record and size the arrays and the strings. */
	for (size_t i = 0; i < n; ++i) {
		const uint8_t *r = sb_record(buf, kept, &side[i]);
		uint64_t fixed = ptd_perf_side_fixed(side[i].type);
		struct ptd_perf_trailer tr =
		        ptd_perf_record_trailer(layout, r, side[i].size);

		if (side[i].size < fixed + tr.size)
			return sb_fail(diag, &side[i], fixed + tr.size);
		if (ptd_perf_task_fixed(side[i].type)) {
			ptd_perf_count_task(side[i].type, &nswitches, &ntasks);
			continue;
		}
		strings +=
		        sb_strnlen(r + fixed, side[i].size - fixed - tr.size) +
		        1;
		if (side[i].type == ptd_perf_rec_comm)
			ncomms += 1;
		else
			nmmaps += 1;
	}
	if (nmmaps) {
		perf->mmaps = calloc(nmmaps, sizeof(*perf->mmaps));
		if (!perf->mmaps)
			return -pte_nomem;
	}
	if (ncomms) {
		perf->comms = calloc(ncomms, sizeof(*perf->comms));
		if (!perf->comms)
			return -pte_nomem;
	}
	if (strings) {
		perf->strings = malloc(strings);
		if (!perf->strings)
			return -pte_nomem;
	}
	err = ptd_perf_alloc_tasks(perf, nswitches, ntasks);
	if (err < 0)
		return err;

	for (size_t i = 0; i < n; ++i) {
		const uint8_t *r = sb_record(buf, kept, &side[i]);
		uint64_t fixed = ptd_perf_side_fixed(side[i].type);
		struct ptd_perf_trailer tr =
		        ptd_perf_record_trailer(layout, r, side[i].size);
		uint16_t misc = (uint16_t)(r[4] | r[5] << 8);
		size_t len;
		char *str;
		uint8_t have_time = tr.time_from_end ? 1 : 0;
		uint64_t time =
		        have_time
		                ? ptd_le64(r + side[i].size - tr.time_from_end)
		                : 0;

		if (ptd_perf_task_fixed(side[i].type)) {
			ptd_perf_take_task(perf, r, side[i].size, side[i].type,
			                   &tr, side[i].file_at, i);
			continue;
		}
		len = sb_strnlen(r + fixed, side[i].size - fixed - tr.size);
		str = perf->strings + used;
		memcpy(str, r + fixed, len);
		str[len] = '\0';
		used += len + 1;

		if (side[i].type == ptd_perf_rec_comm) {
			struct ptd_perf_comm *c =
			        &perf->comms[perf->num_comms++];

			c->pid = (int32_t)ptd_le32(r + 8);
			c->tid = (int32_t)ptd_le32(r + 12);
			c->comm = str;
			c->exec = (misc & ptd_pevent_misc_comm_exec) ? 1 : 0;
			c->have_time = have_time;
			c->time = time;
			c->file_offset = side[i].file_at;
			c->seq = i;
			continue;
		}
		{
			struct ptd_perf_mmap *m =
			        &perf->mmaps[perf->num_mmaps++];

			m->pid = (int32_t)ptd_le32(r + 8);
			m->tid = (int32_t)ptd_le32(r + 12);
			m->start = ptd_le64(r + 16);
			m->len = ptd_le64(r + 24);
			m->pgoff = ptd_le64(r + 32);
			m->filename = str;
			m->cpumode = (uint8_t)(misc & ptd_pevent_misc_cpumode);
			m->have_time = have_time;
			m->time = time;
			m->file_offset = side[i].file_at;
			m->seq = i;
			if (side[i].type == ptd_perf_rec_mmap2) {
				m->mmap2 = 1;
				m->prot = ptd_le32(r + 64);
				m->flags = ptd_le32(r + 68);
				if (misc & ptd_pevent_misc_mmap_build_id) {
					uint8_t bsize = r[40];

					if (bsize > sizeof(m->build_id))
						bsize = sizeof(m->build_id);
					m->build_id_size = bsize;
					memcpy(m->build_id, r + 44, bsize);
				}
			}
		}
	}
	return ptd_perf_build_runs(perf);
}

size_t ptd_perf_num_mmaps(const struct ptd_perf *perf)
{
	return perf ? perf->num_mmaps : 0;
}

int ptd_perf_get_mmap(const struct ptd_perf *perf, size_t i,
                      struct ptd_perf_mmap *mmap)
{
	if (!perf || !mmap)
		return -pte_invalid;
	if (i >= perf->num_mmaps)
		return -pte_eos;
	*mmap = perf->mmaps[i];
	return 0;
}

size_t ptd_perf_num_comms(const struct ptd_perf *perf)
{
	return perf ? perf->num_comms : 0;
}

int ptd_perf_get_comm(const struct ptd_perf *perf, size_t i,
                      struct ptd_perf_comm *comm)
{
	if (!perf || !comm)
		return -pte_invalid;
	if (i >= perf->num_comms)
		return -pte_eos;
	*comm = perf->comms[i];
	return 0;
}
