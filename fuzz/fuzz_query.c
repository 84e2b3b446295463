/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the query decoder (pt_qry_*) on arbitrary bytes.
 *
 * Input: byte 0 selects the configuration, the rest is the trace.
 *   bit 0     errata.skd010
 *   bit 1     errata.apl11
 *   bit 2     errata.apl12
 *   bit 3     errata.bdm70
 *   bit 4     flags.variant.query.keep_tcal_on_ovf
 *   bit 5     libipt's time estimator (ptd_qry_alloc_decoder with
 *             ptd_time_mode_libipt), else the default (accurate) one
 *   bits 7:6  timing: none; mtc_freq 3 + CPUID 0x15 2/308 + nom_freq 37;
 *             mtc_freq 0 + 3/7; mtc_freq 9 + 1/1
 *
 * The driver behaves like a flow decoder that does not know the code: it
 * syncs forward, then fetches an event while pts_event_pending is set, else
 * asks for a conditional branch, else (-pte_bad_query) for an indirect
 * branch; a pseudo-random choice derived from the input sometimes asks for
 * the indirect branch first, or for an event that is not pending, as a
 * confused decoder would.  On an error (other than a query refused with
 * -pte_bad_query) or at pts_eos it syncs forward again.
 *
 * Checks: no crash or sanitizer report; only known status flags; every
 * offset (pt_qry_get_offset, pt_qry_get_sync_offset) within the buffer and
 * every sync offset on a PSB; every successful resync moves forward; the
 * number of syncs is at most the number of PSBs and the number of queries
 * is bounded by the size of the trace (no endless loop); event types are
 * known; with the default estimator, pt_qry_time() never goes backwards
 * between resynchronizations once it has a TSC; pt_qry_sync_backward lands
 * on a PSB before the position it started from; ptd_qry_next_batch(), with
 * random numbers of items and events per call, gives the pull API's results
 * item for item, times included, and an error item for every call of the
 * loop that fails (a query's -pte_eos included, but not the end that pts_eos
 * announced), with flags that say which call failed and so the status
 * before it; and the event decoder (pt_evt_*) gives the same results as
 * events, ptev_tnt and ptev_tip for the branches (fuzz_events()).  The trace
 * is copied into an
 * allocation of exactly its size so that ASan reports reads past it; the
 * libFuzzer run uses -rss_limit_mb/-malloc_limit_mb for bounded memory. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_common.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz {
	const uint8_t *buf;
	size_t size;
	size_t npsb; /* positions where the PSB pattern starts */
	int accurate;
	uint64_t rng;
};

static unsigned fuzz_rand(struct fuzz *f)
{
	/* xorshift64 */
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return (unsigned)(f->rng >> 32);
}

static int fuzz_is_psb(const struct fuzz *f, uint64_t offset)
{
	size_t k;

	if (offset > f->size || f->size - offset < FUZZ_PSB_SIZE)
		return 0;
	for (k = 0; k < FUZZ_PSB_SIZE; ++k)
		if (f->buf[offset + k] != ((k & 1) ? 0x82 : 0x02))
			return 0;
	return 1;
}

static void fuzz_config(struct pt_config *config,
                        struct ptd_time_config *tconfig, uint8_t a)
{
	static const uint32_t eax[4] = {0, 2, 3, 1};
	static const uint32_t ebx[4] = {0, 308, 7, 1};
	static const uint8_t mtc[4] = {0, 3, 0, 9};

	config->errata.skd010 = a & 1;
	config->errata.apl11 = (a >> 1) & 1;
	config->errata.apl12 = (a >> 2) & 1;
	config->errata.bdm70 = (a >> 3) & 1;
	config->flags.variant.query.keep_tcal_on_ovf = (a >> 4) & 1;
	config->cpuid_0x15_eax = eax[a >> 6];
	config->cpuid_0x15_ebx = ebx[a >> 6];
	config->mtc_freq = mtc[a >> 6];
	config->nom_freq = (a >> 6) == 1 ? 37 : 0;

	ptd_time_config_init(tconfig);
	tconfig->mode =
	        (a & 0x20) ? ptd_time_mode_libipt : ptd_time_mode_accurate;
}

static void check_offsets(const struct fuzz *f,
                          const struct pt_query_decoder *dec)
{
	uint64_t offset = 0;

	if (pt_qry_get_offset(dec, &offset) == 0)
		FUZZ_CHECK(offset <= f->size, "offset %llx beyond %zx",
		           (unsigned long long)offset, f->size);
	if (pt_qry_get_sync_offset(dec, &offset) == 0)
		FUZZ_CHECK(fuzz_is_psb(f, offset), "sync offset %llx: no PSB",
		           (unsigned long long)offset);
}

static void check_event(const struct pt_event *ev)
{
	FUZZ_CHECK((unsigned)ev->type <= (unsigned)ptev_syscall,
	           "event type %d", (int)ev->type);
}

/* One query step; returns the new status. */
static int fuzz_step(struct fuzz *f, struct pt_query_decoder *dec, int status)
{
	struct pt_event ev;
	uint64_t ip = 0;
	unsigned choice = fuzz_rand(f) & 15;
	int taken = 0;

	if (status & pts_event_pending) {
		memset(&ev, 0xa5, sizeof(ev));
		status = pt_qry_event(dec, &ev, sizeof(ev));
		if (status >= 0)
			check_event(&ev);
		return status;
	}
	if (choice == 0) {
		/* A confused decoder asks for an event. */
		status = pt_qry_event(dec, &ev, sizeof(ev));
		if (status >= 0)
			check_event(&ev);
		return status;
	}
	if (choice <= 2) {
		status = pt_qry_indirect_branch(dec, &ip);
		if (status != -pte_bad_query)
			return status;
		return pt_qry_cond_branch(dec, &taken);
	}
	status = pt_qry_cond_branch(dec, &taken);
	if (status >= 0)
		FUZZ_CHECK(taken == 0 || taken == 1, "taken %d", taken);
	if (status != -pte_bad_query)
		return status;
	return pt_qry_indirect_branch(dec, &ip);
}

static void fuzz_forward(struct fuzz *f, const struct pt_config *config,
                         const struct ptd_time_config *tconfig)
{
	struct pt_query_decoder *dec;
	uint64_t last_sync = 0, prev_time = 0, steps = 0, syncs = 0;
	/* Every query consumes trace, or it is refused and followed by a
	 * resync: at most a few queries per byte and per PSB. */
	uint64_t max_steps = 64 * ((uint64_t)f->size + 16);
	int have_sync = 0, have_time = 0, status;

	dec = ptd_qry_alloc_decoder(config, tconfig);
	FUZZ_CHECK(dec != NULL, "allocation failed");
	FUZZ_CHECK(pt_qry_get_config(dec) != NULL, "config");

	status = -pte_nosync;
	for (;;) {
		uint64_t time = 0, offset = 0;
		uint32_t lost_mtc = 0, lost_cyc = 0, cbr = 0;
		int tstatus;

		FUZZ_CHECK(++steps <= max_steps, "no progress: %llu steps",
		           (unsigned long long)steps);
		if (status < 0 ||
		    (status & pts_eos && !(status & pts_event_pending))) {
			status = pt_qry_sync_forward(dec, &time);
			if (status == -pte_eos)
				break;
			FUZZ_CHECK(++syncs <= f->npsb, "%llu syncs, %zu PSBs",
			           (unsigned long long)syncs, f->npsb);
			check_offsets(f, dec);
			if (status >= 0) {
				FUZZ_CHECK(pt_qry_get_sync_offset(dec,
				                                  &offset) == 0,
				           "no sync offset");
				FUZZ_CHECK(!have_sync || offset > last_sync,
				           "resync to %llx after %llx",
				           (unsigned long long)offset,
				           (unsigned long long)last_sync);
				last_sync = offset;
				have_sync = 1;
			}
			have_time = 0;
		} else {
			status = fuzz_step(f, dec, status);
			check_offsets(f, dec);
			if (status < 0) {
				FUZZ_CHECK(pt_qry_get_offset(dec, &offset) == 0,
				           "error %d without offset", status);
				if (status == -pte_bad_query &&
				    !(fuzz_rand(f) & 3))
					status = 0; /* try again */
			}
		}
		if (status >= 0)
			FUZZ_CHECK(!(status & ~(pts_event_pending |
			                        pts_ip_suppressed | pts_eos)),
			           "status flags %x", status);

		tstatus = pt_qry_time(dec, &time, &lost_mtc, &lost_cyc);
		FUZZ_CHECK(tstatus == 0 || tstatus == -pte_no_time,
		           "pt_qry_time: %d", tstatus);
		if (f->accurate && tstatus == 0 && status >= 0) {
			FUZZ_CHECK(!have_time || time >= prev_time,
			           "time backwards: %llx after %llx",
			           (unsigned long long)time,
			           (unsigned long long)prev_time);
			prev_time = time;
			have_time = 1;
		}
		(void)pt_qry_core_bus_ratio(dec, &cbr);
	}
	pt_qry_free_decoder(dec);
}

/* pt_qry_sync_backward from the end: each sync lands on a PSB before the
 * position the call started from.  (Not necessarily before the previous
 * sync point: as in libipt, the search starts at the decoder's position,
 * and a PSB+ whose read-ahead stopped beyond a later PSB pattern, possible
 * only in corrupt input, makes successive calls alternate between two PSBs;
 * so the calls are capped rather than run to -pte_eos.) */
static void fuzz_backward(struct fuzz *f, const struct pt_config *config)
{
	struct pt_query_decoder *dec;
	uint64_t ip, n;

	dec = pt_qry_alloc_decoder(config);
	FUZZ_CHECK(dec != NULL, "allocation failed");
	for (n = 0; n <= f->npsb; ++n) {
		uint64_t offset, start = f->size;
		int status;

		(void)pt_qry_get_offset(dec, &start);
		status = pt_qry_sync_backward(dec, &ip);
		if (status == -pte_eos)
			break;
		check_offsets(f, dec);
		if (status < 0)
			break;
		FUZZ_CHECK(pt_qry_get_sync_offset(dec, &offset) == 0,
		           "no sync offset");
		FUZZ_CHECK(offset < start, "backward from %llx to %llx",
		           (unsigned long long)start,
		           (unsigned long long)offset);
	}
	pt_qry_free_decoder(dec);
}

/* The batch interface (ptd_qry_next_batch) against the pull API driven by
 * the loop that ptd_query.h describes: every item, expanded into single
 * results, must be the pull API's next result, with the same time. */
struct pull {
	struct pt_query_decoder *dec;
	/* The status of the last call; -pte_nosync: synchronize without an
	 * error (at the start, and after pts_eos). */
	int status;
	/* The status that the last result (not an error) came with, and
	 * the error flags of the call that failed. */
	int before;
	int eflags;
	/* pt_qry_sync_forward() said -pte_eos: the loop stopped. */
	int ended;
};

/* The next result of the pull loop: its kind (enum ptd_qry_item_kind) or 0
 * at the end; @value, @ev and @err describe it, and for an error, @eflags
 * the item flags that say which call failed. */
static int pull_next(struct pull *p, uint64_t *value, struct pt_event *ev,
                     int *err, int *eflags)
{
	*value = 0;
	*err = 0;
	*eflags = 0;
	if (p->ended)
		return 0;
	for (;;) {
		uint64_t ip = 0;
		int taken = 0;

		if (p->status < 0) {
			/* Every failed call is an error item, a query's
			 * -pte_eos included. */
			if (p->status != -pte_nosync) {
				*err = p->status;
				*eflags = p->eflags;
				(void)pt_qry_get_offset(p->dec, value);
				p->status = -pte_nosync;
				return ptd_qry_item_error;
			}
			p->status = pt_qry_sync_forward(p->dec, &ip);
			if (p->status == -pte_eos) {
				/* The end, even if a PSB follows (after a PSB+
				 * cut short by one). */
				p->ended = 1;
				return 0;
			}
			if (p->status < 0) {
				/* (-pte_nosync: again, without an item.) */
				p->eflags = ptd_qry_item_resync;
				continue;
			}
			p->before = p->status;
			*value = (p->status & pts_ip_suppressed) ? 0 : ip;
			return ptd_qry_item_sync;
		}
		if (p->status & pts_event_pending) {
			memset(ev, 0, sizeof(*ev));
			p->status = pt_qry_event(p->dec, ev, sizeof(*ev));
			if (p->status >= 0) {
				p->before = p->status;
				return ptd_qry_item_event;
			}
			p->eflags = ptd_qry_item_event_pending;
			continue;
		}
		if (p->status & pts_eos) {
			/* The announced end: no item. */
			p->status = -pte_nosync;
			continue;
		}
		p->status = pt_qry_cond_branch(p->dec, &taken);
		if (p->status >= 0) {
			p->before = p->status;
			*value = (uint64_t)taken;
			return ptd_qry_item_tnt;
		}
		if (p->status != -pte_bad_query) {
			p->eflags = 0;
			continue;
		}
		p->status = pt_qry_indirect_branch(p->dec, &ip);
		if (p->status >= 0) {
			p->before = p->status;
			*value = (p->status & pts_ip_suppressed) ? 0 : ip;
			return ptd_qry_item_tip;
		}
		p->eflags = ptd_qry_item_indirect;
	}
}

static void fuzz_batch(struct fuzz *f, const struct pt_config *config,
                       const struct ptd_time_config *tconfig)
{
	struct ptd_qry_item items[40];
	struct pt_event events[8], ev;
	struct pt_query_decoder *dec;
	struct pull p;
	uint64_t calls = 0;

	dec = ptd_qry_alloc_decoder(config, tconfig);
	p.dec = ptd_qry_alloc_decoder(config, tconfig);
	p.status = -pte_nosync;
	p.before = 0;
	p.eflags = 0;
	p.ended = 0;
	FUZZ_CHECK(dec && p.dec, "allocation failed");
	for (;;) {
		size_t nitems = 2 + fuzz_rand(f) % 39;
		size_t nevents = fuzz_rand(f) % 9;
		int n = ptd_qry_next_batch(dec, items, nitems, events, nevents);

		FUZZ_CHECK(calls++ <= 4 * f->size + 64, "endless batch");
		if (n == -pte_eos)
			break;
		FUZZ_CHECK(n >= 0 && (size_t)n <= nitems, "batch returned %d",
		           n);
		for (int i = 0; i < n; ++i) {
			const struct ptd_qry_item *it = &items[i];
			unsigned m =
			        it->kind == ptd_qry_item_tnt ? it->count : 1;

			FUZZ_CHECK(m >= 1 && m <= 64, "run of %u", m);
			for (unsigned b = 0; b < m; ++b) {
				uint64_t value, tsc = 0;
				uint32_t lmtc = 0, lcyc = 0, cbr = 0;
				int kind, err, ts, eflags, before = p.before;

				kind = pull_next(&p, &value, &ev, &err,
				                 &eflags);
				ts = pt_qry_time(p.dec, &tsc, &lmtc, &lcyc);
				if (pt_qry_core_bus_ratio(p.dec, &cbr) < 0)
					cbr = 0;
				FUZZ_CHECK(kind == it->kind,
				           "batch kind %d, pull kind %d",
				           it->kind, kind);
				if (kind == ptd_qry_item_tnt)
					FUZZ_CHECK(((it->value >> (m - 1 - b)) &
					            1) == value,
					           "outcome");
				else if (kind == ptd_qry_item_event) {
					FUZZ_CHECK(it->value < nevents,
					           "event index");
					FUZZ_CHECK(!memcmp(&events[it->value],
					                   &ev, sizeof(ev)),
					           "event");
				} else
					FUZZ_CHECK(
					        it->value == value,
					        "value %llx, pull %llx",
					        (unsigned long long)it->value,
					        (unsigned long long)value);
				FUZZ_CHECK(it->error == err, "error");
				/* The flags of an error say which call failed,
				 * and so the status before it. */
				FUZZ_CHECK((it->flags &
				            ~(ptd_qry_item_has_tsc |
				              ptd_qry_item_ip_suppressed)) ==
				                   (kind == ptd_qry_item_error
				                            ? eflags
				                            : 0),
				           "flags %x, pull %x", it->flags,
				           eflags);
				if (kind == ptd_qry_item_error &&
				    !(eflags & ptd_qry_item_resync))
					FUZZ_CHECK(
					        !(before & pts_eos) &&
					                !!(before &
					                   pts_event_pending) ==
					                        !!(it->flags &
					                           ptd_qry_item_event_pending),
					        "status before the error %x, "
					        "flags "
					        "%x",
					        before, it->flags);
				FUZZ_CHECK(it->tsc == tsc &&
				                   it->lost_mtc == lmtc &&
				                   it->lost_cyc == lcyc &&
				                   !!(it->flags &
				                      ptd_qry_item_has_tsc) ==
				                           (ts >= 0),
				           "time");
				FUZZ_CHECK(it->cbr == cbr,
				           "core:bus ratio %u, pull %u",
				           (unsigned)it->cbr, (unsigned)cbr);
			}
		}
	}
	FUZZ_CHECK(pull_next(&p, &(uint64_t){0}, &ev, &(int){0}, &(int){0}) ==
	                   0,
	           "the batch ends early");
	pt_qry_free_decoder(dec);
	pt_qry_free_decoder(p.dec);
}

/* The event decoder (pt_evt_*) against the same pull loop: each ptev_tnt
 * is as many conditional-branch results as it has outcomes, each ptev_tip an
 * indirect branch, every other event a pt_qry_event() result, every error
 * the pull API's with its offset, every synchronization the pull API's (but
 * where the pull API's fails in its read-ahead beyond a good PSB+, the
 * event decoder fails there in pt_evt_next()); the PSB+ tracing status
 * events (the only ones the pull API does not report)
 * are well-formed, and the first after a synchronization with an IP is
 * ptev_enabled with that IP. */
struct evts {
	struct pt_event_decoder *dec;
	struct pt_event ev;
	/* Outcomes of @ev (a ptev_tnt) not compared yet. */
	unsigned left;
	/* Until the first event after a synchronization: 1 if it had an IP
	 * (@ip), 2 if not; else 0. */
	uint64_t ip;
	int sync_ip;
};

static int is_status(const struct pt_event *ev)
{
	return ev->status_update &&
	       (ev->type == ptev_enabled || ev->type == ptev_disabled);
}

/* The next event that is not a PSB+ tracing status into e->ev; returns
 * pt_evt_next()'s result. */
static int evts_next(struct fuzz *f, struct evts *e)
{
	for (unsigned k = 0;; ++k) {
		int st;

		FUZZ_CHECK(k < 4 * f->size + 64, "endless tracing status");
		memset(&e->ev, 0xa5, sizeof(e->ev));
		st = pt_evt_next(e->dec, &e->ev, sizeof(e->ev));
		if (st < 0)
			return st;
		FUZZ_CHECK(st == 0, "pt_evt_next returned %d", st);
		check_event(&e->ev);
		if (!is_status(&e->ev)) {
			e->sync_ip = 0;
			return 0;
		}
		FUZZ_CHECK((e->ev.type == ptev_enabled) != e->ev.ip_suppressed,
		           "tracing status with%s IP",
		           e->ev.ip_suppressed ? "out" : "");
		/* (The pull API's synchronization may take its IP from a
		 * FUP after a PSB+ without one.) */
		if (e->sync_ip && e->ev.type == ptev_enabled)
			FUZZ_CHECK(e->sync_ip == 1 &&
			                   e->ev.variant.enabled.ip == e->ip,
			           "tracing status at synchronization");
		e->sync_ip = 0;
	}
}

static void fuzz_events(struct fuzz *f, const struct pt_config *config,
                        const struct ptd_time_config *tconfig)
{
	struct pull p;
	struct evts e;
	struct pt_event ev;

	memset(&e, 0, sizeof(e));
	e.dec = ptd_evt_alloc_decoder(config, tconfig);
	p.dec = ptd_qry_alloc_decoder(config, tconfig);
	p.status = -pte_nosync;
	p.before = 0;
	p.eflags = 0;
	p.ended = 0;
	FUZZ_CHECK(e.dec && p.dec, "allocation failed");
	for (;;) {
		uint64_t value, tsc = 0, off = 0, qoff = 0;
		uint32_t lmtc = 0, lcyc = 0;
		int kind, err, eflags, ts, st;

		kind = pull_next(&p, &value, &ev, &err, &eflags);
		ts = pt_qry_time(p.dec, &tsc, &lmtc, &lcyc);
		if (!kind)
			break;
		if (kind == ptd_qry_item_sync ||
		    (kind == ptd_qry_item_error &&
		     (eflags & ptd_qry_item_resync))) {
			FUZZ_CHECK(!e.left, "outcomes left at a sync");
			e.sync_ip = 0;
			st = pt_evt_sync_forward(e.dec);
			if (kind == ptd_qry_item_error && st == 0) {
				/* The pull API's synchronization failed in
				 * its read-ahead after the PSB+: the event
				 * decoder fails there in pt_evt_next(), after
				 * the PSB+'s tracing status. */
				st = evts_next(f, &e);
				FUZZ_CHECK(st == err, "error %d, pull %d", st,
				           err);
				FUZZ_CHECK(pt_evt_get_offset(e.dec, &off) ==
				                           0 &&
				                   off == value,
				           "error offset");
				continue;
			}
			FUZZ_CHECK(st == (kind == ptd_qry_item_sync ? 0 : err),
			           "sync %d, pull %d", st, err);
			if (kind == ptd_qry_item_sync) {
				FUZZ_CHECK(pt_evt_get_sync_offset(e.dec,
				                                  &off) == 0 &&
				                   pt_qry_get_sync_offset(
				                           p.dec, &qoff) == 0 &&
				                   off == qoff,
				           "sync offset");
				e.sync_ip =
				        (p.before & pts_ip_suppressed) ? 2 : 1;
				e.ip = value;
			}
			continue;
		}
		if (kind == ptd_qry_item_error) {
			FUZZ_CHECK(!e.left, "outcomes left at an error");
			st = evts_next(f, &e);
			FUZZ_CHECK(st == err, "error %d, pull %d", st, err);
			FUZZ_CHECK(pt_evt_get_offset(e.dec, &off) == 0 &&
			                   off == value,
			           "error offset");
			continue;
		}
		if (kind == ptd_qry_item_tnt && e.left) {
			e.left--;
		} else {
			FUZZ_CHECK(!e.left, "outcomes left");
			st = evts_next(f, &e);
			FUZZ_CHECK(st == 0, "pt_evt_next %d, pull kind %d", st,
			           kind);
			if (kind == ptd_qry_item_tnt) {
				FUZZ_CHECK(e.ev.type == ptev_tnt &&
				                   e.ev.variant.tnt.size >= 1 &&
				                   e.ev.variant.tnt.size <= 47,
				           "not a TNT packet");
				e.left = e.ev.variant.tnt.size - 1u;
			} else if (kind == ptd_qry_item_tip) {
				FUZZ_CHECK(e.ev.type == ptev_tip &&
				                   (e.ev.ip_suppressed
				                            ? 0
				                            : e.ev.variant.tip
				                                      .ip) ==
				                           value,
				           "not the TIP");
			} else {
				FUZZ_CHECK(!memcmp(&e.ev, &ev, sizeof(ev)),
				           "event");
				continue;
			}
		}
		if (kind == ptd_qry_item_tnt)
			FUZZ_CHECK(((e.ev.variant.tnt.bits >> e.left) & 1) ==
			                   value,
			           "outcome");
		FUZZ_CHECK(e.ev.tsc == tsc && e.ev.lost_mtc == lmtc &&
		                   e.ev.lost_cyc == lcyc &&
		                   e.ev.has_tsc == (ts >= 0),
		           "time");
	}
	FUZZ_CHECK(!e.left, "outcomes left at the end");
	(void)evts_next(f, &e);
	/* The pull API's last synchronization said -pte_eos.  Where it read
	 * a good PSB+ and the end cut off a packet after it, the event
	 * decoder synchronizes there, and pt_evt_next() says -pte_eos after
	 * the PSB+'s status. */
	for (unsigned k = 0;; ++k) {
		int st = pt_evt_sync_forward(e.dec);

		if (st == -pte_eos)
			break;
		FUZZ_CHECK(st == 0 && k == 0, "not the end: %d", st);
		e.sync_ip = 0;
		FUZZ_CHECK(evts_next(f, &e) == -pte_eos, "not the end");
	}
	pt_evt_free_decoder(e.dec);
	pt_qry_free_decoder(p.dec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptd_time_config tconfig;
	struct pt_config config;
	struct fuzz f;
	uint8_t *buf;
	size_t n, i;

	if (size < 1)
		return 0;
	n = size - 1;
	buf = fuzz_alloc(n);
	if (n)
		memcpy(buf, data + 1, n);

	memset(&f, 0, sizeof(f));
	f.buf = buf;
	f.size = n;
	for (i = 0; i + FUZZ_PSB_SIZE <= n; ++i)
		f.npsb += fuzz_is_psb(&f, i);
	f.rng = 0x9e3779b97f4a7c15ull ^ size;
	for (i = 0; i < size && i < 64; ++i)
		f.rng = (f.rng ^ data[i]) * 0x100000001b3ull;
	if (!f.rng)
		f.rng = 1;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + n;
	fuzz_config(&config, &tconfig, data[0]);
	f.accurate = tconfig.mode == ptd_time_mode_accurate;

	fuzz_forward(&f, &config, &tconfig);
	fuzz_backward(&f, &config);
	fuzz_batch(&f, &config, &tconfig);
	fuzz_events(&f, &config, &tconfig);

	free(buf);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
