/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal settings of the batch flow decoder, for tests. */
#ifndef PTD_FLOW_BATCH_INT_H
#define PTD_FLOW_BATCH_INT_H

#include "ptdecode/ptd_flow_batch.h"

#include <stdint.h>

/* Start the replay log of @dec's query source again from a copy of the query
 * decoder whenever a batch is fetched with @calls calls or more in the log
 * (struct ptd_qsrc, ckpt_calls; 1: at every batch fetch).  Tests make the
 * copies frequent so that replays start from them. */
void ptd_flow_batch_set_ckpt_calls(struct ptd_flow_batch *dec, uint32_t calls);

/* Let each batch of @dec's query source hold at most @nitems items (2 or
 * more) and @nevents events (1 or more), fewer than the default; other
 * values are raised or lowered to the nearest allowed.  Tests make batches
 * small so that batch boundaries, and the copies above, fall everywhere. */
void ptd_flow_batch_set_batch_size(struct ptd_flow_batch *dec, uint32_t nitems,
                                   uint32_t nevents);

/* Write instruction IPs and times with the plain loop (@level 0), the AVX2
 * one (1) or the AVX-512 one (2), at most what the CPU has (the default).
 * Tests choose each, so that every copy of the instruction loop runs. */
void ptd_flow_batch_set_simd(struct ptd_flow_batch *dec, int level);

/* Flush @dec's run cache whenever it holds @runs runs (1 up to the default
 * of 2^20).  Tests flush it often, so that a run's links, successors and
 * return-shadow entries are often left over from a flushed cache and must
 * be seen to be stale. */
void ptd_flow_batch_set_max_runs(struct ptd_flow_batch *dec, uint32_t runs);

#endif /* PTD_FLOW_BATCH_INT_H */
