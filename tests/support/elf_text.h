/* Loading a whole file (the benchmarks' and tests' inputs) and finding the
 * .text section of an ELF64 image (the programs that decode libc's .text:
 * tests/unit/test_ild_*.c, bench/ild_bench.c). */
#ifndef PTD_TESTS_ELF_TEXT_H
#define PTD_TESTS_ELF_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Read the file @path into a malloc'ed buffer and store its length in @size.
 * Returns the buffer (the caller frees it), or NULL if the file cannot be
 * opened or read or is empty. */
uint8_t *ptd_read_whole_file(const char *path, size_t *size);

/* Find the section named ".text" in the ELF64 image @elf of @size bytes.
 * On success stores its file offset in @offset, its length in @length and,
 * if @vaddr is not NULL, its load address in @vaddr, and returns 0.
 * Returns -1 if @elf is not a well-formed ELF64 image, has no .text section,
 * or the section lies outside @size. */
int ptd_elf_find_text(const uint8_t *elf, size_t size, size_t *offset,
                      size_t *length, uint64_t *vaddr);

#endif /* PTD_TESTS_ELF_TEXT_H */
