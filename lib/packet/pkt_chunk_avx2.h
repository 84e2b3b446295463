/* SPDX-License-Identifier: BSD-3-Clause */
/* The chunk tables of the AVX2 packet walks (pkt_batch_avx2.c, which
 * explains them at its top, and pkt_skip_avx2.c): for every byte position
 * of a chunk, as if a packet started there, the size of the packet if it
 * is one of the frequent kinds, and from there the position after the run
 * of one-byte packets and the packet that ends it.  Include only from files
 * compiled for x86 with gcc or clang (PTD_PKT_BATCH_AVX2). */
#ifndef PTD_PKT_CHUNK_AVX2_H
#define PTD_PKT_CHUNK_AVX2_H

#include "pkt_batch.h"

#include <immintrin.h>

#define PTD_AVX2 __attribute__((target("avx2")))

enum {
	/* One-byte packet images written per step.  More means fewer steps
	 * on streams with long runs of PAD and TNT-8 and more wasted stores
	 * on the others; 4 is best on the corpus traces. */
	PTD_RUN = 4,
	/* Positions per chunk; positions are bytes, and the largest value
	 * stored, PTD_CHUNK - 1 + PTD_RUN + 9 (a step from the chunk's last
	 * position), must stay below 256. */
	PTD_CHUNK = 128,
	/* Bytes that must follow a chunk: the two 32-byte blocks after it
	 * (the steps near the chunk's end depend on the first; the batch
	 * loop computes the second ahead), read up to one byte further (the
	 * second byte of a CYC).  (The skip walk reads only the first block
	 * and its one byte, but keeps the same margin.) */
	PTD_CHUNK_TAIL = 65
};

_Static_assert(PTD_CHUNK % 32 == 0 && PTD_CHUNK - 1 + PTD_RUN + 9 < 256,
               "chunk positions fit into bytes");

/* The vector constants, in memory: most instructions take them as an
 * operand, while constants built in registers would be rebuilt inside the
 * loops for want of registers.  Tables for vpshufb repeat in both lanes. */
struct ptd_consts {
	/* By the low nibble of an opcode: 1 for one-byte packets (even
	 * opcodes: PAD and TNT-8; xxxx_x011: CYC), 2 for CYC with the
	 * extension bit (xxxx_x111: two bytes if the second byte ends it),
	 * 0x80 for the IP packets (xxx0_0001 TIP.PGD, xxx1_0001 TIP.PGE,
	 * xxx0_1101 TIP, xxx1_1101 FUP), 0x40 for xxxx_1001 (TSC, MTC, MODE,
	 * TRIG, unknown), 0 for the rest (unknown).  The 0x02 escape is
	 * handled apart. */
	_Alignas(32) uint8_t by_low[32];
	/* By the high nibble: the size of an IP packet (by the IP compression
	 * in bits 7:5; 0 if reserved), and of a xxxx_1001 packet (0x19 TSC,
	 * 0x59 MTC; 0 for the others). */
	_Alignas(32) uint8_t ip_by_high[32];
	_Alignas(32) uint8_t x9_by_high[32];
	_Alignas(32) uint8_t iota[32];
	/* The first position of each lane. */
	_Alignas(32) uint8_t lane_base[32];
};

static const struct ptd_consts ptd_k = {
        .by_low = {1, 0x80, 1, 1, 1, 0, 1, 2, 1, 0x40, 1, 1, 1, 0x80, 1, 2,
                   1, 0x80, 1, 1, 1, 0, 1, 2, 1, 0x40, 1, 1, 1, 0x80, 1, 2},
        .ip_by_high = {1, 1, 3, 3, 5, 5, 7, 7, 7, 7, 0, 0, 9, 9, 0, 0,
                       1, 1, 3, 3, 5, 5, 7, 7, 7, 7, 0, 0, 9, 9, 0, 0},
        .x9_by_high = {0, 8, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 8, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        .iota = {0,    1,    2,    3,    4,    5,    6,    7,
                 8,    9,    0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
                 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
                 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f},
        .lane_base = {0,    0,    0,    0,    0,    0,    0,    0,
                      0,    0,    0,    0,    0,    0,    0,    0,
                      0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10,
                      0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10},
};

#define PTD_K(name) _mm256_load_si256((const __m256i *)ptd_k.name)

/* The sizes of the packets that would start at each of the 32 bytes at @p
 * (0: not a frequent kind).  @x9 gives the sizes of the xxxx_1001 packets
 * by high nibble: PTD_K(x9_by_high) for TSC and MTC, zero to leave them
 * out (as if not frequent).  Reads p[0..32].  @skd007 is all ones when the
 * SKD007 erratum applies: then a two-byte CYC whose second byte is 0x02 may
 * be an OVF in disguise and goes to the general decoder. */
PTD_AVX2 static inline __m256i ptd_sizes(const uint8_t *p, __m256i skd007,
                                         __m256i x9)
{
	const __m256i nibble = _mm256_set1_epi8(0x0f);
	const __m256i ext = _mm256_set1_epi8(PTD_OPC_EXT);
	const __m256i b = _mm256_loadu_si256((const __m256i *)p);
	const __m256i b1 = _mm256_loadu_si256((const __m256i *)(p + 1));
	__m256i cls, size, bad;

	cls = _mm256_shuffle_epi8(PTD_K(by_low), _mm256_and_si256(b, nibble));
	/* The high nibble (the shift moves bits between the bytes of a
	 * word; the mask drops them). */
	bad = _mm256_and_si256(_mm256_srli_epi16(b, 4), nibble);
	/* vpblendvb selects by the top bit: 0x40 doubled for xxxx_1001,
	 * 0x80 for the IP packets. */
	size = _mm256_blendv_epi8(cls, _mm256_shuffle_epi8(x9, bad),
	                          _mm256_add_epi8(cls, cls));
	size = _mm256_blendv_epi8(
	        size, _mm256_shuffle_epi8(PTD_K(ip_by_high), bad), cls);
	size = _mm256_andnot_si256(_mm256_cmpeq_epi8(b, ext), size);
	/* A CYC with the extension bit is two bytes long if the second byte
	 * has bit 0 clear (bit 0 moved to the top bit of each byte). */
	bad = _mm256_or_si256(
	        _mm256_slli_epi16(b1, 7),
	        _mm256_and_si256(skd007, _mm256_cmpeq_epi8(b1, ext)));
	bad = _mm256_and_si256(bad,
	                       _mm256_cmpeq_epi8(cls, _mm256_set1_epi8(2)));
	return _mm256_blendv_epi8(size, _mm256_setzero_si256(), bad);
}

/* What ptd_block() finds in 32 bytes, as block-relative positions x:
 * first[x], the first position in x .. x + PTD_RUN and in x's 16-byte lane
 * that is not a one-byte packet (0xff if none), and end[x] = x + size[x].
 * (Where x + PTD_RUN reaches into the next lane, the first[] of that lane's
 * first position covers the rest; positions beyond x + PTD_RUN do not
 * matter, as a step's run is capped there.) */
struct ptd_block {
	__m256i first, end;
};

PTD_AVX2 static inline struct ptd_block ptd_block(const uint8_t *p,
                                                  __m256i skd007, __m256i x9)
{
	const __m256i ones = _mm256_set1_epi8(-1);
	const __m256i size = ptd_sizes(p, skd007, x9);
	struct ptd_block blk;
	__m256i val, first;

	/* The minimum of (one-byte ? 0xff : x) over x .. x + PTD_RUN in
	 * three shifts: a step looks no further. */
	_Static_assert(PTD_RUN == 4, "the window below is five positions");
	val = _mm256_or_si256(PTD_K(iota),
	                      _mm256_cmpeq_epi8(size, _mm256_set1_epi8(1)));
	first = _mm256_min_epu8(val, _mm256_alignr_epi8(ones, val, 1));
	first = _mm256_min_epu8(first, _mm256_alignr_epi8(ones, first, 2));
	first = _mm256_min_epu8(first, _mm256_alignr_epi8(ones, val, 4));
	blk.first = first;
	blk.end = _mm256_add_epi8(PTD_K(iota), size);
	return blk;
}

/* Store next[] and run[] (see the top of pkt_batch_avx2.c) of the 32
 * positions of block @cur at @off of the chunk; @after is the block that
 * follows it.  A position's run may reach into the following 16-byte lane:
 * each lane needs the first entry of that lane's first[] and the end[]
 * values there. */
PTD_AVX2 static inline void ptd_block_steps(struct ptd_block cur,
                                            struct ptd_block after,
                                            unsigned off, uint8_t *next,
                                            uint8_t *run)
{
	const __m256i b32 = _mm256_set1_epi8(32);
	__m256i follow, first, q, idx, here, there;

	/* The following lanes: cur's high lane, and after's low lane moved
	 * to cur's positions (0xff stays 0xff). */
	follow = _mm256_permute2x128_si256(
	        cur.first, _mm256_adds_epu8(after.first, b32), 0x21);
	first = _mm256_min_epu8(
	        cur.first, _mm256_shuffle_epi8(follow, _mm256_setzero_si256()));
	/* q[x]: where the step from x ends its run. */
	q = _mm256_min_epu8(
	        first, _mm256_add_epi8(PTD_K(iota), _mm256_set1_epi8(PTD_RUN)));

	/* next[x] = end[q[x]]; q[x] lies in x's lane or the following one,
	 * at lane offset idx < 16 + PTD_RUN. */
	follow = _mm256_permute2x128_si256(
	        cur.end, _mm256_add_epi8(after.end, b32), 0x21);
	idx = _mm256_sub_epi8(q, PTD_K(lane_base));
	here = _mm256_shuffle_epi8(cur.end, idx);
	there = _mm256_shuffle_epi8(follow, idx);
	here = _mm256_blendv_epi8(here, there,
	                          _mm256_cmpgt_epi8(idx, _mm256_set1_epi8(15)));

	_mm256_storeu_si256((__m256i *)(next + off),
	                    _mm256_add_epi8(here, _mm256_set1_epi8((char)off)));
	_mm256_storeu_si256((__m256i *)(run + off),
	                    _mm256_sub_epi8(q, PTD_K(iota)));
}

#endif /* PTD_PKT_CHUNK_AVX2_H */
