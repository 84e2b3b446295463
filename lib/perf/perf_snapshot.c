/* SPDX-License-Identifier: BSD-3-Clause */
/* The trace of snapshot recordings (`perf record -S`) without the bytes
 * that one snapshot repeats of the one before.
 *
 * In snapshot mode the kernel's AUX area is a ring that the trace keeps
 * overwriting, and each snapshot copies what the ring holds then, oldest
 * byte first.  Unless the ring wrapped around between two snapshots, the
 * later one starts with trace the earlier one already has.  To find where
 * the earlier snapshot ends in the later one, this reader looks for the
 * earlier one's last PSB, with everything after it (its last PSB+ with its
 * TSC, and the packets up to the end, less the zero bytes of perf's padding),
 * in the later one: the new trace starts right after it.  When the later
 * snapshot starts after that PSB, the earlier one's end must be the later
 * one's beginning: the longest such overlap of at least ptd_snap_min bytes
 * counts (shorter ones are too likely to be repeated packets by chance).
 * Otherwise the two do not overlap: the ring wrapped, and trace between them
 * is lost.  The stream then has an OVF packet (02 f3) there, as the processor
 * writes one where it lost packets, and goes on at the later snapshot's
 * first PSB (the bytes before it continue packets that are lost). */
/* (memmem(): glibc and musl have it, POSIX.1-2024 names it.) */
#define _GNU_SOURCE

#include "perf_int.h"

#include "packet/pkt_sync.h"

#include <stdlib.h>
#include <string.h>

enum {
	/* A PSB: 02 82 repeated 8 times. */
	ptd_snap_psb_size = 16,
	/* The least overlap without a PSB in it that counts. */
	ptd_snap_min = 64,
	/* The most zero bytes of padding perf adds to a buffer. */
	ptd_snap_pad = 7,
	/* The longest overlap without a PSB looked for. */
	ptd_snap_tail = 4096,
	/* The room snap_suffix_prefix() needs. */
	ptd_snap_limit = ptd_snap_tail + ptd_snap_psb_size,
	/* The least tail after the earlier snapshot's last PSB looked for. */
	ptd_snap_chunk = 32
};

/* The offset of the last PSB that lies whole in @buf[0..@n), or @n if there
 * is none (the packet layer's search, which the decoders use). */
static uint64_t snap_last_psb(const uint8_t *buf, uint64_t n)
{
	const uint8_t *psb = ptd_sync_backward(buf + n, buf, buf + n);

	return psb ? (uint64_t)(psb - buf) : n;
}

/* The first offset where @needle[0..@k) occurs in @hay[0..@n), or @n (in
 * linear time: a buffer can be megabytes). */
static uint64_t snap_find(const uint8_t *hay, uint64_t n, const uint8_t *needle,
                          uint64_t k)
{
	const uint8_t *p;

	if (!k || k > n)
		return n;
	p = memmem(hay, (size_t)n, needle, (size_t)k);
	return p ? (uint64_t)(p - hay) : n;
}

/* The longest k <= @m with @tail[@n - k, @n) == @pat[0, k) (@n, @m <=
 * ptd_snap_limit), in linear time (Knuth-Morris-Pratt: @pat's borders,
 * then @tail run through them). */
static uint64_t snap_suffix_prefix(const uint8_t *tail, uint64_t n,
                                   const uint8_t *pat, uint64_t m)
{
	uint16_t border[ptd_snap_limit];
	uint64_t k = 0;

	if (!m)
		return 0;
	border[0] = 0;
	for (uint64_t i = 1; i < m; ++i) {
		while (k && pat[i] != pat[k])
			k = border[k - 1];
		if (pat[i] == pat[k])
			k += 1;
		border[i] = (uint16_t)k;
	}
	k = 0;
	for (uint64_t i = 0; i < n; ++i) {
		while (k && (k == m || tail[i] != pat[k]))
			k = border[k - 1];
		if (k < m && tail[i] == pat[k])
			k += 1;
	}
	return k;
}

uint64_t ptd_perf_snapshot_overlap(const uint8_t *prev, uint64_t prev_size,
                                   const uint8_t *cur, uint64_t cur_size,
                                   uint64_t *prev_end, uint64_t *first_psb)
{
	uint64_t psb, last, end = prev_size, at, first, limit, k;
	const uint8_t *cur_psb;

	/* perf's padding is no trace: the later snapshot need not have it. */
	for (unsigned i = 0; i < ptd_snap_pad && end && !prev[end - 1]; ++i)
		end -= 1;
	*prev_end = end;
	cur_psb = ptd_sync_forward(cur, cur, cur + cur_size);
	first = cur_psb ? (uint64_t)(cur_psb - cur) : cur_size;
	*first_psb = first;
	if (!end || !cur_size)
		return 0;

	/* The earlier snapshot's last PSB and what follows, in the later:
	 * from a PSB with at least ptd_snap_chunk bytes from it to the end
	 * (its TSC among them), so that the search does not stop at the
	 * later snapshot's first PSB by itself. */
	last = psb = snap_last_psb(prev, end);
	while (psb < end && end - psb < ptd_snap_chunk) {
		uint64_t before = snap_last_psb(prev, psb);

		/* (None before it: snap_last_psb() gives its end, @psb.) */
		if (before >= psb)
			break;
		psb = before;
	}
	if (psb < end && end - psb >= ptd_snap_chunk) {
		at = snap_find(cur, cur_size, prev + psb, end - psb);
		if (at < cur_size)
			return at + (end - psb);
	}

	/* The later snapshot starts after the earlier one's last PSB (or the
	 * earlier has none): the earlier one's end is the later one's start,
	 * up to the later one's first PSB and at most the first 15 bytes of
	 * it (the earlier one may end inside it), and at most ptd_snap_tail
	 * bytes (longer overlaps have a PSB in them unless the PSB period is
	 * longer). */
	limit = end - (last < end ? last + 1 : 0);
	if (first < cur_size && limit > first + ptd_snap_psb_size - 1)
		limit = first + ptd_snap_psb_size - 1;
	if (limit > cur_size)
		limit = cur_size;
	if (limit > ptd_snap_tail)
		limit = ptd_snap_tail;
	k = snap_suffix_prefix(prev + end - limit, limit, cur, limit);
	return k >= ptd_snap_min ? k : 0;
}

int ptd_perf_snapshot_streams(struct ptd_perf *perf)
{
	uint64_t total = 0, at = 0;

	/* (Room for an OVF per buffer.) */
	for (size_t s = 0; s < perf->num_streams; ++s)
		total += perf->streams[s].size +
		         2 * perf->streams[s].num_buffers;
	perf->snap_trace = malloc(total ? (size_t)total : 1);
	if (!perf->snap_trace)
		return -pte_nomem;
	for (size_t s = 0; s < perf->num_streams; ++s) {
		struct ptd_perf_stream *st = &perf->streams[s];
		const struct ptd_perf_buffer *prev = NULL;
		/* Where the bytes taken from @prev began in it. */
		uint64_t start = at, prev_from = 0;

		for (size_t i = 0; i < perf->num_buffers; ++i) {
			const struct ptd_perf_buffer *b = &perf->buffers[i];
			uint64_t skip = 0, prev_end = 0, first = 0;

			if (b->idx != st->idx)
				continue;
			if (prev) {
				skip = ptd_perf_snapshot_overlap(
				        prev->data, prev->size, b->data,
				        b->size, &prev_end, &first);
				/* This buffer goes on where the one before
				 * ends, less its padding (which may lie inside
				 * a packet that this one finishes). */
				if (skip) {
					uint64_t pad = prev->size - prev_end;

					/* (Only as far as @prev's bytes were
					 * taken: a repeated one was not.) */
					if (pad > prev->size - prev_from)
						pad = prev->size - prev_from;
					at -= pad;
					st->repeated += skip;
				} else {
					/* Trace was lost between them: an OVF
					 * says so, and the decoders go on at
					 * this one's first PSB. */
					perf->snap_trace[at++] = 0x02;
					perf->snap_trace[at++] = 0xf3;
					st->gaps += 1;
					skip = first;
				}
			}
			memcpy(perf->snap_trace + at, b->data + skip,
			       (size_t)(b->size - skip));
			at += b->size - skip;
			prev = b;
			prev_from = skip;
		}
		st->data = perf->snap_trace + start;
		st->size = at - start;
	}
	return 0;
}
