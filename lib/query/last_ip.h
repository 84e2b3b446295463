/* SPDX-License-Identifier: BSD-3-Clause */
/* The last IP: decompression of the IP payloads of TIP, TIP.PGE, TIP.PGD and
 * FUP packets (Intel SDM 33.4.2.2, "IP Compression"). */
#ifndef PTD_QRY_LAST_IP_H
#define PTD_QRY_LAST_IP_H

#include "ptdecode/intel-pt.h"

#include <stdint.h>

struct ptd_last_ip {
	/* The last IP, complete. */
	uint64_t ip;
	/* An IP packet with a payload was seen since the last reset. */
	uint32_t have_ip : 1;
	/* The last IP packet had its IP suppressed. */
	uint32_t suppressed : 1;
};

/* Forget the last IP (at PSB and on synchronization). */
static inline void ptd_last_ip_init(struct ptd_last_ip *last)
{
	last->ip = 0;
	last->have_ip = 0;
	last->suppressed = 0;
}

/* Apply an IP packet's payload.  Returns 0, or -pte_bad_packet for a
 * reserved IP compression.  Inline: the batch decoder's loop runs it for
 * every TIP. */
static inline int ptd_last_ip_update(struct ptd_last_ip *last,
                                     const struct pt_packet_ip *packet)
{
	uint64_t payload = packet->ip;

	switch (packet->ipc) {
	case pt_ipc_suppressed:
		last->suppressed = 1;
		return 0;
	case pt_ipc_update_16:
		last->ip = (last->ip & ~UINT64_C(0xffff)) | (payload & 0xffff);
		break;
	case pt_ipc_update_32:
		last->ip = (last->ip & ~UINT64_C(0xffffffff)) |
		           (payload & 0xffffffff);
		break;
	case pt_ipc_update_48:
		last->ip = (last->ip & ~UINT64_C(0xffffffffffff)) |
		           (payload & UINT64_C(0xffffffffffff));
		break;
	case pt_ipc_sext_48:
		payload &= UINT64_C(0xffffffffffff);
		if (payload & (UINT64_C(1) << 47))
			payload |= ~UINT64_C(0xffffffffffff);
		last->ip = payload;
		break;
	case pt_ipc_full:
		last->ip = payload;
		break;
	default:
		return -pte_bad_packet;
	}
	last->have_ip = 1;
	last->suppressed = 0;
	return 0;
}

/* Store the last IP in @ip (if not NULL).  Returns 0, -pte_noip if no IP
 * was seen since the last reset, or -pte_ip_suppressed if the last IP
 * packet suppressed it. */
static inline int ptd_last_ip_query(uint64_t *ip,
                                    const struct ptd_last_ip *last)
{
	if (!last->have_ip)
		return -pte_noip;
	if (last->suppressed)
		return -pte_ip_suppressed;
	if (ip)
		*ip = last->ip;
	return 0;
}

#endif /* PTD_QRY_LAST_IP_H */
