/* SPDX-License-Identifier: BSD-3-Clause */
/* Write a small, realistic Intel PT trace with the packet encoder.
 *
 * usage: sample_trace <output file>
 *
 * The trace has a few PSB segments as a user-space program with TSC, MTC and
 * CYC timing would produce them: a PSB+ with TSC/TMA/CBR/MODE/FUP, tracing
 * enabled with TIP.PGE, conditional branches (TNT), indirect branches (TIP
 * with compressed IPs), timing packets, an overflow, and PAD bytes.  It is
 * also a short example of the encoder API. */
#include <intel-pt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int emit(struct pt_encoder *enc, const struct pt_packet *pkt)
{
	int err = pt_enc_next(enc, pkt);

	if (err < 0)
		fprintf(stderr, "sample_trace: encoding packet type %d: %s\n",
		        (int)pkt->type, pt_errstr(pt_errcode(err)));
	return err;
}

static int emit_simple(struct pt_encoder *enc, enum pt_packet_type type)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = type;
	return emit(enc, &pkt);
}

static int emit_ip(struct pt_encoder *enc, enum pt_packet_type type,
                   enum pt_ip_compression ipc, uint64_t ip)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = type;
	pkt.payload.ip.ipc = ipc;
	pkt.payload.ip.ip = ip;
	return emit(enc, &pkt);
}

static int emit_psb_plus(struct pt_encoder *enc, uint64_t tsc, uint16_t ctc,
                         uint64_t ip)
{
	struct pt_packet pkt;
	int err = 0;

	err |= emit_simple(enc, ppt_psb);

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_tsc;
	pkt.payload.tsc.tsc = tsc;
	err |= emit(enc, &pkt);

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_tma;
	pkt.payload.tma.ctc = ctc;
	pkt.payload.tma.fc = 0x11;
	err |= emit(enc, &pkt);

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_cbr;
	pkt.payload.cbr.ratio = 37;
	err |= emit(enc, &pkt);

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_mode;
	pkt.payload.mode.leaf = pt_mol_exec;
	pkt.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	err |= emit(enc, &pkt);

	err |= emit_ip(enc, ppt_fup, pt_ipc_sext_48, ip);
	err |= emit_simple(enc, ppt_psbend);
	return err;
}

static int emit_segment(struct pt_encoder *enc, unsigned seg)
{
	const uint64_t base = 0x401000 + 0x100 * seg;
	struct pt_packet pkt;
	int err = 0;

	/* The crystal clock runs at 1/8 of the TSC; MTCs carry CTC[10:3]. */
	const uint16_t ctc = (uint16_t)(0x1230 + 0x100 * seg);

	err |= emit_psb_plus(enc, 0x1000000 + 0x800 * seg, ctc, base);
	err |= emit_ip(enc, ppt_tip_pge, pt_ipc_update_16, base & 0xffff);

	for (unsigned i = 0; i < 8; ++i) {
		memset(&pkt, 0, sizeof(pkt));
		pkt.type = ppt_tnt_8;
		pkt.payload.tnt.bit_size = 6;
		pkt.payload.tnt.payload = (i * 0x15u + seg + 0x29) & 0x3f;
		err |= emit(enc, &pkt);

		memset(&pkt, 0, sizeof(pkt));
		pkt.type = ppt_cyc;
		pkt.payload.cyc.value = 17 + 100 * i;
		err |= emit(enc, &pkt);

		memset(&pkt, 0, sizeof(pkt));
		pkt.type = ppt_mtc;
		pkt.payload.mtc.ctc = (uint8_t)((ctc >> 3) + 1 + i);
		err |= emit(enc, &pkt);

		err |= emit_ip(enc, ppt_tip, pt_ipc_update_16,
		               (base + 0x40 * i) & 0xffff);
	}

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_tnt_64;
	pkt.payload.tnt.bit_size = 40;
	pkt.payload.tnt.payload =
	        UINT64_C(0x5a5a5a5a5a) & ((UINT64_C(1) << 40) - 1);
	err |= emit(enc, &pkt);

	if (seg == 1)
		err |= emit_simple(enc, ppt_ovf);
	err |= emit_ip(enc, ppt_tip_pgd, pt_ipc_suppressed, 0);
	for (unsigned i = 0; i < 5; ++i)
		err |= emit_simple(enc, ppt_pad);
	return err;
}

int main(int argc, char **argv)
{
	static uint8_t buf[4096];
	struct pt_config config;
	struct pt_encoder *enc;
	uint64_t size;
	FILE *out;
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s <output file>\n", argv[0]);
		return 2;
	}

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + sizeof(buf);
	enc = pt_alloc_encoder(&config);
	if (!enc) {
		fprintf(stderr, "sample_trace: cannot allocate the encoder\n");
		return 1;
	}
	for (unsigned seg = 0; seg < 3; ++seg)
		err |= emit_segment(enc, seg);
	pt_enc_get_offset(enc, &size);
	pt_free_encoder(enc);
	if (err < 0)
		return 1;

	out = fopen(argv[1], "wb");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	if (fwrite(buf, 1, (size_t)size, out) != size || fclose(out) != 0) {
		perror(argv[1]);
		return 1;
	}
	printf("%s: %llu bytes\n", argv[1], (unsigned long long)size);
	return 0;
}
