/* SPDX-License-Identifier: BSD-3-Clause */
/* Offsets at which the differential tests synchronize with pt_*_sync_set()
 * (tests/diff's diff_qry --sync set, tests/flow's flow_diff --sync-set). */
#ifndef PTD_SYNC_PLAN_H
#define PTD_SYNC_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* Whether a whole PSB (the 16 bytes 02 82 ... 02 82) starts at @offset of
 * [@begin, @end). */
int ptd_psb_at(const uint8_t *begin, const uint8_t *end, uint64_t offset);

/* Fill @offsets (room for @max, at least 3) with offsets into the trace
 * [@begin, @end): every PSB from the last to the first (as many as fit),
 * each followed by an offset where no PSB starts (a few bytes after it, or
 * anywhere, chosen by the trace's size), and last the end of the buffer.
 * Returns the number of offsets. */
size_t ptd_sync_plan(const uint8_t *begin, const uint8_t *end,
                     uint64_t *offsets, size_t max);

#endif /* PTD_SYNC_PLAN_H */
