/* SPDX-License-Identifier: BSD-3-Clause */
/* Exact 64 x 64 / 64 bit arithmetic for the clock conversions (conv.c).
 * Internal: not part of the public API. */
#ifndef PTD_TIME_CONV_H
#define PTD_TIME_CONV_H

#include <stdint.h>

/* How ptd_muldiv() rounds the quotient. */
enum ptd_round {
	ptd_round_down,    /* floor */
	ptd_round_nearest, /* to nearest, halves up */
	ptd_round_up       /* ceiling */
};

/* Compute @a x @b / @d, rounded as @round says, exactly (the product is
 * formed in 128 bits), into @q.
 *
 * Returns 0, -pte_invalid for a zero @d, or -pte_overflow if the quotient
 * does not fit in 64 bits (@q is then unchanged).  Uses the compiler's
 * 128-bit integers where it has them and ptd_muldiv_portable() elsewhere. */
int ptd_muldiv(uint64_t *q, uint64_t a, uint64_t b, uint64_t d,
               enum ptd_round round);

/* ptd_muldiv() in plain 64-bit arithmetic, for compilers without 128-bit
 * integers; exported for the unit tests, which compare the two. */
int ptd_muldiv_portable(uint64_t *q, uint64_t a, uint64_t b, uint64_t d,
                        enum ptd_round round);

#endif /* PTD_TIME_CONV_H */
