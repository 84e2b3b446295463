/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the output lines, in libipt's ptxed format.
 *
 *	[<offset>  ][<time>  ][? ]<ip>[ <raw bytes>][  <disassembly>]
 *	[[<offset>  ][<tsc>  ]<event>[, ip: <ip>]]
 *	[<offset>, <ip>: <errtype>: <errstr>]
 *
 * All numbers are hexadecimal; offsets, times and IPs in instruction and
 * event lines have 16 digits, those in error lines have none. */
#ifndef PTXED_PRINT_H
#define PTXED_PRINT_H

#include "ptxed.h"

#include <stdint.h>

struct ptd_ild_ctx;

/* Print one instruction line.  @raw holds @size bytes of the instruction
 * (from the decoder or read back from the image). */
void ptxed_print_insn(const struct ptxed_options *options,
                      struct ptd_ild_ctx *ild, uint64_t offset, uint64_t time,
                      int speculative, uint64_t ip, const uint8_t *raw,
                      uint8_t size, enum pt_exec_mode mode);

struct ptxed_icache;
struct ptxed_insn_entry;

/* ptxed_print_insn() for an instruction of @cache (its disassembly
 * formatted once and kept there). */
void ptxed_print_cached(const struct ptxed_options *options,
                        struct ptd_ild_ctx *ild, struct ptxed_icache *cache,
                        struct ptxed_insn_entry *entry, uint64_t offset,
                        uint64_t time, int speculative);

/* Print @event (status updates are the caller's business). */
void ptxed_print_event(const struct pt_event *event,
                       const struct ptxed_options *options, uint64_t offset);

/* Print an error line.  @have_offset 0 prints '?' for the offset. */
void ptxed_print_error(int have_offset, uint64_t offset, uint64_t ip,
                       const char *errtype, int errcode);

/* Print the selected statistics. */
void ptxed_print_stats(const struct ptxed_stats *stats);

/* The time column of @time and two spaces: the TSC in 16 hex digits, or
 * with --perf:time perf time in seconds with nine decimals. */
void ptxed_print_time(const struct ptxed_options *options, uint64_t time);

#endif /* PTXED_PRINT_H */
