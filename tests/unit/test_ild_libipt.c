/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/ild against libipt 2.0.5's instruction classifier.
 *
 * libipt does not export its instruction decoder, but its instruction flow
 * decoder reports each instruction's size and class: we give it a trace
 * (PSB, PSBEND, MODE.Exec, TIP.PGE at the instruction, a taken TNT) and a
 * read-memory callback that holds the instruction followed by NOPs, and
 * take the first instruction pt_insn_next() returns; for a direct branch
 * the second instruction's IP is libipt's branch target.  The instructions:
 * every instruction of the C library's .text (64-bit), hand-picked
 * encodings of every kind in every mode, and biased random bytes in every
 * mode.
 *
 * Where Zydis decodes an instruction, libipt must report the same size and
 * class and the same target, except for the differences docs/ild.md lists,
 * which are counted and printed.  Where Zydis finds no instruction, libipt
 * (whose length decoder accepts any opcode) may still report one; those
 * are counted.
 *
 * libipt is loaded with dlopen() (it exports the same names as ptdecode);
 * the test is skipped when libipt.so.2 is not installed. */
#define _GNU_SOURCE /* RTLD_DEEPBIND */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"

#include "ild/ild.h"

#include "elf_text.h"
#include "known_diff.h"

#include <dlfcn.h>
#include <inttypes.h>

/* As in tests/support/libipt_dl.c: no RTLD_DEEPBIND under AddressSanitizer
 * (libipt calls its own functions directly anyway). */
#if defined(__SANITIZE_ADDRESS__)
#define ILD_DL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ILD_DL_SANITIZED 1
#endif
#endif
#if defined(ILD_DL_SANITIZED) || !defined(RTLD_DEEPBIND)
#define ILD_DL_FLAGS (RTLD_NOW | RTLD_LOCAL)
#else
#define ILD_DL_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#endif

/* libipt 2.0.5's struct pt_insn. */
struct ipt_insn {
	uint64_t ip;
	int isid;
	int mode;
	int iclass;
	uint8_t raw[15];
	uint8_t size;
	uint32_t speculative : 1;
	uint32_t truncated : 1;
};

/* libipt 2.0.5's struct pt_event, with room for every variant. */
struct ipt_event {
	int type;
	uint32_t flags;
	uint64_t tsc;
	uint32_t lost_mtc, lost_cyc;
	uint64_t reserved[2];
	uint64_t variant[8];
};

typedef int(ipt_read_memory)(uint8_t *buffer, size_t size, const void *asid,
                             uint64_t ip, void *context);

struct ipt {
	void *handle;
	void *(*insn_alloc_decoder)(const struct pt_config *config);
	void (*insn_free_decoder)(void *decoder);
	int (*insn_sync_forward)(void *decoder);
	void *(*insn_get_image)(void *decoder);
	int (*image_set_callback)(void *image, ipt_read_memory *callback,
	                          void *context);
	int (*insn_next)(void *decoder, struct ipt_insn *insn, size_t size);
	int (*insn_event)(void *decoder, struct ipt_event *event, size_t size);
};

enum { IPT_EVENT_PENDING = 1 << 0 };

static int ipt_open(struct ipt *ipt)
{
	const char *name = getenv("PTD_LIBIPT");

	memset(ipt, 0, sizeof(*ipt));
	ipt->handle = dlopen(name ? name : "libipt.so.2", ILD_DL_FLAGS);
	if (!ipt->handle)
		return -1;
		/* POSIX allows converting dlsym()'s result to a function
		 * pointer. */
#define ILD_SYM(field, sym)                                                    \
	do {                                                                   \
		void *p = dlsym(ipt->handle, sym);                             \
		if (!p)                                                        \
			return -1;                                             \
		memcpy(&ipt->field, &p, sizeof(p));                            \
	} while (0)
	ILD_SYM(insn_alloc_decoder, "pt_insn_alloc_decoder");
	ILD_SYM(insn_free_decoder, "pt_insn_free_decoder");
	ILD_SYM(insn_sync_forward, "pt_insn_sync_forward");
	ILD_SYM(insn_get_image, "pt_insn_get_image");
	ILD_SYM(image_set_callback, "pt_image_set_callback");
	ILD_SYM(insn_next, "pt_insn_next");
	ILD_SYM(insn_event, "pt_insn_event");
#undef ILD_SYM
	return 0;
}

/* The memory libipt sees: @code at @ip, NOPs everywhere else. */
struct memory {
	uint64_t ip;
	uint8_t code[32];
};

static int read_memory(uint8_t *buffer, size_t size, const void *asid,
                       uint64_t ip, void *context)
{
	const struct memory *mem = context;
	size_t i;

	(void)asid;
	for (i = 0; i < size; ++i) {
		uint64_t at = ip + i;

		buffer[i] = at - mem->ip < sizeof(mem->code)
		                    ? mem->code[at - mem->ip]
		                    : 0x90;
	}
	return (int)size;
}

/* What libipt says about the instruction at mem->ip. */
struct verdict {
	int status; /* 0 or pt_insn_next()'s error */
	uint8_t size;
	int iclass;
	int have_next; /* next_ip is valid */
	uint64_t next_ip;
};

static const uint64_t ild_ips[4] = {0, 0x7c00, 0x8048000, 0x7f0000401000};

/* The trace for @mode: enable at ild_ips[mode] and one taken TNT. */
static size_t make_trace(uint8_t *buf, size_t size, enum pt_exec_mode mode)
{
	struct pt_packet p[5];

	p[0] = ptd_t_packet(ppt_psb);
	p[1] = ptd_t_packet(ppt_psbend);
	p[2] = ptd_t_packet(ppt_mode);
	p[2].payload.mode.leaf = pt_mol_exec;
	p[2].payload.mode.bits.exec.csl = mode == ptem_64bit;
	p[2].payload.mode.bits.exec.csd = mode == ptem_32bit;
	p[3] = ptd_t_packet(ppt_tip_pge);
	p[3].payload.ip.ipc = pt_ipc_sext_48;
	p[3].payload.ip.ip = ild_ips[mode];
	p[4] = ptd_t_packet(ppt_tnt_8);
	p[4].payload.tnt.bit_size = 1;
	p[4].payload.tnt.payload = 1;
	return ptd_t_encode(buf, size, p, 5);
}

/* Drain libipt's pending events. */
static int drain(const struct ipt *ipt, void *decoder, int status)
{
	while (status >= 0 && (status & IPT_EVENT_PENDING)) {
		struct ipt_event event;

		status = ipt->insn_event(decoder, &event, sizeof(event));
	}
	return status;
}

static void ask_libipt(const struct ipt *ipt, const uint8_t *trace,
                       size_t trace_size, struct memory *mem, struct verdict *v)
{
	struct pt_config config;
	struct ipt_insn insn;
	void *decoder;
	int status;

	memset(v, 0, sizeof(*v));
	pt_config_init(&config);
	config.begin = (uint8_t *)trace;
	config.end = (uint8_t *)trace + trace_size;
	decoder = ipt->insn_alloc_decoder(&config);
	assert_non_null(decoder);
	assert_int_equal(ipt->image_set_callback(ipt->insn_get_image(decoder),
	                                         read_memory, mem),
	                 0);
	status = drain(ipt, decoder, ipt->insn_sync_forward(decoder));
	assert_true(status >= 0);

	memset(&insn, 0, sizeof(insn));
	status = ipt->insn_next(decoder, &insn, sizeof(insn));
	/* libipt hands out the instruction before it proceeds past it, so
	 * size and class are there even when proceeding needs trace we did
	 * not give (a return without a call, an indirect branch). */
	if (status == -pte_bad_insn) {
		v->status = status;
	} else {
		assert_int_equal(insn.ip, mem->ip);
		v->size = insn.size;
		v->iclass = insn.iclass;
		if (status >= 0) {
			status = drain(ipt, decoder, status);
			if (status >= 0 &&
			    ipt->insn_next(decoder, &insn, sizeof(insn)) >= 0) {
				v->have_next = 1;
				v->next_ip = insn.ip;
			}
		}
	}
	ipt->insn_free_decoder(decoder);
}

/* Differences from libipt 2.0.5 (docs/ild.md), counted. */
enum {
	d_eret,        /* ERETS/ERETU: far return; other in 2.0.5 */
	d_ud0,         /* UD0/UD1 0F FF/B9 /r: 2.0.5 takes no ModRM */
	d_xop,         /* AMD XOP (8F /1-7): 2.0.5 reads POP r/m */
	d_via,         /* VIA PadLock 0F A6/A7 /r: 2.0.5 takes no ModRM */
	d_libipt_only, /* only libipt finds an instruction */
	d_count
};

static const char *const diff_name[d_count] = {
        "ERETS/ERETU (far return for us and master, other for 2.0.5)",
        "UD0/UD1 (0F FF /r, 0F B9 /r; 2.0.5 without ModRM)",
        "AMD XOP (8F with ModRM.reg != 0; 2.0.5 reads POP r/m)",
        "VIA PadLock (0F A6 /r, 0F A7 /r; 2.0.5 without ModRM)",
        "bytes only libipt decodes (invalid for Zydis)",
};

struct diff_stats {
	unsigned long compared, direct, diffs[d_count], unexpected;
	/* libipt's classes of the bytes only it decodes. */
	unsigned long libipt_only[ptic_indirect + 1];
};

/* Classify a disagreement on @code as a known difference, or -1: the
 * instruction is one that tests/support/known_diff.h names, and the two
 * decoders disagree on it as docs/ild.md says. */
static int known_difference(const uint8_t *code, const struct ptd_ild *ours,
                            const struct verdict *v, enum pt_exec_mode mode)
{
	switch (ptd_known_ild(code, 15, mode == ptem_64bit)) {
	case ptd_kild_eret:
		return ours->kind == ptd_ik_iret && v->iclass == ptic_other &&
		                       v->size == ours->size
		               ? d_eret
		               : -1;
	case ptd_kild_ud0:
		return ours->kind == ptd_ik_other && v->iclass == ptic_other
		               ? d_ud0
		               : -1;
	case ptd_kild_via:
		return ours->iclass == ptic_other && v->iclass == ptic_other
		               ? d_via
		               : -1;
	case ptd_kild_xop:
		return ours->iclass == ptic_other && v->iclass == ptic_other
		               ? d_xop
		               : -1;
	default:
		return -1;
	}
}

static void compare_one(const struct ipt *ipt, struct ptd_ild_ctx *ctx,
                        const uint8_t *trace, size_t trace_size,
                        const uint8_t *code, size_t len, enum pt_exec_mode mode,
                        struct diff_stats *stats)
{
	struct memory mem;
	struct ptd_ild ours;
	struct verdict v;
	int status, known;

	memset(&mem, 0x90, sizeof(mem));
	mem.ip = ild_ips[mode];
	memcpy(mem.code, code, len > 15 ? 15 : len);
	/* We see exactly what libipt reads: 15 bytes, NOPs after @code. */
	status = ptd_ild_decode(ctx, &ours, mem.code, 15, mode);
	ask_libipt(ipt, trace, trace_size, &mem, &v);

	if (status < 0) {
		if (v.status == 0) {
			stats->diffs[d_libipt_only]++;
			if (v.iclass >= 0 && v.iclass <= ptic_indirect)
				stats->libipt_only[v.iclass]++;
		}
		return;
	}
	stats->compared++;
	if (v.status == 0 && v.size == ours.size && v.iclass == ours.iclass) {
		if (ours.is_direct && v.have_next) {
			uint64_t target = ptd_ild_branch_target(&ours, mem.ip);

			if (v.next_ip != target)
				fail_msg(
				        "%d-bit %02x %02x %02x: target %" PRIx64
				        ", libipt %" PRIx64,
				        16 << (mode - 1), mem.code[0],
				        mem.code[1], mem.code[2], target,
				        v.next_ip);
			stats->direct++;
		}
		return;
	}
	known = v.status == 0 ? known_difference(mem.code, &ours, &v, mode)
	                      : -1;
	if (known >= 0) {
		stats->diffs[known]++;
		return;
	}
	{
		char hex[3 * 15 + 1];
		size_t k;

		for (k = 0; k < 15; ++k)
			snprintf(hex + 3 * k, 4, "%02x ", mem.code[k]);
		print_message("%d-bit %s: ours size %u class %u kind %u, "
		              "libipt status %d size %u class %d\n",
		              16 << (mode - 1), hex, ours.size, ours.iclass,
		              ours.kind, v.status, v.size, v.iclass);
	}
	stats->unexpected++;
	/* PTD_ILD_LIBIPT_KEEP_GOING lists every difference, then fails. */
	if (!getenv("PTD_ILD_LIBIPT_KEEP_GOING"))
		fail_msg("unexpected difference from libipt");
}

struct fixture {
	struct ipt ipt;
	struct ptd_ild_ctx *ctx;
	uint8_t trace[4][64];
	size_t trace_size[4];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int m;

	if (!f)
		return -1;
	if (ipt_open(&f->ipt) < 0) {
		print_message("libipt.so.2 not loadable: %s; comparison "
		              "skipped\n",
		              dlerror());
		if (f->ipt.handle)
			dlclose(f->ipt.handle);
		f->ipt.handle = NULL;
	}
	f->ctx = ptd_ild_alloc();
	if (!f->ctx)
		return -1;
	for (m = ptem_16bit; m <= ptem_64bit; ++m)
		f->trace_size[m] = make_trace(f->trace[m], sizeof(f->trace[m]),
		                              (enum pt_exec_mode)m);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ptd_ild_free(f->ctx);
	if (f->ipt.handle)
		dlclose(f->ipt.handle);
	free(f);
	return 0;
}

static void print_stats(const char *what, const struct diff_stats *s)
{
	int d;

	print_message("%s: %lu instructions agree in size and class (%lu "
	              "direct targets)\n",
	              what, s->compared, s->direct);
	for (d = 0; d < d_count; ++d)
		if (s->diffs[d])
			print_message("  known difference: %lu x %s\n",
			              s->diffs[d], diff_name[d]);
	if (s->diffs[d_libipt_only]) {
		static const char *const names[] = {
		        "unknown",  "other",     "call",     "return",
		        "jump",     "cond_jump", "far_call", "far_return",
		        "far_jump", "ptwrite",   "indirect"};
		int c;

		print_message("  libipt's classes of those bytes:");
		for (c = 0; c <= ptic_indirect; ++c)
			if (s->libipt_only[c])
				print_message(" %s %lu", names[c],
				              s->libipt_only[c]);
		print_message("\n");
	}
	assert_int_equal(s->unexpected, 0);
}

/* Encodings of every kind (as in test_ild.c, written out again). */
static void test_kinds(void **state)
{
	static const struct {
		unsigned modes; /* bit 0: 16, 1: 32, 2: 64 */
		uint8_t code[8];
	} cases[] = {
	        {7, {0x90}},
	        {6, {0xe8, 0x10, 0, 0, 0}},
	        {1, {0xe8, 0xfd, 0xff}},
	        {2, {0x66, 0xe8, 0x00, 0x80}},
	        {4, {0x66, 0xe8, 0x00, 0x80, 0, 0}},
	        {4, {0xf2, 0xe8, 1, 0, 0, 0}},
	        {7, {0xff, 0xd0}},
	        {4, {0xff, 0x15, 1, 2, 3, 4}},
	        {4, {0x3e, 0xff, 0xd0}},
	        {7, {0xc3}},
	        {7, {0xc2, 0x08, 0x00}},
	        {4, {0xf2, 0xc3}},
	        {7, {0xeb, 0xfe}},
	        {7, {0xeb, 0x80}},
	        {6, {0xe9, 0, 0, 0, 0x80}},
	        {1, {0xe9, 0xff, 0x7f}},
	        {4, {0x66, 0xe9, 1, 0, 0, 0}},
	        {2, {0x66, 0xe9, 1, 0}},
	        {7, {0xff, 0xe0}},
	        {4, {0x3e, 0xff, 0xe0}},
	        {7, {0x74, 0x05}},
	        {6, {0x0f, 0x84, 0x10, 0, 0, 0}},
	        {1, {0x0f, 0x8f, 0xfe, 0xff}},
	        {2, {0x66, 0x0f, 0x85, 0xfe, 0xff}},
	        {4, {0x66, 0x0f, 0x85, 0xfe, 0xff, 0xff, 0xff}},
	        {7, {0xe0, 0xfe}},
	        {7, {0xe1, 0x10}},
	        {7, {0xe2, 0xfc}},
	        {7, {0xe3, 0x03}},
	        {7, {0x67, 0xe3, 0x03}},
	        {2, {0x9a, 1, 2, 3, 4, 5, 6}},
	        {1, {0x9a, 1, 2, 3, 4}},
	        {7, {0xff, 0x18}},
	        {2, {0xea, 1, 2, 3, 4, 5, 6}},
	        {7, {0xff, 0x28}},
	        {7, {0xcb}},
	        {7, {0xca, 0x10, 0x00}},
	        {4, {0x48, 0xcb}},
	        {7, {0xcc}},
	        {7, {0xcd, 0x80}},
	        {3, {0xce}},
	        {7, {0xf1}},
	        {7, {0xcf}},
	        {4, {0x48, 0xcf}},
	        {4, {0x0f, 0x05}},
	        {4, {0x0f, 0x07}},
	        {7, {0x0f, 0x34}},
	        {2, {0x0f, 0x35}},
	        {6, {0x0f, 0x01, 0xc1}},
	        {6, {0x0f, 0x01, 0xc2}},
	        {6, {0x0f, 0x01, 0xc3}},
	        {6, {0x0f, 0x01, 0xd9}},
	        {4, {0xf3, 0x0f, 0x01, 0xec}},
	        {4, {0xf2, 0x0f, 0x01, 0xca}},
	        {4, {0xf3, 0x0f, 0x01, 0xca}},
	        {6, {0x0f, 0xc7, 0x30}},
	        {6, {0x66, 0x0f, 0xc7, 0x30}},
	        {6, {0x0f, 0x22, 0xd8}},
	        {6, {0xf3, 0x0f, 0xae, 0xe0}},
	        {4, {0xf3, 0x48, 0x0f, 0xae, 0x20}},
	        {4, {0x66, 0xf3, 0x0f, 0xae, 0xe0}},
	        {6, {0xc7, 0xf8, 1, 0, 0, 0}},
	        {6, {0xc5, 0xf8, 0x77}},
	        {6, {0x62, 0xf1, 0x7c, 0x48, 0x58, 0xc0}},
	        {4, {0x62, 0xf5, 0x7c, 0x48, 0x58, 0xc0}},
	};
	struct fixture *f = *state;
	struct diff_stats stats = {0};
	size_t i;
	int m;

	if (!f->ipt.handle)
		skip();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		for (m = ptem_16bit; m <= ptem_64bit; ++m)
			if (cases[i].modes & (1u << (m - 1)))
				compare_one(&f->ipt, f->ctx, f->trace[m],
				            f->trace_size[m], cases[i].code,
				            sizeof(cases[i].code),
				            (enum pt_exec_mode)m, &stats);
	print_stats("hand-picked encodings", &stats);
	assert_int_equal(stats.diffs[d_libipt_only], 0);
}

/* Every instruction of libc's .text (PTD_ILD_CORPUS names another file;
 * PTD_ILD_LIBIPT_STEP=n compares every n-th only). */
static void test_libc(void **state)
{
	struct fixture *f = *state;
	struct diff_stats stats = {0};
	const char *path = getenv("PTD_ILD_CORPUS");
	const char *step_env = getenv("PTD_ILD_LIBIPT_STEP");
	unsigned long step = step_env ? strtoul(step_env, NULL, 0) : 1, n = 0;
	size_t size = 0, offset = 0, length = 0, pos;
	uint8_t *elf;

	if (!f->ipt.handle)
		skip();
	if (!path)
		path = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	elf = ptd_read_whole_file(path, &size);
	if (!elf) {
		print_message("%s not readable: skipped\n", path);
		skip();
	}
	assert_int_equal(ptd_elf_find_text(elf, size, &offset, &length, NULL),
	                 0);
	for (pos = 0; pos < length;) {
		const uint8_t *code = elf + offset + pos;
		size_t avail = length - pos;
		struct ptd_ild insn;

		if (ptd_ild_decode(f->ctx, &insn, code, avail, ptem_64bit)) {
			pos += 1;
			continue;
		}
		if (!step || n++ % step == 0)
			compare_one(&f->ipt, f->ctx, f->trace[ptem_64bit],
			            f->trace_size[ptem_64bit], code,
			            avail < 15 ? avail : 15, ptem_64bit,
			            &stats);
		pos += insn.size;
	}
	free(elf);
	print_stats(path, &stats);
	assert_true(stats.compared > 1000);
}

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* Biased random bytes in every mode (PTD_ILD_LIBIPT_RUNS, default
 * 100000). */
static void test_random(void **state)
{
	static const uint8_t interesting[] = {
	        0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x2e, 0x3e, 0x26, 0x64, 0x65,
	        0x36, 0x40, 0x41, 0x44, 0x48, 0x4f, 0x0f, 0x38, 0x3a, 0x01,
	        0xc4, 0xc5, 0x62, 0xe8, 0xe9, 0xeb, 0xe0, 0xe1, 0xe2, 0xe3,
	        0x70, 0x7f, 0x84, 0x9a, 0xea, 0xff, 0xc2, 0xc3, 0xca, 0xcb,
	        0xcc, 0xcd, 0xce, 0xcf, 0xf1, 0x05, 0x07, 0x34, 0x35, 0xae,
	        0xc7, 0x22, 0xc1, 0xec, 0xd9};
	struct fixture *f = *state;
	struct diff_stats stats = {0};
	const char *env = getenv("PTD_ILD_LIBIPT_RUNS");
	unsigned long i, runs = env ? strtoul(env, NULL, 0) : 100000;
	uint64_t seed = 0x0123456789abcdefull;

	if (!f->ipt.handle)
		skip();
	for (i = 0; i < runs; ++i) {
		uint64_t r = next_random(&seed);
		enum pt_exec_mode mode = (enum pt_exec_mode)(1 + r % 3);
		uint8_t code[15];
		size_t k;

		for (k = 0; k < sizeof(code); ++k) {
			uint64_t b = next_random(&seed);

			code[k] = (b & 1) ? interesting[(b >> 8) %
			                                sizeof(interesting)]
			                  : (uint8_t)(b >> 16);
		}
		compare_one(&f->ipt, f->ctx, f->trace[mode],
		            f->trace_size[mode], code, sizeof(code), mode,
		            &stats);
	}
	print_stats("random bytes", &stats);
}

/* Every pair of bytes after each of the prefixes and escapes below, in
 * every mode, with a fixed pseudo-random tail: every opcode of the legacy
 * maps with every ModRM byte (or immediate byte). */
static void test_opcode_pairs(void **state)
{
	static const struct {
		uint8_t len;
		uint8_t bytes[4];
	} leads[] = {
	        {0, {0}},
	        {1, {0x0f}},
	        {2, {0x66, 0x0f}},
	        {2, {0xf3, 0x0f}},
	        {2, {0xf2, 0x0f}},
	        {2, {0x0f, 0x38}},
	        {2, {0x0f, 0x3a}},
	        {1, {0x66}},
	        {1, {0x48}},
	        /* VEX: the payload byte and the opcode. */
	        {1, {0xc5}},
	        {2, {0xc4, 0xe1}},
	        {2, {0xc4, 0xe2}},
	        {2, {0xc4, 0xe3}},
	        /* EVEX maps 1, 2, 3, 5, 6: the last payload byte and the
	         * opcode. */
	        {3, {0x62, 0xf1, 0x7c}},
	        {3, {0x62, 0xf2, 0x7d}},
	        {3, {0x62, 0xf3, 0x7d}},
	        {3, {0x62, 0xf5, 0x7c}},
	        {3, {0x62, 0xf6, 0x7d}},
	};
	struct fixture *f = *state;
	struct diff_stats stats = {0};
	uint64_t seed = 0x5851f42d4c957f2dull;
	size_t l;
	unsigned pair;
	int m;

	if (!f->ipt.handle)
		skip();
	for (l = 0; l < sizeof(leads) / sizeof(leads[0]); ++l) {
		for (pair = 0; pair < 0x10000; ++pair) {
			uint8_t code[15];
			size_t k = leads[l].len;

			memcpy(code, leads[l].bytes, k);
			code[k++] = (uint8_t)(pair >> 8);
			code[k++] = (uint8_t)pair;
			while (k < sizeof(code))
				code[k++] = (uint8_t)(next_random(&seed) >> 32);
			for (m = ptem_16bit; m <= ptem_64bit; ++m)
				compare_one(&f->ipt, f->ctx, f->trace[m],
				            f->trace_size[m], code,
				            sizeof(code), (enum pt_exec_mode)m,
				            &stats);
		}
	}
	print_stats("opcode pairs", &stats);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_kinds),
	        cmocka_unit_test(test_libc),
	        cmocka_unit_test(test_random),
	        cmocka_unit_test(test_opcode_pairs),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, setup, teardown);
}
