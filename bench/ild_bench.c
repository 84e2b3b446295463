/* SPDX-License-Identifier: BSD-3-Clause */
/* ild_bench: nanoseconds per instruction of lib/ild's ptd_ild_decode() and
 * of the Zydis 4 decoding modes beneath it, over every instruction of an
 * ELF file's .text (default: the C library), decoded in 64-bit mode.
 *
 *   ild_bench [--file <elf>] [--reps <n>] [--smoke] [--corpora <dir>]
 *
 * Each variant decodes the same instruction starts (found once by a linear
 * decode) in order, as a flow decoder would walk code without a block
 * cache; each repetition times one pass over all of them.  Prints the best
 * and the median repetition per variant, in thread CPU time (the machine
 * may be shared).
 *
 * Then, if libxdc's mruby trace and page dump are in the corpora folder
 * (default PTD_CORPORA_DIR), the share of instruction decoding in the block
 * decoder: the flow layer decodes every instruction address once per
 * decoder (its decode cache), so a pass of a fresh block decoder over the
 * trace decodes each distinct instruction address once.  Reported: the
 * block decoder's time per pass (best and median), the number of distinct
 * addresses (from an instruction-flow pass), and their decoding time at
 * the best ptd_ild_decode speed above as a share of the best pass.  See
 * docs/ild.md. */
#define _POSIX_C_SOURCE 200809L

#include "ild/ild.h"
#include "ild/ild_fast.h"

#include "ptdecode/ptdecode.h"

#include <Zydis/Zydis.h>

#include "bench_stats.h"
#include "elf_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The thread's CPU time in nanoseconds. */
static double now_ns(void)
{
	return bench_now(CLOCK_THREAD_CPUTIME_ID) * 1e9;
}

enum variant {
	v_ild,         /* ptd_ild_decode() */
	v_ild_zydis,   /* ptd_ild_decode_zydis(): without the table */
	v_zy_minimal,  /* ZydisDecoderDecodeInstruction, minimal mode */
	v_zy_full,     /* ZydisDecoderDecodeInstruction, full mode */
	v_zy_operands, /* ZydisDecoderDecodeFull (with operands) */
	v_count
};

static const char *const variant_name[v_count] = {
        "ptd_ild_decode (table, else Zydis)",
        "ptd_ild_decode_zydis (Zydis + class)",
        "Zydis minimal, DecodeInstruction",
        "Zydis full, DecodeInstruction",
        "Zydis full, DecodeFull (operands)",
};

struct bench {
	const uint8_t *text;
	size_t size;
	uint32_t *starts;
	size_t n;
	struct ptd_ild_ctx *ctx;
	ZydisDecoder minimal, full;
};

/* One pass over every instruction; returns a checksum of the lengths (and
 * classes) so that nothing is optimized away. */
static unsigned long run_pass(const struct bench *b, enum variant v)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction zi;
	struct ptd_ild insn;
	unsigned long sum = 0;
	size_t i;

	for (i = 0; i < b->n; ++i) {
		const uint8_t *code = b->text + b->starts[i];
		size_t avail = b->size - b->starts[i];

		switch (v) {
		case v_ild:
			if (ptd_ild_decode(b->ctx, &insn, code, avail,
			                   ptem_64bit) == 0)
				sum += insn.size + insn.iclass;
			break;
		case v_ild_zydis:
			if (ptd_ild_decode_zydis(b->ctx, &insn, code, avail,
			                         ptem_64bit) == 0)
				sum += insn.size + insn.iclass;
			break;
		case v_zy_minimal:
			if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
			            &b->minimal, NULL, code,
			            avail > 15 ? 15 : avail, &zi)))
				sum += zi.length;
			break;
		case v_zy_full:
			if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
			            &b->full, NULL, code,
			            avail > 15 ? 15 : avail, &zi)))
				sum += zi.length;
			break;
		case v_zy_operands:
			if (ZYAN_SUCCESS(ZydisDecoderDecodeFull(
			            &b->full, code, avail > 15 ? 15 : avail,
			            &zi, ops)))
				sum += zi.length;
			break;
		case v_count:
			break;
		}
	}
	return sum;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* One pass of a fresh block decoder over @trace (resynchronizing after
 * errors); returns the instructions, or -1. */
static long flow_block_pass(uint8_t *trace, size_t size, struct pt_image *image)
{
	struct pt_block_decoder *dec;
	struct pt_config config;
	long insns = 0;
	int status;

	pt_config_init(&config);
	config.begin = trace;
	config.end = trace + size;
	dec = pt_blk_alloc_decoder(&config);
	if (!dec || pt_blk_set_image(dec, image) < 0)
		return -1;
	status = pt_blk_sync_forward(dec);
	while (status != -pte_eos) {
		struct pt_block block;

		if (status < 0) {
			status = pt_blk_sync_forward(dec);
			continue;
		}
		while (status >= 0 && (status & pts_event_pending)) {
			struct pt_event ev;

			status = pt_blk_event(dec, &ev, sizeof(ev));
		}
		if (status < 0)
			continue;
		status = pt_blk_next(dec, &block, sizeof(block));
		insns += block.ninsn;
	}
	pt_blk_free_decoder(dec);
	return insns;
}

/* The distinct instruction addresses of an instruction-flow pass. */
static long flow_distinct(uint8_t *trace, size_t size, struct pt_image *image,
                          long insns)
{
	struct pt_insn_decoder *dec;
	struct pt_config config;
	uint64_t *ips = malloc((size_t)insns * sizeof(*ips) + 1);
	long n = 0, i, distinct = 0;
	int status;

	pt_config_init(&config);
	config.begin = trace;
	config.end = trace + size;
	dec = pt_insn_alloc_decoder(&config);
	if (!ips || !dec || pt_insn_set_image(dec, image) < 0) {
		free(ips);
		pt_insn_free_decoder(dec);
		return -1;
	}
	status = pt_insn_sync_forward(dec);
	while (status != -pte_eos) {
		struct pt_insn insn;

		if (status < 0) {
			status = pt_insn_sync_forward(dec);
			continue;
		}
		while (status >= 0 && (status & pts_event_pending)) {
			struct pt_event ev;

			status = pt_insn_event(dec, &ev, sizeof(ev));
		}
		if (status < 0)
			continue;
		status = pt_insn_next(dec, &insn, sizeof(insn));
		if (status >= 0 && n < insns)
			ips[n++] = insn.ip;
	}
	pt_insn_free_decoder(dec);
	qsort(ips, (size_t)n, sizeof(*ips), cmp_u64);
	for (i = 0; i < n; ++i)
		if (!i || ips[i] != ips[i - 1])
			++distinct;
	free(ips);
	return distinct;
}

/* The share of instruction decoding in the block decoder on mruby. */
static int flow_share(const char *corpora, unsigned reps, double ild_ns)
{
	char trace_path[1024], addr_path[1024], dump_path[1024];
	struct pt_image *image;
	uint8_t *trace;
	size_t size = 0;
	double *times, best, median;
	long insns = 0, distinct;
	unsigned r;

	snprintf(trace_path, sizeof(trace_path), "%s/libxdc/mruby/trace",
	         corpora);
	snprintf(addr_path, sizeof(addr_path), "%s/libxdc/mruby/data.addr",
	         corpora);
	snprintf(dump_path, sizeof(dump_path), "%s/libxdc/mruby/data.dump",
	         corpora);
	trace = ptd_read_whole_file(trace_path, &size);
	if (!trace) {
		printf("%s not readable: block decoder share skipped\n",
		       trace_path);
		return 0;
	}
	image = pt_image_alloc("mruby");
	times = malloc(reps * sizeof(*times));
	if (!image || !times ||
	    ptd_image_add_page_dump(image, addr_path, dump_path, NULL) <= 0) {
		fprintf(stderr, "%s: cannot load the page dump\n", dump_path);
		free(times);
		pt_image_free(image);
		free(trace);
		return 1;
	}
	for (r = 0; r < reps; ++r) {
		double t0 = now_ns();

		insns = flow_block_pass(trace, size, image);
		times[r] = now_ns() - t0;
		if (insns <= 0) {
			fprintf(stderr, "block decoder failed\n");
			return 1;
		}
	}
	bench_best_median(times, reps, &best, &median);
	distinct = flow_distinct(trace, size, image, insns);
	printf("\nblock decoder, libxdc mruby (%zu bytes, %ld instructions), "
	       "fresh decoder per pass:\n",
	       size, insns);
	printf("  pass: best %.2f ms, median %.2f ms (%.2f ns/instruction "
	       "best)\n",
	       best / 1e6, median / 1e6, best / (double)insns);
	printf("  distinct instruction addresses: %ld (about one decode "
	       "each)\n",
	       distinct);
	printf("  their decoding at %.2f ns: %.2f ms = %.1f %% of the best "
	       "pass\n",
	       ild_ns, (double)distinct * ild_ns / 1e6,
	       100.0 * (double)distinct * ild_ns / best);
	free(times);
	pt_image_free(image);
	free(trace);
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	const char *corpora = PTD_CORPORA_DIR;
	double ild_best = 0;
	unsigned reps = 15, r;
	int smoke = 0, i;
	size_t size = 0, offset, pos;
	struct bench b;
	uint8_t *elf;
	double *times;
	unsigned long check[v_count];

	for (i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--file") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--smoke") == 0)
			smoke = 1;
		else if (strcmp(argv[i], "--corpora") == 0 && i + 1 < argc)
			corpora = argv[++i];
		else {
			fprintf(stderr,
			        "usage: %s [--file <elf>] [--reps <n>] "
			        "[--smoke] [--corpora <dir>]\n",
			        argv[0]);
			return 2;
		}
	}
	if (smoke)
		reps = 1;
	if (!reps)
		reps = 1;

	memset(&b, 0, sizeof(b));
	elf = ptd_read_whole_file(path, &size);
	if (!elf) {
		fprintf(stderr, "%s: cannot read; skipped\n", path);
		return 77;
	}
	if (ptd_elf_find_text(elf, size, &offset, &b.size, NULL) < 0) {
		fprintf(stderr, "%s: no .text section\n", path);
		free(elf);
		return 1;
	}
	b.text = elf + offset;
	if (smoke && b.size > 65536)
		b.size = 65536;
	b.ctx = ptd_ild_alloc();
	b.starts = malloc((b.size + 1) * sizeof(*b.starts));
	times = malloc(reps * sizeof(*times));
	if (!b.ctx || !b.starts || !times ||
	    !ZYAN_SUCCESS(ZydisDecoderInit(&b.minimal,
	                                   ZYDIS_MACHINE_MODE_LONG_64,
	                                   ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderEnableMode(
	            &b.minimal, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE)) ||
	    !ZYAN_SUCCESS(ZydisDecoderInit(&b.full, ZYDIS_MACHINE_MODE_LONG_64,
	                                   ZYDIS_STACK_WIDTH_64))) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}

	/* The instruction starts of a linear decode. */
	for (pos = 0; pos < b.size;) {
		struct ptd_ild insn;

		if (ptd_ild_decode(b.ctx, &insn, b.text + pos, b.size - pos,
		                   ptem_64bit) == 0) {
			b.starts[b.n++] = (uint32_t)pos;
			pos += insn.size;
		} else
			pos += 1;
	}
	printf("%s: .text %zu bytes, %zu instructions, %u repetitions\n", path,
	       b.size, b.n, reps);
	printf("%-40s %10s %10s\n", "variant", "best ns", "median ns");

	for (i = 0; i < v_count; ++i) {
		check[i] = run_pass(&b, (enum variant)i); /* warm up */
		for (r = 0; r < reps; ++r) {
			double t0 = now_ns();

			if (run_pass(&b, (enum variant)i) != check[i]) {
				fprintf(stderr, "%s: unstable\n",
				        variant_name[i]);
				return 1;
			}
			times[r] = (now_ns() - t0) / (double)b.n;
		}
		double best, median;

		bench_best_median(times, reps, &best, &median);
		printf("%-40s %10.2f %10.2f\n", variant_name[i], best, median);
		if (i == v_ild)
			ild_best = best;
	}
	if (!smoke && flow_share(corpora, reps, ild_best))
		return 1;

	ptd_ild_free(b.ctx);
	free(b.starts);
	free(times);
	free(elf);
	return 0;
}
