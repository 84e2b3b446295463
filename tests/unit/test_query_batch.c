/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of ptd_qry_next_batch(): items on small encoded traces (runs of
 * outcomes merged while their time stays, split where it changes, IPs,
 * events, an error and the resynchronization after it), the end of the
 * trace (announced, or inside a packet: an error item that tells which query
 * failed), a synchronization that fails, calls without room for events,
 * mixing with the pull API, and argument errors.  tests/diff/diff_qry.c and
 * bench/qry_bench.c compare the batch with the pull API result for result on
 * large traces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptdecode/ptdecode.h"

#include "test_util.h"

static void add_psb(struct ptd_t_trace *t, uint64_t tsc, uint64_t ip)
{
	ptd_t_add(t, ppt_psb);
	ptd_t_add_tsc(t, tsc);
	ptd_t_add_ip(t, ppt_fup, pt_ipc_full, ip);
	ptd_t_add(t, ppt_psbend);
}

static struct pt_query_decoder *decoder(struct ptd_t_trace *t)
{
	struct pt_config config;

	ptd_t_trace_encode(t);
	pt_config_init(&config);
	config.begin = t->buf;
	config.end = t->buf + t->size;
	return pt_qry_alloc_decoder(&config);
}

/* Two PSB segments: outcomes in two TNT packets at one time (one run), a
 * TSC that changes the time (a new run), TIP, TIP.PGD, TIP.PGE, a TNT, a
 * bad opcode, and the next PSB. */
static void test_items(void **state)
{
	struct ptd_qry_item items[32];
	struct pt_event events[8];
	struct pt_query_decoder *dec;
	struct ptd_t_trace t = {0};
	size_t i = 0;
	int n;

	(void)state;
	add_psb(&t, 0x1000, 0x401000);
	ptd_t_add_tnt(&t, ppt_tnt_8, 3, 0x5); /* 1 0 1 */
	ptd_t_add(&t, ppt_pad);
	ptd_t_add_tnt(&t, ppt_tnt_64, 40, UINT64_C(1) << 39);
	ptd_t_add_tsc(&t, 0x2000);
	ptd_t_add_tnt(&t, ppt_tnt_8, 2, 0x1); /* 0 1 */
	ptd_t_add_ip(&t, ppt_tip, pt_ipc_update_16, 0x2000);
	ptd_t_add_ip(&t, ppt_tip_pgd, pt_ipc_suppressed, 0);
	ptd_t_add_ip(&t, ppt_tip_pge, pt_ipc_update_16, 0x3000);
	ptd_t_add_tnt(&t, ppt_tnt_8, 1, 0x1);
	add_psb(&t, 0x5000, 0x405000);
	ptd_t_add_tnt(&t, ppt_tnt_8, 1, 0x0);
	dec = decoder(&t);
	assert_non_null(dec);
	/* Put bytes that are no packet (0x02 0xff) before the second PSB. */
	{
		struct pt_config config;
		size_t psb2 = 0;

		for (size_t k = 16; k + 16 <= t.size && !psb2; ++k)
			if (!memcmp(t.buf + k, t.buf, 16))
				psb2 = k;
		assert_true(psb2 != 0);
		memmove(t.buf + psb2 + 2, t.buf + psb2, t.size - psb2);
		t.buf[psb2] = 0x02;
		t.buf[psb2 + 1] = 0xff;
		t.size += 2;
		pt_qry_free_decoder(dec);
		pt_config_init(&config);
		config.begin = t.buf;
		config.end = t.buf + t.size;
		dec = pt_qry_alloc_decoder(&config);
		assert_non_null(dec);
	}

	n = ptd_qry_next_batch(dec, items, 32, events, 8);
	assert_true(n > 0);

	assert_int_equal(items[i].kind, ptd_qry_item_sync);
	assert_true(items[i].value == 0x401000);
	/* pt_qry_time() right after a sync: no time yet. */
	assert_int_equal(items[i].flags & ptd_qry_item_has_tsc, 0);
	i++;

	/* The PSB+'s pending events come first: none here (no MODE), so
	 * the outcomes: 3 + 40 at the TSC of the PSB+, one run. */
	assert_int_equal(items[i].kind, ptd_qry_item_tnt);
	assert_int_equal(items[i].count, 43);
	assert_true(items[i].value ==
	            ((UINT64_C(0x5) << 40) | (UINT64_C(1) << 39)));
	assert_true(items[i].flags & ptd_qry_item_has_tsc);
	assert_true(items[i].tsc == 0x1000);
	i++;

	/* The TSC changed the time: a new run. */
	assert_int_equal(items[i].kind, ptd_qry_item_tnt);
	assert_int_equal(items[i].count, 2);
	assert_true(items[i].value == 0x1);
	assert_true(items[i].tsc == 0x2000);
	i++;

	assert_int_equal(items[i].kind, ptd_qry_item_tip);
	assert_true(items[i].value == 0x402000);
	i++;

	assert_int_equal(items[i].kind, ptd_qry_item_event);
	assert_int_equal(events[items[i].value].type, ptev_disabled);
	assert_int_equal(events[items[i].value].ip_suppressed, 1);
	assert_true(events[items[i].value].tsc == 0x2000);
	i++;

	assert_int_equal(items[i].kind, ptd_qry_item_event);
	assert_int_equal(events[items[i].value].type, ptev_enabled);
	assert_true(events[items[i].value].variant.enabled.ip == 0x403000);
	assert_true(items[i].value == 1);
	i++;

	/* The bad opcode, at its offset, then the next PSB.  The outcome of
	 * the TNT before it is lost: the pull API's pt_qry_cond_branch()
	 * fails when its read-ahead does. */
	assert_int_equal(items[i].kind, ptd_qry_item_error);
	assert_int_equal(items[i].error, -pte_bad_opc);
	/* pt_qry_cond_branch() failed, after a status without flags. */
	assert_int_equal(items[i].flags & ~ptd_qry_item_has_tsc, 0);
	assert_true(t.buf[items[i].value] == 0x02 &&
	            t.buf[items[i].value + 1] == 0xff);
	i++;
	assert_int_equal(items[i].kind, ptd_qry_item_sync);
	assert_true(items[i].value == 0x405000);
	i++;
	assert_int_equal(items[i].kind, ptd_qry_item_tnt);
	assert_int_equal(items[i].count, 1);
	assert_true(items[i].value == 0);
	assert_true(items[i].tsc == 0x5000);
	i++;
	assert_int_equal(n, (int)i);

	/* The end, and it stays the end. */
	assert_int_equal(ptd_qry_next_batch(dec, items, 32, events, 8),
	                 -pte_eos);
	assert_int_equal(ptd_qry_next_batch(dec, items, 32, events, 8),
	                 -pte_eos);
	pt_qry_free_decoder(dec);
}

/* A decoder for @t without its last @cut bytes. */
static struct pt_query_decoder *decoder_cut(struct ptd_t_trace *t, size_t cut)
{
	struct pt_query_decoder *dec = decoder(t);
	struct pt_config config;

	assert_non_null(dec);
	pt_qry_free_decoder(dec);
	assert_true(cut < t->size);
	t->size -= cut;
	pt_config_init(&config);
	config.begin = t->buf;
	config.end = t->buf + t->size;
	return pt_qry_alloc_decoder(&config);
}

/* The items of @dec up to the end, in one call; returns their number. */
static int all_items(struct pt_query_decoder *dec, struct ptd_qry_item *items,
                     size_t nitems, struct pt_event *events)
{
	int n = ptd_qry_next_batch(dec, items, nitems, events, 8);

	assert_true(n > 0 && (size_t)n < nitems);
	assert_int_equal(
	        ptd_qry_next_batch(dec, items + n, nitems - n, events, 8),
	        -pte_eos);
	return n;
}

/* The end of the trace inside a packet: the query that meets it fails with
 * -pte_eos, an error item whose flags tell which query (and so the status
 * before it: no pts_eos there, unlike at the end that pts_eos announces,
 * which has no item). */
static void test_end_in_packet(void **state)
{
	struct ptd_qry_item items[16];
	struct pt_event events[8];
	struct pt_query_decoder *dec;
	int n;

	(void)state;
	/* A TNT-64 cut short: pt_qry_cond_branch() fails. */
	{
		struct ptd_t_trace t = {0};

		add_psb(&t, 0x1000, 0x401000);
		ptd_t_add_tnt(&t, ppt_tnt_8, 2, 0x2);
		ptd_t_add_tnt(&t, ppt_tnt_64, 40, 1);
		dec = decoder_cut(&t, 5);
		assert_non_null(dec);
		n = all_items(dec, items, 16, events);
		assert_int_equal(n, 3);
		assert_int_equal(items[0].kind, ptd_qry_item_sync);
		assert_int_equal(items[1].kind, ptd_qry_item_tnt);
		assert_int_equal(items[1].count, 2);
		assert_int_equal(items[2].kind, ptd_qry_item_error);
		assert_int_equal(items[2].error, -pte_eos);
		assert_int_equal(items[2].flags & ~ptd_qry_item_has_tsc, 0);
		/* The TNT-64's offset: where pt_qry_get_offset() is. */
		assert_true(items[2].value == t.size - 3);
		assert_int_equal(t.buf[items[2].value], 0x02);
		assert_int_equal(t.buf[items[2].value + 1], 0xa3);
		pt_qry_free_decoder(dec);
	}
	/* A TIP cut short: pt_qry_cond_branch() refuses, and
	 * pt_qry_indirect_branch() fails.  A TIP.PGD cut short: the status
	 * after the outcome says pts_event_pending, and pt_qry_event()
	 * fails. */
	for (int pgd = 0; pgd < 2; ++pgd) {
		struct ptd_t_trace t = {0};

		add_psb(&t, 0x1000, 0x401000);
		ptd_t_add_tnt(&t, ppt_tnt_8, 1, 0x1);
		ptd_t_add_ip(&t, pgd ? ppt_tip_pgd : ppt_tip, pt_ipc_sext_48,
		             0x402000);
		dec = decoder_cut(&t, 2);
		assert_non_null(dec);
		n = all_items(dec, items, 16, events);
		assert_int_equal(n, 3);
		assert_int_equal(items[2].kind, ptd_qry_item_error);
		assert_int_equal(items[2].error, -pte_eos);
		assert_int_equal(items[2].flags & ~ptd_qry_item_has_tsc,
		                 pgd ? ptd_qry_item_event_pending
		                     : ptd_qry_item_indirect);
		pt_qry_free_decoder(dec);
	}
	/* The same, whole: the end that pts_eos announces has no item. */
	{
		struct ptd_t_trace t = {0};

		add_psb(&t, 0x1000, 0x401000);
		ptd_t_add_tnt(&t, ppt_tnt_8, 1, 0x1);
		ptd_t_add_ip(&t, ppt_tip_pgd, pt_ipc_sext_48, 0x402000);
		dec = decoder(&t);
		assert_non_null(dec);
		n = all_items(dec, items, 16, events);
		assert_int_equal(n, 3);
		assert_int_equal(items[2].kind, ptd_qry_item_event);
		assert_int_equal(events[items[2].value].type, ptev_disabled);
		pt_qry_free_decoder(dec);
	}
}

/* A synchronization that fails after an error: an error item with
 * ptd_qry_item_resync, and the next PSB after it. */
static void test_resync_error(void **state)
{
	struct ptd_qry_item items[16];
	struct pt_event events[8];
	struct pt_query_decoder *dec;
	struct ptd_t_trace t = {0};
	size_t psb[3], npsb = 0, k;
	int n;

	(void)state;
	add_psb(&t, 0x1000, 0x401000);
	ptd_t_add_tnt(&t, ppt_tnt_8, 1, 0x1);
	ptd_t_add_tnt(&t, ppt_tnt_8, 1, 0x0);
	add_psb(&t, 0x2000, 0x402000);
	ptd_t_add_tnt(&t, ppt_tnt_8, 1, 0x1);
	add_psb(&t, 0x3000, 0x403000);
	ptd_t_add_tnt(&t, ppt_tnt_8, 1, 0x0);
	dec = decoder(&t);
	assert_non_null(dec);
	pt_qry_free_decoder(dec);
	for (k = 0; k + 16 <= t.size && npsb < 3; ++k)
		if (!memcmp(t.buf + k, t.buf, 16))
			psb[npsb++] = k;
	assert_int_equal(npsb, 3);
	/* Bytes that are no packet (0x02 0xff) before the second PSB, and a
	 * TIP in its PSB+ (the FUP's opcode made a TIP's: -pte_bad_context,
	 * and the next synchronization goes on after that PSB). */
	for (k = psb[1] + 16; k < psb[2]; ++k)
		if ((t.buf[k] & 0x1f) == 0x1d)
			break;
	assert_true(k < psb[2]);
	t.buf[k] = (uint8_t)((t.buf[k] & ~0x1f) | 0x0d);
	memmove(t.buf + psb[1] + 2, t.buf + psb[1], t.size - psb[1]);
	t.buf[psb[1]] = 0x02;
	t.buf[psb[1] + 1] = 0xff;
	t.size += 2;
	{
		struct pt_config config;

		pt_config_init(&config);
		config.begin = t.buf;
		config.end = t.buf + t.size;
		dec = pt_qry_alloc_decoder(&config);
		assert_non_null(dec);
	}
	n = all_items(dec, items, 16, events);
	assert_int_equal(n, 6);
	assert_int_equal(items[0].kind, ptd_qry_item_sync);
	assert_int_equal(items[1].kind, ptd_qry_item_tnt);
	assert_int_equal(items[2].kind, ptd_qry_item_error);
	assert_int_equal(items[2].error, -pte_bad_opc);
	assert_int_equal(items[2].flags & ~ptd_qry_item_has_tsc, 0);
	assert_int_equal(items[3].kind, ptd_qry_item_error);
	assert_int_equal(items[3].error, -pte_bad_context);
	assert_int_equal(items[3].flags, ptd_qry_item_resync);
	assert_int_equal(items[4].kind, ptd_qry_item_sync);
	assert_true(items[4].value == 0x403000);
	assert_int_equal(items[5].kind, ptd_qry_item_tnt);
	pt_qry_free_decoder(dec);
}

/* Small calls, no room for events, and the pull API in between. */
static void test_calls(void **state)
{
	struct ptd_qry_item items[4];
	struct pt_event events[1];
	struct pt_query_decoder *dec;
	struct ptd_t_trace t = {0};
	uint64_t tsc = 0;
	int n, taken = -1;

	(void)state;
	add_psb(&t, 0x1000, 0x401000);
	ptd_t_add_tnt(&t, ppt_tnt_8, 4, 0x9); /* 1 0 0 1 */
	ptd_t_add_ip(&t, ppt_tip_pgd, pt_ipc_update_16, 0x1234);
	ptd_t_add_ip(&t, ppt_tip_pge, pt_ipc_update_16, 0x2000);
	ptd_t_add_tnt(&t, ppt_tnt_8, 1, 0x0);
	dec = decoder(&t);
	assert_non_null(dec);

	/* Room for three items: a call keeps two free for an error and the
	 * sync after it, so it stops after the sync and the run. */
	n = ptd_qry_next_batch(dec, items, 3, events, 1);
	assert_int_equal(n, 2);
	assert_int_equal(items[0].kind, ptd_qry_item_sync);
	assert_int_equal(items[1].kind, ptd_qry_item_tnt);
	assert_int_equal(items[1].count, 4);

	/* An event is next: no room for it. */
	assert_int_equal(ptd_qry_next_batch(dec, items, 4, events, 0), 0);
	n = ptd_qry_next_batch(dec, items, 4, events, 1);
	assert_int_equal(n, 1);
	assert_int_equal(events[0].type, ptev_disabled);
	assert_true(events[0].variant.disabled.ip == 0x401234);

	/* The pull API takes the enabled event; pt_qry_time() answers for
	 * the last item until then. */
	assert_int_equal(pt_qry_time(dec, &tsc, NULL, NULL), 0);
	assert_true(tsc == 0x1000);
	assert_true(pt_qry_event(dec, &events[0], sizeof(events[0])) >= 0);
	assert_int_equal(events[0].type, ptev_enabled);
	assert_true(pt_qry_cond_branch(dec, &taken) >= 0);
	assert_int_equal(taken, 0);
	assert_int_equal(ptd_qry_next_batch(dec, items, 4, events, 1),
	                 -pte_eos);

	assert_int_equal(ptd_qry_next_batch(NULL, items, 4, events, 1),
	                 -pte_invalid);
	assert_int_equal(ptd_qry_next_batch(dec, NULL, 4, events, 1),
	                 -pte_invalid);
	assert_int_equal(ptd_qry_next_batch(dec, items, 1, events, 1),
	                 -pte_invalid);
	assert_int_equal(ptd_qry_next_batch(dec, items, 4, NULL, 1),
	                 -pte_invalid);
	pt_qry_free_decoder(dec);
}

/* The core:bus ratio of each item is pt_qry_core_bus_ratio()'s after the
 * result (0 for -pte_no_cbr): none right after the sync, the PSB+'s from
 * its first event on (the MODE's, which comes before the CBR's), and a CBR
 * with ratio 0 changes nothing. */
static void test_cbr(void **state)
{
	static const uint8_t want[] = {0, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10};
	struct ptd_qry_item items[16];
	struct pt_event events[8];
	struct pt_query_decoder *dec;
	struct ptd_t_trace t = {0};
	struct pt_packet *p;
	int n;

	(void)state;
	ptd_t_add(&t, ppt_psb);
	p = ptd_t_add(&t, ppt_mode);
	p->payload.mode.leaf = pt_mol_exec;
	p->payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	ptd_t_add(&t, ppt_cbr)->payload.cbr.ratio = 0x10;
	ptd_t_add_ip(&t, ppt_fup, pt_ipc_full, 0x401000);
	ptd_t_add(&t, ppt_psbend);
	ptd_t_add_tnt(&t, ppt_tnt_8, 1, 0x1);
	ptd_t_add(&t, ppt_cbr)->payload.cbr.ratio = 0;
	ptd_t_add_tnt(&t, ppt_tnt_8, 1, 0x1);
	ptd_t_add_ip(&t, ppt_tip_pgd, pt_ipc_suppressed, 0);
	dec = decoder(&t);
	assert_non_null(dec);

	/* sync, exec mode, cbr 0x10, outcome, cbr 0, outcome, disabled */
	n = ptd_qry_next_batch(dec, items, 16, events, 8);
	assert_int_equal(n, 7);
	assert_int_equal(items[1].kind, ptd_qry_item_event);
	assert_int_equal(events[items[1].value].type, ptev_exec_mode);
	assert_int_equal(items[4].kind, ptd_qry_item_event);
	assert_int_equal(events[items[4].value].type, ptev_cbr);
	assert_int_equal(events[items[4].value].variant.cbr.ratio, 0);
	for (int i = 0; i < n; ++i)
		assert_int_equal(items[i].cbr, want[i]);
	pt_qry_free_decoder(dec);
}

/* A buffer without PSB: nothing at all. */
static void test_empty(void **state)
{
	struct ptd_qry_item items[4];
	struct pt_query_decoder *dec;
	struct pt_config config;
	uint8_t buf[64];

	(void)state;
	memset(buf, 0, sizeof(buf));
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + sizeof(buf);
	dec = pt_qry_alloc_decoder(&config);
	assert_non_null(dec);
	assert_int_equal(ptd_qry_next_batch(dec, items, 4, NULL, 0), -pte_eos);
	pt_qry_free_decoder(dec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_items),
	        cmocka_unit_test(test_end_in_packet),
	        cmocka_unit_test(test_resync_error),
	        cmocka_unit_test(test_calls),
	        cmocka_unit_test(test_cbr),
	        cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
