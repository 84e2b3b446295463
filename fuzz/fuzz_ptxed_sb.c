/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: ptxed's perf_event sideband (tools/ptxed/sideband.c,
 * sb_context.c): records applied at a script of decoder events, with the
 * processes' contexts made, replaced, copied and freed, and the decoder's
 * image switched.
 *
 * Input: a 20-byte header, an event script, then the files' bytes.
 *   byte 0        the --sb print flags (enum ptd_sb_print, bits 0-6)
 *   byte 1        how many files (1 + bits 1:0), which are primary (bits
 *                 4:2, file i primary if bit i is set), where the bytes
 *                 split (bits 7:5: the first file gets that many 16ths)
 *   bytes 2-9     the sample type (little-endian)
 *   bytes 10-17   --pevent:kernel-start
 *   byte 18       the number of events in the script (at most 255)
 *   byte 19       unused
 *   then 3 bytes per event: its type (byte % 29: every enum pt_event_type
 *   up to ptev_uiret), flags (bit 0 ip_suppressed, bit 1 status_update,
 *   bits 7:2 the high bits of its IP), and how far its time moves on.
 *
 * Checks: no crash or sanitizer report (a context freed while the decoder
 * or a file uses it, a leak at the end); the decoder accepts every image
 * the sideband gives it. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_sb_input.h"
#include "ptxed.h"
#include "sideband.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_PSB_HEADER = 20, FUZZ_PSB_MAX_FILES = 4 };

/* An event of the script: its IP where the type has one. */
static void fuzz_event(struct pt_event *ev, const uint8_t *e, uint64_t tsc)
{
	const uint64_t ip = (uint64_t)(e[1] >> 2) << 58 | 0x1000;

	memset(ev, 0, sizeof(*ev));
	ev->type = (enum pt_event_type)(e[0] % (ptev_uiret + 1));
	ev->ip_suppressed = e[1] & 1;
	ev->status_update = (e[1] >> 1) & 1;
	ev->has_tsc = 1;
	ev->tsc = tsc;
	/* (The IPs of the variants the sideband reads; the union's first
	 * words otherwise.) */
	switch (ev->type) {
	case ptev_async_disabled:
		ev->variant.async_disabled.at = ip;
		ev->variant.async_disabled.ip = ip ^ (UINT64_C(1) << 63);
		break;
	case ptev_async_branch:
		ev->variant.async_branch.from = ip;
		ev->variant.async_branch.to = ip ^ (UINT64_C(1) << 63);
		break;
	default:
		ev->variant.enabled.ip = ip;
		ev->variant.overflow.ip = ip;
		ev->variant.tick.ip = ip;
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t psb[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	                                0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	                                0x02, 0x82, 0x02, 0x82};
	struct ptxed_decoder decoder;
	struct ptd_sb_session *s;
	struct pt_config config;
	char arg0[] = "fuzz";
	size_t nevents, at, nfiles;
	uint64_t tsc = 0;
	FILE *out;

	if (size < FUZZ_PSB_HEADER)
		return 0;
	nevents = data[18];
	if (size - FUZZ_PSB_HEADER < 3 * nevents)
		return 0;
	at = FUZZ_PSB_HEADER + 3 * nevents;

	memset(&decoder, 0, sizeof(decoder));
	decoder.type = ptxed_insn_decoder;
	decoder.iscache = pt_iscache_alloc(NULL);
	FUZZ_CHECK(decoder.iscache != NULL, "out of memory");
	decoder.sb = ptxed_sb_alloc(decoder.iscache, arg0);
	FUZZ_CHECK(decoder.sb != NULL, "out of memory");
	pt_config_init(&config);
	config.begin = (uint8_t *)psb;
	config.end = (uint8_t *)psb + sizeof(psb);
	decoder.variant.insn = pt_insn_alloc_decoder(&config);
	FUZZ_CHECK(decoder.variant.insn != NULL, "out of memory");

	out = fopen("/dev/null", "w");
	FUZZ_CHECK(out != NULL, "cannot open /dev/null");
	s = ptxed_sb_session(decoder.sb);
	s->out = out;
	s->print = data[0] & 0x7f;
	s->config.pevent.sample_type = fuzz_le64(data + 2);
	s->config.kernel_start = fuzz_le64(data + 10);

	/* The files, as ptd_sb_option() would have loaded them. */
	nfiles = 1 + (data[1] & 3);
	fuzz_sb_files(s, data + at, size - at, nfiles, data[1] >> 5, 16,
	              (data[1] >> 2) & 7);

	ptxed_sb_start(decoder.sb);
	for (size_t k = 0; k < nevents; ++k) {
		const uint8_t *e = data + FUZZ_PSB_HEADER + 3 * k;
		struct pt_event ev;

		tsc += (uint64_t)e[2] << (e[2] & 7);
		fuzz_event(&ev, e, tsc);
		ptxed_sb_event(decoder.sb, &decoder, &ev);
	}

	/* As ptxed ends: the decoder first, then the sideband's images. */
	pt_insn_free_decoder(decoder.variant.insn);
	ptxed_sb_free(decoder.sb);
	pt_iscache_free(decoder.iscache);
	fclose(out);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
