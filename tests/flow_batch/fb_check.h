/* SPDX-License-Identifier: BSD-3-Clause */
/* Checking the batch flow decoder (ptd_flow_next_insns(),
 * ptd_flow_next_blocks(), ptd_flow_decode_*()) against ptdecode's
 * pt_insn_next() on one trace: the same instructions with the same times,
 * the same events, the same errors with their offsets and IPs, the same
 * synchronization points; and blocks that are the same instructions.  Used
 * by the test (test_flow_batch.c), the fuzzer, the trace tests (ptxed_ref
 * --batch) and, untimed, by bench/flow_batch_bench.c. */
#ifndef PTD_FB_CHECK_H
#define PTD_FB_CHECK_H

#include "ptdecode/ptdecode.h"

#include <stddef.h>
#include <stdint.h>

/* What a comparison found. */
struct fb_check_result {
	uint64_t insns, events, errors, blocks;
};

/* Decode @config's trace with @image in six ways (pt_insn_next(),
 * ptd_flow_next_insns() with arrays of @cap entries, with and without
 * times, ptd_flow_decode_insns() with the events in the same call,
 * ptd_flow_next_blocks() and ptd_flow_decode_blocks() with @cap blocks; the
 * decode calls with room for 1 to 64 events by @cap, and with @cap 1 the
 * events they leave pending drained by hand) and compare.  With @limit (0:
 * none), the instruction loops stop after about @limit instructions (a
 * corrupted trace can loop forever over direct branches) and the blocks are
 * not checked then.
 * Returns 0 if they agree, 1 with a message on stderr (prefixed by @name) if
 * not, -1 if a decoder cannot be set up or memory runs out. */
int fb_check(const char *name, const struct pt_config *config,
             struct pt_image *image, size_t cap, uint64_t limit,
             struct fb_check_result *result);

#endif /* PTD_FB_CHECK_H */
