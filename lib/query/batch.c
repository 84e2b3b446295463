/* SPDX-License-Identifier: BSD-3-Clause */
/* The batch interface of the query decoder: ptd_qry_next_batch().
 *
 * It runs the loop that include/ptdecode/ptd_query.h describes on the
 * decoder's own state, so every result is the pull API's.  Two paths:
 *
 *   slow  one step of the loop through the pull functions themselves
 *         (pt_qry_event, pt_qry_cond_branch, pt_qry_indirect_branch,
 *         pt_qry_sync_forward), their results packed into items;
 *   fast  the steps that make up nearly all of a trace, done here on the
 *         same state without the pull API's per-call work: a TNT packet
 *         (all its outcomes at once, merged with the run before it when
 *         their times agree), a TIP, and the TIP.PGE / TIP.PGD that enable
 *         and disable tracing, each while no event waits for a packet; the
 *         read-ahead after them skips PAD and feeds TSC, TMA, MTC and CYC
 *         to the time engine in a tight loop.  While the time stands still
 *         (no timing packet), the lean run takes TNT-8, TIP, TIP.PGE and
 *         TIP.PGD straight from their bytes.
 *
 * The fast path does what the pull functions would do, in the same order,
 * so the two can take turns at any step: it stops at whatever it does not
 * handle (PSB, events that wait for a later packet, decode errors, PEBS
 * blocks, the end of the buffer) and leaves it to the slow path.  The time of
 * an item is the decoder's snapshot (pt_qry_time()), taken after the packet
 * that makes the result and before the read-ahead, as the pull API does. */
#include "qry_decoder.h"

#include "ptdecode/ptdecode.h"

#include <string.h>

/* The state of one ptd_qry_next_batch() call. */
struct ptd_qry_bcall {
	struct ptd_qry_item *items;
	size_t nitems, count;
	struct pt_event *events;
	size_t nevents, nev;
	/* The time engine may have moved since decoder->last_time was
	 * taken. */
	int dirty;
	/* The last item is a run of outcomes that the next outcomes may
	 * join: the fast path made it and the time has not changed since. */
	int run_open;
	/* The flags of the error item for a failed call (enum
	 * ptd_qry_item_flag: which call failed), set where a call fails. */
	int eflags;
};

/* Take the time of a result, as pt_qry_time() will report it. */
static inline void ptd_qry_bsnap(struct pt_query_decoder *decoder,
                                 struct ptd_qry_bcall *call)
{
	if (call->dirty) {
		ptd_qry_snapshot(decoder);
		call->dirty = 0;
		call->run_open = 0;
	}
}

/* Append an item of @kind with the decoder's result time. */
static inline struct ptd_qry_item *
ptd_qry_bitem(const struct pt_query_decoder *decoder,
              struct ptd_qry_bcall *call, enum ptd_qry_item_kind kind)
{
	const struct ptd_qry_time *t = &decoder->last_time;
	struct ptd_qry_item *it = &call->items[call->count++];

	it->kind = (uint8_t)kind;
	it->flags = t->tsc_status >= 0 ? ptd_qry_item_has_tsc : 0;
	it->count = 0;
	it->cbr = (uint8_t)t->cbr;
	it->error = 0;
	it->lost_mtc = t->lost_mtc;
	it->lost_cyc = t->lost_cyc;
	it->tsc = t->tsc;
	it->value = 0;
	return it;
}

/* Append @size outcomes @bits (oldest in the highest bit): to the last item
 * if it is a run with the same time and room, else as a new item. */
static inline void ptd_qry_btnt(const struct pt_query_decoder *decoder,
                                struct ptd_qry_bcall *call, uint64_t bits,
                                unsigned size)
{
	const struct ptd_qry_time *t = &decoder->last_time;

	if (call->count) {
		struct ptd_qry_item *last = &call->items[call->count - 1];

		if (last->kind == ptd_qry_item_tnt &&
		    last->count + size <= 64 && last->tsc == t->tsc &&
		    last->lost_mtc == t->lost_mtc &&
		    last->lost_cyc == t->lost_cyc && last->cbr == t->cbr &&
		    !(last->flags & ptd_qry_item_has_tsc) ==
		            !(t->tsc_status >= 0)) {
			last->value = (last->value << size) | bits;
			last->count = (uint8_t)(last->count + size);
			return;
		}
	}
	{
		struct ptd_qry_item *it =
		        ptd_qry_bitem(decoder, call, ptd_qry_item_tnt);

		it->count = (uint8_t)size;
		it->value = bits;
	}
}

/* ------------------------------------------------------------------------ */
/* The fast path                                                              */
/* ------------------------------------------------------------------------ */

/* Whether the fast path may take the packet in decoder->next: it is
 * decoded without error, nothing is pending (event, outcome, packet to
 * keep), and no PEBS block is open. */
static inline int ptd_qry_fast_ok(const struct pt_query_decoder *decoder)
{
	const struct ptd_evq *evq = &decoder->evq;

	return decoder->have_next && !decoder->next_err &&
	       !decoder->consume_packet && !decoder->tnt.mask &&
	       !decoder->pstate.bip_size &&
	       !(evq->count[ptd_evb_psbend] | evq->count[ptd_evb_tip] |
	         evq->count[ptd_evb_fup] | evq->count[ptd_evb_cfe]);
}

/* The packets the fast path takes: TNT-8, TNT-64 and TIP while no event is
 * pending, TIP.PGE and TIP.PGD when one is (they are the event).  The pull
 * API's read-ahead stops at each of them, and, with nothing pending, at no
 * other packet that the fast read-ahead decodes. */
static inline int ptd_qry_fast_type(enum pt_packet_type type)
{
	switch (type) {
	case ppt_tnt_8:
	case ppt_tnt_64:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		return 1;
	default:
		return 0;
	}
}

/* A result of the fast path, held back until the read-ahead after its
 * packet succeeds (the pull API drops a result whose read-ahead fails). */
struct ptd_qry_fres {
	enum ptd_qry_item_kind kind;
	unsigned size;  /* tnt: outcomes */
	uint64_t value; /* tnt: outcomes; tip: IP */
	int suppressed; /* tip: IP suppressed */
};

/* The number of outcomes in the TNT-8 packet @byte (the bits below its stop
 * bit, bit 0 aside). */
static inline unsigned ptd_qry_tnt8_size(unsigned byte)
{
	return 30u - (unsigned)__builtin_clz(byte);
}

/* The enabled (@pge) or disabled event of a TIP.PGE or TIP.PGD at @ip
 * (@suppressed: no IP; never for an enabled event) into @ev, and the
 * decoder's tracing state after it, as pt_qry_event() gives them; the time
 * comes with ptd_qry_event_time(). */
static inline void ptd_qry_pg_event(struct pt_query_decoder *decoder,
                                    struct pt_event *ev, int pge,
                                    int suppressed, uint64_t ip)
{
	memset(ev, 0, sizeof(*ev));
	decoder->enabled = pge ? 1 : 0;
	if (pge) {
		ev->type = ptev_enabled;
		ev->variant.enabled.ip = ip;
	} else {
		ev->type = ptev_disabled;
		if (suppressed)
			ev->ip_suppressed = 1;
		else
			ev->variant.disabled.ip = ip;
	}
}

/* The time of the event @ev: the decoder's snapshot @t. */
static inline void ptd_qry_event_time(struct pt_event *ev,
                                      const struct ptd_qry_time *t)
{
	ev->has_tsc = t->tsc_status >= 0;
	ev->tsc = t->tsc;
	ev->lost_mtc = t->lost_mtc;
	ev->lost_cyc = t->lost_cyc;
}

/* Close the open run of outcomes, the last of @count items: its @ocount
 * outcomes @ovalue, kept in registers while it was open. */
static inline void ptd_qry_close_run(struct ptd_qry_item *items, size_t count,
                                     unsigned ocount, uint64_t ovalue)
{
	items[count - 1].count = (uint8_t)ocount;
	items[count - 1].value = ovalue;
}

/* ------------------------------------------------------------------------ */
/* The lean run                                                               */
/* ------------------------------------------------------------------------ */

void ptd_qry_lean_init(struct pt_query_decoder *decoder)
{
	for (unsigned byte = 0; byte < 256; ++byte) {
		uint8_t buf[16] = {(uint8_t)byte};
		struct pt_packet pkt;
		const int size = ptd_pkt_decode_fast(buf, &pkt);
		unsigned kind = 0;

		switch (size > 0 ? pkt.type : ppt_invalid) {
		case ppt_tnt_8:
			kind = ptd_qry_lean_tnt8;
			break;
		case ppt_tip:
			kind = ptd_qry_lean_tip;
			break;
		case ppt_tip_pge:
			kind = ptd_qry_lean_pge;
			break;
		case ppt_tip_pgd:
			kind = ptd_qry_lean_pgd;
			break;
		default:
			break;
		}
		decoder->lean[byte] =
		        kind ? (uint8_t)(kind << 4 | (unsigned)size) : 0;
	}
}

/* The last IP of the lean run: struct ptd_last_ip in plain variables (its
 * bit-fields, kept on the stack, would make each update a byte store and a
 * wider load of the same word, which the processor cannot forward).  Not
 * ptd_last_ip_update() on decoder->ip either: that measured 746 against
 * 792 MB/s on mruby (alternating). */
struct ptd_qry_lean_ip {
	uint64_t ip;
	unsigned have_ip, suppressed;
};

/* The last-IP update of an IP packet with IP compression @ipc and the
 * eight bytes @w after its opcode: ptd_last_ip_update() for the valid
 * compressions, which are the ones the lean run takes.  Returns whether
 * the IP is suppressed or not known then (ptd_last_ip_query() fails). */
static inline int ptd_qry_lean_ip(struct ptd_qry_lean_ip *ip, unsigned ipc,
                                  uint64_t w)
{
	static const uint64_t keep[8] = {0,
	                                 0xffff,
	                                 0xffffffff,
	                                 ~UINT64_C(0),
	                                 UINT64_C(0xffffffffffff),
	                                 0,
	                                 ~UINT64_C(0),
	                                 0};
	const uint64_t mask = keep[ipc];
	uint64_t payload = w & mask;

	if (!ipc) {
		ip->suppressed = 1;
		return 1;
	}
	if (ipc == pt_ipc_sext_48)
		payload = (uint64_t)((int64_t)(w << 16) >> 16);
	ip->ip = (ip->ip & ~mask) | payload;
	ip->have_ip = 1;
	ip->suppressed = 0;
	return 0;
}

/* Make @x opaque to the optimizer (no code). */
#if defined(__GNUC__) || defined(__clang__)
#define PTD_QRY_OPAQUE(x) __asm__("" : "+r"(x))
#else
#define PTD_QRY_OPAQUE(x) ((void)0)
#endif

/* The fast steps while the time stands still, for the packets that make
 * up nearly all of a trace between timing packets: TNT-8, TIP, TIP.PGE and
 * TIP.PGD, with PAD between them (decoder->lean).  It does what the fast
 * steps do for them, with no packet structure and no read-ahead loop, and
 * with the call's state and the open run of outcomes in registers.
 *
 * The packet at @pos is the next one, not taken yet, and of these kinds.
 * It is taken when the packet after it (PADs aside) is of these kinds,
 * too: the read-ahead after it would stop there, with nothing between
 * that changes the time or fails.  Stops before a packet that it cannot
 * take (no room for its item or event, a TIP.PGE without an IP) and at the
 * last 16 bytes of the buffer (@limit); returns the position of the packet
 * that is next then, not taken.  (Outcomes that join the open run need no
 * room: the run may grow after the items are full, where the fast steps
 * would have ended the call first.  Calls with very few items may so split
 * runs differently; ptd_query.h promises no particular split.) */
static const uint8_t *ptd_qry_lean_run(struct pt_query_decoder *decoder,
                                       struct ptd_qry_bcall *call,
                                       const uint8_t *pos, const uint8_t *limit)
{
	const struct ptd_qry_time *t = &decoder->last_time;
	const uint8_t *const lean = decoder->lean;
	struct ptd_qry_item *const items = call->items;
	const size_t room = call->nitems - 2;
	const uint64_t tsc = t->tsc;
	const uint32_t lost_mtc = t->lost_mtc, lost_cyc = t->lost_cyc;
	const uint8_t flags = t->tsc_status >= 0 ? ptd_qry_item_has_tsc : 0;
	const uint8_t cbr = (uint8_t)t->cbr;
	struct ptd_qry_lean_ip ip = {decoder->ip.ip, decoder->ip.have_ip,
	                             decoder->ip.suppressed};
	size_t count = call->count, nev = call->nev;
	/* The open run of outcomes (items[count - 1] while @open). */
	int open = call->run_open;
	unsigned ocount = open ? items[count - 1].count : 0;
	uint64_t ovalue = open ? items[count - 1].value : 0;
	unsigned byte = pos[0], entry = lean[byte];

	/* (The caller's packet is of these kinds; a guard all the same.) */
	if (!entry)
		return pos;
	for (;;) {
		const uint8_t *next;
		struct ptd_qry_item *it;
		unsigned nbyte, nentry, kind = entry >> 4;

		/* Where the next packet starts, by branches rather than from
		 * @entry: where they predict right, the loop's chain from one
		 * position to the next does not wait for the table load (a
		 * TNT-8 is one byte, an IP packet's size follows from its IP
		 * compression).  PTD_QRY_OPAQUE keeps the compiler from
		 * turning them into conditional moves. */
		if (kind == ptd_qry_lean_tnt8) {
			next = pos + 1;
		} else {
			switch (byte >> 5) {
			case pt_ipc_suppressed:
				next = pos + 1;
				break;
			case pt_ipc_update_16:
				next = pos + 3;
				break;
			case pt_ipc_update_32:
				next = pos + 5;
				break;
			case pt_ipc_full:
				next = pos + 9;
				break;
			default:
				next = pos + 7;
				break;
			}
			PTD_QRY_OPAQUE(next);
		}

		/* The next packet's entry.  PADs have entry 0, as every
		 * packet that the lean run does not take: they are looked
		 * for only then, which costs the packets with no PAD after
		 * them nothing. */
		if (next >= limit)
			break;
		nbyte = next[0];
		nentry = lean[nbyte];
		if (__builtin_expect(!nentry, 0)) {
			if (nbyte)
				break;
			do
				next = ptd_qry_skip_pad(next);
			while (next < limit && !*next);
			if (next >= limit)
				break;
			nbyte = next[0];
			nentry = lean[nbyte];
			if (!nentry)
				break;
		}

		/* Take the packet at @pos. */
		if (kind == ptd_qry_lean_tnt8) {
			const unsigned size = ptd_qry_tnt8_size(byte);
			const uint64_t bits =
			        (byte >> 1) & ((UINT32_C(1) << size) - 1);

			if (open && ocount + size <= 64) {
				ovalue = (ovalue << size) | bits;
				ocount += size;
				goto taken;
			}
			if (count > room)
				break;
			if (open)
				ptd_qry_close_run(items, count, ocount, ovalue);
			it = &items[count++];
			it->kind = ptd_qry_item_tnt;
			it->flags = flags;
			open = 1;
			ocount = size;
			ovalue = bits;
		} else {
			uint64_t w, value = 0;
			int suppressed;

			if (count > room)
				break;
			if (kind != ptd_qry_lean_tip &&
			    (nev >= call->nevents ||
			     (kind == ptd_qry_lean_pge && !(byte >> 5))))
				break;
			if (open) {
				ptd_qry_close_run(items, count, ocount, ovalue);
				open = 0;
			}
			memcpy(&w, pos + 1, sizeof(w));
			suppressed = ptd_qry_lean_ip(&ip, byte >> 5, w);
			if (!suppressed)
				value = ip.ip;
			it = &items[count++];
			if (kind == ptd_qry_lean_tip) {
				it->kind = ptd_qry_item_tip;
				it->flags =
				        (uint8_t)(flags |
				                  (suppressed
				                           ? ptd_qry_item_ip_suppressed
				                           : 0));
				it->count = 0;
				it->value = value;
			} else {
				struct pt_event *ev = &call->events[nev];

				/* (A TIP.PGE here has its IP.) */
				ptd_qry_pg_event(decoder, ev,
				                 kind == ptd_qry_lean_pge,
				                 suppressed, value);
				/* ptd_qry_event_time() from the registers. */
				ev->has_tsc = flags != 0;
				ev->tsc = tsc;
				ev->lost_mtc = lost_mtc;
				ev->lost_cyc = lost_cyc;
				it->kind = ptd_qry_item_event;
				it->flags = flags;
				it->count = 0;
				it->value = nev++;
			}
		}
		it->cbr = cbr;
		it->error = 0;
		it->lost_mtc = lost_mtc;
		it->lost_cyc = lost_cyc;
		it->tsc = tsc;
	taken:
		pos = next;
		byte = nbyte;
		entry = nentry;
	}
	if (open)
		ptd_qry_close_run(items, count, ocount, ovalue);
	decoder->ip.ip = ip.ip;
	decoder->ip.have_ip = ip.have_ip;
	decoder->ip.suppressed = ip.suppressed;
	call->count = count;
	call->nev = nev;
	call->run_open = open;
	return pos;
}

/* Run fast steps from decoder->next (ptd_qry_fast_ok() holds and the
 * packet is of a ptd_qry_fast_type()) as long as they last: take the
 * packet, read ahead over PAD and timing packets to the next one, emit the
 * result, and go on if that one is fast, too.  Leaves the decoder as the pull
 * API would after the last result and returns the status the pull API would
 * have returned with it (or its error), or 1 << 30 when the packet at
 * decoder->next is not one that this function takes. */
static int ptd_qry_fast_run(struct pt_query_decoder *decoder,
                            struct ptd_qry_bcall *call)
{
	const struct pt_config *config = &decoder->config;
	const uint8_t *const end = config->end;
	const uint8_t *const limit = end - 16;
	const uint8_t *pos = decoder->pos;
	struct pt_packet *pkt = &decoder->next;
	struct ptd_qry_item *const items = call->items;
	int size = decoder->next_size;
	int status, ret = 1 << 30;

	for (;;) {
		struct ptd_qry_fres res = {ptd_qry_item_tnt, 0, 0, 0};
		struct ptd_qry_item *it;
		struct pt_event *ev = NULL;
		enum pt_packet_type type = pkt->type;

		if (call->count + 2 > call->nitems) {
			ret = (type == ppt_tip_pge || type == ppt_tip_pgd)
			              ? pts_event_pending
			              : 0;
			goto out;
		}

		/* Take the packet: what pt_qry_cond_branch(),
		 * pt_qry_indirect_branch() or pt_qry_event() would. */
		switch (type) {
		case ppt_tnt_8:
		case ppt_tnt_64:
			res.kind = ptd_qry_item_tnt;
			res.size = pkt->payload.tnt.bit_size;
			res.value = pkt->payload.tnt.payload;
			if (!res.size)
				goto out;
			break;

		case ppt_tip:
			res.kind = ptd_qry_item_tip;
			if (ptd_last_ip_update(&decoder->ip, &pkt->payload.ip) <
			    0)
				goto out;
			/* The IP before the read-ahead, which may reach a
			 * PSB+. */
			res.suppressed =
			        ptd_last_ip_query(&res.value, &decoder->ip) < 0;
			break;

		case ppt_tip_pge:
		case ppt_tip_pgd:
			if (call->nev >= call->nevents)
				goto out;
			if (ptd_last_ip_update(&decoder->ip, &pkt->payload.ip) <
			    0)
				goto out;
			res.kind = ptd_qry_item_event;
			res.suppressed =
			        ptd_last_ip_query(&res.value, &decoder->ip) < 0;
			/* An enabled event needs its IP. */
			if (type == ppt_tip_pge && res.suppressed)
				goto out;
			ev = &call->events[call->nev];
			ptd_qry_pg_event(decoder, ev, type == ppt_tip_pge,
			                 res.suppressed, res.value);
			break;

		default:
			goto out;
		}

		/* Consume it (the time engine ignores these packets) and take
		 * the time of the result. */
		pos += size;
		ptd_qry_bsnap(decoder, call);
		if (ev)
			ptd_qry_event_time(ev, &decoder->last_time);

		/* Read ahead: skip PAD, feed timing packets to the time
		 * engine, stop at the next packet that matters. */
		for (;;) {
			struct ptd_pkt_state state;
			struct ptd_time_ahead ahead;

			if (pos >= limit)
				goto generic;
			if (*pos == 0) {
				pos = ptd_qry_skip_pad(pos);
				continue;
			}
			size = ptd_pkt_decode_fast(pos, pkt);
			if (!size)
				size = ptd_pkt_decode_cyc2(pos, pkt);
			if (!size) {
				state.bip_size = 0;
				size = ptd_pkt_decode(pos, end, config, pkt,
				                      &state);
				if (size <= 0 || state.bip_size)
					goto generic;
			}
			/* The fast types first, as one range. */
			_Static_assert(ppt_tip_pge == ppt_tip + 1 &&
			                       ppt_tip_pgd == ppt_tip + 2 &&
			                       ppt_tnt_8 == ppt_tip + 3 &&
			                       ppt_tnt_64 == ppt_tip + 4,
			               "the fast packet types are one range");
			if ((unsigned)pkt->type - ppt_tip <=
			    (unsigned)(ppt_tnt_64 - ppt_tip))
				goto fetched;
			switch (pkt->type) {
			case ppt_tsc:
			case ppt_tma:
			case ppt_mtc:
			case ppt_cyc:
				ahead.pos = pos + size;
				ahead.end = end;
				ahead.state.bip_size = 0;
				(void)ptd_time_update(&decoder->time, pkt,
				                      &ahead);
				call->dirty = 1;
				pos += size;
				continue;
			default:
				goto generic;
			}
		}

	fetched:
		/* The next packet is a fast one; decoder->next holds it, the
		 * rest of the decoder's view of it is written when the loop
		 * ends.  Emit the result. */
		if (res.kind == ptd_qry_item_tnt) {
			if (call->run_open) {
				it = &items[call->count - 1];
				if (it->count + res.size <= 64) {
					it->value = (it->value << res.size) |
					            res.value;
					it->count =
					        (uint8_t)(it->count + res.size);
					goto emitted;
				}
			}
			it = ptd_qry_bitem(decoder, call, ptd_qry_item_tnt);
			it->count = (uint8_t)res.size;
			it->value = res.value;
			call->run_open = 1;
		} else {
			it = ptd_qry_bitem(decoder, call, res.kind);
			call->run_open = 0;
			if (res.kind == ptd_qry_item_event)
				it->value = call->nev++;
			else if (res.suppressed)
				it->flags |= ptd_qry_item_ip_suppressed;
			else
				it->value = res.value;
		}
	emitted:
		/* A run stays open only while the time does not change. */
		if (call->dirty) {
			call->run_open = 0;
		} else if ((unsigned)pkt->type - ppt_tip <=
		           (unsigned)(ppt_tnt_8 - ppt_tip)) {
			const uint8_t *at =
			        ptd_qry_lean_run(decoder, call, pos, limit);

			if (at != pos) {
				pos = at;
				size = ptd_pkt_decode_fast(pos, pkt);
			}
		}
		continue;

	generic:
		/* The pull API's read-ahead from here on. */
		decoder->pos = pos;
		decoder->pstate.bip_size = 0;
		decoder->have_next = 0;
		call->dirty = 1;
		call->run_open = 0;
		status = ptd_qry_read_ahead(decoder);
		if (status < 0 && status != -pte_eos) {
			/* The query drops its result: pt_qry_cond_branch()
			 * for outcomes, pt_qry_indirect_branch() for a TIP
			 * (after pt_qry_cond_branch() said -pte_bad_query),
			 * pt_qry_event() for an event. */
			call->eflags = res.kind == ptd_qry_item_tnt ? 0
			               : res.kind == ptd_qry_item_tip
			                       ? ptd_qry_item_indirect
			                       : ptd_qry_item_event_pending;
			return status;
		}
		if (res.kind == ptd_qry_item_tnt) {
			it = ptd_qry_bitem(decoder, call, ptd_qry_item_tnt);
			it->count = (uint8_t)res.size;
			it->value = res.value;
		} else {
			it = ptd_qry_bitem(decoder, call, res.kind);
			if (res.kind == ptd_qry_item_event)
				it->value = call->nev++;
			else if (res.suppressed)
				it->flags |= ptd_qry_item_ip_suppressed;
			else
				it->value = res.value;
		}
		return ptd_qry_status(decoder);
	}

out:
	/* The packet at pos, which decoder->next holds, is the next one: as
	 * ptd_qry_fetch() leaves it. */
	decoder->pos = pos;
	decoder->next_size = size;
	decoder->next_pstate.bip_size = 0;
	decoder->next_flags = ptd_qry_packet_flags(pkt);
	return ret;
}
/* The events a PSB+ restates, which wait for its PSBEND: what
 * pt_qry_event() does for each, without its per-call work.  While more of
 * them wait, the pull API's read-ahead stops at the PSBEND again at once;
 * after the last one it reads on.  Returns 1 if taken (*@status is the new
 * status), 0 if not. */
static int ptd_qry_psb_events(struct pt_query_decoder *decoder,
                              struct ptd_qry_bcall *call, int *status)
{
	if (!decoder->have_next || decoder->next_err ||
	    decoder->next.type != ppt_psbend || decoder->tnt.mask ||
	    !ptd_evq_pending(&decoder->evq, ptd_evb_psbend) ||
	    call->nev >= call->nevents)
		return 0;
	while (call->nev < call->nevents && call->count + 2 <= call->nitems) {
		struct ptd_qry_item *it;
		int err;

		decoder->event = NULL;
		err = ptd_qry_pending_psb_event(decoder);
		if (err < 0) {
			call->eflags = ptd_qry_item_event_pending;
			*status = err;
			return 1;
		}
		if (!err || !decoder->event)
			break;
		call->events[call->nev] = decoder->event->ev;
		ptd_qry_bsnap(decoder, call);
		if (!ptd_evq_pending(&decoder->evq, ptd_evb_psbend)) {
			err = ptd_qry_read_ahead(decoder);
			call->dirty = 1;
			if (err < 0 && err != -pte_eos) {
				call->eflags = ptd_qry_item_event_pending;
				*status = err;
				return 1;
			}
			it = ptd_qry_bitem(decoder, call, ptd_qry_item_event);
			it->value = call->nev++;
			break;
		}
		it = ptd_qry_bitem(decoder, call, ptd_qry_item_event);
		it->value = call->nev++;
	}
	*status = ptd_qry_status(decoder);
	return 1;
}

/* ------------------------------------------------------------------------ */
/* The slow path                                                              */
/* ------------------------------------------------------------------------ */

/* An error item for @err at the decoder's position, with the flags in
 * call->eflags. */
static void ptd_qry_berror(struct pt_query_decoder *decoder,
                           struct ptd_qry_bcall *call, int err)
{
	struct ptd_qry_item *it =
	        ptd_qry_bitem(decoder, call, ptd_qry_item_error);
	uint64_t offset = 0;

	(void)pt_qry_get_offset(decoder, &offset);
	it->flags |= (uint8_t)call->eflags;
	it->error = err;
	it->value = offset;
}

/* One step of the loop through the pull API.  Returns the new status (on
 * an error, call->eflags tells which query failed), or 1 << 30 if the call
 * must stop (no room for an event). */
static int ptd_qry_slow_step(struct pt_query_decoder *decoder,
                             struct ptd_qry_bcall *call, int status)
{
	struct ptd_qry_item *it;
	uint64_t ip = 0;
	int taken = 0;

	call->dirty = 1;
	if (status & pts_event_pending) {
		struct pt_event *ev;

		if (call->nev >= call->nevents)
			return 1 << 30;
		ev = &call->events[call->nev];
		status = pt_qry_event(decoder, ev, sizeof(*ev));
		if (status >= 0) {
			it = ptd_qry_bitem(decoder, call, ptd_qry_item_event);
			it->value = call->nev++;
		} else {
			call->eflags = ptd_qry_item_event_pending;
		}
		return status;
	}
	status = pt_qry_cond_branch(decoder, &taken);
	if (status >= 0) {
		ptd_qry_btnt(decoder, call, (uint64_t)taken, 1);
		return status;
	}
	if (status != -pte_bad_query) {
		call->eflags = 0;
		return status;
	}
	status = pt_qry_indirect_branch(decoder, &ip);
	if (status >= 0) {
		it = ptd_qry_bitem(decoder, call, ptd_qry_item_tip);
		if (status & pts_ip_suppressed)
			it->flags |= ptd_qry_item_ip_suppressed;
		else
			it->value = ip;
	} else {
		call->eflags = ptd_qry_item_indirect;
	}
	return status;
}

/* ------------------------------------------------------------------------ */
/* The API                                                                    */
/* ------------------------------------------------------------------------ */

int ptd_qry_next_batch(struct pt_query_decoder *decoder,
                       struct ptd_qry_item *items, size_t nitems,
                       struct pt_event *events, size_t nevents)
{
	struct ptd_qry_bcall call;
	int status;

	if (!decoder || !items || nitems < 2 || (!events && nevents))
		return -pte_invalid;

	call.items = items;
	call.nitems = nitems;
	call.count = 0;
	call.events = events;
	call.nevents = nevents;
	call.nev = 0;
	call.dirty = 1;
	call.run_open = 0;
	call.eflags = 0;

	/* The loop ended: only a synchronization through the pull API starts
	 * it again. */
	if (decoder->batch_error == -pte_eos && decoder->batch_eflags < 0)
		return -pte_eos;

	/* A negative status: the call that failed (an error item with
	 * call.eflags), or -pte_nosync: synchronize without an item. */
	if (decoder->batch_error) {
		status = decoder->batch_error;
		call.eflags = decoder->batch_eflags;
	} else if (!decoder->pos) {
		status = -pte_nosync;
	} else {
		status = ptd_qry_status(decoder);
	}
	decoder->batch_error = 0;

	while (call.count + 2 <= call.nitems) {
		if (status < 0) {
			uint64_t ip = 0;

			if (status != -pte_nosync)
				ptd_qry_berror(decoder, &call, status);
			status = pt_qry_sync_forward(decoder, &ip);
			call.dirty = 1;
			if (status == -pte_eos) {
				/* The end, without an item (even where a PSB
				 * follows: a PSB+ that it cuts short says
				 * -pte_eos, too), for good. */
				call.eflags = -1;
				break;
			}
			if (status >= 0) {
				struct ptd_qry_item *it = ptd_qry_bitem(
				        decoder, &call, ptd_qry_item_sync);

				if (status & pts_ip_suppressed)
					it->flags |= ptd_qry_item_ip_suppressed;
				else
					it->value = ip;
			} else {
				call.eflags = ptd_qry_item_resync;
			}
			continue;
		}
		if (!(status & pts_eos) && ptd_qry_fast_ok(decoder) &&
		    ptd_qry_fast_type(decoder->next.type) &&
		    !(status & pts_event_pending) ==
		            !(decoder->next.type == ppt_tip_pge ||
		              decoder->next.type == ppt_tip_pgd)) {
			int st = ptd_qry_fast_run(decoder, &call);

			if (st != 1 << 30) {
				status = st;
				continue;
			}
			/* The state may have moved on before a packet that
			 * the fast path does not take. */
			status = ptd_qry_status(decoder);
		}
		call.run_open = 0;
		if (status & pts_eos) {
			if (!(status & pts_event_pending)) {
				/* The end that pts_eos announced: no item. */
				status = -pte_nosync;
				continue;
			}
		}
		if ((status & pts_event_pending) &&
		    ptd_qry_psb_events(decoder, &call, &status))
			continue;
		status = ptd_qry_slow_step(decoder, &call, status);
		if (status == 1 << 30) {
			/* No room for the next event. */
			if (!call.count)
				return 0;
			status = ptd_qry_status(decoder);
			break;
		}
	}

	/* An error or the end not handled yet waits for the next call (the
	 * end stays). */
	if (status < 0) {
		decoder->batch_error = status;
		decoder->batch_eflags = call.eflags;
	}
	if (call.count)
		return (int)call.count;
	return -pte_eos;
}
