/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the code of the task that runs; see tasks.h. */
#define _POSIX_C_SOURCE 200809L

#include "tasks.h"

#include "load.h"
#include "ptxed.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* How far back a chain of forks is followed for a process's maps. */
enum { ptxed_fork_depth = 8 };

/* One process generation's image. */
struct ptxed_task_image {
	int32_t pid;
	uint32_t gen;
	struct pt_image *image;
};

struct ptxed_tasks {
	struct ptd_perf *perf;
	struct ptd_perf_tc tc;
	int32_t cpu, fallback_pid;
	struct pt_image_section_cache *iscache;
	struct pt_image *base;
	struct ptxed_task_image *images;
	size_t num_images, cap_images;
	/* The task whose image the decoder has (@have_cur). */
	int have_cur;
	int32_t cur_pid, cur_tid;
	uint32_t cur_gen;
	int verbose;
	const char *file, *prog;
};

/* The number of execs of @pid before file offset @at. */
static uint32_t ptxed_execs_before(const struct ptd_perf *perf, int32_t pid,
                                   uint64_t at)
{
	uint32_t n = 0;

	for (size_t i = 0; i < ptd_perf_num_comms(perf); ++i) {
		struct ptd_perf_comm c;

		if (ptd_perf_get_comm(perf, i, &c) == 0 && c.pid == pid &&
		    c.exec && c.file_offset < at)
			n += 1;
	}
	return n;
}

uint32_t ptxed_tasks_generation(const struct ptd_perf *perf, int32_t pid,
                                uint64_t time)
{
	uint32_t n = 0;

	for (size_t i = 0; i < ptd_perf_num_comms(perf); ++i) {
		struct ptd_perf_comm c;

		if (ptd_perf_get_comm(perf, i, &c) == 0 && c.pid == pid &&
		    c.exec && (!c.have_time || c.time <= time))
			n += 1;
	}
	return n;
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

/* ptxed_tasks_add_maps() with at most @depth forks to follow. */
static int ptxed_add_maps(const struct ptd_perf *perf, int32_t pid,
                          uint32_t gen, struct ptxed_maps_to *to,
                          unsigned depth)
{
	int added = 0;

	/* A new process starts with its parent's maps. */
	if (!gen && depth) {
		for (size_t i = 0; i < ptd_perf_num_tasks(perf); ++i) {
			struct ptd_perf_task t;

			if (ptd_perf_get_task(perf, i, &t) < 0 || t.exit ||
			    t.pid != pid || t.ppid == t.pid || t.ppid < 0)
				continue;
			added += ptxed_add_maps(
			        perf, t.ppid,
			        ptxed_tasks_generation(perf, t.ppid, t.time),
			        to, depth - 1);
			break;
		}
	}
	for (size_t i = 0; i < ptd_perf_num_mmaps(perf); ++i) {
		struct ptd_perf_mmap m;

		/* User code of that process: cpumode 2, executable (MMAP2
		 * says; MMAP records are of code only), a file ("[vdso]" and
		 * the like are not), in that generation. */
		if (ptd_perf_get_mmap(perf, i, &m) < 0 || m.pid != pid ||
		    m.cpumode != 2 || (m.mmap2 && !(m.prot & 4)) ||
		    m.filename[0] == '[' ||
		    ptxed_execs_before(perf, pid, m.file_offset) != gen)
			continue;
		added += ptxed_add_map(&m, to);
	}
	return added;
}

int ptxed_tasks_add_maps(const struct ptd_perf *perf, int32_t pid, uint32_t gen,
                         struct ptxed_maps_to *to)
{
	return ptxed_add_maps(perf, pid, gen, to, ptxed_fork_depth);
}

struct ptxed_tasks *ptxed_tasks_alloc(struct ptd_perf *perf,
                                      const struct ptd_perf_tc *tc, int32_t cpu,
                                      int32_t fallback_pid,
                                      struct pt_image_section_cache *iscache,
                                      struct pt_image *base, int verbose,
                                      const char *file, const char *prog)
{
	struct ptxed_tasks *tasks = calloc(1, sizeof(*tasks));

	if (!tasks)
		return NULL;
	tasks->perf = perf;
	tasks->tc = *tc;
	tasks->cpu = cpu;
	tasks->fallback_pid = fallback_pid;
	tasks->iscache = iscache;
	tasks->base = base;
	tasks->verbose = verbose;
	tasks->file = file;
	tasks->prog = prog;
	return tasks;
}

void ptxed_tasks_free(struct ptxed_tasks *tasks)
{
	if (!tasks)
		return;
	for (size_t i = 0; i < tasks->num_images; ++i)
		pt_image_free(tasks->images[i].image);
	free(tasks->images);
	ptd_perf_free(tasks->perf);
	free(tasks);
}

/* The image of @pid in generation @gen, made if needed; NULL if it cannot
 * be made (reported). */
static struct pt_image *ptxed_task_image(struct ptxed_tasks *tasks, int32_t pid,
                                         uint32_t gen)
{
	struct ptxed_task_image *e;
	struct ptxed_maps_to to;
	struct pt_image *image;
	int added;

	for (size_t i = 0; i < tasks->num_images; ++i)
		if (tasks->images[i].pid == pid && tasks->images[i].gen == gen)
			return tasks->images[i].image;

	if (tasks->num_images == tasks->cap_images) {
		size_t cap = tasks->cap_images ? 2 * tasks->cap_images : 16;
		struct ptxed_task_image *grown =
		        realloc(tasks->images, cap * sizeof(*grown));

		if (!grown) {
			fprintf(stderr, "%s: out of memory.\n", tasks->prog);
			return NULL;
		}
		tasks->images = grown;
		tasks->cap_images = cap;
	}
	image = pt_image_alloc(NULL);
	if (!image || pt_image_copy(image, tasks->base) < 0) {
		fprintf(stderr, "%s: out of memory.\n", tasks->prog);
		pt_image_free(image);
		return NULL;
	}
	to.iscache = tasks->iscache;
	to.image = image;
	to.verbose = tasks->verbose;
	to.file = tasks->file;
	to.prog = tasks->prog;
	to.warn_each = 0;
	to.missing = 0;
	to.first_missing = NULL;
	added = ptxed_tasks_add_maps(tasks->perf, pid, gen, &to);
	if (to.missing)
		fprintf(stderr,
		        "%s: warning: %s: %u code map%s of process %" PRId32
		        " cannot be read (the first: %s): its code is "
		        "missing.\n",
		        tasks->prog, tasks->file, to.missing,
		        to.missing == 1 ? "" : "s", pid, to.first_missing);
	if (tasks->verbose)
		fprintf(stderr,
		        "%s: process %" PRId32 " (exec %" PRIu32
		        "): %d code maps.\n",
		        tasks->prog, pid, gen, added);
	e = &tasks->images[tasks->num_images++];
	e->pid = pid;
	e->gen = gen;
	e->image = image;
	return image;
}

/* The name of thread @tid (or else of process @pid) at perf time @time; a
 * process that a fork made and that has no name of its own has its
 * parent's. */
static const char *ptxed_task_name(const struct ptd_perf *perf, int32_t pid,
                                   int32_t tid, uint64_t time)
{
	for (unsigned depth = 0; depth <= ptxed_fork_depth; ++depth) {
		const char *by_tid = NULL, *by_pid = NULL;
		int32_t parent = -1;

		for (size_t i = 0; i < ptd_perf_num_comms(perf); ++i) {
			struct ptd_perf_comm c;

			if (ptd_perf_get_comm(perf, i, &c) < 0 ||
			    (c.have_time && c.time > time))
				continue;
			if (c.tid == tid)
				by_tid = c.comm;
			if (c.pid == pid)
				by_pid = c.comm;
		}
		if (by_tid || by_pid)
			return by_tid ? by_tid : by_pid;
		for (size_t i = 0; i < ptd_perf_num_tasks(perf); ++i) {
			struct ptd_perf_task t;

			if (ptd_perf_get_task(perf, i, &t) == 0 && !t.exit &&
			    t.pid == pid && t.ppid != pid) {
				parent = t.ppid;
				time = t.time;
				break;
			}
		}
		if (parent < 0)
			break;
		pid = parent;
		tid = -1;
	}
	return "?";
}

/* Give @decoder the image of the task at trace time @tsc.  @in_switch:
 * take the next task inside a context switch too (at an enable or paging
 * event: the task's tracing starts, or its page tables are loaded, in
 * there); else keep the image there. */
static void ptxed_tasks_at(struct ptxed_tasks *tasks,
                           struct ptxed_decoder *decoder,
                           const struct ptxed_options *options, uint64_t tsc,
                           int in_switch)
{
	const int print = options->perf_tasks && !options->quiet;
	struct pt_image *image;
	uint64_t ns = 0;
	int32_t pid = -1, tid = -1;
	uint32_t gen;
	int err, known = 0;

	if (ptd_perf_tsc_to_ns(&ns, &tasks->tc, tsc) == 0)
		known = ptd_perf_task_at(tasks->perf, tasks->cpu, ns, &pid,
		                         &tid);
	/* (Inside a switch the trace is still the task's going out, in the
	 * kernel, until its tracing stops.) */
	if (known == 2 && !in_switch && tasks->have_cur)
		return;
	if (known < 1) {
		/* Nothing known: the traced process, if there is one. */
		if (tasks->have_cur || tasks->fallback_pid < 0)
			return;
		pid = tasks->fallback_pid;
		tid = -1;
	}
	gen = ptxed_tasks_generation(tasks->perf, pid, ns);
	if (tasks->have_cur && tasks->cur_pid == pid && tasks->cur_gen == gen) {
		if (tasks->cur_tid != tid && print)
			printf("[task %" PRId32 "/%" PRId32 ": %s]\n", pid, tid,
			       ptxed_task_name(tasks->perf, pid, tid, ns));
		tasks->cur_tid = tid;
		return;
	}
	image = ptxed_task_image(tasks, pid, gen);
	if (!image)
		return;
	if (decoder->type == ptxed_insn_decoder)
		err = pt_insn_set_image(decoder->variant.insn, image);
	else
		err = pt_blk_set_image(decoder->variant.block, image);
	if (err < 0)
		return;
	tasks->have_cur = 1;
	tasks->cur_pid = pid;
	tasks->cur_tid = tid;
	tasks->cur_gen = gen;
	if (print)
		printf("[task %" PRId32 "/%" PRId32 ": %s]\n", pid, tid,
		       ptxed_task_name(tasks->perf, pid, tid, ns));
}

void ptxed_tasks_sync(struct ptxed_tasks *tasks, struct ptxed_decoder *decoder,
                      const struct ptxed_options *options)
{
	uint64_t tsc = 0;
	uint32_t lost_mtc, lost_cyc;

	/* Once a task runs, only the trace's own task boundaries (enable and
	 * paging events) change it: at a resynchronization the time is near
	 * a switch as often as not, and the sideband's times and the trace's
	 * are a few microseconds apart there (on the corpus recording a
	 * task's trace goes on past the next task's switch in). */
	if (!tasks || tasks->have_cur)
		return;
	if (decoder->type == ptxed_insn_decoder)
		pt_insn_time(decoder->variant.insn, &tsc, &lost_mtc, &lost_cyc);
	else
		pt_blk_time(decoder->variant.block, &tsc, &lost_mtc, &lost_cyc);
	ptxed_tasks_at(tasks, decoder, options, tsc, 0);
}

void ptxed_tasks_event(struct ptxed_tasks *tasks, struct ptxed_decoder *decoder,
                       const struct ptxed_options *options,
                       const struct pt_event *event)
{
	/* (Not the PSB+'s restatements of the state: no boundary there.) */
	if (!tasks || !event->has_tsc || event->status_update)
		return;
	switch (event->type) {
	case ptev_enabled:
	case ptev_paging:
	case ptev_async_paging:
		ptxed_tasks_at(tasks, decoder, options, event->tsc, 1);
		break;
	default:
		break;
	}
}
