/* SPDX-License-Identifier: BSD-3-Clause */
/* The batch flow decoder: ptd_flow_next_insns(), ptd_flow_next_blocks().
 *
 * Underneath is the instruction-flow decoder's engine (lib/flow/flow.h): the
 * same state, the same event binding, the same trace results.  While no
 * event waits (ptd_flow_quiet()), an instruction of class ptic_other does
 * nothing but move the IP on, so the code from an IP up to and including
 * the next instruction of another class (a branch, PTWRITE, ...) runs the
 * same way every time.  Such a run is decoded once and kept in a cache
 * keyed by its first IP and mode: the offsets of its instructions and the
 * last instruction, which goes through ptd_flow_exec() as pt_insn_next()
 * would take it.  A run costs a hash lookup (or a successor check), a copy
 * of its offsets and the one ptd_flow_exec() call of its branch.  Whenever
 * the engine is not quiet (events, ticks), the decoder steps one
 * instruction at a time exactly as pt_insn_next() does.  A run that does
 * not fit into the rest of the caller's array gives the instructions that
 * do (all of class ptic_other, so each only moves the IP on); the next call
 * goes on with the rest of that run (fb_resume()).
 *
 * The run cache depends on the code only: it is dropped when the image, its
 * generation or the address space changes. */
#include "flow/flow.h"
#include "flow_batch_int.h"

#include "ptdecode/ptd_flow_batch.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A copy of the instruction loop for AVX2 (chosen at run time). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FB_AVX2 1
#endif

/* At most this many instructions per run (a run never needs more room than
 * this in the caller's array). */
enum {
	fb_max_run = 1024,
	/* What fb_drain_pair() returns when it does not apply (no status). */
	fb_not_taken = 1 << 30,
	/* The instruction loops write a run's IPs and times in steps of
	 * fb_wide entries where the arrays have the room (fb_emit()),
	 * so the pool keeps that many readable entries after every run. */
	fb_wide = 8,
	/* Entries of the return shadow (ptd_flow_batch.shadow). */
	fb_nshadow = 64,
	/* At most this many runs in the cache (see fb_reserve()). */
	fb_cache_runs = 1u << 20
};

/* No run (an index or a link); C11 enumerators must fit an int, so these
 * two are constants of their own. */
static const uint32_t fb_no_run = 0xffffffffu;
/* The bit of a link to a run that does not end in a conditional branch
 * (ptd_flow_batch.links). */
static const uint32_t fb_link_other = 0x80000000u;

/* What the last instruction of a run is, for the chain loops: something
 * they leave to the engine, a conditional branch, a direct jump, a direct
 * call (that pushes its return address, or not: a call to the next
 * instruction), a near return, an indirect near jump or call. */
enum {
	fb_fk_engine,
	fb_fk_cond,
	fb_fk_jmp,
	fb_fk_call,
	fb_fk_call_nopush,
	fb_fk_ret,
	fb_fk_ijmp,
	fb_fk_icall
};

/* A run.  The fields the chain loops read come first and fill one cache
 * line (the runs are 64-byte aligned): on a large program the runs do not
 * fit into the caches, and a chain step then costs one miss, not three.
 * (The links from run to run are apart, in ptd_flow_batch.links.) */
struct fb_run {
	_Alignas(64) uint64_t ip;
	/* The IP of the last instruction; after it; the branch target of a
	 * direct or conditional branch. */
	uint64_t end_ip;
	uint64_t fall_ip;
	uint64_t tgt_ip;
	/* Index of the first IP in the pool. */
	uint32_t off;
	/* Number of instructions (at most fb_max_run); @term's class (enum
	 * pt_insn_class), ptic_other without it; the mode.  In the order of
	 * struct ptd_flow_block's ninsn, iclass and mode, so that a block's
	 * last eight bytes are two stores (fb_put_block()). */
	uint16_t ninsn;
	uint8_t iclass;
	uint8_t mode;
	/* @term is the last instruction (not ptic_other). */
	uint8_t has_term;
	/* How the chain loops take @term (fb_fk_*). */
	uint8_t fkind;
	/* The IP after the run if it has no branch at its end. */
	uint64_t next_ip;

	/* The runs that followed this one last (a small successor cache:
	 * two IPs, e.g. the taken and not-taken side of a conditional
	 * branch). */
	uint64_t succ_ip[2];
	uint32_t succ[2];
	struct ptd_finsn term;
};

_Static_assert(offsetof(struct fb_run, next_ip) + sizeof(uint64_t) <= 64,
               "the chain loops' fields fill one cache line");

/* Whether field @b of struct @s lies @d bytes after its field @a. */
#define FB_AFTER(s, a, b, d)                                                   \
	(offsetof(struct s, b) == offsetof(struct s, a) + (d))

_Static_assert(FB_AFTER(fb_run, ip, end_ip, 8) &&
                       FB_AFTER(ptd_flow_block, ip, end_ip, 8) &&
                       FB_AFTER(fb_run, ninsn, iclass, 2) &&
                       FB_AFTER(fb_run, ninsn, mode, 3) &&
                       FB_AFTER(ptd_flow_block, ninsn, iclass, 2) &&
                       FB_AFTER(ptd_flow_block, ninsn, mode, 3),
               "fb_put_block() copies the fields in groups");

/* Write the block of run @r with time @tsc to @b: IP and end IP (16 bytes),
 * the time, ninsn, iclass and mode (4 bytes) and reserved 0. */
static inline void fb_put_block(struct ptd_flow_block *b,
                                const struct fb_run *r, uint64_t tsc)
{
	memcpy((char *)b + offsetof(struct ptd_flow_block, ip),
	       (const char *)r + offsetof(struct fb_run, ip),
	       2 * sizeof(uint64_t));
	b->tsc = tsc;
	memcpy((char *)b + offsetof(struct ptd_flow_block, ninsn),
	       (const char *)r + offsetof(struct fb_run, ninsn),
	       sizeof(uint32_t));
	b->reserved = 0;
}

/* An entry of the return shadow (ptd_flow_batch.shadow). */
struct fb_shadow {
	uint64_t ip;     /* the return address pushed */
	uint32_t caller; /* the index of the call's run */
	uint32_t gen;    /* the cache generation of @caller */
	uint8_t mode;    /* the mode of @caller */
};

struct ptd_flow_batch {
	struct ptd_flow flow;
	uint64_t err_ip;
	/* Use fb_chain_insns_avx2() (1) or fb_chain_insns_avx512() (2). */
	int avx2;

	/* The run cache and what it is valid for. */
	struct fb_run *runs;
	uint32_t nruns, caprun;
	/* The IPs of the runs' instructions, run after run. */
	uint64_t *offs;
	size_t noffs, capoffs;
	/* For the chain loops, two per run: the run at the run's @fall_ip
	 * ([0]) and at its @tgt_ip ([1]), once known, else fb_no_run.  A
	 * link names a run of the same cache generation: a flush empties the
	 * cache, and a run is built with no links.  A link is the linked
	 * run's first entry's byte offset in this array (its index times 8,
	 * below 2^23 as fb_reserve() keeps fewer than 2^20 runs): a chain
	 * step is a load from this array at an offset the last load gave,
	 * plus 4 for the target side.  The links are apart from the runs so
	 * that this chain of loads touches 8 bytes per run, not a run's line
	 * (on mruby 32 KiB instead of 260 KiB); a run's own line is read
	 * beside it, off the chain.  A link to a run that does not end in a
	 * conditional branch has bit 31 set (fb_link_other), as fb_no_run
	 * has: the chain of conditional branches stops on the sign of the
	 * link it loaded, before the run's line arrives (where the run ends
	 * otherwise, the branch would mispredict and wait for that line),
	 * and the links it goes on with have the bit clear.  See fb_link(),
	 * fb_link_to(), fb_link_idx().  A call's
	 * run (direct or indirect) never follows its fall side: its [0] links
	 * the run at its return address, for the return shadow below. */
	uint32_t *links;
	uint32_t *table; /* run index + 1, 0 for empty */
	uint32_t tbits;
	/* The cache is flushed when it holds this many runs (fb_cache_runs;
	 * tests set fewer). */
	uint32_t max_runs;
	/* Counts the flushes of the cache. */
	uint32_t gen;
	/* Where the last call of ptd_flow_next_insns() stopped inside a run
	 * that did not fit: run @part_idx of generation @part_gen, its
	 * instruction @part_off next (fb_no_run: none). */
	uint32_t part_idx, part_off, part_gen;
	const struct pt_image *cache_image;
	uint64_t cache_gen;
	uint64_t cache_cr3, cache_vmcs;
	/* The return shadow: a ring of the calls that the chain loops took,
	 * newest at @sh_top - 1, whatever the trace says about returns (it
	 * is a guess, as a processor's return-address stack is).  A return
	 * to the address the newest call pushed goes on at that call's [0]
	 * link, with no lookup (fb_shadow_pop()).  An entry is used only if
	 * its address is the one returned to, in the same mode and cache
	 * generation; a call whose return was not traced (tracing stopped
	 * in between) leaves an entry that the next return skips. */
	struct fb_shadow shadow[fb_nshadow];
	uint32_t sh_top;
	/* The run whose branch ended the last call with an event or the end
	 * of the trace, and its cache generation (fb_no_run: none): the next
	 * call looks the run at its IP up among that run's successors. */
	uint32_t last_idx, last_gen;
	/* While ptd_flow_decode_*() runs ptd_flow_next_*(): the caller's
	 * events and the number of instructions (blocks) written before this
	 * call's arrays, so that the chain loops can report the commonest
	 * pair of events themselves (FB_CHAIN_PAIR); else NULL. */
	struct ptd_flow_events *pev;
	size_t pev_at;
	/* The status that the last synchronization, ptd_flow_next_*() or
	 * event call returned (pts_event_pending: an event waits for
	 * ptd_flow_batch_event(); ptd_flow_decode_*() drain it first). */
	int last_status;
};

struct ptd_flow_batch *
ptd_flow_batch_alloc(const struct pt_config *config,
                     const struct ptd_time_config *tconfig)
{
	struct ptd_flow_batch *dec;

	if (!config)
		return NULL;
	dec = calloc(1, sizeof(*dec));
	if (!dec)
		return NULL;
	if (ptd_flow_init(&dec->flow, config, tconfig, 0) < 0) {
		free(dec);
		return NULL;
	}
#ifdef FB_AVX2
	dec->avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
	if (dec->avx2 && __builtin_cpu_supports("avx512f"))
		dec->avx2 = 2;
#endif
	dec->part_idx = fb_no_run;
	dec->last_idx = fb_no_run;
	dec->max_runs = fb_cache_runs;
	return dec;
}

void ptd_flow_batch_free(struct ptd_flow_batch *dec)
{
	if (!dec)
		return;
	ptd_flow_fini(&dec->flow);
	free(dec->runs);
	free(dec->links);
	free(dec->offs);
	free(dec->table);
	free(dec);
}

void ptd_flow_batch_set_ckpt_calls(struct ptd_flow_batch *dec, uint32_t calls)
{
	if (dec)
		dec->flow.qs.ckpt_calls = calls;
}

/* @v, raised to @lo or lowered to @hi. */
static uint32_t fb_clamp(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void ptd_flow_batch_set_max_runs(struct ptd_flow_batch *dec, uint32_t runs)
{
	if (dec)
		dec->max_runs = fb_clamp(runs, 1, fb_cache_runs);
}

void ptd_flow_batch_set_simd(struct ptd_flow_batch *dec, int level)
{
	if (dec && level >= 0 && level < dec->avx2)
		dec->avx2 = level;
}

void ptd_flow_batch_set_batch_size(struct ptd_flow_batch *dec, uint32_t nitems,
                                   uint32_t nevents)
{
	if (!dec)
		return;
	dec->flow.qs.nitems = fb_clamp(nitems, 2, ptd_qsrc_nitems);
	dec->flow.qs.nevents = fb_clamp(nevents, 1, ptd_qsrc_nevents);
}

int ptd_flow_batch_set_image(struct ptd_flow_batch *dec, struct pt_image *image)
{
	if (!dec)
		return -pte_invalid;
	dec->part_idx = fb_no_run;
	ptd_flow_set_image(&dec->flow, image);
	return 0;
}

struct pt_image *ptd_flow_batch_get_image(struct ptd_flow_batch *dec)
{
	return dec ? dec->flow.image : NULL;
}

int ptd_flow_batch_sync_forward(struct ptd_flow_batch *dec)
{
	if (!dec)
		return -pte_invalid;
	dec->part_idx = fb_no_run;
	return dec->last_status =
	               ptd_flow_sync(&dec->flow, ptd_qsrc_forward, 0);
}

int ptd_flow_batch_sync_backward(struct ptd_flow_batch *dec)
{
	if (!dec)
		return -pte_invalid;
	dec->part_idx = fb_no_run;
	return dec->last_status =
	               ptd_flow_sync(&dec->flow, ptd_qsrc_backward, 0);
}

int ptd_flow_batch_sync_set(struct ptd_flow_batch *dec, uint64_t offset)
{
	if (!dec)
		return -pte_invalid;
	dec->part_idx = fb_no_run;
	return dec->last_status =
	               ptd_flow_sync(&dec->flow, ptd_qsrc_set, offset);
}

int ptd_flow_batch_get_offset(struct ptd_flow_batch *dec, uint64_t *offset)
{
	if (!dec || !offset)
		return -pte_invalid;
	return ptd_qsrc_offset(&dec->flow.qs, offset);
}

int ptd_flow_batch_get_sync_offset(const struct ptd_flow_batch *dec,
                                   uint64_t *offset)
{
	if (!dec || !offset)
		return -pte_invalid;
	return ptd_qsrc_sync_offset(&dec->flow.qs, offset);
}

int ptd_flow_batch_event(struct ptd_flow_batch *dec, struct pt_event *event,
                         size_t size)
{
	if (!dec || !event)
		return -pte_invalid;
	return dec->last_status = ptd_flow_event(&dec->flow, event, size);
}

int ptd_flow_batch_error_ip(const struct ptd_flow_batch *dec, uint64_t *ip)
{
	if (!dec || !ip)
		return -pte_invalid;
	*ip = dec->err_ip;
	return 0;
}

int ptd_flow_batch_time(struct ptd_flow_batch *dec, uint64_t *time,
                        uint32_t *lost_mtc, uint32_t *lost_cyc)
{
	if (!dec || !time)
		return -pte_invalid;
	return ptd_qsrc_time(&dec->flow.qs, time, lost_mtc, lost_cyc);
}

int ptd_flow_batch_asid(const struct ptd_flow_batch *dec, struct pt_asid *asid,
                        size_t size)
{
	if (!dec || !asid)
		return -pte_invalid;
	return ptd_flow_asid(&dec->flow, asid, size);
}

/* --- The run cache -------------------------------------------------------- */

static void fb_flush(struct ptd_flow_batch *dec)
{
	dec->gen++;
	dec->nruns = 0;
	dec->noffs = 0;
	if (dec->table)
		memset(dec->table, 0, sizeof(*dec->table) << dec->tbits);
}

/* Drop the cache if the code it was made from may have changed. */
static void fb_check(struct ptd_flow_batch *dec)
{
	const struct ptd_flow *flow = &dec->flow;
	uint64_t gen = flow->image ? ptd_image_generation(flow->image) : 0;

	if (flow->image != dec->cache_image || gen != dec->cache_gen ||
	    flow->asid.cr3 != dec->cache_cr3 ||
	    flow->asid.vmcs != dec->cache_vmcs) {
		fb_flush(dec);
		dec->cache_image = flow->image;
		dec->cache_gen = gen;
		dec->cache_cr3 = flow->asid.cr3;
		dec->cache_vmcs = flow->asid.vmcs;
	}
}

static inline uint32_t fb_hash(const struct ptd_flow_batch *dec, uint64_t ip,
                               uint8_t mode)
{
	return (uint32_t)(((ip ^ mode) * 0x9e3779b97f4a7c15ull) >>
	                  (64 - dec->tbits));
}

static inline uint32_t fb_find(const struct ptd_flow_batch *dec, uint64_t ip,
                               uint8_t mode)
{
	uint32_t mask, h, e;

	if (!dec->table)
		return fb_no_run;
	mask = (1u << dec->tbits) - 1;
	for (h = fb_hash(dec, ip, mode);; h = (h + 1) & mask) {
		e = dec->table[h];
		if (!e)
			return fb_no_run;
		if (dec->runs[e - 1].ip == ip && dec->runs[e - 1].mode == mode)
			return e - 1;
	}
}

static void fb_insert(struct ptd_flow_batch *dec, uint32_t idx)
{
	const struct fb_run *run = &dec->runs[idx];
	uint32_t mask = (1u << dec->tbits) - 1, h;

	for (h = fb_hash(dec, run->ip, run->mode); dec->table[h];
	     h = (h + 1) & mask)
		;
	dec->table[h] = idx + 1;
}

/* Room for one more run: 0 or -pte_nomem. */
static int fb_reserve(struct ptd_flow_batch *dec)
{
	/* A bound on memory (192 MiB of runs, 8 MiB of links, 128 MiB of
	 * IPs): start over. */
	if (dec->nruns >= dec->max_runs || dec->noffs >= ((size_t)1 << 24))
		fb_flush(dec);
	if (dec->nruns == dec->caprun) {
		uint32_t cap = dec->caprun ? dec->caprun * 2 : 256;
		/* (sizeof(struct fb_run) is a multiple of its alignment, as
		 * aligned_alloc() wants.) */
		struct fb_run *runs = aligned_alloc(_Alignof(struct fb_run),
		                                    cap * sizeof(*runs));
		uint32_t *links;

		if (!runs)
			return -pte_nomem;
		links = realloc(dec->links, 2 * (size_t)cap * sizeof(*links));
		if (!links) {
			free(runs);
			return -pte_nomem;
		}
		dec->links = links;
		if (dec->nruns)
			memcpy(runs, dec->runs, dec->nruns * sizeof(*runs));
		free(dec->runs);
		dec->runs = runs;
		dec->caprun = cap;
	}
	if (dec->capoffs - dec->noffs < fb_max_run + fb_wide) {
		size_t cap = dec->capoffs ? dec->capoffs * 2 : 16384;
		uint64_t *offs = realloc(dec->offs, cap * sizeof(*offs));

		if (!offs)
			return -pte_nomem;
		/* What fb_emit() reads past a run's IPs is written
		 * (and overwritten) like the rest, so it is defined. */
		memset(offs + dec->capoffs, 0,
		       (cap - dec->capoffs) * sizeof(*offs));
		dec->offs = offs;
		dec->capoffs = cap;
	}
	/* The table stays at most half full. */
	if (!dec->table || 2u * (dec->nruns + 1u) > (1u << dec->tbits)) {
		uint32_t bits = dec->table ? dec->tbits + 1 : 10, i;
		uint32_t *table = calloc((size_t)1 << bits, sizeof(*table));

		if (!table)
			return -pte_nomem;
		free(dec->table);
		dec->table = table;
		dec->tbits = bits;
		for (i = 0; i < dec->nruns; ++i)
			fb_insert(dec, i);
	}
	return 0;
}

/* Decode the run at @ip in @mode and add it to the cache: its index, or
 * fb_no_run if there is none (the first instruction cannot be fetched from
 * a section, or memory ran out: the caller steps instead). */
static uint32_t fb_build(struct ptd_flow_batch *dec, uint64_t ip,
                         enum pt_exec_mode mode)
{
	struct ptd_flow *flow = &dec->flow;
	const struct ptd_fsec *sec = NULL;
	struct ptd_finsn fi;
	struct fb_run *run;
	uint64_t cur = ip;
	uint64_t *offs;
	uint32_t k = 0;

	if (fb_reserve(dec) < 0)
		return fb_no_run;
	offs = dec->offs + dec->noffs;
	run = &dec->runs[dec->nruns];
	memset(run, 0, sizeof(*run));
	run->iclass = ptic_other;
	run->succ[0] = run->succ[1] = fb_no_run;
	dec->links[2 * dec->nruns] = dec->links[2 * dec->nruns + 1] = fb_no_run;
	for (;;) {
		if (ptd_fmem_fetch(&flow->mem, &fi, &flow->asid, cur, mode) < 0)
			break;
		if (!fi.sec || fi.truncated || (sec && fi.sec != sec) ||
		    fi.iclass == ptic_unknown)
			break;
		sec = fi.sec;
		offs[k++] = cur;
		if (fi.iclass != ptic_other) {
			run->term = fi;
			if (fi.raw == fi.buf)
				run->term.raw = run->term.buf;
			run->has_term = 1;
			break;
		}
		cur += fi.size;
		if (k == fb_max_run)
			break;
	}
	if (!k)
		return fb_no_run;
	run->end_ip = offs[k - 1];
	if (run->has_term) {
		const struct ptd_finsn *t = &run->term;

		run->iclass = t->iclass;
		run->fall_ip = t->ip + t->size;
		run->tgt_ip = run->fall_ip + (uint64_t)(int64_t)t->disp;
		if (t->iclass == ptic_cond_jump)
			run->fkind = fb_fk_cond;
		else if (t->iclass == ptic_jump && t->is_direct)
			run->fkind = fb_fk_jmp;
		else if (t->iclass == ptic_call && t->is_direct)
			run->fkind = t->disp ? fb_fk_call : fb_fk_call_nopush;
		else if (t->iclass == ptic_return)
			run->fkind = fb_fk_ret;
		else if (t->iclass == ptic_jump)
			run->fkind = fb_fk_ijmp;
		else if (t->iclass == ptic_call)
			run->fkind = fb_fk_icall;
	}
	run->ip = ip;
	run->next_ip = cur;
	run->off = (uint32_t)dec->noffs;
	run->ninsn = (uint16_t)k;
	run->mode = (uint8_t)mode;
	dec->noffs += k;
	fb_insert(dec, dec->nruns);
	return dec->nruns++;
}

/* The run at @ip in @mode: from the successor cache of @prev (a run index
 * or fb_no_run), the hash table, or decoded now. */
static inline uint32_t fb_next(struct ptd_flow_batch *dec, uint32_t prev,
                               uint64_t ip, uint8_t mode)
{
	uint32_t idx;

	uint32_t nruns = dec->nruns;

	if (prev != fb_no_run) {
		struct fb_run *p = &dec->runs[prev];

		/* The successors are checked in full: after a flush they may
		 * name other runs. */
		if (p->succ_ip[0] == ip && p->succ[0] < nruns &&
		    dec->runs[p->succ[0]].ip == ip &&
		    dec->runs[p->succ[0]].mode == mode)
			return p->succ[0];
		if (p->succ_ip[1] == ip && p->succ[1] < nruns &&
		    dec->runs[p->succ[1]].ip == ip &&
		    dec->runs[p->succ[1]].mode == mode)
			return p->succ[1];
	}
	idx = fb_find(dec, ip, mode);
	if (idx == fb_no_run) {
		idx = fb_build(dec, ip, (enum pt_exec_mode)mode);
		if (idx == fb_no_run)
			return idx;
		if (dec->nruns <= nruns) /* flushed: @prev is gone */
			return idx;
	}
	if (prev != fb_no_run) {
		/* Remember it as a successor of @prev, replacing the older
		 * entry. */
		struct fb_run *p = &dec->runs[prev];

		p->succ_ip[1] = p->succ_ip[0];
		p->succ[1] = p->succ[0];
		p->succ_ip[0] = ip;
		p->succ[0] = idx;
	}
	return idx;
}

/* The link to run @idx without its fb_link_other bit, the link to it that
 * the links array keeps, and the index of the run that link @link names
 * (see ptd_flow_batch.links). */
static inline uint32_t fb_link(uint32_t idx)
{
	return idx * 2u * (uint32_t)sizeof(uint32_t);
}

static inline uint32_t fb_link_to(const struct ptd_flow_batch *dec,
                                  uint32_t idx)
{
	return fb_link(idx) |
	       (dec->runs[idx].fkind == fb_fk_cond ? 0 : fb_link_other);
}

static inline uint32_t fb_link_idx(uint32_t link)
{
	return (link & ~fb_link_other) / (2u * (uint32_t)sizeof(uint32_t));
}

/* The run at @ip in @mode that links entry @slot names, or, if it names
 * none yet, the one fb_next() finds after run @prev, which the entry then
 * names. */
static inline uint32_t fb_linked(struct ptd_flow_batch *dec, uint32_t slot,
                                 uint32_t prev, uint64_t ip, uint8_t mode)
{
	uint32_t next = dec->links[slot], gen;

	if (next != fb_no_run)
		return fb_link_idx(next);
	gen = dec->gen;
	next = fb_next(dec, prev, ip, mode);
	/* (fb_next() may have moved the runs, or flushed them.) */
	if (next != fb_no_run && dec->gen == gen)
		dec->links[slot] = fb_link_to(dec, next);
	return next;
}

/* The run that follows run @idx on its side @side (0: the IP after its
 * branch, 1: its branch target), at @ip in @mode: the run's link, or found
 * with fb_next() and linked. */
static inline uint32_t fb_follow(struct ptd_flow_batch *dec, uint32_t idx,
                                 int side, uint64_t ip, uint8_t mode)
{
	return fb_linked(dec, 2 * idx + (uint32_t)side, idx, ip, mode);
}

/* The run at the current IP. */
static inline uint32_t fb_run_at(struct ptd_flow_batch *dec, uint32_t prev)
{
	return fb_next(dec, prev, dec->flow.ip, (uint8_t)dec->flow.mode);
}

/* Note that the branch of run @idx (fb_no_run: of none) ended a call with
 * an event or the end of the trace. */
static inline void fb_set_last(struct ptd_flow_batch *dec, uint32_t idx)
{
	dec->last_idx = idx;
	dec->last_gen = dec->gen;
}

/* The run fb_set_last() noted if it is still in the cache, else fb_no_run;
 * the note is used up.  (fb_next() checks a run's successors in full, so
 * the generation check only keeps the successors of a run of a later
 * cache from being overwritten with no need.) */
static inline uint32_t fb_take_last(struct ptd_flow_batch *dec)
{
	uint32_t idx = dec->last_idx;

	dec->last_idx = fb_no_run;
	if (idx == fb_no_run || dec->last_gen != dec->gen || idx >= dec->nruns)
		return fb_no_run;
	return idx;
}

/* The chain loops took the call of run @idx (mode @mode), which returns
 * to @ip. */
static inline void fb_shadow_push(struct ptd_flow_batch *dec, uint32_t idx,
                                  uint64_t ip, uint8_t mode)
{
	struct fb_shadow *sh = &dec->shadow[dec->sh_top % fb_nshadow];

	dec->sh_top++;
	sh->ip = ip;
	sh->caller = idx;
	sh->gen = dec->gen;
	sh->mode = mode;
}

/* The run at @ip in @mode after run @idx's return to @ip: the [0] link of
 * the newest call in the return shadow (or of the one before it, if the
 * newest call's return was not traced) if it returns to @ip (the call
 * then gets the link if it had none), or else fb_next().  The call and
 * the ones after it leave the shadow; if neither entry matches, the newest
 * one leaves it all the same (the return was one, whatever the shadow
 * guessed). */
static inline uint32_t fb_shadow_pop(struct ptd_flow_batch *dec, uint32_t idx,
                                     uint64_t ip, uint8_t mode)
{
	const struct fb_shadow *sh;
	uint32_t k;

	for (k = 1; k <= 2; ++k) {
		sh = &dec->shadow[(dec->sh_top - k) % fb_nshadow];
		if (sh->ip == ip && sh->gen == dec->gen && sh->mode == mode)
			break;
	}
	if (k > 2) {
		dec->sh_top--;
		return fb_next(dec, idx, ip, mode);
	}
	dec->sh_top -= k;
	return fb_linked(dec, 2 * sh->caller, idx, ip, mode);
}

/* The time pt_insn_time() reports now. */
static inline uint64_t fb_now(struct ptd_flow *flow)
{
	uint64_t tsc = 0;

	if (flow->qs.batch)
		return flow->qs.tsc;
	(void)ptd_qsrc_time(&flow->qs, &tsc, NULL, NULL);
	return tsc;
}

/* Whether the instruction-flow engine (not the block decoder's, no tick
 * events) holds a synchronous disable (TIP.PGD) and looks for the branch it
 * binds to, with no instruction held for its events. */
static inline int fb_disable_waits(const struct ptd_flow *flow)
{
	return flow->process_event && !flow->process_insn &&
	       flow->event.type == ptev_disabled && !flow->block &&
	       flow->enabled && !flow->tick;
}

/* ptd_flow_exec() on the branch @t that ends a run while a synchronous
 * disable (TIP.PGD with an IP) waits to bind (fb_disable_waits()), for the
 * branches of the commonest way out of the traced code: through a PLT stub
 * (a direct call, then an indirect jump) or a return.  flow.c binds the
 * event to every branch but a direct call or jump elsewhere than the
 * disable IP (flow_at_disabled()) and expects tracing to resume at the
 * return address after a call, else where it does not know (IP 0:
 * insn_next_ip() fails); the direct call or jump it does not bind to is
 * taken, and nothing else binds at its target (the disable binds to
 * branches only).  Returns -pte_bad_query (nothing done) for the rest. */
static inline int fb_exec_disabled(struct ptd_flow *flow,
                                   const struct ptd_finsn *t)
{
	const uint64_t next = t->ip + t->size;
	uint64_t target;

	switch (t->iclass) {
	case ptic_cond_jump:
	case ptic_return:
		flow->ip = 0;
		return ptd_flow_status(flow, pts_event_pending);
	case ptic_call:
	case ptic_jump:
		if (!t->is_direct) {
			flow->ip = t->iclass == ptic_call ? next : 0;
			return ptd_flow_status(flow, pts_event_pending);
		}
		target = next + (uint64_t)(int64_t)t->disp;
		if (target == flow->event.variant.disabled.ip) {
			flow->ip = target;
			return ptd_flow_status(flow, pts_event_pending);
		}
		/* A call to the next instruction does not return. */
		if (t->iclass == ptic_call && t->disp)
			ptd_retstack_push(&flow->retstack, next);
		flow->ip = target;
		return ptd_flow_status(flow, 0);
	default:
		return -pte_bad_query;
	}
}

/* Take the branch at the end of a run: ptd_flow_exec() on it.  While the
 * engine is quiet and makes no tick events, the frequent branches are
 * inline: flow_proceed()'s conditional branch, near return (a TNT outcome,
 * else the indirect branch query) and indirect jump and call, then
 * ptd_flow_exec()'s status; while a disable waits to bind, the branches of
 * fb_exec_disabled(). */
static inline int fb_exec_term(struct ptd_flow *flow, const struct ptd_finsn *t)
{
	int status, taken;

	if (!ptd_flow_quiet(flow) || flow->tick) {
		if (fb_disable_waits(flow) && !flow->event.ip_suppressed) {
			status = fb_exec_disabled(flow, t);
			if (status != -pte_bad_query)
				return status;
		}
		return ptd_flow_exec(flow, t);
	}
	switch (t->iclass) {
	case ptic_cond_jump:
		flow->ip = t->ip + t->size;
		status = ptd_qsrc_cond(&flow->qs, &taken);
		if (status < 0)
			return status;
		flow->status = status;
		if (taken)
			flow->ip += (uint64_t)(int64_t)t->disp;
		break;
	case ptic_return:
		flow->ip = t->ip + t->size;
		status = ptd_qsrc_cond(&flow->qs, &taken);
		if (status >= 0) {
			flow->status = status;
			if (!taken)
				return -pte_bad_retcomp;
			status = ptd_retstack_pop(&flow->retstack, &flow->ip);
			if (status < 0)
				return status;
			break;
		}
		status = ptd_qsrc_indirect(&flow->qs, &flow->ip);
		if (status < 0)
			return status;
		flow->status = status;
		if (status & pts_ip_suppressed)
			return -pte_noip;
		break;
	case ptic_call:
	case ptic_jump:
		if (t->is_direct)
			return ptd_flow_exec(flow, t);
		flow->ip = t->ip + t->size;
		if (t->iclass == ptic_call)
			ptd_retstack_push(&flow->retstack, flow->ip);
		status = ptd_qsrc_indirect(&flow->qs, &flow->ip);
		if (status < 0)
			return status;
		flow->status = status;
		if (status & pts_ip_suppressed)
			return -pte_noip;
		break;
	default:
		return ptd_flow_exec(flow, t);
	}
	if (ptd_flow_quiet(flow))
		return ptd_flow_status(flow, 0);
	return ptd_flow_after(flow, t);
}

/* Whether the next instructions may come from the run cache (and their
 * branches be chained). */
static inline int fb_fast(const struct ptd_flow *flow)
{
	return ptd_flow_quiet(flow) && flow->enabled && !flow->tick &&
	       !(flow->status & pts_eos);
}

/* Whether the next run's instructions of class ptic_other may come from
 * the run cache, its branch going through the engine: while the
 * instruction-flow engine looks for the branch a synchronous disable
 * (TIP.PGD) binds to, an instruction of class ptic_other only moves the IP
 * on (flow.c: flow_at_disabled() never binds to one, and no IP event binds
 * a ptev_disabled in the instruction decoder).  Anything else pending: one
 * instruction at a time. */
static inline int fb_runs_ok(const struct ptd_flow *flow)
{
	return fb_fast(flow) || fb_disable_waits(flow);
}

/* --- Chains of runs --------------------------------------------------------
 *
 * While the engine is quiet and the query source's current item is a run of
 * TNT outcomes, runs that end in a conditional branch, a direct jump or
 * call or a compressed return need nothing but the next outcome and the
 * return stack: no event can bind (the engine is quiet and stays so while
 * no event item comes), and the status after an outcome is 0 unless an
 * event or error item follows it.  Likewise runs that end in an indirect
 * near jump or call or an uncompressed return while the current item is a
 * TIP with an IP: the status after it is 0 unless an event or error item
 * follows.  The chain loops take such runs one after the other, using the
 * outcomes straight from the items' bit masks and the IPs from the TIP
 * items, going on from item to item in the buffer and writing the calls
 * the pull API would have seen to the replay log; they leave a result that
 * an event or error item follows, the last item of the buffer (a refill)
 * and every other kind of run to the engine.  fb_chain_end() then brings
 * the engine and the query source to where ptd_qsrc_cond() and
 * ptd_qsrc_indirect() would have left them. */

struct fb_chain {
	struct ptd_qsrc *qs;
	const struct ptd_qry_item *it;   /* NULL: no TNT item */
	const struct ptd_qry_item *last; /* the item of the last result */
	uint8_t *log;   /* where the chain's calls go in the log, or NULL */
	uint32_t pos;   /* the index of @it */
	uint32_t used;  /* outcomes of @it taken */
	uint32_t left;  /* outcomes of @it the chain may take */
	uint32_t taken; /* query calls the chain made */
	/* The first @logged of them are in the log (the rest are conditional
	 * branches, written when a TIP is taken or at the end). */
	uint32_t logged;
	size_t logroom; /* calls the replay log can take */
	uint64_t tsc;   /* the time now */
};

/* Make the item at c->pos (c->used of its outcomes taken) the chain's if it
 * is a TNT run.  Its last outcome may be taken only if the item after it is
 * in the buffer and is neither an event nor an error: then ptd_qsrc_cond()
 * would move on to it with status 0; otherwise the engine takes it (an event
 * binds, the pull API takes over before an error, or the query source
 * refills). */
static inline void fb_chain_load(struct fb_chain *c)
{
	const struct ptd_qsrc *qs = c->qs;
	const struct ptd_qry_item *it;

	c->it = NULL;
	c->left = 0;
	if (c->pos >= qs->n || qs->items[c->pos].kind != ptd_qry_item_tnt)
		return;
	it = &qs->items[c->pos];
	c->it = it;
	c->left = it->count - c->used;
	if (c->pos + 1 >= qs->n ||
	    qs->items[c->pos + 1].kind == ptd_qry_item_event ||
	    qs->items[c->pos + 1].kind == ptd_qry_item_error)
		c->left--;
}

static inline void fb_chain_begin(struct ptd_flow_batch *dec,
                                  struct fb_chain *c)
{
	struct ptd_qsrc *qs = &dec->flow.qs;

	c->qs = qs;
	c->it = NULL;
	c->last = NULL;
	c->left = 0;
	c->taken = 0;
	c->logged = 0;
	c->pos = qs->pos;
	c->used = qs->used;
	c->tsc = fb_now(&dec->flow);
	c->log = qs->sync_known ? qs->log + qs->nlog : NULL;
	c->logroom = qs->sync_known ? qs->caplog - qs->nlog : (size_t)-1;
	if (qs->batch)
		fb_chain_load(c);
}

/* The next outcome of the chain's item (c->left > 0). */
static inline int fb_chain_bit(const struct fb_chain *c)
{
	return (int)((c->it->value >> (c->it->count - 1u - c->used)) & 1u);
}

/* Whether the chain may take an outcome. */
static inline int fb_chain_can(const struct fb_chain *c)
{
	return c->left && c->logroom;
}

/* Take @k outcomes of the chain's item (at most c->left and c->logroom). */
static inline void fb_chain_took(struct fb_chain *c, uint32_t k)
{
	c->last = c->it;
	c->tsc = c->it->tsc;
	c->taken += k;
	c->logroom -= k;
	c->used += k;
	c->left -= k;
	if (c->used == c->it->count) {
		/* On to the next item (not an event, see fb_chain_load()). */
		c->pos++;
		c->used = 0;
		fb_chain_load(c);
	}
}

static inline void fb_chain_take(struct fb_chain *c)
{
	fb_chain_took(c, 1);
}

/* Write @n conditional-branch calls to the replay log after the chain's
 * first c->logged.  The log has room for c->taken + c->logroom calls from
 * c->log on; where it has the room, the calls go in 16-byte steps (what a
 * step writes after the @n calls is overwritten by the calls that come
 * next), which costs less than a memset() call for the few dozen calls
 * usually written at a time. */
static inline void fb_log_cond(const struct fb_chain *c, size_t n)
{
	uint8_t *p = c->log + c->logged;
	size_t room = c->taken + c->logroom - c->logged, j = 0;
	const uint64_t w = UINT64_C(0x0101010101010101) * ptd_qsrc_call_cond;

	if (n > 256 || room < ((n + 15) & ~(size_t)15)) {
		memset(p, ptd_qsrc_call_cond, n);
		return;
	}
	for (; j < n; j += 16) {
		memcpy(p + j, &w, sizeof(w));
		memcpy(p + j + 8, &w, sizeof(w));
	}
}

/* Take the TIP item that ptd_qsrc_indirect() would answer next, with its
 * IP in *@ip, if the status after it is 0: the item at c->pos is a TIP
 * with an IP (no TNT outcomes are pending) and the item after it is in the
 * buffer and neither an event nor an error.  @ret: for an uncompressed
 * near return, whose pt_qry_cond_branch() the pull API refuses before a
 * TIP (-pte_bad_query, at once, before it moves; the replay log has it).
 * Returns 1 if taken, else 0 (the engine takes the branch). */
static inline int fb_chain_tip(struct fb_chain *c, uint64_t *ip, int ret)
{
	const struct ptd_qsrc *qs = c->qs;
	const struct ptd_qry_item *it;
	size_t calls = ret ? 2 : 1;

	if (c->it || !qs->batch || c->logroom < calls || c->pos + 1 >= qs->n)
		return 0;
	it = &qs->items[c->pos];
	if (it->kind != ptd_qry_item_tip ||
	    (it->flags & ptd_qry_item_ip_suppressed) ||
	    it[1].kind == ptd_qry_item_event ||
	    it[1].kind == ptd_qry_item_error)
		return 0;
	if (c->log) {
		fb_log_cond(c, c->taken - c->logged + (ret ? 1u : 0u));
		c->log[c->taken + calls - 1] = ptd_qsrc_call_indirect;
		c->logged = c->taken + (uint32_t)calls;
	}
	*ip = it->value;
	c->last = it;
	c->tsc = it->tsc;
	c->taken += (uint32_t)calls;
	c->logroom -= calls;
	c->pos++;
	c->used = 0;
	fb_chain_load(c);
	return 1;
}

static inline void fb_chain_end(struct ptd_flow_batch *dec,
                                const struct fb_chain *c, uint64_t ip)
{
	struct ptd_flow *flow = &dec->flow;
	struct ptd_qsrc *qs = &flow->qs;

	flow->ip = ip;
	if (!c->taken)
		return;
	if (c->log) {
		fb_log_cond(c, c->taken - c->logged);
		qs->nlog += c->taken;
	}
	qs->pos = c->pos;
	qs->used = (uint8_t)c->used;
	ptd_qsrc_take_time(qs, c->last);
	flow->status = 0;
}

/* Take the branch at the end of run @r (index @idx) in a chain: the IP
 * after it in *@ip and its side in *@side (see ptd_flow_batch.links; -1
 * for an indirect branch, -2 for a return, which fb_shadow_pop() follows;
 * also -2 if the chain cannot take a return and the engine takes it), or 0
 * if the chain cannot take it. */
static inline __attribute__((always_inline)) int
fb_chain_branch(struct ptd_flow_batch *dec, struct fb_chain *c,
                const struct fb_run *r, uint32_t idx, uint64_t *ip, int *side)
{
	struct ptd_retstack *rs = &dec->flow.retstack;

	/* Conditional branches first: most runs end in one. */
	if (__builtin_expect(r->fkind == fb_fk_cond, 1)) {
		int taken;

		if (!fb_chain_can(c))
			return 0;
		taken = fb_chain_bit(c);
		*ip = taken ? r->tgt_ip : r->fall_ip;
		*side = taken;
		fb_chain_take(c);
		return 1;
	}
	switch (r->fkind) {
	case fb_fk_jmp:
		*ip = r->tgt_ip;
		*side = 1;
		return 1;
	case fb_fk_call:
		fb_shadow_push(dec, idx, r->fall_ip, r->mode);
		ptd_retstack_push(rs, r->fall_ip);
		*ip = r->tgt_ip;
		*side = 1;
		return 1;
	case fb_fk_call_nopush:
		*ip = r->tgt_ip;
		*side = 1;
		return 1;
	case fb_fk_ret:
		*side = -2;
		if (!c->it)
			return fb_chain_tip(c, ip, 1);
		if (!fb_chain_can(c) || !fb_chain_bit(c) || !rs->count)
			return 0;
		fb_chain_take(c);
		return ptd_retstack_pop(rs, ip) == 0;
	default:
		break;
	}
	/* An indirect near jump or call (the kinds after fb_fk_ret). */
	*side = -1;
	if (r->fkind < fb_fk_ijmp || !fb_chain_tip(c, ip, 0))
		return 0;
	if (r->fkind == fb_fk_icall) {
		fb_shadow_push(dec, idx, r->fall_ip, r->mode);
		ptd_retstack_push(rs, r->fall_ip);
	}
	return 1;
}

/* Copy @k IPs from @src to @ips and, if @tscs is not NULL, time @t to each
 * of @k entries of @tscs. */
static inline void fb_put_insns(uint64_t *restrict ips, uint64_t *restrict tscs,
                                const uint64_t *restrict src, size_t k,
                                uint64_t t)
{
	size_t j;

	for (j = 0; j < k; ++j)
		ips[j] = src[j];
	if (tscs)
		for (j = 0; j < k; ++j)
			tscs[j] = t;
}

/* Four IPs or times: one 32-byte move where the CPU has AVX2 (gcc copies a
 * plain 64-byte memcpy() in 16-byte pieces). */
typedef uint64_t fb_vec __attribute__((vector_size(32)));

/* One step of fb_emit_with(): fb_wide IPs from @src to @ips and, if @tscs is
 * not NULL, time @t to fb_wide entries of @tscs. */
typedef void fb_step_fn(uint64_t *restrict ips, uint64_t *restrict tscs,
                        const uint64_t *restrict src, uint64_t t);

/* A step in 32-byte moves. */
static inline __attribute__((always_inline)) void
fb_step32(uint64_t *restrict ips, uint64_t *restrict tscs,
          const uint64_t *restrict src, uint64_t t)
{
	const fb_vec tv = {t, t, t, t};
	fb_vec a, b;

	memcpy(&a, src, sizeof(a));
	memcpy(&b, src + 4, sizeof(b));
	memcpy(ips, &a, sizeof(a));
	memcpy(ips + 4, &b, sizeof(b));
	if (tscs) {
		memcpy(tscs, &tv, sizeof(tv));
		memcpy(tscs + 4, &tv, sizeof(tv));
	}
}

/* Write the instructions of run @r to @ips (and @tscs: time @t, the last
 * one @tlast).  @room: how many entries the arrays have from @ips and
 * @tscs on (at least r->ninsn).  Where they have enough, the IPs and times
 * go in whole steps of fb_wide entries (@step), one or two per run on the
 * usual code: entries after the run's last are scratch that the next run
 * or the caller's next call overwrites (the pool has fb_wide readable
 * entries after each run), and the steps have no remainder loops to
 * mispredict.  (IPs and times in one loop: one exit branch per run, not
 * two; runs of up to 8 and of 9 to 16 instructions alternate, so the exits
 * mispredict.) */
static inline __attribute__((always_inline)) void
fb_emit_with(const struct ptd_flow_batch *dec, const struct fb_run *r,
             uint64_t *restrict ips, uint64_t *restrict tscs, size_t room,
             uint64_t t, uint64_t tlast, fb_step_fn *step)
{
	const uint64_t *restrict src = dec->offs + r->off;
	uint32_t k = r->ninsn, j = 0;

	if (__builtin_expect(room >= (size_t)k + fb_wide - 1, 1)) {
		do {
			step(ips + j, tscs ? tscs + j : NULL, src + j, t);
			j += fb_wide;
		} while (j < k);
	} else {
		fb_put_insns(ips, tscs, src, k, t);
	}
	if (tscs)
		tscs[k - 1] = tlast;
}

/* fb_emit_with() in 32-byte moves. */
static inline __attribute__((always_inline)) void
fb_emit(const struct ptd_flow_batch *dec, const struct fb_run *r,
        uint64_t *restrict ips, uint64_t *restrict tscs, size_t room,
        uint64_t t, uint64_t tlast)
{
	fb_emit_with(dec, r, ips, tscs, room, t, tlast, fb_step32);
}

/* The enable @en (ev's copy, already reported) taken as flow_event() takes
 * it after a disable: "resumed" where tracing comes back where it was
 * expected to, the IP moved to it, the engine's copy of the event. */
static inline void fb_enable(struct ptd_flow *flow, struct pt_event *en)
{
	if (flow->ip == en->variant.enabled.ip)
		en->variant.enabled.resumed = 1;
	flow->ip = en->variant.enabled.ip;
	flow->enabled = 1;
	flow->event = *en;
}

/* --- Event pairs in the chain ----------------------------------------------
 *
 * mruby's calls into the C library leave the IP filter: a TIP.PGD bound to
 * the branch that leaves (a PLT's indirect jump, say) and a TIP.PGE where
 * the trace comes back, about every 30 blocks.  The engine's way through
 * such a pair (the outcome before the disable, fetching the disable, the
 * runs up to the branch it binds to, fb_drain_pair(), the next call of
 * ptd_flow_next_*()) is the same every time; with the caller's events at
 * hand (ptd_flow_decode_*()), the chain takes it itself. */

/* Whether the chain's run @r holds its result back because a disable
 * (TIP.PGD with an IP) and an enable (TIP.PGE with an IP) follow it, with a
 * result after them that is neither an event nor an error: the last outcome
 * of its TNT item (a conditional branch, or a compressed return with a
 * return address to pop) or a TIP with an IP (an indirect jump or call, or
 * an uncompressed return).  The caller's events have room for both, and
 * the engine is in the state where fb_drain_pair() applies after the
 * disable binds. */
static inline int fb_pair_ok(const struct ptd_flow_batch *dec,
                             const struct fb_chain *c, const struct fb_run *r)
{
	const struct ptd_qsrc *qs = c->qs;
	const struct ptd_flow *flow = &dec->flow;
	const struct ptd_qry_item *it;
	const struct pt_event *d, *e;

	if (c->pos + 3 >= qs->n || c->logroom < 4)
		return 0;
	it = &qs->items[c->pos];
	if (c->it) {
		if (c->left || c->used + 1u != it->count)
			return 0;
		if (r->fkind == fb_fk_ret) {
			if (!fb_chain_bit(c) || !flow->retstack.count)
				return 0;
		} else if (r->fkind != fb_fk_cond) {
			return 0;
		}
	} else if (it->kind != ptd_qry_item_tip ||
	           (it->flags & ptd_qry_item_ip_suppressed) ||
	           r->fkind < fb_fk_ret) {
		return 0;
	}
	if (it[1].kind != ptd_qry_item_event ||
	    it[2].kind != ptd_qry_item_event ||
	    it[3].kind == ptd_qry_item_event ||
	    it[3].kind == ptd_qry_item_error)
		return 0;
	d = &qs->events[it[1].value];
	e = &qs->events[it[2].value];
	if (d->type != ptev_disabled || d->ip_suppressed || d->status_update ||
	    e->type != ptev_enabled || e->ip_suppressed || e->status_update)
		return 0;
	return dec->pev->n - dec->pev->count >= 2 && !flow->block &&
	       !flow->et_branch && !flow->tick && flow->enabled &&
	       !flow->process_insn;
}

/* In FB_CHAIN_LOOP, at run @r (index @idx) when fb_pair_ok(): take the held
 * result (fb_exec_term()) and the disable (flow_event_pending()), then the
 * runs up to the branch the disable binds to with fb_exec_disabled(),
 * then report the disable and the enable as fb_drain_pair() does, and go on
 * at the enable's IP.  Where a run is not one of those (no run, no room,
 * no branch at its end, a branch the engine takes), it stops there with
 * the engine as after the same steps (the disable waiting to bind), and the
 * caller's loop goes on from there. */
#define FB_CHAIN_PAIR(ROOM, EMIT)                                              \
	{                                                                      \
		struct ptd_qsrc *qs_ = c_.qs;                                  \
		const struct ptd_qry_item *it_ = &qs_->items[c_.pos];          \
		const struct ptd_qry_item *itd_ = it_ + 1, *ite_ = it_ + 2;    \
		struct ptd_flow_events *pev_ = dec->pev;                       \
		struct ptd_retstack *rs_ = &flow_->retstack;                   \
		const int tnt_ = c_.it != NULL;                                \
		const int tk_ = tnt_ ? fb_chain_bit(&c_) : 1;                  \
		struct pt_event *en_;                                          \
		uint32_t q_;                                                   \
		size_t k_;                                                     \
		int bound_ = 0, st_;                                           \
                                                                               \
		fb_chain_end(dec, &c_, r->ip);                                 \
		status = 0;                                                    \
		/* The held result: ptd_qsrc_cond() (refused before a TIP      \
		 * for a return), ptd_qsrc_indirect(); the disable:            \
		 * flow_event_pending(). */                                    \
		if (qs_->sync_known) {                                         \
			if (tnt_ || r->fkind == fb_fk_ret)                     \
				qs_->log[qs_->nlog++] = ptd_qsrc_call_cond;    \
			if (!tnt_)                                             \
				qs_->log[qs_->nlog++] =                        \
				        ptd_qsrc_call_indirect;                \
			qs_->log[qs_->nlog++] = ptd_qsrc_call_event;           \
		}                                                              \
		qs_->pos += 2;                                                 \
		qs_->used = 0;                                                 \
		flow_->event = qs_->events[itd_->value];                       \
		ptd_qsrc_take_time(qs_, itd_);                                 \
		flow_->process_event = 1;                                      \
		flow_->status = pts_event_pending;                             \
		if (!tnt_) {                                                   \
			ip = it_->value;                                       \
			if (r->fkind == fb_fk_icall)                           \
				ptd_retstack_push(rs_, r->fall_ip);            \
		} else if (r->fkind == fb_fk_ret) {                            \
			ip = 0;                                                \
			(void)ptd_retstack_pop(rs_, &ip);                      \
		} else {                                                       \
			ip = tk_ ? r->tgt_ip : r->fall_ip;                     \
		}                                                              \
		flow_->ip = ip;                                                \
		tlast = qs_->tsc;                                              \
		EMIT;                                                          \
		t = tlast;                                                     \
		q_ = r->fkind == fb_fk_cond                                    \
		             ? fb_follow(dec, idx, tk_, ip, mode_)             \
		             : fb_next(dec, idx, ip, mode_);                   \
		while (q_ != fb_no_run) {                                      \
			r = &dec->runs[q_];                                    \
			if (!(ROOM) || !r->has_term)                           \
				break;                                         \
			/* (-pte_bad_query: the engine takes it.) */           \
			st_ = fb_exec_disabled(flow_, &r->term);               \
			if (st_ < 0)                                           \
				break;                                         \
			bound_ = st_ & pts_event_pending;                      \
			ip = flow_->ip;                                        \
			EMIT;                                                  \
			if (bound_)                                            \
				break;                                         \
			q_ = fb_follow(dec, q_, 1, ip, mode_);                 \
		}                                                              \
		if (!bound_) {                                                 \
			/* (flow_->ip is the run's not taken.) */              \
			if (q_ != fb_no_run)                                   \
				flow_->ip = dec->runs[q_].ip;                  \
			break;                                                 \
		}                                                              \
		/* The pair. */                                                \
		ptd_fmem_check(&flow_->mem);                                   \
		k_ = pev_->count;                                              \
		pev_->events[k_] = flow_->event;                               \
		flow_->process_event = 0;                                      \
		if (qs_->sync_known)                                           \
			qs_->log[qs_->nlog++] = ptd_qsrc_call_event;           \
		en_ = &pev_->events[k_ + 1];                                   \
		*en_ = qs_->events[ite_->value];                               \
		ptd_qsrc_take_time(qs_, ite_);                                 \
		qs_->pos++;                                                    \
		flow_->status = 0;                                             \
		pev_->at[k_] = dec->pev_at + i;                                \
		pev_->at[k_ + 1] = dec->pev_at + i;                            \
		fb_enable(flow_, en_);                                         \
		pev_->count = k_ + 2;                                          \
		idx = fb_next(dec, q_, flow_->ip, mode_);                      \
		fb_chain_begin(dec, &c_);                                      \
		if (idx == fb_no_run)                                          \
			break;                                                 \
		continue;                                                      \
	}

/* The chain loop's inner loop, at the top of each of its turns (run @r at
 * index @idx): runs that end in a conditional branch, one after the other
 * on the outcomes of the chain's current TNT item, while each one's link
 * on the side taken is known and @ROOM holds.  The item's outcomes are a
 * mask with the next one in the top bit, and the chain's state is brought
 * up to date once, after the last run (fb_chain_took()); the time before
 * the first branch is the chain's, after each the item's.  Leaves the turn
 * with @idx at the next run (found with fb_follow() if the last run had no
 * link yet), or ends the chain where there is no run. */
#define FB_CHAIN_FAST(ROOM, EMIT)                                              \
	if (r->fkind == fb_fk_cond && fb_chain_can(&c_) && (ROOM)) {           \
		const struct ptd_qry_item *it_ = c_.it;                        \
		const struct fb_run *const runs_ = dec->runs;                  \
		const char *const links_ = (const char *)dec->links;           \
		uint64_t mask_ = it_->value << (64u - (it_->count - c_.used)); \
		uint32_t lim_ =                                                \
		        c_.left < c_.logroom ? c_.left : (uint32_t)c_.logroom; \
		uint32_t k_ = 0, nx_, cur_ = fb_link(idx);                     \
		int tk_;                                                       \
                                                                               \
		tlast = it_->tsc;                                              \
		for (;;) {                                                     \
			tk_ = (int)(mask_ >> 63);                              \
			mask_ <<= 1;                                           \
			k_++;                                                  \
			EMIT;                                                  \
			t = tlast;                                             \
			/* A branch on the outcome, not a select (the empty    \
			 * asm keeps it one): the predictor then follows the   \
			 * traced program, and the load need not wait for the  \
			 * outcome. */                                         \
			if (tk_) {                                             \
				nx_ = *(const uint32_t *)(links_ + cur_ + 4u); \
				__asm__("" : "+r"(nx_));                       \
			} else {                                               \
				nx_ = *(const uint32_t *)(links_ + cur_);      \
				__asm__("" : "+r"(nx_));                       \
			}                                                      \
			/* (No run there, or one that does not end in a        \
			 * conditional branch: fb_link_other.) */              \
			if ((int32_t)nx_ < 0 || k_ == lim_)                    \
				break;                                         \
			r = &runs_[fb_link_idx(nx_)];                          \
			if (!(ROOM))                                           \
				break;                                         \
			cur_ = nx_;                                            \
		}                                                              \
		idx = fb_link_idx(cur_);                                       \
		fb_chain_took(&c_, k_);                                        \
		if (nx_ == fb_no_run) {                                        \
			ip = tk_ ? r->tgt_ip : r->fall_ip;                     \
			nx_ = fb_follow(dec, idx, tk_, ip, mode_);             \
			if (nx_ == fb_no_run) {                                \
				fb_chain_end(dec, &c_, ip);                    \
				break;                                         \
			}                                                      \
		} else {                                                       \
			nx_ = fb_link_idx(nx_);                                \
		}                                                              \
		idx = nx_;                                                     \
		continue;                                                      \
	}

/* Runs one after the other from run @idx on, while the engine is quiet:
 * chained (fb_chain_branch()) where possible, else with the engine's
 * fb_exec_term().  For each run taken, @emit is called with the run, the
 * time before and after its branch.  Returns the status of the last run
 * taken (0 if none) or a negative error (the run that failed is taken);
 * *@stop is set if the caller must return it (an error, an event, the end
 * of the trace).  The engine is left at the first run not taken. */
#define FB_CHAIN_LOOP(ROOM, EMIT)                                              \
	do {                                                                   \
		struct ptd_flow *flow_ = &dec->flow;                           \
		struct fb_chain c_;                                            \
		uint8_t mode_ = (uint8_t)flow_->mode;                          \
                                                                               \
		fb_chain_begin(dec, &c_);                                      \
		for (;;) {                                                     \
			const struct fb_run *r = &dec->runs[idx];              \
			uint64_t t = c_.tsc, tlast, ip;                        \
			int side_ = -1;                                        \
                                                                               \
			FB_CHAIN_FAST(ROOM, EMIT)                              \
			if (!(ROOM) || !r->has_term) {                         \
				fb_chain_end(dec, &c_, r->ip);                 \
				break;                                         \
			}                                                      \
			if (r->fkind &&                                        \
			    fb_chain_branch(dec, &c_, r, idx, &ip, &side_)) {  \
				tlast = c_.tsc;                                \
				EMIT;                                          \
			} else {                                               \
				if (r->fkind && dec->pev &&                    \
				    fb_pair_ok(dec, &c_, r))                   \
					FB_CHAIN_PAIR(ROOM, EMIT)              \
				fb_chain_end(dec, &c_, r->ip);                 \
				status = fb_exec_term(flow_, &r->term);        \
				tlast = fb_now(flow_);                         \
				EMIT;                                          \
				if (status < 0) {                              \
					dec->err_ip = r->term.ip;              \
					*stop = 1;                             \
					break;                                 \
				}                                              \
				if (status & (pts_event_pending | pts_eos)) {  \
					fb_set_last(dec, idx);                 \
					*stop = 1;                             \
					break;                                 \
				}                                              \
				if (!fb_fast(flow_) || flow_->mode != mode_)   \
					break;                                 \
				fb_chain_begin(dec, &c_);                      \
				ip = flow_->ip;                                \
			}                                                      \
			if (side_ >= 0)                                        \
				idx = fb_follow(dec, idx, side_, ip, mode_);   \
			else if (side_ == -2)                                  \
				idx = fb_shadow_pop(dec, idx, ip, mode_);      \
			else                                                   \
				idx = fb_next(dec, idx, ip, mode_);            \
			if (idx == fb_no_run) {                                \
				/* No run there: the engine steps. */          \
				fb_chain_end(dec, &c_, ip);                    \
				break;                                         \
			}                                                      \
		}                                                              \
	} while (0)

/* Instructions of runs from run @idx on into @ips/@tscs from *@cnt up to
 * @n (see FB_CHAIN_LOOP), each run written with @EMITFN.  Writing the IPs
 * and times is most of the work: where the CPU has AVX2, a copy compiled
 * for it (fb_chain_insns_avx2()) writes them 32 bytes at a time, and where
 * it has AVX-512, one (fb_chain_insns_avx512()) 64 bytes at a time. */
#define FB_CHAIN_INSNS_FN(NAME, ATTR, EMITFN)                                  \
	ATTR static int NAME(struct ptd_flow_batch *dec, uint32_t idx,         \
	                     uint64_t *ips, uint64_t *tscs, size_t *cnt,       \
	                     size_t n, int *stop)                              \
	{                                                                      \
		size_t i = *cnt;                                               \
		int status = 0;                                                \
                                                                               \
		*stop = 0;                                                     \
		FB_CHAIN_LOOP(r->ninsn <= n - i, {                             \
			EMITFN(dec, r, ips + i, tscs ? tscs + i : NULL, n - i, \
			       t, tlast);                                      \
			i += r->ninsn;                                         \
		});                                                            \
		*cnt = i;                                                      \
		return status;                                                 \
	}

FB_CHAIN_INSNS_FN(fb_chain_insns, , fb_emit)

#ifdef FB_AVX2
FB_CHAIN_INSNS_FN(fb_chain_insns_avx2, __attribute__((target("avx2"))), fb_emit)

/* Eight IPs or times: one 64-byte move where the CPU has AVX-512. */
typedef uint64_t fb_vec8 __attribute__((vector_size(64)));

/* A step in 64-byte moves. */
static inline __attribute__((always_inline)) void
fb_step64(uint64_t *restrict ips, uint64_t *restrict tscs,
          const uint64_t *restrict src, uint64_t t)
{
	const fb_vec8 tv = {t, t, t, t, t, t, t, t};
	fb_vec8 a;

	memcpy(&a, src, sizeof(a));
	memcpy(ips, &a, sizeof(a));
	if (tscs)
		memcpy(tscs, &tv, sizeof(tv));
}

/* fb_emit_with() in 64-byte moves instead of two of 32 bytes: the
 * instruction flow with times on mruby x N about 2 % faster (92.8 against
 * 90.8 MB/s best, 92.0 against 90.0 mean, 6 alternating rounds,
 * docs/flow-batch.md).  The same with a second step whose load is masked
 * instead of a loop (no exit to mispredict for runs of up to 16) was 4 %
 * slower than the AVX2 loop. */
static inline __attribute__((always_inline)) void
fb_emit512(const struct ptd_flow_batch *dec, const struct fb_run *r,
           uint64_t *restrict ips, uint64_t *restrict tscs, size_t room,
           uint64_t t, uint64_t tlast)
{
	fb_emit_with(dec, r, ips, tscs, room, t, tlast, fb_step64);
}

FB_CHAIN_INSNS_FN(fb_chain_insns_avx512, __attribute__((target("avx512f"))),
                  fb_emit512)
#endif

/* Blocks of runs from run @idx on into @blocks from *@cnt up to @n (see
 * FB_CHAIN_LOOP). */
static int fb_chain_blocks(struct ptd_flow_batch *dec, uint32_t idx,
                           struct ptd_flow_block *blocks, size_t *cnt, size_t n,
                           int *stop)
{
	size_t i = *cnt;
	int status = 0;

	*stop = 0;
	FB_CHAIN_LOOP(i < n, {
		(void)t;
		/* (r->mode is mode_: runs are looked up by IP and mode.) */
		fb_put_block(&blocks[i++], r, tlast);
	});
	*cnt = i;
	return status;
}

/* --- Decoding --------------------------------------------------------------
 */

/* Where ptd_flow_next_insns() goes on inside the run the last call stopped
 * in: the index of the next instruction in run dec->part_idx, if the engine
 * is quiet and still at that instruction, in the same mode, with the same
 * cache; else 0 (then the run at the IP is looked up or built).  From any
 * instruction of a run, the rest of the run is the same code. */
static inline uint32_t fb_resume(const struct ptd_flow_batch *dec)
{
	const struct fb_run *run;

	if (dec->part_idx == fb_no_run || dec->part_gen != dec->gen ||
	    dec->part_idx >= dec->nruns || !fb_fast(&dec->flow))
		return 0;
	run = &dec->runs[dec->part_idx];
	if (dec->part_off >= run->ninsn || run->mode != dec->flow.mode ||
	    dec->offs[run->off + dec->part_off] != dec->flow.ip)
		return 0;
	return dec->part_off;
}

/* One instruction as pt_insn_next() does it: *@done is set if it was
 * decoded (and so reported, also with an error after it).  Returns the
 * status or a negative error. */
static int fb_step(struct ptd_flow_batch *dec, struct ptd_finsn *fi, int *done)
{
	struct ptd_flow *flow = &dec->flow;
	int status;

	*done = 0;
	if (!flow->enabled) {
		/* pt_insn_next() reports no instruction (IP 0). */
		dec->err_ip = 0;
		if (flow->status & pts_eos)
			return -pte_eos;
		return -pte_no_enable;
	}
	fi->raw = NULL;
	fi->size = 0;
	fi->isid = 0;
	status = ptd_flow_fetch(flow, fi);
	if (status < 0) {
		dec->err_ip = flow->ip;
		return status;
	}
	/* pt_insn_next() reports an instruction of unknown class with
	 * the error, as not decoded. */
	*done = fi->iclass != ptic_unknown;
	status = ptd_flow_exec(flow, fi);
	if (status < 0)
		dec->err_ip = fi->ip;
	return status;
}

int ptd_flow_next_insns(struct ptd_flow_batch *dec, uint64_t *ips,
                        uint64_t *tscs, size_t n, size_t *count)
{
	struct ptd_flow *flow;
	uint32_t prev;
	size_t cnt = 0;
	int status = 0;

	if (!dec || !ips || !count)
		return -pte_invalid;
	*count = 0;
	if (!n)
		return 0;
	flow = &dec->flow;
	ptd_fmem_check(&flow->mem);
	fb_check(dec);
	prev = fb_take_last(dec);

	while (cnt < n) {
		if (fb_runs_ok(flow)) {
			uint32_t idx, o = fb_resume(dec);

			if (o) {
				idx = dec->part_idx;
			} else {
				idx = fb_run_at(dec, prev);
			}
			dec->part_idx = fb_no_run;
			prev = fb_no_run;
			if (!o && idx != fb_no_run && fb_fast(flow)) {
				size_t before = cnt;
				int stop;

#ifdef FB_AVX2
				if (dec->avx2 > 1)
					status = fb_chain_insns_avx512(
					        dec, idx, ips, tscs, &cnt, n,
					        &stop);
				else if (dec->avx2)
					status = fb_chain_insns_avx2(
					        dec, idx, ips, tscs, &cnt, n,
					        &stop);
				else
#endif
					status = fb_chain_insns(dec, idx, ips,
					                        tscs, &cnt, n,
					                        &stop);
				if (stop)
					break;
				if (cnt != before)
					continue;
			}
			if (idx != fb_no_run &&
			    dec->runs[idx].ninsn - o <= n - cnt) {
				/* The run, or the rest of it from instruction
				 * @o on. */
				const struct fb_run *run = &dec->runs[idx];
				uint32_t k = run->ninsn - o;

				fb_put_insns(ips + cnt,
				             tscs ? tscs + cnt : NULL,
				             dec->offs + run->off + o, k,
				             tscs ? fb_now(flow) : 0);
				cnt += k;
				if (!run->has_term) {
					flow->ip = run->next_ip;
					continue;
				}
				status = fb_exec_term(flow, &run->term);
				/* (Also after an error: the branch is reported
				 * with it, and its time is pt_insn_time()'s
				 * after the failed query.) */
				if (tscs)
					tscs[cnt - 1] = fb_now(flow);
				if (status < 0) {
					dec->err_ip = run->term.ip;
					break;
				}
				if (status & (pts_event_pending | pts_eos)) {
					fb_set_last(dec, idx);
					break;
				}
				/* (The address space changes only with an
				 * event, which ends the call: the cache stays
				 * valid until then.) */
				prev = idx;
				continue;
			}
			if (idx != fb_no_run && fb_fast(flow)) {
				/* The run does not fit: the instructions that
				 * do are of class ptic_other (only a run's
				 * last one is not), and each only moves the
				 * IP on, to the next one in the run.  The next
				 * call goes on there (fb_resume()). */
				const struct fb_run *run = &dec->runs[idx];
				const uint64_t *src = dec->offs + run->off + o;
				size_t m = n - cnt;

				fb_put_insns(ips + cnt,
				             tscs ? tscs + cnt : NULL, src, m,
				             tscs ? fb_now(flow) : 0);
				cnt = n;
				flow->ip = src[m];
				dec->part_idx = idx;
				dec->part_off = o + (uint32_t)m;
				dec->part_gen = dec->gen;
				status = ptd_flow_status(flow, 0);
				break;
			}
		}

		{
			struct ptd_finsn fi;
			int done;

			/* (No run ends with this instruction.) */
			prev = fb_no_run;
			status = fb_step(dec, &fi, &done);
			if (done) {
				ips[cnt] = fi.ip;
				if (tscs)
					tscs[cnt] = fb_now(flow);
				cnt += 1;
			}
			if (status < 0 ||
			    (status & (pts_event_pending | pts_eos)))
				break;
			fb_check(dec);
		}
	}
	*count = cnt;
	return dec->last_status = ptd_qsrc_result(&flow->qs, status);
}

int ptd_flow_next_blocks(struct ptd_flow_batch *dec,
                         struct ptd_flow_block *blocks, size_t n, size_t *count)
{
	struct ptd_flow *flow;
	struct ptd_flow_block *open = NULL;
	uint64_t open_next = 0;
	uint32_t prev;
	size_t cnt = 0;
	int status = 0;

	if (!dec || !blocks || !count)
		return -pte_invalid;
	*count = 0;
	if (!n)
		return 0;
	flow = &dec->flow;
	ptd_fmem_check(&flow->mem);
	fb_check(dec);
	prev = fb_take_last(dec);

	for (;;) {
		uint64_t ip, end_ip, next;
		uint32_t k;
		uint8_t iclass, mode = (uint8_t)flow->mode;
		int closed;

		if (cnt == n)
			break;
		if (fb_runs_ok(flow)) {
			uint32_t idx = fb_run_at(dec, prev);

			prev = fb_no_run;
			if (idx != fb_no_run && !open && fb_fast(flow)) {
				size_t before = cnt;
				int stop;

				status = fb_chain_blocks(dec, idx, blocks, &cnt,
				                         n, &stop);
				if (stop)
					break;
				if (cnt != before)
					continue;
			}
			if (idx != fb_no_run) {
				const struct fb_run *run = &dec->runs[idx];

				ip = run->ip;
				k = run->ninsn;
				end_ip = run->end_ip;
				if (!run->has_term) {
					flow->ip = run->next_ip;
					iclass = ptic_other;
					next = run->next_ip;
					closed = 0;
					status = 0;
				} else {
					status = fb_exec_term(flow, &run->term);
					iclass = run->term.iclass;
					next = 0;
					closed = 1;
					prev = idx;
				}
				goto emit;
			}
		}
		{
			struct ptd_finsn fi;
			int done;

			/* (No run ends with this instruction.) */
			prev = fb_no_run;
			status = fb_step(dec, &fi, &done);
			if (!done)
				break;
			ip = end_ip = fi.ip;
			k = 1;
			iclass = fi.iclass;
			next = fi.ip + fi.size;
			closed = fi.iclass != ptic_other;
		}
	emit:
		if (open && open->mode == mode && ip == open_next &&
		    open->ninsn + k <= 0xffff) {
			open->ninsn = (uint16_t)(open->ninsn + k);
		} else {
			open = &blocks[cnt++];
			open->ip = ip;
			open->ninsn = (uint16_t)k;
			open->mode = mode;
			open->reserved = 0;
		}
		open->end_ip = end_ip;
		open->iclass = iclass;
		open->tsc = fb_now(flow);
		open_next = next;
		if (status < 0) {
			dec->err_ip = end_ip;
			break;
		}
		if (closed)
			open = NULL;
		if (status & (pts_event_pending | pts_eos)) {
			fb_set_last(dec, prev);
			break;
		}
		if (!closed && open->ninsn == 0xffff)
			open = NULL;
		fb_check(dec);
	}
	*count = cnt;
	return dec->last_status = ptd_qsrc_result(&flow->qs, status);
}

/* --- Events in the same call ---------------------------------------------- */

/* ptd_flow_batch_event() twice, for the commonest pair of events: tracing
 * leaves the filter ranges (a synchronous disable, bound) and comes back
 * (an enable, the next item of the query source).  What flow.c's
 * flow_event() does for them, without its dispatch, and with the enable
 * loaded straight into @ev's array: the disable is reported, the enable
 * loaded (the one copy kept in the engine, too), its resumed flag set, the
 * IP moved to it; then the engine looks for a next event as after every
 * event.  Returns fb_not_taken if it does not apply (nothing done), else
 * the status after the enable or a negative error (as flow_event()'s, with
 * the same events reported). */
static int fb_drain_pair(struct ptd_flow_batch *dec, struct ptd_flow_events *ev,
                         size_t at)
{
	struct ptd_flow *flow = &dec->flow;
	struct ptd_qsrc *qs = &flow->qs;
	const struct ptd_qry_item *it;
	const struct pt_event *next;
	struct pt_event *en;
	size_t k = ev->count;
	int status;

	if (!flow->process_event || flow->process_insn || !flow->enabled ||
	    flow->block || flow->et_branch ||
	    !(flow->status & pts_event_pending) ||
	    flow->event.type != ptev_disabled || flow->event.status_update ||
	    ev->n - k < 2 || !qs->batch || qs->pos >= qs->n)
		return fb_not_taken;
	it = &qs->items[qs->pos];
	if (it->kind != ptd_qry_item_event)
		return fb_not_taken;
	next = &qs->events[it->value];
	if (next->type != ptev_enabled || next->ip_suppressed ||
	    next->status_update)
		return fb_not_taken;

	/* The disable. */
	ptd_fmem_check(&flow->mem);
	ev->events[k] = flow->event;
	flow->enabled = 0;
	flow->process_event = 0;
	/* The enable, loaded (flow_event_pending()). */
	en = &ev->events[k + 1];
	status = ptd_qsrc_event(qs, en);
	if (status < 0)
		return status;
	flow->status = status;
	ev->at[k] = at;
	fb_enable(flow, en);
	/* (No ptd_fmem_check() again, as flow_event() does per event:
	 * nothing between the two events can change the image.) */
	ev->at[k + 1] = at;
	/* (An error after the enable is that event's error: as
	 * ptd_flow_batch_event(), the event is not reported then.) */
	status = ptd_flow_check_ip_event(flow, NULL);
	ev->count = status < 0 ? k + 1 : k + 2;
	return status;
}

/* Report the pending events into @ev while it has room, each at place @at:
 * the status after the last one (pts_event_pending still set if @ev is
 * full), or a negative error. */
static int fb_drain(struct ptd_flow_batch *dec, struct ptd_flow_events *ev,
                    size_t at, int status)
{
	while (status >= 0 && (status & pts_event_pending) &&
	       ev->count < ev->n) {
		status = fb_drain_pair(dec, ev, at);
		if (status != fb_not_taken) {
			status = ptd_qsrc_result(&dec->flow.qs, status);
			continue;
		}
		status = ptd_flow_batch_event(dec, &ev->events[ev->count],
		                              sizeof(ev->events[0]));
		if (status < 0)
			break;
		ev->at[ev->count++] = at;
	}
	/* An error of an event has no IP (ptd_flow_batch_error_ip()). */
	if (status < 0)
		dec->err_ip = 0;
	return status;
}

static int fb_events_ok(const struct ptd_flow_events *ev)
{
	return ev && ev->n && ev->events && ev->at;
}

/* The caller's arrays of ptd_flow_decode_insns() (@blocks NULL) or
 * ptd_flow_decode_blocks(). */
struct fb_out {
	uint64_t *ips, *tscs;
	struct ptd_flow_block *blocks;
};

/* ptd_flow_decode_*(): ptd_flow_next_*() into @out, with the events drained
 * into @ev before, between and after the calls. */
static int fb_decode(struct ptd_flow_batch *dec, const struct fb_out *out,
                     size_t n, size_t *count, struct ptd_flow_events *ev)
{
	size_t cnt = 0;
	int status;

	*count = 0;
	ev->count = 0;
	/* (After an error, decoding goes on as ptd_flow_next_*() would.) */
	status = dec->last_status < 0 ? 0 : dec->last_status;
	for (;;) {
		size_t k = 0;

		status = fb_drain(dec, ev, cnt, status);
		if (status < 0 || (status & (pts_event_pending | pts_eos)) ||
		    cnt == n)
			break;
		dec->pev = ev;
		dec->pev_at = cnt;
		if (out->blocks)
			status = ptd_flow_next_blocks(dec, out->blocks + cnt,
			                              n - cnt, &k);
		else
			status = ptd_flow_next_insns(dec, out->ips + cnt,
			                             out->tscs ? out->tscs + cnt
			                                       : NULL,
			                             n - cnt, &k);
		dec->pev = NULL;
		cnt += k;
		/* (Without an event pending, it stopped at the end of the
		 * arrays or of the trace.) */
		if (status < 0 || !(status & pts_event_pending))
			break;
	}
	*count = cnt;
	return dec->last_status = status;
}

int ptd_flow_decode_insns(struct ptd_flow_batch *dec, uint64_t *ips,
                          uint64_t *tscs, size_t n, size_t *count,
                          struct ptd_flow_events *ev)
{
	const struct fb_out out = {ips, tscs, NULL};

	if (!dec || !ips || !count || !fb_events_ok(ev))
		return -pte_invalid;
	return fb_decode(dec, &out, n, count, ev);
}

int ptd_flow_decode_blocks(struct ptd_flow_batch *dec,
                           struct ptd_flow_block *blocks, size_t n,
                           size_t *count, struct ptd_flow_events *ev)
{
	const struct fb_out out = {NULL, NULL, blocks};

	if (!dec || !blocks || !count || !fb_events_ok(ev))
		return -pte_invalid;
	return fb_decode(dec, &out, n, count, ev);
}
