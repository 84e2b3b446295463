/* SPDX-License-Identifier: BSD-3-Clause */
/* The ptsim trace generator: a physical model of the clocks behind Intel PT
 * timing packets (crystal clock/ART, TSC, a core clock with frequency
 * changes and deep sleeps, VMX TSC scaling) driving a small synthetic
 * program, producing a trace and the true time of every packet.  See
 * docs/ptsim.md for the model. */
#ifndef PTSIM_SIM_H
#define PTSIM_SIM_H

#include "params.h"
#include "ptdecode/intel-pt.h"

#include <stddef.h>
#include <stdint.h>

/* The most MTCs dropped in a row: the payloads of the MTCs around them
 * still tell how many periods passed (a difference of 0 or 256 would be
 * ambiguous). */
#define PTSIM_MAX_DROPPED_MTCS 254

/* Model time resolution: sub-ticks per TSC tick per CPUID 0x15 EAX. */
#define PTSIM_SUBTICKS 1024u

/* Record flags. */
enum {
	/* The packet is CYC-eligible (Intel SDM 36.3.6). */
	PTSIM_ELIGIBLE = 1 << 0,
	/* The packet is part of a PSB+ (PSB up to PSBEND). */
	PTSIM_HEADER = 1 << 1,
	/* A CYC sent on its own before the cycle counter would wrap. */
	PTSIM_STANDALONE = 1 << 2,
	/* Sent at the wake-up from a deep sleep (CYC, TSC, TMA, or a PSB+
	 * that was due). */
	PTSIM_WAKE = 1 << 3
};

/* One packet and the truth about it. */
struct ptsim_rec {
	struct pt_packet packet; /* as encoded */
	uint64_t offset;         /* in the trace */
	uint64_t tsc;    /* true TSC, in the trace's domain (guest with VMX) */
	uint64_t host;   /* true host TSC */
	uint64_t art;    /* crystal clock (ART) count */
	uint64_t cycles; /* active core cycles since the start */
	uint8_t cbr;     /* core:bus ratio in effect */
	uint8_t flags;   /* PTSIM_* */
};

/* What happened in a simulation, beyond the packets. */
struct ptsim_stats {
	uint64_t mtc_emitted;
	uint64_t mtc_dropped;
	uint64_t mtc_dropped_trailing; /* after the last MTC written */
	uint64_t freq_changes;
	uint64_t sleeps;
	uint64_t psbs;
	uint64_t standalone_cycs;
};

/* A simulated trace. */
struct ptsim_trace {
	struct ptsim_params params;
	uint8_t *buf;
	size_t size, cap;
	struct ptsim_rec *recs;
	size_t nrecs, rcap;
	struct ptsim_stats stats;
};

/* Simulate the scenario @params into @trace (which is initialized here).
 * Returns 0, or -1 with a message in @msg (@trace is then empty). */
int ptsim_generate(struct ptsim_trace *trace, const struct ptsim_params *params,
                   char *msg, size_t size);

/* Free what @trace holds (a zeroed @trace is allowed). */
void ptsim_trace_fini(struct ptsim_trace *trace);

/* The guest TSC for host TSC @host under @params' VMX scaling and
 * offsetting, or @host without VMX. */
uint64_t ptsim_guest_tsc(const struct ptsim_params *params, uint64_t host);

/* The host TSC at crystal clock edge @art: tsc0 + floor((art - art0) *
 * ebx / eax). */
uint64_t ptsim_edge_host(const struct ptsim_params *params, uint64_t art);

/* A pt_config for decoding @trace: buffer, cpu and errata, CPUID 0x15,
 * mtc_freq, nom_freq.  Returns 0, or -1 if the cpu string does not
 * parse. */
int ptsim_decoder_config(struct pt_config *config,
                         const struct ptsim_params *params, uint8_t *begin,
                         uint8_t *end);

#endif /* PTSIM_SIM_H */
