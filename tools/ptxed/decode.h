/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the decode loops.
 *
 * Both loops follow libipt's ptxed: synchronize onto the next PSB, drain
 * pending events (printing all but status updates), decode instructions or
 * blocks until an error, print the error as "[<offset>, <ip>: error:
 * <errstr>]" and synchronize onto the next PSB; stop at the end of the
 * trace, or when a failed synchronization made no progress.  With
 * --resync-on-error, pt_insn_resync()/pt_blk_resync() continue after an
 * error instead. */
#ifndef PTXED_DECODE_H
#define PTXED_DECODE_H

#include "ptxed.h"

struct ptd_ild_ctx;

/* Decode the whole trace with @decoder's decoder.  Returns 0 if it has no
 * PSB (no synchronization succeeded or failed with an error), else 1. */
int ptxed_decode(struct ptxed_decoder *decoder,
                 const struct ptxed_options *options, struct ptxed_stats *stats,
                 struct ptd_ild_ctx *ild);

#endif /* PTXED_DECODE_H */
