/* SPDX-License-Identifier: BSD-3-Clause */
/* Decoder configuration from trace-control state: the IA32_RTIT_* MSRs, the
 * XSAVE trace configuration state component, CPUID and MSR_PLATFORM_INFO
 * (Intel SDM Vol. 3C 36.2.8, 36.3.5.2, Table 36-13).  See ptd_rtit.h. */
#include "ptdecode/ptdecode.h"

#include "common/le.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__)
#define PTD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PTD_PRINTF(f, a)
#endif

/* Record an error in @diag (if any) and return @err. */
PTD_PRINTF(5, 6)
static int rtit_fail(struct ptd_rtit_diag *diag, int err, uint32_t msr,
                     uint64_t bits, const char *fmt, ...)
{
	va_list ap;

	if (!diag)
		return err;
	diag->error = err;
	diag->msr = msr;
	diag->bits = bits;
	va_start(ap, fmt);
	vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
	va_end(ap);
	return err;
}

/* Write the numbers of the bits set in @bits, highest first, as "30, 18"
 * (ranges of adjacent bits as "63:57") into @buf. */
static void rtit_bit_list(char *buf, size_t size, uint64_t bits)
{
	size_t len = 0;
	int hi = 63;

	buf[0] = '\0';
	while (hi >= 0 && len < size) {
		int lo;
		int n;

		if (!((bits >> hi) & 1)) {
			--hi;
			continue;
		}
		lo = hi;
		while (lo > 0 && ((bits >> (lo - 1)) & 1))
			--lo;
		if (lo == hi)
			n = snprintf(buf + len, size - len, "%s%d",
			             len ? ", " : "", hi);
		else
			n = snprintf(buf + len, size - len, "%s%d:%d",
			             len ? ", " : "", hi, lo);
		if (n < 0)
			break;
		len += (size_t)n;
		hi = lo - 1;
	}
}

/* Refuse reserved bits @bits of @msr named @name. */
static int rtit_reserved(struct ptd_rtit_diag *diag, uint32_t msr,
                         const char *name, uint64_t value, uint64_t bits)
{
	char list[96];

	rtit_bit_list(list, sizeof(list), bits);
	return rtit_fail(diag, -pte_bad_config, msr, bits,
	                 "%s = 0x%llx: reserved bit%s %s set", name,
	                 (unsigned long long)value,
	                 (bits & (bits - 1)) ? "s" : "", list);
}

static unsigned rtit_field(uint64_t value, unsigned shift, uint64_t mask)
{
	return (unsigned)((value & mask) >> shift);
}

/* Bits 63:56 of a canonical address (57-bit linear addresses, which include
 * the 48-bit ones) all equal bit 56. */
static int rtit_canonical(uint64_t addr)
{
	uint64_t top = addr >> 56;

	return top == 0 || top == 0xff;
}

/* A CTL feature that CPUID leaf 0x14 sub-leaf 0 must enumerate. */
struct rtit_feature {
	uint64_t ctl;     /* the CTL bits that need it */
	const char *bits; /* their names */
	uint8_t ecx;      /* 0: in EBX, 1: in ECX */
	uint8_t bit;      /* the CPUID bit */
	const char *what; /* the feature's name */
};

static const struct rtit_feature rtit_features[] = {
        {PTD_RTIT_CTL_CR3FILTER, "CR3Filter (bit 7)", 0, 0, "CR3 filtering"},
        {PTD_RTIT_CTL_CYCEN | PTD_RTIT_CTL_CYCTHRESH | PTD_RTIT_CTL_PSBFREQ,
         "CYCEn (bit 1), CycThresh (bits 22:19) or PSBFreq (bits 27:24)", 0, 1,
         "configurable PSB and cycle-accurate mode"},
        {PTD_RTIT_CTL_MTCEN | PTD_RTIT_CTL_MTCFREQ,
         "MTCEn (bit 9) or MTCFreq (bits 17:14)", 0, 3, "MTC"},
        {PTD_RTIT_CTL_PTWEN | PTD_RTIT_CTL_FUPONPTW,
         "PTWEn (bit 12) or FUPonPTW (bit 5)", 0, 4, "PTWRITE"},
        {PTD_RTIT_CTL_PWREVTEN, "PwrEvtEn (bit 4)", 0, 5, "power event trace"},
        {PTD_RTIT_CTL_INJECTPSBPMI, "InjectPsbPmiOnEnable (bit 56)", 0, 6,
         "PSB and PMI preservation"},
        {PTD_RTIT_CTL_EVENTEN, "EventEn (bit 31)", 0, 7, "event trace"},
        {PTD_RTIT_CTL_DISTNT, "DisTNT (bit 55)", 0, 8, "TNT disable"},
        {PTD_RTIT_CTL_TOPA, "ToPA (bit 8)", 1, 0, "ToPA output"},
        {PTD_RTIT_CTL_FABRICEN, "FabricEn (bit 6)", 1, 3,
         "output to the trace transport subsystem"},
};

/* Check @ctl against the features and encodings CPUID leaf 0x14 of @cpu
 * enumerates. */
static int rtit_check_cpuid(struct ptd_rtit_diag *diag, uint64_t ctl,
                            const struct ptd_rtit_cpu *cpu)
{
	const uint32_t msr = PTD_MSR_IA32_RTIT_CTL;
	uint32_t ebx = cpu->cpuid_0x14_0_ebx, ecx = cpu->cpuid_0x14_0_ecx;
	unsigned ranges = 0, n;
	size_t i;

	for (i = 0; i < sizeof(rtit_features) / sizeof(rtit_features[0]); ++i) {
		const struct rtit_feature *f = &rtit_features[i];
		uint32_t reg = f->ecx ? ecx : ebx;

		if (!(ctl & f->ctl) || ((reg >> f->bit) & 1))
			continue;
		return rtit_fail(diag, -pte_bad_config, msr, ctl & f->ctl,
		                 "IA32_RTIT_CTL = 0x%llx: %s set, but "
		                 "CPUID.(EAX=14H,ECX=0):%s[%u] (%s) is 0",
		                 (unsigned long long)ctl, f->bits,
		                 f->ecx ? "ECX" : "EBX", f->bit, f->what);
	}

	if ((ctl & PTD_RTIT_CTL_TRACEEN) &&
	    !(ctl & (PTD_RTIT_CTL_TOPA | PTD_RTIT_CTL_FABRICEN)) &&
	    !((ecx >> 2) & 1))
		return rtit_fail(
		        diag, -pte_bad_config, msr, PTD_RTIT_CTL_TOPA,
		        "IA32_RTIT_CTL = 0x%llx: TraceEn with ToPA and "
		        "FabricEn clear selects single-range output, "
		        "but CPUID.(EAX=14H,ECX=0):ECX[2] is 0",
		        (unsigned long long)ctl);

	if (cpu->cpuid_0x14_0_eax >= 1) {
		uint32_t mtc = cpu->cpuid_0x14_1_eax >> 16;
		uint32_t cyc = cpu->cpuid_0x14_1_ebx & 0xffff;
		uint32_t psb = cpu->cpuid_0x14_1_ebx >> 16;
		unsigned v;

		ranges = cpu->cpuid_0x14_1_eax & 0x7;
		v = rtit_field(ctl, PTD_RTIT_CTL_MTCFREQ_SHIFT,
		               PTD_RTIT_CTL_MTCFREQ);
		if (((ebx >> 3) & 1) && !((mtc >> v) & 1))
			return rtit_fail(
			        diag, -pte_bad_config, msr,
			        ctl & PTD_RTIT_CTL_MTCFREQ,
			        "IA32_RTIT_CTL.MTCFreq (bits 17:14) = %u "
			        "is not a supported encoding "
			        "(CPUID.(EAX=14H,ECX=1):EAX[31:16] = "
			        "0x%04x)",
			        v, mtc);
		v = rtit_field(ctl, PTD_RTIT_CTL_CYCTHRESH_SHIFT,
		               PTD_RTIT_CTL_CYCTHRESH);
		if (((ebx >> 1) & 1) && !((cyc >> v) & 1))
			return rtit_fail(
			        diag, -pte_bad_config, msr,
			        ctl & PTD_RTIT_CTL_CYCTHRESH,
			        "IA32_RTIT_CTL.CycThresh (bits 22:19) = "
			        "%u is not a supported encoding "
			        "(CPUID.(EAX=14H,ECX=1):EBX[15:0] = "
			        "0x%04x)",
			        v, cyc);
		v = rtit_field(ctl, PTD_RTIT_CTL_PSBFREQ_SHIFT,
		               PTD_RTIT_CTL_PSBFREQ);
		if (((ebx >> 1) & 1) && !((psb >> v) & 1))
			return rtit_fail(
			        diag, -pte_bad_config, msr,
			        ctl & PTD_RTIT_CTL_PSBFREQ,
			        "IA32_RTIT_CTL.PSBFreq (bits 27:24) = %u "
			        "is not a supported encoding "
			        "(CPUID.(EAX=14H,ECX=1):EBX[31:16] = "
			        "0x%04x)",
			        v, psb);
	}

	for (n = ranges; n < 4; ++n) {
		uint64_t mask = PTD_RTIT_CTL_ADDR_CFG(n);

		if (ctl & mask)
			return rtit_fail(
			        diag, -pte_bad_config, msr, ctl & mask,
			        "IA32_RTIT_CTL.ADDR%u_CFG (bits %u:%u) = %u, "
			        "but the processor has %u address range%s "
			        "(CPUID.(EAX=14H,ECX=1):EAX[2:0]%s)",
			        n, PTD_RTIT_CTL_ADDR_CFG_SHIFT(n) + 3,
			        PTD_RTIT_CTL_ADDR_CFG_SHIFT(n),
			        rtit_field(ctl, PTD_RTIT_CTL_ADDR_CFG_SHIFT(n),
			                   mask),
			        ranges, ranges == 1 ? "" : "s",
			        cpu->cpuid_0x14_0_eax >= 1
			                ? ""
			                : "; sub-leaf 1 is not enumerated");
	}
	return 0;
}

/* Check the address range registers of @msrs in use by @ctl. */
static int rtit_check_ranges(struct ptd_rtit_diag *diag,
                             const struct ptd_rtit_msrs *msrs)
{
	unsigned n;

	for (n = 0; n < 4; ++n) {
		uint64_t a = msrs->addr_a[n], b = msrs->addr_b[n];
		unsigned cfg =
		        rtit_field(msrs->ctl, PTD_RTIT_CTL_ADDR_CFG_SHIFT(n),
		                   PTD_RTIT_CTL_ADDR_CFG(n));

		if (!rtit_canonical(a))
			return rtit_fail(diag, -pte_bad_config,
			                 PTD_MSR_IA32_RTIT_ADDR0_A + 2 * n,
			                 a & ~((1ull << 56) - 1),
			                 "IA32_RTIT_ADDR%u_A = 0x%llx is not a "
			                 "canonical address",
			                 n, (unsigned long long)a);
		if (!rtit_canonical(b))
			return rtit_fail(diag, -pte_bad_config,
			                 PTD_MSR_IA32_RTIT_ADDR0_A + 2 * n + 1,
			                 b & ~((1ull << 56) - 1),
			                 "IA32_RTIT_ADDR%u_B = 0x%llx is not a "
			                 "canonical address",
			                 n, (unsigned long long)b);
		if (cfg && a > b)
			return rtit_fail(
			        diag, -pte_bad_config,
			        PTD_MSR_IA32_RTIT_ADDR0_A + 2 * n, a,
			        "address range %u (ADDR%u_CFG = %u) is "
			        "empty: IA32_RTIT_ADDR%u_A = 0x%llx is "
			        "above IA32_RTIT_ADDR%u_B = 0x%llx",
			        n, n, cfg, n, (unsigned long long)a, n,
			        (unsigned long long)b);
	}
	return 0;
}

/* Collect the notes for @msrs and @cpu. */
static uint32_t rtit_notes(const struct ptd_rtit_msrs *msrs,
                           const struct ptd_rtit_cpu *cpu, uint8_t nom_freq)
{
	uint64_t ctl = msrs->ctl, status = msrs->status;
	uint32_t notes = 0;

	if (!(ctl & PTD_RTIT_CTL_TRACEEN))
		notes |= ptd_rtit_note_trace_disabled;
	if (!(ctl & (PTD_RTIT_CTL_OS | PTD_RTIT_CTL_USER)))
		notes |= ptd_rtit_note_no_cpl;
	if (!(ctl & PTD_RTIT_CTL_BRANCHEN))
		notes |= ptd_rtit_note_no_branch;
	if (ctl & PTD_RTIT_CTL_DISTNT)
		notes |= ptd_rtit_note_no_tnt;
	if (!(ctl & PTD_RTIT_CTL_TSCEN))
		notes |= ptd_rtit_note_no_tsc;
	if ((ctl & PTD_RTIT_CTL_MTCFREQ) && !(ctl & PTD_RTIT_CTL_MTCEN))
		notes |= ptd_rtit_note_mtc_freq_unused;
	if ((ctl & PTD_RTIT_CTL_CYCTHRESH) && !(ctl & PTD_RTIT_CTL_CYCEN))
		notes |= ptd_rtit_note_cyc_thresh_unused;
	if (ctl & PTD_RTIT_CTL_CYCEN) {
		if (!(ctl & PTD_RTIT_CTL_TSCEN))
			notes |= ptd_rtit_note_cyc_without_tsc;
		if (!nom_freq)
			notes |= ptd_rtit_note_no_nom_freq;
		if (!nom_freq && !(ctl & PTD_RTIT_CTL_MTCEN))
			notes |= ptd_rtit_note_cyc_calibration;
	}
	if ((ctl & PTD_RTIT_CTL_FUPONPTW) && !(ctl & PTD_RTIT_CTL_PTWEN))
		notes |= ptd_rtit_note_fup_on_ptw_unused;
	if (ctl & PTD_RTIT_CTL_FABRICEN)
		notes |= ptd_rtit_note_fabric;
	if (status & PTD_RTIT_STATUS_ERROR)
		notes |= ptd_rtit_note_status_error;
	if (status & PTD_RTIT_STATUS_STOPPED)
		notes |= ptd_rtit_note_status_stopped;
	if ((msrs->output_mask_ptrs & 0x7f) != 0x7f)
		notes |= ptd_rtit_note_lower_mask;
	if (!(ctl & (PTD_RTIT_CTL_TOPA | PTD_RTIT_CTL_FABRICEN))) {
		/* Single-range output: the mask is MaskOrTableOffset with
		 * LowerMask, which reads as 7FH. */
		uint32_t mask = (uint32_t)msrs->output_mask_ptrs | 0x7fu;
		uint32_t offset = (uint32_t)(msrs->output_mask_ptrs >> 32);

		if ((mask & (mask + 1u)) != 0 || offset > mask)
			notes |= ptd_rtit_note_output_mask;
	}
	if (!cpu || !(cpu->have & ptd_rtit_have_cpuid_0x14))
		notes |= ptd_rtit_note_no_cpuid_0x14;
	return notes;
}

static void rtit_decode(struct ptd_rtit_trace *t,
                        const struct ptd_rtit_msrs *msrs)
{
	uint64_t ctl = msrs->ctl, status = msrs->status;
	unsigned n;

	t->trace_en = (ctl & PTD_RTIT_CTL_TRACEEN) != 0;
	t->cyc_en = (ctl & PTD_RTIT_CTL_CYCEN) != 0;
	t->os = (ctl & PTD_RTIT_CTL_OS) != 0;
	t->user = (ctl & PTD_RTIT_CTL_USER) != 0;
	t->pwr_evt_en = (ctl & PTD_RTIT_CTL_PWREVTEN) != 0;
	t->fup_on_ptw = (ctl & PTD_RTIT_CTL_FUPONPTW) != 0;
	t->fabric_en = (ctl & PTD_RTIT_CTL_FABRICEN) != 0;
	t->cr3_filter = (ctl & PTD_RTIT_CTL_CR3FILTER) != 0;
	t->topa = (ctl & PTD_RTIT_CTL_TOPA) != 0;
	t->mtc_en = (ctl & PTD_RTIT_CTL_MTCEN) != 0;
	t->tsc_en = (ctl & PTD_RTIT_CTL_TSCEN) != 0;
	t->dis_retc = (ctl & PTD_RTIT_CTL_DISRETC) != 0;
	t->ptw_en = (ctl & PTD_RTIT_CTL_PTWEN) != 0;
	t->branch_en = (ctl & PTD_RTIT_CTL_BRANCHEN) != 0;
	t->event_en = (ctl & PTD_RTIT_CTL_EVENTEN) != 0;
	t->dis_tnt = (ctl & PTD_RTIT_CTL_DISTNT) != 0;
	t->inject_psb_pmi_on_enable = (ctl & PTD_RTIT_CTL_INJECTPSBPMI) != 0;
	t->mtc_freq = (uint8_t)rtit_field(ctl, PTD_RTIT_CTL_MTCFREQ_SHIFT,
	                                  PTD_RTIT_CTL_MTCFREQ);
	t->cyc_thresh = (uint8_t)rtit_field(ctl, PTD_RTIT_CTL_CYCTHRESH_SHIFT,
	                                    PTD_RTIT_CTL_CYCTHRESH);
	t->psb_freq = (uint8_t)rtit_field(ctl, PTD_RTIT_CTL_PSBFREQ_SHIFT,
	                                  PTD_RTIT_CTL_PSBFREQ);
	for (n = 0; n < 4; ++n) {
		t->addr_cfg[n] =
		        (uint8_t)rtit_field(ctl, PTD_RTIT_CTL_ADDR_CFG_SHIFT(n),
		                            PTD_RTIT_CTL_ADDR_CFG(n));
		t->addr_a[n] = msrs->addr_a[n];
		t->addr_b[n] = msrs->addr_b[n];
	}
	t->mtc_period = 1u << t->mtc_freq;
	t->cyc_threshold = t->cyc_thresh ? 1u << (t->cyc_thresh - 1) : 0;
	t->psb_period = 1ull << (t->psb_freq + 11);
	t->cr3_match = msrs->cr3_match;

	t->filter_en = (status & PTD_RTIT_STATUS_FILTEREN) != 0;
	t->context_en = (status & PTD_RTIT_STATUS_CONTEXTEN) != 0;
	t->trigger_en = (status & PTD_RTIT_STATUS_TRIGGEREN) != 0;
	t->error = (status & PTD_RTIT_STATUS_ERROR) != 0;
	t->stopped = (status & PTD_RTIT_STATUS_STOPPED) != 0;
	t->pend_psb = (status & PTD_RTIT_STATUS_PENDPSB) != 0;
	t->pend_topa_pmi = (status & PTD_RTIT_STATUS_PENDTOPAPMI) != 0;
	t->packet_byte_cnt = (uint32_t)((status & PTD_RTIT_STATUS_BYTECNT) >>
	                                PTD_RTIT_STATUS_BYTECNT_SHIFT);

	t->output_base = msrs->output_base;
	t->output_mask = (uint32_t)msrs->output_mask_ptrs;
	t->topa_entry_offset =
	        (uint32_t)((msrs->output_mask_ptrs >> 7) & 0x1ffffff) << 3;
	t->output_offset = (uint32_t)(msrs->output_mask_ptrs >> 32);
}

/* Check everything in @msrs and @cpu that can make the state invalid. */
static int rtit_check(struct ptd_rtit_diag *diag,
                      const struct ptd_rtit_msrs *msrs,
                      const struct ptd_rtit_cpu *cpu)
{
	uint64_t ctl = msrs->ctl, bits;
	unsigned n;
	int err;

	bits = ctl & PTD_RTIT_CTL_RESERVED;
	if (bits)
		return rtit_reserved(diag, PTD_MSR_IA32_RTIT_CTL,
		                     "IA32_RTIT_CTL", ctl, bits);

	for (n = 0; n < 4; ++n) {
		unsigned shift = PTD_RTIT_CTL_ADDR_CFG_SHIFT(n);
		unsigned cfg = rtit_field(ctl, shift, PTD_RTIT_CTL_ADDR_CFG(n));

		if (cfg > 2)
			return rtit_fail(
			        diag, -pte_bad_config, PTD_MSR_IA32_RTIT_CTL,
			        PTD_RTIT_CTL_ADDR_CFG(n),
			        "IA32_RTIT_CTL.ADDR%u_CFG (bits %u:%u) = %u; "
			        "valid are 0 (off), 1 (filter) and 2 (trace "
			        "stop)",
			        n, shift + 3, shift, cfg);
	}

	if (cpu && (cpu->have & ptd_rtit_have_cpuid_0x14)) {
		err = rtit_check_cpuid(diag, ctl, cpu);
		if (err < 0)
			return err;
	}

	bits = msrs->status & PTD_RTIT_STATUS_RESERVED;
	if (bits)
		return rtit_reserved(diag, PTD_MSR_IA32_RTIT_STATUS,
		                     "IA32_RTIT_STATUS", msrs->status, bits);

	bits = msrs->output_base & 0x7f;
	if (cpu && cpu->maxphyaddr > 0 && cpu->maxphyaddr < 64)
		bits |= msrs->output_base & ~((1ull << cpu->maxphyaddr) - 1);
	if (bits)
		return rtit_reserved(diag, PTD_MSR_IA32_RTIT_OUTPUT_BASE,
		                     "IA32_RTIT_OUTPUT_BASE", msrs->output_base,
		                     bits);

	bits = msrs->cr3_match & 0x1f;
	if (bits)
		return rtit_reserved(diag, PTD_MSR_IA32_RTIT_CR3_MATCH,
		                     "IA32_RTIT_CR3_MATCH", msrs->cr3_match,
		                     bits);

	err = rtit_check_ranges(diag, msrs);
	if (err < 0)
		return err;

	if ((ctl & PTD_RTIT_CTL_MTCEN) &&
	    (!cpu || !cpu->cpuid_0x15_eax || !cpu->cpuid_0x15_ebx))
		return rtit_fail(diag, -pte_bad_config, PTD_MSR_IA32_RTIT_CTL,
		                 PTD_RTIT_CTL_MTCEN,
		                 "IA32_RTIT_CTL.MTCEn (bit 9) is set, but the "
		                 "CTC:TSC ratio CPUID.15H EBX/EAX is not known "
		                 "(%u/%u): MTC packets cannot be converted to "
		                 "TSC time",
		                 cpu ? cpu->cpuid_0x15_ebx : 0,
		                 cpu ? cpu->cpuid_0x15_eax : 0);
	return 0;
}

int ptd_rtit_config(struct pt_config *config, struct ptd_rtit_trace *trace,
                    struct ptd_rtit_diag *diag,
                    const struct ptd_rtit_msrs *msrs,
                    const struct ptd_rtit_cpu *cpu)
{
	struct ptd_rtit_trace t;
	struct pt_errata errata;
	uint8_t nom_freq = 0;
	uint32_t notes;
	int err;

	if (diag)
		memset(diag, 0, sizeof(*diag));
	if (!config || !msrs)
		return rtit_fail(diag, -pte_invalid, 0, 0, "%s is NULL",
		                 config ? "msrs" : "config");
	if (config->size < sizeof(*config))
		return rtit_fail(diag, -pte_invalid, 0, 0,
		                 "config->size is %zu, below "
		                 "sizeof(struct pt_config) = %zu: call "
		                 "pt_config_init() first",
		                 config->size, sizeof(*config));

	if (cpu)
		nom_freq = (uint8_t)(cpu->platform_info >> 8);

	memset(&errata, 0, sizeof(errata));
	notes = rtit_notes(msrs, cpu, nom_freq);
	if (!cpu || cpu->cpu.vendor != pcv_intel ||
	    pt_cpu_errata(&errata, &cpu->cpu) < 0)
		notes |= ptd_rtit_note_cpu_unknown;
	if (diag)
		diag->notes = notes;

	err = rtit_check(diag, msrs, cpu);
	if (err < 0)
		return err;

	memset(&t, 0, sizeof(t));
	rtit_decode(&t, msrs);
	t.nom_freq = nom_freq;
	t.notes = notes;
	if (cpu) {
		if (cpu->have & ptd_rtit_have_cpuid_0x14)
			t.lip = (uint8_t)(cpu->cpuid_0x14_0_ecx >> 31);
		if (ptd_tsc_hz_from_cpuid_0x15(&t.tsc_hz, cpu->cpuid_0x15_eax,
		                               cpu->cpuid_0x15_ebx,
		                               cpu->cpuid_0x15_ecx) < 0)
			t.tsc_hz = ptd_ratio_hz(nom_freq);
	}

	/* Commit. */
	if (cpu)
		config->cpu = cpu->cpu;
	else
		memset(&config->cpu, 0, sizeof(config->cpu));
	config->errata = errata;
	if (cpu && cpu->cpuid_0x15_eax && cpu->cpuid_0x15_ebx) {
		config->cpuid_0x15_eax = cpu->cpuid_0x15_eax;
		config->cpuid_0x15_ebx = cpu->cpuid_0x15_ebx;
	} else {
		config->cpuid_0x15_eax = 0;
		config->cpuid_0x15_ebx = 0;
	}
	config->mtc_freq = t.mtc_freq;
	config->nom_freq = nom_freq;
	memset(&config->addr_filter, 0, sizeof(config->addr_filter));
	config->addr_filter.config.addr_cfg = (msrs->ctl >> 32) & 0xffff;
	config->addr_filter.addr0_a = msrs->addr_a[0];
	config->addr_filter.addr0_b = msrs->addr_b[0];
	config->addr_filter.addr1_a = msrs->addr_a[1];
	config->addr_filter.addr1_b = msrs->addr_b[1];
	config->addr_filter.addr2_a = msrs->addr_a[2];
	config->addr_filter.addr2_b = msrs->addr_b[2];
	config->addr_filter.addr3_a = msrs->addr_a[3];
	config->addr_filter.addr3_b = msrs->addr_b[3];
	if (trace)
		*trace = t;
	return 0;
}

int ptd_rtit_from_xsave(struct ptd_rtit_msrs *msrs, struct ptd_rtit_diag *diag,
                        const void *area, size_t size)
{
	const uint8_t *p = area;

	if (diag)
		memset(diag, 0, sizeof(*diag));
	if (!msrs || !area)
		return rtit_fail(diag, -pte_invalid, 0, 0, "%s is NULL",
		                 msrs ? "area" : "msrs");
	if (size < PTD_RTIT_XSAVE_SIZE)
		return rtit_fail(diag, -pte_invalid, 0, 0,
		                 "the XSAVE trace component has %zu bytes, "
		                 "fewer than the %u of Table 36-13",
		                 size, PTD_RTIT_XSAVE_SIZE);

	memset(msrs, 0, sizeof(*msrs));
	msrs->ctl = ptd_le64(p + 0x00);
	msrs->output_base = ptd_le64(p + 0x08);
	msrs->output_mask_ptrs = ptd_le64(p + 0x10);
	msrs->status = ptd_le64(p + 0x18);
	msrs->cr3_match = ptd_le64(p + 0x20);
	msrs->addr_a[0] = ptd_le64(p + 0x28);
	msrs->addr_b[0] = ptd_le64(p + 0x30);
	msrs->addr_a[1] = ptd_le64(p + 0x38);
	msrs->addr_b[1] = ptd_le64(p + 0x40);
	return 0;
}

int ptd_rtit_config_from_xsave(struct pt_config *config,
                               struct ptd_rtit_trace *trace,
                               struct ptd_rtit_diag *diag, const void *area,
                               size_t size, const struct ptd_rtit_cpu *cpu)
{
	struct ptd_rtit_msrs msrs;
	uint64_t bits;
	int err;

	err = ptd_rtit_from_xsave(&msrs, diag, area, size);
	if (err < 0)
		return err;

	bits = msrs.ctl & (PTD_RTIT_CTL_ADDR_CFG(2) | PTD_RTIT_CTL_ADDR_CFG(3));
	if (bits)
		return rtit_fail(diag, -pte_bad_config, PTD_MSR_IA32_RTIT_CTL,
		                 bits,
		                 "IA32_RTIT_CTL = 0x%llx in the XSAVE trace "
		                 "component sets ADDR2_CFG or ADDR3_CFG (bits "
		                 "47:40), but processors that save Intel PT "
		                 "state with XSAVE have address ranges 0 and 1 "
		                 "only (Table 36-13)",
		                 (unsigned long long)msrs.ctl);

	return ptd_rtit_config(config, trace, diag, &msrs, cpu);
}

/* The intel_pt attr.config bits (the Linux PMU's format attributes). */
#define RTIT_PERF_PASSTHROUGH (1ull << 0)
#define RTIT_PERF_OPTIONS                                                      \
	(RTIT_PERF_PASSTHROUGH | PTD_RTIT_CTL_CYCEN | PTD_RTIT_CTL_PWREVTEN |  \
	 PTD_RTIT_CTL_FUPONPTW | PTD_RTIT_CTL_MTCEN | PTD_RTIT_CTL_TSCEN |     \
	 PTD_RTIT_CTL_DISRETC | PTD_RTIT_CTL_PTWEN | PTD_RTIT_CTL_BRANCHEN |   \
	 PTD_RTIT_CTL_MTCFREQ | PTD_RTIT_CTL_CYCTHRESH |                       \
	 PTD_RTIT_CTL_PSBFREQ | PTD_RTIT_CTL_EVENTEN | PTD_RTIT_CTL_DISTNT)

int ptd_rtit_ctl_from_perf(uint64_t *ctl, uint64_t attr_config,
                           int exclude_kernel, int exclude_user)
{
	uint64_t v;

	if (!ctl)
		return -pte_invalid;
	if (attr_config & ~RTIT_PERF_OPTIONS)
		return -pte_bad_config;

	v = (attr_config & RTIT_PERF_OPTIONS & ~RTIT_PERF_PASSTHROUGH) |
	    PTD_RTIT_CTL_TRACEEN | PTD_RTIT_CTL_TOPA;
	if (!(attr_config & RTIT_PERF_PASSTHROUGH))
		v |= PTD_RTIT_CTL_BRANCHEN;
	if (!exclude_kernel)
		v |= PTD_RTIT_CTL_OS;
	if (!exclude_user)
		v |= PTD_RTIT_CTL_USER;
	*ctl = v;
	return 0;
}

const char *ptd_rtit_note_str(uint32_t note)
{
	switch (note) {
	case ptd_rtit_note_trace_disabled:
		return "TraceEn is clear: not the state of a running trace";
	case ptd_rtit_note_no_cpl:
		return "neither OS nor User is set: nothing is traced";
	case ptd_rtit_note_no_branch:
		return "BranchEn is clear: no control-flow packets";
	case ptd_rtit_note_no_tnt:
		return "DisTNT is set: no TNT packets, conditional branches "
		       "cannot be followed";
	case ptd_rtit_note_no_tsc:
		return "TSCEn is clear: no TSC packets, no wall-clock time";
	case ptd_rtit_note_mtc_freq_unused:
		return "MTCFreq is set while MTCEn is clear: no effect";
	case ptd_rtit_note_cyc_thresh_unused:
		return "CycThresh is set while CYCEn is clear: no effect";
	case ptd_rtit_note_cyc_without_tsc:
		return "CYCEn without TSCEn; the SDM recommends TSCEn with "
		       "cycle-accurate mode";
	case ptd_rtit_note_cyc_calibration:
		return "CYCEn without MTC and without a nominal ratio: CYC is "
		       "calibrated only between TSC packets";
	case ptd_rtit_note_fup_on_ptw_unused:
		return "FUPonPTW without PTWEn: no effect";
	case ptd_rtit_note_fabric:
		return "FabricEn: output goes to the trace transport "
		       "subsystem, ToPA is ignored";
	case ptd_rtit_note_status_error:
		return "STATUS.Error: an operational error stopped packet "
		       "generation";
	case ptd_rtit_note_status_stopped:
		return "STATUS.Stopped: a ToPA STOP entry stopped packet "
		       "generation";
	case ptd_rtit_note_lower_mask:
		return "OUTPUT_MASK_PTRS.LowerMask is not 7FH as the processor "
		       "reads it";
	case ptd_rtit_note_output_mask:
		return "single-range output mask is not 2^n - 1, or the output "
		       "offset is beyond it";
	case ptd_rtit_note_cpu_unknown:
		return "the processor is not in the errata table: no errata "
		       "workarounds";
	case ptd_rtit_note_no_cpuid_0x14:
		return "CPUID leaf 0x14 not given: features and encodings not "
		       "checked";
	case ptd_rtit_note_no_nom_freq:
		return "CYCEn without a nominal ratio (MSR_PLATFORM_INFO): CBR "
		       "cannot calibrate CYC";
	default:
		return NULL;
	}
}
