/* SPDX-License-Identifier: BSD-3-Clause */
/* ptqry: making the query calls of an expectation script and printing what
 * they return, one expectation line per call (docs/ptasm.md, "Query
 * expectations"). */
#ifndef PTQRY_CALLS_H
#define PTQRY_CALLS_H

#include "qry_backend.h"

/* Run the calls that the lines of the script @text (read from the file
 * @name, for messages) name on @backend and print one line for each; lines
 * that start with ';' are printed as they are.  @text is modified.  Returns
 * 0, or -1 after a message for a line that names no call. */
int ptqry_run_script(const struct ptqry_backend *backend, const char *name,
                     char *text);

/* Choose the calls as a client that knows no code would (an event while one
 * is pending, else a conditional branch, else an indirect branch; sync
 * forward after errors) and print them as ptqry_run_script() would, up to
 * the end of the trace. */
void ptqry_run_auto(const struct ptqry_backend *backend);

#endif /* PTQRY_CALLS_H */
