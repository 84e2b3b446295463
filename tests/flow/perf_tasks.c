/* SPDX-License-Identifier: BSD-3-Clause */
/* A perf.data file of one CPU on which three processes take turns, for the
 * test of ptxed --perf:images with context switches (check-ptxed-tasks.sh).
 *
 * Usage: perf_tasks <dir>
 *
 * Writes <dir>/a.bin (four NOPs) and <dir>/b.bin (XOR EAX, EAX and two
 * NOPs), both mapped at 0x400000, and <dir>/tasks.data: AUX area 5 (CPU 5,
 * whole-CPU recording: thread -1) with a trace of three turns, each
 * TIP.PGE 0x400000 ... FUP + TIP.PGD, after TSCs t0, t1, t2 (t0 is
 * 0xbc4cbefc32, perf time 641256845844 ns; one million TSC ticks apart):
 *
 *   t0  process 101/101 "alpha", a.bin: two NOPs (FUP 0x400002);
 *   t1  thread 203 of process 202 "beta", which exec'd: b.bin, XOR and a
 *       NOP (FUP 0x400003); before its exec 202 had another file at
 *       0x400000 (missing);
 *   t2  process 303, forked from 101 and not exec'd: a.bin from its
 *       parent, two NOPs.
 *
 * The sideband says so with SWITCH_CPU_WIDE records on CPU 5 (the idle task
 * in, then out to each process shortly before its turn), COMMs, MMAP2s and
 * a FORK; <dir>/tasks-noswitch.data is the same without the switches. */
#define _POSIX_C_SOURCE 200809L

#include "perf_write.h"
#include "ptdecode/ptdecode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int write_file(const char *dir, const char *name, const void *data,
                      size_t size)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
		fprintf(stderr, "perf_tasks: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/* The trace: three turns at @tsc[0..2]. */
static int encode(uint8_t *buf, size_t cap, const uint64_t tsc[3], size_t *size)
{
	static const uint64_t fup[3] = {0x400002, 0x400003, 0x400002};
	struct pt_encoder *enc;
	struct pt_config config;
	struct pt_packet p;
	int err = 0;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + cap;
	enc = pt_alloc_encoder(&config);
	if (!enc)
		return -1;
	for (int turn = 0; turn < 3 && err >= 0; ++turn) {
		memset(&p, 0, sizeof(p));
		p.type = ppt_psb;
		err = pt_enc_next(enc, &p);
		memset(&p, 0, sizeof(p));
		p.type = ppt_tsc;
		p.payload.tsc.tsc = tsc[turn];
		if (err >= 0)
			err = pt_enc_next(enc, &p);
		memset(&p, 0, sizeof(p));
		p.type = ppt_mode;
		p.payload.mode.leaf = pt_mol_exec;
		p.payload.mode.bits.exec.csl = 1;
		if (err >= 0)
			err = pt_enc_next(enc, &p);
		memset(&p, 0, sizeof(p));
		p.type = ppt_psbend;
		if (err >= 0)
			err = pt_enc_next(enc, &p);
		memset(&p, 0, sizeof(p));
		p.type = ppt_tip_pge;
		p.payload.ip.ipc = pt_ipc_sext_48;
		p.payload.ip.ip = 0x400000;
		if (err >= 0)
			err = pt_enc_next(enc, &p);
		memset(&p, 0, sizeof(p));
		p.type = ppt_fup;
		p.payload.ip.ipc = pt_ipc_sext_48;
		p.payload.ip.ip = fup[turn];
		if (err >= 0)
			err = pt_enc_next(enc, &p);
		memset(&p, 0, sizeof(p));
		p.type = ppt_tip_pgd;
		p.payload.ip.ipc = pt_ipc_suppressed;
		if (err >= 0)
			err = pt_enc_next(enc, &p);
	}
	if (err >= 0) {
		uint64_t offset = 0;

		err = pt_enc_get_offset(enc, &offset);
		*size = (size_t)offset;
	}
	pt_free_encoder(enc);
	return err < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const uint8_t a[4] = {0x90, 0x90, 0x90, 0x90};
	static const uint8_t b[4] = {0x31, 0xc0, 0x90, 0x90};
	const struct ptd_perf_tc tc = {31, 1789569706u, 0xfffffff86343cb91ull};
	uint64_t tsc[3], ns[3];
	char a_path[4096], b_path[4096], old_path[4096];
	uint8_t trace[256];
	size_t trace_size = 0;
	struct pw side = {0}, side_noswitch = {0};

	if (argc != 2) {
		fprintf(stderr, "usage: perf_tasks <dir>\n");
		return 2;
	}
	for (int i = 0; i < 3; ++i) {
		tsc[i] = 0xbc4cbefc32ull + 1000000ull * (uint64_t)i;
		if (ptd_perf_tsc_to_ns(&ns[i], &tc, tsc[i]) < 0)
			return 1;
	}
	if (encode(trace, sizeof(trace), tsc, &trace_size) < 0) {
		fprintf(stderr, "perf_tasks: cannot encode the trace\n");
		return 1;
	}
	snprintf(a_path, sizeof(a_path), "%s/a.bin", argv[1]);
	snprintf(b_path, sizeof(b_path), "%s/b.bin", argv[1]);
	snprintf(old_path, sizeof(old_path), "%s/missing-before-exec", argv[1]);

	for (int with = 0; with < 2; ++with) {
		struct pw *w = with ? &side : &side_noswitch;

		/* alpha (101) with a.bin; beta (202) with a file before its
		 * exec and b.bin after; 303 forked from alpha. */
		pw_comm(w, 101, 101, "alpha", 1, ns[0] - 5000, 1);
		pw_mmap2_at(w, 101, 0x400000, sizeof(a), a_path, ns[0] - 4000,
		            1);
		pw_comm(w, 202, 202, "sh", 0, ns[0] - 3000, 2);
		pw_mmap2_at(w, 202, 0x400000, 0x1000, old_path, ns[0] - 3000,
		            2);
		pw_comm(w, 202, 202, "beta", 1, ns[0] + 1000, 2);
		pw_mmap2_at(w, 202, 0x400000, sizeof(b), b_path, ns[0] + 1100,
		            2);
		pw_comm(w, 202, 203, "beta", 0, ns[0] + 1200, 2);
		pw_fork(w, 303, 101, ns[1] + 1000, 1);
		if (!with)
			continue;
		pw_switch_cpu_wide(w, 0, 0, 0, 303, 303, ns[0] - 2000, 5);
		pw_switch_cpu_wide(w, 1, 0, 0, 101, 101, ns[0] - 1000, 5);
		pw_switch_cpu_wide(w, 0, 101, 101, 0, 0, ns[0] - 900, 5);
		pw_switch_cpu_wide(w, 1, 101, 101, 202, 203,
		                   (ns[0] + ns[1]) / 2, 5);
		pw_switch_cpu_wide(w, 0, 202, 203, 101, 101,
		                   (ns[0] + ns[1]) / 2 + 100, 5);
		pw_switch_cpu_wide(w, 1, 202, 203, 303, 303,
		                   (ns[1] + ns[2]) / 2, 5);
		pw_switch_cpu_wide(w, 0, 303, 303, 202, 203,
		                   (ns[1] + ns[2]) / 2 + 100, 5);
	}

	if (write_file(argv[1], "a.bin", a, sizeof(a)) < 0 ||
	    write_file(argv[1], "b.bin", b, sizeof(b)) < 0)
		return 1;
	for (int with = 0; with < 2; ++with) {
		struct pw_spec spec = pw_good;
		struct pw w;
		int err;

		spec.sideband = 1;
		spec.tid_minus_one = 1;
		spec.trace = trace;
		spec.trace_size = trace_size;
		spec.trace_idx = 5;
		spec.extra = with ? side.b : side_noswitch.b;
		spec.extra_size = with ? side.n : side_noswitch.n;
		w = pw_write_file(&spec);
		err = write_file(argv[1],
		                 with ? "tasks.data" : "tasks-noswitch.data",
		                 w.b, w.n);
		free(w.b);
		if (err < 0)
			return 1;
	}
	free(side.b);
	free(side_noswitch.b);
	return 0;
}
