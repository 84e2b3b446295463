/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: loading the PT_LOAD segments of an ELF file; see load_elf.h. */
#define _POSIX_C_SOURCE 200809L /* fseeko, fork, mkstemp */

#include "load_elf.h"
#include "load.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One PT_LOAD segment, whatever the ELF class. */
struct ptxed_segment {
	uint64_t offset, filesz, vaddr;
};

/* Read @size bytes at @offset of @file into @buf.  Returns 0 or -1. */
static int ptxed_pread(FILE *file, uint64_t offset, void *buf, size_t size)
{
	if (fseeko(file, (off_t)offset, SEEK_SET) != 0)
		return -1;
	return fread(buf, size, 1, file) == 1 ? 0 : -1;
}

/* Read the program headers into @segs (room for @max).  Returns the number
 * of PT_LOAD segments with file bytes, or -1 after a message. */
static int ptxed_elf_segments(FILE *file, const char *name, uint64_t fsize,
                              struct ptxed_segment **psegs, const char *prog,
                              int flags)
{
	unsigned char ident[EI_NIDENT];
	uint64_t phoff, phentsize, phnum, i;
	struct ptxed_segment *segs;
	int is64, n = 0;

	if (ptxed_pread(file, 0, ident, sizeof(ident)) < 0 ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0) {
		fprintf(stderr, "%s: %s: not an ELF file (offset 0).\n", prog,
		        name);
		return -1;
	}
	if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "%s: %s: bad ELF class %u (offset %d).\n", prog,
		        name, ident[EI_CLASS], EI_CLASS);
		return -1;
	}
	if (ident[EI_DATA] != ELFDATA2LSB) {
		fprintf(stderr,
		        "%s: %s: not a little-endian ELF file (offset %d).\n",
		        prog, name, EI_DATA);
		return -1;
	}
	is64 = ident[EI_CLASS] == ELFCLASS64;
	if (is64) {
		Elf64_Ehdr eh;

		if (ptxed_pread(file, 0, &eh, sizeof(eh)) < 0)
			goto truncated;
		phoff = eh.e_phoff;
		phentsize = eh.e_phentsize;
		phnum = eh.e_phnum;
		if (phnum && phentsize < sizeof(Elf64_Phdr))
			goto bad_phentsize;
	} else {
		Elf32_Ehdr eh;

		if (ptxed_pread(file, 0, &eh, sizeof(eh)) < 0)
			goto truncated;
		phoff = eh.e_phoff;
		phentsize = eh.e_phentsize;
		phnum = eh.e_phnum;
		if (phnum && phentsize < sizeof(Elf32_Phdr))
			goto bad_phentsize;
	}
	if (phoff > fsize || phnum * phentsize > fsize - phoff) {
		fprintf(stderr,
		        "%s: %s: program headers at offset 0x%" PRIx64
		        " beyond the end of the file.\n",
		        prog, name, phoff);
		return -1;
	}
	segs = malloc((phnum ? phnum : 1) * sizeof(*segs));
	if (!segs) {
		fprintf(stderr, "%s: out of memory.\n", prog);
		return -1;
	}
	for (i = 0; i < phnum; ++i) {
		uint64_t at = phoff + i * phentsize;
		struct ptxed_segment seg;
		uint32_t type;

		if (is64) {
			Elf64_Phdr ph;

			if (ptxed_pread(file, at, &ph, sizeof(ph)) < 0)
				goto truncated_segs;
			type = ph.p_type;
			seg.offset = ph.p_offset;
			seg.filesz = ph.p_filesz;
			seg.vaddr = ph.p_vaddr;
		} else {
			Elf32_Phdr ph;

			if (ptxed_pread(file, at, &ph, sizeof(ph)) < 0)
				goto truncated_segs;
			type = ph.p_type;
			seg.offset = ph.p_offset;
			seg.filesz = ph.p_filesz;
			seg.vaddr = ph.p_vaddr;
		}
		if (type != PT_LOAD || !seg.filesz)
			continue;
		/* As libipt's ptxed: a segment past the end of the file is
		 * left out, one that reaches beyond it is cut there (a
		 * truncated core file, say), with a warning. */
		if (seg.offset >= fsize) {
			if (!(flags & ptxed_load_quiet))
				fprintf(stderr,
				        "%s: warning: %s: segment %" PRIu64
				        " (program header at offset 0x%" PRIx64
				        ") lies beyond the end of the file; "
				        "left out.\n",
				        prog, name, i, at);
			continue;
		}
		if (seg.filesz > fsize - seg.offset) {
			if (!(flags & ptxed_load_quiet))
				fprintf(stderr,
				        "%s: warning: %s: segment %" PRIu64
				        " (program header at offset 0x%" PRIx64
				        ") extends beyond the end of the file; "
				        "cut there.\n",
				        prog, name, i, at);
			seg.filesz = fsize - seg.offset;
		}
		segs[n++] = seg;
	}
	*psegs = segs;
	return n;

truncated_segs:
	free(segs);
truncated:
	fprintf(stderr, "%s: %s: truncated ELF headers.\n", prog, name);
	return -1;
bad_phentsize:
	fprintf(stderr, "%s: %s: bad e_phentsize %" PRIu64 ".\n", prog, name,
	        phentsize);
	return -1;
}

int ptxed_load_elf(struct pt_image_section_cache *iscache,
                   struct pt_image *image, const char *name, uint64_t base,
                   int has_base, const char *prog, int flags)
{
	struct ptxed_segment *segs = NULL;
	uint64_t fsize, low = UINT64_MAX, shift = 0;
	int n, i, added = 0;
	FILE *file;

	file = fopen(name, "rb");
	if (!file) {
		fprintf(stderr, "%s: failed to open %s: %s.\n", prog, name,
		        strerror(errno));
		return -1;
	}
	if (fseeko(file, 0, SEEK_END) != 0 || ftello(file) < 0) {
		fprintf(stderr, "%s: cannot determine the size of %s.\n", prog,
		        name);
		fclose(file);
		return -1;
	}
	fsize = (uint64_t)ftello(file);
	n = ptxed_elf_segments(file, name, fsize, &segs, prog, flags);
	fclose(file);
	if (n < 0)
		return -1;
	for (i = 0; i < n; ++i)
		if (segs[i].vaddr < low)
			low = segs[i].vaddr;
	/* A base of 0 is no base, as in libipt's ptxed. */
	if (has_base && base)
		shift = base - low;
	/* A segment that cannot be added is left out (the error is
	 * printed), as libipt's ptxed does. */
	for (i = 0; i < n; ++i)
		if (ptxed_add_section(iscache, image, name, segs[i].offset,
		                      segs[i].filesz, segs[i].vaddr + shift,
		                      prog, flags) == 0)
			added += 1;
	free(segs);
	if (!added && !(flags & ptxed_load_quiet))
		fprintf(stderr,
		        "%s: warning: %s: did not find any loadable segment.\n",
		        prog, name);
	return 0;
}
