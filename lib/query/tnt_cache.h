/* SPDX-License-Identifier: BSD-3-Clause */
/* The conditional branch outcomes of the current TNT-8 or TNT-64 packet,
 * consumed one by one, oldest first.  Both packet kinds feed the same cache,
 * so they form one stream of decisions. */
#ifndef PTD_QRY_TNT_CACHE_H
#define PTD_QRY_TNT_CACHE_H

#include "ptdecode/intel-pt.h"

#include <stdint.h>

struct ptd_tnt_cache {
	/* The outcomes, the oldest at the bit @mask selects. */
	uint64_t bits;
	/* The bit of the next outcome; 0 when the cache is empty. */
	uint64_t mask;
};

static inline void ptd_tnt_cache_init(struct ptd_tnt_cache *tnt)
{
	tnt->bits = 0;
	tnt->mask = 0;
}

static inline int ptd_tnt_cache_is_empty(const struct ptd_tnt_cache *tnt)
{
	return tnt->mask == 0;
}

/* Load the outcomes of a TNT packet.  Returns 0, -pte_bad_context if
 * outcomes are still cached, or -pte_bad_packet for an empty TNT. */
int ptd_tnt_cache_add(struct ptd_tnt_cache *tnt,
                      const struct pt_packet_tnt *packet);

/* Take the next outcome: 1 taken, 0 not taken, -pte_bad_query if the cache
 * is empty. */
static inline int ptd_tnt_cache_query(struct ptd_tnt_cache *tnt)
{
	int taken;

	if (!tnt->mask)
		return -pte_bad_query;
	taken = (tnt->bits & tnt->mask) != 0;
	tnt->mask >>= 1;
	return taken;
}

#endif /* PTD_QRY_TNT_CACHE_H */
