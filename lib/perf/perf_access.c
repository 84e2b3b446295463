/* SPDX-License-Identifier: BSD-3-Clause */
/* What a parsed perf.data file offers: its recording's settings, a decoder
 * configuration, the trace buffers and the per-AUX-area streams. */
#include "perf_int.h"

#include <stdlib.h>
#include <string.h>

void ptd_perf_free(struct ptd_perf *perf)
{
	if (!perf)
		return;
	free(perf->buffers);
	free(perf->streams);
	free(perf->trace);
	free(perf->snap_trace);
	free(perf->filter);
	free(perf->mmaps);
	free(perf->comms);
	free(perf->strings);
	free(perf->switches);
	free(perf->tasks);
	free(perf->runs);
	free(perf);
}

void ptd_perf_free_trace(struct ptd_perf *perf)
{
	if (!perf)
		return;
	free(perf->trace);
	free(perf->snap_trace);
	perf->trace = NULL;
	perf->snap_trace = NULL;
	for (size_t i = 0; i < perf->num_buffers; ++i)
		perf->buffers[i].data = NULL;
	for (size_t i = 0; i < perf->num_streams; ++i)
		perf->streams[i].data = NULL;
}

int ptd_perf_get_info(const struct ptd_perf *perf, struct ptd_perf_info *info)
{
	if (!perf || !info)
		return -pte_invalid;
	*info = perf->info;
	return 0;
}

/* What the file says, as it is, where ptd_rtit_config() refuses it. */
static void perf_config_as_is(const struct ptd_perf_info *info,
                              struct pt_config *config)
{
	uint64_t bits =
	        info->mtc_freq_bits ? info->mtc_freq_bits : (uint64_t)0xf << 14;

	config->cpu = info->cpu;
	memset(&config->errata, 0, sizeof(config->errata));
	if (config->cpu.vendor != pcv_unknown)
		(void)pt_cpu_errata(&config->errata, &config->cpu);
	config->cpuid_0x15_eax = info->tsc_ctc_d;
	config->cpuid_0x15_ebx = info->tsc_ctc_n;
	config->nom_freq = (uint8_t)info->max_nonturbo_ratio;
	config->mtc_freq =
	        (uint8_t)((info->config & bits) >> __builtin_ctzll(bits));
}

int ptd_perf_config(const struct ptd_perf *perf, struct pt_config *config,
                    struct ptd_rtit_diag *diag)
{
	struct ptd_rtit_msrs msrs;
	struct ptd_rtit_cpu cpu;
	const struct ptd_perf_info *info;
	int err;

	if (diag)
		memset(diag, 0, sizeof(*diag));
	if (!perf || !config)
		return -pte_invalid;
	info = &perf->info;

	memset(&msrs, 0, sizeof(msrs));
	err = ptd_rtit_ctl_from_perf(&msrs.ctl, info->config,
	                             info->exclude_kernel, info->exclude_user);
	if (err < 0) {
		if (diag) {
			diag->error = err;
			diag->msr = PTD_MSR_IA32_RTIT_CTL;
			strcpy(diag->message,
			       "the intel_pt event's attr.config has bits that "
			       "are no intel_pt option");
		}
		if (config->size >= sizeof(*config))
			perf_config_as_is(info, config);
		return err;
	}
	/* What the MSR reads when nobody wrote it (perf.data does not
	 * record it). */
	msrs.output_mask_ptrs = 0x7f;

	memset(&cpu, 0, sizeof(cpu));
	cpu.cpu = info->cpu;
	cpu.cpuid_0x15_eax = info->tsc_ctc_d;
	cpu.cpuid_0x15_ebx = info->tsc_ctc_n;
	cpu.platform_info = (uint64_t)(info->max_nonturbo_ratio & 0xff) << 8;
	err = ptd_rtit_config(config, NULL, diag, &msrs, &cpu);
	if (err == -pte_bad_config)
		perf_config_as_is(info, config);
	return err;
}

size_t ptd_perf_num_buffers(const struct ptd_perf *perf)
{
	return perf ? perf->num_buffers : 0;
}

int ptd_perf_get_buffer(const struct ptd_perf *perf, size_t i,
                        struct ptd_perf_buffer *buffer)
{
	if (!perf || !buffer)
		return -pte_invalid;
	if (i >= perf->num_buffers)
		return -pte_eos;
	*buffer = perf->buffers[i];
	return 0;
}

size_t ptd_perf_num_streams(const struct ptd_perf *perf)
{
	return perf ? perf->num_streams : 0;
}

int ptd_perf_get_stream(const struct ptd_perf *perf, size_t i,
                        struct ptd_perf_stream *stream)
{
	if (!perf || !stream)
		return -pte_invalid;
	if (i >= perf->num_streams)
		return -pte_eos;
	*stream = perf->streams[i];
	return 0;
}
