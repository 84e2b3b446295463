/* SPDX-License-Identifier: BSD-3-Clause */
/* The tasks of a perf.data file's sideband: context switches
 * (PERF_RECORD_SWITCH, SWITCH_CPU_WIDE), starts of tracing
 * (PERF_RECORD_ITRACE_START), forks and exits (PERF_RECORD_FORK, EXIT), and
 * from the switches, which task ran on which CPU when (ptd_perf_task_at()).
 *
 * Layouts (include/uapi/linux/perf_event.h), offsets from the record's
 * start: SWITCH has no fields (the task is the trailer's TID);
 * SWITCH_CPU_WIDE next_prev_pid@8 next_prev_tid@12; ITRACE_START pid@8
 * tid@12; FORK and EXIT pid@8 ppid@12 tid@16 ptid@20 time@24.  The misc
 * bits PERF_RECORD_MISC_SWITCH_OUT (1 << 13) and _SWITCH_OUT_PREEMPT (1 <<
 * 14) tell a switch out; the trailer's CPU and TIME place a switch. */
#include "perf_int.h"

#include "common/le.h"

#include <stdlib.h>

uint64_t ptd_perf_task_fixed(uint32_t type)
{
	switch (type) {
	case ptd_perf_rec_switch:
		return 8;
	case ptd_perf_rec_switch_cpu_wide:
	case ptd_perf_rec_itrace_start:
		return 16;
	case ptd_perf_rec_fork:
	case ptd_perf_rec_exit:
		return 32;
	default:
		return 0;
	}
}

void ptd_perf_count_task(uint32_t type, size_t *nswitches, size_t *ntasks)
{
	if (type == ptd_perf_rec_fork || type == ptd_perf_rec_exit)
		*ntasks += 1;
	else
		*nswitches += 1;
}

int ptd_perf_alloc_tasks(struct ptd_perf *perf, size_t nswitches, size_t ntasks)
{
	if (nswitches) {
		perf->switches = calloc(nswitches, sizeof(*perf->switches));
		if (!perf->switches)
			return -pte_nomem;
	}
	if (ntasks) {
		perf->tasks = calloc(ntasks, sizeof(*perf->tasks));
		if (!perf->tasks)
			return -pte_nomem;
	}
	return 0;
}

/* The trailer's 32-bit word @from_end bytes before the record's end, and the
 * one after it (TID: pid, tid; CPU: cpu, reserved); -1 without. */
static int32_t task_word(const uint8_t *r, uint64_t size, uint64_t from_end,
                         unsigned which)
{
	if (!from_end)
		return -1;
	return (int32_t)ptd_le32(r + size - from_end + 4 * which);
}

void ptd_perf_take_task(struct ptd_perf *perf, const uint8_t *r, uint64_t size,
                        uint32_t type, const struct ptd_perf_trailer *tr,
                        uint64_t at, uint64_t seq)
{
	uint16_t misc = (uint16_t)(r[4] | r[5] << 8);
	struct ptd_perf_switch *sw;

	if (type == ptd_perf_rec_fork || type == ptd_perf_rec_exit) {
		struct ptd_perf_task *t = &perf->tasks[perf->num_tasks++];

		t->exit = type == ptd_perf_rec_exit;
		t->pid = (int32_t)ptd_le32(r + 8);
		t->ppid = (int32_t)ptd_le32(r + 12);
		t->tid = (int32_t)ptd_le32(r + 16);
		t->ptid = (int32_t)ptd_le32(r + 20);
		t->time = ptd_le64(r + 24);
		t->file_offset = at;
		t->seq = seq;
		return;
	}

	sw = &perf->switches[perf->num_switches++];
	sw->cpu = task_word(r, size, tr->cpu_from_end, 0);
	sw->have_time = tr->time_from_end ? 1 : 0;
	sw->time = sw->have_time ? ptd_le64(r + size - tr->time_from_end) : 0;
	sw->file_offset = at;
	sw->seq = seq;
	sw->next_prev_pid = -1;
	sw->next_prev_tid = -1;
	if (type == ptd_perf_rec_itrace_start) {
		sw->start = 1;
		sw->pid = (int32_t)ptd_le32(r + 8);
		sw->tid = (int32_t)ptd_le32(r + 12);
		return;
	}
	sw->pid = task_word(r, size, tr->tid_from_end, 0);
	sw->tid = task_word(r, size, tr->tid_from_end, 1);
	sw->out = (misc & ptd_pevent_misc_switch_out) ? 1 : 0;
	/* (The preempt bit means something only with the out bit.) */
	sw->preempt =
	        sw->out && (misc & ptd_pevent_misc_switch_out_preempt) ? 1 : 0;
	if (type == ptd_perf_rec_switch_cpu_wide) {
		sw->cpu_wide = 1;
		sw->next_prev_pid = (int32_t)ptd_le32(r + 8);
		sw->next_prev_tid = (int32_t)ptd_le32(r + 12);
	}
}

/* By CPU, then time, then file order. */
static int run_cmp(const void *a, const void *b)
{
	const struct ptd_perf_run *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

int ptd_perf_build_runs(struct ptd_perf *perf)
{
	size_t n = 0;

	if (!perf->num_switches)
		return 0;
	perf->runs = calloc(perf->num_switches, sizeof(*perf->runs));
	if (!perf->runs)
		return -pte_nomem;
	for (size_t i = 0; i < perf->num_switches; ++i) {
		const struct ptd_perf_switch *sw = &perf->switches[i];
		struct ptd_perf_run *run = &perf->runs[n];

		if (!sw->have_time || sw->cpu < 0)
			continue;
		run->time = sw->time;
		run->cpu = sw->cpu;
		run->order = (uint32_t)i;
		if (!sw->out) {
			run->pid = sw->pid;
			run->tid = sw->tid;
		} else {
			/* Out to the task it names (-1/-1 when it names
			 * none). */
			run->pid = sw->next_prev_pid;
			run->tid = sw->next_prev_tid;
			run->out = 1;
		}
		n += 1;
	}
	perf->num_runs = n;
	qsort(perf->runs, n, sizeof(*perf->runs), run_cmp);
	return 0;
}

int ptd_perf_task_span(const struct ptd_perf *perf, int32_t cpu, uint64_t time,
                       int32_t *pid, int32_t *tid, uint64_t *from, uint64_t *to)
{
	size_t lo = 0, hi;
	const struct ptd_perf_run *run;

	if (!perf || !pid || !tid || !from || !to)
		return -pte_invalid;
	/* The first run after (cpu, time): the one before it is the last at
	 * or before @time. */
	hi = perf->num_runs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ptd_perf_run *m = &perf->runs[mid];

		if (m->cpu < cpu || (m->cpu == cpu && m->time <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	*to = (lo < perf->num_runs && perf->runs[lo].cpu == cpu)
	              ? perf->runs[lo].time
	              : UINT64_MAX;
	*from = 0;
	if (!lo || perf->runs[lo - 1].cpu != cpu)
		return 0;
	run = &perf->runs[lo - 1];
	*from = run->time;
	if (run->pid < 0)
		return 0;
	*pid = run->pid;
	*tid = run->tid;
	return run->out ? 2 : 1;
}

int ptd_perf_task_at(const struct ptd_perf *perf, int32_t cpu, uint64_t time,
                     int32_t *pid, int32_t *tid)
{
	uint64_t from, to;

	return ptd_perf_task_span(perf, cpu, time, pid, tid, &from, &to);
}

size_t ptd_perf_num_switches(const struct ptd_perf *perf)
{
	return perf ? perf->num_switches : 0;
}

int ptd_perf_get_switch(const struct ptd_perf *perf, size_t i,
                        struct ptd_perf_switch *sw)
{
	if (!perf || !sw)
		return -pte_invalid;
	if (i >= perf->num_switches)
		return -pte_eos;
	*sw = perf->switches[i];
	return 0;
}

size_t ptd_perf_num_tasks(const struct ptd_perf *perf)
{
	return perf ? perf->num_tasks : 0;
}

int ptd_perf_get_task(const struct ptd_perf *perf, size_t i,
                      struct ptd_perf_task *task)
{
	if (!perf || !task)
		return -pte_invalid;
	if (i >= perf->num_tasks)
		return -pte_eos;
	*task = perf->tasks[i];
	return 0;
}
