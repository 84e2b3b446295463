/* SPDX-License-Identifier: BSD-3-Clause */
/* Differential test of ptdecode's packet decoder and encoder against
 * libipt 2.0.5.
 *
 * Phases (all with the same seed, printed at the start and with every
 * failure; rerun one with --seed):
 *
 *   encode    Every packet type with exhaustive or boundary payloads,
 *             written by ptdecode's encoder, must decode in libipt (and in
 *             ptdecode) to the packet that was encoded; every proper prefix
 *             of each packet must fail the same way in both libraries.
 *   stream    A large random valid stream (pktgen.h): sync forward, then
 *             pt_pkt_next to the end.  ptdecode's pt_pkt_next, ptdecode's
 *             ptd_pkt_next_batch (random batch sizes) and libipt's
 *             pt_pkt_next must yield the generated packets at the generated
 *             offsets, with the same sizes and payloads.
 *   sync      pt_pkt_sync_forward from the start and pt_pkt_sync_backward
 *             from the end must visit every PSB of the stream in order in
 *             both libraries; so must syncs from random positions.
 *   corrupt   Slices of the stream with random byte changes: both libraries
 *             decode, resynchronizing after every error, and must report
 *             the same packets, the same error codes at the same offsets
 *             and the same synchronization points.
 *
 * Differences that are expected, and how they are compared:
 *
 *   - PWRE hw: ptdecode reads byte 2 bit 7 of the packet (the Intel SDM's
 *     definition), libipt 2.0.5 reads byte 2 bit 3.  Our encoder writes
 *     bit 7, so libipt sees hw = 0 for our hw = 1.  The hw bits are not
 *     compared with each other; instead each library's hw must equal the bit
 *     it reads from the raw bytes (ptdecode: bit 7, libipt: bit 3), and
 *     ptdecode's must equal the generated one.  docs/compatibility.md lists
 *     this difference.
 *   - MODE.Exec IF (bit 2 of the payload) does not exist in libipt 2.0.5,
 *     which leaves the iflag bit alone; the generator never sets it, and in
 *     corrupted streams ptdecode's iflag must equal the raw bit while
 *     libipt's is not looked at.
 *   - CFE, EVD, TRIG (libipt 2.1+) and ptdecode's PEBS packets BBP, BIP and
 *     BEP are unknown opcodes to libipt 2.0.5 (-pte_bad_opc).  The generator
 *     never emits them; when random corruption creates one, ptdecode decodes
 *     it (or reports -pte_eos if it is cut off by the end of the buffer)
 *     where libipt reports -pte_bad_opc at the same offset.  That is counted
 *     as a divergence and both decoders resynchronize from there.
 *
 * Exit status: 0 pass, 1 failure, 77 libipt.so.2 not loadable (skip). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "libipt_dl.h"
#include "pktgen.h"
#include "ptdecode/ptdecode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PTD_EXIT_SKIP 77

/* Stop a run after this many failures; the first one is the interesting
 * one anyway. */
#define PTD_MAX_FAILURES 20

/* The longest packet (PSB). */
#define PTD_PS_MAX_BYTES 16

/* The largest batch handed to ptd_pkt_next_batch(). */
#define PTD_BATCH_MAX 256

struct diff {
	const struct ptd_libipt *ipt;
	uint64_t seed;
	const char *phase;
	unsigned failures;
	int verbose;

	/* Totals for the summary. */
	uint64_t packets;
	uint64_t bytes;
	uint64_t syncs;
	uint64_t errors;
	uint64_t prefixes;
	uint64_t divergences;
	uint64_t skz84_end;

	/* Extra decoder flags for the corrupt phase (--errata). */
	unsigned dec_flags;

	/* Print every step of this corrupted slice (--trace N), or -1. */
	long trace_slice;
	int tracing;

	/* Known libipt 2.0.5 bugs and quirks (see sync_walk() and
	 * diff_ipt_backward_skips()): never failures. */
	uint64_t ipt_sync_backward_stuck;
	uint64_t ipt_sync_backward_skips;
	uint64_t ipt_sync_forward_internal;
};

/* ------------------------------------------------------------------------ */
/* Reporting                                                                 */
/* ------------------------------------------------------------------------ */

static void diff_hexdump(const uint8_t *buf, size_t size, uint64_t offset)
{
	uint64_t from = offset >= 16 ? offset - 16 : 0;
	uint64_t to = offset + 24 <= size ? offset + 24 : size;

	fprintf(stderr, "  bytes [0x%" PRIx64 ", 0x%" PRIx64 "):", from, to);
	for (uint64_t i = from; i < to; ++i)
		fprintf(stderr, "%s%02x", i == offset ? " |" : " ", buf[i]);
	fprintf(stderr, "%s\n", to == size ? " <end>" : "");
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void
diff_fail(struct diff *d, const uint8_t *buf, size_t size, uint64_t offset,
          const char *fmt, ...)
{
	va_list ap;

	d->failures += 1;
	if (d->failures > PTD_MAX_FAILURES)
		return;
	fprintf(stderr, "FAIL [%s] seed 0x%" PRIx64 " offset 0x%" PRIx64 ": ",
	        d->phase, d->seed, offset);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (buf)
		diff_hexdump(buf, size, offset);
	if (d->failures == PTD_MAX_FAILURES)
		fprintf(stderr, "(further failures not shown)\n");
}

static const char *diff_errname(int rc)
{
	static const char *const names[] = {"ok",
	                                    "internal",
	                                    "invalid",
	                                    "nosync",
	                                    "bad_opc",
	                                    "bad_packet",
	                                    "bad_context",
	                                    "eos",
	                                    "bad_query",
	                                    "nomem",
	                                    "bad_config",
	                                    "noip",
	                                    "ip_suppressed",
	                                    "nomap",
	                                    "bad_insn",
	                                    "no_time",
	                                    "no_cbr",
	                                    "bad_image",
	                                    "bad_lock",
	                                    "not_supported",
	                                    "retstack_empty",
	                                    "bad_retcomp",
	                                    "bad_status_update",
	                                    "no_enable",
	                                    "event_ignored",
	                                    "overflow",
	                                    "bad_file",
	                                    "bad_cpu"};

	if (rc >= 0)
		return "ok";
	if ((size_t)-rc < sizeof(names) / sizeof(names[0]))
		return names[-rc];
	return "?";
}

/* Describe a step result (packet or error) in @out. */
static void diff_describe(char *out, size_t size, int rc,
                          const struct pt_packet *pkt)
{
	const char *name;

	if (rc < 0) {
		snprintf(out, size, "error -pte_%s (%d)", diff_errname(rc), rc);
		return;
	}
	name = ptd_packet_type_name(pkt->type);
	switch (pkt->type) {
	case ppt_tnt_8:
	case ppt_tnt_64:
		snprintf(out, size, "%s size %u bits %u payload 0x%" PRIx64,
		         name, pkt->size, pkt->payload.tnt.bit_size,
		         pkt->payload.tnt.payload);
		return;
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		snprintf(out, size, "%s size %u ipc %d ip 0x%" PRIx64, name,
		         pkt->size, (int)pkt->payload.ip.ipc,
		         pkt->payload.ip.ip);
		return;
	case ppt_cyc:
		snprintf(out, size, "%s size %u value 0x%" PRIx64, name,
		         pkt->size, pkt->payload.cyc.value);
		return;
	default: {
		/* Everything else: the payload's first 16 bytes. */
		const uint8_t *p = (const uint8_t *)&pkt->payload;
		int n = snprintf(out, size, "%s size %u payload",
		                 name ? name : "?", pkt->size);

		for (int i = 0; i < 16 && n > 0 && (size_t)n < size; ++i)
			n += snprintf(out + n, size - (size_t)n, " %02x", p[i]);
		return;
	}
	}
}

/* ------------------------------------------------------------------------ */
/* Packet comparison                                                         */
/* ------------------------------------------------------------------------ */

/* Do not compare these fields (see the top of the file). */
enum { CMP_EXACT = 0, CMP_SKIP_PWRE_HW = 1 << 0, CMP_SKIP_IFLAG = 1 << 1 };

/* Compare type, size and every payload field of @a and @b.  Returns NULL if
 * they are equal, else the name of the first field that differs. */
static const char *diff_packets(const struct pt_packet *a,
                                const struct pt_packet *b, unsigned flags)
{
	if (a->type != b->type)
		return "type";
	if (a->size != b->size)
		return "size";

#define PTD_CMP(field)                                                         \
	do {                                                                   \
		if (a->payload.field != b->payload.field)                      \
			return #field;                                         \
	} while (0)

	switch (a->type) {
	case ppt_pad:
	case ppt_psb:
	case ppt_psbend:
	case ppt_stop:
	case ppt_ovf:
	case ppt_invalid:
		return NULL;
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		PTD_CMP(ip.ipc);
		PTD_CMP(ip.ip);
		return NULL;
	case ppt_tnt_8:
	case ppt_tnt_64:
		PTD_CMP(tnt.bit_size);
		PTD_CMP(tnt.payload);
		return NULL;
	case ppt_mode:
		PTD_CMP(mode.leaf);
		if (a->payload.mode.leaf == pt_mol_exec) {
			PTD_CMP(mode.bits.exec.csl);
			PTD_CMP(mode.bits.exec.csd);
			if (!(flags & CMP_SKIP_IFLAG))
				PTD_CMP(mode.bits.exec.iflag);
		} else {
			PTD_CMP(mode.bits.tsx.intx);
			PTD_CMP(mode.bits.tsx.abrt);
		}
		return NULL;
	case ppt_pip:
		PTD_CMP(pip.cr3);
		PTD_CMP(pip.nr);
		return NULL;
	case ppt_vmcs:
		PTD_CMP(vmcs.base);
		return NULL;
	case ppt_cbr:
		PTD_CMP(cbr.ratio);
		return NULL;
	case ppt_tsc:
		PTD_CMP(tsc.tsc);
		return NULL;
	case ppt_tma:
		PTD_CMP(tma.ctc);
		PTD_CMP(tma.fc);
		return NULL;
	case ppt_mtc:
		PTD_CMP(mtc.ctc);
		return NULL;
	case ppt_cyc:
		PTD_CMP(cyc.value);
		return NULL;
	case ppt_mnt:
		PTD_CMP(mnt.payload);
		return NULL;
	case ppt_exstop:
		PTD_CMP(exstop.ip);
		return NULL;
	case ppt_mwait:
		PTD_CMP(mwait.hints);
		PTD_CMP(mwait.ext);
		return NULL;
	case ppt_pwre:
		PTD_CMP(pwre.state);
		PTD_CMP(pwre.sub_state);
		if (!(flags & CMP_SKIP_PWRE_HW))
			PTD_CMP(pwre.hw);
		return NULL;
	case ppt_pwrx:
		PTD_CMP(pwrx.last);
		PTD_CMP(pwrx.deepest);
		PTD_CMP(pwrx.interrupt);
		PTD_CMP(pwrx.store);
		PTD_CMP(pwrx.autonomous);
		return NULL;
	case ppt_ptw:
		PTD_CMP(ptw.payload);
		PTD_CMP(ptw.plc);
		PTD_CMP(ptw.ip);
		return NULL;
	case ppt_cfe:
		PTD_CMP(cfe.type);
		PTD_CMP(cfe.vector);
		PTD_CMP(cfe.ip);
		return NULL;
	case ppt_evd:
		PTD_CMP(evd.type);
		PTD_CMP(evd.payload);
		return NULL;
	case ppt_trig:
		PTD_CMP(trig.trbv);
		PTD_CMP(trig.ip);
		PTD_CMP(trig.icntv);
		PTD_CMP(trig.mult);
		if (a->payload.trig.icntv)
			PTD_CMP(trig.icnt);
		return NULL;
	case ppt_bbp:
		PTD_CMP(bbp.type);
		PTD_CMP(bbp.sz);
		return NULL;
	case ppt_bip:
		PTD_CMP(bip.id);
		PTD_CMP(bip.payload);
		return NULL;
	case ppt_bep:
		PTD_CMP(bep.ip);
		return NULL;
	case ppt_unknown:
		PTD_CMP(unknown.packet);
		PTD_CMP(unknown.priv);
		return NULL;
	}
#undef PTD_CMP
	return "unexpected type";
}

/* The bits that each library reads from the raw bytes where the two
 * deliberately differ (see the top of the file).  Returns NULL if @ours and
 * @theirs each agree with the raw packet at @raw (@avail bytes). */
static const char *diff_raw_rules(const struct pt_packet *ours,
                                  const struct pt_packet *theirs,
                                  const uint8_t *raw, size_t avail)
{
	if (ours->type == ppt_pwre && avail >= 3) {
		if (ours->payload.pwre.hw != ((raw[2] >> 7) & 1u))
			return "ptdecode pwre.hw is not byte 2 bit 7";
		if (theirs && theirs->payload.pwre.hw != ((raw[2] >> 3) & 1u))
			return "libipt pwre.hw is not byte 2 bit 3";
	}
	if (ours->type == ppt_mode && ours->payload.mode.leaf == pt_mol_exec &&
	    avail >= 2 &&
	    ours->payload.mode.bits.exec.iflag != ((raw[1] >> 2) & 1u))
		return "ptdecode mode.exec.iflag is not payload bit 2";
	return NULL;
}

/* Packet types ptdecode decodes and libipt 2.0.5 does not know. */
static int diff_ours_only_type(enum pt_packet_type type)
{
	switch (type) {
	case ppt_cfe:
	case ppt_evd:
	case ppt_trig:
	case ppt_bbp:
	case ppt_bip:
	case ppt_bep:
		return 1;
	default:
		return 0;
	}
}

/* Whether the bytes at @pos start a packet that only ptdecode knows (the
 * packet may be cut off by @end). */
static int diff_ours_only_opcode(const uint8_t *pos, const uint8_t *end)
{
	if (pos >= end)
		return 0;
	if (pos[0] == 0xd9) /* TRIG */
		return 1;
	if (pos[0] != 0x02 || end - pos < 2)
		return 0;
	switch (pos[1]) {
	case 0x13: /* CFE */
	case 0x53: /* EVD */
	case 0x63: /* BBP */
	case 0x33: /* BEP */
	case 0xb3: /* BEP.IP */
		return 1;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------------ */
/* The three decoders                                                        */
/* ------------------------------------------------------------------------ */

/* How the decoders are configured. */
enum {
	/* Decode unknown opcodes with diff_unknown(). */
	DEC_CALLBACK = 1 << 0,
	/* The SKZ84 work-around (a corrupted TMA and the byte after it are
	 * one ppt_invalid packet), which libipt 2.0.5 implements the same. */
	DEC_SKZ84 = 1 << 1,
	/* The SKD007 work-around (an OVF that replaced a CYC's second byte),
	 * which libipt 2.0.5's packet decoder does not implement: only with
	 * --errata, which is expected to report differences. */
	DEC_SKD007 = 1 << 2
};

/* A decoder for unknown opcodes that both libraries call: it takes a size
 * from the byte after the opcode, and sometimes fails or returns a size
 * that is too large, deterministically. */
static int diff_unknown(struct pt_packet_unknown *unknown,
                        const struct pt_config *config, const uint8_t *pos,
                        void *context)
{
	uint8_t key = config->end - pos > 1 ? pos[1] : pos[0];

	unknown->priv = context;
	switch (key % 16) {
	case 0:
		return -pte_bad_packet;
	case 1:
		return 300; /* more than a packet's uint8_t size */
	default:
		return 1 + key % 24;
	}
}

/* ptdecode's pt_pkt_next, ptdecode's ptd_pkt_next_batch and libipt's
 * pt_pkt_next over the same buffer. */
struct decoders {
	const struct ptd_libipt *ipt;
	const uint8_t *begin;
	const uint8_t *end;
	struct pt_packet_decoder *ours;
	struct pt_packet_decoder *batch;
	struct ptd_ipt_pkt_decoder *theirs;

	/* Packets the batch decoder returned and we did not look at yet. */
	struct pt_packet bpkt[PTD_BATCH_MAX];
	uint64_t boff[PTD_BATCH_MAX];
	int bcount;
	int bnext;
	struct ptd_rng rng;
	int callback;
};

/* One decoding step of one decoder. */
struct step {
	int rc;          /* bytes consumed, or a negative error */
	uint64_t offset; /* where the packet starts or the error is */
	struct pt_packet pkt;
};

static void dec_close(struct decoders *ds)
{
	pt_pkt_free_decoder(ds->ours);
	pt_pkt_free_decoder(ds->batch);
	if (ds->theirs)
		ds->ipt->pkt_free_decoder(ds->theirs);
	free(ds);
}

static struct decoders *dec_open(const struct ptd_libipt *ipt, uint8_t *buf,
                                 size_t size, uint64_t seed, unsigned flags)
{
	struct decoders *ds;
	struct pt_config config;

	ds = calloc(1, sizeof(*ds));
	if (!ds)
		return NULL;
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	if (flags & DEC_CALLBACK) {
		config.decode.callback = diff_unknown;
		config.decode.context = ds;
		ds->callback = 1;
	}
	if (flags & DEC_SKZ84)
		config.errata.skz84 = 1;
	if (flags & DEC_SKD007)
		config.errata.skd007 = 1;
	ds->ipt = ipt;
	ds->begin = buf;
	ds->end = buf + size;
	ds->ours = pt_pkt_alloc_decoder(&config);
	ds->batch = pt_pkt_alloc_decoder(&config);
	ds->theirs = ipt->pkt_alloc_decoder(&config);
	if (!ds->ours || !ds->batch || !ds->theirs) {
		dec_close(ds);
		return NULL;
	}
	ptd_rng_seed(&ds->rng, seed);
	return ds;
}

static void step_ours(struct decoders *ds, struct step *s)
{
	memset(&s->pkt, 0, sizeof(s->pkt));
	s->offset = UINT64_MAX;
	(void)pt_pkt_get_offset(ds->ours, &s->offset);
	s->rc = pt_pkt_next(ds->ours, &s->pkt, sizeof(s->pkt));
}

static void step_theirs(struct decoders *ds, struct step *s)
{
	memset(&s->pkt, 0, sizeof(s->pkt));
	s->offset = UINT64_MAX;
	(void)ds->ipt->pkt_get_offset(ds->theirs, &s->offset);
	s->rc = ds->ipt->pkt_next(ds->theirs, &s->pkt, sizeof(s->pkt));
}

static void step_batch(struct decoders *ds, struct step *s)
{
	if (ds->bnext >= ds->bcount) {
		/* Mostly full batches, sometimes tiny ones. */
		size_t count = ptd_rng_below(&ds->rng, 4)
		                       ? PTD_BATCH_MAX
		                       : 1 + ptd_rng_below(&ds->rng, 8);
		int n;

		ds->bcount = ds->bnext = 0;
		memset(ds->bpkt, 0, sizeof(ds->bpkt));
		n = ptd_pkt_next_batch(ds->batch, ds->bpkt, count, ds->boff);
		if (n <= 0) {
			memset(&s->pkt, 0, sizeof(s->pkt));
			s->offset = UINT64_MAX;
			(void)pt_pkt_get_offset(ds->batch, &s->offset);
			s->rc = n ? n : -pte_internal;
			return;
		}
		ds->bcount = n;
	}
	s->pkt = ds->bpkt[ds->bnext];
	s->offset = ds->boff[ds->bnext];
	s->rc = s->pkt.size;
	ds->bnext += 1;
}

/* Synchronize all three decoders forward.  ptdecode's and libipt's
 * pt_pkt_sync_forward run from their current positions; the batch decoder,
 * which may have read ahead, is set to ptdecode's new sync point. */
static void dec_sync_forward(struct decoders *ds, int *rc_ours,
                             uint64_t *off_ours, int *rc_theirs,
                             uint64_t *off_theirs)
{
	*off_ours = *off_theirs = UINT64_MAX;
	*rc_ours = pt_pkt_sync_forward(ds->ours);
	if (*rc_ours >= 0)
		*rc_ours = pt_pkt_get_sync_offset(ds->ours, off_ours);
	*rc_theirs = ds->ipt->pkt_sync_forward(ds->theirs);
	if (*rc_theirs >= 0)
		*rc_theirs =
		        ds->ipt->pkt_get_sync_offset(ds->theirs, off_theirs);
	ds->bcount = ds->bnext = 0;
	if (*rc_ours >= 0)
		(void)pt_pkt_sync_set(ds->batch, *off_ours);
}

/* ------------------------------------------------------------------------ */
/* Lockstep decoding                                                         */
/* ------------------------------------------------------------------------ */

/* Where the expected packets of a valid stream come from. */
struct expect {
	/* Store the next expected packet and its raw size; return 0 at the
	 * end of the stream. */
	int (*next)(void *ctx, struct pt_packet *pkt, int *size);
	void *ctx;
};

/* PSB offsets seen in a valid stream, for the sync phase. */
struct offsets {
	uint64_t *v;
	size_t n;
	size_t cap;
};

static int offsets_push(struct offsets *o, uint64_t value)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 1024;
		uint64_t *v = realloc(o->v, cap * sizeof(*v));

		if (!v)
			return -1;
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = value;
	return 0;
}

/* Compare one step of the three decoders (and the expected packet, if
 * @exp is not NULL).  Returns 1 to continue, 0 when all decoders need to
 * resynchronize (error or documented divergence), -1 on a failure.  After
 * a divergence the decoders may be at different positions; then the offset
 * where they diverged goes to @diverged. */
static int diff_step(struct diff *d, struct decoders *ds,
                     const struct pt_packet *exp, uint64_t exp_offset,
                     const uint8_t *buf, size_t size, uint64_t *diverged)
{
	struct step o, b, t;
	char so[160], st[160];
	const char *field;
	uint64_t after;

	/* Describing the packets is slow: only do it for a failure. */
#define PTD_DESCRIBE()                                                         \
	do {                                                                   \
		diff_describe(so, sizeof(so), o.rc, &o.pkt);                   \
		diff_describe(st, sizeof(st), t.rc, &t.pkt);                   \
	} while (0)

	step_ours(ds, &o);
	step_batch(ds, &b);
	step_theirs(ds, &t);
	if (d->tracing) {
		PTD_DESCRIBE();
		fprintf(stderr,
		        "  0x%" PRIx64 ": ptdecode %s | 0x%" PRIx64
		        ": libipt %s\n",
		        o.offset, so, t.offset, st);
	}

	if (o.offset != t.offset) {
		diff_fail(d, buf, size, o.offset,
		          "ptdecode is at 0x%" PRIx64 ", libipt at 0x%" PRIx64,
		          o.offset, t.offset);
		return -1;
	}
	/* ptd_pkt_next_batch must agree with pt_pkt_next in every detail.
	 * The batch reports a packet's own offset, which differs from the
	 * decoder's offset when the SKD007 work-around skipped a CYC byte
	 * before an OVF. */
	if (o.rc >= 0 && o.pkt.type == ppt_ovf && o.rc == 2 &&
	    b.offset == o.offset + 1 && o.offset + 3 <= size &&
	    buf[o.offset + 1] == 0x02 && buf[o.offset + 2] == 0xf3)
		b.offset = o.offset;
	if (b.rc != o.rc || b.offset != o.offset ||
	    (o.rc >= 0 && diff_packets(&o.pkt, &b.pkt, CMP_EXACT))) {
		char sb[160];

		diff_describe(sb, sizeof(sb), b.rc, &b.pkt);
		PTD_DESCRIBE();
		diff_fail(d, buf, size, o.offset,
		          "ptd_pkt_next_batch: %s at 0x%" PRIx64
		          "; pt_pkt_next: %s",
		          sb, b.offset, so);
		return -1;
	}

	if (exp) {
		if (o.offset != exp_offset) {
			PTD_DESCRIBE();
			diff_fail(d, buf, size, o.offset,
			          "expected a packet at 0x%" PRIx64,
			          exp_offset);
			return -1;
		}
		if (o.rc < 0 || t.rc < 0) {
			char se[160];

			diff_describe(se, sizeof(se), 1, exp);
			PTD_DESCRIBE();
			diff_fail(d, buf, size, o.offset,
			          "valid %s: ptdecode %s; libipt %s", se, so,
			          st);
			return -1;
		}
		field = diff_packets(exp, &o.pkt, CMP_EXACT);
		if (field) {
			char se[160];

			diff_describe(se, sizeof(se), 1, exp);
			PTD_DESCRIBE();
			diff_fail(d, buf, size, o.offset,
			          "ptdecode differs from the encoded packet in "
			          "%s: encoded %s; decoded %s",
			          field, se, so);
			return -1;
		}
	}

	/* Packets that libipt 2.0.5 does not know: it reports -pte_bad_opc,
	 * or, with a decoder for unknown opcodes, whatever that says. */
	if ((t.rc == -pte_bad_opc ||
	     (ds->callback && (t.rc < 0 || t.pkt.type == ppt_unknown))) &&
	    ((o.rc >= 0 && diff_ours_only_type(o.pkt.type)) ||
	     (o.rc == -pte_eos &&
	      diff_ours_only_opcode(buf + o.offset, buf + size)))) {
		if (o.rc >= 0) {
			field = diff_raw_rules(&o.pkt, NULL, buf + o.offset,
			                       size - o.offset);
			if (field) {
				PTD_DESCRIBE();
				diff_fail(d, buf, size, o.offset, "%s: %s",
				          field, so);
				return -1;
			}
		}
		d->divergences += 1;
		*diverged = o.offset;
		return 0;
	}

	/* A corrupted TMA under SKZ84 is followed by one bogus byte; at the
	 * very end of the buffer libipt reports the 8-byte ppt_invalid
	 * packet although only the TMA's 7 bytes are there, ptdecode
	 * -pte_eos (docs/compatibility.md). */
	if (o.rc == -pte_eos && t.rc == 8 && t.pkt.type == ppt_invalid &&
	    size - o.offset == 7 && buf[o.offset] == 0x02 &&
	    buf[o.offset + 1] == 0x73) {
		d->skz84_end += 1;
		*diverged = o.offset;
		return 0;
	}

	if (o.rc >= 0 && t.rc >= 0) {
		if (o.rc != o.pkt.size || t.rc != t.pkt.size) {
			PTD_DESCRIBE();
			diff_fail(d, buf, size, o.offset,
			          "return value is not the packet size: "
			          "ptdecode %d, %s; libipt %d, %s",
			          o.rc, so, t.rc, st);
			return -1;
		}
		field = diff_packets(&o.pkt, &t.pkt,
		                     CMP_SKIP_PWRE_HW | CMP_SKIP_IFLAG);
		if (!field)
			field = diff_raw_rules(&o.pkt, &t.pkt, buf + o.offset,
			                       size - o.offset);
		if (field) {
			PTD_DESCRIBE();
			diff_fail(d, buf, size, o.offset,
			          "%s: ptdecode %s; libipt %s", field, so, st);
			return -1;
		}
		d->packets += 1;
		return 1;
	}

	if (o.rc != t.rc) {
		PTD_DESCRIBE();
		diff_fail(d, buf, size, o.offset, "ptdecode %s; libipt %s", so,
		          st);
		return -1;
	}

	/* The same error: neither decoder may have moved. */
	after = UINT64_MAX;
	(void)pt_pkt_get_offset(ds->ours, &after);
	if (after != o.offset) {
		PTD_DESCRIBE();
		diff_fail(d, buf, size, o.offset,
		          "ptdecode moved to 0x%" PRIx64 " on error %s", after,
		          so);
		return -1;
	}
	after = UINT64_MAX;
	(void)ds->ipt->pkt_get_offset(ds->theirs, &after);
	if (after != t.offset) {
		PTD_DESCRIBE();
		diff_fail(d, buf, size, o.offset,
		          "libipt moved to 0x%" PRIx64 " on error %s", after,
		          st);
		return -1;
	}
	if (o.rc != -pte_eos || o.offset != size)
		d->errors += 1;
	return 0;
#undef PTD_DESCRIBE
}

/* Decode [buf, buf + size) with all three decoders in lockstep: sync
 * forward, decode to the end, resync after every error.  With @exp, the
 * stream is valid and must decode to exactly the expected packets; the
 * offsets of the PSBs go to @psbs.  Returns 0 or -1 (failure reported). */
static int diff_lockstep(struct diff *d, uint8_t *buf, size_t size,
                         struct expect *exp, struct offsets *psbs,
                         uint64_t seed, unsigned flags)
{
	struct decoders *ds;
	struct pt_packet epkt;
	uint64_t eoff = 0;
	int esize = 0, have_exp = 0, result = -1;

	ds = dec_open(d->ipt, buf, size, seed, flags);
	if (!ds) {
		diff_fail(d, NULL, 0, 0, "cannot allocate decoders");
		return -1;
	}

	/* The expected stream starts with packets before the first PSB that
	 * a decoder does not see: skip them. */
	if (exp) {
		for (;;) {
			have_exp = exp->next(exp->ctx, &epkt, &esize);
			if (!have_exp || epkt.type == ppt_psb)
				break;
			eoff += (uint64_t)esize;
		}
	}

	for (;;) {
		int rc_o, rc_t, status;
		uint64_t off_o, off_t, diverged = UINT64_MAX;

		dec_sync_forward(ds, &rc_o, &off_o, &rc_t, &off_t);
		d->syncs += 1;
		if (d->tracing)
			fprintf(stderr,
			        "  sync: ptdecode %s 0x%" PRIx64
			        " | libipt %s 0x%" PRIx64 "\n",
			        diff_errname(rc_o), off_o, diff_errname(rc_t),
			        off_t);
		if (rc_o != rc_t || off_o != off_t) {
			diff_fail(
			        d, buf, size, rc_o >= 0 ? off_o : off_t,
			        "pt_pkt_sync_forward: ptdecode %s at 0x%" PRIx64
			        ", libipt %s at 0x%" PRIx64,
			        diff_errname(rc_o), off_o, diff_errname(rc_t),
			        off_t);
			goto out;
		}
		if (rc_o < 0) {
			if (rc_o != -pte_eos) {
				diff_fail(d, buf, size, 0,
				          "pt_pkt_sync_forward: %s",
				          diff_errname(rc_o));
				goto out;
			}
			break;
		}
		if (exp && (!have_exp || off_o != eoff)) {
			diff_fail(d, buf, size, off_o,
			          "synchronized at 0x%" PRIx64
			          ", expected a PSB at 0x%" PRIx64,
			          off_o, have_exp ? eoff : UINT64_MAX);
			goto out;
		}

		do {
			if (exp && have_exp && epkt.type == ppt_psb &&
			    offsets_push(psbs, eoff) < 0) {
				diff_fail(d, NULL, 0, 0, "out of memory");
				goto out;
			}
			diverged = UINT64_MAX;
			status =
			        diff_step(d, ds, exp && have_exp ? &epkt : NULL,
			                  eoff, buf, size, &diverged);
			if (status < 0)
				goto out;
			if (exp && status > 0) {
				eoff += (uint64_t)esize;
				have_exp = exp->next(exp->ctx, &epkt, &esize);
			}
		} while (status > 0);

		/* Resynchronize both from where they diverged: setting the
		 * position there makes pt_pkt_sync_forward search from just
		 * after it in both libraries. */
		if (diverged != UINT64_MAX &&
		    (pt_pkt_sync_set(ds->ours, diverged) < 0 ||
		     d->ipt->pkt_sync_set(ds->theirs, diverged) < 0)) {
			diff_fail(d, buf, size, diverged, "pt_pkt_sync_set");
			goto out;
		}

		if (exp) {
			/* A valid stream ends with -pte_eos at its end, after
			 * the last expected packet, and has no PSB after. */
			if (have_exp) {
				diff_fail(d, buf, size, eoff,
				          "stopped before the end of the "
				          "stream");
				goto out;
			}
		}
	}
	d->bytes += size;
	result = 0;
out:
	dec_close(ds);
	return result;
}

/* ------------------------------------------------------------------------ */
/* Phase: encode                                                             */
/* ------------------------------------------------------------------------ */

struct pkt_list {
	struct pt_packet *v;
	size_t n;
	size_t cap;
	int oom;
};

static void list_push(struct pkt_list *l, const struct pt_packet *pkt)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		struct pt_packet *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->oom = 1;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *pkt;
}

/* Boundary values of a @bits-wide field, plus a few random ones. */
static size_t boundary_values(uint64_t *v, unsigned bits, struct ptd_rng *rng)
{
	uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	size_t n = 0;

	v[n++] = 0;
	v[n++] = 1;
	v[n++] = mask;
	v[n++] = mask - 1;
	v[n++] = mask >> 1;
	v[n++] = (mask >> 1) + 1;
	v[n++] = UINT64_C(0x8202820282028202) & mask;
	v[n++] = UINT64_C(0x0282028202820282) & mask;
	v[n++] = UINT64_C(0x5555555555555555) & mask;
	v[n++] = UINT64_C(0xaaaaaaaaaaaaaaaa) & mask;
	for (int i = 0; i < 6; ++i)
		v[n++] = ptd_rng_next(rng) & mask;
	return n;
}

#define PTD_NBOUND 16

/* Every packet type with exhaustive small fields and boundary values of
 * large ones. */
static void encode_packets(struct pkt_list *l, struct ptd_rng *rng)
{
	static const enum pt_packet_type ip_types[] = {
	        ppt_fup, ppt_tip, ppt_tip_pge, ppt_tip_pgd};
	static const enum pt_ip_compression ipcs[] = {
	        pt_ipc_suppressed, pt_ipc_update_16, pt_ipc_update_32,
	        pt_ipc_sext_48,    pt_ipc_update_48, pt_ipc_full};
	static const unsigned ipc_bits[] = {0, 16, 32, 48, 48, 64};
	static const enum pt_packet_type plain[] = {ppt_pad, ppt_psbend,
	                                            ppt_stop, ppt_ovf};
	uint64_t v[PTD_NBOUND], w[PTD_NBOUND];
	struct pt_packet p;
	size_t n, m;

#define PTD_NEW(t)                                                             \
	do {                                                                   \
		memset(&p, 0, sizeof(p));                                      \
		p.type = (t);                                                  \
	} while (0)

	PTD_NEW(ppt_psb);
	list_push(l, &p);
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); ++i) {
		PTD_NEW(plain[i]);
		list_push(l, &p);
	}
	for (size_t i = 0; i < sizeof(ip_types) / sizeof(ip_types[0]); ++i) {
		for (size_t c = 0; c < sizeof(ipcs) / sizeof(ipcs[0]); ++c) {
			n = ipc_bits[c] ? boundary_values(v, ipc_bits[c], rng)
			                : 1;
			if (!ipc_bits[c])
				v[0] = 0;
			for (size_t k = 0; k < n; ++k) {
				PTD_NEW(ip_types[i]);
				p.payload.ip.ipc = ipcs[c];
				p.payload.ip.ip = v[k];
				list_push(l, &p);
			}
		}
	}
	for (unsigned bits = 1; bits <= 6; ++bits) {
		for (uint64_t x = 0; x < (UINT64_C(1) << bits); ++x) {
			PTD_NEW(ppt_tnt_8);
			p.payload.tnt.bit_size = (uint8_t)bits;
			p.payload.tnt.payload = x;
			list_push(l, &p);
		}
	}
	for (unsigned bits = 1; bits <= 47; ++bits) {
		n = boundary_values(v, bits, rng);
		for (size_t k = 0; k < n; ++k) {
			PTD_NEW(ppt_tnt_64);
			p.payload.tnt.bit_size = (uint8_t)bits;
			p.payload.tnt.payload = v[k];
			list_push(l, &p);
		}
	}
	for (unsigned bits = 0; bits < 4; ++bits) {
		PTD_NEW(ppt_mode);
		p.payload.mode.leaf = pt_mol_exec;
		p.payload.mode.bits.exec.csl = bits & 1;
		p.payload.mode.bits.exec.csd = (bits >> 1) & 1;
		list_push(l, &p);
		PTD_NEW(ppt_mode);
		p.payload.mode.leaf = pt_mol_tsx;
		p.payload.mode.bits.tsx.intx = bits & 1;
		p.payload.mode.bits.tsx.abrt = (bits >> 1) & 1;
		list_push(l, &p);
	}
	n = boundary_values(v, 47, rng);
	for (size_t k = 0; k < n; ++k) {
		for (unsigned nr = 0; nr < 2; ++nr) {
			PTD_NEW(ppt_pip);
			p.payload.pip.cr3 = v[k] << 5;
			p.payload.pip.nr = nr;
			list_push(l, &p);
		}
	}
	n = boundary_values(v, 40, rng);
	for (size_t k = 0; k < n; ++k) {
		PTD_NEW(ppt_vmcs);
		p.payload.vmcs.base = v[k] << 12;
		list_push(l, &p);
	}
	for (unsigned x = 0; x < 256; ++x) {
		PTD_NEW(ppt_cbr);
		p.payload.cbr.ratio = (uint8_t)x;
		list_push(l, &p);
		PTD_NEW(ppt_mtc);
		p.payload.mtc.ctc = (uint8_t)x;
		list_push(l, &p);
	}
	n = boundary_values(v, 56, rng);
	for (size_t k = 0; k < n; ++k) {
		PTD_NEW(ppt_tsc);
		p.payload.tsc.tsc = v[k];
		list_push(l, &p);
	}
	n = boundary_values(v, 16, rng);
	for (size_t k = 0; k < n; ++k) {
		for (unsigned fc = 0; fc < 512; ++fc) {
			PTD_NEW(ppt_tma);
			p.payload.tma.ctc = (uint16_t)v[k];
			p.payload.tma.fc = (uint16_t)fc;
			list_push(l, &p);
		}
	}
	/* CYC: every small value, and each payload width's boundaries up to
	 * the 61 bits of a 9-byte CYC. */
	for (uint64_t x = 0; x < 4096; ++x) {
		PTD_NEW(ppt_cyc);
		p.payload.cyc.value = x;
		list_push(l, &p);
	}
	for (unsigned bits = 1; bits <= 61; ++bits) {
		n = boundary_values(v, bits, rng);
		for (size_t k = 0; k < n; ++k) {
			PTD_NEW(ppt_cyc);
			p.payload.cyc.value = v[k];
			list_push(l, &p);
		}
	}
	n = boundary_values(v, 64, rng);
	for (size_t k = 0; k < n; ++k) {
		PTD_NEW(ppt_mnt);
		p.payload.mnt.payload = v[k];
		list_push(l, &p);
	}
	for (unsigned ip = 0; ip < 2; ++ip) {
		PTD_NEW(ppt_exstop);
		p.payload.exstop.ip = ip;
		list_push(l, &p);
	}
	n = boundary_values(v, 32, rng);
	m = boundary_values(w, 32, rng);
	for (size_t k = 0; k < n; ++k) {
		for (size_t j = 0; j < m; ++j) {
			PTD_NEW(ppt_mwait);
			p.payload.mwait.hints = (uint32_t)v[k];
			p.payload.mwait.ext = (uint32_t)w[j];
			list_push(l, &p);
		}
	}
	for (unsigned x = 0; x < 512; ++x) {
		PTD_NEW(ppt_pwre);
		p.payload.pwre.state = (uint8_t)(x & 0xf);
		p.payload.pwre.sub_state = (uint8_t)((x >> 4) & 0xf);
		p.payload.pwre.hw = (x >> 8) & 1;
		list_push(l, &p);
	}
	for (unsigned x = 0; x < 2048; ++x) {
		PTD_NEW(ppt_pwrx);
		p.payload.pwrx.last = (uint8_t)(x & 0xf);
		p.payload.pwrx.deepest = (uint8_t)((x >> 4) & 0xf);
		p.payload.pwrx.interrupt = (x >> 8) & 1;
		p.payload.pwrx.store = (x >> 9) & 1;
		p.payload.pwrx.autonomous = (x >> 10) & 1;
		list_push(l, &p);
	}
	for (unsigned plc = 0; plc < 2; ++plc) {
		n = boundary_values(v, plc ? 64 : 32, rng);
		for (size_t k = 0; k < n; ++k) {
			for (unsigned ip = 0; ip < 2; ++ip) {
				PTD_NEW(ppt_ptw);
				p.payload.ptw.plc = (uint8_t)plc;
				p.payload.ptw.payload = v[k];
				p.payload.ptw.ip = ip;
				list_push(l, &p);
			}
		}
	}
#undef PTD_NEW
}

struct list_expect {
	const struct pkt_list *list;
	const int *sizes;
	size_t next;
};

static int list_next(void *ctx, struct pt_packet *pkt, int *size)
{
	struct list_expect *le = ctx;

	if (le->next >= le->list->n)
		return 0;
	*pkt = le->list->v[le->next];
	*size = le->sizes[le->next];
	pkt->size = (uint8_t)*size;
	le->next += 1;
	return 1;
}

/* Decode the first @cut bytes of a packet alone (in a buffer of exactly
 * that size) with both libraries: both must fail the same way. */
static int encode_prefix(struct diff *d, const uint8_t *raw, size_t cut)
{
	struct pt_config config;
	struct pt_packet_decoder *ours;
	struct ptd_ipt_pkt_decoder *theirs;
	struct pt_packet po, pt;
	uint8_t *buf;
	int ro, rt, result = 0;

	buf = malloc(cut);
	if (!buf) {
		diff_fail(d, NULL, 0, 0, "out of memory");
		return -1;
	}
	memcpy(buf, raw, cut);
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + cut;
	ours = pt_pkt_alloc_decoder(&config);
	theirs = d->ipt->pkt_alloc_decoder(&config);
	if (!ours || !theirs) {
		diff_fail(d, NULL, 0, 0, "cannot allocate decoders");
		result = -1;
		goto out;
	}
	ro = pt_pkt_sync_set(ours, 0);
	rt = d->ipt->pkt_sync_set(theirs, 0);
	if (ro < 0 || rt < 0) {
		diff_fail(d, buf, cut, 0, "pt_pkt_sync_set(0): %d, %d", ro, rt);
		result = -1;
		goto out;
	}
	memset(&po, 0, sizeof(po));
	memset(&pt, 0, sizeof(pt));
	ro = pt_pkt_next(ours, &po, sizeof(po));
	rt = d->ipt->pkt_next(theirs, &pt, sizeof(pt));
	if (ro != rt || ro >= 0) {
		char so[160], st[160];

		diff_describe(so, sizeof(so), ro, &po);
		diff_describe(st, sizeof(st), rt, &pt);
		diff_fail(d, buf, cut, 0,
		          "packet cut to %zu bytes: ptdecode %s; libipt %s",
		          cut, so, st);
		result = -1;
	}
	d->prefixes += 1;
out:
	pt_pkt_free_decoder(ours);
	if (theirs)
		d->ipt->pkt_free_decoder(theirs);
	free(buf);
	return result;
}

static int phase_encode(struct diff *d)
{
	struct pkt_list list = {0};
	struct ptd_rng rng;
	struct pt_config config;
	struct pt_encoder *enc = NULL;
	struct list_expect le;
	struct expect exp;
	struct offsets psbs = {0};
	uint8_t *buf = NULL, *shrunk;
	int *sizes = NULL;
	uint64_t total = 0, end;
	int result = -1;

	d->phase = "encode";
	ptd_rng_seed(&rng, d->seed ^ UINT64_C(0x656e636f6465));
	encode_packets(&list, &rng);
	if (list.oom)
		goto oom;
	sizes = malloc(list.n * sizeof(*sizes));
	buf = malloc(list.n * PTD_PS_MAX_BYTES);
	if (!sizes || !buf)
		goto oom;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + list.n * PTD_PS_MAX_BYTES;
	enc = pt_alloc_encoder(&config);
	if (!enc)
		goto oom;
	for (size_t i = 0; i < list.n; ++i) {
		char s[160];
		int n = pt_enc_next(enc, &list.v[i]);

		if (n <= 0) {
			diff_describe(s, sizeof(s), 1, &list.v[i]);
			diff_fail(d, NULL, 0, total,
			          "pt_enc_next(%s) failed: %d", s, n);
			goto out;
		}
		sizes[i] = n;
		total += (uint64_t)n;
	}
	if (pt_enc_get_offset(enc, &end) < 0 || end != total) {
		diff_fail(d, NULL, 0, total, "pt_enc_get_offset is wrong");
		goto out;
	}
	/* Let the buffer end where the stream ends so that a read past it is
	 * caught by the sanitizers. */
	shrunk = realloc(buf, total);
	if (!shrunk)
		goto oom;
	buf = shrunk;

	le.list = &list;
	le.sizes = sizes;
	le.next = 0;
	exp.next = list_next;
	exp.ctx = &le;
	if (diff_lockstep(d, buf, total, &exp, &psbs, d->seed, 0) < 0)
		goto out;

	/* Every proper prefix of every packet. */
	d->phase = "encode/prefix";
	total = 0;
	for (size_t i = 0; i < list.n; ++i) {
		for (int cut = 1; cut < sizes[i]; ++cut) {
			if (encode_prefix(d, buf + total, (size_t)cut) < 0)
				goto out;
		}
		total += (uint64_t)sizes[i];
	}
	if (d->verbose)
		printf("  encode: %zu packets, %" PRIu64 " bytes\n", list.n,
		       total);
	result = 0;
	goto out;
oom:
	diff_fail(d, NULL, 0, 0, "out of memory");
out:
	pt_free_encoder(enc);
	free(buf);
	free(sizes);
	free(list.v);
	free(psbs.v);
	return result;
}

/* ------------------------------------------------------------------------ */
/* Phases: stream and sync                                                   */
/* ------------------------------------------------------------------------ */

/* Regenerates the packets of a generated stream. */
struct gen_expect {
	struct ptd_gen gen;
	uint64_t left;
	struct pt_encoder *enc;
	uint8_t scratch[PTD_PS_MAX_BYTES];
	const uint8_t *stream;
	uint64_t offset;
	int mismatch;
};

static int gen_next(void *ctx, struct pt_packet *pkt, int *size)
{
	struct gen_expect *ge = ctx;
	int n;

	if (!ge->left)
		return 0;
	ge->left -= 1;
	ptd_gen_next(&ge->gen, pkt);
	/* Encode it again to learn its size, and check that the generator
	 * is deterministic. */
	if (pt_enc_sync_set(ge->enc, 0) < 0)
		n = -pte_internal;
	else
		n = pt_enc_next(ge->enc, pkt);
	if (n <= 0 || memcmp(ge->scratch, ge->stream + ge->offset, (size_t)n)) {
		ge->mismatch = 1;
		n = n > 0 ? n : 1;
	}
	*size = n;
	pkt->size = (uint8_t)n;
	ge->offset += (uint64_t)n;
	return 1;
}

/* Walk the PSBs of @buf with pt_pkt_sync_forward from the start and
 * pt_pkt_sync_backward from the end: both libraries must visit exactly
 * the PSBs in @psbs. */
static int sync_walk(struct diff *d, uint8_t *buf, size_t size,
                     const struct offsets *psbs, int backward)
{
	struct pt_config config;
	struct pt_packet_decoder *ours;
	struct ptd_ipt_pkt_decoder *theirs;
	size_t i = 0;
	int result = -1;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	ours = pt_pkt_alloc_decoder(&config);
	theirs = d->ipt->pkt_alloc_decoder(&config);
	if (!ours || !theirs) {
		diff_fail(d, NULL, 0, 0, "cannot allocate decoders");
		goto out;
	}
	for (;; ++i) {
		uint64_t oo = UINT64_MAX, ot = UINT64_MAX;
		uint64_t expected = UINT64_MAX, before = size;
		int ro, rt, ok_o, ok_t;

		if (i < psbs->n)
			expected = psbs->v[backward ? psbs->n - 1 - i : i];
		(void)d->ipt->pkt_get_offset(theirs, &before);
		ro = backward ? pt_pkt_sync_backward(ours)
		              : pt_pkt_sync_forward(ours);
		rt = backward ? d->ipt->pkt_sync_backward(theirs)
		              : d->ipt->pkt_sync_forward(theirs);
		if (ro >= 0)
			ro = pt_pkt_get_sync_offset(ours, &oo);
		if (rt >= 0)
			rt = d->ipt->pkt_get_sync_offset(theirs, &ot);
		d->syncs += 1;

		/* Each library must find the next PSB of the stream, or
		 * -pte_eos after the last one. */
		if (i == psbs->n) {
			ok_o = ro == -pte_eos;
			ok_t = rt == -pte_eos;
		} else {
			ok_o = ro >= 0 && oo == expected;
			ok_t = rt >= 0 && ot == expected;
		}
		if (!ok_t && i < psbs->n && backward && rt >= 0 &&
		    ot >= before) {
			/* LIBIPT 2.0.5 BUG: pt_pkt_sync_backward can return
			 * a PSB at or after the current position, so that a
			 * backward walk loops forever.  2.0.5 looks for the
			 * PSB around the 8-byte word after the one that
			 * matched the pattern; when that word lies in the
			 * current PSB (the previous PSB starts 7 bytes past
			 * an 8-byte boundary and only a PSBEND separates the
			 * two) or in a run of the pattern that continues
			 * into it, it finds the current PSB again.  Later
			 * libipt looks around the matching word. */
			d->ipt_sync_backward_stuck += 1;
			ok_t = 2;
		}
		if (!ok_o || !ok_t) {
			diff_fail(d, buf, size,
			          expected != UINT64_MAX ? expected : oo,
			          "%s PSB %zu of %zu: expected 0x%" PRIx64
			          "; ptdecode %s 0x%" PRIx64
			          "; libipt %s 0x%" PRIx64,
			          backward ? "pt_pkt_sync_backward"
			                   : "pt_pkt_sync_forward",
			          i, psbs->n, expected, diff_errname(ro), oo,
			          diff_errname(rt), ot);
			goto out;
		}
		if (i == psbs->n)
			break;
		/* Continue a known bug's walk from the right PSB. */
		if ((ok_o == 2 && pt_pkt_sync_set(ours, expected) < 0) ||
		    (ok_t == 2 && d->ipt->pkt_sync_set(theirs, expected) < 0)) {
			diff_fail(d, buf, size, expected, "pt_pkt_sync_set");
			goto out;
		}
	}
	result = 0;
out:
	pt_pkt_free_decoder(ours);
	if (theirs)
		d->ipt->pkt_free_decoder(theirs);
	return result;
}

/* LIBIPT QUIRK: pt_pkt_sync_backward from a position that is not a packet
 * boundary.  libipt starts its search at the 8-byte boundary (of the
 * address, not the offset) at or before the position and only finds a PSB
 * one of whose aligned 8-byte words lies wholly below that boundary, so it
 * skips a PSB that starts a few bytes before the position or contains it.
 * ptdecode returns the last PSB that starts before the position, whatever
 * the alignment.  Returns 1 if the PSB at @ours, which starts before
 * @from, is one that libipt cannot see from @from. */
static int diff_ipt_backward_skips(const uint8_t *buf, uint64_t ours,
                                   uint64_t from)
{
	uintptr_t psb = (uintptr_t)(buf + ours);
	uintptr_t first_word = (psb + 7) & ~(uintptr_t)7;
	uintptr_t limit = (uintptr_t)(buf + from) & ~(uintptr_t)7;

	return ours < from && first_word + 8 > limit;
}

/* pt_pkt_sync_set to random offsets, then sync forward or backward: the
 * two libraries must agree. */
static int sync_random(struct diff *d, uint8_t *buf, size_t size,
                       const struct offsets *psbs, unsigned count)
{
	struct pt_config config;
	struct pt_packet_decoder *ours;
	struct ptd_ipt_pkt_decoder *theirs;
	struct ptd_rng rng;
	int result = -1;

	ptd_rng_seed(&rng, d->seed ^ UINT64_C(0x73796e63));
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	ours = pt_pkt_alloc_decoder(&config);
	theirs = d->ipt->pkt_alloc_decoder(&config);
	if (!ours || !theirs) {
		diff_fail(d, NULL, 0, 0, "cannot allocate decoders");
		goto out;
	}
	for (unsigned i = 0; i < count; ++i) {
		uint64_t from, oo = UINT64_MAX, ot = UINT64_MAX;
		int backward = (int)(i & 1), ro, rt;

		/* Half of the time near a PSB, where it is interesting. */
		if (psbs->n && ptd_rng_below(&rng, 2)) {
			from = psbs->v[ptd_rng_below(&rng, psbs->n)];
			from += ptd_rng_below(&rng, 40);
			from -= from >= 20 ? 20 : from;
			if (from > size)
				from = size;
		} else {
			from = ptd_rng_below(&rng, size + 1);
		}
		ro = pt_pkt_sync_set(ours, from);
		rt = d->ipt->pkt_sync_set(theirs, from);
		if (ro != rt) {
			diff_fail(d, buf, size, from,
			          "pt_pkt_sync_set: ptdecode %s, libipt %s",
			          diff_errname(ro), diff_errname(rt));
			goto out;
		}
		ro = backward ? pt_pkt_sync_backward(ours)
		              : pt_pkt_sync_forward(ours);
		rt = backward ? d->ipt->pkt_sync_backward(theirs)
		              : d->ipt->pkt_sync_forward(theirs);
		if (ro >= 0)
			ro = pt_pkt_get_sync_offset(ours, &oo);
		if (rt >= 0)
			rt = d->ipt->pkt_get_sync_offset(theirs, &ot);
		d->syncs += 1;
		if (backward && ro >= 0 && rt >= 0 && ot >= from && oo < from) {
			/* The libipt 2.0.5 bug described in sync_walk(). */
			d->ipt_sync_backward_stuck += 1;
			continue;
		}
		if (!backward && ro == -pte_eos && rt == -pte_internal &&
		    size - from < 16) {
			/* LIBIPT QUIRK: pt_pkt_sync_forward from a sync
			 * point less than a PSB's size before the end steps
			 * past the end and fails with -pte_internal;
			 * ptdecode reports -pte_eos. */
			d->ipt_sync_forward_internal += 1;
			continue;
		}
		if (backward && ro >= 0 &&
		    (rt == -pte_eos || (rt >= 0 && ot < oo)) &&
		    diff_ipt_backward_skips(buf, oo, from)) {
			d->ipt_sync_backward_skips += 1;
			continue;
		}
		if (ro != rt || oo != ot) {
			diff_fail(d, buf, size, from,
			          "%s from 0x%" PRIx64
			          ": ptdecode %s 0x%" PRIx64
			          "; libipt %s 0x%" PRIx64,
			          backward ? "pt_pkt_sync_backward"
			                   : "pt_pkt_sync_forward",
			          from, diff_errname(ro), oo, diff_errname(rt),
			          ot);
			goto out;
		}
	}
	result = 0;
out:
	pt_pkt_free_decoder(ours);
	if (theirs)
		d->ipt->pkt_free_decoder(theirs);
	return result;
}

/* ------------------------------------------------------------------------ */
/* Phase: corrupt                                                            */
/* ------------------------------------------------------------------------ */

static void corrupt(struct ptd_rng *rng, uint8_t *buf, size_t size)
{
	static const unsigned density[] = {16, 128, 1024, 8192};
	size_t changes = size / density[ptd_rng_below(rng, 4)] + 1;

	for (size_t i = 0; i < changes; ++i) {
		size_t at = ptd_rng_below(rng, size);

		switch (ptd_rng_below(rng, 8)) {
		case 0:
		case 1:
		case 2:
			buf[at] ^= (uint8_t)(1u << ptd_rng_below(rng, 8));
			break;
		case 3:
		case 4:
			buf[at] = (uint8_t)ptd_rng_next(rng);
			break;
		case 5:
			/* Opcode and PSB bytes make the decoders take more
			 * interesting paths. */
			buf[at] = ptd_rng_below(rng, 2) ? 0x02 : 0x82;
			break;
		case 6:
			buf[at] = 0;
			break;
		default: {
			/* A run of the PSB pattern, possibly a whole PSB. */
			size_t n = 2 + ptd_rng_below(rng, 20);

			for (size_t k = 0; k < n && at + k < size; ++k)
				buf[at + k] = (k & 1) ? 0x82 : 0x02;
			break;
		}
		}
	}
}

static int phase_corrupt(struct diff *d, const uint8_t *stream,
                         size_t stream_size, unsigned slices, size_t slice_max)
{
	struct ptd_rng rng;

	d->phase = "corrupt";
	ptd_rng_seed(&rng, d->seed ^ UINT64_C(0x636f7272));
	for (unsigned i = 0; i < slices; ++i) {
		size_t len = 1 + ptd_rng_below(&rng, slice_max);
		size_t at;
		uint8_t *buf;
		int rc;

		if (len > stream_size)
			len = stream_size;
		at = ptd_rng_below(&rng, stream_size - len + 1);
		/* A buffer of exactly the slice's size: the sanitizers catch
		 * any read past its end. */
		buf = malloc(len);
		if (!buf) {
			diff_fail(d, NULL, 0, 0, "out of memory");
			return -1;
		}
		memcpy(buf, stream + at, len);
		corrupt(&rng, buf, len);
		d->tracing = (long)i == d->trace_slice;
		/* Every other slice with a decoder for unknown opcodes, every
		 * third with the SKZ84 work-around. */
		rc = diff_lockstep(d, buf, len, NULL, NULL, d->seed + i,
		                   ((i & 1) ? DEC_CALLBACK : 0) |
		                           (i % 3 == 0 ? DEC_SKZ84 : 0) |
		                           d->dec_flags);
		if (rc < 0)
			fprintf(stderr,
			        "  (corrupted slice %u: stream bytes [0x%zx, "
			        "0x%zx) with random changes)\n",
			        i, at, at + len);
		free(buf);
		if (d->failures >= PTD_MAX_FAILURES)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Driver                                                                    */
/* ------------------------------------------------------------------------ */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int phase_stream(struct diff *d, size_t size, unsigned corrupt_slices,
                        size_t slice_max, unsigned random_syncs)
{
	struct gen_expect ge;
	struct expect exp;
	struct offsets psbs = {0};
	struct pt_config config;
	struct ptd_gen gen;
	uint8_t *buf, *shrunk;
	uint64_t npackets = 0;
	int64_t written;
	int result = -1;
	double t0;

	d->phase = "stream/generate";
	t0 = now();
	buf = malloc(size);
	if (!buf) {
		diff_fail(d, NULL, 0, 0, "out of memory");
		return -1;
	}
	ptd_gen_init(&gen, d->seed, PTD_GEN_UNIFORM);
	written = ptd_gen_fill(&gen, buf, size, &npackets);
	if (written <= 0) {
		diff_fail(d, NULL, 0, 0, "ptd_gen_fill: %" PRId64, written);
		free(buf);
		return -1;
	}
	shrunk = realloc(buf, (size_t)written);
	if (!shrunk) {
		diff_fail(d, NULL, 0, 0, "out of memory");
		free(buf);
		return -1;
	}
	buf = shrunk;
	if (d->verbose)
		printf("  generate: %" PRIu64 " packets, %" PRId64
		       " bytes, %.2f s\n",
		       npackets, written, now() - t0);

	d->phase = "stream";
	t0 = now();
	memset(&ge, 0, sizeof(ge));
	ptd_gen_init(&ge.gen, d->seed, PTD_GEN_UNIFORM);
	ge.left = npackets;
	ge.stream = buf;
	pt_config_init(&config);
	config.begin = ge.scratch;
	config.end = ge.scratch + sizeof(ge.scratch);
	ge.enc = pt_alloc_encoder(&config);
	if (!ge.enc) {
		diff_fail(d, NULL, 0, 0, "out of memory");
		goto out;
	}
	exp.next = gen_next;
	exp.ctx = &ge;
	if (diff_lockstep(d, buf, (size_t)written, &exp, &psbs, d->seed, 0) < 0)
		goto out;
	if (ge.mismatch) {
		diff_fail(d, NULL, 0, 0, "the generator is not deterministic");
		goto out;
	}
	if (d->verbose)
		printf("  stream: %zu PSBs, %.2f s\n", psbs.n, now() - t0);

	d->phase = "sync";
	t0 = now();
	if (sync_walk(d, buf, (size_t)written, &psbs, 0) < 0 ||
	    sync_walk(d, buf, (size_t)written, &psbs, 1) < 0 ||
	    sync_random(d, buf, (size_t)written, &psbs, random_syncs) < 0)
		goto out;
	if (d->verbose)
		printf("  sync: %.2f s\n", now() - t0);

	t0 = now();
	if (phase_corrupt(d, buf, (size_t)written, corrupt_slices, slice_max) <
	    0)
		goto out;
	if (d->verbose)
		printf("  corrupt: %u slices, %.2f s\n", corrupt_slices,
		       now() - t0);
	result = 0;
out:
	pt_free_encoder(ge.enc);
	free(psbs.v);
	free(buf);
	return result;
}

static void usage(const char *prog)
{
	fprintf(stderr,
	        "usage: %s [--seed N|random] [--mb N] [--corrupt N] "
	        "[--slice-kb N] [--syncs N] [--quiet]\n"
	        "  --seed N      seed (default 1); 'random' picks one\n"
	        "  --mb N        size of the random stream in MiB (default "
	        "32)\n"
	        "  --corrupt N   corrupted slices to decode (default 64)\n"
	        "  --slice-kb N  maximum size of a slice in KiB (default "
	        "256)\n"
	        "  --syncs N     syncs from random offsets (default 20000)\n"
	        "  --errata      corrupt phase with the SKD007 work-around, "
	        "which libipt\n"
	        "                2.0.5's packet decoder lacks (expect "
	        "differences)\n"
	        "  --trace N     print every step of corrupted slice N\n",
	        prog);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return (errno || !*s || *end) ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct ptd_libipt ipt;
	struct diff d;
	struct pt_version ver;
	uint64_t mb = 32, slices = 64, slice_kb = 256, syncs = 20000;
	char msg[512];
	double t0 = now();

	memset(&d, 0, sizeof(d));
	d.seed = 1;
	d.verbose = 1;
	d.trace_slice = -1;
	for (int i = 1; i < argc; ++i) {
		const char *arg = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t *dst = NULL;

		if (!strcmp(arg, "--quiet")) {
			d.verbose = 0;
			continue;
		}
		if (!strcmp(arg, "--errata")) {
			d.dec_flags |= DEC_SKD007;
			continue;
		}
		if (!strcmp(arg, "--trace") && val) {
			d.trace_slice = strtol(val, NULL, 0);
			++i;
			continue;
		}
		if (!strcmp(arg, "--seed") && val && !strcmp(val, "random")) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			d.seed = (uint64_t)ts.tv_sec * 1000000007u +
			         (uint64_t)ts.tv_nsec;
			++i;
			continue;
		}
		if (!strcmp(arg, "--seed"))
			dst = &d.seed;
		else if (!strcmp(arg, "--mb"))
			dst = &mb;
		else if (!strcmp(arg, "--corrupt"))
			dst = &slices;
		else if (!strcmp(arg, "--slice-kb"))
			dst = &slice_kb;
		else if (!strcmp(arg, "--syncs"))
			dst = &syncs;
		if (!dst || !val || parse_u64(val, dst) < 0 ||
		    (dst == &mb && !mb) || (dst == &slice_kb && !slice_kb) ||
		    mb > 4096 || slices > 1000000 || slice_kb > 1048576 ||
		    syncs > 100000000) {
			usage(argv[0]);
			return 2;
		}
		++i;
	}

	if (ptd_libipt_open(&ipt, msg, sizeof(msg)) < 0) {
		printf("SKIP: %s\n", msg);
		return PTD_EXIT_SKIP;
	}
	ver = ipt.library_version();
	printf("diff_pkt: ptdecode %s against libipt %u.%u.%u%s, seed "
	       "0x%" PRIx64 " (rerun with --seed 0x%" PRIx64 ")\n",
	       ptd_version_string(), ver.major, ver.minor, ver.patch,
	       ver.ext ? ver.ext : "", d.seed, d.seed);
	d.ipt = &ipt;

	if (phase_encode(&d) == 0)
		(void)phase_stream(&d, (size_t)(mb << 20), (unsigned)slices,
		                   (size_t)(slice_kb << 10), (unsigned)syncs);

	ptd_libipt_close(&ipt);
	printf("diff_pkt: %" PRIu64 " packets in %" PRIu64
	       " bytes compared, %" PRIu64 " syncs, %" PRIu64
	       " decode errors, %" PRIu64 " cut packets, %" PRIu64
	       " divergences on packets libipt 2.0.5 lacks, %.1f s\n",
	       d.packets, d.bytes, d.syncs, d.errors, d.prefixes, d.divergences,
	       now() - t0);
	if (d.skz84_end)
		printf("diff_pkt: %" PRIu64
		       " SKZ84 TMAs at the end of a buffer "
		       "(documented difference)\n",
		       d.skz84_end);
	if (d.ipt_sync_forward_internal)
		printf("diff_pkt: libipt quirk seen %" PRIu64
		       " times: pt_pkt_sync_forward from a sync point in the "
		       "last 15 bytes fails with -pte_internal (ptdecode: "
		       "-pte_eos)\n",
		       d.ipt_sync_forward_internal);
	if (d.ipt_sync_backward_stuck)
		printf("diff_pkt: libipt 2.0.5 bug seen %" PRIu64
		       " times: pt_pkt_sync_backward returned a PSB at or "
		       "after the current position (ptdecode's result was "
		       "checked against the generated stream instead)\n",
		       d.ipt_sync_backward_stuck);
	if (d.ipt_sync_backward_skips)
		printf("diff_pkt: libipt quirk seen %" PRIu64
		       " times: pt_pkt_sync_backward from inside or just after "
		       "a PSB skips that PSB\n",
		       d.ipt_sync_backward_skips);
	if (d.failures) {
		printf("diff_pkt: FAILED (%u failures), seed 0x%" PRIx64 "\n",
		       d.failures, d.seed);
		return 1;
	}
	printf("diff_pkt: PASS\n");
	return 0;
}
