/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the event decoder's API (pt_evt_*, libipt 2.1): arguments,
 * synchronization, offsets, the configuration and its flags, the size
 * argument of pt_evt_next(), errors and the end.  The event streams
 * themselves are tested with trace files (tests/traces, "expect events")
 * and against the query decoder on generated traces (tests/diff/diff_qry). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptdecode/ptdecode.h"

#include "test_util.h"

/* Two PSB segments: tracing on at 0x401000 with TSC 0x1000, two outcomes
 * and a TIP; the second PSB+ at 0x402000 with TSC 0x2000, one outcome, a
 * disable. */
static void add_psb(struct ptd_t_trace *t, uint64_t tsc, uint64_t ip)
{
	ptd_t_add(t, ppt_psb);
	ptd_t_add_tsc(t, tsc);
	ptd_t_add_ip(t, ppt_fup, pt_ipc_sext_48, ip);
	ptd_t_add(t, ppt_psbend);
}

static void two_segments(struct ptd_t_trace *t, size_t *psb2)
{
	memset(t, 0, sizeof(*t));
	add_psb(t, 0x1000, 0x401000);
	ptd_t_add_tnt(t, ppt_tnt_8, 2, 0x2);
	ptd_t_add_ip(t, ppt_tip, pt_ipc_update_16, 0x1234);
	*psb2 = t->n;
	add_psb(t, 0x2000, 0x402000);
	ptd_t_add_tnt(t, ppt_tnt_8, 1, 0x0);
	ptd_t_add_ip(t, ppt_tip_pgd, pt_ipc_suppressed, 0);
	ptd_t_trace_encode(t);
}

/* The offset of packet @k of @t. */
static uint64_t offset_of(const struct ptd_t_trace *t, size_t k)
{
	struct pt_packet_decoder *dec;
	uint64_t off = 0;
	size_t i;

	dec = ptd_t_decoder((uint8_t *)t->buf, t->size, NULL);
	assert_int_equal(pt_pkt_sync_set(dec, 0), 0);
	for (i = 0; i <= k; ++i) {
		struct pt_packet pkt;

		assert_int_equal(pt_pkt_get_offset(dec, &off), 0);
		assert_true(pt_pkt_next(dec, &pkt, sizeof(pkt)) > 0);
	}
	pt_pkt_free_decoder(dec);
	return off;
}

/* A configuration for the trace of @t. */
static void config_on(struct pt_config *config, struct ptd_t_trace *t)
{
	pt_config_init(config);
	config->begin = t->buf;
	config->end = t->buf + t->size;
}

static struct pt_event_decoder *alloc_on(struct ptd_t_trace *t)
{
	struct pt_event_decoder *dec;
	struct pt_config config;

	config_on(&config, t);
	dec = pt_evt_alloc_decoder(&config);
	assert_non_null(dec);
	return dec;
}

static void next_ok(struct pt_event_decoder *dec, struct pt_event *ev)
{
	memset(ev, 0xcc, sizeof(*ev));
	assert_int_equal(pt_evt_next(dec, ev, sizeof(*ev)), 0);
}

/* pt_evt_sync_backward() goes to the PSB at @off, whose PSB+ says that
 * tracing is on at @ip. */
static void expect_back(struct pt_event_decoder *dec, uint64_t off, uint64_t ip)
{
	struct pt_event ev;
	uint64_t got;

	assert_int_equal(pt_evt_sync_backward(dec), 0);
	assert_int_equal(pt_evt_get_sync_offset(dec, &got), 0);
	assert_int_equal(got, off);
	next_ok(dec, &ev);
	assert_int_equal(ev.type, ptev_enabled);
	assert_true(ev.variant.enabled.ip == ip);
}

static void test_arguments(void **state)
{
	struct pt_event_decoder *dec;
	struct ptd_t_trace t;
	struct pt_config config;
	struct pt_event ev;
	uint64_t off;
	size_t psb2;

	(void)state;
	two_segments(&t, &psb2);
	assert_null(pt_evt_alloc_decoder(NULL));
	pt_config_init(&config);
	config.begin = NULL; /* no buffer: not valid */
	config.end = t.buf + t.size;
	assert_null(pt_evt_alloc_decoder(&config));
	config.begin = t.buf + t.size;
	config.end = t.buf; /* the wrong way round */
	assert_null(pt_evt_alloc_decoder(&config));
	config.begin = t.buf;
	config.end = t.buf + t.size;
	config.size = offsetof(struct pt_config, begin); /* too small */
	assert_null(pt_evt_alloc_decoder(&config));
	pt_evt_free_decoder(NULL);

	dec = alloc_on(&t);
	assert_int_equal(pt_evt_sync_forward(NULL), -pte_invalid);
	assert_int_equal(pt_evt_sync_backward(NULL), -pte_invalid);
	assert_int_equal(pt_evt_sync_set(NULL, 0), -pte_invalid);
	assert_int_equal(pt_evt_get_offset(NULL, &off), -pte_invalid);
	assert_int_equal(pt_evt_get_offset(dec, NULL), -pte_invalid);
	assert_int_equal(pt_evt_get_sync_offset(NULL, &off), -pte_invalid);
	assert_int_equal(pt_evt_get_sync_offset(dec, NULL), -pte_invalid);
	assert_null(pt_evt_get_config(NULL));
	assert_int_equal(pt_evt_next(NULL, &ev, sizeof(ev)), -pte_invalid);
	assert_int_equal(pt_evt_next(dec, NULL, sizeof(ev)), -pte_invalid);
	assert_int_equal(
	        pt_evt_next(dec, &ev, offsetof(struct pt_event, variant) - 1),
	        -pte_invalid);

	/* Not synchronized yet. */
	assert_int_equal(pt_evt_next(dec, &ev, sizeof(ev)), -pte_nosync);
	assert_int_equal(pt_evt_get_offset(dec, &off), -pte_nosync);
	assert_int_equal(pt_evt_get_sync_offset(dec, &off), -pte_nosync);
	pt_evt_free_decoder(dec);
}

static void test_config(void **state)
{
	struct pt_event_decoder *dec;
	const struct pt_config *copy;
	struct ptd_t_trace t;
	struct pt_config config;
	size_t psb2;

	(void)state;
	two_segments(&t, &psb2);
	config_on(&config, &t);
	config.cpu.vendor = pcv_intel;
	config.cpu.family = 6;
	config.cpu.model = 0x3d;
	config.errata.bdm70 = 1;
	config.mtc_freq = 3;
	config.flags.variant.event.keep_tcal_on_ovf = 1;
	config.flags.variant.event.enable_iflags_events = 1;
	dec = pt_evt_alloc_decoder(&config);
	assert_non_null(dec);
	copy = pt_evt_get_config(dec);
	assert_non_null(copy);
	assert_ptr_equal(copy->begin, t.buf);
	assert_ptr_equal(copy->end, t.buf + t.size);
	assert_int_equal(copy->cpu.model, 0x3d);
	assert_int_equal(copy->errata.bdm70, 1);
	assert_int_equal(copy->mtc_freq, 3);
	assert_int_equal(copy->flags.variant.event.keep_tcal_on_ovf, 1);
	assert_int_equal(copy->flags.variant.event.enable_iflags_events, 1);
	pt_evt_free_decoder(dec);

	/* A configuration of an older, smaller size: the rest is zero. */
	config.size = offsetof(struct pt_config, flags);
	dec = pt_evt_alloc_decoder(&config);
	assert_non_null(dec);
	copy = pt_evt_get_config(dec);
	assert_int_equal(copy->flags.variant.event.keep_tcal_on_ovf, 0);
	assert_int_equal(copy->errata.bdm70, 1);
	pt_evt_free_decoder(dec);

	/* The smallest the query decoder takes: up to the decode callback
	 * (the flags cut in half are not read). */
	config.size = offsetof(struct pt_config, decode);
	dec = pt_evt_alloc_decoder(&config);
	assert_non_null(dec);
	copy = pt_evt_get_config(dec);
	assert_ptr_equal(copy->end, t.buf + t.size);
	assert_int_equal(copy->errata.bdm70, 0);
	assert_int_equal(copy->flags.variant.event.keep_tcal_on_ovf, 0);
	pt_evt_free_decoder(dec);
	config.size = offsetof(struct pt_config, decode) - 1;
	assert_null(pt_evt_alloc_decoder(&config));
}

static void test_stream_and_offsets(void **state)
{
	struct pt_event_decoder *dec;
	struct ptd_t_trace t;
	struct pt_event ev;
	uint64_t off;
	size_t psb2;

	(void)state;
	two_segments(&t, &psb2);
	dec = alloc_on(&t);
	assert_int_equal(pt_evt_sync_forward(dec), 0);
	assert_int_equal(pt_evt_get_sync_offset(dec, &off), 0);
	assert_int_equal(off, 0);

	next_ok(dec, &ev);
	assert_int_equal(ev.type, ptev_enabled);
	assert_int_equal(ev.status_update, 1);
	assert_int_equal(ev.ip_suppressed, 0);
	assert_true(ev.variant.enabled.ip == 0x401000);
	assert_int_equal(ev.has_tsc, 1);
	assert_true(ev.tsc == 0x1000);

	next_ok(dec, &ev);
	assert_int_equal(ev.type, ptev_tnt);
	assert_int_equal(ev.status_update, 0);
	assert_int_equal(ev.variant.tnt.size, 2);
	assert_true(ev.variant.tnt.bits == 0x2);
	assert_true(ev.tsc == 0x1000);

	next_ok(dec, &ev);
	assert_int_equal(ev.type, ptev_tip);
	assert_int_equal(ev.ip_suppressed, 0);
	assert_true(ev.variant.tip.ip == 0x401234);

	/* The second PSB+ says again that tracing is on, with its time. */
	next_ok(dec, &ev);
	assert_int_equal(ev.type, ptev_enabled);
	assert_int_equal(ev.status_update, 1);
	assert_true(ev.variant.enabled.ip == 0x402000);
	assert_true(ev.tsc == 0x2000);
	/* (The sync offset is the synchronization's, not the PSB passed.) */
	assert_int_equal(pt_evt_get_sync_offset(dec, &off), 0);
	assert_int_equal(off, 0);

	next_ok(dec, &ev);
	assert_int_equal(ev.type, ptev_tnt);
	assert_int_equal(ev.variant.tnt.size, 1);
	assert_true(ev.variant.tnt.bits == 0);

	next_ok(dec, &ev);
	assert_int_equal(ev.type, ptev_disabled);
	assert_int_equal(ev.status_update, 0);
	assert_int_equal(ev.ip_suppressed, 1);

	/* The end, again and again, until a synchronization. */
	assert_int_equal(pt_evt_next(dec, &ev, sizeof(ev)), -pte_eos);
	assert_int_equal(pt_evt_next(dec, &ev, sizeof(ev)), -pte_eos);
	assert_int_equal(pt_evt_get_offset(dec, &off), 0);
	assert_int_equal(off, t.size);
	assert_int_equal(pt_evt_sync_forward(dec), -pte_eos);
	assert_int_equal(pt_evt_next(dec, &ev, sizeof(ev)), -pte_nosync);

	/* sync_set to the second PSB, sync_backward from there to the
	 * first. */
	assert_int_equal(pt_evt_sync_set(dec, offset_of(&t, psb2)), 0);
	assert_int_equal(pt_evt_get_sync_offset(dec, &off), 0);
	assert_int_equal(off, offset_of(&t, psb2));
	next_ok(dec, &ev);
	assert_int_equal(ev.type, ptev_enabled);
	assert_true(ev.variant.enabled.ip == 0x402000);
	/* Backward from the PSB+ just read: the PSB before it (as
	 * pt_qry_sync_backward(), which does not stop at the PSB it has
	 * just read). */
	expect_back(dec, 0, 0x401000);

	/* Before the first PSB there is none: the end, and no
	 * synchronization (a loop that goes back PSB by PSB stops). */
	assert_int_equal(pt_evt_sync_backward(dec), -pte_eos);
	assert_int_equal(pt_evt_next(dec, &ev, sizeof(ev)), -pte_nosync);
	assert_int_equal(pt_evt_sync_backward(dec), -pte_eos);
	pt_evt_free_decoder(dec);

	/* A new decoder synchronizes backward onto the last PSB, then onto
	 * the first, then says the end. */
	dec = alloc_on(&t);
	expect_back(dec, offset_of(&t, psb2), 0x402000);
	expect_back(dec, 0, 0x401000);
	/* From inside a segment, backward goes to the segment's own PSB
	 * (as libipt 2.1's, which goes to the last PSB before the packet it
	 * is at). */
	next_ok(dec, &ev);
	assert_int_equal(ev.type, ptev_tnt);
	assert_int_equal(ev.variant.tnt.size, 2);
	expect_back(dec, 0, 0x401000);
	assert_int_equal(pt_evt_sync_backward(dec), -pte_eos);

	/* Where no PSB starts. */
	assert_int_equal(pt_evt_sync_set(dec, 1), -pte_nosync);
	assert_int_equal(pt_evt_next(dec, &ev, sizeof(ev)), -pte_nosync);
	assert_int_equal(pt_evt_sync_set(dec, t.size + 1), -pte_eos);
	pt_evt_free_decoder(dec);
}

/* pt_evt_next() writes no more than @size bytes. */
static void test_size(void **state)
{
	struct pt_event_decoder *dec;
	struct ptd_t_trace t;
	unsigned char raw[sizeof(struct pt_event) + 16];
	const size_t head = offsetof(struct pt_event, variant);
	struct pt_event ev;
	size_t psb2, i;

	(void)state;
	two_segments(&t, &psb2);
	dec = alloc_on(&t);
	assert_int_equal(pt_evt_sync_forward(dec), 0);
	memset(raw, 0xcc, sizeof(raw));
	assert_int_equal(pt_evt_next(dec, (struct pt_event *)(void *)raw, head),
	                 0);
	memcpy(&ev, raw, head);
	assert_int_equal(ev.type, ptev_enabled);
	assert_int_equal(ev.status_update, 1);
	for (i = head; i < sizeof(raw); ++i)
		assert_int_equal(raw[i], 0xcc);

	/* A larger structure (a newer caller): ours, and zeros for the
	 * fields we do not know, and nothing beyond @size. */
	memset(raw, 0xcc, sizeof(raw));
	assert_int_equal(pt_evt_next(dec, (struct pt_event *)(void *)raw,
	                             sizeof(raw) - 8),
	                 0);
	memcpy(&ev, raw, sizeof(ev));
	assert_int_equal(ev.type, ptev_tnt);
	for (i = sizeof(ev); i < sizeof(raw) - 8; ++i)
		assert_int_equal(raw[i], 0);
	for (; i < sizeof(raw); ++i)
		assert_int_equal(raw[i], 0xcc);
	pt_evt_free_decoder(dec);
}

/* A decode error is returned with its offset until the next
 * synchronization, which goes on at the next PSB. */
static void test_error(void **state)
{
	struct pt_event_decoder *dec;
	struct ptd_t_trace t;
	struct pt_event ev;
	uint64_t off, bad, sync2;
	size_t psb2;

	(void)state;
	two_segments(&t, &psb2);
	sync2 = offset_of(&t, psb2);
	/* An unknown opcode (0xc9) instead of the TIP's: reading ahead from
	 * the TNT runs into it, so the TNT's outcomes are lost with it, as
	 * with pt_qry_cond_branch() (tests/traces/qry-bad-opcode.pta). */
	bad = offset_of(&t, psb2 - 1);
	t.buf[bad] = 0xc9;
	dec = alloc_on(&t);
	assert_int_equal(pt_evt_sync_forward(dec), 0);
	next_ok(dec, &ev);
	assert_int_equal(ev.type, ptev_enabled);
	assert_int_equal(pt_evt_next(dec, &ev, sizeof(ev)), -pte_bad_opc);
	assert_int_equal(pt_evt_get_offset(dec, &off), 0);
	assert_int_equal(off, bad);
	/* The error stays until a synchronization. */
	assert_int_equal(pt_evt_next(dec, &ev, sizeof(ev)), -pte_bad_opc);
	assert_int_equal(pt_evt_sync_forward(dec), 0);
	assert_int_equal(pt_evt_get_sync_offset(dec, &off), 0);
	assert_int_equal(off, sync2);
	next_ok(dec, &ev);
	assert_int_equal(ev.type, ptev_enabled);
	assert_true(ev.variant.enabled.ip == 0x402000);
	pt_evt_free_decoder(dec);
}

/* The query decoder reports no tracing status: the event decoder's is its
 * own. */
static void test_query_unchanged(void **state)
{
	struct pt_query_decoder *qry;
	struct ptd_t_trace t;
	struct pt_config config;
	struct pt_event ev;
	uint64_t ip = 0;
	size_t psb2;
	int status;

	(void)state;
	two_segments(&t, &psb2);
	config_on(&config, &t);
	qry = pt_qry_alloc_decoder(&config);
	assert_non_null(qry);
	status = pt_qry_sync_forward(qry, &ip);
	assert_int_equal(status, 0);
	assert_true(ip == 0x401000);
	assert_int_equal(pt_qry_event(qry, &ev, sizeof(ev)), -pte_bad_query);
	pt_qry_free_decoder(qry);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_arguments),
	        cmocka_unit_test(test_config),
	        cmocka_unit_test(test_stream_and_offsets),
	        cmocka_unit_test(test_size),
	        cmocka_unit_test(test_error),
	        cmocka_unit_test(test_query_unchanged),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
