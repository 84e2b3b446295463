/* SPDX-License-Identifier: BSD-3-Clause */
/* Bad input for the query decoder: corrupted and truncated query-level
 * traces, zero-filled tails and garbage before the first PSB.
 *
 * A trace of SEGMENTS PSB segments is encoded (each: PSB+ with time, exec
 * mode, paging and FUP; then TNTs, TIPs, an asynchronous branch, TSX, TIP.PGD
 * and TIP.PGE with timing packets in between).  A driver that does not know
 * the code records every result (event while one is pending, else a
 * conditional branch, else an indirect branch; sync forward after an error).
 * Damage in segment k must give an error whose offset (pt_qry_get_offset)
 * lies in segment k; pt_qry_sync_forward must then resume exactly at the PSB
 * of segment k + 1, and everything from there on must be what a decoder
 * started at that PSB (pt_qry_sync_set) on the intact trace reports: nothing
 * valid after the damage is lost, nor anything before it.  Times are
 * compared with libipt's estimator, which has no look-ahead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

enum { SEGMENTS = 6, MAX_RECS = 4096, TRACE_CAP = 1 << 14 };

enum rec_kind { rec_sync, rec_cond, rec_indirect, rec_event, rec_error };

struct rec {
	enum rec_kind kind;
	int status;
	uint64_t value;
	enum pt_event_type ev_type;
	int time_status;
	uint64_t time;
	uint64_t offset; /* pt_qry_get_offset() after the call */
};

struct trace {
	uint8_t buf[TRACE_CAP];
	size_t size;
	uint64_t psb[SEGMENTS + 1]; /* psb[SEGMENTS] = size */
	/* A TIP in each segment's body (offset, size), for corruption. */
	uint64_t tip[SEGMENTS];
	int tip_size[SEGMENTS];
};

struct log {
	struct rec recs[MAX_RECS];
	size_t n;
};

static void emit(struct pt_encoder *enc, const struct pt_packet *p)
{
	assert_true(pt_enc_next(enc, p) > 0);
}

static struct pt_packet pkt(enum pt_packet_type type)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	return p;
}

static void emit_ip(struct pt_encoder *enc, enum pt_packet_type type,
                    enum pt_ip_compression ipc, uint64_t ip)
{
	struct pt_packet p = pkt(type);

	p.payload.ip.ipc = ipc;
	p.payload.ip.ip = ip;
	emit(enc, &p);
}

static uint64_t enc_offset(struct pt_encoder *enc)
{
	uint64_t offset = 0;

	assert_int_equal(pt_enc_get_offset(enc, &offset), 0);
	return offset;
}

static void make_trace(struct trace *t)
{
	struct pt_config config;
	struct pt_encoder *enc;
	struct pt_packet p;
	int k, i;

	memset(t, 0, sizeof(*t));
	pt_config_init(&config);
	config.begin = t->buf;
	config.end = t->buf + sizeof(t->buf);
	enc = pt_alloc_encoder(&config);
	assert_non_null(enc);
	for (k = 0; k < SEGMENTS; ++k) {
		uint64_t base = UINT64_C(0x400000) + 0x10000u * (unsigned)k;

		t->psb[k] = enc_offset(enc);
		emit(enc, (p = pkt(ppt_psb), &p));
		p = pkt(ppt_tsc);
		p.payload.tsc.tsc =
		        UINT64_C(0x1000000) + 0x100000u * (unsigned)k;
		emit(enc, &p);
		p = pkt(ppt_cbr);
		p.payload.cbr.ratio = 20;
		emit(enc, &p);
		p = pkt(ppt_mode);
		p.payload.mode.leaf = pt_mol_exec;
		p.payload.mode.bits.exec.csl = 1;
		emit(enc, &p);
		p = pkt(ppt_pip);
		p.payload.pip.cr3 = 0x1000u * (unsigned)(k + 1);
		emit(enc, &p);
		emit_ip(enc, ppt_fup, pt_ipc_full, base);
		emit(enc, (p = pkt(ppt_psbend), &p));

		for (i = 0; i < 8; ++i) {
			p = pkt(ppt_tnt_8);
			p.payload.tnt.bit_size = (uint8_t)(1 + (i + k) % 6);
			p.payload.tnt.payload =
			        (uint64_t)(0x2b ^ (i * 7 + k)) &
			        ((1u << p.payload.tnt.bit_size) - 1);
			emit(enc, &p);
			p = pkt(ppt_cyc);
			p.payload.cyc.value = 100u + (unsigned)i;
			emit(enc, &p);
			if (i == 4) {
				t->tip[k] = enc_offset(enc);
				emit_ip(enc, ppt_tip, pt_ipc_update_16,
				        base + 0x100u * (unsigned)i);
				t->tip_size[k] =
				        (int)(enc_offset(enc) - t->tip[k]);
			} else {
				emit_ip(enc, ppt_tip, pt_ipc_update_32,
				        base + 0x100u * (unsigned)i);
			}
		}
		p = pkt(ppt_tnt_64);
		p.payload.tnt.bit_size = 40;
		p.payload.tnt.payload = UINT64_C(0x5a5a5a5a5a);
		emit(enc, &p);
		/* An asynchronous branch with a paging change. */
		emit_ip(enc, ppt_fup, pt_ipc_update_16, base + 0x777);
		p = pkt(ppt_pip);
		p.payload.pip.cr3 = 0x2000u * (unsigned)(k + 1);
		emit(enc, &p);
		emit_ip(enc, ppt_tip, pt_ipc_full,
		        UINT64_C(0xffffffff81000000));
		p = pkt(ppt_mode);
		p.payload.mode.leaf = pt_mol_tsx;
		p.payload.mode.bits.tsx.intx = 1;
		emit(enc, &p);
		emit_ip(enc, ppt_fup, pt_ipc_update_16, 0x1234);
		emit_ip(enc, ppt_tip_pgd, pt_ipc_suppressed, 0);
		p = pkt(ppt_tsc);
		p.payload.tsc.tsc =
		        UINT64_C(0x1080000) + 0x100000u * (unsigned)k;
		emit(enc, &p);
		emit_ip(enc, ppt_tip_pge, pt_ipc_full, base + 0x8000);
		p = pkt(ppt_tnt_8);
		p.payload.tnt.bit_size = 3;
		p.payload.tnt.payload = 5;
		emit(enc, &p);
	}
	t->size = (size_t)enc_offset(enc);
	t->psb[SEGMENTS] = t->size;
	pt_free_encoder(enc);
}

static struct pt_query_decoder *alloc_dec(const uint8_t *buf, size_t size)
{
	struct ptd_time_config tconfig;
	struct pt_config config;
	struct pt_query_decoder *dec;

	pt_config_init(&config);
	config.begin = (uint8_t *)(uintptr_t)buf;
	config.end = (uint8_t *)(uintptr_t)buf + size;
	ptd_time_config_init(&tconfig);
	tconfig.mode = ptd_time_mode_libipt;
	dec = ptd_qry_alloc_decoder(&config, &tconfig);
	assert_non_null(dec);
	return dec;
}

static struct rec *add(struct log *log)
{
	assert_true(log->n < MAX_RECS);
	memset(&log->recs[log->n], 0, sizeof(log->recs[0]));
	return &log->recs[log->n++];
}

/* Record every result up to the end of the trace.  With @set, start with
 * pt_qry_sync_set at @set - 1 instead of syncing forward. */
static void drive(struct pt_query_decoder *dec, struct log *log, uint64_t set)
{
	int status = -pte_nosync;

	log->n = 0;
	for (;;) {
		struct rec *r;

		if (status < 0) {
			uint64_t ip = 0;

			if (status != -pte_nosync && status != -pte_eos) {
				r = add(log);
				r->kind = rec_error;
				r->status = status;
				assert_int_equal(
				        pt_qry_get_offset(dec, &r->offset), 0);
			}
			if (set) {
				status = pt_qry_sync_set(dec, &ip, set - 1);
				set = 0;
			} else {
				status = pt_qry_sync_forward(dec, &ip);
			}
			if (status == -pte_eos)
				return;
			r = add(log);
			r->kind = rec_sync;
			r->status = status;
			if (status >= 0) {
				assert_int_equal(
				        pt_qry_get_sync_offset(dec, &r->value),
				        0);
			}
		} else if (status & pts_event_pending) {
			struct pt_event ev;

			r = add(log);
			r->kind = rec_event;
			status = pt_qry_event(dec, &ev, sizeof(ev));
			r->status = status;
			r->ev_type = status >= 0 ? ev.type : ptev_enabled;
		} else if (status & pts_eos) {
			status = -pte_eos;
			continue;
		} else {
			int taken = 0;

			r = add(log);
			r->kind = rec_cond;
			status = pt_qry_cond_branch(dec, &taken);
			r->value = (uint64_t)taken;
			if (status == -pte_bad_query) {
				uint64_t ip = 0;

				r->kind = rec_indirect;
				status = pt_qry_indirect_branch(dec, &ip);
				r->value = status >= 0 ? ip : 0;
			}
			r->status = status;
		}
		if (r->kind != rec_sync || status >= 0)
			(void)pt_qry_get_offset(dec, &r->offset);
		r->time_status = pt_qry_time(dec, &r->time, NULL, NULL);
	}
}

static void decode(const uint8_t *buf, size_t size, struct log *log,
                   uint64_t set)
{
	uint8_t *copy = ptd_t_dup(buf, size);
	struct pt_query_decoder *dec = alloc_dec(copy, size);

	drive(dec, log, set);
	pt_qry_free_decoder(dec);
	free(copy);
}

/* Records equal up to a shift of offsets; pts_eos ignored if @eos_free. */
static void assert_rec_equal(const struct rec *a, const struct rec *b,
                             int64_t shift, int eos_free)
{
	int mask = eos_free ? ~pts_eos : ~0;

	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->status & mask, b->status & mask);
	if (a->kind == rec_sync)
		assert_true(a->value == (uint64_t)((int64_t)b->value + shift));
	else
		assert_true(a->value == b->value);
	assert_int_equal(a->ev_type, b->ev_type);
	assert_int_equal(a->time_status, b->time_status);
	assert_true(a->time == b->time);
}

/* Print @log (set PTD_TEST_VERBOSE to see the logs of failing cases). */
static void dump(const char *what, const struct log *log)
{
	size_t i;

	if (!getenv("PTD_TEST_VERBOSE"))
		return;
	for (i = 0; i < log->n; ++i) {
		const struct rec *r = &log->recs[i];

		fprintf(stderr,
		        "%s %3zu: kind %d status %d value %llx ev %d time %d "
		        "%llx offset %llx\n",
		        what, i, r->kind, r->status,
		        (unsigned long long)r->value, r->ev_type,
		        r->time_status, (unsigned long long)r->time,
		        (unsigned long long)r->offset);
	}
}

static size_t count_errors(const struct log *log)
{
	size_t i, n = 0;

	for (i = 0; i < log->n; ++i)
		n += log->recs[i].kind == rec_error;
	return n;
}

/* The index of the first record with an error status (a query or sync that
 * failed), or log->n. */
static size_t first_fail(const struct log *log)
{
	size_t i;

	for (i = 0; i < log->n; ++i)
		if (log->recs[i].status < 0)
			return i;
	return log->n;
}

/* @log starts with the results of @ref (the trace up to the PSB that is
 * damaged in @log), except its last one (the end of that trace), and except
 * the outcomes of the last TNT packet before the damage: the decoder reads
 * ahead to the packet after a TNT, and a decode error there fails the
 * query that read ahead (as in libipt), so at most the conditional branches
 * of that one TNT packet are lost. */
static void assert_prefix(const struct log *log, const struct log *ref)
{
	size_t i, n = first_fail(log);

	assert_true(ref->n >= 1);
	if (n > ref->n - 1)
		n = ref->n - 1;
	for (i = 0; i < n; ++i)
		assert_rec_equal(&log->recs[i], &ref->recs[i], 0, 1);
	for (i = n; i + 1 < ref->n; ++i)
		assert_int_equal(ref->recs[i].kind, rec_cond);
}

/* The index of the first sync record onto @offset, or log->n. */
static size_t find_sync(const struct log *log, uint64_t offset)
{
	size_t i;

	for (i = 0; i < log->n; ++i)
		if (log->recs[i].kind == rec_sync && log->recs[i].status >= 0 &&
		    log->recs[i].value == offset)
			return i;
	return log->n;
}

static void test_clean(void **state)
{
	static struct trace t;
	static struct log log;
	size_t i, events = 0, tips = 0;

	(void)state;
	make_trace(&t);
	decode(t.buf, t.size, &log, 0);
	dump("clean", &log);
	assert_int_equal(count_errors(&log), 0);
	assert_int_equal(log.recs[0].kind, rec_sync);
	assert_true(log.recs[0].value == 0);
	for (i = 0; i < log.n; ++i) {
		events += log.recs[i].kind == rec_event;
		tips += log.recs[i].kind == rec_indirect;
	}
	assert_true(events >= 4 * SEGMENTS);
	assert_true(tips >= 8 * SEGMENTS);
}

/* A bad opcode in place of a TIP of segment k, for every k. */
static void test_bad_opcode_each_segment(void **state)
{
	static struct trace t;
	static struct log ref, bad, tail;
	int k;

	(void)state;
	make_trace(&t);
	decode(t.buf, t.size, &ref, 0);
	for (k = 0; k < SEGMENTS; ++k) {
		static uint8_t buf[TRACE_CAP];
		size_t i, err = 0, sync, first_err;

		memcpy(buf, t.buf, t.size);
		buf[t.tip[k]] = 0x02;
		buf[t.tip[k] + 1] = 0x02;
		decode(buf, t.size, &bad, 0);
		dump("bad", &bad);

		/* One error, in segment k, after the damage. */
		assert_int_equal(count_errors(&bad), 1);
		for (first_err = 0; bad.recs[first_err].kind != rec_error;
		     ++first_err)
			;
		assert_int_equal(bad.recs[first_err].status, -pte_bad_opc);
		assert_true(bad.recs[first_err].offset >= t.tip[k]);
		assert_true(bad.recs[first_err].offset < t.psb[k + 1]);

		/* Everything before the query that failed as on the intact
		 * trace. */
		for (i = 0; i + 1 < first_err; ++i)
			assert_rec_equal(&bad.recs[i], &ref.recs[i], 0, 0);

		/* Then the next PSB, and everything after it. */
		if (k == SEGMENTS - 1) {
			assert_int_equal(first_err + 1, bad.n);
			continue;
		}
		sync = first_err + 1;
		assert_int_equal(bad.recs[sync].kind, rec_sync);
		assert_true(bad.recs[sync].status >= 0);
		assert_true(bad.recs[sync].value == t.psb[k + 1]);
		decode(t.buf, t.size, &tail, t.psb[k + 1] + 1);
		assert_int_equal(count_errors(&tail), 0);
		assert_int_equal(bad.n - sync, tail.n);
		for (i = 0; i < tail.n; ++i)
			assert_rec_equal(&bad.recs[sync + i], &tail.recs[i], 0,
			                 0);
		(void)err;
	}
}

/* A broken PSB+ (a bad opcode before PSBEND): the sync onto it fails, and
 * decoding resumes at the next PSB. */
static void test_bad_psbplus(void **state)
{
	static struct trace t;
	static struct log bad, tail, ref;
	static uint8_t buf[TRACE_CAP];
	size_t sync, i;
	int k = 2;

	(void)state;
	make_trace(&t);
	memcpy(buf, t.buf, t.size);
	/* The TSC right after the PSB. */
	buf[t.psb[k] + 16] = 0x02;
	buf[t.psb[k] + 17] = 0x02;
	decode(buf, t.size, &bad, 0);
	dump("psb+", &bad);
	/* Segment k - 1 runs into the broken PSB+: an error there, maybe a
	 * second one when the sync finds that PSB again; both in segment k. */
	assert_true(count_errors(&bad) >= 1 && count_errors(&bad) <= 2);
	for (i = 0; i < bad.n; ++i)
		if (bad.recs[i].kind == rec_error)
			assert_true(bad.recs[i].offset >= t.psb[k] &&
			            bad.recs[i].offset < t.psb[k + 1]);
	sync = find_sync(&bad, t.psb[k + 1]);
	assert_true(sync < bad.n);
	assert_int_equal(bad.recs[sync - 1].kind, rec_error);
	decode(t.buf, (size_t)t.psb[k], &ref, 0);
	assert_prefix(&bad, &ref);
	decode(t.buf, t.size, &tail, t.psb[k + 1] + 1);
	assert_int_equal(bad.n - sync, tail.n);
	for (i = 0; i < tail.n; ++i)
		assert_rec_equal(&bad.recs[sync + i], &tail.recs[i], 0, 0);
}

/* The trace cut at every offset of segment 3: everything of segments 0-2 as
 * from the trace cut at the PSB of segment 3, errors only in segment 3,
 * then the end. */
static void test_truncated(void **state)
{
	static struct trace t;
	static struct log ref, cut;
	size_t i;
	uint64_t end;
	int k = 3;

	(void)state;
	make_trace(&t);
	decode(t.buf, (size_t)t.psb[k], &ref, 0);
	assert_int_equal(count_errors(&ref), 0);
	for (end = t.psb[k]; end <= t.psb[k + 1]; ++end) {
		decode(t.buf, (size_t)end, &cut, 0);
		assert_prefix(&cut, &ref);
		for (i = 0; i < cut.n; ++i) {
			assert_true(cut.recs[i].offset <= end);
			if (cut.recs[i].kind == rec_error)
				assert_true(cut.recs[i].offset >= t.psb[k]);
		}
		assert_true(count_errors(&cut) <= 1);
	}
}

/* A ring buffer whose rest is zero: the trace cut in segment 4 and padded
 * with 4 KB of zeros (PADs).  Nothing before the cut segment is lost, any
 * error lies in that segment, and decoding ends. */
static void test_zero_tail(void **state)
{
	static struct trace t;
	static struct log ref, z;
	static uint8_t buf[TRACE_CAP + 4096];
	size_t i;
	uint64_t end;
	int k = 4;

	(void)state;
	make_trace(&t);
	/* The whole trace with zeros after it: the same results. */
	memcpy(buf, t.buf, t.size);
	memset(buf + t.size, 0, 4096);
	decode(t.buf, t.size, &ref, 0);
	decode(buf, t.size + 4096, &z, 0);
	assert_int_equal(count_errors(&z), 0);
	assert_int_equal(z.n, ref.n);
	for (i = 0; i < ref.n; ++i)
		assert_rec_equal(&z.recs[i], &ref.recs[i], 0, 1);

	decode(t.buf, (size_t)t.psb[k], &ref, 0);
	for (end = t.psb[k]; end < t.psb[k + 1]; end += 3) {
		memcpy(buf, t.buf, (size_t)end);
		memset(buf + end, 0, 4096);
		decode(buf, (size_t)end + 4096, &z, 0);
		assert_prefix(&z, &ref);
		for (i = 0; i < z.n; ++i) {
			assert_true(z.recs[i].offset <= end + 4096);
			if (z.recs[i].kind == rec_error)
				assert_true(z.recs[i].offset >= t.psb[k]);
		}
		assert_true(count_errors(&z) <= 2);
	}
}

/* Garbage before the first PSB, including a PSB cut short: the first sync
 * is the real PSB, and everything after it as without the garbage. */
static void test_garbage_before_psb(void **state)
{
	static const uint8_t garbage[] = {
	        0x05, 0x82, 0x02, 0x02, 0x82, 0xd9, 0x40, 0xff, 0x13, 0x02,
	        0xc3, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02,
	        0x82, 0x02, 0x82, 0x02, 0x83, 0x99, 0x02, 0x02, 0x00, 0x4d};
	static struct trace t;
	static struct log ref, g;
	static uint8_t buf[sizeof(garbage) + TRACE_CAP];
	size_t i;

	(void)state;
	make_trace(&t);
	decode(t.buf, t.size, &ref, 0);
	memcpy(buf, garbage, sizeof(garbage));
	memcpy(buf + sizeof(garbage), t.buf, t.size);
	decode(buf, sizeof(garbage) + t.size, &g, 0);
	assert_int_equal(count_errors(&g), 0);
	assert_int_equal(g.n, ref.n);
	assert_true(g.recs[0].value == sizeof(garbage));
	for (i = 0; i < ref.n; ++i)
		assert_rec_equal(&g.recs[i], &ref.recs[i], sizeof(garbage), 0);
	/* Only garbage: no sync at all. */
	decode(garbage, sizeof(garbage), &g, 0);
	assert_int_equal(g.n, 0);
}

/* Random bytes over each segment's body: no crash, every error offset in
 * the buffer and at or after the damage, every sync on a PSB of the trace,
 * and the last segment after the damage decodes as on the intact trace. */
static void test_random_damage(void **state)
{
	static struct trace t;
	static struct log bad, tail;
	static uint8_t buf[TRACE_CAP];
	uint64_t rng = 0x243f6a8885a308d3ull;
	int k, round;

	(void)state;
	make_trace(&t);
	decode(t.buf, t.size, &tail, t.psb[SEGMENTS - 1] + 1);
	for (round = 0; round < 200; ++round) {
		uint64_t from, len, j;
		size_t i, sync;

		k = round % (SEGMENTS - 2);
		memcpy(buf, t.buf, t.size);
		from = t.psb[k] + 16 + 4;
		len = t.psb[k + 1] - from;
		for (j = 0; j < 4; ++j) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			buf[from + (rng >> 8) % len] = (uint8_t)rng;
		}
		decode(buf, t.size, &bad, 0);
		for (i = 0; i < bad.n; ++i) {
			const struct rec *r = &bad.recs[i];

			assert_true(r->offset <= t.size);
			if (r->kind == rec_error)
				assert_true(r->offset >= t.psb[k]);
			if (r->kind == rec_sync && r->status >= 0) {
				for (j = 0; j <= SEGMENTS; ++j)
					if (r->value == t.psb[j])
						break;
				assert_true(j < SEGMENTS);
			}
		}
		/* If decoding resynchronized onto the last segment, it is
		 * intact. */
		sync = find_sync(&bad, t.psb[SEGMENTS - 1]);
		if (sync < bad.n) {
			assert_int_equal(bad.n - sync, tail.n);
			for (i = 0; i < tail.n; ++i)
				assert_rec_equal(&bad.recs[sync + i],
				                 &tail.recs[i], 0, 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_clean),
	        cmocka_unit_test(test_bad_opcode_each_segment),
	        cmocka_unit_test(test_bad_psbplus),
	        cmocka_unit_test(test_truncated),
	        cmocka_unit_test(test_zero_tail),
	        cmocka_unit_test(test_garbage_before_psb),
	        cmocka_unit_test(test_random_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
