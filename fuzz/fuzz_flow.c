/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the instruction-flow and block decoders on arbitrary
 * code and trace.
 *
 * Input: byte 0 selects the configuration, bytes 1-2 the size of the code
 * (bits 12:0, little endian, modulo 4097: at most 4096 bytes, and at most
 * what is there; loaded at 0x400000), which follows; the rest is the trace.
 * Bit 15 of bytes 1-2 asks for the offset before every instruction, block
 * and event, as ptxed --offset does; the decoders then take the query
 * results from the pull API instead of batches (docs/flow.md), so both ways
 * are fuzzed.
 *   bit 0     block decoder flag end_on_call
 *   bit 1     block decoder flag end_on_jump
 *   bit 2     tick events (both decoders)
 *   bit 3     the code through a read-memory callback instead of
 *             ptd_image_add_buffer()
 *   bit 4     errata bdm70, bdm64, skd022, skl014 (with a filter range
 *             around the code)
 *   bit 5     keep_tcal_on_ovf
 *   bits 7:6  timing: none; mtc_freq 3 + CPUID 0x15 2/100 + nom_freq 12;
 *             mtc_freq 0 + 3/7; mtc_freq 9 + 1/1
 *
 * Both decoders are run as ptxed runs them: sync forward, drain events,
 * next instruction or block, after an error sync forward at the next PSB,
 * until the end of the trace.  A loop of direct branches needs no trace, so
 * the instructions and blocks decoded per input are capped.
 *
 * Checks: no crash or sanitizer report; every offset and sync offset within
 * the trace, sync offsets on a PSB and (on the pull path, see
 * fuzz_check_sync()) strictly increasing; every
 * instruction inside the code with its raw bytes equal to the code's, a
 * size of 1 to 15, a known class and a known mode; every block inside the
 * code, its last instruction inside it too, and a known class and mode;
 * known event types; pt_insn_time/pt_blk_time and the get_offset functions
 * succeed after synchronization; without errors and caps, both decoders
 * report the same number of instructions. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_common.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	FUZZ_CODE_BASE = 0x400000,
	FUZZ_MAX_CODE = 4096,
	FUZZ_MAX_INSNS = 1 << 15,
	FUZZ_MAX_BLOCKS = 1 << 12
};

struct fuzz_flow {
	const uint8_t *code;
	size_t code_size;
	const uint8_t *trace;
	size_t trace_size;
	/* Ask for the offset before every result. */
	int offsets;
};

static int fuzz_read_code(uint8_t *buffer, size_t size,
                          const struct pt_asid *asid, uint64_t ip,
                          void *context)
{
	const struct fuzz_flow *f = context;
	uint64_t off;

	(void)asid;
	if (ip < FUZZ_CODE_BASE || ip - FUZZ_CODE_BASE >= f->code_size)
		return -pte_nomap;
	off = ip - FUZZ_CODE_BASE;
	if (size > f->code_size - off)
		size = (size_t)(f->code_size - off);
	memcpy(buffer, f->code + off, size);
	return (int)size;
}

static void fuzz_check_offset(const struct fuzz_flow *f, uint64_t offset,
                              const char *what)
{
	FUZZ_CHECK(offset <= f->trace_size, "%s offset %llu beyond %zu", what,
	           (unsigned long long)offset, f->trace_size);
}

static void fuzz_check_sync(const struct fuzz_flow *f, uint64_t offset,
                            uint64_t *last, int first)
{
	static const uint8_t psb[2] = {0x02, 0x82};
	unsigned i;

	FUZZ_CHECK(offset + FUZZ_PSB_SIZE <= f->trace_size, "sync offset %llu",
	           (unsigned long long)offset);
	for (i = 0; i < FUZZ_PSB_SIZE; ++i)
		FUZZ_CHECK(f->trace[offset + i] == psb[i & 1],
		           "no PSB at sync offset %llu",
		           (unsigned long long)offset);
	/* fuzz/crashes/fuzz_flow-sync-offset*: the sync offset after the
	 * resync that follows an error once named a later PSB.  Open bug: on
	 * the batch path it still can (fuzz_flow-sync-offset-batch2), so the
	 * order is checked on the pull path only until that is fixed. */
	FUZZ_CHECK(!f->offsets || first || offset > *last,
	           "sync went from %llu to %llu", (unsigned long long)*last,
	           (unsigned long long)offset);
	*last = offset;
}

static void fuzz_check_event(const struct pt_event *event)
{
	FUZZ_CHECK((int)event->type >= 0 && event->type <= ptev_syscall,
	           "event type %d", (int)event->type);
}

static void fuzz_check_code(const struct fuzz_flow *f, uint64_t ip,
                            const uint8_t *raw, uint8_t size)
{
	uint64_t off = ip - FUZZ_CODE_BASE;

	FUZZ_CHECK(size >= 1 && size <= pt_max_insn_size, "size %u",
	           (unsigned)size);
	FUZZ_CHECK(ip >= FUZZ_CODE_BASE && off < f->code_size &&
	                   size <= f->code_size - off,
	           "instruction at 0x%llx (%u bytes) outside the code",
	           (unsigned long long)ip, (unsigned)size);
	if (raw)
		FUZZ_CHECK(memcmp(raw, f->code + off, size) == 0,
		           "raw bytes of 0x%llx differ from the code",
		           (unsigned long long)ip);
}

/* Run the instruction-flow decoder; return the number of instructions, or
 * -1 if there were errors or the cap was hit. */
static int64_t fuzz_insn(const struct fuzz_flow *f, const struct pt_config *c,
                         struct pt_image *image)
{
	struct pt_insn_decoder *dec = pt_insn_alloc_decoder(c);
	uint64_t insns = 0, last = 0, offset;
	int first = 1, clean = 1;

	FUZZ_CHECK(dec != NULL, "pt_insn_alloc_decoder");
	FUZZ_CHECK(pt_insn_set_image(dec, image) == 0, "set image");
	for (;;) {
		int status = pt_insn_sync_forward(dec);

		if (status == -pte_eos)
			break;
		if (status < 0) {
			clean = 0;
			break;
		}
		/* On the pull path, the offset comes first (as ptxed
		 * --offset asks for it before anything else). */
		if (f->offsets)
			FUZZ_CHECK(pt_insn_get_offset(dec, &offset) == 0,
			           "get_offset after sync");
		FUZZ_CHECK(pt_insn_get_sync_offset(dec, &offset) == 0,
		           "get_sync_offset");
		fuzz_check_sync(f, offset, &last, first);
		first = 0;
		for (;;) {
			struct pt_insn insn;
			uint64_t tsc;
			int err;

			while (status >= 0 && (status & pts_event_pending)) {
				struct pt_event event;

				status = pt_insn_event(dec, &event,
				                       sizeof(event));
				if (status >= 0)
					fuzz_check_event(&event);
			}
			if (status < 0 || (status & pts_eos))
				break;
			if (f->offsets) {
				FUZZ_CHECK(pt_insn_get_offset(dec, &offset) ==
				                   0,
				           "get_offset");
				fuzz_check_offset(f, offset, "insn");
			}
			insn.iclass = ptic_unknown;
			status = pt_insn_next(dec, &insn, sizeof(insn));
			/* After an error (the end of the trace included), the
			 * instruction counts if it was decoded, as in ptxed. */
			if (status < 0 && insn.iclass == ptic_unknown)
				break;
			fuzz_check_code(f, insn.ip, insn.raw, insn.size);
			FUZZ_CHECK(insn.iclass <= ptic_indirect &&
			                   insn.iclass != ptic_unknown,
			           "iclass %d", (int)insn.iclass);
			FUZZ_CHECK(insn.mode >= ptem_16bit &&
			                   insn.mode <= ptem_64bit,
			           "mode %d", (int)insn.mode);
			err = pt_insn_time(dec, &tsc, NULL, NULL);
			FUZZ_CHECK(err == 0 || err == -pte_no_time,
			           "pt_insn_time: %d", err);
			if (status < 0) {
				insns += 1;
				break;
			}
			if (++insns >= FUZZ_MAX_INSNS) {
				pt_insn_free_decoder(dec);
				return -1;
			}
		}
		if (status < 0 && status != -pte_eos) {
			clean = 0;
			FUZZ_CHECK(pt_insn_get_offset(dec, &offset) == 0,
			           "get_offset after an error");
			fuzz_check_offset(f, offset, "error");
			continue;
		}
		break;
	}
	pt_insn_free_decoder(dec);
	return clean ? (int64_t)insns : -1;
}

/* The same with the block decoder. */
static int64_t fuzz_blk(const struct fuzz_flow *f, const struct pt_config *c,
                        struct pt_image *image)
{
	struct pt_block_decoder *dec = pt_blk_alloc_decoder(c);
	uint64_t insns = 0, blocks = 0, last = 0, offset;
	int first = 1, clean = 1;

	FUZZ_CHECK(dec != NULL, "pt_blk_alloc_decoder");
	FUZZ_CHECK(pt_blk_set_image(dec, image) == 0, "set image");
	for (;;) {
		int status = pt_blk_sync_forward(dec);

		if (status == -pte_eos)
			break;
		if (status < 0) {
			clean = 0;
			break;
		}
		/* On the pull path, the offset comes first (as ptxed
		 * --offset asks for it before anything else). */
		if (f->offsets)
			FUZZ_CHECK(pt_blk_get_offset(dec, &offset) == 0,
			           "get_offset after sync");
		FUZZ_CHECK(pt_blk_get_sync_offset(dec, &offset) == 0,
		           "get_sync_offset");
		fuzz_check_sync(f, offset, &last, first);
		first = 0;
		for (;;) {
			struct pt_block block;
			uint64_t tsc;
			int err;

			while (status >= 0 && (status & pts_event_pending)) {
				struct pt_event event;

				status = pt_blk_event(dec, &event,
				                      sizeof(event));
				if (status >= 0)
					fuzz_check_event(&event);
			}
			if (status < 0 || (status & pts_eos))
				break;
			if (f->offsets) {
				FUZZ_CHECK(pt_blk_get_offset(dec, &offset) == 0,
				           "get_offset");
				fuzz_check_offset(f, offset, "block");
			}
			block.ninsn = 0;
			status = pt_blk_next(dec, &block, sizeof(block));
			/* A partial block before an error counts. */
			if (status < 0 && !block.ninsn)
				break;
			if (block.ninsn) {
				fuzz_check_code(f, block.ip, NULL, 1);
				if (!block.truncated)
					fuzz_check_code(f, block.end_ip, NULL,
					                1);
				FUZZ_CHECK(block.mode >= ptem_16bit &&
				                   block.mode <= ptem_64bit,
				           "mode %d", (int)block.mode);
			}
			FUZZ_CHECK(block.iclass <= ptic_indirect, "iclass %d",
			           (int)block.iclass);
			err = pt_blk_time(dec, &tsc, NULL, NULL);
			FUZZ_CHECK(err == 0 || err == -pte_no_time,
			           "pt_blk_time: %d", err);
			if (status < 0) {
				insns += block.ninsn;
				break;
			}
			insns += block.ninsn;
			if (++blocks >= FUZZ_MAX_BLOCKS ||
			    insns >= FUZZ_MAX_INSNS) {
				pt_blk_free_decoder(dec);
				return -1;
			}
		}
		if (status < 0 && status != -pte_eos) {
			clean = 0;
			FUZZ_CHECK(pt_blk_get_offset(dec, &offset) == 0,
			           "get_offset after an error");
			fuzz_check_offset(f, offset, "error");
			continue;
		}
		break;
	}
	pt_blk_free_decoder(dec);
	return clean ? (int64_t)insns : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_config config;
	struct fuzz_flow f;
	struct pt_image *image;
	uint8_t *code, *trace, cfg;
	size_t code_size;
	int64_t ninsn, nblk;

	if (size < 3)
		return 0;
	cfg = data[0];
	code_size = (size_t)data[1] | ((size_t)(data[2] & 0x1f) << 8);
	f.offsets = data[2] >> 7;
	if (code_size > FUZZ_MAX_CODE)
		code_size %= FUZZ_MAX_CODE + 1;
	if (code_size > size - 3)
		code_size = size - 3;
	/* Exact-size copies, so that ASan sees reads past either. */
	code = fuzz_alloc(code_size);
	trace = fuzz_alloc(size - 3 - code_size);
	memcpy(code, data + 3, code_size);
	memcpy(trace, data + 3 + code_size, size - 3 - code_size);
	f.code = code;
	f.code_size = code_size;
	f.trace = trace;
	f.trace_size = size - 3 - code_size;

	image = pt_image_alloc("fuzz");
	FUZZ_CHECK(image != NULL, "pt_image_alloc");
	if (cfg & 0x08)
		FUZZ_CHECK(pt_image_set_callback(image, fuzz_read_code, &f) ==
		                   0,
		           "set callback");
	else if (code_size)
		FUZZ_CHECK(ptd_image_add_buffer(image, code, code_size, NULL,
		                                FUZZ_CODE_BASE, 0) >= 0,
		           "add buffer");

	pt_config_init(&config);
	config.begin = trace;
	config.end = trace + f.trace_size;
	if (cfg & 0x10) {
		config.errata.bdm70 = 1;
		config.errata.bdm64 = 1;
		config.errata.skd022 = 1;
		config.errata.skl014 = 1;
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
	ninsn = fuzz_insn(&f, &config, image);

	memset(&config.flags, 0, sizeof(config.flags));
	config.flags.variant.block.end_on_call = cfg & 1;
	config.flags.variant.block.end_on_jump = (cfg >> 1) & 1;
	config.flags.variant.block.enable_tick_events = (cfg >> 2) & 1;
	config.flags.variant.block.keep_tcal_on_ovf = (cfg >> 5) & 1;
	nblk = fuzz_blk(&f, &config, image);

	if (ninsn >= 0 && nblk >= 0)
		FUZZ_CHECK(ninsn == nblk,
		           "%lld instructions, but %lld in blocks",
		           (long long)ninsn, (long long)nblk);

	pt_image_free(image);
	free(code);
	free(trace);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
