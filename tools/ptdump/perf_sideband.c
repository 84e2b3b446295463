/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: the sideband of a perf.data file; see perf_sideband.h. */
#include "perf_sideband.h"

#include "perf_input.h"
#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* The kinds of records, in ptdecode's accessors. */
enum sb_kind { sb_mmap, sb_comm, sb_switch, sb_task };

/* One record to print: where it comes in the order, and which it is. */
struct sb_entry {
	uint64_t time, seq;
	int have_time;
	enum sb_kind kind;
	size_t index;
};

/* Untimed records first, then by time, then by place in the file. */
static int sb_cmp(const void *a, const void *b)
{
	const struct sb_entry *x = a, *y = b;

	if (x->have_time != y->have_time)
		return x->have_time ? 1 : -1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The time column: seconds with nine decimals, or '-', right-aligned in
 * 20 characters (times up to 10^10 s, about 317 years, fit), so that the
 * columns after it line up. */
static void sb_time(int have_time, uint64_t time)
{
	if (have_time)
		printf("%10" PRIu64 ".%09" PRIu64 "  ", time / 1000000000u,
		       time % 1000000000u);
	else
		printf("%20s  ", "-");
}

static void sb_print(const struct ptd_perf *perf, const struct sb_entry *e)
{
	struct ptd_perf_mmap m;
	struct ptd_perf_comm c;
	struct ptd_perf_switch sw;
	struct ptd_perf_task t;

	sb_time(e->have_time, e->time);
	switch (e->kind) {
	case sb_mmap:
		if (ptd_perf_get_mmap(perf, e->index, &m) < 0)
			break;
		printf("%-6s %" PRId32 "/%" PRId32 "  %s 0x%" PRIx64
		       "+0x%" PRIx64 " @0x%" PRIx64 "  %s\n",
		       m.mmap2 ? "mmap2" : "mmap", m.pid, m.tid,
		       m.cpumode == 1   ? "kernel"
		       : m.cpumode == 2 ? "user"
		                        : "other",
		       m.start, m.len, m.pgoff, m.filename);
		break;
	case sb_comm:
		if (ptd_perf_get_comm(perf, e->index, &c) < 0)
			break;
		printf("%-6s %" PRId32 "/%" PRId32 "  %s%s\n", "comm", c.pid,
		       c.tid, c.comm, c.exec ? "  (exec)" : "");
		break;
	case sb_switch:
		if (ptd_perf_get_switch(perf, e->index, &sw) < 0)
			break;
		printf("%-6s cpu %" PRId32 "  ", "switch", sw.cpu);
		if (sw.start)
			printf("start %" PRId32 "/%" PRId32 "\n", sw.pid,
			       sw.tid);
		else if (sw.out && sw.cpu_wide)
			printf("out %" PRId32 "/%" PRId32 " -> %" PRId32
			       "/%" PRId32 "%s\n",
			       sw.pid, sw.tid, sw.next_prev_pid,
			       sw.next_prev_tid,
			       sw.preempt ? "  (preempt)" : "");
		else if (sw.out)
			printf("out %" PRId32 "/%" PRId32 "%s\n", sw.pid,
			       sw.tid, sw.preempt ? "  (preempt)" : "");
		else if (sw.cpu_wide)
			printf("in %" PRId32 "/%" PRId32 " <- %" PRId32
			       "/%" PRId32 "\n",
			       sw.pid, sw.tid, sw.next_prev_pid,
			       sw.next_prev_tid);
		else
			printf("in %" PRId32 "/%" PRId32 "\n", sw.pid, sw.tid);
		break;
	case sb_task:
		if (ptd_perf_get_task(perf, e->index, &t) < 0)
			break;
		if (t.exit)
			printf("%-6s %" PRId32 "/%" PRId32 "\n", "exit", t.pid,
			       t.tid);
		else
			printf("%-6s %" PRId32 "/%" PRId32 " <- %" PRId32
			       "/%" PRId32 "\n",
			       "fork", t.pid, t.tid, t.ppid, t.ptid);
		break;
	}
}

int ptdump_perf_sideband(const char *filename, const char *prog)
{
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;
	struct sb_entry *entries;
	size_t n = 0, cap;

	if (ptd_perf_read(&perf, filename, &diag) < 0) {
		fprintf(stderr, "%s: %s:%" PRIu64 ": %s.\n", prog, filename,
		        diag.offset, diag.message);
		return 1;
	}
	ptd_tool_perf_warnings(perf, filename, prog);
	cap = ptd_perf_num_mmaps(perf) + ptd_perf_num_comms(perf) +
	      ptd_perf_num_switches(perf) + ptd_perf_num_tasks(perf);
	entries = calloc(cap ? cap : 1, sizeof(*entries));
	if (!entries) {
		fprintf(stderr, "%s: out of memory.\n", prog);
		ptd_perf_free(perf);
		return 1;
	}
	for (size_t i = 0; i < ptd_perf_num_mmaps(perf); ++i) {
		struct ptd_perf_mmap m;

		if (ptd_perf_get_mmap(perf, i, &m) == 0)
			entries[n++] = (struct sb_entry){
			        m.time, m.seq, m.have_time, sb_mmap, i};
	}
	for (size_t i = 0; i < ptd_perf_num_comms(perf); ++i) {
		struct ptd_perf_comm c;

		if (ptd_perf_get_comm(perf, i, &c) == 0)
			entries[n++] = (struct sb_entry){
			        c.time, c.seq, c.have_time, sb_comm, i};
	}
	for (size_t i = 0; i < ptd_perf_num_switches(perf); ++i) {
		struct ptd_perf_switch sw;

		if (ptd_perf_get_switch(perf, i, &sw) == 0)
			entries[n++] = (struct sb_entry){
			        sw.time, sw.seq, sw.have_time, sb_switch, i};
	}
	for (size_t i = 0; i < ptd_perf_num_tasks(perf); ++i) {
		struct ptd_perf_task t;

		/* (Forks and exits carry their own time.) */
		if (ptd_perf_get_task(perf, i, &t) == 0)
			entries[n++] =
			        (struct sb_entry){t.time, t.seq, 1, sb_task, i};
	}
	qsort(entries, n, sizeof(*entries), sb_cmp);
	for (size_t i = 0; i < n; ++i)
		sb_print(perf, &entries[i]);
	free(entries);
	ptd_perf_free(perf);
	return 0;
}
