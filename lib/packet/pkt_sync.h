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

/* Whether the two bytes at @pos (before @end) are a PSB's opcode, 02 82. */
int ptd_sync_opcode_at(const uint8_t *pos, const uint8_t *end);

/* Whether a PSB starts at @pos in [@pos, @end), as libipt's
 * pt_qry_sync_set() checks it: 0 if one does, -pte_nosync if the bytes
 * there are not a PSB's opcode (02 82), -pte_eos if fewer than two bytes
 * are left or the end cuts the PSB off, -pte_bad_packet if the pattern
 * breaks off. */
int ptd_sync_at(const uint8_t *pos, const uint8_t *end);

#endif /* PTD_PKT_SYNC_H */
