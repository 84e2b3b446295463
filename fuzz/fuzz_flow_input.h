/* SPDX-License-Identifier: BSD-3-Clause */
/* The input format of the flow fuzz targets (fuzz_flow, fuzz_flow_batch):
 * byte 0 the configuration, bytes 1-2 the size of the code (bits 12:0,
 * little endian, modulo 4097: at most 4096 bytes, and at most what is there;
 * loaded at FUZZ_CODE_BASE), which follows; the rest is the trace.  Of byte
 * 0, both targets read:
 *   bit 2     tick events
 *   bit 4     errata bdm70, bdm64, skd022, skl014 (with a filter range
 *             around the code), skd010, apl11, apl12
 *   bit 5     keep_tcal_on_ovf
 *   bits 7:6  timing: none; mtc_freq 3 + CPUID 0x15 2/100 + nom_freq 12;
 *             mtc_freq 0 + 3/7; mtc_freq 9 + 1/1
 * and each target gives bits 1:0 and 3 a meaning of its own. */
#ifndef PTD_FUZZ_FLOW_INPUT_H
#define PTD_FUZZ_FLOW_INPUT_H

#include "fuzz_common.h"

enum { FUZZ_CODE_BASE = 0x400000, FUZZ_MAX_CODE = 4096 };

struct fuzz_flow_input {
	uint8_t cfg;
	/* Exact-size copies, so that ASan sees reads past either. */
	uint8_t *code;
	size_t code_size;
	uint8_t *trace;
	size_t trace_size;
};

/* Split @data into @in (free with fuzz_flow_input_free()).  Returns 0 if the
 * input is too short to have a configuration and a code size. */
static inline int fuzz_flow_input_split(struct fuzz_flow_input *in,
                                        const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	in->cfg = data[0];
	in->code_size = (size_t)data[1] | ((size_t)(data[2] & 0x1f) << 8);
	if (in->code_size > FUZZ_MAX_CODE)
		in->code_size %= FUZZ_MAX_CODE + 1;
	if (in->code_size > size - 3)
		in->code_size = size - 3;
	in->trace_size = size - 3 - in->code_size;
	in->code = fuzz_alloc(in->code_size);
	in->trace = fuzz_alloc(in->trace_size);
	memcpy(in->code, data + 3, in->code_size);
	memcpy(in->trace, data + 3 + in->code_size, in->trace_size);
	return 1;
}

static inline void fuzz_flow_input_free(struct fuzz_flow_input *in)
{
	free(in->code);
	free(in->trace);
}

/* The configuration of @in's trace, with the bits of byte 0 above (the tick
 * and keep_tcal_on_ovf flags in the instruction flow's variant). */
static inline void fuzz_flow_input_config(const struct fuzz_flow_input *in,
                                          struct pt_config *config)
{
	pt_config_init(config);
	config->begin = in->trace;
	config->end = in->trace + in->trace_size;
	if (in->cfg & 0x10) {
		config->errata.bdm70 = 1;
		config->errata.bdm64 = 1;
		config->errata.skd022 = 1;
		config->errata.skl014 = 1;
		config->errata.skd010 = 1;
		config->errata.apl11 = 1;
		config->errata.apl12 = 1;
		config->addr_filter.config.addr_cfg = 1;
		config->addr_filter.addr0_a = FUZZ_CODE_BASE;
		config->addr_filter.addr0_b =
		        FUZZ_CODE_BASE + FUZZ_MAX_CODE - 1;
	}
	switch (in->cfg >> 6) {
	case 1:
		config->mtc_freq = 3;
		config->cpuid_0x15_eax = 2;
		config->cpuid_0x15_ebx = 100;
		config->nom_freq = 12;
		break;
	case 2:
		config->cpuid_0x15_eax = 3;
		config->cpuid_0x15_ebx = 7;
		break;
	case 3:
		config->mtc_freq = 9;
		config->cpuid_0x15_eax = 1;
		config->cpuid_0x15_ebx = 1;
		break;
	default:
		break;
	}
	config->flags.variant.insn.enable_tick_events = (in->cfg >> 2) & 1;
	config->flags.variant.insn.keep_tcal_on_ovf = (in->cfg >> 5) & 1;
}

#endif /* PTD_FUZZ_FLOW_INPUT_H */
