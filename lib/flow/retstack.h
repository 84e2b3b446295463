/* SPDX-License-Identifier: BSD-3-Clause */
/* The return stack of return compression: the addresses after the last 64
 * near calls, as the processor keeps them (Intel SDM, "Indirect Transfer
 * Compression for Returns").  When it is full, a call forgets the oldest
 * entry; a compressed return with no entry left is a decode error. */
#ifndef PTD_FLOW_RETSTACK_H
#define PTD_FLOW_RETSTACK_H

#include "ptdecode/intel-pt.h"

#include <stdint.h>

enum { ptd_retstack_size = 64 };

struct ptd_retstack {
	/* A ring of return addresses; @top is the next free slot, @count
	 * the number of valid entries below it. */
	uint64_t addr[ptd_retstack_size];
	uint8_t top;
	uint8_t count;
};

static inline void ptd_retstack_init(struct ptd_retstack *rs)
{
	rs->top = 0;
	rs->count = 0;
}

static inline void ptd_retstack_push(struct ptd_retstack *rs, uint64_t addr)
{
	rs->addr[rs->top] = addr;
	rs->top = (uint8_t)((rs->top + 1) % ptd_retstack_size);
	if (rs->count < ptd_retstack_size)
		rs->count++;
}

/* Pop the newest address into @addr: 0, or -pte_retstack_empty. */
static inline int ptd_retstack_pop(struct ptd_retstack *rs, uint64_t *addr)
{
	if (!rs->count)
		return -pte_retstack_empty;
	rs->top = (uint8_t)((rs->top + ptd_retstack_size - 1) %
	                    ptd_retstack_size);
	rs->count--;
	*addr = rs->addr[rs->top];
	return 0;
}

#endif /* PTD_FLOW_RETSTACK_H */
