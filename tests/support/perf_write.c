/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing small perf.data files (perf_write.h).  Layouts: Linux
 * tools/perf/util/header.h (struct perf_file_header), uapi perf_event.h
 * (struct perf_event_attr, records) and tools/perf/util/intel-pt.h
 * (AUXTRACE_INFO's priv[] for Intel PT). */
#include "perf_write.h"

#include <stdlib.h>
#include <string.h>

void pw_put(struct pw *w, const void *p, size_t n)
{
	if (w->n + n > w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;
		uint8_t *grown;

		while (cap < w->n + n)
			cap *= 2;
		grown = realloc(w->b, cap);
		if (!grown)
			abort();
		w->b = grown;
		w->cap = cap;
	}
	if (n)
		memcpy(w->b + w->n, p, n);
	w->n += n;
}

void pw_u64(struct pw *w, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; ++i)
		b[i] = (uint8_t)(v >> (8 * i));
	pw_put(w, b, 8);
}

void pw_u32(struct pw *w, uint32_t v)
{
	uint8_t b[4];

	for (int i = 0; i < 4; ++i)
		b[i] = (uint8_t)(v >> (8 * i));
	pw_put(w, b, 4);
}

void pw_zero(struct pw *w, size_t n)
{
	while (n--)
		pw_put(w, "", 1);
}

void pw_set_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; ++i)
		p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t pw_get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; --i)
		v = v << 8 | p[i];
	return v;
}

uint32_t pw_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void pw_set_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; ++i)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A record header: {u32 type, u16 misc, u16 size}. */
static void pw_rec(struct pw *w, uint32_t type, uint16_t size)
{
	uint8_t b[4] = {0, 0, (uint8_t)size, (uint8_t)(size >> 8)};

	pw_u32(w, type);
	pw_put(w, b, 4);
}

/* A 112-byte perf_event_attr (PERF_ATTR_SIZE_VER5). */
static void pw_attr(struct pw *w, uint32_t type, uint64_t config,
                    uint64_t sample_type, uint64_t flags)
{
	pw_u32(w, type);
	pw_u32(w, 112);
	pw_u64(w, config);
	pw_u64(w, 1);           /* sample_period */
	pw_u64(w, sample_type); /* sample_type */
	pw_u64(w, 0);           /* read_format */
	pw_u64(w, flags);
	pw_zero(w, 112 - 48);
}

const struct pw_spec pw_good = {.auxtrace_type = 1,
                                .npriv = 17,
                                .cpuid = "GenuineIntel,6,78,3",
                                .attr_type = 8};

/* The trace of the three buffers. */
const uint8_t pw_trace_a[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                                0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82};
const uint8_t pw_trace_b[8] = {0x02, 0x23, 0, 0, 0, 0, 0, 0};
const uint8_t pw_trace_c[8] = {0x19, 1, 2, 3, 4, 5, 6, 7};

static void pw_auxtrace(struct pw *w, const struct pw_spec *s,
                        const uint8_t *data, uint64_t size, uint64_t aux_offset,
                        uint32_t idx, uint32_t cpu)
{
	unsigned hsize = s->aux_header_size ? s->aux_header_size : 48;

	pw_rec(w, 71, (uint16_t)hsize);
	pw_u64(w, size);
	pw_u64(w, aux_offset);
	pw_u64(w, 0xbc4cd519a6ull + idx); /* reference */
	pw_u32(w, idx);
	pw_u32(w, s->tid_minus_one ? 0xffffffffu
	          : s->aux_tid     ? s->aux_tid
	                           : 3174); /* tid */
	pw_u32(w, cpu);
	pw_u32(w, 0);
	pw_zero(w, hsize - 48);
	pw_put(w, data, (size_t)size);
}

static void pw_info(struct pw *w, const struct pw_spec *s)
{
	const uint64_t priv[17] = {8,
	                           31,
	                           1789569706,
	                           0xfffffff86343cb91ull,
	                           1,
	                           0x400,
	                           0x800,
	                           3,
	                           s->snapshot ? 1 : 0,
	                           1,
	                           0x200,
	                           0x3c000,
	                           100,
	                           2,
	                           0x2,
	                           12,
	                           0};
	size_t flen = s->filter ? strlen(s->filter) : 0;
	size_t fwords = flen ? (flen + 1 + 7) / 8 : 0;
	unsigned n = s->npriv;

	pw_rec(w, 70, (uint16_t)(16 + 8 * (n + (n >= 17 ? fwords : 0))));
	pw_u32(w, s->auxtrace_type);
	pw_u32(w, 0);
	for (unsigned i = 0; i < n; ++i)
		pw_u64(w, i == 16 ? flen : priv[i]);
	if (n >= 17 && fwords) {
		pw_put(w, s->filter, flen);
		pw_zero(w, 8 * fwords - flen);
	}
}

/* The data records: an MMAP, the AUXTRACE_INFO, three buffers (AUX areas
 * 1, 0 and 1) and what @s adds. */
/* A record header with misc bits. */
static void pw_rec_misc(struct pw *w, uint32_t type, uint16_t misc,
                        uint16_t size)
{
	uint8_t b[4] = {(uint8_t)misc, (uint8_t)(misc >> 8), (uint8_t)size,
	                (uint8_t)(size >> 8)};

	pw_u32(w, type);
	pw_put(w, b, 4);
}

/* A sample_id trailer: TID, TIME, CPU (unless @short_form), IDENTIFIER. */
static void pw_trailer(struct pw *w, uint64_t time, uint64_t id, int short_form)
{
	pw_u32(w, 3174);
	pw_u32(w, 3174);
	pw_u64(w, time);
	if (!short_form) {
		pw_u32(w, 1);
		pw_u32(w, 0);
	}
	pw_u64(w, id);
}

/* A full sample_id trailer of task @pid/@tid on @cpu (id 42). */
static void pw_trailer_of(struct pw *w, uint32_t pid, uint32_t tid,
                          uint64_t time, uint32_t cpu)
{
	pw_u32(w, pid);
	pw_u32(w, tid);
	pw_u64(w, time);
	pw_u32(w, cpu);
	pw_u32(w, 0);
	pw_u64(w, 42);
}

/* A string padded with NULs to a multiple of 8 bytes (one NUL at least). */
static void pw_str(struct pw *w, const char *str)
{
	size_t len = strlen(str);

	pw_put(w, str, len);
	pw_zero(w, (len + 1 + 7) / 8 * 8 - len);
}

static void pw_sideband(struct pw *w, const struct pw_spec *s)
{
	static const uint8_t id[20] = {0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	                               0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e,
	                               0x1f, 0x20, 0x21, 0x22, 0x23, 0x24};

	/* MMAP of the kernel (cpumode 1). */
	pw_rec_misc(w, 1, 1, 40 + 24 + 32);
	pw_u32(w, 0xffffffffu);
	pw_u32(w, 0);
	pw_u64(w, 0xffffffff81000000ull);
	pw_u64(w, 0x1000000);
	pw_u64(w, 0xffffffff81000000ull);
	pw_str(w, "[kernel.kallsyms]_text");
	pw_trailer(w, 1000, 42, 0);
	/* MMAP2 with a build ID (cpumode 2, PERF_RECORD_MISC_MMAP_BUILD_ID). */
	pw_rec_misc(w, 10, 2 | 1 << 14, 72 + 16 + 32);
	pw_u32(w, 3174);
	pw_u32(w, 3174);
	pw_u64(w, 0x400000);
	pw_u64(w, 0x2000);
	pw_u64(w, 0x1000);
	pw_put(w, (const uint8_t[]){20, 0, 0, 0}, 4);
	pw_put(w, id, 20);
	pw_u32(w, 5); /* prot */
	pw_u32(w, 2); /* flags */
	pw_str(w, "/bin/prog");
	pw_trailer(w, 2000, 42, 0);
	/* MMAP2 with device and inode. */
	pw_rec_misc(w, 10, 2, 72 + 16 + 32);
	pw_u32(w, 3174);
	pw_u32(w, 3175);
	pw_u64(w, 0x7f0000000000ull);
	pw_u64(w, 0x200000);
	pw_u64(w, 0);
	pw_u32(w, 8);
	pw_u32(w, 1);
	pw_u64(w, 123456);
	pw_u64(w, 1);
	pw_u32(w, 5);
	pw_u32(w, 2);
	pw_str(w, "/lib/libc.so.6");
	pw_trailer(w, 3000, 42, 0);
	/* COMM with exec. */
	pw_rec_misc(w, 3, 1 << 13, 16 + 8 + 32);
	pw_u32(w, 3174);
	pw_u32(w, 3174);
	pw_str(w, "prog");
	pw_trailer(w, 4000, 42, 0);
	if (s->mixed_types) {
		pw_rec_misc(w, 3, 0, 16 + 8 + 24);
		pw_u32(w, 3174);
		pw_u32(w, 3174);
		pw_str(w, "other");
		pw_trailer(w, 5000, 43, 1);
	}
}

/* A SWITCH_CPU_WIDE record: @pid/@tid switches in or @out, to or from
 * @np_pid/@np_tid. */
static void pw_switch_wide(struct pw *w, int out, int preempt, uint32_t pid,
                           uint32_t tid, uint32_t np_pid, uint32_t np_tid,
                           uint64_t time, uint32_t cpu)
{
	pw_rec_misc(w, 15,
	            (uint16_t)((out ? 1u << 13 : 0) | (preempt ? 1u << 14 : 0)),
	            16 + 32);
	pw_u32(w, np_pid);
	pw_u32(w, np_tid);
	pw_trailer_of(w, pid, tid, time, cpu);
}

/* A FORK or EXIT record. */
static void pw_task(struct pw *w, int exit, uint32_t pid, uint32_t ppid,
                    uint32_t tid, uint32_t ptid, uint64_t time)
{
	pw_rec(w, exit ? 4 : 7, 32 + 32);
	pw_u32(w, pid);
	pw_u32(w, ppid);
	pw_u32(w, tid);
	pw_u32(w, ptid);
	pw_u64(w, time);
	pw_trailer_of(w, pid, tid, time, 1);
}

/* The context switches, forks and exits of @s->switches (perf_write.h). */
static void pw_switches(struct pw *w)
{
	/* ITRACE_START of 3174 on CPU 1. */
	pw_rec(w, 12, 16 + 32);
	pw_u32(w, 3174);
	pw_u32(w, 3174);
	pw_trailer_of(w, 3174, 3174, 500, 1);
	pw_switch_wide(w, 1, 0, 3174, 3174, 0, 0, 600, 1);
	pw_switch_wide(w, 0, 0, 0, 0, 3174, 3174, 601, 1);
	pw_task(w, 0, 3175, 3174, 3175, 3174, 650);
	pw_switch_wide(w, 1, 1, 0, 0, 3175, 3176, 700, 1);
	pw_switch_wide(w, 0, 0, 3175, 3176, 0, 0, 702, 1);
	/* PERF_RECORD_SWITCH on CPU 2: out at 800, then (later in the file,
	 * earlier in time) in at 750. */
	pw_rec_misc(w, 14, 1u << 13, 8 + 32);
	pw_trailer_of(w, 3175, 3176, 800, 2);
	pw_rec_misc(w, 14, 0, 8 + 32);
	pw_trailer_of(w, 3174, 3174, 750, 2);
	/* The same time as the switch at 702 on CPU 1, later in the file. */
	pw_switch_wide(w, 0, 0, 3177, 3177, 3175, 3176, 702, 1);
	pw_task(w, 1, 3175, 3174, 3176, 3174, 900);
}

/* A user-mode, executable MMAP2 of @file (@len bytes from offset 0) at
 * @start in process @pid, with a full sample_id trailer (@time, @cpu) if
 * @trailer. */
static void pw_mmap2_rec(struct pw *w, uint32_t pid, uint64_t start,
                         uint64_t len, const char *file, int trailer,
                         uint64_t time, uint32_t cpu)
{
	size_t flen = (strlen(file) + 1 + 7) / 8 * 8;

	pw_rec_misc(w, 10, 2, (uint16_t)(72 + flen + (trailer ? 32 : 0)));
	pw_u32(w, pid);
	pw_u32(w, pid);
	pw_u64(w, start);
	pw_u64(w, len);
	pw_u64(w, 0);
	pw_zero(w, 24); /* maj, min, ino, ino_generation */
	pw_u32(w, 5);   /* PROT_READ | PROT_EXEC */
	pw_u32(w, 2);   /* MAP_PRIVATE */
	pw_str(w, file);
	if (trailer)
		pw_trailer_of(w, pid, pid, time, cpu);
}

/* The same without a trailer. */
static void pw_mmap2(struct pw *w, uint32_t pid, uint64_t start, uint64_t len,
                     const char *file)
{
	pw_mmap2_rec(w, pid, start, len, file, 0, 0, 0);
}

void pw_comm(struct pw *w, uint32_t pid, uint32_t tid, const char *comm,
             int exec, uint64_t time, uint32_t cpu)
{
	size_t len = (strlen(comm) + 1 + 7) / 8 * 8;

	pw_rec_misc(w, 3, (uint16_t)(exec ? 1u << 13 : 0),
	            (uint16_t)(16 + len + 32));
	pw_u32(w, pid);
	pw_u32(w, tid);
	pw_str(w, comm);
	pw_trailer_of(w, pid, tid, time, cpu);
}

void pw_mmap2_at(struct pw *w, uint32_t pid, uint64_t start, uint64_t len,
                 const char *file, uint64_t time, uint32_t cpu)
{
	pw_mmap2_rec(w, pid, start, len, file, 1, time, cpu);
}

void pw_switch_cpu_wide(struct pw *w, int out, uint32_t pid, uint32_t tid,
                        uint32_t np_pid, uint32_t np_tid, uint64_t time,
                        uint32_t cpu)
{
	pw_switch_wide(w, out, 0, pid, tid, np_pid, np_tid, time, cpu);
}

void pw_switch_thread(struct pw *w, int out, uint32_t pid, uint32_t tid,
                      uint64_t time, uint32_t cpu)
{
	pw_rec_misc(w, 14, (uint16_t)(out ? 1u << 13 : 0), 8 + 32);
	pw_trailer_of(w, pid, tid, time, cpu);
}

void pw_fork(struct pw *w, uint32_t pid, uint32_t ppid, uint64_t time,
             uint32_t cpu)
{
	pw_rec(w, 7, 32 + 32);
	pw_u32(w, pid);
	pw_u32(w, ppid);
	pw_u32(w, pid);
	pw_u32(w, ppid);
	pw_u64(w, time);
	pw_trailer_of(w, pid, pid, time, cpu);
}

/* The memory maps of @s->mmap_file (see perf_write.h). */
static void pw_program_maps(struct pw *w, const struct pw_spec *s)
{
	pw_mmap2(w, 3174, s->mmap_start, 0x1000, "/nonexistent/before-exec");
	pw_rec_misc(w, 3, 1 << 13, 16 + 8);
	pw_u32(w, 3174);
	pw_u32(w, 3174);
	pw_str(w, "prog");
	pw_mmap2(w, 3175, s->mmap_start, 0x1000, "/nonexistent/other-process");
	pw_mmap2(w, 3174, s->mmap_start, s->mmap_len, s->mmap_file);
}

uint64_t pw_sample_type(int layout)
{
	/* IDENTIFIER, IP, TID, TIME, CPU, PERIOD, AUX. */
	if (layout == 1)
		return 0x110187;
	/* Bits 0-13, DATA_SRC 15 ... WEIGHT_STRUCT 24 (not WEIGHT 14). */
	return 0x3fff | UINT64_C(0x1ff8000);
}

/* The sampling event's attribute: "cycles" (type 0, config 0) with the
 * fields its samples' layout needs. */
static void pw_sample_attr(struct pw *w, int layout)
{
	pw_u32(w, 0);
	pw_u32(w, 112);
	pw_u64(w, 0);                      /* config */
	pw_u64(w, 4000);                   /* sample_period */
	pw_u64(w, pw_sample_type(layout)); /* sample_type */
	pw_u64(w, layout > 1 ? 0x1f : 0);  /* read_format */
	pw_u64(w, 1u << 18);               /* sample_id_all */
	pw_zero(w, 72 - 48);
	/* branch_sample_type: the hardware index (and the counters). */
	pw_u64(w, layout > 1 ? (1u << 17) | (layout > 2 ? 1u << 19 : 0) : 0);
	pw_u64(w, 0x7); /* sample_regs_user: 3 registers */
	pw_zero(w, 96 - 88);
	pw_u64(w, 0x3); /* sample_regs_intr: 2 (but abi 0: none) */
	pw_zero(w, 112 - 104);
}

/* A sample of the sampling event with @n bytes of trace @data on @cpu at
 * @time, laid out as pw_sample_type(@layout) says. */
static void pw_aux_sample(struct pw *w, int layout, const uint8_t *data,
                          size_t n, uint64_t time, uint32_t cpu)
{
	struct pw r = {0};
	size_t padded = (n + 7) / 8 * 8;

	pw_u64(&r, 44);       /* IDENTIFIER */
	pw_u64(&r, 0x401000); /* IP */
	pw_u32(&r, 3174);     /* TID */
	pw_u32(&r, 3174);
	pw_u64(&r, time); /* TIME */
	if (layout > 1) {
		pw_u64(&r, 0x1234); /* ADDR */
		pw_u64(&r, 44);     /* ID */
		pw_u64(&r, 45);     /* STREAM_ID */
	}
	pw_u32(&r, cpu); /* CPU */
	pw_u32(&r, 0);
	pw_u64(&r, 4000); /* PERIOD */
	if (layout > 1) {
		/* READ, a group of 2: nr, enabled, running, {value, id,
		 * lost} x 2. */
		pw_u64(&r, 2);
		pw_u64(&r, 100);
		pw_u64(&r, 90);
		for (int i = 0; i < 2; ++i) {
			pw_u64(&r, 7);
			pw_u64(&r, 44 + (uint64_t)i);
			pw_u64(&r, 0);
		}
		/* CALLCHAIN of 3. */
		pw_u64(&r, 3);
		for (int i = 0; i < 3; ++i)
			pw_u64(&r, 0x401000 + (uint64_t)i);
		/* RAW: u32 size, 12 bytes (16 in all). */
		pw_u32(&r, 12);
		pw_put(&r, "raw-12-bytes", 12);
		/* BRANCH_STACK of 2: nr, hw_idx, entries (from, to,
		 * flags), counters. */
		pw_u64(&r, 2);
		pw_u64(&r, 1);
		for (int i = 0; i < 2; ++i) {
			pw_u64(&r, 0x401000);
			pw_u64(&r, 0x402000);
			pw_u64(&r, 0);
		}
		if (layout > 2) {
			pw_u64(&r, 3);
			pw_u64(&r, 4);
		}
		/* REGS_USER: abi 2 and 3 registers. */
		pw_u64(&r, 2);
		for (int i = 0; i < 3; ++i)
			pw_u64(&r, 0x1000 + (uint64_t)i);
		/* STACK_USER: 16 bytes and the dynamic size. */
		pw_u64(&r, 16);
		pw_zero(&r, 16);
		pw_u64(&r, 16);
		pw_u64(&r, 5);      /* WEIGHT_STRUCT */
		pw_u64(&r, 6);      /* DATA_SRC */
		pw_u64(&r, 0);      /* TRANSACTION */
		pw_u64(&r, 0);      /* REGS_INTR: abi 0, no registers */
		pw_u64(&r, 0x9000); /* PHYS_ADDR */
		pw_u64(&r, 1);      /* CGROUP */
		pw_u64(&r, 4096);   /* DATA_PAGE_SIZE */
		pw_u64(&r, 4096);   /* CODE_PAGE_SIZE */
	}
	pw_u64(&r, padded); /* AUX */
	pw_put(&r, data, n);
	pw_zero(&r, padded - n);
	pw_rec(w, 9, (uint16_t)(8 + r.n));
	pw_put(w, r.b, r.n);
	free(r.b);
}

static void pw_data(struct pw *w, const struct pw_spec *s)
{
	if (s->sideband) {
		pw_sideband(w, s);
		if (s->switches)
			pw_switches(w);
	} else {
		/* MMAP: pid, tid, start, len, pgoff, "x\0" padded to 8. */
		pw_rec(w, 1, 48);
		pw_u32(w, 1);
		pw_u32(w, 1);
		pw_u64(w, 0x400000);
		pw_u64(w, 0x1000);
		pw_u64(w, 0);
		pw_put(w, "x\0\0\0\0\0\0", 8);
	}
	if (s->mmap_file)
		pw_program_maps(w, s);
	if (s->extra)
		pw_put(w, s->extra, s->extra_size);
	pw_info(w, s);
	if (s->second_info)
		pw_info(w, s);
	if (s->tracing_data) {
		static const char data[24] = "\x17\x08\x44tracing0.6";

		pw_rec(w, 66, 16);
		pw_u32(w, sizeof(data));
		pw_u32(w, 0);
		pw_put(w, data, sizeof(data));
	}
	if (s->truncated_aux) {
		/* PERF_RECORD_AUX: aux_offset, aux_size, flags. */
		pw_rec(w, 11, 32);
		pw_u64(w, 0);
		pw_u64(w, 0x1000);
		pw_u64(w, 1);
	}
	if (s->trace && s->num_snaps && s->aux_samples) {
		for (size_t i = 0; i < s->num_snaps; ++i)
			pw_aux_sample(
			        w, s->aux_samples, s->trace + s->snap_from[i],
			        s->snap_to[i] - s->snap_from[i],
			        1000000 + 1000 * (uint64_t)i, s->trace_idx);
		pw_rec(w, 68, 8);
		return;
	}
	if (s->trace && s->num_snaps) {
		uint64_t offset = 0;

		pw_auxtrace(w, s, pw_trace_b, sizeof(pw_trace_b), 0, 0, 0);
		for (size_t i = 0; i < s->num_snaps; ++i) {
			size_t n = s->snap_to[i] - s->snap_from[i];
			size_t pad = s->snap_pad ? s->snap_pad[i] : 0;
			uint8_t *buf = calloc(1, n + pad + 1);

			if (!buf)
				abort();
			memcpy(buf, s->trace + s->snap_from[i], n);
			pw_auxtrace(w, s, buf, n + pad, offset, s->trace_idx,
			            s->trace_idx);
			offset += n + pad;
			free(buf);
		}
		pw_rec(w, 68, 8);
		return;
	}
	if (s->trace) {
		size_t half = s->trace_size / 2;

		pw_auxtrace(w, s, pw_trace_b, sizeof(pw_trace_b), 0, 0, 0);
		pw_auxtrace(w, s, s->trace, half, 0, s->trace_idx,
		            s->trace_idx);
		pw_auxtrace(w, s, s->trace + half, s->trace_size - half, half,
		            s->trace_idx, s->trace_idx);
		pw_rec(w, 68, 8);
		return;
	}
	pw_auxtrace(w, s, pw_trace_a, sizeof(pw_trace_a), 0, 1, 1);
	if (s->compressed) {
		/* A zstd frame of no bytes (magic, a single-segment frame
		 * header of content size 0, one empty last raw block), padded
		 * as perf pads. */
		static const uint8_t empty[9] = {0x28, 0xb5, 0x2f, 0xfd, 0x20,
		                                 0x00, 0x01, 0x00, 0x00};

		pw_rec(w, 81, 8 + 9);
		pw_put(w, empty, 9);
	}
	pw_auxtrace(w, s, pw_trace_b, sizeof(pw_trace_b), 0, 0, 0);
	pw_auxtrace(w, s, pw_trace_c, sizeof(pw_trace_c), 16, 1, 1);
	/* FINISHED_ROUND. */
	pw_rec(w, 68, 8);
}

/* The CPUID feature: {u32 len; char str[len]} with len a multiple of 8. */
static void pw_cpuid(struct pw *w, const char *cpuid)
{
	size_t len = (strlen(cpuid) + 1 + 7) / 8 * 8;

	pw_u32(w, (uint32_t)len);
	pw_put(w, cpuid, strlen(cpuid));
	pw_zero(w, len - strlen(cpuid));
}

/* A perf.data file of the file format. */
struct pw pw_write_file(const struct pw_spec *s)
{
	struct pw w = {0}, data = {0}, feat = {0};
	uint64_t attrs_off = 104, attr_size = 128, data_off;
	/* (A third attribute: the sampling event of aux_samples.) */
	uint64_t nattrs = s->aux_samples ? 3 : 2;

	pw_data(&data, s);
	if (s->cpuid)
		pw_cpuid(&feat, s->cpuid);

	pw_put(&w, "PERFILE2", 8);
	pw_u64(&w, 104);
	pw_u64(&w, attr_size);
	pw_u64(&w, attrs_off);
	pw_u64(&w, nattrs * attr_size);
	data_off = attrs_off + nattrs * attr_size;
	pw_u64(&w, data_off);
	pw_u64(&w, s->interrupted ? 0 : data.n);
	pw_u64(&w, 0);
	pw_u64(&w, 0);
	/* Features: HOSTNAME (3) and, with a CPUID string, CPUID (9). */
	pw_u64(&w, (UINT64_C(1) << 3) | (s->cpuid ? UINT64_C(1) << 9 : 0));
	pw_zero(&w, 24);
	if (w.n != 104)
		abort();

	/* Two attributes, each followed by {ids offset, ids size} (patched
	 * below with sideband: the ids go at the end of the file). */
	pw_attr(&w, s->attr_type, 0x300e601, 0x10087,
	        (1u << 5) | (s->exclude_user ? 1u << 4 : 0) |
	                (s->sideband ? 1u << 18 : 0));
	pw_u64(&w, 0);
	pw_u64(&w, 0);
	pw_attr(&w, 1, 9, s->mixed_types ? 0x10107 : 0x10087,
	        s->sideband ? 1u << 18 : 0);
	pw_u64(&w, 0);
	pw_u64(&w, 0);
	if (s->aux_samples) {
		pw_sample_attr(&w, s->aux_samples);
		pw_u64(&w, 0);
		pw_u64(&w, 0);
	}
	pw_put(&w, data.b, data.n);

	/* The feature table, then the features (none when perf record was
	 * interrupted). */
	if (!s->interrupted) {
		uint64_t payload = w.n + (s->cpuid ? 32 : 16);

		pw_u64(&w, payload); /* HOSTNAME */
		pw_u64(&w, 8);
		if (s->cpuid) {
			pw_u64(&w, payload + 8);
			pw_u64(&w, feat.n);
		}
		pw_u32(&w, 4);
		pw_put(&w, "box", 4);
		pw_put(&w, feat.b, feat.n);
	}
	if (s->sideband) {
		/* The ids: 42 for the first attribute, 43 for the second. */
		pw_set_u64(w.b + 104 + 112, w.n);
		pw_set_u64(w.b + 104 + 120, 8);
		pw_u64(&w, 42);
		pw_set_u64(w.b + 104 + 128 + 112, w.n);
		pw_set_u64(w.b + 104 + 128 + 120, 8);
		pw_u64(&w, 43);
	}
	if (s->aux_samples) {
		/* 44 for the sampling event. */
		pw_set_u64(w.b + 104 + 256 + 112, w.n);
		pw_set_u64(w.b + 104 + 256 + 120, 8);
		pw_u64(&w, 44);
	}
	free(data.b);
	free(feat.b);
	return w;
}

/* The same recording in the pipe format. */
struct pw pw_write_pipe(const struct pw_spec *s)
{
	struct pw w = {0};

	pw_put(&w, "PERFILE2", 8);
	pw_u64(&w, 16);
	/* HEADER_ATTR: the attribute and one id. */
	pw_rec(&w, 64, 8 + 112 + 8);
	pw_attr(&w, s->attr_type, 0x300e601, 0x10087,
	        (1u << 5) | (s->exclude_user ? 1u << 4 : 0) |
	                (s->sideband ? 1u << 18 : 0));
	pw_u64(&w, 42);
	if (s->aux_samples) {
		pw_rec(&w, 64, 8 + 112 + 8);
		pw_sample_attr(&w, s->aux_samples);
		pw_u64(&w, 44);
	}
	if (s->cpuid) {
		size_t len = (strlen(s->cpuid) + 1 + 7) / 8 * 8;

		pw_rec(&w, 80, (uint16_t)(16 + 4 + len));
		pw_u64(&w, 9);
		pw_cpuid(&w, s->cpuid);
	}
	pw_data(&w, s);
	return w;
}

size_t pw_record_len(const uint8_t *b, size_t at, size_t end)
{
	size_t size;

	if (end - at < 8)
		abort();
	size = (size_t)b[at + 6] | (size_t)b[at + 7] << 8;
	if (size < 8 || size > end - at)
		abort();
	if (pw_get_u32(b + at) == 71) { /* AUXTRACE: its trace follows. */
		if (size < 16 || pw_get_u64(b + at + 8) > end - at - size)
			abort();
		size += (size_t)pw_get_u64(b + at + 8);
	}
	return size;
}

struct pw pw_rewrite_data(const uint8_t *b, size_t n, pw_records_fn *fn,
                          void *ctx, const struct pw_feature *feat,
                          size_t nfeat)
{
	struct pw out = {0};
	uint64_t attr_size, attrs, attrs_size, data, data_size;
	uint64_t old_end, new_end, delta, added = 0;
	unsigned nold = 0;

	if (pw_get_u64(b + 8) == 16) {
		/* The pipe format: records to the end (no features). */
		pw_put(&out, b, 16);
		fn(&out, b, 16, n, ctx);
		return out;
	}
	attr_size = pw_get_u64(b + 16);
	attrs = pw_get_u64(b + 24);
	attrs_size = pw_get_u64(b + 32);
	data = pw_get_u64(b + 40);
	data_size = pw_get_u64(b + 48);

	/* (A file of a `perf record` that did not finish: records to the
	 * end, no features.) */
	pw_put(&out, b, (size_t)data);
	if (!data_size) {
		fn(&out, b, (size_t)data, n, ctx);
		return out;
	}
	old_end = data + data_size;
	fn(&out, b, (size_t)data, (size_t)old_end, ctx);
	new_end = out.n;
	for (unsigned bit = 0; bit < 256; ++bit)
		if (b[72 + bit / 8] >> (bit % 8) & 1)
			nold += 1;
	/* What follows the data moves by @delta: the feature table (16
	 * bytes longer per feature added, whose entries come last), the
	 * features and the attributes' ids; the added features' payloads go
	 * at the end. */
	delta = new_end - old_end + 16 * nfeat;
	pw_put(&out, b + old_end, 16 * (size_t)nold);
	for (size_t i = 0; i < nfeat; ++i) {
		for (unsigned bit = feat[i].bit; bit < 256; ++bit)
			if (b[72 + bit / 8] >> (bit % 8) & 1)
				abort();
		out.b[72 + feat[i].bit / 8] |=
		        (uint8_t)(1u << (feat[i].bit % 8));
		pw_u64(&out, n + delta + added);
		pw_u64(&out, feat[i].size);
		added += feat[i].size;
	}
	pw_put(&out, b + old_end + 16 * nold, n - (size_t)old_end - 16 * nold);
	for (size_t i = 0; i < nfeat; ++i)
		pw_put(&out, feat[i].data, feat[i].size);
	pw_set_u64(out.b + 48, new_end - data);
	for (uint64_t a = attrs; a + attr_size <= attrs + attrs_size;
	     a += attr_size) {
		uint8_t *ids = out.b + a + attr_size - 16;

		if (pw_get_u64(ids) >= old_end)
			pw_set_u64(ids, pw_get_u64(ids) + delta);
	}
	/* (@delta may be "negative": unsigned arithmetic, then the
	 * pointer.) */
	for (unsigned i = 0; i < nold; ++i) {
		uint64_t at = new_end + 16u * i;
		uint8_t *e = out.b + (size_t)at;

		pw_set_u64(e, pw_get_u64(e) + delta);
	}
	return out;
}

size_t pw_find_record(const struct pw *w, uint32_t type)
{
	size_t at = (size_t)pw_get_u64(w->b + 40);
	size_t end = at + (size_t)pw_get_u64(w->b + 48);

	for (; at < end; at += pw_record_len(w->b, at, end))
		if (pw_get_u32(w->b + at) == type)
			return at;
	return 0;
}
