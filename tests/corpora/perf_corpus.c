/* SPDX-License-Identifier: BSD-3-Clause */
/* The perf.data reader on the real recording of ../shared/corpora/perf-data.
 *
 * Usage: perf_corpus <perf.data>
 *
 * Checks what the corpora README and the file's summary (made by an
 * independent parser) say about perf.data.intel_pt-4.14: the intel_pt event
 * and AUXTRACE_INFO values, the CPUID feature, two AUX areas whose trace is
 * byte for byte the <file>.auxtrace-idx<N>-cpu<C>.bin files beside it, the
 * sideband's memory maps, process names, context switches and exit with
 * their times, which task ran on a CPU when (echo, whenever its trace has
 * an enable event), perf's
 * time conversion (the README's anchor: TSC 0xbc4cbefc32 is perf time
 * 641.256845844 s), the decoder configuration ptd_perf_config() makes, and
 * that the query decoder with that configuration reads both streams end to
 * end without an error.  Exit status 0, 1 with the failed checks printed, 77
 * if the file is absent. */
#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("perf_corpus: check failed: %s\n", #cond);      \
			failures += 1;                                         \
		}                                                              \
	} while (0)

/* Whether @stream's trace equals the file @path. */
static int same_as_file(const struct ptd_perf_stream *stream, const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t got;
	int same;

	if (!f) {
		printf("perf_corpus: cannot open %s\n", path);
		return 0;
	}
	buf = malloc((size_t)stream->size + 1);
	if (!buf) {
		fclose(f);
		return 0;
	}
	got = fread(buf, 1, (size_t)stream->size + 1, f);
	fclose(f);
	same = got == stream->size && !memcmp(buf, stream->data, got);
	free(buf);
	return same;
}

/* The enable events of a stream and which task the sideband says ran on its
 * CPU then. */
struct enables {
	uint64_t total, workload, other, unknown, switching;
};

/* Which task ran when the trace of @stream was enabled at TSC @tsc. */
static void check_enable(const struct ptd_perf *perf,
                         const struct ptd_perf_stream *stream, uint64_t tsc,
                         struct enables *en)
{
	struct ptd_perf_info info;
	uint64_t ns = 0;
	int32_t pid = -1, tid = -1;
	int known;

	en->total += 1;
	if (ptd_perf_get_info(perf, &info) < 0 ||
	    ptd_perf_tsc_to_ns(&ns, &info.tc, tsc) < 0) {
		en->unknown += 1;
		return;
	}
	known = ptd_perf_task_at(perf, stream->cpu, ns, &pid, &tid);
	if (known == 2)
		en->switching += 1;
	if (known < 1)
		en->unknown += 1;
	else if (pid == 3174 && tid == 3174)
		en->workload += 1;
	else {
		en->other += 1;
		printf("perf_corpus: cpu %" PRId32 ": enabled at %" PRIu64
		       " ns, in task %" PRId32 "/%" PRId32 "\n",
		       stream->cpu, ns, pid, tid);
	}
}

/* Decode @stream with the query decoder as a tool would; returns the number
 * of errors and counts the TNT bits in *@branches and the enable events in
 * @en. */
static uint64_t decode(const struct pt_config *base,
                       const struct ptd_perf *perf,
                       const struct ptd_perf_stream *stream, uint64_t *branches,
                       struct enables *en)
{
	struct pt_config config = *base;
	struct pt_query_decoder *dec;
	uint64_t errors = 0;
	int status;

	config.begin = (uint8_t *)stream->data;
	config.end = (uint8_t *)stream->data + stream->size;
	dec = pt_qry_alloc_decoder(&config);
	if (!dec)
		return 1;
	*branches = 0;
	for (;;) {
		uint64_t ip, offset = 0;

		status = pt_qry_sync_forward(dec, &ip);
		if (status == -pte_eos)
			break;
		while (status >= 0) {
			struct pt_event ev;
			int taken;

			if (status & pts_event_pending) {
				status = pt_qry_event(dec, &ev, sizeof(ev));
				if (status >= 0 && ev.type == ptev_enabled &&
				    ev.has_tsc)
					check_enable(perf, stream, ev.tsc, en);
			} else if ((status = pt_qry_cond_branch(dec, &taken)) >=
			           0)
				*branches += 1;
			else if (status == -pte_bad_query)
				status = pt_qry_indirect_branch(dec, &ip);
		}
		if (status == -pte_eos)
			break;
		pt_qry_get_offset(dec, &offset);
		printf("perf_corpus: cpu %" PRId32 ": error %s at 0x%" PRIx64
		       "\n",
		       stream->cpu, pt_errstr(pt_errcode(status)), offset);
		errors += 1;
	}
	pt_qry_free_decoder(dec);
	return errors;
}

int main(int argc, char **argv)
{
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;
	struct ptd_perf_info info;
	struct ptd_rtit_diag rdiag;
	struct pt_config config;
	FILE *f;
	uint64_t ns = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: perf_corpus <perf.data>\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		printf("perf_corpus: skipped: %s is absent\n", argv[1]);
		return 77;
	}
	fclose(f);

	if (ptd_perf_read(&perf, argv[1], &diag) < 0) {
		printf("perf_corpus: %s:%" PRIu64 ": %s\n", argv[1],
		       diag.offset, diag.message);
		return 1;
	}
	CHECK(ptd_perf_get_info(perf, &info) == 0);
	CHECK(info.pmu_type == 6);
	CHECK(info.config == 0x300e601);
	CHECK(info.sample_type == 0x10087);
	CHECK(!info.exclude_kernel && !info.exclude_user);
	CHECK(info.have_tc && info.tc.time_shift == 31 &&
	      info.tc.time_mult == 1789569706u &&
	      info.tc.time_zero == 0xfffffff86343cb91ull);
	CHECK(info.tsc_bit == 0x400 && info.noretcomp_bit == 0x800 &&
	      info.mtc_bit == 0x200 && info.mtc_freq_bits == 0x3c000 &&
	      info.cyc_bit == 0x2);
	CHECK(info.have_sched_switch == 3 && !info.snapshot_mode &&
	      info.per_cpu_mmaps);
	CHECK(info.tsc_ctc_n == 100 && info.tsc_ctc_d == 2);
	CHECK(info.max_nonturbo_ratio == 12);
	CHECK(!strcmp(info.filter, ""));
	CHECK(!strcmp(info.cpuid, "GenuineIntel,6,78,3"));
	CHECK(info.num_buffers == 2 && info.trace_bytes == 12240 + 137728);
	CHECK(!info.pipe && !info.num_compressed);
	CHECK(ptd_perf_tsc_to_ns(&ns, &info.tc, 0xbc4cbefc32ull) == 0 &&
	      ns == 641256845844ull);

	/* The sideband the summary lists: 56 MMAP (the kernel's first), 10
	 * MMAP2 (echo's, coreutils first), 3 COMM; echo's maps and its exec
	 * lie within the trace's time (641.2568 to 641.2581 s). */
	CHECK(ptd_perf_num_mmaps(perf) == 66);
	CHECK(ptd_perf_num_comms(perf) == 3);
	{
		struct ptd_perf_mmap m;
		struct ptd_perf_comm c;
		size_t n2 = 0;

		CHECK(ptd_perf_get_mmap(perf, 0, &m) == 0 && m.pid == -1 &&
		      !m.mmap2 && m.cpumode == 1 &&
		      m.start == 0xffffffffb9600000ull && m.len == 0x6cf0000 &&
		      !strcmp(m.filename, "[kernel.kallsyms]_text"));
		for (size_t i = 0; i < ptd_perf_num_mmaps(perf); ++i) {
			if (ptd_perf_get_mmap(perf, i, &m) < 0 || !m.mmap2)
				continue;
			if (!n2++)
				CHECK(m.pid == 3174 && m.tid == 3174 &&
				      m.start == 0x5cba63156000ull &&
				      m.len == 0x125000 && m.pgoff == 0 &&
				      !strcmp(m.filename,
				              "/usr/bin/coreutils"));
			CHECK(m.have_time && m.time > 641256845844ull &&
			      m.time < 641258036789ull);
		}
		CHECK(n2 == 10);
		CHECK(ptd_perf_get_comm(perf, 1, &c) == 0 && c.pid == 3174 &&
		      !strcmp(c.comm, "echo") && c.exec && c.have_time &&
		      c.time > 641256845844ull && c.time < 641258036789ull);
	}

	/* The context switches (the independent parser's record counts: 152
	 * SWITCH_CPU_WIDE, 2 ITRACE_START, 1 EXIT): the first is CPU 0 going
	 * from idle to echo; on CPU 3 idle switches to echo at 641256442729
	 * and echo back to idle at 641256472308. */
	CHECK(ptd_perf_num_switches(perf) == 154);
	CHECK(ptd_perf_num_tasks(perf) == 1);
	{
		struct ptd_perf_switch sw;
		struct ptd_perf_task t;
		size_t starts = 0, outs = 0;
		int32_t pid = -9, tid = -9;

		CHECK(ptd_perf_get_switch(perf, 0, &sw) == 0 && sw.cpu_wide &&
		      sw.out && !sw.start && sw.pid == 0 && sw.tid == 0 &&
		      sw.cpu == 0 && sw.have_time &&
		      sw.time == 641256032286ull && sw.next_prev_pid == 3174 &&
		      sw.next_prev_tid == 3174);
		for (size_t i = 0; i < ptd_perf_num_switches(perf); ++i) {
			if (ptd_perf_get_switch(perf, i, &sw) < 0)
				break;
			starts += sw.start;
			outs += sw.out;
			if (sw.start)
				CHECK(sw.pid == 3174 && sw.tid == 3174 &&
				      (sw.cpu == 0 || sw.cpu == 3));
		}
		CHECK(starts == 2 && outs == 76);
		CHECK(ptd_perf_get_task(perf, 0, &t) == 0 && t.exit &&
		      t.pid == 3174 && t.tid == 3174 &&
		      t.time == 641258039319ull);
		CHECK(ptd_perf_task_at(perf, 3, 641256442728ull, &pid, &tid) ==
		              1 &&
		      pid == 0);
		CHECK(ptd_perf_task_at(perf, 3, 641256442729ull, &pid, &tid) ==
		              2 &&
		      pid == 3174 && tid == 3174);
		CHECK(ptd_perf_task_at(perf, 3, 641256445024ull, &pid, &tid) ==
		              1 &&
		      pid == 3174 && tid == 3174);
		CHECK(ptd_perf_task_at(perf, 3, 641256472307ull, &pid, &tid) ==
		              1 &&
		      pid == 3174);
		CHECK(ptd_perf_task_at(perf, 3, 641256472308ull, &pid, &tid) ==
		              2 &&
		      pid == 0);
		CHECK(ptd_perf_task_at(perf, 3, 641255848110ull, &pid, &tid) ==
		      0);
		CHECK(ptd_perf_task_at(perf, 5, 641256472308ull, &pid, &tid) ==
		      0);
	}

	pt_config_init(&config);
	CHECK(ptd_perf_config(perf, &config, &rdiag) == 0);
	CHECK(config.cpu.vendor == pcv_intel && config.cpu.family == 6 &&
	      config.cpu.model == 78 && config.cpu.stepping == 3);
	CHECK(config.mtc_freq == 3 && config.nom_freq == 12 &&
	      config.cpuid_0x15_eax == 2 && config.cpuid_0x15_ebx == 100);
	CHECK(config.errata.skd007 && config.errata.skl168);

	CHECK(ptd_perf_num_streams(perf) == 2);
	for (size_t i = 0; i < ptd_perf_num_streams(perf); ++i) {
		static const struct {
			uint32_t idx;
			int32_t cpu;
			uint64_t size, min_branches, min_enables;
		} want[2] = {{0, 0, 12240, 40000, 1},
		             {3, 3, 137728, 300000, 9}};
		struct ptd_perf_stream st;
		char path[4096];
		uint64_t branches = 0, errors;
		struct enables en = {0, 0, 0, 0, 0};

		if (i >= 2 || ptd_perf_get_stream(perf, i, &st) < 0)
			break;
		CHECK(st.idx == want[i].idx && st.cpu == want[i].cpu &&
		      st.size == want[i].size && st.num_buffers == 1);
		snprintf(path, sizeof(path),
		         "%s.auxtrace-idx%" PRIu32 "-cpu%" PRId32 ".bin",
		         argv[1], st.idx, st.cpu);
		CHECK(same_as_file(&st, path));
		errors = decode(&config, perf, &st, &branches, &en);
		printf("perf_corpus: AUX area %" PRIu32 " (cpu %" PRId32
		       "): %" PRIu64 " bytes, %" PRIu64
		       " conditional branches, %" PRIu64 " errors\n",
		       st.idx, st.cpu, st.size, branches, errors);
		CHECK(errors == 0);
		CHECK(branches >= want[i].min_branches);
		/* echo runs whenever tracing is enabled (perf traces only
		 * its tasks). */
		CHECK(en.total >= want[i].min_enables && en.other == 0 &&
		      en.unknown == 0);
		printf("perf_corpus: AUX area %" PRIu32 ": %" PRIu64
		       " enable events: %" PRIu64 " in echo (3174), %" PRIu64
		       " in another task, %" PRIu64 " unknown; %" PRIu64
		       " inside a context switch\n",
		       st.idx, en.total, en.workload, en.other, en.unknown,
		       en.switching);
	}
	ptd_perf_free(perf);
	if (failures)
		return 1;
	printf("perf_corpus: ok\n");
	return 0;
}
