/* SPDX-License-Identifier: BSD-3-Clause */
/* Little-endian fields of files and saved state (perf.data, page dumps,
 * the XSAVE trace state), read byte by byte so that any alignment works.
 * (Packets have their own reader, lib/packet/pkt_decode.h's ptd_pkt_le().) */
#ifndef PTD_COMMON_LE_H
#define PTD_COMMON_LE_H

#include <stdint.h>

static inline uint32_t ptd_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t ptd_le64(const uint8_t *p)
{
	return (uint64_t)ptd_le32(p) | (uint64_t)ptd_le32(p + 4) << 32;
}

#endif /* PTD_COMMON_LE_H */
