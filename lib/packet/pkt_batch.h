/* SPDX-License-Identifier: BSD-3-Clause */
/* The inner loops of ptd_pkt_next_batch(), shared by pkt_decoder.c and the
 * SIMD implementation in pkt_batch_avx2.c. */
#ifndef PTD_PKT_BATCH_H
#define PTD_PKT_BATCH_H

#include "pkt_decode.h"

#include <stddef.h>
#include <stdint.h>

/* The AVX2 loop needs x86, and gcc or clang for the target attribute, the
 * intrinsics and __builtin_cpu_supports(). */
#if (defined(__x86_64__) || defined(__i386__)) &&                              \
        (defined(__GNUC__) || defined(__clang__))
#define PTD_PKT_BATCH_AVX2 1
#else
#define PTD_PKT_BATCH_AVX2 0
#endif

/* One call of ptd_pkt_next_batch(): where the packets go and how far the
 * call got. */
struct ptd_pkt_batch {
	const uint8_t *begin, *end;
	const struct pt_config *config;
	/* Decoding state; the inner loops leave it as they found it unless
	 * they return early after a packet that changed it. */
	struct ptd_pkt_state *state;
	struct pt_packet *packets;
	/* NULL if the caller does not want offsets. */
	uint64_t *offsets;
	size_t count;
	/* Packets decoded so far (packets[0..n) are done). */
	size_t n;
	/* Set by an inner loop that returns at a packet the caller must
	 * decode with ptd_pkt_decode() (an error, a zero-size unknown packet,
	 * or any packet inside a PEBS block). */
	int stop;
};

/* How many packets fewer than asked for ptd_pkt_next_batch() may return
 * while more could be decoded (ptdecode.h promises at most 7). */
#define PTD_PKT_BATCH_SHORT 7

#if PTD_PKT_BATCH_AVX2
/* Whether this CPU and OS can run ptd_pkt_batch_avx2(). */
int ptd_pkt_batch_avx2_usable(void);

/* Decode packets from @pos into @b while a few more than one step's worth
 * of packets fit into b->packets (it stops with at most PTD_PKT_BATCH_SHORT
 * packets of room left) and the buffer has plenty of bytes left.
 * Returns the position after the last packet decoded; b->n tells how many.
 * Returns early, with b->stop set, at a packet that fails to decode and
 * after one that opens a PEBS block; decodes nothing inside a PEBS block.
 *
 * The few packets (and offsets) after the ones decoded may be overwritten
 * with garbage. */
const uint8_t *ptd_pkt_batch_avx2(const uint8_t *pos, struct ptd_pkt_batch *b);
#endif

/* The state of ptd_pkt_skip_avx2(): the tables of the chunk walked last.
 * (Declared everywhere, so that callers need no conditional types.) */
struct ptd_pkt_skip {
	/* The chunk the tables describe; NULL: none yet. */
	const uint8_t *chunk;
	uint8_t next[128];
	uint8_t run[128];
};

#if PTD_PKT_BATCH_AVX2
/* From the packet start @pos (no PEBS block open there), return the first
 * packet that is not PAD, TNT-8, a one- or two-byte CYC (but one whose
 * second byte is the 0x02 escape) or a TIP, TIP.PGE, TIP.PGD or FUP with a
 * valid IP compression: an MTC, a TSC or any other kind; the packets before
 * it are skipped.  Where fewer than about 200 bytes are left before @end,
 * it returns the packet where it got to, whatever its kind: the caller goes
 * on without it from there.  Only where ptd_pkt_batch_avx2_usable().
 * @skip keeps the tables of the last chunk from call to call; set
 * skip->chunk to NULL before the first call for a buffer. */
const uint8_t *ptd_pkt_skip_avx2(struct ptd_pkt_skip *skip, const uint8_t *pos,
                                 const uint8_t *end);
#endif

#endif /* PTD_PKT_BATCH_H */
