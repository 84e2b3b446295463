/* SPDX-License-Identifier: BSD-3-Clause */
/* The AVX2 walk that skips the frequent packets (ptd_pkt_skip_avx2(),
 * lib/packet/pkt_skip_avx2.c), against the packets as they were encoded.
 *
 * Random streams of every packet kind the walk skips and of those it must
 * stop at (MTC, TSC, TMA, PSB+, two-byte CYC with the 0x02 escape as its
 * second byte, longer CYC, MODE, OVF, ...) are encoded with the library's
 * encoder, which also tells each packet's offset.  From every packet start,
 * with fresh tables and with the tables of a walk that goes on through the
 * stream as a scan does, the walk must return the first packet it may not
 * skip, or, near the end of the buffer, a packet start no further than
 * that. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "packet/pkt_batch.h"
#include "test_util.h"

#include <stdlib.h>

#if PTD_PKT_BATCH_AVX2

enum { n_packets = 6000 };

struct skip_stream {
	uint8_t buf[n_packets * 16 + 64];
	size_t size;
	/* Each packet's offset and whether the walk may skip it; the entry
	 * after the last is the end. */
	uint32_t offset[n_packets + 1];
	uint8_t skippable[n_packets + 1];
	size_t n;
};

/* One random packet; @dense: the kinds the walk stops at (MTC and the
 * kinds from TSC on) about as frequent as the others; 0: the kinds from
 * TSC on eight times rarer (as in real traces); -1: none (only PAD, TNT-8
 * and IP packets, no CYC). */
static void random_packet(uint64_t *rng, struct pt_packet *p, int dense)
{
	static const enum pt_ip_compression ipcs[] = {
	        pt_ipc_suppressed, pt_ipc_update_16, pt_ipc_update_32,
	        pt_ipc_update_48,  pt_ipc_sext_48,   pt_ipc_full};
	const uint64_t r = ptd_t_rand64(rng);
	unsigned kind = (unsigned)(r % 100);

	memset(p, 0, sizeof(*p));
	if (dense < 0) {
		kind %= 50;
		if (kind / 10 == 2)
			kind -= 20;
	} else if (!dense && kind >= 60 && (r >> 40) % 8)
		kind %= 50;
	switch (kind / 10) {
	case 0: /* PAD */
		p->type = ppt_pad;
		return;
	case 1: /* TNT-8 */
		p->type = ppt_tnt_8;
		p->payload.tnt.bit_size = (uint8_t)(1 + (r >> 8) % 6);
		p->payload.tnt.payload =
		        (r >> 16) & ((1u << p->payload.tnt.bit_size) - 1);
		return;
	case 2: /* CYC of 1 to 3 bytes, some with 0x02 as the second byte */
		p->type = ppt_cyc;
		switch ((r >> 8) % 4) {
		case 0:
			p->payload.cyc.value = (r >> 16) & 0x1f;
			return;
		case 1:
			p->payload.cyc.value = 0x20 | ((r >> 16) & 0x7ff);
			return;
		case 2:
			/* Second byte 0x02: cycles 0b01 << 5 | low bits. */
			p->payload.cyc.value = (1u << 5) | ((r >> 16) & 0x1f);
			return;
		default:
			p->payload.cyc.value = (1u << 12) | ((r >> 16) & 0xfff);
			return;
		}
	case 3:
	case 4: /* TIP, TIP.PGE, TIP.PGD, FUP with any IP compression */ {
		static const enum pt_packet_type ips[] = {ppt_tip, ppt_tip_pge,
		                                          ppt_tip_pgd, ppt_fup};

		p->type = ips[(r >> 8) % 4];
		p->payload.ip.ipc = ipcs[(r >> 12) % 6];
		p->payload.ip.ip = (r >> 16) & UINT64_C(0xffffffffffff);
		return;
	}
	case 5: /* MTC */
		p->type = ppt_mtc;
		p->payload.mtc.ctc = (uint8_t)(r >> 8);
		return;
	case 6: /* TSC */
		p->type = ppt_tsc;
		p->payload.tsc.tsc = (r >> 8) & ((UINT64_C(1) << 56) - 1);
		return;
	case 7: /* TMA */
		p->type = ppt_tma;
		p->payload.tma.ctc = (uint16_t)(r >> 8);
		p->payload.tma.fc = (uint16_t)((r >> 24) & 0x1ff);
		return;
	case 8: /* PSB+ packets and the like */
		switch ((r >> 8) % 5) {
		case 0:
			p->type = ppt_psb;
			return;
		case 1:
			p->type = ppt_psbend;
			return;
		case 2:
			p->type = ppt_cbr;
			p->payload.cbr.ratio = (uint8_t)(1 + (r >> 16) % 60);
			return;
		case 3:
			p->type = ppt_mode;
			p->payload.mode.leaf = pt_mol_exec;
			p->payload.mode.bits.exec.csl = (r >> 16) & 1;
			return;
		default:
			p->type = ppt_pip;
			p->payload.pip.cr3 = ((r >> 16) & 0xffffffff) << 5;
			return;
		}
	default: /* OVF, TNT-64 */
		if ((r >> 8) & 1) {
			p->type = ppt_ovf;
			return;
		}
		p->type = ppt_tnt_64;
		p->payload.tnt.bit_size = 40;
		p->payload.tnt.payload = (r >> 16) & ((UINT64_C(1) << 40) - 1);
		return;
	}
}

/* Whether the walk may skip @p, encoded at @at. */
static int may_skip(const struct pt_packet *p, const uint8_t *at, int size)
{
	switch (p->type) {
	case ppt_pad:
	case ppt_tnt_8:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
	case ppt_fup:
		return 1;
	case ppt_cyc:
		return size == 1 || (size == 2 && at[1] != 0x02);
	default:
		return 0;
	}
}

static void make_stream(struct skip_stream *s, uint64_t seed, int dense)
{
	struct pt_encoder *encoder;
	uint64_t rng = seed | 1, offset = 0;
	size_t i;

	memset(s->buf, 0, sizeof(s->buf));
	encoder = ptd_t_encoder(s->buf, sizeof(s->buf));
	for (i = 0; i < n_packets; ++i) {
		struct pt_packet p;
		int size;

		/* The last packets all skippable: the walk runs into the
		 * end of the buffer. */
		random_packet(&rng, &p, i + 400 >= n_packets ? -1 : dense);
		assert_int_equal(pt_enc_get_offset(encoder, &offset), 0);
		size = pt_enc_next(encoder, &p);
		assert_true(size > 0);
		s->offset[i] = (uint32_t)offset;
		s->skippable[i] = (uint8_t)may_skip(&p, s->buf + offset, size);
	}
	assert_int_equal(pt_enc_get_offset(encoder, &offset), 0);
	pt_free_encoder(encoder);
	s->n = n_packets;
	s->size = (size_t)offset;
	s->offset[n_packets] = (uint32_t)offset;
	s->skippable[n_packets] = 0;
}

/* The index of the packet at offset @off (a packet start). */
static size_t index_of(const struct skip_stream *s, size_t off)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->offset[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	assert_int_equal(s->offset[lo], off);
	return lo;
}

/* Check one result of the walk from packet @i of @s, at @base: @got must be
 * the first packet from @i on that may not be skipped, or an earlier packet
 * start where the walk gave up near the end (then at most 256 bytes before
 * the end).  Returns the index of @got. */
static size_t check_walk(const struct skip_stream *s, const uint8_t *base,
                         size_t i, const uint8_t *got)
{
	const uint8_t *const end = base + s->size;
	size_t stop = i, g;

	while (s->skippable[stop])
		++stop;
	assert_true(got >= base + s->offset[i]);
	assert_true(got <= end);
	g = index_of(s, (size_t)(got - base));
	if (g != stop) {
		if (g > stop || end - got > 256)
			fail_msg("walk from packet %zu (offset %u): packet %zu "
			         "(offset %u), expected %zu (offset %u)",
			         i, s->offset[i], g, s->offset[g], stop,
			         s->offset[stop]);
	}
	return g;
}

static void check_stream(struct skip_stream *s)
{
	/* The stream at the end of a buffer of its size, so that reads past
	 * the end are reads out of bounds (caught under ASan). */
	uint8_t *const copy = ptd_t_dup(s->buf, s->size);
	const uint8_t *const end = copy + s->size;
	struct ptd_pkt_skip skip;
	size_t i, stops = 0, skipped = 0;

	/* From every packet start, with fresh tables. */
	for (i = 0; i < s->n; ++i) {
		skip.chunk = NULL;
		(void)check_walk(
		        s, copy, i,
		        ptd_pkt_skip_avx2(&skip, copy + s->offset[i], end));
	}

	/* As a scan walks: on after each stop, with the tables kept. */
	skip.chunk = NULL;
	for (i = 0; i < s->n;) {
		size_t g = check_walk(
		        s, copy, i,
		        ptd_pkt_skip_avx2(&skip, copy + s->offset[i], end));

		if (g == i)
			++stops;
		else
			skipped += g - i;
		i = g + 1;
	}
	free(copy);
	/* The streams exercise both. */
	assert_true(stops > 100);
	assert_true(skipped > 1000);
}

/* Every pair of first bytes, followed by PAD to the end of a buffer: the
 * walk skips the packet at the start exactly when ptd_pkt_decode() decodes
 * it as one of the kinds it may skip (this covers what the encoder does not
 * write: reserved IP compressions, unknown opcodes, TRIG, and CYCs cut
 * short by SKD007). */
static void test_skip_every_pair(void **state)
{
	const size_t size = 512;
	struct pt_config config;
	unsigned b0, b1;
	uint8_t *buf;

	(void)state;
	if (!ptd_pkt_batch_avx2_usable())
		skip();
	buf = malloc(size);
	assert_non_null(buf);
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	for (b0 = 0; b0 < 256; ++b0) {
		for (b1 = 0; b1 < 256; ++b1) {
			struct ptd_pkt_state pstate = {0};
			struct ptd_pkt_skip skip;
			struct pt_packet pkt;
			const uint8_t *got;
			int size_at, want;

			memset(buf, 0, size);
			buf[0] = (uint8_t)b0;
			buf[1] = (uint8_t)b1;
			size_at = ptd_pkt_decode(buf, buf + size, &config, &pkt,
			                         &pstate);
			want = size_at > 0 && may_skip(&pkt, buf, size_at);
			skip.chunk = NULL;
			got = ptd_pkt_skip_avx2(&skip, buf, buf + size);
			if (want != (got != buf))
				fail_msg("bytes %02x %02x (%s, size %d): walk "
				         "%s",
				         b0, b1,
				         size_at > 0 ? ptd_packet_type_name(
				                               pkt.type)
				                     : "error",
				         size_at,
				         got != buf ? "skipped it" : "stopped");
		}
	}
	free(buf);
}

static void test_skip_walk(void **state)
{
	static struct skip_stream s;
	uint64_t seed;

	(void)state;
	if (!ptd_pkt_batch_avx2_usable())
		skip();
	for (seed = 1; seed <= 8; ++seed) {
		make_stream(&s, seed * UINT64_C(0x9e3779b97f4a7c15), 0);
		check_stream(&s);
		make_stream(&s, seed * UINT64_C(0xbf58476d1ce4e5b9), 1);
		check_stream(&s);
	}
}

#else /* !PTD_PKT_BATCH_AVX2 */

/* No AVX2 walk on this platform or compiler. */
static void test_skip_every_pair(void **state)
{
	(void)state;
	skip();
}

static void test_skip_walk(void **state)
{
	(void)state;
	skip();
}

#endif /* PTD_PKT_BATCH_AVX2 */

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_skip_every_pair),
	        cmocka_unit_test(test_skip_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
