/* SPDX-License-Identifier: BSD-3-Clause */
/* The packet decoder object, shared with the layers built on top of it. */
#ifndef PTD_PKT_DECODER_H
#define PTD_PKT_DECODER_H

#include "ptdecode/intel-pt.h"

#include "pkt_decode.h"

struct pt_packet_decoder {
	/* Our copy of the user's configuration. */
	struct pt_config config;

	/* The next packet; NULL while not synchronized. */
	const uint8_t *pos;

	/* The last synchronization point; NULL while not synchronized. */
	const uint8_t *sync;

	/* Decoding state carried from packet to packet. */
	struct ptd_pkt_state state;

	/* Whether ptd_pkt_next_batch() uses its AVX2 loop (pkt_batch.h);
	 * set where the CPU has AVX2, cleared by tests of the portable
	 * loop. */
	int avx2;
};

/* Initialize @decoder for @config; see pt_pkt_alloc_decoder(). */
int ptd_pkt_decoder_init(struct pt_packet_decoder *decoder,
                         const struct pt_config *config);

#endif /* PTD_PKT_DECODER_H */
