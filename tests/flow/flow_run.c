/* SPDX-License-Identifier: BSD-3-Clause */
/* Running a flow decoder one result at a time; see flow_run.h. */
#include "flow_run.h"

#include <string.h>

void flow_runner_init(struct flow_runner *runner, const struct flow_ops *ops,
                      void *decoder, int with_time, int with_offsets)
{
	memset(runner, 0, sizeof(*runner));
	runner->ops = ops;
	runner->decoder = decoder;
	runner->with_time = with_time;
	runner->with_offsets = with_offsets;
}

void flow_runner_fini(struct flow_runner *runner)
{
	if (runner->decoder)
		runner->ops->free(runner->decoder);
	runner->decoder = NULL;
}

/* Turn error @err into an fi_error result and prepare to resync. */
static int flow_error(struct flow_runner *r, struct flow_item *item, int err,
                      uint64_t ip)
{
	if (err == -pte_eos) {
		r->state = 2;
		item->kind = fi_end;
		return 1;
	}
	item->kind = fi_error;
	item->err = err;
	item->ip = ip;
	if (r->ops->get_offset(r->decoder, &item->offset) < 0)
		item->offset = UINT64_MAX;
	r->state = 0;
	return 0;
}

/* A synchronization that returned @status: the fi_sync result, with the
 * sync offset. */
static int flow_synced(struct flow_runner *r, struct flow_item *item,
                       int status)
{
	r->status = status;
	r->state = 1;
	item->kind = fi_sync;
	if (r->ops->get_sync_offset(r->decoder, &item->offset) < 0)
		item->offset = UINT64_MAX;
	return 0;
}

int flow_runner_next(struct flow_runner *r, struct flow_item *item)
{
	const struct flow_ops *ops = r->ops;
	int status;

	memset(item, 0, sizeof(*item));
	if (r->pending_err) {
		int err = r->pending_err;

		r->pending_err = 0;
		return flow_error(r, item, err, r->pending_ip);
	}
	if (r->nsync_offsets && r->state == 1 &&
	    ++r->since_sync > r->sync_every)
		r->state = 0;
	switch (r->state) {
	case 0:
		if (r->nsync_offsets) {
			uint64_t offset;

			if (r->next_sync >= r->nsync_offsets) {
				r->state = 2;
				item->kind = fi_end;
				return 1;
			}
			offset = r->sync_offsets[r->next_sync++];
			r->since_sync = 0;
			status = ops->sync_set(r->decoder, offset);
			if (status < 0) {
				item->kind = fi_sync_error;
				item->err = status;
				item->offset = offset;
				return 0;
			}
			return flow_synced(r, item, status);
		}
		status = ops->sync_forward(r->decoder);
		if (status < 0) {
			uint64_t offset;

			if (status == -pte_eos) {
				r->state = 2;
				item->kind = fi_end;
				return 1;
			}
			item->kind = fi_sync_error;
			item->err = status;
			if (ops->get_offset(r->decoder, &offset) < 0 ||
			    offset <= r->last_sync) {
				/* No progress: stop (after this result). */
				item->offset = offset;
				r->state = 2;
				return 0;
			}
			item->offset = offset;
			r->last_sync = offset;
			return 0;
		}
		return flow_synced(r, item, status);
	case 1:
		break;
	default:
		item->kind = fi_end;
		return 1;
	}

	if (r->with_offsets && ops->get_offset(r->decoder, &item->offset) < 0)
		item->offset = UINT64_MAX;
	if (r->status & pts_event_pending) {
		status = ops->event(r->decoder, &item->event);
		if (status < 0)
			return flow_error(r, item, status, 0);
		r->status = status;
		item->kind = fi_event;
		return 0;
	}
	if (r->status & pts_eos) {
		r->state = 2;
		item->kind = fi_end;
		return 1;
	}
	status = ops->next(r->decoder, item);
	if (status < 0) {
		/* A partial result first, then the error. */
		if ((item->kind == fi_insn && item->iclass != ptic_unknown) ||
		    (item->kind == fi_block && item->ninsn)) {
			r->pending_err = status;
			r->pending_ip = item->kind == fi_insn ? item->ip : 0;
			return 0;
		}
		return flow_error(r, item, status, item->ip);
	}
	r->status = status;
	if (r->with_time)
		item->time_status = ops->time(r->decoder, &item->tsc);
	return 0;
}
