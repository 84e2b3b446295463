/* SPDX-License-Identifier: BSD-3-Clause */
/* Exact integer arithmetic and the random number generator; see
 * sim_math.h. */
#include "sim_math.h"

/* The 128-bit product of @a and @b as @hi:@lo. */
static void ptsim_mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
	uint64_t al = a & 0xffffffffu, ah = a >> 32;
	uint64_t bl = b & 0xffffffffu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);

	*lo = (ll & 0xffffffffu) | (mid << 32);
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* Divide @hi:@lo by @c; the quotient in @q (saturated), the remainder is
 * returned. */
static uint64_t ptsim_div128(uint64_t hi, uint64_t lo, uint64_t c, uint64_t *q)
{
	uint64_t rem = 0, quot = 0;
	int i;

	if (hi == 0) {
		*q = lo / c;
		return lo % c;
	}
	if (hi >= c) {
		*q = UINT64_MAX;
		return 0;
	}
	/* Restoring division, one bit at a time; rem < c always. */
	rem = hi;
	for (i = 63; i >= 0; --i) {
		uint64_t top = rem >> 63;

		rem = (rem << 1) | ((lo >> i) & 1u);
		quot <<= 1;
		if (top || rem >= c) {
			rem -= c;
			quot |= 1u;
		}
	}
	*q = quot;
	return rem;
}

uint64_t ptsim_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t hi, lo, q;

	ptsim_mul128(a, b, &hi, &lo);
	(void)ptsim_div128(hi, lo, c, &q);
	return q;
}

uint64_t ptsim_muldiv_ceil(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t hi, lo, q, rem;

	ptsim_mul128(a, b, &hi, &lo);
	rem = ptsim_div128(hi, lo, c, &q);
	if (rem && q != UINT64_MAX)
		q += 1;
	return q;
}

uint64_t ptsim_mulshr(uint64_t a, uint64_t b, unsigned shift)
{
	uint64_t hi, lo;

	ptsim_mul128(a, b, &hi, &lo);
	if (shift == 0)
		return hi ? UINT64_MAX : lo;
	if (hi >> shift)
		return UINT64_MAX;
	return (hi << (64 - shift)) | (lo >> shift);
}

void ptsim_rng_seed(struct ptsim_rng *rng, uint64_t seed)
{
	rng->state = seed;
}

uint64_t ptsim_rng_next(struct ptsim_rng *rng)
{
	uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t ptsim_rng_range(struct ptsim_rng *rng, uint64_t lo, uint64_t hi)
{
	uint64_t span = hi - lo;

	if (span == UINT64_MAX)
		return ptsim_rng_next(rng);
	return lo + ptsim_rng_next(rng) % (span + 1);
}

int ptsim_rng_chance(struct ptsim_rng *rng, uint32_t permille)
{
	return ptsim_rng_next(rng) % 1000u < permille;
}
