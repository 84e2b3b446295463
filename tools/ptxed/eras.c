/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the lives of the processes of a perf.data file; see eras.h. */
#define _POSIX_C_SOURCE 200809L

#include "eras.h"

#include "load.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* How far back a chain of forks is followed for a process's maps. */
enum { ptxed_fork_depth = 8 };

/* The start of an era: a fork that made process @pid (@ppid its parent),
 * or an exec (@ppid -1), at @key (see ptxed_eras_key()). */
struct ptxed_era {
	int32_t pid, ppid;
	uint64_t key;
};

struct ptxed_eras {
	const struct ptd_perf *perf;
	/* Place records by time (else by their order in the file). */
	int by_time;
	/* The eras' starts, by pid and key. */
	struct ptxed_era *starts;
	size_t num_starts;
};

/* Where a record lies: its time if the file has times (0 without one: perf
 * synthesized it at the start), else its place in the file's order of
 * sideband records (@seq). */
static uint64_t ptxed_eras_key(const struct ptxed_eras *eras, int have_time,
                               uint64_t time, uint64_t seq)
{
	if (!eras->by_time)
		return seq;
	return have_time ? time : 0;
}

static int ptxed_era_cmp(const void *a, const void *b)
{
	const struct ptxed_era *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

struct ptxed_eras *ptxed_eras_alloc(const struct ptd_perf *perf)
{
	struct ptxed_eras *eras = calloc(1, sizeof(*eras));
	size_t n = 0, cap;

	if (!eras)
		return NULL;
	eras->perf = perf;
	for (size_t i = 0; i < ptd_perf_num_mmaps(perf); ++i) {
		struct ptd_perf_mmap m;

		if (ptd_perf_get_mmap(perf, i, &m) == 0 && m.have_time)
			eras->by_time = 1;
	}
	for (size_t i = 0; i < ptd_perf_num_comms(perf); ++i) {
		struct ptd_perf_comm c;

		if (ptd_perf_get_comm(perf, i, &c) == 0 && c.have_time)
			eras->by_time = 1;
	}
	cap = ptd_perf_num_comms(perf) + ptd_perf_num_tasks(perf);
	eras->starts = calloc(cap ? cap : 1, sizeof(*eras->starts));
	if (!eras->starts) {
		free(eras);
		return NULL;
	}
	for (size_t i = 0; i < ptd_perf_num_comms(perf); ++i) {
		struct ptd_perf_comm c;

		if (ptd_perf_get_comm(perf, i, &c) < 0 || !c.exec)
			continue;
		eras->starts[n].pid = c.pid;
		eras->starts[n].ppid = -1;
		eras->starts[n].key =
		        ptxed_eras_key(eras, c.have_time, c.time, c.seq);
		n += 1;
	}
	for (size_t i = 0; i < ptd_perf_num_tasks(perf); ++i) {
		struct ptd_perf_task t;

		/* (A fork with pid == ppid made a thread.) */
		if (ptd_perf_get_task(perf, i, &t) < 0 || t.exit ||
		    t.pid == t.ppid || t.pid < 0)
			continue;
		eras->starts[n].pid = t.pid;
		eras->starts[n].ppid = t.ppid;
		eras->starts[n].key = ptxed_eras_key(eras, 1, t.time, t.seq);
		n += 1;
	}
	eras->num_starts = n;
	qsort(eras->starts, n, sizeof(*eras->starts), ptxed_era_cmp);
	return eras;
}

void ptxed_eras_free(struct ptxed_eras *eras)
{
	if (!eras)
		return;
	free(eras->starts);
	free(eras);
}

/* The number of @pid's starts at or before @key; *@first (may be NULL):
 * the index of its first start. */
static uint32_t ptxed_eras_count(const struct ptxed_eras *eras, int32_t pid,
                                 uint64_t key, size_t *first)
{
	size_t lo = 0, hi = eras->num_starts, begin;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (eras->starts[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	begin = lo;
	hi = eras->num_starts;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ptxed_era *e = &eras->starts[mid];

		if (e->pid == pid && e->key <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (first)
		*first = begin;
	return (uint32_t)(lo - begin);
}

uint32_t ptxed_eras_at(const struct ptxed_eras *eras, int32_t pid,
                       uint64_t time)
{
	return ptxed_eras_count(eras, pid, eras->by_time ? time : UINT64_MAX,
	                        NULL);
}

/* The start of era @era (from 1) of @pid, or NULL for era 0. */
static const struct ptxed_era *ptxed_eras_start(const struct ptxed_eras *eras,
                                                int32_t pid, uint32_t era)
{
	size_t first;
	uint32_t n = ptxed_eras_count(eras, pid, UINT64_MAX, &first);

	return (era && era <= n) ? &eras->starts[first + era - 1] : NULL;
}

int32_t ptxed_eras_forked_from(const struct ptxed_eras *eras, int32_t pid,
                               uint64_t time, uint64_t *fork_time)
{
	const struct ptxed_era *e =
	        ptxed_eras_start(eras, pid, ptxed_eras_at(eras, pid, time));

	if (!e || e->ppid < 0)
		return -1;
	*fork_time = eras->by_time ? e->key : UINT64_MAX;
	return e->ppid;
}

/* Add the code of map @m; returns 1 if added, 0 if its file cannot be
 * read. */
static int ptxed_add_map(const struct ptd_perf_mmap *m,
                         struct ptxed_maps_to *to)
{
	struct stat st;
	uint64_t size = m->len;

	if (stat(m->filename, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size <= m->pgoff) {
		if (to->warn_each)
			fprintf(stderr,
			        "%s: warning: %s: %s (mapped at 0x%" PRIx64
			        ") cannot be read: its code is missing.\n",
			        to->prog, to->file, m->filename, m->start);
		else if (!to->missing++)
			to->first_missing = m->filename;
		return 0;
	}
	/* (A map may reach past the file's end, to the end of its page.) */
	if (size > (uint64_t)st.st_size - m->pgoff)
		size = (uint64_t)st.st_size - m->pgoff;
	return ptxed_add_section(to->iscache, to->image, m->filename, m->pgoff,
	                         size, m->start, to->prog, to->verbose) == 0;
}

/* The maps of @pid in era @era with keys up to @until (a fork's), with at
 * most @depth forks to follow. */
static int ptxed_add_era(const struct ptxed_eras *eras, int32_t pid,
                         uint32_t era, uint64_t until, struct ptxed_maps_to *to,
                         unsigned depth, size_t *known)
{
	const struct ptd_perf *perf = eras->perf;
	const struct ptxed_era *e = ptxed_eras_start(eras, pid, era);
	int added = 0;

	/* An era a fork began starts with the parent's maps then. */
	if (e && e->ppid >= 0 && depth)
		added += ptxed_add_era(
		        eras, e->ppid,
		        ptxed_eras_count(eras, e->ppid, e->key, NULL), e->key,
		        to, depth - 1, NULL);
	for (size_t i = 0; i < ptd_perf_num_mmaps(perf); ++i) {
		struct ptd_perf_mmap m;
		uint64_t key;

		/* User code of that process: cpumode 2, executable (MMAP2
		 * says; MMAP records are of code only), a file ("[vdso]" and
		 * the like are not). */
		if (ptd_perf_get_mmap(perf, i, &m) < 0 || m.pid != pid ||
		    m.cpumode != 2 || (m.mmap2 && !(m.prot & 4)) ||
		    m.filename[0] == '[')
			continue;
		if (known)
			*known += 1;
		key = ptxed_eras_key(eras, m.have_time, m.time, m.seq);
		if (key > until ||
		    ptxed_eras_count(eras, pid, key, NULL) != era)
			continue;
		added += ptxed_add_map(&m, to);
	}
	return added;
}

int ptxed_eras_add_maps(const struct ptxed_eras *eras, int32_t pid,
                        uint32_t era, struct ptxed_maps_to *to, size_t *known)
{
	if (known)
		*known = 0;
	return ptxed_add_era(eras, pid, era, UINT64_MAX, to, ptxed_fork_depth,
	                     known);
}
