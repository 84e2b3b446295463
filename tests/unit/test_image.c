/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the traced image: pt_image_*, the asid rules, overlapping
 * sections, copies, removal, the read-memory callback, lazy mapping,
 * memory buffers, and the flow layer's lookups (image.h). */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>

#include "ptdecode/ptdecode.h"

#include "test_image_util.h"
#include "test_util.h"

#include "image/image.h"
#include "image/image_int.h"
#include "image/section.h"

/* Check that the @size bytes of @image at @vaddr in @asid are bytes
 * @first_off.. of test file @n, read through every reading function. */
static void check_bytes(struct pt_image *image, const struct pt_asid *asid,
                        uint64_t vaddr, unsigned n, uint64_t first_off,
                        size_t size)
{
	uint8_t buf[256];
	struct ptd_msec msec;
	size_t i;
	int isid;

	assert_true(size <= sizeof(buf));
	assert_int_equal(ptd_image_read_memory(image, buf, size, asid, vaddr),
	                 (int)size);
	for (i = 0; i < size; ++i)
		assert_int_equal(buf[i], ptd_ti_byte(n, first_off + i));
	assert_int_equal(
	        ptd_image_read(image, &isid, buf, (uint16_t)size, asid, vaddr),
	        (int)size);
	for (i = 0; i < size; ++i)
		assert_int_equal(buf[i], ptd_ti_byte(n, first_off + i));
	assert_int_equal(ptd_image_find(image, &msec, asid, vaddr), 0);
	assert_true(vaddr - msec.vaddr < msec.size);
	assert_true(msec.size - (vaddr - msec.vaddr) >= size);
	for (i = 0; i < size; ++i)
		assert_int_equal(msec.begin[vaddr - msec.vaddr + i],
		                 ptd_ti_byte(n, first_off + i));
}

static void check_nomap(struct pt_image *image, const struct pt_asid *asid,
                        uint64_t vaddr)
{
	struct ptd_msec msec;
	uint8_t buf[4];
	int isid;

	assert_int_equal(ptd_image_find(image, &msec, asid, vaddr), -pte_nomap);
	assert_int_equal(ptd_image_read(image, &isid, buf, 4, asid, vaddr),
	                 -pte_nomap);
	assert_int_equal(ptd_image_read_memory(image, buf, 4, asid, vaddr),
	                 -pte_nomap);
}

static void test_asid_init(void **state)
{
	struct pt_asid asid;

	(void)state;
	memset(&asid, 0x5a, sizeof(asid));
	pt_asid_init(&asid);
	assert_int_equal(asid.size, sizeof(asid));
	assert_true(asid.cr3 == pt_asid_no_cr3);
	assert_true(asid.vmcs == pt_asid_no_vmcs);
}

static void test_alloc_name(void **state)
{
	struct pt_image *image;
	char name[8] = "img";

	(void)state;
	image = pt_image_alloc(name);
	assert_non_null(image);
	name[0] = 'X';
	assert_string_equal(pt_image_name(image), "img");
	pt_image_free(image);
	image = pt_image_alloc(NULL);
	assert_non_null(image);
	assert_null(pt_image_name(image));
	assert_null(pt_image_name(NULL));
	pt_image_free(image);
	pt_image_free(NULL);
}

static void test_errors(void **state)
{
	struct pt_image_section_cache *iscache = pt_iscache_alloc(NULL);
	struct pt_image *image = pt_image_alloc(NULL);
	struct ptd_ti_dir dir;
	struct ptd_msec msec;
	const char *f;
	uint8_t buf[16];
	int isid;

	(void)state;
	ptd_ti_dir_open(&dir);
	f = ptd_ti_file(&dir, "f", 1, 100);

	assert_int_equal(pt_image_add_file(NULL, f, 0, 1, NULL, 0),
	                 -pte_invalid);
	assert_int_equal(pt_image_add_file(image, NULL, 0, 1, NULL, 0),
	                 -pte_invalid);
	assert_int_equal(
	        pt_image_add_file(image, "/nonexistent/ptd", 0, 1, NULL, 0),
	        -pte_invalid);
	assert_int_equal(pt_image_add_file(image, f, 100, 1, NULL, 0),
	                 -pte_invalid);
	assert_int_equal(pt_image_add_file(image, f, UINT64_MAX, 1, NULL, 0),
	                 -pte_invalid);
	assert_int_equal(pt_image_add_cached(NULL, iscache, 1, NULL),
	                 -pte_invalid);
	assert_int_equal(pt_image_add_cached(image, NULL, 1, NULL),
	                 -pte_invalid);
	assert_int_equal(pt_image_add_cached(image, iscache, 1, NULL),
	                 -pte_bad_image);
	assert_int_equal(pt_image_add_cached(image, iscache, 0, NULL),
	                 -pte_bad_image);
	assert_int_equal(pt_image_add_cached(image, iscache, -1, NULL),
	                 -pte_bad_image);
	assert_int_equal(pt_image_copy(NULL, image), -pte_invalid);
	assert_int_equal(pt_image_copy(image, NULL), -pte_invalid);
	assert_int_equal(pt_image_remove_by_filename(NULL, f, NULL),
	                 -pte_invalid);
	assert_int_equal(pt_image_remove_by_filename(image, NULL, NULL),
	                 -pte_invalid);
	assert_int_equal(pt_image_remove_by_asid(NULL, NULL), -pte_invalid);
	assert_int_equal(pt_image_set_callback(NULL, NULL, NULL), -pte_invalid);
	assert_int_equal(ptd_image_add_buffer(NULL, buf, 1, NULL, 0, 1),
	                 -pte_invalid);
	assert_int_equal(ptd_image_add_buffer(image, NULL, 1, NULL, 0, 1),
	                 -pte_invalid);
	assert_int_equal(ptd_image_read_memory(NULL, buf, 1, NULL, 0),
	                 -pte_invalid);
	assert_int_equal(ptd_image_read_memory(image, NULL, 1, NULL, 0),
	                 -pte_invalid);
	assert_int_equal(ptd_image_read_memory(image, buf, 0, NULL, 0),
	                 -pte_invalid);
	assert_int_equal(ptd_image_find(NULL, &msec, NULL, 0), -pte_invalid);
	assert_int_equal(ptd_image_find(image, NULL, NULL, 0), -pte_invalid);
	assert_int_equal(ptd_image_read(NULL, &isid, buf, 1, NULL, 0),
	                 -pte_invalid);
	assert_int_equal(ptd_image_read(image, NULL, buf, 1, NULL, 0),
	                 -pte_invalid);
	assert_int_equal(ptd_image_read(image, &isid, NULL, 1, NULL, 0),
	                 -pte_invalid);
	assert_int_equal(ptd_image_read(image, &isid, buf, 0, NULL, 0),
	                 -pte_invalid);
	assert_int_equal(ptd_image_generation(NULL), 0);
	assert_null(ptd_section_cache(NULL));
	assert_int_equal(ptd_section_set_cache(NULL, buf, NULL), -pte_invalid);

	/* Nothing was added by the failed calls. */
	assert_int_equal(pt_image_remove_by_asid(image, NULL), 0);
	check_nomap(image, NULL, 0);

	pt_image_free(image);
	pt_iscache_free(iscache);
	ptd_ti_dir_close(&dir);
}

static void test_add_read(void **state)
{
	struct pt_image *image = pt_image_alloc("t");
	struct ptd_ti_dir dir;
	struct ptd_msec msec;
	const char *f;

	(void)state;
	ptd_ti_dir_open(&dir);
	f = ptd_ti_file(&dir, "f", 1, 1000);

	assert_int_equal(pt_image_add_file(image, f, 100, 200, NULL, 0x4000),
	                 0);
	check_bytes(image, NULL, 0x4000, 1, 100, 16);
	check_bytes(image, NULL, 0x40c0, 1, 292, 8);
	check_nomap(image, NULL, 0x3fff);
	check_nomap(image, NULL, 0x40c8);

	/* A read stops at the end of the section. */
	{
		uint8_t buf[64];
		int isid = -1;

		assert_int_equal(
		        ptd_image_read_memory(image, buf, 64, NULL, 0x40c0), 8);
		assert_int_equal(
		        ptd_image_read(image, &isid, buf, 64, NULL, 0x40c0), 8);
		assert_int_equal(isid, 0);
	}
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x4050), 0);
	assert_int_equal(msec.vaddr, 0x4000);
	assert_int_equal(msec.size, 200);
	assert_int_equal(msec.isid, 0);
	assert_non_null(msec.section);

	/* Cut at the end of the file. */
	assert_int_equal(pt_image_add_file(image, f, 900, 1000, NULL, 0x9000),
	                 0);
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x9000), 0);
	assert_int_equal(msec.size, 100);
	check_bytes(image, NULL, 0x9060, 1, 996, 4);
	check_nomap(image, NULL, 0x9064);

	/* Cut at the end of the address space. */
	assert_int_equal(pt_image_add_file(image, f, 0, 1000, NULL,
	                                   UINT64_C(0xfffffffffffffff0)),
	                 0);
	assert_int_equal(ptd_image_find(image, &msec, NULL, UINT64_MAX), 0);
	assert_int_equal(msec.size, 16);
	check_bytes(image, NULL, UINT64_C(0xfffffffffffffff0), 1, 0, 16);

	/* An empty section is never found. */
	assert_int_equal(pt_image_add_file(image, f, 0, 0, NULL, 0x20000), 0);
	check_nomap(image, NULL, 0x20000);

	assert_int_equal(pt_image_remove_by_filename(image, f, NULL), 4);
	check_nomap(image, NULL, 0x4000);
	pt_image_free(image);
	ptd_ti_dir_close(&dir);
}

/* Sections of one address space: the newest wins, older ones shrink or
 * split, and the pieces keep their bytes. */
static void test_overlap(void **state)
{
	struct pt_image *image = pt_image_alloc(NULL);
	struct ptd_ti_dir dir;
	const char *a, *b;

	(void)state;
	ptd_ti_dir_open(&dir);
	a = ptd_ti_file(&dir, "a", 1, 0x1000);
	b = ptd_ti_file(&dir, "b", 2, 0x1000);

	/* Split: b in the middle of a. */
	assert_int_equal(pt_image_add_file(image, a, 0, 0x100, NULL, 0x1000),
	                 0);
	check_bytes(image, NULL, 0x1040, 1, 0x40, 16); /* map a first */
	assert_int_equal(pt_image_add_file(image, b, 0x800, 0x10, NULL, 0x1040),
	                 0);
	check_bytes(image, NULL, 0x1000, 1, 0, 0x40);
	check_bytes(image, NULL, 0x1040, 2, 0x800, 0x10);
	check_bytes(image, NULL, 0x1050, 1, 0x50, 0xb0);
	{
		uint8_t buf[0x100];

		/* Reads stop at the end of a piece. */
		assert_int_equal(
		        ptd_image_read_memory(image, buf, 0x100, NULL, 0x1000),
		        0x40);
	}
	assert_int_equal(pt_image_remove_by_filename(image, b, NULL), 1);
	check_nomap(image, NULL, 0x1040);
	check_bytes(image, NULL, 0x103f, 1, 0x3f, 1);
	assert_int_equal(pt_image_remove_by_filename(image, a, NULL), 2);

	/* Shrink at the front and at the back, and a piece of a piece. */
	assert_int_equal(pt_image_add_file(image, a, 0, 0x100, NULL, 0x1000),
	                 0);
	assert_int_equal(pt_image_add_file(image, b, 0, 0x100, NULL, 0x0f80),
	                 0);
	assert_int_equal(
	        pt_image_add_file(image, b, 0x200, 0x100, NULL, 0x10c0), 0);
	check_bytes(image, NULL, 0x0f80, 2, 0, 0x80);
	check_bytes(image, NULL, 0x1000, 2, 0x80, 0x80);
	check_bytes(image, NULL, 0x1080, 1, 0x80, 0x40);
	check_bytes(image, NULL, 0x10c0, 2, 0x200, 0x100);
	assert_int_equal(pt_image_add_file(image, b, 0x300, 0x10, NULL, 0x1090),
	                 0);
	check_bytes(image, NULL, 0x1080, 1, 0x80, 0x10);
	check_bytes(image, NULL, 0x1090, 2, 0x300, 0x10);
	check_bytes(image, NULL, 0x10a0, 1, 0xa0, 0x20);
	assert_int_equal(pt_image_remove_by_filename(image, a, NULL), 2);
	assert_int_equal(pt_image_remove_by_filename(image, b, NULL), 3);

	/* Covering a section whole removes it; the same range again
	 * replaces it. */
	assert_int_equal(pt_image_add_file(image, a, 0x10, 0x10, NULL, 0x1000),
	                 0);
	assert_int_equal(pt_image_add_file(image, a, 0x10, 0x10, NULL, 0x1000),
	                 0);
	assert_int_equal(pt_image_add_file(image, b, 0, 0x40, NULL, 0x0ff0), 0);
	check_bytes(image, NULL, 0x1000, 2, 0x10, 0x10);
	assert_int_equal(pt_image_remove_by_filename(image, a, NULL), 0);
	assert_int_equal(pt_image_remove_by_filename(image, b, NULL), 1);

	/* As in libipt, an empty section inside another splits it. */
	assert_int_equal(pt_image_add_file(image, a, 0, 0x100, NULL, 0x1000),
	                 0);
	assert_int_equal(pt_image_add_file(image, b, 0, 0, NULL, 0x1080), 0);
	check_bytes(image, NULL, 0x1070, 1, 0x70, 0x10);
	check_bytes(image, NULL, 0x1080, 1, 0x80, 0x10);
	assert_int_equal(pt_image_remove_by_filename(image, a, NULL), 2);
	assert_int_equal(pt_image_remove_by_filename(image, b, NULL), 1);

	pt_image_free(image);
	ptd_ti_dir_close(&dir);
}

/* Address spaces: unknown fields match anything; sections of address
 * spaces that do not match each other may overlap. */
static void test_asid(void **state)
{
	struct pt_image *image = pt_image_alloc(NULL);
	struct pt_asid c1 = ptd_ti_asid(0x1000, pt_asid_no_vmcs);
	struct pt_asid c2 = ptd_ti_asid(0x2000, pt_asid_no_vmcs);
	struct pt_asid c3 = ptd_ti_asid(0x3000, pt_asid_no_vmcs);
	struct pt_asid c1v = ptd_ti_asid(0x1000, 0x5000);
	struct pt_asid c1w = ptd_ti_asid(0x1000, 0x6000);
	struct pt_asid any = ptd_ti_asid(pt_asid_no_cr3, pt_asid_no_vmcs);
	struct pt_asid small = c3;
	struct ptd_ti_dir dir;
	struct ptd_msec msec;
	const char *a, *b;

	(void)state;
	ptd_ti_dir_open(&dir);
	a = ptd_ti_file(&dir, "a", 1, 0x2000);
	b = ptd_ti_file(&dir, "b", 2, 0x2000);

	assert_int_equal(pt_image_add_file(image, a, 0, 0x1000, &c1, 0x10000),
	                 0);
	assert_int_equal(pt_image_add_file(image, b, 0, 0x100, &c2, 0x10400),
	                 0);
	check_bytes(image, &c1, 0x10400, 1, 0x400, 16);
	check_bytes(image, &c2, 0x10400, 2, 0, 16);
	check_bytes(image, &c1v, 0x10400, 1, 0x400, 16);
	check_nomap(image, &c3, 0x10400);
	check_nomap(image, &c2, 0x10000);

	/* Any address space: the newest section wins where both hold the
	 * address, and the older one only in the parts around it. */
	check_bytes(image, &any, 0x10400, 2, 0, 16);
	check_bytes(image, NULL, 0x10400, 2, 0, 16);
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x10410), 0);
	assert_int_equal(msec.vaddr, 0x10400);
	assert_int_equal(msec.size, 0x100);
	assert_non_null(msec.section);
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x10010), 0);
	assert_int_equal(msec.vaddr, 0x10000);
	assert_int_equal(msec.size, 0x400);
	assert_null(msec.section);
	assert_int_equal(msec.begin[0], ptd_ti_byte(1, 0));
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x10fff), 0);
	assert_int_equal(msec.vaddr, 0x10500);
	assert_int_equal(msec.size, 0xb00);
	assert_null(msec.section);
	assert_int_equal(msec.begin[0], ptd_ti_byte(1, 0x500));
	/* In c1 the section is whole again. */
	assert_int_equal(ptd_image_find(image, &msec, &c1, 0x10fff), 0);
	assert_int_equal(msec.vaddr, 0x10000);
	assert_int_equal(msec.size, 0x1000);
	assert_non_null(msec.section);

	/* A VMCS narrows the match. */
	assert_int_equal(
	        pt_image_add_file(image, b, 0x800, 0x10, &c1v, 0x10800), 0);
	check_bytes(image, &c1v, 0x10800, 2, 0x800, 16);
	check_bytes(image, &c1, 0x10800, 2, 0x800, 16); /* c1 matches c1v */
	check_nomap(image, &c1w, 0x10800);
	check_bytes(image, &c1w, 0x107f0, 1, 0x7f0, 16);

	/* An asid whose size leaves out a field has that field unknown. */
	small.size = offsetof(struct pt_asid, vmcs);
	assert_int_equal(pt_image_remove_by_asid(image, &small), 0);
	small.size = 0;
	assert_int_equal(
	        pt_image_add_file(image, a, 0x1000, 0x10, &small, 0x30000), 0);
	check_bytes(image, &c3, 0x30000, 1, 0x1000, 16);

	/* Removal by address space matches as lookups do. */
	assert_int_equal(pt_image_remove_by_asid(image, &c2), 2);
	check_nomap(image, &c2, 0x30000);
	check_bytes(image, &c1, 0x10400, 1, 0x400, 16);
	assert_int_equal(pt_image_remove_by_asid(image, &c1w), 2);
	check_bytes(image, &c1v, 0x10800, 2, 0x800, 16);
	assert_int_equal(pt_image_remove_by_filename(image, b, &c3), 0);
	assert_int_equal(pt_image_remove_by_filename(image, b, &c1v), 1);
	assert_int_equal(pt_image_remove_by_asid(image, NULL), 0);

	pt_image_free(image);
	ptd_ti_dir_close(&dir);
}

static void test_copy(void **state)
{
	struct pt_image_section_cache *iscache = pt_iscache_alloc(NULL);
	struct pt_image *src = pt_image_alloc("src");
	struct pt_image *dst = pt_image_alloc("dst");
	struct pt_asid c1 = ptd_ti_asid(0x1000, pt_asid_no_vmcs);
	struct ptd_ti_dir dir;
	struct ptd_msec msec;
	const char *a, *b;
	int isid;

	(void)state;
	ptd_ti_dir_open(&dir);
	a = ptd_ti_file(&dir, "a", 1, 0x1000);
	b = ptd_ti_file(&dir, "b", 2, 0x1000);

	isid = pt_iscache_add_file(iscache, a, 0, 0x1000, 0x20000);
	assert_true(isid > 0);
	assert_int_equal(pt_image_add_cached(src, iscache, isid, &c1), 0);
	assert_int_equal(pt_image_add_file(src, b, 0, 0x100, NULL, 0x20100), 0);
	assert_int_equal(pt_image_add_file(dst, b, 0x200, 0x10, NULL, 0x20010),
	                 0);

	assert_int_equal(pt_image_copy(dst, src), 0);
	assert_int_equal(pt_image_copy(src, src), 0);
	check_bytes(dst, &c1, 0x20000, 1, 0, 16);
	check_bytes(dst, &c1, 0x20100, 2, 0, 16);
	check_bytes(dst, &c1, 0x20200, 1, 0x200, 16);
	/* The isid comes along, also for the pieces of a split. */
	assert_int_equal(ptd_image_find(dst, &msec, &c1, 0x20200), 0);
	assert_int_equal(msec.isid, isid);
	assert_int_equal(ptd_image_find(dst, &msec, &c1, 0x20000), 0);
	assert_int_equal(msec.isid, isid);
	/* The copied sections replaced dst's own where they overlap. */
	check_bytes(dst, &c1, 0x20010, 1, 0x10, 16);
	assert_int_equal(pt_image_remove_by_filename(dst, b, NULL), 1);
	assert_int_equal(pt_image_remove_by_filename(dst, a, NULL), 2);
	assert_int_equal(pt_image_remove_by_asid(dst, NULL), 0);

	/* The copy outlives its source. */
	assert_int_equal(pt_image_copy(dst, src), 0);
	pt_image_free(src);
	pt_iscache_free(iscache);
	check_bytes(dst, &c1, 0x20000, 1, 0, 16);
	check_bytes(dst, NULL, 0x20100, 2, 0, 16);
	pt_image_free(dst);
	ptd_ti_dir_close(&dir);
}

struct cb_state {
	unsigned calls;
	uint64_t ip;
	struct pt_asid asid;
	size_t size;
};

static int read_cb(uint8_t *buffer, size_t size, const struct pt_asid *asid,
                   uint64_t ip, void *context)
{
	struct cb_state *st = context;
	size_t i;

	st->calls += 1;
	st->ip = ip;
	st->asid = *asid;
	st->size = size;
	if (ip >= 0x90000)
		return -pte_nomap;
	for (i = 0; i < size && i < 3; ++i)
		buffer[i] = (uint8_t)(ip + i);
	return (int)i;
}

static void test_callback(void **state)
{
	struct pt_image *image = pt_image_alloc(NULL), *copy;
	struct pt_asid c1 = ptd_ti_asid(0x1000, 0x77);
	struct cb_state st;
	struct ptd_ti_dir dir;
	struct ptd_msec msec;
	uint8_t buf[16];
	uint64_t gen;
	int isid = 99;

	(void)state;
	memset(&st, 0, sizeof(st));
	ptd_ti_dir_open(&dir);
	assert_int_equal(pt_image_add_file(image,
	                                   ptd_ti_file(&dir, "a", 1, 0x100), 0,
	                                   0x100, NULL, 0x1000),
	                 0);
	gen = ptd_image_generation(image);
	assert_int_equal(pt_image_set_callback(image, read_cb, &st), 0);
	assert_true(ptd_image_generation(image) != gen);

	/* Sections first, then the callback. */
	check_bytes(image, &c1, 0x1000, 1, 0, 16);
	assert_int_equal(st.calls, 0);
	assert_int_equal(ptd_image_read(image, &isid, buf, 16, &c1, 0x2040), 3);
	assert_int_equal(isid, 0);
	assert_int_equal(st.calls, 1);
	assert_int_equal(st.ip, 0x2040);
	assert_int_equal(st.size, 16);
	assert_true(st.asid.cr3 == 0x1000 && st.asid.vmcs == 0x77);
	assert_int_equal(buf[0], 0x40);
	assert_int_equal(buf[2], 0x42);
	assert_int_equal(ptd_image_read_memory(image, buf, 2, NULL, 0x2050), 2);
	assert_true(st.asid.cr3 == pt_asid_no_cr3);
	assert_int_equal(buf[1], 0x51);
	assert_int_equal(ptd_image_read(image, &isid, buf, 16, &c1, 0x90000),
	                 -pte_nomap);
	/* ptd_image_find() never calls it. */
	st.calls = 0;
	assert_int_equal(ptd_image_find(image, &msec, &c1, 0x2040), -pte_nomap);
	assert_int_equal(st.calls, 0);

	/* pt_image_copy() does not copy it. */
	copy = pt_image_alloc(NULL);
	assert_int_equal(pt_image_copy(copy, image), 0);
	check_nomap(copy, NULL, 0x2040);
	pt_image_free(copy);

	assert_int_equal(pt_image_set_callback(image, NULL, NULL), 0);
	check_nomap(image, NULL, 0x2040);
	pt_image_free(image);
	ptd_ti_dir_close(&dir);
}

/* Files are mapped on first use, and stay mapped while the image holds
 * the section. */
static void test_lazy_map(void **state)
{
	struct pt_image *image = pt_image_alloc(NULL);
	struct ptd_section *sec;
	struct ptd_ti_dir dir;
	struct ptd_msec msec;
	struct timespec times[2];
	struct stat st;
	const char *a, *gone;
	uint64_t gen;

	(void)state;
	ptd_ti_dir_open(&dir);
	a = ptd_ti_file(&dir, "a", 1, 0x3000);
	gone = ptd_ti_file(&dir, "gone", 2, 0x100);

	assert_int_equal(
	        pt_image_add_file(image, a, 0x1001, 0x1800, NULL, 0x7000), 0);
	sec = image->entries[0].sec;
	assert_false(ptd_section_is_mapped(sec));
	gen = ptd_image_generation(image);
	check_bytes(image, NULL, 0x7000, 1, 0x1001, 64);
	assert_true(ptd_section_is_mapped(sec));
	assert_int_equal(ptd_image_generation(image), gen);
	check_bytes(image, NULL, 0x87f0, 1, 0x27f1, 16);

	/* A file that is gone when it is first used, or that changed since
	 * it was added (another size or change time: a rebuilt binary):
	 * -pte_bad_image, as libipt says; it is tried again at the next
	 * lookup. */
	assert_int_equal(pt_image_add_file(image, gone, 0, 0x100, NULL, 0x9000),
	                 0);
	assert_true(ptd_image_generation(image) != gen);
	assert_int_equal(stat(gone, &st), 0);
	assert_int_equal(unlink(gone), 0);
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x9000),
	                 -pte_bad_image);
	{
		uint8_t buf[4];

		assert_int_equal(
		        ptd_image_read_memory(image, buf, 4, NULL, 0x9000),
		        -pte_bad_image);
	}
	ptd_ti_file(&dir, "gone", 2, 0x80);
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x9000),
	                 -pte_bad_image);
	ptd_ti_file(&dir, "gone", 3, 0x100);
	times[0].tv_sec = times[1].tv_sec = st.st_mtime + 10;
	times[0].tv_nsec = times[1].tv_nsec = 0;
	assert_int_equal(utimensat(AT_FDCWD, gone, times, 0), 0);
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x9000),
	                 -pte_bad_image);
	/* The size and change time it had: taken (as by libipt). */
	times[0].tv_sec = times[1].tv_sec = st.st_mtime;
	assert_int_equal(utimensat(AT_FDCWD, gone, times, 0), 0);
	check_bytes(image, NULL, 0x9000, 3, 0, 16);

	pt_image_free(image);
	ptd_ti_dir_close(&dir);
}

static void test_buffer(void **state)
{
	struct pt_image *image = pt_image_alloc(NULL);
	uint8_t mem[64], borrowed[64];
	struct ptd_msec msec;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(mem); ++i) {
		mem[i] = ptd_ti_byte(4, i);
		borrowed[i] = ptd_ti_byte(5, i);
	}
	assert_int_equal(ptd_image_add_buffer(image, mem, 64, NULL, 0x100, 1),
	                 0);
	assert_int_equal(
	        ptd_image_add_buffer(image, borrowed, 64, NULL, 0x200, 0), 0);
	memset(mem, 0, sizeof(mem));
	check_bytes(image, NULL, 0x100, 4, 0, 64);
	check_bytes(image, NULL, 0x200, 5, 0, 64);
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x210), 0);
	assert_ptr_equal(msec.begin, borrowed);
	borrowed[0x10] ^= 0xff;
	assert_int_equal(ptd_image_read_memory(image, mem, 1, NULL, 0x210), 1);
	assert_int_equal(mem[0], borrowed[0x10]);
	borrowed[0x10] ^= 0xff;

	/* Buffers overlap like files, and have no file name. */
	assert_int_equal(
	        ptd_image_add_buffer(image, borrowed, 16, NULL, 0x120, 1), 0);
	check_bytes(image, NULL, 0x110, 4, 0x10, 16);
	check_bytes(image, NULL, 0x120, 5, 0, 16);
	check_bytes(image, NULL, 0x130, 4, 0x30, 16);
	assert_int_equal(pt_image_remove_by_filename(image, "", NULL), 0);
	assert_int_equal(ptd_image_add_buffer(image, mem, 0, NULL, 0x400, 0),
	                 0);
	check_nomap(image, NULL, 0x400);
	assert_int_equal(pt_image_remove_by_asid(image, NULL), 5);
	pt_image_free(image);
}

static unsigned freed_caches;

static void free_cache(void *cache)
{
	freed_caches += 1;
	free(cache);
}

/* The flow layer's cache slot and the last-lookup memory. */
static void test_flow_interface(void **state)
{
	struct pt_image *image = pt_image_alloc(NULL), *copy;
	struct ptd_msec msec, again;
	struct ptd_ti_dir dir;
	const char *a;
	void *cache;
	uint64_t gen;

	(void)state;
	ptd_ti_dir_open(&dir);
	a = ptd_ti_file(&dir, "a", 1, 0x400);
	assert_int_equal(pt_image_add_file(image, a, 0, 0x200, NULL, 0x1000),
	                 0);
	assert_int_equal(
	        pt_image_add_file(image, a, 0x200, 0x200, NULL, 0x1200), 0);
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x1000), 0);
	assert_null(ptd_section_cache(msec.section));
	cache = malloc(16);
	assert_non_null(cache);
	freed_caches = 0;
	assert_int_equal(ptd_section_set_cache(msec.section, cache, free_cache),
	                 0);
	assert_ptr_equal(ptd_section_cache(msec.section), cache);
	assert_int_equal(ptd_section_set_cache(msec.section, &again, NULL),
	                 -pte_bad_context);

	/* Lookups alternate between two sections and come back. */
	assert_int_equal(ptd_image_find(image, &again, NULL, 0x1300), 0);
	assert_int_equal(again.vaddr, 0x1200);
	assert_int_equal(again.begin[0], ptd_ti_byte(1, 0x200));
	assert_null(ptd_section_cache(again.section));
	assert_int_equal(ptd_image_find(image, &again, NULL, 0x11ff), 0);
	assert_ptr_equal(again.section, msec.section);
	assert_ptr_equal(again.begin, msec.begin);
	check_nomap(image, NULL, 0x1400);
	check_nomap(image, NULL, 0xfff);

	/* A copy shares the section and its cache. */
	copy = pt_image_alloc(NULL);
	assert_int_equal(pt_image_copy(copy, image), 0);
	assert_int_equal(ptd_image_find(copy, &again, NULL, 0x1000), 0);
	assert_ptr_equal(again.section, msec.section);
	assert_ptr_equal(ptd_section_cache(again.section), cache);

	/* Removal changes the generation and forgets the last lookup. */
	gen = ptd_image_generation(image);
	assert_int_equal(pt_image_remove_by_asid(image, NULL), 2);
	assert_true(ptd_image_generation(image) != gen);
	check_nomap(image, NULL, 0x1000);
	gen = ptd_image_generation(image);
	assert_int_equal(pt_image_remove_by_asid(image, NULL), 0);
	assert_int_equal(ptd_image_generation(image), gen);
	assert_int_equal(freed_caches, 0);
	pt_image_free(copy);
	assert_int_equal(freed_caches, 1);

	pt_image_free(image);
	ptd_ti_dir_close(&dir);
}

/* Many sections: lookups (through the sorted index, or with overlapping
 * address spaces through the newest-first search, and through the windows
 * of recent lookups) agree with a plain model of the image. */
enum { many = 100 };

struct model_sec {
	uint64_t vaddr, size;
	uint64_t cr3;
	uint8_t byte;
};

/* The byte the model has at @vaddr for @cr3, or -1. */
static int model_byte(const struct model_sec *m, size_t n, uint64_t cr3,
                      uint64_t vaddr)
{
	size_t i;

	for (i = n; i-- > 0;)
		if (vaddr - m[i].vaddr < m[i].size &&
		    (m[i].cr3 == pt_asid_no_cr3 || cr3 == pt_asid_no_cr3 ||
		     m[i].cr3 == cr3))
			return m[i].byte;
	return -1;
}

static void check_model(struct pt_image *image, const struct model_sec *m,
                        size_t n, unsigned seed)
{
	unsigned x = seed, i;

	for (i = 0; i < 20000; ++i) {
		struct pt_asid asid;
		uint8_t byte;
		uint64_t vaddr, cr3;
		int want, got, isid;

		x = x * 1103515245u + 12345u;
		/* Mostly near the last few addresses, sometimes anywhere. */
		vaddr = 0x100000 + (uint64_t)((x >> 4) % (many + 2)) * 0x1000 +
		        ((x >> 16) & 0xfff) - 0x80;
		cr3 = (x >> 28) % 3 ? 0x1000 : pt_asid_no_cr3;
		asid = ptd_ti_asid(cr3, pt_asid_no_vmcs);
		want = model_byte(m, n, cr3, vaddr);
		got = ptd_image_read(image, &isid, &byte, 1, &asid, vaddr);
		if (want < 0)
			assert_int_equal(got, -pte_nomap);
		else {
			assert_int_equal(got, 1);
			assert_int_equal(byte, want);
		}
	}
}

static void test_many_sections(void **state)
{
	static uint8_t pages[many][0x1000];
	struct model_sec m[many + 8];
	struct pt_image *image = pt_image_alloc(NULL);
	struct pt_asid c1 = ptd_ti_asid(0x1000, pt_asid_no_vmcs);
	struct pt_asid c2 = ptd_ti_asid(0x2000, pt_asid_no_vmcs);
	uint8_t other[0x1800];
	size_t n = 0, i;

	(void)state;
	/* Sections of 0xc00 bytes every 0x1000, added in a shuffled order,
	 * with empty sections among them. */
	for (i = 0; i < many; ++i) {
		size_t k = (i * 37) % many;

		memset(pages[k], (int)(k + 1), sizeof(pages[k]));
		assert_int_equal(ptd_image_add_buffer(image, pages[k], 0xc00,
		                                      &c1,
		                                      0x100000 + k * 0x1000, 0),
		                 0);
		m[n].vaddr = 0x100000 + k * 0x1000;
		m[n].size = 0xc00;
		m[n].cr3 = 0x1000;
		m[n++].byte = (uint8_t)(k + 1);
		if (k % 10 == 3) {
			assert_int_equal(ptd_image_add_buffer(
			                         image, pages[k], 0, &c1,
			                         0x100000 + k * 0x1000 + 0xc00,
			                         0),
			                 0);
		}
	}
	check_model(image, m, n, 1);

	/* A section of another address space over several of them: the
	 * image now has overlapping sections. */
	memset(other, 0xee, sizeof(other));
	assert_int_equal(ptd_image_add_buffer(image, other, sizeof(other), &c2,
	                                      0x100000 + 40 * 0x1000 + 0x100,
	                                      0),
	                 0);
	m[n].vaddr = 0x100000 + 40 * 0x1000 + 0x100;
	m[n].size = sizeof(other);
	m[n].cr3 = 0x2000;
	m[n++].byte = 0xee;
	check_model(image, m, n, 2);
	/* And one of any address space, which splits a c1 section. */
	assert_int_equal(ptd_image_add_buffer(image, other, 0x10, NULL,
	                                      0x100000 + 70 * 0x1000 + 0x200,
	                                      0),
	                 0);
	m[n].vaddr = 0x100000 + 70 * 0x1000 + 0x200;
	m[n].size = 0x10;
	m[n].cr3 = pt_asid_no_cr3;
	m[n++].byte = 0xee;
	check_model(image, m, n, 3);

	/* Without the overlap, the sorted index again. */
	assert_int_equal(pt_image_remove_by_asid(image, &c2), 2);
	n -= 2;
	m[n].vaddr = 0x100000 + 70 * 0x1000 + 0x200;
	m[n].size = 0x10;
	m[n].cr3 = pt_asid_no_cr3;
	m[n++].byte = 0xee;
	/* (The c2 section and the any section went; put the any one back.) */
	assert_int_equal(ptd_image_add_buffer(image, other, 0x10, NULL,
	                                      0x100000 + 70 * 0x1000 + 0x200,
	                                      0),
	                 0);
	check_model(image, m, n, 4);
	pt_image_free(image);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_asid_init),
	        cmocka_unit_test(test_alloc_name),
	        cmocka_unit_test(test_errors),
	        cmocka_unit_test(test_add_read),
	        cmocka_unit_test(test_overlap),
	        cmocka_unit_test(test_asid),
	        cmocka_unit_test(test_copy),
	        cmocka_unit_test(test_callback),
	        cmocka_unit_test(test_lazy_map),
	        cmocka_unit_test(test_buffer),
	        cmocka_unit_test(test_flow_interface),
	        cmocka_unit_test(test_many_sections),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
