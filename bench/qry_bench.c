/* SPDX-License-Identifier: BSD-3-Clause */
/* Query-decoder throughput: ptdecode against libipt 2.0.5.
 *
 * Decodes the same in-memory buffers, in the same process, on one thread,
 * with four decoders:
 *
 *   batch     ptdecode's ptd_qry_next_batch() (include/ptdecode/ptd_query.h),
 *             256 items per call;
 *   ptdecode  pt_qry_* of ptdecode (the default, accurate time estimator);
 *   libipt    libipt 2.0.5's pt_qry_*, loaded with dlopen() (the two
 *             libraries export the same symbols);
 *   event     ptdecode's event decoder (pt_evt_next(), libipt 2.1's API),
 *             which hands out the same results as events (libipt 2.0.5 has
 *             no event decoder to compare it with).
 *
 * The pull decoders do what a flow decoder does without the code:
 * pt_qry_sync_forward, then an event while one is pending, else a
 * conditional branch, else (on -pte_bad_query) an indirect branch, with
 * pt_qry_time() after every step; after an error, sync forward.  The batch
 * decoder returns the same results as items.  So every TNT bit, every IP and
 * every event is fetched and timestamped.  The consumers do the same work
 * with every result: they count conditional branches and their taken bits
 * (a run of outcomes adds its count and its population count), mix every IP
 * and event type into a checksum, count errors and synchronizations, and add
 * the time of every branch, IP and event (tsc + lost_mtc + lost_cyc, when
 * pt_qry_time() returns 0) to a time sum.  The counts are printed and must
 * agree, so that the work cannot be optimized away and the decoders did the
 * same work; the time sums of the two ptdecode decoders must be equal (the
 * libipt estimator differs by design).
 *
 * Before timing, an untimed pass checks that the batch results equal the
 * pull API's item for item: each item expanded (a run into single outcomes)
 * against a ptdecode pull decoder stepped alongside, comparing kinds, taken
 * bits, IPs, whole events, error codes, offsets and flags (an error item for
 * every failed call of the loop, a query's -pte_eos included), and
 * pt_qry_time()'s value, lost counts and status.
 *
 * Inputs: every corpus trace found under --corpora (with the configuration
 * its README gives), then a buffer of at least --large-mb MiB: the corpus
 * traces concatenated over and over, decoded with the DynamoRIO
 * configuration (the perf-data traces' MTCs then disagree with their TSCs,
 * and the time engine corrects them at every TSC, which costs it a
 * look-ahead there: docs/benchmarks-query.md).
 * Each measurement is repeated --reps times, the decoders interleaved; a
 * small input is decoded several times per sample so that each sample
 * takes at least --min-ms milliseconds.  Reported: best and median MB/s
 * (10^6 bytes per second) and the ratios ptdecode / libipt of the best and
 * of the median times.  --smoke: a quick run on a small encoded trace (for
 * ctest). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "bench_stats.h"
#include "elf_text.h"
#include "libipt_dl.h"
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

#define PTD_EXIT_SKIP 77

/* Timing configurations of the corpora (see their README). */
enum qcfg { QCFG_NONE, QCFG_PERF, QCFG_DYNAMORIO };

static const struct {
	const char *path;
	const char *name;
	enum qcfg cfg;
} ptd_corpus_files[] = {
        {"libxdc/mruby/trace", "libxdc mruby", QCFG_NONE},
        {"libxdc/foo/trace", "libxdc foo", QCFG_NONE},
        {"libxdc/Unzip/trace", "libxdc Unzip", QCFG_NONE},
        {"libxdc/dyn_test/sample_raw_0", "libxdc dyn_test", QCFG_NONE},
        {"libxdc/icelake_tip/ptlog", "libxdc icelake_tip", QCFG_NONE},
        {"libxdc/Kernel/trace", "libxdc Kernel", QCFG_NONE},
        {"libxdc/infinite_loop_linux/loop_trace_26023_0",
         "libxdc infinite_loop", QCFG_NONE},
        {"perf-data/perf.data.intel_pt-4.14.auxtrace-idx0-cpu0.bin",
         "perf-data cpu0", QCFG_PERF},
        {"perf-data/perf.data.intel_pt-4.14.auxtrace-idx3-cpu3.bin",
         "perf-data cpu3", QCFG_PERF},
        {"dynamorio/ad6a637b/test_simple.raw/pt.bin", "dynamorio ad6a637b",
         QCFG_DYNAMORIO},
        {"dynamorio/d9e0e666/test_simple.raw/pt.bin", "dynamorio d9e0e666",
         QCFG_DYNAMORIO},
        {"dynamorio/2aad718d/test_simple.tracedir/pt.bin", "dynamorio 2aad718d",
         QCFG_DYNAMORIO},
        {"dynamorio/b598b46a/test_simple.tracedir/pt.bin", "dynamorio b598b46a",
         QCFG_DYNAMORIO},
        {"dynamorio/af553eb7/test_simple.tracedir/pt.bin", "dynamorio af553eb7",
         QCFG_DYNAMORIO},
        {"dynamorio/f80d7df0/test_simple.tracedir/pt.bin", "dynamorio f80d7df0",
         QCFG_DYNAMORIO},
        {"intelpt-summary/traced_data.bin", "intelpt-summary", QCFG_NONE},
};

#define PTD_NCORPUS (sizeof(ptd_corpus_files) / sizeof(ptd_corpus_files[0]))

enum { DEC_IPT, DEC_BATCH, DEC_PTD, DEC_EVT, DEC_COUNT };

static const char *const ptd_dec_names[DEC_COUNT] = {"libipt", "batch",
                                                     "ptdecode", "event"};

/* Items and events per ptd_qry_next_batch() call. */
#define PTD_BATCH_ITEMS 256

struct bench_opts {
	const char *corpora;
	unsigned reps;
	double min_seconds;
	size_t large_size;
	int smoke;
	/* Time only this decoder (-1: all), only the concatenation. */
	int only;
	int large_only;
	/* Print the ptdecode decoders' checksums and time sums. */
	int sums;
	clockid_t clock;
};

/* What one decoding pass over a buffer saw. */
struct pass {
	uint64_t cond, taken, indirect, events, errors, syncs;
	uint64_t checksum;
	uint64_t timesum;
};

struct input {
	char name[64];
	uint8_t *buf;
	size_t size;
	enum qcfg cfg;
};

struct bench {
	const struct bench_opts *opts;
	const struct ptd_libipt *ipt;
	int failed;
};

static void input_config(struct pt_config *config, const struct input *in)
{
	pt_config_init(config);
	config->begin = in->buf;
	config->end = in->buf + in->size;
	switch (in->cfg) {
	case QCFG_PERF:
		config->mtc_freq = 3;
		config->cpuid_0x15_eax = 2;
		config->cpuid_0x15_ebx = 100;
		config->nom_freq = 12;
		(void)ptd_cpu_parse(&config->cpu, "6/78");
		break;
	case QCFG_DYNAMORIO:
		config->mtc_freq = 3;
		config->cpuid_0x15_eax = 2;
		config->cpuid_0x15_ebx = 308;
		config->nom_freq = 37;
		(void)ptd_cpu_parse(&config->cpu, "6/85");
		break;
	default:
		return;
	}
	(void)pt_cpu_errata(&config->errata, &config->cpu);
}

static inline void mix(struct pass *p, uint64_t v)
{
	p->checksum = (p->checksum ^ v) * UINT64_C(0x100000001b3);
}

/* The flow-decoder loop, for either library (the same code, so that the
 * consumer costs the same). */
#define PTD_QRY_LOOP(dec, SYNC, EVENT, COND, INDIRECT, TIME, EVTYPE)           \
	do {                                                                   \
		int status = -pte_nosync;                                      \
		for (;;) {                                                     \
			uint64_t ip = 0, tsc = 0;                              \
			uint32_t lmtc = 0, lcyc = 0;                           \
			if (status < 0) {                                      \
				if (status != -pte_nosync)                     \
					p->errors++;                           \
				status = SYNC(dec, &ip);                       \
				if (status == -pte_eos)                        \
					break;                                 \
				if (status >= 0)                               \
					p->syncs++;                            \
				continue;                                      \
			}                                                      \
			if (status & pts_event_pending) {                      \
				status = EVENT(dec);                           \
				if (status < 0)                                \
					continue;                              \
				p->events++;                                   \
				mix(p, (uint64_t)EVTYPE);                      \
			} else if (status & pts_eos) {                         \
				status = -pte_nosync;                          \
				continue;                                      \
			} else {                                               \
				int taken = 0;                                 \
				status = COND(dec, &taken);                    \
				if (status == -pte_bad_query) {                \
					status = INDIRECT(dec, &ip);           \
					if (status < 0)                        \
						continue;                      \
					p->indirect++;                         \
					mix(p, ip);                            \
				} else if (status >= 0) {                      \
					p->cond++;                             \
					p->taken += (uint64_t)taken;           \
				} else                                         \
					continue;                              \
			}                                                      \
			if (TIME(dec, &tsc, &lmtc, &lcyc) >= 0)                \
				p->timesum += tsc + lmtc + lcyc;               \
		}                                                              \
	} while (0)

/* The batch decoder with the same consumer.  Counting the taken branches
 * of a TNT item is a population count: always inlined into the two copies
 * below, one built for the POPCNT instruction, one for any x86-64 (where gcc
 * calls libgcc's __popcountdi2, about 20 instructions, for it). */
static inline __attribute__((always_inline)) int
run_batch_loop(const struct input *in, struct pass *p)
{
	struct ptd_qry_item items[PTD_BATCH_ITEMS];
	struct pt_event events[PTD_BATCH_ITEMS];
	struct pt_config config;
	struct pt_query_decoder *dec;

	input_config(&config, in);
	dec = pt_qry_alloc_decoder(&config);
	if (!dec)
		return -1;
	for (;;) {
		int n = ptd_qry_next_batch(dec, items, PTD_BATCH_ITEMS, events,
		                           PTD_BATCH_ITEMS);

		if (n < 0)
			break;
		for (int i = 0; i < n; ++i) {
			const struct ptd_qry_item *it = &items[i];
			uint64_t t = it->tsc + it->lost_mtc + it->lost_cyc;

			switch (it->kind) {
			case ptd_qry_item_tnt:
				p->cond += it->count;
				p->taken += (uint64_t)__builtin_popcountll(
				        it->value);
				if (it->flags & ptd_qry_item_has_tsc)
					p->timesum += t * it->count;
				break;
			case ptd_qry_item_tip:
				p->indirect++;
				mix(p, it->value);
				if (it->flags & ptd_qry_item_has_tsc)
					p->timesum += t;
				break;
			case ptd_qry_item_event:
				p->events++;
				mix(p, (uint64_t)events[it->value].type);
				if (it->flags & ptd_qry_item_has_tsc)
					p->timesum += t;
				break;
			case ptd_qry_item_sync:
				p->syncs++;
				break;
			default:
				p->errors++;
				break;
			}
		}
	}
	pt_qry_free_decoder(dec);
	return 0;
}

#if (defined(__x86_64__) || defined(__i386__)) &&                              \
        (defined(__GNUC__) || defined(__clang__))
__attribute__((target("popcnt"))) static int
run_batch_popcnt(const struct input *in, struct pass *p)
{
	return run_batch_loop(in, p);
}

static int run_batch(const struct input *in, struct pass *p)
{
	if (__builtin_cpu_supports("popcnt"))
		return run_batch_popcnt(in, p);
	return run_batch_loop(in, p);
}
#else
static int run_batch(const struct input *in, struct pass *p)
{
	return run_batch_loop(in, p);
}
#endif

static int run_ptd(const struct input *in, struct pass *p)
{
	struct pt_config config;
	struct pt_query_decoder *dec;
	struct pt_event ev;

	input_config(&config, in);
	dec = pt_qry_alloc_decoder(&config);
	if (!dec)
		return -1;
#define PTD_EVENT(d) pt_qry_event(d, &ev, sizeof(ev))
	PTD_QRY_LOOP(dec, pt_qry_sync_forward, PTD_EVENT, pt_qry_cond_branch,
	             pt_qry_indirect_branch, pt_qry_time, ev.type);
#undef PTD_EVENT
	pt_qry_free_decoder(dec);
	return 0;
}

/* The event decoder (pt_evt_*): every event, a ptev_tnt per TNT packet and
 * a ptev_tip per TIP, with the time each carries.  The PSB+'s tracing
 * status events, which the query decoder does not report, are not
 * counted. */
static int run_evt(const struct input *in, struct pass *p)
{
	struct pt_config config;
	struct pt_event_decoder *dec;
	struct pt_event ev;

	input_config(&config, in);
	dec = pt_evt_alloc_decoder(&config);
	if (!dec)
		return -1;
	for (;;) {
		int status = pt_evt_sync_forward(dec);

		if (status == -pte_eos)
			break;
		if (status < 0) {
			p->errors++;
			continue;
		}
		p->syncs++;
		for (;;) {
			uint64_t t;

			status = pt_evt_next(dec, &ev, sizeof(ev));
			if (status < 0) {
				if (status != -pte_eos)
					p->errors++;
				break;
			}
			t = ev.has_tsc ? ev.tsc + ev.lost_mtc + ev.lost_cyc : 0;
			switch (ev.type) {
			case ptev_tnt:
				p->cond += ev.variant.tnt.size;
				p->taken += (uint64_t)__builtin_popcountll(
				        ev.variant.tnt.bits);
				p->timesum += t * ev.variant.tnt.size;
				break;
			case ptev_tip:
				p->indirect++;
				mix(p,
				    ev.ip_suppressed ? 0 : ev.variant.tip.ip);
				p->timesum += t;
				break;
			case ptev_enabled:
			case ptev_disabled:
				if (ev.status_update)
					break;
				/* fall through */
			default:
				p->events++;
				mix(p, (uint64_t)ev.type);
				p->timesum += t;
				break;
			}
		}
	}
	pt_evt_free_decoder(dec);
	return 0;
}

static int run_ipt(const struct ptd_libipt *ipt, const struct input *in,
                   struct pass *p)
{
	struct pt_config config;
	struct ptd_ipt_qry_decoder *dec;
	struct ptd_ipt_event ev;

	input_config(&config, in);
	dec = ipt->qry_alloc_decoder(&config);
	if (!dec)
		return -1;
#define IPT_EVENT(d) ipt->qry_event(d, &ev, sizeof(ev))
	PTD_QRY_LOOP(dec, ipt->qry_sync_forward, IPT_EVENT,
	             ipt->qry_cond_branch, ipt->qry_indirect_branch,
	             ipt->qry_time, ev.type);
#undef IPT_EVENT
	ipt->qry_free_decoder(dec);
	return 0;
}

static int run(struct bench *b, int which, const struct input *in,
               struct pass *p)
{
	memset(p, 0, sizeof(*p));
	switch (which) {
	case DEC_BATCH:
		return run_batch(in, p);
	case DEC_PTD:
		return run_ptd(in, p);
	case DEC_EVT:
		return run_evt(in, p);
	default:
		return run_ipt(b->ipt, in, p);
	}
}

/* ------------------------------------------------------------------------ */
/* The item-for-item check of the batch decoder against the pull API          */
/* ------------------------------------------------------------------------ */

/* One result of the pull loop. */
struct result {
	int kind; /* enum ptd_qry_item_kind */
	uint64_t value;
	int error;
	int eflags; /* error: the item flags that say which call failed */
	struct pt_event ev;
	uint64_t tsc;
	uint32_t lmtc, lcyc;
	int time_status;
};

/* The pull loop, one result at a time.  A negative @status is the call
 * that failed (@eflags: which), or -pte_nosync: synchronize without an
 * error (at the start, and after pts_eos). */
struct puller {
	struct pt_query_decoder *dec;
	int status;
	int eflags;
	int ended;
};

/* The next result of @pl in @r; 0 at the end. */
static int pull_next(struct puller *pl, struct result *r)
{
	memset(r, 0, sizeof(*r));
	if (pl->ended)
		return 0;
	for (;;) {
		int status = pl->status;

		if (status < 0) {
			uint64_t ip = 0;

			if (status != -pte_nosync) {
				r->kind = ptd_qry_item_error;
				r->error = status;
				r->eflags = pl->eflags;
				(void)pt_qry_get_offset(pl->dec, &r->value);
				pl->status = -pte_nosync;
				break;
			}
			pl->status = pt_qry_sync_forward(pl->dec, &ip);
			if (pl->status == -pte_eos) {
				/* The end, for good. */
				pl->ended = 1;
				return 0;
			}
			if (pl->status < 0) {
				pl->eflags = ptd_qry_item_resync;
				continue;
			}
			r->kind = ptd_qry_item_sync;
			r->value = (pl->status & pts_ip_suppressed) ? 0 : ip;
			break;
		}
		if (status & pts_event_pending) {
			pl->status =
			        pt_qry_event(pl->dec, &r->ev, sizeof(r->ev));
			if (pl->status < 0) {
				pl->eflags = ptd_qry_item_event_pending;
				continue;
			}
			r->kind = ptd_qry_item_event;
			break;
		}
		if (status & pts_eos) {
			pl->status = -pte_nosync;
			continue;
		}
		{
			int taken = 0;
			uint64_t ip = 0;

			pl->status = pt_qry_cond_branch(pl->dec, &taken);
			if (pl->status >= 0) {
				r->kind = ptd_qry_item_tnt;
				r->value = (uint64_t)taken;
				break;
			}
			if (pl->status != -pte_bad_query) {
				pl->eflags = 0;
				continue;
			}
			pl->status = pt_qry_indirect_branch(pl->dec, &ip);
			if (pl->status < 0) {
				pl->eflags = ptd_qry_item_indirect;
				continue;
			}
			r->kind = ptd_qry_item_tip;
			r->value = (pl->status & pts_ip_suppressed) ? 0 : ip;
			break;
		}
	}
	r->time_status = pt_qry_time(pl->dec, &r->tsc, &r->lmtc, &r->lcyc);
	return 1;
}

/* Whether the batch result (@it, outcome @bit of a run, @ev) equals @r. */
static int same_result(const struct ptd_qry_item *it, unsigned bit,
                       const struct pt_event *ev, const struct result *r)
{
	uint64_t value = it->value;

	if (it->kind != r->kind)
		return 0;
	if (it->kind == ptd_qry_item_tnt)
		value = (it->value >> (it->count - 1 - bit)) & 1;
	if (it->kind == ptd_qry_item_event) {
		if (memcmp(ev, &r->ev, sizeof(*ev)))
			return 0;
	} else if (value != r->value)
		return 0;
	if (it->error != r->error)
		return 0;
	/* An error item's flags say which call failed. */
	if ((it->flags & (ptd_qry_item_event_pending | ptd_qry_item_indirect |
	                  ptd_qry_item_resync)) != r->eflags)
		return 0;
	/* A sync item carries the time pt_qry_time() gives after the sync;
	 * an error item the time before the failed step.  Both are what
	 * pt_qry_time() returns there. */
	return it->tsc == r->tsc && it->lost_mtc == r->lmtc &&
	       it->lost_cyc == r->lcyc &&
	       !!(it->flags & ptd_qry_item_has_tsc) == (r->time_status >= 0);
}

/* Decode @in with both interfaces and compare every result.  Returns 0 if
 * they agree; prints the first difference otherwise. */
static int check_batch(const struct input *in)
{
	static struct ptd_qry_item items[PTD_BATCH_ITEMS];
	static struct pt_event events[PTD_BATCH_ITEMS];
	struct pt_config config;
	struct pt_query_decoder *bdec;
	struct puller pl;
	uint64_t nresults = 0;
	struct result r;
	int failed = 0;

	input_config(&config, in);
	bdec = pt_qry_alloc_decoder(&config);
	pl.dec = pt_qry_alloc_decoder(&config);
	pl.status = -pte_nosync;
	pl.eflags = 0;
	pl.ended = 0;
	if (!bdec || !pl.dec) {
		pt_qry_free_decoder(bdec);
		pt_qry_free_decoder(pl.dec);
		return -1;
	}
	for (;;) {
		/* Vary the batch size so that the cuts fall everywhere. */
		size_t want = 2 + (size_t)(nresults % (PTD_BATCH_ITEMS - 1));
		int n = ptd_qry_next_batch(bdec, items, want, events, want / 2);

		if (n < 0) {
			if (n != -pte_eos || pull_next(&pl, &r)) {
				printf("%s: batch ends (%d) before the pull "
				       "API "
				       "after %" PRIu64 " results\n",
				       in->name, n, nresults);
				failed = 1;
			}
			break;
		}
		for (int i = 0; i < n && !failed; ++i) {
			const struct ptd_qry_item *it = &items[i];
			unsigned m =
			        it->kind == ptd_qry_item_tnt ? it->count : 1;

			for (unsigned b = 0; b < m; ++b, ++nresults) {
				const struct pt_event *ev =
				        it->kind == ptd_qry_item_event
				                ? &events[it->value]
				                : NULL;

				if (!pull_next(&pl, &r) ||
				    !same_result(it, b, ev, &r)) {
					printf("%s: result %" PRIu64
					       " differs: batch kind %d "
					       "value %#" PRIx64 " tsc %" PRIu64
					       " error %d, pull kind "
					       "%d value %#" PRIx64
					       " tsc %" PRIu64 "\n",
					       in->name, nresults, it->kind,
					       it->value, it->tsc, it->error,
					       r.kind, r.value, r.tsc);
					failed = 1;
					break;
				}
			}
		}
		if (failed)
			break;
	}
	pt_qry_free_decoder(bdec);
	pt_qry_free_decoder(pl.dec);
	return failed ? -1 : 0;
}

static int same_work(const struct pass *a, const struct pass *b)
{
	return a->cond == b->cond && a->taken == b->taken &&
	       a->indirect == b->indirect && a->events == b->events &&
	       a->errors == b->errors;
}

/* Measure one input with both decoders and print its table row. */
static void bench_input(struct bench *b, const struct input *in)
{
	const struct bench_opts *o = b->opts;
	struct pass ref[DEC_COUNT];
	double *times[DEC_COUNT] = {NULL};
	double best[DEC_COUNT], median[DEC_COUNT];
	unsigned loops = 1;
	double t;

	if (o->only < 0 && check_batch(in) < 0) {
		printf("%s: the batch results differ from the pull API's\n",
		       in->name);
		b->failed = 1;
	}
	for (int d = 0; d < DEC_COUNT; ++d) {
		if (o->only >= 0 && d != o->only && d != DEC_IPT) {
			ref[d] = ref[DEC_IPT];
			continue;
		}
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

	/* The two ptdecode decoders must agree on everything, times
	 * included; libipt on the counts. */
	if (o->only < 0 && (!same_work(&ref[DEC_BATCH], &ref[DEC_PTD]) ||
	                    ref[DEC_BATCH].checksum != ref[DEC_PTD].checksum ||
	                    ref[DEC_BATCH].timesum != ref[DEC_PTD].timesum ||
	                    ref[DEC_BATCH].syncs != ref[DEC_PTD].syncs)) {
		printf("%s: the batch and pull passes differ\n", in->name);
		b->failed = 1;
	}
	/* The event decoder does the pull API's work (its events carry
	 * their own times, so the time sums are not compared). */
	if (o->only < 0 && (!same_work(&ref[DEC_EVT], &ref[DEC_PTD]) ||
	                    ref[DEC_EVT].checksum != ref[DEC_PTD].checksum)) {
		printf("%s: the event decoder and the pull API differ\n",
		       in->name);
		b->failed = 1;
	}
	printf("%-24s %10zu %9" PRIu64 " %8" PRIu64 " %7" PRIu64 " %5" PRIu64
	       "%s",
	       in->name, in->size, ref[DEC_PTD].cond, ref[DEC_PTD].indirect,
	       ref[DEC_PTD].events, ref[DEC_PTD].errors,
	       same_work(&ref[DEC_PTD], &ref[DEC_IPT]) ? " " : "*");
	for (int d = 0; d < DEC_COUNT; ++d)
		printf(" | %5.0f %5.0f", (double)in->size / best[d] / 1e6,
		       (double)in->size / median[d] / 1e6);
	printf(" | %5.2f %5.2f | %5.2f %5.2f\n",
	       best[DEC_IPT] / best[DEC_BATCH],
	       median[DEC_IPT] / median[DEC_BATCH],
	       best[DEC_IPT] / best[DEC_PTD],
	       median[DEC_IPT] / median[DEC_PTD]);
	if (!same_work(&ref[DEC_PTD], &ref[DEC_IPT]))
		printf("  * libipt: %" PRIu64 " cond, %" PRIu64
		       " indirect, %" PRIu64 " events, %" PRIu64 " errors\n",
		       ref[DEC_IPT].cond, ref[DEC_IPT].indirect,
		       ref[DEC_IPT].events, ref[DEC_IPT].errors);
	if (o->sums)
		printf("  sums: checksum %016" PRIx64 " time %016" PRIx64
		       " (batch), %016" PRIx64 " %016" PRIx64 " (ptdecode)\n",
		       ref[DEC_BATCH].checksum, ref[DEC_BATCH].timesum,
		       ref[DEC_PTD].checksum, ref[DEC_PTD].timesum);
	fflush(stdout);
out:
	for (int d = 0; d < DEC_COUNT; ++d)
		free(times[d]);
}

/* A small query-level trace for --smoke: PSB+ segments with branches,
 * asynchronous branches and timing. */
static int make_smoke(struct input *in)
{
	struct pt_config config;
	struct pt_encoder *enc;
	struct pt_packet p;
	uint64_t size = 0;
	int err = 0;

	in->size = 1 << 16;
	in->buf = malloc(in->size);
	if (!in->buf)
		return -1;
	pt_config_init(&config);
	config.begin = in->buf;
	config.end = in->buf + in->size;
	enc = pt_alloc_encoder(&config);
	if (!enc)
		return -1;
	for (int k = 0; k < 200 && !err; ++k) {
		memset(&p, 0, sizeof(p));
		p.type = ppt_psb;
		err |= pt_enc_next(enc, &p) < 0;
		p.type = ppt_tsc;
		p.payload.tsc.tsc = 0x100000u + 0x1000u * (unsigned)k;
		err |= pt_enc_next(enc, &p) < 0;
		memset(&p, 0, sizeof(p));
		p.type = ppt_fup;
		p.payload.ip.ipc = pt_ipc_full;
		p.payload.ip.ip = 0x400000;
		err |= pt_enc_next(enc, &p) < 0;
		memset(&p, 0, sizeof(p));
		p.type = ppt_psbend;
		err |= pt_enc_next(enc, &p) < 0;
		for (int i = 0; i < 20; ++i) {
			memset(&p, 0, sizeof(p));
			p.type = ppt_tnt_8;
			p.payload.tnt.bit_size = 6;
			p.payload.tnt.payload = (uint64_t)(i * 13) & 0x3f;
			err |= pt_enc_next(enc, &p) < 0;
			memset(&p, 0, sizeof(p));
			p.type = ppt_tip;
			p.payload.ip.ipc = pt_ipc_update_16;
			p.payload.ip.ip = 0x1000u + (unsigned)i;
			err |= pt_enc_next(enc, &p) < 0;
		}
	}
	err |= pt_enc_get_offset(enc, &size) < 0;
	pt_free_encoder(enc);
	in->size = (size_t)size;
	snprintf(in->name, sizeof(in->name), "smoke (encoded)");
	in->cfg = QCFG_NONE;
	return err ? -1 : 0;
}

/* Fill @out with copies of the @n inputs until it holds at least @size
 * bytes. */
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
	out->cfg = QCFG_DYNAMORIO;
	return 0;
}

static void print_header(void)
{
	printf("%-24s %10s %9s %8s %7s %5s ", "input", "bytes", "cond",
	       "indirect", "events", "errs");
	for (int d = 0; d < DEC_COUNT; ++d)
		printf(" | %-11s", ptd_dec_names[d]);
	printf(" | %-11s | %-11s\n", "libipt/batch", "libipt/ptd");
	printf("%-24s %10s %9s %8s %7s %5s ", "", "", "", "", "", "");
	for (int d = 0; d < DEC_COUNT; ++d)
		printf(" | %5s %5s", "MB/s", "MB/s");
	printf(" | %5s %5s | %5s %5s\n", "time", "time", "time", "time");
	printf("%-24s %10s %9s %8s %7s %5s ", "", "", "", "", "", "");
	for (int d = 0; d < DEC_COUNT; ++d)
		printf(" | %5s %5s", "best", "med");
	printf(" | %5s %5s | %5s %5s\n", "best", "med", "best", "med");
}

static void usage(const char *prog)
{
	fprintf(stderr,
	        "usage: %s [--smoke] [--reps N] [--min-ms N] [--large-mb N] "
	        "[--corpora DIR] [--large-only] [--only DEC] [--cpu-time] "
	        "[--sums]\n"
	        "  --smoke       a quick run on a small encoded trace (ctest)\n"
	        "  --reps N      samples per measurement (default 9)\n"
	        "  --min-ms N    minimum length of a sample (default 50)\n"
	        "  --large-mb N  size of the concatenation in MiB (default "
	        "64)\n"
	        "  --corpora DIR the real traces (default %s)\n"
	        "  --large-only  only the concatenation\n"
	        "  --cpu-time    time with the thread's CPU time, not the wall "
	        "clock\n"
	        "  --only DEC    time only DEC: batch, ptdecode, event or "
	        "libipt (for\n"
	        "                profiles; skips the item-for-item check)\n"
	        "  --sums        print each input's checksum and time sum\n"
	        "                (to check that a change keeps the results)\n",
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
	uint64_t reps = 9, min_ms = 50, large_mb = 64;
	char msg[256];

	memset(&o, 0, sizeof(o));
	o.only = -1;
	o.clock = CLOCK_MONOTONIC;
	memset(&large, 0, sizeof(large));
	o.corpora = PTD_CORPORA_DIR;
	for (int i = 1; i < argc; ++i) {
		const char *arg = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(arg, "--smoke")) {
			o.smoke = 1;
		} else if (!strcmp(arg, "--reps") && val) {
			if (parse_u64(argv[++i], &reps) < 0 || !reps)
				goto bad;
		} else if (!strcmp(arg, "--min-ms") && val) {
			if (parse_u64(argv[++i], &min_ms) < 0)
				goto bad;
		} else if (!strcmp(arg, "--large-mb") && val) {
			if (parse_u64(argv[++i], &large_mb) < 0 || !large_mb)
				goto bad;
		} else if (!strcmp(arg, "--corpora") && val) {
			o.corpora = argv[++i];
		} else if (!strcmp(arg, "--cpu-time")) {
			o.clock = CLOCK_THREAD_CPUTIME_ID;
		} else if (!strcmp(arg, "--sums")) {
			o.sums = 1;
		} else if (!strcmp(arg, "--large-only")) {
			o.large_only = 1;
		} else if (!strcmp(arg, "--only") && val) {
			++i;
			for (o.only = 0; o.only < DEC_COUNT; ++o.only)
				if (!strcmp(argv[i], ptd_dec_names[o.only]))
					break;
			if (o.only == DEC_COUNT)
				goto bad;
		} else {
			goto bad;
		}
	}
	if (o.smoke) {
		reps = 3;
		min_ms = 1;
	}
	o.reps = (unsigned)reps;
	o.min_seconds = (double)min_ms / 1000.0;
	o.large_size = (size_t)large_mb << 20;

	memset(&ipt, 0, sizeof(ipt));
	if (ptd_libipt_open(&ipt, msg, sizeof(msg)) < 0) {
		printf("skip: %s\n", msg);
		return PTD_EXIT_SKIP;
	}
	ver = ipt.library_version();
	printf("qry_bench: ptdecode vs libipt %u.%u.%u, %u reps, min %u ms "
	       "per sample, %s\n\n",
	       ver.major, ver.minor, ver.patch, o.reps, (unsigned)min_ms,
	       o.clock == CLOCK_MONOTONIC ? "wall clock" : "thread CPU time");
	memset(&b, 0, sizeof(b));
	b.opts = &o;
	b.ipt = &ipt;
	print_header();

	if (o.smoke) {
		struct input in;

		memset(&in, 0, sizeof(in));
		if (make_smoke(&in) < 0) {
			fprintf(stderr, "cannot make the smoke trace\n");
			free(in.buf);
			ptd_libipt_close(&ipt);
			return 1;
		}
		bench_input(&b, &in);
		free(in.buf);
		ptd_libipt_close(&ipt);
		return b.failed;
	}

	for (size_t i = 0; i < PTD_NCORPUS; ++i) {
		struct input *in = &corpus[ncorpus];
		char path[1024];

		snprintf(path, sizeof(path), "%s/%s", o.corpora,
		         ptd_corpus_files[i].path);
		memset(in, 0, sizeof(*in));
		in->buf = ptd_read_whole_file(path, &in->size);
		if (!in->buf) {
			fprintf(stderr, "skip: %s not found\n", path);
			continue;
		}
		snprintf(in->name, sizeof(in->name), "%s",
		         ptd_corpus_files[i].name);
		in->cfg = ptd_corpus_files[i].cfg;
		ncorpus += 1;
	}
	for (size_t i = 0; i < ncorpus && !o.large_only; ++i)
		bench_input(&b, &corpus[i]);
	if (ncorpus &&
	    concat_inputs(&large, corpus, ncorpus, o.large_size) == 0) {
		snprintf(large.name, sizeof(large.name),
		         "corpus concat (%zu MB)", large.size / 1000000);
		bench_input(&b, &large);
	} else if (ncorpus) {
		fprintf(stderr, "out of memory for the concatenation\n");
		b.failed = 1;
	}
	free(large.buf);
	for (size_t i = 0; i < ncorpus; ++i)
		free(corpus[i].buf);
	ptd_libipt_close(&ipt);
	return b.failed;
bad:
	usage(argv[0]);
	return 2;
}
