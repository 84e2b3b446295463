/* SPDX-License-Identifier: BSD-3-Clause */
/* The ptsim trace generator; see sim.h and docs/ptsim.md.
 *
 * Time is kept in sub-ticks: 1 host TSC tick = eax * PTSIM_SUBTICKS
 * sub-ticks, so that one crystal clock (ART) period, ebx / eax TSC ticks, is
 * exactly ebx * PTSIM_SUBTICKS sub-ticks and every crystal clock edge falls
 * on an integer time.  The core clock runs at cbr / nom_freq core cycles per
 * TSC tick (times 1 + core_ppm / 10^6) in segments that start at every
 * frequency change and every wake-up; within a segment, cycle counts and
 * cycle times are computed exactly with 128-bit intermediate products. */
#include "sim.h"

#include "ptdecode/ptdecode.h"
#include "sim_math.h"

#include <stdlib.h>
#include <string.h>

/* The longest packet we encode (PSB). */
#define PTSIM_SCRATCH 64

/* The synthetic program: a loop whose indirect branches go to one of these
 * targets. */
static const uint64_t ptsim_targets[] = {0x401000, 0x401480, 0x402a00,
                                         0x7f3a1c0042f0};
#define PTSIM_NTARGETS (sizeof(ptsim_targets) / sizeof(ptsim_targets[0]))

struct ptsim_gen {
	const struct ptsim_params *p;
	struct ptsim_trace *t;
	struct ptsim_rng rng;
	struct pt_encoder *enc;
	uint8_t scratch[PTSIM_SCRATCH];
	char *msg;
	size_t msize;

	uint64_t unit;      /* sub-ticks per TSC tick */
	uint64_t ctc_units; /* sub-ticks per ART tick */
	uint64_t tau;       /* now */
	uint64_t end_tau;

	/* The core clock segment: cycle @seg_cyc at @seg_tau, then
	 * @num / @den cycles per sub-tick. */
	uint64_t seg_tau, seg_cyc, num, den;
	uint8_t cbr;

	uint64_t cyc_last; /* the cycle count at the last CYC */
	uint64_t cyc_threshold;
	uint64_t next_branch_cyc;
	uint64_t next_mtc_art;
	uint64_t drop_left; /* MTCs still to drop in this burst */
	uint64_t drop_run;  /* MTCs dropped in a row */
	uint64_t next_freq_tau, next_sleep_tau;
	uint64_t sleep_tau, wake_tau; /* the last deep sleep */

	uint64_t psb_bytes;
	int psb_due;
	uint8_t extra_flags; /* added to every record (PTSIM_WAKE) */
	int enabled;
	uint64_t ip;
};

/* ------------------------------------------------------------------------ */
/* The clocks                                                                */
/* ------------------------------------------------------------------------ */

uint64_t ptsim_guest_tsc(const struct ptsim_params *params, uint64_t host)
{
	if (!params->vmx_multiplier)
		return host;
	return ptsim_mulshr(host, params->vmx_multiplier, 48) +
	       params->vmx_offset;
}

uint64_t ptsim_edge_host(const struct ptsim_params *params, uint64_t art)
{
	return params->tsc0 +
	       ptsim_muldiv(art - params->art0, params->ebx, params->eax);
}

static uint64_t ptsim_host(const struct ptsim_gen *g, uint64_t tau)
{
	return g->p->tsc0 + tau / g->unit;
}

static uint64_t ptsim_art(const struct ptsim_gen *g, uint64_t tau)
{
	return g->p->art0 + tau / g->ctc_units;
}

/* Core cycles at @tau (not before the current segment). */
static uint64_t ptsim_cycles(const struct ptsim_gen *g, uint64_t tau)
{
	if (tau <= g->seg_tau)
		return g->seg_cyc;
	return g->seg_cyc + ptsim_muldiv(tau - g->seg_tau, g->num, g->den);
}

/* The time at which cycle @cyc (not before the current segment) starts. */
static uint64_t ptsim_cycle_time(const struct ptsim_gen *g, uint64_t cyc)
{
	if (cyc <= g->seg_cyc)
		return g->seg_tau;
	return g->seg_tau + ptsim_muldiv_ceil(cyc - g->seg_cyc, g->den, g->num);
}

/* Start a new core clock segment at @tau with ratio @cbr. */
static void ptsim_segment(struct ptsim_gen *g, uint64_t tau, uint64_t cyc,
                          uint8_t cbr)
{
	g->seg_tau = tau;
	g->seg_cyc = cyc;
	g->cbr = cbr;
	g->num = (uint64_t)cbr * (uint64_t)(1000000 + g->p->core_ppm);
	g->den = g->p->nom_freq * 1000000u * g->unit;
}

/* The first ART value after @art at which an MTC is due. */
static uint64_t ptsim_next_mtc_art(const struct ptsim_gen *g, uint64_t art)
{
	uint64_t period = UINT64_C(1) << g->p->mtc_freq;

	return (art / period + 1) * period;
}

/* A time @mean ticks from now on average (uniform in [mean/2, 3mean/2]). */
static uint64_t ptsim_interval(struct ptsim_gen *g, uint64_t mean)
{
	uint64_t ticks = ptsim_rng_range(&g->rng, mean / 2, mean + mean / 2);

	return g->tau + (ticks ? ticks : 1) * g->unit;
}

/* ------------------------------------------------------------------------ */
/* Packets                                                                   */
/* ------------------------------------------------------------------------ */

static int ptsim_grow(struct ptsim_gen *g, size_t bytes)
{
	struct ptsim_trace *t = g->t;

	if (t->size + bytes > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1u << 16;
		uint8_t *buf;

		while (cap < t->size + bytes)
			cap *= 2;
		buf = realloc(t->buf, cap);
		if (!buf)
			return -1;
		t->buf = buf;
		t->cap = cap;
	}
	if (t->nrecs == t->rcap) {
		size_t cap = t->rcap ? t->rcap * 2 : 4096;
		struct ptsim_rec *recs = realloc(t->recs, cap * sizeof(*recs));

		if (!recs)
			return -1;
		t->recs = recs;
		t->rcap = cap;
	}
	return 0;
}

/* Encode @pkt at time @tau and record its truth. */
static int ptsim_emit(struct ptsim_gen *g, const struct pt_packet *pkt,
                      uint64_t tau, uint8_t flags)
{
	struct ptsim_trace *t = g->t;
	struct ptsim_rec *rec;
	int size;

	if (pt_enc_sync_set(g->enc, 0) < 0)
		return -1;
	size = pt_enc_next(g->enc, pkt);
	if (size <= 0) {
		snprintf(g->msg, g->msize, "cannot encode a %s packet: %s",
		         ptd_packet_type_name(pkt->type),
		         pt_errstr(pt_errcode(size)));
		return -1;
	}
	if (ptsim_grow(g, (size_t)size) < 0) {
		snprintf(g->msg, g->msize, "out of memory");
		return -1;
	}
	rec = &t->recs[t->nrecs++];
	memset(rec, 0, sizeof(*rec));
	rec->packet = *pkt;
	rec->packet.size = (uint8_t)size;
	rec->offset = t->size;
	rec->host = ptsim_host(g, tau);
	rec->tsc = ptsim_guest_tsc(g->p, rec->host);
	rec->art = ptsim_art(g, tau);
	rec->cycles = ptsim_cycles(g, tau);
	rec->cbr = g->cbr;
	rec->flags = flags | g->extra_flags;
	memcpy(t->buf + t->size, g->scratch, (size_t)size);
	t->size += (size_t)size;

	if (!(flags & PTSIM_HEADER)) {
		g->psb_bytes += (uint64_t)size;
		if (g->psb_bytes >= g->p->psb_period)
			g->psb_due = 1;
	}
	return 0;
}

static struct pt_packet ptsim_packet(enum pt_packet_type type)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = type;
	return pkt;
}

/* The CYC that precedes a CYC-eligible packet at @tau, if the cycles since
 * the last CYC reach the threshold (Intel SDM 36.3.6). */
static int ptsim_emit_cyc(struct ptsim_gen *g, uint64_t tau, uint8_t flags)
{
	uint64_t cyc = ptsim_cycles(g, tau), delta = cyc - g->cyc_last;
	struct pt_packet pkt;

	if (!g->p->cyc || delta == 0 || delta < g->cyc_threshold)
		return 0;
	pkt = ptsim_packet(ppt_cyc);
	pkt.payload.cyc.value = delta;
	g->cyc_last = cyc;
	/* A CYC's time is the end of the last cycle it counts: at a wake-up
	 * that is when the core went to sleep. */
	if (tau == g->wake_tau && cyc == g->seg_cyc)
		tau = g->sleep_tau;
	return ptsim_emit(g, &pkt, tau, flags);
}

/* TSC (and TMA when MTCs are on) at @tau. */
static int ptsim_emit_tsc_tma(struct ptsim_gen *g, uint64_t tau, uint8_t flags)
{
	struct pt_packet pkt = ptsim_packet(ppt_tsc);
	uint64_t host = ptsim_host(g, tau), art = ptsim_art(g, tau);

	pkt.payload.tsc.tsc =
	        ptsim_guest_tsc(g->p, host) & ((UINT64_C(1) << 56) - 1);
	if (ptsim_emit(g, &pkt, tau, flags | PTSIM_ELIGIBLE) < 0)
		return -1;
	if (!g->p->mtc)
		return 0;
	pkt = ptsim_packet(ppt_tma);
	pkt.payload.tma.ctc = (uint16_t)(art & 0xffff);
	pkt.payload.tma.fc = (uint16_t)(host - ptsim_edge_host(g->p, art));
	return ptsim_emit(g, &pkt, tau, flags);
}

static int ptsim_emit_ip(struct ptsim_gen *g, enum pt_packet_type type,
                         enum pt_ip_compression ipc, uint64_t ip, uint64_t tau,
                         uint8_t flags)
{
	struct pt_packet pkt = ptsim_packet(type);

	pkt.payload.ip.ipc = ipc;
	pkt.payload.ip.ip = ipc == pt_ipc_suppressed ? 0 : ip;
	return ptsim_emit(g, &pkt, tau, flags);
}

/* PSB+ at @tau: PSB, TSC, TMA, CBR, MODE.Exec, FUP (when tracing is
 * enabled), PSBEND.  The CYC before it covers the cycles up to the PSB. */
static int ptsim_emit_psb(struct ptsim_gen *g, uint64_t tau)
{
	const uint8_t h = PTSIM_HEADER;
	struct pt_packet pkt;

	if (ptsim_emit_cyc(g, tau, 0) < 0)
		return -1;
	pkt = ptsim_packet(ppt_psb);
	if (ptsim_emit(g, &pkt, tau, h) < 0 ||
	    ptsim_emit_tsc_tma(g, tau, h) < 0)
		return -1;
	pkt = ptsim_packet(ppt_cbr);
	pkt.payload.cbr.ratio = g->cbr;
	if (ptsim_emit(g, &pkt, tau, h) < 0)
		return -1;
	pkt = ptsim_packet(ppt_mode);
	pkt.payload.mode.leaf = pt_mol_exec;
	pkt.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	if (ptsim_emit(g, &pkt, tau, h | PTSIM_ELIGIBLE) < 0)
		return -1;
	if (g->enabled &&
	    ptsim_emit_ip(g, ppt_fup, pt_ipc_sext_48, g->ip, tau, h) < 0)
		return -1;
	pkt = ptsim_packet(ppt_psbend);
	if (ptsim_emit(g, &pkt, tau, h) < 0)
		return -1;
	g->psb_bytes = 0;
	g->psb_due = 0;
	g->t->stats.psbs += 1;
	return 0;
}

/* A PSB+ is due at the next packet once psb_period bytes were written. */
static int ptsim_psb_if_due(struct ptsim_gen *g, uint64_t tau)
{
	return g->psb_due ? ptsim_emit_psb(g, tau) : 0;
}

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

static int ptsim_on_mtc(struct ptsim_gen *g, uint64_t tau)
{
	uint64_t art = g->next_mtc_art;
	struct pt_packet pkt;

	g->next_mtc_art += UINT64_C(1) << g->p->mtc_freq;
	/* Drop this MTC if a burst goes on or a new one starts, but never
	 * more than PTSIM_MAX_DROPPED_MTCS in a row. */
	if (g->drop_run < PTSIM_MAX_DROPPED_MTCS &&
	    (g->drop_left ||
	     (g->p->mtc_drop &&
	      ptsim_rng_chance(&g->rng, (uint32_t)g->p->mtc_drop)))) {
		if (!g->drop_left)
			g->drop_left = ptsim_rng_range(&g->rng, 1,
			                               g->p->mtc_drop_burst);
		g->drop_left -= 1;
		g->drop_run += 1;
		g->t->stats.mtc_dropped += 1;
		g->t->stats.mtc_dropped_trailing = g->drop_run;
		return 0;
	}
	g->drop_left = 0;
	g->drop_run = 0;
	g->t->stats.mtc_dropped_trailing = 0;
	/* A PSB+ that is due waits for the next other event: the MTC marks
	 * the crystal clock edge, which comes first, so a TMA never precedes
	 * an MTC of its own crystal clock value. */
	if (ptsim_emit_cyc(g, tau, 0) < 0)
		return -1;
	pkt = ptsim_packet(ppt_mtc);
	pkt.payload.mtc.ctc = (uint8_t)((art >> g->p->mtc_freq) & 0xff);
	g->t->stats.mtc_emitted += 1;
	return ptsim_emit(g, &pkt, tau, PTSIM_ELIGIBLE);
}

static int ptsim_on_freq(struct ptsim_gen *g, uint64_t tau)
{
	struct pt_packet pkt;
	uint8_t cbr;

	do {
		cbr = (uint8_t)ptsim_rng_range(&g->rng, g->p->cbr_min,
		                               g->p->cbr_max);
	} while (cbr == g->cbr && g->p->cbr_min != g->p->cbr_max);
	ptsim_segment(g, tau, ptsim_cycles(g, tau), cbr);
	g->next_freq_tau = ptsim_interval(g, g->p->freq_interval);
	g->t->stats.freq_changes += 1;
	if (ptsim_psb_if_due(g, tau) < 0)
		return -1;
	pkt = ptsim_packet(ppt_cbr);
	pkt.payload.cbr.ratio = cbr;
	return ptsim_emit(g, &pkt, tau, 0);
}

/* A deep sleep from @tau: the core stops, the clocks go on; at the wake-up
 * a CYC with the active cycles since the last CYC, a TSC and a TMA. */
static int ptsim_on_sleep(struct ptsim_gen *g, uint64_t tau)
{
	uint64_t ticks =
	        ptsim_rng_range(&g->rng, g->p->sleep_min, g->p->sleep_max);
	uint64_t wake = tau + ticks * g->unit;

	ptsim_segment(g, wake, ptsim_cycles(g, tau), g->cbr);
	g->sleep_tau = tau;
	g->wake_tau = wake;
	g->tau = wake;
	g->next_sleep_tau = ptsim_interval(g, g->p->sleep_interval);
	if (g->next_freq_tau < wake)
		g->next_freq_tau = ptsim_interval(g, g->p->freq_interval);
	g->t->stats.sleeps += 1;
	if (g->p->mtc)
		g->next_mtc_art = ptsim_next_mtc_art(g, ptsim_art(g, wake));
	g->extra_flags = PTSIM_WAKE;
	if (ptsim_psb_if_due(g, wake) < 0 || ptsim_emit_cyc(g, wake, 0) < 0 ||
	    ptsim_emit_tsc_tma(g, wake, 0) < 0)
		return -1;
	g->extra_flags = 0;
	return 0;
}

static int ptsim_on_wrap(struct ptsim_gen *g, uint64_t tau)
{
	struct pt_packet pkt = ptsim_packet(ppt_cyc);

	if (ptsim_psb_if_due(g, tau) < 0)
		return -1;
	pkt.payload.cyc.value = ptsim_cycles(g, tau) - g->cyc_last;
	g->cyc_last += pkt.payload.cyc.value;
	g->t->stats.standalone_cycs += 1;
	return ptsim_emit(g, &pkt, tau, PTSIM_STANDALONE);
}

/* The synthetic program's next control-flow packet: TIP.PGE first, then
 * TNTs of 1 to 6 outcomes and TIPs. */
static int ptsim_on_branch(struct ptsim_gen *g, uint64_t tau)
{
	const struct ptsim_params *p = g->p;
	uint64_t gap;

	if (ptsim_psb_if_due(g, tau) < 0 || ptsim_emit_cyc(g, tau, 0) < 0)
		return -1;
	if (!g->enabled) {
		g->enabled = 1;
		g->ip = ptsim_targets[0];
		if (ptsim_emit_ip(g, ppt_tip_pge, pt_ipc_sext_48, g->ip, tau,
		                  PTSIM_ELIGIBLE) < 0)
			return -1;
	} else if (ptsim_rng_chance(&g->rng, (uint32_t)p->tip)) {
		g->ip = ptsim_targets[ptsim_rng_next(&g->rng) % PTSIM_NTARGETS];
		if (ptsim_emit_ip(g, ppt_tip, pt_ipc_sext_48, g->ip, tau,
		                  PTSIM_ELIGIBLE) < 0)
			return -1;
	} else {
		struct pt_packet pkt = ptsim_packet(ppt_tnt_8);
		uint8_t bits = (uint8_t)ptsim_rng_range(&g->rng, 1, 6);

		pkt.payload.tnt.bit_size = bits;
		pkt.payload.tnt.payload =
		        ptsim_rng_next(&g->rng) & ((1u << bits) - 1);
		if (ptsim_emit(g, &pkt, tau, PTSIM_ELIGIBLE) < 0)
			return -1;
	}
	if (p->long_gap && ptsim_rng_chance(&g->rng, (uint32_t)p->long_gap))
		gap = ptsim_rng_range(&g->rng, p->gap_max, p->long_gap_max);
	else
		gap = ptsim_rng_range(&g->rng, p->gap_min, p->gap_max);
	g->next_branch_cyc = ptsim_cycles(g, tau) + gap;
	return 0;
}

/* The end of the trace: tracing is disabled. */
static int ptsim_on_end(struct ptsim_gen *g, uint64_t tau)
{
	if (ptsim_psb_if_due(g, tau) < 0 || ptsim_emit_cyc(g, tau, 0) < 0)
		return -1;
	return ptsim_emit_ip(g, ppt_tip_pgd, pt_ipc_suppressed, 0, tau,
	                     PTSIM_ELIGIBLE);
}

/* The kinds of events, in the order in which simultaneous ones happen. */
enum ptsim_event {
	ptsim_ev_mtc,
	ptsim_ev_freq,
	ptsim_ev_wrap,
	ptsim_ev_sleep,
	ptsim_ev_branch,
	ptsim_ev_end
};

static enum ptsim_event ptsim_next_event(const struct ptsim_gen *g,
                                         uint64_t *tau)
{
	enum ptsim_event ev = ptsim_ev_end;
	uint64_t best = g->end_tau, when;

	/* Later kinds win only when strictly earlier. */
	when = ptsim_cycle_time(g, g->next_branch_cyc);
	if (when < best) {
		best = when;
		ev = ptsim_ev_branch;
	}
	if (g->p->sleep_interval && g->next_sleep_tau <= best) {
		best = g->next_sleep_tau;
		ev = ptsim_ev_sleep;
	}
	if (g->p->cyc && g->p->cyc_wrap) {
		when = ptsim_cycle_time(g, g->cyc_last + g->p->cyc_wrap);
		if (when <= best) {
			best = when;
			ev = ptsim_ev_wrap;
		}
	}
	if (g->p->freq_interval && g->next_freq_tau <= best) {
		best = g->next_freq_tau;
		ev = ptsim_ev_freq;
	}
	if (g->p->mtc) {
		when = (g->next_mtc_art - g->p->art0) * g->ctc_units;
		if (when <= best) {
			best = when;
			ev = ptsim_ev_mtc;
		}
	}
	*tau = best;
	return ev;
}

static int ptsim_run(struct ptsim_gen *g)
{
	const struct ptsim_params *p = g->p;

	g->unit = p->eax * PTSIM_SUBTICKS;
	g->ctc_units = p->ebx * PTSIM_SUBTICKS;
	g->end_tau = p->duration * g->unit;
	g->cyc_threshold = ptsim_params_cyc_threshold(p);
	ptsim_segment(g, 0, 0, (uint8_t)p->cbr);
	if (p->mtc)
		g->next_mtc_art = ptsim_next_mtc_art(g, p->art0);
	g->next_branch_cyc = ptsim_rng_range(&g->rng, p->gap_min, p->gap_max);
	if (p->freq_interval)
		g->next_freq_tau = ptsim_interval(g, p->freq_interval);
	if (p->sleep_interval)
		g->next_sleep_tau = ptsim_interval(g, p->sleep_interval);

	if (ptsim_emit_psb(g, 0) < 0)
		return -1;
	for (;;) {
		uint64_t tau;
		enum ptsim_event ev = ptsim_next_event(g, &tau);
		int rc = 0;

		if (tau < g->tau)
			tau = g->tau; /* a timer that fell into a sleep */
		g->tau = tau;
		switch (ev) {
		case ptsim_ev_mtc:
			rc = ptsim_on_mtc(g, tau);
			break;
		case ptsim_ev_freq:
			rc = ptsim_on_freq(g, tau);
			break;
		case ptsim_ev_wrap:
			rc = ptsim_on_wrap(g, tau);
			break;
		case ptsim_ev_sleep:
			rc = ptsim_on_sleep(g, tau);
			break;
		case ptsim_ev_branch:
			rc = ptsim_on_branch(g, tau);
			break;
		case ptsim_ev_end:
			return ptsim_on_end(g, tau);
		}
		if (rc < 0)
			return -1;
	}
}

int ptsim_decoder_config(struct pt_config *config,
                         const struct ptsim_params *params, uint8_t *begin,
                         uint8_t *end)
{
	pt_config_init(config);
	config->begin = begin;
	config->end = end;
	if (ptd_cpu_parse(&config->cpu, params->cpu) < 0)
		return -1;
	if (config->cpu.vendor == pcv_intel)
		(void)pt_cpu_errata(&config->errata, &config->cpu);
	config->cpuid_0x15_eax = (uint32_t)params->eax;
	config->cpuid_0x15_ebx = (uint32_t)params->ebx;
	config->mtc_freq = (uint8_t)params->mtc_freq;
	config->nom_freq = (uint8_t)params->nom_freq;
	return 0;
}

int ptsim_generate(struct ptsim_trace *trace, const struct ptsim_params *params,
                   char *msg, size_t size)
{
	struct ptsim_gen g;
	struct pt_config config;
	struct pt_cpu cpu;
	int rc;

	memset(trace, 0, sizeof(*trace));
	if (ptsim_params_check(params, msg, size) < 0)
		return -1;
	if (ptd_cpu_parse(&cpu, params->cpu) < 0) {
		snprintf(msg, size, "cpu: '%s' is not none or f/m[/s]",
		         params->cpu);
		return -1;
	}
	trace->params = *params;
	memset(&g, 0, sizeof(g));
	g.p = &trace->params;
	g.t = trace;
	g.msg = msg;
	g.msize = size;
	ptsim_rng_seed(&g.rng, params->seed);

	pt_config_init(&config);
	config.begin = g.scratch;
	config.end = g.scratch + sizeof(g.scratch);
	g.enc = pt_alloc_encoder(&config);
	if (!g.enc) {
		snprintf(msg, size, "cannot allocate an encoder");
		return -1;
	}
	snprintf(msg, size, "out of memory");
	rc = ptsim_run(&g);
	pt_free_encoder(g.enc);
	if (rc < 0) {
		ptsim_trace_fini(trace);
		return -1;
	}
	return 0;
}

void ptsim_trace_fini(struct ptsim_trace *trace)
{
	free(trace->buf);
	free(trace->recs);
	memset(trace, 0, sizeof(*trace));
}
