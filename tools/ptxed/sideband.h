/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: libipt's perf_event sideband (--pevent:primary, --pevent:secondary
 * and the other --pevent:* and --sb:* options; docs/sideband.md).
 *
 * The sideband files' records (tools/common/sb.h) are printed and applied
 * as the decoder's events reach their times.  Each process has a context:
 * an image that starts as a copy of the kernel image (--pevent:kcore) and
 * gets the files that MMAP records map, a new one at an exec (COMM.EXEC),
 * a copy of its parent's at a fork.  A primary file follows which process
 * runs on its CPU (ITRACE_START, SWITCH, SWITCH_CPU_WIDE) and gives the
 * decoder that process's image, at once at ITRACE_START and otherwise
 * where the trace is in the kernel or likely is (tracing stopped without an
 * IP, a paging event, an address at or above --pevent:kernel-start), as
 * libipt's ptxed does.  The --raw, --elf and --page-dump image serves until
 * the first switch. */
#ifndef PTXED_SIDEBAND_H
#define PTXED_SIDEBAND_H

#include "sb.h"

#include "ptdecode/intel-pt.h"

struct ptxed_decoder;

/* ptxed's sideband state. */
struct ptxed_sb;

/* A sideband state whose mapped files go through @iscache; @prog names
 * ptxed in messages.  Returns NULL when out of memory. */
struct ptxed_sb *ptxed_sb_alloc(struct pt_image_section_cache *iscache,
                                const char *prog);

/* Free @sb (NULL is allowed) and the images of its contexts: free the
 * decoder first, which may be using one. */
void ptxed_sb_free(struct ptxed_sb *sb);

/* Handle argv[*@idx] if it is a sideband option (ptd_sb_option(), and
 * --pevent:kcore <file>[:<base>], which loads the ELF core file into the
 * kernel image now, as --elf would, printing what it adds with @verbose).
 * Returns 1 if it was one (*@idx moved past its argument), 0 if not, -1
 * after a message. */
int ptxed_sb_option(struct ptxed_sb *sb, int argc, char *argv[], int *idx,
                    int verbose);

/* The files and settings of @sb (for the fuzz target, which makes files
 * in memory). */
struct ptd_sb_session *ptxed_sb_session(struct ptxed_sb *sb);

/* Whether sideband files were given. */
int ptxed_sb_any(const struct ptxed_sb *sb);

/* Read the first record of each file (before decoding starts). */
void ptxed_sb_start(struct ptxed_sb *sb);

/* Whether memory ran out for the sideband (said once on standard error, or
 * in a sideband error line for a map or a fork; decoding goes on with what
 * it has, and ptxed's exit status is 1). */
int ptxed_sb_failed(const struct ptxed_sb *sb);

/* After @decoder gave @event (printed or not): print and apply the records
 * due at its time, follow where the trace is, switch contexts, and give
 * the decoder the new image. */
void ptxed_sb_event(struct ptxed_sb *sb, struct ptxed_decoder *decoder,
                    const struct pt_event *event);

#endif /* PTXED_SIDEBAND_H */
