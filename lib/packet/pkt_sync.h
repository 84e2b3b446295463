/* SPDX-License-Identifier: BSD-3-Clause */
/* Finding PSB packets, the synchronization points of an Intel PT stream. */
#ifndef PTD_PKT_SYNC_H
#define PTD_PKT_SYNC_H

#include <stdint.h>

/* Return the first PSB that starts at or after @from in [@begin, @end), or
 * NULL if there is none.  A PSB is the 16-byte pattern 02 82 repeated. */
const uint8_t *ptd_sync_forward(const uint8_t *from, const uint8_t *begin,
                                const uint8_t *end);

/* The PSB that a decoder at @pos, synchronized at @sync (NULL: never), goes
 * on at when it synchronizes forward: past @sync if it stands there, and
 * up to 15 bytes back from @pos, since a PSB may have been partly consumed
 * by a packet decoded from garbage (as libipt does it).  NULL if none. */
const uint8_t *ptd_sync_next(const uint8_t *pos, const uint8_t *sync,
                             const uint8_t *begin, const uint8_t *end);

/* Return the last PSB that starts before @before in [@begin, @end), or NULL
 * if there is none. */
const uint8_t *ptd_sync_backward(const uint8_t *before, const uint8_t *begin,
                                 const uint8_t *end);

#endif /* PTD_PKT_SYNC_H */
