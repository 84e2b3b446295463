/* SPDX-License-Identifier: BSD-3-Clause */
/* The public time decoder (ptd_time_*): a packet decoder with a time engine
 * attached, and the diagnostic strings. */
#include "time.h"

#include "packet/pkt_decoder.h"
#include "ptdecode/ptdecode.h"

#include <stdlib.h>
#include <string.h>

struct ptd_time_decoder {
	/* The packet decoder; its configuration is the one the time engine
	 * refers to. */
	struct pt_packet_decoder packet;

	/* The time engine. */
	struct ptd_time time;
};

struct ptd_time_decoder *
ptd_time_alloc_decoder(const struct pt_config *config,
                       const struct ptd_time_config *tconfig)
{
	struct ptd_time_decoder *decoder;

	decoder = malloc(sizeof(*decoder));
	if (!decoder)
		return NULL;
	if (ptd_pkt_decoder_init(&decoder->packet, config) < 0 ||
	    ptd_time_init(&decoder->time, &decoder->packet.config, tconfig) <
	            0) {
		free(decoder);
		return NULL;
	}
	return decoder;
}

void ptd_time_free_decoder(struct ptd_time_decoder *decoder)
{
	free(decoder);
}

int ptd_time_sync_forward(struct ptd_time_decoder *decoder)
{
	int err;

	if (!decoder)
		return -pte_invalid;
	err = pt_pkt_sync_forward(&decoder->packet);
	if (err < 0)
		return err;
	ptd_time_reset(&decoder->time);
	return 0;
}

int ptd_time_sync_set(struct ptd_time_decoder *decoder, uint64_t offset)
{
	int err;

	if (!decoder)
		return -pte_invalid;
	err = pt_pkt_sync_set(&decoder->packet, offset);
	if (err < 0)
		return err;
	ptd_time_reset(&decoder->time);
	return 0;
}

int ptd_time_get_offset(const struct ptd_time_decoder *decoder,
                        uint64_t *offset)
{
	if (!decoder)
		return -pte_invalid;
	return pt_pkt_get_offset(&decoder->packet, offset);
}

int ptd_time_get_sync_offset(const struct ptd_time_decoder *decoder,
                             uint64_t *offset)
{
	if (!decoder)
		return -pte_invalid;
	return pt_pkt_get_sync_offset(&decoder->packet, offset);
}

int ptd_time_next(struct ptd_time_decoder *decoder,
                  struct ptd_time_packet *packet, size_t size)
{
	struct ptd_time_packet out;
	struct ptd_time_ahead ahead;
	struct ptd_time *time;
	uint64_t offset, fcr = 0;
	int consumed, err;
	unsigned in_psb;

	if (!decoder || !packet)
		return -pte_invalid;

	err = pt_pkt_get_offset(&decoder->packet, &offset);
	if (err < 0)
		return err;

	memset(&out, 0, sizeof(out));
	consumed =
	        pt_pkt_next(&decoder->packet, &out.packet, sizeof(out.packet));
	if (consumed < 0)
		return consumed;

	ahead.pos = decoder->packet.pos;
	ahead.end = decoder->packet.config.end;
	ahead.state = decoder->packet.state;
	time = &decoder->time;
	in_psb = time->in_psb;
	err = ptd_time_update(&decoder->time, &out.packet, &ahead);
	if (err < 0)
		return err;
	/* ptdump (libipt's, too) is in a PSB+ from PSB to PSBEND: an OVF
	 * between them, where the decoders leave the PSB+ (ptd_time_apply()),
	 * does not end it here. */
	if (out.packet.type == ppt_ovf)
		time->in_psb = in_psb;

	out.offset = offset;
	err = ptd_time_get_tsc(time, &out.tsc, &out.lost_mtc, &out.lost_cyc);
	out.has_tsc = (err == 0);
	out.has_fcr = (ptd_time_get_fcr(time, &fcr) == 0);
	out.fcr = out.has_fcr ? fcr : 0;
	out.has_cbr = time->have_cbr;
	out.cbr = time->cbr;
	out.in_psb = time->in_psb || out.packet.type == ppt_psbend;
	out.cyc_lost = time->report.cyc_lost;
	out.tcal_error = time->report.tcal_error;
	out.time_error = time->report.time_error;

	if (size > sizeof(out)) {
		memset((uint8_t *)packet + sizeof(out), 0, size - sizeof(out));
		size = sizeof(out);
	}
	memcpy(packet, &out, size);
	return consumed;
}

int ptd_time_query(const struct ptd_time_decoder *decoder, uint64_t *time,
                   uint32_t *lost_mtc, uint32_t *lost_cyc)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_time_get_tsc(&decoder->time, time, lost_mtc, lost_cyc);
}

int ptd_time_query_cbr(const struct ptd_time_decoder *decoder, uint32_t *cbr)
{
	if (!decoder)
		return -pte_invalid;
	return ptd_time_get_cbr(&decoder->time, cbr);
}

int ptd_time_get_status(const struct ptd_time_decoder *decoder,
                        struct ptd_time_status *status, size_t size)
{
	if (!decoder || !status)
		return -pte_invalid;
	if (size > sizeof(decoder->time.status)) {
		memset((uint8_t *)status + sizeof(decoder->time.status), 0,
		       size - sizeof(decoder->time.status));
		size = sizeof(decoder->time.status);
	}
	memcpy(status, &decoder->time.status, size);
	return 0;
}

const char *ptd_time_diag_str(enum ptd_time_diag diag)
{
	switch (diag) {
	case ptd_time_diag_no_cpuid_0x15:
		return "MTC/TMA packets need the CPUID 0x15 TSC:CTC ratio "
		       "(cpuid_0x15_eax, cpuid_0x15_ebx); without it MTCs are "
		       "not used";
	case ptd_time_diag_bad_mtc_freq:
		return "the first MTC after a TMA does not fit mtc_freq; "
		       "mtc_freq is probably wrong (or not given)";
	case ptd_time_diag_no_nom_freq:
		return "CYC packets waited for calibration although CBR "
		       "packets were there: set nom_freq (the nominal ratio) "
		       "to "
		       "calibrate from them";
	case ptd_time_diag_uncalibrated:
		return "CYC packets came before the core:TSC ratio was "
		       "calibrated (counted in lost_cyc)";
	case ptd_time_diag_mtc_dropped:
		return "the processor dropped MTC packets (the time is still "
		       "right)";
	case ptd_time_diag_clamped:
		return "a TSC or MTC set a time earlier than one already "
		       "reported; the time was held rather than go backwards";
	case ptd_time_diag_bad_tma:
		return "a TMA packet without a TSC, or a second one for a TSC, "
		       "was ignored";
	case ptd_time_diag_bad_mtc:
		return "an MTC payload did not fit the expected CTC value and "
		       "was not used";
	case ptd_time_diag_ctc_ratio:
		return "TSC packets disagree with the MTCs between them: the "
		       "CPUID 0x15 ratio (cpuid_0x15_eax, cpuid_0x15_ebx) is "
		       "wrong, or the trace is from a guest with VMX TSC "
		       "scaling; MTC times were corrected to match the TSCs";
	case ptd_time_diag_mtc_freq_range:
		return "mtc_freq is above 15, which MTCFreq (a 4-bit field of "
		       "IA32_RTIT_CTL) cannot be: MTCs are not used";
	}
	return NULL;
}
