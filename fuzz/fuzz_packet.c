/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the packet decoder on arbitrary bytes.
 *
 * Input: byte 0 selects the configuration, the rest is the trace.
 *   bit 0    errata.skd007
 *   bit 1    errata.skz84
 *   bit 2    install a decode callback for unknown opcodes
 *   bits 4:3 the callback's behaviour (see unknown_cb())
 *   bits 7:5 the batch size for ptd_pkt_next_batch()
 *
 * Passes and checks:
 *   1. pt_pkt_sync_forward(), then pt_pkt_next() to the end, resyncing
 *      forward after every error.  Every sync point must be the PSB that a
 *      brute-force scan predicts (the first PSB after the last sync point
 *      that starts at most 15 bytes before the current position); every
 *      packet must satisfy the format rules; every decoded packet must
 *      re-encode and decode to the same payload; errors must leave the
 *      decoder where it was; pt_pkt_next() into a smaller or bigger packet
 *      must give the leading bytes or zero padding.
 *   2. pt_pkt_sync_backward() from the end to the start, against the same
 *      brute-force scan.
 *   3. ptd_pkt_next_batch() over the same trace: the same packets, offsets
 *      and errors as pass 1, each error first in its call.
 *
 * The trace is copied into an allocation of exactly its size so that ASan
 * reports any read past its end. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_common.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What pass 1 saw at one step. */
struct step {
	uint64_t offset; /* offset before the call */
	int result;      /* pt_pkt_next()'s result */
	int64_t resync;  /* after an error: the new sync offset, or -1 */
	struct pt_packet packet;
};

struct fuzz {
	const uint8_t *buf;
	size_t size;
	const uint8_t *psb; /* fuzz_psb_map() of buf */
	struct pt_config config;
	int callback; /* callback mode, -1 for none */
	size_t batch;
	struct step *steps;
	size_t nsteps, maxsteps;
};

/* The decode callback.  Modes:
 *   0  1..4 bytes, from the opcode;
 *   1  the byte after the opcode (0..255) if there is one, else 1;
 *   2  -pte_bad_packet for odd opcodes, 2 bytes for even ones;
 *   3  250..265 bytes: sizes beyond 255 must be -pte_invalid. */
static int unknown_cb(struct pt_packet_unknown *unknown,
                      const struct pt_config *config, const uint8_t *pos,
                      void *context)
{
	const struct fuzz *f = context;

	FUZZ_CHECK(pos >= config->begin && pos < config->end,
	           "callback outside the trace");
	unknown->priv = (void *)(uintptr_t)pos[0];
	switch (f->callback) {
	case 0:
		return 1 + (pos[0] & 3);
	case 1:
		return (config->end - pos > 1) ? pos[1] : 1;
	case 2:
		return (pos[0] & 1) ? -pte_bad_packet : 2;
	default:
		return 250 + (pos[0] & 0xf);
	}
}

static struct pt_packet_decoder *fuzz_decoder(const struct fuzz *f)
{
	struct pt_packet_decoder *decoder = pt_pkt_alloc_decoder(&f->config);

	FUZZ_CHECK(decoder != NULL, "decoder allocation failed");
	return decoder;
}

static uint64_t get_offset(const struct pt_packet_decoder *decoder)
{
	uint64_t offset = 0;
	int errcode = pt_pkt_get_offset(decoder, &offset);

	FUZZ_CHECK(errcode == 0, "pt_pkt_get_offset: %d", errcode);
	return offset;
}

static uint64_t get_sync_offset(const struct pt_packet_decoder *decoder)
{
	uint64_t offset = 0;
	int errcode = pt_pkt_get_sync_offset(decoder, &offset);

	FUZZ_CHECK(errcode == 0, "pt_pkt_get_sync_offset: %d", errcode);
	return offset;
}

/* The format rules a decoded packet must satisfy; @consumed is how far the
 * decoder moved, @bip_size the block state before the packet. */
static void check_packet(const struct fuzz *f, const struct pt_packet *p,
                         int result, uint64_t consumed, unsigned bip_size)
{
	int want;

	FUZZ_CHECK(p->size == result, "size %u, returned %d", p->size, result);
	if (f->config.errata.skd007 && p->type == ppt_ovf && consumed == 3)
		FUZZ_CHECK(p->size == 2, "SKD007 OVF of size %u", p->size);
	else
		FUZZ_CHECK(consumed == p->size, "%s: consumed %llu, size %u",
		           ptd_packet_type_name(p->type),
		           (unsigned long long)consumed, p->size);

	switch (p->type) {
	case ppt_invalid:
		FUZZ_CHECK(f->config.errata.skz84 && p->size == 8,
		           "invalid packet of size %u", p->size);
		return;
	case ppt_unknown:
		FUZZ_CHECK(f->callback >= 0, "unknown packet without callback");
		return;
	case ppt_cyc:
		/* The decoder takes non-minimal CYCs (extension bytes of
		 * zero); the value must fit in what was read. */
		FUZZ_CHECK(p->size >= fuzz_cyc_size(p->payload.cyc.value),
		           "cyc of %u bytes has value %llx", p->size,
		           (unsigned long long)p->payload.cyc.value);
		return;
	case ppt_bip:
		FUZZ_CHECK(bip_size != 0, "BIP outside a BBP..BEP block");
		break;
	default:
		break;
	}
	want = fuzz_expected_encoding(p, bip_size);
	FUZZ_CHECK(want == p->size, "%s of size %u breaks the format (%d)",
	           ptd_packet_type_name(p->type), p->size, want);
	if (p->type == ppt_tip || p->type == ppt_tip_pge ||
	    p->type == ppt_tip_pgd || p->type == ppt_fup) {
		int n = fuzz_ip_bytes((unsigned)p->payload.ip.ipc);

		FUZZ_CHECK(fuzz_fits(p->payload.ip.ip, 8u * (unsigned)n),
		           "ip %llx beyond ipc %d",
		           (unsigned long long)p->payload.ip.ip,
		           p->payload.ip.ipc);
	}
	if (p->type == ppt_trig && !p->payload.trig.icntv)
		FUZZ_CHECK(p->payload.trig.icnt == 0, "icnt without icntv");
}

/* A decoded packet encodes, and decodes again to the same payload. */
static void check_reencode(const struct pt_packet *p, unsigned bip_size)
{
	uint8_t buf[32];
	struct pt_config config;
	struct pt_encoder *encoder;
	struct pt_packet_decoder *decoder;
	struct pt_packet again;
	uint64_t skip = 0;
	int size, got;
	const char *diff;

	if (p->type == ppt_invalid || p->type == ppt_unknown)
		return;
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + sizeof(buf);
	encoder = pt_alloc_encoder(&config);
	FUZZ_CHECK(encoder != NULL, "encoder allocation failed");
	if (p->type == ppt_bip) {
		struct pt_packet bbp;

		memset(&bbp, 0, sizeof(bbp));
		bbp.type = ppt_bbp;
		bbp.payload.bbp.sz = bip_size == 4;
		FUZZ_CHECK(pt_enc_next(encoder, &bbp) == 3, "bbp");
		skip = 3;
	}
	size = pt_enc_next(encoder, p);
	pt_free_encoder(encoder);
	FUZZ_CHECK(size > 0, "decoded %s does not encode: %d",
	           ptd_packet_type_name(p->type), size);
	if (p->type == ppt_cyc)
		FUZZ_CHECK(size <= p->size, "cyc grew from %u to %d", p->size,
		           size);
	else
		FUZZ_CHECK(size == p->size, "%s: size %u re-encodes as %d",
		           ptd_packet_type_name(p->type), p->size, size);

	config.end = buf + skip + (size_t)size;
	decoder = pt_pkt_alloc_decoder(&config);
	FUZZ_CHECK(decoder != NULL, "decoder allocation failed");
	FUZZ_CHECK(pt_pkt_sync_set(decoder, 0) == 0, "sync_set");
	if (skip)
		FUZZ_CHECK(pt_pkt_next(decoder, &again, sizeof(again)) == 3,
		           "bbp");
	got = pt_pkt_next(decoder, &again, sizeof(again));
	FUZZ_CHECK(got == size, "re-encoded %s decodes to %d",
	           ptd_packet_type_name(p->type), got);
	FUZZ_CHECK(again.type == p->type, "re-encoded %s decodes as %s",
	           ptd_packet_type_name(p->type),
	           ptd_packet_type_name(again.type));
	diff = ptd_pkt_payload_diff(&again, p);
	FUZZ_CHECK(!diff, "re-encoded %s differs in %s",
	           ptd_packet_type_name(p->type), diff);
	pt_pkt_free_decoder(decoder);
}

/* pt_pkt_next() into a smaller and a bigger packet, at @offset, gives the
 * leading bytes of @p and zero padding.  Only outside BBP blocks, as
 * pt_pkt_sync_set() ends a block. */
static void check_sizes(const struct fuzz *f, uint64_t offset,
                        const struct pt_packet *p, int result, unsigned salt)
{
	struct pt_packet_decoder *decoder = fuzz_decoder(f);
	union {
		struct pt_packet packet;
		uint8_t bytes[sizeof(struct pt_packet) + 24];
	} out;
	size_t small = salt % sizeof(struct pt_packet), i;
	int got;

	FUZZ_CHECK(pt_pkt_sync_set(decoder, offset) == 0, "sync_set");
	memset(&out, 0xa5, sizeof(out));
	got = pt_pkt_next(decoder, &out.packet, sizeof(out));
	FUZZ_CHECK(got == result, "bigger packet: %d, not %d", got, result);
	FUZZ_CHECK(!ptd_pkt_diff(&out.packet, p), "bigger packet differs");
	for (i = sizeof(struct pt_packet); i < sizeof(out); ++i)
		FUZZ_CHECK(out.bytes[i] == 0, "padding byte %zu not zero", i);

	FUZZ_CHECK(pt_pkt_sync_set(decoder, offset) == 0, "sync_set");
	memset(&out, 0xa5, sizeof(out));
	got = pt_pkt_next(decoder, &out.packet, small);
	FUZZ_CHECK(got == result, "smaller packet: %d, not %d", got, result);
	/* Padding and unused payload bytes are unspecified: compare the
	 * header fields that fit. */
	if (small >= offsetof(struct pt_packet, type) + sizeof(p->type))
		FUZZ_CHECK(out.packet.type == p->type, "smaller: type");
	if (small >= offsetof(struct pt_packet, size) + sizeof(p->size))
		FUZZ_CHECK(out.packet.size == p->size, "smaller: size");
	for (i = small; i < sizeof(out); ++i)
		FUZZ_CHECK(out.bytes[i] == 0xa5, "byte %zu written", i);
	pt_pkt_free_decoder(decoder);
}

static struct step *new_step(struct fuzz *f)
{
	FUZZ_CHECK(f->nsteps < f->maxsteps, "too many steps");
	return &f->steps[f->nsteps++];
}

/* Pass 1: forward with pt_pkt_next(). */
static void pass_forward(struct fuzz *f)
{
	struct pt_packet_decoder *decoder = fuzz_decoder(f);
	size_t first = fuzz_psb_after(f->psb, f->size, 0);
	unsigned bip_size = 0;
	uint64_t sync;
	int errcode;

	FUZZ_CHECK(pt_pkt_get_offset(decoder, &sync) == -pte_nosync,
	           "offset before sync");
	errcode = pt_pkt_sync_forward(decoder);
	if (first == f->size) {
		FUZZ_CHECK(errcode == -pte_eos, "sync_forward: %d, no PSB",
		           errcode);
		pt_pkt_free_decoder(decoder);
		return;
	}
	FUZZ_CHECK(errcode == 0, "sync_forward: %d, PSB at %zu", errcode,
	           first);
	sync = get_sync_offset(decoder);
	FUZZ_CHECK(sync == first, "first sync at %llu, PSB at %zu",
	           (unsigned long long)sync, first);

	for (;;) {
		struct step *s = new_step(f);
		uint64_t after;
		size_t from, want;

		s->offset = get_offset(decoder);
		s->resync = -1;
		memset(&s->packet, 0, sizeof(s->packet));
		s->result = pt_pkt_next(decoder, &s->packet, sizeof(s->packet));
		after = get_offset(decoder);
		if (s->result > 0) {
			FUZZ_CHECK(after > s->offset && after <= f->size,
			           "offset %llu -> %llu",
			           (unsigned long long)s->offset,
			           (unsigned long long)after);
			check_packet(f, &s->packet, s->result,
			             after - s->offset, bip_size);
			check_reencode(&s->packet, bip_size);
			if (!bip_size && (s->offset & 7) == (f->nsteps & 7))
				check_sizes(f, s->offset, &s->packet, s->result,
				            (unsigned)f->nsteps);
			bip_size = fuzz_block_after(&s->packet, bip_size);
			continue;
		}

		/* An error, or a callback that consumed nothing. */
		FUZZ_CHECK(after == s->offset, "moved on error %d", s->result);
		if (s->result == 0)
			FUZZ_CHECK(f->callback == 1 &&
			                   s->packet.type == ppt_unknown &&
			                   s->packet.size == 0,
			           "zero-size packet");
		else
			FUZZ_CHECK(s->result == -pte_eos ||
			                   s->result == -pte_bad_opc ||
			                   s->result == -pte_bad_packet ||
			                   (s->result == -pte_invalid &&
			                    f->callback == 3),
			           "error %d", s->result);
		if (s->result == -pte_bad_opc)
			FUZZ_CHECK(f->callback < 0, "bad_opc with a callback");

		/* Resync: the first PSB after the last sync point that is
		 * not over before the current position. */
		from = (size_t)sync + 1;
		if (s->offset > 15 && s->offset - 15 > from)
			from = (size_t)s->offset - 15;
		want = fuzz_psb_after(f->psb, f->size, from);
		errcode = pt_pkt_sync_forward(decoder);
		if (want == f->size) {
			FUZZ_CHECK(errcode == -pte_eos,
			           "resync: %d, no PSB after %zu", errcode,
			           from);
			break;
		}
		FUZZ_CHECK(errcode == 0, "resync: %d, PSB at %zu", errcode,
		           want);
		sync = get_sync_offset(decoder);
		FUZZ_CHECK(sync == want, "resync at %llu, PSB at %zu",
		           (unsigned long long)sync, want);
		FUZZ_CHECK(get_offset(decoder) == sync, "offset after sync");
		s->resync = (int64_t)sync;
		bip_size = 0;
	}
	pt_pkt_free_decoder(decoder);
}

/* Pass 2: backward with pt_pkt_sync_backward(). */
static void pass_backward(const struct fuzz *f)
{
	struct pt_packet_decoder *decoder = fuzz_decoder(f);
	size_t before = f->size;
	int probed = 0;

	for (;;) {
		size_t want = fuzz_psb_before(f->psb, f->size, before);
		int errcode = pt_pkt_sync_backward(decoder);

		if (want == f->size) {
			FUZZ_CHECK(errcode == -pte_eos,
			           "sync_backward: %d, no PSB before %zu",
			           errcode, before);
			break;
		}
		FUZZ_CHECK(errcode == 0, "sync_backward: %d, PSB at %zu",
		           errcode, want);
		FUZZ_CHECK(get_sync_offset(decoder) == want,
		           "sync_backward at %llu, PSB at %zu",
		           (unsigned long long)get_sync_offset(decoder), want);
		if (!probed) {
			struct pt_packet p;
			size_t again;

			/* After decoding the PSB, the last PSB before the
			 * position may be this one (or one in its pattern). */
			probed = 1;
			FUZZ_CHECK(pt_pkt_next(decoder, &p, sizeof(p)) == 16 &&
			                   p.type == ppt_psb,
			           "PSB at %zu does not decode", want);
			again = fuzz_psb_before(f->psb, f->size, want + 16);
			FUZZ_CHECK(pt_pkt_sync_backward(decoder) == 0 &&
			                   get_sync_offset(decoder) == again,
			           "sync_backward after PSB at %zu", want);
			FUZZ_CHECK(pt_pkt_sync_set(decoder, want) == 0,
			           "sync_set");
		}
		before = want;
	}
	pt_pkt_free_decoder(decoder);
}

/* Pass 3: the batch API against pass 1. */
static void pass_batch(const struct fuzz *f)
{
	struct pt_packet_decoder *decoder;
	struct pt_packet *packets;
	uint64_t *offsets;
	size_t i = 0;

	if (!f->nsteps)
		return;
	decoder = fuzz_decoder(f);
	packets = fuzz_alloc(f->batch * sizeof(*packets));
	offsets = fuzz_alloc(f->batch * sizeof(*offsets));
	FUZZ_CHECK(pt_pkt_sync_forward(decoder) == 0, "sync_forward");
	while (i < f->nsteps) {
		const struct step *s = &f->steps[i];
		int got = ptd_pkt_next_batch(decoder, packets, f->batch,
		                             (i & 1) ? NULL : offsets);
		int k;

		if (s->result <= 0) {
			FUZZ_CHECK(got == s->result,
			           "batch at step %zu: %d, pt_pkt_next %d", i,
			           got, s->result);
			FUZZ_CHECK(get_offset(decoder) == s->offset,
			           "batch moved on error");
			if (s->resync < 0)
				break;
			FUZZ_CHECK(pt_pkt_sync_forward(decoder) == 0 &&
			                   get_sync_offset(decoder) ==
			                           (uint64_t)s->resync,
			           "batch resync");
			++i;
			continue;
		}
		FUZZ_CHECK(got > 0 && (size_t)got <= f->batch,
		           "batch at step %zu: %d for %zu", i, got, f->batch);
		for (k = 0; k < got; ++k) {
			const struct step *t = &f->steps[i + (size_t)k];
			const char *diff;

			FUZZ_CHECK(
			        i + (size_t)k < f->nsteps && t->result > 0,
			        "batch decoded step %zu, pt_pkt_next did not",
			        i + (size_t)k);
			diff = ptd_pkt_diff(&packets[k], &t->packet);
			FUZZ_CHECK(!diff, "batch step %zu differs in %s",
			           i + (size_t)k, diff);
			if (i & 1)
				continue;
			FUZZ_CHECK(offsets[k] == t->offset,
			           "batch step %zu at %llu, not %llu",
			           i + (size_t)k,
			           (unsigned long long)offsets[k],
			           (unsigned long long)t->offset);
		}
		i += (size_t)got;
		if (i < f->nsteps)
			FUZZ_CHECK(get_offset(decoder) == f->steps[i].offset,
			           "batch ends at %llu, not %llu",
			           (unsigned long long)get_offset(decoder),
			           (unsigned long long)f->steps[i].offset);
	}
	free(offsets);
	free(packets);
	pt_pkt_free_decoder(decoder);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t batches[] = {1, 2, 3, 5, 8, 16, 64, 255};
	struct fuzz f;
	uint8_t *buf;
	uint8_t *psb;

	if (size < 1)
		return 0;
	memset(&f, 0, sizeof(f));
	f.size = size - 1;
	buf = fuzz_alloc(f.size);
	if (f.size)
		memcpy(buf, data + 1, f.size);
	psb = fuzz_psb_map(buf, f.size);
	f.buf = buf;
	f.psb = psb;
	pt_config_init(&f.config);
	f.config.begin = buf;
	f.config.end = buf + f.size;
	f.config.errata.skd007 = data[0] & 1;
	f.config.errata.skz84 = (data[0] >> 1) & 1;
	f.callback = -1;
	if (data[0] & 4) {
		f.callback = (data[0] >> 3) & 3;
		f.config.decode.callback = unknown_cb;
		f.config.decode.context = &f;
	}
	f.batch = batches[data[0] >> 5];
	/* Each step moves forward by a byte or resyncs forward. */
	f.maxsteps = 2 * f.size + 4;
	f.steps = fuzz_alloc(f.maxsteps * sizeof(*f.steps));

	pass_forward(&f);
	pass_backward(&f);
	pass_batch(&f);

	free(f.steps);
	free(psb);
	free(buf);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
