/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the processes' contexts of the perf_event sideband; see
 * sb_context.h. */
#include "sb_context.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static size_t ctx_bucket(const struct ptxed_ctxs *t, uint32_t pid)
{
	/* Fibonacci hashing: the high bits of the product, which every bit
	 * of the pid moves. */
	return (size_t)((uint32_t)(pid * UINT32_C(2654435769)) >> t->shift);
}

int ptxed_ctxs_init(struct ptxed_ctxs *t)
{
	t->nbuckets = 64;
	t->shift = 32 - 6;
	t->nlive = 0;
	t->replaced = NULL;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	return t->buckets ? 0 : -1;
}

static void ctx_free(struct ptxed_ctx *ctx)
{
	pt_image_free(ctx->image);
	free(ctx);
}

void ptxed_ctxs_fini(struct ptxed_ctxs *t)
{
	for (size_t i = 0; t->buckets && i < t->nbuckets; ++i)
		while (t->buckets[i]) {
			struct ptxed_ctx *ctx = t->buckets[i];

			t->buckets[i] = ctx->next;
			ctx_free(ctx);
		}
	while (t->replaced) {
		struct ptxed_ctx *ctx = t->replaced;

		t->replaced = ctx->next;
		ctx_free(ctx);
	}
	free(t->buckets);
	t->buckets = NULL;
	t->nbuckets = 0;
	t->nlive = 0;
}

struct ptxed_ctx *ptxed_ctxs_find(const struct ptxed_ctxs *t, uint32_t pid)
{
	for (struct ptxed_ctx *c = t->buckets[ctx_bucket(t, pid)]; c;
	     c = c->next)
		if (c->pid == pid)
			return c;
	return NULL;
}

/* Double the table when it holds as many contexts as buckets.  (A table
 * that cannot grow still works, with longer chains.) */
static void ctx_grow(struct ptxed_ctxs *t)
{
	struct ptxed_ctxs bigger = *t;

	if (t->nlive < t->nbuckets || t->shift <= 8)
		return;
	bigger.nbuckets = 2 * t->nbuckets;
	bigger.shift = t->shift - 1;
	bigger.buckets = calloc(bigger.nbuckets, sizeof(*bigger.buckets));
	if (!bigger.buckets)
		return;
	for (size_t i = 0; i < t->nbuckets; ++i)
		while (t->buckets[i]) {
			struct ptxed_ctx *ctx = t->buckets[i];
			size_t b = ctx_bucket(&bigger, ctx->pid);

			t->buckets[i] = ctx->next;
			ctx->next = bigger.buckets[b];
			bigger.buckets[b] = ctx;
		}
	free(t->buckets);
	t->buckets = bigger.buckets;
	t->nbuckets = bigger.nbuckets;
	t->shift = bigger.shift;
}

struct ptxed_ctx *ptxed_ctxs_new(struct ptxed_ctxs *t, uint32_t pid,
                                 const struct pt_image *base)
{
	struct ptxed_ctx *ctx, **at;
	char name[32];

	snprintf(name, sizeof(name), "pid-%" PRIx32, pid);
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->image = pt_image_alloc(name);
	if (!ctx->image || pt_image_copy(ctx->image, base) < 0) {
		ctx_free(ctx);
		return NULL;
	}
	ctx->pid = pid;
	ctx->abi = -1;

	/* The old context leaves the table for the replaced ones. */
	for (at = &t->buckets[ctx_bucket(t, pid)]; *at; at = &(*at)->next)
		if ((*at)->pid == pid) {
			struct ptxed_ctx *old = *at;

			*at = old->next;
			old->next = t->replaced;
			t->replaced = old;
			t->nlive -= 1;
			break;
		}
	ctx_grow(t);
	at = &t->buckets[ctx_bucket(t, pid)];
	ctx->next = *at;
	*at = ctx;
	t->nlive += 1;
	return ctx;
}

void ptxed_ctxs_collect(struct ptxed_ctxs *t, const struct pt_image *in_use,
                        const struct pt_image *next)
{
	struct ptxed_ctx **at = &t->replaced;

	while (*at) {
		struct ptxed_ctx *ctx = *at;

		if (ctx->refs || ctx->image == in_use || ctx->image == next) {
			at = &ctx->next;
			continue;
		}
		*at = ctx->next;
		ctx_free(ctx);
	}
}
