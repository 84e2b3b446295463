/* SPDX-License-Identifier: BSD-3-Clause */
/* Finding PSB packets.
 *
 * A PSB is 16 bytes of the pattern 02 82.  Whatever its alignment, a PSB
 * fully contains the 8-byte-aligned word that starts at most 7 bytes after
 * it, and that word reads 02 82 02 82 ... or 82 02 82 02 ....  So we test
 * one aligned word per 8 bytes and look closer only where a word matches:
 * the PSB that owns a matching word at @a starts in [a - 7, a]. */
#include "pkt_sync.h"

#include "pkt_format.h"

#include <stddef.h>
#include <string.h>

static const uint8_t ptd_psb_bytes[PTD_PS_PSB] = {
    0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
    0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82};

/* The aligned word inside a PSB, in either phase, read little-endian. */
#define PTD_PSB_WORD_EVEN UINT64_C(0x8202820282028202)
#define PTD_PSB_WORD_ODD UINT64_C(0x0282028202820282)

static int ptd_is_psb(const uint8_t *p, const uint8_t *end)
{
	return end - p >= PTD_PS_PSB &&
	       memcmp(p, ptd_psb_bytes, PTD_PS_PSB) == 0;
}

static int ptd_psb_word(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w == PTD_PSB_WORD_EVEN || w == PTD_PSB_WORD_ODD;
}

/* Offset of the first 8-aligned address at or after @p, relative to @p. */
static size_t ptd_align_up(const uint8_t *p)
{
	return (size_t)((8 - ((uintptr_t)p & 7)) & 7);
}

const uint8_t *ptd_sync_forward(const uint8_t *from, const uint8_t *begin,
                                const uint8_t *end)
{
	const uint8_t *a;

	if (!from || from < begin || end - from < PTD_PS_PSB)
		return NULL;

	for (a = from + ptd_align_up(from); end - a >= 8; a += 8) {
		const uint8_t *q;

		if (!ptd_psb_word(a))
			continue;
		q = (a - from >= 7) ? a - 7 : from;
		for (; q <= a; ++q) {
			if (ptd_is_psb(q, end))
				return q;
		}
	}
	return NULL;
}

const uint8_t *ptd_sync_backward(const uint8_t *before, const uint8_t *begin,
                                 const uint8_t *end)
{
	const uint8_t *a, *last;
	ptrdiff_t room;

	if (!before || before <= begin || end - begin < PTD_PS_PSB)
		return NULL;
	if (before > end)
		before = end;

	/* The aligned word of a PSB at s lies in [s, s + 7]: start at the
	 * last aligned word that a PSB before @before can own and that lies
	 * inside the buffer. */
	last = before + 6;
	if (end - last < 8)
		last = end - 8;
	a = last - (((uintptr_t)last) & 7);

	for (room = a - begin; room >= 0; room -= 8) {
		const uint8_t *q, *low;

		a = begin + room;
		if (!ptd_psb_word(a))
			continue;
		q = (a < before) ? a : before - 1;
		low = (room >= 7) ? a - 7 : begin;
		for (;; --q) {
			if (ptd_is_psb(q, end))
				return q;
			if (q == low)
				break;
		}
	}
	return NULL;
}
