/* SPDX-License-Identifier: BSD-3-Clause */
/* Sections: ranges of a file or of memory placed at a virtual address.
 *
 * A section is reference-counted and shared by images and image section
 * caches, possibly from several threads.  There are two kinds:
 *
 *  - A root section owns the bytes: a file range, mapped on demand, or a
 *    memory buffer (copied or borrowed), always "mapped".
 *  - A view is a sub-range of a root section, made when a newer section
 *    covers part of an older one.  It holds a reference to its root and
 *    uses the root's mapping, so splitting never maps or copies anything.
 *
 * Every section, root or view, has one virtual address for its whole life,
 * so a per-section cache (ptd_section_set_cache()) can be indexed by the
 * offset from that address.
 *
 * Mapping: ptd_section_map() maps a file root on the first call and counts
 * its users; ptd_section_unmap() lets go.  A root that no one uses any more
 * is unmapped at once, unless it belongs to an image section cache with a
 * limit, which keeps the most recently used idle roots mapped (LRU) while
 * their bytes fit in the limit.  The mapping state of a root is protected
 * by a mutex: the cache's (one for all its sections, as the LRU list spans
 * them) or the section's own. */
#ifndef PTD_IMAGE_SECTION_H
#define PTD_IMAGE_SECTION_H

#include "ptdecode/intel-pt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct ptd_section;

/* The part of an image section cache that its sections share: the lock of
 * their mapping state and the list of idle mapped sections.  It lives as
 * long as the cache or any of its sections. */
struct ptd_iscache_core {
	pthread_mutex_t lock;
	atomic_size_t refs;

	/* Under lock: the limit in bytes, the bytes of the idle mapped
	 * sections in the list, and the list (head = most recently used). */
	uint64_t limit;
	uint64_t lru_bytes;
	struct ptd_section *lru_head, *lru_tail;
};

/* How a root's bytes are held. */
enum ptd_section_kind {
	ptd_sk_file,   /* a file range, mapped on demand */
	ptd_sk_memory, /* a memory buffer */
	ptd_sk_view    /* a sub-range of a root */
};

/* How a file root is mapped. */
enum ptd_map_kind {
	ptd_map_none,
	ptd_map_mmap, /* mmap() of the page-aligned range around it */
	ptd_map_heap  /* read into allocated memory (where mmap fails) */
};

struct ptd_section {
	atomic_size_t refs;
	enum ptd_section_kind kind;

	/* Where the section is: [vaddr, vaddr + size), never wrapping past
	 * 2^64 (vaddr + size may be exactly 2^64, i.e. 0). */
	uint64_t vaddr;
	uint64_t size;

	/* A view: the root and the offset of the view in it. */
	struct ptd_section *root;
	uint64_t delta;

	/* A file root: the file name and the offset of the range in it, and
	 * the file's size and change time when the section was made (a file
	 * that changed after that is not mapped: -pte_bad_image). */
	char *filename;
	uint64_t offset;
	uint64_t file_size;
	int64_t file_mtime;

	/* A memory root: the bytes, and the copy it owns (or NULL). */
	const uint8_t *mem;
	void *owned;

	/* A root: the mutex of the mapping state below, and the cache it
	 * belongs to (file roots of a cache only; else NULL and own_lock). */
	pthread_mutex_t *lock;
	pthread_mutex_t own_lock;
	struct ptd_iscache_core *core;

	/* A file root, under *lock: the mapped bytes at vaddr, the mapping,
	 * the number of users, and the LRU links while idle and mapped. */
	const uint8_t *data;
	void *map_base;
	size_t map_len;
	enum ptd_map_kind map_kind;
	uint64_t mapcount;
	struct ptd_section *lru_prev, *lru_next;
	int in_lru;

	/* The flow layer's cache (see image.h); set at most once. */
	_Atomic(void *) cache;
	void (*free_cache)(void *cache);
};

/* Make a root section for the @size bytes at @offset in @filename, at
 * @vaddr, belonging to the cache @core (NULL for none).  The file must exist
 * and @offset must be inside it; @size is cut to the end of the file and to
 * the end of the address space.  Returns 0 or -pte_invalid, -pte_nomem. */
int ptd_section_new_file(struct ptd_section **psec, const char *filename,
                         uint64_t offset, uint64_t size, uint64_t vaddr,
                         struct ptd_iscache_core *core);

/* Make a root section for the @size bytes at @buf, at @vaddr; with @copy
 * non-zero the bytes are copied.  Returns 0 or -pte_invalid, -pte_nomem. */
int ptd_section_new_memory(struct ptd_section **psec, const void *buf,
                           uint64_t size, uint64_t vaddr, int copy);

/* Make a view of [@vaddr, @vaddr + @size), which must lie within @sec (a
 * root or a view).  Returns 0, -pte_internal or -pte_nomem. */
int ptd_section_new_view(struct ptd_section **psec, struct ptd_section *sec,
                         uint64_t vaddr, uint64_t size);

/* Take and drop a reference.  The last ptd_section_put() frees the section
 * (it must not be mapped by anyone then). */
void ptd_section_get(struct ptd_section *sec);
void ptd_section_put(struct ptd_section *sec);

/* The root of @sec (@sec itself for a root). */
static inline struct ptd_section *ptd_section_root(struct ptd_section *sec)
{
	return sec->kind == ptd_sk_view ? sec->root : sec;
}

/* The file name of @sec (of its root), or NULL for memory. */
const char *ptd_section_filename(const struct ptd_section *sec);

/* Map @sec for one more user and store a pointer to its first byte in
 * @data.  Returns 0, -pte_bad_file if the file cannot be read (any more)
 * as it was, or -pte_nomem.  Pair every success with ptd_section_unmap(). */
int ptd_section_map(struct ptd_section *sec, const uint8_t **data);
void ptd_section_unmap(struct ptd_section *sec);

/* Whether the root of @sec is mapped now (tests). */
int ptd_section_is_mapped(struct ptd_section *sec);

/* Unmap idle roots of @core, least recently used first, until their bytes
 * fit in its limit.  Call with core->lock held. */
void ptd_iscache_core_trim(struct ptd_iscache_core *core);

/* Drop a reference to @core; the last one destroys it. */
void ptd_iscache_core_put(struct ptd_iscache_core *core);

/* The end of [vaddr, vaddr + size) minus one, for ranges that may end at
 * 2^64.  @size must not be 0. */
static inline uint64_t ptd_range_last(uint64_t vaddr, uint64_t size)
{
	return vaddr + (size - 1);
}

/* Cut @size so that [@vaddr, @vaddr + @size) does not wrap past 2^64. */
static inline uint64_t ptd_range_clip(uint64_t vaddr, uint64_t size)
{
	uint64_t room = ~vaddr; /* the bytes after vaddr */

	if (size && size - 1 > room)
		return room + 1;
	return size;
}

#endif /* PTD_IMAGE_SECTION_H */
