/* SPDX-License-Identifier: BSD-3-Clause */
/* Random, valid code + trace pairs for the flow decoders.
 *
 * flow_gen() lays out a random control-flow graph of basic blocks as 64-bit
 * x86 code (plain instructions of 1 to 10 bytes, then a Jcc, JMP or CALL
 * rel32, RET, JMP/CALL RAX, SYSCALL or nothing), walks it from its entry
 * and writes the Intel PT trace of that walk with ptdecode's encoder:
 * TNT-8/TNT-64 for conditional branches and compressed returns, TIP with
 * every IP compression for indirect branches and uncompressed returns,
 * TIP.PGD/TIP.PGE around SYSCALLs (the kernel is not traced), asynchronous
 * disables (FUP + TIP.PGD) and re-enables, interrupts (FUP + TIP), overflows
 * (OVF + FUP after a stretch without packets), PSB+ at instruction
 * boundaries with FUP and MODE.Exec, and timing packets (TSC, TMA, CBR,
 * MTC, CYC).  It also records the instructions that executed while traced,
 * as the ground truth for a decoder.  Everything follows from the seed. */
#ifndef PTD_FLOW_GEN_H
#define PTD_FLOW_GEN_H

#include <stddef.h>
#include <stdint.h>

/* A generated program and its trace. */
struct flow_gen {
	/* The code, to be loaded at @base. */
	uint8_t *code;
	size_t code_size;
	uint64_t base;

	/* The trace. */
	uint8_t *trace;
	size_t trace_size;

	/* The IP of every instruction that executed while traced, in order
	 * (the instructions skipped by an overflow are not in it). */
	uint64_t *insns;
	size_t ninsns;

	/* The timing configuration the trace was written for. */
	uint8_t mtc_freq;
	uint8_t nom_freq;
	uint32_t cpuid_0x15_eax, cpuid_0x15_ebx;
};

/* Generate the pair for @seed with about @steps instructions.  Returns 0,
 * or -1 if memory runs out. */
int flow_gen(struct flow_gen *gen, uint64_t seed, size_t steps);

/* The same with the code at @base and at most @max_blocks basic blocks
 * (at least 8; 56 bytes of code each at most), for inputs of bounded size
 * such as the fuzz seeds. */
int flow_gen_at(struct flow_gen *gen, uint64_t seed, size_t steps,
                uint64_t base, uint32_t max_blocks);

/* flow_gen() whose walk also leaves the traced code through branches: at
 * @rate per 1000 of its conditional branches, indirect jumps and calls and
 * returns, a TIP.PGD with a target outside the code binds to the branch,
 * and a TIP.PGE brings tracing back (after an indirect call at its return
 * address, as after an untraced library call; else at a random block).
 * The instructions recorded are those of flow_gen()'s walk up to each
 * such branch. */
int flow_gen_leaving(struct flow_gen *gen, uint64_t seed, size_t steps,
                     uint32_t rate);

/* Free what @gen holds. */
void flow_gen_fini(struct flow_gen *gen);

#endif /* PTD_FLOW_GEN_H */
