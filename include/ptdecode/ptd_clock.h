/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ptdecode extension: clock conversions.  Included by ptdecode.h.
 *
 * Plain functions that turn the quantities a trace gives (TSC ticks, CYC
 * core cycles, CBR ratios, instruction counts) into wall-clock time,
 * frequencies and IPC:
 *
 *   - TSC ticks <-> nanoseconds from a TSC frequency in Hz, exactly (the
 *     products are formed in 128 bits, the results are rounded down);
 *   - the TSC frequency from the nominal (maximum non-turbo) ratio, from
 *     CPUID leaf 0x15 or from perf's time_shift/time_mult;
 *   - TSC ticks <-> perf time, with perf's own formula (tools/perf/util/tsc.c)
 *     and an exact inverse;
 *   - the core frequency from CYC cycles counted between two wall-clock
 *     references (Intel SDM Vol. 3C 36.8.3.4), the coarse frequency from a
 *     CBR packet, and IPC (36.3.6);
 *   - a small meter that reports the core frequency over time, reference by
 *     reference, while a decoder feeds it CYC payloads and reference times.
 *
 * Nothing here depends on the time engine: the reference times may come from
 * ptd_time, from TSC packets alone, or from anywhere else.  Every function
 * that can fail returns 0 or a negated enum pt_error_code and writes its
 * result through its first argument; -pte_invalid always means a NULL
 * pointer or a zero divisor (a frequency, a tick count or a cycle count of
 * zero), -pte_overflow a result that does not fit in 64 bits, and
 * -pte_bad_config conversion parameters that cannot be valid.
 *
 * See docs/config.md for where the inputs come from.
 */
#ifndef PTD_CLOCK_H
#define PTD_CLOCK_H

#include "intel-pt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Nanoseconds per second. */
#define PTD_NS_PER_SEC 1000000000ull

/** The bus clock that the core:bus ratios (CBR, MSR_PLATFORM_INFO[15:8])
 * multiply: 100 MHz. */
#define PTD_BUS_HZ 100000000ull

/* ------------------------------------------------------------------------ */
/* TSC frequency and TSC <-> nanoseconds                                     */
/* ------------------------------------------------------------------------ */

/** Return the frequency in Hz that a core:bus ratio stands for:
 * @ratio x 100 MHz.
 *
 * With the nominal ratio (pt_config.nom_freq, MSR_PLATFORM_INFO[15:8]) this is
 * the TSC frequency (SDM 18.17.5: the TSC runs at the maximum non-turbo
 * frequency, the scalable bus frequency times the maximum non-turbo ratio);
 * with a CBR payload it is the coarse core frequency of 36.8.3.4.  0 for a
 * ratio of 0 (unknown). */
extern pt_export uint64_t ptd_ratio_hz(uint8_t ratio);

/** Compute the TSC frequency from CPUID leaf 0x15 into @hz:
 * ECX x EBX / EAX, rounded to the nearest Hz.
 *
 * EAX and EBX are the denominator and numerator of the TSC : core crystal
 * clock ratio, ECX the crystal clock frequency in Hz.  Returns 0,
 * -pte_invalid for a NULL @hz, or -pte_bad_config if any of the three is 0
 * (the leaf does not enumerate the frequency; many processors leave ECX 0,
 * use ptd_ratio_hz() with the nominal ratio then). */
extern pt_export int ptd_tsc_hz_from_cpuid_0x15(uint64_t *hz, uint32_t eax,
                                                uint32_t ebx, uint32_t ecx);

/** Convert @tsc TSC ticks to nanoseconds at @tsc_hz TSC ticks per second:
 * *ns = floor(tsc x 10^9 / tsc_hz), exact for every input.
 *
 * Apply it to a difference of two TSC values for an elapsed time, or to a
 * TSC value for the time since the TSC was reset.  Returns 0, -pte_invalid
 * for a NULL @ns or a zero @tsc_hz, or -pte_overflow if the result does not
 * fit in 64 bits (only when @tsc_hz is below 1 GHz). */
extern pt_export int ptd_tsc_to_ns(uint64_t *ns, uint64_t tsc, uint64_t tsc_hz);

/** Convert @ns nanoseconds to TSC ticks at @tsc_hz TSC ticks per second:
 * *tsc = floor(ns x tsc_hz / 10^9), exact for every input.
 *
 * Returns 0, -pte_invalid for a NULL @tsc or a zero @tsc_hz, or
 * -pte_overflow if the result does not fit in 64 bits. */
extern pt_export int ptd_ns_to_tsc(uint64_t *tsc, uint64_t ns, uint64_t tsc_hz);

/* ------------------------------------------------------------------------ */
/* perf time                                                                 */
/* ------------------------------------------------------------------------ */

/** perf's TSC conversion parameters, as the kernel publishes them in the
 * perf_event_mmap_page and perf records them in AUXTRACE_INFO (priv[1..3])
 * or in a TIME_CONV record. */
struct ptd_perf_tc {
	/** time_shift (AUXTRACE_INFO priv[1]); at most 63. */
	uint16_t time_shift;
	/** time_mult (AUXTRACE_INFO priv[2]); not 0. */
	uint32_t time_mult;
	/** time_zero (AUXTRACE_INFO priv[3]); often "negative". */
	uint64_t time_zero;
};

/** Convert the TSC value @tsc to perf time in nanoseconds, exactly as perf
 * does (tsc_to_perf_time() in tools/perf/util/tsc.c):
 *
 *   ns = time_zero + (tsc >> shift) * mult
 *                  + (((tsc & ((1 << shift) - 1)) * mult) >> shift)
 *
 * in 64-bit arithmetic that wraps around, so that the result equals the
 * time stamps in the same perf.data file (sideband records, perf script).
 * Returns 0, -pte_invalid for NULL pointers, or -pte_bad_config for a zero
 * time_mult or a time_shift above 63. */
extern pt_export int
ptd_perf_tsc_to_ns(uint64_t *ns, const struct ptd_perf_tc *tc, uint64_t tsc);

/** Convert the perf time @ns back to a TSC value, exactly as perf does
 * (perf_time_to_tsc() in tools/perf/util/tsc.c):
 *
 *   t = ns - time_zero;
 *   tsc = ((t / mult) << shift) + (((t % mult) << shift) / mult)
 *
 * in 64-bit arithmetic that wraps around.  This rounds down and is not the
 * inverse of ptd_perf_tsc_to_ns() when a nanosecond spans more than one TSC
 * tick; ptd_perf_ns_to_tsc_first() is.  Returns 0, -pte_invalid for NULL
 * pointers, or -pte_bad_config for a zero time_mult or a time_shift above
 * 63. */
extern pt_export int
ptd_perf_ns_to_tsc(uint64_t *tsc, const struct ptd_perf_tc *tc, uint64_t ns);

/** Find the first TSC value at or after the perf time @ns: the smallest
 * @tsc whose time floor(@tsc x time_mult / 2^time_shift) since time_zero is
 * at least @ns - time_zero (modulo 2^64), computed exactly in 128 bits.
 *
 * Use it for the start of a time range given in perf time (perf's --time):
 * ptd_perf_tsc_to_ns() gives @ns or later for the result and an earlier time
 * for every TSC value before it.  Returns 0, -pte_invalid for NULL pointers,
 * -pte_bad_config for a zero time_mult or a time_shift above 63, or
 * -pte_overflow if no 64-bit TSC value is that late, or perf's 64-bit
 * formula wraps for the result (it cannot with time_shift <= 32, which is
 * all Linux uses). */
extern pt_export int ptd_perf_ns_to_tsc_first(uint64_t *tsc,
                                              const struct ptd_perf_tc *tc,
                                              uint64_t ns);

/** Compute the TSC frequency that perf's conversion implies into @hz:
 * 10^9 x 2^time_shift / time_mult, rounded to the nearest Hz.
 *
 * perf derives the nominal ratio from this when sysfs does not give it
 * ((hz + 50 MHz) / 100 MHz).  Returns 0, -pte_invalid for NULL pointers,
 * -pte_bad_config for a zero time_mult or a time_shift above 63, or
 * -pte_overflow if the result does not fit in 64 bits. */
extern pt_export int ptd_perf_tsc_hz(uint64_t *hz,
                                     const struct ptd_perf_tc *tc);

/* ------------------------------------------------------------------------ */
/* Core frequency and IPC                                                    */
/* ------------------------------------------------------------------------ */

/** Compute the core frequency over an interval into @hz (SDM 36.8.3.4):
 * @cycles core cycles (the sum of the CYC payloads between two wall-clock
 * references, MTC or TSC) over @tsc_ticks elapsed TSC ticks, times the TSC
 * frequency @tsc_hz, rounded to the nearest Hz:
 *
 *   hz = cycles x tsc_hz / tsc_ticks
 *
 * CYC counts only cycles in which the core was tracing and powered up
 * (36.3.6), so across a deep C-state or a span with tracing disabled this
 * is the average over the whole interval, not the frequency while running.
 * Returns 0, -pte_invalid for a NULL @hz or a zero @tsc_ticks or @tsc_hz, or
 * -pte_overflow if the result does not fit in 64 bits. */
extern pt_export int ptd_core_hz(uint64_t *hz, uint64_t cycles,
                                 uint64_t tsc_ticks, uint64_t tsc_hz);

/** Compute instructions per cycle into @ipc: @insns / @cycles.
 *
 * The cycles come from CYC packets (cycle-accurate mode, 36.3.6); count
 * the instructions of the same span.  Returns 0, or -pte_invalid for a NULL
 * @ipc or zero @cycles. */
extern pt_export int ptd_ipc(double *ipc, uint64_t insns, uint64_t cycles);

/* ------------------------------------------------------------------------ */
/* Frequency over time                                                       */
/* ------------------------------------------------------------------------ */

/** One interval of a frequency meter: between two wall-clock references. */
struct ptd_freq_sample {
	/** The reference times that bound the interval, in TSC ticks. */
	uint64_t begin_tsc, end_tsc;
	/** The core cycles counted in the interval (sum of CYC payloads). */
	uint64_t cycles;
	/** The average core frequency in Hz (ptd_core_hz()); 0 if the meter
	 * has no TSC frequency. */
	uint64_t hz;
};

/** A core-frequency meter (SDM 36.8.3.4).
 *
 * Feed it, in trace order, the payload of every CYC packet
 * (ptd_freq_meter_cyc()) and the time of every wall-clock reference, an MTC
 * or a TSC packet (ptd_freq_meter_ref()); after the second reference each
 * reference closes an interval and yields its frequency.  A CYC that
 * precedes an MTC or TSC counts the cycles up to that packet, so it belongs
 * to the interval the packet closes: add it before the reference.  Call
 * ptd_freq_meter_reset() where cycles are lost (OVF, a resync): the next
 * reference then starts afresh.  The fields are public so that the meter
 * can be copied and inspected; change them only through the functions. */
struct ptd_freq_meter {
	/** The TSC frequency in Hz; 0 if unknown (samples then carry hz 0). */
	uint64_t tsc_hz;
	/** The time of the last reference, in TSC ticks. */
	uint64_t ref_tsc;
	/** The cycles counted since the last reference. */
	uint64_t cycles;
	/** Whether @ref_tsc holds a reference. */
	uint32_t have_ref;
};

/** Initialize @meter for a TSC frequency of @tsc_hz (0 if unknown).
 * Returns 0 or -pte_invalid for a NULL @meter. */
extern pt_export int ptd_freq_meter_init(struct ptd_freq_meter *meter,
                                         uint64_t tsc_hz);

/** Forget the last reference and the cycles counted since.
 * Returns 0 or -pte_invalid for a NULL @meter. */
extern pt_export int ptd_freq_meter_reset(struct ptd_freq_meter *meter);

/** Add the @cyc core cycles of one CYC packet.  Returns 0, -pte_invalid for
 * a NULL @meter, or -pte_overflow if the count since the last reference
 * would exceed 64 bits (the count is then left unchanged). */
extern pt_export int ptd_freq_meter_cyc(struct ptd_freq_meter *meter,
                                        uint64_t cyc);

/** Add a wall-clock reference at @tsc TSC ticks.
 *
 * Returns 1 and fills @sample (may be NULL) when the reference closes an
 * interval that has elapsed time; 0 when it is the first reference, or when
 * no time passed since the previous one (the cycles then carry over to the
 * next interval); -pte_invalid for a NULL @meter; -pte_bad_query if @tsc is
 * before the previous reference (the meter then starts afresh at @tsc);
 * -pte_overflow if the frequency does not fit in 64 bits.  Every return
 * except -pte_invalid makes @tsc the new reference. */
extern pt_export int ptd_freq_meter_ref(struct ptd_freq_meter *meter,
                                        struct ptd_freq_sample *sample,
                                        uint64_t tsc);

#ifdef __cplusplus
}
#endif

#endif /* PTD_CLOCK_H */
