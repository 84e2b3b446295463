/* SPDX-License-Identifier: BSD-3-Clause */
/* Input the packet decoder must survive: truncated packets, garbage,
 * corrupted bytes, zero-filled tails, unknown opcodes (with and without a
 * decode callback), and the errata SKD007 and SKZ84.
 *
 * Every trace lives in an allocation of exactly its size, so
 * AddressSanitizer reports a read past its end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* One sample of every packet type, in its longest form where sizes vary,
 * plus the short forms. */
static size_t sample_packets(struct pt_packet *p, size_t max)
{
	size_t n = 0;

#define ADD(t)                                                                 \
	do {                                                                   \
		assert_true(n < max);                                          \
		p[n++] = ptd_t_packet(t);                                      \
	} while (0)
#define PL p[n - 1].payload
	ADD(ppt_pad);
	ADD(ppt_psb);
	ADD(ppt_psbend);
	ADD(ppt_ovf);
	ADD(ppt_stop);
	ADD(ppt_tip);
	PL.ip.ipc = pt_ipc_full;
	PL.ip.ip = UINT64_C(0xffffffff81000000);
	ADD(ppt_tip_pge);
	PL.ip.ipc = pt_ipc_sext_48;
	PL.ip.ip = 0x1000;
	ADD(ppt_tip_pgd);
	PL.ip.ipc = pt_ipc_update_32;
	ADD(ppt_fup);
	PL.ip.ipc = pt_ipc_update_16;
	ADD(ppt_fup);
	PL.ip.ipc = pt_ipc_update_48;
	ADD(ppt_tnt_8);
	PL.tnt.bit_size = 6;
	ADD(ppt_tnt_64);
	PL.tnt.bit_size = 47;
	PL.tnt.payload = 1;
	ADD(ppt_mode);
	PL.mode.bits.exec.csl = 1;
	ADD(ppt_mode);
	PL.mode.leaf = pt_mol_tsx;
	ADD(ppt_pip);
	PL.pip.cr3 = 0xfe0;
	ADD(ppt_vmcs);
	PL.vmcs.base = 0x1000;
	ADD(ppt_cbr);
	PL.cbr.ratio = 9;
	ADD(ppt_tsc);
	PL.tsc.tsc = 12345;
	ADD(ppt_tma);
	PL.tma.fc = 0x1ff;
	ADD(ppt_mtc);
	ADD(ppt_cyc);
	PL.cyc.value = 31;
	ADD(ppt_cyc);
	PL.cyc.value = 32;
	ADD(ppt_cyc);
	PL.cyc.value = (UINT64_C(1) << 61) - 1;
	ADD(ppt_mnt);
	ADD(ppt_exstop);
	PL.exstop.ip = 1;
	ADD(ppt_mwait);
	ADD(ppt_pwre);
	PL.pwre.state = 1;
	ADD(ppt_pwrx);
	PL.pwrx.store = 1;
	ADD(ppt_ptw);
	ADD(ppt_ptw);
	PL.ptw.plc = 1;
	PL.ptw.ip = 1;
	ADD(ppt_cfe);
	PL.cfe.type = pt_cfe_iret;
	ADD(ppt_evd);
	ADD(ppt_trig);
	ADD(ppt_trig);
	PL.trig.icntv = 1;
	PL.trig.icnt = 0xffff;
	ADD(ppt_bbp);
	ADD(ppt_bep);
	PL.bep.ip = 1;
#undef PL
#undef ADD
	return n;
}

/* Decode the first @cut bytes of @bytes from offset 0; return the result
 * of the first pt_pkt_next() and of the first ptd_pkt_next_batch(). */
static int decode_cut(const uint8_t *bytes, size_t cut,
                      const struct pt_errata *errata, int *batch)
{
	uint8_t *buf = ptd_t_dup(bytes, cut);
	struct pt_packet_decoder *decoder = ptd_t_decoder(buf, cut, errata);
	struct pt_packet packet;
	uint64_t offset;
	int errcode;

	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	errcode = pt_pkt_next(decoder, &packet, sizeof(packet));
	if (errcode < 0) {
		/* The decoder did not move. */
		assert_int_equal(pt_pkt_get_offset(decoder, &offset), 0);
		assert_int_equal(offset, 0);
	}
	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	*batch = ptd_pkt_next_batch(decoder, &packet, 1, NULL);
	pt_pkt_free_decoder(decoder);
	free(buf);
	return errcode;
}

/* Every packet cut at every length is -pte_eos. */
static void test_truncated_packets(void **state)
{
	struct pt_packet p[48];
	size_t n = sample_packets(p, ARRAY_SIZE(p)), i, cut;

	(void)state;
	for (i = 0; i < n; ++i) {
		uint8_t bytes[32];
		size_t size = ptd_t_encode(bytes, sizeof(bytes), &p[i], 1);
		int batch;

		assert_true(size > 0);
		for (cut = 0; cut < size; ++cut) {
			int errcode = decode_cut(bytes, cut, NULL, &batch);

			if (errcode != -pte_eos || batch != -pte_eos)
				fail_msg("%s cut at %zu of %zu: %d, batch %d",
				         ptd_packet_type_name(p[i].type), cut,
				         size, errcode, batch);
		}
		/* Whole, it decodes. */
		assert_int_equal(decode_cut(bytes, size, NULL, &batch),
		                 (int)size);
		assert_int_equal(batch, 1);
	}
}

/* @bytes, a BBP and a BIP, cut after @cut bytes: the BBP decodes, the BIP
 * is -pte_eos, for ptd_pkt_next_batch() too if @batch. */
static void check_cut_bip(const uint8_t *bytes, size_t cut, int batch)
{
	uint8_t *buf = ptd_t_dup(bytes, cut);
	struct pt_packet_decoder *decoder = ptd_t_decoder(buf, cut, NULL);
	struct pt_packet packet;

	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)), 3);
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
	                 -pte_eos);
	if (batch)
		assert_int_equal(ptd_pkt_next_batch(decoder, &packet, 1, NULL),
		                 -pte_eos);
	pt_pkt_free_decoder(decoder);
	free(buf);
}

/* Packets whose size depends on context, cut short. */
static void test_truncated_special(void **state)
{
	/* BIPs of both sizes after their BBP. */
	static const uint8_t bip4[] = {0x02, 0x63, 0x80, 0x0c, 1, 2, 3, 4};
	static const uint8_t bip8[] = {0x02, 0x63, 0x00, 0x0c, 1, 2,
	                               3,    4,    5,    6,    7, 8};
	/* A corrupted TMA under SKZ84 is 8 bytes. */
	static const uint8_t tma[] = {0x02, 0x73, 0, 0, 1, 0, 0, 0};
	/* An MNT needs its third byte to be recognized. */
	static const uint8_t mnt[] = {0x02, 0xc3};
	/* A CYC whose extension bytes all say "more". */
	static const uint8_t cyc[] = {0x07, 0x03, 0x05, 0xff};
	struct pt_errata skz84;
	size_t cut;
	int batch;

	(void)state;
	for (cut = 4; cut < sizeof(bip4); ++cut)
		check_cut_bip(bip4, cut, 0);
	for (cut = 4; cut < sizeof(bip8); ++cut)
		check_cut_bip(bip8, cut, 1);

	memset(&skz84, 0, sizeof(skz84));
	skz84.skz84 = 1;
	for (cut = 0; cut < sizeof(tma); ++cut) {
		assert_int_equal(decode_cut(tma, cut, &skz84, &batch),
		                 -pte_eos);
		assert_int_equal(batch, -pte_eos);
	}
	assert_int_equal(decode_cut(tma, sizeof(tma), &skz84, &batch), 8);

	assert_int_equal(decode_cut(mnt, sizeof(mnt), NULL, &batch), -pte_eos);
	assert_int_equal(batch, -pte_eos);
	for (cut = 1; cut <= sizeof(cyc); ++cut) {
		assert_int_equal(decode_cut(cyc, cut, NULL, &batch), -pte_eos);
		assert_int_equal(batch, -pte_eos);
	}
}

/* A small deterministic generator for garbage bytes. */
static uint8_t next_rand(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (uint8_t)(*seed >> 16);
}

/* A stream of several PSB segments; @offsets gets each packet's offset,
 * @psbs the index of each PSB. */
struct stream {
	uint8_t bytes[512];
	size_t size;
	struct pt_packet packets[64];
	uint64_t offsets[64];
	size_t n;
};

static void make_stream(struct stream *s)
{
	struct pt_packet one[48];
	size_t n = sample_packets(one, ARRAY_SIZE(one)), i, seg;
	struct pt_encoder *encoder;

	memset(s, 0, sizeof(*s));
	encoder = ptd_t_encoder(s->bytes, sizeof(s->bytes));
	/* Three segments: PSB, PSBEND, a third of the samples each. */
	for (seg = 0; seg < 3; ++seg) {
		struct pt_packet psb = ptd_t_packet(ppt_psb);
		struct pt_packet psbend = ptd_t_packet(ppt_psbend);
		const struct pt_packet *list[20];
		size_t k = 0;

		list[k++] = &psb;
		list[k++] = &psbend;
		for (i = seg; i < n; i += 3) {
			/* Keep PSBs only at segment starts; keep BBP (which
			 * changes the meaning of later bytes) out. */
			if (one[i].type == ppt_psb || one[i].type == ppt_bbp)
				continue;
			list[k++] = &one[i];
		}
		assert_true(k <= ARRAY_SIZE(list));
		for (i = 0; i < k; ++i) {
			uint64_t offset;
			int size;

			assert_int_equal(pt_enc_get_offset(encoder, &offset),
			                 0);
			size = pt_enc_next(encoder, list[i]);
			assert_true(size > 0);
			assert_true(s->n < ARRAY_SIZE(s->packets));
			s->packets[s->n] = *list[i];
			s->packets[s->n].size = (uint8_t)size;
			s->offsets[s->n++] = offset;
		}
	}
	{
		uint64_t offset;

		assert_int_equal(pt_enc_get_offset(encoder, &offset), 0);
		s->size = (size_t)offset;
	}
	pt_free_encoder(encoder);
}

/* Decode packets from @decoder and compare them with @s->packets from
 * index @i until the end of the trace. */
static void expect_rest(struct pt_packet_decoder *decoder,
                        const struct stream *s, size_t i, uint64_t base)
{
	struct pt_packet packet;
	uint64_t offset;

	for (; i < s->n; ++i) {
		assert_int_equal(pt_pkt_get_offset(decoder, &offset), 0);
		assert_int_equal(offset, s->offsets[i] + base);
		assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
		                 s->packets[i].size);
		ptd_t_assert_packet(&packet, &s->packets[i]);
	}
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
	                 -pte_eos);
}

/* Garbage of any length before the first PSB is skipped by sync_forward. */
static void test_garbage_before_psb(void **state)
{
	struct stream s;
	uint32_t seed = 1;
	size_t garbage;

	(void)state;
	make_stream(&s);
	for (garbage = 0; garbage < 80; ++garbage) {
		uint8_t bytes[600];
		struct pt_packet_decoder *decoder;
		uint8_t *buf;
		size_t i;

		for (i = 0; i < garbage; ++i)
			bytes[i] = next_rand(&seed);
		memcpy(bytes + garbage, s.bytes, s.size);
		buf = ptd_t_dup(bytes, garbage + s.size);
		decoder = ptd_t_decoder(buf, garbage + s.size, NULL);
		assert_int_equal(pt_pkt_sync_forward(decoder), 0);
		expect_rest(decoder, &s, 0, garbage);
		pt_pkt_free_decoder(decoder);
		free(buf);
	}
}

/* Bytes that must fail where a packet starts, and how. */
static const struct {
	uint8_t bytes[2];
	size_t n;
	int errcode;
} corruptions[] = {
        {{0x05}, 1, -pte_bad_opc},          /* unknown opcode */
        {{0xb9}, 1, -pte_bad_opc},          /* unknown opcode */
        {{0xad}, 1, -pte_bad_packet},       /* TIP with ipc 5 */
        {{0xfd}, 1, -pte_bad_packet},       /* FUP with ipc 7 */
        {{0x02, 0x00}, 2, -pte_bad_opc},    /* unknown extension */
        {{0x02, 0xff}, 2, -pte_bad_opc},    /* unknown extension */
        {{0x02, 0xd2}, 2, -pte_bad_packet}, /* PTW with size code 2 */
        {{0x99, 0x40}, 2, -pte_bad_packet}, /* MODE with leaf 0x40 */
        {{0x02, 0x82}, 2, -pte_bad_packet}, /* a PSB that is not one */
};

/* A corrupted packet: the error, at the packet's offset; sync_forward then
 * lands on the next PSB and everything after it decodes. */
static void test_corrupted_mid_stream(void **state)
{
	struct stream s;
	size_t c, k;

	(void)state;
	make_stream(&s);
	for (c = 0; c < ARRAY_SIZE(corruptions); ++c) {
		for (k = 1; k < s.n; ++k) {
			struct pt_packet_decoder *decoder;
			struct pt_packet packet;
			uint64_t offset;
			uint8_t *buf;
			size_t i, next_psb;

			/* Only where the corruption fits in the packet and
			 * the packet is not a PSB (that one we can't find
			 * afterwards anyway). */
			if (s.packets[k].size < corruptions[c].n ||
			    s.packets[k].type == ppt_psb)
				continue;
			/* A broken PSB needs its 16 bytes to be seen as
			 * broken rather than cut short. */
			if (corruptions[c].bytes[1] == 0x82 &&
			    s.offsets[k] + 16 > s.size)
				continue;
			/* Right after a PSB, 02 82 would make a longer
			 * pattern, with PSBs in it at every second byte. */
			if (corruptions[c].bytes[1] == 0x82 &&
			    s.packets[k - 1].type == ppt_psb)
				continue;
			buf = ptd_t_dup(s.bytes, s.size);
			memcpy(buf + s.offsets[k], corruptions[c].bytes,
			       corruptions[c].n);
			decoder = ptd_t_decoder(buf, s.size, NULL);
			assert_int_equal(pt_pkt_sync_forward(decoder), 0);
			for (i = 0; i < k; ++i) {
				assert_int_equal(pt_pkt_next(decoder, &packet,
				                             sizeof(packet)),
				                 s.packets[i].size);
				ptd_t_assert_packet(&packet, &s.packets[i]);
			}
			if (pt_pkt_next(decoder, &packet, sizeof(packet)) !=
			    corruptions[c].errcode)
				fail_msg(
				        "corruption %zu at packet %zu (%s): "
				        "expected %d",
				        c, k,
				        ptd_packet_type_name(s.packets[k].type),
				        corruptions[c].errcode);
			assert_int_equal(pt_pkt_get_offset(decoder, &offset),
			                 0);
			assert_int_equal(offset, s.offsets[k]);
			/* The error repeats: the decoder did not move. */
			assert_int_equal(
			        pt_pkt_next(decoder, &packet, sizeof(packet)),
			        corruptions[c].errcode);

			for (next_psb = k + 1; next_psb < s.n; ++next_psb)
				if (s.packets[next_psb].type == ppt_psb)
					break;
			if (next_psb == s.n) {
				assert_int_equal(pt_pkt_sync_forward(decoder),
				                 -pte_eos);
			} else {
				assert_int_equal(pt_pkt_sync_forward(decoder),
				                 0);
				assert_int_equal(pt_pkt_get_sync_offset(
				                         decoder, &offset),
				                 0);
				assert_int_equal(offset, s.offsets[next_psb]);
				expect_rest(decoder, &s, next_psb, 0);
			}
			pt_pkt_free_decoder(decoder);
			free(buf);
		}
	}
}

/* Zeros after the trace are PADs, one byte each, up to the end. */
static void test_zero_tail(void **state)
{
	struct stream s;
	size_t zeros;

	(void)state;
	make_stream(&s);
	for (zeros = 0; zeros < 70; zeros += (zeros < 20 ? 1 : 7)) {
		uint8_t bytes[600];
		struct pt_packet_decoder *decoder;
		struct pt_packet packet;
		uint8_t *buf;
		size_t i;

		memcpy(bytes, s.bytes, s.size);
		memset(bytes + s.size, 0, zeros);
		buf = ptd_t_dup(bytes, s.size + zeros);
		decoder = ptd_t_decoder(buf, s.size + zeros, NULL);
		assert_int_equal(pt_pkt_sync_forward(decoder), 0);
		for (i = 0; i < s.n; ++i)
			assert_int_equal(
			        pt_pkt_next(decoder, &packet, sizeof(packet)),
			        s.packets[i].size);
		ptd_t_expect_pads(decoder, zeros);
		pt_pkt_free_decoder(decoder);
		free(buf);
	}
}

/* The decode callback's context. */
struct unknown_ctx {
	int ret;            /* what to return */
	unsigned calls;     /* how often it was called */
	const uint8_t *pos; /* the position it was called with */
	const struct pt_config *config;
};

static int unknown_cb(struct pt_packet_unknown *unknown,
                      const struct pt_config *config, const uint8_t *pos,
                      void *context)
{
	struct unknown_ctx *ctx = context;

	ctx->calls++;
	ctx->pos = pos;
	ctx->config = config;
	unknown->priv = ctx;
	return ctx->ret;
}

/* A decoder of @size bytes at @buf with unknown_cb() as its decode
 * callback, with context @ctx. */
static struct pt_packet_decoder *unknown_decoder(uint8_t *buf, size_t size,
                                                 struct unknown_ctx *ctx)
{
	struct pt_packet_decoder *decoder;
	struct pt_config config;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	config.decode.callback = unknown_cb;
	config.decode.context = ctx;
	decoder = pt_pkt_alloc_decoder(&config);
	assert_non_null(decoder);
	return decoder;
}

/* Decode @bytes from 0 with the callback returning @ret; return the result
 * of pt_pkt_next() and leave the packet in @packet. */
static int decode_unknown(const uint8_t *bytes, size_t size,
                          struct unknown_ctx *ctx, struct pt_packet *packet,
                          uint64_t *offset)
{
	uint8_t *buf = ptd_t_dup(bytes, size);
	struct pt_packet_decoder *decoder = unknown_decoder(buf, size, ctx);
	int errcode;

	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	ctx->calls = 0;
	ctx->pos = NULL;
	errcode = pt_pkt_next(decoder, packet, sizeof(*packet));
	assert_int_equal(ctx->calls, 1);
	assert_ptr_equal(ctx->pos, buf);
	assert_ptr_equal(ctx->config, pt_pkt_get_config(decoder));
	if (errcode > 0) {
		assert_int_equal(packet->type, ppt_unknown);
		assert_ptr_equal(packet->payload.unknown.packet, buf);
		assert_ptr_equal(packet->payload.unknown.priv, ctx);
	}
	assert_int_equal(pt_pkt_get_offset(decoder, offset), 0);
	pt_pkt_free_decoder(decoder);
	free(buf);
	return errcode;
}

static void test_unknown_opcodes(void **state)
{
	static const uint8_t firsts[] = {0x05, 0x09, 0x15, 0x39, 0x79,
	                                 0xb9, 0xf9, 0xe5, 0xf5};
	/* Extension opcodes, with the length of the opcode itself. */
	static const struct {
		uint8_t bytes[3];
		size_t len;
	} exts[] = {
	        {{0x02, 0x00, 0}, 2},    {{0x02, 0x01, 0}, 2},
	        {{0x02, 0xff, 0}, 2},    {{0x02, 0x42, 0}, 2},
	        {{0x02, 0xc3, 0x00}, 3}, /* EXT2, not MNT */
	        {{0x02, 0xc3, 0x89}, 3},
	};
	uint8_t bytes[300];
	struct unknown_ctx ctx;
	struct pt_packet packet;
	uint64_t offset;
	size_t i;

	(void)state;
	memset(bytes, 0, sizeof(bytes));
	for (i = 0; i < ARRAY_SIZE(firsts) + ARRAY_SIZE(exts); ++i) {
		static const int sizes[] = {1, 2, 3, 16, 254, 255};
		size_t s, len = 1;
		int batch;

		if (i < ARRAY_SIZE(firsts)) {
			bytes[0] = firsts[i];
		} else {
			memcpy(bytes, exts[i - ARRAY_SIZE(firsts)].bytes, 3);
			len = exts[i - ARRAY_SIZE(firsts)].len;
		}

		/* Without a callback. */
		assert_int_equal(decode_cut(bytes, 8, NULL, &batch),
		                 -pte_bad_opc);
		assert_int_equal(batch, -pte_bad_opc);

		/* With one, of every size. */
		for (s = 0; s < ARRAY_SIZE(sizes); ++s) {
			ctx.ret = sizes[s];
			assert_int_equal(decode_unknown(bytes, 260, &ctx,
			                                &packet, &offset),
			                 sizes[s]);
			assert_int_equal(packet.size, sizes[s]);
			assert_int_equal(offset, (uint64_t)sizes[s]);

			/* A size beyond the buffer (that still holds the
			 * opcode). */
			if ((size_t)sizes[s] - 1 < len)
				continue;
			ctx.ret = sizes[s];
			assert_int_equal(decode_unknown(bytes,
			                                (size_t)sizes[s] - 1,
			                                &ctx, &packet, &offset),
			                 -pte_eos);
			assert_int_equal(offset, 0);
		}

		/* Sizes that do not fit a packet, and errors. */
		ctx.ret = 256;
		assert_int_equal(
		        decode_unknown(bytes, 300, &ctx, &packet, &offset),
		        -pte_invalid);
		assert_int_equal(offset, 0);
		ctx.ret = 1000;
		assert_int_equal(
		        decode_unknown(bytes, 300, &ctx, &packet, &offset),
		        -pte_invalid);
		ctx.ret = -pte_bad_packet;
		assert_int_equal(
		        decode_unknown(bytes, 300, &ctx, &packet, &offset),
		        -pte_bad_packet);
		assert_int_equal(offset, 0);
		ctx.ret = -pte_nomem;
		assert_int_equal(
		        decode_unknown(bytes, 300, &ctx, &packet, &offset),
		        -pte_nomem);
		/* Zero bytes: an empty unknown packet, as in libipt; the
		 * decoder does not move. */
		ctx.ret = 0;
		assert_int_equal(
		        decode_unknown(bytes, 300, &ctx, &packet, &offset), 0);
		assert_int_equal(packet.type, ppt_unknown);
		assert_int_equal(packet.size, 0);
		assert_int_equal(offset, 0);
	}
}

/* The callback's packets fit into a stream: the decoder continues after
 * them. */
static void test_unknown_in_stream(void **state)
{
	static const uint8_t bytes[] = {0x00, 0x05, 0xee, 0xee, 0x02, 0x23,
	                                0x02, 0x01, 0xee, 0x59, 0x07};
	struct unknown_ctx ctx;
	struct pt_packet_decoder *decoder;
	struct pt_packet packets[8];
	uint64_t offsets[8];
	uint8_t *buf = ptd_t_dup(bytes, sizeof(bytes));
	int pass;

	(void)state;
	ctx.ret = 3;
	decoder = unknown_decoder(buf, sizeof(bytes), &ctx);
	for (pass = 0; pass < 2; ++pass) {
		static const enum pt_packet_type want[] = {
		        ppt_pad, ppt_unknown, ppt_psbend, ppt_unknown, ppt_mtc};
		static const uint64_t want_offsets[] = {0, 1, 4, 6, 9};
		size_t i;

		ctx.calls = 0;
		assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
		if (pass == 0) {
			for (i = 0; i < ARRAY_SIZE(want); ++i) {
				assert_int_equal(
				        pt_pkt_get_offset(decoder, &offsets[i]),
				        0);
				assert_true(pt_pkt_next(decoder, &packets[i],
				                        sizeof(packets[i])) >
				            0);
			}
			assert_int_equal(pt_pkt_next(decoder, &packets[0],
			                             sizeof(packets[0])),
			                 -pte_eos);
		} else {
			assert_int_equal(ptd_pkt_next_batch(decoder, packets, 8,
			                                    offsets),
			                 5);
			assert_int_equal(ptd_pkt_next_batch(decoder, packets, 8,
			                                    offsets),
			                 -pte_eos);
			assert_int_equal(ptd_pkt_next_batch(decoder, packets, 8,
			                                    offsets),
			                 -pte_eos);
		}
		assert_int_equal(ctx.calls, 2);
		for (i = 0; i < ARRAY_SIZE(want); ++i) {
			assert_int_equal(packets[i].type, want[i]);
			assert_int_equal(offsets[i], want_offsets[i]);
		}
		assert_ptr_equal(packets[1].payload.unknown.packet, buf + 1);
		assert_ptr_equal(packets[3].payload.unknown.packet, buf + 6);
		assert_int_equal(packets[4].payload.mtc.ctc, 7);
	}
	pt_pkt_free_decoder(decoder);
	free(buf);
}

/* Decode all of @bytes from 0 with @errata into @packets; return the count
 * and check that the last result is -pte_eos. */
static size_t decode_all(const uint8_t *bytes, size_t size,
                         const struct pt_errata *errata,
                         struct pt_packet *packets, uint64_t *offsets,
                         size_t max)
{
	uint8_t *buf = ptd_t_dup(bytes, size);
	struct pt_packet_decoder *decoder = ptd_t_decoder(buf, size, errata);
	size_t n = 0;
	int errcode;

	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	for (;;) {
		assert_true(n < max);
		assert_int_equal(pt_pkt_get_offset(decoder, &offsets[n]), 0);
		errcode = pt_pkt_next(decoder, &packets[n], sizeof(packets[n]));
		if (errcode < 0)
			break;
		++n;
	}
	assert_int_equal(errcode, -pte_eos);
	pt_pkt_free_decoder(decoder);
	free(buf);
	return n;
}

static void test_skd007(void **state)
{
	/* CYC 07 02 (value 32), then F3, then a PAD. */
	static const uint8_t ovf[] = {0x07, 0x02, 0xf3, 0x00};
	/* The same CYC followed by something else than F3. */
	static const uint8_t other[] = {0x07, 0x02, 0x23, 0x00};
	/* A 3-byte CYC ending in 02, then F3 (not SKD007's pattern). */
	static const uint8_t three[] = {0x07, 0x03, 0x02, 0xf3};
	/* The CYC at the end of the buffer. */
	static const uint8_t at_end[] = {0x00, 0x07, 0x02};
	struct pt_errata on, off;
	struct pt_packet p[8];
	uint64_t o[8];
	size_t n;
	int batch;

	(void)state;
	memset(&on, 0, sizeof(on));
	memset(&off, 0, sizeof(off));
	on.skd007 = 1;

	/* With the erratum: the CYC byte is skipped, an OVF of size 2 is
	 * returned, and 3 bytes are consumed. */
	n = decode_all(ovf, sizeof(ovf), &on, p, o, 8);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].type, ppt_ovf);
	assert_int_equal(p[0].size, 2);
	assert_int_equal(o[0], 0);
	assert_int_equal(p[1].type, ppt_pad);
	assert_int_equal(o[1], 3);
	assert_int_equal(decode_cut(ovf, sizeof(ovf), &on, &batch), 2);

	/* Without: a CYC, then F3 is a one-byte CYC, then the PAD. */
	n = decode_all(ovf, sizeof(ovf), &off, p, o, 8);
	assert_int_equal(n, 3);
	assert_int_equal(p[0].type, ppt_cyc);
	assert_int_equal(p[0].size, 2);
	assert_int_equal(p[0].payload.cyc.value, 32);
	assert_int_equal(p[1].type, ppt_cyc);
	assert_int_equal(p[1].size, 1);
	assert_int_equal(p[1].payload.cyc.value, 0xf3 >> 3);
	assert_int_equal(o[1], 2);
	assert_int_equal(p[2].type, ppt_pad);

	/* Not SKD007's pattern: CYCs either way. */
	n = decode_all(other, sizeof(other), &on, p, o, 8);
	assert_int_equal(n, 3);
	assert_int_equal(p[0].type, ppt_cyc);
	assert_int_equal(p[0].payload.cyc.value, 32);
	n = decode_all(three, sizeof(three), &on, p, o, 8);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].type, ppt_cyc);
	assert_int_equal(p[0].size, 3);
	assert_int_equal(p[1].type, ppt_cyc);
	n = decode_all(at_end, sizeof(at_end), &on, p, o, 8);
	assert_int_equal(n, 2);
	assert_int_equal(p[1].type, ppt_cyc);
	assert_int_equal(p[1].size, 2);
}

/* An OVF ends a PEBS block: after it, 04 is a one-bit TNT-8, not a BIP.
 * The OVF that SKD007 makes of a CYC does the same (it did not at first:
 * found by fuzz_packet). */
static void test_skd007_ovf_ends_block(void **state)
{
	/* BBP (4-byte items), OVF, then 04 00 00 00 00. */
	static const uint8_t plain[] = {0x02, 0x63, 0x80, 0x02, 0xf3,
	                                0x04, 0x00, 0x00, 0x00, 0x00};
	/* The same with the OVF replacing a CYC. */
	static const uint8_t skd007[] = {0x02, 0x63, 0x80, 0x07, 0x02, 0xf3,
	                                 0x04, 0x00, 0x00, 0x00, 0x00};
	struct pt_errata on;
	struct pt_packet p[8];
	uint64_t o[8];
	size_t n;

	(void)state;
	memset(&on, 0, sizeof(on));
	on.skd007 = 1;
	n = decode_all(plain, sizeof(plain), &on, p, o, 8);
	assert_int_equal(n, 7);
	assert_int_equal(p[1].type, ppt_ovf);
	assert_int_equal(p[2].type, ppt_tnt_8);
	assert_int_equal(p[3].type, ppt_pad);

	n = decode_all(skd007, sizeof(skd007), &on, p, o, 8);
	assert_int_equal(p[1].type, ppt_ovf);
	assert_int_equal(p[2].type, ppt_tnt_8);
	assert_int_equal(p[2].size, 1);
	assert_int_equal(n, 7);
}

static void test_skz84(void **state)
{
	/* TMA with byte 4 (reserved) set, then the bogus byte, then PAD. */
	static const uint8_t bad4[] = {0x02, 0x73, 0x34, 0x12, 0x01,
	                               0x10, 0x00, 0xaa, 0x00};
	/* TMA with reserved bits of byte 6 set. */
	static const uint8_t bad6[] = {0x02, 0x73, 0x34, 0x12, 0x00,
	                               0x10, 0x02, 0xaa, 0x00};
	/* A good TMA: not affected by the erratum. */
	static const uint8_t good[] = {0x02, 0x73, 0x34, 0x12,
	                               0x00, 0xff, 0x01, 0x00};
	const uint8_t *bads[] = {bad4, bad6};
	struct pt_errata on, off;
	struct pt_packet p[8];
	uint64_t o[8];
	size_t n, i;
	int batch;

	(void)state;
	memset(&on, 0, sizeof(on));
	memset(&off, 0, sizeof(off));
	on.skz84 = 1;
	for (i = 0; i < ARRAY_SIZE(bads); ++i) {
		n = decode_all(bads[i], sizeof(bad4), &on, p, o, 8);
		assert_int_equal(n, 2);
		assert_int_equal(p[0].type, ppt_invalid);
		assert_int_equal(p[0].size, 8);
		assert_int_equal(p[1].type, ppt_pad);
		assert_int_equal(o[1], 8);
		assert_int_equal(
		        decode_cut(bads[i], sizeof(bad4), &off, &batch),
		        -pte_bad_packet);
		assert_int_equal(batch, -pte_bad_packet);
	}
	for (i = 0; i < 2; ++i) {
		n = decode_all(good, sizeof(good), i ? &on : &off, p, o, 8);
		assert_int_equal(n, 2);
		assert_int_equal(p[0].type, ppt_tma);
		assert_int_equal(p[0].size, 7);
		assert_int_equal(p[0].payload.tma.ctc, 0x1234);
		assert_int_equal(p[0].payload.tma.fc, 0x1ff);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_truncated_packets),
	        cmocka_unit_test(test_truncated_special),
	        cmocka_unit_test(test_garbage_before_psb),
	        cmocka_unit_test(test_corrupted_mid_stream),
	        cmocka_unit_test(test_zero_tail),
	        cmocka_unit_test(test_unknown_opcodes),
	        cmocka_unit_test(test_unknown_in_stream),
	        cmocka_unit_test(test_skd007),
	        cmocka_unit_test(test_skd007_ovf_ends_block),
	        cmocka_unit_test(test_skz84),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
