/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the cmocka unit tests.
 *
 * Include after <cmocka.h> (and its prerequisites). */
#ifndef PTD_TEST_UTIL_H
#define PTD_TEST_UTIL_H

#include "ptdecode/ptdecode.h"

#include "pkt_equal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A deterministic pseudo-random sequence (xorshift64*) from the state *@s,
 * which must not be 0. */
static inline uint64_t ptd_t_rand64(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(0x2545f4914f6cdd1d);
}

/* The folder of the real traces: $PTD_CORPORA_DIR, or ../shared/corpora
 * next to the source tree (__FILE__ is .../tests/unit/<file>). */
static inline void ptd_t_corpora_dir(char *path, size_t size)
{
	const char *env = getenv("PTD_CORPORA_DIR"), *end;

	if (env && *env) {
		snprintf(path, size, "%s", env);
		return;
	}
	end = strstr(__FILE__, "/tests/unit/");
	if (!end || __FILE__[0] != '/') {
		snprintf(path, size, "../shared/corpora");
		return;
	}
	snprintf(path, size, "%.*s/../shared/corpora", (int)(end - __FILE__),
	         __FILE__);
}

/* Return a malloc'ed copy of the @size bytes at @src, allocated with exactly
 * @size bytes (at least one) so that AddressSanitizer flags any read past
 * the end. */
static inline uint8_t *ptd_t_dup(const void *src, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);

	assert_non_null(buf);
	if (size)
		memcpy(buf, src, size);
	return buf;
}

/* Allocate a packet decoder for [@buf, @buf + @size) with @errata (NULL for
 * none). */
static inline struct pt_packet_decoder *
ptd_t_decoder(uint8_t *buf, size_t size, const struct pt_errata *errata)
{
	struct pt_packet_decoder *decoder;
	struct pt_config config;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	if (errata)
		config.errata = *errata;
	decoder = pt_pkt_alloc_decoder(&config);
	assert_non_null(decoder);
	return decoder;
}

/* Allocate an encoder for [@buf, @buf + @size). */
static inline struct pt_encoder *ptd_t_encoder(uint8_t *buf, size_t size)
{
	struct pt_encoder *encoder;
	struct pt_config config;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	encoder = pt_alloc_encoder(&config);
	assert_non_null(encoder);
	return encoder;
}

/* Encode @n packets into @buf of @size bytes; return the number of bytes
 * written.  Every packet must encode. */
static inline size_t ptd_t_encode(uint8_t *buf, size_t size,
                                  const struct pt_packet *packets, size_t n)
{
	struct pt_encoder *encoder = ptd_t_encoder(buf, size);
	uint64_t offset = 0;
	size_t i;

	for (i = 0; i < n; ++i) {
		int errcode = pt_enc_next(encoder, &packets[i]);

		if (errcode <= 0)
			fail_msg("packet %zu (%s) did not encode: %d", i,
			         ptd_packet_type_name(packets[i].type),
			         errcode);
	}
	assert_int_equal(pt_enc_get_offset(encoder, &offset), 0);
	pt_free_encoder(encoder);
	return (size_t)offset;
}

/* A trace under construction: packets appended with ptd_t_add() and its
 * variants, then encoded into @buf with ptd_t_trace_encode(). */
struct ptd_t_trace {
	struct pt_packet packets[64];
	size_t n;
	uint8_t buf[1024];
	size_t size;
};

/* Append a packet of @type with a zeroed payload to @t; returns it for the
 * caller to fill in. */
static inline struct pt_packet *ptd_t_add(struct ptd_t_trace *t,
                                          enum pt_packet_type type)
{
	struct pt_packet *p;

	assert_true(t->n < sizeof(t->packets) / sizeof(t->packets[0]));
	p = &t->packets[t->n++];
	memset(p, 0, sizeof(*p));
	p->type = type;
	return p;
}

/* Append an IP packet (TIP, TIP.PGE, TIP.PGD or FUP). */
static inline void ptd_t_add_ip(struct ptd_t_trace *t, enum pt_packet_type type,
                                enum pt_ip_compression ipc, uint64_t ip)
{
	struct pt_packet *p = ptd_t_add(t, type);

	p->payload.ip.ipc = ipc;
	p->payload.ip.ip = ip;
}

/* Append a TNT-8 or TNT-64 packet of @size outcomes @bits. */
static inline void ptd_t_add_tnt(struct ptd_t_trace *t,
                                 enum pt_packet_type type, uint8_t size,
                                 uint64_t bits)
{
	struct pt_packet *p = ptd_t_add(t, type);

	p->payload.tnt.bit_size = size;
	p->payload.tnt.payload = bits;
}

/* Append a TSC packet. */
static inline void ptd_t_add_tsc(struct ptd_t_trace *t, uint64_t tsc)
{
	ptd_t_add(t, ppt_tsc)->payload.tsc.tsc = tsc;
}

/* Encode @t's packets into t->buf and set t->size. */
static inline void ptd_t_trace_encode(struct ptd_t_trace *t)
{
	t->size = ptd_t_encode(t->buf, sizeof(t->buf), t->packets, t->n);
}

/* Assert that @actual equals @expected; name the differing field. */
static inline void ptd_t_assert_packet(const struct pt_packet *actual,
                                       const struct pt_packet *expected)
{
	const char *diff = ptd_pkt_diff(actual, expected);

	if (diff)
		fail_msg("packet differs in %s: got %s/%u, expected %s/%u",
		         diff, ptd_packet_type_name(actual->type), actual->size,
		         ptd_packet_type_name(expected->type), expected->size);
}

/* The next @n packets from @decoder are one-byte PADs, and then the trace
 * ends. */
static inline void ptd_t_expect_pads(struct pt_packet_decoder *decoder,
                                     size_t n)
{
	struct pt_packet packet;
	size_t i;

	for (i = 0; i < n; ++i) {
		assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
		                 1);
		assert_int_equal(packet.type, ppt_pad);
	}
	assert_int_equal(pt_pkt_next(decoder, &packet, sizeof(packet)),
	                 -pte_eos);
}

/* A packet of @type with a zeroed payload. */
static inline struct pt_packet ptd_t_packet(enum pt_packet_type type)
{
	struct pt_packet packet;

	memset(&packet, 0, sizeof(packet));
	packet.type = type;
	return packet;
}

/* Apply the command line's test selection: "PATTERN" runs only the tests
 * whose names match PATTERN, "--skip PATTERN" runs all others.  Call before
 * cmocka_run_group_tests(). */
static inline void ptd_t_filters(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "--skip") == 0)
		cmocka_set_skip_filter(argv[2]);
	else if (argc > 1)
		cmocka_set_test_filter(argv[1]);
}

#endif /* PTD_TEST_UTIL_H */
