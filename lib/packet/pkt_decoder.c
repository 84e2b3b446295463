/* SPDX-License-Identifier: BSD-3-Clause */
/* The packet decoder: pt_pkt_* and ptd_pkt_next_batch(). */
#include "pkt_decoder.h"

#include "../common/config.h"
#include "pkt_batch.h"
#include "pkt_sync.h"
#include "ptdecode/ptdecode.h"

#include <stdlib.h>
#include <string.h>

int ptd_pkt_decoder_init(struct pt_packet_decoder *decoder,
                         const struct pt_config *config)
{
	if (!decoder || !config)
		return -pte_invalid;
	memset(decoder, 0, sizeof(*decoder));
#if PTD_PKT_BATCH_AVX2
	decoder->avx2 = ptd_pkt_batch_avx2_usable();
#endif
	return ptd_config_from_user(&decoder->config, config);
}

struct pt_packet_decoder *pt_pkt_alloc_decoder(const struct pt_config *config)
{
	struct pt_packet_decoder *decoder;

	decoder = malloc(sizeof(*decoder));
	if (!decoder)
		return NULL;
	if (ptd_pkt_decoder_init(decoder, config) < 0) {
		free(decoder);
		return NULL;
	}
	return decoder;
}

void pt_pkt_free_decoder(struct pt_packet_decoder *decoder)
{
	free(decoder);
}

static void ptd_pkt_set_sync(struct pt_packet_decoder *decoder,
                             const uint8_t *sync)
{
	decoder->sync = sync;
	decoder->pos = sync;
	decoder->state.bip_size = 0;
}

int pt_pkt_sync_forward(struct pt_packet_decoder *decoder)
{
	const uint8_t *begin, *pos, *sync;

	if (!decoder)
		return -pte_invalid;

	begin = decoder->config.begin;
	pos = decoder->pos ? decoder->pos : begin;
	sync = ptd_sync_next(pos, decoder->sync, begin, decoder->config.end);
	if (!sync)
		return -pte_eos;
	ptd_pkt_set_sync(decoder, sync);
	return 0;
}

int pt_pkt_sync_backward(struct pt_packet_decoder *decoder)
{
	const uint8_t *pos, *sync;

	if (!decoder)
		return -pte_invalid;

	pos = decoder->pos ? decoder->pos : decoder->config.end;
	sync = ptd_sync_backward(pos, decoder->config.begin,
	                         decoder->config.end);
	if (!sync)
		return -pte_eos;
	ptd_pkt_set_sync(decoder, sync);
	return 0;
}

int pt_pkt_sync_set(struct pt_packet_decoder *decoder, uint64_t offset)
{
	if (!decoder)
		return -pte_invalid;
	if (offset > (uint64_t)(decoder->config.end - decoder->config.begin))
		return -pte_eos;
	ptd_pkt_set_sync(decoder, decoder->config.begin + offset);
	return 0;
}

int pt_pkt_get_offset(const struct pt_packet_decoder *decoder, uint64_t *offset)
{
	if (!decoder || !offset)
		return -pte_invalid;
	if (!decoder->pos)
		return -pte_nosync;
	*offset = (uint64_t)(decoder->pos - decoder->config.begin);
	return 0;
}

int pt_pkt_get_sync_offset(const struct pt_packet_decoder *decoder,
                           uint64_t *offset)
{
	if (!decoder || !offset)
		return -pte_invalid;
	if (!decoder->sync)
		return -pte_nosync;
	*offset = (uint64_t)(decoder->sync - decoder->config.begin);
	return 0;
}

const struct pt_config *
pt_pkt_get_config(const struct pt_packet_decoder *decoder)
{
	return decoder ? &decoder->config : NULL;
}

int pt_pkt_next(struct pt_packet_decoder *decoder, struct pt_packet *packet,
                size_t size)
{
	struct pt_packet pkt;
	struct pt_packet *out;
	struct ptd_pkt_state state;
	int consumed;

	if (!decoder || !packet)
		return -pte_invalid;
	if (!decoder->pos)
		return -pte_nosync;

	/* Decode straight into the caller's packet when it is ours. */
	out = (size == sizeof(pkt)) ? packet : &pkt;
	state = decoder->state;
	consumed = ptd_pkt_decode(decoder->pos, decoder->config.end,
	                          &decoder->config, out, &state);
	if (consumed < 0)
		return consumed;

	decoder->pos += consumed;
	decoder->state = state;

	if (out != packet) {
		if (size > sizeof(pkt)) {
			memset((uint8_t *)packet + sizeof(pkt), 0,
			       size - sizeof(pkt));
			size = sizeof(pkt);
		}
		memcpy(packet, &pkt, size);
	}
	return out->size;
}

/* The portable inner loop of ptd_pkt_next_batch(), for the common case: at
 * least 16 bytes left and no PEBS block open.  Decodes packets into
 * b->packets from index b->n on while that holds, and returns the new
 * position.  Also finishes what the AVX2 loop leaves: the last few packets
 * of a call and the end of the buffer.
 *
 * PAD and TNT-8, the most frequent packets in real traces, get their own
 * branches: where they come in runs the branch predictor runs ahead of the
 * loop-carried dependency on packet sizes.  The other packets that the first
 * byte describes go through the branch-free table (ptd_pkt_decode_fast()),
 * the rest through the general decoder.  @want_offsets is a compile-time
 * constant at each call, so the compiler makes one copy of the loop with
 * offsets and one without. */
static inline const uint8_t *ptd_pkt_batch_fast(const uint8_t *pos,
                                                struct ptd_pkt_batch *b,
                                                int want_offsets)
{
	const uint8_t *const begin = b->begin, *const end = b->end;
	const uint8_t *limit = end - PTD_PS_MAX;
	struct pt_packet *const packets = b->packets;
	uint64_t *const offsets = b->offsets;
	const size_t count = b->count;
	size_t i = b->n;

	while (i < count && pos < limit) {
		struct pt_packet *pkt = &packets[i];
		uint8_t opc = *pos;
		int consumed;

		if (want_offsets)
			offsets[i] = (uint64_t)(pos - begin);

		if (opc == PTD_OPC_PAD) {
			pkt->type = ppt_pad;
			pkt->size = 1;
			++pos;
			++i;
			continue;
		}
		if (ptd_pkt_class[opc] == PKC_TNT8) {
			unsigned bits = 30u - (unsigned)__builtin_clz(opc);

			pkt->type = ppt_tnt_8;
			pkt->size = 1;
			pkt->payload.tnt.bit_size = (uint8_t)bits;
			pkt->payload.tnt.payload =
			        (uint64_t)((opc >> 1) & ~(1u << bits));
			++pos;
			++i;
			continue;
		}
		consumed = ptd_pkt_decode_fast(pos, pkt);
		if (!consumed) {
			consumed = ptd_pkt_decode(pos, end, b->config, pkt,
			                          b->state);
			if (consumed <= 0 || b->state->bip_size) {
				/* Errors and PEBS blocks: the general loop. */
				if (consumed > 0) {
					pos += consumed;
					++i;
				}
				break;
			}
		}
		pos += consumed;
		++i;
	}
	b->n = i;
	return pos;
}

int ptd_pkt_next_batch(struct pt_packet_decoder *decoder,
                       struct pt_packet *packets, size_t count,
                       uint64_t *offsets)
{
	const uint8_t *pos, *end;
	struct ptd_pkt_state state;
	struct ptd_pkt_batch b;

	if (!decoder || !packets || !count)
		return -pte_invalid;
	if (!decoder->pos)
		return -pte_nosync;
	if (count > INT32_MAX)
		count = INT32_MAX;

	pos = decoder->pos;
	end = decoder->config.end;
	state = decoder->state;
	b.begin = decoder->config.begin;
	b.end = end;
	b.config = &decoder->config;
	b.state = &state;
	b.packets = packets;
	b.offsets = offsets;
	b.count = count;
	b.n = 0;

	while (b.n < count && pos < end) {
		int consumed;

		if (!state.bip_size && end - pos > PTD_PS_MAX) {
			size_t before = b.n;

			b.stop = 0;
#if PTD_PKT_BATCH_AVX2
			if (decoder->avx2) {
				pos = ptd_pkt_batch_avx2(pos, &b);
				/* Where the SIMD loop stopped because its
				 * next step might not fit, return what it
				 * decoded rather than finish the call with
				 * the portable loop: the header allows up to
				 * PTD_PKT_BATCH_SHORT packets fewer. */
				if (b.n > before && !b.stop &&
				    count - b.n <= PTD_PKT_BATCH_SHORT)
					break;
			}
#endif
			if (!b.stop) {
				if (offsets)
					pos = ptd_pkt_batch_fast(pos, &b, 1);
				else
					pos = ptd_pkt_batch_fast(pos, &b, 0);
			}
			if (b.n != before && !b.stop)
				continue;
			if (b.n >= count)
				break;
		}

		/* Near the end of the buffer, in PEBS blocks, and at errors:
		 * one packet at a time. */
		consumed = ptd_pkt_decode(pos, end, &decoder->config,
		                          &packets[b.n], &state);
		if (consumed <= 0) {
			if (b.n == 0) {
				decoder->state = state;
				return consumed;
			}
			break;
		}
		if (offsets)
			offsets[b.n] = (uint64_t)(pos - b.begin);
		pos += consumed;
		++b.n;
	}

	decoder->pos = pos;
	decoder->state = state;
	if (b.n == 0)
		return -pte_eos;
	return (int)b.n;
}
