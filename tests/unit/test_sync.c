/* SPDX-License-Identifier: BSD-3-Clause */
/* Synchronization: pt_pkt_sync_forward(), pt_pkt_sync_backward(),
 * pt_pkt_sync_set() and the offset queries.
 *
 * The PSB search reads aligned 8-byte words, so the buffers here start at
 * every address alignment 0..15 and hold PSBs at every position 0..15.  The
 * trace always ends exactly at the end of a heap allocation so that
 * AddressSanitizer reports any read past it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const uint8_t psb[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                                0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82};

/* A trace of @size bytes that starts @align bytes into its allocation (so
 * at that address alignment, as malloc returns 16-byte aligned memory) and
 * ends at the allocation's end. */
struct trace {
	uint8_t *alloc;
	uint8_t *buf;
	size_t size;
};

static void trace_init(struct trace *t, size_t align, size_t size, uint8_t fill)
{
	t->alloc = malloc(align + size + 1);
	assert_non_null(t->alloc);
	t->buf = t->alloc + align;
	t->size = size;
	memset(t->buf, fill, size);
}

static void trace_fini(struct trace *t)
{
	free(t->alloc);
}

/* Allocate a decoder for @t, after shrinking the allocation so that the
 * trace ends exactly at its end. */
static struct pt_packet_decoder *trace_decoder(struct trace *t)
{
	size_t align = (size_t)(t->buf - t->alloc);
	uint8_t *exact = malloc((align + t->size) ? (align + t->size) : 1);

	assert_non_null(exact);
	memcpy(exact, t->alloc, align + t->size);
	free(t->alloc);
	t->alloc = exact;
	t->buf = exact + align;
	return ptd_t_decoder(t->buf, t->size, NULL);
}

static void expect_sync(struct pt_packet_decoder *decoder, uint64_t want)
{
	uint64_t offset = UINT64_MAX;

	assert_int_equal(pt_pkt_get_sync_offset(decoder, &offset), 0);
	assert_int_equal(offset, want);
	assert_int_equal(pt_pkt_get_offset(decoder, &offset), 0);
	assert_int_equal(offset, want);
}

/* Sync forward and backward onto the PSBs at @at[0..n) of @t, in order,
 * checking that each one decodes as a PSB. */
static void check_psbs(struct trace *t, const size_t *at, size_t n)
{
	struct pt_packet_decoder *decoder = trace_decoder(t);
	struct pt_packet packet;
	size_t i;

	for (i = 0; i < n; ++i) {
		if (pt_pkt_sync_forward(decoder) < 0)
			fail_msg("forward: PSB %zu at %zu not found (align "
			         "%zu, size %zu)",
			         i, at[i], (size_t)(t->buf - t->alloc),
			         t->size);
		expect_sync(decoder, at[i]);
		assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
		                 16);
		assert_int_equal(packet.type, ppt_psb);
	}
	assert_int_equal(pt_pkt_sync_forward(decoder), -pte_eos);
	pt_pkt_free_decoder(decoder);

	decoder = ptd_t_decoder(t->buf, t->size, NULL);
	for (i = n; i-- > 0;) {
		if (pt_pkt_sync_backward(decoder) < 0)
			fail_msg("backward: PSB %zu at %zu not found (align "
			         "%zu, size %zu)",
			         i, at[i], (size_t)(t->buf - t->alloc),
			         t->size);
		expect_sync(decoder, at[i]);
	}
	assert_int_equal(pt_pkt_sync_backward(decoder), -pte_eos);
	pt_pkt_free_decoder(decoder);
}

/* Neither sync_forward nor sync_backward finds a PSB in @t. */
static void check_no_psb(struct trace *t)
{
	struct pt_packet_decoder *decoder = trace_decoder(t);

	assert_int_equal(pt_pkt_sync_forward(decoder), -pte_eos);
	assert_int_equal(pt_pkt_sync_backward(decoder), -pte_eos);
	pt_pkt_free_decoder(decoder);
}

/* One PSB at every position 0..15 of buffers at every alignment 0..15,
 * with tails of several lengths and several fill bytes around it. */
static void test_one_psb_every_alignment(void **state)
{
	static const uint8_t fills[] = {0x00, 0x02, 0x82, 0xff, 0x20};
	static const size_t tails[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 31};
	size_t align, pos, tail, f;

	(void)state;
	for (f = 0; f < ARRAY_SIZE(fills); ++f) {
		for (align = 0; align < 16; ++align) {
			for (pos = 0; pos < 16; ++pos) {
				for (tail = 0; tail < ARRAY_SIZE(tails);
				     ++tail) {
					struct trace t;

					trace_init(&t, align,
					           pos + 16 + tails[tail],
					           fills[f]);
					memcpy(t.buf + pos, psb, 16);
					check_psbs(&t, &pos, 1);
					trace_fini(&t);
				}
			}
		}
	}
}

/* Several PSBs in one buffer, at all alignments. */
static void test_several_psbs(void **state)
{
	static const size_t layouts[][5] = {
	        {0, 17, 34, 51, 68},  /* from the start, one byte apart */
	        {1, 20, 43, 64, 95},  /* odd and even gaps */
	        {7, 24, 41, 58, 75},  /* one byte between each */
	        {15, 40, 65, 90, 99}, /* the last one overlaps and is skipped */
	};
	size_t align, l, i;

	(void)state;
	for (align = 0; align < 16; ++align) {
		for (l = 0; l < ARRAY_SIZE(layouts); ++l) {
			struct trace t;
			size_t n = 0, at[5];

			trace_init(&t, align, 128, 0x00);
			for (i = 0; i < 5; ++i) {
				/* Layout 3's last entry overlaps the one
				 * before: skip it. */
				if (i && layouts[l][i] < at[n - 1] + 16)
					continue;
				at[n++] = layouts[l][i];
				memcpy(t.buf + layouts[l][i], psb, 16);
			}
			check_psbs(&t, at, n);
			trace_fini(&t);
		}
	}
}

/* A PSB cut short by the end of the buffer is not found. */
static void test_psb_straddles_end(void **state)
{
	size_t align, keep, pos;

	(void)state;
	for (align = 0; align < 16; ++align) {
		for (pos = 0; pos < 16; ++pos) {
			for (keep = 1; keep < 16; ++keep) {
				struct trace t;

				trace_init(&t, align, pos + keep, 0x00);
				memcpy(t.buf + pos, psb, keep);
				check_no_psb(&t);

				/* With a complete PSB before it, that one is
				 * found, and only that one. */
				trace_fini(&t);
				trace_init(&t, align, 17 + pos + keep, 0x00);
				memcpy(t.buf, psb, 16);
				memcpy(t.buf + 17 + pos, psb, keep);
				check_psbs(&t, (const size_t[]){0}, 1);
				trace_fini(&t);
			}
		}
	}
}

/* Broken PSBs: one byte changed, too short, the wrong phase. */
static void test_partial_psb_patterns(void **state)
{
	size_t align, flip;

	(void)state;
	for (align = 0; align < 16; ++align) {
		/* Any one byte of a PSB changed, a good PSB after it. */
		for (flip = 0; flip < 16; ++flip) {
			struct trace t;

			trace_init(&t, align, 64, 0x00);
			memcpy(t.buf + 3, psb, 16);
			t.buf[3 + flip] ^= 0x40;
			memcpy(t.buf + 40, psb, 16);
			check_psbs(&t, (const size_t[]){40}, 1);
			trace_fini(&t);
		}
		/* 14 and 15 bytes of the pattern, then something else. */
		for (flip = 14; flip < 16; ++flip) {
			struct trace t;

			trace_init(&t, align, 48, 0x00);
			memcpy(t.buf + 5, psb, flip);
			check_no_psb(&t);
			trace_fini(&t);
		}
		/* The odd phase: 82 02 82 02 ... (15 bytes of pattern from
		 * a 02 82 point of view), then a PSB. */
		{
			struct trace t;

			trace_init(&t, align, 64, 0x00);
			memcpy(t.buf + 2, psb + 1, 15);
			memcpy(t.buf + 33, psb, 16);
			check_psbs(&t, (const size_t[]){33}, 1);
			trace_fini(&t);
		}
		/* Eight bytes of pattern on an aligned word, no PSB. */
		{
			struct trace t;
			size_t at = (16 - align) & 7;

			trace_init(&t, align, 40, 0x00);
			memcpy(t.buf + at, psb, 8);
			memcpy(t.buf + at + 16, psb, 8);
			check_no_psb(&t);
			trace_fini(&t);
		}
	}
}

/* Buffers too short for a PSB. */
static void test_short_buffers(void **state)
{
	size_t align, size;

	(void)state;
	for (align = 0; align < 16; ++align) {
		for (size = 0; size < 16; ++size) {
			struct trace t;
			struct pt_packet_decoder *decoder;
			struct pt_packet packet;
			uint64_t offset;

			trace_init(&t, align, size, 0x02);
			memcpy(t.buf, psb, size);
			decoder = trace_decoder(&t);
			assert_int_equal(pt_pkt_sync_forward(decoder),
			                 -pte_eos);
			assert_int_equal(pt_pkt_sync_backward(decoder),
			                 -pte_eos);
			assert_int_equal(pt_pkt_get_offset(decoder, &offset),
			                 -pte_nosync);
			assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
			/* Nothing, 02, or the start of a PSB: all cut. */
			assert_int_equal(
			        pt_pkt_next(decoder, &packet, sizeof(packet)),
			        -pte_eos);
			pt_pkt_free_decoder(decoder);
			trace_fini(&t);
		}
	}
}

static void test_nosync(void **state)
{
	uint8_t buf[32];
	struct pt_packet_decoder *decoder;
	struct pt_packet packet;
	uint64_t offset = 42;

	(void)state;
	memcpy(buf, psb, 16);
	memset(buf + 16, 0, 16);
	decoder = ptd_t_decoder(buf, sizeof(buf), NULL);
	assert_int_equal(pt_pkt_get_offset(decoder, &offset), -pte_nosync);
	assert_int_equal(pt_pkt_get_sync_offset(decoder, &offset), -pte_nosync);
	assert_int_equal(offset, 42);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
	                 -pte_nosync);

	assert_int_equal(pt_pkt_get_offset(NULL, &offset), -pte_invalid);
	assert_int_equal(pt_pkt_get_offset(decoder, NULL), -pte_invalid);
	assert_int_equal(pt_pkt_get_sync_offset(NULL, &offset), -pte_invalid);
	assert_int_equal(pt_pkt_get_sync_offset(decoder, NULL), -pte_invalid);
	assert_int_equal(pt_pkt_sync_forward(NULL), -pte_invalid);
	assert_int_equal(pt_pkt_sync_backward(NULL), -pte_invalid);
	assert_int_equal(pt_pkt_sync_set(NULL, 0), -pte_invalid);
	assert_int_equal(pt_pkt_next(NULL, &packet, sizeof(packet)),
	                 -pte_invalid);

	assert_int_equal(pt_pkt_sync_forward(decoder), 0);
	assert_int_equal(pt_pkt_next(decoder, NULL, sizeof(packet)),
	                 -pte_invalid);
	expect_sync(decoder, 0);
	pt_pkt_free_decoder(decoder);
}

static void test_sync_set(void **state)
{
	uint8_t *buf;
	uint8_t bytes[40];
	struct pt_packet_decoder *decoder;
	struct pt_packet packet;
	uint64_t offset;

	(void)state;
	memset(bytes, 0, sizeof(bytes));
	memcpy(bytes + 8, psb, 16);
	bytes[30] = 0x02; /* BBP, sz: 4-byte BIPs */
	bytes[31] = 0x63;
	bytes[32] = 0x80;
	bytes[33] = 0x04; /* BIP in the block, TNT-8 outside */
	buf = ptd_t_dup(bytes, sizeof(bytes));
	decoder = ptd_t_decoder(buf, sizeof(bytes), NULL);

	/* Any offset up to the end, whatever the bytes there. */
	for (offset = 0; offset <= sizeof(bytes); ++offset) {
		assert_int_equal(pt_pkt_sync_set(decoder, offset), 0);
		expect_sync(decoder, offset);
	}
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
	                 -pte_eos);
	assert_int_equal(pt_pkt_sync_set(decoder, sizeof(bytes) + 1), -pte_eos);
	assert_int_equal(pt_pkt_sync_set(decoder, UINT64_MAX), -pte_eos);
	assert_int_equal(pt_pkt_sync_set(decoder, UINT64_C(1) << 63), -pte_eos);
	/* A failed sync_set leaves the decoder where it was. */
	expect_sync(decoder, sizeof(bytes));

	/* Decode from a PAD in the middle. */
	assert_int_equal(pt_pkt_sync_set(decoder, 3), 0);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 1);
	assert_int_equal(packet.type, ppt_pad);
	assert_int_equal(pt_pkt_get_offset(decoder, &offset), 0);
	assert_int_equal(offset, 4);
	assert_int_equal(pt_pkt_get_sync_offset(decoder, &offset), 0);
	assert_int_equal(offset, 3);

	/* sync_forward after sync_set finds the next PSB after it. */
	assert_int_equal(pt_pkt_sync_forward(decoder), 0);
	expect_sync(decoder, 8);
	assert_int_equal(pt_pkt_sync_forward(decoder), -pte_eos);
	assert_int_equal(pt_pkt_sync_set(decoder, 8), 0);
	assert_int_equal(pt_pkt_sync_forward(decoder), -pte_eos);

	/* sync_set ends a PEBS block: 0x04 is then a TNT-8. */
	assert_int_equal(pt_pkt_sync_set(decoder, 30), 0);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 3);
	assert_int_equal(packet.type, ppt_bbp);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 5);
	assert_int_equal(packet.type, ppt_bip);
	assert_int_equal(pt_pkt_sync_set(decoder, 30), 0);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 3);
	assert_int_equal(pt_pkt_sync_set(decoder, 33), 0);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 1);
	assert_int_equal(packet.type, ppt_tnt_8);
	assert_int_equal(packet.payload.tnt.bit_size, 1);
	assert_int_equal(packet.payload.tnt.payload, 0);

	pt_pkt_free_decoder(decoder);
	free(buf);
}

/* sync_backward goes to the last PSB before the current position. */
static void test_sync_backward_steps(void **state)
{
	uint8_t bytes[80];
	uint8_t *buf;
	struct pt_packet_decoder *decoder;
	struct pt_packet packet;

	(void)state;
	memset(bytes, 0, sizeof(bytes));
	memcpy(bytes + 4, psb, 16);
	memcpy(bytes + 30, psb, 16);
	memcpy(bytes + 50, psb, 16);
	buf = ptd_t_dup(bytes, sizeof(bytes));
	decoder = ptd_t_decoder(buf, sizeof(bytes), NULL);

	assert_int_equal(pt_pkt_sync_backward(decoder), 0);
	expect_sync(decoder, 50);
	/* After decoding past the PSB, the last one before the position is
	 * that PSB itself. */
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 16);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 1);
	assert_int_equal(pt_pkt_sync_backward(decoder), 0);
	expect_sync(decoder, 50);
	assert_int_equal(pt_pkt_sync_backward(decoder), 0);
	expect_sync(decoder, 30);
	assert_int_equal(pt_pkt_sync_backward(decoder), 0);
	expect_sync(decoder, 4);
	assert_int_equal(pt_pkt_sync_backward(decoder), -pte_eos);
	/* A failed sync leaves the decoder where it was. */
	expect_sync(decoder, 4);
	assert_int_equal(pt_pkt_sync_forward(decoder), 0);
	expect_sync(decoder, 30);

	/* From a sync_set position in the middle of a PSB. */
	assert_int_equal(pt_pkt_sync_set(decoder, 40), 0);
	assert_int_equal(pt_pkt_sync_backward(decoder), 0);
	expect_sync(decoder, 30);
	assert_int_equal(pt_pkt_sync_set(decoder, 31), 0);
	assert_int_equal(pt_pkt_sync_backward(decoder), 0);
	expect_sync(decoder, 30);
	assert_int_equal(pt_pkt_sync_set(decoder, 30), 0);
	assert_int_equal(pt_pkt_sync_backward(decoder), 0);
	expect_sync(decoder, 4);
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	assert_int_equal(pt_pkt_sync_backward(decoder), -pte_eos);

	pt_pkt_free_decoder(decoder);
	free(buf);
}

/* A PSB partly swallowed by a packet decoded from garbage is found by
 * sync_forward although it starts before the current position. */
static void test_sync_forward_straddling(void **state)
{
	uint8_t bytes[64];
	uint8_t *buf;
	struct pt_packet_decoder *decoder;
	struct pt_packet packet;
	uint64_t offset;

	(void)state;
	memset(bytes, 0, sizeof(bytes));
	memcpy(bytes, psb, 16);
	bytes[16] = 0x19; /* TSC: 7 payload bytes, the last 4 of them PSB */
	memcpy(bytes + 20, psb, 16);
	bytes[36] = 0x02; /* PSBEND */
	bytes[37] = 0x23;
	buf = ptd_t_dup(bytes, sizeof(bytes));
	decoder = ptd_t_decoder(buf, sizeof(bytes), NULL);

	assert_int_equal(pt_pkt_sync_forward(decoder), 0);
	expect_sync(decoder, 0);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 16);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 8);
	assert_int_equal(packet.type, ppt_tsc);
	/* 24: 02 82 ... 02 82 02 23 is a broken PSB. */
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
	                 -pte_bad_packet);
	assert_int_equal(pt_pkt_get_offset(decoder, &offset), 0);
	assert_int_equal(offset, 24);
	assert_int_equal(pt_pkt_sync_forward(decoder), 0);
	expect_sync(decoder, 20);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 16);
	assert_int_equal(packet.type, ppt_psb);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 2);
	assert_int_equal(packet.type, ppt_psbend);
	assert_int_equal(pt_pkt_sync_forward(decoder), -pte_eos);

	pt_pkt_free_decoder(decoder);
	free(buf);
}

/* Payload bytes 02 82 right before a PSB extend its pattern backwards.
 * The PSB is the last 16 bytes of the run (the packet after a PSB never
 * continues the pattern): both sync_forward and sync_backward land on it, as
 * libipt 2.0.5 does. */
static void test_sync_forward_psb_run(void **state)
{
	static const uint8_t bytes[] = {
	        0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, /* PSB at 0 */
	        0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, /* */
	        0x3d, 0x02, 0x82,                               /* FUP 0x8202 */
	        0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, /* PSB at 19 */
	        0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, /* */
	        0x02, 0x23,                                     /* PSBEND */
	        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* PADs */
	        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* */
	};
	uint8_t *buf = ptd_t_dup(bytes, sizeof(bytes));
	struct pt_packet_decoder *decoder;
	struct pt_packet packet;
	int pads;

	(void)state;
	/* Decoded from the start, the stream is fine. */
	decoder = ptd_t_decoder(buf, sizeof(bytes), NULL);
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 16);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 3);
	assert_int_equal(packet.type, ppt_fup);
	assert_int_equal(packet.payload.ip.ip, 0x8202);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 16);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 2);
	for (pads = 0; pads < 16; ++pads)
		assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
		                 1);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
	                 -pte_eos);
	pt_pkt_free_decoder(decoder);

	/* Backward from the end finds the PSB at 19. */
	decoder = ptd_t_decoder(buf, sizeof(bytes), NULL);
	assert_int_equal(pt_pkt_sync_backward(decoder), 0);
	expect_sync(decoder, 19);

	/* Forward from the first PSB: the run from 17 ends in the PSB at 19. */
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	assert_int_equal(pt_pkt_sync_forward(decoder), 0);
	expect_sync(decoder, 19);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 16);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 2);
	assert_int_equal(packet.type, ppt_psbend);
	ptd_t_expect_pads(decoder, 16);

	pt_pkt_free_decoder(decoder);
	free(buf);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_one_psb_every_alignment),
	        cmocka_unit_test(test_several_psbs),
	        cmocka_unit_test(test_psb_straddles_end),
	        cmocka_unit_test(test_partial_psb_patterns),
	        cmocka_unit_test(test_short_buffers),
	        cmocka_unit_test(test_nosync),
	        cmocka_unit_test(test_sync_set),
	        cmocka_unit_test(test_sync_backward_steps),
	        cmocka_unit_test(test_sync_forward_straddling),
	        cmocka_unit_test(test_sync_forward_psb_run),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
