/* SPDX-License-Identifier: BSD-3-Clause */
/* Write the small traces that test ptdump's own behaviour.
 *
 * usage: gen_traces <directory>
 *
 * Every trace is built with ptdecode's packet encoder (raw bytes where a
 * test needs a broken stream) and written to <directory>/<name>.pt.  The
 * expected ptdump output for each is in expected/. */
#include "ptdecode/intel-pt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A trace under construction. */
struct trace {
	uint8_t buf[4096];
	struct pt_encoder *encoder;
	int failed;
};

static int trace_begin(struct trace *t)
{
	struct pt_config config;

	memset(t->buf, 0, sizeof(t->buf));
	t->failed = 0;
	pt_config_init(&config);
	config.begin = t->buf;
	config.end = t->buf + sizeof(t->buf);
	t->encoder = pt_alloc_encoder(&config);
	if (!t->encoder) {
		fprintf(stderr, "gen_traces: cannot allocate an encoder\n");
		return -1;
	}
	return 0;
}

static void put(struct trace *t, const struct pt_packet *packet)
{
	int err = pt_enc_next(t->encoder, packet);

	if (err < 0) {
		fprintf(stderr,
		        "gen_traces: cannot encode packet type %d: %s\n",
		        (int)packet->type, pt_errstr(pt_errcode(err)));
		t->failed = 1;
	}
}

/* Append raw bytes (for streams the encoder refuses to make). */
static void put_raw(struct trace *t, const uint8_t *bytes, size_t n)
{
	uint64_t offset;

	if (pt_enc_get_offset(t->encoder, &offset) < 0 ||
	    offset + n > sizeof(t->buf) ||
	    pt_enc_sync_set(t->encoder, offset + n) < 0) {
		t->failed = 1;
		return;
	}
	memcpy(t->buf + offset, bytes, n);
}

static void plain(struct trace *t, enum pt_packet_type type)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	put(t, &p);
}

static void ip(struct trace *t, enum pt_packet_type type,
               enum pt_ip_compression ipc, uint64_t value)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.payload.ip.ipc = ipc;
	p.payload.ip.ip = value;
	put(t, &p);
}

/* A TNT from a string of 't' (taken) and 'n', oldest first. */
static void tnt(struct trace *t, enum pt_packet_type type, const char *bits)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	for (; *bits; ++bits) {
		p.payload.tnt.payload =
		        (p.payload.tnt.payload << 1) | (*bits == 't');
		p.payload.tnt.bit_size++;
	}
	put(t, &p);
}

static void mode_exec(struct trace *t, enum pt_exec_mode mode, int iflag)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec = pt_set_exec_mode(mode);
	p.payload.mode.bits.exec.iflag = iflag ? 1 : 0;
	put(t, &p);
}

static void mode_tsx(struct trace *t, int intx, int abrt)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_tsx;
	p.payload.mode.bits.tsx.intx = intx ? 1 : 0;
	p.payload.mode.bits.tsx.abrt = abrt ? 1 : 0;
	put(t, &p);
}

/* A packet with a single 64-bit value in the given payload member. */
static void value(struct trace *t, enum pt_packet_type type, uint64_t v)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	switch (type) {
	case ppt_tsc:
		p.payload.tsc.tsc = v;
		break;
	case ppt_cbr:
		p.payload.cbr.ratio = (uint8_t)v;
		break;
	case ppt_mtc:
		p.payload.mtc.ctc = (uint8_t)v;
		break;
	case ppt_cyc:
		p.payload.cyc.value = v;
		break;
	case ppt_vmcs:
		p.payload.vmcs.base = v;
		break;
	case ppt_mnt:
		p.payload.mnt.payload = v;
		break;
	default:
		t->failed = 1;
		return;
	}
	put(t, &p);
}

static void pip(struct trace *t, uint64_t cr3, int nr)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_pip;
	p.payload.pip.cr3 = cr3;
	p.payload.pip.nr = nr ? 1 : 0;
	put(t, &p);
}

static void tma(struct trace *t, uint16_t ctc, uint16_t fc)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_tma;
	p.payload.tma.ctc = ctc;
	p.payload.tma.fc = fc;
	put(t, &p);
}

static void exstop(struct trace *t, int with_ip)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_exstop;
	p.payload.exstop.ip = with_ip ? 1 : 0;
	put(t, &p);
}

static void mwait(struct trace *t, uint32_t hints, uint32_t ext)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_mwait;
	p.payload.mwait.hints = hints;
	p.payload.mwait.ext = ext;
	put(t, &p);
}

/* C-states are given as numbers; the packets hold them minus one. */
static void pwre(struct trace *t, unsigned state, unsigned sub, int hw)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_pwre;
	p.payload.pwre.state = (uint8_t)((state - 1) & 0xf);
	p.payload.pwre.sub_state = (uint8_t)((sub - 1) & 0xf);
	p.payload.pwre.hw = hw ? 1 : 0;
	put(t, &p);
}

static void pwrx(struct trace *t, char reason, unsigned last, unsigned deepest)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_pwrx;
	p.payload.pwrx.last = (uint8_t)((last - 1) & 0xf);
	p.payload.pwrx.deepest = (uint8_t)((deepest - 1) & 0xf);
	p.payload.pwrx.interrupt = reason == 'i';
	p.payload.pwrx.store = reason == 's';
	p.payload.pwrx.autonomous = reason == 'h';
	put(t, &p);
}

static void ptw(struct trace *t, uint8_t plc, uint64_t payload, int with_ip)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_ptw;
	p.payload.ptw.plc = plc;
	p.payload.ptw.payload = payload;
	p.payload.ptw.ip = with_ip ? 1 : 0;
	put(t, &p);
}

static void cfe(struct trace *t, enum pt_cfe_type type, uint8_t vector,
                int with_ip)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_cfe;
	p.payload.cfe.type = type;
	p.payload.cfe.vector = vector;
	p.payload.cfe.ip = with_ip ? 1 : 0;
	put(t, &p);
}

static void evd(struct trace *t, enum pt_evd_type type, uint64_t payload)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_evd;
	p.payload.evd.type = type;
	p.payload.evd.payload = payload;
	put(t, &p);
}

static void trig(struct trace *t, uint8_t trbv, int with_ip, int mult,
                 int icntv, uint16_t icnt)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_trig;
	p.payload.trig.trbv = trbv;
	p.payload.trig.ip = with_ip ? 1 : 0;
	p.payload.trig.mult = mult ? 1 : 0;
	p.payload.trig.icntv = icntv ? 1 : 0;
	p.payload.trig.icnt = icnt;
	put(t, &p);
}

static void bbp(struct trace *t, uint8_t type, int sz)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_bbp;
	p.payload.bbp.type = type;
	p.payload.bbp.sz = sz ? 1 : 0;
	put(t, &p);
}

static void bip(struct trace *t, uint8_t id, uint64_t payload)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_bip;
	p.payload.bip.id = id;
	p.payload.bip.payload = payload;
	put(t, &p);
}

static void bep(struct trace *t, int with_ip)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_bep;
	p.payload.bep.ip = with_ip ? 1 : 0;
	put(t, &p);
}

/* Every packet type, in the order of libipt's test dump-all-packets, then
 * the packets only ptdecode knows.  Starts without a PSB: --no-sync. */
static void gen_all_packets(struct trace *t)
{
	plain(t, ppt_psbend);
	plain(t, ppt_psb);
	plain(t, ppt_pad);
	plain(t, ppt_ovf);
	tnt(t, ppt_tnt_8, "tnnnt");
	tnt(t, ppt_tnt_64, "tnntnntnnttnntnntnnttnntnntnnttnntnntnnttnnttnt");
	ip(t, ppt_tip, pt_ipc_sext_48, 0xffffffffffff1000);
	ip(t, ppt_tip, pt_ipc_sext_48, 0x1000);
	ip(t, ppt_tip, pt_ipc_update_32, 0x1001);
	ip(t, ppt_tip, pt_ipc_update_16, 0x1002);
	ip(t, ppt_tip, pt_ipc_suppressed, 0x1003);
	ip(t, ppt_tip_pge, pt_ipc_sext_48, 0xffffffffffff2000);
	ip(t, ppt_tip_pge, pt_ipc_sext_48, 0x2000);
	ip(t, ppt_tip_pge, pt_ipc_update_32, 0x2001);
	ip(t, ppt_tip_pge, pt_ipc_update_16, 0x2002);
	ip(t, ppt_tip_pge, pt_ipc_suppressed, 0x2003);
	ip(t, ppt_tip_pgd, pt_ipc_sext_48, 0xffffffffffff3000);
	ip(t, ppt_tip_pgd, pt_ipc_sext_48, 0x3000);
	ip(t, ppt_tip_pgd, pt_ipc_update_32, 0x3001);
	ip(t, ppt_tip_pgd, pt_ipc_update_16, 0x3002);
	ip(t, ppt_tip_pgd, pt_ipc_suppressed, 0x3003);
	ip(t, ppt_fup, pt_ipc_sext_48, 0xffffffffffff4000);
	ip(t, ppt_fup, pt_ipc_sext_48, 0x4000);
	ip(t, ppt_fup, pt_ipc_update_32, 0x4001);
	ip(t, ppt_fup, pt_ipc_update_16, 0x4002);
	ip(t, ppt_fup, pt_ipc_suppressed, 0x4003);
	mode_exec(t, ptem_16bit, 0);
	mode_exec(t, ptem_32bit, 0);
	mode_exec(t, ptem_64bit, 0);
	mode_tsx(t, 1, 0);
	mode_tsx(t, 0, 0);
	mode_tsx(t, 0, 1);
	pip(t, 0xafafa0, 0);
	pip(t, 0xafafa0, 1);
	value(t, ppt_tsc, 0x12345);
	value(t, ppt_cbr, 0x24);
	tma(t, 0x12, 0x34);
	value(t, ppt_mtc, 0x94);
	value(t, ppt_cyc, 0x57);
	plain(t, ppt_stop);
	value(t, ppt_vmcs, 0xabcd000);
	value(t, ppt_mnt, 0x2a2242e5d4c3b2a1);
	ip(t, ppt_tip, pt_ipc_full, 0x00cccccccccc4000);
	ip(t, ppt_tip, pt_ipc_update_48, 0xffffffff4000);
	exstop(t, 0);
	exstop(t, 1);
	mwait(t, 0xb, 0x1);
	pwre(t, 0, 0, 0);
	pwre(t, 0, 0, 1);
	pwrx(t, 'i', 1, 6);
	pwrx(t, 's', 1, 6);
	pwrx(t, 'h', 1, 6);
	ptw(t, 0, 0x90abcdef, 1);
	ptw(t, 1, 0x1234567890abcdef, 0);
	mode_exec(t, ptem_16bit, 1);
	mode_exec(t, ptem_32bit, 1);
	mode_exec(t, ptem_64bit, 1);
	cfe(t, pt_cfe_iret, 0, 0);
	cfe(t, pt_cfe_smi, 0, 1);
	cfe(t, pt_cfe_smi, 0xf0, 1);
	cfe(t, pt_cfe_intr, 14, 0);
	evd(t, pt_evd_vmxr, 0xf00baa);
	trig(t, 0xa1, 0, 1, 0, 0);
	trig(t, 0xa1, 0, 0, 1, 23);
	trig(t, 0xa1, 1, 1, 1, 23);

	/* Beyond libipt's list: the other CFE and EVD formats... */
	cfe(t, pt_cfe_sipi, 0x9f, 0);
	cfe(t, pt_cfe_syscall, 0, 1);
	evd(t, pt_evd_cr2, 0x7fffdeadb000);
	/* ...and PEBS via PT: a block with 4-byte items, one with 8. */
	bbp(t, 0x12, 1);
	bip(t, 3, 0x12345678);
	bip(t, 0x1f, 0xdeadbeef);
	bep(t, 1);
	bbp(t, 0x01, 0);
	bip(t, 0, 0x1122334455667788);
	bep(t, 0);
}

/* IP compression against the last IP (libipt test ptdump-last-ip, plus a
 * suppressed IP and an update after it). */
static void gen_last_ip(struct trace *t)
{
	plain(t, ppt_psb);
	plain(t, ppt_psbend);
	ip(t, ppt_fup, pt_ipc_full, 0x0a00ccccddddeeee);
	ip(t, ppt_tip, pt_ipc_update_48, 0xffffeeeeffff);
	ip(t, ppt_tip_pge, pt_ipc_update_16, 0xdddd);
	ip(t, ppt_fup, pt_ipc_sext_48, 0xffffddddeeee);
	ip(t, ppt_tip_pgd, pt_ipc_update_32, 0xeeeeffff);
	ip(t, ppt_tip_pgd, pt_ipc_suppressed, 0);
	ip(t, ppt_tip_pge, pt_ipc_update_16, 0x1234);
}

/* --lastip before any IP: a suppressed IP is an error ("no ip") as in
 * libipt's ptdump; an update combines with zero bits. */
static void gen_last_ip_none(struct trace *t)
{
	plain(t, ppt_psb);
	plain(t, ppt_psbend);
	ip(t, ppt_tip_pgd, pt_ipc_suppressed, 0);
	ip(t, ppt_tip_pge, pt_ipc_update_16, 0x1000);
	ip(t, ppt_fup, pt_ipc_suppressed, 0);
}

/* MODE.Exec with --exec-mode (libipt test ptdump-exec-mode). */
static void gen_exec_mode(struct trace *t)
{
	plain(t, ppt_psb);
	mode_exec(t, ptem_64bit, 0);
	mode_exec(t, ptem_32bit, 0);
	mode_exec(t, ptem_16bit, 0);
	plain(t, ppt_psbend);
}

/* A decode error between two PSBs (libipt test ptdump-bad_opc-resync):
 * ptdump reports it and goes on at the second PSB. */
static void gen_resync(struct trace *t)
{
	static const uint8_t bad_opcode = 0xc9;
	int i;

	for (i = 0; i < 7; ++i)
		plain(t, ppt_pad);
	plain(t, ppt_psb);
	put_raw(t, &bad_opcode, 1);
	plain(t, ppt_psb);
	ip(t, ppt_fup, pt_ipc_sext_48, 0xa0001000);
	plain(t, ppt_psbend);
}

/* Timing packets and PADs, for --no-pad, --no-timing, --no-cyc, --quiet. */
static void gen_timing(struct trace *t)
{
	plain(t, ppt_psb);
	plain(t, ppt_pad);
	value(t, ppt_tsc, 0xa0000);
	tma(t, 0x18, 0x8);
	value(t, ppt_cbr, 0x2);
	plain(t, ppt_psbend);
	value(t, ppt_mtc, 0x2);
	plain(t, ppt_pad);
	value(t, ppt_cyc, 0x100);
	tnt(t, ppt_tnt_8, "tn");
	value(t, ppt_mtc, 0x3);
}

/* Two PSB segments, for file ranges: the second PSB is at 0x14. */
static void gen_two_psbs(struct trace *t)
{
	plain(t, ppt_psb);
	plain(t, ppt_psbend);
	tnt(t, ppt_tnt_8, "tt");
	plain(t, ppt_pad);
	plain(t, ppt_psb);
	plain(t, ppt_psbend);
	tnt(t, ppt_tnt_8, "nn");
}

/* SKD007: an OVF that replaced the second byte of a CYC.  Without the
 * erratum the bytes read as a 2-byte CYC and a 1-byte CYC; with it (e.g.
 * --cpu 6/78) as an OVF, listed at the CYC's offset 0x12. */
static void gen_skd007(struct trace *t)
{
	static const uint8_t cyc_ovf[3] = {0x07, 0x02, 0xf3};

	plain(t, ppt_psb);
	plain(t, ppt_psbend);
	put_raw(t, cyc_ovf, sizeof(cyc_ovf));
	ip(t, ppt_fup, pt_ipc_sext_48, 0x1000);
}

/* Foreign bytes before the first PSB: ptdump skips them silently. */
static void gen_header(struct trace *t)
{
	static const uint8_t header[8] = {0xde, 0xad, 0xbe, 0xef,
	                                  0xc9, 0xc9, 0xc9, 0xc9};

	put_raw(t, header, sizeof(header));
	plain(t, ppt_psb);
	plain(t, ppt_psbend);
}

static int write_trace(const char *dir, const char *name,
                       void (*gen)(struct trace *))
{
	struct trace t;
	uint64_t size = 0;
	char path[4096];
	FILE *file;
	int ok;

	if (trace_begin(&t) < 0)
		return -1;
	gen(&t);
	if (pt_enc_get_offset(t.encoder, &size) < 0)
		t.failed = 1;
	pt_free_encoder(t.encoder);
	if (t.failed) {
		fprintf(stderr, "gen_traces: failed to build %s\n", name);
		return -1;
	}

	if (snprintf(path, sizeof(path), "%s/%s.pt", dir, name) >=
	    (int)sizeof(path)) {
		fprintf(stderr, "gen_traces: path too long\n");
		return -1;
	}
	file = fopen(path, "wb");
	if (!file) {
		perror(path);
		return -1;
	}
	ok = fwrite(t.buf, 1, (size_t)size, file) == (size_t)size;
	ok = (fclose(file) == 0) && ok;
	if (!ok) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char *argv[])
{
	static const struct {
		const char *name;
		void (*gen)(struct trace *);
	} traces[] = {
	        {"all-packets", gen_all_packets},
	        {"last-ip", gen_last_ip},
	        {"exec-mode", gen_exec_mode},
	        {"resync", gen_resync},
	        {"timing", gen_timing},
	        {"two-psbs", gen_two_psbs},
	        {"header", gen_header},
	        {"skd007", gen_skd007},
	        {"last-ip-none", gen_last_ip_none},
	};
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_traces <directory>\n");
		return 1;
	}
	for (i = 0; i < sizeof(traces) / sizeof(traces[0]); ++i) {
		if (write_trace(argv[1], traces[i].name, traces[i].gen) < 0)
			return 1;
	}
	return 0;
}
