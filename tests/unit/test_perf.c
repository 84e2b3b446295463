/* SPDX-License-Identifier: BSD-3-Clause */
/* The perf.data reader (lib/perf, include/ptdecode/ptd_perf.h) on perf.data
 * files written here byte by byte: the file and the pipe format, every
 * field the reader takes, and broken files (truncated at every length, bad
 * headers, bad records), which must give an error with an offset inside the
 * file.  The real recording in ../shared/corpora is checked by
 * tests/corpora/perf_corpus.c. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ptdecode/ptdecode.h"

#include "perf_dir_write.h"
#include "perf_write.h"
#ifdef PTD_HAVE_ZSTD
#include "perf_zstd_write.h"

#include <zstd.h>
#endif

/* ---- Checks ------------------------------------------------------------ */

static void check_good(const struct ptd_perf *perf, int pipe,
                       const struct pw *file)
{
	struct ptd_perf_info info;
	struct ptd_perf_buffer b;
	struct ptd_perf_stream st;
	uint8_t both[24];

	assert_int_equal(ptd_perf_get_info(perf, &info), 0);
	assert_int_equal(info.pmu_type, 8);
	assert_int_equal(info.config, 0x300e601);
	assert_int_equal(info.sample_type, 0x10087);
	assert_int_equal(info.exclude_kernel, 1);
	assert_int_equal(info.exclude_user, 0);
	assert_int_equal(info.tc.time_shift, 31);
	assert_int_equal(info.tc.time_mult, 1789569706);
	assert_int_equal(info.tc.time_zero, 0xfffffff86343cb91ull);
	assert_int_equal(info.have_tc, 1);
	assert_int_equal(info.tsc_bit, 0x400);
	assert_int_equal(info.noretcomp_bit, 0x800);
	assert_int_equal(info.mtc_bit, 0x200);
	assert_int_equal(info.mtc_freq_bits, 0x3c000);
	assert_int_equal(info.cyc_bit, 0x2);
	assert_int_equal(info.have_sched_switch, 3);
	assert_int_equal(info.snapshot_mode, 0);
	assert_int_equal(info.per_cpu_mmaps, 1);
	assert_int_equal(info.tsc_ctc_n, 100);
	assert_int_equal(info.tsc_ctc_d, 2);
	assert_int_equal(info.max_nonturbo_ratio, 12);
	assert_string_equal(info.filter, "");
	assert_string_equal(info.cpuid, "GenuineIntel,6,78,3");
	assert_int_equal(info.cpu.vendor, pcv_intel);
	assert_int_equal(info.cpu.family, 6);
	assert_int_equal(info.cpu.model, 78);
	assert_int_equal(info.cpu.stepping, 3);
	assert_int_equal(info.num_buffers, 3);
	assert_int_equal(info.trace_bytes, 32);
	assert_int_equal(info.num_compressed, 0);
	assert_int_equal(info.pipe, pipe);

	/* Buffers in file order, each where the file has it. */
	assert_int_equal(ptd_perf_num_buffers(perf), 3);
	for (size_t i = 0; i < 3; ++i) {
		assert_int_equal(ptd_perf_get_buffer(perf, i, &b), 0);
		assert_true(b.file_offset + b.size <= file->n);
		assert_memory_equal(file->b + b.file_offset, b.data,
		                    (size_t)b.size);
	}
	assert_int_equal(ptd_perf_get_buffer(perf, 0, &b), 0);
	assert_int_equal(b.idx, 1);
	assert_int_equal(b.cpu, 1);
	assert_int_equal(b.tid, 3174);
	assert_int_equal(b.size, 16);
	assert_int_equal(b.aux_offset, 0);
	assert_int_equal(b.reference, 0xbc4cd519a6ull + 1);
	assert_memory_equal(b.data, pw_trace_a, 16);
	assert_int_equal(ptd_perf_get_buffer(perf, 1, &b), 0);
	assert_int_equal(b.idx, 0);
	assert_int_equal(b.cpu, 0);
	assert_memory_equal(b.data, pw_trace_b, 8);
	assert_int_equal(ptd_perf_get_buffer(perf, 2, &b), 0);
	assert_int_equal(b.idx, 1);
	assert_int_equal(b.aux_offset, 16);
	assert_memory_equal(b.data, pw_trace_c, 8);
	assert_int_equal(ptd_perf_get_buffer(perf, 3, &b), -pte_eos);

	/* Streams by AUX area, buffers one after the other. */
	assert_int_equal(ptd_perf_num_streams(perf), 2);
	assert_int_equal(ptd_perf_get_stream(perf, 0, &st), 0);
	assert_int_equal(st.idx, 0);
	assert_int_equal(st.cpu, 0);
	assert_int_equal(st.size, 8);
	assert_int_equal(st.num_buffers, 1);
	assert_memory_equal(st.data, pw_trace_b, 8);
	assert_int_equal(ptd_perf_get_stream(perf, 1, &st), 0);
	assert_int_equal(st.idx, 1);
	assert_int_equal(st.cpu, 1);
	assert_int_equal(st.tid, 3174);
	assert_int_equal(st.size, 24);
	assert_int_equal(st.num_buffers, 2);
	memcpy(both, pw_trace_a, 16);
	memcpy(both + 16, pw_trace_c, 8);
	assert_memory_equal(st.data, both, 24);
	assert_int_equal(ptd_perf_get_stream(perf, 2, &st), -pte_eos);
}

/* Parse @n bytes of @w from a buffer of exactly that size (so ASan sees any
 * read beyond it). */
static int parse_n(const struct pw *w, size_t n, struct ptd_perf **perf,
                   struct ptd_perf_diag *diag)
{
	uint8_t *copy = malloc(n ? n : 1);
	int err;

	assert_non_null(copy);
	memcpy(copy, w->b, n);
	err = ptd_perf_parse(perf, copy, n, diag);
	free(copy);
	return err;
}

/* Parsing @w fails with @err, a message and @offset. */
static void expect_error(const struct pw *w, int err, uint64_t offset)
{
	struct ptd_perf *perf = (struct ptd_perf *)&perf;
	struct ptd_perf_diag diag;

	assert_int_equal(parse_n(w, w->n, &perf, &diag), err);
	assert_null(perf);
	assert_true(diag.message[0] != '\0');
	assert_int_equal(diag.offset, offset);
}

/* @a and @b (the same recording; @b's sideband compressed in the file @wb,
 * or @b read from a directory) give the same sideband, trace and settings;
 * the compressed records' file offsets name compressed records of @wb. */
static void check_same(const struct ptd_perf *a, const struct ptd_perf *b,
                       const struct pw *wb)
{
	struct ptd_perf_info ia, ib;
	size_t i;

	assert_int_equal(ptd_perf_get_info(a, &ia), 0);
	assert_int_equal(ptd_perf_get_info(b, &ib), 0);
	assert_int_equal(ia.num_compressed, 0);
	assert_true(!wb || ib.num_compressed > 0);
	assert_int_equal(ib.compressed_skipped, 0);
	assert_int_equal(ia.num_buffers, ib.num_buffers);
	assert_int_equal(ia.trace_bytes, ib.trace_bytes);
	assert_int_equal(ia.num_truncated, ib.num_truncated);
	assert_int_equal(ia.config, ib.config);
	assert_int_equal(ia.have_sched_switch, ib.have_sched_switch);

	assert_int_equal(ptd_perf_num_mmaps(a), ptd_perf_num_mmaps(b));
	for (i = 0; i < ptd_perf_num_mmaps(a); ++i) {
		struct ptd_perf_mmap x, y;

		assert_int_equal(ptd_perf_get_mmap(a, i, &x), 0);
		assert_int_equal(ptd_perf_get_mmap(b, i, &y), 0);
		assert_string_equal(x.filename, y.filename);
		assert_true(!wb || wb->b[y.file_offset] == 81 ||
		            wb->b[y.file_offset] == 83);
		x.filename = y.filename = NULL;
		x.file_offset = y.file_offset = 0;
		assert_memory_equal(&x, &y, sizeof(x));
	}
	assert_int_equal(ptd_perf_num_comms(a), ptd_perf_num_comms(b));
	for (i = 0; i < ptd_perf_num_comms(a); ++i) {
		struct ptd_perf_comm x, y;

		assert_int_equal(ptd_perf_get_comm(a, i, &x), 0);
		assert_int_equal(ptd_perf_get_comm(b, i, &y), 0);
		assert_string_equal(x.comm, y.comm);
		x.comm = y.comm = NULL;
		x.file_offset = y.file_offset = 0;
		assert_memory_equal(&x, &y, sizeof(x));
	}
	assert_int_equal(ptd_perf_num_switches(a), ptd_perf_num_switches(b));
	for (i = 0; i < ptd_perf_num_switches(a); ++i) {
		struct ptd_perf_switch x, y;

		assert_int_equal(ptd_perf_get_switch(a, i, &x), 0);
		assert_int_equal(ptd_perf_get_switch(b, i, &y), 0);
		x.file_offset = y.file_offset = 0;
		assert_memory_equal(&x, &y, sizeof(x));
	}
	assert_int_equal(ptd_perf_num_tasks(a), ptd_perf_num_tasks(b));
	for (i = 0; i < ptd_perf_num_tasks(a); ++i) {
		struct ptd_perf_task x, y;

		assert_int_equal(ptd_perf_get_task(a, i, &x), 0);
		assert_int_equal(ptd_perf_get_task(b, i, &y), 0);
		x.file_offset = y.file_offset = 0;
		assert_memory_equal(&x, &y, sizeof(x));
	}
	for (int32_t cpu = 0; cpu < 3; ++cpu)
		for (uint64_t t = 0; t < 1000; t += 50) {
			int32_t pa = 0, ta = 0, pb = 0, tb = 0;

			assert_int_equal(ptd_perf_task_at(a, cpu, t, &pa, &ta),
			                 ptd_perf_task_at(b, cpu, t, &pb, &tb));
			assert_int_equal(pa, pb);
			assert_int_equal(ta, tb);
		}
	for (i = 0;; ++i) {
		struct ptd_perf_stream x, y;
		int err = ptd_perf_get_stream(a, i, &x);

		assert_int_equal(ptd_perf_get_stream(b, i, &y), err);
		if (err < 0)
			break;
		assert_int_equal(x.size, y.size);
		assert_memory_equal(x.data, y.data, x.size);
	}
}

/* ---- Tests ------------------------------------------------------------- */

static void test_file_format(void **state)
{
	struct pw w = pw_write_file(&pw_good);
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;

	(void)state;
	assert_int_equal(parse_n(&w, w.n, &perf, &diag), 0);
	assert_string_equal(diag.message, "");
	check_good(perf, 0, &w);
	ptd_perf_free(perf);
	free(w.b);
}

static void test_pipe_format(void **state)
{
	struct pw w = pw_write_pipe(&pw_good);
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;

	(void)state;
	assert_int_equal(parse_n(&w, w.n, &perf, &diag), 0);
	check_good(perf, 1, &w);
	ptd_perf_free(perf);
	free(w.b);
}

static void test_config(void **state)
{
	struct pw w = pw_write_file(&pw_good);
	struct ptd_perf *perf;
	struct pt_config config;
	struct ptd_rtit_diag diag;

	(void)state;
	assert_int_equal(ptd_perf_parse(&perf, w.b, w.n, NULL), 0);
	pt_config_init(&config);
	config.begin = (uint8_t *)w.b;
	config.end = (uint8_t *)w.b + 1;
	assert_int_equal(ptd_perf_config(perf, &config, &diag), 0);
	assert_int_equal(config.cpu.vendor, pcv_intel);
	assert_int_equal(config.cpu.family, 6);
	assert_int_equal(config.cpu.model, 78);
	assert_int_equal(config.cpu.stepping, 3);
	/* Skylake's errata come with the processor. */
	assert_int_equal(config.errata.skd007, 1);
	assert_int_equal(config.mtc_freq, 3);
	assert_int_equal(config.nom_freq, 12);
	assert_int_equal(config.cpuid_0x15_eax, 2);
	assert_int_equal(config.cpuid_0x15_ebx, 100);
	/* The buffer is the caller's. */
	assert_ptr_equal(config.begin, w.b);
	assert_int_equal(diag.error, 0);
	/* perf.data records no CPUID leaf 0x14. */
	assert_true(diag.notes & ptd_rtit_note_no_cpuid_0x14);

	assert_int_equal(ptd_perf_config(NULL, &config, NULL), -pte_invalid);
	assert_int_equal(ptd_perf_config(perf, NULL, NULL), -pte_invalid);
	ptd_perf_free(perf);
	free(w.b);
}

/* Without the ratio (a record of 10 priv words), MTC cannot be decoded. */
static void test_short_info(void **state)
{
	struct pw_spec s = pw_good;
	struct pw w;
	struct ptd_perf *perf;
	struct ptd_perf_info info;
	struct pt_config config;
	struct ptd_rtit_diag diag;

	(void)state;
	s.npriv = 10;
	w = pw_write_file(&s);
	assert_int_equal(ptd_perf_parse(&perf, w.b, w.n, NULL), 0);
	assert_int_equal(ptd_perf_get_info(perf, &info), 0);
	assert_int_equal(info.tsc_ctc_n, 0);
	assert_int_equal(info.tsc_ctc_d, 0);
	assert_int_equal(info.mtc_bit, 0);
	assert_int_equal(info.max_nonturbo_ratio, 0);
	assert_int_equal(info.per_cpu_mmaps, 1);
	pt_config_init(&config);
	assert_int_equal(ptd_perf_config(perf, &config, &diag),
	                 -pte_bad_config);
	assert_true(diag.message[0] != '\0');
	/* The file's values as they are, for tools that go on. */
	assert_int_equal(config.cpu.vendor, pcv_intel);
	assert_int_equal(config.cpu.model, 78);
	assert_int_equal(config.errata.skd007, 1);
	assert_int_equal(config.mtc_freq, 3);
	assert_int_equal(config.nom_freq, 0);
	assert_int_equal(config.cpuid_0x15_eax, 0);
	ptd_perf_free(perf);
	free(w.b);
}

static void test_filter_compressed(void **state)
{
	struct pw_spec s = pw_good;
	struct pw w;
	struct ptd_perf *perf;
	struct ptd_perf_info info;

	(void)state;
	s.filter = "filter main @ /bin/ls";
	s.compressed = 1;
	w = pw_write_file(&s);
	assert_int_equal(ptd_perf_parse(&perf, w.b, w.n, NULL), 0);
	assert_int_equal(ptd_perf_get_info(perf, &info), 0);
	assert_string_equal(info.filter, "filter main @ /bin/ls");
	assert_int_equal(info.num_compressed, 1);
#ifdef PTD_HAVE_ZSTD
	assert_int_equal(info.compressed_skipped, 0);
#else
	assert_int_equal(info.compressed_skipped, 1);
#endif
	assert_int_equal(info.num_buffers, 3);
	ptd_perf_free(perf);
	free(w.b);
}

static void test_cpuid(void **state)
{
	static const struct {
		const char *cpuid;
		int vendor, family, model, stepping;
	} cases[] = {
	        {"GenuineIntel,6,143,8", pcv_intel, 6, 143, 8},
	        {"GenuineIntel,6,85,7,more", pcv_intel, 6, 85, 7},
	        {"AuthenticAMD,23,1,2", pcv_unknown, 0, 0, 0},
	        {"GenuineIntel,6,85", pcv_unknown, 0, 0, 0},
	        {"GenuineIntel,6,300,1", pcv_unknown, 0, 0, 0},
	        {"GenuineIntel,x,1,1", pcv_unknown, 0, 0, 0},
	        {NULL, pcv_unknown, 0, 0, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		struct pw_spec s = pw_good;
		struct pw w;
		struct ptd_perf *perf;
		struct ptd_perf_info info;
		struct pt_config config;
		struct ptd_rtit_diag diag;

		s.cpuid = cases[i].cpuid;
		w = pw_write_file(&s);
		assert_int_equal(ptd_perf_parse(&perf, w.b, w.n, NULL), 0);
		assert_int_equal(ptd_perf_get_info(perf, &info), 0);
		assert_string_equal(info.cpuid,
		                    cases[i].cpuid ? cases[i].cpuid : "");
		assert_int_equal(info.cpu.vendor, cases[i].vendor);
		assert_int_equal(info.cpu.family, cases[i].family);
		assert_int_equal(info.cpu.model, cases[i].model);
		assert_int_equal(info.cpu.stepping, cases[i].stepping);
		pt_config_init(&config);
		assert_int_equal(ptd_perf_config(perf, &config, &diag), 0);
		if (cases[i].vendor == pcv_unknown)
			assert_true(diag.notes & ptd_rtit_note_cpu_unknown);
		ptd_perf_free(perf);
		free(w.b);
	}
}

/* Every prefix of a file: the file format always fails (the features come
 * last); the pipe format may end after any whole record.  Errors must be
 * inside the prefix. */
static void test_truncated(void **state)
{
	for (int pipe = 0; pipe < 2; ++pipe) {
		struct pw w = pipe ? pw_write_pipe(&pw_good)
		                   : pw_write_file(&pw_good);

		(void)state;
		for (size_t n = 0; n < w.n; ++n) {
			struct ptd_perf *perf;
			struct ptd_perf_diag diag;
			int err = parse_n(&w, n, &perf, &diag);

			if (err >= 0) {
				assert_true(pipe);
				assert_true(ptd_perf_num_buffers(perf) <= 3);
				ptd_perf_free(perf);
				continue;
			}
			assert_null(perf);
			assert_true(err == -pte_bad_file ||
			            err == -pte_bad_config);
			assert_true(diag.message[0] != '\0');
			assert_true(diag.offset <= n);
		}
		free(w.b);
	}
}

static void test_bad_header(void **state)
{
	struct pw w = pw_write_file(&pw_good);
	struct pw c = {0};

	(void)state;
	pw_put(&c, w.b, w.n);

	memcpy(c.b, "PERFILE3", 8);
	expect_error(&c, -pte_bad_file, 0);
	memcpy(c.b, "2ELIFREP", 8);
	expect_error(&c, -pte_not_supported, 0);
	memcpy(c.b, "PERFFILE", 8);
	expect_error(&c, -pte_not_supported, 0);
	memcpy(c.b, "PERFILE2", 8);

	pw_set_u64(c.b + 8, 50); /* header size */
	expect_error(&c, -pte_bad_file, 8);
	pw_set_u64(c.b + 8, 104);
	pw_set_u64(c.b + 16, 40); /* attribute entry size */
	expect_error(&c, -pte_bad_file, 16);
	pw_set_u64(c.b + 16, 100); /* not a divisor of the section */
	expect_error(&c, -pte_bad_file, 24);
	pw_set_u64(c.b + 16, 128);
	pw_set_u64(c.b + 24, c.n); /* attributes beyond the file */
	expect_error(&c, -pte_bad_file, 24);
	pw_set_u64(c.b + 24, 104);
	pw_set_u64(c.b + 48, c.n); /* data beyond the file */
	expect_error(&c, -pte_bad_file, 40);
	memcpy(c.b + 48, w.b + 48, 8);
	c.b[80] |= 0xff; /* more features than the table has */
	{
		struct ptd_perf *perf;
		struct ptd_perf_diag diag;

		assert_int_equal(parse_n(&c, c.n, &perf, &diag), -pte_bad_file);
		assert_true(diag.offset <= c.n);
	}
	memcpy(c.b, w.b, w.n);
	/* A feature whose section lies beyond the file: the error names its
	 * table entry (HOSTNAME's, the first). */
	{
		uint64_t table = 104 + 256 + (c.b[48] | (uint64_t)c.b[49] << 8);

		pw_set_u64(c.b + table + 8, c.n);
		expect_error(&c, -pte_bad_file, table);
		memcpy(c.b, w.b, w.n);
	}
	/* Back to the original: it parses. */
	{
		struct ptd_perf *perf;

		assert_int_equal(parse_n(&c, c.n, &perf, NULL), 0);
		ptd_perf_free(perf);
	}
	free(c.b);
	free(w.b);
}

/* The offset of the first record of @type in the file format's data. */
static size_t find_record(const struct pw *w, uint32_t type)
{
	size_t at = 104 + 256;

	for (;;) {
		uint32_t t = (uint32_t)w->b[at] | (uint32_t)w->b[at + 1] << 8;
		size_t size = (size_t)w->b[at + 6] | (size_t)w->b[at + 7] << 8;

		if (t == type)
			return at;
		if (t == 71)
			size += w->b[at + 8];
		at += size;
		assert_true(at < w->n);
	}
}

static void test_bad_records(void **state)
{
	struct pw w = pw_write_file(&pw_good);
	size_t info = find_record(&w, 70), aux = find_record(&w, 71);
	uint8_t keep[16];

	(void)state;
	/* A record smaller than its header. */
	memcpy(keep, w.b + info, 16);
	w.b[info + 6] = 4;
	w.b[info + 7] = 0;
	expect_error(&w, -pte_bad_file, info);
	/* A record running past the data. */
	w.b[info + 6] = 0xf0;
	w.b[info + 7] = 0xff;
	expect_error(&w, -pte_bad_file, info);
	/* AUXTRACE_INFO of nine priv words. */
	w.b[info + 6] = 16 + 72;
	w.b[info + 7] = 0;
	expect_error(&w, -pte_bad_file, info);
	memcpy(w.b + info, keep, 16);
	/* Another kind of AUX trace (3: ARM CoreSight). */
	w.b[info + 8] = 3;
	expect_error(&w, -pte_not_supported, info);
	/* No AUXTRACE_INFO at all: the record is something else now. */
	w.b[info] = 2;
	expect_error(&w, -pte_bad_config, 0);
	memcpy(w.b + info, keep, 16);

	/* An AUXTRACE record too small, and one whose trace runs past the
	 * data section. */
	memcpy(keep, w.b + aux, 16);
	w.b[aux + 6] = 40;
	expect_error(&w, -pte_bad_file, aux);
	memcpy(w.b + aux, keep, 16);
	pw_set_u64(w.b + aux + 8, 0x10000);
	expect_error(&w, -pte_bad_file, aux);
	memcpy(w.b + aux, keep, 16);
	free(w.b);

	/* Two AUXTRACE_INFO records. */
	{
		struct pw_spec s = pw_good;

		s.second_info = 1;
		w = pw_write_file(&s);
		info = find_record(&w, 70);
		expect_error(&w, -pte_bad_file, info + 16 + 8 * 17);
		free(w.b);
	}
	/* No attribute of the PMU's type. */
	{
		struct pw_spec s = pw_good;

		s.attr_type = 9;
		w = pw_write_file(&s);
		expect_error(&w, -pte_bad_config, find_record(&w, 70));
		free(w.b);
	}
	/* A filter string longer than the record. */
	{
		struct pw_spec s = pw_good;

		s.filter = "main";
		w = pw_write_file(&s);
		info = find_record(&w, 70);
		pw_set_u64(w.b + info + 16 + 8 * 16, 64);
		expect_error(&w, -pte_bad_file, info + 16 + 8 * 16);
		free(w.b);
	}
}

/* What perf also writes: bigger AUXTRACE headers, tid -1, exclude_user,
 * tracing data in the pipe format, a truncated AUX area. */
static void test_variants(void **state)
{
	for (int pipe = 0; pipe < 2; ++pipe) {
		struct pw_spec s = pw_good;
		struct ptd_perf *perf;
		struct ptd_perf_info info;
		struct ptd_perf_stream st;
		struct ptd_perf_diag diag;
		struct pw w;
		uint8_t both[24];

		(void)state;
		s.aux_header_size = 56;
		s.tid_minus_one = 1;
		s.exclude_user = 1;
		s.tracing_data = 1;
		s.truncated_aux = 1;
		w = pipe ? pw_write_pipe(&s) : pw_write_file(&s);
		assert_int_equal(parse_n(&w, w.n, &perf, &diag), 0);
		assert_int_equal(ptd_perf_get_info(perf, &info), 0);
		assert_int_equal(info.exclude_user, 1);
		assert_int_equal(info.exclude_kernel, 1);
		assert_int_equal(info.num_truncated, 1);
		assert_int_equal(info.num_buffers, 3);
		assert_int_equal(info.incomplete, 0);
		assert_int_equal(ptd_perf_get_stream(perf, 1, &st), 0);
		assert_int_equal(st.tid, -1);
		assert_int_equal(st.size, 24);
		memcpy(both, pw_trace_a, 16);
		memcpy(both + 16, pw_trace_c, 8);
		assert_memory_equal(st.data, both, 24);
		ptd_perf_free(perf);
		free(w.b);
	}
}

/* An interrupted perf record: data size 0, no features. */
static void test_interrupted(void **state)
{
	struct pw_spec s = pw_good;
	struct ptd_perf *perf;
	struct ptd_perf_info info;
	struct ptd_perf_stream st;
	struct pw w;

	(void)state;
	s.interrupted = 1;
	w = pw_write_file(&s);
	assert_int_equal(parse_n(&w, w.n, &perf, NULL), 0);
	assert_int_equal(ptd_perf_get_info(perf, &info), 0);
	assert_int_equal(info.incomplete, 1);
	assert_string_equal(info.cpuid, "");
	assert_int_equal(info.cpu.vendor, pcv_unknown);
	assert_int_equal(info.num_buffers, 3);
	assert_int_equal(ptd_perf_get_stream(perf, 0, &st), 0);
	assert_memory_equal(st.data, pw_trace_b, 8);
	ptd_perf_free(perf);
	free(w.b);
}

/* Other AUX trace at its own (smaller) AUXTRACE_INFO size: Intel BTS has
 * six priv words, ARM SPE two. */
static void test_other_aux(void **state)
{
	static const struct {
		uint32_t type;
		unsigned npriv;
	} kinds[] = {{2, 6}, {4, 2}, {3, 17}};

	(void)state;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i) {
		struct pw_spec s = pw_good;
		struct pw w;

		s.auxtrace_type = kinds[i].type;
		s.npriv = kinds[i].npriv;
		w = pw_write_file(&s);
		expect_error(&w, -pte_not_supported, find_record(&w, 70));
		free(w.b);
	}
}

/* The memory maps and process names of the sideband, with the times of
 * their sample_id trailers. */
static void test_sideband(void **state)
{
	for (int variant = 0; variant < 3; ++variant) {
		struct pw_spec s = pw_good;
		struct ptd_perf *perf;
		struct ptd_perf_mmap m;
		struct ptd_perf_comm c;
		struct pw w;

		(void)state;
		s.sideband = 1;
		s.mixed_types = variant == 2;
		w = variant == 1 ? pw_write_pipe(&s) : pw_write_file(&s);
		assert_int_equal(parse_n(&w, w.n, &perf, NULL), 0);
		assert_int_equal(ptd_perf_num_mmaps(perf), 3);
		assert_int_equal(ptd_perf_num_comms(perf),
		                 variant == 2 ? 2 : 1);

		assert_int_equal(ptd_perf_get_mmap(perf, 0, &m), 0);
		assert_int_equal(m.pid, -1);
		assert_int_equal(m.start, 0xffffffff81000000ull);
		assert_int_equal(m.len, 0x1000000);
		assert_string_equal(m.filename, "[kernel.kallsyms]_text");
		assert_int_equal(m.cpumode, 1);
		assert_int_equal(m.mmap2, 0);
		assert_int_equal(m.have_time, 1);
		assert_int_equal(m.time, 1000);
		assert_memory_equal(w.b + m.file_offset, "\x01\x00\x00\x00", 4);

		assert_int_equal(ptd_perf_get_mmap(perf, 1, &m), 0);
		assert_int_equal(m.pid, 3174);
		assert_int_equal(m.start, 0x400000);
		assert_int_equal(m.len, 0x2000);
		assert_int_equal(m.pgoff, 0x1000);
		assert_string_equal(m.filename, "/bin/prog");
		assert_int_equal(m.cpumode, 2);
		assert_int_equal(m.mmap2, 1);
		assert_int_equal(m.prot, 5);
		assert_int_equal(m.flags, 2);
		assert_int_equal(m.build_id_size, 20);
		assert_int_equal(m.build_id[0], 0x11);
		assert_int_equal(m.build_id[19], 0x24);
		assert_int_equal(m.time, 2000);

		assert_int_equal(ptd_perf_get_mmap(perf, 2, &m), 0);
		assert_int_equal(m.tid, 3175);
		assert_string_equal(m.filename, "/lib/libc.so.6");
		assert_int_equal(m.build_id_size, 0);
		assert_int_equal(m.time, 3000);
		assert_int_equal(ptd_perf_get_mmap(perf, 3, &m), -pte_eos);

		assert_int_equal(ptd_perf_get_comm(perf, 0, &c), 0);
		assert_int_equal(c.pid, 3174);
		assert_string_equal(c.comm, "prog");
		assert_int_equal(c.exec, 1);
		assert_int_equal(c.have_time, 1);
		assert_int_equal(c.time, 4000);
		if (variant == 2) {
			/* Its id names the attribute without CPU: a trailer
			 * of 24 bytes. */
			assert_int_equal(ptd_perf_get_comm(perf, 1, &c), 0);
			assert_string_equal(c.comm, "other");
			assert_int_equal(c.exec, 0);
			assert_int_equal(c.time, 5000);
		}
		assert_int_equal(ptd_perf_get_comm(perf, 9, &c), -pte_eos);
		ptd_perf_free(perf);

		/* A record too short for its fields and trailer: with ID and
		 * STREAM_ID in sample_type the trailer has 48 bytes, more
		 * than the COMM record (56 bytes) has after its 16 fixed
		 * ones. */
		if (variant == 0) {
			pw_set_u64(w.b + 104 + 24, 0x102c7);
			pw_set_u64(w.b + 104 + 128 + 24, 0x102c7);
			expect_error(&w, -pte_bad_file, find_record(&w, 3));
		}
		free(w.b);
	}
	assert_int_equal(ptd_perf_num_mmaps(NULL), 0);
	assert_int_equal(ptd_perf_num_comms(NULL), 0);
	assert_int_equal(ptd_perf_get_mmap(NULL, 0, NULL), -pte_invalid);
	assert_int_equal(ptd_perf_get_comm(NULL, 0, NULL), -pte_invalid);
}

/* Which task runs on @cpu at @time: @want 1 with @pid/@tid, or 0. */
static void expect_task(const struct ptd_perf *perf, int32_t cpu, uint64_t time,
                        int want, int32_t pid, int32_t tid)
{
	int32_t p = -9, t = -9;

	assert_int_equal(ptd_perf_task_at(perf, cpu, time, &p, &t), want);
	if (want == 1) {
		assert_int_equal(p, pid);
		assert_int_equal(t, tid);
	}
}

/* Context switches, starts of tracing, forks and exits, and the tasks on
 * each CPU they make. */
static void test_switches(void **state)
{
	for (int variant = 0; variant < 3; ++variant) {
		struct pw_spec s = pw_good;
		struct ptd_perf *perf;
		struct ptd_perf_switch sw;
		struct ptd_perf_task t;
		struct pw w;

		(void)state;
		s.sideband = 1;
		s.switches = 1;
		s.mixed_types = variant == 2;
		w = variant == 1 ? pw_write_pipe(&s) : pw_write_file(&s);
		assert_int_equal(parse_n(&w, w.n, &perf, NULL), 0);
		assert_int_equal(ptd_perf_num_switches(perf), 8);
		assert_int_equal(ptd_perf_num_tasks(perf), 2);

		assert_int_equal(ptd_perf_get_switch(perf, 0, &sw), 0);
		assert_int_equal(sw.start, 1);
		assert_int_equal(sw.out, 0);
		assert_int_equal(sw.cpu_wide, 0);
		assert_int_equal(sw.pid, 3174);
		assert_int_equal(sw.tid, 3174);
		assert_int_equal(sw.next_prev_pid, -1);
		assert_int_equal(sw.cpu, 1);
		assert_int_equal(sw.have_time, 1);
		assert_int_equal(sw.time, 500);
		assert_memory_equal(w.b + sw.file_offset, "\x0c\x00\x00\x00",
		                    4);

		assert_int_equal(ptd_perf_get_switch(perf, 3, &sw), 0);
		assert_int_equal(sw.start, 0);
		assert_int_equal(sw.out, 1);
		assert_int_equal(sw.preempt, 1);
		assert_int_equal(sw.cpu_wide, 1);
		assert_int_equal(sw.pid, 0);
		assert_int_equal(sw.next_prev_pid, 3175);
		assert_int_equal(sw.next_prev_tid, 3176);
		assert_int_equal(sw.time, 700);

		assert_int_equal(ptd_perf_get_switch(perf, 5, &sw), 0);
		assert_int_equal(sw.cpu_wide, 0);
		assert_int_equal(sw.out, 1);
		assert_int_equal(sw.preempt, 0);
		assert_int_equal(sw.pid, 3175);
		assert_int_equal(sw.tid, 3176);
		assert_int_equal(sw.next_prev_pid, -1);
		assert_int_equal(sw.next_prev_tid, -1);
		assert_int_equal(sw.cpu, 2);
		assert_int_equal(sw.time, 800);
		assert_int_equal(ptd_perf_get_switch(perf, 8, &sw), -pte_eos);

		assert_int_equal(ptd_perf_get_task(perf, 0, &t), 0);
		assert_int_equal(t.exit, 0);
		assert_int_equal(t.pid, 3175);
		assert_int_equal(t.ppid, 3174);
		assert_int_equal(t.tid, 3175);
		assert_int_equal(t.ptid, 3174);
		assert_int_equal(t.time, 650);
		assert_memory_equal(w.b + t.file_offset, "\x07\x00\x00\x00", 4);
		assert_int_equal(ptd_perf_get_task(perf, 1, &t), 0);
		assert_int_equal(t.exit, 1);
		assert_int_equal(t.tid, 3176);
		assert_int_equal(t.time, 900);
		assert_int_equal(ptd_perf_get_task(perf, 2, &t), -pte_eos);

		/* CPU 1: 3174 from the start of tracing, idle from its switch
		 * out (which names the idle task; 2: inside the switch until
		 * idle's switch in), 3175/3176 from the switch out of idle
		 * that names it, 3177 from the later record at the same time
		 * as the switch in of 3175/3176. */
		expect_task(perf, 1, 499, 0, 0, 0);
		expect_task(perf, 1, 500, 1, 3174, 3174);
		expect_task(perf, 1, 599, 1, 3174, 3174);
		expect_task(perf, 1, 600, 2, 0, 0);
		expect_task(perf, 1, 601, 1, 0, 0);
		expect_task(perf, 1, 650, 1, 0, 0);
		expect_task(perf, 1, 700, 2, 3175, 3176);
		expect_task(perf, 1, 701, 2, 3175, 3176);
		expect_task(perf, 1, 702, 1, 3177, 3177);
		expect_task(perf, 1, UINT64_MAX, 1, 3177, 3177);
		/* CPU 2 (PERF_RECORD_SWITCH, in file order out then in): 3174
		 * from 750, and nobody known after its switch out at 800. */
		expect_task(perf, 2, 749, 0, 0, 0);
		expect_task(perf, 2, 750, 1, 3174, 3174);
		expect_task(perf, 2, 799, 1, 3174, 3174);
		expect_task(perf, 2, 800, 0, 0, 0);
		/* The stretches the answers hold for. */
		{
			int32_t sp = -9, st_ = -9;
			uint64_t from = 7, to = 7;

			assert_int_equal(ptd_perf_task_span(perf, 1, 650, &sp,
			                                    &st_, &from, &to),
			                 1);
			assert_int_equal(from, 601);
			assert_int_equal(to, 700);
			assert_int_equal(ptd_perf_task_span(perf, 1, 400, &sp,
			                                    &st_, &from, &to),
			                 0);
			assert_int_equal(from, 0);
			assert_int_equal(to, 500);
			assert_int_equal(ptd_perf_task_span(perf, 1, 702, &sp,
			                                    &st_, &from, &to),
			                 1);
			assert_int_equal(from, 702);
			assert_int_equal(to, UINT64_MAX);
			assert_int_equal(ptd_perf_task_span(perf, 2, 900, &sp,
			                                    &st_, &from, &to),
			                 0);
			assert_int_equal(from, 800);
			assert_int_equal(to, UINT64_MAX);
			assert_int_equal(ptd_perf_task_span(perf, 3, 900, &sp,
			                                    &st_, &from, &to),
			                 0);
			assert_int_equal(from, 0);
			assert_int_equal(to, UINT64_MAX);
			assert_int_equal(ptd_perf_task_span(perf, 1, 0, &sp,
			                                    &st_, NULL, &to),
			                 -pte_invalid);
		}
		/* CPUs without records. */
		expect_task(perf, 0, 700, 0, 0, 0);
		expect_task(perf, 3, 700, 0, 0, 0);
		expect_task(perf, -1, 700, 0, 0, 0);

		/* Without the trace bytes, the sideband stays. */
		{
			struct ptd_perf_stream st;
			struct ptd_perf_buffer b;

			ptd_perf_free_trace(perf);
			ptd_perf_free_trace(perf);
			assert_int_equal(ptd_perf_get_stream(perf, 0, &st), 0);
			assert_null(st.data);
			assert_int_equal(st.size, sizeof(pw_trace_b));
			assert_int_equal(ptd_perf_get_buffer(perf, 0, &b), 0);
			assert_null(b.data);
			assert_int_equal(ptd_perf_num_switches(perf), 8);
			expect_task(perf, 1, 702, 1, 3177, 3177);
		}
		ptd_perf_free(perf);
		ptd_perf_free_trace(NULL);

		/* Records too short for their fields and trailer: a
		 * PERF_RECORD_SWITCH (40 bytes) read as SWITCH_CPU_WIDE (16
		 * + 32), a SWITCH_CPU_WIDE (48 bytes) read as a FORK (32 +
		 * 32). */
		if (variant == 0) {
			size_t at = find_record(&w, 14);

			w.b[at] = 15;
			expect_error(&w, -pte_bad_file, at);
			w.b[at] = 14;
			at = find_record(&w, 15);
			w.b[at] = 7;
			expect_error(&w, -pte_bad_file, at);
		}
		free(w.b);
	}

	/* Without sample_id_all the switches have no time and no CPU, and
	 * say nothing about who runs where. */
	{
		struct pw_spec s = pw_good;
		struct ptd_perf *perf;
		struct ptd_perf_switch sw;
		struct pw w;

		s.sideband = 1;
		s.switches = 1;
		w = pw_write_file(&s);
		/* attr.flags: clear sample_id_all (bit 18) of both. */
		w.b[104 + 40 + 2] &= (uint8_t) ~(1u << 2);
		w.b[104 + 128 + 40 + 2] &= (uint8_t) ~(1u << 2);
		assert_int_equal(parse_n(&w, w.n, &perf, NULL), 0);
		assert_int_equal(ptd_perf_num_switches(perf), 8);
		assert_int_equal(ptd_perf_get_switch(perf, 1, &sw), 0);
		assert_int_equal(sw.have_time, 0);
		assert_int_equal(sw.cpu, -1);
		assert_int_equal(sw.pid, -1);
		assert_int_equal(sw.next_prev_pid, 0);
		expect_task(perf, 1, 700, 0, 0, 0);
		expect_task(perf, -1, 700, 0, 0, 0);
		ptd_perf_free(perf);
		free(w.b);
	}
	assert_int_equal(ptd_perf_num_switches(NULL), 0);
	assert_int_equal(ptd_perf_num_tasks(NULL), 0);
	assert_int_equal(ptd_perf_get_switch(NULL, 0, NULL), -pte_invalid);
	assert_int_equal(ptd_perf_get_task(NULL, 0, NULL), -pte_invalid);
	assert_int_equal(ptd_perf_task_at(NULL, 0, 0, NULL, NULL),
	                 -pte_invalid);
}

/* A trace of three PSB segments of 126 bytes (PSB, TSC, PSBEND, 100
 * TNT-8s that do not repeat within a segment), PSBs at 0, 126 and 252. */
static void snap_trace(uint8_t t[378])
{
	static const uint8_t psb[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	                                0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	                                0x02, 0x82, 0x02, 0x82};

	for (unsigned seg = 0; seg < 3; ++seg) {
		uint8_t *p = t + 126 * seg;

		memcpy(p, psb, 16);
		p[16] = 0x19; /* TSC */
		for (unsigned i = 0; i < 7; ++i)
			p[17 + i] = (uint8_t)(0x10 * seg + i + 1);
		p[24] = 0x02; /* PSBEND */
		p[25] = 0x23;
		/* TNT-8s: even bytes from 0x04, in an order that does not
		 * repeat (0x04 + 2 * (37 * i mod 126)). */
		for (unsigned i = 0; i < 100; ++i)
			p[26 + i] =
			        (uint8_t)(0x04 + 2 * ((37 * i + seg) % 126));
	}
}

/* Snapshot recordings: the streams leave out what a snapshot repeats of the
 * one before. */
static void test_snapshot(void **state)
{
	static const struct {
		size_t n;
		size_t from[3], to[3], pad[3];
		int snapshot;
		/* The stream: the trace from 0 to @until; or with a gap, from
		 * 0 to @gap_from, an OVF, and from @gap_to to @until; and the
		 * bytes left out. */
		size_t until, gap_from, gap_to, repeated;
	} cases[] = {
	        /* Overlaps of 100 (the second snapshot has the first's
	         * last PSB and all after it) and 70 (the third starts
	         * after the second's last PSB). */
	        {3,
	         {0, 100, 270},
	         {200, 340, 378},
	         {0, 0, 0},
	         1,
	         378,
	         0,
	         0,
	         170},
	        /* No overlap: the ring wrapped; trace is lost.  The
	         * second's bytes before its first PSB (at 252) go. */
	        {2, {0, 230}, {200, 378}, {0, 0}, 1, 378, 200, 252, 0},
	        /* The same with no PSB in the second: nothing of it. */
	        {2, {0, 260}, {200, 378}, {0, 0}, 1, 202, 200, 378, 0},
	        /* perf's zero padding after the first snapshot. */
	        {2, {0, 100}, {200, 378}, {5, 3}, 1, 378, 0, 0, 100},
	        /* The same snapshot twice. */
	        {2, {0, 0}, {378, 378}, {0, 0}, 1, 378, 0, 0, 378},
	        /* The first ends 16 bytes after its last PSB: the PSB
	         * before it is looked for (not the second's first PSB). */
	        {2, {0, 0}, {268, 378}, {0, 0}, 1, 378, 0, 0, 268},
	        /* The first ends inside a PSB (at 252) that the second
	         * has whole: an overlap of 110 bytes without a PSB. */
	        {2, {0, 150}, {260, 378}, {0, 0}, 1, 378, 0, 0, 110},
	        /* Not snapshot mode: buffers as they are. */
	        {2, {0, 100}, {200, 378}, {0, 0}, 0, 0, 0, 0, 0},
	};
	uint8_t t[378];

	(void)state;
	snap_trace(t);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
		struct pw_spec s = pw_good;
		struct ptd_perf *perf;
		struct ptd_perf_stream st;
		struct ptd_perf_info info;
		uint8_t want[2 * 378 + 16];
		size_t nwant = 0;
		struct pw w;

		s.trace = t;
		s.trace_size = sizeof(t);
		s.trace_idx = 4;
		s.snapshot = cases[c].snapshot;
		s.num_snaps = cases[c].n;
		s.snap_from = cases[c].from;
		s.snap_to = cases[c].to;
		s.snap_pad = cases[c].pad;
		w = pw_write_file(&s);
		assert_int_equal(parse_n(&w, w.n, &perf, NULL), 0);
		assert_int_equal(ptd_perf_get_info(perf, &info), 0);
		assert_int_equal(info.snapshot_mode, cases[c].snapshot);
		assert_int_equal(ptd_perf_get_stream(perf, 1, &st), 0);
		assert_int_equal(st.idx, 4);
		assert_int_equal(st.num_buffers, cases[c].n);
		if (cases[c].snapshot && cases[c].gap_to) {
			memcpy(want, t, cases[c].gap_from);
			nwant = cases[c].gap_from;
			memset(want + nwant, 0, cases[c].pad[0]);
			nwant += cases[c].pad[0];
			want[nwant++] = 0x02;
			want[nwant++] = 0xf3;
			if (cases[c].until > cases[c].gap_to) {
				memcpy(want + nwant, t + cases[c].gap_to,
				       cases[c].until - cases[c].gap_to);
				nwant += cases[c].until - cases[c].gap_to;
			}
			memset(want + nwant, 0, cases[c].pad[cases[c].n - 1]);
			nwant += cases[c].pad[cases[c].n - 1];
		} else if (cases[c].snapshot) {
			memcpy(want, t, cases[c].until);
			nwant = cases[c].until;
			/* The last snapshot's padding stays. */
			memset(want + nwant, 0, cases[c].pad[cases[c].n - 1]);
			nwant += cases[c].pad[cases[c].n - 1];
		} else {
			for (size_t i = 0; i < cases[c].n; ++i) {
				memcpy(want + nwant, t + cases[c].from[i],
				       cases[c].to[i] - cases[c].from[i]);
				nwant += cases[c].to[i] - cases[c].from[i];
				memset(want + nwant, 0, cases[c].pad[i]);
				nwant += cases[c].pad[i];
			}
		}
		assert_int_equal(st.gaps, cases[c].gap_to ? 1 : 0);
		assert_int_equal(st.size, nwant);
		assert_memory_equal(st.data, want, nwant);
		assert_int_equal(st.repeated, cases[c].repeated);
		/* The buffers stay as perf wrote them. */
		{
			struct ptd_perf_buffer b;

			assert_int_equal(ptd_perf_get_buffer(perf, 2, &b), 0);
			assert_int_equal(b.size, cases[c].to[1] -
			                                 cases[c].from[1] +
			                                 cases[c].pad[1]);
			assert_memory_equal(b.data, t + cases[c].from[1],
			                    cases[c].to[1] - cases[c].from[1]);
		}
		ptd_perf_free(perf);
		free(w.b);
	}
}

/* A snapshot whose only PSB has fewer than 32 bytes after it, and none
 * before it: no overlap is looked for from it (and the search ends). */
static void test_snapshot_short_tail(void **state)
{
	static const size_t from[2] = {110, 120}, to[2] = {150, 378};
	struct pw_spec s = pw_good;
	struct ptd_perf *perf;
	struct ptd_perf_stream st;
	uint8_t t[378];
	struct pw w;

	(void)state;
	snap_trace(t);
	s.trace = t;
	s.trace_size = sizeof(t);
	s.trace_idx = 4;
	s.snapshot = 1;
	s.num_snaps = 2;
	s.snap_from = from;
	s.snap_to = to;
	w = pw_write_file(&s);
	assert_int_equal(parse_n(&w, w.n, &perf, NULL), 0);
	assert_int_equal(ptd_perf_get_stream(perf, 1, &st), 0);
	assert_int_equal(st.gaps, 1);
	assert_int_equal(st.repeated, 0);
	/* The first, an OVF, the second from its first PSB (T's at 126). */
	assert_int_equal(st.size, 40 + 2 + (378 - 126));
	assert_memory_equal(st.data, t + 110, 40);
	assert_memory_equal(st.data + 40, "\x02\xf3", 2);
	assert_memory_equal(st.data + 42, t + 126, 378 - 126);
	ptd_perf_free(perf);
	free(w.b);
}

#ifdef PTD_HAVE_ZSTD
/* `perf record -z`: the sideband in zstd frames that span compressed records,
 * records that span frames and compressed records, COMPRESSED and
 * COMPRESSED2, in the file and the pipe format. */
static void test_compressed(void **state)
{
	static const struct pz_spec how[] = {
	        {.level = 1},
	        {.compressed2 = 1, .level = 3},
	        {.push = 37, .rec_max = 11, .level = 1},
	        {.push = 1, .rec_max = 5, .compressed2 = 1, .level = 1},
	        {.push = 200, .rec_max = 3, .compressed2 = 1, .level = 5},
	        {.push = 64, .rec_max = 4096, .level = 19},
	        {.push = 37, .level = 1, .feature = 1},
	};

	(void)state;
	for (int variant = 0; variant < 4; ++variant)
		for (size_t k = 0; k < sizeof(how) / sizeof(how[0]); ++k) {
			struct pw_spec s = pw_good;
			struct ptd_perf *a, *b;
			struct pw w, z;

			s.sideband = 1;
			s.switches = 1;
			s.mixed_types = variant == 2;
			s.truncated_aux = variant == 3;
			w = variant == 1 ? pw_write_pipe(&s)
			                 : pw_write_file(&s);
			z = pz_compress_file(w.b, w.n, &how[k]);
			assert_int_equal(parse_n(&w, w.n, &a, NULL), 0);
			assert_int_equal(parse_n(&z, z.n, &b, NULL), 0);
			check_same(a, b, &z);
			ptd_perf_free(a);
			ptd_perf_free(b);
			free(w.b);
			free(z.b);
		}
}

/* A file of pw_good's with @rec (@n bytes) after its records: the place of
 * @rec is returned in *@at. */
static struct pw with_record(const uint8_t *rec, size_t n, size_t *at)
{
	struct pw_spec s = pw_good;
	struct pw w = pw_write_pipe(&s);

	*at = w.n;
	pw_put(&w, rec, n);
	return w;
}

/* A file of pw_good's with the records @r after its own fails with @err at
 * @r's offset, with a message that holds @what. */
static void expect_record_error(const struct pw *r, int err, const char *what)
{
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;
	size_t at;
	struct pw w = with_record(r->b, r->n, &at);

	expect_error(&w, err, at);
	assert_int_equal(parse_n(&w, w.n, &perf, &diag), err);
	assert_non_null(strstr(diag.message, what));
	free(w.b);
}

/* COMPRESSED records holding the @n bytes @plain as one zstd frame (in
 * pieces of up to 60000 bytes). */
static struct pw zrecord(const void *plain, size_t n)
{
	struct pw r = {0};
	size_t cap = ZSTD_compressBound(n);
	uint8_t *c = malloc(cap);
	size_t len;

	assert_non_null(c);
	len = ZSTD_compress(c, cap, plain, n, 1);
	assert_false(ZSTD_isError(len));
	for (size_t at = 0; at < len; at += 60000) {
		size_t k = len - at < 60000 ? len - at : 60000;

		pw_u32(&r, 81);
		pw_u32(&r, (uint32_t)(8 + k) << 16);
		pw_put(&r, c + at, k);
	}
	free(c);
	return r;
}

/* Broken compressed sideband: each gives an error at the compressed
 * record's offset. */
static void test_compressed_bad(void **state)
{
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;
	struct pw w, r;
	uint8_t rec[64] = {0};
	size_t at;

	(void)state;
	/* Not zstd. */
	r.b = NULL;
	r.n = r.cap = 0;
	pw_u32(&r, 81);
	pw_u32(&r, 24u << 16);
	pw_put(&r, "not zstd at all!", 16);
	expect_record_error(&r, -pte_bad_file, "zstd");
	free(r.b);

	/* A COMMAND record of 48 bytes cut after 20 (type 3, size 48). */
	rec[0] = 3;
	rec[7] = 0;
	rec[6] = 48;
	r = zrecord(rec, 20);
	expect_record_error(&r, -pte_bad_file, "ends inside a record");
	free(r.b);

	/* A record of size 4 inside. */
	rec[6] = 4;
	r = zrecord(rec, 16);
	expect_record_error(&r, -pte_bad_file, "size of 4 bytes");
	free(r.b);

	/* A SWITCH record of 8 bytes inside (at least 8, but a
	 * SWITCH_CPU_WIDE needs 16): refused before it is kept, with the
	 * compressed record's offset. */
	rec[0] = 15;
	rec[6] = 8;
	r = zrecord(rec, 8);
	expect_record_error(&r, -pte_bad_file, "compressed sideband");
	free(r.b);

	/* An AUXTRACE record inside. */
	rec[0] = 71;
	rec[6] = 48;
	r = zrecord(rec, 48);
	expect_record_error(&r, -pte_not_supported, "perf writes none");
	free(r.b);

	/* A COMPRESSED2 record whose data_size is larger than it. */
	r.b = NULL;
	r.n = r.cap = 0;
	pw_u32(&r, 83);
	pw_u32(&r, 24u << 16);
	pw_u64(&r, 9);
	pw_u64(&r, 0);
	expect_record_error(&r, -pte_bad_file, "bytes of data");
	free(r.b);

	/* Sideband that expands beyond 32 times the file and 16 MiB: a zstd
	 * frame (a 128 KiB window, no content size) of 1000 RLE blocks of
	 * 128 KiB of 0x40 bytes, which are records of type 0x40404040 and
	 * 0x4040 bytes, in 4 KiB. */
	{
		struct pw f = {0};
		static const uint8_t head[] = {0x28, 0xb5, 0x2f,
		                               0xfd, 0x00, 0x38};

		pw_put(&f, head, sizeof(head));
		for (unsigned i = 0; i < 1000; ++i) {
			uint32_t bh = (uint32_t)(128 * 1024) << 3 | 1u << 1 |
			              (i == 999 ? 1u : 0u);
			uint8_t block[4] = {(uint8_t)bh, (uint8_t)(bh >> 8),
			                    (uint8_t)(bh >> 16), 0x40};

			pw_put(&f, block, sizeof(block));
		}
		r.b = NULL;
		r.n = r.cap = 0;
		pw_u32(&r, 81);
		pw_u32(&r, (uint32_t)(8 + f.n) << 16);
		pw_put(&r, f.b, f.n);
		free(f.b);
		w = with_record(r.b, r.n, &at);
		assert_int_equal(parse_n(&w, w.n, &perf, &diag), -pte_bad_file);
		assert_int_equal(diag.offset, at);
		assert_non_null(strstr(diag.message, "expands to more than"));
		free(w.b);
		free(r.b);
	}

	/* What decompresses to whole records is read: the same 64-byte
	 * records, 1 MiB of them. */
	{
		size_t n = (size_t)1 << 20;
		uint8_t *big = malloc(n);

		assert_non_null(big);
		for (size_t i = 0; i < n; i += 64) {
			memset(big + i, 0, 64);
			big[i] = 9;
			big[i + 6] = 64;
		}
		r = zrecord(big, n);
		free(big);
		w = with_record(r.b, r.n, &at);
		assert_int_equal(parse_n(&w, w.n, &perf, &diag), 0);
		ptd_perf_free(perf);
		free(w.b);
		free(r.b);
	}
}
#endif /* PTD_HAVE_ZSTD */

/* `perf record --aux-sample`: the trace in samples, each a snapshot of the
 * AUX area (padded to 8 bytes), gives the streams that the same slices give
 * as AUXTRACE snapshots with that padding; in the file and the pipe format,
 * with each sample layout, and in compressed sideband. */
static void test_aux_samples(void **state)
{
	static const size_t from[4][3] = {
	        {0, 100, 270}, {0, 230}, {0, 100}, {0, 150}};
	static const size_t to[4][3] = {
	        {200, 340, 378}, {200, 378}, {200, 378}, {260, 378}};
	static const size_t n[4] = {3, 2, 2, 2};
	uint8_t t[378];

	(void)state;
	snap_trace(t);
	for (int layout = 1; layout <= 3; ++layout)
		for (int variant = 0; variant < 3; ++variant)
			for (size_t c = 0; c < 4; ++c) {
				struct pw_spec s = pw_good;
				struct ptd_perf *a, *b;
				struct ptd_perf_stream sa, sb;
				struct ptd_perf_buffer buf;
				struct ptd_perf_info info;
				size_t pad[3];
				struct pw w, ws;

				s.trace = t;
				s.trace_size = sizeof(t);
				s.trace_idx = 4;
				s.num_snaps = n[c];
				s.snap_from = from[c];
				s.snap_to = to[c];
				for (size_t i = 0; i < n[c]; ++i)
					pad[i] = (8 -
					          (to[c][i] - from[c][i]) % 8) %
					         8;
				s.snap_pad = pad;
				s.snapshot = 1;
				ws = pw_write_file(&s);
				s.snapshot = 0;
				s.snap_pad = NULL;
				s.aux_samples = layout;
				w = variant == 1 ? pw_write_pipe(&s)
				                 : pw_write_file(&s);
#ifdef PTD_HAVE_ZSTD
				if (variant == 2) {
					struct pz_spec z = {.push = 50,
					                    .level = 1};
					struct pw zw =
					        pz_compress_file(w.b, w.n, &z);

					free(w.b);
					w = zw;
				}
#endif
				assert_int_equal(parse_n(&ws, ws.n, &a, NULL),
				                 0);
				assert_int_equal(parse_n(&w, w.n, &b, NULL), 0);
				assert_int_equal(ptd_perf_get_info(b, &info),
				                 0);
				assert_int_equal(info.sampled, 1);
				assert_int_equal(info.num_aux_samples, n[c]);
				assert_int_equal(info.num_buffers, n[c]);
				assert_int_equal(
				        ptd_perf_get_buffer(b, 0, &buf), 0);
				assert_int_equal(buf.idx, 4);
				assert_int_equal(buf.cpu, 4);
				assert_int_equal(buf.tid, 3174);
				assert_int_equal(buf.size, to[c][0] -
				                                   from[c][0] +
				                                   pad[0]);
				assert_memory_equal(buf.data, t + from[c][0],
				                    to[c][0] - from[c][0]);
				assert_int_equal(ptd_perf_num_streams(b), 1);
				assert_int_equal(ptd_perf_get_stream(a, 1, &sa),
				                 0);
				assert_int_equal(ptd_perf_get_stream(b, 0, &sb),
				                 0);
				assert_int_equal(sb.idx, 4);
				assert_int_equal(sb.size, sa.size);
				assert_memory_equal(sb.data, sa.data, sa.size);
				assert_int_equal(sb.repeated, sa.repeated);
				assert_int_equal(sb.gaps, sa.gaps);
				assert_int_equal(sb.num_buffers, n[c]);
				ptd_perf_free(a);
				ptd_perf_free(b);
				free(w.b);
				free(ws.b);
			}
}

/* A sample cut off inside its fields is an error at its offset; a sample
 * of an event without PERF_SAMPLE_AUX is not trace. */
static void test_aux_samples_bad(void **state)
{
	static const size_t from[1] = {0}, to[1] = {200};
	uint8_t t[378];

	(void)state;
	snap_trace(t);
	for (int layout = 1; layout <= 3; ++layout) {
		struct pw_spec s = pw_good;
		struct ptd_perf *perf;
		struct ptd_perf_diag diag;
		struct ptd_perf_info info;
		size_t at, size;
		struct pw w;

		s.trace = t;
		s.trace_size = sizeof(t);
		s.trace_idx = 4;
		s.num_snaps = 1;
		s.snap_from = from;
		s.snap_to = to;
		s.aux_samples = layout;
		w = pw_write_file(&s);
		/* The SAMPLE record (type 9) in the data section. */
		at = pw_find_record(&w, 9);
		assert_true(at > 0);
		size = w.b[at + 6] | (size_t)w.b[at + 7] << 8;
		/* Its AUX size one larger than the record holds. */
		pw_set_u64(w.b + at + size - 200 - 8, 201);
		assert_int_equal(parse_n(&w, w.n, &perf, &diag), -pte_bad_file);
		assert_int_equal(diag.offset, at);
		assert_non_null(strstr(diag.message, "AUX"));
		/* As a sample of an event without AUX (type 0 config 0 with
		 * sample_type 0x10087 in place of the third attribute's):
		 * no trace. */
		pw_set_u64(w.b + at + size - 200 - 8, 200);
		pw_set_u64(w.b + 104 + 256 + 24, 0x10087);
		assert_int_equal(parse_n(&w, w.n, &perf, NULL), 0);
		assert_int_equal(ptd_perf_get_info(perf, &info), 0);
		assert_int_equal(info.sampled, 0);
		assert_int_equal(info.num_aux_samples, 0);
		assert_int_equal(info.num_buffers, 0);
		ptd_perf_free(perf);
		free(w.b);
	}
}

/* Write @w as the directory @dir (pd_write_dir()), and return the path of
 * its file @name in @path. */
static void dir_path(char *path, size_t size, const char *dir, const char *name)
{
	snprintf(path, size, "%s/%s", dir, name);
}

/* `perf record --threads`: a directory with "data" and data.<n> files. */
static void test_directory(void **state)
{
	char dir[] = "/tmp/ptd_test_perf_dir_XXXXXX";
	char path[256];
	struct pw_spec s = pw_good;
	struct ptd_perf *a, *b;
	struct ptd_perf_info info;
	struct ptd_perf_diag diag;
	struct pw w;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	s.sideband = 1;
	s.switches = 1;
	w = pw_write_file(&s);
	assert_int_equal(parse_n(&w, w.n, &a, NULL), 0);
	for (unsigned threads = 1; threads <= 4; ++threads)
		for (int aux_in_data = 0; aux_in_data < 2; ++aux_in_data) {
			assert_int_equal(pd_write_dir(dir, w.b, w.n, threads,
			                              aux_in_data, NULL, NULL),
			                 0);
			assert_int_equal(ptd_perf_read(&b, dir, &diag), 0);
			assert_int_equal(ptd_perf_get_info(b, &info), 0);
			assert_int_equal(info.dir_files, threads);
			check_same(a, b, NULL);
			ptd_perf_free(b);
			/* (The next write has as many files or more.) */
		}

	/* Files perf does not name so are not read: "data.01" would be
	 * data.1 a second time. */
	dir_path(path, sizeof(path), dir, "data.01");
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite("junk", 1, 4, f), 4);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(ptd_perf_read(&b, dir, &diag), 0);
	assert_int_equal(ptd_perf_get_info(b, &info), 0);
	assert_int_equal(info.dir_files, 4);
	check_same(a, b, NULL);
	ptd_perf_free(b);
	assert_int_equal(unlink(path), 0);

	/* A record cut off in data.2: the error names it and the offset in
	 * it. */
	{
		long size;

		dir_path(path, sizeof(path), dir, "data.2");
		f = fopen(path, "ab");
		assert_non_null(f);
		size = ftell(f);
		assert_true(size >= 0);
		assert_int_equal(fwrite("junk", 1, 4, f), 4);
		assert_int_equal(fclose(f), 0);
		assert_int_equal(ptd_perf_read(&b, dir, &diag), -pte_bad_file);
		assert_null(b);
		assert_int_equal(diag.offset, (uint64_t)size);
		assert_true(strncmp(diag.message, "data.2: ", 8) == 0);
	}

	/* No "data": an error that names it. */
	for (unsigned i = 0; i < 4; ++i) {
		char name[16];

		snprintf(name, sizeof(name), "data.%u", i);
		dir_path(path, sizeof(path), dir, name);
		assert_int_equal(unlink(path), 0);
	}
	dir_path(path, sizeof(path), dir, "data");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(ptd_perf_read(&b, dir, &diag), -pte_bad_file);
	assert_non_null(strstr(diag.message, path));
	assert_int_equal(rmdir(dir), 0);
	ptd_perf_free(a);
	free(w.b);
}

#ifdef PTD_HAVE_ZSTD
/* A directory whose data.0 holds compressed sideband that expands to more
 * than 32 times its data file and 16 MiB (17 MiB of SAMPLE records that
 * compress poorly): the limit counts all the directory's files, so it
 * reads, as the same records in one file do. */
static void test_directory_compressed_limit(void **state)
{
	char dir[] = "/tmp/ptd_test_perf_dirz_XXXXXX";
	char path[256];
	struct pw_spec s = pw_good;
	struct pz_spec z = {.push = 1 << 20, .rec_max = 60000, .level = 1};
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;
	struct pw extra = {0}, w;
	uint64_t x = 88172645463325252ull;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* 17 MiB of 64-byte SAMPLE records with random payloads (the file's
	 * attributes have no PERF_SAMPLE_AUX: they are skipped). */
	while (extra.n < (size_t)17 << 20) {
		uint8_t rec[64];

		for (size_t i = 0; i < sizeof(rec); ++i) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			rec[i] = (uint8_t)x;
		}
		memset(rec, 0, 8);
		rec[0] = 9;
		rec[6] = 64;
		pw_put(&extra, rec, sizeof(rec));
	}
	s.extra = extra.b;
	s.extra_size = extra.n;
	w = pw_write_file(&s);
	assert_int_equal(pd_write_dir(dir, w.b, w.n, 1, 0, pz_records_fn, &z),
	                 0);
	assert_int_equal(ptd_perf_read(&perf, dir, &diag), 0);
	ptd_perf_free(perf);
	dir_path(path, sizeof(path), dir, "data");
	assert_int_equal(unlink(path), 0);
	dir_path(path, sizeof(path), dir, "data.0");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	free(extra.b);
	free(w.b);
}
#endif

static void test_read_file(void **state)
{
	struct pw w = pw_write_file(&pw_good);
	char path[] = "/tmp/ptd_test_perf_XXXXXX";
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(w.b, 1, w.n, f), w.n);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(ptd_perf_read(&perf, path, &diag), 0);
	check_good(perf, 0, &w);
	ptd_perf_free(perf);
	assert_int_equal(unlink(path), 0);

	assert_int_equal(ptd_perf_read(&perf, path, &diag), -pte_bad_file);
	assert_null(perf);
	assert_non_null(strstr(diag.message, path));
	free(w.b);
}

static void test_arguments(void **state)
{
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;
	struct ptd_perf_info info;
	struct ptd_perf_buffer b;
	struct ptd_perf_stream s;
	struct pw w = pw_write_file(&pw_good);

	(void)state;
	assert_int_equal(ptd_perf_parse(NULL, w.b, w.n, &diag), -pte_invalid);
	assert_int_equal(ptd_perf_parse(&perf, NULL, w.n, &diag), -pte_invalid);
	assert_int_equal(ptd_perf_read(NULL, "x", NULL), -pte_invalid);
	assert_int_equal(ptd_perf_read(&perf, NULL, NULL), -pte_invalid);
	assert_int_equal(ptd_perf_get_info(NULL, &info), -pte_invalid);
	assert_int_equal(ptd_perf_num_buffers(NULL), 0);
	assert_int_equal(ptd_perf_num_streams(NULL), 0);
	assert_int_equal(ptd_perf_get_buffer(NULL, 0, &b), -pte_invalid);
	assert_int_equal(ptd_perf_get_stream(NULL, 0, &s), -pte_invalid);
	ptd_perf_free(NULL);

	assert_int_equal(ptd_perf_parse(&perf, w.b, w.n, NULL), 0);
	assert_int_equal(ptd_perf_get_info(perf, NULL), -pte_invalid);
	assert_int_equal(ptd_perf_get_buffer(perf, 0, NULL), -pte_invalid);
	assert_int_equal(ptd_perf_get_stream(perf, 0, NULL), -pte_invalid);
	ptd_perf_free(perf);
	free(w.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_file_format),
	        cmocka_unit_test(test_pipe_format),
	        cmocka_unit_test(test_config),
	        cmocka_unit_test(test_short_info),
	        cmocka_unit_test(test_filter_compressed),
	        cmocka_unit_test(test_cpuid),
	        cmocka_unit_test(test_truncated),
	        cmocka_unit_test(test_bad_header),
	        cmocka_unit_test(test_bad_records),
	        cmocka_unit_test(test_variants),
	        cmocka_unit_test(test_interrupted),
	        cmocka_unit_test(test_other_aux),
	        cmocka_unit_test(test_sideband),
	        cmocka_unit_test(test_switches),
	        cmocka_unit_test(test_snapshot),
	        cmocka_unit_test(test_snapshot_short_tail),
#ifdef PTD_HAVE_ZSTD
	        cmocka_unit_test(test_compressed),
	        cmocka_unit_test(test_compressed_bad),
#endif
	        cmocka_unit_test(test_aux_samples),
	        cmocka_unit_test(test_aux_samples_bad),
	        cmocka_unit_test(test_directory),
#ifdef PTD_HAVE_ZSTD
	        cmocka_unit_test(test_directory_compressed_limit),
#endif
	        cmocka_unit_test(test_read_file),
	        cmocka_unit_test(test_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
