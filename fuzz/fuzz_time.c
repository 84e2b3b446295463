/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the time decoder (<ptdecode/ptd_time.h>) on arbitrary
 * bytes.
 *
 * Input: bytes 0 and 1 select the configuration, the rest is the trace.
 *   byte 0 bit 0     mode: libipt's estimator (else the accurate one)
 *          bit 1     keep_tcal_on_ovf
 *          bit 2     no_tcal
 *          bit 3     errata.skl168
 *          bit 4     VMX TSC scaling by 0.75 (and tsc_host_time if bit 5)
 *          bits 7:6  CPUID 0x15: none, 2/308, 3/7, 1/1
 *   byte 1 bits 3:0  mtc_freq (values above 9 taken as 0..15, 16, 31)
 *          bit 4     nom_freq 37 (else 0)
 *          bit 5     no_cyc
 *          bit 6     also decode the first half of the trace alone (the
 *                    look-ahead must stop at its end)
 *
 * Checks: no crash or sanitizer report; ptd_time_next() decodes the same
 * packets as pt_pkt_next(); between resynchronizations the accurate
 * estimator never goes backwards, relative time never after wall-clock
 * time, and has_tsc never goes back to 0; the queries agree with the
 * packets; lost_cyc is not above the CYCs since the last TSC. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_common.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_config(struct pt_config *config,
                        struct ptd_time_config *tconfig, uint8_t a, uint8_t b)
{
	static const uint32_t eax[4] = {0, 2, 3, 1};
	static const uint32_t ebx[4] = {0, 308, 7, 1};
	static const uint8_t freq[16] = {0, 1, 2,  3,  4,  5,  6,  7,
	                                 8, 9, 12, 13, 15, 16, 31, 10};

	config->cpuid_0x15_eax = eax[a >> 6];
	config->cpuid_0x15_ebx = ebx[a >> 6];
	config->errata.skl168 = (a >> 3) & 1;
	config->mtc_freq = freq[b & 0xf];
	config->nom_freq = (b & 0x10) ? 37 : 0;

	ptd_time_config_init(tconfig);
	tconfig->mode = (a & 1) ? ptd_time_mode_libipt : ptd_time_mode_accurate;
	tconfig->keep_tcal_on_ovf = (a >> 1) & 1;
	tconfig->no_tcal = (a >> 2) & 1;
	tconfig->no_cyc = (b >> 5) & 1;
	if (a & 0x10) {
		tconfig->tsc_multiplier = UINT64_C(3) << 46;
		tconfig->tsc_offset = 0x1000;
		tconfig->tsc_host_time = (a >> 5) & 1;
	}
}

/* Decode the whole trace, checking as we go. */
static void fuzz_run(const struct pt_config *config,
                     const struct ptd_time_config *tconfig)
{
	struct ptd_time_decoder *decoder;
	struct pt_packet_decoder *packets;
	uint64_t prev = 0, cycs = 0;
	int have_prev = 0, had_tsc = 0, accurate, err;

	accurate = tconfig->mode == ptd_time_mode_accurate &&
	           !tconfig->tsc_host_time;
	decoder = ptd_time_alloc_decoder(config, tconfig);
	FUZZ_CHECK(decoder != NULL, "allocation failed");
	packets = pt_pkt_alloc_decoder(config);
	FUZZ_CHECK(packets != NULL, "allocation failed");

	err = ptd_time_sync_forward(decoder);
	FUZZ_CHECK(err == pt_pkt_sync_forward(packets), "sync differs");
	while (err >= 0) {
		struct ptd_time_packet packet;
		struct pt_packet expected;
		uint64_t tsc = 0, offset = 0;
		uint32_t lost_mtc = 0, lost_cyc = 0, cbr = 0;
		int size, esize, qerr;

		(void)ptd_time_get_offset(decoder, &offset);
		size = ptd_time_next(decoder, &packet, sizeof(packet));
		esize = pt_pkt_next(packets, &expected, sizeof(expected));
		FUZZ_CHECK(size == esize, "next: %d vs %d", size, esize);
		if (size < 0) {
			if (size == -pte_eos)
				break;
			err = ptd_time_sync_forward(decoder);
			FUZZ_CHECK(err == pt_pkt_sync_forward(packets),
			           "resync differs");
			have_prev = 0;
			had_tsc = 0;
			cycs = 0;
			continue;
		}
		FUZZ_CHECK(!ptd_pkt_diff(&packet.packet, &expected),
		           "packet differs at %llx: %s",
		           (unsigned long long)packet.offset,
		           ptd_pkt_diff(&packet.packet, &expected));
		FUZZ_CHECK(packet.offset == offset, "offset");

		cycs += (packet.packet.type == ppt_cyc);
		if (packet.packet.type == ppt_tsc)
			cycs = 0;

		qerr = ptd_time_query(decoder, &tsc, &lost_mtc, &lost_cyc);
		FUZZ_CHECK(qerr == (packet.has_tsc ? 0 : -pte_no_time),
		           "query status");
		FUZZ_CHECK(tsc == packet.tsc && lost_mtc == packet.lost_mtc &&
		                   lost_cyc == packet.lost_cyc,
		           "query values");
		FUZZ_CHECK(lost_cyc <= cycs, "lost_cyc %u > %llu CYCs",
		           lost_cyc, (unsigned long long)cycs);
		qerr = ptd_time_query_cbr(decoder, &cbr);
		FUZZ_CHECK(qerr == (packet.has_cbr ? 0 : -pte_no_cbr), "cbr");
		FUZZ_CHECK(!packet.has_cbr || cbr == packet.cbr, "cbr value");
		FUZZ_CHECK(!packet.cyc_lost || packet.packet.type == ppt_cyc,
		           "cyc_lost on a %d", packet.packet.type);

		FUZZ_CHECK(packet.has_tsc || !had_tsc, "has_tsc went back");
		if (accurate && have_prev && packet.has_tsc == had_tsc)
			FUZZ_CHECK(packet.tsc >= prev,
			           "backwards at %llx: %llx after %llx",
			           (unsigned long long)packet.offset,
			           (unsigned long long)packet.tsc,
			           (unsigned long long)prev);
		prev = packet.tsc;
		have_prev = 1;
		had_tsc = packet.has_tsc;
	}
	pt_pkt_free_decoder(packets);
	ptd_time_free_decoder(decoder);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptd_time_config tconfig;
	struct ptd_time_status status;
	struct ptd_time_decoder *decoder;
	struct pt_config config;
	uint8_t *buf;
	size_t n;

	if (size < 2)
		return 0;
	n = size - 2;
	buf = fuzz_alloc(n);
	if (n)
		memcpy(buf, data + 2, n);

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + n;
	fuzz_config(&config, &tconfig, data[0], data[1]);
	fuzz_run(&config, &tconfig);

	/* Half of the trace: the look-ahead must stop at its end. */
	if (data[1] & 0x40) {
		config.end = buf + n / 2;
		fuzz_run(&config, &tconfig);
	}

	/* The status and the strings of its bits. */
	decoder = ptd_time_alloc_decoder(&config, &tconfig);
	FUZZ_CHECK(decoder != NULL, "allocation failed");
	FUZZ_CHECK(ptd_time_get_status(decoder, &status, sizeof(status)) == 0,
	           "status");
	FUZZ_CHECK(status.diag == 0, "fresh status");
	ptd_time_free_decoder(decoder);

	free(buf);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
