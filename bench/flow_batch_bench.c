/* SPDX-License-Identifier: BSD-3-Clause */
/* Batch flow decoder throughput (ptd_flow_next_insns(),
 * ptd_flow_next_blocks()) against libipt 2.0.5.
 *
 *	flow_batch_bench [--corpora <dir>] [--large-mb <n>] [--reps <n>]
 *	                 [--cpu-time] [--no-check] [--only insn|block] [--smoke]
 *
 * The inputs and the method are bench/flow_bench.c's: libxdc's mruby trace
 * with its page dump as the image, then that trace repeated to at least
 * --large-mb MiB; one process, one thread, decoders interleaved, a fresh
 * decoder per pass, the image kept.  Four decoders: ptdecode's batch
 * instruction flow (IPs and times, 4096 per call), libipt's
 * pt_insn_next() + pt_insn_time() per instruction, ptdecode's batch blocks
 * (1024 per call) and libipt's pt_blk_next().  Every IP and time goes into a
 * checksum (for the batch instruction flow an XOR per call, as a consumer of
 * arrays would do it; a multiply chain per instruction would cost more than
 * the decoding); the instruction and error counts of the two libraries
 * must agree.  Before the timed passes, an untimed check compares the batch
 * decoder with ptdecode's pt_insn_next() on mruby result by result
 * (tests/flow_batch/fb_check.h).  Reported: best and median MB/s and
 * Minsn/s, and the ratios libipt / ptdecode of the best and median times.
 * --cpu-time measures the thread's CPU time instead of wall-clock time (for
 * a shared machine); --no-check skips the check; --only insn or --only block
 * times only that batch decoder (for profiles: no libipt pass, no ratio).
 * --smoke: the first 64 KiB of mruby, one pass.  Exits 77 when the corpus or
 * libipt is absent. */

#include "fb_check.h"
#include "flow_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PTD_CORPORA_DIR
#define PTD_CORPORA_DIR "../shared/corpora"
#endif

/* The four decoders (D_* in flow_common.h). */
static const char *const flow_dec_names[D_COUNT] = {
        "batch insn+time", "libipt insn+time", "batch block", "libipt block"};

/* The consumer's arrays: 1024 instructions (16 KiB of IPs and times) and
 * 1024 blocks (32 KiB).  The IPs and times of a call stay in the L1 data
 * cache until the consumer reads them; with 4096 instructions (64 KiB)
 * they do not, and the instruction flow measured 70 against 86 MB/s on
 * mruby (docs/flow-batch.md, stop 16), as the packet benchmark's batch
 * size did (docs/benchmarks.md). */
enum { insn_cap = 1024, block_cap = 1024 };

/* The consumer of ptd_flow_next_insns()' arrays: an XOR over every IP plus
 * its time.  The default x86-64 build vectorizes it with SSE2 (two entries
 * per step); where the CPU has AVX2, a copy built for it takes four, so
 * that the benchmark's own work does not hold the decoder back more than a
 * program built for the machine would. */
static inline uint64_t xor_sum_plain(const uint64_t *ips, const uint64_t *tscs,
                                     size_t n)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < n; ++i)
		x ^= ips[i] + tscs[i];
	return x;
}

#if (defined(__x86_64__) || defined(__i386__)) &&                              \
        (defined(__GNUC__) || defined(__clang__))
/* (The loop above, inlined and vectorized for AVX2.) */
__attribute__((target("avx2"))) static uint64_t
xor_sum_avx2(const uint64_t *ips, const uint64_t *tscs, size_t n)
{
	return xor_sum_plain(ips, tscs, n);
}

static uint64_t xor_sum(int avx2, const uint64_t *ips, const uint64_t *tscs,
                        size_t n)
{
	return avx2 ? xor_sum_avx2(ips, tscs, n) : xor_sum_plain(ips, tscs, n);
}

static int have_avx2(void)
{
	return __builtin_cpu_supports("avx2") ? 1 : 0;
}
#else
static uint64_t xor_sum(int avx2, const uint64_t *ips, const uint64_t *tscs,
                        size_t n)
{
	(void)avx2;
	return xor_sum_plain(ips, tscs, n);
}

static int have_avx2(void)
{
	return 0;
}
#endif

enum { event_cap = 256 };

/* The consumer of the events of a call: an XOR over each one's type, place
 * and time. */
static uint64_t event_sum(const struct ptd_flow_events *ev)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < ev->count; ++i)
		x ^= (uint64_t)ev->events[i].type + ev->at[i] +
		     ev->events[i].tsc;
	return x;
}

/* The decoding loop of ptd_flow_batch.h over the statements after @dec (one
 * call of ptd_flow_decode_insns() or ptd_flow_decode_blocks() and its
 * consumer), with the time on @p. */
#define RUN_LOOP(p, dec, ...)                                                  \
	do {                                                                   \
		int status_ = ptd_flow_batch_sync_forward(dec);                \
                                                                               \
		(p)->seconds = flow_now((p)->cpu_time);                        \
		while (status_ >= 0) {                                         \
			__VA_ARGS__;                                           \
			if (status_ >= 0 && (status_ & pts_eos))               \
				break;                                         \
			if (status_ < 0 && status_ != -pte_eos) {              \
				(p)->errors += 1;                              \
				status_ = ptd_flow_batch_sync_forward(dec);    \
			}                                                      \
		}                                                              \
		(p)->seconds = flow_now((p)->cpu_time) - (p)->seconds;         \
	} while (0)

static int run_ptd_insn(const struct flow_input *in, struct flow_pass *p)
{
	static uint64_t ips[insn_cap], tscs[insn_cap];
	static struct pt_event events[event_cap];
	static size_t at[event_cap];
	struct ptd_flow_events ev = {events, at, event_cap, 0};
	struct ptd_flow_batch *dec;
	struct pt_config config;
	const int avx2 = have_avx2();

	flow_config_of(&config, in);
	dec = ptd_flow_batch_alloc(&config, NULL);
	if (!dec || ptd_flow_batch_set_image(dec, in->ptd_image) < 0) {
		ptd_flow_batch_free(dec);
		return -1;
	}
	RUN_LOOP(p, dec, {
		size_t n = 0;

		status_ = ptd_flow_decode_insns(dec, ips, tscs, insn_cap, &n,
		                                &ev);
		/* A consumer that keeps up: an XOR over every IP and time
		 * (vectorized) and over the events, mixed once per call. */
		flow_mix(p, xor_sum(avx2, ips, tscs, n) ^ event_sum(&ev));
		p->insns += n;
		p->events += ev.count;
	});
	ptd_flow_batch_free(dec);
	return 0;
}

static int run_ptd_blk(const struct flow_input *in, struct flow_pass *p)
{
	static struct ptd_flow_block blocks[block_cap];
	static struct pt_event events[event_cap];
	static size_t at[event_cap];
	struct ptd_flow_events ev = {events, at, event_cap, 0};
	struct ptd_flow_batch *dec;
	struct pt_config config;

	flow_config_of(&config, in);
	dec = ptd_flow_batch_alloc(&config, NULL);
	if (!dec || ptd_flow_batch_set_image(dec, in->ptd_image) < 0) {
		ptd_flow_batch_free(dec);
		return -1;
	}
	RUN_LOOP(p, dec, {
		size_t n = 0, i;
		uint64_t x = 0, k = 0;

		status_ =
		        ptd_flow_decode_blocks(dec, blocks, block_cap, &n, &ev);
		/* A consumer that keeps up, as for instructions: an XOR
		 * over every block's IP, end IP and time and a sum of the
		 * instruction counts, mixed once per call (not one
		 * multiplication chained through every block). */
		for (i = 0; i < n; ++i) {
			x ^= blocks[i].ip ^ blocks[i].end_ip ^ blocks[i].tsc;
			k += blocks[i].ninsn;
		}
		flow_mix(p, x ^ event_sum(&ev));
		p->insns += k;
		p->blocks += n;
		p->events += ev.count;
	});
	ptd_flow_batch_free(dec);
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
	        "usage: %s [--corpora <dir>] [--large-mb <n>] [--reps <n>] "
	        "[--cpu-time] [--no-check] [--only insn|block] [--smoke]\n",
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
	int smoke = 0, bad = 0, check = 1, use_cpu_time = 0, i;
	unsigned mask = 0xf;

	for (i = 1; i < argc; ++i) {
		if (!strcmp(argv[i], "--smoke"))
			smoke = 1;
		else if (!strcmp(argv[i], "--cpu-time"))
			use_cpu_time = 1;
		else if (!strcmp(argv[i], "--no-check"))
			check = 0;
		else if (!strcmp(argv[i], "--only") && i + 1 < argc &&
		         !strcmp(argv[i + 1], "insn")) {
			mask = 1u << D_PTD_INSN;
			++i;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc &&
		           !strcmp(argv[i + 1], "block")) {
			mask = 1u << D_PTD_BLK;
			++i;
		} else if (!strcmp(argv[i], "--corpora") && i + 1 < argc)
			corpora = argv[++i];
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--large-mb") && i + 1 < argc)
			large_mb = (unsigned)strtoul(argv[++i], NULL, 0);
		else {
			usage(argv[0]);
			return 2;
		}
	}
	if (!reps)
		reps = 1;
	decs.names = flow_dec_names;
	decs.ptd_insn = run_ptd_insn;
	decs.ptd_blk = run_ptd_blk;
	decs.cpu_time = use_cpu_time;
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
	if (check) {
		/* Untimed: the batch decoder is pt_insn_next(), result by
		 * result. */
		struct fb_check_result res;
		struct pt_config config;
		int err;

		flow_config_of(&config, &mruby);
		err = fb_check("mruby", &config, mruby.ptd_image, insn_cap, 0,
		               &res);
		printf("check: batch flow = pt_insn_next on mruby: %s (%" PRIu64
		       " insns, %" PRIu64 " events, %" PRIu64 " errors)\n",
		       err ? "FAILED" : "ok", res.insns, res.events,
		       res.errors);
		if (err)
			bad = 1;
	}
	bad |= flow_bench_input(&ipt, &mruby, smoke ? 1 : reps, mask, &decs);
	if (!smoke)
		bad |= flow_bench_large(&ipt, &mruby, large_mb, reps, mask,
		                        &decs);
	flow_input_free(&ipt, &mruby);
	ptd_libipt_close(&ipt);
	return bad;
}
