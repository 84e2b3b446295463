/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: the timing column (--time, --tcal). */
#include "timing.h"

#include "diag.h"

#include <inttypes.h>
#include <string.h>

void ptdump_timing_reset(struct ptdump_timing *timing)
{
	timing->tsc = 0;
	timing->fcr = 0;
}

void ptdump_timing_config(struct ptd_time_config *tconfig,
                          const struct ptdump_options *options)
{
	ptd_time_config_init(tconfig);
	tconfig->mode = options->time_libipt ? ptd_time_mode_libipt
	                                     : ptd_time_mode_accurate;
	tconfig->no_tcal = options->no_tcal;
	tconfig->no_cyc = options->no_cyc;
	tconfig->keep_tcal_on_ovf = options->keep_tcal_on_ovf;
	tconfig->tsc_multiplier = options->vmx_tsc_multiplier;
	tconfig->tsc_offset = options->vmx_tsc_offset;
	tconfig->tsc_host_time = options->vmx_host_time;
}

/* "fcr <value>": the calibration, TSC ticks per core cycle. */
static void ptdump_timing_fcr(struct ptdump_line *line,
                              struct ptdump_timing *timing,
                              const struct ptd_time_packet *packet,
                              const struct ptdump_options *options,
                              uint64_t offset, FILE *out)
{
	double fcr, old;

	(void)ptdump_set(line->track_id, "fcr");
	if (!packet->has_fcr) {
		(void)ptdump_set(line->track, "<unavailable>");
		ptdump_diag(out, offset, "error printing time", -pte_no_time);
		return;
	}

	fcr = (double)packet->fcr / 256.0;
	if (!options->show_time_as_delta) {
		(void)ptdump_set(line->track, "%.3f", fcr);
		return;
	}
	old = (double)timing->fcr / 256.0;
	(void)ptdump_set(line->track, "%+.3f", fcr - old);
	timing->fcr = packet->fcr;
}

/* "tsc <value>": the estimated TSC. */
static void ptdump_timing_tsc(struct ptdump_line *line,
                              struct ptdump_timing *timing,
                              const struct ptd_time_packet *packet,
                              const struct ptdump_options *options,
                              uint64_t offset, FILE *out)
{
	uint64_t tsc = packet->tsc;

	(void)ptdump_set(line->track_id, "tsc");
	if (!packet->has_tsc && !options->no_wall_clock) {
		ptdump_diag(out, offset, "error printing time", -pte_no_time);
		(void)ptdump_set(line->track, "<unavailable>");
		return;
	}

	if (!options->show_time_as_delta) {
		(void)ptdump_set(line->track, "%016" PRIx64, tsc);
		return;
	}
	if (timing->tsc <= tsc)
		(void)ptdump_set(line->track, "+%" PRIx64, tsc - timing->tsc);
	else
		(void)ptdump_set(line->track, "-%" PRIx64, timing->tsc - tsc);
	timing->tsc = tsc;
}

void ptdump_timing_track(struct ptdump_line *line, struct ptdump_timing *timing,
                         const struct ptd_time_packet *packet,
                         const struct ptdump_options *options, uint64_t offset,
                         FILE *out)
{
	int show_time = 1, show_tcal = 1;

	switch (packet->packet.type) {
	case ppt_tsc:
	case ppt_mtc:
		break;

	case ppt_cbr:
		/* There is no time update at a CBR. */
		show_time = 0;
		break;

	case ppt_tma:
		/* Nor a calibration update at a TMA or CYC. */
		show_tcal = 0;
		break;

	case ppt_cyc:
		if (options->no_cyc)
			return;
		show_tcal = 0;
		if (packet->cyc_lost && !options->no_tcal)
			ptdump_diag(out, offset, "calibration error",
			            -pte_no_time);
		break;

	default:
		return;
	}

	if (packet->tcal_error)
		ptdump_diag(out, offset, "error calibrating time",
		            packet->tcal_error);
	if (packet->time_error)
		ptdump_diag(out, offset, "error updating time",
		            packet->time_error);
	else if (packet->cyc_lost)
		ptdump_diag(out, offset, "error updating time: no calibration",
		            0);

	if (options->show_tcal && show_tcal)
		ptdump_timing_fcr(line, timing, packet, options, offset, out);
	if (options->show_time && show_time)
		ptdump_timing_tsc(line, timing, packet, options, offset, out);
}

void ptdump_timing_summary(uint32_t diag, const char *prog, FILE *err)
{
	uint32_t bit;

	for (bit = 1; bit; bit <<= 1) {
		const char *text;

		if (!(diag & bit))
			continue;
		text = ptd_time_diag_str((enum ptd_time_diag)bit);
		if (text)
			fprintf(err, "%s: timing: %s.\n", prog, text);
	}
}
