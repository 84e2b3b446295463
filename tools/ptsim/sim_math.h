/* SPDX-License-Identifier: BSD-3-Clause */
/* Exact integer arithmetic and a deterministic random number generator for
 * the ptsim timing model. */
#ifndef PTSIM_MATH_H
#define PTSIM_MATH_H

#include <stdint.h>

/* floor(@a * @b / @c) with a 128-bit intermediate product.  @c must not be
 * 0; the result must fit in 64 bits (it saturates at UINT64_MAX). */
uint64_t ptsim_muldiv(uint64_t a, uint64_t b, uint64_t c);

/* ceil(@a * @b / @c), as ptsim_muldiv(). */
uint64_t ptsim_muldiv_ceil(uint64_t a, uint64_t b, uint64_t c);

/* (@a * @b) >> @shift with a 128-bit intermediate product (@shift < 64);
 * saturates at UINT64_MAX. */
uint64_t ptsim_mulshr(uint64_t a, uint64_t b, unsigned shift);

/* splitmix64: small, fast, and the same sequence on every platform. */
struct ptsim_rng {
	uint64_t state;
};

void ptsim_rng_seed(struct ptsim_rng *rng, uint64_t seed);
uint64_t ptsim_rng_next(struct ptsim_rng *rng);

/* A number in [@lo, @hi] (@lo <= @hi). */
uint64_t ptsim_rng_range(struct ptsim_rng *rng, uint64_t lo, uint64_t hi);

/* 1 with probability @permille / 1000. */
int ptsim_rng_chance(struct ptsim_rng *rng, uint32_t permille);

#endif /* PTSIM_MATH_H */
