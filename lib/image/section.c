/* SPDX-License-Identifier: BSD-3-Clause */
/* Sections: creation, references, mapping and the idle-section LRU list. */
#define _POSIX_C_SOURCE 200809L

#include "image/section.h"

#include "image/file.h"
#include "image/image.h"

#include <stdlib.h>
#include <string.h>

static struct ptd_section *ptd_section_alloc(enum ptd_section_kind kind,
                                             uint64_t vaddr, uint64_t size)
{
	struct ptd_section *sec = calloc(1, sizeof(*sec));

	if (!sec)
		return NULL;
	atomic_init(&sec->refs, 1);
	sec->kind = kind;
	sec->vaddr = vaddr;
	sec->size = ptd_range_clip(vaddr, size);
	return sec;
}

/* Give a root its own mutex.  Returns 0 or -pte_nomem. */
static int ptd_section_own_lock(struct ptd_section *sec)
{
	if (pthread_mutex_init(&sec->own_lock, NULL) != 0)
		return -pte_nomem;
	sec->lock = &sec->own_lock;
	return 0;
}

int ptd_section_new_file(struct ptd_section **psec, const char *filename,
                         uint64_t offset, uint64_t size, uint64_t vaddr,
                         struct ptd_iscache_core *core)
{
	struct ptd_section *sec;
	uint64_t fsize;
	int64_t mtime;
	int errcode;

	if (!psec || !filename)
		return -pte_internal;
	errcode = ptd_file_stat(filename, &fsize, &mtime);
	if (errcode < 0)
		return errcode;
	if (offset >= fsize)
		return -pte_invalid;
	if (size > fsize - offset)
		size = fsize - offset;

	sec = ptd_section_alloc(ptd_sk_file, vaddr, size);
	if (!sec)
		return -pte_nomem;
	sec->filename = strdup(filename);
	if (!sec->filename) {
		free(sec);
		return -pte_nomem;
	}
	sec->offset = offset;
	sec->file_size = fsize;
	sec->file_mtime = mtime;
	if (core) {
		sec->lock = &core->lock;
		sec->core = core;
		atomic_fetch_add_explicit(&core->refs, 1, memory_order_relaxed);
	} else if (ptd_section_own_lock(sec) < 0) {
		free(sec->filename);
		free(sec);
		return -pte_nomem;
	}
	*psec = sec;
	return 0;
}

int ptd_section_new_memory(struct ptd_section **psec, const void *buf,
                           uint64_t size, uint64_t vaddr, int copy)
{
	struct ptd_section *sec;

	if (!psec || !buf)
		return -pte_internal;
	if (size > SIZE_MAX)
		return -pte_invalid;
	sec = ptd_section_alloc(ptd_sk_memory, vaddr, size);
	if (!sec)
		return -pte_nomem;
	if (copy) {
		sec->owned = malloc(sec->size ? (size_t)sec->size : 1);
		if (!sec->owned) {
			free(sec);
			return -pte_nomem;
		}
		memcpy(sec->owned, buf, (size_t)sec->size);
		sec->mem = sec->owned;
	} else {
		sec->mem = buf;
	}
	if (ptd_section_own_lock(sec) < 0) {
		free(sec->owned);
		free(sec);
		return -pte_nomem;
	}
	*psec = sec;
	return 0;
}

int ptd_section_new_view(struct ptd_section **psec, struct ptd_section *sec,
                         uint64_t vaddr, uint64_t size)
{
	struct ptd_section *root, *view;
	uint64_t delta;

	if (!psec || !sec || !size)
		return -pte_internal;
	delta = vaddr - sec->vaddr;
	if (delta >= sec->size || size > sec->size - delta)
		return -pte_internal;

	root = ptd_section_root(sec);
	if (sec != root)
		delta += sec->delta;
	view = ptd_section_alloc(ptd_sk_view, vaddr, size);
	if (!view)
		return -pte_nomem;
	view->root = root;
	view->delta = delta;
	ptd_section_get(root);
	*psec = view;
	return 0;
}

void ptd_section_get(struct ptd_section *sec)
{
	atomic_fetch_add_explicit(&sec->refs, 1, memory_order_relaxed);
}

void ptd_section_put(struct ptd_section *sec)
{
	if (!sec)
		return;
	if (atomic_fetch_sub_explicit(&sec->refs, 1, memory_order_acq_rel) != 1)
		return;

	if (sec->free_cache)
		sec->free_cache(atomic_load_explicit(&sec->cache,
		                                     memory_order_acquire));
	switch (sec->kind) {
	case ptd_sk_view:
		ptd_section_put(sec->root);
		break;
	case ptd_sk_memory:
		free(sec->owned);
		pthread_mutex_destroy(&sec->own_lock);
		break;
	case ptd_sk_file:
		/* Nobody uses it, and an idle section in a cache's list holds
		 * a reference of the cache's table, so it is not listed. */
		ptd_file_unmap(sec->map_base, sec->map_len, sec->map_kind);
		free(sec->filename);
		if (sec->core)
			ptd_iscache_core_put(sec->core);
		else
			pthread_mutex_destroy(&sec->own_lock);
		break;
	}
	free(sec);
}

const char *ptd_section_filename(const struct ptd_section *sec)
{
	if (sec->kind == ptd_sk_view)
		sec = sec->root;
	return sec->filename;
}

/* Take a root off its cache's list of idle sections (under the lock). */
static void ptd_lru_unlink(struct ptd_section *sec)
{
	struct ptd_iscache_core *core = sec->core;

	if (!sec->in_lru)
		return;
	if (sec->lru_prev)
		sec->lru_prev->lru_next = sec->lru_next;
	else
		core->lru_head = sec->lru_next;
	if (sec->lru_next)
		sec->lru_next->lru_prev = sec->lru_prev;
	else
		core->lru_tail = sec->lru_prev;
	sec->lru_prev = sec->lru_next = NULL;
	sec->in_lru = 0;
	core->lru_bytes -= sec->size;
}

static void ptd_root_unmap_now(struct ptd_section *sec)
{
	ptd_file_unmap(sec->map_base, sec->map_len, sec->map_kind);
	sec->data = NULL;
	sec->map_base = NULL;
	sec->map_len = 0;
	sec->map_kind = ptd_map_none;
}

int ptd_section_map(struct ptd_section *sec, const uint8_t **data)
{
	struct ptd_section *root;
	uint64_t delta = 0;
	int errcode = 0;

	if (!sec || !data)
		return -pte_internal;
	root = sec;
	if (sec->kind == ptd_sk_view) {
		root = sec->root;
		delta = sec->delta;
	}
	if (root->kind == ptd_sk_memory) {
		*data = root->mem + delta;
		return 0;
	}

	if (pthread_mutex_lock(root->lock) != 0)
		return -pte_bad_lock;
	if (!root->data)
		errcode = ptd_file_map(root->filename, root->offset, root->size,
		                       root->file_size, root->file_mtime,
		                       &root->data, &root->map_base,
		                       &root->map_len, &root->map_kind);
	if (errcode >= 0) {
		ptd_lru_unlink(root);
		root->mapcount += 1;
		*data = root->data + delta;
	}
	pthread_mutex_unlock(root->lock);
	return errcode;
}

void ptd_section_unmap(struct ptd_section *sec)
{
	struct ptd_iscache_core *core;
	struct ptd_section *root;

	if (!sec)
		return;
	root = ptd_section_root(sec);
	if (root->kind == ptd_sk_memory)
		return;

	/* A lock that cannot be taken leaves the section mapped: a leak of
	 * a mapping, never an unmapping under a user. */
	if (pthread_mutex_lock(root->lock) != 0)
		return;
	if (root->mapcount && --root->mapcount == 0) {
		core = root->core;
		/* (An empty section never gets here, but must not sit in
		 * the list at no cost after its cache is gone.) */
		if (core && root->size && root->size <= core->limit) {
			root->lru_prev = NULL;
			root->lru_next = core->lru_head;
			if (core->lru_head)
				core->lru_head->lru_prev = root;
			else
				core->lru_tail = root;
			core->lru_head = root;
			root->in_lru = 1;
			core->lru_bytes += root->size;
			ptd_iscache_core_trim(core);
		} else {
			ptd_root_unmap_now(root);
		}
	}
	pthread_mutex_unlock(root->lock);
}

int ptd_section_is_mapped(struct ptd_section *sec)
{
	struct ptd_section *root = ptd_section_root(sec);
	int mapped;

	if (root->kind == ptd_sk_memory)
		return 1;
	if (pthread_mutex_lock(root->lock) != 0)
		return 0;
	mapped = root->data != NULL;
	pthread_mutex_unlock(root->lock);
	return mapped;
}

void ptd_iscache_core_trim(struct ptd_iscache_core *core)
{
	while (core->lru_tail && core->lru_bytes > core->limit) {
		struct ptd_section *sec = core->lru_tail;

		ptd_lru_unlink(sec);
		ptd_root_unmap_now(sec);
	}
}

void ptd_iscache_core_put(struct ptd_iscache_core *core)
{
	if (!core)
		return;
	if (atomic_fetch_sub_explicit(&core->refs, 1, memory_order_acq_rel) !=
	    1)
		return;
	pthread_mutex_destroy(&core->lock);
	free(core);
}

/* The flow layer's per-section cache slot (image.h). */
void *ptd_section_cache(const struct ptd_section *section)
{
	struct ptd_section *sec = (struct ptd_section *)section;

	return sec ? atomic_load_explicit(&sec->cache, memory_order_acquire)
	           : NULL;
}

/* The slot is set with a compare-and-swap, so that two threads that race
 * to set it cannot both succeed (the loser gets -pte_bad_context and keeps
 * its cache); what is in the cache is the flow layer's business. */
int ptd_section_set_cache(struct ptd_section *section, void *cache,
                          void (*free_cache)(void *cache))
{
	void *none = NULL;

	if (!section || !cache)
		return -pte_invalid;
	if (!atomic_compare_exchange_strong_explicit(
	            &section->cache, &none, cache, memory_order_acq_rel,
	            memory_order_acquire))
		return -pte_bad_context;
	/* Read only when the last reference goes, after the winner's own
	 * reference (whose release orders this store). */
	section->free_cache = free_cache;
	return 0;
}
