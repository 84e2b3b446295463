/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: loading the trace and the traced memory image.
 *
 * File arguments follow libipt's ptxed: <file>[:<from>[-<to>]] takes the
 * range from the last ':' if what follows parses as a range (otherwise the
 * ':' belongs to the file name); --raw needs a trailing :<base>.  Every
 * section goes through the image section cache so that ptxed can read
 * instructions back by isid.  Messages go to stderr; the functions return 0
 * or -1. */
#ifndef PTXED_LOAD_H
#define PTXED_LOAD_H

#include "intel-pt.h"

#include <stdint.h>

/* How the loaders below (and ptxed_load_elf()) work: @flags of
 * ptxed_load_verbose prints each section added (--verbose), of
 * ptxed_load_quiet leaves out their warnings (for a later AUX area of
 * --perf, whose command line, loaded again, warned for the first). */
enum ptxed_load_flags {
	ptxed_load_verbose = 1 << 0,
	ptxed_load_quiet = 1 << 1
};

/* Remove a trailing ":<base>" from @arg into @base.  Returns 1 if there was
 * one, 0 if not. */
int ptxed_split_base(char *arg, uint64_t *base);

/* --pt <file>[:<from>[-<to>]]: load the trace into config->begin/end
 * (malloc'ed; the caller frees config->begin). */
int ptxed_load_pt(struct pt_config *config, char *arg, const char *prog);

/* --raw <file>[:<from>[-<to>]]:<base>: add the bytes at @base. */
int ptxed_load_raw(struct pt_image_section_cache *iscache,
                   struct pt_image *image, char *arg, const char *prog,
                   int flags);

/* --page-dump <addr-file>:<dump-file>: add the pages of a libxdc page dump,
 * each run of contiguous pages as one section. */
int ptxed_load_page_dump(struct pt_image_section_cache *iscache,
                         struct pt_image *image, const char *arg,
                         const char *prog, int flags);

/* Add [@offset, @offset + @size) of @file at @vaddr through @iscache.
 * Returns 0 or -1 after a message naming @what. */
int ptxed_add_section(struct pt_image_section_cache *iscache,
                      struct pt_image *image, const char *file, uint64_t offset,
                      uint64_t size, uint64_t vaddr, const char *prog,
                      int flags);

#endif /* PTXED_LOAD_H */
