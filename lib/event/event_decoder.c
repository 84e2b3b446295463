/* SPDX-License-Identifier: BSD-3-Clause */
/* The event decoder of libipt 2.1 (pt_evt_*): the trace as one stream of
 * events, the branches included (ptev_tnt, ptev_tip).
 *
 * ptdecode's query decoder already binds every event to its packet, keeps
 * the time and works around the errata, so the event decoder is a view of
 * it: each pt_evt_next() that needs a new result asks the query decoder for
 * what comes next, in the order the loop of ptd_query.h asks it (an event
 * while one is pending, else a conditional branch, else an indirect
 * branch), and hands the result out as an event.  Two things the pull API
 * does not say come from the query decoder's state:
 *
 *  - the outcomes of a TNT packet: after the first of them, the rest wait
 *    in the decoder's TNT cache, so one ptev_tnt carries one packet's
 *    outcomes with the time at that packet, as libipt's does;
 *  - the tracing status of every PSB+, which the query decoder logs for us
 *    (struct ptd_qry_psb_log) with where it came among its results; the
 *    status is handed out in that place, and the query decoder's results do
 *    not change (its status flags and its read-ahead are as without it). */

#include "query/qry_decoder.h"

#include "ptdecode/ptdecode.h"

#include <stdlib.h>
#include <string.h>

struct pt_event_decoder {
	/* The query decoder whose results this decoder reports. */
	struct pt_query_decoder *qry;
	/* The status after the last result (enum pt_status_flag), or
	 * -pte_nosync before synchronization, or the error (-pte_eos at the
	 * end) to return once @out is empty, until the next
	 * synchronization. */
	int status;
	/* Events to hand out before the next query: out[head, n). */
	unsigned head, n;
	struct pt_event out[ptd_qry_psb_log_size + 1];
	/* The query decoder's log of PSB+. */
	struct ptd_qry_psb_log log;
};

/* The number of outcomes of the current TNT packet that the query decoder
 * has yet to hand out. */
static unsigned evt_tnt_left(const struct pt_query_decoder *qry)
{
	uint64_t mask = qry->tnt.mask;

	return mask ? 64u - (unsigned)__builtin_clzll(mask) : 0u;
}

/* Stamp @ev with the time of the query decoder's last result. */
static void evt_time(struct pt_event *ev, struct pt_query_decoder *qry)
{
	ev->has_tsc =
	        pt_qry_time(qry, &ev->tsc, &ev->lost_mtc, &ev->lost_cyc) == 0;
}

/* Move the logged PSB+ from record @from on whose @seq is below @seq (all
 * with UINT64_MAX) to @decoder's events; returns the index of the first
 * record not moved. */
static unsigned evt_take(struct pt_event_decoder *decoder, uint64_t seq,
                         unsigned from)
{
	unsigned i;

	for (i = from; i < decoder->log.n && decoder->log.rec[i].seq < seq; ++i)
		decoder->out[decoder->n++] = decoder->log.rec[i].ev;
	return i;
}

struct pt_event_decoder *
ptd_evt_alloc_decoder(const struct pt_config *config,
                      const struct ptd_time_config *tconfig)
{
	struct pt_event_decoder *decoder;
	struct pt_config qconfig;
	size_t size;

	if (!config)
		return NULL;
	/* The event decoder's flags are the query decoder's. */
	memset(&qconfig, 0, sizeof(qconfig));
	size = config->size < sizeof(qconfig) ? config->size : sizeof(qconfig);
	/* (As the query decoder's: a configuration that ends before the
	 * decode callback is too small; one that ends before the flags has
	 * none.) */
	if (size < offsetof(struct pt_config, decode))
		return NULL;
	memcpy(&qconfig, config, size);
	qconfig.size = sizeof(qconfig);
	memset(&qconfig.flags, 0, sizeof(qconfig.flags));
	if (size >= offsetof(struct pt_config, addr_filter)) {
		const struct pt_conf_flags *flags = &config->flags;

		qconfig.flags.variant.query.keep_tcal_on_ovf =
		        flags->variant.event.keep_tcal_on_ovf;
		qconfig.flags.variant.query.enable_iflags_events =
		        flags->variant.event.enable_iflags_events;
	}

	decoder = malloc(sizeof(*decoder));
	if (!decoder)
		return NULL;
	memset(decoder, 0, sizeof(*decoder));
	decoder->qry = ptd_qry_alloc_decoder(&qconfig, tconfig);
	if (!decoder->qry) {
		free(decoder);
		return NULL;
	}
	decoder->qry->psb_log = &decoder->log;
	decoder->status = -pte_nosync;
	return decoder;
}

struct pt_event_decoder *pt_evt_alloc_decoder(const struct pt_config *config)
{
	return ptd_evt_alloc_decoder(config, NULL);
}

void pt_evt_free_decoder(struct pt_event_decoder *decoder)
{
	if (!decoder)
		return;
	pt_qry_free_decoder(decoder->qry);
	free(decoder);
}

/* After a synchronization of the query decoder that returned @status: the
 * tracing status of the PSB+ comes first.  Where the query decoder's
 * synchronization failed after its PSB+ was read (in its read-ahead
 * beyond), the event decoder is synchronized and the error follows the
 * PSB+'s status, as in libipt 2.1, which reads nothing beyond a PSB+ to
 * synchronize. */
static int evt_synced(struct pt_event_decoder *decoder, int status)
{
	decoder->head = decoder->n = 0;
	(void)evt_take(decoder, UINT64_MAX, 0);
	decoder->log.n = 0;
	if (status < 0 && !decoder->n) {
		decoder->status = -pte_nosync;
		return status;
	}
	decoder->status = status < 0 ? status : status & ~pts_ip_suppressed;
	return 0;
}

int pt_evt_sync_forward(struct pt_event_decoder *decoder)
{
	if (!decoder)
		return -pte_invalid;
	return evt_synced(decoder, pt_qry_sync_forward(decoder->qry, NULL));
}

int pt_evt_sync_backward(struct pt_event_decoder *decoder)
{
	int status;

	if (!decoder)
		return -pte_invalid;
	status = pt_qry_sync_backward(decoder->qry, NULL);
	/* -pte_eos: there is no PSB before the position (PSB+ that the end
	 * cuts off do not count: the query decoder goes back over them).
	 * Its last attempt, at the PSB it stood at, logged that PSB+: it is
	 * no synchronization, and the loop of a caller that goes back PSB
	 * by PSB ends here. */
	if (status == -pte_eos)
		decoder->log.n = 0;
	return evt_synced(decoder, status);
}

int pt_evt_sync_set(struct pt_event_decoder *decoder, uint64_t offset)
{
	if (!decoder)
		return -pte_invalid;
	return evt_synced(decoder, pt_qry_sync_set(decoder->qry, NULL, offset));
}

int pt_evt_get_offset(const struct pt_event_decoder *decoder, uint64_t *offset)
{
	if (!decoder)
		return -pte_invalid;
	return pt_qry_get_offset(decoder->qry, offset);
}

int pt_evt_get_sync_offset(const struct pt_event_decoder *decoder,
                           uint64_t *offset)
{
	if (!decoder)
		return -pte_invalid;
	return pt_qry_get_sync_offset(decoder->qry, offset);
}

const struct pt_config *
pt_evt_get_config(const struct pt_event_decoder *decoder)
{
	return decoder ? pt_qry_get_config(decoder->qry) : NULL;
}

/* The next result of the query decoder as an event in @ev: returns the
 * status after it or a negative error. */
static int evt_query(struct pt_event_decoder *decoder, struct pt_event *ev)
{
	struct pt_query_decoder *qry = decoder->qry;
	int status = decoder->status, taken;
	unsigned left;
	uint64_t ip;

	if (status & pts_event_pending)
		return pt_qry_event(qry, ev, sizeof(*ev));
	if (status & pts_eos)
		return -pte_eos;

	/* A branch: the TNT cache is empty here, as each ptev_tnt takes
	 * its packet's outcomes. */
	status = pt_qry_cond_branch(qry, &taken);
	if (status == -pte_bad_query) {
		status = pt_qry_indirect_branch(qry, &ip);
		if (status < 0)
			return status;
		ev->type = ptev_tip;
		if (status & pts_ip_suppressed)
			ev->ip_suppressed = 1;
		else
			ev->variant.tip.ip = ip;
		evt_time(ev, qry);
		return status & ~pts_ip_suppressed;
	}
	if (status < 0)
		return status;
	ev->type = ptev_tnt;
	ev->variant.tnt.bits = (uint64_t)taken;
	evt_time(ev, qry);
	left = evt_tnt_left(qry);
	ev->variant.tnt.size = (uint8_t)(1u + left);
	if (!left)
		return status;
	/* The packet's other outcomes wait in the TNT cache: all but the
	 * last taken from there as pt_qry_cond_branch() takes them (no time,
	 * no status), the last with it, for the status after the packet. */
	for (; left > 1; --left) {
		taken = ptd_tnt_cache_query(&qry->tnt);
		ev->variant.tnt.bits =
		        (ev->variant.tnt.bits << 1) | (uint64_t)taken;
	}
	status = pt_qry_cond_branch(qry, &taken);
	if (status < 0)
		return -pte_internal;
	ev->variant.tnt.bits = (ev->variant.tnt.bits << 1) | (uint64_t)taken;
	return status;
}

/* Fill @decoder's events with the next result and the PSB+ around it. */
static void evt_fill(struct pt_event_decoder *decoder)
{
	struct pt_event ev;
	unsigned i;
	int status;

	decoder->head = decoder->n = 0;
	memset(&ev, 0, sizeof(ev));
	status = evt_query(decoder, &ev);
	if (status < 0) {
		/* The PSB+ the failed call passed come before the error. */
		(void)evt_take(decoder, UINT64_MAX, 0);
	} else {
		/* Each PSB+ logged before the result was counted comes
		 * before it, the others after it. */
		i = evt_take(decoder, decoder->log.results, 0);
		decoder->out[decoder->n++] = ev;
		(void)evt_take(decoder, UINT64_MAX, i);
	}
	decoder->status = status;
	decoder->log.n = 0;
}

int pt_evt_next(struct pt_event_decoder *decoder, struct pt_event *event,
                size_t size)
{
	const struct pt_event *ev;

	if (!decoder || !event || size < offsetof(struct pt_event, variant))
		return -pte_invalid;
	if (decoder->head == decoder->n) {
		/* After an error and at the end: every call returns it
		 * until the decoder is synchronized again. */
		if (decoder->status < 0)
			return decoder->status;
		evt_fill(decoder);
		if (decoder->head == decoder->n)
			return decoder->status;
	}
	ev = &decoder->out[decoder->head++];
	if (size > sizeof(*ev)) {
		/* A newer caller's larger structure: the fields this
		 * library does not know are 0 (as in pt_pkt_next()). */
		memset((uint8_t *)event + sizeof(*ev), 0, size - sizeof(*ev));
		size = sizeof(*ev);
	}
	memcpy(event, ev, size);
	return 0;
}
