/* SPDX-License-Identifier: BSD-3-Clause */
/* What the sideband fuzz targets (fuzz_sideband.c, fuzz_ptxed_sb.c) share:
 * little-endian numbers of the input's header, and sideband files made in
 * memory from the input's bytes, as ptd_sb_option() would load them. */
#ifndef PTD_FUZZ_SB_INPUT_H
#define PTD_FUZZ_SB_INPUT_H

#include "fuzz_common.h"
#include "sb.h"

#include <stddef.h>
#include <stdint.h>

static inline uint64_t fuzz_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; --i)
		v = v << 8 | p[i];
	return v;
}

/* Give @s @nfiles files of the @size bytes at @data with @s's settings:
 * the first nfiles - 1 get @parts of @den of the bytes, split evenly, the
 * last the rest; file i is primary if bit i of @primary is set. */
static inline void fuzz_sb_files(struct ptd_sb_session *s, const uint8_t *data,
                                 size_t size, size_t nfiles, unsigned parts,
                                 unsigned den, unsigned primary)
{
	size_t at = 0;

	s->channels = fuzz_alloc(nfiles * sizeof(*s->channels));
	s->cap_channels = nfiles;
	for (size_t i = 0; i < nfiles; ++i) {
		struct ptd_sb_channel *ch = fuzz_alloc(sizeof(*ch));
		size_t n = (i + 1 == nfiles) ? size - at
		                             : size * parts / den / nfiles;

		if (n > size - at)
			n = size - at;
		memset(ch, 0, sizeof(*ch));
		ch->name = fuzz_alloc(8);
		snprintf(ch->name, 8, "f%zu", i);
		ch->buf = fuzz_alloc(n);
		memcpy(ch->buf, data + at, n);
		ch->size = n;
		ch->config = s->config;
		/* (Each file has its own copy of the sample types by
		 * identifier, as ptd_sb_option() gives it.) */
		ch->config.pevent.by_id = NULL;
		ch->config.pevent.nby_id = 0;
		if (s->nids) {
			struct ptd_pevent_sample_config *ids =
			        fuzz_alloc(s->nids * sizeof(*ids));

			memcpy(ids, s->ids, s->nids * sizeof(*ids));
			ch->config.pevent.by_id = ids;
			ch->config.pevent.nby_id = s->nids;
		}
		ch->primary = (int)((primary >> i) & 1);
		s->channels[s->num_channels++] = ch;
		at += n;
	}
}

#endif /* PTD_FUZZ_SB_INPUT_H */
