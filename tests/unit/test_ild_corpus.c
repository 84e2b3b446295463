/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/ild on a large corpus: every instruction of the C library's .text
 * (decoded linearly), the same bytes read as 16- and 32-bit code, random
 * bytes in every mode, every opcode pair after the escapes and prefixes,
 * and every opcode and ModRM byte of 64-bit code after the prefixes that
 * the table-driven decoder (fast64.c) takes or refuses; the table must give
 * Zydis's result field for field.  ptd_ild_decode() (Zydis's minimal mode) must
 * succeed exactly where Zydis's full mode does, with the same length, and
 * its class must agree with what full mode knows about the instruction
 * (branch type, relative operand, the target it computes).  The only
 * instructions we decode that Zydis 4.0 does not are ERETS/ERETU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"

#include "ild/ild.h"
#include "ild/ild_fast.h"

#include <Zydis/Zydis.h>

#include "elf_text.h"

#include <inttypes.h>

/* Where the corpus comes from; PTD_ILD_CORPUS names another ELF file. */
static const char *corpus_path(void)
{
	const char *path = getenv("PTD_ILD_CORPUS");

	return path ? path : "/usr/lib/x86_64-linux-gnu/libc.so.6";
}

struct corpus_stats {
	unsigned long insns, invalid, branches, direct, erets;
	/* Of the instructions, those that fast64.c decoded. */
	unsigned long fast;
};

/* Print @stats of the inputs that @what describes. */
static void print_stats(const char *what, const struct corpus_stats *stats)
{
	print_message("%s: %lu instructions (%lu by the table), %lu branches "
	              "(%lu direct), %lu invalid, %lu ERETS/ERETU\n",
	              what, stats->insns, stats->fast, stats->branches,
	              stats->direct, stats->invalid, stats->erets);
}

/* Bytes put before an opcode: @len of @bytes. */
struct lead {
	uint8_t len;
	uint8_t bytes[4];
};

struct zydis_full {
	ZydisDecoder decoder[3];
};

static void zydis_full_init(struct zydis_full *z)
{
	static const ZydisMachineMode mm[3] = {ZYDIS_MACHINE_MODE_LEGACY_16,
	                                       ZYDIS_MACHINE_MODE_LEGACY_32,
	                                       ZYDIS_MACHINE_MODE_LONG_64};
	static const ZydisStackWidth sw[3] = {ZYDIS_STACK_WIDTH_16,
	                                      ZYDIS_STACK_WIDTH_32,
	                                      ZYDIS_STACK_WIDTH_64};
	int i;

	for (i = 0; i < 3; ++i)
		assert_true(ZYAN_SUCCESS(
		        ZydisDecoderInit(&z->decoder[i], mm[i], sw[i])));
}

/* Check one position: ours against Zydis's full mode.  Returns the number
 * of bytes to advance. */
static size_t check_one(struct ptd_ild_ctx *ctx, const struct zydis_full *z,
                        const uint8_t *code, size_t avail,
                        enum pt_exec_mode mode, uint64_t ip,
                        struct corpus_stats *stats)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction zi;
	struct ptd_ild insn;
	ZyanStatus zs;
	int status;

	status = ptd_ild_decode(ctx, &insn, code, avail, mode);
	/* The table-driven decoder for common 64-bit instructions
	 * (fast64.c) must give what Zydis alone gives, field for field. */
	{
		struct ptd_ild zonly;
		int zstatus;

		memset(&zonly, 0xa5, sizeof(zonly));
		zstatus = ptd_ild_decode_zydis(ctx, &zonly, code, avail, mode);
		if (zstatus != status ||
		    (!status &&
		     (zonly.size != insn.size || zonly.iclass != insn.iclass ||
		      zonly.kind != insn.kind ||
		      zonly.is_direct != insn.is_direct ||
		      zonly.disp != insn.disp)))
			fail_msg("%d-bit ip %" PRIx64 ": ptd_ild_decode() %d "
			         "size %u class %u kind %u direct %u disp %d, "
			         "Zydis alone %d size %u class %u kind %u "
			         "direct %u disp %d",
			         16 << (mode - ptem_16bit), ip, status,
			         insn.size, insn.iclass, insn.kind,
			         insn.is_direct, insn.disp, zstatus, zonly.size,
			         zonly.iclass, zonly.kind, zonly.is_direct,
			         zonly.disp);
		if (!status && mode == ptem_64bit &&
		    ptd_ild_fast64(&zonly, code, avail))
			stats->fast++;
	}
	zs = ZydisDecoderDecodeFull(&z->decoder[mode - ptem_16bit], code,
	                            avail > 15 ? 15 : avail, &zi, ops);
	if (!ZYAN_SUCCESS(zs)) {
		if (status == 0 && insn.kind == ptd_ik_iret &&
		    mode == ptem_64bit) {
			/* ERETS/ERETU: F2/F3 0F 01 CA. */
			assert_int_equal(code[insn.size - 1], 0xca);
			stats->erets++;
			return insn.size;
		}
		if (status != -pte_bad_insn)
			fail_msg("%s-bit ip %" PRIx64 ": we decode (%d, size "
			         "%u), Zydis full mode does not (%x)",
			         mode == ptem_64bit   ? "64"
			         : mode == ptem_32bit ? "32"
			                              : "16",
			         ip, status, insn.size, zs);
		stats->invalid++;
		return 1;
	}
	if (status != 0 || insn.size != zi.length)
		fail_msg("%d-bit ip %" PRIx64 ": ours %d size %u, Zydis full "
		         "mode size %u (%s)",
		         16 << (mode - ptem_16bit), ip, status, insn.size,
		         zi.length, ZydisMnemonicGetString(zi.mnemonic));
	assert_true(insn.size >= 1 && insn.size <= 15 && insn.size <= avail);
	stats->insns++;

	/* The class against what full mode knows. */
	switch (insn.iclass) {
	case ptic_call:
	case ptic_jump:
	case ptic_return:
		assert_true(zi.meta.branch_type == ZYDIS_BRANCH_TYPE_NEAR ||
		            zi.meta.branch_type == ZYDIS_BRANCH_TYPE_SHORT);
		stats->branches++;
		break;
	case ptic_cond_jump:
		assert_int_equal(zi.meta.category, ZYDIS_CATEGORY_COND_BR);
		stats->branches++;
		break;
	case ptic_far_call:
	case ptic_far_jump:
	case ptic_far_return:
		if (insn.kind == ptd_ik_call_far ||
		    insn.kind == ptd_ik_jmp_far || insn.kind == ptd_ik_ret_far)
			assert_int_equal(zi.meta.branch_type,
			                 ZYDIS_BRANCH_TYPE_FAR);
		stats->branches++;
		break;
	default:
		/* Not a branch for us: not a near or far CALL/JMP/RET/Jcc
		 * for Zydis either. */
		if (zi.meta.category == ZYDIS_CATEGORY_COND_BR ||
		    zi.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		    zi.meta.category == ZYDIS_CATEGORY_CALL ||
		    zi.meta.category == ZYDIS_CATEGORY_RET)
			/* The TSX instructions and Knights Corner's VEX
			 * mask branches (JKZD, JKNZD) are branches for
			 * Zydis; for Intel PT (and libipt) they are not. */
			if (zi.mnemonic != ZYDIS_MNEMONIC_XBEGIN &&
			    zi.mnemonic != ZYDIS_MNEMONIC_XABORT &&
			    zi.mnemonic != ZYDIS_MNEMONIC_XEND &&
			    zi.encoding == ZYDIS_INSTRUCTION_ENCODING_LEGACY)
				fail_msg("ip %" PRIx64 ": %s is a branch for "
				         "Zydis",
				         ip,
				         ZydisMnemonicGetString(zi.mnemonic));
		break;
	}
	if (insn.is_direct) {
		ZyanU64 target;
		uint64_t ours = ptd_ild_branch_target(&insn, ip);
		uint64_t mask = mode == ptem_64bit ? ~0ull : 0xffffffffull;

		assert_true(ZYAN_SUCCESS(
		        ZydisCalcAbsoluteAddress(&zi, &ops[0], ip, &target)));
		/* Zydis wraps 16- and 32-bit targets as the CPU does (at
		 * 64 KiB with a 16-bit operand size); we follow libipt and do
		 * not.  They agree where no wrap happens. */
		if (zi.operand_width == 16)
			mask = 0xffff;
		if (((ours ^ (uint64_t)target) & mask) != 0)
			fail_msg("ip %" PRIx64 ": target %" PRIx64
			         ", Zydis %" PRIx64,
			         ip, ours, (uint64_t)target);
		stats->direct++;
	} else {
		assert_false(zi.raw.imm[0].is_relative &&
		             zi.meta.category != ZYDIS_CATEGORY_COND_BR &&
		             zi.meta.category != ZYDIS_CATEGORY_CALL &&
		             zi.meta.category != ZYDIS_CATEGORY_UNCOND_BR);
	}
	return insn.size;
}

/* Decode [@code, @code + @size) linearly in @mode. */
static void check_linear(struct ptd_ild_ctx *ctx, const struct zydis_full *z,
                         const uint8_t *code, size_t size, uint64_t vaddr,
                         enum pt_exec_mode mode, struct corpus_stats *stats)
{
	size_t pos = 0;

	while (pos < size)
		pos += check_one(ctx, z, code + pos, size - pos, mode,
		                 vaddr + pos, stats);
}

static void test_libc_text(void **state)
{
	static const enum pt_exec_mode modes[] = {ptem_64bit, ptem_32bit,
	                                          ptem_16bit};
	struct ptd_ild_ctx *ctx;
	struct zydis_full z;
	size_t size = 0, offset = 0, length = 0;
	uint64_t vaddr = 0;
	uint8_t *elf;
	size_t m;

	(void)state;
	elf = ptd_read_whole_file(corpus_path(), &size);
	if (!elf) {
		print_message("%s not readable: corpus check skipped\n",
		              corpus_path());
		skip();
	}
	if (ptd_elf_find_text(elf, size, &offset, &length, &vaddr) < 0) {
		free(elf);
		fail_msg("%s: no .text section", corpus_path());
	}
	ctx = ptd_ild_alloc();
	assert_non_null(ctx);
	zydis_full_init(&z);
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); ++m) {
		struct corpus_stats stats = {0};
		char what[512];

		check_linear(ctx, &z, elf + offset, length, vaddr, modes[m],
		             &stats);
		snprintf(what, sizeof(what),
		         "%s .text (%zu bytes) as %d-bit code (invalid: "
		         "positions)",
		         corpus_path(), length, 16 << (modes[m] - ptem_16bit));
		print_stats(what, &stats);
		/* The 64-bit decode of a C library is real code. */
		if (modes[m] == ptem_64bit) {
			assert_true(stats.insns > 10000);
			assert_true(stats.invalid * 1000 < stats.insns);
			/* ... and most of it is for the table. */
			assert_true(stats.fast * 2 > stats.insns);
		}
	}
	ptd_ild_free(ctx);
	free(elf);
}

/* Random bytes biased towards prefixes, escapes and branch opcodes, at
 * every possible length. */
static void test_random(void **state)
{
	static const uint8_t interesting[] = {
	        0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x2e, 0x3e, 0x26, 0x64, 0x65,
	        0x36, 0x40, 0x41, 0x44, 0x48, 0x4f, 0x0f, 0x38, 0x3a, 0x01,
	        0xc4, 0xc5, 0x62, 0x8f, 0xd5, 0xe8, 0xe9, 0xeb, 0xe0, 0xe1,
	        0xe2, 0xe3, 0x70, 0x7f, 0x84, 0x9a, 0xea, 0xff, 0xc2, 0xc3,
	        0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf, 0xf1, 0x05, 0x07, 0x34,
	        0x35, 0xae, 0xc7, 0x22, 0xca, 0xc1, 0xc2, 0xc3, 0xec, 0xd9};
	struct ptd_ild_ctx *ctx = ptd_ild_alloc();
	struct corpus_stats stats = {0};
	char what[64];
	struct zydis_full z;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned long i, runs = 1000000;
	const char *env = getenv("PTD_ILD_RANDOM_RUNS");

	(void)state;
	if (env)
		runs = strtoul(env, NULL, 0);
	assert_non_null(ctx);
	zydis_full_init(&z);
	for (i = 0; i < runs; ++i) {
		uint64_t r = ptd_t_rand64(&seed);
		enum pt_exec_mode mode = (enum pt_exec_mode)(1 + r % 3);
		size_t avail = 1 + (r >> 8) % 16, k;
		uint8_t *code, bytes[16];

		for (k = 0; k < avail; ++k) {
			uint64_t b = ptd_t_rand64(&seed);

			bytes[k] = (b & 1) ? interesting[(b >> 8) %
			                                 sizeof(interesting)]
			                   : (uint8_t)(b >> 16);
		}
		code = ptd_t_dup(bytes, avail);
		check_one(ctx, &z, code, avail, mode, r >> 16, &stats);
		free(code);
	}
	snprintf(what, sizeof(what), "%lu random inputs", runs);
	print_stats(what, &stats);
	ptd_ild_free(ctx);
}

/* Every pair of bytes after the legacy escapes, mandatory prefixes, VEX
 * and EVEX prefixes, in every mode, with a fixed pseudo-random tail. */
static void test_opcode_pairs(void **state)
{
	static const struct lead leads[] = {
	        {0, {0}},
	        {1, {0x0f}},
	        {2, {0x66, 0x0f}},
	        {2, {0xf3, 0x0f}},
	        {2, {0xf2, 0x0f}},
	        {2, {0x0f, 0x38}},
	        {2, {0x0f, 0x3a}},
	        {1, {0x66}},
	        {1, {0x48}},
	        {1, {0xf0}},
	        {1, {0xc5}},
	        {2, {0xc4, 0xe1}},
	        {2, {0xc4, 0xe2}},
	        {2, {0xc4, 0xe3}},
	        {2, {0x8f, 0xe8}},
	        {3, {0x62, 0xf1, 0x7c}},
	        {3, {0x62, 0xf2, 0x7d}},
	        {3, {0x62, 0xf3, 0x7d}},
	        {3, {0x62, 0xf5, 0x7c}},
	        {3, {0x62, 0xf6, 0x7d}},
	};
	struct ptd_ild_ctx *ctx = ptd_ild_alloc();
	struct corpus_stats stats = {0};
	struct zydis_full z;
	uint64_t seed = 0x5851f42d4c957f2dull;
	size_t l;
	unsigned pair;
	int m;

	(void)state;
	assert_non_null(ctx);
	zydis_full_init(&z);
	for (l = 0; l < sizeof(leads) / sizeof(leads[0]); ++l) {
		for (pair = 0; pair < 0x10000; ++pair) {
			uint8_t code[15];
			size_t k = leads[l].len;

			memcpy(code, leads[l].bytes, k);
			code[k++] = (uint8_t)(pair >> 8);
			code[k++] = (uint8_t)pair;
			while (k < sizeof(code))
				code[k++] =
				        (uint8_t)(ptd_t_rand64(&seed) >> 32);
			for (m = ptem_16bit; m <= ptem_64bit; ++m)
				check_one(ctx, &z, code, sizeof(code),
				          (enum pt_exec_mode)m, 0x1000, &stats);
		}
	}
	print_stats("opcode pairs", &stats);
	ptd_ild_free(ctx);
}

/* 64-bit code: every opcode (one byte and 0F xx) with every ModRM byte after
 * the prefix sequences that fast64.c takes or must refuse, with SIB and
 * displacement bytes of three kinds, every length from 1 to 15 readable
 * bytes for one in 64: ptd_ild_decode() (with the table) against Zydis
 * alone, field for field (check_one()). */
static void test_fast_prefixes(void **state)
{
	static const struct lead leads[] = {
	        {0, {0}},          {1, {0x66}},
	        {1, {0x48}},       {1, {0x41}},
	        {1, {0x4c}},       {2, {0x66, 0x48}},
	        {2, {0x66, 0x41}}, {2, {0x48, 0x66}},
	        {2, {0x48, 0x48}}, {2, {0x66, 0x66}},
	        {1, {0x64}},       {1, {0x2e}},
	        {2, {0x3e, 0x48}}, {3, {0x65, 0x66, 0x4f}},
	        {1, {0x67}},       {1, {0xf0}},
	        {1, {0xf3}},       {1, {0xf2}},
	};
	static const uint8_t tails[3][13] = {
	        {0},
	        {0x25, 0x78, 0x56, 0x34, 0x12, 0x9a, 0xbc, 0xde, 0xf0, 0x11,
	         0x22, 0x33, 0x44},
	        {0xe5, 0x80, 0xff, 0x7f, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
	         0x07, 0x08, 0x09},
	};
	struct ptd_ild_ctx *ctx = ptd_ild_alloc();
	struct corpus_stats stats = {0};
	struct zydis_full z;
	size_t l, t;
	unsigned op, modrm, n = 0;

	(void)state;
	assert_non_null(ctx);
	zydis_full_init(&z);
	for (l = 0; l < sizeof(leads) / sizeof(leads[0]); ++l) {
		for (op = 0; op < 0x200; ++op) {
			for (modrm = 0; modrm < 0x100; ++modrm) {
				for (t = 0; t < 3; ++t) {
					uint8_t code[15];
					size_t k = leads[l].len, avail;

					memcpy(code, leads[l].bytes, k);
					if (op >= 0x100)
						code[k++] = 0x0f;
					code[k++] = (uint8_t)op;
					code[k++] = (uint8_t)modrm;
					memcpy(code + k, tails[t],
					       sizeof(code) - k);
					avail = (++n % 64) ? sizeof(code)
					                   : 1 + n / 64 % 15;
					check_one(ctx, &z, code, avail,
					          ptem_64bit, 0x401000, &stats);
				}
			}
		}
	}
	print_message("prefixed opcodes: %lu instructions (%lu by the table), "
	              "%lu invalid\n",
	              stats.insns, stats.fast, stats.invalid);
	assert_true(stats.fast > 100000);
	ptd_ild_free(ctx);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_libc_text),
	        cmocka_unit_test(test_random),
	        cmocka_unit_test(test_opcode_pairs),
	        cmocka_unit_test(test_fast_prefixes),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
