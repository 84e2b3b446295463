/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the code of the task that runs, for the trace of one CPU of a
 * perf.data file (--perf:images; a ptdecode extension, docs/ptxed.md).
 *
 * A CPU's trace holds the turns of several tasks.  For each turn, the
 * decoder needs the code of the process whose turn it is: an image of the
 * ptxed image (--raw, --elf, ...) plus that process's memory maps from the
 * file's sideband, as they are in the generation (the stretch between two
 * execs) the process is in at that time.  At the first synchronization, and
 * at every enable event and paging event (a CR3 change: kernel tracing),
 * ptxed asks the context switches which task runs at that time and, if it
 * is another process or generation, gives the decoder that process's
 * image; the images are made when first needed and kept. */
#ifndef PTXED_TASKS_H
#define PTXED_TASKS_H

#include "ptdecode/ptdecode.h"

#include <stdint.h>

struct ptxed_decoder;
struct ptxed_options;

/* The task images of one CPU's trace. */
struct ptxed_tasks;

/* How a task's memory maps go into an image. */
struct ptxed_maps_to {
	struct pt_image_section_cache *iscache;
	struct pt_image *image;
	/* --verbose; name the file in warnings, and the program. */
	int verbose;
	const char *file, *prog;
	/* Warn about each map whose file cannot be read (else count them in
	 * @missing and keep the first one's name in @first_missing). */
	int warn_each;
	unsigned missing;
	const char *first_missing;
};

/* Add the user-mode code maps of process @pid in its generation @gen (the
 * maps after its @gen-th exec and before the next one; for a process that
 * a fork made and that has not exec'd, first those of its parent at the
 * time of the fork) to @to->image.  Returns the number of maps added. */
int ptxed_tasks_add_maps(const struct ptd_perf *perf, int32_t pid, uint32_t gen,
                         struct ptxed_maps_to *to);

/* The generation of process @pid at perf time @time: the number of its
 * execs up to then (execs without a time count as earlier). */
uint32_t ptxed_tasks_generation(const struct ptd_perf *perf, int32_t pid,
                                uint64_t time);

/* Switch images for the trace of @cpu in @perf, whose time conversion is
 * @tc: images are copies of @base (as it is when first needed) with a
 * process's maps.  Before the context switches say who runs, the process
 * @fallback_pid (-1: none) runs.  On success takes @perf (freed by
 * ptxed_tasks_free()); returns NULL when out of memory. */
struct ptxed_tasks *ptxed_tasks_alloc(struct ptd_perf *perf,
                                      const struct ptd_perf_tc *tc, int32_t cpu,
                                      int32_t fallback_pid,
                                      struct pt_image_section_cache *iscache,
                                      struct pt_image *base, int verbose,
                                      const char *file, const char *prog);

/* Free @tasks (NULL is allowed), its images and its perf.data file.  Free
 * the decoder first: it may be using one of the images. */
void ptxed_tasks_free(struct ptxed_tasks *tasks);

/* After the first synchronization of @decoder: the task at the decoder's
 * time (later ones keep the task: see tasks.c).
 * With --perf:tasks (and not --quiet) in @options, a line "[task
 * <pid>/<tid>: <name>]" when the task changes. */
void ptxed_tasks_sync(struct ptxed_tasks *tasks, struct ptxed_decoder *decoder,
                      const struct ptxed_options *options);

/* After @decoder gave @event: the task at an enable or paging event's
 * time, as ptxed_tasks_sync(). */
void ptxed_tasks_event(struct ptxed_tasks *tasks, struct ptxed_decoder *decoder,
                       const struct ptxed_options *options,
                       const struct pt_event *event);

#endif /* PTXED_TASKS_H */
