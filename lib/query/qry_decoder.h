/* SPDX-License-Identifier: BSD-3-Clause */
/* The query decoder object, shared by the files of lib/query. */
#ifndef PTD_QRY_DECODER_H
#define PTD_QRY_DECODER_H

#include "ptdecode/intel-pt.h"

#include "evq.h"
#include "last_ip.h"
#include "packet/pkt_decode.h"
#include "time/time.h"
#include "tnt_cache.h"

#include <string.h>

/* What a packet means to the query decoder. */
enum ptd_qf {
	ptd_qf_tip = 1 << 0,    /* TIP */
	ptd_qf_tnt = 1 << 1,    /* TNT-8, TNT-64 */
	ptd_qf_event = 1 << 2,  /* always an event (maybe deferred) */
	ptd_qf_psbend = 1 << 3, /* ends PSB+ (PSBEND, OVF) */
	ptd_qf_fup = 1 << 4     /* FUP */
};

/* The time state at the last result (pt_qry_time()). */
struct ptd_qry_time {
	uint64_t tsc;
	uint32_t lost_mtc, lost_cyc;
	uint32_t cbr; /* 0 while @cbr_status < 0 */
	int tsc_status, cbr_status;
};

struct pt_query_decoder {
	/* Our copy of the user's configuration. */
	struct pt_config config;

	/* The next packet to process and the last synchronization point;
	 * NULL while not synchronized. */
	const uint8_t *pos;
	const uint8_t *sync;
	/* The packet decoder's state at @pos. */
	struct ptd_pkt_state pstate;

	/* The packet at @pos, decoded (with @have_next): its size in the
	 * trace, its ptd_qf flags and the packet decoder's state after it.
	 * @next_err is a decode error to report when it is processed (a
	 * packet the end of the buffer cuts off); without @have_next it is
	 * the error that fetching it gave. */
	struct pt_packet next;
	int next_size;
	int next_err;
	unsigned next_flags;
	struct ptd_pkt_state next_pstate;
	uint32_t have_next : 1;

	/* Tracing is enabled (PacketEn), as far as the decoder knows. */
	uint32_t enabled : 1;
	/* The packet at @pos must be kept until its events are reported. */
	uint32_t consume_packet : 1;
	/* With enable_iflags_events: RFLAGS.IF as the last MODE.Exec gave it,
	 * and whether there was one since synchronization. */
	uint32_t iflag : 1;
	uint32_t mode_exec_valid : 1;

	struct ptd_last_ip ip;
	struct ptd_tnt_cache tnt;
	struct ptd_evq evq;

	/* The event the last packet produced, or NULL. */
	struct ptd_evq_slot *event;

	/* The time engine, and its state at the last result. */
	struct ptd_time time;
	struct ptd_qry_time last_time;

	/* An error that ptd_qry_next_batch() has yet to report and recover
	 * from (it ran out of items), or 0, and the flags of its item (enum
	 * ptd_qry_item_flag); -pte_nosync: it has yet to synchronize, without
	 * an item; -pte_eos with flags -1: its loop ended
	 * (pt_qry_sync_forward() said -pte_eos). */
	int batch_error;
	int batch_eflags;

	/* By opcode, the packets that ptd_qry_next_batch()'s lean run takes:
	 * the size in bits 3:0 and the kind in bits 7:4 (enum
	 * ptd_qry_lean_kind), 0 for the others (ptd_qry_lean_init()). */
	uint8_t lean[256];

	/* The event decoder's log of the PSB+ decoded (lib/event), or NULL:
	 * the query decoder's results do not depend on it. */
	struct ptd_qry_psb_log *psb_log;
};

/* The event decoder (lib/event) reports each PSB+'s tracing status, which
 * the query decoder does not: the query decoder logs it here, with where it
 * came among the pull API's results, and the event decoder takes the
 * records after each call. */
enum { ptd_qry_psb_log_size = 16 };

struct ptd_qry_psb_log {
	/* Results of the pull API whose time was taken (the conditional
	 * branch that loads a TNT packet, indirect branches, events). */
	uint64_t results;
	/* Records since the event decoder took the last ones.  A call that
	 * passes more PSB+ than there are records (only PSB+ with nothing to
	 * report in between) keeps the first ones and the last. */
	uint32_t n;
	struct ptd_qry_psb_rec {
		/* ptev_enabled with the IP of the PSB+'s FUP or ptev_disabled,
		 * status_update, stamped with the time at its PSBEND. */
		struct pt_event ev;
		/* @results when the PSB+ was decoded: a result counted later
		 * comes after it. */
		uint64_t seq;
	} rec[ptd_qry_psb_log_size];
};

/* Count a pull API result for the PSB+ log. */
static inline void ptd_qry_log_result(struct pt_query_decoder *decoder)
{
	if (decoder->psb_log)
		decoder->psb_log->results++;
}

/* Log the tracing status of the PSB+ whose header the decoder has just read
 * (at its PSBEND, or at an OVF in it; none for an OVF while tracing is
 * off), psb_log.c. */
void ptd_qry_log_psb(struct pt_query_decoder *decoder);

/* The kinds of packets of the lean run (struct pt_query_decoder, @lean). */
enum ptd_qry_lean_kind {
	ptd_qry_lean_tnt8 = 1,
	ptd_qry_lean_tip,
	ptd_qry_lean_pge,
	ptd_qry_lean_pgd
};

/* Fill decoder->lean from the packet decoder's fast table (batch.c). */
void ptd_qry_lean_init(struct pt_query_decoder *decoder);

/* The ptd_qf flags of a decoded packet. */
unsigned ptd_qry_packet_flags(const struct pt_packet *packet);

/* The status flags (enum pt_status_flag) after a result. */
int ptd_qry_status(const struct pt_query_decoder *decoder);

/* Take the time of the result just produced (pt_qry_time()). */
void ptd_qry_snapshot(struct pt_query_decoder *decoder);

/* Read on up to the next packet that matters to a query. */
int ptd_qry_read_ahead(struct pt_query_decoder *decoder);

/* pt_qry_sync_backward() as if the decoder stood at @offset.  The flow
 * decoders' backward synchronization right after a synchronization, before
 * they decoded anything, goes from where the query decoder's
 * synchronization left it, as libipt's (whose flow decoders read nothing
 * more to synchronize) does. */
int ptd_qry_sync_backward_from(struct pt_query_decoder *decoder, uint64_t *ip,
                               uint64_t offset);

/* Skip the PAD at @pos and the ones after it, up to 8 of them: PADs come in
 * runs.  At least 8 bytes must lie ahead. */
static inline const uint8_t *ptd_qry_skip_pad(const uint8_t *pos)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&    \
        (defined(__GNUC__) || defined(__clang__))
	uint64_t w;

	memcpy(&w, pos, sizeof(w));
	return w ? pos + ((unsigned)__builtin_ctzll(w) >> 3) : pos + 8;
#else
	return pos + 1;
#endif
}

/* The position after the run of PADs at @pos, skipped eight bytes at a
 * time while eight bytes are left before @end (a shorter tail of PADs is
 * left to the caller's packet decoder).  Only where no PEBS block is open:
 * a zero byte inside one is not a PAD. */
static inline const uint8_t *ptd_qry_skip_pads(const uint8_t *pos,
                                               const uint8_t *end)
{
	while (end - pos >= 8 && !*pos)
		pos = ptd_qry_skip_pad(pos);
	return pos;
}

/* Decode the packet at decoder->pos into decoder->next. */
int ptd_qry_fetch(struct pt_query_decoder *decoder);

/* Apply decoder->next to the time engine and move past it. */
void ptd_qry_consume(struct pt_query_decoder *decoder);

/* Stamp @slot with the current time. */
void ptd_qry_stamp(struct pt_query_decoder *decoder, struct ptd_evq_slot *slot);

/* Reset the decoder's state, but not the time (after OVF). */
void ptd_qry_reset_state(struct pt_query_decoder *decoder);

/* Handle an OVF at decoder->pos (ovf.c). */
int ptd_qry_decode_ovf(struct pt_query_decoder *decoder);

/* Publish the next PSB+ event, if any: returns 1 if one was published. */
int ptd_qry_pending_psb_event(struct pt_query_decoder *decoder);

/* Publish a standalone overflow event with tracing disabled. */
int ptd_qry_ovf_disabled(struct pt_query_decoder *decoder);

/* Look for a FUP in the PSB+ whose PSB was just read by @pkt's walk
 * (ovf.c); see there. */

/* A walk over the packets ahead of the decoder that does not move it. */
struct ptd_qry_walk {
	const struct pt_config *config;
	const uint8_t *pos;
	struct ptd_pkt_state pstate;
};

/* Decode the packet at @walk and move past it.  @offset gets the packet's
 * offset; @ahead (if not NULL) where the trace goes on, for the time engine.
 * Returns the bytes consumed or a negative error code. */
int ptd_qry_walk_next(struct ptd_qry_walk *walk, struct pt_packet *packet,
                      uint64_t *offset, struct ptd_time_ahead *ahead);

#endif /* PTD_QRY_DECODER_H */
