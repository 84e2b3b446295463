/* SPDX-License-Identifier: BSD-3-Clause */
/* What ptdump and ptxed share of libipt's perf_event sideband options
 * (--pevent*, --sb:*): the options, the sideband files ("channels") and
 * their records merged in time order, and how records and diagnostics are
 * printed.  See docs/sideband.md.
 *
 * A channel is one --pevent, --pevent:primary or --pevent:secondary file:
 * the perf_event records of one CPU (or of none), read with
 * ptd_pevent_read() and the --pevent:* settings that preceded it on the
 * command line.  A session holds the channels; those with records left are
 * kept sorted by the TSC of their current record (its "due" time), and
 * ptd_sb_due() hands out the records due at a time, in time order across
 * files and in file order within one. */
#ifndef PTD_TOOL_SB_H
#define PTD_TOOL_SB_H

#include "ptdecode/ptdecode.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* How records are printed (--sb:* options). */
enum ptd_sb_print {
	/* --sb:compact (--sb): one line per record. */
	ptd_sb_print_compact = 1 << 0,
	/* --sb:verbose: a line per field. */
	ptd_sb_print_verbose = 1 << 1,
	/* --sb:filename, --sb:offset, --sb:time: columns before it. */
	ptd_sb_print_filename = 1 << 2,
	ptd_sb_print_offset = 1 << 3,
	ptd_sb_print_time = 1 << 4,
	/* --sb:warn: also print warnings. */
	ptd_sb_print_warn = 1 << 5,
	/* --sb:switch (ptxed): a line at each change of context. */
	ptd_sb_print_switch = 1 << 6
};

/* The flags that make a record's line. */
#define PTD_SB_PRINT_LINE                                                      \
	(ptd_sb_print_compact | ptd_sb_print_verbose | ptd_sb_print_filename | \
	 ptd_sb_print_offset | ptd_sb_print_time)

/* Which tool parses the options: ptdump takes --pevent and ignores what
 * only ptxed uses; ptxed takes --sb:switch. */
enum ptd_sb_tool { ptd_sb_ptdump, ptd_sb_ptxed };

/* The --pevent:* settings in force at a point of the command line. */
struct ptd_sb_config {
	/* --pevent:sample-type, --pevent:time-zero, -time-shift,
	 * -time-mult. */
	struct ptd_pevent_config pevent;
	/* --pevent:tsc-offset: records are due that many ticks earlier. */
	uint64_t tsc_offset;
	/* --pevent:kernel-start (default: none, UINT64_MAX). */
	uint64_t kernel_start;
	/* --pevent:sysroot, --pevent:vdso-x64, -x32, -ia32 (NULL: not
	 * given; they point into argv). */
	const char *sysroot;
	const char *vdso[3];
};

/* The ABIs of --pevent:vdso-*, in the order of ptd_sb_config.vdso. */
enum ptd_sb_abi { ptd_sb_abi_x64, ptd_sb_abi_x32, ptd_sb_abi_ia32 };

/* One sideband file. */
struct ptd_sb_channel {
	/* (config.pevent.by_id points to the channel's own copy of the
	 * --pevent:sample-config entries given before it.) */
	/* The file name as given (the range cut off), and what was read of
	 * it: @size bytes from the range's start. */
	char *name;
	uint8_t *buf;
	size_t size;
	/* The settings that preceded it; --pevent:primary. */
	struct ptd_sb_config config;
	int primary;

	/* The current record: where it starts (from the range's start), its
	 * fields and when it is due (its TSC less the tsc offset; 0 without
	 * a time). */
	size_t pos;
	struct ptd_pevent_record rec;
	uint64_t due;

	/* The next channel in the session's active or retired list. */
	struct ptd_sb_channel *link;
	/* The tool's own state of the channel (ptxed's contexts). */
	void *user;
};

/* The channels of one run. */
struct ptd_sb_session {
	/* Every channel, in command-line order (owned). */
	struct ptd_sb_channel **channels;
	size_t num_channels, cap_channels;
	/* Those with a current record, by due time; those that reached
	 * their end (kept with @keep_retired: ptxed needs them a little
	 * longer). */
	struct ptd_sb_channel *active;
	struct ptd_sb_channel *retired;
	int keep_retired;
	/* With @keep_retired, also the channels dropped after a bad record,
	 * for the tool to let go of what they hold. */
	struct ptd_sb_channel *dropped;
	/* enum ptd_sb_print. */
	uint32_t print;
	/* The settings for the next file option; the --pevent:sample-config
	 * entries so far (owned; config.pevent.by_id points to them). */
	struct ptd_sb_config config;
	struct ptd_pevent_sample_config *ids;
	size_t nids, cap_ids;
	/* Where records and diagnostics go. */
	FILE *out;
};

/* Initialize @s: no channels, libipt's defaults (sample-type 0, time-mult 1,
 * no kernel start), output to stdout. */
void ptd_sb_init(struct ptd_sb_session *s);

/* Free the channels of @s. */
void ptd_sb_fini(struct ptd_sb_session *s);

/* Handle argv[*@idx] if it is a sideband option of @tool: advance *@idx
 * past its argument and return 1; return 0 if it is not one (ptdump: also
 * for --sb:switch; ptxed: also for plain --pevent and for --pevent:kcore,
 * which ptxed loads itself); return -1 after a message to @err (the
 * argument missing or bad, a file that cannot be loaded).  A file option
 * loads the file at once, with a copy of the settings given so far. */
int ptd_sb_option(struct ptd_sb_session *s, enum ptd_sb_tool tool, int argc,
                  char *argv[], int *idx, const char *prog, FILE *err);

/* Read the first record of each channel (the last file first, as libipt)
 * and sort them by due time; a file whose first record is bad is reported
 * and left out, an empty one left out silently. */
void ptd_sb_start(struct ptd_sb_session *s);

/* What to do with a record after it was printed (ptxed applies it). */
typedef void ptd_sb_apply_fn(struct ptd_sb_channel *ch, void *ctx);

/* Print (and with @apply, apply) the records due at @time: while the first
 * channel's record is due at or before @time, take it, then read the
 * channel's next record.  A channel at its end is dropped, or retired with
 * @s->keep_retired; one whose next record is bad is reported and dropped
 * (into @s->dropped with @s->keep_retired). */
void ptd_sb_due(struct ptd_sb_session *s, uint64_t time, ptd_sb_apply_fn *apply,
                void *ctx);

/* Print a record's line(s) as the print flags say. */
void ptd_sb_print_record(const struct ptd_sb_session *s,
                         const struct ptd_sb_channel *ch);

/* Print "[<file>:<offset> sideband error: <errstr>]" for @ch's current
 * record. */
void ptd_sb_error(const struct ptd_sb_session *s,
                  const struct ptd_sb_channel *ch, int errcode);

/* Print "[<file>:<offset> sideband warning: <text>]" for @ch's current
 * record, with --sb:warn only. */
void ptd_sb_warning(const struct ptd_sb_session *s,
                    const struct ptd_sb_channel *ch, const char *text);

/* Whether any channel was given. */
static inline int ptd_sb_any(const struct ptd_sb_session *s)
{
	return s->num_channels != 0;
}

#endif /* PTD_TOOL_SB_H */
