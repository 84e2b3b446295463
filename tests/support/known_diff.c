/* SPDX-License-Identifier: BSD-3-Clause */
/* Places in a trace where libipt 2.0.5 fails by design (known_diff.h). */
#include "known_diff.h"

#include <stddef.h>

enum known_scan {
	known_later_packet,
	known_rejected_timing,
	known_failure_ahead,
	known_skd010_timing
};

/* Whether the bytes where @dec stopped at the end of the buffer begin a
 * later libipt's packet that the end cuts off (libipt 2.0.5 rejects its
 * opcode, -pte_bad_opc; ptdecode's decoder sees a cut packet, the end):
 * TRIG (0xd9), CFE (02 13), EVD (02 53), BBP (02 63), BEP (02 33, 02 b3). */
static int known_later_cut(const struct pt_config *config,
                           struct pt_packet_decoder *dec)
{
	uint64_t off;
	const uint8_t *p;

	if (pt_pkt_get_offset(dec, &off) < 0 ||
	    off >= (uint64_t)(config->end - config->begin))
		return 0;
	p = config->begin + off;
	if (p[0] == 0xd9)
		return 1;
	if (p[0] != 0x02 || p + 1 >= config->end)
		return 0;
	return p[1] == 0x13 || p[1] == 0x53 || p[1] == 0x63 || p[1] == 0x33 ||
	       p[1] == 0xb3;
}

/* Whether @pkt is a timing packet libipt 2.0.5's time update rejects: a TMA
 * with no TSC since *@tsc was cleared, or a CBR of 0.  Notes a TSC in
 * *@tsc. */
static int known_bad_timing(const struct pt_packet *pkt, int *tsc)
{
	if (pkt->type == ppt_tsc)
		*tsc = 1;
	return (pkt->type == ppt_tma && !*tsc) ||
	       (pkt->type == ppt_cbr && !pkt->payload.cbr.ratio);
}

/* The packets libipt's SKD010 look-ahead after an OVF reads across on its
 * way to a packet that tells whether tracing is on (it applies the timing
 * ones). */
static int known_skd010_skips(enum pt_packet_type type)
{
	switch (type) {
	case ppt_pip:
	case ppt_vmcs:
	case ppt_mode:
	case ppt_pad:
	case ppt_mnt:
	case ppt_pwre:
	case ppt_pwrx:
	case ppt_tsc:
	case ppt_tma:
	case ppt_cbr:
	case ppt_mtc:
	case ppt_cyc:
		return 1;
	default:
		return 0;
	}
}

/* Walk the packets from @offset for @what: up to 64 of them for a later
 * libipt's packet, or for any packet libipt fails on; the packet there, or
 * the PSB+ of a PSB there, for a rejected timing packet; with erratum
 * SKD010 and an OVF that ends at @offset, those that libipt's look-ahead
 * for a FUP the overflow may have dropped reads, for a rejected timing
 * packet (which fails the OVF, at @offset). */
static int known_scan(const struct pt_config *config, uint64_t offset,
                      enum known_scan what)
{
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	int found = 0, in_psb = 0, tsc = 0;

	if (what == known_skd010_timing &&
	    (!config->errata.skd010 || offset < 2 ||
	     offset > (uint64_t)(config->end - config->begin) ||
	     config->begin[offset - 2] != 0x02 ||
	     config->begin[offset - 1] != 0xf3))
		return 0;
	dec = pt_pkt_alloc_decoder(config);
	if (!dec)
		return 0;
	if (pt_pkt_sync_set(dec, offset) == 0) {
		for (int i = 0; i < 64 && !found; ++i) {
			int err = pt_pkt_next(dec, &pkt, sizeof(pkt));

			if (err == -pte_eos && (what == known_later_packet ||
			                        what == known_failure_ahead))
				found = known_later_cut(config, dec);
			if (err < 0)
				break;
			switch (what) {
			case known_later_packet:
			case known_failure_ahead:
				found = pkt.type == ppt_trig ||
				        pkt.type == ppt_cfe ||
				        pkt.type == ppt_evd ||
				        pkt.type == ppt_bbp ||
				        pkt.type == ppt_bip ||
				        pkt.type == ppt_bep;
				if (what == known_later_packet || found)
					continue;
				if (pkt.type == ppt_psb)
					tsc = 0;
				else
					found = known_bad_timing(&pkt, &tsc);
				continue;
			case known_rejected_timing:
				found = known_bad_timing(&pkt, &tsc);
				if (i == 0 && pkt.type == ppt_psb)
					in_psb = 1;
				if (!in_psb || pkt.type == ppt_psbend)
					i = 64;
				continue;
			case known_skd010_timing:
				found = known_bad_timing(&pkt, &tsc);
				if (!known_skd010_skips(pkt.type))
					i = 64;
				continue;
			}
		}
	}
	pt_pkt_free_decoder(dec);
	return found;
}

int ptd_known_later_packet(const struct pt_config *config, uint64_t offset)
{
	return known_scan(config, offset, known_later_packet);
}

int ptd_known_rejected_timing(const struct pt_config *config, uint64_t offset)
{
	return known_scan(config, offset, known_rejected_timing) ||
	       known_scan(config, offset, known_skd010_timing);
}

int ptd_known_failure_ahead(const struct pt_config *config, uint64_t offset)
{
	return known_scan(config, offset, known_failure_ahead);
}

enum ptd_known_ild ptd_known_ild(const uint8_t *code, size_t size, int mode64)
{
	size_t p = 0;
	int rep = 0;

	for (; p < size; ++p) {
		uint8_t b = code[p];

		if (b == 0xf2 || b == 0xf3)
			rep = 1;
		else if (b != 0x66 && b != 0x67 && b != 0xf0 && b != 0x2e &&
		         b != 0x36 && b != 0x3e && b != 0x26 && b != 0x64 &&
		         b != 0x65)
			break;
	}
	if (mode64 && p < size && (code[p] & 0xf0) == 0x40)
		++p;
	if (p + 1 >= size)
		return ptd_kild_none;
	if (code[p] == 0x8f)
		return ((code[p + 1] >> 3) & 7) ? ptd_kild_xop : ptd_kild_none;
	if (code[p] != 0x0f)
		return ptd_kild_none;
	switch (code[p + 1]) {
	case 0xff:
	case 0xb9:
		return ptd_kild_ud0;
	case 0xa6:
	case 0xa7:
		return ptd_kild_via;
	case 0x01:
		return rep && p + 2 < size && code[p + 2] == 0xca
		               ? ptd_kild_eret
		               : ptd_kild_none;
	default:
		return ptd_kild_none;
	}
}

int ptd_known_unstamped(enum pt_event_type type)
{
	switch (type) {
	case ptev_exstop:
	case ptev_mwait:
	case ptev_pwre:
	case ptev_pwrx:
	case ptev_ptwrite:
	case ptev_async_vmcs:
		return 1;
	default:
		return 0;
	}
}
