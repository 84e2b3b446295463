/* SPDX-License-Identifier: BSD-3-Clause */
/* flow_write: write a generated code + trace pair (flow_gen.h) as files for
 * the ptxed tests:
 *
 *	flow_write <seed> <steps> <dir>
 *
 * writes <dir>/code.bin (the code), trace.pt, truth.txt (the IP of every
 * traced instruction, %016x, one a line), base.txt (the load address),
 * code64.elf (an ELF64 executable whose PT_LOAD segment holds the code at
 * its address, after a PT_NOTE and before an empty .bss-like PT_LOAD),
 * pic64.elf (the same linked at 0x1000, to be loaded with :<base>) and,
 * when the code lies below 4 GiB, code32.elf (the same as ELF32).
 *
 *	flow_write --fuzz <seed> <steps> <config-byte> <file>
 *
 * writes one input of fuzz/fuzz_flow.c instead: the configuration byte (the
 * low 8 bits of <config>), the code size (2 bytes, little endian; bit 15 set
 * if <config> has bit 8, which once asked for offsets and which fuzz_flow
 * no longer uses: it runs both ways), the code (at 0x400000, at most 48
 * blocks) and the trace; fuzz/corpus/fuzz_flow/ holds such seeds. */
#include "flow_gen.h"

#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The code starts at this file offset in the ELF files. */
enum { flow_elf_code_offset = 0x1000 };

static int flow_write_file(const char *dir, const char *name, const void *a,
                           size_t asize, const void *b, size_t bsize)
{
	char path[4096];
	FILE *file;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	file = fopen(path, "wb");
	if (!file) {
		perror(path);
		return -1;
	}
	ok = (!asize || fwrite(a, asize, 1, file) == 1) &&
	     (!bsize || fwrite(b, bsize, 1, file) == 1);
	if (fclose(file) != 0 || !ok) {
		fprintf(stderr, "%s: write error\n", path);
		return -1;
	}
	return 0;
}

static int flow_write_elf64(const char *dir, const char *name,
                            const struct flow_gen *gen, uint64_t vaddr)
{
	uint8_t head[flow_elf_code_offset];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)(void *)head;
	Elf64_Phdr *ph = (Elf64_Phdr *)(void *)(head + sizeof(*eh));

	memset(head, 0, sizeof(head));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = vaddr;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 3;
	ph[0].p_type = PT_NOTE;
	ph[0].p_offset = 0x200;
	ph[0].p_filesz = 0x10;
	ph[1].p_type = PT_LOAD;
	ph[1].p_flags = PF_R | PF_X;
	ph[1].p_offset = flow_elf_code_offset;
	ph[1].p_vaddr = ph[1].p_paddr = vaddr;
	ph[1].p_filesz = ph[1].p_memsz = gen->code_size;
	ph[1].p_align = 0x1000;
	ph[2].p_type = PT_LOAD;
	ph[2].p_flags = PF_R | PF_W;
	ph[2].p_offset = flow_elf_code_offset;
	ph[2].p_vaddr = vaddr + 0x100000;
	ph[2].p_memsz = 0x1000;
	ph[2].p_align = 0x1000;
	return flow_write_file(dir, name, head, sizeof(head), gen->code,
	                       gen->code_size);
}

static int flow_write_elf32(const char *dir, const char *name,
                            const struct flow_gen *gen, uint32_t vaddr)
{
	uint8_t head[flow_elf_code_offset];
	Elf32_Ehdr *eh = (Elf32_Ehdr *)(void *)head;
	Elf32_Phdr *ph = (Elf32_Phdr *)(void *)(head + sizeof(*eh));

	memset(head, 0, sizeof(head));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS32;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_386;
	eh->e_version = EV_CURRENT;
	eh->e_entry = vaddr;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	ph[0].p_type = PT_LOAD;
	ph[0].p_flags = PF_R | PF_X;
	ph[0].p_offset = flow_elf_code_offset;
	ph[0].p_vaddr = ph[0].p_paddr = vaddr;
	ph[0].p_filesz = ph[0].p_memsz = (uint32_t)gen->code_size;
	ph[0].p_align = 0x1000;
	return flow_write_file(dir, name, head, sizeof(head), gen->code,
	                       gen->code_size);
}

/* --fuzz: one input of fuzz_flow. */
static int flow_write_fuzz(char *argv[])
{
	struct flow_gen gen;
	unsigned long cfg;
	uint8_t head[3];
	int err;

	if (flow_gen_at(&gen, strtoull(argv[0], NULL, 0),
	                (size_t)strtoull(argv[1], NULL, 0), 0x400000, 48) < 0) {
		fprintf(stderr, "flow_write: out of memory\n");
		return 1;
	}
	if (gen.code_size > 4096) {
		fprintf(stderr, "flow_write: %zu bytes of code\n",
		        gen.code_size);
		flow_gen_fini(&gen);
		return 1;
	}
	cfg = strtoul(argv[2], NULL, 0);
	head[0] = (uint8_t)cfg;
	head[1] = (uint8_t)gen.code_size;
	head[2] = (uint8_t)(gen.code_size >> 8);
	if (cfg & 0x100)
		head[2] |= 0x80;
	{
		FILE *file = fopen(argv[3], "wb");

		err = !file || fwrite(head, sizeof(head), 1, file) != 1 ||
		      fwrite(gen.code, gen.code_size, 1, file) != 1 ||
		      fwrite(gen.trace, gen.trace_size, 1, file) != 1;
		if (file && fclose(file) != 0)
			err = 1;
		if (err)
			fprintf(stderr, "flow_write: cannot write %s\n",
			        argv[3]);
	}
	flow_gen_fini(&gen);
	return err ? 1 : 0;
}

int main(int argc, char *argv[])
{
	struct flow_gen gen;
	char line[64], *truth;
	size_t i;
	int err = 0;

	if (argc == 6 && !strcmp(argv[1], "--fuzz"))
		return flow_write_fuzz(argv + 2);
	if (argc != 4) {
		fprintf(stderr,
		        "usage: %s <seed> <steps> <dir>\n"
		        "       %s --fuzz <seed> <steps> <config-byte> "
		        "<file>\n",
		        argv[0], argv[0]);
		return 2;
	}
	if (flow_gen(&gen, strtoull(argv[1], NULL, 0),
	             (size_t)strtoull(argv[2], NULL, 0)) < 0) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return 1;
	}
	truth = malloc(gen.ninsns * 17 + 1);
	if (!truth) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		flow_gen_fini(&gen);
		return 1;
	}
	for (i = 0; i < gen.ninsns; ++i)
		snprintf(truth + i * 17, 18, "%016" PRIx64 "\n", gen.insns[i]);
	snprintf(line, sizeof(line), "0x%" PRIx64 "\n", gen.base);
	err |= flow_write_file(argv[3], "code.bin", gen.code, gen.code_size,
	                       NULL, 0);
	err |= flow_write_file(argv[3], "trace.pt", gen.trace, gen.trace_size,
	                       NULL, 0);
	err |= flow_write_file(argv[3], "truth.txt", truth, gen.ninsns * 17,
	                       NULL, 0);
	err |= flow_write_file(argv[3], "base.txt", line, strlen(line), NULL,
	                       0);
	err |= flow_write_elf64(argv[3], "code64.elf", &gen, gen.base);
	err |= flow_write_elf64(argv[3], "pic64.elf", &gen, 0x1000);
	if (gen.base + gen.code_size <= UINT32_MAX)
		err |= flow_write_elf32(argv[3], "code32.elf", &gen,
		                        (uint32_t)gen.base);
	free(truth);
	flow_gen_fini(&gen);
	return err ? 1 : 0;
}
