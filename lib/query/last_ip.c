/* SPDX-License-Identifier: BSD-3-Clause */
/* IP decompression. */
#include "last_ip.h"

int ptd_last_ip_update(struct ptd_last_ip *last,
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
