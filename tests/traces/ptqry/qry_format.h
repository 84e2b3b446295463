/* SPDX-License-Identifier: BSD-3-Clause */
/* ptqry: the text form of query results, as docs/ptasm.md ("Query
 * expectations") defines it.  Every line is a call's name followed by
 * words: IPs and offsets as 16 hex digits, other numbers as 0x-prefixed
 * hex, flags as words. */
#ifndef PTQRY_FORMAT_H
#define PTQRY_FORMAT_H

#include "ptdecode/intel-pt.h"

#include <stdint.h>
#include <stdio.h>

/* Print the status flags of a non-negative result @status: " suppressed",
 * " pending", " eos" (in this order). */
void ptqry_print_flags(FILE *out, int status);

/* Print " error <name>" for the negative result @status, where <name> is
 * the pt_error_code without "pte_" ("eos", "bad_query", ...). */
void ptqry_print_error(FILE *out, int status);

/* That <name> of the negative result @status, or NULL if it has none. */
const char *ptqry_error_name(int status);

/* Print the event @event (without the leading "event" and the status
 * flags): " <type> <fields> [ip-suppressed] [status-update] [tsc 0x..]
 * [lost-mtc 0x..] [lost-cyc 0x..]". */
void ptqry_print_event(FILE *out, const struct pt_event *event);

/* Return the name of event type @type ("enabled", "async_branch", ...), or
 * NULL if it has none. */
const char *ptqry_event_name(int type);

#endif /* PTQRY_FORMAT_H */
