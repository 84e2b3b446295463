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

#endif /* PTD_FLOW_BATCH_INT_H */
