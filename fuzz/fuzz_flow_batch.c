/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the batch flow decoder (ptd_flow_next_insns(),
 * ptd_flow_next_blocks()) against ptdecode's pt_insn_next() on arbitrary code
 * and trace.
 *
 * Input: as fuzz_flow's (byte 0 the configuration, bytes 1-2 the size of the
 * code, at most 4096 bytes, loaded at 0x400000 and followed by the trace), so
 * that the two share a corpus.  Of byte 0:
 *   bit 2     tick events
 *   bit 4     errata bdm70, bdm64, skd022, skl014 (with a filter range
 *             around the code), skd010, apl11, apl12
 *   bit 5     keep_tcal_on_ovf
 *   bits 7:6  timing: none; mtc_freq 3 + CPUID 0x15 2/100 + nom_freq 12;
 *             mtc_freq 0 + 3/7; mtc_freq 9 + 1/1
 *   bits 1:0  the size of the caller's arrays: 4096, 1, 7 or 1025
 *   (bit 3 is not used.)
 *
 * Check (tests/flow_batch/fb_check.h): the same instructions with the same
 * times, events, errors with their offsets and IPs, and synchronization
 * points as pt_insn_next(), and blocks that are the same instructions; at
 * most about 20,000 instructions per input (a loop of direct branches needs
 * no trace).  Any difference aborts with the first one on stderr. */
#define _POSIX_C_SOURCE 200809L

#include "fb_check.h"
#include "fuzz_common.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	FUZZ_CODE_BASE = 0x400000,
	FUZZ_MAX_CODE = 4096,
	FUZZ_MAX_INSNS = 20000
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t caps[4] = {4096, 1, 7, 1025};
	struct fb_check_result res;
	struct pt_config config;
	struct pt_image *image;
	uint8_t *code, *trace, cfg;
	size_t code_size, trace_size;
	int err;

	if (size < 3)
		return 0;
	cfg = data[0];
	code_size = (size_t)data[1] | ((size_t)(data[2] & 0x1f) << 8);
	if (code_size > FUZZ_MAX_CODE)
		code_size %= FUZZ_MAX_CODE + 1;
	if (code_size > size - 3)
		code_size = size - 3;
	trace_size = size - 3 - code_size;
	/* Exact-size copies, so that ASan sees reads past either. */
	code = fuzz_alloc(code_size);
	trace = fuzz_alloc(trace_size);
	memcpy(code, data + 3, code_size);
	memcpy(trace, data + 3 + code_size, trace_size);

	image = pt_image_alloc("fuzz");
	FUZZ_CHECK(image != NULL, "pt_image_alloc");
	if (code_size)
		FUZZ_CHECK(ptd_image_add_buffer(image, code, code_size, NULL,
		                                FUZZ_CODE_BASE, 0) >= 0,
		           "add buffer");

	pt_config_init(&config);
	config.begin = trace;
	config.end = trace + trace_size;
	if (cfg & 0x10) {
		config.errata.bdm70 = 1;
		config.errata.bdm64 = 1;
		config.errata.skd022 = 1;
		config.errata.skl014 = 1;
		config.errata.skd010 = 1;
		config.errata.apl11 = 1;
		config.errata.apl12 = 1;
		config.addr_filter.config.addr_cfg = 1;
		config.addr_filter.addr0_a = FUZZ_CODE_BASE;
		config.addr_filter.addr0_b = FUZZ_CODE_BASE + FUZZ_MAX_CODE - 1;
	}
	switch (cfg >> 6) {
	case 1:
		config.mtc_freq = 3;
		config.cpuid_0x15_eax = 2;
		config.cpuid_0x15_ebx = 100;
		config.nom_freq = 12;
		break;
	case 2:
		config.cpuid_0x15_eax = 3;
		config.cpuid_0x15_ebx = 7;
		break;
	case 3:
		config.mtc_freq = 9;
		config.cpuid_0x15_eax = 1;
		config.cpuid_0x15_ebx = 1;
		break;
	default:
		break;
	}
	config.flags.variant.insn.enable_tick_events = (cfg >> 2) & 1;
	config.flags.variant.insn.keep_tcal_on_ovf = (cfg >> 5) & 1;

	err = fb_check("fuzz", &config, image, caps[cfg & 3], FUZZ_MAX_INSNS,
	               &res);
	FUZZ_CHECK(err >= 0, "fb_check could not set up (out of memory?)");
	FUZZ_CHECK(err == 0, "the batch flow decoder differs from "
	                     "pt_insn_next() (see above)");

	pt_image_free(image);
	free(code);
	free(trace);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
