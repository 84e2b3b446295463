/* SPDX-License-Identifier: BSD-3-Clause */
/* The event queue: events waiting for the packet they bind to.
 *
 * Some packets announce an event whose IP comes with a later packet: MODE.Exec
 * and an async FUP wait for a TIP (or TIP.PGE/TIP.PGD), MODE.TSX, OVF and the
 * IP-carrying EXSTOP, MWAIT and PTW for a FUP, and what a PSB+ restates for
 * its PSBEND.  Each binding has a small fixed ring, so a hostile trace cannot
 * make the decoder use more memory; a full ring is an error (-pte_nomem).
 * Events that need no later packet use the single standalone slot. */
#ifndef PTD_QRY_EVQ_H
#define PTD_QRY_EVQ_H

#include "ptdecode/intel-pt.h"

#include <stdint.h>

/* What an event waits for.  ptd_evb_cfe holds the event that EVD packets
 * start and the CFE after them completes (Event Trace). */
enum ptd_evb {
	ptd_evb_psbend,
	ptd_evb_tip,
	ptd_evb_fup,
	ptd_evb_cfe,
	ptd_evb_max
};

/* The size of each ring.  It holds two events less: the slot of the event
 * dequeued last stays intact while it is reported, and the capacity is
 * libipt's (a trace that overflows it gets -pte_nomem from both). */
#define PTD_EVQ_SIZE 8

/* An event and how it binds. */
struct ptd_evq_slot {
	struct pt_event ev;
	/* It carries its time already. */
	uint32_t stamped : 1;
	/* It consumes the FUP it binds to (no asynchronous branch follows);
	 * set for the FUP-bound events libipt's event decoder binds that way
	 * (CFE and TRIG with their IP bit). */
	uint32_t bound : 1;
	/* Nothing to report: it only consumes its FUP (a CFE of an unknown
	 * type with its IP bit). */
	uint32_t ignore : 1;
	/* In the TIP ring, it binds to a FUP that comes first, too
	 * (MODE.Exec with enable_iflags_events). */
	uint32_t fup_too : 1;
};

struct ptd_evq {
	struct ptd_evq_slot ring[ptd_evb_max][PTD_EVQ_SIZE];
	uint8_t begin[ptd_evb_max];
	uint8_t count[ptd_evb_max];
	struct ptd_evq_slot standalone;
};

/* Empty all rings. */
void ptd_evq_init(struct ptd_evq *evq);

/* A zeroed standalone event. */
struct ptd_evq_slot *ptd_evq_standalone(struct ptd_evq *evq);

/* Append a zeroed event to @evb's ring; NULL if it is full. */
struct ptd_evq_slot *ptd_evq_enqueue(struct ptd_evq *evq, enum ptd_evb evb);

/* Take the oldest event of @evb's ring (valid until the next enqueue); NULL
 * if there is none. */
struct ptd_evq_slot *ptd_evq_dequeue(struct ptd_evq *evq, enum ptd_evb evb);

/* Drop the events of @evb's ring. */
void ptd_evq_clear(struct ptd_evq *evq, enum ptd_evb evb);

/* Whether @evb's ring holds events. */
static inline int ptd_evq_pending(const struct ptd_evq *evq, enum ptd_evb evb)
{
	return evq->count[evb] != 0;
}

/* The oldest event of @evb's ring, left in place, or NULL. */
static inline struct ptd_evq_slot *ptd_evq_peek(struct ptd_evq *evq,
                                                enum ptd_evb evb)
{
	if (!evq->count[evb])
		return NULL;
	return &evq->ring[evb][evq->begin[evb]];
}

/* The oldest event of type @type in @evb's ring, or NULL. */
struct ptd_evq_slot *ptd_evq_find(struct ptd_evq *evq, enum ptd_evb evb,
                                  enum pt_event_type type);

#endif /* PTD_QRY_EVQ_H */
