/* SPDX-License-Identifier: BSD-3-Clause */
/* ild_bench: nanoseconds per instruction of lib/ild's ptd_ild_decode() and
 * of the Zydis 4 decoding modes beneath it, over every instruction of an
 * ELF file's .text (default: the C library), decoded in 64-bit mode.
 *
 *   ild_bench [--file <elf>] [--reps <n>] [--smoke]
 *
 * Each variant decodes the same instruction starts (found once by a linear
 * decode) in order, as a flow decoder would walk code without a block
 * cache; each repetition times one pass over all of them.  Prints the best
 * and the median repetition per variant, in thread CPU time (the machine
 * may be shared).  See docs/ild.md. */
#define _POSIX_C_SOURCE 200809L

#include "ild/ild.h"

#include <Zydis/Zydis.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *file = fopen(path, "rb");
	uint8_t *buf = NULL;
	long end;

	if (!file)
		return NULL;
	if (fseek(file, 0, SEEK_END) == 0 && (end = ftell(file)) > 0 &&
	    fseek(file, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)end);
		if (buf && fread(buf, 1, (size_t)end, file) != (size_t)end) {
			free(buf);
			buf = NULL;
		}
		*size = (size_t)end;
	}
	fclose(file);
	return buf;
}

static int find_text(const uint8_t *elf, size_t size, size_t *offset,
                     size_t *length)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
	const Elf64_Shdr *sh, *strtab;
	unsigned i;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(*sh) || eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(*sh) < eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum)
		return -1;
	sh = (const Elf64_Shdr *)(elf + eh->e_shoff);
	strtab = &sh[eh->e_shstrndx];
	for (i = 0; i < eh->e_shnum; ++i) {
		size_t name = strtab->sh_offset + sh[i].sh_name;

		if (name + 6 > size || memcmp(elf + name, ".text", 6) != 0)
			continue;
		if (sh[i].sh_offset > size || sh[i].sh_size > size ||
		    sh[i].sh_offset + sh[i].sh_size > size)
			return -1;
		*offset = sh[i].sh_offset;
		*length = sh[i].sh_size;
		return 0;
	}
	return -1;
}

enum variant {
	v_ild,         /* ptd_ild_decode() */
	v_zy_minimal,  /* ZydisDecoderDecodeInstruction, minimal mode */
	v_zy_full,     /* ZydisDecoderDecodeInstruction, full mode */
	v_zy_operands, /* ZydisDecoderDecodeFull (with operands) */
	v_count
};

static const char *const variant_name[v_count] = {
        "ptd_ild_decode (Zydis minimal + class)",
        "Zydis minimal, DecodeInstruction",
        "Zydis full, DecodeInstruction",
        "Zydis full, DecodeFull (operands)",
};

struct bench {
	const uint8_t *text;
	size_t size;
	uint32_t *starts;
	size_t n;
	struct ptd_ild_ctx *ctx;
	ZydisDecoder minimal, full;
};

/* One pass over every instruction; returns a checksum of the lengths (and
 * classes) so that nothing is optimized away. */
static unsigned long run_pass(const struct bench *b, enum variant v)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction zi;
	struct ptd_ild insn;
	unsigned long sum = 0;
	size_t i;

	for (i = 0; i < b->n; ++i) {
		const uint8_t *code = b->text + b->starts[i];
		size_t avail = b->size - b->starts[i];

		switch (v) {
		case v_ild:
			if (ptd_ild_decode(b->ctx, &insn, code, avail,
			                   ptem_64bit) == 0)
				sum += insn.size + insn.iclass;
			break;
		case v_zy_minimal:
			if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
			            &b->minimal, NULL, code,
			            avail > 15 ? 15 : avail, &zi)))
				sum += zi.length;
			break;
		case v_zy_full:
			if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
			            &b->full, NULL, code,
			            avail > 15 ? 15 : avail, &zi)))
				sum += zi.length;
			break;
		case v_zy_operands:
			if (ZYAN_SUCCESS(ZydisDecoderDecodeFull(
			            &b->full, code, avail > 15 ? 15 : avail,
			            &zi, ops)))
				sum += zi.length;
			break;
		case v_count:
			break;
		}
	}
	return sum;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *path = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	unsigned reps = 15, r;
	int smoke = 0, i;
	size_t size = 0, offset, pos;
	struct bench b;
	uint8_t *elf;
	double *times;
	unsigned long check[v_count];

	for (i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--file") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--smoke") == 0)
			smoke = 1;
		else {
			fprintf(stderr,
			        "usage: %s [--file <elf>] [--reps <n>] "
			        "[--smoke]\n",
			        argv[0]);
			return 2;
		}
	}
	if (smoke)
		reps = 1;
	if (!reps)
		reps = 1;

	memset(&b, 0, sizeof(b));
	elf = read_file(path, &size);
	if (!elf) {
		fprintf(stderr, "%s: cannot read; skipped\n", path);
		return 77;
	}
	if (find_text(elf, size, &offset, &b.size) < 0) {
		fprintf(stderr, "%s: no .text section\n", path);
		free(elf);
		return 1;
	}
	b.text = elf + offset;
	if (smoke && b.size > 65536)
		b.size = 65536;
	b.ctx = ptd_ild_alloc();
	b.starts = malloc((b.size + 1) * sizeof(*b.starts));
	times = malloc(reps * sizeof(*times));
	if (!b.ctx || !b.starts || !times ||
	    !ZYAN_SUCCESS(ZydisDecoderInit(&b.minimal,
	                                   ZYDIS_MACHINE_MODE_LONG_64,
	                                   ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderEnableMode(
	            &b.minimal, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE)) ||
	    !ZYAN_SUCCESS(ZydisDecoderInit(&b.full, ZYDIS_MACHINE_MODE_LONG_64,
	                                   ZYDIS_STACK_WIDTH_64))) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}

	/* The instruction starts of a linear decode. */
	for (pos = 0; pos < b.size;) {
		struct ptd_ild insn;

		if (ptd_ild_decode(b.ctx, &insn, b.text + pos, b.size - pos,
		                   ptem_64bit) == 0) {
			b.starts[b.n++] = (uint32_t)pos;
			pos += insn.size;
		} else
			pos += 1;
	}
	printf("%s: .text %zu bytes, %zu instructions, %u repetitions\n", path,
	       b.size, b.n, reps);
	printf("%-40s %10s %10s\n", "variant", "best ns", "median ns");

	for (i = 0; i < v_count; ++i) {
		check[i] = run_pass(&b, (enum variant)i); /* warm up */
		for (r = 0; r < reps; ++r) {
			double t0 = now_ns();

			if (run_pass(&b, (enum variant)i) != check[i]) {
				fprintf(stderr, "%s: unstable\n",
				        variant_name[i]);
				return 1;
			}
			times[r] = (now_ns() - t0) / (double)b.n;
		}
		qsort(times, reps, sizeof(*times), cmp_double);
		printf("%-40s %10.2f %10.2f\n", variant_name[i], times[0],
		       times[reps / 2]);
	}

	ptd_ild_free(b.ctx);
	free(b.starts);
	free(times);
	free(elf);
	return 0;
}
