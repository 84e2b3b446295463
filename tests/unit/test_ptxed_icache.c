/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/ptxed/icache.c: ptxed's cache of printed instructions.  Entries by
 * IP, mode and section; their disassembly formatted once (and a formatting
 * error kept as such); growth past the first table; the bound, where the
 * cache starts over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"

#include "disas.h"
#include "icache.h"

#include <string.h>

static const uint8_t nop[] = {0x90};
static const uint8_t jmp8[] = {0xeb, 0x10};

static void test_find_add(void **state)
{
	struct ptxed_icache *cache = ptxed_icache_alloc();
	struct ptxed_insn_entry *e;

	(void)state;
	assert_non_null(cache);
	assert_null(ptxed_icache_find(cache, 0x1000, ptem_64bit, 1));
	e = ptxed_icache_add(cache, 0x1000, ptem_64bit, 1, jmp8, 2, ptic_jump,
	                     0x1012);
	assert_non_null(e);
	e = ptxed_icache_find(cache, 0x1000, ptem_64bit, 1);
	assert_non_null(e);
	assert_int_equal(e->ip, 0x1000);
	assert_int_equal(e->next_ip, 0x1012);
	assert_int_equal(e->size, 2);
	assert_int_equal(e->iclass, ptic_jump);
	assert_memory_equal(e->raw, jmp8, 2);
	assert_int_equal(e->have_text, 0);
	/* Another mode or section is another instruction. */
	assert_null(ptxed_icache_find(cache, 0x1000, ptem_32bit, 1));
	assert_null(ptxed_icache_find(cache, 0x1000, ptem_64bit, 2));
	assert_null(ptxed_icache_find(cache, 0x1001, ptem_64bit, 1));
	/* Bad arguments add nothing. */
	assert_null(ptxed_icache_add(cache, 0x2000, ptem_64bit, 1, nop, 0,
	                             ptic_other, 0x2001));
	assert_null(ptxed_icache_add(cache, 0x2000, ptem_64bit, 1, nop,
	                             pt_max_insn_size + 1, ptic_other, 0x2001));
	assert_null(ptxed_icache_add(cache, 0x2000, ptem_64bit, 1, NULL, 1,
	                             ptic_other, 0x2001));
	assert_null(ptxed_icache_find(cache, 0x2000, ptem_64bit, 1));
	/* No cache: nothing found, nothing added. */
	assert_null(ptxed_icache_find(NULL, 0x1000, ptem_64bit, 1));
	assert_null(ptxed_icache_add(NULL, 0x1000, ptem_64bit, 1, nop, 1,
	                             ptic_other, 0x1001));
	ptxed_icache_free(cache);
	ptxed_icache_free(NULL);
}

static void test_text(void **state)
{
	struct ptxed_icache *cache = ptxed_icache_alloc();
	struct ptd_ild_ctx *ild = ptxed_disas_alloc();
	/* PUSH ES does not exist in 64-bit mode. */
	static const uint8_t push_es[] = {0x06};
	struct ptxed_insn_entry *e;
	char want[256];
	const char *text;
	int err = 1;

	(void)state;
	assert_non_null(cache);
	assert_non_null(ild);
	e = ptxed_icache_add(cache, 0x1000, ptem_64bit, 1, jmp8, 2, ptic_jump,
	                     0x1012);
	assert_non_null(e);
	assert_int_equal(ptxed_disas_format(ild, want, sizeof(want), jmp8, 2,
	                                    ptem_64bit, 0x1000, 0),
	                 0);
	text = ptxed_icache_text(cache, e, ild, 0, &err);
	assert_non_null(text);
	assert_int_equal(err, 0);
	assert_string_equal(text, want);
	assert_int_equal(e->have_text, 1);
	/* The second time from the cache: the same text, even with no
	 * formatter at hand. */
	err = 1;
	text = ptxed_icache_text(cache, e, NULL, 0, &err);
	assert_non_null(text);
	assert_int_equal(err, 0);
	assert_string_equal(text, want);

	e = ptxed_icache_add(cache, 0x2000, ptem_64bit, 1, push_es, 1,
	                     ptic_other, 0x2001);
	assert_non_null(e);
	text = ptxed_icache_text(cache, e, ild, 0, &err);
	assert_null(text);
	assert_int_equal(err, -pte_bad_insn);
	assert_int_equal(e->have_text, 1);
	/* The error is kept: asked again without a formatter, the same error,
	 * not the -pte_invalid of formatting without one. */
	err = 0;
	assert_null(ptxed_icache_text(cache, e, NULL, 0, &err));
	assert_int_equal(err, -pte_bad_insn);
	ptxed_disas_free(ild);
	ptxed_icache_free(cache);
}

/* Entries for IPs 0x10000 + 4 * i, i < @n, with next IP ip + 2 and i's low
 * byte as their byte. */
static void add_many(struct ptxed_icache *cache, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; ++i) {
		const uint8_t byte = (uint8_t)i;
		const uint64_t ip = 0x10000 + 4 * (uint64_t)i;

		assert_non_null(ptxed_icache_add(cache, ip, ptem_64bit, 3,
		                                 &byte, 1, ptic_other, ip + 2));
	}
}

static void test_growth(void **state)
{
	struct ptxed_icache *cache = ptxed_icache_alloc();
	uint32_t i;

	(void)state;
	assert_non_null(cache);
	/* Several times the first table's 4096 entries. */
	add_many(cache, 20000);
	for (i = 0; i < 20000; ++i) {
		const uint64_t ip = 0x10000 + 4 * (uint64_t)i;
		const struct ptxed_insn_entry *e =
		        ptxed_icache_find(cache, ip, ptem_64bit, 3);

		assert_non_null(e);
		assert_int_equal(e->next_ip, ip + 2);
		assert_int_equal(e->raw[0], (uint8_t)i);
	}
	assert_null(
	        ptxed_icache_find(cache, 0x10000 + 4 * 20000, ptem_64bit, 3));
	ptxed_icache_free(cache);
}

static void test_bound(void **state)
{
	struct ptxed_icache *cache = ptxed_icache_alloc();
	/* The table holds at most 2^19 entries (2^20 slots, half full). */
	const uint32_t most = 1u << 19;
	const uint64_t last = 0x10000 + 4 * (uint64_t)most;
	const uint8_t byte = 0x90;

	(void)state;
	assert_non_null(cache);
	add_many(cache, most);
	assert_non_null(ptxed_icache_find(cache, 0x10000, ptem_64bit, 3));
	assert_non_null(ptxed_icache_find(cache, last - 4, ptem_64bit, 3));
	/* One more: the cache starts over, with only the new entry. */
	assert_non_null(ptxed_icache_add(cache, last, ptem_64bit, 3, &byte, 1,
	                                 ptic_other, last + 1));
	assert_null(ptxed_icache_find(cache, 0x10000, ptem_64bit, 3));
	assert_null(ptxed_icache_find(cache, last - 4, ptem_64bit, 3));
	assert_non_null(ptxed_icache_find(cache, last, ptem_64bit, 3));
	ptxed_icache_free(cache);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_find_add),
	        cmocka_unit_test(test_text),
	        cmocka_unit_test(test_growth),
	        cmocka_unit_test(test_bound),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
