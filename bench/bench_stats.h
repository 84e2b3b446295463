/* SPDX-License-Identifier: BSD-3-Clause */
/* What every benchmark program needs to time itself: a clock, and the best
 * and the median of a set of samples.  Header only: each benchmark is its
 * own program.  Include it after defining _POSIX_C_SOURCE (for
 * clock_gettime()). */
#ifndef PTD_BENCH_STATS_H
#define PTD_BENCH_STATS_H

#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 199309L
#error "define _POSIX_C_SOURCE (200809L) before any include"
#endif

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

/* The time on @clock in seconds: CLOCK_MONOTONIC for the wall clock,
 * CLOCK_THREAD_CPUTIME_ID for the calling thread's CPU time. */
static inline double bench_now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* qsort() order of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sort the @n samples at @t (n > 0) and return the smallest in *@best and
 * the median in *@median (the mean of the two middle ones when @n is
 * even). */
static inline void bench_best_median(double *t, size_t n, double *best,
                                     double *median)
{
	qsort(t, n, sizeof(*t), bench_cmp_double);
	*best = t[0];
	*median = (n & 1) ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

#endif /* PTD_BENCH_STATS_H */
