/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ptdecode: an Intel(R) Processor Trace decoder.
 *
 * This header is source-compatible with libipt 2.x (<intel-pt.h>): a program
 * written against libipt builds against ptdecode by changing only its compiler
 * and linker flags (see `pkg-config --cflags --libs ptdecode`).  Names,
 * signatures, structure layouts, enumeration values and error semantics follow
 * libipt; the text and the implementation are ptdecode's own.
 *
 * Sections:
 *   1. Version
 *   2. Errors
 *   3. Configuration
 *   4. Packets (types and payloads)
 *   5. Packet encoder
 *   6. Packet decoder
 *
 * Conventions used by every function below:
 *   - a negative return value is a negated enum pt_error_code;
 *   - decoders work on the trace buffer [config->begin, config->end), which the
 *     caller owns and keeps alive and unchanged for the decoder's lifetime;
 *   - objects are not thread-safe; use one decoder per thread.
 *
 * ptdecode extensions beyond libipt live in <ptdecode/ptdecode.h>.  The only
 * extension visible here are the PEBS-via-PT packet types ppt_bbp, ppt_bip and
 * ppt_bep, which take enumeration values after libipt's packet types.
 */

#ifndef INTEL_PT_H
#define INTEL_PT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pt_encoder;
struct pt_packet_decoder;
struct pt_event_decoder;
struct pt_query_decoder;

/** Marks a function exported from the shared library. */
#ifndef pt_export
#if defined(__GNUC__)
#define pt_export __attribute__((visibility("default")))
#else
#define pt_export
#endif
#endif

/* ------------------------------------------------------------------------ */
/* 1. Version                                                                */
/* ------------------------------------------------------------------------ */

/** The libipt API level this header implements (libipt 2.2). Code that tests
 * `LIBIPT_VERSION >= 0x202` sees the 2.2 interface. */
#define LIBIPT_VERSION_MAJOR 2
#define LIBIPT_VERSION_MINOR 2
#define LIBIPT_VERSION_PATCH 0
#define LIBIPT_VERSION ((LIBIPT_VERSION_MAJOR << 8) + LIBIPT_VERSION_MINOR)

/** Set when the header comes from ptdecode rather than from libipt. */
#define PTDECODE_INTEL_PT_H 1

/** A library version. */
struct pt_version {
	/** Major version of the implemented libipt API. */
	uint8_t major;
	/** Minor version of the implemented libipt API. */
	uint8_t minor;
	/** Patch level. */
	uint16_t patch;
	/** Build number (0 for release builds). */
	uint32_t build;
	/** Version suffix naming the implementation, e.g. "ptdecode-0.1.0"
	 * (printed after a '-', as libipt's tools print it). */
	const char *ext;
};

/** Return the version of the library that is linked in.
 *
 * major/minor/patch give the implemented libipt API level; ext names ptdecode
 * and its own version. */
extern pt_export struct pt_version pt_library_version(void);

/* ------------------------------------------------------------------------ */
/* 2. Errors                                                                 */
/* ------------------------------------------------------------------------ */

/** Error codes, returned negated by the library's functions. */
enum pt_error_code {
	pte_ok,                /**< success */
	pte_internal,          /**< an internal inconsistency (a bug) */
	pte_invalid,           /**< an invalid argument, e.g. a NULL pointer */
	pte_nosync,            /**< the decoder is not synchronized */
	pte_bad_opc,           /**< an unknown packet opcode */
	pte_bad_packet,        /**< a packet payload that is not valid */
	pte_bad_context,       /**< a packet where it is not expected */
	pte_eos,               /**< the end of the trace buffer was reached */
	pte_bad_query,         /**< the trace does not match the query */
	pte_nomem,             /**< out of memory */
	pte_bad_config,        /**< the configuration is not valid */
	pte_noip,              /**< no instruction pointer is known */
	pte_ip_suppressed,     /**< the instruction pointer was suppressed */
	pte_nomap,             /**< no memory is mapped at the address */
	pte_bad_insn,          /**< an instruction could not be decoded */
	pte_no_time,           /**< no wall-clock time (TSC) is known yet */
	pte_no_cbr,            /**< no core:bus ratio is known yet */
	pte_bad_image,         /**< the traced image is not valid */
	pte_bad_lock,          /**< a locking error */
	pte_not_supported,     /**< the feature is not supported */
	pte_retstack_empty,    /**< the return-address stack is empty */
	pte_bad_retcomp,       /**< a compressed return without a taken bit */
	pte_bad_status_update, /**< a status update contradicts decoder state */
	pte_no_enable,         /**< an expected enable event is missing */
	pte_event_ignored,     /**< an event was ignored */
	pte_overflow,          /**< a counter or buffer overflowed */
	pte_bad_file,          /**< a file could not be read */
	pte_bad_cpu            /**< the cpu is not known */
};

/** Turn a function's return value into an error code (pte_ok if >= 0). */
static inline enum pt_error_code pt_errcode(int status)
{
	return (status >= 0) ? pte_ok : (enum pt_error_code) - status;
}

/** Return a static, human-readable description of @code ("internal error."
 * for a value that is no error code, a negative one included, as libipt). */
extern pt_export const char *pt_errstr(enum pt_error_code code);

/* ------------------------------------------------------------------------ */
/* 3. Configuration                                                          */
/* ------------------------------------------------------------------------ */

/** A processor vendor. */
enum pt_cpu_vendor { pcv_unknown, pcv_intel };

/** The processor a trace was recorded on (CPUID family/model/stepping). */
struct pt_cpu {
	enum pt_cpu_vendor vendor; /**< pcv_unknown: apply no errata */
	uint16_t family;           /**< display family */
	uint8_t model;             /**< display model */
	uint8_t stepping;          /**< stepping */
};

/** Intel PT errata that the decoders work around when the bit is set.
 *
 * pt_cpu_errata() fills this from a struct pt_cpu. */
struct pt_errata {
	/** BDM70: FUP and MODE.Exec may appear in a PSB+ that precedes a
	 * TIP.PGE although tracing was disabled. */
	uint32_t bdm70 : 1;
	/** BDM64: a wrong branch target may be traced right before a TSX
	 * abort. */
	uint32_t bdm64 : 1;
	/** SKD007: an OVF may replace the second byte of a multi-byte CYC. The
	 * packet decoder reports the OVF and drops the broken CYC. */
	uint32_t skd007 : 1;
	/** SKD022: a VM entry that clears TraceEn may emit a FUP before the
	 * TIP.PGD. */
	uint32_t skd022 : 1;
	/** SKD010: the FUP after an OVF may be missing. */
	uint32_t skd010 : 1;
	/** SKL014: a TIP.PGD caused by a direct branch leaving the filter range
	 * may lack its IP. */
	uint32_t skl014 : 1;
	/** APL12: an OVF may be followed by a FUP while FilterEn is clear. */
	uint32_t apl12 : 1;
	/** APL11: an OVF may be followed by a TIP.PGD. */
	uint32_t apl11 : 1;
	/** SKL168: a CYC, possibly with its MTC, may be dropped right before a
	 * PSB. */
	uint32_t skl168 : 1;
	/** SKZ84: with VMX TSC offsetting or scaling a TMA is corrupted and
	 * followed by one bogus byte. The packet decoder reports such a TMA as
	 * ppt_invalid of 8 bytes. */
	uint32_t skz84 : 1;
	/** Reserved; must be zero. */
	uint32_t reserved[15];
};

/** Decoder-specific flags; each decoder reads its own member of @variant. */
struct pt_conf_flags {
	union {
		/** Block decoder flags. */
		struct {
			/** End a block after a call instruction. */
			uint32_t end_on_call : 1;
			/** Report tick events when the time changes. */
			uint32_t enable_tick_events : 1;
			/** End a block after a jump instruction. */
			uint32_t end_on_jump : 1;
			/** Keep the timing calibration on overflow. */
			uint32_t keep_tcal_on_ovf : 1;
			/** Report changes of IF (needs Event Trace). */
			uint32_t enable_iflags_events : 1;
		} block;

		/** Instruction-flow decoder flags. */
		struct {
			/** Report tick events when the time changes. */
			uint32_t enable_tick_events : 1;
			/** Keep the timing calibration on overflow. */
			uint32_t keep_tcal_on_ovf : 1;
			/** Report changes of IF (needs Event Trace). */
			uint32_t enable_iflags_events : 1;
		} insn;

		/** Query decoder flags. */
		struct {
			/** Keep the timing calibration on overflow. */
			uint32_t keep_tcal_on_ovf : 1;
			/** Report changes of IF (needs Event Trace). */
			uint32_t enable_iflags_events : 1;
		} query;

		/** Event decoder flags. */
		struct {
			/** Keep the timing calibration on overflow. */
			uint32_t keep_tcal_on_ovf : 1;
			/** Report changes of IF (needs Event Trace). */
			uint32_t enable_iflags_events : 1;
		} event;

		/** Reserved space. */
		uint32_t reserved[4];
	} variant;
};

/** The IP filter configuration (IA32_RTIT_CTL.ADDRn_CFG and
 * IA32_RTIT_ADDRn_A/B). Ranges are inclusive. */
struct pt_conf_addr_filter {
	union {
		/** All ADDRn_CFG fields, 4 bits each, ADDR0 in bits 3:0. */
		uint64_t addr_cfg;

		/** The same fields one by one: 0 off, 1 filter, 2 stop. */
		struct {
			uint32_t addr0_cfg : 4;
			uint32_t addr1_cfg : 4;
			uint32_t addr2_cfg : 4;
			uint32_t addr3_cfg : 4;
		} ctl;
	} config;

	uint64_t addr0_a; /**< range 0 start */
	uint64_t addr0_b; /**< range 0 end */
	uint64_t addr1_a; /**< range 1 start */
	uint64_t addr1_b; /**< range 1 end */
	uint64_t addr2_a; /**< range 2 start */
	uint64_t addr2_b; /**< range 2 end */
	uint64_t addr3_a; /**< range 3 start */
	uint64_t addr3_b; /**< range 3 end */

	/** Reserved space. */
	uint64_t reserved[8];
};

struct pt_packet_unknown;

/** A decoder or encoder configuration.
 *
 * Initialize it with pt_config_init() and then set the fields you know.  The
 * library copies the configuration when a decoder is allocated: it reads
 * min(@size, its own sizeof) bytes and zeroes the rest, so programs built
 * against an older or newer layout keep working. */
struct pt_config {
	/** sizeof(struct pt_config) as the caller knows it. */
	size_t size;

	/** The trace buffer: [begin, end). */
	uint8_t *begin;
	uint8_t *end;

	/** Optional decoding of packets the library does not know. */
	struct {
		/** Called at an unknown opcode with @pos pointing at it.  Fills
		 * @unknown and returns the packet size in bytes (at most 255),
		 * or a negative pt_error_code.  Without a callback an unknown
		 * opcode is -pte_bad_opc. */
		int (*callback)(struct pt_packet_unknown *unknown,
		                const struct pt_config *config,
		                const uint8_t *pos, void *context);

		/** Passed to @callback as @context. */
		void *context;
	} decode;

	/** The processor the trace was recorded on. */
	struct pt_cpu cpu;

	/** The errata to work around (see pt_cpu_errata()). */
	struct pt_errata errata;

	/** CPUID leaf 0x15: TSC ticks per crystal clock (CTC) tick are
	 * ebx / eax.  Needed to interpret MTC packets. */
	uint32_t cpuid_0x15_eax, cpuid_0x15_ebx;

	/** IA32_RTIT_CTL.MTCFreq: an MTC carries CTC bits
	 * [mtc_freq+7:mtc_freq]. */
	uint8_t mtc_freq;

	/** MSR_PLATFORM_INFO[15:8], the maximum non-turbo ratio.  When set,
	 * CBR packets can calibrate cycle-accurate timing. */
	uint8_t nom_freq;

	/** Decoder-specific flags. */
	struct pt_conf_flags flags;

	/** The IP filter configuration. */
	struct pt_conf_addr_filter addr_filter;
};

/** Zero @config and set its size field. */
static inline void pt_config_init(struct pt_config *config)
{
	memset(config, 0, sizeof(*config));
	config->size = sizeof(*config);
}

/** Fill @errata with the errata bits that apply to @cpu.
 *
 * @errata is cleared first, as in libipt.  Returns 0 on success,
 * -pte_invalid if an argument is NULL, and -pte_bad_cpu if @cpu is not an
 * Intel processor known to the library (then @errata is all zero). */
extern pt_export int pt_cpu_errata(struct pt_errata *errata,
                                   const struct pt_cpu *cpu);

/* ------------------------------------------------------------------------ */
/* 4. Packets                                                                */
/* ------------------------------------------------------------------------ */

/** Packet types. */
enum pt_packet_type {
	ppt_invalid, /**< not a packet (e.g. a corrupted TMA under SKZ84) */
	ppt_unknown, /**< decoded by the configured callback */
	ppt_pad,
	ppt_psb,
	ppt_psbend,
	ppt_fup,
	ppt_tip,
	ppt_tip_pge,
	ppt_tip_pgd,
	ppt_tnt_8,
	ppt_tnt_64,
	ppt_mode,
	ppt_pip,
	ppt_vmcs,
	ppt_cbr,
	ppt_tsc,
	ppt_tma,
	ppt_mtc,
	ppt_cyc,
	ppt_stop,
	ppt_ovf,
	ppt_mnt,
	ppt_exstop,
	ppt_mwait,
	ppt_pwre,
	ppt_pwrx,
	ppt_ptw,
	ppt_cfe,
	ppt_evd,
	ppt_trig,

	/* ptdecode extensions: PEBS via Intel PT (not in libipt). */
	ppt_bbp, /**< Block Begin Packet */
	ppt_bip, /**< Block Item Packet (only inside a BBP..BEP block) */
	ppt_bep  /**< Block End Packet */
};

/** IP compression of TIP, TIP.PGE, TIP.PGD and FUP packets. */
enum pt_ip_compression {
	pt_ipc_suppressed = 0x0, /**< no payload: the IP is suppressed */
	pt_ipc_update_16 = 0x01, /**< 16 bits replace the last IP's low bits */
	pt_ipc_update_32 = 0x02, /**< 32 bits replace the last IP's low bits */
	pt_ipc_sext_48 = 0x03,   /**< 48 bits, sign-extended */
	pt_ipc_update_48 = 0x04, /**< 48 bits replace the last IP's low bits */
	pt_ipc_full = 0x06       /**< the full 64-bit IP */
};

/** An execution mode. */
enum pt_exec_mode { ptem_unknown, ptem_16bit, ptem_32bit, ptem_64bit };

/** MODE packet leaves (the leaf bits as they appear in the payload). */
enum pt_mode_leaf { pt_mol_exec = 0x00, pt_mol_tsx = 0x20 };

/** TNT-8 or TNT-64: @bit_size branch outcomes, the oldest in the most
 * significant of those bits; a set bit means taken. */
struct pt_packet_tnt {
	uint8_t bit_size; /**< number of outcomes */
	uint64_t payload; /**< outcomes without the stop bit */
};

/** TIP, TIP.PGE, TIP.PGD, FUP. */
struct pt_packet_ip {
	enum pt_ip_compression ipc; /**< how @ip combines with the last IP */
	uint64_t ip;                /**< the payload, zero-extended */
};

/** MODE.Exec. */
struct pt_packet_mode_exec {
	uint32_t csl : 1;   /**< CS.L */
	uint32_t csd : 1;   /**< CS.D */
	uint32_t iflag : 1; /**< RFLAGS.IF (with Event Trace) */
};

/** Return the execution mode encoded in @packet: CS.L set and CS.D clear
 * is 64-bit, CS.D set 32-bit, both clear 16-bit; both set is a reserved
 * encoding, ptem_unknown. */
static inline enum pt_exec_mode
pt_get_exec_mode(const struct pt_packet_mode_exec *packet)
{
	if (packet->csl)
		return packet->csd ? ptem_unknown : ptem_64bit;
	return packet->csd ? ptem_32bit : ptem_16bit;
}

/** Return the MODE.Exec bits that encode @mode (iflag clear); ptem_unknown
 * and any other value give the reserved encoding, CS.L and CS.D both
 * set. */
static inline struct pt_packet_mode_exec
pt_set_exec_mode(enum pt_exec_mode mode)
{
	struct pt_packet_mode_exec packet;

	memset(&packet, 0, sizeof(packet));
	switch (mode) {
	case ptem_64bit:
		packet.csl = 1;
		break;
	case ptem_32bit:
		packet.csd = 1;
		break;
	case ptem_16bit:
		break;
	default:
		packet.csl = 1;
		packet.csd = 1;
		break;
	}
	return packet;
}

/** MODE.TSX. */
struct pt_packet_mode_tsx {
	uint32_t intx : 1; /**< in a transaction */
	uint32_t abrt : 1; /**< transaction aborted */
};

/** MODE. */
struct pt_packet_mode {
	enum pt_mode_leaf leaf; /**< selects @bits */
	union {
		struct pt_packet_mode_exec exec;
		struct pt_packet_mode_tsx tsx;
	} bits;
};

/** PIP. */
struct pt_packet_pip {
	uint64_t cr3;    /**< CR3 with bits 4:0 zero */
	uint32_t nr : 1; /**< VMX non-root */
};

/** TSC: the low 56 bits of the time-stamp counter. */
struct pt_packet_tsc {
	uint64_t tsc;
};

/** CBR: the core:bus ratio. */
struct pt_packet_cbr {
	uint8_t ratio;
};

/** TMA: crystal clock value and fast counter at the preceding TSC. */
struct pt_packet_tma {
	uint16_t ctc; /**< CTC[15:0] */
	uint16_t fc;  /**< FastCounter, 9 bits */
};

/** MTC: CTC[mtc_freq+7:mtc_freq]. */
struct pt_packet_mtc {
	uint8_t ctc;
};

/** CYC: core clock cycles since the previous CYC (at most 61 bits). */
struct pt_packet_cyc {
	uint64_t value;
};

/** VMCS. */
struct pt_packet_vmcs {
	uint64_t base; /**< the VMCS pointer, bits 11:0 zero */
};

/** MNT: maintenance. */
struct pt_packet_mnt {
	uint64_t payload;
};

/** EXSTOP. */
struct pt_packet_exstop {
	uint32_t ip : 1; /**< a FUP with the IP follows */
};

/** MWAIT. */
struct pt_packet_mwait {
	uint32_t hints; /**< EAX of MWAIT */
	uint32_t ext;   /**< ECX of MWAIT */
};

/** PWRE: power entry. */
struct pt_packet_pwre {
	uint8_t state;     /**< resolved thread C-state */
	uint8_t sub_state; /**< resolved thread sub C-state */
	uint32_t hw : 1;   /**< entered by hardware (e.g. HDC) */
};

/** PWRX: power exit. */
struct pt_packet_pwrx {
	uint8_t last;            /**< core C-state at wake */
	uint8_t deepest;         /**< deepest core C-state reached */
	uint32_t interrupt : 1;  /**< woken by an interrupt */
	uint32_t store : 1;      /**< woken by a store to a monitored address */
	uint32_t autonomous : 1; /**< woken by a hardware condition */
};

/** PTW: PTWRITE payload. */
struct pt_packet_ptw {
	uint64_t payload; /**< the operand */
	uint8_t plc;     /**< payload size code: 0 → 4 bytes, 1 → 8 bytes */
	uint32_t ip : 1; /**< a FUP with the PTWRITE's IP follows */
};

/** Return the payload size in bytes for PTW size code @plc, or
 * -pte_bad_packet for a reserved code. */
static inline int pt_ptw_size(uint8_t plc)
{
	switch (plc) {
	case 0:
		return 4;
	case 1:
		return 8;
	case 2:
	case 3:
		return -pte_bad_packet;
	}
	return -pte_internal;
}

/** Control-flow event (CFE) types. */
enum pt_cfe_type {
	pt_cfe_intr = 0x01,
	pt_cfe_iret = 0x02,
	pt_cfe_smi = 0x03,
	pt_cfe_rsm = 0x04,
	pt_cfe_sipi = 0x05,
	pt_cfe_init = 0x06,
	pt_cfe_vmentry = 0x07,
	pt_cfe_vmexit = 0x08,
	pt_cfe_vmexit_intr = 0x09,
	pt_cfe_shutdown = 0x0a,
	pt_cfe_uintr = 0x0c,
	pt_cfe_uiret = 0x0d,
	pt_cfe_swintr = 0x0e,
	pt_cfe_syscall = 0x0f
};

/** Exception and interrupt vectors (SDM Vol. 1, Table 6-1). */
enum pt_cfe_intr {
	pt_cfe_intr_de = 0,
	pt_cfe_intr_db = 1,
	pt_cfe_intr_nmi = 2,
	pt_cfe_intr_bp = 3,
	pt_cfe_intr_of = 4,
	pt_cfe_intr_br = 5,
	pt_cfe_intr_ud = 6,
	pt_cfe_intr_nm = 7,
	pt_cfe_intr_df = 8,
	pt_cfe_intr_ts = 10,
	pt_cfe_intr_np = 11,
	pt_cfe_intr_ss = 12,
	pt_cfe_intr_gp = 13,
	pt_cfe_intr_pf = 14,
	pt_cfe_intr_mf = 16,
	pt_cfe_intr_ac = 17,
	pt_cfe_intr_mc = 18,
	pt_cfe_intr_xm = 19,
	pt_cfe_intr_ve = 20,
	pt_cfe_intr_cp = 21
};

/** CFE: control-flow event (Event Trace). */
struct pt_packet_cfe {
	enum pt_cfe_type type; /**< the event */
	uint8_t vector;        /**< vector for intr, vmexit_intr, sipi, uintr */
	uint32_t ip : 1;       /**< binds to the next FUP */
};

/** Event data (EVD) types. */
enum pt_evd_type {
	pt_evd_cr2 = 0x00,  /**< page-fault linear address */
	pt_evd_vmxq = 0x01, /**< VM-exit qualification */
	pt_evd_vmxr = 0x02  /**< VM-exit reason */
};

/** EVD: event data. */
struct pt_packet_evd {
	enum pt_evd_type type;
	uint64_t payload;
};

/** TRIG: trigger. */
struct pt_packet_trig {
	uint8_t trbv; /**< bit vector of the triggers reported */
	/** Instructions since the last IP packet; valid if @icntv. */
	uint16_t icnt;
	uint32_t ip : 1;    /**< a FUP with the reference IP follows */
	uint32_t icntv : 1; /**< @icnt is valid */
	uint32_t mult : 1;  /**< other triggers fired that are not reported */
};

/** BBP (ptdecode extension): begins a block of PEBS items. */
struct pt_packet_bbp {
	uint8_t type;    /**< block type, 5 bits */
	uint32_t sz : 1; /**< set: BIP items are 4 bytes; clear: 8 bytes */
};

/** BIP (ptdecode extension): one PEBS item inside a BBP..BEP block. */
struct pt_packet_bip {
	uint8_t id;       /**< item id, 5 bits */
	uint64_t payload; /**< 4 or 8 bytes, as the enclosing BBP says */
};

/** BEP (ptdecode extension): ends a block of PEBS items. */
struct pt_packet_bep {
	uint32_t ip : 1; /**< a FUP with the IP of the PEBS event follows */
};

/** A packet the library does not know, decoded by the configured callback. */
struct pt_packet_unknown {
	const uint8_t *packet; /**< the packet's first byte in the trace */
	void *priv;            /**< for the callback's own use */
};

/** An Intel PT packet. */
struct pt_packet {
	/** Selects the @payload member. */
	enum pt_packet_type type;

	/** Size of the packet in bytes, opcode included. */
	uint8_t size;

	/** PAD, PSB, PSBEND, OVF and STOP have no payload. */
	union {
		struct pt_packet_tnt tnt;         /**< ppt_tnt_8, ppt_tnt_64 */
		struct pt_packet_ip ip;           /**< ppt_tip*, ppt_fup */
		struct pt_packet_mode mode;       /**< ppt_mode */
		struct pt_packet_pip pip;         /**< ppt_pip */
		struct pt_packet_tsc tsc;         /**< ppt_tsc */
		struct pt_packet_cbr cbr;         /**< ppt_cbr */
		struct pt_packet_tma tma;         /**< ppt_tma */
		struct pt_packet_mtc mtc;         /**< ppt_mtc */
		struct pt_packet_cyc cyc;         /**< ppt_cyc */
		struct pt_packet_vmcs vmcs;       /**< ppt_vmcs */
		struct pt_packet_mnt mnt;         /**< ppt_mnt */
		struct pt_packet_exstop exstop;   /**< ppt_exstop */
		struct pt_packet_mwait mwait;     /**< ppt_mwait */
		struct pt_packet_pwre pwre;       /**< ppt_pwre */
		struct pt_packet_pwrx pwrx;       /**< ppt_pwrx */
		struct pt_packet_ptw ptw;         /**< ppt_ptw */
		struct pt_packet_cfe cfe;         /**< ppt_cfe */
		struct pt_packet_evd evd;         /**< ppt_evd */
		struct pt_packet_trig trig;       /**< ppt_trig */
		struct pt_packet_unknown unknown; /**< ppt_unknown */
		struct pt_packet_bbp bbp;         /**< ppt_bbp (extension) */
		struct pt_packet_bip bip;         /**< ppt_bip (extension) */
		struct pt_packet_bep bep;         /**< ppt_bep (extension) */
	} payload;
};

/* ------------------------------------------------------------------------ */
/* 5. Packet encoder                                                         */
/* ------------------------------------------------------------------------ */

/** Allocate an encoder that writes into [config->begin, config->end),
 * starting at config->begin.  Returns NULL if @config is NULL or not valid,
 * or if memory runs out. */
extern pt_export struct pt_encoder *
pt_alloc_encoder(const struct pt_config *config);

/** Free @encoder (NULL is allowed). */
extern pt_export void pt_free_encoder(struct pt_encoder *encoder);

/** Move @encoder to @offset in its buffer.  Returns 0, -pte_invalid for a
 * NULL @encoder, or -pte_eos if @offset lies beyond the buffer. */
extern pt_export int pt_enc_sync_set(struct pt_encoder *encoder,
                                     uint64_t offset);

/** Store @encoder's current offset in @offset.  Returns 0 or -pte_invalid. */
extern pt_export int pt_enc_get_offset(const struct pt_encoder *encoder,
                                       uint64_t *offset);

/** Return @encoder's copy of its configuration, or NULL for a NULL
 * @encoder. */
extern pt_export const struct pt_config *
pt_enc_get_config(const struct pt_encoder *encoder);

/** Write @packet at the current position and advance past it.
 *
 * @packet->size is ignored.  Fields wider than the packet's are cut, as
 * libipt's encoder cuts them (CR3 to bits 51:5, a VMCS base to bits 51:12,
 * a TSC to 56 bits, C-states to 4 bits, a 4-byte PTWRITE payload to 32
 * bits, CFE and EVD types to 5 bits; IP payloads to the bytes the IP
 * compression carries).  Returns the number of bytes written, or:
 * -pte_invalid for a NULL argument, a reserved IP compression or a bad
 * TNT-64; -pte_bad_opc for an unknown packet type (including ppt_invalid
 * and ppt_unknown); -pte_bad_packet for a payload that cannot be encoded
 * (a TNT-8 of 0 or more than 6 bits or with outcomes beyond them, a TMA
 * FastCounter above 9 bits, an unknown MODE leaf, a reserved PTWRITE size,
 * a CYC above 61 bits, a BIP outside a BBP block or a TNT-8 inside one that
 * would read as a BIP); -pte_internal for a PTWRITE size above 3 (as
 * pt_ptw_size()); and -pte_eos if the packet does not fit (for a packet of
 * fixed size, checked first, as in libipt).  On error nothing is written. */
extern pt_export int pt_enc_next(struct pt_encoder *encoder,
                                 const struct pt_packet *packet);

/* ------------------------------------------------------------------------ */
/* 6. Packet decoder                                                         */
/* ------------------------------------------------------------------------ */

/** Allocate a packet decoder for the trace in [config->begin, config->end).
 *
 * The decoder starts unsynchronized: call one of the pt_pkt_sync_*()
 * functions first.  Returns NULL if @config is NULL or not valid (size too
 * small, begin or end NULL, end before begin), or if memory runs out. */
extern pt_export struct pt_packet_decoder *
pt_pkt_alloc_decoder(const struct pt_config *config);

/** Free @decoder (NULL is allowed). */
extern pt_export void pt_pkt_free_decoder(struct pt_packet_decoder *decoder);

/** Synchronize onto the next PSB.
 *
 * An unsynchronized decoder searches from the start of the buffer; a
 * synchronized one searches after its last synchronization point (a PSB that
 * straddles the current position is found too).  Returns 0 or a positive
 * value on success, -pte_invalid for a NULL @decoder, and -pte_eos if there is
 * no further PSB. */
extern pt_export int pt_pkt_sync_forward(struct pt_packet_decoder *decoder);

/** Synchronize onto the last PSB that starts before the current position
 * (before the end of the buffer for an unsynchronized decoder).  Returns as
 * pt_pkt_sync_forward(). */
extern pt_export int pt_pkt_sync_backward(struct pt_packet_decoder *decoder);

/** Take @offset as the synchronization point, whatever the bytes there.
 * Returns 0, -pte_invalid for a NULL @decoder, or -pte_eos if @offset lies
 * beyond the end of the buffer. */
extern pt_export int pt_pkt_sync_set(struct pt_packet_decoder *decoder,
                                     uint64_t offset);

/** Store the offset of the next packet in @offset.  Returns 0, -pte_invalid,
 * or -pte_nosync if @decoder was never synchronized. */
extern pt_export int pt_pkt_get_offset(const struct pt_packet_decoder *decoder,
                                       uint64_t *offset);

/** Store the offset of the last synchronization point in @offset.  Returns 0,
 * -pte_invalid, or -pte_nosync. */
extern pt_export int
pt_pkt_get_sync_offset(const struct pt_packet_decoder *decoder,
                       uint64_t *offset);

/** Return @decoder's copy of its configuration, or NULL for a NULL
 * @decoder. */
extern pt_export const struct pt_config *
pt_pkt_get_config(const struct pt_packet_decoder *decoder);

/** Decode the packet at the current position into @packet and advance past
 * it.
 *
 * @size is sizeof(*packet) as the caller knows it; a smaller structure gets
 * the leading bytes, a larger one is zero-padded.  Returns the number of bytes
 * consumed, or: -pte_invalid for a NULL argument, -pte_nosync if not
 * synchronized, -pte_eos at the end of the buffer or for a packet truncated
 * by it, -pte_bad_opc for an unknown opcode without a decode callback, and
 * -pte_bad_packet for a malformed payload.  On error the decoder does not
 * move: synchronize again (pt_pkt_sync_forward()) to continue after it. */
extern pt_export int pt_pkt_next(struct pt_packet_decoder *decoder,
                                 struct pt_packet *packet, size_t size);

/* ------------------------------------------------------------------------ */
/* 7. Event                                                                  */
/* ------------------------------------------------------------------------ */

/** What an event reports.  The order is libipt's; new kinds are only ever
 * appended. */
enum pt_event_type {
	/** Tracing was enabled (TIP.PGE). */
	ptev_enabled,
	/** Tracing was disabled by a branch (TIP.PGD). */
	ptev_disabled,
	/** Tracing was disabled by an asynchronous transfer (FUP+TIP.PGD). */
	ptev_async_disabled,
	/** An interrupt, exception or other asynchronous transfer (FUP+TIP). */
	ptev_async_branch,
	/** CR3 changed at a synchronous instruction (PIP). */
	ptev_paging,
	/** CR3 changed with an asynchronous transfer (PIP bound to a TIP). */
	ptev_async_paging,
	/** The processor's trace buffers overflowed (OVF). */
	ptev_overflow,
	/** The execution mode changed (MODE.Exec). */
	ptev_exec_mode,
	/** The transactional state changed (MODE.TSX). */
	ptev_tsx,
	/** Tracing stopped (TraceStop, STOP). */
	ptev_stop,
	/** The VMCS pointer changed at a synchronous instruction (VMCS). */
	ptev_vmcs,
	/** The VMCS pointer changed with an asynchronous transfer. */
	ptev_async_vmcs,
	/** Execution stopped (EXSTOP). */
	ptev_exstop,
	/** An MWAIT completed (MWAIT). */
	ptev_mwait,
	/** A C-state was entered (PWRE). */
	ptev_pwre,
	/** A C-state was left (PWRX). */
	ptev_pwrx,
	/** A PTWRITE instruction wrote a value (PTW). */
	ptev_ptwrite,
	/** The time advanced (instruction-flow and block decoders only). */
	ptev_tick,
	/** The core:bus ratio changed (CBR). */
	ptev_cbr,
	/** A maintenance packet (MNT). */
	ptev_mnt,
#if (LIBIPT_VERSION >= 0x201)
	/** An indirect branch (event decoder only). */
	ptev_tip,
	/** Conditional branch outcomes (event decoder only). */
	ptev_tnt,
	/** RFLAGS.IF changed (Event Trace). */
	ptev_iflags,
	/** An interrupt or exception (Event Trace, CFE); comes in addition to
	 * the async_branch event of the transfer. */
	ptev_interrupt,
	/** An IRET (Event Trace). */
	ptev_iret,
	/** A system management interrupt (Event Trace). */
	ptev_smi,
	/** A return from system management mode (Event Trace). */
	ptev_rsm,
	/** A startup IPI (Event Trace). */
	ptev_sipi,
	/** An INIT (Event Trace). */
	ptev_init,
	/** A VM entry (Event Trace). */
	ptev_vmentry,
	/** A VM exit (Event Trace). */
	ptev_vmexit,
	/** A shutdown (Event Trace). */
	ptev_shutdown,
	/** A user interrupt (Event Trace). */
	ptev_uintr,
	/** A UIRET (Event Trace). */
	ptev_uiret,
#endif
#if (LIBIPT_VERSION >= 0x202)
	/** A trigger fired (TRIG). */
	ptev_trig,
	/** A software interrupt: INT n, INT3, INTO (Event Trace, CFE type
	 * 0xe).  ptdecode's: libipt 2.2 skips this CFE type (see
	 * docs/compatibility.md). */
	ptev_swintr,
	/** A SYSCALL (Event Trace, CFE type 0xf).  ptdecode's, like
	 * ptev_swintr. */
	ptev_syscall,
#endif
};

/** One event, as pt_qry_event() reports it. */
struct pt_event {
	/** What happened; selects the member of @variant. */
	enum pt_event_type type;

	/** The event's IP is not known: the ip field(s) of @variant that say
	 * "not valid when ip_suppressed" must not be used. */
	uint32_t ip_suppressed : 1;

	/** The event only restates the state at a synchronization point (in
	 * PSB+ or after an OVF); it is not a change of the traced program. */
	uint32_t status_update : 1;

	/** @tsc is valid: a TSC packet was seen since synchronization. */
	uint32_t has_tsc : 1;

	/** The estimated time-stamp counter when the event happened (valid
	 * with @has_tsc). */
	uint64_t tsc;

	/** Timing packets that could not be used since the last TSC: a
	 * measure of @tsc's precision (see pt_qry_time()). */
	uint32_t lost_mtc;
	uint32_t lost_cyc;

	/** Reserved; zero. */
	uint64_t reserved[2];

	/** What the event says, by @type. */
	union {
		/** ptev_enabled. */
		struct {
			/** Where tracing starts. */
			uint64_t ip;
			/** Tracing resumes exactly where it was disabled
			 * (the block and instruction-flow decoders set it). */
			uint32_t resumed : 1;
		} enabled;

		/** ptev_disabled. */
		struct {
			/** The target of the branch that left the traced
			 * region, if known (not with @ip_suppressed). */
			uint64_t ip;
		} disabled;

		/** ptev_async_disabled. */
		struct {
			/** Where the asynchronous transfer happened. */
			uint64_t at;
			/** Its target (not with @ip_suppressed). */
			uint64_t ip;
		} async_disabled;

		/** ptev_async_branch. */
		struct {
			/** Where the transfer happened. */
			uint64_t from;
			/** Its target (not with @ip_suppressed). */
			uint64_t to;
		} async_branch;

		/** ptev_paging. */
		struct {
			/** The new CR3 (bits 4:0 clear). */
			uint64_t cr3;
			/** The processor is in VMX non-root operation. */
			uint32_t non_root : 1;
		} paging;

		/** ptev_async_paging. */
		struct {
			/** The new CR3 (bits 4:0 clear). */
			uint64_t cr3;
			/** The processor is in VMX non-root operation. */
			uint32_t non_root : 1;
			/** Where the new CR3 takes effect. */
			uint64_t ip;
		} async_paging;

		/** ptev_overflow. */
		struct {
			/** Where tracing goes on after the overflow; with
			 * @ip_suppressed, the overflow ended while tracing
			 * was off. */
			uint64_t ip;
		} overflow;

		/** ptev_exec_mode. */
		struct {
			/** The new execution mode. */
			enum pt_exec_mode mode;
			/** Where it takes effect. */
			uint64_t ip;
		} exec_mode;

		/** ptev_tsx. */
		struct {
			/** Where the state changed (not with
			 * @ip_suppressed). */
			uint64_t ip;
			/** Execution is now transactional. */
			uint32_t speculative : 1;
			/** A transaction aborted. */
			uint32_t aborted : 1;
		} tsx;

		/** ptev_vmcs. */
		struct {
			/** The new VMCS pointer (bits 11:0 clear). */
			uint64_t base;
		} vmcs;

		/** ptev_async_vmcs. */
		struct {
			/** The new VMCS pointer (bits 11:0 clear). */
			uint64_t base;
			/** Where it takes effect. */
			uint64_t ip;
		} async_vmcs;

		/** ptev_exstop. */
		struct {
			/** The instruction that did not complete (not with
			 * @ip_suppressed). */
			uint64_t ip;
		} exstop;

		/** ptev_mwait. */
		struct {
			/** The MWAIT instruction (not with @ip_suppressed). */
			uint64_t ip;
			/** EAX and ECX of the MWAIT. */
			uint32_t hints;
			uint32_t ext;
		} mwait;

		/** ptev_pwre. */
		struct {
			/** The thread C-state and sub-state entered. */
			uint8_t state;
			uint8_t sub_state;
			/** Hardware initiated the entry. */
			uint32_t hw : 1;
		} pwre;

		/** ptev_pwrx. */
		struct {
			/** The core C-state at wake-up and the deepest one
			 * reached. */
			uint8_t last;
			uint8_t deepest;
			/** Why it woke: an interrupt, a store to the
			 * monitored address, an autonomous hardware
			 * condition. */
			uint32_t interrupt : 1;
			uint32_t store : 1;
			uint32_t autonomous : 1;
		} pwrx;

		/** ptev_ptwrite. */
		struct {
			/** The PTWRITE instruction (not with
			 * @ip_suppressed). */
			uint64_t ip;
			/** The payload's size in bytes, and the payload. */
			uint8_t size;
			uint64_t payload;
		} ptwrite;

		/** ptev_tick. */
		struct {
			/** An instruction near the time (not with
			 * @ip_suppressed). */
			uint64_t ip;
		} tick;

		/** ptev_cbr. */
		struct {
			/** The new core:bus ratio. */
			uint16_t ratio;
		} cbr;

		/** ptev_mnt. */
		struct {
			/** The packet's payload. */
			uint64_t payload;
		} mnt;

#if (LIBIPT_VERSION >= 0x201)
		/** ptev_tip. */
		struct {
			/** The branch target. */
			uint64_t ip;
		} tip;

		/** ptev_tnt. */
		struct {
			/** Outcomes, oldest in bit @size - 1, 1 for taken. */
			uint64_t bits;
			/** The number of outcomes. */
			uint8_t size;
		} tnt;

		/** ptev_iflags. */
		struct {
			/** The new RFLAGS.IF. */
			uint32_t iflag : 1;
			/** Where it applies (not with @ip_suppressed). */
			uint64_t ip;
		} iflags;

		/** ptev_interrupt. */
		struct {
			/** @cr2 is valid. */
			uint32_t has_cr2 : 1;
			/** The vector. */
			uint8_t vector;
			/** The page-fault address. */
			uint64_t cr2;
			/** The faulting instruction, or the next one for a
			 * trap (not with @ip_suppressed). */
			uint64_t ip;
		} interrupt;

		/** ptev_iret. */
		struct {
			/** The IRET (not with @ip_suppressed). */
			uint64_t ip;
		} iret;

		/** ptev_smi. */
		struct {
			/** The instruction at or before the SMI (not with
			 * @ip_suppressed). */
			uint64_t ip;
		} smi;

		/** ptev_rsm. */
		struct {
			/** The RSM (not with @ip_suppressed). */
			uint64_t ip;
		} rsm;

		/** ptev_sipi. */
		struct {
			/** The SIPI vector. */
			uint8_t vector;
		} sipi;

		/** ptev_init. */
		struct {
			/** The instruction (not with @ip_suppressed). */
			uint64_t ip;
		} init;

		/** ptev_vmentry. */
		struct {
			/** The VM entry instruction (not with
			 * @ip_suppressed). */
			uint64_t ip;
		} vmentry;

		/** ptev_vmexit. */
		struct {
			/** Which of @vector, @vmxr and @vmxq are valid. */
			uint32_t has_vector : 1;
			uint32_t has_vmxr : 1;
			uint32_t has_vmxq : 1;
			/** The vector of the interrupt or exception that
			 * caused the exit. */
			uint8_t vector;
			/** The exit reason and qualification. */
			uint64_t vmxr;
			uint64_t vmxq;
			/** Where the exit happened (not with
			 * @ip_suppressed). */
			uint64_t ip;
		} vmexit;

		/** ptev_shutdown. */
		struct {
			/** The first instruction that did not complete (not
			 * with @ip_suppressed). */
			uint64_t ip;
		} shutdown;

		/** ptev_uintr. */
		struct {
			/** The user interrupt vector. */
			uint8_t vector;
			/** The instruction before which it was delivered
			 * (not with @ip_suppressed). */
			uint64_t ip;
		} uintr;

		/** ptev_uiret. */
		struct {
			/** The UIRET (not with @ip_suppressed). */
			uint64_t ip;
		} uiret;
#endif
#if (LIBIPT_VERSION >= 0x202)
		/** ptev_trig. */
		struct {
			/** Which triggers fired (IA32_RTIT_TRIGGERx_CFG). */
			uint8_t trbv;
			/** Instructions after the anchor @ip. */
			uint16_t icnt;
			/** The anchor instruction; 0 means the last IP the
			 * decoder reported (not with @ip_suppressed). */
			uint64_t ip;
			/** More triggers fired than are reported. */
			uint32_t mult : 1;
		} trig;

		/** ptev_swintr. */
		struct {
			/** The vector. */
			uint8_t vector;
			/** The INT instruction (not with @ip_suppressed). */
			uint64_t ip;
		} swintr;

		/** ptev_syscall. */
		struct {
			/** The SYSCALL (not with @ip_suppressed). */
			uint64_t ip;
		} syscall;
#endif
	} variant;
};

/* ------------------------------------------------------------------------ */
/* 7b. Event decoder (libipt 2.1)                                            */
/* ------------------------------------------------------------------------ */

#if (LIBIPT_VERSION >= 0x201)
/** An event decoder: the trace as one stream of events in trace order,
 * the branches included (opaque).
 *
 * Where the query decoder answers questions, the event decoder tells
 * everything in the order it happened: a ptev_tnt for each TNT packet (its
 * outcomes), a ptev_tip for each indirect branch, and the events the query
 * decoder reports with pt_qry_event(), each bound to its packet and
 * stamped with the time as there.  Every PSB+ starts with a status update
 * that tells whether tracing is on: ptev_enabled with the IP of the PSB+'s
 * FUP, or ptev_disabled with ip_suppressed (none when an OVF ends a PSB+
 * with tracing off).  The PSB+'s other status updates follow it.
 *
 * A program that follows the code with these events needs nothing else:
 * ptev_tnt and ptev_tip are the answers pt_qry_cond_branch() and
 * pt_qry_indirect_branch() would give, the other events those of
 * pt_qry_event(), in the same order, with the same times. */
struct pt_event_decoder;

/** Allocate an event decoder for the trace in [config->begin, config->end).
 *
 * As pt_qry_alloc_decoder(); the flags are @config->flags.variant.event.
 * Returns NULL if @config is NULL or not valid or if memory runs out. */
extern pt_export struct pt_event_decoder *
pt_evt_alloc_decoder(const struct pt_config *config);

/** Free @decoder (NULL is allowed). */
extern pt_export void pt_evt_free_decoder(struct pt_event_decoder *decoder);

/** Synchronize onto the next PSB (the first one if not synchronized yet);
 * the next pt_evt_next() reports its PSB+.
 *
 * Returns 0 or: -pte_invalid for a NULL @decoder, -pte_eos if no further
 * PSB+ follows, or a decode error of the PSB+ (-pte_bad_opc,
 * -pte_bad_packet, -pte_bad_context). */
extern pt_export int pt_evt_sync_forward(struct pt_event_decoder *decoder);

/** Like pt_evt_sync_forward(), but synchronize onto the last PSB before the
 * current position (the last one in the buffer if not synchronized yet).
 * A PSB+ that the end of the buffer cuts off is passed over.  Returns
 * -pte_eos when no PSB lies before the position (so a loop of calls goes
 * back PSB by PSB and ends after the first one); the decoder is then not
 * synchronized. */
extern pt_export int pt_evt_sync_backward(struct pt_event_decoder *decoder);

/** Like pt_evt_sync_forward(), but at the PSB at @offset.  Returns as
 * pt_qry_sync_set() does: -pte_eos, -pte_nosync or -pte_bad_packet where no
 * good PSB starts there. */
extern pt_export int pt_evt_sync_set(struct pt_event_decoder *decoder,
                                     uint64_t offset);

/** Store the offset of the next packet the decoder will read in @offset
 * (it reads ahead of the events it has returned).  Returns 0, -pte_invalid
 * for a NULL argument, or -pte_nosync before synchronization. */
extern pt_export int pt_evt_get_offset(const struct pt_event_decoder *decoder,
                                       uint64_t *offset);

/** Store the offset of the PSB the decoder last synchronized onto in
 * @offset.  Returns 0, -pte_invalid, or -pte_nosync. */
extern pt_export int
pt_evt_get_sync_offset(const struct pt_event_decoder *decoder,
                       uint64_t *offset);

/** Return @decoder's copy of its configuration, or NULL for a NULL
 * @decoder. */
extern pt_export const struct pt_config *
pt_evt_get_config(const struct pt_event_decoder *decoder);

/** Return the next event in @event.
 *
 * @size is sizeof(*event) as the caller knows it (at least the size of the
 * fields before @variant); in a larger structure the bytes beyond ours are
 * set to 0.
 * A ptev_tnt holds the outcomes of one TNT packet (variant.tnt: @size
 * outcomes, the oldest in bit @size - 1, 1 for taken); a ptev_tip the
 * target of an indirect branch, far transfer or uncompressed return
 * (ip_suppressed if the trace does not give it).
 *
 * Returns 0 or: -pte_invalid for a NULL argument or a too small @size,
 * -pte_nosync before synchronization, -pte_eos at the end of the trace,
 * or a decode error (with its offset from pt_evt_get_offset()).  After an
 * error (and the end) every call returns it again until the decoder is
 * synchronized: pt_evt_sync_forward() goes on at the next PSB. */
extern pt_export int pt_evt_next(struct pt_event_decoder *decoder,
                                 struct pt_event *event, size_t size);
#endif /* LIBIPT_VERSION >= 0x201 */

/* ------------------------------------------------------------------------ */
/* 8. Query decoder                                                          */
/* ------------------------------------------------------------------------ */

/** Bits of the non-negative return value of the query functions. */
enum pt_status_flag {
	/** An event is waiting: call pt_qry_event() before the next branch
	 * query. */
	pts_event_pending = 1 << 0,

	/** The IP of this result is not known (suppressed in the trace). */
	pts_ip_suppressed = 1 << 1,

	/** The trace ends after the pending results: no further branch or
	 * event will follow. */
	pts_eos = 1 << 2
};

/** A query decoder: answers "was this conditional branch taken?", "where
 * did this indirect branch go?" and "what happened here?" for a program
 * that follows the traced code itself (opaque). */
struct pt_query_decoder;

/** Allocate a query decoder for the trace in [config->begin, config->end).
 *
 * The configuration is copied; the trace buffer is not and must stay valid
 * while the decoder is used.  Timing needs the timing fields of @config
 * (cpuid_0x15_eax/ebx, mtc_freq, nom_freq); errata in @config->errata are
 * worked around.  The decoder starts unsynchronized.  Returns NULL if
 * @config is NULL or not valid, or if memory runs out. */
extern pt_export struct pt_query_decoder *
pt_qry_alloc_decoder(const struct pt_config *config);

/** Free @decoder (NULL is allowed). */
extern pt_export void pt_qry_free_decoder(struct pt_query_decoder *decoder);

/** Synchronize onto the next PSB (the first one if not synchronized yet)
 * and read its PSB+.
 *
 * Stores the IP at which tracing starts in @ip (if not NULL); when the PSB+
 * has none, sets pts_ip_suppressed in the result and stores 0 (as libipt).
 * Returns status flags (enum pt_status_flag) or: -pte_invalid for a NULL
 * @decoder, -pte_eos if there is no further PSB, or a decode error of the
 * PSB+ (-pte_bad_opc, -pte_bad_packet, -pte_bad_context). */
extern pt_export int pt_qry_sync_forward(struct pt_query_decoder *decoder,
                                         uint64_t *ip);

/** Like pt_qry_sync_forward(), but synchronize onto the last PSB before the
 * current position (the last one in the buffer if not synchronized yet).
 * A PSB+ that the end of the buffer cuts off is passed over for the one
 * before it.  Returns the status flags, or -pte_invalid for a NULL
 * @decoder, -pte_eos if no (complete) PSB+ lies before the position, or a
 * decode error of the PSB+. */
extern pt_export int pt_qry_sync_backward(struct pt_query_decoder *decoder,
                                          uint64_t *ip);

/** Like pt_qry_sync_forward(), but start at the PSB at @offset.
 *
 * Returns -pte_eos if @offset is outside the buffer or the end cuts the PSB
 * there off, -pte_nosync if the bytes there are not a PSB's opcode (02 82),
 * and -pte_bad_packet if they are but the PSB's pattern breaks off (the
 * middle of a PSB, or a corrupted one). */
extern pt_export int pt_qry_sync_set(struct pt_query_decoder *decoder,
                                     uint64_t *ip, uint64_t offset);

/** Store the offset of the next packet the decoder will read in @offset.
 *
 * The decoder reads ahead of the results it has returned; use this for
 * error messages.  Returns 0, -pte_invalid for a NULL argument, or
 * -pte_nosync before synchronization. */
extern pt_export int pt_qry_get_offset(const struct pt_query_decoder *decoder,
                                       uint64_t *offset);

/** Store the offset of the PSB the decoder last synchronized onto in
 * @offset.  Returns 0, -pte_invalid, or -pte_nosync. */
extern pt_export int
pt_qry_get_sync_offset(const struct pt_query_decoder *decoder,
                       uint64_t *offset);

/** Return @decoder's copy of its configuration, or NULL for a NULL
 * @decoder. */
extern pt_export const struct pt_config *
pt_qry_get_config(const struct pt_query_decoder *decoder);

/** Answer the next conditional branch: store 1 in @taken if it was taken,
 * 0 if not.
 *
 * TNT-8 and TNT-64 packets are one stream of outcomes.  Returns status
 * flags or: -pte_invalid for a NULL argument, -pte_nosync before
 * synchronization, -pte_bad_query if an event or an indirect branch comes
 * first (the program is not where the trace is), -pte_eos at the end of the
 * trace, or a decode error. */
extern pt_export int pt_qry_cond_branch(struct pt_query_decoder *decoder,
                                        int *taken);

/** Answer the next indirect branch (or far transfer, or return that was not
 * compressed): store its target in @ip.
 *
 * If the target is suppressed in the trace, @ip is left alone and
 * pts_ip_suppressed is set in the result.  Returns status flags or: as
 * pt_qry_cond_branch(); -pte_bad_query also when a TNT packet comes first
 * while outcomes of the previous one are still pending (as in libipt,
 * pending outcomes alone do not stop it). */
extern pt_export int pt_qry_indirect_branch(struct pt_query_decoder *decoder,
                                            uint64_t *ip);

/** Return the next event in @event.
 *
 * Call it while the previous result had pts_event_pending set.  @size is
 * sizeof(*event) as the caller knows it (at least the size of the fields
 * before @variant); a larger structure is not written beyond ours.  The
 * event carries the time at the packet it binds to.  Returns status flags
 * or: -pte_invalid for a NULL argument or a too small @size, -pte_nosync
 * before synchronization, -pte_bad_query if conditional branch outcomes
 * are still pending or a branch comes before the next event, -pte_eos at the
 * end of the trace, or a decode error. */
extern pt_export int pt_qry_event(struct pt_query_decoder *decoder,
                                  struct pt_event *event, size_t size);

/** Store the time at the last result the decoder returned in @time and the
 * counts of timing packets it could not use since the last TSC in
 * @lost_mtc and @lost_cyc (either may be NULL).
 *
 * The decoder reads ahead of its results; this is the time before that
 * read-ahead.  Returns 0, -pte_invalid if @decoder or @time is NULL, or
 * -pte_no_time if there was no TSC packet since synchronization (@time is
 * then the time relative to the first timing packet). */
extern pt_export int pt_qry_time(struct pt_query_decoder *decoder,
                                 uint64_t *time, uint32_t *lost_mtc,
                                 uint32_t *lost_cyc);

/** Store the core:bus ratio at the last result in @cbr.  Returns 0,
 * -pte_invalid for a NULL argument, or -pte_no_cbr if there was no CBR
 * packet since synchronization. */
extern pt_export int pt_qry_core_bus_ratio(struct pt_query_decoder *decoder,
                                           uint32_t *cbr);

/* ------------------------------------------------------------------------ */
/* 9. Traced image                                                          */
/* ------------------------------------------------------------------------ */

/* The flow decoders (sections 10 and 11) follow the traced code, so they need
 * its bytes: a traced image is a set of sections, each a range of a file (or,
 * with the extensions in <ptdecode/ptd_image.h>, of a memory buffer) placed
 * at a virtual address in one address space, plus an optional callback for
 * everything else.  An image section cache holds sections that several
 * images, possibly in several threads, share.  docs/image.md describes
 * ownership, threading and the differences from libipt. */

/** An address space, as the trace identifies it: the CR3 value (PIP
 * packets) and the VMCS base address (VMCS packets).  A field that holds
 * pt_asid_no_cr3 or pt_asid_no_vmcs is not known and matches any value, so
 * two address spaces match when each field is unknown in either or equal.
 * Functions that take a const struct pt_asid * accept NULL for "any". */
struct pt_asid {
	/** sizeof(struct pt_asid) as the caller knows it; fields that do not
	 * fit in it count as unknown. */
	size_t size;

	/** The CR3 value, or pt_asid_no_cr3. */
	uint64_t cr3;

	/** The VMCS base address, or pt_asid_no_vmcs. */
	uint64_t vmcs;
};

/** The CR3 value of an address space whose CR3 is not known. */
static const uint64_t pt_asid_no_cr3 = 0xffffffffffffffffull;

/** The VMCS base of an address space whose VMCS is not known. */
static const uint64_t pt_asid_no_vmcs = 0xffffffffffffffffull;

/** Initialize @asid to "any address space": size set, CR3 and VMCS
 * unknown. */
static inline void pt_asid_init(struct pt_asid *asid)
{
	asid->size = sizeof(*asid);
	asid->cr3 = pt_asid_no_cr3;
	asid->vmcs = pt_asid_no_vmcs;
}

/** An image section cache: file sections identified by a positive image
 * section identifier (isid), shared by any number of images and kept mapped
 * up to a limit (opaque).  Its functions may be called from several threads
 * at once. */
struct pt_image_section_cache;

/** Allocate an empty image section cache with a copy of @name (which may be
 * NULL) and no limit set (nothing stays mapped that is not in use).
 * Returns NULL if memory runs out. */
extern pt_export struct pt_image_section_cache *
pt_iscache_alloc(const char *name);

/** Free @iscache (NULL is allowed).  Images that hold sections of it keep
 * them: each section lives until its last user lets go. */
extern pt_export void pt_iscache_free(struct pt_image_section_cache *iscache);

/** Keep up to @limit bytes of recently used sections mapped.
 *
 * A section that no decoder uses any more stays mapped while the bytes of
 * all such kept sections fit in @limit; beyond that the least recently used
 * ones are unmapped first.  0 keeps nothing; the default is no limit (as in
 * libipt: what was mapped stays mapped until the cache is freed).  Returns
 * 0 or -pte_invalid for a NULL @iscache. */
extern pt_export int
pt_iscache_set_limit(struct pt_image_section_cache *iscache, uint64_t limit);

/** Return @iscache's name, or NULL if it has none or @iscache is NULL. */
extern pt_export const char *
pt_iscache_name(const struct pt_image_section_cache *iscache);

/** Add the @size bytes at @offset in file @filename, loaded at @vaddr, to
 * @iscache, unless it already holds that very section.
 *
 * The file is not read now (it is mapped on first use), but it must exist;
 * a section that reaches beyond the end of the file is cut there (and one
 * that reaches beyond the end of the address space, there).  Returns the
 * section's isid (> 0; the same isid again for the same file name, offset,
 * size after the cut, and address) or: -pte_invalid for a NULL argument, a
 * file that does not exist, or an @offset at or beyond the end of the file;
 * -pte_nomem. */
extern pt_export int pt_iscache_add_file(struct pt_image_section_cache *iscache,
                                         const char *filename, uint64_t offset,
                                         uint64_t size, uint64_t vaddr);

/** Copy up to @size bytes at @vaddr of the section @isid of @iscache into
 * @buffer.
 *
 * A read stops at the end of the section and copies at most 65535 bytes
 * (as libipt; call again for more).  Maps the section for the copy;
 * afterwards it stays mapped only if it is in use or within the limit
 * (pt_iscache_set_limit()).  Returns the number of bytes copied or:
 * -pte_invalid for a NULL argument or a zero @size, -pte_bad_image if
 * @iscache has no section @isid or its file changed since it was added,
 * -pte_nomap if @vaddr is not in it, or an error from mapping the file
 * (-pte_bad_file, -pte_nomem). */
extern pt_export int pt_iscache_read(struct pt_image_section_cache *iscache,
                                     uint8_t *buffer, uint64_t size, int isid,
                                     uint64_t vaddr);

/** A traced memory image (opaque).  An image is not locked: use it from one
 * thread at a time (give each thread's decoder its own image, e.g. with
 * pt_image_copy(), sharing sections through an image section cache). */
struct pt_image;

/** Allocate an empty image with a copy of @name (which may be NULL).
 * Returns NULL if memory runs out. */
extern pt_export struct pt_image *pt_image_alloc(const char *name);

/** Free @image (NULL is allowed) and let go of its sections.  A decoder
 * that uses @image must be freed first. */
extern pt_export void pt_image_free(struct pt_image *image);

/** Return @image's name, or NULL if it has none or @image is NULL. */
extern pt_export const char *pt_image_name(const struct pt_image *image);

/** Add the @size bytes at @offset in file @filename to @image, loaded at
 * @vaddr in the address space @asid.
 *
 * @asid may be NULL (any address space); an unknown CR3 or VMCS in it
 * matches any.  The newest section wins: parts of existing sections of a
 * matching address space that the new one covers are removed, which may
 * shorten an existing section or split it in two (the pieces keep their
 * isid).  Adding the same range again replaces it.  The file is mapped on
 * first use and stays mapped while @image uses it; a section that reaches
 * beyond the end of the file (or of the address space) is cut there, and an
 * empty one is kept but never found.  Returns 0 or: -pte_invalid for a NULL
 * @image or @filename, a file that does not exist, or an @offset at or
 * beyond the end of the file; -pte_nomem. */
extern pt_export int
pt_image_add_file(struct pt_image *image, const char *filename, uint64_t offset,
                  uint64_t size, const struct pt_asid *asid, uint64_t vaddr);

/** Add the section @isid of @iscache to @image in address space @asid, at
 * the address it has in @iscache, by the rules of pt_image_add_file().  The
 * section is shared with @iscache (and its mapping with every image that
 * holds it) and keeps its isid.  Returns 0 or: -pte_invalid for a NULL
 * @image or @iscache, -pte_bad_image if @iscache has no section @isid,
 * -pte_nomem. */
extern pt_export int pt_image_add_cached(struct pt_image *image,
                                         struct pt_image_section_cache *iscache,
                                         int isid, const struct pt_asid *asid);

/** Add every section of @src to @image, oldest first, by the rules of
 * pt_image_add_file(); the sections are shared, not copied.  The read-memory
 * callback is not copied.  Returns the number of sections that could not be
 * added (0 normally) or -pte_invalid for a NULL argument. */
extern pt_export int pt_image_copy(struct pt_image *image,
                                   const struct pt_image *src);

/** Remove from @image every section of file @filename (compared as a
 * string) whose address space matches @asid (NULL matches any; pass the
 * @asid the sections were added with).  Returns the number of sections
 * removed (the pieces of a split section count one each) or -pte_invalid
 * for a NULL @image or @filename. */
extern pt_export int pt_image_remove_by_filename(struct pt_image *image,
                                                 const char *filename,
                                                 const struct pt_asid *asid);

/** Remove from @image every section whose address space matches @asid.
 * Returns the number of sections removed or -pte_invalid for a NULL
 * @image. */
extern pt_export int pt_image_remove_by_asid(struct pt_image *image,
                                             const struct pt_asid *asid);

/** A function that reads traced memory the image's sections do not hold:
 * copy up to @size bytes at @ip in address space @asid into @buffer and
 * return the number of bytes copied, or a negative enum pt_error_code
 * (-pte_nomap if nothing is there). */
typedef int(read_memory_callback_t)(uint8_t *buffer, size_t size,
                                    const struct pt_asid *asid, uint64_t ip,
                                    void *context);

/** Make @callback, called with @context, the source of the bytes at
 * addresses that no section of @image holds; NULL removes the callback.
 * An image has at most one callback.  Returns 0 or -pte_invalid for a NULL
 * @image.  Code read through the callback is not cached by the block
 * decoder: prefer sections (or ptd_image_add_buffer()) where possible. */
extern pt_export int pt_image_set_callback(struct pt_image *image,
                                           read_memory_callback_t *callback,
                                           void *context);

/* ------------------------------------------------------------------------ */
/* 10. Instruction flow                                                      */
/* ------------------------------------------------------------------------ */

struct pt_image;
struct pt_asid;

/** The coarse kind of an instruction, as the flow decoders report it in
 * struct pt_insn and struct pt_block. */
enum pt_insn_class {
	/** Not decodable, or not classified (also known as ptic_error). */
	ptic_unknown,
	/** Anything not listed below: no change of control flow. */
	ptic_other,
	/** A near call, direct or indirect. */
	ptic_call,
	/** A near return. */
	ptic_return,
	/** A near unconditional jump. */
	ptic_jump,
	/** A near conditional jump (Jcc, LOOPcc, JrCXZ). */
	ptic_cond_jump,
	/** A far transfer that behaves like a call (far CALL, INT n, INT3,
	 * INTO, SYSCALL, SYSENTER, VMCALL, ...). */
	ptic_far_call,
	/** A far transfer that behaves like a return (far RET, IRET, SYSRET,
	 * SYSEXIT, VMLAUNCH/VMRESUME as seen from the host, ...). */
	ptic_far_return,
	/** A far jump. */
	ptic_far_jump,
	/** PTWRITE. */
	ptic_ptwrite,
	/** An indirect transfer that fits none of the above (libipt >= 2.1;
	 * see docs/compatibility.md for which instructions ptdecode puts here).
	 */
	ptic_indirect
};

/** libipt 2.0's name for ptic_unknown. */
#define ptic_error ptic_unknown

/** The longest x86 instruction, in bytes. */
enum { pt_max_insn_size = 15 };

/** One traced instruction, as pt_insn_next() reports it (libipt's layout). */
struct pt_insn {
	/** The instruction's virtual address. */
	uint64_t ip;

	/** The image section identifier of the section holding the
	 * instruction; 0 if the section has none (not added through an image
	 * section cache) or the bytes came from the read-memory callback. */
	int isid;

	/** The execution mode. */
	enum pt_exec_mode mode;

	/** The coarse class. */
	enum pt_insn_class iclass;

	/** The instruction's bytes (@size of them). */
	uint8_t raw[pt_max_insn_size];

	/** The instruction's size in bytes. */
	uint8_t size;

	/** The instruction ran speculatively (inside a transaction). */
	uint32_t speculative : 1;

	/** The instruction starts in section @isid but continues in another
	 * one; @raw holds all its bytes. */
	uint32_t truncated : 1;
};

/** An instruction-flow decoder: follows the traced code instruction by
 * instruction, using a query decoder for the trace and a traced image for
 * the code (opaque).  ptdecode caches the decoded code per section, so each
 * address is decoded once (docs/flow.md). */
struct pt_insn_decoder;

/** Allocate an instruction-flow decoder for the trace in
 * [config->begin, config->end).
 *
 * The configuration is copied (config->flags.variant.insn applies); the
 * trace buffer must stay valid while the decoder is used.  The decoder
 * starts unsynchronized, with an empty default image of its own.  Returns
 * NULL if @config is NULL or not valid, or if memory runs out. */
extern pt_export struct pt_insn_decoder *
pt_insn_alloc_decoder(const struct pt_config *config);

/** Free @decoder and its default image (NULL is allowed).  An image set
 * with pt_insn_set_image() is not freed. */
extern pt_export void pt_insn_free_decoder(struct pt_insn_decoder *decoder);

/** Synchronize onto the next PSB (the first one if not synchronized yet),
 * forgetting all decoder state, and report what binds to the start.
 *
 * Returns status flags (enum pt_status_flag: pts_event_pending if events
 * are to be read with pt_insn_event() before the next instruction,
 * pts_ip_suppressed if tracing is disabled at this point, pts_eos) or:
 * -pte_invalid for a NULL @decoder, -pte_eos if there is no further PSB,
 * or a decode error of the PSB+ (-pte_bad_opc, -pte_bad_packet,
 * -pte_bad_context). */
extern pt_export int pt_insn_sync_forward(struct pt_insn_decoder *decoder);

/** Like pt_insn_sync_forward(), but onto the last PSB before the current
 * position (the last one in the buffer if not synchronized yet); right
 * after a backward synchronization, onto the PSB before the one that found,
 * whatever the decoder did since (decoded on, or failed), so that a loop of
 * these calls walks back to the start, with or without decoding in between
 * (docs/flow.md).  Returns the status flags, or -pte_invalid for a NULL
 * @decoder, -pte_eos if no (complete) PSB+ lies before that position, or a
 * decode error of the PSB+ or of the events right after it (the next call
 * then goes on before that PSB). */
extern pt_export int pt_insn_sync_backward(struct pt_insn_decoder *decoder);

/** Like pt_insn_sync_forward(), but onto the PSB at @offset.  Returns the
 * errors of pt_qry_sync_set() where no good PSB starts there (-pte_eos,
 * -pte_nosync, -pte_bad_packet). */
extern pt_export int pt_insn_sync_set(struct pt_insn_decoder *decoder,
                                      uint64_t offset);

#if (LIBIPT_VERSION >= 0x202)
/** Resynchronize after an error returned by pt_insn_next() or
 * pt_insn_event(): continue at the next PSB after the error (ptdecode
 * drops the rest of the failing PSB segment; see docs/compatibility.md).
 * Returns as pt_insn_sync_forward(). */
extern pt_export int pt_insn_resync(struct pt_insn_decoder *decoder);
#endif

/** Store the offset of the next trace packet the decoder reads in @offset
 * (for error messages; the decoder reads ahead of the instructions it
 * reports).  Returns 0, -pte_invalid for a NULL argument, or -pte_nosync
 * before synchronization. */
extern pt_export int pt_insn_get_offset(const struct pt_insn_decoder *decoder,
                                        uint64_t *offset);

/** Store the offset of the PSB the decoder last synchronized onto in
 * @offset.  Returns 0, -pte_invalid, or -pte_nosync. */
extern pt_export int
pt_insn_get_sync_offset(const struct pt_insn_decoder *decoder,
                        uint64_t *offset);

/** Return the traced image @decoder reads code from (its default image
 * unless pt_insn_set_image() set another), or NULL for a NULL @decoder.
 * The image may be changed while the decoder is not running. */
extern pt_export struct pt_image *
pt_insn_get_image(struct pt_insn_decoder *decoder);

/** Read code from @image from now on; NULL selects the default image.  The
 * caller keeps ownership of @image and keeps it alive while the decoder
 * uses it.  Returns 0 or -pte_invalid for a NULL @decoder. */
extern pt_export int pt_insn_set_image(struct pt_insn_decoder *decoder,
                                       struct pt_image *image);

/** Return @decoder's copy of its configuration, or NULL for a NULL
 * @decoder. */
extern pt_export const struct pt_config *
pt_insn_get_config(const struct pt_insn_decoder *decoder);

/** Store the time at the last branch or event the decoder consumed in @time
 * (and the lost MTC and CYC counts, either may be NULL): see
 * pt_qry_time().  The time advances with the trace, not with every
 * instruction.  Returns 0, -pte_invalid if @decoder or @time is NULL, or
 * -pte_no_time if there was no TSC since synchronization (@time is then
 * relative). */
extern pt_export int pt_insn_time(struct pt_insn_decoder *decoder,
                                  uint64_t *time, uint32_t *lost_mtc,
                                  uint32_t *lost_cyc);

/** Store the core:bus ratio in @cbr.  Returns 0, -pte_invalid for a NULL
 * argument, or -pte_no_cbr if there was no CBR since synchronization. */
extern pt_export int pt_insn_core_bus_ratio(struct pt_insn_decoder *decoder,
                                            uint32_t *cbr);

/** Store the current address space (CR3 from PIP packets, VMCS base from
 * VMCS packets) in @asid, of which the caller knows @size bytes (at least
 * the size field); asid->size is set to the bytes written.  Returns 0 or
 * -pte_invalid for a NULL argument or a @size too small for the size
 * field. */
extern pt_export int pt_insn_asid(const struct pt_insn_decoder *decoder,
                                  struct pt_asid *asid, size_t size);

/** Report the next instruction in @insn, of which the caller knows @size
 * bytes (sizeof(struct pt_insn)).
 *
 * Returns status flags or a negative error.  With pts_event_pending, read
 * the events with pt_insn_event() before the next call; they belong
 * between this instruction and the next.  pts_eos: the trace ends; later
 * calls fail with -pte_eos once trace would be needed.  Errors:
 * -pte_invalid (NULL argument), -pte_no_enable (not synchronized yet, as
 * in libipt, or tracing is disabled and no event enables it),
 * -pte_eos (end of the trace), -pte_nomap (no code at the IP; @insn has
 * the IP and mode), -pte_bad_insn (not a valid instruction),
 * -pte_bad_query (trace and code disagree), -pte_bad_retcomp,
 * -pte_retstack_empty, -pte_noip, -pte_bad_context, -pte_bad_opc,
 * -pte_bad_packet.  After an error, synchronize again. */
extern pt_export int pt_insn_next(struct pt_insn_decoder *decoder,
                                  struct pt_insn *insn, size_t size);

/** Report the next pending event in @event (@size bytes known to the
 * caller; events do not grow beyond our struct pt_event).
 *
 * Returns status flags (pts_event_pending: more events follow) or:
 * -pte_invalid for a NULL argument, -pte_bad_query if no event is pending,
 * -pte_bad_context or -pte_noip if the event does not fit the decoder's
 * state, or an error of the trace after it. */
extern pt_export int pt_insn_event(struct pt_insn_decoder *decoder,
                                   struct pt_event *event, size_t size);

/* ------------------------------------------------------------------------ */
/* 11. Block decoder                                                         */
/* ------------------------------------------------------------------------ */

/** A block of instructions that ran one after the other, as pt_blk_next()
 * reports it (libipt's layout).  The instructions are contiguous in memory
 * except for direct jumps and calls, which the user follows. */
struct pt_block {
	/** The first instruction's IP. */
	uint64_t ip;

	/** The last instruction's IP. */
	uint64_t end_ip;

	/** The image section identifier of the section holding the
	 * instructions (see struct pt_insn). */
	int isid;

	/** The execution mode of all instructions. */
	enum pt_exec_mode mode;

	/** The class of the last instruction. */
	enum pt_insn_class iclass;

	/** The number of instructions (0 for an empty block that only
	 * carries status flags). */
	uint16_t ninsn;

	/** With @truncated: the last instruction's bytes. */
	uint8_t raw[pt_max_insn_size];

	/** With @truncated: the last instruction's size in bytes. */
	uint8_t size;

	/** All instructions ran speculatively. */
	uint32_t speculative : 1;

	/** The last instruction continues in another section. */
	uint32_t truncated : 1;
};

/** A block decoder: like the instruction-flow decoder, but reports a run of
 * instructions per call, which lets it skip decoding the code in between
 * (opaque). */
struct pt_block_decoder;

/** Allocate a block decoder; as pt_insn_alloc_decoder(), with
 * config->flags.variant.block (end_on_call, end_on_jump,
 * enable_tick_events, keep_tcal_on_ovf, enable_iflags_events). */
extern pt_export struct pt_block_decoder *
pt_blk_alloc_decoder(const struct pt_config *config);

/** Free @decoder and its default image (NULL is allowed). */
extern pt_export void pt_blk_free_decoder(struct pt_block_decoder *decoder);

/** Synchronize onto the next PSB, as pt_insn_sync_forward() does (same
 * status flags and errors). */
extern pt_export int pt_blk_sync_forward(struct pt_block_decoder *decoder);

/** Synchronize onto the last PSB before the current position, as
 * pt_insn_sync_backward() does (same status flags and errors). */
extern pt_export int pt_blk_sync_backward(struct pt_block_decoder *decoder);

/** Synchronize onto the PSB at @offset, as pt_insn_sync_set() does (same
 * status flags and errors: -pte_eos, -pte_nosync or -pte_bad_packet where
 * no good PSB starts there). */
extern pt_export int pt_blk_sync_set(struct pt_block_decoder *decoder,
                                     uint64_t offset);

#if (LIBIPT_VERSION >= 0x202)
/** Resynchronize after an error, as pt_insn_resync(). */
extern pt_export int pt_blk_resync(struct pt_block_decoder *decoder);
#endif

/** Store the offset of the next packet the decoder reads in @offset, as
 * pt_insn_get_offset(): 0, -pte_invalid for NULL arguments, -pte_nosync
 * before the first synchronization. */
extern pt_export int pt_blk_get_offset(const struct pt_block_decoder *decoder,
                                       uint64_t *offset);

/** Store the offset of the PSB of the last synchronization in @offset, as
 * pt_insn_get_sync_offset(): 0, -pte_invalid for NULL arguments,
 * -pte_nosync before the first synchronization. */
extern pt_export int
pt_blk_get_sync_offset(const struct pt_block_decoder *decoder,
                       uint64_t *offset);

/** The image @decoder reads code from, as pt_insn_get_image(): its
 * default image unless one was set; NULL for a NULL @decoder. */
extern pt_export struct pt_image *
pt_blk_get_image(struct pt_block_decoder *decoder);

/** Read code from @image from now on (NULL: the decoder's default image),
 * as pt_insn_set_image(): 0, or -pte_invalid for a NULL @decoder. */
extern pt_export int pt_blk_set_image(struct pt_block_decoder *decoder,
                                      struct pt_image *image);

/** Return @decoder's copy of its configuration (NULL for NULL). */
extern pt_export const struct pt_config *
pt_blk_get_config(const struct pt_block_decoder *decoder);

/** The time after the last block or event, as pt_insn_time() (same
 * results and errors: -pte_invalid, -pte_no_time). */
extern pt_export int pt_blk_time(struct pt_block_decoder *decoder,
                                 uint64_t *time, uint32_t *lost_mtc,
                                 uint32_t *lost_cyc);

/** The core:bus ratio, as pt_insn_core_bus_ratio() (same results and
 * errors: -pte_invalid, -pte_no_cbr). */
extern pt_export int pt_blk_core_bus_ratio(struct pt_block_decoder *decoder,
                                           uint32_t *cbr);

/** The address space of the last block, as pt_insn_asid() (same results
 * and errors). */
extern pt_export int pt_blk_asid(const struct pt_block_decoder *decoder,
                                 struct pt_asid *asid, size_t size);

/** Report the next block in @block, of which the caller knows @size bytes.
 *
 * A block ends at a branch that needed trace, before an event (status
 * pts_event_pending: read the events with pt_blk_event()), at a section
 * boundary, after a direct call or jump with end_on_call or end_on_jump,
 * after a truncated instruction, or at 65535 instructions.  Returns status
 * flags or the errors of pt_insn_next(); on an error @block holds the
 * instructions up to and including the failing one where it was decoded
 * (the IP tells where decoding failed otherwise). */
extern pt_export int pt_blk_next(struct pt_block_decoder *decoder,
                                 struct pt_block *block, size_t size);

/** Report the next pending event, as pt_insn_event(). */
extern pt_export int pt_blk_event(struct pt_block_decoder *decoder,
                                  struct pt_event *event, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* INTEL_PT_H */
