/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet-decoder throughput: ptdecode against libipt 2.0.5.
 *
 * Decodes the same in-memory buffers, in the same process, on one thread,
 * with three decoders:
 *
 *   next    ptdecode's pt_pkt_next(), one packet per call;
 *   batch   ptdecode's ptd_pkt_next_batch(), up to --batch packets per call;
 *   libipt  libipt 2.0.5's pt_pkt_next(), loaded with dlopen() (the two
 *           libraries export the same symbols).
 *
 * Every decoder does what a real user does: pt_pkt_sync_forward(), then
 * decode to the end, resynchronizing after every error.  Each run adds the
 * type and size of every packet to a checksum; the packet and error counts
 * and the checksums of all three decoders must agree, and are printed, so
 * that the work cannot be optimized away and the decoders are known to have
 * done the same work.
 *
 * Inputs: every corpus trace found under --corpora (missing ones are
 * skipped with a message), then two large buffers of at least --large-mb
 * MiB: the corpus traces that were found, concatenated over and over, and
 * a generated stream shaped like a user-space branch trace with timing
 * (tests/diff/pktgen.h, profile "realistic").
 *
 * Each measurement is repeated --reps times, the decoders interleaved; a
 * small input is decoded several times per sample so that each sample
 * takes at least --min-ms milliseconds.  Reported: best and median MB/s
 * (10^6 bytes per second) and million packets per second, and the ratios
 * ptdecode / libipt of the best and of the median times. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "bench_stats.h"
#include "elf_text.h"
#include "libipt_dl.h"
#include "pkt_equal.h"
#include "pktgen.h"
#include "ptdecode/ptdecode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef PTD_CORPORA_DIR
#define PTD_CORPORA_DIR "../shared/corpora"
#endif

/* The largest batch size accepted by --batch. */
#define PTD_BENCH_BATCH_MAX 65536

/* The corpus traces, relative to the corpora folder (see its README), and
 * the names the table shows. */
static const struct {
	const char *path;
	const char *name;
} ptd_corpus_files[] = {
        {"libxdc/mruby/trace", "libxdc mruby"},
        {"libxdc/foo/trace", "libxdc foo"},
        {"libxdc/Unzip/trace", "libxdc Unzip"},
        {"libxdc/dyn_test/sample_raw_0", "libxdc dyn_test"},
        {"libxdc/icelake_tip/ptlog", "libxdc icelake_tip"},
        {"libxdc/Kernel/trace", "libxdc Kernel"},
        {"libxdc/infinite_loop_linux/loop_trace_26023_0",
         "libxdc infinite_loop"},
        {"perf-data/perf.data.intel_pt-4.14.auxtrace-idx0-cpu0.bin",
         "perf-data cpu0"},
        {"perf-data/perf.data.intel_pt-4.14.auxtrace-idx3-cpu3.bin",
         "perf-data cpu3"},
        {"dynamorio/ad6a637b/test_simple.raw/pt.bin", "dynamorio ad6a637b"},
        {"dynamorio/d9e0e666/test_simple.raw/pt.bin", "dynamorio d9e0e666"},
        {"dynamorio/2aad718d/test_simple.tracedir/pt.bin",
         "dynamorio 2aad718d"},
        {"dynamorio/b598b46a/test_simple.tracedir/pt.bin",
         "dynamorio b598b46a"},
        {"dynamorio/af553eb7/test_simple.tracedir/pt.bin",
         "dynamorio af553eb7"},
        {"dynamorio/f80d7df0/test_simple.tracedir/pt.bin",
         "dynamorio f80d7df0"},
        {"intelpt-summary/traced_data.bin", "intelpt-summary"},
};

#define PTD_NCORPUS (sizeof(ptd_corpus_files) / sizeof(ptd_corpus_files[0]))

enum { DEC_NEXT, DEC_BATCH, DEC_IPT, DEC_COUNT };

static const char *const ptd_dec_names[DEC_COUNT] = {"next", "batch", "libipt"};

struct bench_opts {
	const char *corpora;
	unsigned reps;
	double min_seconds;
	size_t large_size;
	size_t batch;
	uint64_t seed;
	int smoke;
	/* Time only this decoder (-1: all). */
	int only;
	/* Skip the single corpus traces, measure only the large buffers. */
	int large_only;
	/* The batch consumer's loop unrolled (--consumer unrolled). */
	int unrolled;
	/* CLOCK_MONOTONIC, or CLOCK_THREAD_CPUTIME_ID (--cpu-time). */
	clockid_t clock;
};

/* What one decoding pass over a buffer saw. */
struct pass {
	uint64_t packets;
	uint64_t errors;
	uint64_t checksum;
};

/* One input buffer. */
struct input {
	char name[64];
	uint8_t *buf;
	size_t size;
};

struct bench {
	const struct bench_opts *opts;
	const struct ptd_libipt *ipt;
	struct pt_packet *batch;
	uint64_t *offsets;
	int failed;
};

/* The consumer: what is timed besides decoding.  Every packet's type and
 * size go into a checksum (and the packet count), the least a user of a
 * packet decoder does (a dump or a decoder dispatches on the type and moves
 * on by the size), and enough that the work cannot be optimized away.  The
 * per-packet work is the same for the three decoders: two loads, a
 * multiply-add, a count.  Each decoder's loop adds into a local struct
 * pass, so that the counters stay in registers.  The payload fields are
 * checked apart, untimed (verify_input()). */
static inline void pass_add(struct pass *p, const struct pt_packet *pkt)
{
	p->packets += 1;
	p->checksum += (uint64_t)pkt->type * 257u + pkt->size;
}

/* The consumer of the batch decoder: pass_add() for @pkts[0..n).  Only the
 * loop around it differs between the two variants (--consumer): "rolled",
 * one packet per turn of the loop as gcc 12 compiles it by itself (10
 * instructions per packet), and "unrolled", four packets per turn (what
 * clang does by default, and what gcc does with -funroll-loops): the same
 * loads and arithmetic with a quarter of the loop control.  The decoders
 * that return one packet per call have no loop of their own to unroll. */
static inline void pass_add_rolled(struct pass *p, const struct pt_packet *pkts,
                                   int n)
{
#pragma GCC unroll 1
	for (int i = 0; i < n; ++i)
		pass_add(p, &pkts[i]);
}

static inline void pass_add_unrolled(struct pass *p,
                                     const struct pt_packet *pkts, int n)
{
#pragma GCC unroll 4
	for (int i = 0; i < n; ++i)
		pass_add(p, &pkts[i]);
}

/* A decode that stopped with @rc before the next sync: at the end of the
 * buffer, or with an error that counts. */
static inline void pass_stop(struct pass *p, int rc)
{
	if (rc != -pte_eos)
		p->errors += 1;
}

/* The decoder configuration for @in. */
static void input_config(struct pt_config *config, const struct input *in)
{
	pt_config_init(config);
	config->begin = in->buf;
	config->end = in->buf + in->size;
}

/* run_next(), run_batch() and run_ipt() have the same sync loop, each its
 * own copy: one loop shared through function pointers would call ptdecode
 * indirectly, and these loops are what is measured. */

/* Decode @in with ptdecode's pt_pkt_next.  Returns 0 or -1. */
static int run_next(struct bench *b, const struct input *in, struct pass *p)
{
	struct pass acc = {0, 0, 0};
	struct pt_config config;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;

	input_config(&config, in);
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec)
		return -1;
	(void)b;
	while (pt_pkt_sync_forward(dec) >= 0) {
		int rc;

		while ((rc = pt_pkt_next(dec, &pkt, sizeof(pkt))) >= 0)
			pass_add(&acc, &pkt);
		pass_stop(&acc, rc);
	}
	pt_pkt_free_decoder(dec);
	*p = acc;
	return 0;
}

/* Decode @in with ptdecode's ptd_pkt_next_batch. */
static int run_batch(struct bench *b, const struct input *in, struct pass *p)
{
	struct pass acc = {0, 0, 0};
	struct pt_config config;
	struct pt_packet_decoder *dec;
	struct pt_packet *pkts = b->batch;
	size_t count = b->opts->batch;

	input_config(&config, in);
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec)
		return -1;
	while (pt_pkt_sync_forward(dec) >= 0) {
		int n;

		if (b->opts->unrolled) {
			while ((n = ptd_pkt_next_batch(dec, pkts, count,
			                               NULL)) > 0)
				pass_add_unrolled(&acc, pkts, n);
		} else {
			while ((n = ptd_pkt_next_batch(dec, pkts, count,
			                               NULL)) > 0)
				pass_add_rolled(&acc, pkts, n);
		}
		pass_stop(&acc, n);
	}
	pt_pkt_free_decoder(dec);
	*p = acc;
	return 0;
}

/* Decode @in with libipt's pt_pkt_next. */
static int run_ipt(struct bench *b, const struct input *in, struct pass *p)
{
	struct pass acc = {0, 0, 0};
	const struct ptd_libipt *ipt = b->ipt;
	struct pt_config config;
	struct ptd_ipt_pkt_decoder *dec;
	struct pt_packet pkt;

	input_config(&config, in);
	dec = ipt->pkt_alloc_decoder(&config);
	if (!dec)
		return -1;
	while (ipt->pkt_sync_forward(dec) >= 0) {
		int rc;

		while ((rc = ipt->pkt_next(dec, &pkt, sizeof(pkt))) >= 0)
			pass_add(&acc, &pkt);
		pass_stop(&acc, rc);
	}
	ipt->pkt_free_decoder(dec);
	*p = acc;
	return 0;
}

static int run(struct bench *b, int which, const struct input *in,
               struct pass *p)
{
	memset(p, 0, sizeof(*p));
	switch (which) {
	case DEC_NEXT:
		return run_next(b, in, p);
	case DEC_BATCH:
		return run_batch(b, in, p);
	default:
		return run_ipt(b, in, p);
	}
}

/* The untimed check of one input: the three decoders in lockstep over the
 * whole buffer, every packet compared field by field (type, size and every
 * payload field its type defines, fuzz/pkt_equal.h), with its offset, and
 * every error with its code and offset.  This is what makes it safe for the
 * timed consumer to look at types and sizes only. */

/* One item of a decoder's output: a packet (rc = its size), an error (rc <
 * 0, at @offset), or the end (no more sync point). */
struct item {
	int rc;
	int end;
	uint64_t offset;
	struct pt_packet pkt;
};

/* A decoder seen as a sequence of items. */
struct seq {
	int which;
	const struct ptd_libipt *ipt;
	struct pt_packet_decoder *dec;
	struct ptd_ipt_pkt_decoder *idec;
	int synced;
	/* The batch decoder's current batch. */
	struct pt_packet *pkts;
	uint64_t *offs;
	size_t count, n, i;
};

static void seq_get_offset(struct seq *s, uint64_t *offset)
{
	*offset = UINT64_MAX;
	if (s->which == DEC_IPT)
		(void)s->ipt->pkt_get_offset(s->idec, offset);
	else
		(void)pt_pkt_get_offset(s->dec, offset);
}

static void seq_next(struct seq *s, struct item *it)
{
	memset(it, 0, sizeof(*it));
	if (s->which == DEC_BATCH && s->i < s->n) {
		it->pkt = s->pkts[s->i];
		it->offset = s->offs[s->i];
		it->rc = it->pkt.size;
		s->i += 1;
		return;
	}
	if (!s->synced) {
		int rc = (s->which == DEC_IPT)
		                 ? s->ipt->pkt_sync_forward(s->idec)
		                 : pt_pkt_sync_forward(s->dec);

		if (rc < 0) {
			it->end = 1;
			return;
		}
		s->synced = 1;
	}
	seq_get_offset(s, &it->offset);
	if (s->which == DEC_BATCH) {
		int n = ptd_pkt_next_batch(s->dec, s->pkts, s->count, s->offs);

		if (n > 0) {
			s->n = (size_t)n;
			s->i = 0;
			seq_next(s, it);
			return;
		}
		/* No packet: an error, or a zero-size unknown packet (not
		 * with the default configuration). */
		it->rc = n ? n : -pte_internal;
	} else if (s->which == DEC_IPT) {
		it->rc = s->ipt->pkt_next(s->idec, &it->pkt, sizeof(it->pkt));
	} else {
		it->rc = pt_pkt_next(s->dec, &it->pkt, sizeof(it->pkt));
	}
	if (it->rc < 0)
		s->synced = 0;
}

/* Compare @got with the reference @ref; print the first difference. */
static int item_diff(const struct input *in, int which, uint64_t index,
                     const struct item *got, const struct item *ref)
{
	const char *what = NULL;

	if (got->end != ref->end)
		what = "end of decoding";
	else if (got->end)
		return 0;
	else if (got->rc != ref->rc)
		what = "return value";
	else if (got->offset != ref->offset)
		what = "offset";
	else if (got->rc > 0)
		what = ptd_pkt_diff(&got->pkt, &ref->pkt);
	if (!what)
		return 0;
	fprintf(stderr,
	        "%s: MISMATCH at item %" PRIu64 ": %s differs in %s (%s: rc %d "
	        "at 0x%" PRIx64 ", libipt: rc %d at 0x%" PRIx64 ")\n",
	        in->name, index, ptd_dec_names[which], what,
	        ptd_dec_names[which], got->rc, got->offset, ref->rc,
	        ref->offset);
	return -1;
}

/* Check that ptdecode's two decoders produce exactly libipt's items over
 * @in.  Returns 0, or -1 after printing the first difference. */
static int verify_input(struct bench *b, const struct input *in)
{
	struct seq seq[DEC_COUNT];
	struct pt_config config;
	uint64_t index = 0;
	int status = -1;

	memset(seq, 0, sizeof(seq));
	input_config(&config, in);
	for (int d = 0; d < DEC_COUNT; ++d) {
		seq[d].which = d;
		seq[d].ipt = b->ipt;
		if (d == DEC_IPT)
			seq[d].idec = b->ipt->pkt_alloc_decoder(&config);
		else
			seq[d].dec = pt_pkt_alloc_decoder(&config);
		if (d == DEC_IPT ? !seq[d].idec : !seq[d].dec)
			goto out;
	}
	seq[DEC_BATCH].pkts = b->batch;
	seq[DEC_BATCH].offs = b->offsets;
	seq[DEC_BATCH].count = b->opts->batch;
	for (;; ++index) {
		struct item ref, got;

		seq_next(&seq[DEC_IPT], &ref);
		for (int d = 0; d < DEC_IPT; ++d) {
			seq_next(&seq[d], &got);
			if (item_diff(in, d, index, &got, &ref) < 0)
				goto out;
		}
		if (ref.end)
			break;
	}
	status = 0;
out:
	if (status < 0 && index == 0)
		fprintf(stderr, "%s: cannot allocate a decoder\n", in->name);
	for (int d = 0; d < DEC_COUNT; ++d) {
		if (seq[d].idec)
			b->ipt->pkt_free_decoder(seq[d].idec);
		if (seq[d].dec)
			pt_pkt_free_decoder(seq[d].dec);
	}
	return status;
}

/* Measure one input with all decoders and print its table row. */
static void bench_input(struct bench *b, const struct input *in)
{
	const struct bench_opts *o = b->opts;
	struct pass ref[DEC_COUNT];
	double *times[DEC_COUNT] = {NULL};
	double best[DEC_COUNT], median[DEC_COUNT];
	unsigned loops = 1;
	double t;

	/* The whole output of the three decoders compared, untimed. */
	if (verify_input(b, in) < 0) {
		b->failed = 1;
		return;
	}

	/* One checked pass each; it also warms the caches and tells how many
	 * passes make a sample of at least min_seconds. */
	for (int d = 0; d < DEC_COUNT; ++d) {
		t = bench_now(o->clock);
		if (run(b, d, in, &ref[d]) < 0) {
			fprintf(stderr, "%s: cannot allocate a decoder\n",
			        in->name);
			b->failed = 1;
			return;
		}
		t = bench_now(o->clock) - t;
		if (d == DEC_IPT && t < o->min_seconds) {
			double want = o->min_seconds / (t > 1e-7 ? t : 1e-7);

			loops = want > 1e6 ? 1000000u : (unsigned)want + 1;
		}
	}
	for (int d = 1; d < DEC_COUNT; ++d) {
		if (ref[d].packets != ref[0].packets ||
		    ref[d].errors != ref[0].errors ||
		    ref[d].checksum != ref[0].checksum) {
			fprintf(stderr,
			        "%s: MISMATCH: %s: %" PRIu64
			        " packets, %" PRIu64
			        " errors, checksum %" PRIx64 "; %s: %" PRIu64
			        " packets, %" PRIu64
			        " errors, checksum %" PRIx64 "\n",
			        in->name, ptd_dec_names[0], ref[0].packets,
			        ref[0].errors, ref[0].checksum,
			        ptd_dec_names[d], ref[d].packets, ref[d].errors,
			        ref[d].checksum);
			b->failed = 1;
		}
	}

	for (int d = 0; d < DEC_COUNT; ++d) {
		times[d] = malloc(o->reps * sizeof(double));
		if (!times[d]) {
			fprintf(stderr, "out of memory\n");
			b->failed = 1;
			goto out;
		}
	}
	for (unsigned r = 0; r < o->reps; ++r) {
		for (int d = 0; d < DEC_COUNT; ++d) {
			struct pass p;

			if (o->only >= 0 && d != o->only) {
				times[d][r] = 1.0;
				continue;
			}
			t = bench_now(o->clock);
			for (unsigned l = 0; l < loops; ++l)
				(void)run(b, d, in, &p);
			times[d][r] = (bench_now(o->clock) - t) / loops;
			if (p.checksum != ref[d].checksum)
				b->failed = 1;
		}
	}
	for (int d = 0; d < DEC_COUNT; ++d) {
		bench_best_median(times[d], o->reps, &best[d], &median[d]);
	}

	printf("%-28s %10zu %9" PRIu64 " %5" PRIu64, in->name, in->size,
	       ref[0].packets, ref[0].errors);
	for (int d = 0; d < DEC_COUNT; ++d)
		printf(" | %7.0f %7.0f %6.1f", (double)in->size / best[d] / 1e6,
		       (double)in->size / median[d] / 1e6,
		       (double)ref[0].packets / best[d] / 1e6);
	printf(" | %5.2f %5.2f %5.2f %5.2f\n", best[DEC_IPT] / best[DEC_NEXT],
	       median[DEC_IPT] / median[DEC_NEXT],
	       best[DEC_IPT] / best[DEC_BATCH],
	       median[DEC_IPT] / median[DEC_BATCH]);
	fflush(stdout);
out:
	for (int d = 0; d < DEC_COUNT; ++d)
		free(times[d]);
}

static void print_header(const struct bench_opts *o)
{
	printf("%-28s %10s %9s %5s", "input", "bytes", "packets", "errs");
	for (int d = 0; d < DEC_COUNT; ++d)
		printf(" | %-22s", ptd_dec_names[d]);
	printf(" | %-23s\n", "ratio vs libipt");
	printf("%-28s %10s %9s %5s", "", "", "", "");
	for (int d = 0; d < DEC_COUNT; ++d)
		printf(" | %7s %7s %6s", "MB/s", "MB/s", "Mpkt/s");
	printf(" | %5s %5s %5s %5s\n", "next", "next", "batch", "batch");
	printf("%-28s %10s %9s %5s", "", "", "", "");
	for (int d = 0; d < DEC_COUNT; ++d)
		printf(" | %7s %7s %6s", "best", "median", "best");
	printf(" | %5s %5s %5s %5s\n", "best", "med", "best", "med");
	(void)o;
}

/* Fill @out with copies of the @n inputs, one after the other, until it
 * holds at least @size bytes. */
static int concat_inputs(struct input *out, const struct input *ins, size_t n,
                         size_t size)
{
	size_t total = 0, round = 0;

	for (size_t i = 0; i < n; ++i)
		round += ins[i].size;
	if (!round)
		return -1;
	out->size = (size + round - 1) / round * round;
	out->buf = malloc(out->size);
	if (!out->buf)
		return -1;
	while (total < out->size) {
		for (size_t i = 0; i < n; ++i) {
			memcpy(out->buf + total, ins[i].buf, ins[i].size);
			total += ins[i].size;
		}
	}
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
	        "usage: %s [--smoke] [--reps N] [--min-ms N] [--large-mb N] "
	        "[--batch N] [--corpora DIR] [--seed N] [--large-only] "
	        "[--only DEC] [--consumer rolled|unrolled] [--cpu-time]\n"
	        "  --smoke       a quick run with tiny inputs (for ctest)\n"
	        "  --reps N      samples per measurement (default 9)\n"
	        "  --min-ms N    minimum length of a sample (default 50)\n"
	        "  --large-mb N  size of the large buffers in MiB (default "
	        "256)\n"
	        "  --batch N     packets per ptd_pkt_next_batch call (default "
	        "1024: 24 KiB of packets, which stay in the L1 cache)\n"
	        "  --corpora DIR the real traces (default %s)\n"
	        "  --large-only  only the large buffers, not each trace\n"
	        "  --only DEC    time only DEC: next, batch or libipt (for "
	        "profiling)\n"
	        "  --consumer C  the batch consumer's loop: unrolled (default) "
	        "or rolled\n"
	        "  --cpu-time    time with the thread's CPU time, not the wall "
	        "clock\n",
	        prog, PTD_CORPORA_DIR);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return (errno || !*s || *end) ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	struct ptd_libipt ipt;
	struct bench b;
	struct input corpus[PTD_NCORPUS];
	struct input large;
	struct pt_version ver;
	size_t ncorpus = 0;
	uint64_t reps = 9, min_ms = 50, large_mb = 256, batch = 1024;
	char msg[512];
	int status = 0;

	memset(&o, 0, sizeof(o));
	o.corpora = PTD_CORPORA_DIR;
	o.seed = 1;
	o.only = -1;
	o.unrolled = 1;
	o.clock = CLOCK_MONOTONIC;
	for (int i = 1; i < argc; ++i) {
		const char *arg = argv[i],
		           *val = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t *dst = NULL;

		if (!strcmp(arg, "--smoke")) {
			o.smoke = 1;
			continue;
		}
		if (!strcmp(arg, "--large-only")) {
			o.large_only = 1;
			continue;
		}
		if (!strcmp(arg, "--cpu-time")) {
			o.clock = CLOCK_THREAD_CPUTIME_ID;
			continue;
		}
		if (!strcmp(arg, "--only") && val) {
			for (int d = 0; d < DEC_COUNT; ++d) {
				if (!strcmp(val, ptd_dec_names[d]))
					o.only = d;
			}
			if (o.only < 0) {
				usage(argv[0]);
				return 2;
			}
			++i;
			continue;
		}
		if (!strcmp(arg, "--consumer") && val) {
			if (!strcmp(val, "unrolled"))
				o.unrolled = 1;
			else if (!strcmp(val, "rolled"))
				o.unrolled = 0;
			else {
				usage(argv[0]);
				return 2;
			}
			++i;
			continue;
		}
		if (!strcmp(arg, "--corpora") && val) {
			o.corpora = val;
			++i;
			continue;
		}
		if (!strcmp(arg, "--reps"))
			dst = &reps;
		else if (!strcmp(arg, "--min-ms"))
			dst = &min_ms;
		else if (!strcmp(arg, "--large-mb"))
			dst = &large_mb;
		else if (!strcmp(arg, "--batch"))
			dst = &batch;
		else if (!strcmp(arg, "--seed"))
			dst = &o.seed;
		if (!dst || !val || parse_u64(val, dst) < 0 || !reps ||
		    reps > 1000 || min_ms > 60000 || !large_mb ||
		    large_mb > 65536 || !batch || batch > PTD_BENCH_BATCH_MAX) {
			usage(argv[0]);
			return 2;
		}
		++i;
	}
	if (o.smoke) {
		reps = 1;
		min_ms = 1;
		large_mb = 1;
	}
	o.reps = (unsigned)reps;
	o.min_seconds = (double)min_ms / 1000.0;
	o.large_size = (size_t)large_mb << 20;
	o.batch = (size_t)batch;

	if (ptd_libipt_open(&ipt, msg, sizeof(msg)) < 0) {
		printf("SKIP: %s\n", msg);
		return 77;
	}
	ver = ipt.library_version();
	memset(&b, 0, sizeof(b));
	b.opts = &o;
	b.ipt = &ipt;
	b.batch = calloc(o.batch, sizeof(*b.batch));
	b.offsets = calloc(o.batch, sizeof(*b.offsets));
	if (!b.batch || !b.offsets) {
		fprintf(stderr, "out of memory\n");
		free(b.batch);
		free(b.offsets);
		ptd_libipt_close(&ipt);
		return 1;
	}
	printf("pkt_bench: ptdecode %s vs libipt %u.%u.%u%s; %u reps, samples "
	       ">= %" PRIu64 " ms, batch %zu (consumer %s), large buffers "
	       "%" PRIu64 " MiB, %s\n",
	       ptd_version_string(), ver.major, ver.minor, ver.patch,
	       ver.ext ? ver.ext : "", o.reps, min_ms, o.batch,
	       o.unrolled ? "unrolled" : "rolled", large_mb,
	       o.clock == CLOCK_MONOTONIC ? "wall clock" : "thread CPU time");

	for (size_t i = 0; i < PTD_NCORPUS; ++i) {
		char path[4096];
		struct input *in = &corpus[ncorpus];

		snprintf(path, sizeof(path), "%s/%s", o.corpora,
		         ptd_corpus_files[i].path);
		in->buf = ptd_read_whole_file(path, &in->size);
		if (!in->buf) {
			printf("skip: %s not found or empty\n", path);
			continue;
		}
		snprintf(in->name, sizeof(in->name), "%s",
		         ptd_corpus_files[i].name);
		ncorpus += 1;
	}

	print_header(&o);
	/* In smoke mode the corpus traces only take part in the large
	 * buffer. */
	for (size_t i = 0; i < ncorpus && !o.smoke && !o.large_only; ++i)
		bench_input(&b, &corpus[i]);

	if (ncorpus) {
		if (concat_inputs(&large, corpus, ncorpus, o.large_size) < 0) {
			fprintf(stderr, "out of memory\n");
			status = 1;
		} else {
			size_t round = 0;

			for (size_t i = 0; i < ncorpus; ++i)
				round += corpus[i].size;
			snprintf(large.name, sizeof(large.name),
			         "corpus concat (%zu x%zu)", ncorpus,
			         large.size / round);
			bench_input(&b, &large);
			free(large.buf);
		}
	} else {
		printf("skip: no corpus trace found under %s: no corpus "
		       "concatenation\n",
		       o.corpora);
	}

	large.size = o.large_size;
	large.buf = malloc(large.size);
	if (!large.buf) {
		fprintf(stderr, "out of memory\n");
		status = 1;
	} else {
		struct ptd_gen gen;
		int64_t n;

		ptd_gen_init(&gen, o.seed, PTD_GEN_REALISTIC);
		n = ptd_gen_fill(&gen, large.buf, large.size, NULL);
		if (n <= 0) {
			fprintf(stderr,
			        "cannot generate a stream: %" PRId64 "\n", n);
			status = 1;
		} else {
			large.size = (size_t)n;
			snprintf(large.name, sizeof(large.name),
			         "generated realistic");
			bench_input(&b, &large);
		}
		free(large.buf);
	}

	for (size_t i = 0; i < ncorpus; ++i)
		free(corpus[i].buf);
	free(b.batch);
	free(b.offsets);
	ptd_libipt_close(&ipt);
	if (b.failed)
		status = 1;
	if (status)
		printf("pkt_bench: FAILED\n");
	return status;
}
