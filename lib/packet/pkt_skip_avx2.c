/* SPDX-License-Identifier: BSD-3-Clause */
/* A walk over packets that skips the frequent kinds, for scans that look
 * only for the others (the time engine's anchor scan looks for MTC, TSC,
 * TMA and the PSB+ around them).  The chunk tables are those of the batch
 * decoder (pkt_chunk_avx2.h), with TSC and MTC left out of the frequent
 * kinds: a step from a packet start moves over a run of one-byte packets
 * and the packet that ends it with one load on the loop-carried chain (two
 * in all), and stops where that packet is not a frequent kind; its only
 * branches are that stop and the move to the next chunk.  The tables of the
 * last chunk are kept between calls, so a scan that stops at every MTC
 * (every few packets in CYC-dense traces) goes on without computing them
 * again. */
#include "pkt_batch.h"

#if PTD_PKT_BATCH_AVX2

#include "pkt_chunk_avx2.h"

_Static_assert(sizeof(((struct ptd_pkt_skip *)0)->next) == PTD_CHUNK &&
                       sizeof(((struct ptd_pkt_skip *)0)->run) == PTD_CHUNK,
               "the skip tables cover a chunk");

/* Compute the tables of the chunk at @chunk (which has PTD_CHUNK +
 * PTD_CHUNK_TAIL bytes).  The SKD007 check is always on: a two-byte CYC
 * whose second byte is the 0x02 escape stops the walk, and the caller's
 * decoder decides what it is. */
PTD_AVX2 static void ptd_skip_tables(struct ptd_pkt_skip *skip,
                                     const uint8_t *chunk)
{
	const __m256i skd007 = _mm256_set1_epi8(-1);
	const __m256i x9 = _mm256_setzero_si256();
	struct ptd_block cur = ptd_block(chunk, skd007, x9);

	for (unsigned off = 0; off < PTD_CHUNK; off += 32) {
		const struct ptd_block after =
		        ptd_block(chunk + off + 32, skd007, x9);

		ptd_block_steps(cur, after, off, skip->next, skip->run);
		cur = after;
	}
	skip->chunk = chunk;
}

const uint8_t *ptd_pkt_skip_avx2(struct ptd_pkt_skip *skip, const uint8_t *pos,
                                 const uint8_t *end)
{
	size_t p;

	if (skip->chunk && pos >= skip->chunk &&
	    pos < skip->chunk + PTD_CHUNK) {
		p = (size_t)(pos - skip->chunk);
	} else {
		if (end - pos < PTD_CHUNK + PTD_CHUNK_TAIL)
			return pos;
		ptd_skip_tables(skip, pos);
		p = 0;
	}
	for (;;) {
		const size_t q = p + skip->run[p], to = skip->next[p];

		if (to == q)
			return skip->chunk + q;
		p = to;
		if (p >= PTD_CHUNK) {
			const uint8_t *next = skip->chunk + PTD_CHUNK;

			if (end - next < PTD_CHUNK + PTD_CHUNK_TAIL)
				return skip->chunk + p;
			ptd_skip_tables(skip, next);
			p -= PTD_CHUNK;
		}
	}
}

#endif /* PTD_PKT_BATCH_AVX2 */
