/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading libxdc page dumps (kAFL/Nyx): an address file of little-endian
 * 64-bit page addresses and a dump file with the 4096-byte pages in the
 * same order (page i at offset i * 4096).  An address with any of its low
 * 12 bits set marks a page that was not mapped: it has a slot in the dump
 * but no content.
 *
 * This only reads the address file and groups consecutive pages into runs;
 * the caller adds each run to its image as one section of the dump file.
 * tests/flow and bench/flow_bench use it too, to build the same image for
 * ptdecode and for libipt. */
#ifndef PTXED_PAGE_DUMP_H
#define PTXED_PAGE_DUMP_H

#include <stddef.h>
#include <stdint.h>

/* One run of pages that are contiguous both in memory and in the dump. */
struct ptxed_page_run {
	/* The virtual address of the first page. */
	uint64_t vaddr;
	/* The offset of the first page in the dump file. */
	uint64_t offset;
	/* The size in bytes (a multiple of 4096). */
	uint64_t size;
};

/* The page size of a dump. */
enum { ptxed_page_size = 4096 };

/* Read @addr_file and return its runs in @runs (malloc'ed, free() it) and
 * their number in @nruns.  Pages whose slot lies beyond @dump_size bytes
 * (the size of the dump file) are an error.  Returns 0, or -1 with a
 * message in @msg (@msgsize bytes). */
int ptxed_page_runs(const char *addr_file, uint64_t dump_size,
                    struct ptxed_page_run **runs, size_t *nruns, char *msg,
                    size_t msgsize);

#endif /* PTXED_PAGE_DUMP_H */
