/* SPDX-License-Identifier: BSD-3-Clause */
/* Trace results for the flow decoders: pull API or batch items. */
#include "qsrc.h"

#include "packet/pkt_sync.h"

#include <stdlib.h>
#include <string.h>

enum {
	/* The most calls we remember for a replay. */
	ptd_qsrc_log_max = 1 << 26
};

int ptd_qsrc_init(struct ptd_qsrc *qs, const struct pt_config *config,
                  const struct ptd_time_config *tconfig, int batch)
{
	memset(qs, 0, sizeof(*qs));
	qs->config = *config;
	if (tconfig) {
		qs->tconfig = *tconfig;
		qs->have_tconfig = 1;
	}
	qs->batch = batch;
	qs->batch_wanted = batch;
	qs->qry = ptd_qry_alloc_decoder(config, tconfig);
	if (!qs->qry)
		return -pte_nomem;
	qs->tsc_status = -pte_no_time;
	qs->cbr_status = -pte_no_cbr;
	return 0;
}

void ptd_qsrc_fini(struct ptd_qsrc *qs)
{
	pt_qry_free_decoder(qs->qry);
	qs->qry = NULL;
	free(qs->log);
	qs->log = NULL;
}

/* Remember a call for the replay (or give up replaying). */
static void qsrc_log(struct ptd_qsrc *qs, uint8_t call)
{
	if (!qs->log_ok)
		return;
	if (qs->nlog == qs->caplog) {
		size_t cap = qs->caplog ? 2 * qs->caplog : 4096;
		uint8_t *log;

		if (cap > ptd_qsrc_log_max) {
			qs->log_ok = 0;
			return;
		}
		log = realloc(qs->log, cap);
		if (!log) {
			qs->log_ok = 0;
			return;
		}
		qs->log = log;
		qs->caplog = cap;
	}
	qs->log[qs->nlog++] = call;
}

static void qsrc_clear(struct ptd_qsrc *qs)
{
	qs->n = 0;
	qs->pos = 0;
	qs->used = 0;
	qs->end = 0;
	qs->resync = 0;
	qs->resync_end = 0;
}

/* The next item, fetching a batch if needed; NULL at the end of the trace
 * (or if the batch call failed, which it only does for bad arguments). */
static const struct ptd_qry_item *qsrc_peek(struct ptd_qsrc *qs)
{
	int count;

	if (qs->pos < qs->n)
		return &qs->items[qs->pos];
	if (qs->end)
		return NULL;
	qs->pos = 0;
	qs->used = 0;
	count = ptd_qry_next_batch(qs->qry, qs->items, ptd_qsrc_nitems,
	                           qs->events, ptd_qsrc_nevents);
	if (count <= 0) {
		qs->n = 0;
		qs->end = 1;
		return NULL;
	}
	qs->n = (uint32_t)count;
	return &qs->items[0];
}

/* The time after the result @it. */
static void qsrc_take_time(struct ptd_qsrc *qs, const struct ptd_qry_item *it)
{
	qs->tsc = it->tsc;
	qs->lost_mtc = it->lost_mtc;
	qs->lost_cyc = it->lost_cyc;
	qs->tsc_status = (it->flags & ptd_qry_item_has_tsc) ? 0 : -pte_no_time;
}

/* The time and core:bus ratio after a pull call. */
static void qsrc_pull_time(struct ptd_qsrc *qs)
{
	qs->tsc_status =
	        pt_qry_time(qs->qry, &qs->tsc, &qs->lost_mtc, &qs->lost_cyc);
	qs->cbr_status = pt_qry_core_bus_ratio(qs->qry, &qs->cbr);
}

/* A fresh decoder at the point where the calls made since the last
 * synchronization leave the pull API, or NULL (not known, or out of
 * memory). */
static struct pt_query_decoder *qsrc_replay_dec(const struct ptd_qsrc *qs)
{
	struct pt_query_decoder *dec;
	uint64_t ip;
	size_t i;

	if (!qs->log_ok)
		return NULL;
	dec = ptd_qry_alloc_decoder(&qs->config,
	                            qs->have_tconfig ? &qs->tconfig : NULL);
	if (!dec)
		return NULL;
	if (pt_qry_sync_set(dec, &ip, qs->sync_offset) < 0) {
		pt_qry_free_decoder(dec);
		return NULL;
	}
	/* The same calls, failed ones included: they may move the decoder
	 * too. */
	for (i = 0; i < qs->nlog; i++) {
		struct pt_event ev;
		int taken;

		switch (qs->log[i]) {
		case ptd_qsrc_call_cond:
			(void)pt_qry_cond_branch(dec, &taken);
			break;
		case ptd_qsrc_call_indirect:
			(void)pt_qry_indirect_branch(dec, &ip);
			break;
		default:
			(void)pt_qry_event(dec, &ev, sizeof(ev));
			break;
		}
	}
	return dec;
}

/* Let a replayed decoder replace ours.  Returns 0 or -pte_internal (the
 * log is not known, or no memory; then nothing changed). */
static int qsrc_replay(struct ptd_qsrc *qs)
{
	struct pt_query_decoder *dec = qsrc_replay_dec(qs);

	if (!dec)
		return -pte_internal;
	pt_qry_free_decoder(qs->qry);
	qs->qry = dec;
	qsrc_clear(qs);
	return 0;
}

/* Let the pull API answer from here to the next synchronization: a decoder
 * replayed to this point replaces ours.  Batch items stand for the pull
 * API's results only in the order in which the loop of ptd_qry_next_batch()
 * asks for them; where the flow decoder's next step depends on more than
 * the items tell, the pull API takes over (see qsrc_other()).  Returns 0,
 * or -pte_internal if the pull API cannot take over (then the batch goes
 * on). */
static int qsrc_pull(struct ptd_qsrc *qs)
{
	if (qsrc_replay(qs) < 0)
		return -pte_internal;
	qs->batch = 0;
	return 0;
}

/* The status flags after the result just taken: pts_eos if no item
 * follows (the batch reports no end without an error item but the one that
 * pts_eos announced), pts_event_pending before an event, and before an
 * error item what its flags say (the loop's pt_qry_event() failed after
 * pts_event_pending, a branch query after no flag). */
static inline int qsrc_status(struct ptd_qsrc *qs)
{
	const struct ptd_qry_item *it = qsrc_peek(qs);

	if (!it)
		return pts_eos;
	if (it->kind == ptd_qry_item_event ||
	    (it->kind == ptd_qry_item_error &&
	     (it->flags & ptd_qry_item_event_pending)))
		return pts_event_pending;
	return 0;
}

/* The query @call (ptd_qsrc_call_*) in batch mode when the next result @it
 * (NULL at the end) is not of its kind, or after an error (qs->resync).
 * Returns the pull API's answer, or 1 << 30 if the pull API took over to
 * answer (then qs->batch is 0).
 *
 * An error item is the answer to the query of the loop that failed (its
 * flags tell which), and to pt_qry_indirect_branch() where the loop's
 * pt_qry_cond_branch() failed: after a status without flags, both fetch or
 * decode the same packets up to the same failure (a packet that cannot be
 * fetched, a TNT packet cut short, or the packet after a TNT packet, which
 * both decode), and only the time differs (pt_qry_cond_branch() took the
 * time of the outcomes of a TNT packet whose read-ahead failed).  After the
 * error, the items are the batch's synchronization (qs->resync), and
 * pt_qry_indirect_branch() after the failed pt_qry_cond_branch() (the flow
 * decoders' near return) fails again in the same way at the same point.
 *
 * The other queries are refused with -pte_bad_query, which moves nothing:
 * after pts_event_pending, the branch queries; after no flag,
 * pt_qry_event() and pt_qry_cond_branch() before a TIP; and at the end of
 * the trace, all fail with -pte_eos.  The pull API takes over for an
 * indirect branch while outcomes are pending (pt_qry_indirect_branch()
 * takes a TIP that follows their TNT packet, which the items do not tell),
 * for pt_qry_event() where the loop's pt_qry_cond_branch() failed (it may
 * decode a packet that the failed query did not), and for other queries
 * after an error without a synchronization in between. */
static int qsrc_other(struct ptd_qsrc *qs, const struct ptd_qry_item *it,
                      int call)
{
	if (qs->resync) {
		if (call == ptd_qsrc_call_indirect &&
		    qs->err_call == ptd_qsrc_call_cond) {
			qsrc_log(qs, (uint8_t)call);
			return qs->err_code;
		}
		goto pull;
	}
	if (it && it->kind == ptd_qry_item_tnt &&
	    call == ptd_qsrc_call_indirect)
		goto pull;
	if (it && it->kind == ptd_qry_item_error) {
		int failed = (it->flags & ptd_qry_item_event_pending)
		                     ? ptd_qsrc_call_event
		             : (it->flags & ptd_qry_item_indirect)
		                     ? ptd_qsrc_call_indirect
		                     : ptd_qsrc_call_cond;

		if (call == failed || (call == ptd_qsrc_call_indirect &&
		                       failed == ptd_qsrc_call_cond)) {
			qsrc_log(qs, (uint8_t)call);
			if (call == failed)
				qsrc_take_time(qs, it);
			qs->pos++;
			qs->used = 0;
			qs->resync = 1;
			qs->err_offset = it->value;
			qs->err_call = failed;
			qs->err_code = it->error;
			return it->error;
		}
		if (call == ptd_qsrc_call_event && failed == ptd_qsrc_call_cond)
			goto pull;
	}
	qsrc_log(qs, (uint8_t)call);
	return it ? -pte_bad_query : -pte_eos;

pull:
	if (qsrc_pull(qs) == 0)
		return 1 << 30;
	/* Without the log (out of memory, or too long), the items answer as
	 * they can. */
	if (it && it->kind == ptd_qry_item_error && !qs->resync)
		return it->error;
	return -pte_bad_query;
}

/* Whether the query decoder ran ahead of the results taken. */
static int qsrc_ahead(const struct ptd_qsrc *qs)
{
	return qs->batch && (qs->n || qs->end);
}

/* The PSB at which pt_qry_sync_forward() synchronizes (or tries to) when the
 * decoder is at @from after a synchronization at @sync: the first one at
 * or after @from, or after the PSB at @from if that is @sync.  Returns 0 or
 * -pte_eos if there is none. */
static int qsrc_next_psb(const struct ptd_qsrc *qs, uint64_t from,
                         uint64_t sync, uint64_t *psb)
{
	const uint8_t *begin = qs->config.begin, *end = qs->config.end;
	const uint8_t *pos, *hit;

	if (from > (uint64_t)(end - begin))
		return -pte_eos;
	pos = begin + from;
	if (from == sync)
		pos += (end - pos < 16) ? end - pos : 16;
	hit = ptd_sync_forward(pos, begin, end);
	if (!hit)
		return -pte_eos;
	*psb = (uint64_t)(hit - begin);
	return 0;
}

/* pt_qry_sync_forward() after an error item was the answer (qs->resync):
 * the batch's synchronization, which is the pull API's from the same state.
 * Returns its result, or 1 << 30 if the items do not tell (then nothing
 * changed). */
static int qsrc_resync(struct ptd_qsrc *qs, uint64_t *ip)
{
	const struct ptd_qry_item *it = qsrc_peek(qs);
	uint64_t psb = 0;
	int found, status, suppressed;

	if (!it) {
		/* The batch's synchronization found the end, and its loop
		 * stopped there.  Again: the query decoder goes on from
		 * there, as the pull API would (see ptd_qsrc_sync()). */
		if (qs->resync_end)
			return 1 << 30;
		qs->resync_end = 1;
		/* If there was a PSB, its PSB+ was cut short: the decoder
		 * tried it, and its time is reset. */
		if (qs->sync_known &&
		    qsrc_next_psb(qs, qs->err_offset, qs->sync_offset, &psb) ==
		            0) {
			qs->sync_offset = psb;
			qs->log_ok = 0;
			qs->tsc = 0;
			qs->lost_mtc = 0;
			qs->lost_cyc = 0;
			qs->tsc_status = -pte_no_time;
			qs->cbr_status = -pte_no_cbr;
		}
		return -pte_eos;
	}
	if (it->kind != ptd_qry_item_sync &&
	    !(it->kind == ptd_qry_item_error &&
	      (it->flags & ptd_qry_item_resync)))
		return 1 << 30;
	/* The PSB the pull API finds (the query decoder itself may have
	 * moved on to later ones). */
	found = qs->sync_known &&
	        qsrc_next_psb(qs, qs->err_offset, qs->sync_offset, &psb) == 0;
	qs->pos++;
	qs->used = 0;
	qsrc_take_time(qs, it);
	qs->cbr_status = -pte_no_cbr;
	qs->sync_offset = psb;
	qs->sync_known = found;
	qs->nlog = 0;
	if (it->kind == ptd_qry_item_error) {
		/* The synchronization failed there: the next one goes on
		 * from where it stopped. */
		qs->log_ok = 0;
		qs->err_offset = it->value;
		qs->err_call = 0;
		qs->err_code = it->error;
		return it->error;
	}
	qs->log_ok = found;
	qs->resync = 0;
	suppressed = it->flags & ptd_qry_item_ip_suppressed;
	if (!suppressed)
		*ip = it->value;
	/* (This may fetch the next batch over @it.) */
	status = qsrc_status(qs);
	return suppressed ? status | pts_ip_suppressed : status;
}

int ptd_qsrc_sync(struct ptd_qsrc *qs, int how, uint64_t offset, uint64_t *ip)
{
	int status;

	/* After an error item was the answer, the batch synchronized forward
	 * itself, as the pull API would. */
	if (qs->batch && qs->resync && how == 0) {
		status = qsrc_resync(qs, ip);
		if (status != 1 << 30)
			return status;
	}

	/* Else the query decoder must be where the pull API would be: after a
	 * query error that the items did not answer (the flow decoder failed
	 * first, -pte_nomap say), pt_qry_sync_forward() goes on from the pull
	 * API's position, not from the packet that failed.  (After the end
	 * that the batch's synchronization found, the query decoder is where
	 * that synchronization left the pull API: a PSB+ cut short by the
	 * next PSB ends the loop, not the trace.) */
	if (qsrc_ahead(qs) && how != 2 && !(qs->resync && qs->resync_end))
		(void)qsrc_replay(qs);
	qsrc_clear(qs);
	/* Batches again, unless the caller asked for offsets. */
	qs->batch = qs->batch_wanted;

	switch (how) {
	case 0:
		status = pt_qry_sync_forward(qs->qry, ip);
		break;
	case 1:
		status = pt_qry_sync_backward(qs->qry, ip);
		break;
	default:
		status = pt_qry_sync_set(qs->qry, ip, offset);
		break;
	}
	qs->nlog = 0;
	qs->sync_known = pt_qry_get_sync_offset(qs->qry, &qs->sync_offset) >= 0;
	qs->log_ok = status >= 0 && qs->sync_known;
	qsrc_pull_time(qs);
	return status;
}

int ptd_qsrc_cond_slow(struct ptd_qsrc *qs, int *taken)
{
	const struct ptd_qry_item *it;
	int status;

	if (!qs->batch)
		return pt_qry_cond_branch(qs->qry, taken);
	it = qsrc_peek(qs);
	if (!it || it->kind != ptd_qry_item_tnt || qs->resync) {
		status = qsrc_other(qs, it, ptd_qsrc_call_cond);
		if (status == 1 << 30)
			return pt_qry_cond_branch(qs->qry, taken);
		return status;
	}
	qsrc_log(qs, ptd_qsrc_call_cond);
	*taken = (int)((it->value >> (it->count - 1 - qs->used)) & 1);
	qsrc_take_time(qs, it);
	if (++qs->used == it->count) {
		qs->pos++;
		qs->used = 0;
	}
	return qsrc_status(qs);
}

int ptd_qsrc_indirect(struct ptd_qsrc *qs, uint64_t *ip)
{
	const struct ptd_qry_item *it;
	int status, suppressed;

	if (!qs->batch)
		return pt_qry_indirect_branch(qs->qry, ip);
	it = qsrc_peek(qs);
	if (!it || it->kind != ptd_qry_item_tip || qs->resync) {
		status = qsrc_other(qs, it, ptd_qsrc_call_indirect);
		if (status == 1 << 30)
			return pt_qry_indirect_branch(qs->qry, ip);
		return status;
	}
	qsrc_log(qs, ptd_qsrc_call_indirect);
	suppressed = it->flags & ptd_qry_item_ip_suppressed;
	if (!suppressed)
		*ip = it->value;
	qsrc_take_time(qs, it);
	qs->pos++;
	status = qsrc_status(qs);
	return suppressed ? status | pts_ip_suppressed : status;
}

int ptd_qsrc_event(struct ptd_qsrc *qs, struct pt_event *event)
{
	const struct ptd_qry_item *it;
	int status;

	if (!qs->batch)
		return pt_qry_event(qs->qry, event, sizeof(*event));
	it = qsrc_peek(qs);
	if (!it || it->kind != ptd_qry_item_event || qs->resync) {
		status = qsrc_other(qs, it, ptd_qsrc_call_event);
		if (status == 1 << 30)
			return pt_qry_event(qs->qry, event, sizeof(*event));
		return status;
	}
	qsrc_log(qs, ptd_qsrc_call_event);
	*event = qs->events[it->value];
	qsrc_take_time(qs, it);
	if (event->type == ptev_cbr) {
		qs->cbr = event->variant.cbr.ratio;
		qs->cbr_status = 0;
	}
	qs->pos++;
	return qsrc_status(qs);
}

int ptd_qsrc_time(const struct ptd_qsrc *qs, uint64_t *tsc, uint32_t *lost_mtc,
                  uint32_t *lost_cyc)
{
	if (!qs->batch)
		return pt_qry_time(qs->qry, tsc, lost_mtc, lost_cyc);
	*tsc = qs->tsc;
	if (lost_mtc)
		*lost_mtc = qs->lost_mtc;
	if (lost_cyc)
		*lost_cyc = qs->lost_cyc;
	return qs->tsc_status;
}

int ptd_qsrc_cbr(const struct ptd_qsrc *qs, uint32_t *cbr)
{
	if (!qs->batch)
		return pt_qry_core_bus_ratio(qs->qry, cbr);
	if (qs->cbr_status < 0)
		return qs->cbr_status;
	*cbr = qs->cbr;
	return 0;
}

int ptd_qsrc_offset(struct ptd_qsrc *qs, uint64_t *offset)
{
	if (!offset)
		return -pte_invalid;
	/* After an error item was the answer: where the failed call left the
	 * pull API. */
	if (qs->batch && qs->resync) {
		*offset = qs->err_offset;
		return 0;
	}
	if (qsrc_ahead(qs)) {
		/* Before an error item that was not the answer (the flow
		 * decoder failed first, or a query was refused), the pull
		 * API answers up to the next synchronization; a program that
		 * asks where the decoder is while it decodes gets the pull
		 * API's answers from now on. */
		int error_next = qs->pos < qs->n &&
		                 qs->items[qs->pos].kind == ptd_qry_item_error;

		if (qsrc_pull(qs) == 0 && !error_next)
			qs->batch_wanted = 0;
	}
	return pt_qry_get_offset(qs->qry, offset);
}

int ptd_qsrc_sync_offset(const struct ptd_qsrc *qs, uint64_t *offset)
{
	if (!offset)
		return -pte_invalid;
	if (qs->batch && qs->sync_known) {
		*offset = qs->sync_offset;
		return 0;
	}
	return pt_qry_get_sync_offset(qs->qry, offset);
}
