/* SPDX-License-Identifier: BSD-3-Clause */
/* Finding PSB packets, the synchronization points of an Intel PT stream. */
#ifndef PTD_PKT_SYNC_H
#define PTD_PKT_SYNC_H

#include <stdint.h>

/* Return the first PSB that starts at or after @from in [@begin, @end), or
 * NULL if there is none.  A PSB is the 16-byte pattern 02 82 repeated. */
const uint8_t *ptd_sync_forward(const uint8_t *from, const uint8_t *begin,
                                const uint8_t *end);

/* Return the last PSB that starts before @before in [@begin, @end), or NULL
 * if there is none. */
const uint8_t *ptd_sync_backward(const uint8_t *before, const uint8_t *begin,
                                 const uint8_t *end);

#endif /* PTD_PKT_SYNC_H */
