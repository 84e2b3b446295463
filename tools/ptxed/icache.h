/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: a cache of the instructions it prints.
 *
 * A trace runs the same code over and over, and ptxed reads every
 * instruction it prints back from the image, decodes it and formats its
 * disassembly.  The cache keeps the result per instruction (IP, execution
 * mode and image section): its bytes, size, class, the IP after it, and
 * its disassembly text once it is asked for.  A section's bytes do not
 * change while ptxed decodes (with --perf:images the decoder's image
 * changes with the task, but each image's sections keep their own isids),
 * so an entry never goes stale; the cache starts over when it reaches its
 * bound. */
#ifndef PTXED_ICACHE_H
#define PTXED_ICACHE_H

#include "ptdecode/intel-pt.h"

#include <stdint.h>

struct ptd_ild_ctx;

/* The room for an instruction's disassembly text, its NUL included (what
 * ptd_ild_format() may write). */
enum { ptxed_text_size = 256 };

/* One instruction. */
struct ptxed_insn_entry {
	uint64_t ip;
	/* The IP after it: of the next instruction, or a direct jump's or
	 * call's target. */
	uint64_t next_ip;
	int isid;
	/* The disassembly text (valid with @have_text): offset into the
	 * cache's text pool, or the formatting error in @fmt_err. */
	uint32_t text;
	int fmt_err;
	uint8_t mode;
	uint8_t size;
	uint8_t iclass;
	uint8_t have_text;
	uint8_t raw[pt_max_insn_size];
};

struct ptxed_icache;

/* A new, empty cache; NULL if memory runs out. */
struct ptxed_icache *ptxed_icache_alloc(void);

/* Free @cache (NULL: nothing). */
void ptxed_icache_free(struct ptxed_icache *cache);

/* The entry of the instruction at @ip in @mode from section @isid, or NULL
 * if the cache has none.  The entry stays valid until the next
 * ptxed_icache_add(). */
struct ptxed_insn_entry *ptxed_icache_find(struct ptxed_icache *cache,
                                           uint64_t ip, enum pt_exec_mode mode,
                                           int isid);

/* Add the instruction at @ip in @mode from section @isid: @size bytes @raw,
 * class @iclass and @next_ip (see struct ptxed_insn_entry).  Returns the
 * new entry (without text), or NULL if it cannot be added (out of memory:
 * the caller goes on without the cache). */
struct ptxed_insn_entry *ptxed_icache_add(struct ptxed_icache *cache,
                                          uint64_t ip, enum pt_exec_mode mode,
                                          int isid, const uint8_t *raw,
                                          uint8_t size, uint8_t iclass,
                                          uint64_t next_ip);

/* The disassembly text of @entry (AT&T syntax if @att; every entry of a
 * cache must be asked with the same @att), formatted with @ild the first
 * time.  Returns the text, or NULL with the formatting error in *@err. */
const char *ptxed_icache_text(struct ptxed_icache *cache,
                              struct ptxed_insn_entry *entry,
                              struct ptd_ild_ctx *ild, int att, int *err);

#endif /* PTXED_ICACHE_H */
