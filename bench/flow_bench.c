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
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "libipt_dl.h"
#include "page_dump.h"

#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifndef PTD_CORPORA_DIR
#define PTD_CORPORA_DIR "../shared/corpora"
#endif

/* The four decoders. */
enum { D_PTD_INSN, D_IPT_INSN, D_PTD_BLK, D_IPT_BLK, D_COUNT };
static const char *const flow_dec_names[D_COUNT] = {
        "ptdecode insn+time", "libipt insn+time", "ptdecode block",
        "libipt block"};

/* What one pass did. */
struct pass {
	uint64_t insns, blocks, events, errors, mix;
	double seconds;
};

/* The trace, the image sections and both libraries' images. */
struct input {
	const char *name;
	uint8_t *buf;
	size_t size;
	struct ptxed_page_run *runs;
	size_t nruns;
	const char *dump;
	struct pt_image *ptd_image;
	struct ptd_ipt_image *ipt_image;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void mix(struct pass *p, uint64_t v)
{
	p->mix = (p->mix ^ v) * 0x100000001b3ull;
}

static void config_of(struct pt_config *config, const struct input *in)
{
	pt_config_init(config);
	config->begin = in->buf;
	config->end = in->buf + in->size;
}

static int run_ptd_insn(const struct input *in, struct pass *p)
{
	struct pt_insn_decoder *dec;
	struct pt_config config;
	int status;

	config_of(&config, in);
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
			mix(p, insn.ip + tsc);
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

static int run_ipt_insn(const struct ptd_libipt *ipt, const struct input *in,
                        struct pass *p)
{
	struct ptd_ipt_insn_decoder *dec;
	struct pt_config config;
	int status;

	config_of(&config, in);
	dec = ipt->insn_alloc_decoder(&config);
	if (!dec || ipt->insn_set_image(dec, in->ipt_image) < 0) {
		if (dec)
			ipt->insn_free_decoder(dec);
		return -1;
	}
	p->seconds = now();
	for (;;) {
		status = ipt->insn_sync_forward(dec);
		if (status < 0)
			break;
		for (;;) {
			struct ptd_ipt_insn insn;
			uint64_t tsc = 0;

			while (status & pts_event_pending) {
				struct ptd_ipt_event event;

				status = ipt->insn_event(dec, &event,
				                         sizeof(event));
				if (status < 0)
					break;
				p->events += 1;
			}
			if (status < 0 || (status & pts_eos))
				break;
			status = ipt->insn_next(dec, &insn, sizeof(insn));
			if (status < 0)
				break;
			(void)ipt->insn_time(dec, &tsc, NULL, NULL);
			p->insns += 1;
			mix(p, insn.ip + tsc);
		}
		if (status < 0 && status != -pte_eos)
			p->errors += 1;
		if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
			break;
	}
	p->seconds = now() - p->seconds;
	ipt->insn_free_decoder(dec);
	return 0;
}

static int run_ptd_blk(const struct input *in, struct pass *p)
{
	struct pt_block_decoder *dec;
	struct pt_config config;
	int status;

	config_of(&config, in);
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
			mix(p, block.ip);
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

static int run_ipt_blk(const struct ptd_libipt *ipt, const struct input *in,
                       struct pass *p)
{
	struct ptd_ipt_blk_decoder *dec;
	struct pt_config config;
	int status;

	config_of(&config, in);
	dec = ipt->blk_alloc_decoder(&config);
	if (!dec || ipt->blk_set_image(dec, in->ipt_image) < 0) {
		if (dec)
			ipt->blk_free_decoder(dec);
		return -1;
	}
	p->seconds = now();
	for (;;) {
		status = ipt->blk_sync_forward(dec);
		if (status < 0)
			break;
		for (;;) {
			struct ptd_ipt_block block;

			while (status & pts_event_pending) {
				struct ptd_ipt_event event;

				status = ipt->blk_event(dec, &event,
				                        sizeof(event));
				if (status < 0)
					break;
				p->events += 1;
			}
			if (status < 0 || (status & pts_eos))
				break;
			status = ipt->blk_next(dec, &block, sizeof(block));
			if (status < 0)
				break;
			p->blocks += 1;
			p->insns += block.ninsn;
			mix(p, block.ip);
		}
		if (status < 0 && status != -pte_eos)
			p->errors += 1;
		if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
			break;
	}
	p->seconds = now() - p->seconds;
	ipt->blk_free_decoder(dec);
	return 0;
}

static int run(const struct ptd_libipt *ipt, int which, const struct input *in,
               struct pass *p)
{
	memset(p, 0, sizeof(*p));
	switch (which) {
	case D_PTD_INSN:
		return run_ptd_insn(in, p);
	case D_IPT_INSN:
		return run_ipt_insn(ipt, in, p);
	case D_PTD_BLK:
		return run_ptd_blk(in, p);
	default:
		return run_ipt_blk(ipt, in, p);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Measure @in with the four decoders and print its rows.  Returns 0, or 1
 * if the two libraries did not do the same work. */
static int bench_input(const struct ptd_libipt *ipt, const struct input *in,
                       unsigned reps, unsigned mask)
{
	double *times = calloc((size_t)reps * D_COUNT, sizeof(double));
	double best[D_COUNT], med[D_COUNT];
	struct pass first[D_COUNT];
	unsigned r;
	int d, bad = 0;

	if (!times) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	memset(first, 0, sizeof(first));
	for (r = 0; r < reps; ++r) {
		for (d = 0; d < D_COUNT; ++d) {
			struct pass p;

			if (!(mask & (1u << d)))
				continue;
			if (run(ipt, d, in, &p) < 0) {
				fprintf(stderr, "%s: %s: cannot set up\n",
				        in->name, flow_dec_names[d]);
				free(times);
				return 1;
			}
			if (r == 0)
				first[d] = p;
			times[d * reps + r] = p.seconds;
		}
	}
	for (d = 0; d < D_COUNT; ++d) {
		qsort(times + d * reps, reps, sizeof(double), cmp_double);
		best[d] = times[d * reps];
		med[d] = times[d * reps + reps / 2];
	}
	free(times);

	for (d = 0; d < D_COUNT; ++d) {
		const struct pass *p = &first[d];

		if (!(mask & (1u << d)))
			continue;
		printf("%-14s %10zu  %-18s %9" PRIu64 " %8" PRIu64 " %5" PRIu64
		       " %4" PRIu64 " | %8.1f %8.1f | %8.1f %8.1f",
		       in->name, in->size, flow_dec_names[d], p->insns,
		       p->blocks, p->events, p->errors,
		       (double)in->size / best[d] / 1e6,
		       (double)in->size / med[d] / 1e6,
		       (double)p->insns / best[d] / 1e6,
		       (double)p->insns / med[d] / 1e6);
		if (d == D_PTD_INSN || d == D_PTD_BLK)
			printf(" | %6.1fx %6.1fx\n", best[d + 1] / best[d],
			       med[d + 1] / med[d]);
		else
			printf(" |\n");
	}
	if (first[D_PTD_INSN].insns != first[D_IPT_INSN].insns ||
	    first[D_PTD_BLK].insns != first[D_IPT_BLK].insns ||
	    (mask == 0xf &&
	     first[D_PTD_INSN].insns != first[D_PTD_BLK].insns) ||
	    first[D_PTD_INSN].errors != first[D_IPT_INSN].errors) {
		printf("%s: the libraries did not do the same work\n",
		       in->name);
		bad = 1;
	}
	return bad;
}

static int read_file(const char *path, uint8_t **buf, size_t *size,
                     size_t limit)
{
	struct stat st;
	FILE *file;

	if (stat(path, &st) != 0)
		return -1;
	*size = (size_t)st.st_size;
	if (limit && *size > limit)
		*size = limit;
	*buf = malloc(*size ? *size : 1);
	file = fopen(path, "rb");
	if (!*buf || !file || (*size && fread(*buf, *size, 1, file) != 1)) {
		free(*buf);
		if (file)
			fclose(file);
		return -1;
	}
	fclose(file);
	return 0;
}

/* Both libraries' images from the page dump runs. */
static int make_images(const struct ptd_libipt *ipt, struct input *in)
{
	size_t i;

	in->ptd_image = pt_image_alloc("mruby");
	in->ipt_image = ipt->image_alloc("mruby");
	if (!in->ptd_image || !in->ipt_image)
		return -1;
	for (i = 0; i < in->nruns; ++i) {
		const struct ptxed_page_run *r = &in->runs[i];

		if (pt_image_add_file(in->ptd_image, in->dump, r->offset,
		                      r->size, NULL, r->vaddr) < 0 ||
		    ipt->image_add_file(in->ipt_image, in->dump, r->offset,
		                        r->size, NULL, r->vaddr) < 0)
			return -1;
	}
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
	char path[4096], addr[4096], dump[4096], msg[256];
	struct input mruby, large;
	struct ptd_libipt ipt;
	uint64_t dump_size;
	struct stat st;
	unsigned mask = 0xf;
	int smoke = 0, bad = 0, i;
	size_t n;

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
	if (ptd_libipt_open(&ipt, msg, sizeof(msg)) < 0) {
		printf("SKIP: %s\n", msg);
		return 77;
	}
	snprintf(path, sizeof(path), "%s/libxdc/mruby/trace", corpora);
	snprintf(addr, sizeof(addr), "%s/libxdc/mruby/data.addr", corpora);
	snprintf(dump, sizeof(dump), "%s/libxdc/mruby/data.dump", corpora);
	memset(&mruby, 0, sizeof(mruby));
	mruby.name = "mruby";
	mruby.dump = dump;
	if (stat(dump, &st) != 0 ||
	    read_file(path, &mruby.buf, &mruby.size, smoke ? 65536 : 0) < 0) {
		printf("SKIP: libxdc mruby trace or dump not found in %s\n",
		       corpora);
		ptd_libipt_close(&ipt);
		return 77;
	}
	dump_size = (uint64_t)st.st_size;
	if (ptxed_page_runs(addr, dump_size, &mruby.runs, &mruby.nruns, msg,
	                    sizeof(msg)) < 0 ||
	    make_images(&ipt, &mruby) < 0) {
		fprintf(stderr, "cannot build the image: %s\n", msg);
		return 1;
	}

	printf("%-14s %10s  %-18s %9s %8s %5s %4s | %17s | %17s | %s\n",
	       "input", "bytes", "decoder", "insns", "blocks", "evts", "errs",
	       "MB/s best   med", "Minsn/s best  med",
	       "libipt/ptdecode time best med");
	bad |= bench_input(&ipt, &mruby, smoke ? 1 : reps, mask);

	if (!smoke) {
		/* mruby repeated to at least @large_mb MiB. */
		size_t want = (size_t)large_mb << 20, copies;

		large = mruby;
		large.name = "mruby x N";
		copies = (want + mruby.size - 1) / mruby.size;
		large.size = copies * mruby.size;
		large.buf = malloc(large.size);
		if (!large.buf) {
			fprintf(stderr, "out of memory\n");
			return 1;
		}
		for (n = 0; n < copies; ++n)
			memcpy(large.buf + n * mruby.size, mruby.buf,
			       mruby.size);
		bad |= bench_input(&ipt, &large, reps, mask);
		free(large.buf);
	}

	pt_image_free(mruby.ptd_image);
	ipt.image_free(mruby.ipt_image);
	free(mruby.runs);
	free(mruby.buf);
	ptd_libipt_close(&ipt);
	return bad;
}
