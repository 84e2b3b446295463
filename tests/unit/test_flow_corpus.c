/* SPDX-License-Identifier: BSD-3-Clause */
/* The flow decoders on real traces: the libxdc corpora
 * (../shared/corpora/libxdc, or $PTD_CORPORA_DIR/libxdc) with their page
 * dumps as the image.  Both decoders must report the instruction counts of
 * libipt 2.0.5 (corpora README) with zero errors, and the same events.  The
 * tests are skipped when the corpora are absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"

#include "ptdecode/ptd_image.h"

#include <stdio.h>

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *file = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!file)
		return NULL;
	assert_int_equal(fseek(file, 0, SEEK_END), 0);
	len = ftell(file);
	assert_true(len > 0);
	assert_int_equal(fseek(file, 0, SEEK_SET), 0);
	buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, file), (size_t)len);
	fclose(file);
	*size = (size_t)len;
	return buf;
}

struct counts {
	uint64_t insns, events, errors;
	/* A checksum of the event types and IPs in order. */
	uint64_t event_sum;
};

static void count_event(struct counts *c, const struct pt_event *ev)
{
	c->events++;
	c->event_sum = c->event_sum * 31 + (uint64_t)ev->type;
	if (ev->type == ptev_enabled)
		c->event_sum += ev->variant.enabled.ip;
}

/* Decode @trace with the instruction-flow (@blocks 0) or block decoder. */
static void decode(struct counts *c, uint8_t *trace, size_t size,
                   struct pt_image *image, int blocks)
{
	struct pt_insn_decoder *id = NULL;
	struct pt_block_decoder *bd = NULL;
	struct pt_config config;
	int status;

	memset(c, 0, sizeof(*c));
	pt_config_init(&config);
	config.begin = trace;
	config.end = trace + size;
	if (blocks) {
		bd = pt_blk_alloc_decoder(&config);
		assert_non_null(bd);
		assert_int_equal(pt_blk_set_image(bd, image), 0);
	} else {
		id = pt_insn_alloc_decoder(&config);
		assert_non_null(id);
		assert_int_equal(pt_insn_set_image(id, image), 0);
	}
	for (;;) {
		status = blocks ? pt_blk_sync_forward(bd)
		                : pt_insn_sync_forward(id);
		if (status == -pte_eos)
			break;
		while (status >= 0) {
			while (status >= 0 && (status & pts_event_pending)) {
				struct pt_event ev;

				status = blocks ? pt_blk_event(bd, &ev,
				                               sizeof(ev))
				                : pt_insn_event(id, &ev,
				                                sizeof(ev));
				if (status >= 0)
					count_event(c, &ev);
			}
			if (status < 0)
				break;
			if (blocks) {
				struct pt_block b;

				status = pt_blk_next(bd, &b, sizeof(b));
				c->insns += b.ninsn;
			} else {
				struct pt_insn insn;

				status = pt_insn_next(id, &insn, sizeof(insn));
				if (status >= 0)
					c->insns++;
			}
		}
		if (status == -pte_eos)
			break;
		c->errors++;
	}
	pt_blk_free_decoder(bd);
	pt_insn_free_decoder(id);
}

static void check_corpus(const char *name, uint64_t insns)
{
	char dir[512], trace_path[600], addr[600], dump[600];
	struct counts ci, cb;
	struct pt_image *image;
	uint8_t *trace;
	size_t size = 0;

	ptd_t_corpora_dir(dir, sizeof(dir));
	snprintf(trace_path, sizeof(trace_path), "%s/libxdc/%s/trace", dir,
	         name);
	snprintf(addr, sizeof(addr), "%s/libxdc/%s/data.addr", dir, name);
	snprintf(dump, sizeof(dump), "%s/libxdc/%s/data.dump", dir, name);
	trace = slurp(trace_path, &size);
	if (!trace) {
		print_message("%s not found: skipped\n", trace_path);
		skip();
	}
	image = pt_image_alloc(name);
	assert_non_null(image);
	assert_true(ptd_image_add_page_dump(image, addr, dump, NULL) > 0);

	decode(&ci, trace, size, image, 0);
	decode(&cb, trace, size, image, 1);
	assert_int_equal(ci.errors, 0);
	assert_int_equal(cb.errors, 0);
	assert_int_equal(ci.insns, insns);
	assert_int_equal(cb.insns, insns);
	assert_int_equal(ci.events, cb.events);
	assert_int_equal(ci.event_sum, cb.event_sum);

	pt_image_free(image);
	free(trace);
}

static void test_foo(void **state)
{
	(void)state;
	check_corpus("foo", 117967);
}

static void test_mruby(void **state)
{
	(void)state;
	check_corpus("mruby", 6334131);
}

static void test_unzip(void **state)
{
	(void)state;
	check_corpus("Unzip", 149576);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_foo),
	        cmocka_unit_test(test_mruby),
	        cmocka_unit_test(test_unzip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
