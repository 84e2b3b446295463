/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies of a query decoder's whole state.
 *
 * The flow decoders take the query decoder's results in batches and keep a
 * log of their calls so that the pull API can take over at any point (see
 * lib/flow/qsrc.h).  A copy of the decoder at a point between two batch
 * calls is the state that the pull API has after the same calls, so the
 * log can start again from there instead of growing from the last
 * synchronization over the whole trace. */
#ifndef PTD_QRY_COPY_H
#define PTD_QRY_COPY_H

#include "ptdecode/intel-pt.h"

/* Whether @decoder, between two ptd_qry_next_batch() calls, is where the
 * pull API is after the same results: no error of the last batch call waits
 * to be reported by the next one.  (A decoder that has only seen pull calls
 * is, too.) */
int ptd_qry_copy_ok(const struct pt_query_decoder *decoder);

/* A new decoder in the state of @decoder (same configuration, position,
 * pending events, time engine), or NULL if @decoder is NULL or memory runs
 * out.  Free it with pt_qry_free_decoder(). */
struct pt_query_decoder *ptd_qry_clone(const struct pt_query_decoder *decoder);

/* Put @dst, made by ptd_qry_clone() (or ptd_qry_alloc_decoder()), into the
 * state of @src.  Returns 0, or -pte_invalid for NULL arguments. */
int ptd_qry_copy(struct pt_query_decoder *dst,
                 const struct pt_query_decoder *src);

/* The status flags (pts_event_pending, pts_eos) that a pull call leaving
 * @decoder in its state returns. */
int ptd_qry_copy_status(const struct pt_query_decoder *decoder);

#endif /* PTD_QRY_COPY_H */
