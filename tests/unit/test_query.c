/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the query decoder: IP decompression, the TNT cache, the
 * event queue, and pt_qry_* on small encoded traces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptdecode/ptdecode.h"
#include "query/evq.h"
#include "query/last_ip.h"
#include "query/tnt_cache.h"

static void test_last_ip(void **state)
{
	struct ptd_last_ip last;
	struct pt_packet_ip p;
	uint64_t ip = 0;

	(void)state;
	ptd_last_ip_init(&last);
	assert_int_equal(ptd_last_ip_query(&ip, &last), -pte_noip);

	p.ipc = pt_ipc_full;
	p.ip = UINT64_C(0xffffffff81234567);
	assert_int_equal(ptd_last_ip_update(&last, &p), 0);
	assert_int_equal(ptd_last_ip_query(&ip, &last), 0);
	assert_true(ip == UINT64_C(0xffffffff81234567));

	p.ipc = pt_ipc_update_16;
	p.ip = 0xabcd;
	assert_int_equal(ptd_last_ip_update(&last, &p), 0);
	assert_int_equal(ptd_last_ip_query(&ip, &last), 0);
	assert_true(ip == UINT64_C(0xffffffff8123abcd));

	p.ipc = pt_ipc_update_32;
	p.ip = 0x11223344;
	assert_int_equal(ptd_last_ip_update(&last, &p), 0);
	assert_int_equal(ptd_last_ip_query(&ip, &last), 0);
	assert_true(ip == UINT64_C(0xffffffff11223344));

	p.ipc = pt_ipc_update_48;
	p.ip = UINT64_C(0x7fff00001000);
	assert_int_equal(ptd_last_ip_update(&last, &p), 0);
	assert_int_equal(ptd_last_ip_query(&ip, &last), 0);
	assert_true(ip == UINT64_C(0xffff7fff00001000));

	p.ipc = pt_ipc_sext_48;
	p.ip = UINT64_C(0x800000000000);
	assert_int_equal(ptd_last_ip_update(&last, &p), 0);
	assert_int_equal(ptd_last_ip_query(&ip, &last), 0);
	assert_true(ip == UINT64_C(0xffff800000000000));

	p.ipc = pt_ipc_suppressed;
	assert_int_equal(ptd_last_ip_update(&last, &p), 0);
	assert_int_equal(ptd_last_ip_query(&ip, &last), -pte_ip_suppressed);

	p.ipc = (enum pt_ip_compression)5;
	assert_int_equal(ptd_last_ip_update(&last, &p), -pte_bad_packet);
}

static void test_tnt_cache(void **state)
{
	struct ptd_tnt_cache tnt;
	struct pt_packet_tnt p;

	(void)state;
	ptd_tnt_cache_init(&tnt);
	assert_true(ptd_tnt_cache_is_empty(&tnt));
	assert_int_equal(ptd_tnt_cache_query(&tnt), -pte_bad_query);

	/* Oldest outcome first: 1, 0, 1. */
	p.bit_size = 3;
	p.payload = 0x5;
	assert_int_equal(ptd_tnt_cache_add(&tnt, &p), 0);
	assert_int_equal(ptd_tnt_cache_add(&tnt, &p), -pte_bad_context);
	assert_int_equal(ptd_tnt_cache_query(&tnt), 1);
	assert_int_equal(ptd_tnt_cache_query(&tnt), 0);
	assert_int_equal(ptd_tnt_cache_query(&tnt), 1);
	assert_true(ptd_tnt_cache_is_empty(&tnt));

	/* 47 outcomes of a TNT-64. */
	p.bit_size = 47;
	p.payload = UINT64_C(1) << 46;
	assert_int_equal(ptd_tnt_cache_add(&tnt, &p), 0);
	assert_int_equal(ptd_tnt_cache_query(&tnt), 1);
	for (int i = 0; i < 46; ++i)
		assert_int_equal(ptd_tnt_cache_query(&tnt), 0);
	assert_true(ptd_tnt_cache_is_empty(&tnt));

	p.bit_size = 0;
	assert_int_equal(ptd_tnt_cache_add(&tnt, &p), -pte_bad_packet);
}

static void test_evq(void **state)
{
	struct ptd_evq evq;
	int n = 0;

	(void)state;
	ptd_evq_init(&evq);
	assert_false(ptd_evq_pending(&evq, ptd_evb_tip));
	while (ptd_evq_enqueue(&evq, ptd_evb_tip))
		n++;
	/* Bounded, and as large as libipt's queue. */
	assert_int_equal(n, PTD_EVQ_SIZE - 2);
	assert_true(ptd_evq_pending(&evq, ptd_evb_tip));
	assert_false(ptd_evq_pending(&evq, ptd_evb_fup));
	assert_non_null(ptd_evq_dequeue(&evq, ptd_evb_tip));
	assert_non_null(ptd_evq_enqueue(&evq, ptd_evb_tip));
	ptd_evq_clear(&evq, ptd_evb_tip);
	assert_null(ptd_evq_dequeue(&evq, ptd_evb_tip));
}

/* Encode @packets into @buf; returns the size. */
static size_t encode(uint8_t *buf, size_t cap, const struct pt_packet *packets,
                     size_t n)
{
	struct pt_config config;
	struct pt_encoder *enc;
	uint64_t offset = 0;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + cap;
	enc = pt_alloc_encoder(&config);
	assert_non_null(enc);
	for (size_t i = 0; i < n; ++i)
		assert_true(pt_enc_next(enc, &packets[i]) > 0);
	assert_int_equal(pt_enc_get_offset(enc, &offset), 0);
	pt_free_encoder(enc);
	return (size_t)offset;
}

/* A query decoder over the @size bytes at @buf (@config: its
 * configuration, which must outlive it). */
static struct pt_query_decoder *qry_on(struct pt_config *config, uint8_t *buf,
                                       size_t size)
{
	struct pt_query_decoder *dec;

	pt_config_init(config);
	config->begin = buf;
	config->end = buf + size;
	dec = pt_qry_alloc_decoder(config);
	assert_non_null(dec);
	return dec;
}

static struct pt_packet pkt(enum pt_packet_type type)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	return p;
}

static struct pt_packet ippkt(enum pt_packet_type type,
                              enum pt_ip_compression ipc, uint64_t ip)
{
	struct pt_packet p = pkt(type);

	p.payload.ip.ipc = ipc;
	p.payload.ip.ip = ip;
	return p;
}

static void test_flow(void **state)
{
	struct pt_packet packets[16];
	struct pt_query_decoder *dec;
	struct pt_config config;
	struct pt_event ev;
	uint8_t buf[256];
	uint64_t ip = 0, tsc = 0, off = 0;
	size_t n = 0, size;
	int status, taken = -1;

	(void)state;
	packets[n++] = pkt(ppt_psb);
	packets[n] = pkt(ppt_tsc);
	packets[n++].payload.tsc.tsc = 0x1000;
	packets[n] = pkt(ppt_mode);
	packets[n++].payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	packets[n++] = ippkt(ppt_fup, pt_ipc_full, 0x401000);
	packets[n++] = pkt(ppt_psbend);
	packets[n] = pkt(ppt_tnt_8);
	packets[n].payload.tnt.bit_size = 2;
	packets[n++].payload.tnt.payload = 0x2; /* taken, not taken */
	packets[n++] = ippkt(ppt_tip, pt_ipc_update_16, 0x2000);
	packets[n++] = ippkt(ppt_fup, pt_ipc_update_16, 0x2010);
	packets[n++] = ippkt(ppt_tip, pt_ipc_full, 0xffffffff81000000);
	packets[n++] = ippkt(ppt_tip_pgd, pt_ipc_suppressed, 0);
	size = encode(buf, sizeof(buf), packets, n);
	dec = qry_on(&config, buf, size);

	assert_int_equal(pt_qry_cond_branch(dec, &taken), -pte_nosync);
	status = pt_qry_sync_forward(dec, &ip);
	assert_int_equal(status, pts_event_pending);
	assert_true(ip == 0x401000);
	assert_int_equal(pt_qry_get_sync_offset(dec, &off), 0);
	assert_true(off == 0);

	/* The PSB+ restates the execution mode. */
	status = pt_qry_event(dec, &ev, sizeof(ev));
	assert_int_equal(status, 0);
	assert_int_equal(ev.type, ptev_exec_mode);
	assert_int_equal(ev.status_update, 1);
	assert_int_equal(ev.has_tsc, 1);
	assert_true(ev.tsc == 0x1000);
	assert_int_equal(ev.variant.exec_mode.mode, ptem_64bit);
	assert_true(ev.variant.exec_mode.ip == 0x401000);
	assert_int_equal(pt_qry_time(dec, &tsc, NULL, NULL), 0);
	assert_true(tsc == 0x1000);

	/* An event query while none is pending. */
	assert_int_equal(pt_qry_event(dec, &ev, sizeof(ev)), -pte_bad_query);

	assert_int_equal(pt_qry_cond_branch(dec, &taken), 0);
	assert_int_equal(taken, 1);
	/* No events while outcomes are pending. */
	assert_int_equal(pt_qry_event(dec, &ev, sizeof(ev)), -pte_bad_query);
	assert_int_equal(pt_qry_cond_branch(dec, &taken), 0);
	assert_int_equal(taken, 0);

	assert_int_equal(pt_qry_cond_branch(dec, &taken), -pte_bad_query);
	status = pt_qry_indirect_branch(dec, &ip);
	assert_int_equal(status, pts_event_pending);
	assert_true(ip == 0x402000);

	/* FUP + TIP: an asynchronous branch. */
	status = pt_qry_event(dec, &ev, sizeof(ev));
	assert_int_equal(status, pts_event_pending);
	assert_int_equal(ev.type, ptev_async_branch);
	assert_true(ev.variant.async_branch.from == 0x402010);
	assert_true(ev.variant.async_branch.to == 0xffffffff81000000);

	/* TIP.PGD with a suppressed IP; the end of the trace. */
	status = pt_qry_event(dec, &ev, sizeof(ev));
	assert_int_equal(status, pts_eos);
	assert_int_equal(ev.type, ptev_disabled);
	assert_int_equal(ev.ip_suppressed, 1);
	assert_int_equal(pt_qry_event(dec, &ev, sizeof(ev)), -pte_eos);
	assert_int_equal(pt_qry_sync_forward(dec, &ip), -pte_eos);

	pt_qry_free_decoder(dec);
}

/* A PSB+ without an IP: every synchronization says pts_ip_suppressed and
 * stores 0 in *ip, as libipt's does (ptdecode left *ip alone until stop
 * 25). */
static void test_sync_no_ip(void **state)
{
	struct pt_packet packets[8];
	struct pt_query_decoder *dec;
	struct pt_config config;
	uint8_t buf[128];
	uint64_t ip;
	size_t n = 0, size;
	int status;

	(void)state;
	packets[n++] = pkt(ppt_psb);
	packets[n++] = pkt(ppt_psbend);
	packets[n++] = ippkt(ppt_tip_pge, pt_ipc_full, 0x401000);
	size = encode(buf, sizeof(buf), packets, n);
	dec = qry_on(&config, buf, size);

	ip = 0xdead;
	status = pt_qry_sync_forward(dec, &ip);
	assert_true(status >= 0 && (status & pts_ip_suppressed));
	assert_true(ip == 0);
	ip = 0xdead;
	status = pt_qry_sync_set(dec, &ip, 0);
	assert_true(status >= 0 && (status & pts_ip_suppressed));
	assert_true(ip == 0);
	pt_qry_free_decoder(dec);

	/* (A new decoder: backward onto the last PSB.) */
	dec = qry_on(&config, buf, size);
	ip = 0xdead;
	status = pt_qry_sync_backward(dec, &ip);
	assert_true(status >= 0);
	assert_true(ip == 0);
	pt_qry_free_decoder(dec);

	/* Also where the read-ahead after the PSB+ fails (an unknown opcode
	 * after the PSBEND): the error, and 0 in *ip, as libipt's (ptdecode
	 * left *ip alone there until stop 30). */
	n = 0;
	packets[n++] = pkt(ppt_psb);
	packets[n++] = pkt(ppt_psbend);
	size = encode(buf, sizeof(buf), packets, n);
	buf[size++] = 0x02;
	buf[size++] = 0xff;
	dec = qry_on(&config, buf, size);
	ip = 0xdead;
	assert_int_equal(pt_qry_sync_forward(dec, &ip), -pte_bad_opc);
	assert_true(ip == 0);
	ip = 0xdead;
	assert_int_equal(pt_qry_sync_set(dec, &ip, 0), -pte_bad_opc);
	assert_true(ip == 0);
	pt_qry_free_decoder(dec);
}

static void test_ovf(void **state)
{
	struct pt_packet packets[16];
	struct pt_query_decoder *dec;
	struct pt_config config;
	struct pt_event ev;
	uint8_t buf[256];
	uint64_t ip = 0;
	size_t n = 0, size;
	int status;

	(void)state;
	packets[n++] = pkt(ppt_psb);
	packets[n++] = ippkt(ppt_fup, pt_ipc_full, 0x401000);
	packets[n++] = pkt(ppt_psbend);
	/* OVF with FUP: tracing resumes at the FUP. */
	packets[n++] = pkt(ppt_ovf);
	packets[n++] = ippkt(ppt_fup, pt_ipc_update_16, 0x1234);
	/* OVF without FUP: tracing was off; TIP.PGE brings it back. */
	packets[n++] = pkt(ppt_ovf);
	packets[n++] = ippkt(ppt_tip_pge, pt_ipc_full, 0x500000);
	size = encode(buf, sizeof(buf), packets, n);
	dec = qry_on(&config, buf, size);
	status = pt_qry_sync_forward(dec, &ip);
	assert_int_equal(status, pts_event_pending);

	assert_true(pt_qry_event(dec, &ev, sizeof(ev)) >= 0);
	assert_int_equal(ev.type, ptev_overflow);
	assert_int_equal(ev.ip_suppressed, 0);
	/* The last IP is reset at OVF: 0x1234 is all the FUP tells. */
	assert_true(ev.variant.overflow.ip == 0x1234);

	assert_true(pt_qry_event(dec, &ev, sizeof(ev)) >= 0);
	assert_int_equal(ev.type, ptev_overflow);
	assert_int_equal(ev.ip_suppressed, 1);

	status = pt_qry_event(dec, &ev, sizeof(ev));
	assert_int_equal(status, pts_eos);
	assert_int_equal(ev.type, ptev_enabled);
	assert_true(ev.variant.enabled.ip == 0x500000);
	pt_qry_free_decoder(dec);
}

static void test_api(void **state)
{
	struct pt_config config;
	struct pt_query_decoder *dec;
	struct pt_event ev;
	uint8_t buf[32];
	uint64_t ip, off;
	uint32_t cbr;
	int taken;

	(void)state;
	memset(buf, 0, sizeof(buf));
	assert_null(pt_qry_alloc_decoder(NULL));
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + sizeof(buf);
	dec = pt_qry_alloc_decoder(&config);
	assert_non_null(dec);
	assert_int_equal(pt_qry_sync_forward(NULL, &ip), -pte_invalid);
	assert_int_equal(pt_qry_sync_forward(dec, &ip), -pte_eos);
	assert_int_equal(pt_qry_sync_backward(dec, &ip), -pte_eos);
	assert_int_equal(pt_qry_sync_set(dec, &ip, 0), -pte_nosync);
	assert_int_equal(pt_qry_sync_set(dec, &ip, 1000), -pte_eos);
	assert_int_equal(pt_qry_get_offset(dec, &off), -pte_nosync);
	assert_int_equal(pt_qry_get_sync_offset(dec, &off), -pte_nosync);
	assert_int_equal(pt_qry_cond_branch(dec, NULL), -pte_invalid);
	assert_int_equal(pt_qry_indirect_branch(dec, NULL), -pte_invalid);
	assert_int_equal(pt_qry_event(dec, &ev, 4), -pte_invalid);
	assert_int_equal(pt_qry_cond_branch(dec, &taken), -pte_nosync);
	assert_int_equal(pt_qry_time(dec, NULL, NULL, NULL), -pte_invalid);
	assert_int_equal(pt_qry_core_bus_ratio(dec, &cbr), -pte_no_cbr);
	assert_ptr_not_equal(pt_qry_get_config(dec), &config);
	assert_null(pt_qry_get_config(NULL));
	pt_qry_free_decoder(dec);
	pt_qry_free_decoder(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_last_ip),
	        cmocka_unit_test(test_tnt_cache),
	        cmocka_unit_test(test_evq),
	        cmocka_unit_test(test_flow),
	        cmocka_unit_test(test_sync_no_ip),
	        cmocka_unit_test(test_ovf),
	        cmocka_unit_test(test_api),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
