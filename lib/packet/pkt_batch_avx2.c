/* SPDX-License-Identifier: BSD-3-Clause */
/* The AVX2 inner loop of ptd_pkt_next_batch().
 *
 * Why a different loop: a packet's position depends on the previous packet's
 * size, which depends on its opcode.  Decoding one packet after the other is
 * a chain of two dependent loads per packet (opcode, then its size), about
 * seven cycles, and no amount of work saved elsewhere makes the loop faster
 * than that chain.  Branches on the frequent one-byte packets shorten it
 * only where they predict well (long runs of PAD); on mixed streams they
 * mispredict.
 *
 * What this loop does instead, for a chunk of PTD_CHUNK bytes at a time:
 *
 * 1. For every byte position p of the chunk, as if a packet started there,
 *    compute with SIMD (32 positions at once, no branches):
 *      size[p]  the size of that packet if it is one of the frequent kinds
 *               (PAD, TNT-8, CYC of one or two bytes, TIP/TIP.PGE/TIP.PGD/FUP
 *               with any valid IP compression, TSC, MTC), else 0;
 *      run[p]   how many one-byte packets follow each other from p, at most
 *               PTD_RUN;
 *      next[p]  q + size[q] with q = p + run[p]: the position after those
 *               one-byte packets and the packet that ends them.
 *    These depend only on the bytes, not on where packets really start, so
 *    they cost the same on every stream.
 *
 * 2. Walk the real packets in steps: from a packet start p, one step covers
 *    the run[p] one-byte packets at p and the packet at q = p + run[p]; the
 *    next step starts at next[p].  The loop-carried chain is now one load
 *    per step (up to PTD_RUN + 1 packets), not two per packet, and there
 *    are no data-dependent branches: each step writes PTD_RUN one-byte
 *    packet images unconditionally (those beyond the real run are garbage
 *    that the next step overwrites, as the output index only advances by
 *    run[p] + 1) and then the packet at q.
 *
 * A packet image is one 32-byte store from a 64-byte table entry per opcode
 * (struct ptd_pkt_image): one-byte packets are a plain copy, and multi-byte
 * packets take their payload from the eight bytes after the opcode with a
 * mask and a shift, as in ptd_pkt_decode_fast().
 *
 * A packet of any other kind (size 0: PSB, extended opcodes, MODE, longer
 * CYCs, reserved IP compressions, unknown opcodes) stops the step's
 * position arithmetic: next[p] == q tells the loop, which hands the packet
 * to the general decoder and goes on after it.
 *
 * The result is the same as ptd_pkt_decode() packet by packet: the sizes and
 * images come from the same rules (tests/unit/test_config.c checks every
 * pair of first bytes against pt_pkt_next(); the differential and fuzz
 * tests compare the batch decoder with pt_pkt_next() on random streams). */
#include "pkt_batch.h"

#if PTD_PKT_BATCH_AVX2

#include "pkt_chunk_avx2.h"

enum {
	/* The loop runs only for at least this many packets, and with this
	 * many bytes more than a chunk needs. */
	PTD_MIN_PACKETS = 32,
	PTD_MIN_BYTES = 64
};

_Static_assert(PTD_RUN + 1 <= PTD_PKT_BATCH_SHORT,
               "the loop stops with at most PTD_PKT_BATCH_SHORT packets left");

int ptd_pkt_batch_avx2_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

/* The image table entry of the opcode at @pos.  (Addressed as one base and
 * an offset, so that the compiler keeps one register for the table.) */
static inline const char *ptd_img(const uint8_t *pos)
{
	return (const char *)ptd_pkt_image + ((size_t)pos[0] << 6);
}

/* Write the image of the one-byte packet at @pos to @pkt (32 bytes). */
PTD_AVX2 static inline void ptd_put1(struct pt_packet *pkt, const uint8_t *pos)
{
	_mm256_storeu_si256((__m256i *)pkt,
	                    _mm256_load_si256((const __m256i *)ptd_img(pos)));
}

/* Write the image of the packet at @pos, of any size, to @pkt (32 bytes;
 * reads pos[0..9)). */
PTD_AVX2 static inline void ptd_put(struct pt_packet *pkt, const uint8_t *pos)
{
	const char *img = ptd_img(pos);
	long long w;
	__m256i v;

	_Static_assert(sizeof(struct ptd_pkt_image) == 64 &&
	                       offsetof(struct ptd_pkt_image, m) == 32,
	               "image layout");
	memcpy(&w, pos + 1, sizeof(w));
	v = _mm256_and_si256(_mm256_set1_epi64x(w),
	                     _mm256_load_si256((const __m256i *)(img + 32)));
	v = _mm256_sll_epi64(v, _mm_loadl_epi64((const __m128i *)(img + 24)));
	v = _mm256_or_si256(v, _mm256_load_si256((const __m256i *)img));
	_mm256_storeu_si256((__m256i *)pkt, v);
}

/* The general decoder, for the packets that a step does not decode itself.
 * Out of line: it is rare, and big.  No PEBS block is open here, so packets
 * with the 0x02 escape (PSB+ packets and others) can go straight to their
 * decoder. */
__attribute__((noinline)) static int ptd_general(const uint8_t *pos,
                                                 const uint8_t *end,
                                                 const struct pt_config *config,
                                                 struct pt_packet *pkt,
                                                 struct ptd_pkt_state *state)
{
	if (pos[0] == PTD_OPC_EXT)
		return ptd_pkt_decode_ext(pos, end, config, pkt, state);
	return ptd_pkt_decode(pos, end, config, pkt, state);
}

/* The packets a step's tables leave out that come in every PSB+ (PSB,
 * PSBEND, PIP, VMCS, CBR, MODE) and TNT-64 and OVF, decoded at @pos into
 * @pkt here, as ptd_pkt_decode() does, without the general decoder's call
 * and dispatch.  Returns the size, or 0 if the general decoder must take
 * the packet.  No PEBS block is open here, and at least 16 bytes follow
 * @pos (the chunk's tail). */
static inline int ptd_rare(struct pt_packet *pkt, const uint8_t *pos)
{
	uint64_t w;

	if (pos[0] == PTD_OPC_MODE)
		return ptd_pkt_mode(pkt, pos[1]) < 0 ? 0 : PTD_PS_MODE;
	if (pos[0] != PTD_OPC_EXT)
		return 0;
	memcpy(&w, pos + 2, sizeof(w));
	switch (pos[1]) {
	case PTD_EXT_PSBEND:
		pkt->type = ppt_psbend;
		pkt->size = PTD_PS_PSBEND;
		return PTD_PS_PSBEND;
	case PTD_EXT_OVF:
		pkt->type = ppt_ovf;
		pkt->size = PTD_PS_OVF;
		return PTD_PS_OVF;
	case PTD_EXT_CBR:
		pkt->type = ppt_cbr;
		pkt->size = PTD_PS_CBR;
		pkt->payload.cbr.ratio = pos[2];
		return PTD_PS_CBR;
	case PTD_EXT_PIP:
		return ptd_pkt_pip(pkt, w & ((UINT64_C(1) << 48) - 1));
	case PTD_EXT_VMCS:
		pkt->type = ppt_vmcs;
		pkt->size = PTD_PS_VMCS;
		pkt->payload.vmcs.base = (w & ((UINT64_C(1) << 40) - 1)) << 12;
		return PTD_PS_VMCS;
	case PTD_EXT_TNT64:
		w &= (UINT64_C(1) << 48) - 1;
		if (ptd_pkt_tnt(pkt, w) < 0)
			return 0;
		pkt->type = ppt_tnt_64;
		pkt->size = PTD_PS_TNT64;
		return PTD_PS_TNT64;
	case PTD_EXT_PSB: {
		/* Eight 02 82 pairs. */
		const __m128i psb = _mm_set1_epi16((short)0x8202);
		__m128i v = _mm_loadu_si128((const __m128i *)pos);

		if (_mm_movemask_epi8(_mm_cmpeq_epi8(v, psb)) != 0xffff)
			return 0;
		pkt->type = ppt_psb;
		pkt->size = PTD_PS_PSB;
		return PTD_PS_PSB;
	}
	default:
		return 0;
	}
}

/* A step's result when the caller's loop must take over at chunk + (value &
 * ~PTD_STOP); larger than any position. */
#define PTD_STOP ((size_t)0x8000)

/* One step from packet position @p of @chunk (see the top of this file):
 * writes the packets to *@out (and their offsets to *@offs if
 * @want_offsets), advances both, and returns the position of the next
 * packet, or PTD_STOP | position where the caller must decode.  (Positions
 * are size_t so that they need no conversions in address arithmetic.) */
PTD_AVX2 static inline __attribute__((always_inline)) size_t
ptd_step(const uint8_t *chunk, size_t p, const uint8_t *next,
         const uint8_t *run, struct pt_packet **out, uint64_t **offs,
         struct ptd_pkt_batch *b, int want_offsets)
{
	const uint8_t *at = chunk + p;
	struct pt_packet *o = *out;
	size_t r = run[p], q = p + r, to = next[p];

	for (int k = 0; k < PTD_RUN; ++k)
		ptd_put1(o + k, at + k);
	if (want_offsets) {
		const uint64_t off = (uint64_t)(at - b->begin);
		const __m256i iota = _mm256_setr_epi64x(0, 1, 2, 3);

		for (int k = 0; k < PTD_RUN; k += 4)
			_mm256_storeu_si256(
			        (__m256i *)(*offs + k),
			        _mm256_add_epi64(_mm256_set1_epi64x(
			                                 (long long)(off + k)),
			                         iota));
		(*offs)[r] = off + r;
	}
	if (__builtin_expect(to == q, 0)) {
		/* Not a frequent kind: a PSB+ packet, or the general
		 * decoder. */
		int size = ptd_rare(o + r, chunk + q);

		if (size) {
			to = q + (size_t)size;
			goto done;
		}
		size = ptd_general(chunk + q, b->end, b->config, o + r,
		                   b->state);
		if (size <= 0 || b->state->bip_size) {
			/* An error, a zero-size unknown packet or a PEBS
			 * block: the caller's loop takes over. */
			if (size > 0) {
				q += (size_t)size;
				++r;
			}
			*out = o + r;
			return PTD_STOP | q;
		}
		to = q + (size_t)size;
	} else {
		ptd_put(o + r, chunk + q);
	}
done:
	*out = o + r + 1;
	if (want_offsets)
		*offs += r + 1;
	return to;
}

/* The loop; @want_offsets and @want_skd007 are constants at each call, and
 * the function is always inlined, so that the compiler makes a copy for
 * each combination. */
PTD_AVX2 static inline __attribute__((always_inline)) const uint8_t *
ptd_batch_avx2(const uint8_t *pos, struct ptd_pkt_batch *b, int want_offsets,
               int want_skd007)
{
	uint8_t next[PTD_CHUNK];
	uint8_t run[PTD_CHUNK];
	const __m256i skd007 =
	        want_skd007 ? _mm256_set1_epi8(-1) : _mm256_setzero_si256();
	const __m256i x9 = PTD_K(x9_by_high);
	const uint8_t *const end = b->end;
	/* Room for a step: PTD_RUN + 1 images and the spill of the last. */
	struct pt_packet *const last = b->packets + b->count - (PTD_RUN + 1);
	struct pt_packet *out = b->packets + b->n;
	uint64_t *offs = want_offsets ? b->offsets + b->n : NULL;
	const uint8_t *chunk = pos;
	struct ptd_block blk0, blk1;
	size_t p = 0;
	int fresh = 1;

	while (end - chunk >= PTD_CHUNK + PTD_CHUNK_TAIL && out < last) {
		/* The first two blocks of a chunk are the two blocks after
		 * the previous chunk, unless the chunk starts afresh.  Each
		 * block's steps need the block after it; computing two blocks
		 * ahead lets the processor work on one block while it
		 * finishes the steps of another. */
		if (fresh) {
			blk0 = ptd_block(chunk, skd007, x9);
			blk1 = ptd_block(chunk + 32, skd007, x9);
		}
		for (unsigned off = 0; off < PTD_CHUNK; off += 32) {
			struct ptd_block blk2 =
			        ptd_block(chunk + off + 64, skd007, x9);

			ptd_block_steps(blk0, blk1, off, next, run);
			blk0 = blk1;
			blk1 = blk2;
		}

		/* A chunk's steps write at most PTD_CHUNK + PTD_RUN + 1
		 * packets (each step writes at most as many packets as it
		 * moves on by bytes, and the last one PTD_RUN + 1): while
		 * there is that much room, the steps need not check it. */
		if (last - out > PTD_CHUNK + PTD_RUN) {
			while (p < PTD_CHUNK)
				p = ptd_step(chunk, p, next, run, &out, &offs,
				             b, want_offsets);
		} else {
			while (p < PTD_CHUNK && out < last)
				p = ptd_step(chunk, p, next, run, &out, &offs,
				             b, want_offsets);
		}
		if (p & PTD_STOP) {
			b->stop = 1;
			chunk += p & ~PTD_STOP;
			p = 0;
			break;
		}
		if (p < PTD_CHUNK)
			break;
		/* The next chunk follows this one, unless the general decoder
		 * took a packet longer than a chunk. */
		fresh = p >= 2 * PTD_CHUNK;
		if (fresh) {
			chunk += p;
			p = 0;
		} else {
			chunk += PTD_CHUNK;
			p -= PTD_CHUNK;
		}
	}
	b->n = (size_t)(out - b->packets);
	return chunk + p;
}

/* The four copies of the loop: with and without offsets, with and without
 * the SKD007 check (without it, the compiler drops its instructions). */
PTD_AVX2 static const uint8_t *ptd_batch_avx2_offsets(const uint8_t *pos,
                                                      struct ptd_pkt_batch *b)
{
	return ptd_batch_avx2(pos, b, 1, 0);
}

PTD_AVX2 static const uint8_t *ptd_batch_avx2_plain(const uint8_t *pos,
                                                    struct ptd_pkt_batch *b)
{
	return ptd_batch_avx2(pos, b, 0, 0);
}

PTD_AVX2 static const uint8_t *
ptd_batch_avx2_offsets_skd007(const uint8_t *pos, struct ptd_pkt_batch *b)
{
	return ptd_batch_avx2(pos, b, 1, 1);
}

PTD_AVX2 static const uint8_t *
ptd_batch_avx2_plain_skd007(const uint8_t *pos, struct ptd_pkt_batch *b)
{
	return ptd_batch_avx2(pos, b, 0, 1);
}

const uint8_t *ptd_pkt_batch_avx2(const uint8_t *pos, struct ptd_pkt_batch *b)
{
	if (b->state->bip_size) {
		b->stop = 1;
		return pos;
	}
	/* Not for a few packets or bytes: the first chunk costs as much as
	 * decoding a few dozen packets with the portable loop. */
	if (b->count - b->n < PTD_MIN_PACKETS ||
	    b->end - pos < PTD_CHUNK + PTD_CHUNK_TAIL + PTD_MIN_BYTES)
		return pos;
	if (b->config->errata.skd007) {
		if (b->offsets)
			return ptd_batch_avx2_offsets_skd007(pos, b);
		return ptd_batch_avx2_plain_skd007(pos, b);
	}
	if (b->offsets)
		return ptd_batch_avx2_offsets(pos, b);
	return ptd_batch_avx2_plain(pos, b);
}

#endif /* PTD_PKT_BATCH_AVX2 */
