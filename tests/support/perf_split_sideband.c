/* SPDX-License-Identifier: BSD-3-Clause */
/* perf_split_sideband: write a perf.data file's sideband records into one
 * file per CPU, as libipt's script/perf-read-sideband.bash does with
 * `perf script -D` and dd, for the tests of the tools' --pevent options on
 * a real recording (tests/corpora/check-sideband-perf.sh).
 *
 *   perf_split_sideband <perf.data> <prefix>
 *
 * Writes <prefix>-sideband-cpu<N>.pevent with the records whose sample_id
 * CPU field is N, and <prefix>-sideband.pevent with those that have none
 * (or CPU -1), each record's bytes as they are in the file, and prints the
 * settings to read them with, as perf-get-opts.bash does:
 * "--pevent:sample-type 0x.. --pevent:time-zero .. --pevent:time-shift ..
 * --pevent:time-mult ..".  Skipped, as by the script: AUXTRACE_INFO,
 * AUXTRACE (with its trace) and FINISHED_ROUND.  perf's other own records
 * (type 64 and up), and records the sideband reader cannot read, go to the
 * file without a CPU, as do samples, whose fields are no sample_id trailer
 * (the script puts those by the CPU perf names).  A file of an unfinished
 * `perf record` (data size 0) is read to its end.  Only
 * the file format (not the pipe format), one sample type for all events (the
 * intel_pt event's), and no compressed sideband. Exit status 0, 1 on an error
 * (with a message). */
#include "elf_text.h"
#include "perf_write.h"
#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { max_cpus = 1024 };

static int fail(const char *what, const char *file)
{
	fprintf(stderr, "perf_split_sideband: %s: %s\n", file, what);
	return 1;
}

/* Append @n bytes at @p to the file of @cpu (-1: the global one). */
static int put(FILE **files, const char *prefix, int cpu, const uint8_t *p,
               size_t n)
{
	FILE **f = &files[cpu < 0 ? max_cpus : cpu];

	if (!*f) {
		char path[4096];

		if (cpu < 0)
			snprintf(path, sizeof(path), "%s-sideband.pevent",
			         prefix);
		else
			snprintf(path, sizeof(path), "%s-sideband-cpu%d.pevent",
			         prefix, cpu);
		*f = fopen(path, "wb");
		if (!*f)
			return fail("cannot create the output", path);
	}
	return fwrite(p, 1, n, *f) == n ? 0 : fail("cannot write", prefix);
}

int main(int argc, char **argv)
{
	static FILE *files[max_cpus + 1];
	struct ptd_perf *perf;
	struct ptd_perf_info info;
	struct ptd_perf_diag diag;
	struct ptd_pevent_config cfg;
	uint64_t data, data_size;
	uint8_t *b;
	size_t n, at, end;
	int status = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s <perf.data> <prefix>\n", argv[0]);
		return 2;
	}
	b = ptd_read_whole_file(argv[1], &n);
	if (!b || n < 56 || memcmp(b, "PERFILE2", 8) != 0 ||
	    pw_get_u64(b + 8) == 16)
		return fail("not a perf.data file of the file format", argv[1]);
	/* The sample type and time conversion, as perf-get-opts.bash reads
	 * them (perf evlist, AUXTRACE_INFO). */
	if (ptd_perf_parse(&perf, b, n, &diag) < 0 ||
	    ptd_perf_get_info(perf, &info) < 0)
		return fail(diag.message, argv[1]);
	ptd_perf_free(perf);
	ptd_pevent_config_init(&cfg);
	cfg.sample_type = info.sample_type;
	if (info.have_tc)
		cfg.tc = info.tc;

	data = pw_get_u64(b + 40);
	data_size = pw_get_u64(b + 48);
	if (data > n || data_size > n - data)
		return fail("bad data section", argv[1]);
	/* (An unfinished recording: the records go to the end.) */
	if (!data_size)
		data_size = n - data;
	end = (size_t)(data + data_size);
	for (at = (size_t)data; at < end && !status;) {
		size_t len = pw_record_len(b, at, end);
		uint32_t type = pw_get_u32(b + at);
		struct ptd_pevent_record rec;

		/* FINISHED_ROUND, AUXTRACE_INFO, AUXTRACE */
		if (type != 68 && type != 70 && type != 71) {
			int cpu = -1;

			if (type < 64 &&
			    ptd_pevent_read(&rec, b + at, b + at + len, &cfg) >
			            0 &&
			    (rec.sample.present & ptd_pevent_sample_cpu) &&
			    rec.sample.cpu < max_cpus)
				cpu = (int)rec.sample.cpu;
			status = put(files, argv[2], cpu, b + at, len);
		}
		at += len;
	}
	for (size_t i = 0; i <= max_cpus; ++i)
		if (files[i] && fclose(files[i]) != 0)
			status = fail("cannot write", argv[2]);
	free(b);
	if (!status)
		printf("--pevent:sample-type 0x%" PRIx64
		       " --pevent:time-zero %" PRIu64
		       " --pevent:time-shift %u --pevent:time-mult %u\n",
		       cfg.sample_type, cfg.tc.time_zero,
		       (unsigned)cfg.tc.time_shift, (unsigned)cfg.tc.time_mult);
	return status;
}
