/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the decode loops; see decode.h. */
#include "decode.h"
#include "disas.h"
#include "icache.h"
#include "print.h"
#include "sideband.h"
#include "tasks.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* libipt 2.0 calls ptic_unknown ptic_error. */
#if (LIBIPT_VERSION < 0x201)
#define ptic_unknown ptic_error
#endif

/* The decoder's current offset for a message; 0 if it has none. */
static int ptxed_offset(const struct ptxed_decoder *decoder, uint64_t *offset)
{
	*offset = 0;
	if (decoder->type == ptxed_insn_decoder)
		return pt_insn_get_offset(decoder->variant.insn, offset);
	return pt_blk_get_offset(decoder->variant.block, offset);
}

static void ptxed_diagnose(const struct ptxed_decoder *decoder, uint64_t ip,
                           const char *errtype, int errcode)
{
	uint64_t offset;
	int err = ptxed_offset(decoder, &offset);

	if (err < 0)
		printf("could not determine offset: %s\n",
		       pt_errstr(pt_errcode(err)));
	ptxed_print_error(err >= 0, offset, ip, errtype, errcode);
}

/* Synchronize (or resynchronize after an error).  Returns the status of
 * the synchronization, or -pte_eos when decoding is over.  Sets *@found
 * once a synchronization succeeded or failed with an error (reported):
 * the trace has a PSB then. */
static int ptxed_sync(struct ptxed_decoder *decoder,
                      const struct ptxed_options *options, int after_error,
                      uint64_t *last_sync, int *found)
{
	for (;;) {
		uint64_t offset;
		int status;

#if (LIBIPT_VERSION >= 0x202)
		if (after_error && options->resync_on_error) {
			status =
			        decoder->type == ptxed_insn_decoder
			                ? pt_insn_resync(decoder->variant.insn)
			                : pt_blk_resync(decoder->variant.block);
			if (status >= 0 || status == -pte_eos)
				return status;
			ptxed_diagnose(decoder, 0, "resync error", status);
			/* Fall back to the next PSB. */
		}
#else
		(void)options;
		(void)after_error;
#endif
		after_error = 0;

		status = decoder->type == ptxed_insn_decoder
		                 ? pt_insn_sync_forward(decoder->variant.insn)
		                 : pt_blk_sync_forward(decoder->variant.block);
		if (status != -pte_eos)
			*found = 1;
		if (status >= 0 || status == -pte_eos)
			return status;

		ptxed_diagnose(decoder, 0, "sync error", status);
		/* Stop if the failed synchronization made no progress: it
		 * never will. */
		if (ptxed_offset(decoder, &offset) < 0 || offset <= *last_sync)
			return -pte_eos;
		*last_sync = offset;
	}
}

/* Print and consume pending events; the time of the last one goes to
 * @time.  Returns the status of the last call or an error. */
static int ptxed_drain_events(struct ptxed_decoder *decoder,
                              const struct ptxed_options *options, int status,
                              uint64_t *time)
{
	while (status & pts_event_pending) {
		struct pt_event event;
		uint64_t offset = 0;

		if (options->print_offset) {
			int err = ptxed_offset(decoder, &offset);

			if (err < 0)
				return err;
		}
		status = decoder->type == ptxed_insn_decoder
		                 ? pt_insn_event(decoder->variant.insn, &event,
		                                 sizeof(event))
		                 : pt_blk_event(decoder->variant.block, &event,
		                                sizeof(event));
		if (status < 0)
			return status;
		*time = event.tsc;
		if (!options->quiet && !event.status_update)
			ptxed_print_event(&event, options, offset);
		ptxed_tasks_event(decoder->tasks, decoder, options, &event);
		ptxed_sb_event(decoder->sb, decoder, &event);
	}
	return status;
}

/* --check for one instruction: its size and class as our disassembler sees
 * them. */
static void ptxed_check_insn(struct ptd_ild_ctx *ild,
                             const struct pt_insn *insn, uint64_t offset)
{
	struct ptxed_insn_info info;
	int err;

	if (insn->isid <= 0)
		printf("[%" PRIx64 ", %" PRIx64 ": check error: bad isid]\n",
		       offset, insn->ip);
	err = ptxed_disas_decode(ild, &info, insn->raw, insn->size, insn->mode,
	                         insn->ip);
	if (err < 0) {
		printf("[%" PRIx64 ", %" PRIx64 ": check error: %s]\n", offset,
		       insn->ip, pt_errstr(pt_errcode(err)));
		return;
	}
	if (info.size != insn->size)
		printf("[%" PRIx64 ", %" PRIx64
		       ": check error: size %u, expected %u]\n",
		       offset, insn->ip, (unsigned)insn->size,
		       (unsigned)info.size);
	if (info.iclass != (uint8_t)insn->iclass)
		printf("[%" PRIx64 ", %" PRIx64
		       ": check error: iclass %d, expected %u]\n",
		       offset, insn->ip, (int)insn->iclass,
		       (unsigned)info.iclass);
}

/* Print @insn, through the cache of printed instructions where it can. */
static void ptxed_print_decoded(struct ptxed_decoder *decoder,
                                const struct ptxed_options *options,
                                struct ptd_ild_ctx *ild,
                                const struct pt_insn *insn, uint64_t offset,
                                uint64_t time)
{
	struct ptxed_insn_entry *e = NULL;
	struct ptxed_insn_info info;

	/* (An instruction that spans two sections has bytes of both, and one
	 * read through the image's callback has no section (isid 0): neither
	 * is kept.  Otherwise its IP, mode and section fix its bytes, and an
	 * entry of another size cannot be; were there one, this instruction
	 * is printed without the cache.) */
	if (insn->isid > 0 && !insn->truncated) {
		e = ptxed_icache_find(decoder->icache, insn->ip, insn->mode,
		                      insn->isid);
		if (e && e->size != insn->size)
			e = NULL;
		else if (!e && insn->size && insn->size <= pt_max_insn_size &&
		         ptxed_disas_decode(ild, &info, insn->raw, insn->size,
		                            insn->mode, insn->ip) >= 0 &&
		         info.size == insn->size)
			e = ptxed_icache_add(decoder->icache, insn->ip,
			                     insn->mode, insn->isid, insn->raw,
			                     insn->size, info.iclass,
			                     info.next_ip);
	}
	if (e)
		ptxed_print_cached(options, ild, decoder->icache, e, offset,
		                   time, insn->speculative);
	else
		ptxed_print_insn(options, ild, offset, time, insn->speculative,
		                 insn->ip, insn->raw, insn->size, insn->mode);
}

static int ptxed_decode_insn(struct ptxed_decoder *decoder,
                             const struct ptxed_options *options,
                             struct ptxed_stats *stats, struct ptd_ild_ctx *ild)
{
	struct pt_insn_decoder *dec = decoder->variant.insn;
	uint64_t offset = 0, sync = 0, time = 0;
	int after_error = 0, found = 0;

	for (;;) {
		struct pt_insn insn;
		int status;

		insn.ip = 0;
		status = ptxed_sync(decoder, options, after_error, &sync,
		                    &found);
		if (status == -pte_eos)
			break;
		if (status >= 0)
			ptxed_tasks_sync(decoder->tasks, decoder, options);

		for (;;) {
			status = ptxed_drain_events(decoder, options, status,
			                            &time);
			if (status < 0)
				break;
			if (status & pts_eos) {
				if (!(status & pts_ip_suppressed) &&
				    !options->quiet)
					puts("[end of trace]");
				status = -pte_eos;
				break;
			}
			if (options->print_offset || options->check) {
				int err = pt_insn_get_offset(dec, &offset);

				if (err < 0) {
					status = err;
					break;
				}
			}
			insn.iclass = ptic_unknown;
			status = pt_insn_next(dec, &insn, sizeof(insn));
			/* Even after an error the instruction may have been
			 * decoded. */
			if (status >= 0 || insn.iclass != ptic_unknown) {
				if (!options->quiet)
					ptxed_print_decoded(decoder, options,
					                    ild, &insn, offset,
					                    time);
				stats->insn += 1;
				if (options->check)
					ptxed_check_insn(ild, &insn, offset);
			}
			if (status < 0)
				break;
		}
		if (!status)
			status = -pte_internal;
		if (status == -pte_eos)
			break;
		ptxed_diagnose(decoder, insn.ip, "error", status);
		after_error = 1;
	}
	return found;
}

/* Read the instruction at @ip of @block into @raw.  Returns its available
 * size or a negative error code. */
static int ptxed_block_fetch(const struct ptxed_decoder *decoder,
                             const struct pt_block *block, uint64_t ip,
                             uint8_t raw[pt_max_insn_size])
{
	if (ip == block->end_ip && block->truncated) {
		if (!block->size || block->size > pt_max_insn_size)
			return -pte_bad_insn;
		memcpy(raw, block->raw, block->size);
		return block->size;
	}
	return pt_iscache_read(decoder->iscache, raw, pt_max_insn_size,
	                       block->isid, ip);
}

/* The IP to report for an error after @block: where the next instruction
 * should have been for a fetch or decode error, the last instruction's
 * otherwise. */
static uint64_t ptxed_block_error_ip(const struct ptxed_decoder *decoder,
                                     struct ptd_ild_ctx *ild,
                                     const struct pt_block *block, int errcode)
{
	struct ptxed_insn_info info;
	uint8_t raw[pt_max_insn_size];
	int size;

	if (!block->ninsn)
		return block->ip;
	if (errcode != -pte_nomap && errcode != -pte_bad_insn)
		return block->end_ip;
	size = ptxed_block_fetch(decoder, block, block->end_ip, raw);
	if (size <= 0 || ptxed_disas_decode(ild, &info, raw, (size_t)size,
	                                    block->mode, block->end_ip) < 0)
		return block->end_ip;
	return info.next_ip;
}

/* Print the instructions of @block (and check them with --check). */
static void ptxed_print_block(struct ptxed_decoder *decoder,
                              const struct pt_block *block,
                              const struct ptxed_options *options,
                              const struct ptxed_stats *stats,
                              struct ptd_ild_ctx *ild, uint64_t offset,
                              uint64_t time, int print)
{
	uint64_t ip = block->ip;
	uint16_t ninsn = block->ninsn;

	if (print && options->track_blocks) {
		if (options->print_stats)
			printf("[block %" PRIx64 "]\n", stats->blocks);
		else
			puts("[block]");
	}
	if (options->check && ninsn && block->isid <= 0)
		printf("[%" PRIx64 ", %" PRIx64 ": check error: bad isid]\n",
		       offset, block->ip);

	while (ninsn) {
		struct ptxed_insn_info info;
		/* (The last instruction of a truncated block is the block's
		 * own bytes, not the section's.) */
		const int keep = block->isid > 0 &&
		                 !(ip == block->end_ip && block->truncated);
		struct ptxed_insn_entry *e = NULL;
		uint8_t raw[pt_max_insn_size];
		int size, err;

		if (keep)
			e = ptxed_icache_find(decoder->icache, ip, block->mode,
			                      block->isid);
		if (e) {
			if (print)
				ptxed_print_cached(options, ild,
				                   decoder->icache, e, offset,
				                   time, block->speculative);
			info.iclass = e->iclass;
			info.next_ip = e->next_ip;
			goto next;
		}
		size = ptxed_block_fetch(decoder, block, ip, raw);
		if (size <= 0) {
			if (print) {
				if (options->print_offset)
					printf("%016" PRIx64 "  ", offset);
				if (options->print_time)
					ptxed_print_time(options, time);
				printf("%s%016" PRIx64 " [fetch error: %s]\n",
				       block->speculative ? "? " : "", ip,
				       pt_errstr(pt_errcode(
				               size ? size : -pte_nomap)));
			}
			return;
		}
		err = ptxed_disas_decode(ild, &info, raw, (size_t)size,
		                         block->mode, ip);
		if (err >= 0 && keep)
			e = ptxed_icache_add(decoder->icache, ip, block->mode,
			                     block->isid, raw, info.size,
			                     info.iclass, info.next_ip);
		if (print && e)
			ptxed_print_cached(options, ild, decoder->icache, e,
			                   offset, time, block->speculative);
		else if (print)
			ptxed_print_insn(options, ild, offset, time,
			                 block->speculative, ip, raw,
			                 err < 0 ? (uint8_t)size : info.size,
			                 block->mode);
		if (err < 0) {
			ptxed_diagnose(decoder, ip, "reconstruct error", err);
			return;
		}
	next:
		if (--ninsn == 0) {
			if (options->check && block->iclass != ptic_unknown &&
			    (uint8_t)block->iclass != info.iclass)
				printf("[%" PRIx64 ", %" PRIx64
				       ": check error: iclass %d, expected "
				       "%u]\n",
				       offset, ip, (int)block->iclass,
				       (unsigned)info.iclass);
			break;
		}
		ip = info.next_ip;
	}
	if (block->ninsn && ip != block->end_ip)
		ptxed_diagnose(decoder, ip, "reconstruct error", -pte_nosync);
}

static int ptxed_decode_block(struct ptxed_decoder *decoder,
                              const struct ptxed_options *options,
                              struct ptxed_stats *stats,
                              struct ptd_ild_ctx *ild)
{
	struct pt_block_decoder *dec = decoder->variant.block;
	uint64_t offset = 0, sync = 0, time = 0;
	const int walk = !options->quiet || options->check;
	int after_error = 0, found = 0;

	for (;;) {
		struct pt_block block;
		int status;

		block.ip = 0;
		block.ninsn = 0;
		status = ptxed_sync(decoder, options, after_error, &sync,
		                    &found);
		if (status == -pte_eos)
			break;
		if (status >= 0)
			ptxed_tasks_sync(decoder->tasks, decoder, options);

		for (;;) {
			status = ptxed_drain_events(decoder, options, status,
			                            &time);
			if (status < 0)
				break;
			if (status & pts_eos) {
				if (!(status & pts_ip_suppressed) &&
				    !options->quiet)
					puts("[end of trace]");
				status = -pte_eos;
				break;
			}
			if (options->print_offset || options->check) {
				int err = pt_blk_get_offset(dec, &offset);

				if (err < 0) {
					status = err;
					break;
				}
			}
			block.ninsn = 0;
			status = pt_blk_next(dec, &block, sizeof(block));
			/* Even after an error some instructions may have been
			 * decoded. */
			if (status >= 0 || block.ninsn) {
				stats->insn += block.ninsn;
				stats->blocks += 1;
				if (walk)
					ptxed_print_block(decoder, &block,
					                  options, stats, ild,
					                  offset, time,
					                  !options->quiet);
			}
			if (status < 0)
				break;
		}
		if (!status)
			status = -pte_internal;
		if (status == -pte_eos)
			break;
		ptxed_diagnose(
		        decoder,
		        ptxed_block_error_ip(decoder, ild, &block, status),
		        "error", status);
		after_error = 1;
	}
	return found;
}

int ptxed_decode(struct ptxed_decoder *decoder,
                 const struct ptxed_options *options, struct ptxed_stats *stats,
                 struct ptd_ild_ctx *ild)
{
	if (decoder->type == ptxed_insn_decoder)
		return ptxed_decode_insn(decoder, options, stats, ild);
	return ptxed_decode_block(decoder, options, stats, ild);
}
