/* SPDX-License-Identifier: BSD-3-Clause */
/* Random, valid code + trace pairs for the flow decoders; see flow_gen.h. */
#include "flow_gen.h"

#include "intel-pt.h"

#include <stdlib.h>
#include <string.h>

/* How a basic block ends. */
enum flow_term {
	ft_fall,    /* no branch: on into the next block */
	ft_jcc,     /* JNZ rel32 */
	ft_jmp,     /* JMP rel32 */
	ft_call,    /* CALL rel32 */
	ft_ret,     /* RET */
	ft_jmpi,    /* JMP RAX */
	ft_calli,   /* CALL RAX */
	ft_syscall, /* SYSCALL, with the kernel not traced */
	ft_count
};

struct flow_block {
	uint64_t addr;
	uint32_t first; /* index of the first instruction in flow_prog.sizes */
	uint32_t ninsn; /* including the terminator, if any */
	uint8_t term;   /* enum flow_term */
	uint32_t target;
};

/* One entry of the walker's call stack. */
struct flow_frame {
	uint32_t block;      /* where the call returns to */
	uint32_t generation; /* compressible only in the same generation */
};

/* Everything the generator works with. */
struct flow_state {
	uint64_t rng;
	struct flow_gen *gen;

	struct flow_block *blocks;
	uint32_t nblocks;
	uint8_t *sizes; /* the size of every instruction */
	uint8_t *plain; /* the flow_plain index of every plain instruction */

	struct pt_encoder *encoder;
	size_t trace_cap;

	size_t insn_cap;

	struct flow_frame *stack;
	size_t depth, stack_cap;
	uint32_t generation;
	/* How many frames of this generation a decoder's return stack (64
	 * entries) still holds. */
	uint32_t held;

	uint64_t last_ip;
	uint64_t tnt_bits;
	uint8_t tnt_count, tnt_max;

	uint64_t tsc, ctc;
	int failed;

	/* flow_gen_at(): the load address (0: random) and the most blocks. */
	uint64_t base;
	uint32_t max_blocks;
	/* flow_gen_leaving(): per 1000 branches that can leave, how many do
	 * (0: none). */
	uint32_t leave_rate;
};

static uint64_t flow_rand(struct flow_state *s)
{
	/* xorshift64* */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545f4914f6cdd1dull;
}

static uint32_t flow_below(struct flow_state *s, uint32_t n)
{
	return (uint32_t)(flow_rand(s) % n);
}

/* The plain instructions: bytes, with immediates filled at random. */
static const struct {
	uint8_t size;
	uint8_t opcode_len;
	uint8_t bytes[5];
} flow_plain[] = {
        {1, 1, {0x90}},                         /* nop */
        {1, 1, {0x53}},                         /* push rbx */
        {1, 1, {0x5b}},                         /* pop rbx */
        {2, 2, {0x31, 0xc0}},                   /* xor eax, eax */
        {3, 3, {0x48, 0x01, 0xd8}},             /* add rax, rbx */
        {4, 3, {0x48, 0x83, 0xc0}},             /* add rax, imm8 */
        {5, 1, {0xb8}},                         /* mov eax, imm32 */
        {5, 5, {0x0f, 0x1f, 0x44, 0x00, 0x00}}, /* nop dword [rax+rax+0] */
        {6, 2, {0x81, 0xc1}},                   /* add ecx, imm32 */
        {7, 3, {0x48, 0x8d, 0x05}},             /* lea rax, [rip+disp32] */
        {10, 2, {0x48, 0xb9}},                  /* mov rcx, imm64 */
};

static void flow_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Lay out the blocks and write the code. */
static int flow_make_code(struct flow_state *s)
{
	static const uint8_t weights[ft_count] = {10, 30, 10, 12, 10, 8, 6, 4};
	struct flow_gen *gen = s->gen;
	uint32_t b, n = 8 + flow_below(s, s->max_blocks - 7), ninsn = 0;
	uint32_t total = 0;
	uint64_t addr;

	s->nblocks = n;
	s->blocks = calloc(n, sizeof(*s->blocks));
	s->sizes = malloc((size_t)n * 7);
	s->plain = malloc((size_t)n * 7);
	if (!s->blocks || !s->sizes || !s->plain)
		return -1;
	switch (s->base ? 3 : flow_below(s, 3)) {
	case 3:
		gen->base = s->base;
		break;
	case 0:
		gen->base = 0x400000 + 0x1000ull * flow_below(s, 256);
		break;
	case 1:
		gen->base = 0x7ffff7800000ull + 0x1000ull * flow_below(s, 256);
		break;
	default:
		gen->base =
		        0xffffffff81000000ull + 0x1000ull * flow_below(s, 16);
		break;
	}

	/* The structure and the sizes. */
	addr = gen->base;
	for (b = 0; b < n; ++b) {
		struct flow_block *blk = &s->blocks[b];
		uint32_t nbody = flow_below(s, 6), i, w = 0, pick;

		for (i = 0; i < ft_count; ++i)
			w += weights[i];
		pick = flow_below(s, w);
		for (i = 0; pick >= weights[i]; ++i)
			pick -= weights[i];
		blk->term = (uint8_t)i;
		if (b == n - 1 && blk->term != ft_jmp && blk->term != ft_ret &&
		    blk->term != ft_jmpi)
			blk->term = ft_jmp;
		blk->target = flow_below(s, n);
		if (blk->term == ft_call && blk->target == b + 1)
			blk->target = 0;
		blk->addr = addr;
		blk->first = ninsn;
		for (i = 0; i < nbody; ++i) {
			uint32_t k = flow_below(
			        s, sizeof(flow_plain) / sizeof(flow_plain[0]));

			s->plain[ninsn] = (uint8_t)k;
			s->sizes[ninsn++] = flow_plain[k].size;
			addr += flow_plain[k].size;
		}
		if (blk->term != ft_fall) {
			static const uint8_t term_size[ft_count] = {0, 6, 5, 5,
			                                            1, 2, 2, 2};

			s->sizes[ninsn++] = term_size[blk->term];
			addr += term_size[blk->term];
		}
		blk->ninsn = ninsn - blk->first;
		/* A block with no instruction at all falls into the next
		 * one at the same address, which is fine. */
	}
	total = (uint32_t)(addr - gen->base);

	/* The bytes. */
	gen->code = malloc(total ? total : 1);
	if (!gen->code)
		return -1;
	gen->code_size = total;
	for (b = 0; b < n; ++b) {
		struct flow_block *blk = &s->blocks[b];
		uint8_t *p = gen->code + (blk->addr - gen->base);
		uint32_t i, nbody = blk->ninsn - (blk->term != ft_fall);

		for (i = 0; i < nbody; ++i) {
			uint8_t k = s->plain[blk->first + i], j;

			memcpy(p, flow_plain[k].bytes,
			       flow_plain[k].opcode_len);
			for (j = flow_plain[k].opcode_len;
			     j < flow_plain[k].size; ++j)
				p[j] = (uint8_t)flow_rand(s);
			p += flow_plain[k].size;
		}
		if (blk->term != ft_fall) {
			uint64_t next =
			        blk->addr +
			        (uint64_t)(p - (gen->code +
			                        (blk->addr - gen->base)));
			uint64_t target = s->blocks[blk->target].addr;

			switch (blk->term) {
			case ft_jcc:
				p[0] = 0x0f;
				p[1] = 0x85;
				flow_put32(p + 2,
				           (uint32_t)(target - (next + 6)));
				break;
			case ft_jmp:
			case ft_call:
				p[0] = blk->term == ft_jmp ? 0xe9 : 0xe8;
				flow_put32(p + 1,
				           (uint32_t)(target - (next + 5)));
				break;
			case ft_ret:
				p[0] = 0xc3;
				break;
			case ft_jmpi:
			case ft_calli:
				p[0] = 0xff;
				p[1] = blk->term == ft_jmpi ? 0xe0 : 0xd0;
				break;
			case ft_syscall:
				p[0] = 0x0f;
				p[1] = 0x05;
				break;
			}
		}
	}
	return 0;
}

/* Append one packet. */
static void flow_emit(struct flow_state *s, const struct pt_packet *packet)
{
	if (!s->failed && pt_enc_next(s->encoder, packet) < 0)
		s->failed = 1;
}

static void flow_emit_type(struct flow_state *s, enum pt_packet_type type)
{
	struct pt_packet packet;

	memset(&packet, 0, sizeof(packet));
	packet.type = type;
	flow_emit(s, &packet);
}

/* A CYC or MTC now and then (only between other packets). */
static void flow_timing(struct flow_state *s)
{
	struct pt_packet packet;

	memset(&packet, 0, sizeof(packet));
	if (flow_below(s, 16) == 0) {
		s->ctc += (1u << s->gen->mtc_freq) * (1 + flow_below(s, 3));
		packet.type = ppt_mtc;
		packet.payload.mtc.ctc = (uint8_t)(s->ctc >> s->gen->mtc_freq);
		flow_emit(s, &packet);
	}
	if (flow_below(s, 8) == 0) {
		packet.type = ppt_cyc;
		packet.payload.cyc.value = 1 + flow_below(s, 300);
		flow_emit(s, &packet);
	}
}

static void flow_flush_tnt(struct flow_state *s)
{
	struct pt_packet packet;

	if (!s->tnt_count)
		return;
	flow_timing(s);
	memset(&packet, 0, sizeof(packet));
	packet.type = s->tnt_max > 6 ? ppt_tnt_64 : ppt_tnt_8;
	packet.payload.tnt.bit_size = s->tnt_count;
	packet.payload.tnt.payload = s->tnt_bits;
	flow_emit(s, &packet);
	s->tnt_count = 0;
	s->tnt_bits = 0;
}

static void flow_tnt(struct flow_state *s, int taken)
{
	if (!s->tnt_count)
		s->tnt_max = flow_below(s, 4) ? 6 : 47;
	s->tnt_bits = (s->tnt_bits << 1) | (taken ? 1 : 0);
	s->tnt_count += 1;
	if (s->tnt_count == s->tnt_max)
		flow_flush_tnt(s);
}

/* An IP packet with a random valid compression. */
static void flow_ip_packet(struct flow_state *s, enum pt_packet_type type,
                           uint64_t ip, int full)
{
	enum pt_ip_compression options[5];
	struct pt_packet packet;
	unsigned n = 0;

	flow_flush_tnt(s);
	flow_timing(s);
	options[n++] = pt_ipc_full;
	if (!full) {
		uint64_t diff = ip ^ s->last_ip;

		if (!(diff >> 48))
			options[n++] = pt_ipc_update_48;
		if (!(diff >> 32))
			options[n++] = pt_ipc_update_32;
		if (!(diff >> 16))
			options[n++] = pt_ipc_update_16;
		if ((uint64_t)((int64_t)(ip << 16) >> 16) == ip)
			options[n++] = pt_ipc_sext_48;
	}
	memset(&packet, 0, sizeof(packet));
	packet.type = type;
	packet.payload.ip.ipc = options[flow_below(s, n)];
	switch (packet.payload.ip.ipc) {
	case pt_ipc_update_16:
		packet.payload.ip.ip = ip & 0xffff;
		break;
	case pt_ipc_update_32:
		packet.payload.ip.ip = ip & 0xffffffffull;
		break;
	case pt_ipc_update_48:
	case pt_ipc_sext_48:
		packet.payload.ip.ip = ip & 0xffffffffffffull;
		break;
	default:
		packet.payload.ip.ip = ip;
		break;
	}
	flow_emit(s, &packet);
	s->last_ip = ip;
}

static void flow_ip_suppressed(struct flow_state *s, enum pt_packet_type type)
{
	struct pt_packet packet;

	flow_flush_tnt(s);
	memset(&packet, 0, sizeof(packet));
	packet.type = type;
	packet.payload.ip.ipc = pt_ipc_suppressed;
	flow_emit(s, &packet);
}

static void flow_mode_exec(struct flow_state *s)
{
	struct pt_packet packet;

	memset(&packet, 0, sizeof(packet));
	packet.type = ppt_mode;
	packet.payload.mode.leaf = pt_mol_exec;
	packet.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	flow_emit(s, &packet);
}

/* PSB+; with @ip (tracing on) a FUP at @ip. */
static void flow_psb(struct flow_state *s, const uint64_t *ip)
{
	struct pt_packet packet;

	flow_flush_tnt(s);
	flow_emit_type(s, ppt_psb);
	s->last_ip = 0;
	memset(&packet, 0, sizeof(packet));
	if (flow_below(s, 2)) {
		s->tsc += 1000 + flow_below(s, 100000);
		packet.type = ppt_tsc;
		packet.payload.tsc.tsc = s->tsc;
		flow_emit(s, &packet);
		packet.type = ppt_tma;
		packet.payload.tma.ctc = (uint16_t)s->ctc;
		packet.payload.tma.fc = (uint16_t)flow_below(s, 512);
		flow_emit(s, &packet);
	}
	packet.type = ppt_cbr;
	packet.payload.cbr.ratio = (uint8_t)(8 + flow_below(s, 30));
	flow_emit(s, &packet);
	if (ip) {
		flow_mode_exec(s);
		flow_ip_packet(s, ppt_fup, *ip, flow_below(s, 2));
	}
	flow_emit_type(s, ppt_psbend);
	/* After PSB+, returns are no longer compressed against earlier
	 * calls. */
	s->generation += 1;
	s->held = 0;
}

static int flow_record(struct flow_state *s, uint64_t ip)
{
	struct flow_gen *gen = s->gen;

	if (gen->ninsns == s->insn_cap) {
		size_t cap = s->insn_cap ? 2 * s->insn_cap : 1024;
		uint64_t *insns = realloc(gen->insns, cap * sizeof(*insns));

		if (!insns)
			return -1;
		gen->insns = insns;
		s->insn_cap = cap;
	}
	gen->insns[gen->ninsns++] = ip;
	return 0;
}

static int flow_push(struct flow_state *s, uint32_t ret_block)
{
	if (s->depth == s->stack_cap) {
		size_t cap = s->stack_cap ? 2 * s->stack_cap : 64;
		struct flow_frame *st = realloc(s->stack, cap * sizeof(*st));

		if (!st)
			return -1;
		s->stack = st;
		s->stack_cap = cap;
	}
	s->stack[s->depth].block = ret_block;
	s->stack[s->depth].generation = s->generation;
	s->depth += 1;
	if (s->held < 64)
		s->held += 1;
	return 0;
}

/* Walk the program and write the trace. */
/* Tracing comes back at block @b (a TIP.PGE, sometimes after a MODE.Exec):
 * no return is compressible across it. */
static void flow_enable_at(struct flow_state *s, uint32_t b)
{
	if (flow_below(s, 2))
		flow_mode_exec(s);
	flow_ip_packet(s, ppt_tip_pge, s->blocks[b].addr, 0);
	s->generation += 1;
	s->held = 0;
}

static int flow_walk(struct flow_state *s, size_t steps)
{
	uint32_t b = 0;
	size_t done = 0;
	/* Whether the decoder got here by consuming a packet (TNT, TIP, ...).
	 * Only then can an asynchronous event (FUP) bind at this IP without
	 * ambiguity: after a direct branch, the decoder may pass the same IP
	 * earlier than meant. */
	int via_packet = 1;
	/* The instructions up to the last one that consumed a packet: where a
	 * trace that is just cut off ends for a decoder. */
	size_t mark = 0;

	flow_psb(s, NULL);
	flow_mode_exec(s);
	flow_ip_packet(s, ppt_tip_pge, s->blocks[0].addr, 0);

	while (done < steps && !s->failed) {
		struct flow_block *blk = &s->blocks[b];
		uint64_t ip = blk->addr;
		uint32_t i, r = via_packet ? flow_below(s, 1000) : 1000;

		/* Something at the start of the block? */
		if (r < 8) {
			flow_psb(s, &ip);
		} else if (r < 14) {
			/* An interrupt before @ip. */
			b = flow_below(s, s->nblocks);
			flow_ip_packet(s, ppt_fup, ip, 0);
			flow_ip_packet(s, ppt_tip, s->blocks[b].addr, 0);
			mark = s->gen->ninsns;
			continue;
		} else if (r < 18) {
			/* Disabled before @ip, enabled somewhere else. */
			flow_ip_packet(s, ppt_fup, ip, 0);
			flow_ip_suppressed(s, ppt_tip_pgd);
			b = flow_below(s, s->nblocks);
			flow_enable_at(s, b);
			mark = s->gen->ninsns;
			continue;
		} else if (r < 21) {
			/* An overflow: a stretch without packets, then OVF
			 * and the IP where tracing goes on. */
			flow_flush_tnt(s);
			b = flow_below(s, s->nblocks);
			flow_emit_type(s, ppt_ovf);
			flow_ip_packet(s, ppt_fup, s->blocks[b].addr, 1);
			s->generation += 1;
			s->held = 0;
			mark = s->gen->ninsns;
			continue;
		}

		for (i = 0; i < blk->ninsn; ++i) {
			if (flow_record(s, ip) < 0)
				return -1;
			ip += s->sizes[blk->first + i];
		}
		done += blk->ninsn;
		via_packet = blk->term != ft_fall && blk->term != ft_jmp &&
		             blk->term != ft_call;
		if (!blk->ninsn)
			via_packet = 0;
		if (via_packet)
			mark = s->gen->ninsns;

		/* Tracing leaves through the branch: its target lies outside
		 * the traced code (a library call through the PLT, say), so
		 * a TIP.PGD with that target ends its trace, and a TIP.PGE
		 * brings tracing back: after an indirect call at its return
		 * address (the callee returned untraced), else anywhere. */
		if (s->leave_rate && blk->ninsn &&
		    (blk->term == ft_jcc || blk->term == ft_calli ||
		     blk->term == ft_ret || blk->term == ft_jmpi) &&
		    flow_below(s, 1000) < s->leave_rate) {
			const struct flow_block *last =
			        &s->blocks[s->nblocks - 1];

			flow_ip_packet(s, ppt_tip_pgd, last->addr + 0x100000,
			               0);
			if (blk->term == ft_ret && s->depth)
				s->depth -= 1;
			if (blk->term == ft_calli && b + 1 < s->nblocks)
				b += 1;
			else
				b = flow_below(s, s->nblocks);
			flow_enable_at(s, b);
			continue;
		}

		switch (blk->term) {
		case ft_fall:
			b += 1;
			break;
		case ft_jcc:
			if (flow_below(s, 2)) {
				flow_tnt(s, 1);
				b = blk->target;
			} else {
				flow_tnt(s, 0);
				b += 1;
			}
			break;
		case ft_jmp:
			b = blk->target;
			break;
		case ft_call:
			/* A call to the next instruction (an empty block may
			 * lie between) pushes nothing for return compression,
			 * as the decoders take it. */
			if (s->blocks[blk->target].addr !=
			            s->blocks[b + 1].addr &&
			    flow_push(s, b + 1) < 0)
				return -1;
			b = blk->target;
			break;
		case ft_calli:
			if (flow_push(s, b + 1) < 0)
				return -1;
			b = flow_below(s, s->nblocks);
			flow_ip_packet(s, ppt_tip, s->blocks[b].addr, 0);
			break;
		case ft_ret:
			if (s->depth) {
				struct flow_frame f = s->stack[--s->depth];

				b = f.block;
				if (f.generation == s->generation && s->held &&
				    flow_below(s, 8)) {
					flow_tnt(s, 1);
					s->held -= 1;
				} else {
					flow_ip_packet(s, ppt_tip,
					               s->blocks[b].addr, 0);
					s->generation += 1;
					s->held = 0;
				}
			} else {
				b = flow_below(s, s->nblocks);
				flow_ip_packet(s, ppt_tip, s->blocks[b].addr,
				               0);
			}
			break;
		case ft_jmpi:
			b = flow_below(s, s->nblocks);
			flow_ip_packet(s, ppt_tip, s->blocks[b].addr, 0);
			break;
		case ft_syscall:
			b += 1;
			flow_ip_suppressed(s, ppt_tip_pgd);
			flow_enable_at(s, b);
			break;
		}
	}

	/* The end: disabled before the next instruction, or just cut off. */
	if (via_packet && flow_below(s, 5)) {
		flow_ip_packet(s, ppt_fup, s->blocks[b].addr, 0);
		flow_ip_suppressed(s, ppt_tip_pgd);
	} else {
		flow_flush_tnt(s);
		s->gen->ninsns = mark;
	}
	return s->failed ? -1 : 0;
}

static int flow_generate(struct flow_gen *gen, uint64_t seed, size_t steps,
                         uint64_t base, uint32_t max_blocks,
                         uint32_t leave_rate);

int flow_gen(struct flow_gen *gen, uint64_t seed, size_t steps)
{
	return flow_generate(gen, seed, steps, 0, 127, 0);
}

int flow_gen_leaving(struct flow_gen *gen, uint64_t seed, size_t steps,
                     uint32_t rate)
{
	return flow_generate(gen, seed, steps, 0, 127, rate);
}

int flow_gen_at(struct flow_gen *gen, uint64_t seed, size_t steps,
                uint64_t base, uint32_t max_blocks)
{
	return flow_generate(gen, seed, steps, base, max_blocks, 0);
}

static int flow_generate(struct flow_gen *gen, uint64_t seed, size_t steps,
                         uint64_t base, uint32_t max_blocks,
                         uint32_t leave_rate)
{
	struct flow_state s;
	struct pt_config config;
	int err = -1;

	memset(gen, 0, sizeof(*gen));
	memset(&s, 0, sizeof(s));
	s.gen = gen;
	s.base = base;
	s.max_blocks = max_blocks < 8 ? 8 : max_blocks;
	s.leave_rate = leave_rate;
	s.rng = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	if (!s.rng)
		s.rng = 1;
	gen->mtc_freq = 3;
	gen->nom_freq = 12;
	gen->cpuid_0x15_eax = 2;
	gen->cpuid_0x15_ebx = 100;
	s.tsc = 0x100000;

	if (flow_make_code(&s) < 0)
		goto out;

	s.trace_cap = 4096 + steps * 64;
	gen->trace = malloc(s.trace_cap);
	if (!gen->trace)
		goto out;
	pt_config_init(&config);
	config.begin = gen->trace;
	config.end = gen->trace + s.trace_cap;
	s.encoder = pt_alloc_encoder(&config);
	if (!s.encoder)
		goto out;
	if (flow_walk(&s, steps) < 0)
		goto out;
	{
		uint64_t offset = 0;

		if (pt_enc_get_offset(s.encoder, &offset) < 0)
			goto out;
		gen->trace_size = (size_t)offset;
	}
	err = 0;
out:
	pt_free_encoder(s.encoder);
	free(s.blocks);
	free(s.sizes);
	free(s.plain);
	free(s.stack);
	if (err < 0)
		flow_gen_fini(gen);
	return err;
}

void flow_gen_fini(struct flow_gen *gen)
{
	free(gen->code);
	free(gen->trace);
	free(gen->insns);
	memset(gen, 0, sizeof(*gen));
}
