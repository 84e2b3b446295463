/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the cache of printed instructions; see icache.h. */
#include "icache.h"
#include "disas.h"

#include <stdlib.h>
#include <string.h>

enum {
	/* Entries of a new table, and the most a table may have (then the
	 * cache starts over): 2^20 entries of 48 bytes (48 MiB, at most half
	 * full: 2^19 instructions). */
	ptxed_icache_min_bits = 12,
	ptxed_icache_max_bits = 20,
	/* The most bytes of text kept (then texts are formatted into a
	 * scratch buffer and not kept). */
	ptxed_icache_max_text = 32 << 20
};

struct ptxed_icache {
	/* Open addressing, at most half full; an entry with size 0 is
	 * free. */
	struct ptxed_insn_entry *table;
	uint32_t bits, count;
	/* The texts, NUL-terminated, one after the other. */
	char *text;
	size_t ntext, captext;
	char scratch[ptxed_text_size];
};

struct ptxed_icache *ptxed_icache_alloc(void)
{
	struct ptxed_icache *cache = calloc(1, sizeof(*cache));

	if (!cache)
		return NULL;
	cache->bits = ptxed_icache_min_bits;
	cache->table = calloc((size_t)1 << cache->bits, sizeof(*cache->table));
	if (!cache->table) {
		free(cache);
		return NULL;
	}
	return cache;
}

void ptxed_icache_free(struct ptxed_icache *cache)
{
	if (!cache)
		return;
	free(cache->table);
	free(cache->text);
	free(cache);
}

static uint32_t ptxed_icache_hash(uint64_t ip, enum pt_exec_mode mode, int isid,
                                  uint32_t bits)
{
	uint64_t key =
	        ip ^ ((uint64_t)mode << 56) ^ ((uint64_t)(uint32_t)isid << 40);

	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

struct ptxed_insn_entry *ptxed_icache_find(struct ptxed_icache *cache,
                                           uint64_t ip, enum pt_exec_mode mode,
                                           int isid)
{
	uint32_t mask, h;

	if (!cache)
		return NULL;
	mask = (1u << cache->bits) - 1;
	for (h = ptxed_icache_hash(ip, mode, isid, cache->bits);;
	     h = (h + 1) & mask) {
		struct ptxed_insn_entry *e = &cache->table[h];

		if (!e->size)
			return NULL;
		if (e->ip == ip && e->mode == (uint8_t)mode && e->isid == isid)
			return e;
	}
}

/* The free slot for @ip, @mode, @isid in @table of 2^@bits entries. */
static struct ptxed_insn_entry *
ptxed_icache_slot(struct ptxed_insn_entry *table, uint32_t bits, uint64_t ip,
                  enum pt_exec_mode mode, int isid)
{
	uint32_t mask = (1u << bits) - 1, h;

	for (h = ptxed_icache_hash(ip, mode, isid, bits); table[h].size;
	     h = (h + 1) & mask)
		;
	return &table[h];
}

/* Empty @cache (its table keeps its size). */
static void ptxed_icache_clear(struct ptxed_icache *cache)
{
	memset(cache->table, 0, sizeof(*cache->table) << cache->bits);
	cache->count = 0;
	cache->ntext = 0;
}

/* Room for one more entry: 0, or -1 if memory ran out. */
static int ptxed_icache_reserve(struct ptxed_icache *cache)
{
	struct ptxed_insn_entry *table;
	uint32_t bits = cache->bits + 1, i;

	if (2u * (cache->count + 1u) <= (1u << cache->bits))
		return 0;
	if (bits > ptxed_icache_max_bits) {
		ptxed_icache_clear(cache);
		return 0;
	}
	table = calloc((size_t)1 << bits, sizeof(*table));
	if (!table)
		return -1;
	for (i = 0; i < (1u << cache->bits); ++i) {
		const struct ptxed_insn_entry *e = &cache->table[i];

		if (e->size)
			*ptxed_icache_slot(table, bits, e->ip,
			                   (enum pt_exec_mode)e->mode,
			                   e->isid) = *e;
	}
	free(cache->table);
	cache->table = table;
	cache->bits = bits;
	return 0;
}

struct ptxed_insn_entry *ptxed_icache_add(struct ptxed_icache *cache,
                                          uint64_t ip, enum pt_exec_mode mode,
                                          int isid, const uint8_t *raw,
                                          uint8_t size, uint8_t iclass,
                                          uint64_t next_ip)
{
	struct ptxed_insn_entry *e;

	if (!cache || !raw || !size || size > pt_max_insn_size ||
	    ptxed_icache_reserve(cache) < 0)
		return NULL;
	e = ptxed_icache_slot(cache->table, cache->bits, ip, mode, isid);
	memset(e, 0, sizeof(*e));
	e->ip = ip;
	e->next_ip = next_ip;
	e->isid = isid;
	e->mode = (uint8_t)mode;
	e->size = size;
	e->iclass = iclass;
	memcpy(e->raw, raw, size);
	cache->count++;
	return e;
}

const char *ptxed_icache_text(struct ptxed_icache *cache,
                              struct ptxed_insn_entry *entry,
                              struct ptd_ild_ctx *ild, int att, int *err)
{
	size_t len;
	int status;

	if (entry->have_text) {
		*err = entry->fmt_err;
		return entry->fmt_err ? NULL : cache->text + entry->text;
	}
	status = ptxed_disas_format(
	        ild, cache->scratch, sizeof(cache->scratch), entry->raw,
	        entry->size, (enum pt_exec_mode)entry->mode, entry->ip, att);
	*err = status < 0 ? status : 0;
	if (status < 0) {
		entry->fmt_err = status;
		entry->have_text = 1;
		return NULL;
	}
	len = strlen(cache->scratch) + 1;
	if (cache->captext - cache->ntext < len) {
		size_t cap = cache->captext ? 2 * cache->captext : 1 << 16;
		char *text;

		if (cap > ptxed_icache_max_text)
			return cache->scratch;
		text = realloc(cache->text, cap);
		if (!text)
			return cache->scratch;
		cache->text = text;
		cache->captext = cap;
	}
	memcpy(cache->text + cache->ntext, cache->scratch, len);
	entry->text = (uint32_t)cache->ntext;
	entry->have_text = 1;
	cache->ntext += len;
	return cache->text + entry->text;
}
