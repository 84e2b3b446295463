/* SPDX-License-Identifier: BSD-3-Clause */
/* The batch flow decoder against ptdecode's pt_insn_next():
 *
 *	test_flow_batch api
 *	test_flow_batch long
 *	test_flow_batch pairs [<seed-dir>]
 *	test_flow_batch corpus <libxdc-dir> [quick]
 *	test_flow_batch gen <first-seed> <count> <steps>
 *	test_flow_batch corrupt <first-seed> <count> <steps>
 *
 * api: the argument checks.  long: straight code longer than a run, cut by
 * arrays of many sizes.  pairs: a disable and an enable, the disable
 * bound to a direct jump, a direct call or an indirect call, around a
 * call pushed while it waits, many times in a row (with a directory: write
 * them as fuzz seeds there instead).  corpus: libxdc's foo, mruby
 *and Unzip traces with their page dumps as the image (exit 77 when absent).
 *gen: code + trace pairs of tests/flow's generator (odd seeds with walks that
 *also leave the traced code through branches, every fourth seed with tick
 *events). corrupt: the same with one to three bytes of each trace overwritten
 * (decode errors, resynchronization, offsets; at most 20 times the walk's
 * instructions, as a corrupted trace can loop).  Each input is decoded with
 * array sizes 4096, 1 and 7 (so that runs are cut by a full array, too; with
 * quick, 4096 only) and must give the same instructions, times, events,
 * errors and synchronization points as pt_insn_next(), and blocks that are
 * those instructions (fb_check.h). */
#include "elf_text.h"
#include "fb_check.h"
#include "flow_gen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t caps[] = {4096, 1, 7};

/* Check with the array sizes of @caps (only the first with @quick). */
static int check_all(const char *name, const struct pt_config *config,
                     struct pt_image *image, int verbose, int quick,
                     uint64_t limit)
{
	size_t i, ncaps = quick ? 1 : sizeof(caps) / sizeof(caps[0]);
	int bad = 0;

	for (i = 0; i < ncaps; ++i) {
		struct fb_check_result res;
		int err = fb_check(name, config, image, caps[i], limit, &res);

		if (err < 0) {
			fprintf(stderr, "%s: cannot set up\n", name);
			return 1;
		}
		if (err) {
			fprintf(stderr, "FAIL %s (array size %zu)\n", name,
			        caps[i]);
			bad = 1;
		} else if (verbose) {
			printf("ok %s (array size %zu): %" PRIu64
			       " insns, %" PRIu64 " blocks, %" PRIu64
			       " events, %" PRIu64 " errors\n",
			       name, caps[i], res.insns, res.blocks, res.events,
			       res.errors);
		}
	}
	return bad;
}

static int corpus(const char *dir, int quick)
{
	static const char *const names[] = {"foo", "mruby", "Unzip"};
	size_t i;
	int bad = 0, found = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
		char trace[4096], addr[4096], dump[4096];
		struct pt_config config;
		struct pt_image *image;
		uint8_t *buf;
		size_t size;

		snprintf(trace, sizeof(trace), "%s/%s/trace", dir, names[i]);
		snprintf(addr, sizeof(addr), "%s/%s/data.addr", dir, names[i]);
		snprintf(dump, sizeof(dump), "%s/%s/data.dump", dir, names[i]);
		buf = ptd_read_whole_file(trace, &size);
		if (!buf) {
			printf("%s: not found\n", trace);
			continue;
		}
		found++;
		image = pt_image_alloc(names[i]);
		if (!image ||
		    ptd_image_add_page_dump(image, addr, dump, NULL) < 0) {
			fprintf(stderr, "%s: cannot load the page dump\n",
			        names[i]);
			pt_image_free(image);
			free(buf);
			bad = 1;
			continue;
		}
		pt_config_init(&config);
		config.begin = buf;
		config.end = buf + size;
		bad |= check_all(names[i], &config, image, 1, quick, 0);
		pt_image_free(image);
		free(buf);
	}
	if (!found) {
		printf("SKIP: no libxdc corpus in %s\n", dir);
		return 77;
	}
	return bad;
}

/* Overwrite one to three bytes of @gen's trace, chosen by @seed. */
static void corrupt(struct flow_gen *g, uint64_t seed)
{
	uint64_t x = (seed + 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
	unsigned n, i;

	if (!g->trace_size)
		return;
	x ^= x >> 31;
	n = 1 + (unsigned)(x % 3);
	for (i = 0; i < n; ++i) {
		x = x * 0x94d049bb133111ebull + 0x632be59bd9b4e019ull;
		g->trace[(x >> 20) % g->trace_size] = (uint8_t)(x >> 48);
	}
}

static int gen(uint64_t first, uint64_t count, size_t steps, int bad_trace)
{
	uint64_t seed;
	int bad = 0;

	for (seed = first; seed < first + count; ++seed) {
		struct flow_gen g;
		struct pt_config config;
		struct pt_image *image;
		char name[64];

		/* Odd seeds: a walk that also leaves the traced code
		 * through branches (TIP.PGD with an IP, bound to the
		 * branch, then TIP.PGE), as calls into libraries outside
		 * an IP filter do. */
		if ((seed & 1 ? flow_gen_leaving(&g, seed, steps, 40)
		              : flow_gen(&g, seed, steps)) < 0) {
			fprintf(stderr, "seed %" PRIu64 ": out of memory\n",
			        seed);
			return 1;
		}
		if (bad_trace)
			corrupt(&g, seed);
		image = pt_image_alloc(NULL);
		if (!image || ptd_image_add_buffer(image, g.code, g.code_size,
		                                   NULL, g.base, 0) < 0) {
			fprintf(stderr, "seed %" PRIu64 ": no image\n", seed);
			pt_image_free(image);
			flow_gen_fini(&g);
			return 1;
		}
		pt_config_init(&config);
		config.begin = g.trace;
		config.end = g.trace + g.trace_size;
		config.mtc_freq = g.mtc_freq;
		config.nom_freq = g.nom_freq;
		config.cpuid_0x15_eax = g.cpuid_0x15_eax;
		config.cpuid_0x15_ebx = g.cpuid_0x15_ebx;
		/* Every fourth seed with tick events (the engine's own path;
		 * the events compare their times with the last event's). */
		config.flags.variant.insn.enable_tick_events = (seed & 3) == 3;
		snprintf(name, sizeof(name), "seed %" PRIu64, seed);
		/* A corrupted trace may loop: at most 20 times the
		 * instructions of the walk. */
		bad |= check_all(name, &config, image, 0, 0,
		                 bad_trace ? 20 * (uint64_t)steps + 1000 : 0);
		pt_image_free(image);
		flow_gen_fini(&g);
	}
	if (!bad)
		printf("ok: %" PRIu64 " generated traces\n", count);
	return bad;
}

/* Straight code longer than a run (fb_max_run, 1024 instructions): @n NOPs,
 * a JZ back to the first (taken twice, then not), an indirect JMP that a
 * TIP.PGD ends.  The decoders must agree with each other and give all
 * 3 (n + 1) + 1 instructions, with arrays that cut the runs anywhere. */
static int long_run(size_t n)
{
	static const size_t lcaps[] = {4096, 1, 7, 1024, 1025, 1031};
	const uint64_t base = 0x400000;
	uint8_t *code = malloc(n + 8), trace[256];
	struct pt_encoder *enc;
	struct pt_image *image;
	struct pt_config config;
	struct pt_packet pkt;
	char name[64];
	int32_t rel = -(int32_t)(n + 6);
	size_t i;
	int bad = 0, err = 0;

	if (!code)
		return 1;
	memset(code, 0x90, n);
	code[n] = 0x0f; /* jz base */
	code[n + 1] = 0x84;
	memcpy(code + n + 2, &rel, sizeof(rel));
	code[n + 6] = 0xff; /* jmp *%rax */
	code[n + 7] = 0xe0;

	pt_config_init(&config);
	config.begin = trace;
	config.end = trace + sizeof(trace);
	enc = pt_alloc_encoder(&config);
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_psb;
	err |= pt_enc_next(enc, &pkt) < 0;
	pkt.type = ppt_psbend;
	err |= pt_enc_next(enc, &pkt) < 0;
	pkt.type = ppt_mode;
	pkt.payload.mode.leaf = pt_mol_exec;
	pkt.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	err |= pt_enc_next(enc, &pkt) < 0;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_tip_pge;
	pkt.payload.ip.ipc = pt_ipc_sext_48;
	pkt.payload.ip.ip = base;
	err |= pt_enc_next(enc, &pkt) < 0;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_tnt_8;
	pkt.payload.tnt.bit_size = 3;
	pkt.payload.tnt.payload = 6; /* taken, taken, not taken */
	err |= pt_enc_next(enc, &pkt) < 0;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_tip_pgd;
	pkt.payload.ip.ipc = pt_ipc_suppressed;
	err |= pt_enc_next(enc, &pkt) < 0;
	{
		uint64_t off = 0;

		err |= !enc || pt_enc_get_offset(enc, &off) < 0;
		config.end = trace + off;
	}
	pt_free_encoder(enc);
	image = pt_image_alloc(NULL);
	err |= !image ||
	       ptd_image_add_buffer(image, code, n + 8, NULL, base, 0) < 0;
	if (err) {
		fprintf(stderr, "long run %zu: cannot set up\n", n);
		pt_image_free(image);
		free(code);
		return 1;
	}
	snprintf(name, sizeof(name), "long run %zu", n);
	for (i = 0; i < sizeof(lcaps) / sizeof(lcaps[0]); ++i) {
		struct fb_check_result res;
		int r = fb_check(name, &config, image, lcaps[i], 0, &res);

		if (r || res.insns != 3 * (uint64_t)(n + 1) + 1) {
			fprintf(stderr,
			        "FAIL %s (array size %zu): %d, %" PRIu64
			        " instructions\n",
			        name, lcaps[i], r, res.insns);
			bad = 1;
		}
	}
	pt_image_free(image);
	free(code);
	return bad;
}

static int long_runs(void)
{
	static const size_t ns[] = {1,    1022, 1023, 1024,
	                            1025, 2047, 2048, 3000};
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); ++i)
		bad |= long_run(ns[i]);
	if (!bad)
		printf("ok: long runs\n");
	return bad;
}

/* The argument checks of the interface. */
static int api(void)
{
	static const uint8_t psb[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	                                0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	                                0x02, 0x82, 0x02, 0x82};
	struct ptd_flow_batch *dec;
	struct ptd_flow_block block;
	struct pt_config config;
	struct pt_event ev;
	uint64_t ip = 1, off;
	size_t count = 5;
	int bad = 0;

	pt_config_init(&config);
	config.begin = (uint8_t *)psb;
	config.end = (uint8_t *)psb + sizeof(psb);
	bad |= ptd_flow_batch_alloc(NULL, NULL) != NULL;
	dec = ptd_flow_batch_alloc(&config, NULL);
	if (!dec) {
		fprintf(stderr, "api: cannot allocate\n");
		return 1;
	}
	bad |= ptd_flow_next_insns(NULL, &ip, NULL, 1, &count) != -pte_invalid;
	bad |= ptd_flow_next_insns(dec, NULL, NULL, 1, &count) != -pte_invalid;
	bad |= ptd_flow_next_insns(dec, &ip, NULL, 1, NULL) != -pte_invalid;
	bad |= ptd_flow_next_insns(dec, &ip, NULL, 0, &count) != 0 || count;
	bad |= ptd_flow_next_blocks(dec, NULL, 1, &count) != -pte_invalid;
	bad |= ptd_flow_next_blocks(dec, &block, 0, &count) != 0 || count;
	/* Not synchronized: tracing is not enabled. */
	bad |= ptd_flow_next_insns(dec, &ip, NULL, 1, &count) >= 0 || count;
	{
		struct pt_event evs[2];
		size_t at[2];
		struct ptd_flow_events sink = {evs, at, 2, 7};
		struct ptd_flow_events nosink = {NULL, NULL, 0, 7};
		struct ptd_flow_events half = {evs, NULL, 2, 0};

		bad |= ptd_flow_decode_insns(NULL, &ip, NULL, 1, &count,
		                             &sink) != -pte_invalid;
		bad |= ptd_flow_decode_insns(dec, NULL, NULL, 1, &count,
		                             &sink) != -pte_invalid;
		bad |= ptd_flow_decode_insns(dec, &ip, NULL, 1, NULL, &sink) !=
		       -pte_invalid;
		bad |= ptd_flow_decode_insns(dec, &ip, NULL, 1, &count, NULL) !=
		       -pte_invalid;
		bad |= ptd_flow_decode_insns(dec, &ip, NULL, 1, &count,
		                             &half) != -pte_invalid;
		bad |= ptd_flow_decode_blocks(dec, NULL, 1, &count, &sink) !=
		       -pte_invalid;
		bad |= ptd_flow_decode_blocks(dec, &block, 1, &count, &half) !=
		       -pte_invalid;
		/* No room for events. */
		bad |= ptd_flow_decode_insns(dec, &ip, NULL, 1, &count,
		                             &nosink) != -pte_invalid;
		/* No room for blocks and no event pending: nothing done,
		 * counts 0. */
		count = 5;
		bad |= ptd_flow_decode_blocks(dec, &block, 0, &count, &sink) <
		               0 ||
		       count || sink.count;
		/* Not synchronized: an error, as ptd_flow_next_insns(). */
		sink.count = 7;
		bad |= ptd_flow_decode_insns(dec, &ip, NULL, 1, &count,
		                             &sink) >= 0 ||
		       count || sink.count;
	}
	bad |= ptd_flow_batch_event(dec, NULL, sizeof(ev)) != -pte_invalid;
	bad |= ptd_flow_batch_get_offset(dec, NULL) != -pte_invalid;
	bad |= ptd_flow_batch_get_sync_offset(NULL, &off) != -pte_invalid;
	bad |= ptd_flow_batch_error_ip(dec, NULL) != -pte_invalid;
	bad |= ptd_flow_batch_set_image(NULL, NULL) != -pte_invalid;
	bad |= ptd_flow_batch_get_image(dec) == NULL;
	bad |= ptd_flow_batch_sync_forward(NULL) != -pte_invalid;
	ptd_flow_batch_free(dec);
	ptd_flow_batch_free(NULL);
	if (bad)
		fprintf(stderr, "api: an argument check failed\n");
	else
		printf("ok: api\n");
	return bad;
}

/* Append packet @type (TIP kinds: IP @ip, full; TNT-8: @bits outcomes
 * @value) to @enc; returns 0 or -1. */
static int enc_packet(struct pt_encoder *enc, enum pt_packet_type type,
                      uint64_t ip, uint8_t bits, uint64_t value)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = type;
	switch (type) {
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		pkt.payload.ip.ipc = pt_ipc_sext_48;
		pkt.payload.ip.ip = ip;
		break;
	case ppt_tnt_8:
		pkt.payload.tnt.bit_size = bits;
		pkt.payload.tnt.payload = value;
		break;
	case ppt_mode:
		pkt.payload.mode.leaf = pt_mol_exec;
		pkt.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
		break;
	default:
		break;
	}
	return pt_enc_next(enc, &pkt) < 0 ? -1 : 0;
}

/* Write @code and @trace as an input of the flow fuzz targets
 * (fuzz/fuzz_flow_input.h: configuration 0, the code at FUZZ_CODE_BASE,
 * 0x400000) to @dir/seed-@kind-@how.  Returns 0 or 1. */
static int write_seed(const char *dir, const char *kind, int how,
                      const uint8_t *code, size_t code_size,
                      const uint8_t *trace, size_t trace_size)
{
	const uint8_t hdr[3] = {0, (uint8_t)code_size,
	                        (uint8_t)(code_size >> 8)};
	char fn[512];
	FILE *f;
	int bad;

	snprintf(fn, sizeof(fn), "%s/seed-%s-%d", dir, kind, how);
	f = fopen(fn, "wb");
	if (!f) {
		fprintf(stderr, "cannot write %s\n", fn);
		return 1;
	}
	bad = fwrite(hdr, 1, sizeof(hdr), f) != sizeof(hdr) ||
	      fwrite(code, 1, code_size, f) != code_size ||
	      fwrite(trace, 1, trace_size, f) != trace_size;
	bad |= fclose(f) != 0;
	return bad;
}

/* A trace of the pair cases below, in @trace (@cap bytes): PSB, PSBEND,
 * MODE.EXEC (64-bit) and a TIP.PGE at @ip, then what the caller adds with
 * the encoder returned (NULL if it cannot be set up). */
static struct pt_encoder *pair_trace(struct pt_config *config, uint8_t *trace,
                                     size_t cap, uint64_t ip)
{
	struct pt_encoder *enc;
	struct pt_packet pkt;
	int err = 0;

	pt_config_init(config);
	config->begin = trace;
	config->end = trace + cap;
	enc = pt_alloc_encoder(config);
	if (!enc)
		return NULL;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_psb;
	err |= pt_enc_next(enc, &pkt) < 0;
	pkt.type = ppt_psbend;
	err |= pt_enc_next(enc, &pkt) < 0;
	err |= enc_packet(enc, ppt_mode, 0, 0, 0);
	err |= enc_packet(enc, ppt_tip_pge, ip, 0, 0);
	if (err) {
		pt_free_encoder(enc);
		return NULL;
	}
	return enc;
}

/* End the trace of @enc (config->end where it stops) and check it with
 * @code at 0x400000 against pt_insn_next() with arrays of many sizes: it
 * must give @insns instructions and @events events.  With @seeds, write it
 * as a fuzz seed there instead (write_seed()).  @err: setting up failed
 * before.  Frees @enc and @trace.  Returns 0 or 1. */
static int pair_check(const char *kind, int how, unsigned rounds,
                      struct pt_encoder *enc, struct pt_config *config,
                      uint8_t *trace, const uint8_t *code, size_t code_size,
                      uint64_t insns, uint64_t events, const char *seeds,
                      int err)
{
	static const size_t pcaps[] = {4096, 1, 2, 3, 5, 7, 64};
	struct pt_image *image = NULL;
	char name[64];
	size_t i;
	int bad = 0;

	if (enc) {
		uint64_t off = 0;

		err |= pt_enc_get_offset(enc, &off) < 0;
		config->end = trace + off;
		pt_free_encoder(enc);
	}
	err |= !enc;
	if (!err) {
		image = pt_image_alloc(NULL);
		err |= !image || ptd_image_add_buffer(image, code, code_size,
		                                      NULL, 0x400000, 0) < 0;
	}
	snprintf(name, sizeof(name), "%s %d x %u", kind, how, rounds);
	if (err) {
		fprintf(stderr, "%s: cannot set up\n", name);
		bad = 1;
	} else if (seeds) {
		bad = write_seed(seeds, kind, how, code, code_size, trace,
		                 (size_t)(config->end - trace));
	} else {
		for (i = 0; i < sizeof(pcaps) / sizeof(pcaps[0]); ++i) {
			struct fb_check_result res;
			int rc = fb_check(name, config, image, pcaps[i], 0,
			                  &res);

			if (rc || res.insns != insns || res.events != events) {
				fprintf(stderr,
				        "FAIL %s (array size %zu): %d, %" PRIu64
				        " instructions, %" PRIu64 " events\n",
				        name, pcaps[i], rc, res.insns,
				        res.events);
				bad = 1;
			}
		}
	}
	pt_image_free(image);
	free(trace);
	return bad;
}

/* Tracing leaves and comes back @rounds times, the disable bound to the
 * branch at C, which the outcome of a conditional branch before it holds
 * back (the chain's way through such a pair, FB_CHAIN_PAIR):
 *
 *	A: jz B              one outcome, then TIP.PGD, TIP.PGE
 *	B: call C            pushes D while the disable waits
 *	D: jmp G
 *	C: (@how) 0: jmp OUT, 1: call OUT (both bound: their target is the
 *	   disable IP), 2: call *%rax (bound; tracing comes back at its
 *	   return address E, so the enable is "resumed")
 *	E: jz F
 *	F: ret               compressed: returns to D, which the call at B
 *	                     pushed
 *	G: jmp *%rax         TIP to A
 *
 * Per round seven instructions and two events; A, B and C and the last
 * disable at the end, the first enable and its exec mode at the start. */
static int pair_case(int how, unsigned rounds, const char *seeds)
{
	const uint64_t base = 0x400000, out = 0x500000;
	const uint64_t a = base, c = base + 9, d = base + 7;
	const size_t cap = 64 + 32 * (size_t)rounds;
	uint8_t code[32], *trace = malloc(cap);
	struct pt_encoder *enc;
	struct pt_config config;
	uint64_t e, g;
	size_t at;
	unsigned r;
	int err = 0;

	if (!trace)
		return 1;
	memset(code, 0x90, sizeof(code));
	code[0] = 0x74; /* A: jz B */
	code[1] = 0x00;
	code[2] = 0xe8; /* B: call C */
	code[3] = 0x02;
	memset(code + 4, 0, 3);
	if (how == 2) {
		code[9] = 0xff; /* C: call *%rax */
		code[10] = 0xd0;
		at = 11;
	} else {
		const int32_t rel = (int32_t)(out - (c + 5));

		code[9] = how ? 0xe8 : 0xe9; /* C: call/jmp OUT */
		memcpy(code + 10, &rel, sizeof(rel));
		at = 14;
	}
	e = base + at;
	code[at] = 0x74; /* E: jz F */
	code[at + 1] = 0x00;
	code[at + 2] = 0xc3; /* F: ret */
	g = base + at + 3;
	code[at + 3] = 0xff; /* G: jmp *%rax */
	code[at + 4] = 0xe0;
	code[7] = 0xeb; /* D: jmp G */
	code[8] = (uint8_t)(int8_t)(g - (d + 2));

	enc = pair_trace(&config, trace, cap, a);
	for (r = 0; enc && r < rounds; ++r) {
		err |= enc_packet(enc, ppt_tnt_8, 0, 1, r & 1);
		err |= enc_packet(enc, ppt_tip_pgd, how == 2 ? e : out, 0, 0);
		err |= enc_packet(enc, ppt_tip_pge, e, 0, 0);
		/* E's outcome, then F's return (compressed). */
		err |= enc_packet(enc, ppt_tnt_8, 0, 2, (r & 2) | 1);
		err |= enc_packet(enc, ppt_tip, a, 0, 0);
	}
	if (enc) {
		err |= enc_packet(enc, ppt_tnt_8, 0, 1, 0);
		err |= enc_packet(enc, ppt_tip_pgd, out, 0, 0);
	}
	return pair_check("pairs", how, rounds, enc, &config, trace, code,
	                  sizeof(code), 7 * (uint64_t)rounds + 3,
	                  2 * (uint64_t)rounds + 3, seeds, err);
}

/* The same with a TIP held back before the disable (FB_CHAIN_PAIR's other
 * kind): @how 0, an indirect call whose callee leaves, tracing coming back
 * at a return that the call's pushed address answers (compressed):
 *
 *	A: call *%rax        TIP to H (held), pushes E
 *	E: jz G
 *	G: jmp *%rax         TIP to A
 *	F: ret               tracing comes back here; returns to E
 *	H: jmp OUT           the disable binds here
 *
 * @how 1, an uncompressed return:
 *
 *	A: call B            pushes D
 *	D: jmp G
 *	B: ret               TIP to C (held)
 *	C: jmp OUT           the disable binds here
 *	E: jz G              tracing comes back here
 *	G: jmp *%rax         TIP to A
 *
 * Per round five instructions and two events; two or three instructions
 * and the last disable at the end. */
static int pair_tip_case(int how, unsigned rounds, const char *seeds)
{
	const uint64_t base = 0x400000, out = 0x500000;
	const size_t cap = 64 + 32 * (size_t)rounds;
	uint8_t code[32], *trace = malloc(cap);
	struct pt_encoder *enc;
	struct pt_config config;
	uint64_t held, back;
	unsigned r;
	int err = 0;

	if (!trace)
		return 1;
	memset(code, 0x90, sizeof(code));
	if (!how) {
		const int32_t rel = (int32_t)(out - (base + 12));

		code[0] = 0xff; /* A: call *%rax */
		code[1] = 0xd0;
		code[2] = 0x74; /* E: jz G */
		code[3] = 0x00;
		code[4] = 0xff; /* G: jmp *%rax */
		code[5] = 0xe0;
		code[6] = 0xc3; /* F: ret */
		code[7] = 0xe9; /* H: jmp OUT */
		memcpy(code + 8, &rel, sizeof(rel));
		held = base + 7;
		back = base + 6;
	} else {
		const int32_t rel = (int32_t)(out - (base + 13));

		code[0] = 0xe8; /* A: call B */
		code[1] = 0x02;
		memset(code + 2, 0, 3);
		code[5] = 0xeb; /* D: jmp G */
		code[6] = 0x08;
		code[7] = 0xc3; /* B: ret */
		code[8] = 0xe9; /* C: jmp OUT */
		memcpy(code + 9, &rel, sizeof(rel));
		code[13] = 0x74; /* E: jz G */
		code[14] = 0x00;
		code[15] = 0xff; /* G: jmp *%rax */
		code[16] = 0xe0;
		held = base + 8;
		back = base + 13;
	}

	enc = pair_trace(&config, trace, cap, base);
	for (r = 0; enc && r <= rounds; ++r) {
		err |= enc_packet(enc, ppt_tip, held, 0, 0);
		err |= enc_packet(enc, ppt_tip_pgd, out, 0, 0);
		if (r == rounds)
			break;
		err |= enc_packet(enc, ppt_tip_pge, back, 0, 0);
		/* F's return (compressed) and E's outcome, or E's. */
		if (!how)
			err |= enc_packet(enc, ppt_tnt_8, 0, 2, 2 | (r & 1));
		else
			err |= enc_packet(enc, ppt_tnt_8, 0, 1, r & 1);
		err |= enc_packet(enc, ppt_tip, base, 0, 0);
	}
	return pair_check("tip-pairs", how, rounds, enc, &config, trace, code,
	                  sizeof(code),
	                  5 * (uint64_t)rounds + 2 + (unsigned)how,
	                  2 * (uint64_t)rounds + 3, seeds, err);
}

/* The pair cases, or with @seeds, their inputs of 40 pairs as fuzz seeds
 * into that directory (fuzz/corpus/fuzz_flow_batch/seed-*pairs-*). */
static int pairs(const char *seeds)
{
	static const unsigned rounds[] = {1, 2, 40, 700};
	int bad = 0, how;
	size_t i;

	for (how = 0; how < 3; ++how)
		for (i = 0; i < sizeof(rounds) / sizeof(rounds[0]); ++i)
			if (!seeds || rounds[i] == 40)
				bad |= pair_case(how, rounds[i], seeds);
	for (how = 0; how < 2; ++how)
		for (i = 0; i < sizeof(rounds) / sizeof(rounds[0]); ++i)
			if (!seeds || rounds[i] == 40)
				bad |= pair_tip_case(how, rounds[i], seeds);
	if (!bad)
		printf("ok: event pairs%s\n", seeds ? " (seeds written)" : "");
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "api"))
		return api();
	if (argc == 2 && !strcmp(argv[1], "long"))
		return long_runs();
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "pairs"))
		return pairs(argc == 3 ? argv[2] : NULL);
	if ((argc == 3 || (argc == 4 && !strcmp(argv[3], "quick"))) &&
	    !strcmp(argv[1], "corpus"))
		return corpus(argv[2], argc == 4);
	if (argc == 5 &&
	    (!strcmp(argv[1], "gen") || !strcmp(argv[1], "corrupt")))
		return gen(strtoull(argv[2], NULL, 0),
		           strtoull(argv[3], NULL, 0),
		           (size_t)strtoull(argv[4], NULL, 0),
		           !strcmp(argv[1], "corrupt"));
	fprintf(stderr,
	        "usage: %s api | long | pairs [<seed-dir>] | "
	        "corpus <libxdc-dir> [quick] | "
	        "gen|corrupt "
	        "<first> <count> <steps>\n",
	        argv[0]);
	return 2;
}
