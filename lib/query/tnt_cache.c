/* SPDX-License-Identifier: BSD-3-Clause */
/* The TNT cache. */
#include "tnt_cache.h"

int ptd_tnt_cache_add(struct ptd_tnt_cache *tnt,
                      const struct pt_packet_tnt *packet)
{
	if (tnt->mask)
		return -pte_bad_context;
	if (!packet->bit_size || packet->bit_size > 64)
		return -pte_bad_packet;
	tnt->bits = packet->payload;
	tnt->mask = UINT64_C(1) << (packet->bit_size - 1);
	return 0;
}
