/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the code of the task that runs; see tasks.h. */
#include "tasks.h"

#include "ptxed.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

enum {
	/* How far (ns) from a switch a resynchronization's task must be. */
	ptxed_tasks_margin = 20000,
	/* How far back a chain of forks is followed for a task's name. */
	ptxed_name_depth = 8
};

/* One process era's image. */
struct ptxed_task_image {
	int32_t pid;
	uint32_t era;
	struct pt_image *image;
};

struct ptxed_tasks {
	/* The recording (freed with the tasks if @owns_perf). */
	struct ptd_perf *perf;
	int owns_perf;
	struct ptxed_eras *eras;
	struct ptd_perf_tc tc;
	int32_t cpu, fallback_pid;
	struct pt_image_section_cache *iscache;
	struct pt_image *base;
	struct ptxed_task_image *images;
	size_t num_images, cap_images;
	/* The task whose image the decoder has (@have_cur). */
	int have_cur;
	int32_t cur_pid, cur_tid;
	uint32_t cur_era;
	/* Said that the task is not known. */
	int warned_unknown;
	int verbose;
	const char *file, *prog;
};

/* How sure a time must be of its task. */
enum ptxed_tasks_how {
	/* A task boundary of the trace: inside a switch too. */
	ptxed_at_boundary,
	/* A resynchronization or overflow: away from switches only. */
	ptxed_at_resync
};

struct ptxed_tasks *ptxed_tasks_alloc(struct ptd_perf *perf, int owns,
                                      const struct ptd_perf_tc *tc, int32_t cpu,
                                      int32_t fallback_pid,
                                      struct pt_image_section_cache *iscache,
                                      struct pt_image *base, int verbose,
                                      const char *file, const char *prog)
{
	struct ptxed_tasks *tasks = calloc(1, sizeof(*tasks));

	if (!tasks)
		return NULL;
	tasks->eras = ptxed_eras_alloc(perf);
	if (!tasks->eras) {
		free(tasks);
		return NULL;
	}
	tasks->perf = perf;
	tasks->owns_perf = owns;
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
	ptxed_eras_free(tasks->eras);
	if (tasks->owns_perf)
		ptd_perf_free(tasks->perf);
	free(tasks);
}

/* The image of @pid in era @era, made if needed; NULL if it cannot be made
 * (reported). */
static struct pt_image *ptxed_task_image(struct ptxed_tasks *tasks, int32_t pid,
                                         uint32_t era)
{
	struct ptxed_task_image *e;
	struct ptxed_maps_to to;
	struct pt_image *image;
	size_t known = 0;
	int added;

	for (size_t i = 0; i < tasks->num_images; ++i)
		if (tasks->images[i].pid == pid && tasks->images[i].era == era)
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
	added = ptxed_eras_add_maps(tasks->eras, pid, era, &to, &known);
	if (to.missing)
		fprintf(stderr,
		        "%s: warning: %s: %u code map%s of process %" PRId32
		        " cannot be read (the first: %s): its code is "
		        "missing.\n",
		        tasks->prog, tasks->file, to.missing,
		        to.missing == 1 ? "" : "s", pid, to.first_missing);
	else if (!added && known && !era)
		fprintf(stderr,
		        "%s: warning: %s: process %" PRId32
		        " has code maps, but none from before its first fork "
		        "or exec in the recording, when it runs here.\n",
		        tasks->prog, tasks->file, pid);
	else if (!added && known)
		fprintf(stderr,
		        "%s: warning: %s: process %" PRId32
		        " has code maps, but none after its fork or exec "
		        "number %" PRIu32 " in the recording, when it runs "
		        "here.\n",
		        tasks->prog, tasks->file, pid, era);
	if (tasks->verbose)
		fprintf(stderr,
		        "%s: process %" PRId32 ", era %" PRIu32
		        ": %d code maps.\n",
		        tasks->prog, pid, era, added);
	e = &tasks->images[tasks->num_images++];
	e->pid = pid;
	e->era = era;
	e->image = image;
	return image;
}

/* The name of thread @tid (or else of process @pid) at perf time @time; a
 * process that a fork made and that has no name of its own has its
 * parent's. */
static const char *ptxed_task_name(const struct ptxed_tasks *tasks, int32_t pid,
                                   int32_t tid, uint64_t time)
{
	const struct ptd_perf *perf = tasks->perf;

	for (unsigned depth = 0; depth <= ptxed_name_depth; ++depth) {
		const char *by_tid = NULL, *by_pid = NULL;
		int32_t parent;

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
		/* (The fork that began its era then: pids are used
		 * again.) */
		parent = ptxed_eras_forked_from(tasks->eras, pid, time, &time);
		if (parent < 0)
			break;
		pid = parent;
		tid = -1;
	}
	return "?";
}

/* "[task <pid>/<tid>: <name>]", or without a thread "[task <pid>: <name>]". */
static void ptxed_print_task(const struct ptxed_tasks *tasks, int32_t pid,
                             int32_t tid, uint64_t ns)
{
	if (tid < 0)
		printf("[task %" PRId32 ": %s]\n", pid,
		       ptxed_task_name(tasks, pid, tid, ns));
	else
		printf("[task %" PRId32 "/%" PRId32 ": %s]\n", pid, tid,
		       ptxed_task_name(tasks, pid, tid, ns));
}

/* Give @decoder the image of era @era of @pid (thread @tid) at perf time
 * @ns. */
static void ptxed_tasks_take(struct ptxed_tasks *tasks,
                             struct ptxed_decoder *decoder,
                             const struct ptxed_options *options, int32_t pid,
                             int32_t tid, uint32_t era, uint64_t ns)
{
	const int print = options->perf_tasks && !options->quiet;
	struct pt_image *image;

	if (tasks->have_cur && tasks->cur_pid == pid && tasks->cur_era == era) {
		if (tasks->cur_tid != tid && print)
			ptxed_print_task(tasks, pid, tid, ns);
		tasks->cur_tid = tid;
		return;
	}
	image = ptxed_task_image(tasks, pid, era);
	if (!image)
		return;
	if (ptxed_set_image(decoder, image) < 0)
		return;
	tasks->have_cur = 1;
	tasks->cur_pid = pid;
	tasks->cur_tid = tid;
	tasks->cur_era = era;
	if (print)
		ptxed_print_task(tasks, pid, tid, ns);
}

/* No task known (@timed: the trace has a time there, but no switch says;
 * else it has none): keep the task, or at first take the traced process,
 * and say so once. */
static void ptxed_tasks_unknown(struct ptxed_tasks *tasks,
                                struct ptxed_decoder *decoder,
                                const struct ptxed_options *options, int timed)
{
	if (tasks->have_cur)
		return;
	if (!tasks->warned_unknown) {
		tasks->warned_unknown = 1;
		fprintf(stderr,
		        "%s: warning: %s: %s where decoding starts: the "
		        "context switches cannot tell which task runs; ",
		        tasks->prog, tasks->file,
		        timed ? "no switch of the CPU comes before the trace's "
		                "time"
		              : "the trace has no time");
		if (tasks->fallback_pid >= 0)
			fprintf(stderr,
			        "the code of process %" PRId32 ", which the "
			        "AUX area traced, is used.\n",
			        tasks->fallback_pid);
		else
			fprintf(stderr, "no process's code is loaded.\n");
	}
	if (tasks->fallback_pid >= 0)
		ptxed_tasks_take(tasks, decoder, options, tasks->fallback_pid,
		                 -1,
		                 ptxed_eras_at(tasks->eras, tasks->fallback_pid,
		                               UINT64_MAX),
		                 UINT64_MAX);
}

/* Give @decoder the image of the task at trace time @tsc (@how sure). */
static void ptxed_tasks_at(struct ptxed_tasks *tasks,
                           struct ptxed_decoder *decoder,
                           const struct ptxed_options *options, uint64_t tsc,
                           enum ptxed_tasks_how how)
{
	uint64_t ns = 0, from = 0, to = UINT64_MAX;
	int32_t pid = -1, tid = -1;
	int known;

	if (ptd_perf_tsc_to_ns(&ns, &tasks->tc, tsc) < 0) {
		ptxed_tasks_unknown(tasks, decoder, options, 0);
		return;
	}
	known = ptd_perf_task_span(tasks->perf, tasks->cpu, ns, &pid, &tid,
	                           &from, &to);
	if (how == ptxed_at_resync && tasks->have_cur &&
	    (known != 1 || ns - from < ptxed_tasks_margin ||
	     to - ns <= ptxed_tasks_margin))
		/* Near a switch (no record within the margin either side),
		 * or not known: keep the task. */
		return;
	if (!known && how == ptxed_at_boundary && to != UINT64_MAX &&
	    to - ns <= ptxed_tasks_margin) {
		/* After a switch out that names no task (PERF_RECORD_SWITCH
		 * of a traced thread): a task's tracing starts before its
		 * switch in is recorded, so the next record, if it is near,
		 * names the task. */
		int32_t npid = -1, ntid = -1;
		uint64_t nfrom, nto;

		if (ptd_perf_task_span(tasks->perf, tasks->cpu, to, &npid,
		                       &ntid, &nfrom, &nto) > 0) {
			pid = npid;
			tid = ntid;
			known = 1;
		}
	}
	if (known < 1) {
		/* The switches do not say: keep the task. */
		ptxed_tasks_unknown(tasks, decoder, options, 1);
		return;
	}
	ptxed_tasks_take(tasks, decoder, options, pid, tid,
	                 ptxed_eras_at(tasks->eras, pid, ns), ns);
}

void ptxed_tasks_sync(struct ptxed_tasks *tasks, struct ptxed_decoder *decoder,
                      const struct ptxed_options *options)
{
	uint64_t tsc = 0;
	uint32_t lost_mtc, lost_cyc;
	int err;

	if (!tasks)
		return;
	if (decoder->type == ptxed_insn_decoder)
		err = pt_insn_time(decoder->variant.insn, &tsc, &lost_mtc,
		                   &lost_cyc);
	else
		err = pt_blk_time(decoder->variant.block, &tsc, &lost_mtc,
		                  &lost_cyc);
	if (err < 0) {
		ptxed_tasks_unknown(tasks, decoder, options, 0);
		return;
	}
	ptxed_tasks_at(tasks, decoder, options, tsc,
	               tasks->have_cur ? ptxed_at_resync : ptxed_at_boundary);
}

void ptxed_tasks_event(struct ptxed_tasks *tasks, struct ptxed_decoder *decoder,
                       const struct ptxed_options *options,
                       const struct pt_event *event)
{
	/* (Not the PSB+'s restatements of the state: no boundary there.) */
	if (!tasks || event->status_update)
		return;
	switch (event->type) {
	case ptev_enabled:
	case ptev_paging:
	case ptev_async_paging:
		if (event->has_tsc)
			ptxed_tasks_at(tasks, decoder, options, event->tsc,
			               ptxed_at_boundary);
		else
			ptxed_tasks_unknown(tasks, decoder, options, 0);
		break;
	case ptev_overflow:
		if (event->has_tsc)
			ptxed_tasks_at(tasks, decoder, options, event->tsc,
			               ptxed_at_resync);
		break;
	default:
		break;
	}
}
