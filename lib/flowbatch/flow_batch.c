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
 * the engine is not quiet (events, ticks, a run that does not fit), the
 * decoder steps one instruction at a time exactly as pt_insn_next() does.
 *
 * The run cache depends on the code only: it is dropped when the image, its
 * generation or the address space changes. */
#include "flow/flow.h"

#include "ptdecode/ptd_flow_batch.h"

#include <stdlib.h>
#include <string.h>

/* At most this many instructions per run (a run never needs more room than
 * this in the caller's array). */
enum { fb_max_run = 1024, fb_no_run = 0xffffffffu };

struct fb_run {
	uint64_t ip;
	/* The IP after the run if it has no branch at its end. */
	uint64_t next_ip;
	/* Index of the first offset in the pool, number of instructions. */
	uint32_t off;
	uint32_t ninsn;
	uint8_t mode;
	/* @term is the last instruction (not ptic_other). */
	uint8_t has_term;
	/* The runs that followed this one last (a small successor cache:
	 * two IPs, e.g. the taken and not-taken side of a conditional
	 * branch). */
	uint64_t succ_ip[2];
	uint32_t succ[2];
	struct ptd_finsn term;
};

struct ptd_flow_batch {
	struct ptd_flow flow;
	uint64_t err_ip;

	/* The run cache and what it is valid for. */
	struct fb_run *runs;
	uint32_t nruns, caprun;
	uint32_t *offs;
	size_t noffs, capoffs;
	uint32_t *table; /* run index + 1, 0 for empty */
	uint32_t tbits;
	const struct pt_image *cache_image;
	uint64_t cache_gen;
	uint64_t cache_cr3, cache_vmcs;
};

struct ptd_flow_batch *ptd_flow_batch_alloc(const struct pt_config *config,
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
	return dec;
}

void ptd_flow_batch_free(struct ptd_flow_batch *dec)
{
	if (!dec)
		return;
	ptd_flow_fini(&dec->flow);
	free(dec->runs);
	free(dec->offs);
	free(dec->table);
	free(dec);
}

int ptd_flow_batch_set_image(struct ptd_flow_batch *dec, struct pt_image *image)
{
	if (!dec)
		return -pte_invalid;
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
	return ptd_flow_sync(&dec->flow, 0, 0);
}

int ptd_flow_batch_sync_backward(struct ptd_flow_batch *dec)
{
	if (!dec)
		return -pte_invalid;
	return ptd_flow_sync(&dec->flow, 1, 0);
}

int ptd_flow_batch_sync_set(struct ptd_flow_batch *dec, uint64_t offset)
{
	if (!dec)
		return -pte_invalid;
	return ptd_flow_sync(&dec->flow, 2, offset);
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
	return ptd_flow_event(&dec->flow, event, size);
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
	if (dec->nruns >= (1u << 20)) /* a bound on memory: start over */
		fb_flush(dec);
	if (dec->nruns == dec->caprun) {
		uint32_t cap = dec->caprun ? dec->caprun * 2 : 256;
		struct fb_run *runs = realloc(dec->runs, cap * sizeof(*runs));

		if (!runs)
			return -pte_nomem;
		dec->runs = runs;
		dec->caprun = cap;
	}
	if (dec->capoffs - dec->noffs < fb_max_run) {
		size_t cap = dec->capoffs ? dec->capoffs * 2 : 16384;
		uint32_t *offs = realloc(dec->offs, cap * sizeof(*offs));

		if (!offs)
			return -pte_nomem;
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
	uint32_t *offs, k = 0;

	if (fb_reserve(dec) < 0)
		return fb_no_run;
	offs = dec->offs + dec->noffs;
	run = &dec->runs[dec->nruns];
	memset(run, 0, sizeof(*run));
	run->succ[0] = run->succ[1] = fb_no_run;
	for (;;) {
		if (ptd_fmem_fetch(&flow->mem, &fi, &flow->asid, cur, mode) < 0)
			break;
		if (!fi.sec || fi.truncated || (sec && fi.sec != sec) ||
		    fi.iclass == ptic_unknown)
			break;
		sec = fi.sec;
		offs[k++] = (uint32_t)(cur - ip);
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
	run->ip = ip;
	run->next_ip = cur;
	run->off = (uint32_t)dec->noffs;
	run->ninsn = k;
	run->mode = (uint8_t)mode;
	dec->noffs += k;
	fb_insert(dec, dec->nruns);
	return dec->nruns++;
}

/* The run at the current IP: from the successor cache of @prev (a run
 * index or fb_no_run), the hash table, or decoded now. */
static inline uint32_t fb_run_at(struct ptd_flow_batch *dec, uint32_t prev)
{
	const struct ptd_flow *flow = &dec->flow;
	uint64_t ip = flow->ip;
	uint32_t idx;

	if (prev != fb_no_run) {
		struct fb_run *p = &dec->runs[prev];

		if (p->succ_ip[0] == ip && p->succ[0] != fb_no_run &&
		    dec->runs[p->succ[0]].mode == flow->mode)
			return p->succ[0];
		if (p->succ_ip[1] == ip && p->succ[1] != fb_no_run &&
		    dec->runs[p->succ[1]].mode == flow->mode)
			return p->succ[1];
	}
	idx = fb_find(dec, ip, (uint8_t)flow->mode);
	if (idx == fb_no_run) {
		idx = fb_build(dec, ip, flow->mode);
		if (idx == fb_no_run)
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

/* --- Decoding -------------------------------------------------------------- */

/* The time pt_insn_time() reports now. */
static inline uint64_t fb_now(struct ptd_flow *flow)
{
	uint64_t tsc = 0;

	if (flow->qs.batch)
		return flow->qs.tsc;
	(void)ptd_qsrc_time(&flow->qs, &tsc, NULL, NULL);
	return tsc;
}

/* Take the branch at the end of a run: ptd_flow_exec() on it, with the
 * most frequent case, a conditional branch while the engine is quiet (no
 * tick events in the fast path), inline: flow_proceed()'s conditional branch
 * and ptd_flow_exec()'s status. */
static inline int fb_exec_term(struct ptd_flow *flow, const struct ptd_finsn *t)
{
	int status, taken;

	if (t->iclass != ptic_cond_jump)
		return ptd_flow_exec(flow, t);
	flow->ip = t->ip + t->size;
	status = ptd_qsrc_cond(&flow->qs, &taken);
	if (status < 0)
		return status;
	flow->status = status;
	if (taken)
		flow->ip += (uint64_t)(int64_t)t->disp;
	if (ptd_flow_quiet(flow))
		return ptd_flow_status(flow, 0);
	return ptd_flow_after(flow, t);
}

/* Whether the next instructions may come from the run cache. */
static inline int fb_fast(const struct ptd_flow *flow)
{
	return ptd_flow_quiet(flow) && flow->enabled && !flow->tick &&
	       !(flow->status & pts_eos);
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
		dec->err_ip = flow->ip;
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
	uint32_t prev = fb_no_run;
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

	while (cnt < n) {
		if (fb_fast(flow)) {
			uint32_t idx = fb_run_at(dec, prev);

			prev = fb_no_run;
			if (idx != fb_no_run && dec->runs[idx].ninsn <= n - cnt) {
				const struct fb_run *run = &dec->runs[idx];
				const uint32_t *offs = dec->offs + run->off;
				uint64_t base = run->ip, *out = ips + cnt;
				uint32_t k = run->ninsn, j;

				for (j = 0; j < k; ++j)
					out[j] = base + offs[j];
				if (tscs) {
					uint64_t t = fb_now(flow);

					for (j = 0; j < k; ++j)
						tscs[cnt + j] = t;
				}
				cnt += k;
				if (!run->has_term) {
					flow->ip = run->next_ip;
					continue;
				}
				status = fb_exec_term(flow, &run->term);
				if (status < 0) {
					dec->err_ip = run->term.ip;
					break;
				}
				if (tscs)
					tscs[cnt - 1] = fb_now(flow);
				if (status & (pts_event_pending | pts_eos))
					break;
				/* An address-space change cannot happen
				 * without an event, but keep the cache
				 * honest. */
				prev = idx;
				continue;
			}
		}

		{
			struct ptd_finsn fi;
			int done;

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
	return status;
}

int ptd_flow_next_blocks(struct ptd_flow_batch *dec,
                         struct ptd_flow_block *blocks, size_t n, size_t *count)
{
	struct ptd_flow *flow;
	struct ptd_flow_block *open = NULL;
	uint64_t open_next = 0;
	uint32_t prev = fb_no_run;
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

	for (;;) {
		uint64_t ip, end_ip, next;
		uint32_t k;
		uint8_t iclass, mode = (uint8_t)flow->mode;
		int closed;

		if (cnt == n)
			break;
		if (fb_fast(flow)) {
			uint32_t idx = fb_run_at(dec, prev);

			prev = fb_no_run;
			if (idx != fb_no_run) {
				const struct fb_run *run = &dec->runs[idx];

				ip = run->ip;
				k = run->ninsn;
				end_ip = ip + dec->offs[run->off + k - 1];
				if (!run->has_term) {
					flow->ip = run->next_ip;
					iclass = ptic_other;
					next = run->next_ip;
					closed = 0;
					status = 0;
				} else {
					status = fb_exec_term(flow,
					                      &run->term);
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
		if (status & (pts_event_pending | pts_eos))
			break;
		if (!closed && open->ninsn == 0xffff)
			open = NULL;
		fb_check(dec);
	}
	*count = cnt;
	return status;
}
