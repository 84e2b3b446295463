/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the batch flow decoder (ptd_flow_next_insns(),
 * ptd_flow_next_blocks(), and ptd_flow_decode_*() with the events in the
 * same call) against ptdecode's pt_insn_next() on arbitrary code
 * and trace.
 *
 * Input: as fuzz_flow's (fuzz_flow_input.h), so that the two share a corpus;
 * bits 1:0 of byte 0 choose the size of the caller's arrays: 4096, 1, 7 or
 * 1025 (bit 3 is not used).
 *
 * Check (tests/flow_batch/fb_check.h): the same instructions with the same
 * times, events, errors with their offsets and IPs, and synchronization
 * points as pt_insn_next(), and blocks that are the same instructions; at
 * most about 20,000 instructions per input (a loop of direct branches needs
 * no trace).  Any difference aborts with the first one on stderr. */
#define _POSIX_C_SOURCE 200809L

#include "fb_check.h"
#include "fuzz_flow_input.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_MAX_INSNS = 20000 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t caps[4] = {4096, 1, 7, 1025};
	struct fuzz_flow_input in;
	struct fb_check_result res;
	struct pt_config config;
	struct pt_image *image;
	int err;

	if (!fuzz_flow_input_split(&in, data, size))
		return 0;
	image = pt_image_alloc("fuzz");
	FUZZ_CHECK(image != NULL, "pt_image_alloc");
	if (in.code_size)
		FUZZ_CHECK(ptd_image_add_buffer(image, in.code, in.code_size,
		                                NULL, FUZZ_CODE_BASE, 0) >= 0,
		           "add buffer");
	fuzz_flow_input_config(&in, &config);

	err = fb_check("fuzz", &config, image, caps[in.cfg & 3], FUZZ_MAX_INSNS,
	               &res);
	FUZZ_CHECK(err >= 0, "fb_check could not set up (out of memory?)");
	FUZZ_CHECK(err == 0, "the batch flow decoder differs from "
	                     "pt_insn_next() (see above)");

	pt_image_free(image);
	fuzz_flow_input_free(&in);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
