/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ptdecode extension: time tracking.  Included by ptdecode.h.
 *
 * The time decoder reads Intel PT packets like the packet decoder of
 * <intel-pt.h> (pt_pkt_*) and attaches to every packet the time-stamp counter
 * (TSC) value estimated at that packet from the timing packets TSC, TMA, MTC,
 * CYC and CBR (Intel SDM Vol. 3C, 36.8.3), the core:bus ratio, the
 * calibration and the counts of timing packets that could not be used.
 *
 * Times are TSC ticks, the unit of pt_qry_time(): what RDTSC would have
 * returned at that point of the traced program.  Two estimators are
 * available (enum ptd_time_mode):
 *
 *   ptd_time_mode_accurate  (the default) ptdecode's own.  Equal to libipt's
 *                           at every TSC and MTC when the CPUID 0x15 ratio
 *                           is an integer; between them, CYC progress is
 *                           interpolated so that it lands exactly on the
 *                           next MTC, and time never runs backwards.
 *   ptd_time_mode_libipt    libipt's online estimator, reproduced from its
 *                           documented rules, number for number, for users
 *                           who must match libipt's results.
 *
 * docs/time.md describes the rules and every difference between the two.
 *
 * A time decoder needs the timing fields of struct pt_config: cpuid_0x15_eax
 * and cpuid_0x15_ebx (to convert MTC and TMA crystal-clock values to TSC
 * ticks), mtc_freq (which CTC bits an MTC carries), nom_freq (to calibrate
 * cycle counts from CBR) and cpu/errata (SKL168).  When the trace shows
 * that one of them is missing or wrong, the decoder says so through
 * ptd_time_get_status() rather than silently producing a wrong time.
 */
#ifndef PTD_TIME_H
#define PTD_TIME_H

#include "intel-pt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The time estimator. */
enum ptd_time_mode {
	/** ptdecode's estimator: exact at every reference, interpolating CYC
	 * progress between references, monotonic.  The default. */
	ptd_time_mode_accurate = 0,

	/** libipt's online estimator: the same numbers as libipt 2.x
	 * (pt_qry_time(), ptdump --time) for the same trace. */
	ptd_time_mode_libipt = 1
};

/** Time tracking options beyond struct pt_config.
 *
 * Initialize with ptd_time_config_init(), then set what you need.  Like
 * struct pt_config, it carries its own size, so that programs built against
 * an older or newer layout keep working. */
struct ptd_time_config {
	/** sizeof(struct ptd_time_config) as the caller knows it. */
	size_t size;

	/** The estimator; ptd_time_mode_accurate by default. */
	enum ptd_time_mode mode;

	/** VMX TSC scaling (Intel SDM 36.8.3.3): the TSC multiplier of the
	 * guest's VMCS, an unsigned fixed-point number with 48 fractional
	 * bits (1.0 is 1 << 48).  In VMX non-root operation TSC packets
	 * carry the guest's TSC, ((host TSC * multiplier) >> 48) + offset,
	 * while MTC, TMA, CYC and CBR are not scaled.  With a multiplier
	 * set, crystal-clock and cycle deltas are scaled by it before they
	 * are added to guest TSC values.  0 (the default) means no scaling.
	 * The setting applies to every TSC packet of the trace: use it for
	 * traces of a guest. */
	uint64_t tsc_multiplier;

	/** VMX TSC offsetting: the TSC offset of the guest's VMCS (added
	 * modulo 2^64 after scaling).  Only used with @tsc_host_time. */
	uint64_t tsc_offset;

	/** Report host TSC values instead of guest ones: every estimate is
	 * converted back with (guest - offset) / multiplier, e.g. to
	 * correlate a guest's trace with host sideband.  Requires
	 * @tsc_multiplier or @tsc_offset. */
	uint32_t tsc_host_time : 1;

	/** Keep the core:TSC calibration over an OVF (libipt's
	 * keep_tcal_on_ovf flag and ptdump --keep-tcal-on-ovf).  By default
	 * an OVF discards it, since the core frequency may have changed. */
	uint32_t keep_tcal_on_ovf : 1;

	/** Do not calibrate (ptdump --no-tcal): CYC cycles cannot be
	 * converted to time and every CYC is counted in lost_cyc; MTC and
	 * TSC are still used.  Mostly for comparisons with libipt. */
	uint32_t no_tcal : 1;

	/** Ignore CYC packets for timing (ptdump --no-cyc). */
	uint32_t no_cyc : 1;
};

/** Set @config to the defaults: accurate mode, no VMX scaling, calibration
 * discarded on OVF. */
static inline void ptd_time_config_init(struct ptd_time_config *config)
{
	memset(config, 0, sizeof(*config));
	config->size = sizeof(*config);
}

/** Conditions that make the estimated time less precise or impossible, as
 * bits of ptd_time_status.diag.  Each is reported once it is seen in the
 * trace; the strings of ptd_time_diag_str() explain them. */
enum ptd_time_diag {
	/** MTC or TMA packets were seen, but cpuid_0x15_eax or
	 * cpuid_0x15_ebx is 0: crystal-clock values cannot be converted to
	 * TSC ticks and those packets are not used (each MTC is counted in
	 * lost_mtc). */
	ptd_time_diag_no_cpuid_0x15 = 1 << 0,

	/** The first MTC after a TMA does not follow the TMA's crystal-clock
	 * value as mtc_freq says it must: mtc_freq is probably wrong (0 when
	 * not given). */
	ptd_time_diag_bad_mtc_freq = 1 << 1,

	/** CYC packets had to wait for calibration while CBR packets were
	 * available: with nom_freq set, CBR would have calibrated them. */
	ptd_time_diag_no_nom_freq = 1 << 2,

	/** CYC packets arrived before the core:TSC ratio was known (they are
	 * counted in lost_cyc; the accurate estimator may still have placed
	 * them by interpolation). */
	ptd_time_diag_uncalibrated = 1 << 3,

	/** The payload of an MTC skipped periods: the processor dropped MTC
	 * packets (counted in lost_mtc; the time is still right). */
	ptd_time_diag_mtc_dropped = 1 << 4,

	/** A TSC or MTC set a time earlier than one already reported (for
	 * example after a deep sleep, or with a wrong configuration); the
	 * accurate estimator held the time rather than go backwards. */
	ptd_time_diag_clamped = 1 << 5,

	/** A TMA without a preceding TSC, or a second TMA for one TSC; it
	 * was ignored. */
	ptd_time_diag_bad_tma = 1 << 6,

	/** An MTC payload did not fit the CTC value expected from the
	 * previous MTC or TMA (more than 256 periods, or a wrap that cannot
	 * be); the MTC was not used. */
	ptd_time_diag_bad_mtc = 1 << 7,

	/** Two TSC packets disagree with the MTCs between them: the CPUID
	 * 0x15 ratio is wrong, or the trace comes from a guest with VMX TSC
	 * scaling that tsc_multiplier does not give.  The accurate estimator
	 * trusts the TSCs and corrects the MTC times between them. */
	ptd_time_diag_ctc_ratio = 1 << 8,

	/** MTC or TMA packets were seen, but mtc_freq is above 15:
	 * IA32_RTIT_CTL.MTCFreq is a 4-bit field, so the configuration
	 * cannot be the trace's; those packets are not used (each MTC is
	 * counted in lost_mtc). */
	ptd_time_diag_mtc_freq_range = 1 << 9
};

/** Return a static one-line description of the single bit @diag, or NULL
 * if @diag is not exactly one known bit. */
extern pt_export const char *ptd_time_diag_str(enum ptd_time_diag diag);

/** The state of a time decoder, see ptd_time_get_status(). */
struct ptd_time_status {
	/** The ptd_time_diag bits seen since the decoder was allocated. */
	uint32_t diag;

	/** MTC packets counted in lost_mtc since the decoder was allocated
	 * (not reset by TSC packets as lost_mtc is). */
	uint64_t lost_mtc;

	/** CYC packets counted in lost_cyc since the decoder was allocated
	 * (not reset as lost_cyc is). */
	uint64_t lost_cyc;

	/** How often the accurate estimator held the time instead of going
	 * backwards (ptd_time_diag_clamped). */
	uint64_t clamped;
};

/** A packet with its time, as ptd_time_next() returns it. */
struct ptd_time_packet {
	/** The packet, as pt_pkt_next() returns it. */
	struct pt_packet packet;

	/** The packet's offset in the trace buffer. */
	uint64_t offset;

	/** The estimated TSC at this packet, after the packet itself was
	 * applied: the value of a TSC packet, the time an MTC packet
	 * marks, the time of the cycle a CYC packet ends (the accurate
	 * estimator never reports less than before, so a TSC below the time
	 * already reported shows that time).  Wall-clock time with @has_tsc;
	 * without it, the relative time since the first timing packet (0
	 * before any), as pt_qry_time() gives it with -pte_no_time. */
	uint64_t tsc;

	/** The core:TSC ratio in libipt's format: TSC ticks per core cycle,
	 * fixed point with 8 fractional bits (ptdump --tcal prints
	 * fcr / 256).  Valid only with @has_fcr. */
	uint64_t fcr;

	/** MTC packets lost since the last TSC (pt_qry_time()'s lost_mtc). */
	uint32_t lost_mtc;

	/** CYC packets since the last TSC or MTC that came before the
	 * core:TSC ratio was calibrated (pt_qry_time()'s lost_cyc, counted as
	 * libipt counts it).  The accurate estimator may still have placed
	 * them by interpolation: @cyc_lost says whether this one was. */
	uint32_t lost_cyc;

	/** The last core:bus ratio; valid only with @has_cbr. */
	uint8_t cbr;

	/** A TSC packet was seen since synchronization: @tsc is wall-clock
	 * time (pt_qry_time() would return 0, not -pte_no_time). */
	uint32_t has_tsc : 1;

	/** A CBR packet was seen since synchronization. */
	uint32_t has_cbr : 1;

	/** The core:TSC ratio is calibrated. */
	uint32_t has_fcr : 1;

	/** The packet lies between PSB and PSBEND. */
	uint32_t in_psb : 1;

	/** CYC only: its cycles could not be converted to time for lack of
	 * calibration (libipt's "no calibration"): the time did not move.
	 * Such a CYC is also counted in lost_cyc. */
	uint32_t cyc_lost : 1;

	/** The calibration step for this packet failed with this negative
	 * pt_error_code (libipt's ptdump: "error calibrating time"); 0 if
	 * it did not.  Informational: decoding goes on. */
	int tcal_error;

	/** The time update for this packet failed with this negative
	 * pt_error_code (libipt's ptdump: "error updating time"), e.g.
	 * -pte_bad_context for a TMA without TSC or -pte_bad_config for an
	 * MTC without the CPUID 0x15 ratio; 0 if it did not.
	 * Informational: decoding goes on. */
	int time_error;
};

/** A time-tracking packet decoder (opaque). */
struct ptd_time_decoder;

/** Allocate a time decoder for the trace in [config->begin, config->end).
 *
 * @tconfig selects the estimator and options; NULL means the defaults of
 * ptd_time_config_init().  Both are copied.  The decoder starts
 * unsynchronized: call ptd_time_sync_forward() or ptd_time_sync_set() first.
 * Returns NULL if @config is NULL or not valid (as for
 * pt_pkt_alloc_decoder()), if @tconfig is not valid (an unknown mode,
 * tsc_host_time with a zero multiplier and offset), or if memory runs out. */
extern pt_export struct ptd_time_decoder *
ptd_time_alloc_decoder(const struct pt_config *config,
                       const struct ptd_time_config *tconfig);

/** Free @decoder (NULL is allowed). */
extern pt_export void ptd_time_free_decoder(struct ptd_time_decoder *decoder);

/** Synchronize onto the next PSB, as pt_pkt_sync_forward() does, and
 * restart time tracking: no time, no calibration, no CBR.  Returns 0,
 * -pte_invalid for a NULL @decoder, or -pte_eos if there is no further
 * PSB. */
extern pt_export int ptd_time_sync_forward(struct ptd_time_decoder *decoder);

/** Take @offset as the synchronization point, as pt_pkt_sync_set() does, and
 * restart time tracking.  Returns 0, -pte_invalid, or -pte_eos if @offset
 * lies beyond the end of the buffer. */
extern pt_export int ptd_time_sync_set(struct ptd_time_decoder *decoder,
                                       uint64_t offset);

/** Store the offset of the next packet in @offset.  Returns 0, -pte_invalid
 * for a NULL argument, or -pte_nosync before synchronization. */
extern pt_export int ptd_time_get_offset(const struct ptd_time_decoder *decoder,
                                         uint64_t *offset);

/** Store the offset of the last synchronization point in @offset.  Returns
 * 0, -pte_invalid for a NULL argument, or -pte_nosync before
 * synchronization. */
extern pt_export int
ptd_time_get_sync_offset(const struct ptd_time_decoder *decoder,
                         uint64_t *offset);

/** Decode the next packet and its time into @packet.
 *
 * @size is sizeof(*packet) as the caller knows it; a smaller structure gets
 * the leading bytes, a larger one is zero-padded.  Returns the number of
 * bytes consumed, or, with the decoder not moved: -pte_invalid for a NULL
 * argument, -pte_nosync if not synchronized, -pte_eos at the end of the
 * buffer, or a decode error of pt_pkt_next() (-pte_bad_opc,
 * -pte_bad_packet).  After a decode error, ptd_time_sync_forward() goes on
 * at the next PSB.  Problems with the time itself are not errors: they are
 * reported in @packet (tcal_error, time_error, cyc_lost) and in
 * ptd_time_get_status().
 *
 * In accurate mode the decoder reads ahead, up to the next MTC or TSC, to
 * place CYC packets exactly; the packets are still returned one by one. */
extern pt_export int ptd_time_next(struct ptd_time_decoder *decoder,
                                   struct ptd_time_packet *packet, size_t size);

/** Store the time state of @decoder at the last packet returned in
 * @time, @lost_mtc and @lost_cyc, with the semantics of pt_qry_time():
 * returns 0, -pte_invalid if @decoder or @time is NULL, or -pte_no_time if
 * there was no TSC packet since synchronization (then @time is the
 * relative time, 0 before any timing packet).  @lost_mtc and @lost_cyc may
 * be NULL. */
extern pt_export int ptd_time_query(const struct ptd_time_decoder *decoder,
                                    uint64_t *time, uint32_t *lost_mtc,
                                    uint32_t *lost_cyc);

/** Store the last core:bus ratio in @cbr, with the semantics of
 * pt_qry_core_bus_ratio(): returns 0, -pte_invalid if an argument is NULL,
 * or -pte_no_cbr if there was no CBR packet since synchronization. */
extern pt_export int ptd_time_query_cbr(const struct ptd_time_decoder *decoder,
                                        uint32_t *cbr);

/** Store what @decoder has noticed about the trace and its configuration
 * in @status (see enum ptd_time_diag).  @size is sizeof(*status) as the
 * caller knows it.  Returns 0 or -pte_invalid for a NULL argument. */
extern pt_export int ptd_time_get_status(const struct ptd_time_decoder *decoder,
                                         struct ptd_time_status *status,
                                         size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PTD_TIME_H */
