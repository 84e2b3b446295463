/* SPDX-License-Identifier: BSD-3-Clause */
/* The packet decoder: pt_pkt_* and ptd_pkt_next_batch(). */
#include "pkt_decoder.h"

#include "../common/config.h"
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
	if (pos == decoder->sync)
		pos += (decoder->config.end - pos < PTD_PS_PSB)
		               ? decoder->config.end - pos
		               : PTD_PS_PSB;

	/* Look a little back, too: a PSB may have been partly consumed by a
	 * preceding packet that was decoded from garbage. */
	pos -= (pos - begin < PTD_PS_PSB) ? pos - begin : PTD_PS_PSB - 1;

	sync = ptd_sync_forward(pos, begin, decoder->config.end);
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

int ptd_pkt_next_batch(struct pt_packet_decoder *decoder,
                       struct pt_packet *packets, size_t count,
                       uint64_t *offsets)
{
	const uint8_t *pos, *end, *begin;
	struct ptd_pkt_state state;
	size_t n;

	if (!decoder || !packets || !count)
		return -pte_invalid;
	if (!decoder->pos)
		return -pte_nosync;
	if (count > INT32_MAX)
		count = INT32_MAX;

	pos = decoder->pos;
	begin = decoder->config.begin;
	end = decoder->config.end;
	state = decoder->state;

	for (n = 0; n < count && pos < end; ++n) {
		struct pt_packet *pkt = &packets[n];
		int consumed;

		uint8_t opc = *pos;

		if (opc == PTD_OPC_PAD) {
			pkt->type = ppt_pad;
			pkt->size = 1;
			if (offsets)
				offsets[n] = (uint64_t)(pos - begin);
			++pos;
			continue;
		}
		if (ptd_pkt_class[opc] == PKC_TNT8 && !state.bip_size) {
			unsigned bits = 30u - (unsigned)__builtin_clz(opc);

			pkt->type = ppt_tnt_8;
			pkt->size = 1;
			pkt->payload.tnt.bit_size = (uint8_t)bits;
			pkt->payload.tnt.payload =
			        (uint64_t)((opc >> 1) & ~(1u << bits));
			if (offsets)
				offsets[n] = (uint64_t)(pos - begin);
			++pos;
			continue;
		}
		consumed =
		        ptd_pkt_decode(pos, end, &decoder->config, pkt, &state);
		if (consumed <= 0) {
			if (n == 0) {
				decoder->state = state;
				return consumed;
			}
			break;
		}
		if (offsets)
			offsets[n] = (uint64_t)(pos - begin);
		pos += consumed;
	}

	decoder->pos = pos;
	decoder->state = state;
	if (n == 0)
		return -pte_eos;
	return (int)n;
}
