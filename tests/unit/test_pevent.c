/* SPDX-License-Identifier: BSD-3-Clause */
/* perf_event sideband records (ptd_pevent.h, lib/perf/pevent.c): every
 * record type with and without sample_id fields, the time conversion, bad
 * records, and the sideband files of the DynamoRIO corpus. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "perf_write.h"
#include "ptdecode/ptdecode.h"
#include "test_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every sample_id field. */
#define ALL_SAMPLE                                                             \
	((uint64_t)(ptd_pevent_sample_tid | ptd_pevent_sample_time |           \
	            ptd_pevent_sample_id | ptd_pevent_sample_cpu |             \
	            ptd_pevent_sample_stream_id |                              \
	            ptd_pevent_sample_identifier))

/* The sample_id fields the tests write: in the kernel's order TID, TIME,
 * ID, STREAM_ID, CPU, IDENTIFIER, for the bits of @type. */
static void put_sample(struct pw *w, uint64_t type)
{
	if (type & ptd_pevent_sample_tid) {
		pw_u32(w, 101);
		pw_u32(w, 102);
	}
	if (type & ptd_pevent_sample_time)
		pw_u64(w, 5000);
	if (type & ptd_pevent_sample_id)
		pw_u64(w, 7);
	if (type & ptd_pevent_sample_stream_id)
		pw_u64(w, 8);
	if (type & ptd_pevent_sample_cpu) {
		pw_u32(w, 3);
		pw_u32(w, 0xdeadbeef); /* reserved */
	}
	if (type & ptd_pevent_sample_identifier)
		pw_u64(w, 9);
}

/* A record of @type and @misc with @n bytes of fields @f and the sample_id
 * fields of @stype; its size is set at the end. */
static void put_record(struct pw *w, uint32_t type, uint16_t misc,
                       const void *f, size_t n, uint64_t stype)
{
	size_t at = w->n;

	pw_u32(w, type);
	pw_u32(w, misc);
	pw_put(w, f, n);
	put_sample(w, stype);
	w->b[at + 6] = (uint8_t)((w->n - at) & 0xff);
	w->b[at + 7] = (uint8_t)((w->n - at) >> 8);
}

/* A NUL-padded string field of @size bytes. */
static void put_str(struct pw *w, const char *s, size_t size)
{
	size_t n = strlen(s);

	pw_put(w, s, n < size ? n : size);
	if (n < size)
		pw_zero(w, size - n);
}

/* One record of each type the reader knows, in a sideband of @stype. */
static struct pw all_records(uint64_t stype)
{
	struct pw w = {0}, f;

	/* MMAP 1/2 0x400000 0x1000 0x20 "/bin/x" */
	f = (struct pw){0};
	pw_u32(&f, 1);
	pw_u32(&f, 2);
	pw_u64(&f, 0x400000);
	pw_u64(&f, 0x1000);
	pw_u64(&f, 0x20);
	put_str(&f, "/bin/x", 8);
	put_record(&w, ptd_pevent_mmap, 2, f.b, f.n, stype);
	free(f.b);

	/* LOST 4, 5 */
	f = (struct pw){0};
	pw_u64(&f, 4);
	pw_u64(&f, 5);
	put_record(&w, ptd_pevent_lost, 0, f.b, f.n, stype);
	free(f.b);

	/* COMM.EXEC 1/2 "prog" */
	f = (struct pw){0};
	pw_u32(&f, 1);
	pw_u32(&f, 2);
	put_str(&f, "prog", 8);
	put_record(&w, ptd_pevent_comm, ptd_pevent_misc_comm_exec, f.b, f.n,
	           stype);
	free(f.b);

	/* EXIT and FORK 10/11 of 12/13 at 14 */
	f = (struct pw){0};
	pw_u32(&f, 10);
	pw_u32(&f, 12);
	pw_u32(&f, 11);
	pw_u32(&f, 13);
	pw_u64(&f, 14);
	put_record(&w, ptd_pevent_exit, 0, f.b, f.n, stype);
	put_record(&w, ptd_pevent_fork, 0, f.b, f.n, stype);
	free(f.b);

	/* THROTTLE 15, 16, 17 */
	f = (struct pw){0};
	pw_u64(&f, 15);
	pw_u64(&f, 16);
	pw_u64(&f, 17);
	put_record(&w, ptd_pevent_throttle, 0, f.b, f.n, stype);
	free(f.b);

	/* MMAP2 with device and inode, then with a build ID */
	f = (struct pw){0};
	pw_u32(&f, 1);
	pw_u32(&f, 2);
	pw_u64(&f, 0x7f0000);
	pw_u64(&f, 0x2000);
	pw_u64(&f, 0x3000);
	pw_u32(&f, 8);  /* maj */
	pw_u32(&f, 1);  /* min */
	pw_u64(&f, 99); /* ino */
	pw_u64(&f, 3);  /* ino_generation */
	pw_u32(&f, 5);  /* prot */
	pw_u32(&f, 2);  /* flags */
	put_str(&f, "/lib/libc.so.6", 16);
	put_record(&w, ptd_pevent_mmap2, 2, f.b, f.n, stype);
	memset(f.b + 32, 0, 24);
	f.b[32] = 20;
	for (int i = 0; i < 20; ++i)
		f.b[36 + i] = (uint8_t)(0xa0 + i);
	put_record(&w, ptd_pevent_mmap2, 2 | ptd_pevent_misc_mmap_build_id, f.b,
	           f.n, stype);
	free(f.b);

	/* AUX 0x100, 0x200, TRUNCATED */
	f = (struct pw){0};
	pw_u64(&f, 0x100);
	pw_u64(&f, 0x200);
	pw_u64(&f, ptd_pevent_aux_truncated);
	put_record(&w, ptd_pevent_aux, 0, f.b, f.n, stype);
	free(f.b);

	/* ITRACE_START 20/21, LOST_SAMPLES 22, SWITCH out, SWITCH_CPU_WIDE
	 * in from 23/24 */
	f = (struct pw){0};
	pw_u32(&f, 20);
	pw_u32(&f, 21);
	put_record(&w, ptd_pevent_itrace_start, 0, f.b, f.n, stype);
	free(f.b);
	f = (struct pw){0};
	pw_u64(&f, 22);
	put_record(&w, ptd_pevent_lost_samples, 0, f.b, f.n, stype);
	free(f.b);
	put_record(&w, ptd_pevent_switch, ptd_pevent_misc_switch_out, NULL, 0,
	           stype);
	f = (struct pw){0};
	pw_u32(&f, 23);
	pw_u32(&f, 24);
	put_record(&w, ptd_pevent_switch_cpu_wide, 0, f.b, f.n, stype);
	free(f.b);
	return w;
}

/* Check the sample_id fields of a record of all_records(@stype). */
static void check_sample(const struct ptd_pevent_record *r, uint64_t stype,
                         const struct ptd_pevent_config *cfg)
{
	uint64_t tsc = 0;

	assert_true(r->sample.present == (stype & ALL_SAMPLE));
	assert_int_equal(r->sample.pid,
	                 (stype & ptd_pevent_sample_tid) ? 101 : 0);
	assert_int_equal(r->sample.tid,
	                 (stype & ptd_pevent_sample_tid) ? 102 : 0);
	assert_int_equal(r->sample.time,
	                 (stype & ptd_pevent_sample_time) ? 5000 : 0);
	if (stype & ptd_pevent_sample_time)
		assert_int_equal(ptd_perf_ns_to_tsc(&tsc, &cfg->tc, 5000), 0);
	assert_true(r->sample.tsc == tsc);
	assert_int_equal(r->sample.id, (stype & ptd_pevent_sample_id) ? 7 : 0);
	assert_int_equal(r->sample.stream_id,
	                 (stype & ptd_pevent_sample_stream_id) ? 8 : 0);
	assert_int_equal(r->sample.cpu,
	                 (stype & ptd_pevent_sample_cpu) ? 3 : 0);
	assert_int_equal(r->sample.identifier,
	                 (stype & ptd_pevent_sample_identifier) ? 9 : 0);
}

/* Read all_records(@stype) back with @cfg and check every field. */
static void read_all(uint64_t stype, const struct ptd_pevent_config *cfg)
{
	static const uint32_t types[] = {ptd_pevent_mmap,
	                                 ptd_pevent_lost,
	                                 ptd_pevent_comm,
	                                 ptd_pevent_exit,
	                                 ptd_pevent_fork,
	                                 ptd_pevent_throttle,
	                                 ptd_pevent_mmap2,
	                                 ptd_pevent_mmap2,
	                                 ptd_pevent_aux,
	                                 ptd_pevent_itrace_start,
	                                 ptd_pevent_lost_samples,
	                                 ptd_pevent_switch,
	                                 ptd_pevent_switch_cpu_wide};
	struct pw w = all_records(stype);
	struct ptd_pevent_record r;
	const uint8_t *pos = w.b, *end = w.b + w.n;
	size_t k = 0;
	int size;

	while ((size = ptd_pevent_read(&r, pos, end, cfg)) > 0) {
		assert_true(k < sizeof(types) / sizeof(types[0]));
		assert_int_equal(r.type, types[k]);
		assert_int_equal(r.size, size);
		assert_non_null(ptd_pevent_type_name(r.type));
		check_sample(&r, stype, cfg);
		switch (k) {
		case 0:
			assert_int_equal(r.misc, 2);
			assert_int_equal(r.u.mmap.pid, 1);
			assert_int_equal(r.u.mmap.tid, 2);
			assert_true(r.u.mmap.addr == 0x400000);
			assert_true(r.u.mmap.len == 0x1000);
			assert_true(r.u.mmap.pgoff == 0x20);
			assert_int_equal(r.u.mmap.filename.len, 6);
			assert_memory_equal(r.u.mmap.filename.str, "/bin/x", 6);
			break;
		case 1:
			assert_true(r.u.lost.id == 4 && r.u.lost.lost == 5);
			break;
		case 2:
			assert_int_equal(r.misc, ptd_pevent_misc_comm_exec);
			assert_int_equal(r.u.comm.pid, 1);
			assert_int_equal(r.u.comm.tid, 2);
			assert_int_equal(r.u.comm.comm.len, 4);
			assert_memory_equal(r.u.comm.comm.str, "prog", 4);
			break;
		case 3:
		case 4:
			assert_int_equal(r.u.task.pid, 10);
			assert_int_equal(r.u.task.ppid, 12);
			assert_int_equal(r.u.task.tid, 11);
			assert_int_equal(r.u.task.ptid, 13);
			assert_true(r.u.task.time == 14);
			break;
		case 5:
			assert_true(r.u.throttle.time == 15 &&
			            r.u.throttle.id == 16 &&
			            r.u.throttle.stream_id == 17);
			break;
		case 6:
		case 7:
			assert_true(r.u.mmap.addr == 0x7f0000);
			assert_true(r.u.mmap.len == 0x2000);
			assert_true(r.u.mmap.pgoff == 0x3000);
			assert_int_equal(r.u.mmap.prot, 5);
			assert_int_equal(r.u.mmap.flags, 2);
			assert_int_equal(r.u.mmap.filename.len, 14);
			assert_memory_equal(r.u.mmap.filename.str,
			                    "/lib/libc.so.6", 14);
			if (k == 6) {
				assert_int_equal(r.u.mmap.maj, 8);
				assert_int_equal(r.u.mmap.min, 1);
				assert_true(r.u.mmap.ino == 99);
				assert_true(r.u.mmap.ino_generation == 3);
				assert_int_equal(r.u.mmap.build_id_size, 0);
			} else {
				assert_int_equal(r.u.mmap.build_id_size, 20);
				assert_int_equal(r.u.mmap.build_id[0], 0xa0);
				assert_int_equal(r.u.mmap.build_id[19], 0xb3);
				/* (The same bytes as the device fields.) */
				assert_int_equal(r.u.mmap.maj, 20);
				assert_int_equal(r.u.mmap.min, 0xa3a2a1a0);
			}
			break;
		case 8:
			assert_true(r.u.aux.offset == 0x100 &&
			            r.u.aux.size == 0x200 &&
			            r.u.aux.flags == ptd_pevent_aux_truncated);
			break;
		case 9:
			assert_int_equal(r.u.itrace_start.pid, 20);
			assert_int_equal(r.u.itrace_start.tid, 21);
			break;
		case 10:
			assert_true(r.u.lost_samples.lost == 22);
			break;
		case 11:
			assert_int_equal(r.misc, ptd_pevent_misc_switch_out);
			break;
		case 12:
			assert_int_equal(r.u.switch_cpu_wide.pid, 23);
			assert_int_equal(r.u.switch_cpu_wide.tid, 24);
			break;
		default:
			break;
		}
		pos += size;
		++k;
	}
	assert_int_equal(size, -pte_eos);
	assert_int_equal(k, sizeof(types) / sizeof(types[0]));
	assert_ptr_equal(pos, end);
	free(w.b);
}

static void test_every_type(void **state)
{
	struct ptd_pevent_config cfg;
	static const uint64_t stypes[] = {
	        0, ALL_SAMPLE, ptd_pevent_sample_time,
	        ptd_pevent_sample_tid | ptd_pevent_sample_time |
	                ptd_pevent_sample_cpu | ptd_pevent_sample_identifier,
	        ptd_pevent_sample_id | ptd_pevent_sample_stream_id,
	        /* IP and PERIOD: only samples carry them */
	        ALL_SAMPLE | 1 | (1 << 8)};

	(void)state;
	ptd_pevent_config_init(&cfg);
	for (size_t i = 0; i < sizeof(stypes) / sizeof(stypes[0]); ++i) {
		cfg.sample_type = stypes[i];
		read_all(stypes[i], &cfg);
	}
	/* perf's conversion of the perf-data corpus. */
	cfg.tc.time_shift = 31;
	cfg.tc.time_mult = 1789569706u;
	cfg.tc.time_zero = 0xfffffff86343cb91ull;
	cfg.sample_type = ALL_SAMPLE;
	read_all(ALL_SAMPLE, &cfg);
}

static void test_config(void **state)
{
	struct ptd_pevent_config cfg;

	(void)state;
	memset(&cfg, 0xff, sizeof(cfg));
	ptd_pevent_config_init(&cfg);
	assert_true(cfg.sample_type == 0);
	assert_int_equal(cfg.tc.time_mult, 1);
	assert_int_equal(cfg.tc.time_shift, 0);
	assert_true(cfg.tc.time_zero == 0);
	ptd_pevent_config_init(NULL);

	assert_null(ptd_pevent_type_name(0));
	assert_null(ptd_pevent_type_name(9)); /* SAMPLE */
	assert_null(ptd_pevent_type_name(68));
	assert_string_equal(ptd_pevent_type_name(ptd_pevent_switch_cpu_wide),
	                    "PERF_RECORD_SWITCH_CPU_WIDE");
	assert_string_equal(ptd_pevent_type_name(ptd_pevent_mmap2),
	                    "PERF_RECORD_MMAP2");
}

static void test_bad_records(void **state)
{
	struct ptd_pevent_config cfg;
	struct ptd_pevent_record r;
	struct pw w = all_records(ALL_SAMPLE);
	uint8_t small[16] = {0};

	(void)state;
	ptd_pevent_config_init(&cfg);
	cfg.sample_type = ALL_SAMPLE;

	assert_int_equal(ptd_pevent_read(NULL, w.b, w.b + w.n, &cfg),
	                 -pte_invalid);
	assert_int_equal(ptd_pevent_read(&r, NULL, w.b + w.n, &cfg),
	                 -pte_invalid);
	assert_int_equal(ptd_pevent_read(&r, w.b, NULL, &cfg), -pte_invalid);
	assert_int_equal(ptd_pevent_read(&r, w.b, w.b + w.n, NULL),
	                 -pte_invalid);
	assert_int_equal(ptd_pevent_read(&r, w.b + 1, w.b, &cfg), -pte_invalid);
	assert_int_equal(ptd_pevent_read(&r, w.b, w.b, &cfg), -pte_eos);

	/* Every cut of the first record (an MMAP of 96 bytes). */
	assert_int_equal(ptd_pevent_read(&r, w.b, w.b + w.n, &cfg), 96);
	for (size_t n = 1; n < 96; ++n)
		assert_int_equal(ptd_pevent_read(&r, w.b, w.b + n, &cfg),
		                 -pte_bad_file);

	/* A size below the header's, and 0 (which would loop). */
	memcpy(small, w.b, 8);
	small[6] = 7;
	small[7] = 0;
	assert_int_equal(ptd_pevent_read(&r, small, small + 16, &cfg),
	                 -pte_bad_file);
	small[6] = 0;
	assert_int_equal(ptd_pevent_read(&r, small, small + 16, &cfg),
	                 -pte_bad_file);

	/* Known types too short for their fields and sample_id fields: the
	 * header alone, and one byte short (the string's NUL missing for
	 * the MMAP whose string is its last field). */
	for (uint32_t type = 1; type <= 15; ++type) {
		memset(small, 0, sizeof(small));
		small[0] = (uint8_t)type;
		small[6] = 8;
		if (!ptd_pevent_type_name(type))
			assert_int_equal(
			        ptd_pevent_read(&r, small, small + 8, &cfg), 8);
		else if (type == ptd_pevent_switch) {
			cfg.sample_type = 0;
			assert_int_equal(
			        ptd_pevent_read(&r, small, small + 8, &cfg), 8);
			cfg.sample_type = ALL_SAMPLE;
			assert_int_equal(
			        ptd_pevent_read(&r, small, small + 8, &cfg),
			        -pte_bad_file);
		} else
			assert_int_equal(
			        ptd_pevent_read(&r, small, small + 8, &cfg),
			        -pte_bad_file);
	}
	cfg.sample_type = 0;
	memset(small, 0, sizeof(small));
	small[0] = ptd_pevent_comm;
	small[6] = 16;
	assert_int_equal(ptd_pevent_read(&r, small, small + 16, &cfg),
	                 -pte_bad_file);

	/* A string without its NUL ends at the sample_id fields. */
	{
		uint8_t comm[24];

		memset(comm, 'a', sizeof(comm));
		memset(comm, 0, 16);
		comm[0] = ptd_pevent_comm;
		comm[6] = 24;
		assert_int_equal(ptd_pevent_read(&r, comm, comm + 24, &cfg),
		                 24);
		assert_int_equal(r.u.comm.comm.len, 8);
		cfg.sample_type = ptd_pevent_sample_time;
		comm[6] = 24;
		assert_int_equal(ptd_pevent_read(&r, comm, comm + 24, &cfg),
		                 -pte_bad_file);
	}

	/* A bad time conversion matters only with TIME. */
	cfg.sample_type = ALL_SAMPLE;
	cfg.tc.time_mult = 0;
	assert_int_equal(ptd_pevent_read(&r, w.b, w.b + w.n, &cfg),
	                 -pte_bad_config);
	cfg.sample_type = ptd_pevent_sample_tid;
	cfg.tc.time_shift = 64;
	assert_true(ptd_pevent_read(&r, w.b, w.b + w.n, &cfg) > 0);
	free(w.b);
}

/* An unknown record type comes back with its header, and the records after
 * it are read. */
static void test_unknown_type(void **state)
{
	struct ptd_pevent_config cfg;
	struct ptd_pevent_record r;
	struct pw w = {0};
	uint8_t payload[40];
	int size;

	(void)state;
	memset(payload, 0x5a, sizeof(payload));
	ptd_pevent_config_init(&cfg);
	cfg.sample_type = ptd_pevent_sample_time;
	put_record(&w, 79, 0, payload, sizeof(payload), 0); /* TIME_CONV */
	put_record(&w, ptd_pevent_switch, 0, NULL, 0, cfg.sample_type);
	size = ptd_pevent_read(&r, w.b, w.b + w.n, &cfg);
	assert_int_equal(size, 48);
	assert_int_equal(r.type, 79);
	assert_int_equal(r.size, 48);
	assert_true(r.sample.present == 0);
	size = ptd_pevent_read(&r, w.b + 48, w.b + w.n, &cfg);
	assert_int_equal(size, 16);
	assert_int_equal(r.type, ptd_pevent_switch);
	assert_true(r.sample.time == 5000 && r.sample.tsc == 5000);
	free(w.b);
}

/* Records of two events with different sample types in one file, told
 * apart by their identifier (config.by_id, libipt 2.1's
 * --pevent:sample-config). */
static void test_by_identifier(void **state)
{
	const uint64_t a =
	        ptd_pevent_sample_time | ptd_pevent_sample_identifier;
	const uint64_t b = ALL_SAMPLE;
	struct ptd_pevent_sample_config by_id[2] = {{7, ptd_pevent_sample_tid},
	                                            {9, b}};
	struct ptd_pevent_config cfg;
	struct ptd_pevent_record r;
	struct pw w = {0}, f = {0};
	int size;

	(void)state;
	/* An ITRACE_START of the file's own event (TIME, IDENTIFIER 5), then
	 * one of event 9 (every field; put_sample() writes identifier 9). */
	pw_u32(&f, 1);
	pw_u32(&f, 2);
	pw_u64(&f, 5000);
	pw_u64(&f, 5);
	put_record(&w, ptd_pevent_itrace_start, 0, f.b, f.n, 0);
	put_record(&w, ptd_pevent_itrace_start, 0, f.b, 8, b);
	free(f.b);
	ptd_pevent_config_init(&cfg);
	cfg.sample_type = a;

	/* Without the table, the second record's fields are misread. */
	size = ptd_pevent_read(&r, w.b + 32, w.b + w.n, &cfg);
	assert_int_equal(size, 64);
	assert_true(r.sample.present == a);
	assert_true(r.sample.time != 5000);

	cfg.by_id = by_id;
	cfg.nby_id = 2;
	size = ptd_pevent_read(&r, w.b, w.b + w.n, &cfg);
	assert_int_equal(size, 32);
	assert_true(r.sample.present == a);
	assert_true(r.sample.time == 5000 && r.sample.identifier == 5);
	size = ptd_pevent_read(&r, w.b + 32, w.b + w.n, &cfg);
	assert_int_equal(size, 64);
	check_sample(&r, b, &cfg);
	assert_int_equal(r.u.itrace_start.pid, 1);

	/* An entry without IDENTIFIER cannot be told. */
	by_id[1].sample_type = ptd_pevent_sample_tid;
	assert_int_equal(ptd_pevent_read(&r, w.b + 32, w.b + w.n, &cfg),
	                 -pte_bad_config);
	/* The first entry of an identifier counts. */
	by_id[0].identifier = 9;
	by_id[0].sample_type = b;
	assert_int_equal(ptd_pevent_read(&r, w.b + 32, w.b + w.n, &cfg), 64);
	check_sample(&r, b, &cfg);
	free(w.b);
}

/* The sideband of the DynamoRIO corpus's ad6a637b (perf 4.x, sample_type
 * IP|TID|TIME|CPU|IDENTIFIER, perf's conversion 31 / 581029125 /
 * 18444502336406842448): the records of the traced program, and the
 * trace's first TSC 0x2fa1088fac05e2 between its ITRACE_START and its
 * COMM.EXEC. */
static void test_corpus(void **state)
{
	static const uint32_t types[] = {
	        ptd_pevent_switch, ptd_pevent_itrace_start, ptd_pevent_comm,
	        ptd_pevent_mmap2,  ptd_pevent_mmap2,        ptd_pevent_aux,
	        ptd_pevent_exit};
	char dir[512], path[1024];
	struct ptd_pevent_config cfg;
	struct ptd_pevent_record r;
	uint8_t buf[4096];
	size_t n, at = 0, k = 0;
	FILE *f;
	int size;

	(void)state;
	ptd_t_corpora_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path),
	         "%s/dynamorio/ad6a637b/test_simple.raw/"
	         "primary.sideband.pevent",
	         dir);
	f = fopen(path, "rb");
	if (!f) {
		printf("skipped: %s not found (the corpora are not "
		       "here)\n",
		       path);
		skip();
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(n, 496);

	ptd_pevent_config_init(&cfg);
	cfg.sample_type = 0x10086;
	cfg.tc.time_shift = 31;
	cfg.tc.time_mult = 581029125u;
	cfg.tc.time_zero = 18444502336406842448ull;
	while ((size = ptd_pevent_read(&r, buf + at, buf + n, &cfg)) > 0) {
		assert_true(k < 7);
		assert_int_equal(r.type, types[k]);
		assert_int_equal(r.sample.pid, 223991);
		assert_int_equal(r.sample.tid, 223991);
		assert_int_equal(r.sample.cpu, 9);
		if (r.type == ptd_pevent_itrace_start)
			assert_true(r.sample.tsc < 0x2fa1088fac05e2ull);
		if (r.type == ptd_pevent_comm) {
			assert_int_equal(r.misc, ptd_pevent_misc_comm_exec);
			assert_true(r.sample.tsc > 0x2fa1088fac05e2ull);
			assert_int_equal(r.u.comm.comm.len, 5);
			assert_memory_equal(r.u.comm.comm.str, "hello", 5);
		}
		if (k == 3) {
			assert_true(r.u.mmap.addr == 0x401000);
			assert_memory_equal(r.u.mmap.filename.str, "/hello", 7);
		}
		if (k == 4)
			assert_memory_equal(r.u.mmap.filename.str, "[vdso]", 7);
		at += (size_t)size;
		++k;
	}
	assert_int_equal(size, -pte_eos);
	assert_int_equal(k, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_every_type),
	        cmocka_unit_test(test_config),
	        cmocka_unit_test(test_bad_records),
	        cmocka_unit_test(test_unknown_type),
	        cmocka_unit_test(test_by_identifier),
	        cmocka_unit_test(test_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
