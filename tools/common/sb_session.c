/* SPDX-License-Identifier: BSD-3-Clause */
/* Sideband records in time order across files; see sb.h. */
#include "sb.h"

#include <string.h>

/* The record's TSC less the tsc offset, as libipt's tools take it: never
 * below 0 for an offset that is positive (below 2^63), wrapping for one
 * given as a negative number. */
static uint64_t sb_adjust(uint64_t tsc, uint64_t offset)
{
	if (offset <= tsc)
		return tsc - offset;
	if (offset < (UINT64_C(1) << 63))
		return 0;
	return tsc - offset;
}

/* Read @ch's record at @pos.  Returns 1 with the record, 0 at the end of
 * the file (fewer than 8 bytes left, a zero type, a record cut off by the
 * end: the end of a copied ring buffer), or a negative error code. */
static int sb_read(struct ptd_sb_channel *ch, size_t pos)
{
	const uint8_t *p = ch->buf + pos;
	size_t left = ch->size - pos;
	uint32_t type;
	uint16_t size;
	int err;

	ch->pos = pos;
	if (left < 8)
		return 0;
	type = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
	size = (uint16_t)(p[6] | p[7] << 8);
	if (!type || size > left)
		return 0;
	if (size < 8)
		return -pte_nosync;
	err = ptd_pevent_read(&ch->rec, p, p + size, &ch->config.pevent);
	if (err < 0)
		return err;
	ch->due = 0;
	if (ch->rec.sample.present & ptd_pevent_sample_time)
		ch->due = sb_adjust(ch->rec.sample.tsc, ch->config.tsc_offset);
	return 1;
}

/* Put @ch into the active list before the first channel due at the same
 * time or later. */
static void sb_insert(struct ptd_sb_session *s, struct ptd_sb_channel *ch)
{
	struct ptd_sb_channel **at = &s->active;

	while (*at && (*at)->due < ch->due)
		at = &(*at)->link;
	ch->link = *at;
	*at = ch;
}

/* After @ch's record: read its next one and put @ch where it belongs. */
static void sb_advance(struct ptd_sb_session *s, struct ptd_sb_channel *ch)
{
	int status = sb_read(ch, ch->pos + ch->rec.size);

	if (status > 0) {
		sb_insert(s, ch);
		return;
	}
	if (status < 0) {
		ptd_sb_error(s, ch, status);
		if (s->keep_retired) {
			ch->link = s->dropped;
			s->dropped = ch;
		}
		return;
	}
	if (s->keep_retired) {
		ch->link = s->retired;
		s->retired = ch;
	}
}

void ptd_sb_start(struct ptd_sb_session *s)
{
	s->active = NULL;
	s->retired = NULL;
	s->dropped = NULL;
	for (size_t i = s->num_channels; i-- > 0;) {
		struct ptd_sb_channel *ch = s->channels[i];
		int status = sb_read(ch, 0);

		if (status > 0)
			sb_insert(s, ch);
		else if (status < 0)
			ptd_sb_error(s, ch, status);
	}
}

void ptd_sb_due(struct ptd_sb_session *s, uint64_t time, ptd_sb_apply_fn *apply,
                void *ctx)
{
	while (s->active && s->active->due <= time) {
		struct ptd_sb_channel *ch = s->active;

		s->active = ch->link;
		ch->link = NULL;
		ptd_sb_print_record(s, ch);
		if (apply)
			apply(ch, ctx);
		sb_advance(s, ch);
	}
}
