/* SPDX-License-Identifier: BSD-3-Clause */
/* The event queue. */
#include "evq.h"

#include <string.h>

void ptd_evq_init(struct ptd_evq *evq)
{
	for (int b = 0; b < ptd_evb_max; ++b) {
		evq->begin[b] = 0;
		evq->count[b] = 0;
	}
}

struct ptd_evq_slot *ptd_evq_standalone(struct ptd_evq *evq)
{
	memset(&evq->standalone, 0, sizeof(evq->standalone));
	return &evq->standalone;
}

struct ptd_evq_slot *ptd_evq_enqueue(struct ptd_evq *evq, enum ptd_evb evb)
{
	struct ptd_evq_slot *slot;

	if (evq->count[evb] >= PTD_EVQ_SIZE - 2)
		return NULL;
	slot = &evq->ring[evb]
	                 [(evq->begin[evb] + evq->count[evb]) % PTD_EVQ_SIZE];
	evq->count[evb]++;
	memset(slot, 0, sizeof(*slot));
	return slot;
}

struct ptd_evq_slot *ptd_evq_dequeue(struct ptd_evq *evq, enum ptd_evb evb)
{
	struct ptd_evq_slot *slot;

	if (!evq->count[evb])
		return NULL;
	slot = &evq->ring[evb][evq->begin[evb]];
	evq->begin[evb] = (uint8_t)((evq->begin[evb] + 1) % PTD_EVQ_SIZE);
	evq->count[evb]--;
	return slot;
}

void ptd_evq_clear(struct ptd_evq *evq, enum ptd_evb evb)
{
	evq->begin[evb] = 0;
	evq->count[evb] = 0;
}

struct ptd_evq_slot *ptd_evq_find(struct ptd_evq *evq, enum ptd_evb evb,
                                  enum pt_event_type type)
{
	for (unsigned i = 0; i < evq->count[evb]; ++i) {
		struct ptd_evq_slot *slot =
		        &evq->ring[evb][(evq->begin[evb] + i) % PTD_EVQ_SIZE];

		if (slot->ev.type == type)
			return slot;
	}
	return NULL;
}
