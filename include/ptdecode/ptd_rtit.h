/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ptdecode extension: decoder configuration from trace-control state.
 * Included by ptdecode.h.
 *
 * The processor's Intel PT configuration lives in the IA32_RTIT_* MSRs (Intel
 * SDM Vol. 3C 36.2.8), which XSAVES saves as the trace configuration state
 * component (36.3.5.2, Table 36-13).  The functions here decode that state,
 * check it the way WRMSR would (reserved bits, CPUID-enumerated features and
 * encodings) plus what a decoder needs (a CTC:TSC ratio for MTC, ordered
 * address ranges), and fill the struct pt_config fields it determines:
 * cpu, errata, cpuid_0x15_eax/ebx, mtc_freq, nom_freq and addr_filter.
 *
 * Errors are -pte_bad_config (or -pte_invalid for unusable arguments) with a
 * message in struct ptd_rtit_diag naming the register, the bits and the
 * rule.  Settings that are legal but limit what can be decoded are reported
 * as notes (enum ptd_rtit_note), never as errors.
 *
 * See docs/config.md for where each input comes from: perf.data, sysfs,
 * CPUID, the MSRs themselves.
 */
#ifndef PTD_RTIT_H
#define PTD_RTIT_H

#include "intel-pt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Register addresses and layouts (Intel SDM Vol. 3C 36.2.8, Vol. 4)         */
/* ------------------------------------------------------------------------ */

/** MSR addresses. */
#define PTD_MSR_PLATFORM_INFO 0xceu
#define PTD_MSR_IA32_RTIT_OUTPUT_BASE 0x560u
#define PTD_MSR_IA32_RTIT_OUTPUT_MASK_PTRS 0x561u
#define PTD_MSR_IA32_RTIT_CTL 0x570u
#define PTD_MSR_IA32_RTIT_STATUS 0x571u
#define PTD_MSR_IA32_RTIT_CR3_MATCH 0x572u
/** IA32_RTIT_ADDRn_A is 0x580 + 2n, IA32_RTIT_ADDRn_B 0x581 + 2n. */
#define PTD_MSR_IA32_RTIT_ADDR0_A 0x580u

/** IA32_RTIT_CTL bits and fields. */
#define PTD_RTIT_CTL_TRACEEN (1ull << 0)   /**< tracing enabled */
#define PTD_RTIT_CTL_CYCEN (1ull << 1)     /**< CYC packets */
#define PTD_RTIT_CTL_OS (1ull << 2)        /**< trace at CPL 0 */
#define PTD_RTIT_CTL_USER (1ull << 3)      /**< trace at CPL > 0 */
#define PTD_RTIT_CTL_PWREVTEN (1ull << 4)  /**< power event packets */
#define PTD_RTIT_CTL_FUPONPTW (1ull << 5)  /**< FUP after PTW */
#define PTD_RTIT_CTL_FABRICEN (1ull << 6)  /**< output to trace transport */
#define PTD_RTIT_CTL_CR3FILTER (1ull << 7) /**< CR3 filtering */
#define PTD_RTIT_CTL_TOPA (1ull << 8)      /**< ToPA output */
#define PTD_RTIT_CTL_MTCEN (1ull << 9)     /**< MTC packets */
#define PTD_RTIT_CTL_TSCEN (1ull << 10)    /**< TSC packets */
#define PTD_RTIT_CTL_DISRETC (1ull << 11)  /**< no return compression */
#define PTD_RTIT_CTL_PTWEN (1ull << 12)    /**< PTWRITE packets */
#define PTD_RTIT_CTL_BRANCHEN (1ull << 13) /**< COFI packets */
#define PTD_RTIT_CTL_MTCFREQ_SHIFT 14      /**< MTCFreq, bits 17:14 */
#define PTD_RTIT_CTL_MTCFREQ (0xfull << 14)
#define PTD_RTIT_CTL_CYCTHRESH_SHIFT 19 /**< CycThresh, bits 22:19 */
#define PTD_RTIT_CTL_CYCTHRESH (0xfull << 19)
#define PTD_RTIT_CTL_PSBFREQ_SHIFT 24 /**< PSBFreq, bits 27:24 */
#define PTD_RTIT_CTL_PSBFREQ (0xfull << 24)
#define PTD_RTIT_CTL_EVENTEN (1ull << 31) /**< event trace packets */
#define PTD_RTIT_CTL_ADDR_CFG_SHIFT(n) (32 + 4 * (n)) /**< ADDRn_CFG */
#define PTD_RTIT_CTL_ADDR_CFG(n) (0xfull << PTD_RTIT_CTL_ADDR_CFG_SHIFT(n))
#define PTD_RTIT_CTL_DISTNT (1ull << 55)       /**< no TNT packets */
#define PTD_RTIT_CTL_INJECTPSBPMI (1ull << 56) /**< InjectPsbPmiOnEnable */
/** IA32_RTIT_CTL reserved bits: 18, 23, 30:28, 54:48, 63:57. */
#define PTD_RTIT_CTL_RESERVED                                                  \
	((1ull << 18) | (1ull << 23) | (0x7ull << 28) | (0x7full << 48) |      \
	 (0x7full << 57))

/** IA32_RTIT_STATUS bits and fields. */
#define PTD_RTIT_STATUS_FILTEREN (1ull << 0)
#define PTD_RTIT_STATUS_CONTEXTEN (1ull << 1)
#define PTD_RTIT_STATUS_TRIGGEREN (1ull << 2)
#define PTD_RTIT_STATUS_ERROR (1ull << 4)
#define PTD_RTIT_STATUS_STOPPED (1ull << 5)
#define PTD_RTIT_STATUS_PENDPSB (1ull << 6)
#define PTD_RTIT_STATUS_PENDTOPAPMI (1ull << 7)
#define PTD_RTIT_STATUS_BYTECNT_SHIFT 32 /**< PacketByteCnt, bits 48:32 */
#define PTD_RTIT_STATUS_BYTECNT (0x1ffffull << 32)
/** IA32_RTIT_STATUS reserved bits: 3, 31:8, 63:49. */
#define PTD_RTIT_STATUS_RESERVED                                               \
	((1ull << 3) | (0xffffffull << 8) | (0x7fffull << 49))

/** The size of the XSAVE trace configuration state component (Table 36-13):
 * nine 64-bit registers at offsets 0x00..0x40. */
#define PTD_RTIT_XSAVE_SIZE 0x48u

/* ------------------------------------------------------------------------ */
/* Inputs                                                                    */
/* ------------------------------------------------------------------------ */

/** The IA32_RTIT_* MSRs of one logical processor, as RDMSR reads them. */
struct ptd_rtit_msrs {
	uint64_t ctl;              /**< IA32_RTIT_CTL (0x570) */
	uint64_t status;           /**< IA32_RTIT_STATUS (0x571) */
	uint64_t output_base;      /**< IA32_RTIT_OUTPUT_BASE (0x560) */
	uint64_t output_mask_ptrs; /**< IA32_RTIT_OUTPUT_MASK_PTRS (0x561) */
	uint64_t cr3_match;        /**< IA32_RTIT_CR3_MATCH (0x572) */
	uint64_t addr_a[4];        /**< IA32_RTIT_ADDRn_A (0x580 + 2n) */
	uint64_t addr_b[4];        /**< IA32_RTIT_ADDRn_B (0x581 + 2n) */
};

/** Flags for struct ptd_rtit_cpu.have. */
enum ptd_rtit_have {
	/** cpuid_0x14_* hold CPUID leaf 0x14: the settings are checked
	 * against the features and encodings it enumerates. */
	ptd_rtit_have_cpuid_0x14 = 1 << 0
};

/** What is known about the processor the state belongs to.
 *
 * Zero everything that is not known.  A zero CPUID leaf 0x15 or
 * MSR_PLATFORM_INFO means unknown; leaf 0x14 counts only with
 * ptd_rtit_have_cpuid_0x14, since zero is a legal value there. */
struct ptd_rtit_cpu {
	/** Family, model, stepping (vendor pcv_unknown: no errata). */
	struct pt_cpu cpu;
	/** enum ptd_rtit_have flags. */
	uint32_t have;
	/** CPUID.(EAX=14H,ECX=0): EAX (maximum sub-leaf), EBX, ECX. */
	uint32_t cpuid_0x14_0_eax, cpuid_0x14_0_ebx, cpuid_0x14_0_ecx;
	/** CPUID.(EAX=14H,ECX=1): EAX, EBX (valid if cpuid_0x14_0_eax >= 1). */
	uint32_t cpuid_0x14_1_eax, cpuid_0x14_1_ebx;
	/** CPUID.15H: EAX (denominator), EBX (numerator) of TSC:crystal
	 * clock, ECX crystal clock Hz (0 if not enumerated). */
	uint32_t cpuid_0x15_eax, cpuid_0x15_ebx, cpuid_0x15_ecx;
	/** MSR_PLATFORM_INFO (0xCE); bits 15:8 are the nominal ratio. */
	uint64_t platform_info;
	/** MAXPHYADDR (CPUID.80000008H:EAX[7:0]), 0 if unknown: bits of
	 * IA32_RTIT_OUTPUT_BASE at or above it are reserved. */
	uint8_t maxphyaddr;
};

/* ------------------------------------------------------------------------ */
/* Outputs                                                                   */
/* ------------------------------------------------------------------------ */

/** Notes: legal settings worth knowing about when decoding. */
enum ptd_rtit_note {
	/** CTL.TraceEn is clear: the state is not that of a running trace. */
	ptd_rtit_note_trace_disabled = 1 << 0,
	/** Neither CTL.OS nor CTL.User is set: nothing is traced. */
	ptd_rtit_note_no_cpl = 1 << 1,
	/** CTL.BranchEn is clear: no TNT/TIP/FUP for control flow; only
	 * packet and timing decoding are possible. */
	ptd_rtit_note_no_branch = 1 << 2,
	/** CTL.DisTNT is set: no TNT packets; conditional branches cannot be
	 * followed. */
	ptd_rtit_note_no_tnt = 1 << 3,
	/** CTL.TSCEn is clear: no TSC packets, so no wall-clock time
	 * (pt_*_time return -pte_no_time). */
	ptd_rtit_note_no_tsc = 1 << 4,
	/** CTL.MTCFreq is not 0 while CTL.MTCEn is clear: it has no effect. */
	ptd_rtit_note_mtc_freq_unused = 1 << 5,
	/** CTL.CycThresh is not 0 while CTL.CYCEn is clear: no effect. */
	ptd_rtit_note_cyc_thresh_unused = 1 << 6,
	/** CTL.CYCEn without CTL.TSCEn; the SDM recommends TSCEn with CYCEn
	 * (36.3.6). */
	ptd_rtit_note_cyc_without_tsc = 1 << 7,
	/** CTL.CYCEn without MTC and without a nominal ratio: CYC can be
	 * calibrated only between TSC packets. */
	ptd_rtit_note_cyc_calibration = 1 << 8,
	/** CTL.FUPonPTW without CTL.PTWEn: no effect. */
	ptd_rtit_note_fup_on_ptw_unused = 1 << 9,
	/** CTL.FabricEn: output goes to the trace transport subsystem and
	 * CTL.ToPA is ignored. */
	ptd_rtit_note_fabric = 1 << 10,
	/** STATUS.Error: an operational error stopped packet generation;
	 * the trace may end early or miss data. */
	ptd_rtit_note_status_error = 1 << 11,
	/** STATUS.Stopped: a ToPA STOP entry stopped packet generation. */
	ptd_rtit_note_status_stopped = 1 << 12,
	/** OUTPUT_MASK_PTRS.LowerMask (bits 6:0) is not 7FH, which the
	 * processor always reads; the value was probably not read from the
	 * MSR or the XSAVE area. */
	ptd_rtit_note_lower_mask = 1 << 13,
	/** Single-range output with a mask that is not 2^n - 1, or an
	 * output offset beyond the mask. */
	ptd_rtit_note_output_mask = 1 << 14,
	/** The processor is not known to the errata table (or the vendor is
	 * pcv_unknown): no errata workarounds are enabled. */
	ptd_rtit_note_cpu_unknown = 1 << 15,
	/** No CPUID leaf 0x14: features and encodings were not checked. */
	ptd_rtit_note_no_cpuid_0x14 = 1 << 16,
	/** CTL.CYCEn is set but the nominal ratio (MSR_PLATFORM_INFO[15:8])
	 * is unknown: CBR packets cannot calibrate CYC. */
	ptd_rtit_note_no_nom_freq = 1 << 17
};

/** Why a configuration was refused, and what was noted. */
struct ptd_rtit_diag {
	/** The error returned (0 or a negated pt_error_code). */
	int error;
	/** The MSR address of the offending register (PTD_MSR_*), or 0 for
	 * an argument such as an XSAVE area that is too small. */
	uint32_t msr;
	/** The offending bits of that register. */
	uint64_t bits;
	/** enum ptd_rtit_note flags, also on success. */
	uint32_t notes;
	/** A one-line description: register, bits, value and rule; empty
	 * on success. */
	char message[192];
};

/** The trace-control state, decoded. */
struct ptd_rtit_trace {
	/** IA32_RTIT_CTL, bit by bit (0 or 1). */
	uint8_t trace_en, cyc_en, os, user, pwr_evt_en, fup_on_ptw, fabric_en,
	        cr3_filter, topa, mtc_en, tsc_en, dis_retc, ptw_en, branch_en,
	        event_en, dis_tnt, inject_psb_pmi_on_enable;
	/** IA32_RTIT_CTL fields. */
	uint8_t mtc_freq, cyc_thresh, psb_freq;
	/** IA32_RTIT_CTL.ADDRn_CFG: 0 off, 1 filter, 2 trace stop. */
	uint8_t addr_cfg[4];

	/** CTC (crystal clock) ticks between MTC packets: 2^mtc_freq. */
	uint32_t mtc_period;
	/** Minimum core cycles between CYC packets: 0 for CycThresh 0,
	 * else 2^(cyc_thresh - 1). */
	uint32_t cyc_threshold;
	/** Approximate output bytes between PSB packets: 2^(psb_freq + 11). */
	uint64_t psb_period;

	/** IA32_RTIT_CR3_MATCH. */
	uint64_t cr3_match;
	/** IA32_RTIT_ADDRn_A/B. */
	uint64_t addr_a[4], addr_b[4];

	/** IA32_RTIT_STATUS, bit by bit (0 or 1), and PacketByteCnt. */
	uint8_t filter_en, context_en, trigger_en, error, stopped, pend_psb,
	        pend_topa_pmi;
	uint32_t packet_byte_cnt;

	/** IA32_RTIT_OUTPUT_BASE: the single-range buffer or the current
	 * ToPA table (physical address). */
	uint64_t output_base;
	/** IA32_RTIT_OUTPUT_MASK_PTRS[31:0]: the single-range mask. */
	uint32_t output_mask;
	/** The offset of the current ToPA entry in its table (ToPA output):
	 * MaskOrTableOffset (bits 31:7) times 8. */
	uint32_t topa_entry_offset;
	/** IA32_RTIT_OUTPUT_MASK_PTRS[63:32]: OutputOffset. */
	uint32_t output_offset;

	/** CPUID.(EAX=14H,ECX=0):ECX[31]: IP payloads are linear addresses
	 * including the CS base (0 if unknown). */
	uint8_t lip;
	/** The nominal (maximum non-turbo) ratio, MSR_PLATFORM_INFO[15:8]. */
	uint8_t nom_freq;
	/** The TSC frequency in Hz: from CPUID 0x15 with a crystal frequency,
	 * else nominal ratio x 100 MHz, else 0. */
	uint64_t tsc_hz;
	/** enum ptd_rtit_note flags (as in struct ptd_rtit_diag). */
	uint32_t notes;
};

/* ------------------------------------------------------------------------ */
/* Functions                                                                 */
/* ------------------------------------------------------------------------ */

/** Check the trace-control state @msrs of processor @cpu and configure a
 * decoder for it.
 *
 * @config must have been initialized (pt_config_init()) with a size of at
 * least sizeof(struct pt_config).  On success these fields are set and all
 * others (buffer, callbacks, flags) are left alone:
 *   - cpu from @cpu->cpu; errata replaced by pt_cpu_errata() of it (none if
 *     the vendor is pcv_unknown or the model is not in the errata table);
 *   - cpuid_0x15_eax/ebx from @cpu (0 unless both are non-zero);
 *   - mtc_freq = CTL.MTCFreq (bits 17:14);
 *   - nom_freq = MSR_PLATFORM_INFO[15:8];
 *   - addr_filter: config.addr_cfg = CTL[47:32] (ADDR0..3_CFG), and the
 *     ranges IA32_RTIT_ADDRn_A/B.
 * @trace (may be NULL) receives the decoded state, @diag (may be NULL) the
 * notes and, on error, the reason.  @cpu may be NULL when nothing is known
 * about the processor (then MTCEn cannot be accepted: see below).
 *
 * Returns 0, -pte_invalid if @config or @msrs is NULL or @config->size is too
 * small, or -pte_bad_config if the state cannot be valid or cannot be
 * decoded; @config and @trace are then unchanged.  Refused are:
 *   - reserved bits set in CTL, STATUS, OUTPUT_BASE (bits 6:0 and, with a
 *     known MAXPHYADDR, bits above it) or CR3_MATCH (bits 4:0);
 *   - an ADDRn_CFG other than 0 (off), 1 (filter) or 2 (trace stop);
 *   - an address range in use (ADDRn_CFG != 0) whose start is above its end,
 *     and any range register that is not a canonical address (57 bits);
 *   - CTL.MTCEn without a CTC:TSC ratio (CPUID 0x15 EAX and EBX): MTC
 *     payloads could not be turned into time;
 *   - with ptd_rtit_have_cpuid_0x14: a feature bit the processor does not
 *     enumerate (CR3Filter, CYCEn/CycThresh/PSBFreq, MTCEn/MTCFreq,
 *     PTWEn/FUPonPTW, PwrEvtEn, EventEn, DisTNT, InjectPsbPmiOnEnable, ToPA,
 *     FabricEn, single-range output), an MTCFreq, CycThresh or PSBFreq
 *     encoding missing from its CPUID bitmap, and an ADDRn_CFG for a range
 *     beyond the number of ranges the processor has. */
extern pt_export int ptd_rtit_config(struct pt_config *config,
                                     struct ptd_rtit_trace *trace,
                                     struct ptd_rtit_diag *diag,
                                     const struct ptd_rtit_msrs *msrs,
                                     const struct ptd_rtit_cpu *cpu);

/** Read the XSAVE trace configuration state component (Table 36-13) at
 * @area, @size bytes, into @msrs.
 *
 * The component holds IA32_RTIT_CTL (offset 0x00), OUTPUT_BASE (0x08),
 * OUTPUT_MASK_PTRS (0x10), STATUS (0x18), CR3_MATCH (0x20), ADDR0_A (0x28),
 * ADDR0_B (0x30), ADDR1_A (0x38) and ADDR1_B (0x40), each 64-bit
 * little-endian; ADDR2/3 are not part of it and are set to 0.  @area is the
 * start of the component (state component 8), which the caller locates in
 * the XSAVE area (its offset in a compacted XSAVES image depends on the
 * other components saved, see SDM Vol. 1 13.4.3).  Bytes from 0x48 on are
 * reserved and ignored.
 *
 * Returns 0, or -pte_invalid if a pointer is NULL or @size is below
 * PTD_RTIT_XSAVE_SIZE (with @diag, if not NULL, saying so). */
extern pt_export int ptd_rtit_from_xsave(struct ptd_rtit_msrs *msrs,
                                         struct ptd_rtit_diag *diag,
                                         const void *area, size_t size);

/** ptd_rtit_from_xsave() and ptd_rtit_config() in one call.
 *
 * Also refuses (-pte_bad_config) an ADDR2_CFG or ADDR3_CFG other than 0:
 * processors that save Intel PT state with XSAVE support only address ranges
 * 0 and 1 (Table 36-13, note 1). */
extern pt_export int ptd_rtit_config_from_xsave(struct pt_config *config,
                                                struct ptd_rtit_trace *trace,
                                                struct ptd_rtit_diag *diag,
                                                const void *area, size_t size,
                                                const struct ptd_rtit_cpu *cpu);

/** Compute the IA32_RTIT_CTL value that Linux programs for a perf intel_pt
 * event into @ctl, from the event's attr.config and its exclude_kernel and
 * exclude_user flags (arch/x86/events/intel/pt.c).
 *
 * attr.config uses the IA32_RTIT_CTL bit positions for every option (cyc 1,
 * pwr_evt 4, fup_on_ptw 5, mtc 9, tsc 10, noretcomp 11, ptw 12, branch 13,
 * mtc_period 17:14, cyc_thresh 22:19, psb_period 27:24, event 31, notnt 55);
 * bit 0 ("pt") means "take BranchEn from bit 13" and BranchEn is set
 * otherwise.  The result has TraceEn, ToPA, OS unless @exclude_kernel and
 * User unless @exclude_user; ADDRn_CFG stays 0 because perf's address
 * filters are not recorded as register values.  Returns 0, -pte_invalid
 * for a NULL @ctl, or -pte_bad_config if @attr_config has bits that are
 * not an intel_pt option. */
extern pt_export int ptd_rtit_ctl_from_perf(uint64_t *ctl, uint64_t attr_config,
                                            int exclude_kernel,
                                            int exclude_user);

/** Return a static one-line description of a single enum ptd_rtit_note
 * flag, or NULL if @note is not exactly one known flag. */
extern pt_export const char *ptd_rtit_note_str(uint32_t note);

#ifdef __cplusplus
}
#endif

#endif /* PTD_RTIT_H */
