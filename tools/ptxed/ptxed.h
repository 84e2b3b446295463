/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the state shared by its parts.
 *
 * ptxed reconstructs the instruction flow of an Intel PT trace with the
 * block decoder (default) or the instruction-flow decoder and prints it,
 * with the command line and output format of libipt's ptxed (docs/ptxed.md).
 * The parts:
 *
 *	options.c	command line, in order, as libipt's ptxed
 *	load.c		the trace file, --raw binaries, --page-dump dumps
 *	load_elf.c	--elf: the PT_LOAD segments of 32- and 64-bit ELF files
 *	disas.c		instruction length, class and disassembly (lib/ild)
 *	print.c		instruction, event, error and statistics lines
 *	decode.c	the decode loops of both decoders, with resync
 *	perf.c		--perf: the trace, configuration and code of perf.data
 *	tasks.c		--perf:images: the image of the task that runs
 *	sideband.c	--pevent:*, --sb:*: libipt's perf_event sideband */
#ifndef PTXED_H
#define PTXED_H

#include "intel-pt.h"
#include "ptd_clock.h"

#include <stdint.h>

/* Which decoder to use. */
enum ptxed_decoder_type { ptxed_block_decoder, ptxed_insn_decoder };

/* What to print. */
struct ptxed_options {
	/* --no-inst: addresses only. */
	uint32_t dont_print_insn : 1;
	/* --quiet: nothing but errors (and statistics). */
	uint32_t quiet : 1;
	/* --stat, --stat:insn, --stat:blocks. */
	uint32_t print_stats : 1;
	/* --verbose: report what the loaders add to the image. */
	uint32_t verbose : 1;
	/* --block:show-blocks. */
	uint32_t track_blocks : 1;
	/* --att. */
	uint32_t att_format : 1;
	/* --offset. */
	uint32_t print_offset : 1;
	/* --time. */
	uint32_t print_time : 1;
	/* --raw-insn. */
	uint32_t print_raw_insn : 1;
	/* --check: cross-check sizes and classes with our disassembler. */
	uint32_t check : 1;
	/* --event:time. */
	uint32_t print_event_time : 1;
	/* --event:ip. */
	uint32_t print_event_ip : 1;
	/* --resync-on-error: continue with pt_*_resync() after an error. */
	uint32_t resync_on_error : 1;
	/* --time-libipt: libipt's time estimator (ptd_time_mode_libipt). */
	uint32_t time_libipt : 1;
	/* --perf:images: with --perf, the traced process's memory maps from
	 * the file's sideband as the image. */
	uint32_t perf_images : 1;
	/* --perf:tasks: with --perf:images, a line whenever the task changes
	 * at a context switch. */
	uint32_t perf_tasks : 1;
	/* --perf:time: the times of --time and --event:time in perf time,
	 * with @perf_tc (set by --perf when the file has it: @have_perf_tc). */
	uint32_t perf_time : 1;
	int have_perf_tc;
	struct ptd_perf_tc perf_tc;
};

/* Which statistics to print. */
enum ptxed_stat_flag { ptxed_stat_insn = 1 << 0, ptxed_stat_blocks = 1 << 1 };

/* Statistics. */
struct ptxed_stats {
	uint64_t insn;
	uint64_t blocks;
	uint32_t flags; /* enum ptxed_stat_flag */
};

/* The decoder and what it decodes with. */
struct ptxed_decoder {
	enum ptxed_decoder_type type;
	union {
		struct pt_insn_decoder *insn;
		struct pt_block_decoder *block;
	} variant;

	/* The flags each decoder gets (set by options before --pt). */
	struct pt_conf_flags insn_flags;
	struct pt_conf_flags block_flags;

	/* Every section ptxed loads goes through this cache, so that
	 * instructions can be read back by their isid. */
	struct pt_image_section_cache *iscache;
	struct pt_image *image;

	/* The instructions printed so far, decoded and formatted (icache.h;
	 * NULL: none kept). */
	struct ptxed_icache *icache;

	/* With --perf:images on a trace with context switches: the image of
	 * the task that runs (tasks.h; NULL otherwise). */
	struct ptxed_tasks *tasks;

	/* libipt's perf_event sideband options (sideband.h; made with the
	 * image, used when files were given). */
	struct ptxed_sb *sb;
};

/* Give @decoder's decoder @image.  Returns 0 or a negative error code. */
static inline int ptxed_set_image(struct ptxed_decoder *decoder,
                                  struct pt_image *image)
{
	if (decoder->type == ptxed_insn_decoder)
		return pt_insn_set_image(decoder->variant.insn, image);
	return pt_blk_set_image(decoder->variant.block, image);
}

#endif /* PTXED_H */
