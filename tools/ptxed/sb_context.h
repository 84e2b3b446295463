/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the processes' contexts of the perf_event sideband (sideband.h).
 *
 * A context is one process's image, named pid-<pid in hex>.  The live
 * context of each pid is found through a hash table.  An exec or a fork
 * replaces a pid's context: the old one is no longer found but lives on
 * while a sideband file has it as its current or next context (counted in
 * @refs) or the decoder uses its image; ptxed_ctxs_collect() frees it
 * after that. */
#ifndef PTXED_SB_CONTEXT_H
#define PTXED_SB_CONTEXT_H

#include "ptdecode/intel-pt.h"

#include <stddef.h>
#include <stdint.h>

/* One process's context. */
struct ptxed_ctx {
	uint32_t pid;
	struct pt_image *image;
	/* The ABI (enum ptd_sb_abi), or -1 while not known. */
	int abi;
	/* How many files have it as their current or next context. */
	unsigned refs;
	/* The next in its hash chain (live) or in the list of replaced
	 * ones. */
	struct ptxed_ctx *next;
};

/* The contexts of all processes. */
struct ptxed_ctxs {
	/* 2^(32 - @shift) buckets. */
	struct ptxed_ctx **buckets;
	size_t nbuckets, nlive;
	unsigned shift;
	/* Replaced contexts, freed once nothing uses them. */
	struct ptxed_ctx *replaced;
};

/* Initialize @t (empty).  Returns 0, or -1 when out of memory. */
int ptxed_ctxs_init(struct ptxed_ctxs *t);

/* Free every context of @t and their images. */
void ptxed_ctxs_fini(struct ptxed_ctxs *t);

/* The live context of @pid, or NULL. */
struct ptxed_ctx *ptxed_ctxs_find(const struct ptxed_ctxs *t, uint32_t pid);

/* A new live context of @pid whose image is a copy of @base; the old one,
 * if any, is replaced.  NULL when out of memory (nothing changed). */
struct ptxed_ctx *ptxed_ctxs_new(struct ptxed_ctxs *t, uint32_t pid,
                                 const struct pt_image *base);

/* Free the replaced contexts that no file refers to, except those whose
 * image is @in_use (the decoder's) or @next (the decoder's after this
 * event). */
void ptxed_ctxs_collect(struct ptxed_ctxs *t, const struct pt_image *in_use,
                        const struct pt_image *next);

#endif /* PTXED_SB_CONTEXT_H */
