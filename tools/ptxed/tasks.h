/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the code of the task that runs, for the trace of one CPU of a
 * perf.data file (--perf:images; a ptdecode extension, docs/ptxed.md).
 *
 * A CPU's trace holds the turns of several tasks.  For each turn, the
 * decoder needs the code of the process whose turn it is: a copy of the
 * ptxed image (--raw, --elf, ...) plus that process's memory maps from the
 * file's sideband, as they are in the era of the process at that time
 * (eras.h: execs and pids used again change the code).  ptxed asks the
 * context switches which task runs (ptd_perf_task_at()) and gives the
 * decoder that task's image:
 *
 *  - at the first synchronization, and at every enable event (tracing
 *    starts or comes back) and paging event (a CR3 change, with kernel
 *    tracing), by the time of the event, inside a context switch too (the
 *    next task's tracing starts, and its page tables are loaded, in
 *    there), and after a switch out that names no task, the next record's
 *    task if it comes within ptxed_tasks_margin;
 *  - at a later synchronization and after an overflow, where a turn may
 *    have been missed, only if no switch lies within ptxed_tasks_margin
 *    either side: near a switch the trace can be either task's (on the
 *    corpus recording a task's tracing starts before its switch in is
 *    recorded and stops after its switch out is).
 *
 * Without a time (a trace without TSC, or before its first) the task is not
 * known: ptxed then keeps the image it has, or at first takes the process
 * whose thread the AUX area traced (its last era), and says so once.  The
 * images are made when first needed and kept. */
#ifndef PTXED_TASKS_H
#define PTXED_TASKS_H

#include "eras.h"

#include <stdint.h>

struct ptxed_decoder;
struct ptxed_options;

/* The task images of one CPU's trace. */
struct ptxed_tasks;

/* Switch images for the trace of @cpu in @perf, whose time conversion is
 * @tc: images are copies of @base (as it is when first needed) with a
 * process's maps.  Without a time, the process @fallback_pid (-1: none)
 * runs.  On success takes @perf if @owns (freed by ptxed_tasks_free(); else
 * the caller keeps it alive and frees it after the tasks); returns NULL
 * when out of memory. */
struct ptxed_tasks *ptxed_tasks_alloc(struct ptd_perf *perf, int owns,
                                      const struct ptd_perf_tc *tc, int32_t cpu,
                                      int32_t fallback_pid,
                                      struct pt_image_section_cache *iscache,
                                      struct pt_image *base, int verbose,
                                      const char *file, const char *prog);

/* Free @tasks (NULL is allowed), its images and the perf.data file it
 * owns.  Free the decoder first: it may be using one of the images. */
void ptxed_tasks_free(struct ptxed_tasks *tasks);

/* After a synchronization of @decoder: the task at the decoder's time (see
 * above).  With --perf:tasks (and not --quiet) in @options, a line "[task
 * <pid>/<tid>: <name>]" when the task changes. */
void ptxed_tasks_sync(struct ptxed_tasks *tasks, struct ptxed_decoder *decoder,
                      const struct ptxed_options *options);

/* After @decoder gave @event: the task at an enable, paging or overflow
 * event's time, as ptxed_tasks_sync(). */
void ptxed_tasks_event(struct ptxed_tasks *tasks, struct ptxed_decoder *decoder,
                       const struct ptxed_options *options,
                       const struct pt_event *event);

#endif /* PTXED_TASKS_H */
