/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the image section cache: pt_iscache_*, isids, reads, the
 * limit and its least-recently-used unmapping, buffers, sharing sections
 * with images, and images in several threads sharing one cache. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptdecode/ptdecode.h"

#include "test_image_util.h"
#include "test_util.h"

#include "image/image.h"
#include "image/iscache.h"
#include "image/section.h"

/* Whether section @isid of @iscache is mapped now. */
static int is_mapped(struct pt_image_section_cache *iscache, int isid)
{
	struct ptd_section *sec;
	int mapped;

	assert_int_equal(ptd_iscache_lookup(iscache, isid, &sec), 0);
	mapped = ptd_section_is_mapped(sec);
	ptd_section_put(sec);
	return mapped;
}

static void test_alloc_name(void **state)
{
	struct pt_image_section_cache *iscache;
	char name[8] = "ic";

	(void)state;
	iscache = pt_iscache_alloc(name);
	assert_non_null(iscache);
	name[0] = 'X';
	assert_string_equal(pt_iscache_name(iscache), "ic");
	pt_iscache_free(iscache);
	iscache = pt_iscache_alloc(NULL);
	assert_null(pt_iscache_name(iscache));
	assert_null(pt_iscache_name(NULL));
	pt_iscache_free(iscache);
	pt_iscache_free(NULL);
}

static void test_add_file(void **state)
{
	struct pt_image_section_cache *iscache = pt_iscache_alloc(NULL);
	struct ptd_ti_dir dir;
	const char *a, *b;
	int i1, i2, i3, i4;

	(void)state;
	ptd_ti_dir_open(&dir);
	a = ptd_ti_file(&dir, "a", 1, 1000);
	b = ptd_ti_file(&dir, "b", 2, 1000);

	assert_int_equal(pt_iscache_add_file(NULL, a, 0, 1, 0), -pte_invalid);
	assert_int_equal(pt_iscache_add_file(iscache, NULL, 0, 1, 0),
	                 -pte_invalid);
	assert_int_equal(
	        pt_iscache_add_file(iscache, "/nonexistent/ptd", 0, 1, 0),
	        -pte_invalid);
	assert_int_equal(pt_iscache_add_file(iscache, a, 1000, 1, 0),
	                 -pte_invalid);

	i1 = pt_iscache_add_file(iscache, a, 0, 100, 0x1000);
	assert_true(i1 > 0);
	assert_int_equal(pt_iscache_add_file(iscache, a, 0, 100, 0x1000), i1);
	i2 = pt_iscache_add_file(iscache, a, 0, 100, 0x2000);
	i3 = pt_iscache_add_file(iscache, a, 1, 100, 0x1000);
	i4 = pt_iscache_add_file(iscache, b, 0, 100, 0x1000);
	assert_true(i2 > 0 && i3 > 0 && i4 > 0);
	assert_true(i2 != i1 && i3 != i1 && i4 != i1 && i3 != i2 && i4 != i2 &&
	            i4 != i3);
	/* The same section after the cut at the end of the file. */
	i1 = pt_iscache_add_file(iscache, a, 900, 5000, 0x1000);
	assert_true(i1 > 0);
	assert_int_equal(pt_iscache_add_file(iscache, a, 900, 100, 0x1000), i1);
	/* Empty sections are allowed. */
	assert_true(pt_iscache_add_file(iscache, a, 0, 0, 0x1000) > 0);

	pt_iscache_free(iscache);
	ptd_ti_dir_close(&dir);
}

static void test_read(void **state)
{
	struct pt_image_section_cache *iscache = pt_iscache_alloc(NULL);
	struct ptd_ti_dir dir;
	uint8_t buf[1200];
	int isid, i;

	(void)state;
	ptd_ti_dir_open(&dir);
	isid = pt_iscache_add_file(iscache, ptd_ti_file(&dir, "a", 1, 1000),
	                           100, 800, 0x1000);
	assert_true(isid > 0);

	assert_int_equal(pt_iscache_read(iscache, buf, 16, isid, 0x1010), 16);
	for (i = 0; i < 16; ++i)
		assert_int_equal(buf[i], ptd_ti_byte(1, 116 + i));
	/* The rest of the section in one read, never more. */
	assert_int_equal(
	        pt_iscache_read(iscache, buf, sizeof(buf), isid, 0x1000), 800);
	for (i = 0; i < 800; ++i)
		assert_int_equal(buf[i], ptd_ti_byte(1, 100 + i));
	assert_int_equal(
	        pt_iscache_read(iscache, buf, UINT64_MAX, isid, 0x131f), 1);
	assert_int_equal(buf[0], ptd_ti_byte(1, 899));

	/* At most 65535 bytes per read, as libipt. */
	{
		uint8_t *big = malloc(0x12000);
		int bid;

		assert_non_null(big);
		bid = pt_iscache_add_file(iscache,
		                          ptd_ti_file(&dir, "big", 2, 0x12000),
		                          0, 0x12000, 0x100000);
		assert_true(bid > 0);
		assert_int_equal(
		        pt_iscache_read(iscache, big, 0x12000, bid, 0x100000),
		        0xffff);
		assert_int_equal(big[0xfffe], ptd_ti_byte(2, 0xfffe));
		assert_int_equal(
		        pt_iscache_read(iscache, big, 0x12000, bid, 0x10ffff),
		        0x12000 - 0xffff);
		free(big);
	}

	assert_int_equal(pt_iscache_read(NULL, buf, 1, isid, 0x1000),
	                 -pte_invalid);
	assert_int_equal(pt_iscache_read(iscache, NULL, 1, isid, 0x1000),
	                 -pte_invalid);
	assert_int_equal(pt_iscache_read(iscache, buf, 0, isid, 0x1000),
	                 -pte_invalid);
	/* (isid + 1 is the big section.) */
	assert_int_equal(pt_iscache_read(iscache, buf, 1, isid + 2, 0x1000),
	                 -pte_bad_image);
	assert_int_equal(pt_iscache_read(iscache, buf, 1, 0, 0x1000),
	                 -pte_bad_image);
	assert_int_equal(pt_iscache_read(iscache, buf, 1, isid, 0xfff),
	                 -pte_nomap);
	assert_int_equal(pt_iscache_read(iscache, buf, 1, isid, 0x1320),
	                 -pte_nomap);

	pt_iscache_free(iscache);
	ptd_ti_dir_close(&dir);
}

/* Idle sections stay mapped up to the limit, least recently used going
 * first; sections in use are never unmapped. */
static void test_limit(void **state)
{
	struct pt_image_section_cache *iscache = pt_iscache_alloc(NULL);
	struct pt_image *image;
	struct ptd_ti_dir dir;
	struct ptd_msec msec;
	const char *a;
	uint8_t buf[4];
	int s1, s2, s3, big;

	(void)state;
	ptd_ti_dir_open(&dir);
	a = ptd_ti_file(&dir, "a", 1, 0x8000);
	s1 = pt_iscache_add_file(iscache, a, 0x0000, 0x1000, 0x10000);
	s2 = pt_iscache_add_file(iscache, a, 0x1000, 0x1000, 0x20000);
	s3 = pt_iscache_add_file(iscache, a, 0x2000, 0x1000, 0x30000);
	big = pt_iscache_add_file(iscache, a, 0x3000, 0x5000, 0x40000);
	assert_true(s1 > 0 && s2 > 0 && s3 > 0 && big > 0);
	assert_int_equal(pt_iscache_set_limit(NULL, 1), -pte_invalid);

	/* No limit (the default, as in libipt): what was read stays
	 * mapped; a limit of 0 keeps nothing. */
	assert_false(is_mapped(iscache, s1));
	assert_int_equal(pt_iscache_read(iscache, buf, 4, s1, 0x10000), 4);
	assert_true(is_mapped(iscache, s1));
	assert_int_equal(pt_iscache_set_limit(iscache, 0), 0);
	assert_false(is_mapped(iscache, s1));
	assert_int_equal(pt_iscache_read(iscache, buf, 4, s1, 0x10000), 4);
	assert_false(is_mapped(iscache, s1));

	assert_int_equal(pt_iscache_set_limit(iscache, 0x2000), 0);
	assert_int_equal(pt_iscache_read(iscache, buf, 4, s1, 0x10000), 4);
	assert_int_equal(pt_iscache_read(iscache, buf, 4, s2, 0x20000), 4);
	assert_true(is_mapped(iscache, s1));
	assert_true(is_mapped(iscache, s2));
	assert_int_equal(pt_iscache_read(iscache, buf, 4, s3, 0x30000), 4);
	assert_false(is_mapped(iscache, s1));
	assert_true(is_mapped(iscache, s2));
	assert_true(is_mapped(iscache, s3));
	/* s2 used again: s3 is now the oldest. */
	assert_int_equal(pt_iscache_read(iscache, buf, 4, s2, 0x20000), 4);
	assert_int_equal(pt_iscache_read(iscache, buf, 4, s1, 0x10000), 4);
	assert_true(is_mapped(iscache, s1));
	assert_true(is_mapped(iscache, s2));
	assert_false(is_mapped(iscache, s3));
	/* A section larger than the limit is not kept. */
	assert_int_equal(pt_iscache_read(iscache, buf, 4, big, 0x40000), 4);
	assert_false(is_mapped(iscache, big));
	assert_true(is_mapped(iscache, s1));
	assert_true(is_mapped(iscache, s2));

	/* An image that uses a section keeps it mapped whatever the limit;
	 * it counts against the limit again once the image lets go. */
	image = pt_image_alloc(NULL);
	assert_int_equal(pt_image_add_cached(image, iscache, s3, NULL), 0);
	assert_int_equal(pt_image_add_cached(image, iscache, big, NULL), 0);
	assert_false(is_mapped(iscache, s3));
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x30000), 0);
	assert_int_equal(msec.isid, s3);
	assert_int_equal(ptd_image_find(image, &msec, NULL, 0x40000), 0);
	assert_int_equal(msec.isid, big);
	assert_int_equal(msec.begin[0], ptd_ti_byte(1, 0x3000));
	assert_int_equal(pt_iscache_set_limit(iscache, 0x1000), 0);
	assert_true(is_mapped(iscache, s3));
	assert_true(is_mapped(iscache, big));
	assert_true(is_mapped(iscache, s1));
	assert_false(is_mapped(iscache, s2));
	assert_int_equal(pt_iscache_read(iscache, buf, 4, big, 0x40004), 4);
	assert_int_equal(buf[0], ptd_ti_byte(1, 0x3004));
	assert_int_equal(pt_image_remove_by_asid(image, NULL), 2);
	assert_false(is_mapped(iscache, big));
	assert_true(is_mapped(iscache, s3));
	assert_false(is_mapped(iscache, s1));

	assert_int_equal(pt_iscache_set_limit(iscache, 0), 0);
	assert_false(is_mapped(iscache, s3));
	pt_image_free(image);
	pt_iscache_free(iscache);
	ptd_ti_dir_close(&dir);
}

/* Images share the cache's sections; they outlive the cache. */
static void test_images(void **state)
{
	struct pt_image_section_cache *iscache = pt_iscache_alloc("c");
	struct pt_image *i1 = pt_image_alloc(NULL), *i2 = pt_image_alloc(NULL);
	struct pt_asid c1 = ptd_ti_asid(1, pt_asid_no_vmcs);
	struct pt_asid c2 = ptd_ti_asid(2, pt_asid_no_vmcs);
	struct ptd_msec m1, m2;
	struct ptd_ti_dir dir;
	const char *a;
	uint8_t mem[32], buf[32];
	int isid, bsid, i;

	(void)state;
	ptd_ti_dir_open(&dir);
	a = ptd_ti_file(&dir, "a", 1, 0x1000);
	isid = pt_iscache_add_file(iscache, a, 0, 0x1000, 0x5000);
	assert_true(isid > 0);
	for (i = 0; i < 32; ++i)
		mem[i] = ptd_ti_byte(6, (uint64_t)i);
	assert_int_equal(ptd_iscache_add_buffer(NULL, mem, 32, 0, 1),
	                 -pte_invalid);
	assert_int_equal(ptd_iscache_add_buffer(iscache, NULL, 32, 0, 1),
	                 -pte_invalid);
	bsid = ptd_iscache_add_buffer(iscache, mem, 32, 0x9000, 1);
	assert_true(bsid > 0 && bsid != isid);
	assert_int_equal(ptd_iscache_add_buffer(iscache, mem, 32, 0x9000, 1),
	                 bsid + 1);
	memset(mem, 0, sizeof(mem));
	assert_int_equal(pt_iscache_read(iscache, buf, 32, bsid, 0x9000), 32);
	for (i = 0; i < 32; ++i)
		assert_int_equal(buf[i], ptd_ti_byte(6, (uint64_t)i));

	assert_int_equal(pt_image_add_cached(i1, iscache, isid, &c1), 0);
	assert_int_equal(pt_image_add_cached(i1, iscache, isid, &c1), 0);
	assert_int_equal(pt_image_add_cached(i2, iscache, isid, &c2), 0);
	assert_int_equal(pt_image_add_cached(i2, iscache, bsid, &c2), 0);
	assert_int_equal(ptd_image_find(i1, &m1, &c1, 0x5100), 0);
	assert_int_equal(ptd_image_find(i2, &m2, &c2, 0x5100), 0);
	/* One section, one mapping. */
	assert_ptr_equal(m1.section, m2.section);
	assert_ptr_equal(m1.begin, m2.begin);
	assert_int_equal(m1.isid, isid);
	assert_int_equal(ptd_image_find(i2, &m2, &c2, 0x9010), 0);
	assert_int_equal(m2.isid, bsid);
	assert_int_equal(m2.begin[0x10], ptd_ti_byte(6, 0x10));
	assert_int_equal(ptd_image_find(i1, &m1, &c2, 0x5100), -pte_nomap);
	assert_int_equal(pt_image_remove_by_filename(i1, a, &c1), 1);

	pt_iscache_free(iscache);
	assert_int_equal(ptd_image_find(i2, &m2, &c2, 0x5ff0), 0);
	assert_int_equal(m2.begin[0xff0], ptd_ti_byte(1, 0xff0));
	assert_int_equal(ptd_image_read_memory(i2, buf, 4, &c2, 0x9000), 4);
	assert_int_equal(buf[0], ptd_ti_byte(6, 0));
	pt_image_free(i1);
	pt_image_free(i2);
	ptd_ti_dir_close(&dir);
}

/* Threads, each with its own image made from one shared image section
 * cache (and from a copy of a shared image), reading all the time, while
 * the cache keeps only part of the sections mapped. */
enum { nthreads = 4, nsecs = 16, secsize = 0x1000 };

struct thread_arg {
	struct pt_image_section_cache *iscache;
	const struct pt_image *proto;
	const struct pt_image *proto_files;
	const int *isids;
	unsigned seed;
	int failures;
};

static void *reader(void *p)
{
	struct thread_arg *arg = p;
	struct pt_image *image = pt_image_alloc(NULL);
	unsigned x = arg->seed, round;

	if (!image) {
		arg->failures += 1;
		return NULL;
	}
	for (round = 0; round < 3000; ++round) {
		unsigned i, s;
		uint8_t buf[16];

		/* Rebuild the image now and then: sections become idle and
		 * go through the cache's list. */
		if (round % 50 == 0) {
			pt_image_remove_by_asid(image, NULL);
			if (round % 100 == 0) {
				if (pt_image_copy(image, arg->proto) != 0 ||
				    pt_image_copy(image, arg->proto_files) != 0)
					arg->failures += 1;
			} else {
				for (s = 0; s < nsecs; ++s)
					if (pt_image_add_cached(
					            image, arg->iscache,
					            arg->isids[s], NULL) < 0)
						arg->failures += 1;
			}
		}
		for (i = 0; i < 64; ++i) {
			uint64_t off, vaddr;
			int isid = 0;

			x = x * 1103515245u + 12345u;
			s = (x >> 8) % nsecs;
			off = (x >> 16) % (secsize - 16);
			vaddr = 0x100000 + (uint64_t)s * 0x10000 + off;
			if (ptd_image_read(image, &isid, buf, 16, NULL,
			                   vaddr) != 16 ||
			    isid != arg->isids[s] ||
			    buf[0] != ptd_ti_byte(1, s * secsize + off) ||
			    buf[15] != ptd_ti_byte(1, s * secsize + off + 15))
				arg->failures += 1;
			if (pt_iscache_read(arg->iscache, buf, 4, arg->isids[s],
			                    vaddr + 1) != 4 ||
			    buf[3] != ptd_ti_byte(1, s * secsize + off + 4))
				arg->failures += 1;
			/* The same bytes from the file sections of the copy
			 * (shared with the other threads, split in the
			 * middle), while the image has them. */
			if (round % 100 < 50 &&
			    (ptd_image_read(image, &isid, buf, 1, NULL,
			                    vaddr + 0x800001) != 1 ||
			     isid != 0 ||
			     buf[0] != ptd_ti_byte(1, s * secsize + off + 1)))
				arg->failures += 1;
		}
		if (round % 100 == 7)
			pt_iscache_set_limit(arg->iscache,
			                     (uint64_t)(x % 8) * secsize);
	}
	pt_image_free(image);
	return NULL;
}

static void test_threads(void **state)
{
	struct pt_image_section_cache *iscache = pt_iscache_alloc(NULL);
	struct pt_image *proto = pt_image_alloc(NULL);
	struct pt_image *proto_files = pt_image_alloc(NULL);
	struct thread_arg args[nthreads];
	pthread_t threads[nthreads];
	struct ptd_ti_dir dir;
	const char *a;
	int isids[nsecs];
	int i;

	(void)state;
	ptd_ti_dir_open(&dir);
	a = ptd_ti_file(&dir, "a", 1, nsecs * secsize);
	for (i = 0; i < nsecs; ++i) {
		isids[i] = pt_iscache_add_file(
		        iscache, a, (uint64_t)i * secsize, secsize,
		        0x100000 + (uint64_t)i * 0x10000);
		assert_true(isids[i] > 0);
		assert_int_equal(
		        pt_image_add_cached(proto, iscache, isids[i], NULL), 0);
		assert_int_equal(
		        pt_image_add_file(proto_files, a, (uint64_t)i * secsize,
		                          secsize, NULL,
		                          0x900000 + (uint64_t)i * 0x10000),
		        0);
		assert_int_equal(
		        pt_image_add_file(
		                proto_files, a, (uint64_t)i * secsize + 0x100,
		                0x10, NULL, 0x900100 + (uint64_t)i * 0x10000),
		        0);
	}
	assert_int_equal(pt_iscache_set_limit(iscache, 4 * secsize), 0);
	for (i = 0; i < nthreads; ++i) {
		args[i].iscache = iscache;
		args[i].proto = proto;
		args[i].proto_files = proto_files;
		args[i].isids = isids;
		args[i].seed = (unsigned)i * 7919u + 1u;
		args[i].failures = 0;
		assert_int_equal(
		        pthread_create(&threads[i], NULL, reader, &args[i]), 0);
	}
	for (i = 0; i < nthreads; ++i) {
		assert_int_equal(pthread_join(threads[i], NULL), 0);
		assert_int_equal(args[i].failures, 0);
	}
	pt_image_free(proto);
	pt_image_free(proto_files);
	pt_iscache_free(iscache);
	ptd_ti_dir_close(&dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_alloc_name),
	        cmocka_unit_test(test_add_file),
	        cmocka_unit_test(test_read),
	        cmocka_unit_test(test_limit),
	        cmocka_unit_test(test_images),
	        cmocka_unit_test(test_threads),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
