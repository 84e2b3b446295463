/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the lives of the processes in a perf.data file's sideband, and
 * which memory maps each has when (--perf:images; a ptdecode extension).
 *
 * A process's code changes at an exec, and a pid can be used again by a new
 * process after an exit: a process's life splits into eras, each begun by a
 * fork that made a process with that pid or by an exec.  Era 0 is the time
 * before the first of them (the process existed when perf started).  A
 * memory map belongs to the era its record falls into; a process that a
 * fork made starts with the maps its parent had at the fork.
 *
 * Records are placed by their perf time where the sideband has times (perf
 * writes the records of different CPUs out of time order), and records
 * without one (those perf synthesizes at the start) count as earliest;
 * without times anywhere, by their place in the file. */
#ifndef PTXED_ERAS_H
#define PTXED_ERAS_H

#include "ptdecode/ptdecode.h"

#include <stddef.h>
#include <stdint.h>

/* The eras of the processes of one file. */
struct ptxed_eras;

/* Make the eras of @perf's processes.  Returns NULL when out of memory. */
struct ptxed_eras *ptxed_eras_alloc(const struct ptd_perf *perf);

/* Free @eras (NULL is allowed). */
void ptxed_eras_free(struct ptxed_eras *eras);

/* The era of process @pid at perf time @time (UINT64_MAX: its last). */
uint32_t ptxed_eras_at(const struct ptxed_eras *eras, int32_t pid,
                       uint64_t time);

/* The parent whose fork made process @pid, if a fork began the era @pid is
 * in at perf time @time (-1 otherwise: an exec began it, or it is era 0);
 * *@fork_time: the time of that fork. */
int32_t ptxed_eras_forked_from(const struct ptxed_eras *eras, int32_t pid,
                               uint64_t time, uint64_t *fork_time);

/* How an era's memory maps go into an image. */
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

/* Add the user-mode code maps of process @pid in era @era (for an era a
 * fork began, first its parent's at the fork) to @to->image.  Returns the
 * number of maps added; *@known (may be NULL): how many such maps the file
 * has for @pid in any era. */
int ptxed_eras_add_maps(const struct ptxed_eras *eras, int32_t pid,
                        uint32_t era, struct ptxed_maps_to *to, size_t *known);

#endif /* PTXED_ERAS_H */
