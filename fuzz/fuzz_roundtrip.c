/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: encoder → decoder round trips.
 *
 * Input: byte 0 sets the encoder's buffer size (bit 7 set: 4096 bytes,
 * else 2 * (bits 6:0) + 1, so that -pte_eos happens); then a sequence of
 * packet descriptions, each a selector byte followed by as many field
 * bytes as the type needs (missing bytes read as zero):
 *   selector bits 6:0 mod 35: the packet type (33 and 34 are not types);
 *   selector bit 7: take the fields raw, else mask them into range.
 *
 * For each description, the expected outcome is computed from the SDM's
 * format rules (fuzz_common.h, independent of the library): the encoded
 * size, -pte_bad_packet, -pte_bad_opc, or -pte_eos when it does not fit.
 * pt_enc_next() must give exactly that, must write nothing on error, and
 * must not write past the packet.  Then the encoded bytes, copied into an
 * allocation of exactly their size, must decode with pt_pkt_next() and
 * with ptd_pkt_next_batch() to the same packets (type, size, every field)
 * at the same offsets, and end with -pte_eos. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MARK = 0xcc, BIG = 4096 };

struct reader {
	const uint8_t *data;
	size_t size, pos;
};

/* The next @n <= 8 bytes as a little-endian number (zero past the end). */
static uint64_t take(struct reader *r, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; ++i, ++r->pos)
		if (r->pos < r->size)
			v |= (uint64_t)r->data[r->pos] << (8 * i);
	return v;
}

static uint64_t mask_bits(uint64_t v, unsigned bits)
{
	return bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}

/* Fill @p from the next description; @bip_size is the block state. */
static void describe(struct reader *r, struct pt_packet *p, unsigned bip_size)
{
	static const enum pt_ip_compression ipcs[] = {
	        pt_ipc_suppressed, pt_ipc_update_16, pt_ipc_update_32,
	        pt_ipc_sext_48,    pt_ipc_update_48, pt_ipc_full};
	uint8_t sel = (uint8_t)take(r, 1);
	int raw = sel & 0x80;
	unsigned t = (sel & 0x7fu) % 35u;
	uint64_t a;

	memset(p, 0, sizeof(*p));
	p->type = t < 34 ? (enum pt_packet_type)t : (enum pt_packet_type)0x7f;
	switch (p->type) {
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
	case ppt_fup: {
		unsigned ipc = (unsigned)take(r, 1);
		int n;

		p->payload.ip.ipc =
		        raw ? (enum pt_ip_compression)(ipc & 7) : ipcs[ipc % 6];
		p->payload.ip.ip = take(r, 8);
		n = fuzz_ip_bytes((unsigned)p->payload.ip.ipc);
		if (!raw && n >= 0)
			p->payload.ip.ip =
			        mask_bits(p->payload.ip.ip, 8u * (unsigned)n);
		break;
	}
	case ppt_tnt_8:
	case ppt_tnt_64: {
		unsigned max = p->type == ppt_tnt_8 ? 6 : 47;

		a = take(r, 1);
		p->payload.tnt.bit_size =
		        (uint8_t)(raw ? a & 0x3f : 1 + a % max);
		p->payload.tnt.payload = take(r, 8);
		if (!raw)
			p->payload.tnt.payload =
			        mask_bits(p->payload.tnt.payload,
			                  p->payload.tnt.bit_size);
		break;
	}
	case ppt_mode:
		a = take(r, 1);
		if (raw)
			p->payload.mode.leaf = (enum pt_mode_leaf)(a & 0xe0);
		else
			p->payload.mode.leaf =
			        (a & 0x80) ? pt_mol_tsx : pt_mol_exec;
		if (p->payload.mode.leaf == pt_mol_tsx) {
			p->payload.mode.bits.tsx.intx = a & 1;
			p->payload.mode.bits.tsx.abrt = (a >> 1) & 1;
		} else {
			p->payload.mode.bits.exec.csl = a & 1;
			p->payload.mode.bits.exec.csd = (a >> 1) & 1;
			p->payload.mode.bits.exec.iflag = (a >> 2) & 1;
		}
		break;
	case ppt_pip:
		a = take(r, 8);
		p->payload.pip.nr = a & 1;
		p->payload.pip.cr3 = raw ? a : a & UINT64_C(0x000fffffffffffe0);
		break;
	case ppt_vmcs:
		a = take(r, 8);
		p->payload.vmcs.base =
		        raw ? a : a & UINT64_C(0x000ffffffffff000);
		break;
	case ppt_cbr:
		p->payload.cbr.ratio = (uint8_t)take(r, 1);
		break;
	case ppt_tsc:
		a = take(r, 8);
		p->payload.tsc.tsc = raw ? a : mask_bits(a, 56);
		break;
	case ppt_tma:
		p->payload.tma.ctc = (uint16_t)take(r, 2);
		a = take(r, 2);
		p->payload.tma.fc = (uint16_t)(raw ? a : a & 0x1ff);
		break;
	case ppt_mtc:
		p->payload.mtc.ctc = (uint8_t)take(r, 1);
		break;
	case ppt_cyc:
		/* Shift right by the first byte: small values are as likely
		 * as big ones. */
		a = take(r, 1);
		p->payload.cyc.value = take(r, 8) >> (a & 63);
		break;
	case ppt_mnt:
		p->payload.mnt.payload = take(r, 8);
		break;
	case ppt_exstop:
		p->payload.exstop.ip = take(r, 1) & 1;
		break;
	case ppt_mwait:
		p->payload.mwait.hints = (uint32_t)take(r, 4);
		p->payload.mwait.ext = (uint32_t)take(r, 4);
		break;
	case ppt_pwre:
		a = take(r, 2);
		p->payload.pwre.state = (uint8_t)(raw ? a : a & 0xf);
		p->payload.pwre.sub_state =
		        (uint8_t)(raw ? a >> 8 : (a >> 8) & 0xf);
		p->payload.pwre.hw = (a >> 4) & 1;
		break;
	case ppt_pwrx:
		a = take(r, 2);
		p->payload.pwrx.last = (uint8_t)(raw ? a : a & 0xf);
		p->payload.pwrx.deepest =
		        (uint8_t)(raw ? a >> 8 : (a >> 8) & 0xf);
		p->payload.pwrx.interrupt = (a >> 4) & 1;
		p->payload.pwrx.store = (a >> 5) & 1;
		p->payload.pwrx.autonomous = (a >> 6) & 1;
		break;
	case ppt_ptw:
		a = take(r, 1);
		p->payload.ptw.plc = (uint8_t)(raw ? a & 3 : a & 1);
		p->payload.ptw.ip = (a >> 7) & 1;
		p->payload.ptw.payload = take(r, 8);
		if (!raw && !p->payload.ptw.plc)
			p->payload.ptw.payload =
			        mask_bits(p->payload.ptw.payload, 32);
		break;
	case ppt_cfe:
		a = take(r, 2);
		p->payload.cfe.type =
		        (enum pt_cfe_type)(raw ? a & 0xff : a & 0x1f);
		p->payload.cfe.vector = (uint8_t)(a >> 8);
		p->payload.cfe.ip = (a >> 5) & 1;
		break;
	case ppt_evd:
		a = take(r, 1);
		p->payload.evd.type = (enum pt_evd_type)(raw ? a : a & 0x1f);
		p->payload.evd.payload = take(r, 8);
		break;
	case ppt_trig:
		a = take(r, 1);
		p->payload.trig.trbv = (uint8_t)take(r, 1);
		p->payload.trig.icnt = (uint16_t)take(r, 2);
		p->payload.trig.ip = a & 1;
		p->payload.trig.icntv = (a >> 1) & 1;
		p->payload.trig.mult = (a >> 2) & 1;
		break;
	case ppt_bbp:
		a = take(r, 1);
		p->payload.bbp.type = (uint8_t)(raw ? a & 0x7f : a & 0x1f);
		p->payload.bbp.sz = (a >> 7) & 1;
		break;
	case ppt_bip:
		a = take(r, 1);
		p->payload.bip.id = (uint8_t)(raw ? a : a & 0x1f);
		p->payload.bip.payload = take(r, 8);
		if (!raw && bip_size)
			p->payload.bip.payload =
			        mask_bits(p->payload.bip.payload, 8 * bip_size);
		break;
	case ppt_bep:
		p->payload.bep.ip = take(r, 1) & 1;
		break;
	default:
		break;
	}
}

/* What the decoder must report for @p once encoded. */
static void normalize(struct pt_packet *p, int size)
{
	p->size = (uint8_t)size;
	switch (p->type) {
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
	case ppt_fup:
		/* The encoder writes the low bytes that ipc selects, as
		 * libipt's does. */
		p->payload.ip.ip = mask_bits(
		        p->payload.ip.ip,
		        8u * (unsigned)fuzz_ip_bytes(p->payload.ip.ipc));
		break;
	/* The fields wider than the packet's are cut, as libipt's encoder
	 * cuts them. */
	case ppt_pip:
		p->payload.pip.cr3 =
		        mask_bits(p->payload.pip.cr3, 52) & ~UINT64_C(0x1f);
		break;
	case ppt_vmcs:
		p->payload.vmcs.base =
		        mask_bits(p->payload.vmcs.base, 52) & ~UINT64_C(0xfff);
		break;
	case ppt_tsc:
		p->payload.tsc.tsc = mask_bits(p->payload.tsc.tsc, 56);
		break;
	case ppt_pwre:
		p->payload.pwre.state &= 0xf;
		p->payload.pwre.sub_state &= 0xf;
		break;
	case ppt_pwrx:
		p->payload.pwrx.last &= 0xf;
		p->payload.pwrx.deepest &= 0xf;
		break;
	case ppt_ptw:
		if (!p->payload.ptw.plc)
			p->payload.ptw.payload =
			        mask_bits(p->payload.ptw.payload, 32);
		break;
	case ppt_cfe:
		p->payload.cfe.type = (enum pt_cfe_type)(
		        (unsigned)p->payload.cfe.type & 0x1f);
		break;
	case ppt_evd:
		p->payload.evd.type = (enum pt_evd_type)(
		        (unsigned)p->payload.evd.type & 0x1f);
		break;
	default:
		break;
	}
}

struct record {
	struct pt_packet packet;
	uint64_t offset;
};

static void decode_and_compare(const uint8_t *enc, size_t size,
                               const struct record *recs, size_t n,
                               size_t batch)
{
	uint8_t *buf = fuzz_alloc(size);
	struct pt_config config;
	struct pt_packet_decoder *decoder;
	struct pt_packet packet, *packets;
	uint64_t offset, *offsets;
	size_t i;
	int got;

	if (size)
		memcpy(buf, enc, size);
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	decoder = pt_pkt_alloc_decoder(&config);
	FUZZ_CHECK(decoder != NULL, "decoder allocation failed");

	FUZZ_CHECK(pt_pkt_sync_set(decoder, 0) == 0, "sync_set");
	for (i = 0; i < n; ++i) {
		const char *diff;

		FUZZ_CHECK(pt_pkt_get_offset(decoder, &offset) == 0 &&
		                   offset == recs[i].offset,
		           "packet %zu at %llu, not %llu", i,
		           (unsigned long long)offset,
		           (unsigned long long)recs[i].offset);
		got = pt_pkt_next(decoder, &packet, sizeof(packet));
		FUZZ_CHECK(got == recs[i].packet.size,
		           "packet %zu (%s): decoded %d, encoded %u", i,
		           ptd_packet_type_name(recs[i].packet.type), got,
		           recs[i].packet.size);
		diff = ptd_pkt_diff(&packet, &recs[i].packet);
		FUZZ_CHECK(!diff,
		           "packet %zu (%s, decoded as %s) differs in %s", i,
		           ptd_packet_type_name(recs[i].packet.type),
		           ptd_packet_type_name(packet.type), diff);
	}
	got = pt_pkt_next(decoder, &packet, sizeof(packet));
	FUZZ_CHECK(got == -pte_eos, "after the last packet: %d", got);
	FUZZ_CHECK(pt_pkt_get_offset(decoder, &offset) == 0 && offset == size,
	           "ends at %llu, not %zu", (unsigned long long)offset, size);

	/* The same with the batch API. */
	packets = fuzz_alloc(batch * sizeof(*packets));
	offsets = fuzz_alloc(batch * sizeof(*offsets));
	FUZZ_CHECK(pt_pkt_sync_set(decoder, 0) == 0, "sync_set");
	for (i = 0; i < n;) {
		size_t k;

		got = ptd_pkt_next_batch(decoder, packets, batch, offsets);
		FUZZ_CHECK(got > 0 && (size_t)got <= batch &&
		                   i + (size_t)got <= n,
		           "batch at packet %zu: %d", i, got);
		for (k = 0; k < (size_t)got; ++k, ++i) {
			const char *diff =
			        ptd_pkt_diff(&packets[k], &recs[i].packet);

			FUZZ_CHECK(!diff, "batch packet %zu differs in %s", i,
			           diff);
			FUZZ_CHECK(offsets[k] == recs[i].offset,
			           "batch packet %zu at %llu", i,
			           (unsigned long long)offsets[k]);
		}
	}
	got = ptd_pkt_next_batch(decoder, packets, batch, offsets);
	FUZZ_CHECK(got == -pte_eos, "batch after the last packet: %d", got);
	free(offsets);
	free(packets);
	pt_pkt_free_decoder(decoder);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r;
	struct pt_config config;
	struct pt_encoder *encoder;
	struct record *recs;
	uint8_t *enc;
	size_t cap, n = 0, maxrecs;
	unsigned bip_size = 0;
	uint64_t offset = 0;

	if (size < 1)
		return 0;
	cap = (data[0] & 0x80) ? BIG : 2u * (data[0] & 0x7fu) + 1;
	r.data = data;
	r.size = size;
	r.pos = 1;

	/* Room for the packets and a marker tail that must stay intact. */
	enc = fuzz_alloc(cap + 32);
	memset(enc, MARK, cap + 32);
	pt_config_init(&config);
	config.begin = enc;
	config.end = enc + cap;
	encoder = pt_alloc_encoder(&config);
	FUZZ_CHECK(encoder != NULL, "encoder allocation failed");

	/* Every description takes at least one byte. */
	maxrecs = size;
	recs = fuzz_alloc(maxrecs * sizeof(*recs));

	while (r.pos < r.size) {
		struct pt_packet p;
		uint64_t before, after;
		int want, got;
		size_t i;

		describe(&r, &p, bip_size);
		want = fuzz_expected_encoding(&p, bip_size);
		if ((size_t)fuzz_reserve_size(&p) > cap - (size_t)offset ||
		    (want > 0 && (size_t)want > cap - (size_t)offset))
			want = -pte_eos;

		FUZZ_CHECK(pt_enc_get_offset(encoder, &before) == 0 &&
		                   before == offset,
		           "encoder at %llu, not %llu",
		           (unsigned long long)before,
		           (unsigned long long)offset);
		got = pt_enc_next(encoder, &p);
		FUZZ_CHECK(got == want, "%s (type %d): encoded %d, expected %d",
		           ptd_packet_type_name(p.type)
		                   ? ptd_packet_type_name(p.type)
		                   : "?",
		           (int)p.type, got, want);
		FUZZ_CHECK(pt_enc_get_offset(encoder, &after) == 0,
		           "pt_enc_get_offset");
		if (got < 0) {
			FUZZ_CHECK(after == before, "moved on error %d", got);
		} else {
			FUZZ_CHECK(after == before + (uint64_t)got,
			           "moved by %llu for %d bytes",
			           (unsigned long long)(after - before), got);
			FUZZ_CHECK(n < maxrecs, "too many packets");
			recs[n].packet = p;
			normalize(&recs[n].packet, got);
			recs[n].offset = before;
			++n;
			offset = after;
			bip_size = fuzz_block_after(&p, bip_size);
		}
		/* Nothing written beyond the packets. */
		for (i = (size_t)offset; i < cap + 32 && i < offset + 32; ++i)
			FUZZ_CHECK(enc[i] == MARK, "byte %zu written", i);
	}
	pt_free_encoder(encoder);

	decode_and_compare(enc, (size_t)offset, recs, n, 1 + (data[0] & 0x3f));
	free(recs);
	free(enc);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
