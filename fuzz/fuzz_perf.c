/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the perf.data reader (<ptdecode/ptd_perf.h>) on
 * arbitrary bytes.
 *
 * Input: a perf.data file (the seeds are small recordings of both formats,
 * tests/support/perf_write.h).
 *
 * Checks: no crash, leak or sanitizer report; an error has a message, an
 * offset inside the input and no result; after success the buffers lie
 * inside the input and hold its bytes (but for the trace of samples in
 * compressed sideband), the streams are in increasing AUX
 * area order and each is its buffers one after the other, the counts and
 * sizes agree with ptd_perf_get_info(), the sideband's records lie inside
 * the input, and ptd_perf_config() gives 0 or an error with a reason. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_common.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether a switch of @perf on @cpu at @time names no task (a switch in of
 * pid -1, or a switch out without the next task). */
static int fuzz_names_none(const struct ptd_perf *perf, int32_t cpu,
                           uint64_t time)
{
	for (size_t j = 0; j < ptd_perf_num_switches(perf); ++j) {
		struct ptd_perf_switch o;

		if (ptd_perf_get_switch(perf, j, &o) == 0 && o.have_time &&
		    o.cpu == cpu && o.time == time &&
		    (o.out ? o.next_prev_pid : o.pid) < 0)
			return 1;
	}
	return 0;
}

/* A snapshot-mode stream @st (number @s): its first buffer (less up to 7
 * bytes of padding) comes first, its last buffer's end last, and it has no
 * more than the buffers' bytes and an OVF at each gap. */
static void check_snapshot_stream(const struct ptd_perf *perf,
                                  const struct ptd_perf_stream *st, size_t s)
{
	struct ptd_perf_buffer first = {0}, last = {0}, b;
	uint64_t sum = 0, count = 0, keep;

	for (size_t i = 0; i < ptd_perf_num_buffers(perf); ++i) {
		FUZZ_CHECK(ptd_perf_get_buffer(perf, i, &b) == 0, "buf");
		if (b.idx != st->idx)
			continue;
		if (!count)
			first = b;
		last = b;
		sum += b.size;
		count += 1;
	}
	FUZZ_CHECK(count && count == st->num_buffers,
	           "stream %zu: %llu buffers", s, (unsigned long long)count);
	/* (An OVF of 2 bytes at each gap; the bytes before a gap's PSB and
	 * perf's padding at an overlap go.) */
	FUZZ_CHECK(st->gaps < count &&
	                   st->size + st->repeated <= sum + 2 * st->gaps,
	           "stream %zu: %llu + %llu repeated bytes of %llu, %llu gaps",
	           s, (unsigned long long)st->size,
	           (unsigned long long)st->repeated, (unsigned long long)sum,
	           (unsigned long long)st->gaps);
	keep = first.size > 7 ? first.size - 7 : 0;
	if (keep > st->size)
		keep = st->size;
	FUZZ_CHECK(!keep || !memcmp(st->data, first.data, (size_t)keep),
	           "stream %zu does not start with its first buffer", s);
	keep = last.size < st->size ? last.size : st->size;
	if (count == 1)
		FUZZ_CHECK(st->size == first.size && !st->repeated,
		           "stream %zu of one buffer", s);
	else if (keep && !st->repeated && !st->gaps && st->size == sum)
		FUZZ_CHECK(!memcmp(st->data + st->size - keep,
		                   last.data + last.size - keep, (size_t)keep),
		           "stream %zu does not end with its last buffer", s);
}

static void check_result(const struct ptd_perf *perf, const uint8_t *data,
                         size_t size)
{
	struct ptd_perf_info info;
	struct ptd_rtit_diag rdiag;
	struct pt_config config;
	uint64_t total = 0, in_streams = 0;
	size_t nbuf = ptd_perf_num_buffers(perf),
	       nst = ptd_perf_num_streams(perf);
	int err;

	FUZZ_CHECK(ptd_perf_get_info(perf, &info) == 0, "get_info");
	FUZZ_CHECK(info.num_buffers == nbuf, "%llu buffers, %zu listed",
	           (unsigned long long)info.num_buffers, nbuf);
	FUZZ_CHECK(info.cpuid && info.filter, "NULL strings");
	FUZZ_CHECK(strlen(info.cpuid) < 96, "a long cpuid");

	for (size_t i = 0; i < nbuf; ++i) {
		struct ptd_perf_buffer b;

		FUZZ_CHECK(ptd_perf_get_buffer(perf, i, &b) == 0, "buffer %zu",
		           i);
		/* (A sample's trace in compressed sideband is not the
		 * file's bytes: its offset is its compressed record's.) */
		FUZZ_CHECK(b.file_offset <= size,
		           "buffer %zu at %llu, outside %zu", i,
		           (unsigned long long)b.file_offset, size);
		if (!info.sampled || !info.num_compressed) {
			FUZZ_CHECK(b.size <= size - b.file_offset,
			           "buffer %zu at %llu, %llu bytes, outside "
			           "%zu",
			           i, (unsigned long long)b.file_offset,
			           (unsigned long long)b.size, size);
			FUZZ_CHECK(
			        !b.size || !memcmp(b.data, data + b.file_offset,
			                           (size_t)b.size),
			        "buffer %zu does not hold the file's bytes", i);
		}
		FUZZ_CHECK(!info.sampled || (!b.aux_offset && !b.reference),
		           "sample buffer %zu with an AUX offset", i);
		total += b.size;
	}
	FUZZ_CHECK(total == info.trace_bytes, "%llu trace bytes, info %llu",
	           (unsigned long long)total,
	           (unsigned long long)info.trace_bytes);
	FUZZ_CHECK(nst <= nbuf && (nbuf == 0) == (nst == 0),
	           "%zu streams for %zu buffers", nst, nbuf);

	for (size_t s = 0; s < nst; ++s) {
		struct ptd_perf_stream st, prev;
		uint64_t at = 0, count = 0;

		FUZZ_CHECK(ptd_perf_get_stream(perf, s, &st) == 0, "stream");
		if (s) {
			FUZZ_CHECK(ptd_perf_get_stream(perf, s - 1, &prev) == 0,
			           "stream");
			FUZZ_CHECK(prev.idx < st.idx, "streams out of order");
		}
		if (info.snapshot_mode || info.sampled) {
			check_snapshot_stream(perf, &st, s);
			in_streams += st.size + st.repeated;
			continue;
		}
		FUZZ_CHECK(!st.repeated, "stream %zu repeats", s);
		for (size_t i = 0; i < nbuf; ++i) {
			struct ptd_perf_buffer b;

			FUZZ_CHECK(ptd_perf_get_buffer(perf, i, &b) == 0,
			           "buf");
			if (b.idx != st.idx)
				continue;
			if (!count)
				FUZZ_CHECK(b.cpu == st.cpu && b.tid == st.tid,
				           "stream %zu's cpu and tid", s);
			FUZZ_CHECK(at + b.size <= st.size, "stream %zu short",
			           s);
			FUZZ_CHECK(!b.size || !memcmp(st.data + at, b.data,
			                              (size_t)b.size),
			           "stream %zu is not its buffers", s);
			at += b.size;
			count += 1;
		}
		FUZZ_CHECK(
		        at == st.size && count == st.num_buffers && count,
		        "stream %zu: %llu bytes of %llu, %llu buffers of %llu",
		        s, (unsigned long long)at, (unsigned long long)st.size,
		        (unsigned long long)count,
		        (unsigned long long)st.num_buffers);
		in_streams += st.size;
	}
	/* (In snapshot mode bytes may go, and OVFs come in.) */
	FUZZ_CHECK(info.snapshot_mode || info.sampled
	                   ? in_streams <= total + 2 * nbuf
	                   : in_streams == total,
	           "streams hold %llu of %llu bytes",
	           (unsigned long long)in_streams, (unsigned long long)total);
	FUZZ_CHECK(
	        ptd_perf_get_buffer(perf, nbuf, &(struct ptd_perf_buffer){0}) ==
	                -pte_eos,
	        "buffer past the end");

	/* The sideband: every record inside the input, strings no longer
	 * than it. */
	for (size_t i = 0; i < ptd_perf_num_mmaps(perf); ++i) {
		struct ptd_perf_mmap m;

		FUZZ_CHECK(ptd_perf_get_mmap(perf, i, &m) == 0, "mmap %zu", i);
		FUZZ_CHECK(m.file_offset < size && m.filename &&
		                   strlen(m.filename) < size,
		           "mmap %zu at %llu", i,
		           (unsigned long long)m.file_offset);
		FUZZ_CHECK(m.cpumode < 8 && m.build_id_size <= 20,
		           "mmap %zu: cpumode %u, build id %u", i, m.cpumode,
		           m.build_id_size);
	}
	for (size_t i = 0; i < ptd_perf_num_comms(perf); ++i) {
		struct ptd_perf_comm c;

		FUZZ_CHECK(ptd_perf_get_comm(perf, i, &c) == 0, "comm %zu", i);
		FUZZ_CHECK(c.file_offset < size && c.comm &&
		                   strlen(c.comm) < size,
		           "comm %zu at %llu", i,
		           (unsigned long long)c.file_offset);
	}

	/* Context switches and tasks: inside the input; the task on a
	 * switch's CPU at its time is known or not, never an error. */
	for (size_t i = 0; i < ptd_perf_num_switches(perf); ++i) {
		struct ptd_perf_switch sw;
		int32_t pid, tid;
		int known;

		FUZZ_CHECK(ptd_perf_get_switch(perf, i, &sw) == 0, "switch %zu",
		           i);
		FUZZ_CHECK(sw.file_offset < size && sw.out <= 1 &&
		                   sw.start <= 1 && (!sw.start || !sw.out),
		           "switch %zu at %llu", i,
		           (unsigned long long)sw.file_offset);
		known = ptd_perf_task_at(perf, sw.cpu, sw.time, &pid, &tid);
		FUZZ_CHECK(known >= 0 && known <= 2, "task_at: %d", known);
		/* A placed switch leaves a task unknown only where a record
		 * at its CPU and time names none. */
		if (sw.have_time && sw.cpu >= 0 && !known)
			FUZZ_CHECK(fuzz_names_none(perf, sw.cpu, sw.time),
			           "switch %zu places no task", i);
	}
	for (size_t i = 0; i < ptd_perf_num_tasks(perf); ++i) {
		struct ptd_perf_task t;

		FUZZ_CHECK(ptd_perf_get_task(perf, i, &t) == 0, "task %zu", i);
		FUZZ_CHECK(t.file_offset < size && t.exit <= 1,
		           "task %zu at %llu", i,
		           (unsigned long long)t.file_offset);
	}

	pt_config_init(&config);
	err = ptd_perf_config(perf, &config, &rdiag);
	FUZZ_CHECK(err == 0 || err == -pte_bad_config, "config: %d", err);
	FUZZ_CHECK(err == 0 || rdiag.message[0], "config error without reason");
	FUZZ_CHECK(rdiag.error == err, "diag.error %d, returned %d",
	           rdiag.error, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptd_perf *perf = (struct ptd_perf *)&perf;
	struct ptd_perf_diag diag;
	int err;

	/* (libFuzzer may pass NULL for no bytes.) */
	err = ptd_perf_parse(&perf, data ? data : (const uint8_t *)"", size,
	                     &diag);
	if (err < 0) {
		FUZZ_CHECK(err == -pte_bad_file || err == -pte_not_supported ||
		                   err == -pte_bad_config || err == -pte_nomem,
		           "error %d", err);
		FUZZ_CHECK(perf == NULL, "a result with an error");
		FUZZ_CHECK(diag.message[0] != '\0',
		           "an error without a message");
		FUZZ_CHECK(diag.offset <= size, "error offset %llu beyond %zu",
		           (unsigned long long)diag.offset, size);
		return 0;
	}
	FUZZ_CHECK(perf != NULL, "no result");
	FUZZ_CHECK(diag.message[0] == '\0', "a message after success: %s",
	           diag.message);
	check_result(perf, data, size);
	ptd_perf_free(perf);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
