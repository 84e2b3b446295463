/* SPDX-License-Identifier: BSD-3-Clause */
/* Offsets for pt_*_sync_set() (sync_plan.h). */
#include "sync_plan.h"

#include <string.h>

enum { sync_plan_psbs = 64 };

int ptd_psb_at(const uint8_t *begin, const uint8_t *end, uint64_t offset)
{
	static const uint8_t psb[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	                                0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	                                0x02, 0x82, 0x02, 0x82};
	const uint64_t size = (uint64_t)(end - begin);

	return offset <= size && size - offset >= sizeof(psb) &&
	       !memcmp(begin + offset, psb, sizeof(psb));
}

size_t ptd_sync_plan(const uint8_t *begin, const uint8_t *end,
                     uint64_t *offsets, size_t max)
{
	const uint64_t size = (uint64_t)(end - begin);
	uint64_t psbs[sync_plan_psbs], x = size * 0x9e3779b97f4a7c15ull;
	size_t n = 0, npsb = 0, cap = max ? (max - 1) / 2 : 0;

	if (!max)
		return 0;
	if (cap > sync_plan_psbs)
		cap = sync_plan_psbs;
	for (uint64_t i = 0; i + 16 <= size && npsb < cap; ++i)
		if (ptd_psb_at(begin, end, i))
			psbs[npsb++] = i;
	while (npsb) {
		uint64_t at = psbs[--npsb];

		offsets[n++] = at;
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		offsets[n++] = (x >> 40) & 1 ? at + 1 + ((x >> 8) & 31)
		                             : (x >> 16) % (size ? size : 1);
	}
	offsets[n++] = size;
	return n;
}
