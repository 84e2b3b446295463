/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: perf_event sideband records (ptd_pevent_read(),
 * lib/perf/pevent.c) and the tools' sideband files merged in time order
 * and printed (tools/common/sb_session.c, sb_print.c), on arbitrary bytes.
 *
 * Input: a 24-byte header, then the files' bytes.
 *   byte 0        the --sb print flags (enum ptd_sb_print, bits 0-4)
 *   byte 1        how many files (1 + bits 1:0) and where the bytes split
 *                 (bits 7:2: the first file gets that many 64ths)
 *   bytes 2-9     the sample type (little-endian)
 *   bytes 10-17   the tsc offset
 *   byte 18       time_shift (modulo 64), byte 19 time_mult (0 allowed),
 *   bytes 20-23   time_zero's low 32 bits
 *   (bit 63 of the sample type: records that end in that time_zero as
 *   their identifier have every sample field, --pevent:sample-config)
 *
 * Checks: no crash or sanitizer report; ptd_pevent_read() never reads past
 * its record or returns a size beyond the bytes left; the session hands out
 * each file's records in file order, each once, and only those due at the
 * time asked for; after the time UINT64_MAX no file has a record left. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_sb_input.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_SB_HEADER = 24, FUZZ_SB_MAX_FILES = 4 };

/* What the session handed out so far. */
struct fuzz_sb_seen {
	/* The time asked for. */
	uint64_t now;
	/* Per file: the offset after its last record, and how many. */
	size_t next[FUZZ_SB_MAX_FILES];
	size_t count[FUZZ_SB_MAX_FILES];
	struct ptd_sb_session *s;
};

static size_t fuzz_sb_index(const struct ptd_sb_session *s,
                            const struct ptd_sb_channel *ch)
{
	for (size_t i = 0; i < s->num_channels; ++i)
		if (s->channels[i] == ch)
			return i;
	FUZZ_CHECK(0, "a record of no file");
	return 0;
}

static void fuzz_sb_apply(struct ptd_sb_channel *ch, void *ctx)
{
	struct fuzz_sb_seen *seen = ctx;
	size_t i = fuzz_sb_index(seen->s, ch);

	FUZZ_CHECK(ch->due <= seen->now,
	           "record due at %llx handed out at %llx",
	           (unsigned long long)ch->due, (unsigned long long)seen->now);
	FUZZ_CHECK(ch->pos == seen->next[i],
	           "file %zu: record at %zx, expected at %zx", i, ch->pos,
	           seen->next[i]);
	FUZZ_CHECK(ch->rec.size >= 8 && ch->rec.size <= ch->size - ch->pos,
	           "record size %u at %zx of %zu bytes", ch->rec.size, ch->pos,
	           ch->size);
	seen->next[i] = ch->pos + ch->rec.size;
	seen->count[i] += 1;
}

/* ptd_pevent_read() over @size bytes: every size it returns lies inside
 * them. */
static void fuzz_pevent_walk(const uint8_t *buf, size_t size,
                             const struct ptd_pevent_config *config)
{
	size_t at = 0;

	for (;;) {
		struct ptd_pevent_record rec;
		int n = ptd_pevent_read(&rec, buf + at, buf + size, config);

		if (n <= 0) {
			FUZZ_CHECK(n != -pte_eos || at == size,
			           "-pte_eos at %zx of %zu", at, size);
			return;
		}
		FUZZ_CHECK((size_t)n <= size - at && n >= 8,
		           "size %d at %zx of %zu", n, at, size);
		if (rec.type == ptd_pevent_mmap || rec.type == ptd_pevent_mmap2)
			FUZZ_CHECK((const uint8_t *)rec.u.mmap.filename.str +
			                           rec.u.mmap.filename.len <=
			                   buf + at + (size_t)n,
			           "file name beyond its record at %zx", at);
		at += (size_t)n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptd_sb_session s;
	struct fuzz_sb_seen seen;
	size_t nfiles, at = FUZZ_SB_HEADER;
	FILE *out;

	if (size < FUZZ_SB_HEADER)
		return 0;
	ptd_sb_init(&s);
	out = fopen("/dev/null", "w");
	FUZZ_CHECK(out != NULL, "cannot open /dev/null");
	s.out = out;
	s.print = data[0] & 0x1f;

	s.config.pevent.sample_type = fuzz_le64(data + 2);
	s.config.tsc_offset = fuzz_le64(data + 10);
	s.config.pevent.tc.time_shift = (uint16_t)(data[18] & 63);
	s.config.pevent.tc.time_mult = data[19];
	s.config.pevent.tc.time_zero =
	        (uint64_t)data[20] | (uint64_t)data[21] << 8 |
	        (uint64_t)data[22] << 16 | (uint64_t)data[23] << 24;

	/* Bit 63 of the sample type: records that end in the identifier
	 * time_zero have every sample field (--pevent:sample-config). */
	if (s.config.pevent.sample_type >> 63) {
		struct ptd_pevent_sample_config *e = fuzz_alloc(sizeof(*e));

		e->identifier = s.config.pevent.tc.time_zero;
		e->sample_type = UINT64_C(0x102c6);
		s.ids = e;
		s.nids = 1;
		s.cap_ids = 1;
		s.config.pevent.by_id = e;
		s.config.pevent.nby_id = 1;
	}

	fuzz_pevent_walk(data + at, size - at, &s.config.pevent);

	/* The files (odd ones primary, which the session does not mind). */
	nfiles = 1 + (data[1] & 3);
	fuzz_sb_files(&s, data + at, size - at, nfiles, data[1] >> 2, 64, 0xa);

	memset(&seen, 0, sizeof(seen));
	seen.s = &s;
	ptd_sb_start(&s);
	for (unsigned shift = 0; shift < 64; shift += 8) {
		seen.now = (UINT64_C(1) << shift) - 1;
		ptd_sb_due(&s, seen.now, fuzz_sb_apply, &seen);
	}
	seen.now = UINT64_MAX;
	ptd_sb_due(&s, seen.now, fuzz_sb_apply, &seen);
	FUZZ_CHECK(s.active == NULL, "records left after the time UINT64_MAX");

	ptd_sb_fini(&s);
	fclose(out);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
