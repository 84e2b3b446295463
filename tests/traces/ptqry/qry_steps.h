/* SPDX-License-Identifier: BSD-3-Clause */
/* ptqry: the results of the standard query loop, from the pull API or from
 * ptd_qry_next_batch(), in one format, so that the two can be compared.
 *
 * The loop is the one <ptdecode/ptd_query.h> describes: sync forward; then
 * an event while one is pending, else a conditional branch, else (on
 * -pte_bad_query) an indirect branch; sync forward after an error; stop at
 * the end of the trace.  Each result is one line, followed by a "time" line
 * with what pt_qry_time() says after it:
 *
 *   sync [ip <ip>|suppressed]     cond taken|not-taken
 *   indirect [ip <ip>|suppressed] event <event as in qry_format.h>
 *   <call> error <code> at <offset>
 *   time tsc 0x<t> lost-mtc 0x<n> lost-cyc 0x<n> [no-tsc]
 *
 * where <call> (cond, indirect, event or sync) is the call that failed: a
 * line for every failed call of the loop, a query's -pte_eos included, but
 * for pt_qry_sync_forward()'s -pte_eos (the end) and -pte_nosync.  Status
 * flags are not printed: the batch interface tells them only before an
 * error (by the call that failed). */
#ifndef PTQRY_STEPS_H
#define PTQRY_STEPS_H

#include "qry_backend.h"

/* Run the loop with the pull API of @backend. */
void ptqry_steps_pull(const struct ptqry_backend *backend);

/* Run the loop with ptd_qry_next_batch() on ptdecode's @decoder.  Returns
 * 0, or -1 after a message if the batch call fails. */
int ptqry_steps_batch(struct pt_query_decoder *decoder);

/* Decode the trace of @options with ptdecode's event decoder (pt_evt_*):
 * each synchronization ("sync <offset>", or its error), each event, and
 * each error of pt_evt_next() with its offset ("next error <name> at
 * <offset>"), after which it synchronizes forward, up to the end.  Returns
 * 0, or -1 if the decoder cannot be allocated. */
int ptqry_steps_events(const struct ptqry_decoder_options *options);

#endif /* PTQRY_STEPS_H */
