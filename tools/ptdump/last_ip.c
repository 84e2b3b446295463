/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: last-IP tracking for --lastip. */
#include "last_ip.h"

void ptdump_last_ip_init(struct ptdump_last_ip *last_ip)
{
	last_ip->ip = 0;
	last_ip->have_ip = 0;
	last_ip->suppressed = 0;
}

/* Replace the low @bits bits of @old by those of @payload. */
static uint64_t ptdump_ip_merge(uint64_t old, uint64_t payload, unsigned bits)
{
	uint64_t mask = (UINT64_C(1) << bits) - 1;

	return (old & ~mask) | (payload & mask);
}

/* Sign-extend @payload from bit 47. */
static uint64_t ptdump_ip_sext48(uint64_t payload)
{
	uint64_t low = payload & ((UINT64_C(1) << 48) - 1);

	return (low & (UINT64_C(1) << 47)) ? low | ~((UINT64_C(1) << 48) - 1)
	                                   : low;
}

int ptdump_last_ip_update(struct ptdump_last_ip *last_ip,
                          const struct pt_packet_ip *packet)
{
	uint64_t ip;

	switch (packet->ipc) {
	case pt_ipc_suppressed:
		last_ip->suppressed = 1;
		return 0;
	case pt_ipc_update_16:
		ip = ptdump_ip_merge(last_ip->ip, packet->ip, 16);
		break;
	case pt_ipc_update_32:
		ip = ptdump_ip_merge(last_ip->ip, packet->ip, 32);
		break;
	case pt_ipc_update_48:
		ip = ptdump_ip_merge(last_ip->ip, packet->ip, 48);
		break;
	case pt_ipc_sext_48:
		ip = ptdump_ip_sext48(packet->ip);
		break;
	case pt_ipc_full:
		ip = packet->ip;
		break;
	default:
		return -pte_bad_packet;
	}

	last_ip->ip = ip;
	last_ip->have_ip = 1;
	last_ip->suppressed = 0;
	return 0;
}

int ptdump_last_ip_query(const struct ptdump_last_ip *last_ip, uint64_t *ip)
{
	if (!last_ip->have_ip)
		return -pte_noip;
	if (last_ip->suppressed)
		return -pte_ip_suppressed;
	*ip = last_ip->ip;
	return 0;
}
