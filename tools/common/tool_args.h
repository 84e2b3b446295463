/* SPDX-License-Identifier: BSD-3-Clause */
/* Command-line arguments as ptxed and the sideband options read them, as
 * libipt's tools do: numbers as strtoull() takes them, and file arguments
 * with a range, <file>[:<from>[-<to>]]; and --cpu's processor for both
 * tools. */
#ifndef PTD_TOOL_ARGS_H
#define PTD_TOOL_ARGS_H

#include <stdint.h>
#include <stdio.h>

struct pt_cpu;

/* The value @arg of option @option: a number up to @max, as strtoull() with
 * base 0 takes it (a sign and leading blanks too; -1 is the largest value).
 * Returns 1, or 0 after "<prog>: <option>: missing argument." (@arg NULL,
 * empty or an option), "... bad argument: <arg>." or "... value too big:
 * <arg>." on @err. */
int ptd_tool_number(uint64_t *value, uint64_t max, const char *option,
                    const char *arg, const char *prog, FILE *err);

/* Split "<file>[:<from>[-<to>]]" in place (the range is cut off @arg): a
 * last ':' followed by a number and optionally '-' and a number is a range,
 * anything else part of the name.  Sets @offset and @size (0: to the end).
 * Returns 0 or -pte_invalid for an empty or reversed range (@arg is left
 * whole, and @offset and @size are then <from> and <to>, for a message). */
int ptd_tool_split_range(char *arg, uint64_t *offset, uint64_t *size);

/* Warn on @err that --mtc-freq @value is no MTCFreq (a 4-bit field) if it
 * is above 15 (libipt's tools take 0 to 255). */
void ptd_tool_mtc_freq_check(uint64_t value, const char *prog, FILE *err);

/* The processor @arg of --cpu: "none" (no processor, no errata) or
 * family/model[/stepping] (ptd_cpu_parse()) into @cpu.  Returns 1, or 0
 * after "<prog>: --cpu: missing argument." (@arg NULL, empty or an
 * option), a note that "auto" (libipt 2.0's host CPUID) is not supported,
 * or "... bad processor: <arg> (expected ...)." on @err. */
int ptd_tool_cpu(struct pt_cpu *cpu, const char *arg, const char *prog,
                 FILE *err);

#endif /* PTD_TOOL_ARGS_H */
