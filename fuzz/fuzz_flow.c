/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the instruction-flow and block decoders on arbitrary
 * code and trace.
 *
 * Input: byte 0 selects the configuration, bytes 1-2 the size of the code
 * (bits 12:0, little endian, modulo 4097: at most 4096 bytes, and at most
 * what is there; loaded at 0x400000), which follows; the rest is the trace.
 * Bit 15 of bytes 1-2 is not used (it once chose one of the two paths
 * below; both run now).
 *   bit 0     block decoder flag end_on_call
 *   bit 1     block decoder flag end_on_jump
 *   bit 2     tick events (both decoders)
 *   bit 3     the code through a read-memory callback instead of
 *             ptd_image_add_buffer()
 *   bit 4     errata bdm70, bdm64, skd022, skl014 (with a filter range
 *             around the code), skd010, apl11, apl12
 *   bit 5     keep_tcal_on_ovf
 *   bits 7:6  timing: none; mtc_freq 3 + CPUID 0x15 2/100 + nom_freq 12;
 *             mtc_freq 0 + 3/7; mtc_freq 9 + 1/1
 *
 * Both decoders are run as ptxed runs them: sync forward, drain events,
 * next instruction or block, after an error sync forward at the next PSB,
 * until the end of the trace.  A loop of direct branches needs no trace, so
 * the instructions and blocks decoded per input are capped.  Each decoder
 * runs twice: on the batch path (the offset asked for only after errors)
 * and on the pull path (the offset asked for before every instruction,
 * block and event, as ptxed --offset does; the decoders then take the query
 * results from the pull API instead of batches, docs/flow.md).
 *
 * Checks: no crash or sanitizer report; every offset and sync offset within
 * the trace, sync offsets on a PSB and strictly increasing (on both paths);
 * every instruction inside the code with its raw bytes equal to the code's,
 * a size of 1 to 15, a known class and a known mode; every block inside the
 * code, its last instruction inside it too, and a known class and mode;
 * known event types; pt_insn_time/pt_blk_time and the get_offset functions
 * succeed after synchronization; without errors and caps, both decoders
 * report the same number of instructions (but where a TIP.PGD with an IP
 * comes after a block that ends in no branch: the block decoder binds it
 * where the flow stands, the instruction-flow decoder to the next branch,
 * as libipt's two decoders do, docs/flow.md); and both paths of a decoder give
 * the same synchronizations, sync offsets, errors with their offsets,
 * instructions, blocks and events (with their times), and after each
 * event, instruction and block the same core:bus ratio and address space
 * (pt_*_core_bus_ratio(), pt_*_asid()). */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_flow_input.h"

#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_MAX_INSNS = 1 << 15, FUZZ_MAX_BLOCKS = 1 << 12 };

struct fuzz_flow {
	const uint8_t *code;
	size_t code_size;
	const uint8_t *trace;
	size_t trace_size;
};

/* What a decoder did on one path, to compare the two: the first
 * synchronizations and ends of PSB segments as records ('S' and the sync
 * offset; 'E', the error and its offset; 'e', the status at the end of the
 * trace (pts_eos or -pte_eos) and the instructions; 'x', the status of the
 * pt_*_sync_forward() after that end and the offset then; 'F' and the error of
 * a failed synchronization; 'C' and the instructions at the cap), each with the
 * hash so far, and a hash of everything (records, instructions, blocks,
 * events). */
enum { FUZZ_RECORDS = 64 };

struct fuzz_run {
	/* Ask for the offset before every result (the pull path). */
	int offsets;
	uint64_t rec[FUZZ_RECORDS][4];
	size_t nrec;
	uint64_t hash;
};

/* FNV-1a over the bytes of @v. */
static void fuzz_hash(struct fuzz_run *run, uint64_t v)
{
	unsigned i;

	for (i = 0; i < 8; i++) {
		run->hash ^= (v >> (8 * i)) & 0xff;
		run->hash *= 0x100000001b3ull;
	}
}

static void fuzz_record(struct fuzz_run *run, char kind, uint64_t a, uint64_t b)
{
	fuzz_hash(run, (uint64_t)kind);
	fuzz_hash(run, a);
	fuzz_hash(run, b);
	if (run->nrec < FUZZ_RECORDS) {
		run->rec[run->nrec][0] = (uint64_t)kind;
		run->rec[run->nrec][1] = a;
		run->rec[run->nrec][2] = b;
		run->rec[run->nrec][3] = run->hash;
	}
	run->nrec++;
}

static void fuzz_run_init(struct fuzz_run *run, int offsets)
{
	memset(run, 0, sizeof(*run));
	run->offsets = offsets;
	run->hash = 0xcbf29ce484222325ull;
}

/* The batch path and the pull path of a decoder must agree. */
static void fuzz_compare(const struct fuzz_run *batch,
                         const struct fuzz_run *pull, const char *what)
{
	size_t i, n = batch->nrec;

	for (i = 0; i < n && i < pull->nrec && i < FUZZ_RECORDS; i++) {
		const uint64_t *b = batch->rec[i], *p = pull->rec[i];

		/* (rec[i][3], the hash so far, covers what came before.) */
		FUZZ_CHECK(b[0] == p[0] && b[1] == p[1] && b[2] == p[2] &&
		                   b[3] == p[3],
		           "%s, record %zu or what came before it: batch path "
		           "%c %lld %llu, pull path %c %lld %llu",
		           what, i, (char)b[0], (long long)b[1],
		           (unsigned long long)b[2], (char)p[0],
		           (long long)p[1], (unsigned long long)p[2]);
	}
	FUZZ_CHECK(batch->nrec == pull->nrec,
	           "%s: %zu records on the batch path, %zu on the pull path",
	           what, batch->nrec, pull->nrec);
	FUZZ_CHECK(batch->hash == pull->hash,
	           "%s: the batch and the pull path differ (instructions, "
	           "blocks or events)",
	           what);
}

static int fuzz_read_code(uint8_t *buffer, size_t size,
                          const struct pt_asid *asid, uint64_t ip,
                          void *context)
{
	const struct fuzz_flow *f = context;
	uint64_t off;

	(void)asid;
	if (ip < FUZZ_CODE_BASE || ip - FUZZ_CODE_BASE >= f->code_size)
		return -pte_nomap;
	off = ip - FUZZ_CODE_BASE;
	if (size > f->code_size - off)
		size = (size_t)(f->code_size - off);
	memcpy(buffer, f->code + off, size);
	return (int)size;
}

static void fuzz_check_offset(const struct fuzz_flow *f, uint64_t offset,
                              const char *what)
{
	FUZZ_CHECK(offset <= f->trace_size, "%s offset %llu beyond %zu", what,
	           (unsigned long long)offset, f->trace_size);
}

static void fuzz_check_sync(const struct fuzz_flow *f, struct fuzz_run *run,
                            uint64_t offset, uint64_t *last, int first)
{
	static const uint8_t psb[2] = {0x02, 0x82};
	unsigned i;

	FUZZ_CHECK(offset + FUZZ_PSB_SIZE <= f->trace_size, "sync offset %llu",
	           (unsigned long long)offset);
	for (i = 0; i < FUZZ_PSB_SIZE; ++i)
		FUZZ_CHECK(f->trace[offset + i] == psb[i & 1],
		           "no PSB at sync offset %llu",
		           (unsigned long long)offset);
	/* fuzz/crashes/fuzz_flow-sync-offset*: the sync offset after the
	 * resync that follows an error once named a later PSB. */
	FUZZ_CHECK(first || offset > *last, "sync went from %llu to %llu",
	           (unsigned long long)*last, (unsigned long long)offset);
	*last = offset;
	fuzz_record(run, 'S', offset, 0);
}

static void fuzz_check_event(struct fuzz_run *run, const struct pt_event *event)
{
	FUZZ_CHECK((int)event->type >= 0 && event->type <= ptev_syscall,
	           "event type %d", (int)event->type);
	fuzz_hash(run, (uint64_t)event->type);
	fuzz_hash(run, event->has_tsc ? event->tsc : 0);
}

/* What pt_*_core_bus_ratio() (@cerr, @cbr) and pt_*_asid() (@aerr,
 * @asid) said. */
static void fuzz_hash_state(struct fuzz_run *run, int cerr, uint32_t cbr,
                            int aerr, const struct pt_asid *asid)
{
	fuzz_hash(run, (uint64_t)(int64_t)cerr);
	fuzz_hash(run, cerr < 0 ? 0 : cbr);
	fuzz_hash(run, (uint64_t)(int64_t)aerr);
	fuzz_hash(run, aerr < 0 ? 0 : asid->cr3);
	fuzz_hash(run, aerr < 0 ? 0 : asid->vmcs);
}

static void fuzz_insn_state(struct pt_insn_decoder *dec, struct fuzz_run *run)
{
	struct pt_asid asid;
	uint32_t cbr = 0;
	int cerr, aerr;

	cerr = pt_insn_core_bus_ratio(dec, &cbr);
	FUZZ_CHECK(cerr == 0 || cerr == -pte_no_cbr,
	           "pt_insn_core_bus_ratio: %d", cerr);
	aerr = pt_insn_asid(dec, &asid, sizeof(asid));
	fuzz_hash_state(run, cerr, cbr, aerr, &asid);
}

static void fuzz_blk_state(struct pt_block_decoder *dec, struct fuzz_run *run)
{
	struct pt_asid asid;
	uint32_t cbr = 0;
	int cerr, aerr;

	cerr = pt_blk_core_bus_ratio(dec, &cbr);
	FUZZ_CHECK(cerr == 0 || cerr == -pte_no_cbr,
	           "pt_blk_core_bus_ratio: %d", cerr);
	aerr = pt_blk_asid(dec, &asid, sizeof(asid));
	fuzz_hash_state(run, cerr, cbr, aerr, &asid);
}

static void fuzz_check_code(const struct fuzz_flow *f, uint64_t ip,
                            const uint8_t *raw, uint8_t size)
{
	uint64_t off = ip - FUZZ_CODE_BASE;

	FUZZ_CHECK(size >= 1 && size <= pt_max_insn_size, "size %u",
	           (unsigned)size);
	FUZZ_CHECK(ip >= FUZZ_CODE_BASE && off < f->code_size &&
	                   size <= f->code_size - off,
	           "instruction at 0x%llx (%u bytes) outside the code",
	           (unsigned long long)ip, (unsigned)size);
	if (raw)
		FUZZ_CHECK(memcmp(raw, f->code + off, size) == 0,
		           "raw bytes of 0x%llx differ from the code",
		           (unsigned long long)ip);
}

/* Run the instruction-flow decoder; return the number of instructions, or
 * -1 if there were errors or the cap was hit. */
static int64_t fuzz_insn(const struct fuzz_flow *f, const struct pt_config *c,
                         struct pt_image *image, struct fuzz_run *run)
{
	struct pt_insn_decoder *dec = pt_insn_alloc_decoder(c);
	uint64_t insns = 0, last = 0, offset;
	int first = 1, clean = 1;

	FUZZ_CHECK(dec != NULL, "pt_insn_alloc_decoder");
	FUZZ_CHECK(pt_insn_set_image(dec, image) == 0, "set image");
	for (;;) {
		int status = pt_insn_sync_forward(dec);

		if (status == -pte_eos)
			break;
		if (status < 0) {
			fuzz_record(run, 'F', (uint64_t)(int64_t)status, 0);
			clean = 0;
			break;
		}
		/* On the pull path, the offset comes first (as ptxed
		 * --offset asks for it before anything else). */
		if (run->offsets)
			FUZZ_CHECK(pt_insn_get_offset(dec, &offset) == 0,
			           "get_offset after sync");
		FUZZ_CHECK(pt_insn_get_sync_offset(dec, &offset) == 0,
		           "get_sync_offset");
		fuzz_check_sync(f, run, offset, &last, first);
		first = 0;
		for (;;) {
			struct pt_insn insn;
			uint64_t tsc;
			int err;

			while (status >= 0 && (status & pts_event_pending)) {
				struct pt_event event;

				status = pt_insn_event(dec, &event,
				                       sizeof(event));
				if (status >= 0) {
					fuzz_check_event(run, &event);
					fuzz_insn_state(dec, run);
				}
			}
			if (status < 0 || (status & pts_eos))
				break;
			if (run->offsets) {
				FUZZ_CHECK(pt_insn_get_offset(dec, &offset) ==
				                   0,
				           "get_offset");
				fuzz_check_offset(f, offset, "insn");
			}
			insn.iclass = ptic_unknown;
			status = pt_insn_next(dec, &insn, sizeof(insn));
			/* After an error (the end of the trace included), the
			 * instruction counts if it was decoded, as in ptxed. */
			if (status < 0 && insn.iclass == ptic_unknown)
				break;
			fuzz_check_code(f, insn.ip, insn.raw, insn.size);
			FUZZ_CHECK(insn.iclass <= ptic_indirect &&
			                   insn.iclass != ptic_unknown,
			           "iclass %d", (int)insn.iclass);
			FUZZ_CHECK(insn.mode >= ptem_16bit &&
			                   insn.mode <= ptem_64bit,
			           "mode %d", (int)insn.mode);
			err = pt_insn_time(dec, &tsc, NULL, NULL);
			FUZZ_CHECK(err == 0 || err == -pte_no_time,
			           "pt_insn_time: %d", err);
			fuzz_hash(run, insn.ip);
			fuzz_hash(run, (uint64_t)insn.iclass << 8 | insn.size);
			fuzz_hash(run, err ? 0 : tsc);
			fuzz_insn_state(dec, run);
			if (status < 0) {
				insns += 1;
				break;
			}
			if (++insns >= FUZZ_MAX_INSNS) {
				fuzz_record(run, 'C', insns, 0);
				pt_insn_free_decoder(dec);
				return -1;
			}
		}
		if (status < 0 && status != -pte_eos) {
			clean = 0;
			FUZZ_CHECK(pt_insn_get_offset(dec, &offset) == 0,
			           "get_offset after an error");
			fuzz_check_offset(f, offset, "error");
			fuzz_record(run, 'E', (uint64_t)(int64_t)status,
			            offset);
			continue;
		}
		fuzz_record(run, 'e', (uint64_t)(int64_t)status, insns);
		/* A libipt-style loop synchronizes again at the end. */
		status = pt_insn_sync_forward(dec);
		offset = 0;
		(void)pt_insn_get_offset(dec, &offset);
		fuzz_record(run, 'x', (uint64_t)(int64_t)status, offset);
		break;
	}
	pt_insn_free_decoder(dec);
	return clean ? (int64_t)insns : -1;
}

/* The same with the block decoder. */
static int64_t fuzz_blk(const struct fuzz_flow *f, const struct pt_config *c,
                        struct pt_image *image, struct fuzz_run *run)
{
	struct pt_block_decoder *dec = pt_blk_alloc_decoder(c);
	uint64_t insns = 0, blocks = 0, last = 0, offset;
	int first = 1, clean = 1, last_class = ptic_unknown;

	FUZZ_CHECK(dec != NULL, "pt_blk_alloc_decoder");
	FUZZ_CHECK(pt_blk_set_image(dec, image) == 0, "set image");
	for (;;) {
		int status = pt_blk_sync_forward(dec);

		if (status == -pte_eos)
			break;
		if (status < 0) {
			fuzz_record(run, 'F', (uint64_t)(int64_t)status, 0);
			clean = 0;
			break;
		}
		/* On the pull path, the offset comes first (as ptxed
		 * --offset asks for it before anything else). */
		if (run->offsets)
			FUZZ_CHECK(pt_blk_get_offset(dec, &offset) == 0,
			           "get_offset after sync");
		FUZZ_CHECK(pt_blk_get_sync_offset(dec, &offset) == 0,
		           "get_sync_offset");
		fuzz_check_sync(f, run, offset, &last, first);
		first = 0;
		for (;;) {
			struct pt_block block;
			uint64_t tsc;
			int err;

			while (status >= 0 && (status & pts_event_pending)) {
				struct pt_event event;

				memset(&event, 0xff, sizeof(event));
				status = pt_blk_event(dec, &event,
				                      sizeof(event));
				if (status >= 0) {
					fuzz_check_event(run, &event);
					fuzz_blk_state(dec, run);
				}
				/* A disable that the block decoder binds
				 * where the flow stands, after a block that
				 * ends in no branch: the instruction-flow
				 * decoder binds it to the next branch
				 * (libipt's two do the same, docs/flow.md),
				 * so the counts may differ.  (Also when the
				 * end of the trace right after it makes
				 * pt_blk_event() return -pte_eos with the
				 * event, as libipt's does.) */
				if (event.type == ptev_disabled &&
				    !event.ip_suppressed &&
				    (last_class == ptic_other ||
				     last_class == ptic_ptwrite))
					clean = 0;
			}
			if (status < 0 || (status & pts_eos))
				break;
			if (run->offsets) {
				FUZZ_CHECK(pt_blk_get_offset(dec, &offset) == 0,
				           "get_offset");
				fuzz_check_offset(f, offset, "block");
			}
			block.ninsn = 0;
			status = pt_blk_next(dec, &block, sizeof(block));
			/* A partial block before an error counts. */
			if (status < 0 && !block.ninsn)
				break;
			if (block.ninsn) {
				fuzz_check_code(f, block.ip, NULL, 1);
				if (!block.truncated)
					fuzz_check_code(f, block.end_ip, NULL,
					                1);
				FUZZ_CHECK(block.mode >= ptem_16bit &&
				                   block.mode <= ptem_64bit,
				           "mode %d", (int)block.mode);
			}
			FUZZ_CHECK(block.iclass <= ptic_indirect, "iclass %d",
			           (int)block.iclass);
			err = pt_blk_time(dec, &tsc, NULL, NULL);
			FUZZ_CHECK(err == 0 || err == -pte_no_time,
			           "pt_blk_time: %d", err);
			fuzz_hash(run, block.ip);
			fuzz_hash(run, block.end_ip);
			fuzz_hash(run,
			          (uint64_t)block.ninsn << 8 | block.iclass);
			fuzz_hash(run, err ? 0 : tsc);
			fuzz_blk_state(dec, run);
			if (block.ninsn)
				last_class = block.iclass;
			if (status < 0) {
				insns += block.ninsn;
				break;
			}
			insns += block.ninsn;
			if (++blocks >= FUZZ_MAX_BLOCKS ||
			    insns >= FUZZ_MAX_INSNS) {
				fuzz_record(run, 'C', insns, 0);
				pt_blk_free_decoder(dec);
				return -1;
			}
		}
		if (status < 0 && status != -pte_eos) {
			clean = 0;
			FUZZ_CHECK(pt_blk_get_offset(dec, &offset) == 0,
			           "get_offset after an error");
			fuzz_check_offset(f, offset, "error");
			fuzz_record(run, 'E', (uint64_t)(int64_t)status,
			            offset);
			continue;
		}
		fuzz_record(run, 'e', (uint64_t)(int64_t)status, insns);
		/* A libipt-style loop synchronizes again at the end. */
		status = pt_blk_sync_forward(dec);
		offset = 0;
		(void)pt_blk_get_offset(dec, &offset);
		fuzz_record(run, 'x', (uint64_t)(int64_t)status, offset);
		break;
	}
	pt_blk_free_decoder(dec);
	return clean ? (int64_t)insns : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_flow_input in;
	struct pt_config config;
	struct fuzz_flow f;
	struct fuzz_run runs[2];
	struct pt_image *image;
	uint8_t cfg;
	int64_t ninsn[2], nblk[2];
	int path;

	if (!fuzz_flow_input_split(&in, data, size))
		return 0;
	cfg = in.cfg;
	f.code = in.code;
	f.code_size = in.code_size;
	f.trace = in.trace;
	f.trace_size = in.trace_size;

	image = pt_image_alloc("fuzz");
	FUZZ_CHECK(image != NULL, "pt_image_alloc");
	if (cfg & 0x08)
		FUZZ_CHECK(pt_image_set_callback(image, fuzz_read_code, &f) ==
		                   0,
		           "set callback");
	else if (in.code_size)
		FUZZ_CHECK(ptd_image_add_buffer(image, in.code, in.code_size,
		                                NULL, FUZZ_CODE_BASE, 0) >= 0,
		           "add buffer");

	fuzz_flow_input_config(&in, &config);
	/* Path 0 is the batch path, path 1 the pull path. */
	for (path = 0; path < 2; path++) {
		fuzz_run_init(&runs[path], path);
		ninsn[path] = fuzz_insn(&f, &config, image, &runs[path]);
	}
	fuzz_compare(&runs[0], &runs[1], "instruction-flow decoder");

	memset(&config.flags, 0, sizeof(config.flags));
	config.flags.variant.block.end_on_call = cfg & 1;
	config.flags.variant.block.end_on_jump = (cfg >> 1) & 1;
	config.flags.variant.block.enable_tick_events = (cfg >> 2) & 1;
	config.flags.variant.block.keep_tcal_on_ovf = (cfg >> 5) & 1;
	for (path = 0; path < 2; path++) {
		fuzz_run_init(&runs[path], path);
		nblk[path] = fuzz_blk(&f, &config, image, &runs[path]);
	}
	fuzz_compare(&runs[0], &runs[1], "block decoder");

	for (path = 0; path < 2; path++)
		if (ninsn[path] >= 0 && nblk[path] >= 0)
			FUZZ_CHECK(ninsn[path] == nblk[path],
			           "%lld instructions, but %lld in blocks",
			           (long long)ninsn[path],
			           (long long)nblk[path]);

	pt_image_free(image);
	fuzz_flow_input_free(&in);
	return 0;
}

#ifdef PTD_FUZZ_REPLAY_MAIN
#include "replay_main.h"
#endif
