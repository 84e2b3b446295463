/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the instruction-flow and block decoders (lib/flow): small
 * programs in memory images, traces written with the encoder, every
 * instruction, block, event and error checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "ptdecode/ptd_image.h"

#include "flow/flow.h"

/* --- Building traces -------------------------------------------------------
 */

/* The packets (test_util.h's trace builder) and bytes after them. */
struct trace {
	struct ptd_t_trace pk;
	/* Bytes after the packets (a packet cut short, say). */
	uint8_t tail[16];
	size_t ntail;
};

static struct pt_packet *add(struct trace *t, enum pt_packet_type type)
{
	return ptd_t_add(&t->pk, type);
}

static void ip(struct trace *t, enum pt_packet_type type, uint64_t addr)
{
	struct pt_packet *p = add(t, type);

	p->payload.ip.ipc = addr ? pt_ipc_sext_48 : pt_ipc_suppressed;
	p->payload.ip.ip = addr;
}

/* Conditional branch outcomes, oldest first: 't' taken, 'n' not taken. */
static void tnt(struct trace *t, const char *bits)
{
	struct pt_packet *p = add(t, strlen(bits) > 6 ? ppt_tnt_64 : ppt_tnt_8);
	uint64_t payload = 0;
	uint8_t n = 0;

	for (; *bits; bits++, n++)
		payload = (payload << 1) | (*bits == 't');
	p->payload.tnt.bit_size = n;
	p->payload.tnt.payload = payload;
}

static void mode(struct trace *t, enum pt_exec_mode m)
{
	struct pt_packet *p = add(t, ppt_mode);

	p->payload.mode.leaf = pt_mol_exec;
	p->payload.mode.bits.exec = pt_set_exec_mode(m);
}

static void tsx(struct trace *t, int intx, int abrt)
{
	struct pt_packet *p = add(t, ppt_mode);

	p->payload.mode.leaf = pt_mol_tsx;
	p->payload.mode.bits.tsx.intx = intx ? 1 : 0;
	p->payload.mode.bits.tsx.abrt = abrt ? 1 : 0;
}

static void pip(struct trace *t, uint64_t cr3)
{
	struct pt_packet *p = add(t, ppt_pip);

	p->payload.pip.cr3 = cr3;
}

static void tsc(struct trace *t, uint64_t value)
{
	add(t, ppt_tsc)->payload.tsc.tsc = value;
}

/* PSB+ with 64-bit mode and, if @at, the FUP of tracing enabled at @at. */
static void psb(struct trace *t, uint64_t at)
{
	add(t, ppt_psb);
	mode(t, ptem_64bit);
	if (at)
		ip(t, ppt_fup, at);
	add(t, ppt_psbend);
}

static size_t encode(uint8_t *buf, size_t cap, const struct trace *t)
{
	const size_t offset = ptd_t_encode(buf, cap, t->pk.packets, t->pk.n);

	assert_true(offset + t->ntail <= cap);
	memcpy(buf + offset, t->tail, t->ntail);
	return offset + t->ntail;
}

/* --- Running the decoders ------------------------------------------------ */

struct run {
	char log[4096];
	size_t len;
};

static void say(struct run *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(r->log + r->len, sizeof(r->log) - r->len, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(r->log) - r->len);
	r->len += (size_t)n;
}

static void say_event(struct run *r, const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_enabled:
		say(r, "[enabled %llx%s] ",
		    (unsigned long long)ev->variant.enabled.ip,
		    ev->variant.enabled.resumed ? " resumed" : "");
		break;
	case ptev_disabled:
		say(r, "[disabled %llx] ",
		    ev->ip_suppressed
		            ? 0ull
		            : (unsigned long long)ev->variant.disabled.ip);
		break;
	case ptev_async_disabled:
		say(r, "[async-disabled %llx] ",
		    (unsigned long long)ev->variant.async_disabled.at);
		break;
	case ptev_async_branch:
		say(r, "[interrupt %llx>%llx] ",
		    (unsigned long long)ev->variant.async_branch.from,
		    (unsigned long long)ev->variant.async_branch.to);
		break;
	case ptev_paging:
		say(r, "[paging %llx] ",
		    (unsigned long long)ev->variant.paging.cr3);
		break;
	case ptev_overflow:
		say(r, "[overflow %llx] ",
		    ev->ip_suppressed
		            ? 0ull
		            : (unsigned long long)ev->variant.overflow.ip);
		break;
	case ptev_exec_mode:
		say(r, "[mode %d%s] ", (int)ev->variant.exec_mode.mode,
		    ev->status_update ? " status" : "");
		break;
	case ptev_tsx:
		say(r, "[tsx%s%s] ",
		    ev->variant.tsx.speculative ? " begin" : "",
		    ev->variant.tsx.aborted ? " abort" : "");
		break;
	case ptev_tick:
		say(r, "[tick %llx %llx] ",
		    (unsigned long long)ev->variant.tick.ip,
		    (unsigned long long)ev->tsc);
		break;
	default:
		say(r, "[event %d] ", (int)ev->type);
		break;
	}
}

enum { with_blocks = 1, with_status = 2 };

struct setup {
	const uint8_t *code;
	size_t size;
	uint64_t base;
	struct pt_conf_flags flags;
	struct pt_errata errata;
	int events_mode_status; /* print status-update mode events */
	int sync_after_eos;     /* path_run(): sync forward after pts_eos */
};

#ifdef PTD_FLOW_LIBIPT
/* The same with libipt 2.0.5 (build this file with -DPTD_FLOW_LIBIPT and
 * tests/support/libipt_dl.c to see libipt's answers to these traces: the
 * expectations below are libipt's, except where a test says otherwise). */
#include "libipt_dl.h"

#include <unistd.h>

struct cbctx {
	const uint8_t *code;
	size_t size;
	uint64_t base;
};

static int read_code(uint8_t *buffer, size_t size, const struct pt_asid *asid,
                     uint64_t addr, void *context)
{
	const struct cbctx *c = context;

	(void)asid;
	if (addr < c->base || addr - c->base >= c->size)
		return -pte_nomap;
	if (size > c->size - (addr - c->base))
		size = c->size - (addr - c->base);
	memcpy(buffer, c->code + (addr - c->base), size);
	return (int)size;
}

static void run(struct run *r, const struct setup *s, const struct trace *t,
                int blocks)
{
	static struct ptd_libipt L;
	uint8_t buf[1024];
	size_t size = encode(buf, sizeof(buf), t);
	struct ptd_ipt_insn_decoder *id = NULL;
	struct ptd_ipt_blk_decoder *bd = NULL;
	struct ptd_ipt_image *image;
	struct cbctx ctx = {s->code, s->size, s->base};
	struct pt_config config;
	char msg[256];
	int status;

	if (!L.handle && ptd_libipt_open(&L, msg, sizeof(msg)))
		fail_msg("%s", msg);
	memset(r, 0, sizeof(*r));
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	config.flags = s->flags;
	config.errata = s->errata;
	image = L.image_alloc("test");
	{
		/* A file section, so that libipt uses its block cache as
		 * ptdecode does for buffer sections. */
		char path[] = "/tmp/ptd_flow_XXXXXX";
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, s->code, s->size), (ssize_t)s->size);
		close(fd);
		assert_true(L.image_add_file(image, path, 0, s->size, NULL,
		                             s->base) >= 0);
		(void)read_code;
		(void)ctx;
	}
	if (blocks) {
		bd = L.blk_alloc_decoder(&config);
		L.blk_set_image(bd, image);
	} else {
		id = L.insn_alloc_decoder(&config);
		L.insn_set_image(id, image);
	}
	for (;;) {
		uint64_t offset = 0;

		status = blocks ? L.blk_sync_forward(bd)
		                : L.insn_sync_forward(id);
		if (status == -pte_eos)
			break;
		for (;;) {
			while (status >= 0 && (status & pts_event_pending)) {
				struct pt_event ev;
				struct ptd_ipt_event iev;

				status = blocks ? L.blk_event(bd, &iev,
				                              sizeof(iev))
				                : L.insn_event(id, &iev,
				                               sizeof(iev));
				if (status < 0)
					break;
				memset(&ev, 0, sizeof(ev));
				memcpy(&ev, &iev,
				       sizeof(iev) < sizeof(ev) ? sizeof(iev)
				                                : sizeof(ev));
				if (ev.type == ptev_exec_mode &&
				    ev.status_update && !s->events_mode_status)
					continue;
				say_event(r, &ev);
			}
			if (status < 0)
				break;
			if (blocks) {
				struct ptd_ipt_block b;

				status = L.blk_next(bd, &b, sizeof(b));
				if (b.ninsn)
					say(r, "%llx-%llx/%u%s ",
					    (unsigned long long)b.ip,
					    (unsigned long long)b.end_ip,
					    b.ninsn, b.speculative ? "s" : "");
			} else {
				struct ptd_ipt_insn in;

				status = L.insn_next(id, &in, sizeof(in));
				if (status < 0) {
					if (status != -pte_eos)
						say(r, "<%llx> ",
						    (unsigned long long)in.ip);
					break;
				}
				say(r, "%llx%s ", (unsigned long long)in.ip,
				    in.speculative ? "s" : "");
			}
			if (status < 0)
				break;
		}
		if (status == -pte_eos)
			break;
		if (blocks)
			L.blk_get_offset(bd, &offset);
		else
			L.insn_get_offset(id, &offset);
		say(r, "E%d@%llx ", status, (unsigned long long)offset);
	}
	if (r->len)
		r->log[--r->len] = 0;
	if (bd)
		L.blk_free_decoder(bd);
	if (id)
		L.insn_free_decoder(id);
	L.image_free(image);
}
#else
/* Decode @t with the instruction-flow decoder (or, with @blocks, the block
 * decoder) over the image of @s; log instructions (or blocks), events and
 * errors (with their offsets), resynchronizing after errors. */
static void run(struct run *r, const struct setup *s, const struct trace *t,
                int blocks)
{
	uint8_t buf[1024];
	size_t size = encode(buf, sizeof(buf), t);
	struct pt_insn_decoder *id = NULL;
	struct pt_block_decoder *bd = NULL;
	struct pt_image *image;
	struct pt_config config;
	int status;

	memset(r, 0, sizeof(*r));
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	config.flags = s->flags;
	config.errata = s->errata;

	image = pt_image_alloc("test");
	assert_non_null(image);
	if (s->code)
		assert_int_equal(ptd_image_add_buffer(image, s->code, s->size,
		                                      NULL, s->base, 1),
		                 0);
	if (blocks) {
		bd = pt_blk_alloc_decoder(&config);
		assert_non_null(bd);
		assert_int_equal(pt_blk_set_image(bd, image), 0);
	} else {
		id = pt_insn_alloc_decoder(&config);
		assert_non_null(id);
		assert_int_equal(pt_insn_set_image(id, image), 0);
	}

	for (;;) {
		uint64_t offset = 0;

		status = blocks ? pt_blk_sync_forward(bd)
		                : pt_insn_sync_forward(id);
		if (status == -pte_eos)
			break;
		for (;;) {
			while (status >= 0 && (status & pts_event_pending)) {
				struct pt_event ev;

				status = blocks ? pt_blk_event(bd, &ev,
				                               sizeof(ev))
				                : pt_insn_event(id, &ev,
				                                sizeof(ev));
				if (status < 0)
					break;
				if (ev.type == ptev_exec_mode &&
				    ev.status_update && !s->events_mode_status)
					continue;
				say_event(r, &ev);
			}
			if (status < 0)
				break;
			if (blocks) {
				struct pt_block b;

				status = pt_blk_next(bd, &b, sizeof(b));
				if (b.ninsn)
					say(r, "%llx-%llx/%u%s ",
					    (unsigned long long)b.ip,
					    (unsigned long long)b.end_ip,
					    b.ninsn, b.speculative ? "s" : "");
			} else {
				struct pt_insn in;

				status = pt_insn_next(id, &in, sizeof(in));
				if (status < 0) {
					if (status != -pte_eos)
						say(r, "<%llx> ",
						    (unsigned long long)in.ip);
					break;
				}
				say(r, "%llx%s ", (unsigned long long)in.ip,
				    in.speculative ? "s" : "");
			}
			if (status < 0)
				break;
		}
		if (status == -pte_eos)
			break;
		if (blocks)
			assert_int_equal(pt_blk_get_offset(bd, &offset), 0);
		else
			assert_int_equal(pt_insn_get_offset(id, &offset), 0);
		say(r, "E%d@%llx ", status, (unsigned long long)offset);
	}
	if (r->len)
		r->log[--r->len] = 0;

	pt_blk_free_decoder(bd);
	pt_insn_free_decoder(id);
	pt_image_free(image);
}

#endif

static void expect(const struct setup *s, const struct trace *t,
                   const char *insns, const char *blocks)
{
	struct run r;

	run(&r, s, t, 0);
	if (strcmp(r.log, insns))
		fail_msg("instructions:\n  got      %s\n  expected %s", r.log,
		         insns);
	if (!blocks)
		return;
	run(&r, s, t, 1);
	if (strcmp(r.log, blocks))
		fail_msg("blocks:\n  got      %s\n  expected %s", r.log,
		         blocks);
}

/* --- The programs -------------------------------------------------------- */

/* 1000 nop; 1001 jz 1004; 1003 nop; 1004 jnz 1000; 1006 ret */
static const uint8_t loop_code[] = {0x90, 0x74, 0x01, 0x90, 0x75, 0xfa, 0xc3};

static void test_cond_branches(void **state)
{
	struct setup s = {
	        .code = loop_code, .size = sizeof(loop_code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	tnt(&t, "ttnn");
	ip(&t, ppt_tip_pgd, 0x3000);
	expect(&s, &t,
	       "[enabled 1000] 1000 1001 1004 1000 1001 1003 1004 1006 "
	       "[disabled 3000]",
	       "[enabled 1000] 1000-1001/2 1004-1004/1 1000-1001/2 "
	       "1003-1003/1 1004-1004/1 1006-1006/1 [disabled 3000]");
}

/* 1000 call 1009; 1005 nop; 1006 jmp rax; 1008 nop; 1009 nop; 100a ret */
static const uint8_t call_code[] = {0xe8, 0x04, 0x00, 0x00, 0x00, 0x90,
                                    0xff, 0xe0, 0x90, 0x90, 0xc3};

static void test_call_ret(void **state)
{
	struct setup s = {
	        .code = call_code, .size = sizeof(call_code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	tnt(&t, "t");            /* the first ret is compressed */
	ip(&t, ppt_tip, 0x1000); /* jmp rax */
	ip(&t, ppt_tip, 0x1005); /* the second ret is not */
	ip(&t, ppt_tip_pgd, 0x7000);
	expect(&s, &t,
	       "[enabled 1000] 1000 1009 100a 1005 1006 1000 1009 100a 1005 "
	       "1006 [disabled 7000]",
	       "[enabled 1000] 1000-1000/1 1009-100a/2 1005-1006/2 "
	       "1000-100a/3 1005-1006/2 [disabled 7000]");
}

static void test_end_on_call_jump(void **state)
{
	struct setup s = {
	        .code = call_code, .size = sizeof(call_code), .base = 0x1000};
	struct trace t = {0};
	struct run r;

	(void)state;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	tnt(&t, "t");
	ip(&t, ppt_tip_pgd, 0x7000);
	s.flags.variant.block.end_on_call = 1;
	run(&r, &s, &t, 1);
	assert_string_equal(r.log, "[enabled 1000] 1000-1000/1 1009-100a/2 "
	                           "1005-1006/2 [disabled 7000]");
}

static void test_bad_retcomp(void **state)
{
	struct setup s = {
	        .code = call_code, .size = sizeof(call_code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	tnt(&t, "n"); /* a not-taken "compressed return" */
	expect(&s, &t, "[enabled 1000] 1000 1009 <100a> E-21@1c",
	       "[enabled 1000] 1000-1000/1 1009-100a/2 E-21@1c");

	/* A compressed return with nothing on the stack. */
	memset(&t, 0, sizeof(t));
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1009);
	tnt(&t, "t");
	expect(&s, &t, "[enabled 1009] 1009 <100a> E-20@1c",
	       "[enabled 1009] 1009-100a/2 E-20@1c");
}

/* 65 calls deep and back: the return stack keeps the last 64 return
 * addresses, so the 65th compressed return finds it empty. */
static void test_retstack_depth(void **state)
{
	/* 65 units "call +1; ret" (the call skips the ret), then a ret */
	uint8_t code[65 * 6 + 1];
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	struct trace t = {0};
	char bits[66];
	struct run r;
	int i;

	(void)state;
	for (i = 0; i < 65; i++) {
		static const uint8_t unit[] = {0xe8, 0x01, 0x00,
		                               0x00, 0x00, 0xc3};

		memcpy(&code[6 * i], unit, sizeof(unit));
	}
	code[65 * 6] = 0xc3;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	memset(bits, 't', 47);
	bits[47] = 0;
	tnt(&t, bits);
	memset(bits, 't', 18);
	bits[18] = 0;
	tnt(&t, bits);
	run(&r, &s, &t, 1);
	/* The first time through, a block ends after each direct call; then
	 * one block per compressed return until the 65th return finds the
	 * stack empty. */
	{
		char want[4096];
		size_t len;

		len = (size_t)snprintf(want, sizeof(want), "[enabled 1000]");
		for (i = 0; i <= 65; i++)
			len += (size_t)snprintf(want + len, sizeof(want) - len,
			                        " %x-%x/1", 0x1000 + 6 * i,
			                        0x1000 + 6 * i);
		for (i = 64; i >= 1; i--)
			len += (size_t)snprintf(want + len, sizeof(want) - len,
			                        " %x-%x/1", 0x1000 + 6 * i + 5,
			                        0x1000 + 6 * i + 5);
		snprintf(want + len, sizeof(want) - len, " E-20@2b");
		assert_string_equal(r.log, want);
	}
}

/* 1000 nop; 1001 retf (far return) */
static const uint8_t far_code[] = {0x90, 0xcb};
/* The same bytes as 32-bit code at 2000. */

static void test_far_mode_switch(void **state)
{
	uint8_t code[0x1010];
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	memset(code, 0x90, sizeof(code));
	memcpy(code, far_code, sizeof(far_code));
	/* 2000: inc eax (0x40, a REX prefix in 64-bit mode) + nop */
	code[0x1000] = 0x40;
	code[0x1001] = 0x90;
	code[0x1002] = 0xcb;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	mode(&t, ptem_32bit);
	ip(&t, ppt_tip, 0x2000);
	ip(&t, ppt_tip_pgd, 0x5000);
	expect(&s, &t,
	       "[enabled 1000] 1000 1001 [mode 2] 2000 2001 2002 "
	       "[disabled 5000]",
	       "[enabled 1000] 1000-1001/2 [mode 2] 2000-2002/3 "
	       "[disabled 5000]");
}

static void test_interrupt(void **state)
{
	uint8_t code[0x2000];
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	memset(code, 0x90, sizeof(code));
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	ip(&t, ppt_fup, 0x1003);
	ip(&t, ppt_tip, 0x2000);
	ip(&t, ppt_fup, 0x2002);
	ip(&t, ppt_tip_pgd, 0);
	expect(&s, &t,
	       "[enabled 1000] 1000 1001 1002 [interrupt 1003>2000] 2000 "
	       "2001 [async-disabled 2002]",
	       "[enabled 1000] 1000-1002/3 [interrupt 1003>2000] "
	       "2000-2001/2 [async-disabled 2002]");
}

static void test_disable_enable(void **state)
{
	uint8_t code[0x100];
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	memset(code, 0x90, sizeof(code));
	code[0x04] = 0xff; /* 1004: call rax */
	code[0x05] = 0xd0;
	code[0x34] = 0xff; /* 1034: jmp rax */
	code[0x35] = 0xe0;
	psb(&t, 0x1000);
	ip(&t, ppt_tip_pgd, 0x5000); /* the call leaves the traced range */
	ip(&t, ppt_tip_pge, 0x1006); /* and we are back after it */
	ip(&t, ppt_fup, 0x1008);     /* an asynchronous disable */
	ip(&t, ppt_tip_pgd, 0);
	ip(&t, ppt_tip_pge, 0x1030); /* elsewhere */
	ip(&t, ppt_tip_pgd, 0);      /* by the jmp rax, IP suppressed */
	expect(&s, &t,
	       "1000 1001 1002 1003 1004 [disabled 5000] "
	       "[enabled 1006 resumed] 1006 1007 [async-disabled 1008] "
	       "[enabled 1030] 1030 1031 1032 1033",
	       "1000-1004/5 [disabled 5000] [enabled 1006 resumed] "
	       "1006-1007/2 [async-disabled 1008] [enabled 1030] "
	       "1030-1034/5 [disabled 0]");
}

/* A TIP.PGD without an IP where the flow needs a TNT, then a PSB+ and a TNT
 * (a corrupted trace): the instruction-flow decoders (ptdecode's and
 * libipt 2.0.5's) fail with -pte_bad_query at the conditional branch; both
 * block decoders take the TIP.PGD as a disable.  The TNT after the PSB+,
 * with tracing off, is -pte_no_enable from ptdecode's block decoder;
 * libipt's block decoder decodes on at IP 0 and fails with -pte_nomap
 * (docs/flow.md; flow_diff seed 4202854).  Without the PSB+ both block
 * decoders say -pte_no_enable. */
static void test_tnt_after_disable_without_ip(void **state)
{
	struct setup s = {
	        .code = loop_code, .size = sizeof(loop_code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	psb(&t, 0x1000);
	ip(&t, ppt_tip_pgd, 0);
	psb(&t, 0x1003);
	tnt(&t, "t");
	expect(&s, &t, "1000 <1001> E-8@35",
	       "1000-1001/2 [disabled 0] E-23@37");
}

static void test_overflow(void **state)
{
	uint8_t code[0x100];
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	memset(code, 0x90, sizeof(code));
	code[0x02] = 0xff; /* 1002: jmp rax */
	code[0x03] = 0xe0;
	code[0x44] = 0xff; /* 1044: jmp rax */
	code[0x45] = 0xe0;
	psb(&t, 0x1000);
	ip(&t, ppt_tip, 0x1040);
	add(&t, ppt_ovf);
	ip(&t, ppt_fup, 0x1042);
	ip(&t, ppt_tip_pgd, 0x5000);
	expect(&s, &t,
	       "1000 1001 1002 [overflow 1042] 1042 1043 1044 "
	       "[disabled 5000]",
	       "1000-1002/3 [overflow 1042] 1042-1044/3 [disabled 5000]");
}

/* 1000 nop; 1001 mov cr3, rax; 1004 jmp rax */
static const uint8_t paging_code[] = {0x90, 0x0f, 0x22, 0xd8, 0xff, 0xe0};

static void test_paging(void **state)
{
	struct setup s = {.code = paging_code,
	                  .size = sizeof(paging_code),
	                  .base = 0x1000};
	struct trace t = {0};

	(void)state;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	pip(&t, 0xabc000);
	ip(&t, ppt_tip_pgd, 0x2000);
	expect(&s, &t,
	       "[enabled 1000] 1000 1001 [paging abc000] 1004 "
	       "[disabled 2000]",
	       "[enabled 1000] 1000-1001/2 [paging abc000] 1004-1004/1 "
	       "[disabled 2000]");
}

static void test_asid(void **state)
{
	uint8_t buf[256];
	struct trace t = {0};
	struct pt_insn_decoder *dec;
	struct pt_config config;
	struct pt_asid asid;
	struct pt_event ev;
	int status;

	(void)state;
	add(&t, ppt_psb);
	pip(&t, 0x5000);
	add(&t, ppt_psbend);
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + encode(buf, sizeof(buf), &t);
	dec = pt_insn_alloc_decoder(&config);
	assert_non_null(dec);

	status = pt_insn_sync_forward(dec);
	assert_true(status >= 0 && (status & pts_event_pending));
	status = pt_insn_event(dec, &ev, sizeof(ev));
	assert_true(status >= 0);
	/* In PSB+, the PIP is an asynchronous paging status update. */
	assert_int_equal(ev.type, ptev_async_paging);
	assert_true(ev.status_update);
	assert_int_equal(pt_insn_asid(dec, &asid, sizeof(asid)), 0);
	assert_int_equal(asid.size, sizeof(asid));
	assert_int_equal(asid.cr3, 0x5000);
	assert_int_equal(asid.vmcs, pt_asid_no_vmcs);
	assert_int_equal(
	        pt_insn_next(dec, &(struct pt_insn){0}, sizeof(struct pt_insn)),
	        -pte_eos);
	pt_insn_free_decoder(dec);
}

static void test_tsx(void **state)
{
	uint8_t code[0x3000];
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	memset(code, 0x90, sizeof(code));
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	tsx(&t, 1, 0);
	ip(&t, ppt_fup, 0x1002);
	tsx(&t, 0, 1);
	ip(&t, ppt_fup, 0x1004);
	ip(&t, ppt_tip, 0x3000);
	ip(&t, ppt_fup, 0x3001);
	ip(&t, ppt_tip_pgd, 0);
	expect(&s, &t,
	       "[enabled 1000] 1000 1001 [tsx begin] 1002s 1003s "
	       "[tsx abort] [interrupt 1004>3000] 3000 [async-disabled 3001]",
	       "[enabled 1000] 1000-1001/2 [tsx begin] 1002-1003/2s "
	       "[tsx abort] [interrupt 1004>3000] 3000-3000/1 "
	       "[async-disabled 3001]");
}

static void test_nomap_bad_insn(void **state)
{
	/* 1000 nop; 1001: 0x0f, cut off by the end of the image */
	static const uint8_t code[] = {0x90, 0x0f};
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	expect(&s, &t, "[enabled 1000] 1000 <1001> E-14@1b",
	       "[enabled 1000] 1000-1000/1 E-14@1b");

	/* No code at 9000; then the next PSB. */
	memset(&t, 0, sizeof(t));
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x9000);
	add(&t, ppt_pad);
	psb(&t, 0x1000);
	expect(&s, &t, "[enabled 9000] <9000> E-13@37",
	       "[enabled 9000] E-13@37");
}

/* pt_insn_next() at an IP no section holds: insn.isid is -pte_nomap (libipt's
 * quirk), but 0 where the read-memory callback was asked and answered
 * -pte_nomap, as libipt's (ptdecode said -pte_nomap there too until stop
 * 30). */
static int nomap_cb(uint8_t *buffer, size_t size, const struct pt_asid *asid,
                    uint64_t addr, void *context)
{
	(void)buffer;
	(void)size;
	(void)asid;
	(void)addr;
	(void)context;
	return -pte_nomap;
}

static void test_nomap_isid(void **state)
{
	struct trace t = {0};
	uint8_t buf[128];
	size_t size;
	int with_cb;

	(void)state;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x9000);
	size = encode(buf, sizeof(buf), &t);
	for (with_cb = 0; with_cb < 2; ++with_cb) {
		struct pt_insn_decoder *id;
		struct pt_config config;
		struct pt_image *image;
		struct pt_insn insn;
		int status;

		pt_config_init(&config);
		config.begin = buf;
		config.end = buf + size;
		image = pt_image_alloc("nomap");
		assert_non_null(image);
		if (with_cb)
			assert_int_equal(
			        pt_image_set_callback(image, nomap_cb, NULL),
			        0);
		id = pt_insn_alloc_decoder(&config);
		assert_non_null(id);
		assert_int_equal(pt_insn_set_image(id, image), 0);
		status = pt_insn_sync_forward(id);
		while (status >= 0 && (status & pts_event_pending)) {
			struct pt_event ev;

			status = pt_insn_event(id, &ev, sizeof(ev));
		}
		assert_true(status >= 0);
		memset(&insn, 0x55, sizeof(insn));
		assert_int_equal(pt_insn_next(id, &insn, sizeof(insn)),
		                 -pte_nomap);
		assert_int_equal(insn.ip, 0x9000);
		assert_int_equal(insn.isid, with_cb ? 0 : -pte_nomap);
		pt_insn_free_decoder(id);
		pt_image_free(image);
	}
}

/* The decoders that path_run(), ratio_run() and ptxed_run() drive: over a
 * copy of the trace and an image of @s's code. */
struct dec {
	uint8_t *trace;
	struct pt_image *image;
	struct pt_insn_decoder *id;
	struct pt_block_decoder *bd;
};

/* Allocate the instruction-flow decoder (or, with @blocks, the block
 * decoder) for [@buf, @buf + @size) and the image of @s, with @s's
 * configuration flags if @flags and its errata if @errata. */
static void dec_open(struct dec *d, const struct setup *s, const uint8_t *buf,
                     size_t size, int blocks, int flags, int errata)
{
	struct pt_config config;

	memset(d, 0, sizeof(*d));
	d->trace = ptd_t_dup(buf, size);
	pt_config_init(&config);
	config.begin = d->trace;
	config.end = d->trace + size;
	if (flags)
		config.flags = s->flags;
	if (errata)
		config.errata = s->errata;
	d->image = pt_image_alloc("test");
	assert_non_null(d->image);
	assert_int_equal(ptd_image_add_buffer(d->image, s->code, s->size, NULL,
	                                      s->base, 1),
	                 0);
	if (blocks) {
		d->bd = pt_blk_alloc_decoder(&config);
		assert_non_null(d->bd);
		assert_int_equal(pt_blk_set_image(d->bd, d->image), 0);
	} else {
		d->id = pt_insn_alloc_decoder(&config);
		assert_non_null(d->id);
		assert_int_equal(pt_insn_set_image(d->id, d->image), 0);
	}
}

static void dec_close(struct dec *d)
{
	pt_blk_free_decoder(d->bd);
	pt_insn_free_decoder(d->id);
	pt_image_free(d->image);
	free(d->trace);
}

/* Decode [@buf, @buf + @size) with the instruction-flow decoder (or, with
 * @blocks, the block decoder) over the image of @s as ptxed does (up to an
 * error or pts_eos, then the next PSB); log each synchronization as
 * "S<sync offset>", then "N<instructions>" and "E<error>@<offset>" or
 * "eos" for each PSB segment.  With @offsets the offset is asked for after
 * every synchronization and before every step (ptxed --offset): the
 * decoders then take the query results from the pull API; without, from
 * batches (docs/flow.md).  With @s->sync_after_eos the loop synchronizes
 * forward again after pts_eos and logs the end as "X<offset>:<sync
 * offset>" (what the get_offset functions say then). */
static void path_run(struct run *r, const struct setup *s, const uint8_t *buf,
                     size_t size, int blocks, int offsets)
{
	struct pt_insn_decoder *id;
	struct pt_block_decoder *bd;
	int status, round;
	struct dec d;

	memset(r, 0, sizeof(*r));
	dec_open(&d, s, buf, size, blocks, 0, 0);
	id = d.id;
	bd = d.bd;
	for (round = 0; round < 16; round++) {
		uint64_t offset = 0, ninsn = 0;

		status = blocks ? pt_blk_sync_forward(bd)
		                : pt_insn_sync_forward(id);
		if (status == -pte_eos) {
			uint64_t sync = 0;

			if (!s->sync_after_eos)
				break;
			assert_int_equal(
			        blocks ? pt_blk_get_offset(bd, &offset)
			               : pt_insn_get_offset(id, &offset),
			        0);
			assert_int_equal(
			        blocks ? pt_blk_get_sync_offset(bd, &sync)
			               : pt_insn_get_sync_offset(id, &sync),
			        0);
			say(r, "X%llx:%llx ", (unsigned long long)offset,
			    (unsigned long long)sync);
			break;
		}
		if (status >= 0) {
			if (offsets)
				assert_int_equal(
				        blocks ? pt_blk_get_offset(bd, &offset)
				               : pt_insn_get_offset(id,
				                                    &offset),
				        0);
			assert_int_equal(
			        blocks ? pt_blk_get_sync_offset(bd, &offset)
			               : pt_insn_get_sync_offset(id, &offset),
			        0);
			say(r, "S%llx ", (unsigned long long)offset);
		}
		while (status >= 0 && !(status & pts_eos)) {
			if (offsets)
				assert_int_equal(
				        blocks ? pt_blk_get_offset(bd, &offset)
				               : pt_insn_get_offset(id,
				                                    &offset),
				        0);
			if (status & pts_event_pending) {
				struct pt_event ev;

				status = blocks ? pt_blk_event(bd, &ev,
				                               sizeof(ev))
				                : pt_insn_event(id, &ev,
				                                sizeof(ev));
			} else if (blocks) {
				struct pt_block b;

				b.ninsn = 0;
				status = pt_blk_next(bd, &b, sizeof(b));
				ninsn += b.ninsn;
			} else {
				struct pt_insn in;

				status = pt_insn_next(id, &in, sizeof(in));
				ninsn += status >= 0;
			}
		}
		say(r, "N%llu ", (unsigned long long)ninsn);
		if (status >= 0) {
			say(r, "eos ");
			if (s->sync_after_eos)
				continue;
			break;
		}
		assert_int_equal(blocks ? pt_blk_get_offset(bd, &offset)
		                        : pt_insn_get_offset(id, &offset),
		                 0);
		say(r, "E%d@%llx ", status, (unsigned long long)offset);
		if (status == -pte_eos)
			break;
	}
	if (r->len)
		r->log[--r->len] = 0;
	dec_close(&d);
}

/* Both paths of both decoders on [@buf, @buf + @size): the logs of
 * path_run() must be @insns for the instruction-flow decoder and @blocks
 * for the block decoder, whether or not the offsets are asked for. */
static void path_expect(const struct setup *s, const uint8_t *buf, size_t size,
                        const char *insns, const char *blocks)
{
	struct run r;
	int blk, offsets;

	for (blk = 0; blk < 2; blk++) {
		for (offsets = 0; offsets < 2; offsets++) {
			const char *want = blk ? blocks : insns;

			path_run(&r, s, buf, size, blk, offsets);
			if (strcmp(r.log, want))
				fail_msg("%s, %s path:\n  got      %s\n  "
				         "expected %s",
				         blk ? "blocks" : "instructions",
				         offsets ? "pull" : "batch", r.log,
				         want);
		}
	}
}

/* fuzz/crashes/fuzz_flow-sync-offset-batch2: a decode error right after
 * the event of a TIP.PGE to code that is not there.  The pull API's status
 * after the event announces another event (the next packet begins like a
 * PSB); the batch items did not tell, so on the batch path the decoders
 * went on to the instruction and failed by themselves instead of with the
 * query's -pte_bad_packet, and after the resynchronization at the next PSB
 * the sync offset named a later PSB than the one decoding went on from.
 * Both paths must give the same errors and sync offsets.  After each
 * error the synchronization looks back up to 15 bytes, as libipt 2.0.5
 * does, so it first finds the PSB that straddles the TIP.PGE and the
 * damaged PSB and fails there with -pte_bad_context (the sync error at
 * 0x19), then goes on to the next segment's PSB. */
static void test_sync_offset_after_error(void **state)
{
	static const uint8_t nop = 0x90;
	struct setup s = {.code = &nop, .size = 1, .base = 0x1000};
	uint8_t buf[256];
	size_t size = 0, seg;

	(void)state;
	/* Three segments: PSB+ (64-bit), a TIP.PGE whose IP ends in 02 82
	 * (0xffff820200001000, nothing mapped there) and 14 more bytes of
	 * the PSB pattern: a PSB straddles the TIP.PGE, and the packet after
	 * the TIP.PGE is a PSB cut short (-pte_bad_packet); two PADs. */
	for (seg = 0; seg < 3; seg++) {
		struct trace t = {0};
		size_t i;

		psb(&t, 0);
		ip(&t, ppt_tip_pge, 0xffff820200001000ull);
		size += encode(buf + size, sizeof(buf) - size, &t);
		assert_int_equal(buf[size - 2], 0x02);
		assert_int_equal(buf[size - 1], 0x82);
		for (i = 0; i < 7; i++) {
			buf[size++] = 0x02;
			buf[size++] = 0x82;
		}
		buf[size++] = 0x00;
		buf[size++] = 0x00;
	}
	assert_int_equal(size, 3 * 43);
	path_expect(&s, buf, size,
	            "S0 N0 E-5@1b N0 E-6@19 S2b N0 E-5@46 N0 E-6@44 S56 N0 "
	            "E-5@71",
	            "S0 N0 E-5@1b N0 E-6@19 S2b N0 E-5@46 N0 E-6@44 S56 N0 "
	            "E-5@71");
}

/* A TIP while conditional branch outcomes are pending: the indirect branch
 * query takes it (the outcomes stay for the next conditional branches), as
 * pt_qry_indirect_branch() does.  On the batch path the decoders once said
 * -pte_bad_query at the first jmp rax (fuzz/crashes/fuzz_flow-paths-*). */
static void test_indirect_past_tnt(void **state)
{
	/* 1000 jz 1002; 1002 jmp rax */
	static const uint8_t code[] = {0x74, 0x00, 0xff, 0xe0};
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	struct trace t = {0};
	uint8_t buf[256];
	size_t size;

	(void)state;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	tnt(&t, "nn");
	ip(&t, ppt_tip, 0x1000);
	ip(&t, ppt_tip_pgd, 0x3000);
	expect(&s, &t, "[enabled 1000] 1000 1002 1000 1002 [disabled 3000]",
	       "[enabled 1000] 1000-1000/1 1002-1002/1 1000-1000/1 "
	       "1002-1002/1 [disabled 3000]");
	size = encode(buf, sizeof(buf), &t);
	path_expect(&s, buf, size, "S0 N4 eos", "S0 N4 eos");
}

/* The trace ends in a packet cut short right after tracing was enabled:
 * the status after the last event does not say pts_eos, so the code that
 * needs no trace runs up to the return, whose query finds the end.  (On the
 * batch path the decoders once said pts_eos after the event and stopped
 * there: fuzz/crashes/fuzz_flow-eos-status.  run() goes on after pts_eos,
 * path_run() does not.) */
static void test_end_status(void **state)
{
	/* 1000 nop; 1001 nop; 1002 ret */
	static const uint8_t code[] = {0x90, 0x90, 0xc3};
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	struct trace t = {0};
	uint8_t buf[256];
	size_t size;

	(void)state;
	psb(&t, 0);
	mode(&t, ptem_64bit);
	ip(&t, ppt_tip_pge, 0x1000);
	/* The first three bytes of a TNT-64. */
	t.tail[0] = 0x02;
	t.tail[1] = 0xa3;
	t.tail[2] = 0x03;
	t.ntail = 3;
	expect(&s, &t, "[enabled 1000] [mode 3] 1000 1001",
	       "[enabled 1000] [mode 3] 1000-1002/3");
	size = encode(buf, sizeof(buf), &t);
	path_expect(&s, buf, size, "S0 N2 E-7@1d", "S0 N3 E-7@1d");
}

/* More ends inside a packet, each met by another query: the status before
 * the end and the error are the pull API's on both paths (the batch's
 * error items tell which query failed: ptd_qry_item_event_pending,
 * ptd_qry_item_indirect). */
static void test_end_status_queries(void **state)
{
	/* 1000 jz 1002; 1002 jmp rax */
	static const uint8_t code[] = {0x74, 0x00, 0xff, 0xe0};
	/* After PSB and TIP.PGE 1000: one not-taken outcome (or none), then
	 * a packet cut short by the end; the expected path_expect() results
	 * of the instruction and block decoders. */
	static const struct {
		int outcome;
		uint8_t tail[3];
		size_t ntail;
		const char *insn, *blk;
	} cases[] = {
	        /* A TIP.PGD (sext-48 IP) cut short after tracing was
	         * enabled: the status after the event says
	         * pts_event_pending, pt_qry_event() fails
	         * (fuzz/crashes/fuzz_flow-eos-status-noenable). */
	        {1, {0x61, 0x02, 0x10}, 3, "S0 N0 E-7@1c", "S0 N1 E-7@1c"},
	        /* A TIP (sext-48 IP) cut short at the jmp rax:
	         * pt_qry_cond_branch() refuses, pt_qry_indirect_branch()
	         * fails. */
	        {1, {0x6d, 0x02}, 2, "S0 N1 E-7@1c", "S0 N2 E-7@1c"},
	        /* The same TIP at the jz: the conditional branch query is
	         * refused (-pte_bad_query, before the TIP), as on the pull
	         * path. */
	        {0, {0x6d, 0x02}, 2, "S0 N0 E-8@1b", "S0 N1 E-8@1b"},
	        /* A TNT-64 cut short at the jmp rax: the loop's
	         * pt_qry_cond_branch() failed, pt_qry_indirect_branch()
	         * fails the same way. */
	        {1, {0x02, 0xa3, 0x03}, 3, "S0 N1 E-7@1c", "S0 N2 E-7@1c"},
	};
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	uint8_t buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		struct trace t = {0};
		size_t size;

		psb(&t, 0);
		ip(&t, ppt_tip_pge, 0x1000);
		if (cases[i].outcome)
			tnt(&t, "n");
		memcpy(t.tail, cases[i].tail, cases[i].ntail);
		t.ntail = cases[i].ntail;
		size = encode(buf, sizeof(buf), &t);
		path_expect(&s, buf, size, cases[i].insn, cases[i].blk);
	}
}

/* Decode [@buf, @buf + @size) with the instruction-flow decoder (or, with
 * @blocks, the block decoder) as path_run() does, on the batch path or
 * (@offsets) the pull path, and log after every synchronization, event,
 * instruction and block what pt_*_core_bus_ratio() says ("c<ratio>" or
 * "c<error>"). */
static void ratio_run(struct run *r, const struct setup *s, const uint8_t *buf,
                      size_t size, int blocks, int offsets)
{
	struct pt_insn_decoder *id;
	struct pt_block_decoder *bd;
	int status, round;
	struct dec d;

	memset(r, 0, sizeof(*r));
	dec_open(&d, s, buf, size, blocks, 1, 1);
	id = d.id;
	bd = d.bd;
#define RATIO(r)                                                               \
	do {                                                                   \
		uint32_t cbr_ = 0;                                             \
		int err_ = blocks ? pt_blk_core_bus_ratio(bd, &cbr_)           \
		                  : pt_insn_core_bus_ratio(id, &cbr_);         \
		if (err_ < 0)                                                  \
			say(r, "c%d ", err_);                                  \
		else                                                           \
			say(r, "c%x ", cbr_);                                  \
	} while (0)
	for (round = 0; round < 16; round++) {
		uint64_t offset = 0;

		status = blocks ? pt_blk_sync_forward(bd)
		                : pt_insn_sync_forward(id);
		if (status == -pte_eos)
			break;
		if (status >= 0 && offsets)
			assert_int_equal(
			        blocks ? pt_blk_get_offset(bd, &offset)
			               : pt_insn_get_offset(id, &offset),
			        0);
		say(r, "S ");
		RATIO(r);
		while (status >= 0 && !(status & pts_eos)) {
			if (offsets)
				assert_int_equal(
				        blocks ? pt_blk_get_offset(bd, &offset)
				               : pt_insn_get_offset(id,
				                                    &offset),
				        0);
			if (status & pts_event_pending) {
				struct pt_event ev;

				status = blocks ? pt_blk_event(bd, &ev,
				                               sizeof(ev))
				                : pt_insn_event(id, &ev,
				                                sizeof(ev));
				if (status >= 0)
					say(r, "[%d] ", (int)ev.type);
			} else if (blocks) {
				struct pt_block b;

				b.ninsn = 0;
				status = pt_blk_next(bd, &b, sizeof(b));
				if (b.ninsn)
					say(r, "%llx-%llx ",
					    (unsigned long long)b.ip,
					    (unsigned long long)b.end_ip);
			} else {
				struct pt_insn in;

				status = pt_insn_next(id, &in, sizeof(in));
				if (status >= 0)
					say(r, "%llx ",
					    (unsigned long long)in.ip);
			}
			RATIO(r);
		}
		if (status >= 0) {
			say(r, "eos ");
			break;
		}
		assert_int_equal(blocks ? pt_blk_get_offset(bd, &offset)
		                        : pt_insn_get_offset(id, &offset),
		                 0);
		say(r, "E%d@%llx ", status, (unsigned long long)offset);
		if (status == -pte_eos)
			break;
	}
#undef RATIO
	if (r->len)
		r->log[--r->len] = 0;
	dec_close(&d);
}

/* Both paths of both decoders on [@buf, @buf + @size): the logs of
 * ratio_run() must be @insns for the instruction-flow decoder and @blocks
 * for the block decoder. */
static void ratio_expect_buf(const struct setup *s, const uint8_t *buf,
                             size_t size, const char *insns, const char *blocks)
{
	struct run r;
	int blk, offsets;

	for (blk = 0; blk < 2; blk++) {
		for (offsets = 0; offsets < 2; offsets++) {
			const char *want = blk ? blocks : insns;

			ratio_run(&r, s, buf, size, blk, offsets);
			if (strcmp(r.log, want))
				fail_msg("%s, %s path:\n  got      %s\n  "
				         "expected %s",
				         blk ? "blocks" : "instructions",
				         offsets ? "pull" : "batch", r.log,
				         want);
		}
	}
}

static void ratio_expect(const struct setup *s, const struct trace *t,
                         const char *insns, const char *blocks)
{
	uint8_t buf[1024];
	size_t size = encode(buf, sizeof(buf), t);

	ratio_expect_buf(s, buf, size, insns, blocks);
}

static void cbr(struct trace *t, uint8_t ratio)
{
	add(t, ppt_cbr)->payload.cbr.ratio = ratio;
}

/* A trace that starts with a PSB+ at core:bus ratio 0x10 and enables
 * tracing at 0x1000 (test_core_bus_ratio()'s cases). */
static void ratio_start(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	add(t, ppt_psb);
	cbr(t, 0x10);
	mode(t, ptem_64bit);
	add(t, ppt_psbend);
	ip(t, ppt_tip_pge, 0x1000);
}

/* pt_*_core_bus_ratio() is the query decoder's after its last result
 * (pt_qry_core_bus_ratio()), on both paths: after a PSB+ whose MODE comes
 * before its CBR, the ratio is the new one from the exec-mode event on,
 * before the CBR event; a CBR with ratio 0 is reported as an event but
 * changes no ratio; CBRs that the query decoder skips after an OVF (APL11,
 * SKD010) change the ratio without an event. */
static void test_core_bus_ratio(void **state)
{
	struct setup s = {
	        .code = loop_code, .size = sizeof(loop_code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	/* MODE before CBR, at the start and in a PSB+ on the way. */
	add(&t, ppt_psb);
	mode(&t, ptem_64bit);
	cbr(&t, 0x10);
	add(&t, ppt_psbend);
	ip(&t, ppt_tip_pge, 0x1000);
	tnt(&t, "n");
	add(&t, ppt_psb);
	mode(&t, ptem_64bit);
	cbr(&t, 0x20);
	ip(&t, ppt_fup, 0x1003);
	add(&t, ppt_psbend);
	tnt(&t, "t");
	ip(&t, ppt_tip_pgd, 0x3000);
	ratio_expect(&s, &t,
	             "S c10 [7] c10 [18] c10 [0] c10 1000 c10 1001 c20 [7] c20 "
	             "[18] c20 1003 c20 1004 c20 1000 c20 1001 c20 [1] c20 eos",
	             "S c10 [7] c10 [18] c10 [0] c10 1000-1001 c20 [7] c20 "
	             "[18] c20 1003-1004 c20 1000-1001 c20 [1] c20 eos");

	/* A CBR with ratio 0. */
	ratio_start(&t);
	tnt(&t, "n");
	cbr(&t, 0);
	tnt(&t, "t");
	ip(&t, ppt_tip_pgd, 0x3000);
	ratio_expect(&s, &t,
	             "S c10 [18] c10 [7] c10 [0] c10 1000 c10 1001 c10 [18] "
	             "c10 1003 c10 1004 c10 1000 c10 1001 c10 [1] c10 eos",
	             "S c10 [18] c10 [7] c10 [0] c10 1000-1001 c10 [18] c10 "
	             "1003-1004 c10 1000-1001 c10 [1] c10 eos");

	/* APL11: OVF, CBR, TIP.PGD; tracing resumes with a TIP.PGE. */
	ratio_start(&t);
	tnt(&t, "n");
	add(&t, ppt_ovf);
	cbr(&t, 0x30);
	ip(&t, ppt_tip_pgd, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	tnt(&t, "n");
	ip(&t, ppt_tip_pgd, 0x3000);
	s.errata.apl11 = 1;
	ratio_expect(&s, &t,
	             "S c10 [18] c10 [7] c10 [0] c10 1000 c10 1001 c30 [6] c30 "
	             "[0] c30 1000 c30 1001 c30 1003 c30 1004 c30 [1] c30 eos",
	             "S c10 [18] c10 [7] c10 [0] c10 1000-1001 c30 [6] c30 [0] "
	             "c30 1000-1001 c30 1003-1004 c30 [1] c30 eos");

	/* SKD010: OVF, CBR, TIP (no FUP). */
	ratio_start(&t);
	tnt(&t, "n");
	add(&t, ppt_ovf);
	cbr(&t, 0x30);
	ip(&t, ppt_tip, 0x1000);
	tnt(&t, "n");
	ip(&t, ppt_tip_pgd, 0x3000);
	s.errata.apl11 = 0;
	s.errata.skd010 = 1;
	ratio_expect(&s, &t,
	             "S c10 [18] c10 [7] c10 [0] c10 1000 c10 1001 c30 [6] c30 "
	             "1000 c30 1001 c30 1003 c30 1004 c30 [1] c30 eos",
	             "S c10 [18] c10 [7] c10 [0] c10 1000-1001 c30 [6] c30 "
	             "1000-1001 c30 1003-1004 c30 [1] c30 eos");

	/* A decode error, then the next PSB+ (MODE before CBR). */
	{
		uint8_t buf[1024];
		size_t size;

		memset(&t, 0, sizeof(t));
		add(&t, ppt_psb);
		mode(&t, ptem_64bit);
		cbr(&t, 0x10);
		add(&t, ppt_psbend);
		ip(&t, ppt_tip_pge, 0x1000);
		tnt(&t, "n");
		size = encode(buf, sizeof(buf), &t);
		buf[size++] = 0xc9;
		memset(&t, 0, sizeof(t));
		add(&t, ppt_psb);
		mode(&t, ptem_64bit);
		cbr(&t, 0x20);
		ip(&t, ppt_fup, 0x1003);
		add(&t, ppt_psbend);
		tnt(&t, "t");
		ip(&t, ppt_tip_pgd, 0x3000);
		size += encode(buf + size, sizeof(buf) - size, &t);
		s.errata.skd010 = 0;
		ratio_expect_buf(
		        &s, buf, size,
		        "S c10 [7] c10 [18] c10 [0] c10 1000 c10 c10 E-4@20 S "
		        "c20 "
		        "[7] c20 [18] c20 1003 c20 1004 c20 1000 c20 1001 c20 "
		        "[1] "
		        "c20 eos",
		        "S c10 [7] c10 [18] c10 [0] c10 1000-1001 c10 E-4@20 S "
		        "c20 [7] c20 [18] c20 1003-1004 c20 1000-1001 c20 [1] "
		        "c20 "
		        "eos");
	}
}

/* A loop that synchronizes forward again after pts_eos (as libipt-style
 * loops do): -pte_eos, with the offset at the end of the trace and the
 * sync offset of the last synchronization, on both paths.  (The batch path
 * needs no replay of the calls since the last synchronization for it: the
 * query decoder is where the pull API's is once every result up to the
 * end has been taken; test_qsrc.c: test_sync_at_end.) */
static void test_sync_after_eos(void **state)
{
	struct setup s = {.code = loop_code,
	                  .size = sizeof(loop_code),
	                  .base = 0x1000,
	                  .sync_after_eos = 1};
	struct trace t = {0};
	uint8_t buf[256];
	size_t size;

	(void)state;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	tnt(&t, "tt");
	psb(&t, 0x1000);
	tnt(&t, "tn");
	ip(&t, ppt_tip_pgd, 0x3000);
	size = encode(buf, sizeof(buf), &t);
	assert_int_equal(size, 0x3f);
	path_expect(&s, buf, size, "S0 N7 eos X3f:0", "S0 N7 eos X3f:0");
}

/* The flow engine of a decoder (white box: struct pt_insn_decoder and
 * struct pt_block_decoder begin with it, lib/flow/insn_decoder.c and
 * block_decoder.c). */
static const struct ptd_flow *flow_of(const void *decoder)
{
	return (const struct ptd_flow *)decoder;
}

/* ptxed's loop (tools/ptxed/decode.c) with resynchronization on errors over
 * [@buf, @buf + @size), with the instruction-flow decoder (or, with
 * @blocks, the block decoder): log each synchronization ("S<sync
 * offset>"), event ("[<type> <tsc>]"), instruction ("<ip>") or block
 * ("<ip>-<end ip>/<instructions>"), each followed by what pt_*_time() and
 * pt_*_core_bus_ratio() say then ("t<tsc>/<lost mtc>/<lost cyc>",
 * "c<ratio>", or the errors), and each error with its offset and IP
 * ("E<error>@<offset>:<ip>").  Offsets as ptxed asks for them: after
 * errors, and with @offsets (--offset) after every synchronization and
 * before every step too.  @used[i] (up to 8 PSB segments): the flow
 * decoder took batch items in segment i (when it failed or ended). */
static void ptxed_run(struct run *r, const struct setup *s, const uint8_t *buf,
                      size_t size, int blocks, int offsets, int used[8])
{
	struct pt_insn_decoder *id;
	struct pt_block_decoder *bd;
	const struct ptd_flow *flow;
	int status, seg;
	struct dec d;

	memset(r, 0, sizeof(*r));
	dec_open(&d, s, buf, size, blocks, 1, 0);
	id = d.id;
	bd = d.bd;
	flow = blocks ? flow_of(bd) : flow_of(id);
#define OFFSET(off)                                                            \
	assert_int_equal(blocks ? pt_blk_get_offset(bd, off)                   \
	                        : pt_insn_get_offset(id, off),                 \
	                 0)
#define TIME()                                                                 \
	do {                                                                   \
		uint64_t tsc_ = 0;                                             \
		uint32_t mtc_ = 0, cyc_ = 0, cbr_ = 0;                         \
		int err_ = blocks ? pt_blk_time(bd, &tsc_, &mtc_, &cyc_)       \
		                  : pt_insn_time(id, &tsc_, &mtc_, &cyc_);     \
		say(r, "t%llx/%u/%u,", (unsigned long long)tsc_, mtc_, cyc_);  \
		if (err_ < 0)                                                  \
			say(r, "t%d,", err_);                                  \
		err_ = blocks ? pt_blk_core_bus_ratio(bd, &cbr_)               \
		              : pt_insn_core_bus_ratio(id, &cbr_);             \
		if (err_ < 0)                                                  \
			say(r, "c%d ", err_);                                  \
		else                                                           \
			say(r, "c%x ", cbr_);                                  \
	} while (0)
	status = blocks ? pt_blk_sync_forward(bd) : pt_insn_sync_forward(id);
	for (seg = 0; seg < 8 && status != -pte_eos; seg++) {
		uint64_t offset = 0, ip = 0;

		assert_true(status >= 0);
		if (offsets)
			OFFSET(&offset);
		assert_int_equal(blocks ? pt_blk_get_sync_offset(bd, &offset)
		                        : pt_insn_get_sync_offset(id, &offset),
		                 0);
		say(r, "S%llx ", (unsigned long long)offset);
		TIME();
		while (status >= 0 && !(status & pts_eos)) {
			if (offsets)
				OFFSET(&offset);
			if (status & pts_event_pending) {
				struct pt_event ev;

				status = blocks ? pt_blk_event(bd, &ev,
				                               sizeof(ev))
				                : pt_insn_event(id, &ev,
				                                sizeof(ev));
				if (status >= 0)
					say(r, "[%d %llx] ", (int)ev.type,
					    (unsigned long long)ev.tsc);
			} else if (blocks) {
				struct pt_block b;

				b.ninsn = 0;
				status = pt_blk_next(bd, &b, sizeof(b));
				ip = b.ninsn ? b.end_ip : b.ip;
				if (b.ninsn)
					say(r, "%llx-%llx/%u ",
					    (unsigned long long)b.ip,
					    (unsigned long long)b.end_ip,
					    b.ninsn);
			} else {
				struct pt_insn in;

				status = pt_insn_next(id, &in, sizeof(in));
				ip = in.ip;
				if (status >= 0)
					say(r, "%llx ",
					    (unsigned long long)in.ip);
			}
			if (status >= 0)
				TIME();
		}
		used[seg] = flow->qs.batch && (flow->qs.n || flow->qs.end);
		if (status >= 0) {
			say(r, "eos");
			break;
		}
		/* ptxed_diagnose(), then pt_*_resync(). */
		OFFSET(&offset);
		say(r, "E%d@%llx:%llx ", status, (unsigned long long)offset,
		    (unsigned long long)ip);
		TIME();
		status = blocks ? pt_blk_resync(bd) : pt_insn_resync(id);
	}
#undef TIME
#undef OFFSET
	dec_close(&d);
}

/* A trace with errors that the flow decoders find themselves (no code at a
 * TIP's target, a bad instruction, a TIP where the code needs a conditional
 * branch), each followed by packets that the pull API never reads, decoded
 * as ptxed decodes it: after each error, the offset
 * (pt_*_get_offset(), which replays the query calls on the batch path,
 * where the query decoder ran ahead) and pt_*_resync().  Both paths give
 * the same instructions, blocks, events, times, core:bus ratios, errors,
 * offsets and sync offsets; on the batch path the decoders take batches
 * again after each resynchronization, on the pull path (ptxed --offset)
 * not. */
static void test_ptxed_errors(void **state)
{
	/* 1000 nop; 1001 jz 1004; 1003 nop; 1004 jnz 1000; 1006 jmp rax;
	 * 1008 a byte that is no instruction in 64-bit mode */
	static const uint8_t code[] = {0x90, 0x74, 0x01, 0x90, 0x75,
	                               0xfa, 0xff, 0xe0, 0x06};
	/* The segments' ends: E-13 (-pte_nomap) at 9000, E-14 (-pte_bad_insn)
	 * at 1008, E-8 (-pte_bad_query) at the jz, and the end; events 18
	 * (ptev_cbr), 7 (ptev_exec_mode) and 1 (ptev_disabled). */
	static const char *const want[2] = {
	        "S0 t10000/0/0,c10 [18 10000] t10000/0/0,c10 [7 10000] "
	        "t10000/0/0,c10 1000 t10000/0/0,c10 1001 t10000/0/0,c10 "
	        "1004 t10000/0/0,c10 1000 t10000/0/0,c10 1001 "
	        "t10800/0/0,c10 1003 t10800/0/0,c10 1004 t10800/0/0,c10 "
	        "1006 t10800/0/0,c10 E-13@38:9000 t10800/0/0,c10 S39 "
	        "t20000/0/0,c20 [18 20000] t20000/0/0,c20 [7 20000] "
	        "t20000/0/0,c20 1000 t20000/0/0,c20 1001 t20000/0/0,c22 "
	        "[18 20000] t20000/0/0,c22 1004 t20000/0/0,c22 1000 "
	        "t20000/0/0,c22 1001 t20000/0/0,c22 1003 t20000/0/0,c22 "
	        "1004 t20000/0/0,c22 1006 t20000/0/0,c22 E-14@6d:1008 "
	        "t20000/0/0,c22 S6e t30000/0/0,c30 [18 30000] "
	        "t30000/0/0,c30 [7 30000] t30000/0/0,c30 1000 "
	        "t30000/0/0,c30 E-8@95:1001 t30000/0/0,c30 S9d "
	        "t40000/0/0,c40 [18 40000] t40000/0/0,c40 [7 40000] "
	        "t40000/0/0,c40 1000 t40000/0/0,c40 1001 t40000/0/0,c40 "
	        "1004 t40800/0/0,c40 1006 t40800/0/0,c40 [1 40800] "
	        "t40800/0/0,c40 eos",
	        "S0 t10000/0/0,c10 [18 10000] t10000/0/0,c10 [7 10000] "
	        "t10000/0/0,c10 1000-1001/2 t10000/0/0,c10 1004-1004/1 "
	        "t10000/0/0,c10 1000-1001/2 t10800/0/0,c10 1003-1003/1 "
	        "t10800/0/0,c10 1004-1004/1 t10800/0/0,c10 1006-1006/1 "
	        "t10800/0/0,c10 E-13@38:9000 t10800/0/0,c10 S39 "
	        "t20000/0/0,c20 [18 20000] t20000/0/0,c20 [7 20000] "
	        "t20000/0/0,c20 1000-1001/2 t20000/0/0,c22 [18 20000] "
	        "t20000/0/0,c22 1004-1004/1 t20000/0/0,c22 1000-1001/2 "
	        "t20000/0/0,c22 1003-1004/2 t20000/0/0,c22 1006-1006/1 "
	        "t20000/0/0,c22 E-14@6d:1008 t20000/0/0,c22 S6e "
	        "t30000/0/0,c30 [18 30000] t30000/0/0,c30 [7 30000] "
	        "t30000/0/0,c30 1000-1001/2 E-8@95:1001 t30000/0/0,c30 "
	        "S9d t40000/0/0,c40 [18 40000] t40000/0/0,c40 [7 40000] "
	        "t40000/0/0,c40 1000-1001/2 t40000/0/0,c40 1004-1004/1 "
	        "t40800/0/0,c40 1006-1006/1 t40800/0/0,c40 [1 40800] "
	        "t40800/0/0,c40 eos"};
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	struct trace t = {0};
	uint8_t buf[512];
	size_t size;
	int seg, blk;

	(void)state;
	for (seg = 0; seg < 4; seg++) {
		add(&t, ppt_psb);
		tsc(&t, 0x10000 * (uint64_t)(seg + 1));
		cbr(&t, (uint8_t)(0x10 * (seg + 1)));
		mode(&t, ptem_64bit);
		ip(&t, ppt_fup, 0x1000);
		add(&t, ppt_psbend);
		switch (seg) {
		case 0:
			/* Twice round the loop, then jmp rax to 9000:
			 * nothing mapped there. */
			tnt(&t, "tt");
			tsc(&t, 0x10800);
			tnt(&t, "nn");
			ip(&t, ppt_tip, 0x9000);
			tnt(&t, "tn");
			break;
		case 1:
			/* A CBR on the way; jmp rax to 1008: a bad
			 * instruction. */
			tnt(&t, "t");
			cbr(&t, 0x22);
			tnt(&t, "tnn");
			ip(&t, ppt_tip, 0x1008);
			tnt(&t, "nn");
			break;
		case 2:
			/* A TIP for the jz. */
			ip(&t, ppt_tip, 0x1004);
			tnt(&t, "t");
			break;
		default:
			/* Tracing ends at the jmp rax. */
			tnt(&t, "tn");
			tsc(&t, 0x40800);
			ip(&t, ppt_tip_pgd, 0x3000);
			break;
		}
	}
	size = encode(buf, sizeof(buf), &t);
	for (blk = 0; blk < 2; blk++) {
		struct run r[2];
		int used[2][8], i;

		memset(used, 0, sizeof(used));
		ptxed_run(&r[0], &s, buf, size, blk, 0, used[0]);
		ptxed_run(&r[1], &s, buf, size, blk, 1, used[1]);
		for (i = 0; i < 2; i++)
			if (strcmp(r[i].log, want[blk]))
				fail_msg("%s, %s path:\n  got      %s\n  "
				         "expected %s",
				         blk ? "blocks" : "instructions",
				         i ? "pull" : "batch", r[i].log,
				         want[blk]);
		for (i = 0; i < 4; i++) {
			assert_int_equal(used[0][i], 1);
			assert_int_equal(used[1][i], 0);
		}
	}
}

static void test_tick(void **state)
{
	struct setup s = {
	        .code = loop_code, .size = sizeof(loop_code), .base = 0x1000};
	struct trace t = {0};

	(void)state;
	add(&t, ppt_psb);
	tsc(&t, 0x1000);
	mode(&t, ptem_64bit);
	add(&t, ppt_psbend);
	ip(&t, ppt_tip_pge, 0x1000);
	tsc(&t, 0x2000);
	tnt(&t, "t");
	tnt(&t, "n");
	ip(&t, ppt_tip_pgd, 0x3000);
	s.flags.variant.insn.enable_tick_events = 1;
	expect(&s, &t,
	       "[enabled 1000] 1000 1001 [tick 1003 2000] 1004 1006 "
	       "[disabled 3000]",
	       NULL);
	s.flags.variant.block.enable_tick_events = 1;
	{
		struct run r;

		run(&r, &s, &t, 1);
		assert_string_equal(
		        r.log, "[enabled 1000] 1000-1001/2 [tick 1001 2000] "
		               "1004-1004/1 1006-1006/1 [disabled 3000]");
	}
}

/* An Event Trace interrupt (CFE with IP, FUP, TIP): ptev_interrupt at the
 * FUP IP; the TIP gives the target.  (libipt 2.0.5 knows no CFE: these are
 * ptdecode's expectations.) */
static void test_event_trace(void **state)
{
	uint8_t code[0x3000];
	struct setup s = {.code = code, .size = sizeof(code), .base = 0x1000};
	struct trace t = {0};
	struct pt_packet *p;

	(void)state;
	memset(code, 0x90, sizeof(code));
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	p = add(&t, ppt_cfe);
	p->payload.cfe.type = pt_cfe_intr;
	p->payload.cfe.vector = 14;
	p->payload.cfe.ip = 1;
	ip(&t, ppt_fup, 0x1003);
	ip(&t, ppt_tip, 0x2000);
	ip(&t, ppt_fup, 0x2001);
	ip(&t, ppt_tip_pgd, 0);
	expect(&s, &t,
	       "[enabled 1000] 1000 1001 1002 [event 23] 2000 "
	       "[async-disabled 2001]",
	       "[enabled 1000] 1000-1002/3 [event 23] 2000-2000/1 "
	       "[async-disabled 2001]");
}

/* The image changes between two pt_insn_next() calls: the decoder must not
 * go on with what it decoded from the old bytes.  Old code: 1000-1003 four
 * nops, 1004 jnz 1000; after the first pass (all of it decoded and cached)
 * the image gets a section over it with 1000 `66 90`, 1002 `66 90`, 1004
 * jnz 1000 (two-byte nops); the second pass must decode those. */
static void test_image_change(void **state)
{
	static const uint8_t old_code[] = {0x90, 0x90, 0x90, 0x90,
	                                   0x75, 0xfa, 0xf4};
	static const uint8_t new_code[] = {0x66, 0x90, 0x66, 0x90,
	                                   0x75, 0xfa, 0xf4};
	static const uint64_t first[] = {0x1000, 0x1001, 0x1002, 0x1003,
	                                 0x1004};
	static const uint64_t second[] = {0x1000, 0x1002, 0x1004};
	struct trace t = {0};
	struct pt_config config;
	struct pt_insn_decoder *dec;
	struct pt_image *image;
	struct pt_insn insn;
	uint8_t buf[256];
	size_t size, i;
	int status;

	(void)state;
	psb(&t, 0);
	ip(&t, ppt_tip_pge, 0x1000);
	tnt(&t, "tn");
	ip(&t, ppt_tip_pgd, 0x3000);
	size = encode(buf, sizeof(buf), &t);
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	image = pt_image_alloc("change");
	assert_non_null(image);
	assert_int_equal(ptd_image_add_buffer(image, old_code, sizeof(old_code),
	                                      NULL, 0x1000, 1),
	                 0);
	dec = pt_insn_alloc_decoder(&config);
	assert_non_null(dec);
	assert_int_equal(pt_insn_set_image(dec, image), 0);

	status = pt_insn_sync_forward(dec);
	while (status >= 0 && (status & pts_event_pending)) {
		struct pt_event ev;

		status = pt_insn_event(dec, &ev, sizeof(ev));
	}
	assert_true(status >= 0);
	for (i = 0; i < sizeof(first) / sizeof(first[0]); ++i) {
		assert_true(pt_insn_next(dec, &insn, sizeof(insn)) >= 0);
		assert_int_equal(insn.ip, first[i]);
		assert_int_equal(insn.size, i < 4 ? 1 : 2);
	}
	/* The newest section wins where sections overlap. */
	assert_int_equal(ptd_image_add_buffer(image, new_code, sizeof(new_code),
	                                      NULL, 0x1000, 1),
	                 0);
	for (i = 0; i < sizeof(second) / sizeof(second[0]); ++i) {
		assert_true(pt_insn_next(dec, &insn, sizeof(insn)) >= 0);
		assert_int_equal(insn.ip, second[i]);
		assert_int_equal(insn.size, 2);
		assert_int_equal(insn.raw[0], i < 2 ? 0x66 : 0x75);
	}
	pt_insn_free_decoder(dec);
	pt_image_free(image);
}

/* The sync offsets of @n pt_*_sync_backward() calls in a row (-1 for
 * -pte_eos) on a new instruction-flow (@blocks 0) or block decoder; with
 * @drain, the events after each are fetched; with @forward, that many
 * pt_*_sync_forward() calls come first. */
static void back_offsets(const uint8_t *buf, size_t size, int blocks, int drain,
                         int forward, int64_t *out, int n)
{
	struct pt_config config;
	struct pt_insn_decoder *id = NULL;
	struct pt_block_decoder *bd = NULL;
	int i;

	pt_config_init(&config);
	config.begin = (uint8_t *)buf;
	config.end = (uint8_t *)buf + size;
	if (blocks)
		bd = pt_blk_alloc_decoder(&config);
	else
		id = pt_insn_alloc_decoder(&config);
	assert_true(id || bd);
	for (i = 0; i < forward; i++)
		assert_true((blocks ? pt_blk_sync_forward(bd)
		                    : pt_insn_sync_forward(id)) >= 0);
	for (i = 0; i < n; i++) {
		uint64_t off = 0;
		int status = blocks ? pt_blk_sync_backward(bd)
		                    : pt_insn_sync_backward(id);

		if (status == -pte_eos) {
			out[i] = -1;
			continue;
		}
		assert_true(status >= 0);
		assert_int_equal(blocks ? pt_blk_get_sync_offset(bd, &off)
		                        : pt_insn_get_sync_offset(id, &off),
		                 0);
		out[i] = (int64_t)off;
		while (drain) {
			struct pt_event ev;

			if ((blocks ? pt_blk_event(bd, &ev, sizeof(ev))
			            : pt_insn_event(id, &ev, sizeof(ev))) < 0)
				break;
		}
	}
	pt_insn_free_decoder(id);
	pt_blk_free_decoder(bd);
}

/* A loop of backward synchronizations goes back PSB by PSB and ends with
 * -pte_eos before the first, as libipt's (until stop 25 ptdecode's flow
 * decoders, which read the PSB+ events to synchronize, found the same PSB
 * again and again; the same sequence from libipt 2.0.5's decoders), also
 * when the caller fetches the events after each (ptdecode's backward
 * synchronization announces them, libipt 2.0.5's does not).  After a
 * forward synchronization, which reads the PSB+'s events in both, the
 * first backward one goes to that PSB again, as libipt's does. */
static void test_sync_backward_loop(void **state)
{
	struct trace t = {0};
	uint8_t buf[256];
	size_t size;
	int64_t got[5];
	int blocks;

	(void)state;
	/* PSBs at 0, 0x1c and 0x38. */
	psb(&t, 0x1000);
	tnt(&t, "tt");
	psb(&t, 0x1000);
	tnt(&t, "tnt");
	psb(&t, 0x1002);
	ip(&t, ppt_tip_pgd, 0);
	size = encode(buf, sizeof(buf), &t);
	for (blocks = 0; blocks < 2; blocks++) {
		int drain;

		for (drain = 0; drain < 2; drain++) {
			back_offsets(buf, size, blocks, drain, 0, got, 5);
			assert_int_equal(got[0], 0x38);
			assert_int_equal(got[1], 0x1c);
			assert_int_equal(got[2], 0);
			assert_int_equal(got[3], -1);
			assert_int_equal(got[4], -1);
		}
		back_offsets(buf, size, blocks, 1, 2, got, 4);
		assert_int_equal(got[0], 0x1c);
		assert_int_equal(got[1], 0);
		assert_int_equal(got[2], -1);
		assert_int_equal(got[3], -1);
	}
}

/* The PSB offsets, in order, of the trace @buf of @size bytes (as forward
 * synchronizations of a query decoder find them) into @out; their count. */
static int psb_offsets(const uint8_t *buf, size_t size, uint64_t *out, int n)
{
	struct pt_config config;
	struct pt_query_decoder *q;
	int k = 0;

	pt_config_init(&config);
	config.begin = (uint8_t *)buf;
	config.end = (uint8_t *)buf + size;
	q = pt_qry_alloc_decoder(&config);
	assert_non_null(q);
	while (k < n) {
		uint64_t ip, off;
		int status = pt_qry_sync_forward(q, &ip);

		if (status == -pte_eos)
			break;
		if (pt_qry_get_sync_offset(q, &off) < 0)
			break;
		if (!k || off != out[k - 1])
			out[k++] = off;
	}
	pt_qry_free_decoder(q);
	return k;
}

/* A walk of backward synchronizations that decodes each segment in between
 * (events fetched, then pt_*_next() until an error) reaches the start and
 * ends with -pte_eos, also when the last segment fails right after its
 * PSB+ (a TIP.PGE cut off by the end of the buffer): after a backward
 * synchronization, the next one goes to the PSB before it, wherever the
 * decoder went since (libipt 2.0.5's gets there only because its first
 * pt_*_next() after a backward synchronization fails without moving;
 * docs/flow.md).  Each PSB is visited once, newest first. */
static void test_sync_backward_walk(void **state)
{
	int cut;

	(void)state;
	for (cut = 0; cut < 2; ++cut) {
		struct trace t = {0};
		uint8_t buf[256];
		uint64_t psbs[8];
		size_t size;
		int npsb, blocks;

		psb(&t, 0x1000);
		tnt(&t, "tttt");
		psb(&t, 0x1000);
		tnt(&t, "tttt");
		psb(&t, 0x1000);
		tnt(&t, "tt");
		if (cut) {
			/* A TIP.PGE after a PSB+ without FUP, cut short. */
			add(&t, ppt_psb);
			mode(&t, ptem_64bit);
			add(&t, ppt_psbend);
			t.tail[0] = 0x11; /* TIP.PGE, 16-bit IP: two more */
			t.tail[1] = 0x00;
			t.ntail = 2;
		}
		size = encode(buf, sizeof(buf), &t);
		npsb = psb_offsets(buf, size, psbs, 8);
		assert_int_equal(npsb, 3 + cut);
		for (blocks = 0; blocks < 2; ++blocks) {
			struct pt_insn_decoder *id = NULL;
			struct pt_block_decoder *bd = NULL;
			struct pt_config config;
			struct pt_image *image;
			int walk, seen = 0;

			pt_config_init(&config);
			config.begin = buf;
			config.end = buf + size;
			image = pt_image_alloc("walk");
			assert_non_null(image);
			assert_int_equal(ptd_image_add_buffer(image, loop_code,
			                                      sizeof(loop_code),
			                                      NULL, 0x1000, 1),
			                 0);
			if (blocks) {
				bd = pt_blk_alloc_decoder(&config);
				assert_int_equal(pt_blk_set_image(bd, image),
				                 0);
			} else {
				id = pt_insn_alloc_decoder(&config);
				assert_int_equal(pt_insn_set_image(id, image),
				                 0);
			}
			for (walk = 0; walk < 16; ++walk) {
				uint64_t off = 0;
				int status = blocks ? pt_blk_sync_backward(bd)
				                    : pt_insn_sync_backward(id);
				int k;

				if (status == -pte_eos)
					break;
				assert_int_equal(
				        blocks ? pt_blk_get_sync_offset(bd,
				                                        &off)
				               : pt_insn_get_sync_offset(id,
				                                         &off),
				        0);
				assert_true(seen < npsb);
				assert_int_equal(off, psbs[npsb - 1 - seen]);
				seen++;
				for (k = 0; k < 64 && status >= 0; ++k) {
					struct pt_event ev;
					struct pt_insn insn;
					struct pt_block block;

					if (status & pts_event_pending)
						status =
						        blocks ? pt_blk_event(
						                         bd,
						                         &ev,
						                         sizeof(ev))
						               : pt_insn_event(
						                         id,
						                         &ev,
						                         sizeof(ev));
					else
						status =
						        blocks ? pt_blk_next(
						                         bd,
						                         &block,
						                         sizeof(block))
						               : pt_insn_next(
						                         id,
						                         &insn,
						                         sizeof(insn));
				}
			}
			/* Every PSB, then the end. */
			assert_int_equal(seen, npsb);
			assert_true(walk < 16);
			pt_insn_free_decoder(id);
			pt_blk_free_decoder(bd);
			pt_image_free(image);
		}
	}
}

static void test_api(void **state)
{
	uint8_t buf[64];
	struct pt_config config;
	struct pt_insn_decoder *id;
	struct pt_block_decoder *bd;
	struct pt_insn insn;
	struct pt_block block;
	uint64_t offset;

	(void)state;
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + sizeof(buf);
	memset(buf, 0, sizeof(buf));

	assert_null(pt_insn_alloc_decoder(NULL));
	assert_null(pt_blk_alloc_decoder(NULL));
	id = pt_insn_alloc_decoder(&config);
	bd = pt_blk_alloc_decoder(&config);
	assert_non_null(id);
	assert_non_null(bd);

	assert_int_equal(pt_insn_sync_forward(NULL), -pte_invalid);
	assert_int_equal(pt_insn_sync_forward(id), -pte_eos);
	assert_int_equal(pt_blk_sync_forward(bd), -pte_eos);
	assert_int_equal(pt_insn_get_offset(id, &offset), -pte_nosync);
	assert_int_equal(pt_insn_next(id, NULL, sizeof(insn)), -pte_invalid);
	assert_int_equal(pt_insn_next(id, &insn, sizeof(insn)), -pte_no_enable);
	assert_int_equal(pt_blk_next(bd, &block, sizeof(block)),
	                 -pte_no_enable);
	assert_int_equal(pt_insn_event(id, &(struct pt_event){0},
	                               sizeof(struct pt_event)),
	                 -pte_bad_query);
	assert_non_null(pt_insn_get_image(id));
	assert_non_null(pt_blk_get_image(bd));
	assert_ptr_equal(pt_insn_get_config(id)->begin, buf);
	assert_ptr_equal(pt_blk_get_config(bd)->end, buf + sizeof(buf));
	assert_null(pt_insn_get_config(NULL));
	assert_int_equal(pt_insn_set_image(NULL, NULL), -pte_invalid);
	assert_int_equal(pt_insn_set_image(id, NULL), 0);
	assert_int_equal(pt_insn_asid(id, NULL, 0), -pte_invalid);
	pt_insn_free_decoder(id);
	pt_blk_free_decoder(bd);
	pt_insn_free_decoder(NULL);
	pt_blk_free_decoder(NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_cond_branches),
	        cmocka_unit_test(test_call_ret),
	        cmocka_unit_test(test_end_on_call_jump),
	        cmocka_unit_test(test_bad_retcomp),
	        cmocka_unit_test(test_retstack_depth),
	        cmocka_unit_test(test_far_mode_switch),
	        cmocka_unit_test(test_interrupt),
	        cmocka_unit_test(test_disable_enable),
	        cmocka_unit_test(test_tnt_after_disable_without_ip),
	        cmocka_unit_test(test_overflow),
	        cmocka_unit_test(test_paging),
	        cmocka_unit_test(test_asid),
	        cmocka_unit_test(test_tsx),
	        cmocka_unit_test(test_nomap_bad_insn),
	        cmocka_unit_test(test_nomap_isid),
	        cmocka_unit_test(test_sync_offset_after_error),
	        cmocka_unit_test(test_indirect_past_tnt),
	        cmocka_unit_test(test_end_status),
	        cmocka_unit_test(test_end_status_queries),
	        cmocka_unit_test(test_core_bus_ratio),
	        cmocka_unit_test(test_sync_after_eos),
	        cmocka_unit_test(test_ptxed_errors),
	        cmocka_unit_test(test_tick),
	        cmocka_unit_test(test_event_trace),
	        cmocka_unit_test(test_image_change),
	        cmocka_unit_test(test_sync_backward_loop),
	        cmocka_unit_test(test_sync_backward_walk),
	        cmocka_unit_test(test_api),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
