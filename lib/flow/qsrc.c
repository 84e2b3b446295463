/* SPDX-License-Identifier: BSD-3-Clause */
/* Trace results for the flow decoders: pull API or batch items. */
#include "qsrc.h"

#include "query/qry_copy.h"
#include "query/qry_decoder.h"

#include <stdlib.h>
#include <string.h>

enum {
	/* The most calls we remember for a replay. */
	ptd_qsrc_log_max = 1 << 26,
	/* The calls in the log before it starts again from a copy of the
	 * query decoder (a copy costs about as much as writing 4 KiB). */
	ptd_qsrc_ckpt_calls = 1 << 14
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
	qs->log_clean = 1;
	qs->ckpt_calls = ptd_qsrc_ckpt_calls;
	qs->nitems = ptd_qsrc_nitems;
	qs->nevents = ptd_qsrc_nevents;
	return 0;
}

void ptd_qsrc_fini(struct ptd_qsrc *qs)
{
	pt_qry_free_decoder(qs->qry);
	qs->qry = NULL;
	pt_qry_free_decoder(qs->base);
	qs->base = NULL;
	qs->have_base = 0;
	free(qs->log);
	qs->log = NULL;
}

/* Start the log again at a synchronization point. */
static void qsrc_log_restart(struct ptd_qsrc *qs)
{
	qs->nlog = 0;
	qs->have_base = 0;
	qs->log_clean = 1;
}

/* Start the log again from a copy of the query decoder, which is where the
 * pull API is after the calls in the log: every result of the batches
 * fetched so far is taken (see qsrc_peek()).  Nothing changes if the copy
 * cannot be taken. */
static void qsrc_checkpoint(struct ptd_qsrc *qs)
{
	if (!ptd_qry_copy_ok(qs->qry))
		return;
	if (qs->base) {
		(void)ptd_qry_copy(qs->base, qs->qry);
	} else {
		qs->base = ptd_qry_clone(qs->qry);
		if (!qs->base)
			return;
	}
	qs->base_status = ptd_qry_copy_status(qs->qry);
	qs->have_base = 1;
	qs->nlog = 0;
}

/* Remember a call for the replay (or give up replaying). */
static void qsrc_log(struct ptd_qsrc *qs, uint8_t call)
{
	if (!qs->sync_known)
		return;
	if (qs->nlog == qs->caplog) {
		size_t cap = qs->caplog ? 2 * qs->caplog : 4096;
		uint8_t *log;

		if (cap > ptd_qsrc_log_max) {
			qs->sync_known = 0;
			return;
		}
		log = realloc(qs->log, cap);
		if (!log) {
			qs->sync_known = 0;
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
	if (qs->sync_known && qs->log_clean && qs->nlog >= qs->ckpt_calls)
		qsrc_checkpoint(qs);
	count = ptd_qry_next_batch(qs->qry, qs->items, qs->nitems, qs->events,
	                           qs->nevents);
	if (count <= 0) {
		qs->n = 0;
		qs->end = 1;
		return NULL;
	}
	qs->n = (uint32_t)count;
	(void)pt_qry_get_sync_offset(qs->qry, &qs->batch_sync_offset);
	return &qs->items[0];
}

/* The time and core:bus ratio after a pull call. */
static void qsrc_pull_time(struct ptd_qsrc *qs)
{
	qs->tsc_status =
	        pt_qry_time(qs->qry, &qs->tsc, &qs->lost_mtc, &qs->lost_cyc);
	if (pt_qry_core_bus_ratio(qs->qry, &qs->cbr) < 0)
		qs->cbr = 0;
}

/* A fresh decoder at the point where the calls made since the last
 * synchronization leave the pull API, or NULL (not known, or out of
 * memory).  *@status (unless @status is NULL) is the pull API's result of
 * the last of those calls, or of the synchronization if there were none. */
static struct pt_query_decoder *qsrc_replay_dec(const struct ptd_qsrc *qs,
                                                int *status)
{
	struct pt_query_decoder *dec;
	uint64_t ip;
	size_t i;
	int last;

	if (!qs->sync_known)
		return NULL;
	if (qs->have_base) {
		dec = ptd_qry_clone(qs->base);
		if (!dec)
			return NULL;
		last = qs->base_status;
	} else {
		dec = ptd_qry_alloc_decoder(
		        &qs->config, qs->have_tconfig ? &qs->tconfig : NULL);
		if (!dec)
			return NULL;
		last = pt_qry_sync_set(dec, &ip, qs->sync_offset);
		if (last < 0) {
			pt_qry_free_decoder(dec);
			return NULL;
		}
	}
	/* The same calls, failed ones included: they may move the decoder
	 * too. */
	for (i = 0; i < qs->nlog; i++) {
		struct pt_event ev;
		int taken;

		switch (qs->log[i]) {
		case ptd_qsrc_call_cond:
			last = pt_qry_cond_branch(dec, &taken);
			break;
		case ptd_qsrc_call_indirect:
			last = pt_qry_indirect_branch(dec, &ip);
			break;
		default:
			last = pt_qry_event(dec, &ev, sizeof(ev));
			break;
		}
	}
	if (status)
		*status = last;
	return dec;
}

/* Let a replayed decoder replace ours.  Returns 0 or a negative error (then
 * nothing changed). */
static int qsrc_replay(struct ptd_qsrc *qs)
{
	struct pt_query_decoder *dec = qsrc_replay_dec(qs, NULL);

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
 * the items tell, the pull API takes over (see the callers).  *@status is
 * the pull API's result of the last call (see qsrc_replay_dec()).  Returns
 * 0, or -pte_internal if the pull API cannot take over (the log is not
 * known, or no memory; then the batch goes on). */
static int qsrc_pull(struct ptd_qsrc *qs, int *status)
{
	struct pt_query_decoder *dec = qsrc_replay_dec(qs, status);

	if (!dec)
		return -pte_internal;
	pt_qry_free_decoder(qs->qry);
	qs->qry = dec;
	qsrc_clear(qs);
	qs->batch = 0;
	return 0;
}

/* A query in batch mode whose next result @it (NULL at the end) is not of
 * its kind: whether the pull API took over to answer it (then qs->batch is
 * 0).  It does for a decode error that no status told (the first result
 * after a synchronization; see qsrc_status()), and, for an indirect branch
 * (@indirect), for conditional branch outcomes: pt_qry_indirect_branch()
 * takes a TIP that follows the TNT packet of the pending outcomes, which
 * the items do not tell. */
static int qsrc_mismatch(struct ptd_qsrc *qs, const struct ptd_qry_item *it,
                         int indirect)
{
	int status;

	if (!it || !(it->kind == ptd_qry_item_error ||
	             (indirect && it->kind == ptd_qry_item_tnt)))
		return 0;
	return qsrc_pull(qs, &status) == 0;
}

/* A decode error is the next result: the pull API's status before it. */
static int qsrc_status_error(struct ptd_qsrc *qs)
{
	int status;

	if (qsrc_pull(qs, &status) == 0 && status >= 0)
		return status & (pts_event_pending | pts_eos);
	return 0;
}

/* The status flags after the result just taken.  The items do not tell
 * the status before a decode error (pt_qry_event() fails after
 * pts_event_pending, a branch query without it), and if the flow decoder
 * fails first by itself (-pte_nomap, say), pt_qry_sync_forward() goes on
 * from the pull API's position, not from the packet that failed: so there
 * the pull API takes over.  The end of the trace is such an error where a
 * query fails with -pte_eos (the trace ends in a packet that is cut short
 * or lacks what it binds to): ptd_qry_next_batch() makes that an error
 * item, so no item after the last result means pts_eos. */
static inline int qsrc_status(struct ptd_qsrc *qs)
{
	const struct ptd_qry_item *it = qsrc_peek(qs);

	if (!it)
		return pts_eos;
	if (it->kind == ptd_qry_item_error)
		return qsrc_status_error(qs);
	return it->kind == ptd_qry_item_event ? pts_event_pending : 0;
}

/* Whether the query decoder ran ahead of the results taken. */
static int qsrc_ahead(const struct ptd_qsrc *qs)
{
	return qs->batch && (qs->n || qs->end);
}

int ptd_qsrc_sync(struct ptd_qsrc *qs, enum ptd_qsrc_how how, uint64_t offset,
                  uint64_t *ip)
{
	int status;

	/* After a query error, the batch synchronized forward itself.  (Only
	 * if the pull API could not take over before the error, see
	 * qsrc_status().) */
	if (qs->batch && how == ptd_qsrc_forward && qs->pos < qs->n &&
	    qs->items[qs->pos].kind == ptd_qry_item_error) {
		const struct ptd_qry_item *it;

		/* The query decoder is past the error and the PSB it found:
		 * no copy of it may start the log (the fetch below may take
		 * one), whose calls are replayed up to the error to find the
		 * pull API's PSB. */
		qs->log_clean = 0;
		qs->pos++;
		qs->used = 0;
		it = qsrc_peek(qs);
		if (!it)
			return -pte_eos;
		if (it->kind == ptd_qry_item_sync) {
			int suppressed = it->flags & ptd_qry_item_ip_suppressed;

			qs->pos++;
			if (!suppressed)
				*ip = it->value;
			ptd_qsrc_take_time(qs, it);
			/* The PSB's offset: what the pull API finds after the
			 * failing call (the query decoder itself may have
			 * moved on to later ones). */
			{
				struct pt_query_decoder *dec;
				uint64_t sip, off;

				dec = qsrc_replay_dec(qs, NULL);
				if (dec &&
				    pt_qry_sync_forward(dec, &sip) >= 0 &&
				    pt_qry_get_sync_offset(dec, &off) >= 0) {
					qs->sync_offset = off;
					qs->sync_known = 1;
				} else {
					qs->sync_known = 0;
				}
				pt_qry_free_decoder(dec);
			}
			qsrc_log_restart(qs);
			/* (This may fetch the next batch over @it.) */
			status = qsrc_status(qs);
			if (suppressed)
				status |= pts_ip_suppressed;
			return status;
		}
	}

	/* Else the query decoder must be where the pull API would be.  It is
	 * once every result up to the end that pts_eos announced has been
	 * taken (the batch's loop stopped there, as its failed
	 * pt_qry_sync_forward() moves nothing): no replay then, which would
	 * cost the calls since the last synchronization, often the whole
	 * trace. */
	if (qsrc_ahead(qs) &&
	    (how == ptd_qsrc_forward || how == ptd_qsrc_backward) &&
	    !(qs->end && qs->pos >= qs->n))
		(void)qsrc_replay(qs);
	qsrc_clear(qs);
	/* Batches again, unless the caller asked for offsets. */
	qs->batch = qs->batch_wanted;

	switch (how) {
	case ptd_qsrc_forward:
		status = pt_qry_sync_forward(qs->qry, ip);
		break;
	case ptd_qsrc_backward:
		status = pt_qry_sync_backward(qs->qry, ip);
		break;
	case ptd_qsrc_backward_on:
		status = ptd_qry_sync_backward_from(qs->qry, ip, offset);
		break;
	case ptd_qsrc_set:
	default:
		status = pt_qry_sync_set(qs->qry, ip, offset);
		break;
	}
	qsrc_log_restart(qs);
	qs->sync_known = 0;
	if (status >= 0)
		qs->sync_known =
		        pt_qry_get_sync_offset(qs->qry, &qs->sync_offset) >= 0;
	qsrc_pull_time(qs);
	return status;
}

/* A query in batch mode whose next result @it (NULL at the end) is not of
 * its kind and that the pull API does not take over (qsrc_mismatch()): log
 * the call and return the pull API's refusal, the item's error, or
 * -pte_eos.  A refusal on an error item or at the end leaves the pull API
 * where only a replay finds it: no copy may start the log after it. */
static int qsrc_refuse(struct ptd_qsrc *qs, uint8_t call,
                       const struct ptd_qry_item *it)
{
	qsrc_log(qs, call);
	if (!it || it->kind == ptd_qry_item_error)
		qs->log_clean = 0;
	if (!it)
		return -pte_eos;
	return it->kind == ptd_qry_item_error ? it->error : -pte_bad_query;
}

int ptd_qsrc_cond_slow(struct ptd_qsrc *qs, int *taken)
{
	const struct ptd_qry_item *it;

	if (!qs->batch)
		return pt_qry_cond_branch(qs->qry, taken);
	it = qsrc_peek(qs);
	if (!it || it->kind != ptd_qry_item_tnt) {
		if (qsrc_mismatch(qs, it, 0))
			return pt_qry_cond_branch(qs->qry, taken);
		return qsrc_refuse(qs, ptd_qsrc_call_cond, it);
	}
	qsrc_log(qs, ptd_qsrc_call_cond);
	*taken = (int)((it->value >> (it->count - 1 - qs->used)) & 1);
	ptd_qsrc_take_time(qs, it);
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
	if (!it || it->kind != ptd_qry_item_tip) {
		if (qsrc_mismatch(qs, it, 1))
			return pt_qry_indirect_branch(qs->qry, ip);
		return qsrc_refuse(qs, ptd_qsrc_call_indirect, it);
	}
	qsrc_log(qs, ptd_qsrc_call_indirect);
	suppressed = it->flags & ptd_qry_item_ip_suppressed;
	if (!suppressed)
		*ip = it->value;
	ptd_qsrc_take_time(qs, it);
	qs->pos++;
	status = qsrc_status(qs);
	return suppressed ? status | pts_ip_suppressed : status;
}

int ptd_qsrc_event(struct ptd_qsrc *qs, struct pt_event *event)
{
	const struct ptd_qry_item *it;

	if (!qs->batch)
		return pt_qry_event(qs->qry, event, sizeof(*event));
	it = qsrc_peek(qs);
	if (!it || it->kind != ptd_qry_item_event) {
		if (qsrc_mismatch(qs, it, 0))
			return pt_qry_event(qs->qry, event, sizeof(*event));
		return qsrc_refuse(qs, ptd_qsrc_call_event, it);
	}
	qsrc_log(qs, ptd_qsrc_call_event);
	*event = qs->events[it->value];
	ptd_qsrc_take_time(qs, it);
	qs->pos++;
	return qsrc_status(qs);
}

int ptd_qsrc_cbr(const struct ptd_qsrc *qs, uint32_t *cbr)
{
	if (!qs->batch)
		return pt_qry_core_bus_ratio(qs->qry, cbr);
	if (!qs->cbr)
		return -pte_no_cbr;
	*cbr = qs->cbr;
	return 0;
}

int ptd_qsrc_offset(struct ptd_qsrc *qs, uint64_t *offset)
{
	if (!offset)
		return -pte_invalid;
	if (!qs->failed)
		qs->offset_asked = 1;
	if (qs->batch && qs->pos < qs->n &&
	    qs->items[qs->pos].kind == ptd_qry_item_error) {
		*offset = qs->items[qs->pos].value;
		return 0;
	}
	/* The query decoder ran ahead: the pull API answers, from a replay,
	 * up to the next synchronization.  A program that asks where the
	 * decoder is while it decodes (ptxed --offset) gets the pull API's
	 * answers for good, or every synchronization would fetch a batch
	 * only to replay and drop it at the next question.  One that has asked
	 * only right after failed calls (ptxed's diagnostic of an error the
	 * flow decoder found itself, -pte_nomap say) gets batches again from
	 * the next synchronization on, which goes on from the pull API's
	 * position as after any replay. */
	if (qsrc_ahead(qs) && qsrc_replay(qs) == 0) {
		qs->batch = 0;
		if (qs->offset_asked)
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
