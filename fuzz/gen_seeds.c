/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes the seed corpora of the fuzz targets.
 *
 * Usage: fuzz_gen_seeds <dir>   (normally fuzz/corpus)
 * Writes <dir>/fuzz_packet/seed-* (a configuration byte and a packet
 * stream made with the encoder) and <dir>/fuzz_roundtrip/seed-* (packet
 * descriptions, see fuzz_roundtrip.c) and <dir>/fuzz_query/seed-* (a
 * configuration byte and a trace that is valid at the query level, see
 * fuzz_query.c) and <dir>/fuzz_perf/seed-* (small perf.data files of both
 * formats, tests/support/perf_write.h) and <dir>/fuzz_sideband/seed-*
 * (perf_event records of the same helpers, see fuzz_sideband.c) and
 * <dir>/fuzz_ptxed_sb/seed-* (those with a script of events).  The
 * output is deterministic; the committed seeds were made with it. */
#include "ptdecode/ptdecode.h"

#include "perf_write.h"
#ifdef PTD_HAVE_ZSTD
#include "perf_zstd_write.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
	uint8_t bytes[4096];
	size_t size;
};

static void put(struct out *o, const void *bytes, size_t n)
{
	if (o->size + n > sizeof(o->bytes)) {
		fprintf(stderr, "seed too big\n");
		exit(1);
	}
	memcpy(o->bytes + o->size, bytes, n);
	o->size += n;
}

static void put_byte(struct out *o, uint8_t b)
{
	put(o, &b, 1);
}

/* Append @v little-endian. */
static void put_le64(struct out *o, uint64_t v)
{
	for (int i = 0; i < 8; ++i)
		put_byte(o, (uint8_t)(v >> (8 * i)));
}

/* Append the encoding of @p to @o. */
static void enc(struct out *o, const struct pt_packet *p)
{
	uint8_t buf[32];
	struct pt_config config;
	struct pt_encoder *encoder;
	int size;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + sizeof(buf);
	encoder = pt_alloc_encoder(&config);
	if (!encoder) {
		fprintf(stderr, "no encoder\n");
		exit(1);
	}
	/* A BIP needs its block (4-byte items); the caller put the BBP
	 * into the seed already. */
	if (p->type == ppt_bip) {
		struct pt_packet bbp;

		memset(&bbp, 0, sizeof(bbp));
		bbp.type = ppt_bbp;
		bbp.payload.bbp.sz = 1;
		if (pt_enc_next(encoder, &bbp) != 3)
			exit(1);
		size = pt_enc_next(encoder, p);
		if (size <= 0) {
			fprintf(stderr, "bip: %d\n", size);
			exit(1);
		}
		put(o, buf + 3, (size_t)size);
		pt_free_encoder(encoder);
		return;
	}
	size = pt_enc_next(encoder, p);
	if (size <= 0) {
		fprintf(stderr, "%s: %d\n", ptd_packet_type_name(p->type),
		        size);
		exit(1);
	}
	put(o, buf, (size_t)size);
	pt_free_encoder(encoder);
}

static struct pt_packet pkt(enum pt_packet_type type)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	return p;
}

/* One of every packet type, as a PSB segment. */
static void all_packets(struct out *o)
{
	struct pt_packet p;

	enc(o, (p = pkt(ppt_psb), &p));
	p = pkt(ppt_mode);
	p.payload.mode.bits.exec.csl = 1;
	enc(o, &p);
	p = pkt(ppt_fup);
	p.payload.ip.ipc = pt_ipc_sext_48;
	p.payload.ip.ip = UINT64_C(0x7fffffff1000);
	enc(o, &p);
	p = pkt(ppt_tsc);
	p.payload.tsc.tsc = 0xa0000;
	enc(o, &p);
	p = pkt(ppt_tma);
	p.payload.tma.ctc = 0x18;
	p.payload.tma.fc = 8;
	enc(o, &p);
	p = pkt(ppt_cbr);
	p.payload.cbr.ratio = 0x24;
	enc(o, &p);
	p = pkt(ppt_pip);
	p.payload.pip.cr3 = 0xafafa0;
	p.payload.pip.nr = 1;
	enc(o, &p);
	p = pkt(ppt_vmcs);
	p.payload.vmcs.base = 0xcdcdc000;
	enc(o, &p);
	enc(o, (p = pkt(ppt_psbend), &p));
	p = pkt(ppt_tnt_8);
	p.payload.tnt.bit_size = 5;
	p.payload.tnt.payload = 0x15;
	enc(o, &p);
	p = pkt(ppt_cyc);
	p.payload.cyc.value = 0x1234;
	enc(o, &p);
	p = pkt(ppt_mtc);
	p.payload.mtc.ctc = 2;
	enc(o, &p);
	p = pkt(ppt_tip);
	p.payload.ip.ipc = pt_ipc_update_16;
	p.payload.ip.ip = 0x1002;
	enc(o, &p);
	p = pkt(ppt_tnt_64);
	p.payload.tnt.bit_size = 40;
	p.payload.tnt.payload = UINT64_C(0xf0f0f0f0f0);
	enc(o, &p);
	enc(o, (p = pkt(ppt_pad), &p));
	p = pkt(ppt_ptw);
	p.payload.ptw.plc = 1;
	p.payload.ptw.ip = 1;
	p.payload.ptw.payload = UINT64_C(0xdeadbeefcafe);
	enc(o, &p);
	p = pkt(ppt_fup);
	p.payload.ip.ipc = pt_ipc_full;
	p.payload.ip.ip = UINT64_C(0xffffffff81000000);
	enc(o, &p);
	p = pkt(ppt_mwait);
	p.payload.mwait.hints = 0x20;
	p.payload.mwait.ext = 1;
	enc(o, &p);
	p = pkt(ppt_pwre);
	p.payload.pwre.state = 2;
	p.payload.pwre.hw = 1;
	enc(o, &p);
	p = pkt(ppt_exstop);
	p.payload.exstop.ip = 1;
	enc(o, &p);
	p = pkt(ppt_pwrx);
	p.payload.pwrx.last = 1;
	p.payload.pwrx.deepest = 2;
	p.payload.pwrx.interrupt = 1;
	enc(o, &p);
	p = pkt(ppt_mnt);
	p.payload.mnt.payload = 0x2a;
	enc(o, &p);
	p = pkt(ppt_cfe);
	p.payload.cfe.type = pt_cfe_intr;
	p.payload.cfe.vector = pt_cfe_intr_pf;
	p.payload.cfe.ip = 1;
	enc(o, &p);
	p = pkt(ppt_evd);
	p.payload.evd.payload = 0x7ffff000;
	enc(o, &p);
	p = pkt(ppt_trig);
	p.payload.trig.trbv = 0xa1;
	p.payload.trig.ip = 1;
	p.payload.trig.icntv = 1;
	p.payload.trig.icnt = 0x23;
	enc(o, &p);
	p = pkt(ppt_bbp);
	p.payload.bbp.sz = 1;
	enc(o, &p);
	p = pkt(ppt_bip);
	p.payload.bip.id = 7;
	p.payload.bip.payload = 0xabcd;
	enc(o, &p);
	enc(o, (p = pkt(ppt_bep), &p));
	enc(o, (p = pkt(ppt_tip_pgd), &p));
	enc(o, (p = pkt(ppt_ovf), &p));
	p = pkt(ppt_tip_pge);
	p.payload.ip.ipc = pt_ipc_update_32;
	p.payload.ip.ip = 0xfffff000;
	enc(o, &p);
	enc(o, (p = pkt(ppt_stop), &p));
}

static void write_file(const char *dir, const char *target, const char *name,
                       const struct out *o)
{
	char path[1024];
	FILE *file;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, target, name);
	file = fopen(path, "wb");
	if (!file || fwrite(o->bytes, 1, o->size, file) != o->size ||
	    fclose(file) != 0) {
		fprintf(stderr, "%s: cannot write\n", path);
		exit(1);
	}
	printf("%s: %zu bytes\n", path, o->size);
}

static void packet_seeds(const char *dir)
{
	static const uint8_t garbage[] = {0x05, 0x82, 0x02, 0x02, 0x82, 0xd9,
	                                  0x40, 0xff, 0x13, 0x02, 0xc3};
	struct pt_packet p;
	struct out o;
	int i;

	/* Everything, no errata, batch size 1. */
	memset(&o, 0, sizeof(o));
	put_byte(&o, 0x00);
	all_packets(&o);
	write_file(dir, "fuzz_packet", "seed-all-packets", &o);

	/* Garbage, then two segments; batch size 16, SKZ84. */
	memset(&o, 0, sizeof(o));
	put_byte(&o, 0xa2);
	put(&o, garbage, sizeof(garbage));
	all_packets(&o);
	put(&o, garbage, 5);
	all_packets(&o);
	write_file(dir, "fuzz_packet", "seed-garbage-two-segments", &o);

	/* SKD007: a CYC cut by an OVF, and SKZ84: a corrupted TMA. */
	memset(&o, 0, sizeof(o));
	put_byte(&o, 0x03);
	enc(&o, (p = pkt(ppt_psb), &p));
	enc(&o, (p = pkt(ppt_psbend), &p));
	put(&o, (const uint8_t[]){0x07, 0x02, 0xf3}, 3);
	put(&o,
	    (const uint8_t[]){0x02, 0x73, 0x12, 0x00, 0x01, 0x00, 0x00, 0xaa},
	    8);
	p = pkt(ppt_cyc);
	p.payload.cyc.value = 32;
	enc(&o, &p);
	enc(&o, (p = pkt(ppt_ovf), &p));
	enc(&o, (p = pkt(ppt_pad), &p));
	write_file(dir, "fuzz_packet", "seed-errata", &o);

	/* Unknown opcodes for each callback mode. */
	for (i = 0; i < 4; ++i) {
		char name[64];

		memset(&o, 0, sizeof(o));
		put_byte(&o, (uint8_t)(0x04 | (i << 3) | (i << 5)));
		enc(&o, (p = pkt(ppt_psb), &p));
		put(&o,
		    (const uint8_t[]){0x05, 0x03, 0x00, 0x00, 0x02, 0x00, 0x09,
		                      0x00, 0x02, 0xc3, 0x11},
		    11);
		enc(&o, (p = pkt(ppt_psb), &p));
		enc(&o, (p = pkt(ppt_psbend), &p));
		write_file(dir, "fuzz_packet",
		           (snprintf(name, sizeof(name), "seed-unknown-%d", i),
		            name),
		           &o);
	}

	/* Runs of PADs and TNT-8s (the batch fast paths), batch size 64. */
	memset(&o, 0, sizeof(o));
	put_byte(&o, 0xc0);
	enc(&o, (p = pkt(ppt_psb), &p));
	for (i = 0; i < 40; ++i)
		enc(&o, (p = pkt(ppt_pad), &p));
	for (i = 0; i < 40; ++i) {
		p = pkt(ppt_tnt_8);
		p.payload.tnt.bit_size = (uint8_t)(1 + i % 6);
		p.payload.tnt.payload = (uint64_t)i & ((1u << (1 + i % 6)) - 1);
		enc(&o, &p);
	}
	p = pkt(ppt_bbp);
	enc(&o, &p);
	put(&o, (const uint8_t[]){0x0c, 1, 2, 3, 4, 5, 6, 7, 8, 0x04, 0x00},
	    11);
	enc(&o, (p = pkt(ppt_bep), &p));
	enc(&o, (p = pkt(ppt_psb), &p));
	write_file(dir, "fuzz_packet", "seed-runs", &o);
}

/* A description of every type (masked or raw fields), see
 * fuzz_roundtrip.c. */
static void roundtrip_seeds(const char *dir)
{
	struct out o;
	unsigned t, k;

	memset(&o, 0, sizeof(o));
	put_byte(&o, 0x80);
	for (t = 0; t < 35; ++t) {
		put_byte(&o, (uint8_t)t);
		for (k = 0; k < 9; ++k)
			put_byte(&o, (uint8_t)(0x11 * (k + t)));
	}
	write_file(dir, "fuzz_roundtrip", "seed-every-type", &o);

	memset(&o, 0, sizeof(o));
	put_byte(&o, 0x80);
	for (t = 0; t < 35; ++t) {
		put_byte(&o, (uint8_t)(0x80 | t));
		for (k = 0; k < 9; ++k)
			put_byte(&o, (uint8_t)(0xff - 3 * k - t));
	}
	write_file(dir, "fuzz_roundtrip", "seed-every-type-raw", &o);

	/* A small buffer: -pte_eos part way. */
	memset(&o, 0, sizeof(o));
	put_byte(&o, 0x10);
	for (t = 2; t < 12; ++t) {
		put_byte(&o, (uint8_t)t);
		for (k = 0; k < 9; ++k)
			put_byte(&o, (uint8_t)(k * 7));
	}
	write_file(dir, "fuzz_roundtrip", "seed-small-buffer", &o);

	/* A PEBS block: BBP, BIPs, BEP, PSB. */
	memset(&o, 0, sizeof(o));
	put_byte(&o, 0x80);
	put(&o, (const uint8_t[]){30, 0x81}, 2);          /* bbp, sz */
	put(&o, (const uint8_t[]){31, 3, 1, 2, 3, 4}, 6); /* bip */
	put(&o, (const uint8_t[]){31, 4, 9, 9, 9, 9}, 6); /* bip */
	put(&o, (const uint8_t[]){2}, 1);                 /* pad */
	put(&o, (const uint8_t[]){32, 1}, 2);             /* bep, ip */
	put(&o, (const uint8_t[]){31, 1}, 2);             /* bip: error */
	put(&o, (const uint8_t[]){30, 0x00, 3}, 3);       /* bbp */
	put(&o, (const uint8_t[]){31, 5, 1, 2, 3, 4, 5, 6, 7, 8}, 10);
	put(&o, (const uint8_t[]){3}, 1); /* psb ends the block */
	write_file(dir, "fuzz_roundtrip", "seed-pebs", &o);
}

static void enc_ip(struct out *o, enum pt_packet_type type,
                   enum pt_ip_compression ipc, uint64_t ip)
{
	struct pt_packet p = pkt(type);

	p.payload.ip.ipc = ipc;
	p.payload.ip.ip = ip;
	enc(o, &p);
}

static void enc_tnt(struct out *o, enum pt_packet_type type, uint8_t bits,
                    uint64_t payload)
{
	struct pt_packet p = pkt(type);

	p.payload.tnt.bit_size = bits;
	p.payload.tnt.payload = payload;
	enc(o, &p);
}

/* A PSB+ with a time, an exec mode, a paging and tracing on at @ip. */
static void query_psb(struct out *o, uint64_t tsc, uint64_t ip)
{
	struct pt_packet p;

	enc(o, (p = pkt(ppt_psb), &p));
	p = pkt(ppt_tsc);
	p.payload.tsc.tsc = tsc;
	enc(o, &p);
	p = pkt(ppt_tma);
	p.payload.tma.ctc = 0x18;
	p.payload.tma.fc = 8;
	enc(o, &p);
	p = pkt(ppt_cbr);
	p.payload.cbr.ratio = 0x24;
	enc(o, &p);
	p = pkt(ppt_mode);
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csl = 1;
	enc(o, &p);
	p = pkt(ppt_pip);
	p.payload.pip.cr3 = 0xafafa0;
	enc(o, &p);
	enc_ip(o, ppt_fup, pt_ipc_full, ip);
	enc(o, (p = pkt(ppt_psbend), &p));
}

/* Branches, asynchronous branches, events and timing after a PSB+. */
static void query_body(struct out *o, int k)
{
	struct pt_packet p;
	int i;

	for (i = 0; i < 6; ++i) {
		enc_tnt(o, ppt_tnt_8, (uint8_t)(1 + (i + k) % 6),
		        (uint64_t)(0x15 + i) & ((1u << (1 + (i + k) % 6)) - 1));
		p = pkt(ppt_mtc);
		p.payload.mtc.ctc = (uint8_t)(2 + i);
		enc(o, &p);
		p = pkt(ppt_cyc);
		p.payload.cyc.value = 40u + (unsigned)i;
		enc(o, &p);
		enc_ip(o, ppt_tip, pt_ipc_update_16,
		       0x1000u + 0x10u * (unsigned)i);
	}
	enc_tnt(o, ppt_tnt_64, 40, UINT64_C(0xa5a5a5a5a5));
	/* An interrupt: FUP, PIP, MODE.Exec, TIP. */
	enc_ip(o, ppt_fup, pt_ipc_update_32, 0x401234);
	p = pkt(ppt_pip);
	p.payload.pip.cr3 = 0xbcbc0;
	enc(o, &p);
	p = pkt(ppt_mode);
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csd = 1;
	enc(o, &p);
	enc_ip(o, ppt_tip, pt_ipc_sext_48, UINT64_C(0xffff81000000));
	/* TSX, PTWRITE, power events, MNT. */
	p = pkt(ppt_mode);
	p.payload.mode.leaf = pt_mol_tsx;
	p.payload.mode.bits.tsx.intx = 1;
	enc(o, &p);
	enc_ip(o, ppt_fup, pt_ipc_update_16, 0x2000);
	p = pkt(ppt_ptw);
	p.payload.ptw.plc = 1;
	p.payload.ptw.ip = 1;
	p.payload.ptw.payload = UINT64_C(0x1122334455667788);
	enc(o, &p);
	enc_ip(o, ppt_fup, pt_ipc_update_16, 0x2010);
	p = pkt(ppt_pwre);
	p.payload.pwre.state = 2;
	enc(o, &p);
	p = pkt(ppt_exstop);
	p.payload.exstop.ip = 1;
	enc(o, &p);
	enc_ip(o, ppt_fup, pt_ipc_update_16, 0x2020);
	p = pkt(ppt_pwrx);
	p.payload.pwrx.last = 1;
	p.payload.pwrx.deepest = 2;
	enc(o, &p);
	p = pkt(ppt_mnt);
	p.payload.mnt.payload = 0x1234;
	enc(o, &p);
	/* Tracing off and on again. */
	enc_ip(o, ppt_tip_pgd, pt_ipc_suppressed, 0);
	p = pkt(ppt_tsc);
	p.payload.tsc.tsc = 0x200000u + 0x1000u * (unsigned)k;
	enc(o, &p);
	enc_ip(o, ppt_tip_pge, pt_ipc_full, UINT64_C(0x400000));
	enc_tnt(o, ppt_tnt_8, 3, 5);
}

static void query_seeds(const char *dir)
{
	static const uint8_t garbage[] = {0x05, 0x82, 0x02, 0x02, 0x82, 0xd9,
	                                  0x40, 0xff, 0x13, 0x02, 0xc3};
	struct pt_packet p;
	struct out o;

	/* Two segments, accurate time, mtc_freq 3. */
	memset(&o, 0, sizeof(o));
	put_byte(&o, 0x40);
	query_psb(&o, 0x100000, 0x400000);
	query_body(&o, 0);
	query_psb(&o, 0x300000, 0x400000);
	query_body(&o, 1);
	write_file(dir, "fuzz_query", "seed-two-segments", &o);

	/* Garbage first, libipt's estimator, keep_tcal_on_ovf. */
	memset(&o, 0, sizeof(o));
	put_byte(&o, 0x70);
	put(&o, garbage, sizeof(garbage));
	query_psb(&o, 0x100000, 0x400000);
	query_body(&o, 2);
	write_file(dir, "fuzz_query", "seed-garbage-libipt-time", &o);

	/* Overflows with and without FUP, and the errata patterns: SKD010
	 * (TIP without FUP), APL11 (TIP.PGD), APL12 (FUP while off);
	 * BDM70 on. */
	memset(&o, 0, sizeof(o));
	put_byte(&o, 0x4f);
	query_psb(&o, 0x100000, 0x400000);
	enc_tnt(&o, ppt_tnt_8, 4, 9);
	enc(&o, (p = pkt(ppt_ovf), &p));
	enc_ip(&o, ppt_fup, pt_ipc_full, UINT64_C(0x401000));
	enc_tnt(&o, ppt_tnt_8, 2, 1);
	enc(&o, (p = pkt(ppt_ovf), &p));
	enc_ip(&o, ppt_tip, pt_ipc_full, UINT64_C(0x402000));
	enc(&o, (p = pkt(ppt_ovf), &p));
	enc_ip(&o, ppt_tip_pgd, pt_ipc_full, UINT64_C(0x403000));
	enc(&o, (p = pkt(ppt_ovf), &p));
	enc_ip(&o, ppt_fup, pt_ipc_full, UINT64_C(0x404000));
	enc(&o, (p = pkt(ppt_ovf), &p));
	enc_ip(&o, ppt_tip_pge, pt_ipc_full, UINT64_C(0x405000));
	enc_tnt(&o, ppt_tnt_8, 1, 1);
	enc(&o, (p = pkt(ppt_stop), &p));
	query_psb(&o, 0x200000, 0x405000);
	query_body(&o, 3);
	write_file(dir, "fuzz_query", "seed-ovf-errata", &o);

	/* A segment cut in the middle, then a good one. */
	memset(&o, 0, sizeof(o));
	put_byte(&o, 0x80);
	query_psb(&o, 0x100000, 0x400000);
	query_body(&o, 4);
	o.size -= 40;
	put(&o, (const uint8_t[]){0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, 7);
	query_psb(&o, 0x180000, 0x400000);
	query_body(&o, 5);
	write_file(dir, "fuzz_query", "seed-cut-segment", &o);
}

/* perf.data files: the recording of pw_good in both formats, and variants
 * (a filter string and a compressed record; a short AUXTRACE_INFO; no
 * CPUID feature). */
static void perf_seeds(const char *dir)
{
	/* Three PSB segments of 32 bytes: PSB, TSC, PSBEND, 6 TNT-8s. */
	static const uint8_t snap_bytes[96] = {
	        0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	        0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x19, 0x01, 0x02, 0x03,
	        0x04, 0x05, 0x06, 0x07, 0x02, 0x23, 0x04, 0x06, 0x08, 0x0a,
	        0x0c, 0x0e, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	        0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x19, 0x11,
	        0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x02, 0x23, 0x0a, 0x0c,
	        0x0e, 0x10, 0x12, 0x14, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	        0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	        0x19, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x02, 0x23,
	        0x10, 0x12, 0x14, 0x16, 0x18, 0x1a};
	static const struct {
		const char *name;
		int pipe;
		const char *filter;
		int compressed;
		unsigned npriv;
		int no_cpuid;
	} seeds[] = {
	        {"seed-file", 0, NULL, 0, 17, 0},
	        {"seed-pipe", 1, NULL, 0, 17, 0},
	        {"seed-file-filter", 0, "filter main @ /bin/ls", 1, 17, 0},
	        {"seed-pipe-short-info", 1, NULL, 0, 10, 1},
	        {"seed-pipe-variants", 1, NULL, 0, 17, 0},
	        {"seed-file-interrupted", 0, NULL, 0, 17, 0},
	        {"seed-file-sideband", 0, NULL, 0, 17, 0},
	        {"seed-pipe-sideband", 1, NULL, 0, 17, 0},
	        {"seed-file-switches", 0, NULL, 0, 17, 0},
	        {"seed-pipe-switches", 1, NULL, 0, 17, 0},
	        {"seed-file-snapshot", 0, NULL, 0, 17, 0},
	        {"seed-file-aux-sample", 0, NULL, 0, 17, 0},
	        {"seed-pipe-aux-sample", 1, NULL, 0, 17, 0},
	};

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); ++i) {
		struct pw_spec spec = pw_good;
		struct out o;
		struct pw w;

		spec.filter = seeds[i].filter;
		spec.compressed = seeds[i].compressed;
		spec.npriv = seeds[i].npriv;
		if (seeds[i].no_cpuid)
			spec.cpuid = NULL;
		/* (The two last seeds: what else perf writes.) */
		if (!strcmp(seeds[i].name, "seed-pipe-variants")) {
			spec.aux_header_size = 56;
			spec.tid_minus_one = 1;
			spec.tracing_data = 1;
			spec.truncated_aux = 1;
		}
		spec.interrupted =
		        !strcmp(seeds[i].name, "seed-file-interrupted");
		/* (Sideband with trailers; in the file format with two
		 * trailer layouts.) */
		spec.sideband = strstr(seeds[i].name, "sideband") != NULL ||
		                strstr(seeds[i].name, "switches") != NULL;
		spec.switches = strstr(seeds[i].name, "switches") != NULL;
		/* (Snapshots of a trace with PSBs: the second repeats the
		 * first's last PSB and all after it.) */
		if (strstr(seeds[i].name, "snapshot") ||
		    strstr(seeds[i].name, "aux-sample")) {
			static const size_t from[2] = {0, 20};
			static const size_t to[2] = {64, 96};

			/* (The trace in samples of every field, or of
			 * what perf --aux-sample sets.) */
			if (strstr(seeds[i].name, "aux-sample"))
				spec.aux_samples = seeds[i].pipe ? 1 : 3;
			else
				spec.snapshot = 1;
			spec.trace = snap_bytes;
			spec.trace_size = sizeof(snap_bytes);
			spec.trace_idx = 2;
			spec.num_snaps = 2;
			spec.snap_from = from;
			spec.snap_to = to;
		}
		spec.mixed_types = !strcmp(seeds[i].name, "seed-file-sideband");
		w = seeds[i].pipe ? pw_write_pipe(&spec) : pw_write_file(&spec);
		memset(&o, 0, sizeof(o));
		put(&o, w.b, w.n);
		write_file(dir, "fuzz_perf", seeds[i].name, &o);
#ifdef PTD_HAVE_ZSTD
		/* (The switches' files with their sideband compressed as
		 * `perf record -z` does: frames of 37 bytes of records cut
		 * into compressed records of 11 bytes; COMPRESSED2 records
		 * of whole frames of 64 bytes.) */
		if (spec.switches) {
			struct pz_spec z = {
			        .push = 37, .rec_max = 11, .level = 1};
			struct pw c;

			if (seeds[i].pipe) {
				z.push = 64;
				z.rec_max = 0;
				z.compressed2 = 1;
			}
			c = pz_compress_file(w.b, w.n, &z);
			memset(&o, 0, sizeof(o));
			put(&o, c.b, c.n);
			free(c.b);
			write_file(dir, "fuzz_perf",
			           seeds[i].pipe ? "seed-pipe-zstd2"
			                         : "seed-file-zstd",
			           &o);
		}
#endif
		free(w.b);
	}
}

/* The header of a fuzz_sideband input: print flags @print, @files files
 * split at @split 64ths, sample type 0x10086 (what pw_comm() and the others
 * write: TID, TIME, CPU, IDENTIFIER), tsc offset @offset, conversion
 * @shift, @mult, @zero. */
static void sideband_header(struct out *o, uint8_t print, unsigned files,
                            unsigned split, uint64_t offset, uint8_t shift,
                            uint8_t mult, uint32_t zero)
{
	put_byte(o, print);
	put_byte(o, (uint8_t)((files - 1) | split << 2));
	put_le64(o, UINT64_C(0x10086));
	put_le64(o, offset);
	put_byte(o, shift);
	put_byte(o, mult);
	for (int i = 0; i < 4; ++i)
		put_byte(o, (uint8_t)(zero >> (8 * i)));
}

static void sideband_seeds(const char *dir)
{
	struct out o;
	struct pw w = {0};

	/* Every kind pw_*() writes, in one file, compact and verbose. */
	pw_comm(&w, 100, 100, "prog", 1, 10, 0);
	pw_mmap2_at(&w, 100, 0x400000, 0x1000, "/bin/prog", 20, 0);
	pw_switch_cpu_wide(&w, 1, 100, 100, 200, 201, 30, 0);
	pw_fork(&w, 300, 200, 40, 0);
	pw_switch_thread(&w, 0, 100, 100, 51, 0);
	memset(&o, 0, sizeof(o));
	sideband_header(&o, 0x1f, 1, 0, 0, 0, 1, 0);
	put(&o, w.b, w.n);
	write_file(dir, "fuzz_sideband", "seed-records", &o);

	/* The same in two files merged, with a negative tsc offset and a
	 * conversion. */
	memset(&o, 0, sizeof(o));
	sideband_header(&o, 0x1d, 2, 32, UINT64_C(0xfffffffffffffff0), 1, 3,
	                100);
	put(&o, w.b, w.n);
	write_file(dir, "fuzz_sideband", "seed-two-files", &o);

	/* A record too short for its samples, one of an unknown type, zero
	 * padding, in three files. */
	memset(&o, 0, sizeof(o));
	sideband_header(&o, 0x09, 3, 20, 0, 0, 1, 0);
	put(&o, w.b, 64);
	{
		static const uint8_t bad[] = {3, 0, 0, 0, 0, 0, 16, 0,
		                              1, 0, 0, 0, 1, 0, 0,  0};
		static const uint8_t unknown[] = {0x4f, 0, 0, 0, 0, 0, 16, 0,
		                                  1,    2, 3, 4, 5, 6, 7,  8};
		static const uint8_t zeros[8] = {0};

		put(&o, unknown, sizeof(unknown));
		put(&o, bad, sizeof(bad));
		put(&o, w.b + 64, w.n - 64);
		put(&o, zeros, sizeof(zeros));
	}
	write_file(dir, "fuzz_sideband", "seed-bad", &o);
	free(w.b);
}

/* fuzz_ptxed_sb seeds: the records of sideband_seeds() in one or two
 * files (the first primary) with a script of @n events, 3 bytes each (type,
 * flags, time step). */
static void ptxed_sb_seed(const char *dir, const char *name, const struct pw *w,
                          unsigned files, const uint8_t *events, size_t n)
{
	struct out o;

	memset(&o, 0, sizeof(o));
	put_byte(&o, 0x7f);
	put_byte(&o, (uint8_t)((files - 1) | 1 << 2 | 4 << 5));
	put_le64(&o, UINT64_C(0x10086));
	put_le64(&o, UINT64_C(0xffff800000000000));
	put_byte(&o, (uint8_t)(n / 3));
	put_byte(&o, 0);
	put(&o, events, n);
	put(&o, w->b, w->n);
	write_file(dir, "fuzz_ptxed_sb", name, &o);
}

static void ptxed_sb_seeds(const char *dir)
{
	/* enabled, tick, disabled without an IP, paging, enabled, async
	 * disabled without an IP, overflow: times 0 to 60 */
	static const uint8_t events[] = {
	        ptev_enabled,  0,    0,  ptev_tick,           0, 12,
	        ptev_disabled, 1,    9,  ptev_paging,         0, 10,
	        ptev_enabled,  0x80, 10, ptev_async_disabled, 1, 10,
	        ptev_overflow, 0,    12};
	struct pw w = {0};

	pw_comm(&w, 100, 100, "prog", 1, 10, 0);
	pw_mmap2_at(&w, 100, 0x400000, 0x1000, "/bin/prog", 20, 0);
	pw_switch_cpu_wide(&w, 1, 100, 100, 200, 201, 30, 0);
	pw_fork(&w, 300, 200, 40, 0);
	pw_switch_thread(&w, 0, 300, 300, 51, 0);
	ptxed_sb_seed(dir, "seed-one-file", &w, 1, events, sizeof(events));
	ptxed_sb_seed(dir, "seed-two-files", &w, 2, events, sizeof(events));
	free(w.b);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
		return 2;
	}
	packet_seeds(argv[1]);
	roundtrip_seeds(argv[1]);
	query_seeds(argv[1]);
	perf_seeds(argv[1]);
	sideband_seeds(argv[1]);
	ptxed_sb_seeds(argv[1]);
	return 0;
}
