/* SPDX-License-Identifier: BSD-3-Clause */
/* Self-checks of a simulated trace; see check.h. */
#include "check.h"

#include "ptdecode/ptdecode.h"
#include "sim_math.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

struct ptsim_checker {
	const struct ptsim_trace *t;
	FILE *out;
	unsigned max;
	unsigned failures;
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
ptsim_fail(struct ptsim_checker *c, const struct ptsim_rec *r, const char *fmt,
           ...)
{
	va_list ap;

	c->failures += 1;
	if (!c->out || c->failures > c->max)
		return;
	fprintf(c->out, "%s seed %" PRIu64 ": ", c->t->params.name,
	        c->t->params.seed);
	if (r)
		fprintf(c->out, "%s at 0x%" PRIx64 ": ",
		        ptd_packet_type_name(r->packet.type), r->offset);
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fputc('\n', c->out);
}

/* The records cover the trace, in order, and decode to themselves. */
static void ptsim_check_layout(struct ptsim_checker *c)
{
	const struct ptsim_trace *t = c->t;
	struct pt_packet_decoder *dec;
	struct pt_config config;
	size_t i;

	if (!t->nrecs || t->recs[0].packet.type != ppt_psb ||
	    t->recs[0].offset != 0) {
		ptsim_fail(c, NULL, "the trace does not start with a PSB");
		return;
	}
	if (t->recs[t->nrecs - 1].packet.type != ppt_tip_pgd)
		ptsim_fail(c, NULL, "the trace does not end with a TIP.PGD");
	if (ptsim_decoder_config(&config, &t->params, t->buf,
	                         t->buf + t->size) < 0) {
		ptsim_fail(c, NULL, "bad cpu '%s'", t->params.cpu);
		return;
	}
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec || pt_pkt_sync_set(dec, 0) < 0) {
		ptsim_fail(c, NULL, "cannot allocate a packet decoder");
		pt_pkt_free_decoder(dec);
		return;
	}
	for (i = 0; i < t->nrecs; ++i) {
		const struct ptsim_rec *r = &t->recs[i];
		struct pt_packet pkt;
		uint64_t offset = 0;
		int size;

		(void)pt_pkt_get_offset(dec, &offset);
		size = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (size < 0 || offset != r->offset ||
		    pkt.type != r->packet.type || pkt.size != r->packet.size) {
			ptsim_fail(c, r, "the trace has %s at 0x%" PRIx64,
			           size < 0 ? pt_errstr(pt_errcode(size))
			                    : ptd_packet_type_name(pkt.type),
			           offset);
			break;
		}
	}
	pt_pkt_free_decoder(dec);
	if (i == t->nrecs &&
	    t->recs[i - 1].offset + t->recs[i - 1].packet.size != t->size)
		ptsim_fail(c, NULL, "bytes after the last packet");
}

/* Time and the counters never run backwards; VMX scaling is applied to
 * every TSC. */
static void ptsim_check_monotonic(struct ptsim_checker *c)
{
	const struct ptsim_trace *t = c->t;
	size_t i;

	for (i = 0; i < t->nrecs; ++i) {
		const struct ptsim_rec *r = &t->recs[i], *prev = r - 1;

		if (r->tsc != ptsim_guest_tsc(&t->params, r->host))
			ptsim_fail(c, r,
			           "tsc 0x%" PRIx64 " is not the guest TSC of "
			           "host 0x%" PRIx64,
			           r->tsc, r->host);
		if (i == 0)
			continue;
		if (r->tsc < prev->tsc || r->host < prev->host ||
		    r->art < prev->art || r->cycles < prev->cycles)
			ptsim_fail(c, r, "time runs backwards");
	}
}

/* TSC payloads are the true TSC; a TMA holds the crystal clock and the
 * fast counter at its TSC. */
static void ptsim_check_tsc_tma(struct ptsim_checker *c)
{
	const struct ptsim_trace *t = c->t;
	const struct ptsim_params *p = &t->params;
	size_t i;

	for (i = 0; i < t->nrecs; ++i) {
		const struct ptsim_rec *r = &t->recs[i];
		uint64_t edge, next;

		if (r->packet.type == ppt_tsc &&
		    r->packet.payload.tsc.tsc !=
		            (r->tsc & ((UINT64_C(1) << 56) - 1)))
			ptsim_fail(c, r,
			           "payload 0x%" PRIx64 ", truth 0x%" PRIx64,
			           r->packet.payload.tsc.tsc, r->tsc);
		if (r->packet.type != ppt_tma)
			continue;
		if (i == 0 || r[-1].packet.type != ppt_tsc ||
		    r[-1].host != r->host) {
			ptsim_fail(c, r, "not right after its TSC");
			continue;
		}
		edge = ptsim_edge_host(p, r->art);
		next = ptsim_edge_host(p, r->art + 1);
		if (r->packet.payload.tma.ctc != (r->art & 0xffff))
			ptsim_fail(c, r, "ctc 0x%x, ART 0x%" PRIx64,
			           r->packet.payload.tma.ctc, r->art);
		/* Both edges are rounded down to whole ticks, so the TSC
		 * may be equal to the next edge's. */
		if (r->host < edge || r->host > next ||
		    r->packet.payload.tma.fc != r->host - edge)
			ptsim_fail(c, r,
			           "fc 0x%x, but the TSC is 0x%" PRIx64
			           " ticks after the crystal clock edge",
			           r->packet.payload.tma.fc, r->host - edge);
	}
}

/* An MTC is sent at a crystal clock edge that is a multiple of
 * 2^mtc_freq and carries CTC[mtc_freq+7:mtc_freq]; dropped ones show as
 * skipped periods. */
static void ptsim_check_mtc(struct ptsim_checker *c, uint64_t *skipped)
{
	const struct ptsim_trace *t = c->t;
	const struct ptsim_params *p = &t->params;
	uint64_t period = UINT64_C(1) << p->mtc_freq, last = 0;
	int have_last = 0;
	size_t i;

	*skipped = 0;
	for (i = 0; i < t->nrecs; ++i) {
		const struct ptsim_rec *r = &t->recs[i];

		if (r->flags & PTSIM_WAKE)
			have_last = 0; /* no MTCs during a deep sleep */
		if (r->packet.type != ppt_mtc)
			continue;
		if (!p->mtc)
			ptsim_fail(c, r, "an MTC with MTCEn 0");
		if (r->art % period != 0 ||
		    r->packet.payload.mtc.ctc !=
		            ((r->art >> p->mtc_freq) & 0xff))
			ptsim_fail(c, r, "payload 0x%x at ART 0x%" PRIx64,
			           r->packet.payload.mtc.ctc, r->art);
		if (r->host != ptsim_edge_host(p, r->art))
			ptsim_fail(
			        c, r,
			        "host TSC 0x%" PRIx64
			        " is not its crystal clock edge's 0x%" PRIx64,
			        r->host, ptsim_edge_host(p, r->art));
		if (have_last) {
			if (r->art <= last)
				ptsim_fail(c, r, "ART does not advance");
			else
				*skipped += (r->art - last) / period - 1;
		}
		last = r->art;
		have_last = 1;
	}
}

/* Every CYC counts the core cycles since the previous one; every
 * CYC-eligible packet outside PSB+ is preceded by a CYC when enough cycles
 * passed; no CYC counter runs past the wrap limit. */
static void ptsim_check_cyc(struct ptsim_checker *c)
{
	const struct ptsim_trace *t = c->t;
	const struct ptsim_params *p = &t->params;
	uint64_t threshold = ptsim_params_cyc_threshold(p), last = 0;
	size_t i;

	if (threshold == 0)
		threshold = 1;
	for (i = 0; i < t->nrecs; ++i) {
		const struct ptsim_rec *r = &t->recs[i];
		uint64_t since = r->cycles - last;

		if (r->packet.type == ppt_cyc) {
			if (!p->cyc)
				ptsim_fail(c, r, "a CYC with CYCEn 0");
			if (r->packet.payload.cyc.value != since)
				ptsim_fail(c, r,
				           "payload %" PRIu64 ", but %" PRIu64
				           " cycles since the last CYC",
				           r->packet.payload.cyc.value, since);
			if ((r->flags & PTSIM_STANDALONE) && p->cyc_wrap &&
			    since < p->cyc_wrap)
				ptsim_fail(c, r, "standalone before the wrap");
			last = r->cycles;
			continue;
		}
		if (p->cyc && p->cyc_wrap && since > p->cyc_wrap)
			ptsim_fail(c, r,
			           "%" PRIu64 " cycles since the last CYC",
			           since);
		if (p->cyc && (r->flags & PTSIM_ELIGIBLE) &&
		    !(r->flags & PTSIM_HEADER) && since >= threshold)
			ptsim_fail(c, r,
			           "no CYC for %" PRIu64 " cycles (threshold "
			           "%" PRIu64 ")",
			           since, threshold);
	}
}

/* Between two packets in one core clock segment the cycles advance at
 * cbr / nom_freq (1 + core_ppm / 10^6) per TSC tick, within rounding. */
static void ptsim_check_core(struct ptsim_checker *c)
{
	const struct ptsim_trace *t = c->t;
	const struct ptsim_params *p = &t->params;
	uint64_t den = p->nom_freq * 1000000u;
	size_t i;

	for (i = 1; i < t->nrecs; ++i) {
		const struct ptsim_rec *r = &t->recs[i], *prev = r - 1;
		uint64_t num =
		        (uint64_t)r->cbr * (uint64_t)(1000000 + p->core_ppm);
		uint64_t ticks = r->host - prev->host, lo, hi;
		uint64_t cycles = r->cycles - prev->cycles;

		if (r->cbr != prev->cbr || r->packet.type == ppt_cbr)
			continue;
		/* The host TSCs are rounded down: up to one tick more or
		 * less elapsed, plus a partial cycle at either end. */
		hi = ptsim_muldiv_ceil(ticks + 1, num, den) + 1;
		lo = ticks ? ptsim_muldiv(ticks - 1, num, den) : 0;
		lo = lo > 1 ? lo - 1 : 0;
		if (cycles > hi)
			ptsim_fail(c, r,
			           "%" PRIu64 " cycles in %" PRIu64
			           " ticks: faster than the core clock",
			           cycles, ticks);
		else if (cycles < lo && !(r->flags & PTSIM_WAKE))
			ptsim_fail(c, r,
			           "%" PRIu64 " cycles in %" PRIu64
			           " ticks without a deep sleep",
			           cycles, ticks);
	}
}

/* Every PSB+ is complete and takes no time; once psb_period bytes were
 * written since the last PSB+, the next PSB+ comes before any packet other
 * than an MTC and its CYC (a due PSB+ waits for the next event that is not
 * an MTC). */
static void ptsim_check_psb(struct ptsim_checker *c)
{
	const struct ptsim_trace *t = c->t;
	uint64_t bytes = 0, due;
	int in_psb = 0;
	size_t i;

	for (i = 0; i < t->nrecs; ++i) {
		const struct ptsim_rec *r = &t->recs[i];
		enum pt_packet_type type = r->packet.type;

		if (type == ppt_psb) {
			if (in_psb)
				ptsim_fail(c, r, "PSB inside PSB+");
			in_psb = 1;
			bytes = 0;
		}
		if (in_psb != !!(r->flags & PTSIM_HEADER))
			ptsim_fail(c, r, "PSB+ flag wrong");
		if (in_psb && type != ppt_psb && r->tsc != r[-1].tsc)
			ptsim_fail(c, r, "time passes inside PSB+");
		if (type == ppt_psbend) {
			in_psb = 0;
			continue;
		}
		if (in_psb)
			continue;
		/* The CYC right before a packet belongs to its event. */
		due = bytes;
		if (r[-1].packet.type == ppt_cyc &&
		    !(r[-1].flags & PTSIM_STANDALONE) && r[-1].host == r->host)
			due -= r[-1].packet.size;
		if (due >= t->params.psb_period && type != ppt_mtc &&
		    type != ppt_cyc)
			ptsim_fail(c, r,
			           "0x%" PRIx64 " bytes since the last PSB",
			           bytes);
		bytes += r->packet.size;
	}
	if (in_psb)
		ptsim_fail(c, NULL, "the trace ends inside PSB+");
}

unsigned ptsim_check_trace(const struct ptsim_trace *trace, FILE *out,
                           unsigned max)
{
	struct ptsim_checker c;
	uint64_t skipped;

	memset(&c, 0, sizeof(c));
	c.t = trace;
	c.out = out;
	c.max = max;
	ptsim_check_layout(&c);
	ptsim_check_monotonic(&c);
	ptsim_check_tsc_tma(&c);
	ptsim_check_mtc(&c, &skipped);
	ptsim_check_cyc(&c);
	ptsim_check_core(&c);
	ptsim_check_psb(&c);
	/* Generated in memory, the trace knows how many MTCs it dropped;
	 * the payloads must show exactly those (read from files, the
	 * count is not known; across a deep sleep, drops cannot be told
	 * from the sleep; drops after the last MTC do not show). */
	if (trace->stats.mtc_emitted && !trace->stats.sleeps &&
	    skipped + trace->stats.mtc_dropped_trailing !=
	            trace->stats.mtc_dropped)
		ptsim_fail(&c, NULL,
		           "the MTC payloads skip %" PRIu64 " periods, %" PRIu64
		           " MTCs were dropped",
		           skipped, trace->stats.mtc_dropped);
	return c.failures;
}
