/* SPDX-License-Identifier: BSD-3-Clause */
/* Finding PSB packets.
 *
 * A PSB is 16 bytes of the pattern 02 82.  Whatever its alignment, a PSB
 * fully contains the 8-byte-aligned word that starts at most 7 bytes after
 * it, and that word reads 02 82 02 82 ... or 82 02 82 02 ....  So we test
 * one aligned word per 8 bytes and look closer only where a word matches.
 *
 * The bytes before a PSB may continue its pattern (a payload that happens to
 * end in 02 82, say), so a run of the pattern can be longer than 16 bytes.
 * The packet after a PSB never continues it, so the PSB is the last 16 bytes
 * of the run: that is where we synchronize, as libipt does. */
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

/* The PSB that owns the pattern around @p: the last 16 bytes of the run of
 * 02 82 pairs through @p, or NULL if that run is shorter than a PSB. */
static const uint8_t *ptd_run_psb(const uint8_t *p, const uint8_t *begin,
                                  const uint8_t *end)
{
	const uint8_t *q = (*p == 0x02) ? p : p + 1;
	const uint8_t *psb;

	while (end - q >= 2 && q[0] == 0x02 && q[1] == PTD_EXT_PSB)
		q += 2;
	if (q - begin < PTD_PS_PSB)
		return NULL;
	psb = q - PTD_PS_PSB;
	return memcmp(psb, ptd_psb_bytes, PTD_PS_PSB) == 0 ? psb : NULL;
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
		const uint8_t *psb;

		if (!ptd_psb_word(a))
			continue;
		psb = ptd_run_psb(a, begin, end);
		if (psb && psb >= from)
			return psb;
	}
	return NULL;
}

const uint8_t *ptd_sync_next(const uint8_t *pos, const uint8_t *sync,
                             const uint8_t *begin, const uint8_t *end)
{
	if (pos == sync)
		pos += (end - pos < PTD_PS_PSB) ? end - pos : PTD_PS_PSB;
	pos -= (pos - begin < PTD_PS_PSB) ? pos - begin : PTD_PS_PSB - 1;
	return ptd_sync_forward(pos, begin, end);
}

const uint8_t *ptd_sync_backward(const uint8_t *before, const uint8_t *begin,
                                 const uint8_t *end)
{
	ptrdiff_t room;

	if (!before || before <= begin || end - begin < PTD_PS_PSB)
		return NULL;
	if (before > end)
		before = end;

	/* A PSB before @before owns an aligned word that starts before
	 * before + 7 and lies inside the buffer; look at those from the last
	 * one down. */
	room = (before + 6) - begin;
	if (room > (end - begin) - 8)
		room = (end - begin) - 8;
	room -= (ptrdiff_t)(((uintptr_t)(begin + room)) & 7);

	for (; room >= 0; room -= 8) {
		const uint8_t *psb;

		if (!ptd_psb_word(begin + room))
			continue;
		psb = ptd_run_psb(begin + room, begin, end);
		if (psb && psb < before)
			return psb;
	}
	return NULL;
}

int ptd_sync_at(const uint8_t *pos, const uint8_t *end)
{
	if (end - pos < 2)
		return -pte_eos;
	if (!ptd_sync_opcode_at(pos, end))
		return -pte_nosync;
	if (end - pos < 16)
		return -pte_eos;
	for (int i = 2; i < 16; i += 2)
		if (!ptd_sync_opcode_at(pos + i, end))
			return -pte_bad_packet;
	return 0;
}

int ptd_sync_opcode_at(const uint8_t *pos, const uint8_t *end)
{
	return end - pos >= 2 && pos[0] == PTD_OPC_EXT && pos[1] == PTD_EXT_PSB;
}
