/* SPDX-License-Identifier: BSD-3-Clause */
/* perf.data files of one CPU on which processes take turns, for the test of
 * ptxed --perf:images with context switches (check-ptxed-tasks.sh).
 *
 * Usage: perf_tasks <dir>
 *
 * Writes <dir>/a.bin (NOP, NOP, MOV CR3 RAX, NOPs) and <dir>/b.bin (XOR EAX,
 * EAX, three NOPs, XOR EAX, EAX, NOP), both mapped at 0x400000, and AUX area 5
 * (CPU 5) of these perf.data files (t0 is TSC 0xbc4cbefc32, perf time
 * 641256845844 ns; t1 and t2 are one and two million TSC ticks later):
 *
 * tasks.data: a whole-CPU recording (thread -1) of three turns, each
 *   PSB+ with a TSC, TIP.PGE 0x400000 ... FUP + TIP.PGD:
 *     t0  process 101/101 "alpha", a.bin: two NOPs (FUP 0x400002);
 *     t1  thread 203 of process 202 "beta", which exec'd: b.bin, XOR and a
 *         NOP (FUP 0x400003); before its exec 202 had another file at
 *         0x400000 (missing);
 *     t2  process 303, forked from 101 and not exec'd: a.bin from its
 *         parent, two NOPs.
 *   The sideband: SWITCH_CPU_WIDE records on CPU 5 (the idle task in, then
 *   out to each process and each in, halfway between the turns), COMMs,
 *   MMAP2s and a FORK.
 * tasks-noswitch.data: the same without the switches.
 * tasks-swap.data: the same with beta's MMAP2 of b.bin before its exec's
 *   COMM in the file (as perf writes the records of two CPUs), but after it
 *   in time.
 * tasks-notsc.data: the same trace without TSCs, of thread 101.
 * tasks-resync.data: alpha's turn ends in a bad packet (ext opcode 0x55)
 *   after its TIP.PGE; beta's turn has no TIP.PGE but a FUP in its PSB+
 *   (tracing on), so the decoder resynchronizes into it.
 * tasks-thread.data: the same as tasks.data with PERF_RECORD_SWITCH
 *   records (no task named at a switch out; each switch in recorded 500 ns
 *   after the task's tracing starts).
 * tasks-paging.data: one turn with kernel-style tracing: TIP.PGE 0x400000
 *   at t0 (alpha), then a TSC t1 and a PIP: alpha's MOV CR3 at 0x400002 loads
 *   beta's page tables, whose code at 0x400005 is XOR, then FUP 0x400007 +
 *   TIP.PGD.  The switch from alpha to beta lies between t0 and t1.
 * tasks-kcore.data/: a directory as `perf record --threads --kcore` writes
 *   it (data, data.0 and kcore_dir/kcore, an ELF core file with one
 *   PT_LOAD of NOP, NOP, XOR EAX, EAX, NOP at 0xffffffff81000000): alpha's
 *   turn at t0 in the kernel, TIP.PGE 0xffffffff81000000, FUP
 *   0xffffffff81000004 + TIP.PGD. */
#define _POSIX_C_SOURCE 200809L

#include "perf_dir_write.h"
#include "perf_write.h"
#include "ptdecode/ptdecode.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The variants. */
enum variant {
	v_base,
	v_noswitch,
	v_swap,
	v_notsc,
	v_resync,
	v_paging,
	v_thread,
	v_kcore,
	v_count
};

static const char *const names[v_count] = {
        "tasks.data",        "tasks-noswitch.data", "tasks-swap.data",
        "tasks-notsc.data",  "tasks-resync.data",   "tasks-paging.data",
        "tasks-thread.data", "tasks-kcore.data"};

/* The kernel's code in tasks-kcore.data/kcore_dir/kcore. */
enum { kernel_text = 0xffffffff81000000ull };

static int write_file(const char *dir, const char *name, const void *data,
                      size_t size)
{
	char path[4096];
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path)) {
		fprintf(stderr, "perf_tasks: %s/%s: path too long\n", dir,
		        name);
		return -1;
	}
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
		fprintf(stderr, "perf_tasks: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/* Encode packet @type (with @ip / @value where it takes one). */
static int put(struct pt_encoder *enc, enum pt_packet_type type, uint64_t ip,
               uint64_t value)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	switch (type) {
	case ppt_tsc:
		p.payload.tsc.tsc = value;
		break;
	case ppt_mode:
		p.payload.mode.leaf = pt_mol_exec;
		p.payload.mode.bits.exec.csl = 1;
		break;
	case ppt_pip:
		p.payload.pip.cr3 = value;
		break;
	case ppt_tip_pgd:
		p.payload.ip.ipc = pt_ipc_suppressed;
		break;
	case ppt_tip_pge:
	case ppt_fup:
		p.payload.ip.ipc = pt_ipc_sext_48;
		p.payload.ip.ip = ip;
		break;
	default:
		break;
	}
	return pt_enc_next(enc, &p);
}

/* The trace of @v. */
static int encode(enum variant v, uint8_t *buf, size_t cap,
                  const uint64_t tsc[3], size_t *size)
{
	static const uint64_t fup[3] = {0x400002, 0x400003, 0x400002};
	struct pt_encoder *enc;
	struct pt_config config;
	uint64_t offset = 0;
	int err = 0;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + cap;
	enc = pt_alloc_encoder(&config);
	if (!enc)
		return -1;
	if (v == v_kcore) {
		err |= put(enc, ppt_psb, 0, 0);
		err |= put(enc, ppt_tsc, 0, tsc[0]);
		err |= put(enc, ppt_mode, 0, 0);
		err |= put(enc, ppt_psbend, 0, 0);
		err |= put(enc, ppt_tip_pge, kernel_text, 0);
		err |= put(enc, ppt_fup, kernel_text + 4, 0);
		err |= put(enc, ppt_tip_pgd, 0, 0);
	}
	if (v == v_paging) {
		err |= put(enc, ppt_psb, 0, 0);
		err |= put(enc, ppt_tsc, 0, tsc[0]);
		err |= put(enc, ppt_mode, 0, 0);
		err |= put(enc, ppt_psbend, 0, 0);
		err |= put(enc, ppt_tip_pge, 0x400000, 0);
		err |= put(enc, ppt_tsc, 0, tsc[1]);
		err |= put(enc, ppt_pip, 0, 0x2000);
		err |= put(enc, ppt_fup, 0x400007, 0);
		err |= put(enc, ppt_tip_pgd, 0, 0);
	}
	for (int turn = 0;
	     v != v_paging && v != v_kcore && turn < 3 && err >= 0; ++turn) {
		err |= put(enc, ppt_psb, 0, 0);
		if (v != v_notsc)
			err |= put(enc, ppt_tsc, 0, tsc[turn]);
		err |= put(enc, ppt_mode, 0, 0);
		if (v == v_resync && turn == 1) {
			/* Tracing on in the PSB+: no TIP.PGE. */
			err |= put(enc, ppt_fup, 0x400000, 0);
			err |= put(enc, ppt_psbend, 0, 0);
		} else {
			err |= put(enc, ppt_psbend, 0, 0);
			err |= put(enc, ppt_tip_pge, 0x400000, 0);
		}
		if (v == v_resync && turn == 0) {
			/* A bad packet: ext opcode 0x55. */
			if (pt_enc_get_offset(enc, &offset) < 0 ||
			    offset + 2 > cap)
				err = -1;
			else {
				buf[offset] = 0x02;
				buf[offset + 1] = 0x55;
				err |= pt_enc_sync_set(enc, offset + 2);
			}
			continue;
		}
		err |= put(enc, ppt_fup, fup[turn], 0);
		err |= put(enc, ppt_tip_pgd, 0, 0);
	}
	if (err >= 0)
		err = pt_enc_get_offset(enc, &offset);
	*size = (size_t)offset;
	pt_free_encoder(enc);
	return err < 0 ? -1 : 0;
}

/* The sideband of @v. */
static void sideband(enum variant v, struct pw *w, const uint64_t ns[3],
                     const char *a_path, const char *b_path,
                     const char *old_path)
{
	/* alpha (101) with a.bin; beta (202) with a file before its exec and
	 * b.bin after; 303 forked from alpha. */
	pw_comm(w, 101, 101, "alpha", 1, ns[0] - 5000, 1);
	pw_mmap2_at(w, 101, 0x400000, 8, a_path, ns[0] - 4000, 1);
	pw_comm(w, 202, 202, "sh", 0, ns[0] - 3000, 2);
	pw_mmap2_at(w, 202, 0x400000, 0x1000, old_path, ns[0] - 3000, 2);
	if (v == v_swap)
		pw_mmap2_at(w, 202, 0x400000, 8, b_path, ns[0] + 1100, 2);
	pw_comm(w, 202, 202, "beta", 1, ns[0] + 1000, 2);
	if (v != v_swap)
		pw_mmap2_at(w, 202, 0x400000, 8, b_path, ns[0] + 1100, 2);
	pw_comm(w, 202, 203, "beta", 0, ns[0] + 1200, 2);
	pw_fork(w, 303, 101, ns[1] + 1000, 1);
	if (v == v_noswitch)
		return;
	if (v == v_thread) {
		/* PERF_RECORD_SWITCH: each task's switch in recorded 500 ns
		 * after its tracing starts, its switch out 300 us later. */
		static const uint32_t pid[3] = {101, 202, 303};
		static const uint32_t tid[3] = {101, 203, 303};

		for (int k = 0; k < 3; ++k) {
			pw_switch_thread(w, 0, pid[k], tid[k], ns[k] + 500, 5);
			pw_switch_thread(w, 1, pid[k], tid[k], ns[k] + 300000,
			                 5);
		}
		return;
	}
	if (v == v_paging || v == v_kcore) {
		/* Alpha runs from before t0; beta from between t0 and t1. */
		pw_switch_cpu_wide(w, 1, 0, 0, 101, 101, ns[0] - 1000, 5);
		pw_switch_cpu_wide(w, 0, 101, 101, 0, 0, ns[0] - 900, 5);
		pw_switch_cpu_wide(w, 1, 101, 101, 202, 203,
		                   (ns[0] + ns[1]) / 2, 5);
		pw_switch_cpu_wide(w, 0, 202, 203, 101, 101,
		                   (ns[0] + ns[1]) / 2 + 100, 5);
		return;
	}
	pw_switch_cpu_wide(w, 0, 0, 0, 303, 303, ns[0] - 2000, 5);
	pw_switch_cpu_wide(w, 1, 0, 0, 101, 101, ns[0] - 1000, 5);
	pw_switch_cpu_wide(w, 0, 101, 101, 0, 0, ns[0] - 900, 5);
	pw_switch_cpu_wide(w, 1, 101, 101, 202, 203, (ns[0] + ns[1]) / 2, 5);
	pw_switch_cpu_wide(w, 0, 202, 203, 101, 101, (ns[0] + ns[1]) / 2 + 100,
	                   5);
	pw_switch_cpu_wide(w, 1, 202, 203, 303, 303, (ns[1] + ns[2]) / 2, 5);
	pw_switch_cpu_wide(w, 0, 303, 303, 202, 203, (ns[1] + ns[2]) / 2 + 100,
	                   5);
}

/* An ELF64 core file as perf's kcore_dir/kcore: one PT_LOAD segment of
 * @size bytes @code at @vaddr. */
static int write_kcore(const char *dir, uint64_t vaddr, const uint8_t *code,
                       size_t size)
{
	struct pw w = {0};
	char sub[4096];
	int err;

	/* The ELF header: ELFCLASS64, little-endian, ET_CORE, x86-64, the
	 * program headers at 64, one of 56 bytes. */
	pw_put(&w,
	       "\x7f"
	       "ELF\x02\x01\x01",
	       7);
	pw_zero(&w, 9);
	pw_u32(&w, 4 | 62u << 16);
	pw_u32(&w, 1);
	pw_u64(&w, 0);
	pw_u64(&w, 64);
	pw_u64(&w, 0);
	pw_u32(&w, 0);
	pw_u32(&w, 64 | 56u << 16);
	pw_u32(&w, 1 | 64u << 16);
	pw_u32(&w, 0);
	/* PT_LOAD, RWX, its bytes at 120. */
	pw_u32(&w, 1);
	pw_u32(&w, 7);
	pw_u64(&w, 120);
	pw_u64(&w, vaddr);
	pw_u64(&w, 0);
	pw_u64(&w, size);
	pw_u64(&w, size);
	pw_u64(&w, 0x1000);
	pw_put(&w, code, size);
	if (snprintf(sub, sizeof(sub), "%s/kcore_dir", dir) >=
	            (int)sizeof(sub) ||
	    (mkdir(sub, 0755) != 0 && errno != EEXIST)) {
		free(w.b);
		return -1;
	}
	err = write_file(sub, "kcore", w.b, w.n);
	free(w.b);
	return err;
}

int main(int argc, char **argv)
{
	static const uint8_t a[8] = {0x90, 0x90, 0x0f, 0x22,
	                             0xd8, 0x90, 0x90, 0x90};
	static const uint8_t b[8] = {0x31, 0xc0, 0x90, 0x90,
	                             0x90, 0x31, 0xc0, 0x90};
	const struct ptd_perf_tc tc = {31, 1789569706u, 0xfffffff86343cb91ull};
	uint64_t tsc[3], ns[3];
	char a_path[4096], b_path[4096], old_path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: perf_tasks <dir>\n");
		return 2;
	}
	for (int i = 0; i < 3; ++i) {
		tsc[i] = 0xbc4cbefc32ull + 1000000ull * (uint64_t)i;
		if (ptd_perf_tsc_to_ns(&ns[i], &tc, tsc[i]) < 0)
			return 1;
	}
	snprintf(a_path, sizeof(a_path), "%s/a.bin", argv[1]);
	snprintf(b_path, sizeof(b_path), "%s/b.bin", argv[1]);
	snprintf(old_path, sizeof(old_path), "%s/missing-before-exec", argv[1]);
	if (write_file(argv[1], "a.bin", a, sizeof(a)) < 0 ||
	    write_file(argv[1], "b.bin", b, sizeof(b)) < 0)
		return 1;

	for (int v = 0; v < v_count; ++v) {
		struct pw_spec spec = pw_good;
		struct pw side = {0}, w;
		uint8_t trace[256];
		size_t trace_size = 0;
		int err;

		if (encode((enum variant)v, trace, sizeof(trace), tsc,
		           &trace_size) < 0) {
			fprintf(stderr, "perf_tasks: cannot encode %s\n",
			        names[v]);
			return 1;
		}
		sideband((enum variant)v, &side, ns, a_path, b_path, old_path);
		spec.sideband = 1;
		if (v == v_notsc)
			spec.aux_tid = 101;
		else
			spec.tid_minus_one = 1;
		spec.trace = trace;
		spec.trace_size = trace_size;
		spec.trace_idx = 5;
		spec.extra = side.b;
		spec.extra_size = side.n;
		w = pw_write_file(&spec);
		if (v == v_kcore) {
			static const uint8_t kernel[5] = {0x90, 0x90, 0x31,
			                                  0xc0, 0x90};
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", argv[1],
			         names[v]);
			err = pd_write_dir(path, w.b, w.n, 1, 0, NULL, NULL);
			if (err >= 0)
				err = write_kcore(path, kernel_text, kernel,
				                  sizeof(kernel));
		} else {
			err = write_file(argv[1], names[v], w.b, w.n);
		}
		free(w.b);
		free(side.b);
		if (err < 0)
			return 1;
	}
	return 0;
}
