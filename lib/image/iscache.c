/* SPDX-License-Identifier: BSD-3-Clause */
/* The image section cache: pt_iscache_* and ptd_iscache_add_buffer(). */
#define _POSIX_C_SOURCE 200809L

#include "image/iscache.h"

#include "image/file.h"
#include "ptdecode/ptd_image.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct pt_image_section_cache *pt_iscache_alloc(const char *name)
{
	struct pt_image_section_cache *iscache;
	struct ptd_iscache_core *core;

	iscache = calloc(1, sizeof(*iscache));
	core = calloc(1, sizeof(*core));
	if (!iscache || !core)
		goto fail;
	if (name) {
		iscache->name = strdup(name);
		if (!iscache->name)
			goto fail;
	}
	if (pthread_mutex_init(&core->lock, NULL) != 0)
		goto fail;
	/* No limit until the user sets one, as in libipt: what was mapped
	 * stays mapped until the cache is freed. */
	core->limit = UINT64_MAX;
	atomic_init(&core->refs, 1);
	iscache->core = core;
	return iscache;

fail:
	if (iscache)
		free(iscache->name);
	free(iscache);
	free(core);
	return NULL;
}

void pt_iscache_free(struct pt_image_section_cache *iscache)
{
	struct ptd_iscache_core *core;
	size_t i;

	if (!iscache)
		return;
	core = iscache->core;
	/* Unmap the idle sections; those still in use are unmapped when
	 * their last user lets go, as the limit is now 0. */
	if (pthread_mutex_lock(&core->lock) == 0) {
		core->limit = 0;
		ptd_iscache_core_trim(core);
		pthread_mutex_unlock(&core->lock);
	}
	for (i = 0; i < iscache->count; ++i)
		ptd_section_put(iscache->sections[i]);
	free(iscache->sections);
	free(iscache->table);
	free(iscache->name);
	free(iscache);
	ptd_iscache_core_put(core);
}

int pt_iscache_set_limit(struct pt_image_section_cache *iscache, uint64_t limit)
{
	struct ptd_iscache_core *core;

	if (!iscache)
		return -pte_invalid;
	core = iscache->core;
	if (pthread_mutex_lock(&core->lock) != 0)
		return -pte_bad_lock;
	core->limit = limit;
	ptd_iscache_core_trim(core);
	pthread_mutex_unlock(&core->lock);
	return 0;
}

const char *pt_iscache_name(const struct pt_image_section_cache *iscache)
{
	return iscache ? iscache->name : NULL;
}

/* Append @sec to @iscache's table (under the lock); the table takes the
 * reference.  Returns the isid or -pte_nomem. */
static int ptd_iscache_append(struct pt_image_section_cache *iscache,
                              struct ptd_section *sec)
{
	if (iscache->count >= (size_t)INT_MAX)
		return -pte_nomem;
	if (iscache->count == iscache->capacity) {
		size_t capacity =
		        iscache->capacity ? 2 * iscache->capacity : 16;
		struct ptd_section **sections;

		sections = realloc(iscache->sections,
		                   capacity * sizeof(*sections));
		if (!sections)
			return -pte_nomem;
		iscache->sections = sections;
		iscache->capacity = capacity;
	}
	iscache->sections[iscache->count++] = sec;
	return (int)iscache->count;
}

/* The table slot to start searching a file section at. */
static size_t ptd_iscache_hash(const struct pt_image_section_cache *iscache,
                               const char *filename, uint64_t offset,
                               uint64_t size, uint64_t vaddr)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *filename; ++filename)
		h = (h ^ (uint8_t)*filename) * UINT64_C(0x100000001b3);
	h ^= offset * UINT64_C(0x9e3779b97f4a7c15);
	h = (h ^ (h >> 31)) * UINT64_C(0xbf58476d1ce4e5b9);
	h ^= size * UINT64_C(0x94d049bb133111eb);
	h = (h ^ (h >> 29)) * UINT64_C(0x9e3779b97f4a7c15);
	h ^= vaddr;
	h = (h ^ (h >> 32)) * UINT64_C(0xd6e8feb86659fd93);
	return (size_t)(h ^ (h >> 32)) & (iscache->table_size - 1);
}

/* Put @isid (a file section) into the table, which has room. */
static void ptd_iscache_table_put(struct pt_image_section_cache *iscache,
                                  int isid)
{
	const struct ptd_section *sec = iscache->sections[isid - 1];
	size_t i;

	i = ptd_iscache_hash(iscache, sec->filename, sec->offset, sec->size,
	                     sec->vaddr);
	while (iscache->table[i])
		i = (i + 1) & (iscache->table_size - 1);
	iscache->table[i] = isid;
	iscache->table_used += 1;
}

/* Make room in the table for one more file section.  Returns 0 or
 * -pte_nomem. */
static int ptd_iscache_table_grow(struct pt_image_section_cache *iscache)
{
	size_t size, i;
	int *old;

	if (2 * (iscache->table_used + 1) <= iscache->table_size)
		return 0;
	size = iscache->table_size ? 2 * iscache->table_size : 64;
	if (size > SIZE_MAX / sizeof(int))
		return -pte_nomem;
	old = iscache->table;
	iscache->table = calloc(size, sizeof(int));
	if (!iscache->table) {
		iscache->table = old;
		return -pte_nomem;
	}
	iscache->table_size = size;
	iscache->table_used = 0;
	for (i = 0; i < iscache->count; ++i)
		if (iscache->sections[i]->kind == ptd_sk_file)
			ptd_iscache_table_put(iscache, (int)i + 1);
	free(old);
	return 0;
}

/* The isid of the file section with these fields, or 0. */
static int ptd_iscache_table_find(const struct pt_image_section_cache *iscache,
                                  const char *filename, uint64_t offset,
                                  uint64_t size, uint64_t vaddr)
{
	size_t i;

	if (!iscache->table_size)
		return 0;
	i = ptd_iscache_hash(iscache, filename, offset, size, vaddr);
	for (; iscache->table[i]; i = (i + 1) & (iscache->table_size - 1)) {
		const struct ptd_section *sec;

		sec = iscache->sections[iscache->table[i] - 1];
		if (sec->offset == offset && sec->size == size &&
		    sec->vaddr == vaddr && strcmp(sec->filename, filename) == 0)
			return iscache->table[i];
	}
	return 0;
}

int pt_iscache_add_file(struct pt_image_section_cache *iscache,
                        const char *filename, uint64_t offset, uint64_t size,
                        uint64_t vaddr)
{
	struct ptd_section *sec;
	uint64_t fsize;
	int errcode;

	if (!iscache || !filename)
		return -pte_invalid;
	errcode = ptd_file_size(filename, &fsize);
	if (errcode < 0)
		return errcode;
	if (offset >= fsize)
		return -pte_invalid;
	/* The section as it will be, to find it if it is there. */
	if (size > fsize - offset)
		size = fsize - offset;
	size = ptd_range_clip(vaddr, size);

	if (pthread_mutex_lock(&iscache->core->lock) != 0)
		return -pte_bad_lock;
	errcode =
	        ptd_iscache_table_find(iscache, filename, offset, size, vaddr);
	if (!errcode)
		errcode = ptd_iscache_table_grow(iscache);
	if (!errcode)
		errcode = ptd_section_new_file(&sec, filename, offset, size,
		                               vaddr, iscache->core);
	if (!errcode) {
		errcode = ptd_iscache_append(iscache, sec);
		if (errcode < 0) {
			/* The core's lock is held: the section must not
			 * take it, and unmapped it needs not. */
			ptd_section_put(sec);
		} else {
			ptd_iscache_table_put(iscache, errcode);
		}
	}
	pthread_mutex_unlock(&iscache->core->lock);
	return errcode;
}

int ptd_iscache_add_buffer(struct pt_image_section_cache *iscache,
                           const void *buf, uint64_t size, uint64_t vaddr,
                           int copy)
{
	struct ptd_section *sec;
	int errcode;

	if (!iscache || !buf)
		return -pte_invalid;
	errcode = ptd_section_new_memory(&sec, buf, size, vaddr, copy);
	if (errcode < 0)
		return errcode;
	if (pthread_mutex_lock(&iscache->core->lock) != 0) {
		ptd_section_put(sec);
		return -pte_bad_lock;
	}
	errcode = ptd_iscache_append(iscache, sec);
	pthread_mutex_unlock(&iscache->core->lock);
	if (errcode < 0)
		ptd_section_put(sec);
	return errcode;
}

int ptd_iscache_lookup(struct pt_image_section_cache *iscache, int isid,
                       struct ptd_section **psec)
{
	int errcode = -pte_bad_image;

	if (!iscache || !psec)
		return -pte_internal;
	if (pthread_mutex_lock(&iscache->core->lock) != 0)
		return -pte_bad_lock;
	if (isid > 0 && (size_t)isid <= iscache->count) {
		*psec = iscache->sections[isid - 1];
		ptd_section_get(*psec);
		errcode = 0;
	}
	pthread_mutex_unlock(&iscache->core->lock);
	return errcode;
}

int pt_iscache_read(struct pt_image_section_cache *iscache, uint8_t *buffer,
                    uint64_t size, int isid, uint64_t vaddr)
{
	struct ptd_section *sec;
	const uint8_t *data;
	uint64_t delta;
	int errcode;

	if (!iscache || !buffer || !size)
		return -pte_invalid;
	errcode = ptd_iscache_lookup(iscache, isid, &sec);
	if (errcode < 0)
		return errcode;
	delta = vaddr - sec->vaddr;
	if (delta >= sec->size) {
		ptd_section_put(sec);
		return -pte_nomap;
	}
	errcode = ptd_section_map(sec, &data);
	if (errcode >= 0) {
		if (size > sec->size - delta)
			size = sec->size - delta;
		/* At most 64 KiB - 1 per call, as libipt (its header allows a
		 * short read). */
		if (size > UINT16_MAX)
			size = UINT16_MAX;
		memcpy(buffer, data + delta, (size_t)size);
		ptd_section_unmap(sec);
		errcode = (int)size;
	}
	ptd_section_put(sec);
	return errcode;
}
