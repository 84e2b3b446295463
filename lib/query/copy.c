/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies of a query decoder's whole state (qry_copy.h). */
#include "qry_copy.h"

#include "qry_decoder.h"

#include <stdlib.h>
#include <string.h>

int ptd_qry_copy_ok(const struct pt_query_decoder *decoder)
{
	return decoder && decoder->pos && !decoder->batch_error;
}

int ptd_qry_copy(struct pt_query_decoder *dst,
                 const struct pt_query_decoder *src)
{
	if (!dst || !src)
		return -pte_invalid;
	if (dst == src)
		return 0;
	/* The state is one flat structure; two pointers in it point into the
	 * structure itself and are moved to the copy's: the time engine's
	 * configuration (the decoder's own copy of the user's), and the
	 * event being reported (a slot of the event queue).  The others
	 * point into the trace, which the two share. */
	memcpy(dst, src, sizeof(*dst));
	dst->time.cfg.config = &dst->config;
	if (src->event) {
		size_t off = (size_t)((const char *)src->event -
		                      (const char *)&src->evq);

		dst->event = (struct ptd_evq_slot *)((char *)&dst->evq + off);
	}
	return 0;
}

struct pt_query_decoder *ptd_qry_clone(const struct pt_query_decoder *decoder)
{
	struct pt_query_decoder *copy;

	if (!decoder)
		return NULL;
	copy = malloc(sizeof(*copy));
	if (!copy)
		return NULL;
	(void)ptd_qry_copy(copy, decoder);
	return copy;
}

int ptd_qry_copy_status(const struct pt_query_decoder *decoder)
{
	return ptd_qry_status(decoder);
}
