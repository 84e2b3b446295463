/* SPDX-License-Identifier: BSD-3-Clause */
/* A generator of random, valid Intel PT packet streams.
 *
 * The generator yields packets one at a time (struct pt_packet, ready for
 * pt_enc_next()); the same seed always yields the same sequence, so a test
 * can write a stream once and regenerate the expected packets later instead
 * of storing them.
 *
 * It covers every packet type that both ptdecode and libipt 2.0.5 know: all
 * but CFE, EVD, TRIG (libipt 2.1+), ptdecode's BBP/BIP/BEP, and the MODE.Exec
 * IF bit (libipt 2.1+), with random payloads that favour boundary values
 * (0, 1, all ones, top bit, and the PSB byte pattern 02 82, which stresses
 * synchronization).  Packets come in PSB+ segments: PSB, a few PSB+ packets,
 * PSBEND, then ordinary packets until the next PSB. */
#ifndef PTD_PKTGEN_H
#define PTD_PKTGEN_H

#include "ptdecode/intel-pt.h"

#include <stddef.h>
#include <stdint.h>

/* xoshiro256** (Blackman and Vigna, public domain algorithm). */
struct ptd_rng {
	uint64_t s[4];
};

void ptd_rng_seed(struct ptd_rng *rng, uint64_t seed);
uint64_t ptd_rng_next(struct ptd_rng *rng);
/* A uniform value in [0, n); n > 0. */
uint64_t ptd_rng_below(struct ptd_rng *rng, uint64_t n);

enum ptd_gen_profile {
	/* Every packet type about equally often, payloads biased to
	 * boundaries, PSBs at very irregular intervals (from back-to-back
	 * PSB+ segments to tens of KB).  For differential testing. */
	PTD_GEN_UNIFORM,
	/* Shaped like a user-space branch trace with timing: mostly TNT-8,
	 * TIP and FUP with compressed IPs, MTC/CYC, a PSB+ about every 4 KB.
	 * For benchmarks. */
	PTD_GEN_REALISTIC
};

struct ptd_gen {
	struct ptd_rng rng;
	enum ptd_gen_profile profile;
	/* Packets left before the next PSB. */
	uint64_t until_psb;
	/* Packets left in the current PSB+ (before PSBEND); -1 outside. */
	int psbplus_left;
	/* The last IP (realistic profile: IPs stay near it). */
	uint64_t last_ip;
};

/* Start a generator.  The first packets are ordinary packets, up to 20 of
 * them, before the first PSB, so the stream must be synchronized onto. */
void ptd_gen_init(struct ptd_gen *gen, uint64_t seed,
                  enum ptd_gen_profile profile);

/* Store the next packet in @pkt (size left 0; the encoder ignores it). */
void ptd_gen_next(struct ptd_gen *gen, struct pt_packet *pkt);

/* Fill [@buf, @buf + @size) with packets from @gen through ptdecode's
 * encoder; stop before the first packet that does not fit.  Returns the
 * number of bytes written (the rest of the buffer is left as it was) or a
 * negative pt_error_code.  If @npackets is not NULL, the number of packets
 * goes there. */
int64_t ptd_gen_fill(struct ptd_gen *gen, uint8_t *buf, size_t size,
                     uint64_t *npackets);

#endif /* PTD_PKTGEN_H */
