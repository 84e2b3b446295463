/* SPDX-License-Identifier: BSD-3-Clause */
/* See flow_common.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "flow_common.h"

#include "bench_stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

double flow_now(int cpu_time)
{
	return bench_now(cpu_time ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC);
}

void flow_config_of(struct pt_config *config, const struct flow_input *in)
{
	pt_config_init(config);
	config->begin = in->buf;
	config->end = in->buf + in->size;
}

int flow_run_ipt_insn(const struct ptd_libipt *ipt, const struct flow_input *in,
                      struct flow_pass *p, int cpu_time)
{
	struct ptd_ipt_insn_decoder *dec;
	struct pt_config config;
	int status;

	flow_config_of(&config, in);
	dec = ipt->insn_alloc_decoder(&config);
	if (!dec || ipt->insn_set_image(dec, in->ipt_image) < 0) {
		if (dec)
			ipt->insn_free_decoder(dec);
		return -1;
	}
	p->seconds = flow_now(cpu_time);
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
			flow_mix(p, insn.ip + tsc);
		}
		if (status < 0 && status != -pte_eos)
			p->errors += 1;
		if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
			break;
	}
	p->seconds = flow_now(cpu_time) - p->seconds;
	ipt->insn_free_decoder(dec);
	return 0;
}

int flow_run_ipt_blk(const struct ptd_libipt *ipt, const struct flow_input *in,
                     struct flow_pass *p, int cpu_time)
{
	struct ptd_ipt_blk_decoder *dec;
	struct pt_config config;
	int status;

	flow_config_of(&config, in);
	dec = ipt->blk_alloc_decoder(&config);
	if (!dec || ipt->blk_set_image(dec, in->ipt_image) < 0) {
		if (dec)
			ipt->blk_free_decoder(dec);
		return -1;
	}
	p->seconds = flow_now(cpu_time);
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
			flow_mix(p, block.ip);
		}
		if (status < 0 && status != -pte_eos)
			p->errors += 1;
		if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
			break;
	}
	p->seconds = flow_now(cpu_time) - p->seconds;
	ipt->blk_free_decoder(dec);
	return 0;
}

static int run(const struct ptd_libipt *ipt, const struct flow_decoders *decs,
               int which, const struct flow_input *in, struct flow_pass *p)
{
	memset(p, 0, sizeof(*p));
	p->cpu_time = decs->cpu_time;
	switch (which) {
	case D_PTD_INSN:
		return decs->ptd_insn(in, p);
	case D_IPT_INSN:
		return flow_run_ipt_insn(ipt, in, p, decs->cpu_time);
	case D_PTD_BLK:
		return decs->ptd_blk(in, p);
	default:
		return flow_run_ipt_blk(ipt, in, p, decs->cpu_time);
	}
}

/* Whether decoders @a and @b are both in @mask. */
static int flow_both(unsigned mask, int a, int b)
{
	return (mask & (1u << a)) && (mask & (1u << b));
}

int flow_bench_input(const struct ptd_libipt *ipt, const struct flow_input *in,
                     unsigned reps, unsigned mask,
                     const struct flow_decoders *decs)
{
	double *times = calloc((size_t)reps * D_COUNT, sizeof(double));
	double best[D_COUNT], med[D_COUNT];
	struct flow_pass first[D_COUNT];
	unsigned r;
	int d, bad = 0;

	if (!times) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	memset(first, 0, sizeof(first));
	for (r = 0; r < reps; ++r) {
		for (d = 0; d < D_COUNT; ++d) {
			struct flow_pass p;

			if (!(mask & (1u << d)))
				continue;
			if (run(ipt, decs, d, in, &p) < 0) {
				fprintf(stderr, "%s: %s: cannot set up\n",
				        in->name, decs->names[d]);
				free(times);
				return 1;
			}
			if (r == 0)
				first[d] = p;
			times[d * reps + r] = p.seconds;
		}
	}
	for (d = 0; d < D_COUNT; ++d) {
		bench_best_median(times + d * reps, reps, &best[d], &med[d]);
	}
	free(times);

	for (d = 0; d < D_COUNT; ++d) {
		const struct flow_pass *p = &first[d];

		if (!(mask & (1u << d)))
			continue;
		printf("%-14s %10zu  %-18s %9" PRIu64 " %8" PRIu64 " %5" PRIu64
		       " %4" PRIu64 " | %8.1f %8.1f | %8.1f %8.1f",
		       in->name, in->size, decs->names[d], p->insns, p->blocks,
		       p->events, p->errors, (double)in->size / best[d] / 1e6,
		       (double)in->size / med[d] / 1e6,
		       (double)p->insns / best[d] / 1e6,
		       (double)p->insns / med[d] / 1e6);
		if ((d == D_PTD_INSN || d == D_PTD_BLK) &&
		    flow_both(mask, d, d + 1))
			printf(" | %6.1fx %6.1fx\n", best[d + 1] / best[d],
			       med[d + 1] / med[d]);
		else
			printf(" |\n");
	}
	/* Pairs of decoders that both ran must agree. */
	if ((flow_both(mask, D_PTD_INSN, D_IPT_INSN) &&
	     (first[D_PTD_INSN].insns != first[D_IPT_INSN].insns ||
	      first[D_PTD_INSN].errors != first[D_IPT_INSN].errors)) ||
	    (flow_both(mask, D_PTD_BLK, D_IPT_BLK) &&
	     first[D_PTD_BLK].insns != first[D_IPT_BLK].insns) ||
	    (flow_both(mask, D_PTD_INSN, D_PTD_BLK) &&
	     first[D_PTD_INSN].insns != first[D_PTD_BLK].insns)) {
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
static int make_images(const struct ptd_libipt *ipt, struct flow_input *in)
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

int flow_load_mruby(const struct ptd_libipt *ipt, const char *corpora,
                    int smoke, struct flow_input *in, char *dump,
                    size_t dump_size)
{
	char path[4096], addr[4096], msg[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/libxdc/mruby/trace", corpora);
	snprintf(addr, sizeof(addr), "%s/libxdc/mruby/data.addr", corpora);
	snprintf(dump, dump_size, "%s/libxdc/mruby/data.dump", corpora);
	memset(in, 0, sizeof(*in));
	in->name = "mruby";
	in->dump = dump;
	if (stat(dump, &st) != 0 ||
	    read_file(path, &in->buf, &in->size, smoke ? 65536 : 0) < 0) {
		printf("SKIP: libxdc mruby trace or dump not found in %s\n",
		       corpora);
		return 77;
	}
	msg[0] = '\0';
	if (ptxed_page_runs(addr, (uint64_t)st.st_size, &in->runs, &in->nruns,
	                    msg, sizeof(msg)) < 0 ||
	    make_images(ipt, in) < 0) {
		fprintf(stderr, "cannot build the image: %s\n", msg);
		return 1;
	}
	return 0;
}

void flow_input_free(const struct ptd_libipt *ipt, struct flow_input *in)
{
	pt_image_free(in->ptd_image);
	if (in->ipt_image)
		ipt->image_free(in->ipt_image);
	free(in->runs);
	free(in->buf);
	memset(in, 0, sizeof(*in));
}

void flow_print_header(void)
{
	printf("%-14s %10s  %-18s %9s %8s %5s %4s | %17s | %17s | %s\n",
	       "input", "bytes", "decoder", "insns", "blocks", "evts", "errs",
	       "MB/s best   med", "Minsn/s best  med",
	       "libipt/ptdecode time best med");
}

int flow_bench_large(const struct ptd_libipt *ipt,
                     const struct flow_input *mruby, unsigned large_mb,
                     unsigned reps, unsigned mask,
                     const struct flow_decoders *decs)
{
	size_t want = (size_t)large_mb << 20, copies, n;
	struct flow_input large = *mruby;
	int bad;

	large.name = "mruby x N";
	copies = (want + mruby->size - 1) / mruby->size;
	large.size = copies * mruby->size;
	large.buf = malloc(large.size);
	if (!large.buf) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	for (n = 0; n < copies; ++n)
		memcpy(large.buf + n * mruby->size, mruby->buf, mruby->size);
	bad = flow_bench_input(ipt, &large, reps, mask, decs);
	free(large.buf);
	return bad;
}
