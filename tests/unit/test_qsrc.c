/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the flow decoders' source of trace results (lib/flow/qsrc):
 * the batch mode answers as the pull mode does, and where it replays the
 * calls since the last synchronization (a second query decoder takes over)
 * and where it needs not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "flow/qsrc.h"

/* An IP packet with the IP in full, or suppressed if @ip is 0. */
static void add_ip(struct ptd_t_trace *t, enum pt_packet_type type, uint64_t ip)
{
	ptd_t_add_ip(t, type, ip ? pt_ipc_sext_48 : pt_ipc_suppressed, ip);
}

static void add_psb(struct ptd_t_trace *t, uint64_t ip)
{
	struct pt_packet *p;

	ptd_t_add(t, ppt_psb);
	p = ptd_t_add(t, ppt_mode);
	p->payload.mode.leaf = pt_mol_exec;
	p->payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	add_ip(t, ppt_fup, ip);
	ptd_t_add(t, ppt_psbend);
}

static void add_tnt(struct ptd_t_trace *t, uint8_t size, uint64_t bits)
{
	ptd_t_add_tnt(t, ppt_tnt_8, size, bits);
}

/* Room for the numbers that take() logs. */
enum { log_cap = 512 };

static void encode(struct ptd_t_trace *t, struct pt_config *config)
{
	ptd_t_trace_encode(t);
	pt_config_init(config);
	config->begin = t->buf;
	config->end = t->buf + t->size;
}

/* Two PSB segments: outcomes, a TIP, more outcomes, a TIP.PGD. */
static void trace_two_segments(struct ptd_t_trace *t, struct pt_config *config)
{
	memset(t, 0, sizeof(*t));
	add_psb(t, 0x1000);
	add_tnt(t, 2, 0x2);
	add_ip(t, ppt_tip, 0x2000);
	add_psb(t, 0x2000);
	add_tnt(t, 3, 0x5);
	add_ip(t, ppt_tip_pgd, 0);
	encode(t, config);
}

/* Three PSB segments with timing packets: TSC and CBR in each PSB+, a TSC
 * and a CBR (an event) between outcomes. */
static void trace_timed(struct ptd_t_trace *t, struct pt_config *config)
{
	uint64_t seg;

	memset(t, 0, sizeof(*t));
	for (seg = 0; seg < 3; seg++) {
		ptd_t_add(t, ppt_psb);
		ptd_t_add(t, ppt_tsc)->payload.tsc.tsc = 0x10000 * (seg + 1);
		ptd_t_add(t, ppt_cbr)->payload.cbr.ratio =
		        (uint8_t)(0x10 + seg);
		ptd_t_add(t, ppt_mode)->payload.mode.bits.exec =
		        pt_set_exec_mode(ptem_64bit);
		add_ip(t, ppt_fup, 0x1000 * (seg + 1));
		ptd_t_add(t, ppt_psbend);
		add_tnt(t, 2, 0x2);
		ptd_t_add(t, ppt_tsc)->payload.tsc.tsc =
		        0x10000 * (seg + 1) + 0x800;
		add_tnt(t, 2, 0x1);
		ptd_t_add(t, ppt_cbr)->payload.cbr.ratio =
		        (uint8_t)(0x20 + seg);
		add_tnt(t, 1, 0x1);
		add_ip(t, seg == 2 ? ppt_tip_pgd : ppt_tip,
		       seg == 2 ? 0 : 0x1000 * (seg + 2));
	}
	encode(t, config);
}

/* Take the results as the flow decoders would (events while pending, else
 * an outcome, else a TIP) up to @steps results or the end; log each as a
 * number, with the status, time and core:bus ratio after it.  Returns the
 * last status. */
static int take_cap(struct ptd_qsrc *qs, int status, unsigned steps,
                    uint64_t *log, size_t *nlog, size_t cap)
{
	while (steps-- && status >= 0 && !(status & pts_eos)) {
		struct pt_event ev;
		uint64_t ip = 0, tsc = 0;
		uint32_t mtc = 0, cyc = 0, cbr = 0;
		int taken = 0, err;

		assert_true(*nlog + 8 < cap);
		if (status & pts_event_pending) {
			status = ptd_qsrc_event(qs, &ev);
			log[(*nlog)++] = 0x100 + (uint64_t)ev.type;
			log[(*nlog)++] = ev.tsc;
		} else {
			status = ptd_qsrc_cond(qs, &taken);
			if (status == -pte_bad_query) {
				status = ptd_qsrc_indirect(qs, &ip);
				log[(*nlog)++] = ip;
			} else {
				log[(*nlog)++] = (uint64_t)taken;
			}
		}
		log[(*nlog)++] = (uint64_t)(int64_t)status;
		err = ptd_qsrc_time(qs, &tsc, &mtc, &cyc);
		log[(*nlog)++] = (uint64_t)(int64_t)err;
		log[(*nlog)++] = tsc;
		log[(*nlog)++] = ((uint64_t)mtc << 32) | cyc;
		err = ptd_qsrc_cbr(qs, &cbr);
		log[(*nlog)++] = err < 0 ? (uint64_t)(int64_t)err : cbr;
	}
	log[(*nlog)++] = (uint64_t)(int64_t)status;
	return status;
}

static int take(struct ptd_qsrc *qs, int status, unsigned steps, uint64_t *log,
                size_t *nlog)
{
	return take_cap(qs, status, steps, log, nlog, log_cap);
}

/* After pts_eos (every result up to the end taken), pt_*_sync_forward()
 * again: -pte_eos, the offsets of the pull API, and in batch mode no replay
 * (the query decoder is where the pull API's is: the query decoder stays). */
static void test_sync_at_end(void **state)
{
	uint64_t logs[2][log_cap], offset[2], sync[2];
	size_t nlogs[2] = {0, 0};
	struct pt_config config;
	struct ptd_t_trace t;
	int batch;

	(void)state;
	trace_two_segments(&t, &config);
	for (batch = 0; batch < 2; batch++) {
		struct pt_query_decoder *qry;
		struct ptd_qsrc qs;
		uint64_t ip = 0;
		int status;

		assert_int_equal(ptd_qsrc_init(&qs, &config, NULL, batch), 0);
		status = ptd_qsrc_sync(&qs, ptd_qsrc_forward, 0, &ip);
		assert_true(status >= 0);
		status = take(&qs, status, 100, logs[batch], &nlogs[batch]);
		assert_true(status >= 0 && (status & pts_eos));
		qry = qs.qry;
		assert_int_equal(ptd_qsrc_sync(&qs, ptd_qsrc_forward, 0, &ip),
		                 -pte_eos);
		if (batch)
			assert_ptr_equal(qs.qry, qry);
		assert_int_equal(ptd_qsrc_offset(&qs, &offset[batch]), 0);
		assert_int_equal(ptd_qsrc_sync_offset(&qs, &sync[batch]), 0);
		/* And again. */
		assert_int_equal(ptd_qsrc_sync(&qs, ptd_qsrc_forward, 0, &ip),
		                 -pte_eos);
		ptd_qsrc_fini(&qs);
	}
	assert_int_equal(nlogs[0], nlogs[1]);
	assert_memory_equal(logs[0], logs[1], nlogs[0] * sizeof(logs[0][0]));
	assert_true(offset[0] == t.size);
	assert_true(offset[1] == offset[0]);
	assert_true(sync[1] == sync[0]);
}

/* A synchronization before the end, with results left: the pull API takes
 * over by a replay (a new query decoder) and synchronizes at the next PSB,
 * as the pull mode does. */
static void test_sync_in_the_middle(void **state)
{
	uint64_t logs[2][log_cap], sync[2];
	size_t nlogs[2] = {0, 0};
	struct pt_config config;
	struct ptd_t_trace t;
	int batch;

	(void)state;
	trace_two_segments(&t, &config);
	for (batch = 0; batch < 2; batch++) {
		struct pt_query_decoder *qry;
		struct ptd_qsrc qs;
		uint64_t ip = 0;
		int status;

		assert_int_equal(ptd_qsrc_init(&qs, &config, NULL, batch), 0);
		status = ptd_qsrc_sync(&qs, ptd_qsrc_forward, 0, &ip);
		assert_true(status >= 0);
		status = take(&qs, status, 2, logs[batch], &nlogs[batch]);
		assert_true(status >= 0 && !(status & pts_eos));
		qry = qs.qry;
		status = ptd_qsrc_sync(&qs, ptd_qsrc_forward, 0, &ip);
		assert_true(status >= 0);
		if (batch)
			assert_ptr_not_equal(qs.qry, qry);
		assert_true(ip == 0x2000);
		assert_int_equal(ptd_qsrc_sync_offset(&qs, &sync[batch]), 0);
		status = take(&qs, status, 100, logs[batch], &nlogs[batch]);
		assert_true(status >= 0 && (status & pts_eos));
		ptd_qsrc_fini(&qs);
	}
	assert_int_equal(nlogs[0], nlogs[1]);
	assert_memory_equal(logs[0], logs[1], nlogs[0] * sizeof(logs[0][0]));
	assert_true(sync[0] != 0);
	assert_true(sync[1] == sync[0]);
}

/* pt_*_get_offset() while the query decoder is ahead (results left), asked
 * by a program that asks where the decoder is while it decodes (the last
 * call did not fail: ptd_qsrc_result()): a replay, and the pull API from
 * then on, also after the next synchronization (docs/flow.md).  Same
 * results. */
static void test_offset_ends_batches(void **state)
{
	uint64_t logs[2][log_cap], offset[2];
	size_t nlogs[2] = {0, 0};
	struct pt_config config;
	struct ptd_t_trace t;
	int batch;

	(void)state;
	trace_two_segments(&t, &config);
	for (batch = 0; batch < 2; batch++) {
		struct pt_query_decoder *qry;
		struct ptd_qsrc qs;
		uint64_t ip = 0;
		int status;

		assert_int_equal(ptd_qsrc_init(&qs, &config, NULL, batch), 0);
		status = ptd_qsrc_sync(&qs, ptd_qsrc_forward, 0, &ip);
		assert_true(status >= 0);
		status = take(&qs, status, 2, logs[batch], &nlogs[batch]);
		qry = qs.qry;
		assert_int_equal(ptd_qsrc_offset(&qs, &offset[batch]), 0);
		if (batch) {
			assert_ptr_not_equal(qs.qry, qry);
			assert_int_equal(qs.batch, 0);
			assert_int_equal(qs.batch_wanted, 0);
		}
		status = ptd_qsrc_sync(&qs, ptd_qsrc_forward, 0, &ip);
		assert_true(status >= 0);
		assert_int_equal(qs.batch, 0);
		status = take(&qs, status, 100, logs[batch], &nlogs[batch]);
		assert_true(status >= 0 && (status & pts_eos));
		ptd_qsrc_fini(&qs);
	}
	assert_int_equal(nlogs[0], nlogs[1]);
	assert_memory_equal(logs[0], logs[1], nlogs[0] * sizeof(logs[0][0]));
	assert_true(offset[1] == offset[0]);
}

/* ptxed's use of trace_timed(), on the batch path (@batch) or the pull
 * path: synchronize, take a few results, and then, as after an error that
 * the flow decoder finds itself (-pte_nomap, say), ask for the offset and
 * synchronize at the next PSB; twice, then take the rest.  With @ask_first
 * the offset is also asked for right after the first synchronization (no
 * error: as ptxed --offset does).  Logs the results (take()), the IPs,
 * offsets and sync offsets; @batched[i]: segment i took batch items. */
static void error_pass(int batch, int ask_first, uint64_t *log, size_t *nlog,
                       int batched[3])
{
	struct pt_config config;
	struct ptd_qsrc qs;
	struct ptd_t_trace t;
	uint64_t ip = 0, off = 0;
	int status, seg;

	trace_timed(&t, &config);
	assert_int_equal(ptd_qsrc_init(&qs, &config, NULL, batch), 0);
	status = ptd_qsrc_result(&qs,
	                         ptd_qsrc_sync(&qs, ptd_qsrc_forward, 0, &ip));
	if (ask_first) {
		assert_int_equal(ptd_qsrc_offset(&qs, &off), 0);
		log[(*nlog)++] = off;
	}
	for (seg = 0;; seg++) {
		struct pt_query_decoder *qry;

		assert_true(status >= 0);
		log[(*nlog)++] = ip;
		assert_int_equal(ptd_qsrc_sync_offset(&qs, &off), 0);
		log[(*nlog)++] = off;
		if (seg == 2)
			break;
		status = take(&qs, status, 6, log, nlog);
		assert_true(status >= 0 && !(status & pts_eos));
		batched[seg] = qs.batch && qs.n;

		/* The flow decoder fails, ptxed asks where. */
		assert_int_equal(ptd_qsrc_result(&qs, -pte_nomap), -pte_nomap);
		qry = qs.qry;
		assert_int_equal(ptd_qsrc_offset(&qs, &off), 0);
		log[(*nlog)++] = off;
		assert_int_equal(qs.batch, 0);
		if (batch && batched[seg]) {
			/* A replay: the pull API up to the next
			 * synchronization. */
			assert_ptr_not_equal(qs.qry, qry);
			assert_int_equal(qs.batch_wanted, !ask_first);
		}
		/* Asking again changes nothing. */
		qry = qs.qry;
		assert_int_equal(ptd_qsrc_offset(&qs, &off), 0);
		assert_ptr_equal(qs.qry, qry);
		log[(*nlog)++] = off;

		status = ptd_qsrc_result(
		        &qs, ptd_qsrc_sync(&qs, ptd_qsrc_forward, 0, &ip));
		assert_int_equal(qs.batch, batch && !ask_first);
	}
	status = take(&qs, status, 6, log, nlog);
	batched[2] = qs.batch && qs.n;
	status = take(&qs, status, 100, log, nlog);
	assert_true(status >= 0 && (status & pts_eos));
	assert_int_equal(ptd_qsrc_offset(&qs, &off), 0);
	log[(*nlog)++] = off;
	assert_true(off == t.size);
	ptd_qsrc_fini(&qs);
}

/* An offset asked for right after a failed call (ptxed's diagnostic) while
 * the query decoder is ahead: a replay, the pull API up to the next
 * synchronization, and batches again from there; every result, time,
 * core:bus ratio, offset and sync offset the pull path's. */
static void test_offset_after_error(void **state)
{
	uint64_t logs[2][log_cap];
	size_t nlogs[2] = {0, 0};
	int batched[2][3];

	(void)state;
	error_pass(0, 0, logs[0], &nlogs[0], batched[0]);
	error_pass(1, 0, logs[1], &nlogs[1], batched[1]);
	assert_int_equal(nlogs[0], nlogs[1]);
	assert_memory_equal(logs[0], logs[1], nlogs[0] * sizeof(logs[0][0]));
	assert_int_equal(batched[0][0] | batched[0][1] | batched[0][2], 0);
	assert_true(batched[1][0] && batched[1][1] && batched[1][2]);
}

/* The same after an offset asked for at another time, right after the
 * first synchronization (ptxed --offset asks before every step): the pull
 * API for good from the first replay on, as test_offset_ends_batches, so
 * that such a program does not fetch a batch per synchronization only to
 * replay it.  Same results. */
static void test_offset_asked_before_error(void **state)
{
	uint64_t logs[2][log_cap];
	size_t nlogs[2] = {0, 0};
	int batched[2][3];

	(void)state;
	error_pass(0, 1, logs[0], &nlogs[0], batched[0]);
	error_pass(1, 1, logs[1], &nlogs[1], batched[1]);
	assert_int_equal(nlogs[0], nlogs[1]);
	assert_memory_equal(logs[0], logs[1], nlogs[0] * sizeof(logs[0][0]));
	assert_true(batched[1][0]);
	assert_int_equal(batched[1][1] | batched[1][2], 0);
}

/* A trace of many batches (big_pass() makes them hold 256 items):
 * @nseg PSB segments, each with TNT-8 outcomes, TSCs that change the time
 * every fourth packet, TIPs, and CBRs (events); it ends in a TIP.PGD.  The
 * offset of the first byte of segment @corrupt_seg's 40th TNT packet goes
 * into *@corrupt_at (if not NULL). */
struct big_trace {
	uint8_t *buf;
	size_t size;
};

static void trace_big(struct big_trace *bt, struct pt_config *config,
                      unsigned nseg, unsigned corrupt_seg, uint64_t *corrupt_at)
{
	const size_t cap = 64 * 1024;
	struct pt_encoder *enc;
	struct pt_packet p;
	uint64_t off = 0;
	unsigned seg, j;

	bt->buf = malloc(cap);
	assert_non_null(bt->buf);
	memset(bt->buf, 0, cap);
	pt_config_init(config);
	config->begin = bt->buf;
	config->end = bt->buf + cap;
	enc = pt_alloc_encoder(config);
	assert_non_null(enc);
#define ENC(...)                                                               \
	do {                                                                   \
		memset(&p, 0, sizeof(p));                                      \
		__VA_ARGS__;                                                   \
		assert_true(pt_enc_next(enc, &p) > 0);                         \
	} while (0)
	for (seg = 0; seg < nseg; seg++) {
		uint64_t ip = 0x10000 * (seg + 1);

		ENC(p.type = ppt_psb);
		ENC(p.type = ppt_tsc; p.payload.tsc.tsc = 0x100000 * (seg + 1));
		ENC(p.type = ppt_cbr;
		    p.payload.cbr.ratio = (uint8_t)(0x10 + seg));
		ENC(p.type = ppt_mode; p.payload.mode.leaf = pt_mol_exec;
		    p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit));
		ENC(p.type = ppt_fup; p.payload.ip.ipc = pt_ipc_sext_48;
		    p.payload.ip.ip = ip);
		ENC(p.type = ppt_psbend);
		for (j = 0; j < 120; j++) {
			if (j == 40 && seg == corrupt_seg && corrupt_at)
				assert_int_equal(
				        pt_enc_get_offset(enc, corrupt_at), 0);
			ENC(p.type = ppt_tnt_8;
			    p.payload.tnt.bit_size = (uint8_t)(1 + j % 6);
			    p.payload.tnt.payload =
			            (j * 0x2d) & ((1u << (1 + j % 6)) - 1));
			if (j % 4 == 0)
				ENC(p.type = ppt_tsc;
				    p.payload.tsc.tsc = 0x100000 * (seg + 1) +
				                        0x40 * (j + 1));
			if (j % 5 == 0)
				ENC(p.type = ppt_tip;
				    p.payload.ip.ipc = pt_ipc_update_16;
				    p.payload.ip.ip = ip + 0x10 * j);
			if (j % 9 == 0)
				ENC(p.type = ppt_cbr;
				    p.payload.cbr.ratio = (uint8_t)(0x20 + j));
		}
		ENC(p.type = ppt_tip; p.payload.ip.ipc = pt_ipc_sext_48;
		    p.payload.ip.ip = ip + 0x10000);
	}
	ENC(p.type = ppt_tip_pgd; p.payload.ip.ipc = pt_ipc_suppressed);
#undef ENC
	assert_int_equal(pt_enc_get_offset(enc, &off), 0);
	bt->size = (size_t)off;
	pt_free_encoder(enc);
	config->end = bt->buf + bt->size;
}

/* Take every result of @config's trace the way the flow decoders do: after
 * a failed step, report it (ptd_qsrc_result()) and synchronize forward.
 * Batch mode with a copy of the query decoder at every batch fetch
 * (ckpt_calls 1) when @batch; with @offset_at, ask for the offset after
 * that many steps (a replay).  Logs everything (take()); *@bases: whether
 * the log started at a copy when the offset was asked for or an error was
 * met. */
static void big_pass(const struct pt_config *config, int batch,
                     unsigned offset_at, uint64_t *log, size_t *nlog,
                     size_t cap, int *bases)
{
	struct ptd_qsrc qs;
	uint64_t ip = 0, off = 0;
	unsigned steps = 0;
	int status;

	*bases = 0;
	assert_int_equal(ptd_qsrc_init(&qs, config, NULL, batch), 0);
	qs.ckpt_calls = 1;
	/* (Batches of the size the test was written for, whatever the
	 * default: the copies come at their fetches.) */
	qs.nitems = 256;
	qs.nevents = 64;
	status = ptd_qsrc_result(&qs,
	                         ptd_qsrc_sync(&qs, ptd_qsrc_forward, 0, &ip));
	log[(*nlog)++] = (uint64_t)(int64_t)status;
	while (status != -pte_eos) {
		assert_true(*nlog + 16 < cap);
		if (status >= 0 && !(status & pts_eos)) {
			unsigned n = offset_at > steps ? offset_at - steps : 64;

			status = take_cap(&qs, status, n, log, nlog, cap);
			steps += n;
			if (steps == offset_at) {
				*bases += qs.have_base;
				assert_int_equal(ptd_qsrc_offset(&qs, &off), 0);
				log[(*nlog)++] = off;
			}
			if (status >= 0 && !(status & pts_eos))
				continue;
		}
		if (status < 0) {
			*bases += qs.have_base;
			(void)ptd_qsrc_result(&qs, status);
			assert_int_equal(ptd_qsrc_offset(&qs, &off), 0);
			log[(*nlog)++] = off;
		}
		status = ptd_qsrc_result(
		        &qs, ptd_qsrc_sync(&qs, ptd_qsrc_forward, 0, &ip));
		log[(*nlog)++] = (uint64_t)(int64_t)status;
		log[(*nlog)++] = ip;
		if (status >= 0) {
			assert_int_equal(ptd_qsrc_sync_offset(&qs, &off), 0);
			log[(*nlog)++] = off;
		}
	}
	ptd_qsrc_fini(&qs);
}

/* big_pass() on the pull path and on the batch path; the same logs, and
 * only the batch path's log started at a copy. */
static void compare_big_passes(const struct pt_config *config,
                               unsigned offset_at)
{
	const size_t cap = 1 << 16;
	uint64_t *logs[2];
	size_t nlogs[2] = {0, 0};
	int bases[2], batch;

	for (batch = 0; batch < 2; batch++) {
		logs[batch] = malloc(cap * sizeof(*logs[batch]));
		assert_non_null(logs[batch]);
		big_pass(config, batch, offset_at, logs[batch], &nlogs[batch],
		         cap, &bases[batch]);
	}
	assert_int_equal(nlogs[0], nlogs[1]);
	assert_memory_equal(logs[0], logs[1], nlogs[0] * sizeof(logs[0][0]));
	assert_int_equal(bases[0], 0);
	assert_int_equal(bases[1], 1);
	free(logs[0]);
	free(logs[1]);
}

/* The log of calls starts again from a copy of the query decoder once it is
 * long enough (here at every batch fetch): an offset asked for in the
 * middle of a long PSB segment sequence replays from the copy, and every
 * result, time, core:bus ratio and offset is the pull API's. */
static void test_checkpoint_offset(void **state)
{
	struct pt_config config;
	struct big_trace bt;

	(void)state;
	trace_big(&bt, &config, 12, 0, NULL);
	compare_big_passes(&config, 1500);
	free(bt.buf);
}

/* The same for a decode error in the middle of the trace (a TNT-8 packet
 * made the extended opcode with an unknown second byte): the error item is
 * next, the pull API takes over from the copy, and the results, errors and
 * offsets are the pull API's. */
static void test_checkpoint_error(void **state)
{
	struct pt_config config;
	struct big_trace bt;
	uint64_t at = 0;

	(void)state;
	trace_big(&bt, &config, 12, 7, &at);
	assert_true(at > 0 && at + 1 < bt.size);
	bt.buf[at] = 0x02;
	bt.buf[at + 1] = 0x01;
	compare_big_passes(&config, 0);
	free(bt.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_sync_at_end),
	        cmocka_unit_test(test_sync_in_the_middle),
	        cmocka_unit_test(test_offset_ends_batches),
	        cmocka_unit_test(test_offset_after_error),
	        cmocka_unit_test(test_offset_asked_before_error),
	        cmocka_unit_test(test_checkpoint_offset),
	        cmocka_unit_test(test_checkpoint_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
