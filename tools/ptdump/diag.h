/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: diagnostic lines in the packet listing.
 *
 * Problems found while dumping are reported in the listing itself, on a line
 * of their own, in the format libipt's ptdump uses and scripts look for:
 *
 *	[<offset in hex>: <what happened>: <pt_errstr() text>]
 *	[<offset in hex>: <what happened>]		(no error code)
 */
#ifndef PTDUMP_DIAG_H
#define PTDUMP_DIAG_H

#include <stdint.h>
#include <stdio.h>

/* Print a diagnostic line for @offset to @out.  @errcode is a negative
 * pt_error_code, or 0 for a note without an error code.  Returns @errcode,
 * so that callers can write "return ptdump_diag(...)". */
int ptdump_diag(FILE *out, uint64_t offset, const char *what, int errcode);

#endif /* PTDUMP_DIAG_H */
