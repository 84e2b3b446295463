/* SPDX-License-Identifier: BSD-3-Clause */
/* Flow-decoder throughput: ptdecode against libipt 2.0.5.
 *
 *	flow_bench [--corpora <dir>] [--large-mb <n>] [--reps <n>]
 *	           [--only insn|block] [--smoke]
 *
 * Decodes the same in-memory trace with the same image, in one process, on
 * one thread, with four decoders: ptdecode's and libipt's (loaded with
 * dlopen(); the two libraries export the same symbols) instruction-flow
 * decoders, calling pt_insn_time() after every instruction, and their block
 * decoders.  Each loop does what ptxed does: synchronize, drain events,
 * next instruction or block, resynchronize at the next PSB after an error.
 * The consumers count instructions, blocks, events and errors and mix every
 * IP (and, for instructions, every time) into a checksum; the instruction
 * and error counts of the two libraries must agree, so the work cannot be
 * optimized away and both did the same work (block counts differ: libipt
 * splits some blocks, docs/flow.md).
 *
 * Inputs: libxdc's mruby trace with its page dump as the image (contiguous
 * pages as one section each, the same sections in both libraries), then
 * that trace repeated until it has at least --large-mb MiB (each repetition
 * starts with a PSB, so every one decodes), with the same image.  Each
 * measurement is repeated --reps times with the decoders interleaved; a
 * fresh decoder is allocated for every pass, the image (and so libipt's
 * block cache) is kept.  Reported: best and median MB/s (10^6 bytes of
 * trace per second), millions of instructions per second, and the ratios
 * ptdecode / libipt of the best and median times.  --smoke: one pass over
 * the first 64 KiB of mruby (for ctest).  --only insn|block: measure only
 * the instruction-flow or the block decoders (the instruction flow of the
 * large input takes minutes).  Exits 77 when the corpus or libipt is
 * absent. */

#include "flow_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PTD_CORPORA_DIR
#define PTD_CORPORA_DIR "../shared/corpora"
#endif

/* The four decoders (D_* in flow_common.h). */
static const char *const flow_dec_names[D_COUNT] = {
        "ptdecode insn+time", "libipt insn+time", "ptdecode block",
        "libipt block"};

static double now(void)
{
	return flow_now(0);
}

static int run_ptd_insn(const struct flow_input *in, struct flow_pass *p)
{
	struct pt_insn_decoder *dec;
	struct pt_config config;
	int status;

	flow_config_of(&config, in);
	dec = pt_insn_alloc_decoder(&config);
	if (!dec || pt_insn_set_image(dec, in->ptd_image) < 0) {
		pt_insn_free_decoder(dec);
		return -1;
	}
	p->seconds = now();
	for (;;) {
		status = pt_insn_sync_forward(dec);
		if (status < 0)
			break;
		for (;;) {
			struct pt_insn insn;
			uint64_t tsc = 0;

			while (status & pts_event_pending) {
				struct pt_event event;

				status = pt_insn_event(dec, &event,
				                       sizeof(event));
				if (status < 0)
					break;
				p->events += 1;
			}
			if (status < 0 || (status & pts_eos))
				break;
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (status < 0)
				break;
			(void)pt_insn_time(dec, &tsc, NULL, NULL);
			p->insns += 1;
			flow_mix(p, insn.ip + tsc);
		}
		if (status < 0 && status != -pte_eos)
			p->errors += 1;
		if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
			break;
	}
	p->seconds = now() - p->seconds;
	pt_insn_free_decoder(dec);
	return 0;
}

static int run_ptd_blk(const struct flow_input *in, struct flow_pass *p)
{
	struct pt_block_decoder *dec;
	struct pt_config config;
	int status;

	flow_config_of(&config, in);
	dec = pt_blk_alloc_decoder(&config);
	if (!dec || pt_blk_set_image(dec, in->ptd_image) < 0) {
		pt_blk_free_decoder(dec);
		return -1;
	}
	p->seconds = now();
	for (;;) {
		status = pt_blk_sync_forward(dec);
		if (status < 0)
			break;
		for (;;) {
			struct pt_block block;

			while (status & pts_event_pending) {
				struct pt_event event;

				status = pt_blk_event(dec, &event,
				                      sizeof(event));
				if (status < 0)
					break;
				p->events += 1;
			}
			if (status < 0 || (status & pts_eos))
				break;
			status = pt_blk_next(dec, &block, sizeof(block));
			if (status < 0)
				break;
			p->blocks += 1;
			p->insns += block.ninsn;
			flow_mix(p, block.ip);
		}
		if (status < 0 && status != -pte_eos)
			p->errors += 1;
		if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
			break;
	}
	p->seconds = now() - p->seconds;
	pt_blk_free_decoder(dec);
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
	        "usage: %s [--corpora <dir>] [--large-mb <n>] [--reps <n>] "
	        "[--only insn|block] [--smoke]\n",
	        prog);
}

int main(int argc, char **argv)
{
	const char *corpora = PTD_CORPORA_DIR;
	unsigned reps = 5, large_mb = 64;
	char dump[4096], msg[256];
	struct flow_input mruby;
	struct ptd_libipt ipt;
	struct flow_decoders decs;
	unsigned mask = 0xf;
	int smoke = 0, bad = 0, i;

	for (i = 1; i < argc; ++i) {
		if (!strcmp(argv[i], "--smoke"))
			smoke = 1;
		else if (!strcmp(argv[i], "--corpora") && i + 1 < argc)
			corpora = argv[++i];
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--large-mb") && i + 1 < argc)
			large_mb = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc &&
		         !strcmp(argv[i + 1], "insn")) {
			mask = (1u << D_PTD_INSN) | (1u << D_IPT_INSN);
			++i;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc &&
		           !strcmp(argv[i + 1], "block")) {
			mask = (1u << D_PTD_BLK) | (1u << D_IPT_BLK);
			++i;
		} else {
			usage(argv[0]);
			return 2;
		}
	}
	if (!reps)
		reps = 1;
	decs.names = flow_dec_names;
	decs.ptd_insn = run_ptd_insn;
	decs.ptd_blk = run_ptd_blk;
	decs.cpu_time = 0;
	if (ptd_libipt_open(&ipt, msg, sizeof(msg)) < 0) {
		printf("SKIP: %s\n", msg);
		return 77;
	}
	i = flow_load_mruby(&ipt, corpora, smoke, &mruby, dump, sizeof(dump));
	if (i != 0) {
		flow_input_free(&ipt, &mruby);
		ptd_libipt_close(&ipt);
		return i;
	}

	flow_print_header();
	bad |= flow_bench_input(&ipt, &mruby, smoke ? 1 : reps, mask, &decs);
	if (!smoke)
		bad |= flow_bench_large(&ipt, &mruby, large_mb, reps, mask,
		                        &decs);
	flow_input_free(&ipt, &mruby);
	ptd_libipt_close(&ipt);
	return bad;
}
