/* See elf_text.h. */
#include "elf_text.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t *ptd_read_whole_file(const char *path, size_t *size)
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

int ptd_elf_find_text(const uint8_t *elf, size_t size, size_t *offset,
                      size_t *length, uint64_t *vaddr)
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
		if (vaddr)
			*vaddr = sh[i].sh_addr;
		return 0;
	}
	return -1;
}
