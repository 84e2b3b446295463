/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the flow decoders' source of trace results (lib/flow/qsrc):
 * the batch mode answers as the pull mode does, and where it replays the
 * calls since the last synchronization (a second query decoder takes over)
 * and where it needs not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "flow/qsrc.h"

struct trace {
	struct pt_packet packets[32];
	size_t n;
	uint8_t buf[512];
	size_t size;
};

static struct pt_packet *add(struct trace *t, enum pt_packet_type type)
{
	struct pt_packet *p;

	assert_true(t->n < sizeof(t->packets) / sizeof(t->packets[0]));
	p = &t->packets[t->n++];
	memset(p, 0, sizeof(*p));
	p->type = type;
	return p;
}

static void add_ip(struct trace *t, enum pt_packet_type type, uint64_t ip)
{
	struct pt_packet *p = add(t, type);

	p->payload.ip.ipc = ip ? pt_ipc_sext_48 : pt_ipc_suppressed;
	p->payload.ip.ip = ip;
}

static void add_psb(struct trace *t, uint64_t ip)
{
	struct pt_packet *p;

	add(t, ppt_psb);
	p = add(t, ppt_mode);
	p->payload.mode.leaf = pt_mol_exec;
	p->payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	add_ip(t, ppt_fup, ip);
	add(t, ppt_psbend);
}

static void add_tnt(struct trace *t, uint8_t size, uint64_t bits)
{
	struct pt_packet *p = add(t, ppt_tnt_8);

	p->payload.tnt.bit_size = size;
	p->payload.tnt.payload = bits;
}

static void encode(struct trace *t, struct pt_config *config)
{
	struct pt_encoder *enc;
	uint64_t offset = 0;

	pt_config_init(config);
	config->begin = t->buf;
	config->end = t->buf + sizeof(t->buf);
	enc = pt_alloc_encoder(config);
	assert_non_null(enc);
	for (size_t i = 0; i < t->n; ++i)
		assert_true(pt_enc_next(enc, &t->packets[i]) > 0);
	assert_int_equal(pt_enc_get_offset(enc, &offset), 0);
	pt_free_encoder(enc);
	t->size = (size_t)offset;
	config->end = t->buf + t->size;
}

/* Two PSB segments: outcomes, a TIP, more outcomes, a TIP.PGD. */
static void trace_two_segments(struct trace *t, struct pt_config *config)
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

/* Take the results as the flow decoders would (events while pending, else
 * an outcome, else a TIP) up to @steps results or the end; log each as a
 * number.  Returns the last status. */
static int take(struct ptd_qsrc *qs, int status, unsigned steps, uint64_t *log,
                size_t *nlog)
{
	while (steps-- && status >= 0 && !(status & pts_eos)) {
		struct pt_event ev;
		uint64_t ip = 0;
		int taken = 0;

		if (status & pts_event_pending) {
			status = ptd_qsrc_event(qs, &ev);
			log[(*nlog)++] = 0x100 + (uint64_t)ev.type;
			continue;
		}
		status = ptd_qsrc_cond(qs, &taken);
		if (status == -pte_bad_query) {
			status = ptd_qsrc_indirect(qs, &ip);
			log[(*nlog)++] = ip;
			continue;
		}
		log[(*nlog)++] = (uint64_t)taken;
	}
	log[(*nlog)++] = (uint64_t)(int64_t)status;
	return status;
}

/* After pts_eos (every result up to the end taken), pt_*_sync_forward()
 * again: -pte_eos, the offsets of the pull API, and in batch mode no replay
 * (the query decoder is where the pull API's is: the query decoder stays). */
static void test_sync_at_end(void **state)
{
	uint64_t logs[2][64], offset[2], sync[2];
	size_t nlogs[2] = {0, 0};
	struct pt_config config;
	struct trace t;
	int batch;

	(void)state;
	trace_two_segments(&t, &config);
	for (batch = 0; batch < 2; batch++) {
		struct pt_query_decoder *qry;
		struct ptd_qsrc qs;
		uint64_t ip = 0;
		int status;

		assert_int_equal(ptd_qsrc_init(&qs, &config, NULL, batch), 0);
		status = ptd_qsrc_sync(&qs, 0, 0, &ip);
		assert_true(status >= 0);
		status = take(&qs, status, 100, logs[batch], &nlogs[batch]);
		assert_true(status >= 0 && (status & pts_eos));
		qry = qs.qry;
		assert_int_equal(ptd_qsrc_sync(&qs, 0, 0, &ip), -pte_eos);
		if (batch)
			assert_ptr_equal(qs.qry, qry);
		assert_int_equal(ptd_qsrc_offset(&qs, &offset[batch]), 0);
		assert_int_equal(ptd_qsrc_sync_offset(&qs, &sync[batch]), 0);
		/* And again. */
		assert_int_equal(ptd_qsrc_sync(&qs, 0, 0, &ip), -pte_eos);
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
	uint64_t logs[2][64], sync[2];
	size_t nlogs[2] = {0, 0};
	struct pt_config config;
	struct trace t;
	int batch;

	(void)state;
	trace_two_segments(&t, &config);
	for (batch = 0; batch < 2; batch++) {
		struct pt_query_decoder *qry;
		struct ptd_qsrc qs;
		uint64_t ip = 0;
		int status;

		assert_int_equal(ptd_qsrc_init(&qs, &config, NULL, batch), 0);
		status = ptd_qsrc_sync(&qs, 0, 0, &ip);
		assert_true(status >= 0);
		status = take(&qs, status, 2, logs[batch], &nlogs[batch]);
		assert_true(status >= 0 && !(status & pts_eos));
		qry = qs.qry;
		status = ptd_qsrc_sync(&qs, 0, 0, &ip);
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

/* pt_*_get_offset() while the query decoder is ahead (results left, as
 * after an error that the flow decoder finds itself, -pte_nomap say, which
 * ptxed reports with its offset): a replay, and the pull API from then on,
 * also after the next synchronization (docs/flow.md).  Same results. */
static void test_offset_ends_batches(void **state)
{
	uint64_t logs[2][64], offset[2];
	size_t nlogs[2] = {0, 0};
	struct pt_config config;
	struct trace t;
	int batch;

	(void)state;
	trace_two_segments(&t, &config);
	for (batch = 0; batch < 2; batch++) {
		struct pt_query_decoder *qry;
		struct ptd_qsrc qs;
		uint64_t ip = 0;
		int status;

		assert_int_equal(ptd_qsrc_init(&qs, &config, NULL, batch), 0);
		status = ptd_qsrc_sync(&qs, 0, 0, &ip);
		assert_true(status >= 0);
		status = take(&qs, status, 2, logs[batch], &nlogs[batch]);
		qry = qs.qry;
		assert_int_equal(ptd_qsrc_offset(&qs, &offset[batch]), 0);
		if (batch) {
			assert_ptr_not_equal(qs.qry, qry);
			assert_int_equal(qs.batch, 0);
			assert_int_equal(qs.batch_wanted, 0);
		}
		status = ptd_qsrc_sync(&qs, 0, 0, &ip);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_sync_at_end),
	        cmocka_unit_test(test_sync_in_the_middle),
	        cmocka_unit_test(test_offset_ends_batches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
