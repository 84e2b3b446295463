/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of ptd_image_add_page_dump(): generated libxdc/kAFL page dumps
 * (runs, unmapped pages, pages out of order, repeated pages, bad files) and,
 * when ../shared/corpora is there, the dumps of the libxdc traces. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ptdecode/ptdecode.h"

#include "test_image_util.h"
#include "test_util.h"

#include "image/image.h"

enum { page = 4096 };

/* Write the page addresses @addrs (@n of them) as a .addr file and a .dump
 * file whose page i is filled with ptd_ti_byte(10 + i, offset in page); the
 * dump has @extra more bytes. */
static void write_dump(struct ptd_ti_dir *dir, const uint64_t *addrs, size_t n,
                       size_t extra, const char **addr_path,
                       const char **dump_path)
{
	uint8_t *dump = malloc(n * page + extra + 1), *raw = malloc(8 * n + 1);
	size_t i, j;

	assert_non_null(dump);
	assert_non_null(raw);
	for (i = 0; i < n; ++i) {
		for (j = 0; j < 8; ++j)
			raw[8 * i + j] = (uint8_t)(addrs[i] >> (8 * j));
		for (j = 0; j < page; ++j)
			dump[i * page + j] = ptd_ti_byte(10 + (unsigned)i, j);
	}
	memset(dump + n * page, 0xcc, extra);
	*addr_path = ptd_ti_write(dir, "d.addr", raw, 8 * n);
	*dump_path = ptd_ti_write(dir, "d.dump", dump, n * page + extra);
	free(dump);
	free(raw);
}

/* Check that @image holds page @i of the generated dump at @vaddr. */
static void check_page(struct pt_image *image, uint64_t vaddr, unsigned i)
{
	uint8_t buf[page];
	unsigned j;

	assert_int_equal(ptd_image_read_memory(image, buf, 16, NULL, vaddr),
	                 16);
	assert_int_equal(
	        ptd_image_read_memory(image, buf, 8, NULL, vaddr + page - 8),
	        8);
	assert_int_equal(buf[7], ptd_ti_byte(10 + i, page - 1));
	assert_true(ptd_image_read_memory(image, buf, page, NULL, vaddr) ==
	            page);
	for (j = 0; j < page; ++j)
		assert_int_equal(buf[j], ptd_ti_byte(10 + i, j));
}

static void test_runs(void **state)
{
	const uint64_t addrs[] = {
	        0x400000,
	        0x401000,
	        0x402000, /* one run of three */
	        0x403005, /* unmapped */
	        0x404000, /* alone: 0x403000 is missing */
	        0x7000,
	        0x8000,                       /* a run going back */
	        0x500000,                     /* alone */
	        0x401000,                     /* repeated: wins */
	        UINT64_C(0xfffffffffffff000), /* the last page */
	        0x0,                          /* no run across 2^64 */
	};
	struct pt_image *image = pt_image_alloc(NULL);
	struct pt_asid c1 = ptd_ti_asid(0x1000, pt_asid_no_vmcs);
	struct pt_asid c2 = ptd_ti_asid(0x2000, pt_asid_no_vmcs);
	const char *addr_path, *dump_path;
	struct ptd_ti_dir dir;
	struct ptd_msec msec;
	uint8_t buf[4];

	(void)state;
	ptd_ti_dir_open(&dir);
	write_dump(&dir, addrs, sizeof(addrs) / sizeof(addrs[0]), 100,
	           &addr_path, &dump_path);

	assert_int_equal(
	        ptd_image_add_page_dump(image, addr_path, dump_path, &c1), 7);
	check_page(image, 0x400000, 0);
	check_page(image, 0x401000, 8);
	check_page(image, 0x402000, 2);
	check_page(image, 0x404000, 4);
	check_page(image, 0x7000, 5);
	check_page(image, 0x8000, 6);
	check_page(image, 0x500000, 7);
	check_page(image, UINT64_C(0xfffffffffffff000), 9);
	check_page(image, 0, 10);
	assert_int_equal(ptd_image_read_memory(image, buf, 1, NULL, 0x403000),
	                 -pte_nomap);
	assert_int_equal(ptd_image_read_memory(image, buf, 1, NULL, 0x405000),
	                 -pte_nomap);
	assert_int_equal(ptd_image_read_memory(image, buf, 1, &c2, 0x400000),
	                 -pte_nomap);
	/* Page runs are sections: 0x7000-0x8fff is one. */
	assert_int_equal(ptd_image_find(image, &msec, &c1, 0x8000), 0);
	assert_int_equal(msec.vaddr, 0x7000);
	assert_int_equal(msec.size, 2 * page);

	/* The run of three was split by the repeated page. */
	assert_int_equal(pt_image_remove_by_filename(image, dump_path, &c2), 0);
	assert_int_equal(pt_image_remove_by_filename(image, dump_path, &c1), 8);

	/* Nothing mapped: no section. */
	{
		const uint64_t none[] = {0x1001, 0x2fff};

		assert_int_equal(unlink(addr_path), 0);
		assert_int_equal(unlink(dump_path), 0);
		dir.nfiles = 0;
		write_dump(&dir, none, 2, 0, &addr_path, &dump_path);
		assert_int_equal(ptd_image_add_page_dump(image, addr_path,
		                                         dump_path, NULL),
		                 0);
		assert_int_equal(pt_image_remove_by_asid(image, NULL), 0);
	}
	pt_image_free(image);
	ptd_ti_dir_close(&dir);
}

static void test_errors(void **state)
{
	const uint64_t addrs[] = {0x1000, 0x2000};
	struct pt_image *image = pt_image_alloc(NULL);
	const char *addr_path, *dump_path, *odd, *empty;
	struct ptd_ti_dir dir;
	uint8_t buf[8];

	(void)state;
	ptd_ti_dir_open(&dir);
	write_dump(&dir, addrs, 2, 0, &addr_path, &dump_path);
	odd = ptd_ti_write(&dir, "odd.addr", buf, 7);
	empty = ptd_ti_write(&dir, "empty.dump", buf, 0);

	assert_int_equal(
	        ptd_image_add_page_dump(NULL, addr_path, dump_path, NULL),
	        -pte_invalid);
	assert_int_equal(ptd_image_add_page_dump(image, NULL, dump_path, NULL),
	                 -pte_invalid);
	assert_int_equal(ptd_image_add_page_dump(image, addr_path, NULL, NULL),
	                 -pte_invalid);
	assert_int_equal(ptd_image_add_page_dump(image, "/nonexistent/a",
	                                         dump_path, NULL),
	                 -pte_invalid);
	assert_int_equal(ptd_image_add_page_dump(image, addr_path,
	                                         "/nonexistent/d", NULL),
	                 -pte_invalid);
	assert_int_equal(ptd_image_add_page_dump(image, odd, dump_path, NULL),
	                 -pte_bad_file);
	assert_int_equal(ptd_image_add_page_dump(image, addr_path, empty, NULL),
	                 -pte_bad_file);
	/* Nothing was added. */
	assert_int_equal(pt_image_remove_by_asid(image, NULL), 0);
	/* An empty address list is a dump without pages. */
	assert_int_equal(ptd_image_add_page_dump(image, empty, empty, NULL), 0);

	pt_image_free(image);
	ptd_ti_dir_close(&dir);
}

/* Read the @size bytes at @offset of @path. */
static void read_at(const char *path, uint64_t offset, uint8_t *buf,
                    size_t size)
{
	FILE *file = fopen(path, "rb");

	assert_non_null(file);
	assert_int_equal(fseek(file, (long)offset, SEEK_SET), 0);
	assert_int_equal(fread(buf, 1, size, file), size);
	fclose(file);
}

/* The libxdc traces' dumps: every page of the address list reads back as
 * the dump holds it (the last of repeated pages), unmapped pages are not
 * there. */
static void check_corpus_dump(const char *folder, const char *base,
                              int *checked)
{
	char root[512], addr_path[700], dump_path[700];
	uint8_t *addrs, want[page], got[page];
	struct pt_image *image;
	size_t n, i, j;
	FILE *file;
	long size;
	int nsecs;

	ptd_t_corpora_dir(root, sizeof(root));
	snprintf(addr_path, sizeof(addr_path), "%s/libxdc/%s/%s.addr", root,
	         folder, base);
	snprintf(dump_path, sizeof(dump_path), "%s/libxdc/%s/%s.dump", root,
	         folder, base);
	file = fopen(addr_path, "rb");
	if (!file)
		return;
	if (access(dump_path, R_OK) != 0) {
		fclose(file);
		return;
	}
	assert_int_equal(fseek(file, 0, SEEK_END), 0);
	size = ftell(file);
	assert_true(size > 0 && size % 8 == 0);
	rewind(file);
	addrs = malloc((size_t)size);
	assert_non_null(addrs);
	assert_int_equal(fread(addrs, 1, (size_t)size, file), (size_t)size);
	fclose(file);
	n = (size_t)size / 8;

	image = pt_image_alloc(folder);
	nsecs = ptd_image_add_page_dump(image, addr_path, dump_path, NULL);
	assert_true(nsecs > 0 && (size_t)nsecs <= n);
	for (i = 0; i < n; ++i) {
		uint64_t vaddr = 0;
		size_t last = i;

		for (j = 0; j < 8; ++j)
			vaddr |= (uint64_t)addrs[8 * i + j] << (8 * j);
		if (vaddr & (page - 1))
			continue; /* unmapped: no content */
		/* The last entry for this page wins. */
		for (j = i + 1; j < n; ++j)
			if (memcmp(addrs + 8 * j, addrs + 8 * i, 8) == 0)
				last = j;
		read_at(dump_path, (uint64_t)last * page, want, page);
		assert_int_equal(
		        ptd_image_read_memory(image, got, page, NULL, vaddr),
		        page);
		assert_memory_equal(got, want, page);
		*checked += 1;
	}
	pt_image_free(image);
	free(addrs);
}

static void test_corpora(void **state)
{
	char root[512], foo[700];
	uint8_t want[16], got[16];
	struct pt_image *image;
	int checked = 0;

	(void)state;
	ptd_t_corpora_dir(root, sizeof(root));
	snprintf(foo, sizeof(foo), "%s/libxdc/foo/data.dump", root);
	if (access(foo, R_OK) != 0) {
		print_message("skipped: %s is absent\n", foo);
		skip();
	}

	/* foo: a few addresses by hand.  Page 0 is 0x7ffff7819000, page 5
	 * 0x7ffff781e000, the last page (432) 0x7ffff79c9000. */
	image = pt_image_alloc("foo");
	{
		char addr[700];

		snprintf(addr, sizeof(addr), "%s/libxdc/foo/data.addr", root);
		assert_true(ptd_image_add_page_dump(image, addr, foo, NULL) >
		            0);
	}
	read_at(foo, 0, want, 16);
	assert_int_equal(ptd_image_read_memory(image, got, 16, NULL,
	                                       UINT64_C(0x7ffff7819000)),
	                 16);
	assert_memory_equal(got, want, 16);
	read_at(foo, 5 * page + 0x123, want, 16);
	assert_int_equal(ptd_image_read_memory(image, got, 16, NULL,
	                                       UINT64_C(0x7ffff781e123)),
	                 16);
	assert_memory_equal(got, want, 16);
	read_at(foo, 432 * page + page - 16, want, 16);
	assert_int_equal(ptd_image_read_memory(image, got, 16, NULL,
	                                       UINT64_C(0x7ffff79c9ff0)),
	                 16);
	assert_memory_equal(got, want, 16);
	assert_int_equal(ptd_image_read_memory(image, got, 16, NULL,
	                                       UINT64_C(0x7ffff79ca000)),
	                 -pte_nomap);
	pt_image_free(image);

	/* Every page of every dump. */
	check_corpus_dump("foo", "data", &checked);
	check_corpus_dump("mruby", "data", &checked);
	check_corpus_dump("Unzip", "data", &checked);
	check_corpus_dump("dyn_test", "page_cache", &checked);
	check_corpus_dump("icelake_tip", "pagecache", &checked);
	assert_true(checked > 433);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_runs),
	        cmocka_unit_test(test_errors),
	        cmocka_unit_test(test_corpora),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
