/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: --elf <file>[:<base>], our own ELF program-header loader.
 *
 * Reads the ELF header and program headers of a 32- or 64-bit
 * little-endian ELF file and adds the file bytes of every PT_LOAD segment
 * (p_offset, p_filesz) at its p_vaddr; with a <base>, every segment is moved
 * by <base> minus the lowest PT_LOAD p_vaddr (for position-independent
 * code).  Bytes of a segment beyond p_filesz (.bss) are not traced code and
 * are not added. */
#ifndef PTXED_LOAD_ELF_H
#define PTXED_LOAD_ELF_H

#include "intel-pt.h"

#include <stdint.h>

/* Load @file.  @has_base says whether @base was given; @flags are enum
 * ptxed_load_flags (load.h).  Returns 0, or -1 after a message to stderr
 * that names the byte offset of bad data. */
int ptxed_load_elf(struct pt_image_section_cache *iscache,
                   struct pt_image *image, const char *file, uint64_t base,
                   int has_base, const char *prog, int flags);

#endif /* PTXED_LOAD_ELF_H */
