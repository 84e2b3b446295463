/* SPDX-License-Identifier: BSD-3-Clause */
/* See fb_check.h. */
#include "fb_check.h"

#include "flowbatch/flow_batch_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One result of a decoding loop. */
enum { R_SYNC = 1, R_INSN, R_EVENT, R_ERROR, R_SYNC_ERROR };

struct rec {
	int kind;
	int code;
	uint64_t a, b; /* insn: ip, time; error: offset, ip; sync: offset;
	                  event: index into recs.ev */
};

struct recs {
	struct rec *r;
	size_t n, cap;
	struct pt_event *ev;
	size_t nev, capev;
	int oom;
	/* The events of ptd_flow_decode_insns() came with places out of
	 * order. */
	int disorder;
	/* Stop after @limit instructions (0: no limit); @capped: stopped. */
	uint64_t limit, ninsn;
	int capped;
};

/* Room for one more event in @rs: its address, or NULL. */
static struct pt_event *ev_add(struct recs *rs)
{
	if (rs->nev == rs->capev) {
		size_t cap = rs->capev ? rs->capev * 2 : 1024;
		struct pt_event *ne = realloc(rs->ev, cap * sizeof(*ne));

		if (!ne) {
			rs->oom = 1;
			return NULL;
		}
		rs->ev = ne;
		rs->capev = cap;
	}
	memset(&rs->ev[rs->nev], 0, sizeof(rs->ev[0]));
	return &rs->ev[rs->nev];
}

static struct rec *rec_add(struct recs *rs, int kind)
{
	struct rec *r;

	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 4096;
		struct rec *nr = realloc(rs->r, cap * sizeof(*nr));

		if (!nr) {
			rs->oom = 1;
			return NULL;
		}
		rs->r = nr;
		rs->cap = cap;
	}
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	if (kind == R_INSN && rs->limit && ++rs->ninsn >= rs->limit)
		rs->capped = 1;
	return r;
}

/* The reference: the loop of flow_bench/ptxed over pt_insn_*. */
static int run_insn(const struct pt_config *config, struct pt_image *image,
                    struct recs *rs)
{
	struct pt_insn_decoder *dec = pt_insn_alloc_decoder(config);
	struct rec *r;
	int status;

	if (!dec || pt_insn_set_image(dec, image) < 0) {
		pt_insn_free_decoder(dec);
		return -1;
	}
	for (;;) {
		uint64_t off = 0;

		status = pt_insn_sync_forward(dec);
		if (status < 0) {
			if (status != -pte_eos &&
			    (r = rec_add(rs, R_SYNC_ERROR)))
				r->code = status;
			break;
		}
		(void)pt_insn_get_sync_offset(dec, &off);
		if ((r = rec_add(rs, R_SYNC)))
			r->a = off;
		for (;;) {
			struct pt_insn insn;

			while (status & pts_event_pending) {
				struct pt_event *ev = ev_add(rs);

				if (!ev)
					break;
				status = pt_insn_event(dec, ev, sizeof(*ev));
				if (status < 0) {
					/* An error of an event: its offset
					 * (no IP). */
					if (status != -pte_eos &&
					    (r = rec_add(rs, R_ERROR))) {
						r->code = status;
						(void)pt_insn_get_offset(dec,
						                         &r->a);
					}
					break;
				}
				r = rec_add(rs, R_EVENT);
				if (!r)
					break;
				r->a = rs->nev++;
			}
			if (status < 0 || (status & pts_eos))
				break;
			memset(&insn, 0, sizeof(insn));
			status = pt_insn_next(dec, &insn, sizeof(insn));
			/* pt_insn_next() reports the instruction also when
			 * an error follows it (it has a class then). */
			if (status >= 0 || insn.iclass != ptic_unknown) {
				r = rec_add(rs, R_INSN);
				if (r) {
					r->a = insn.ip;
					(void)pt_insn_time(dec, &r->b, NULL,
					                   NULL);
				}
			}
			if (status < 0) {
				if (status != -pte_eos &&
				    (r = rec_add(rs, R_ERROR))) {
					r->code = status;
					(void)pt_insn_get_offset(dec, &r->a);
					r->b = insn.ip;
				}
				break;
			}
			if (rs->capped)
				break;
		}
		if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
			break;
		if (rs->oom || rs->capped)
			break;
	}
	pt_insn_free_decoder(dec);
	return rs->oom ? -1 : 0;
}

/* The room for events that the loops over ptd_flow_decode_*() give with
 * arrays of @cap entries: mostly little, so that calls also stop with
 * events pending (with one, a pair does not fit), and plenty with the
 * usual 4096. */
static size_t ev_room(size_t cap)
{
	switch (cap) {
	case 7:
		return 1;
	case 1:
		return 2;
	case 4096:
		return 64;
	default:
		return 3;
	}
}

/* Record the events of @ev at place @at (those not recorded yet, from
 * *@done on) as pt_insn_next()'s loop would have. */
static void rec_events(struct recs *rs, const struct ptd_flow_events *ev,
                       size_t at, size_t *done)
{
	for (; *done < ev->count && ev->at[*done] == at; ++*done) {
		struct pt_event *e = ev_add(rs);
		struct rec *r;

		if (!e)
			return;
		*e = ev->events[*done];
		r = rec_add(rs, R_EVENT);
		if (!r)
			return;
		r->a = rs->nev++;
	}
}

/* The same loop over ptd_flow_next_insns() and ptd_flow_batch_event(), or
 * (@inline_ev) over ptd_flow_decode_insns() with the events in the same
 * call. */
static int run_batch(const struct pt_config *config, struct pt_image *image,
                     size_t cap, int inline_ev, struct recs *rs)
{
	struct ptd_flow_batch *dec = ptd_flow_batch_alloc(config, NULL);
	uint64_t *ips = malloc(cap * sizeof(*ips));
	uint64_t *tscs = malloc(cap * sizeof(*tscs));
	const size_t nev = ev_room(cap);
	struct pt_event *evs = malloc(nev * sizeof(*evs));
	size_t *at = malloc(nev * sizeof(*at));
	struct ptd_flow_events ev = {evs, at, nev, 0};
	struct rec *r;
	int status, err = -1;

	if (!dec || !ips || !tscs || !evs || !at ||
	    ptd_flow_batch_set_image(dec, image) < 0)
		goto out;
	/* The replay log starts again from a copy of the query decoder at
	 * every batch fetch, so that replays start from such copies, and
	 * batches hold 4 items and 2 events, so that their ends (and the
	 * copies) fall at every kind of point in the trace. */
	ptd_flow_batch_set_ckpt_calls(dec, 1);
	ptd_flow_batch_set_batch_size(dec, 4, 2);
	/* The run cache is flushed every 512 runs, so that links,
	 * successors and return-shadow entries of flushed runs are met;
	 * with arrays of 7 entries every 3 runs, so that flushes also fall
	 * between a lookup and the link it would store. */
	ptd_flow_batch_set_max_runs(dec, cap == 7 ? 3 : 512);
	/* The AVX2 copy of the instruction loop here (where the CPU has it),
	 * the best one with the events in the same call, the plain one in
	 * run_ips(). */
	if (!inline_ev)
		ptd_flow_batch_set_simd(dec, 1);
	for (;;) {
		uint64_t off = 0;

		status = ptd_flow_batch_sync_forward(dec);
		if (status < 0) {
			if (status != -pte_eos &&
			    (r = rec_add(rs, R_SYNC_ERROR)))
				r->code = status;
			break;
		}
		(void)ptd_flow_batch_get_sync_offset(dec, &off);
		if ((r = rec_add(rs, R_SYNC)))
			r->a = off;
		for (;;) {
			size_t n = 0, i;

			/* (ptd_flow_decode_insns() drains the events itself,
			 * also those pending when it is called.) */
			while (!inline_ev && (status & pts_event_pending)) {
				struct pt_event *e = ev_add(rs);

				if (!e)
					break;
				status = ptd_flow_batch_event(dec, e,
				                              sizeof(*e));
				if (status < 0) {
					if (status != -pte_eos &&
					    (r = rec_add(rs, R_ERROR))) {
						r->code = status;
						(void)ptd_flow_batch_get_offset(
						        dec, &r->a);
					}
					break;
				}
				r = rec_add(rs, R_EVENT);
				if (!r)
					break;
				r->a = rs->nev++;
			}
			if (status < 0 || ((status & pts_eos) &&
			                   !(status & pts_event_pending)))
				break;
			if (inline_ev) {
				size_t done = 0;

				status = ptd_flow_decode_insns(dec, ips, tscs,
				                               cap, &n, &ev);
				for (i = 0; i <= n; ++i) {
					rec_events(rs, &ev, i, &done);
					if (i == n)
						break;
					r = rec_add(rs, R_INSN);
					if (!r)
						break;
					r->a = ips[i];
					r->b = tscs[i];
				}
				if (done != ev.count) {
					fprintf(stderr,
					        "ptd_flow_decode_insns(): "
					        "event places out of "
					        "order\n");
					rs->disorder = 1;
				}
				/* With arrays of 1, an event left pending is
				 * drained by hand (the next call must know). */
				if (cap == 1 && status >= 0 &&
				    (status & pts_event_pending)) {
					struct pt_event *e = ev_add(rs);

					if (!e)
						break;
					status = ptd_flow_batch_event(
					        dec, e, sizeof(*e));
					if (status < 0) {
						/* As the loop above. */
						if (status != -pte_eos &&
						    (r = rec_add(rs,
						                 R_ERROR))) {
							r->code = status;
							(void)ptd_flow_batch_get_offset(
							        dec, &r->a);
						}
						break;
					}
					if ((r = rec_add(rs, R_EVENT)))
						r->a = rs->nev++;
				}
			} else {
				status = ptd_flow_next_insns(dec, ips, tscs,
				                             cap, &n);
				for (i = 0; i < n; ++i) {
					r = rec_add(rs, R_INSN);
					if (!r)
						break;
					r->a = ips[i];
					r->b = tscs[i];
				}
			}
			if (status < 0) {
				if (status != -pte_eos &&
				    (r = rec_add(rs, R_ERROR))) {
					r->code = status;
					(void)ptd_flow_batch_get_offset(dec,
					                                &r->a);
					(void)ptd_flow_batch_error_ip(dec,
					                              &r->b);
				}
				break;
			}
			if (rs->capped)
				break;
		}
		if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
			break;
		if (rs->oom || rs->capped)
			break;
	}
	err = rs->oom ? -1 : 0;
out:
	ptd_flow_batch_free(dec);
	free(ips);
	free(tscs);
	free(evs);
	free(at);
	return err;
}

/* The instruction flow without times (@tscs NULL): the IPs must be @ref's
 * instructions in order. */
static int run_ips(const char *name, const struct pt_config *config,
                   struct pt_image *image, size_t cap, const struct recs *ref)
{
	struct ptd_flow_batch *dec = ptd_flow_batch_alloc(config, NULL);
	uint64_t *ips = malloc(cap * sizeof(*ips));
	size_t pos = 0;
	int status, err = -1;

	if (!dec || !ips || ptd_flow_batch_set_image(dec, image) < 0)
		goto out;
	ptd_flow_batch_set_simd(dec, 0);
	err = 0;
	for (;;) {
		status = ptd_flow_batch_sync_forward(dec);
		if (status < 0)
			break;
		for (;;) {
			size_t n = 0, i;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = ptd_flow_batch_event(dec, &ev,
				                              sizeof(ev));
				if (status < 0)
					break;
			}
			if (status < 0 || (status & pts_eos))
				break;
			status = ptd_flow_next_insns(dec, ips, NULL, cap, &n);
			for (i = 0; i < n && !err; ++i) {
				while (pos < ref->n &&
				       ref->r[pos].kind != R_INSN)
					pos++;
				if (pos == ref->n || ref->r[pos].a != ips[i]) {
					fprintf(stderr,
					        "%s: without times, "
					        "instruction "
					        "at result %zu is 0x%" PRIx64
					        "\n",
					        name, pos, ips[i]);
					err = 1;
				}
				pos++;
			}
			if (err || status < 0) {
				uint64_t offset;

				if (status < 0 && status != -pte_eos)
					(void)ptd_flow_batch_get_offset(
					        dec, &offset);
				break;
			}
		}
		if (err || status == -pte_eos ||
		    (status >= 0 && (status & pts_eos)))
			break;
	}
out:
	ptd_flow_batch_free(dec);
	free(ips);
	return err;
}

/* Match the events of @ev at place @at (from *@done on) with @ref's next
 * results from *@pos on (synchronizations and errors before them
 * skipped); *@matched counts them.  Returns 0, or 1 with a message. */
static int match_events(const char *name, const struct recs *ref,
                        const struct ptd_flow_events *ev, size_t at,
                        size_t *done, size_t *pos, uint64_t *matched)
{
	for (; *done < ev->count && ev->at[*done] == at; ++*done) {
		const struct rec *r;

		while (*pos < ref->n && ref->r[*pos].kind != R_EVENT &&
		       ref->r[*pos].kind != R_INSN)
			++*pos;
		r = *pos < ref->n ? &ref->r[*pos] : NULL;
		if (!r || r->kind != R_EVENT ||
		    memcmp(&ref->ev[r->a], &ev->events[*done],
		           sizeof(ev->events[0]))) {
			fprintf(stderr,
			        "%s: blocks with events: event %" PRIu64
			        " does not match result %zu\n",
			        name, *matched, *pos);
			return 1;
		}
		++*pos;
		++*matched;
	}
	return 0;
}

/* The blocks: every block's first and last IP must be the instructions at
 * its place in @ref's instruction sequence, and the counts must add up.
 * With @inline_ev, from ptd_flow_decode_blocks(): its events must be
 * @ref's, each at its place. */
static int run_blocks(const char *name, const struct pt_config *config,
                      struct pt_image *image, size_t cap, int inline_ev,
                      const struct recs *ref, uint64_t *nblocks)
{
	struct ptd_flow_batch *dec = ptd_flow_batch_alloc(config, NULL);
	struct ptd_flow_block *blocks = malloc(cap * sizeof(*blocks));
	const size_t nev = ev_room(cap);
	struct pt_event *evs = malloc(nev * sizeof(*evs));
	size_t *at = malloc(nev * sizeof(*at));
	struct ptd_flow_events ev = {evs, at, nev, 0};
	uint64_t matched = 0, nref = 0;
	size_t pos = 0, j; /* index into @ref */
	int status, err = -1;

	*nblocks = 0;
	if (!dec || !blocks || !evs || !at ||
	    ptd_flow_batch_set_image(dec, image) < 0)
		goto out;
	/* A copy at every batch fetch, as in run_batch(), with batches of
	 * the default size, and a flush every 256 runs (every 2 with arrays
	 * of 7 entries); run_ips() keeps the defaults. */
	ptd_flow_batch_set_ckpt_calls(dec, 1);
	ptd_flow_batch_set_max_runs(dec, cap == 7 ? 2 : 256);
	err = 0;
	for (;;) {
		status = ptd_flow_batch_sync_forward(dec);
		if (status < 0)
			break;
		for (;;) {
			size_t n = 0, i, done = 0;

			while (!inline_ev && (status & pts_event_pending)) {
				struct pt_event e;

				status = ptd_flow_batch_event(dec, &e,
				                              sizeof(e));
				if (status < 0)
					break;
			}
			if (status < 0 || ((status & pts_eos) &&
			                   !(status & pts_event_pending)))
				break;
			if (inline_ev)
				status = ptd_flow_decode_blocks(dec, blocks,
				                                cap, &n, &ev);
			else
				status = ptd_flow_next_blocks(dec, blocks, cap,
				                              &n);
			for (i = 0; i <= n && !err; ++i) {
				const struct ptd_flow_block *b = &blocks[i];
				size_t last;

				if (inline_ev &&
				    match_events(name, ref, &ev, i, &done, &pos,
				                 &matched)) {
					err = 1;
					break;
				}
				if (i == n)
					break;
				/* (With the events in the call, an event
				 * skipped here is one it did not report.) */
				while (pos < ref->n &&
				       ref->r[pos].kind != R_INSN &&
				       (!inline_ev ||
				        ref->r[pos].kind != R_EVENT))
					pos++;
				last = pos + b->ninsn - 1;
				if (!b->ninsn || last >= ref->n ||
				    ref->r[pos].a != b->ip ||
				    ref->r[last].kind != R_INSN ||
				    ref->r[last].a != b->end_ip ||
				    ref->r[last].b != b->tsc) {
					fprintf(stderr,
					        "%s: block %" PRIu64
					        " at 0x%" PRIx64 "..0x%" PRIx64
					        " (%u insns) does not match "
					        "instruction %zu\n",
					        name, *nblocks, b->ip,
					        b->end_ip, b->ninsn, pos);
					err = 1;
					break;
				}
				/* No event or error inside a block. */
				for (; pos <= last; ++pos)
					if (ref->r[pos].kind != R_INSN) {
						fprintf(stderr,
						        "%s: block %" PRIu64
						        " spans a result of "
						        "kind %d\n",
						        name, *nblocks,
						        ref->r[pos].kind);
						err = 1;
						break;
					}
				*nblocks += 1;
			}
			if (err || status < 0) {
				uint64_t offset;

				/* As the other loops: after asking for the
				 * offset, the engine takes the pull API's
				 * results (docs/flow.md), and on corrupted
				 * traces they may differ from the batch's
				 * (tests/flow/CMakeLists.txt). */
				if (status < 0 && status != -pte_eos)
					(void)ptd_flow_batch_get_offset(
					        dec, &offset);
				break;
			}
		}
		if (err || status == -pte_eos ||
		    (status >= 0 && (status & pts_eos)))
			break;
	}
	for (j = 0; j < ref->n; ++j)
		nref += ref->r[j].kind == R_EVENT;
	if (!err && inline_ev && matched != nref) {
		fprintf(stderr,
		        "%s: blocks with events: %" PRIu64 " of %" PRIu64
		        " events\n",
		        name, matched, nref);
		err = 1;
	}
	if (!err) {
		while (pos < ref->n && ref->r[pos].kind != R_INSN)
			pos++;
		if (pos != ref->n) {
			fprintf(stderr,
			        "%s: the blocks end at instruction %zu of %zu "
			        "results\n",
			        name, pos, ref->n);
			err = 1;
		}
	}
out:
	ptd_flow_batch_free(dec);
	free(blocks);
	free(evs);
	free(at);
	return err;
}

static const char *kind_name(int kind)
{
	switch (kind) {
	case R_SYNC:
		return "sync";
	case R_INSN:
		return "insn";
	case R_EVENT:
		return "event";
	case R_ERROR:
		return "error";
	case R_SYNC_ERROR:
		return "sync error";
	default:
		return "end";
	}
}

/* Compare the results of a batch loop (@what) with the reference's.
 * Returns 0 if they agree, 1 with a message if not. */
static int compare(const char *name, const char *what, const struct recs *ref,
                   const struct recs *got)
{
	size_t i, n;

	if (got->disorder)
		return 1;
	/* Where the reference stopped at the limit, the batch may have gone
	 * a little further. */
	n = ref->n > got->n || ref->capped ? ref->n : got->n;
	for (i = 0; i < n; ++i) {
		const struct rec *a = i < ref->n ? &ref->r[i] : NULL;
		const struct rec *b = i < got->n ? &got->r[i] : NULL;

		if (a && b && a->kind == b->kind && a->code == b->code &&
		    a->a == b->a && a->b == b->b &&
		    (a->kind != R_EVENT ||
		     !memcmp(&ref->ev[a->a], &got->ev[b->a],
		             sizeof(ref->ev[0]))))
			continue;
		fprintf(stderr,
		        "%s: result %zu differs: pt_insn_next %s %d 0x%" PRIx64
		        " 0x%" PRIx64 ", %s %s %d 0x%" PRIx64 " 0x%" PRIx64
		        "\n",
		        name, i, kind_name(a ? a->kind : 0), a ? a->code : 0,
		        a ? a->a : 0, a ? a->b : 0, what,
		        kind_name(b ? b->kind : 0), b ? b->code : 0,
		        b ? b->a : 0, b ? b->b : 0);
		return 1;
	}
	return 0;
}

static void recs_free(struct recs *rs)
{
	free(rs->r);
	free(rs->ev);
}

int fb_check(const char *name, const struct pt_config *config,
             struct pt_image *image, size_t cap, uint64_t limit,
             struct fb_check_result *result)
{
	struct recs ref, got, gev;
	size_t i;
	int bad = 0;

	memset(&ref, 0, sizeof(ref));
	memset(&got, 0, sizeof(got));
	memset(&gev, 0, sizeof(gev));
	memset(result, 0, sizeof(*result));
	ref.limit = limit;
	got.limit = limit;
	gev.limit = limit;
	if (run_insn(config, image, &ref) < 0 ||
	    run_batch(config, image, cap, 0, &got) < 0 ||
	    run_batch(config, image, cap, 1, &gev) < 0) {
		recs_free(&ref);
		recs_free(&got);
		recs_free(&gev);
		return -1;
	}
	bad = compare(name, "batch", &ref, &got);
	if (!bad)
		bad = compare(name, "batch with events", &ref, &gev);
	for (i = 0; i < ref.n; ++i) {
		result->insns += ref.r[i].kind == R_INSN;
		result->events += ref.r[i].kind == R_EVENT;
		result->errors += ref.r[i].kind == R_ERROR;
	}
	if (!bad && !ref.capped) {
		uint64_t nblocks = 0;
		int err = run_blocks(name, config, image, cap, 0, &ref,
		                     &result->blocks);

		if (!err)
			err = run_blocks(name, config, image, cap, 1, &ref,
			                 &nblocks);
		if (!err)
			err = run_ips(name, config, image, cap, &ref);
		if (err < 0)
			bad = -1;
		else if (err)
			bad = 1;
	}
	recs_free(&ref);
	recs_free(&got);
	recs_free(&gev);
	return bad;
}
