/* SPDX-License-Identifier: BSD-3-Clause */
/* The traced image: pt_image_*, ptd_image_add_buffer(), and the lookups of
 * image.h for the flow decoders. */
#define _POSIX_C_SOURCE 200809L

#include "image/image.h"

#include "image/asid.h"
#include "image/image_int.h"
#include "image/iscache.h"
#include "ptdecode/ptd_image.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Ends of ranges that may reach 2^64. */
typedef unsigned __int128 ptd_end_t;

static ptd_end_t ptd_sec_end(const struct ptd_section *sec)
{
	return (ptd_end_t)sec->vaddr + sec->size;
}

struct pt_image *pt_image_alloc(const char *name)
{
	struct pt_image *image = calloc(1, sizeof(*image));

	if (!image)
		return NULL;
	if (name) {
		image->name = strdup(name);
		if (!image->name) {
			free(image);
			return NULL;
		}
	}
	image->generation = 1;
	return image;
}

/* Let go of one entry's section. */
static void ptd_entry_release(struct ptd_image_entry *entry)
{
	if (entry->data)
		ptd_section_unmap(entry->sec);
	ptd_section_put(entry->sec);
}

/* Note a change of @image's sections or callback. */
static void ptd_image_changed(struct pt_image *image)
{
	image->generation += 1;
	image->nwindows = 0;
	image->mru = 0;
	image->index_valid = 0;
}

void pt_image_free(struct pt_image *image)
{
	size_t i;

	if (!image)
		return;
	for (i = 0; i < image->count; ++i)
		ptd_entry_release(&image->entries[i]);
	free(image->entries);
	free(image->index);
	free(image->name);
	free(image);
}

const char *pt_image_name(const struct pt_image *image)
{
	return image ? image->name : NULL;
}

/* Make room for @n more entries.  Returns 0 or -pte_nomem. */
static int ptd_image_reserve(struct pt_image *image, size_t n)
{
	struct ptd_image_entry *entries;
	size_t capacity;

	if (n <= image->capacity - image->count)
		return 0;
	if (n > SIZE_MAX / sizeof(*entries) / 2 - image->count)
		return -pte_nomem;
	capacity = image->capacity ? image->capacity : 8;
	while (capacity - image->count < n)
		capacity *= 2;
	entries = realloc(image->entries, capacity * sizeof(*entries));
	if (!entries)
		return -pte_nomem;
	image->entries = entries;
	image->capacity = capacity;
	return 0;
}

/* Whether the entry @e and the new section @sec in @asid overlap in the
 * sense of libipt: the address spaces match and neither range ends at or
 * before the start of the other (so an empty section inside another one
 * splits it). */
static int ptd_entry_overlaps(const struct ptd_image_entry *e,
                              const struct ptd_section *sec,
                              const struct pt_asid *asid)
{
	if (!ptd_asid_match(&e->asid, asid))
		return 0;
	return !(ptd_sec_end(sec) <= e->sec->vaddr ||
	         ptd_sec_end(e->sec) <= sec->vaddr);
}

int ptd_image_add_section(struct pt_image *image, struct ptd_section *sec,
                          const struct pt_asid *asid, int isid)
{
	struct ptd_image_entry *pieces = NULL, *e;
	size_t i, w, noverlap = 0, npieces = 0;
	ptd_end_t end;
	int errcode;

	if (!image || !sec || !asid)
		return -pte_internal;

	end = ptd_sec_end(sec);
	if (image->count && sec->vaddr < image->max_end &&
	    image->min_start < end)
		for (i = 0; i < image->count; ++i)
			noverlap += ptd_entry_overlaps(&image->entries[i], sec,
			                               asid);
	errcode = ptd_image_reserve(image, 1 + 2 * noverlap);
	if (errcode < 0)
		return errcode;

	/* The parts of overlapped sections that the new one leaves: views of
	 * them, at most two each, made before anything changes. */
	if (noverlap) {
		pieces = malloc(2 * noverlap * sizeof(*pieces));
		if (!pieces)
			return -pte_nomem;
	}
	for (i = 0; noverlap && i < image->count && errcode >= 0; ++i) {
		e = &image->entries[i];
		if (!ptd_entry_overlaps(e, sec, asid))
			continue;
		if (e->sec->vaddr < sec->vaddr) {
			pieces[npieces] = *e;
			pieces[npieces].data = NULL;
			errcode = ptd_section_new_view(
			        &pieces[npieces].sec, e->sec, e->sec->vaddr,
			        sec->vaddr - e->sec->vaddr);
			npieces += errcode >= 0;
		}
		if (errcode >= 0 && end < ptd_sec_end(e->sec)) {
			pieces[npieces] = *e;
			pieces[npieces].data = NULL;
			errcode = ptd_section_new_view(
			        &pieces[npieces].sec, e->sec, (uint64_t)end,
			        (uint64_t)(ptd_sec_end(e->sec) - end));
			npieces += errcode >= 0;
		}
	}
	if (errcode < 0) {
		for (i = 0; i < npieces; ++i)
			ptd_section_put(pieces[i].sec);
		free(pieces);
		return errcode;
	}

	/* Drop the overlapped entries, then append the new section and the
	 * pieces.  (libipt puts the pieces first; the order changes nothing
	 * a lookup finds, as sections of matching address spaces never
	 * overlap, nor what a copy of the image holds.) */
	for (i = 0, w = 0; noverlap && i < image->count; ++i) {
		e = &image->entries[i];
		if (ptd_entry_overlaps(e, sec, asid)) {
			ptd_entry_release(e);
			continue;
		}
		image->entries[w++] = *e;
	}
	if (!noverlap)
		w = image->count;
	if (image->max_end < end || !image->count)
		image->max_end = end;
	if (sec->vaddr < image->min_start || !image->count)
		image->min_start = sec->vaddr;
	e = &image->entries[w++];
	e->sec = sec;
	e->asid = *asid;
	e->isid = isid;
	e->data = NULL;
	e->vaddr = sec->vaddr;
	e->size = sec->size;
	for (i = 0; i < npieces; ++i) {
		pieces[i].vaddr = pieces[i].sec->vaddr;
		pieces[i].size = pieces[i].sec->size;
		image->entries[w++] = pieces[i];
	}
	image->count = w;
	free(pieces);
	ptd_image_changed(image);
	return 0;
}

int pt_image_add_file(struct pt_image *image, const char *filename,
                      uint64_t offset, uint64_t size,
                      const struct pt_asid *uasid, uint64_t vaddr)
{
	struct ptd_section *sec;
	struct pt_asid asid;
	int errcode;

	if (!image || !filename)
		return -pte_invalid;
	ptd_asid_from_user(&asid, uasid);
	errcode =
	        ptd_section_new_file(&sec, filename, offset, size, vaddr, NULL);
	if (errcode < 0)
		return errcode;
	errcode = ptd_image_add_section(image, sec, &asid, 0);
	if (errcode < 0)
		ptd_section_put(sec);
	return errcode;
}

int ptd_image_add_buffer(struct pt_image *image, const void *buf, uint64_t size,
                         const struct pt_asid *uasid, uint64_t vaddr, int copy)
{
	struct ptd_section *sec;
	struct pt_asid asid;
	int errcode;

	if (!image || !buf)
		return -pte_invalid;
	ptd_asid_from_user(&asid, uasid);
	errcode = ptd_section_new_memory(&sec, buf, size, vaddr, copy);
	if (errcode < 0)
		return errcode;
	errcode = ptd_image_add_section(image, sec, &asid, 0);
	if (errcode < 0)
		ptd_section_put(sec);
	return errcode;
}

int pt_image_add_cached(struct pt_image *image,
                        struct pt_image_section_cache *iscache, int isid,
                        const struct pt_asid *uasid)
{
	struct ptd_section *sec;
	struct pt_asid asid;
	int errcode;

	if (!image || !iscache)
		return -pte_invalid;
	ptd_asid_from_user(&asid, uasid);
	errcode = ptd_iscache_lookup(iscache, isid, &sec);
	if (errcode < 0)
		return errcode;
	errcode = ptd_image_add_section(image, sec, &asid, isid);
	if (errcode < 0)
		ptd_section_put(sec);
	return errcode;
}

int pt_image_copy(struct pt_image *image, const struct pt_image *src)
{
	int ignored = 0;
	size_t i;

	if (!image || !src)
		return -pte_invalid;
	/* Adding to itself would move the entries being copied. */
	if (image == src)
		return 0;
	/* Into an empty image, adding the sections one by one would change
	 * nothing (sections of matching address spaces never overlap):
	 * share them all at once. */
	if (!image->count && src->count &&
	    ptd_image_reserve(image, src->count) == 0) {
		for (i = 0; i < src->count; ++i) {
			struct ptd_image_entry *e = &image->entries[i];

			*e = src->entries[i];
			e->data = NULL;
			ptd_section_get(e->sec);
		}
		image->count = src->count;
		image->max_end = src->max_end;
		image->min_start = src->min_start;
		ptd_image_changed(image);
		return 0;
	}
	for (i = 0; i < src->count; ++i) {
		const struct ptd_image_entry *e = &src->entries[i];

		ptd_section_get(e->sec);
		if (ptd_image_add_section(image, e->sec, &e->asid, e->isid) <
		    0) {
			ptd_section_put(e->sec);
			ignored += ignored < INT_MAX;
		}
	}
	return ignored;
}

/* Remove the entries of @image whose section has @filename (any, if NULL)
 * and whose address space matches @asid.  Returns the number removed. */
static int ptd_image_remove(struct pt_image *image, const char *filename,
                            const struct pt_asid *asid)
{
	size_t i, w;
	int removed = 0;

	for (i = 0, w = 0; i < image->count; ++i) {
		struct ptd_image_entry *e = &image->entries[i];
		const char *name = ptd_section_filename(e->sec);

		if (ptd_asid_match(&e->asid, asid) &&
		    (!filename || (name && strcmp(name, filename) == 0))) {
			ptd_entry_release(e);
			removed += removed < INT_MAX;
		} else {
			image->entries[w++] = *e;
		}
	}
	image->count = w;
	if (removed)
		ptd_image_changed(image);
	return removed;
}

int pt_image_remove_by_filename(struct pt_image *image, const char *filename,
                                const struct pt_asid *uasid)
{
	struct pt_asid asid;

	if (!image || !filename)
		return -pte_invalid;
	ptd_asid_from_user(&asid, uasid);
	return ptd_image_remove(image, filename, &asid);
}

int pt_image_remove_by_asid(struct pt_image *image, const struct pt_asid *uasid)
{
	struct pt_asid asid;

	if (!image)
		return -pte_invalid;
	ptd_asid_from_user(&asid, uasid);
	return ptd_image_remove(image, NULL, &asid);
}

int pt_image_set_callback(struct pt_image *image,
                          read_memory_callback_t *callback, void *context)
{
	if (!image)
		return -pte_invalid;
	image->callback = callback;
	image->context = context;
	ptd_image_changed(image);
	return 0;
}

uint64_t ptd_image_generation(const struct pt_image *image)
{
	return image ? image->generation : 0;
}

const uint64_t *ptd_image_generation_at(const struct pt_image *image)
{
	return image ? &image->generation : NULL;
}

static void ptd_window_fill(const struct ptd_image_window *w,
                            struct ptd_msec *msec)
{
	msec->begin = w->begin;
	msec->vaddr = w->lo;
	msec->size = w->span + 1;
	msec->isid = w->isid;
	msec->section = w->section;
}

static int ptd_key_cmp(const void *a, const void *b)
{
	const struct ptd_image_key *ka = a, *kb = b;

	if (ka->vaddr != kb->vaddr)
		return ka->vaddr < kb->vaddr ? -1 : 1;
	return ka->pos < kb->pos ? -1 : ka->pos > kb->pos;
}

/* Sort the index of @image by address, and find out whether any two
 * entries overlap (sections of address spaces that do not match each other
 * may).  Returns 0 or -pte_nomem. */
static int ptd_image_sort(struct pt_image *image)
{
	ptd_end_t end = 0;
	size_t i;

	if (image->index_capacity < image->count) {
		struct ptd_image_key *index;

		index = realloc(image->index, image->capacity * sizeof(*index));
		if (!index)
			return -pte_nomem;
		image->index = index;
		image->index_capacity = image->capacity;
	}
	for (i = 0; i < image->count; ++i) {
		image->index[i].vaddr = image->entries[i].vaddr;
		image->index[i].pos = i;
	}
	qsort(image->index, image->count, sizeof(*image->index), ptd_key_cmp);
	image->overlaps = 0;
	for (i = 0; i < image->count; ++i) {
		const struct ptd_image_entry *e;

		e = &image->entries[image->index[i].pos];
		if (!e->size)
			continue;
		if (e->vaddr < end)
			image->overlaps = 1;
		if (end < ptd_sec_end(e->sec))
			end = ptd_sec_end(e->sec);
	}
	image->index_valid = 1;
	return 0;
}

/* Find the entry holding @vaddr in @asid when no two entries overlap, by
 * binary search in the index.  Returns its position or (size_t)-1. */
static size_t ptd_image_bsearch(const struct pt_image *image,
                                const struct pt_asid *asid, uint64_t vaddr)
{
	const struct ptd_image_key *key = image->index;
	size_t n = image->count, lo;

	/* The last entry that starts at or before vaddr, without branches
	 * that depend on the data (lookups jump between sections at random). */
	while (n > 1) {
		size_t half = n / 2;

		key = key[half].vaddr <= vaddr ? key + half : key;
		n -= half;
	}
	if (key->vaddr > vaddr)
		return (size_t)-1;
	lo = (size_t)(key - image->index) + 1;

	/* The last non-empty one of those is the only one that may hold
	 * vaddr (empty sections hold nothing and may lie anywhere). */
	while (lo-- > 0) {
		size_t pos = image->index[lo].pos;
		const struct ptd_image_entry *e = &image->entries[pos];

		if (!e->size)
			continue;
		if (vaddr - e->vaddr < e->size &&
		    ptd_asid_match(&e->asid, asid))
			return pos;
		break;
	}
	return (size_t)-1;
}

/* The slow path of ptd_image_find(): search the entries, newest first, map
 * the winner, and remember where it wins in a new window. */
static int ptd_image_lookup(struct pt_image *image, const struct pt_asid *asid,
                            uint64_t vaddr, struct ptd_msec *msec)
{
	struct ptd_image_window *w;
	struct ptd_image_entry *e = NULL;
	uint64_t lo, last;
	size_t i, j;
	int errcode, use_index;

	/* Large images without overlaps: binary search. */
	use_index = image->count > 16 &&
	            (image->index_valid || ptd_image_sort(image) == 0) &&
	            !image->overlaps;
	if (use_index) {
		i = ptd_image_bsearch(image, asid, vaddr);
		if (i == (size_t)-1)
			return -pte_nomap;
		e = &image->entries[i];
	} else {
		for (i = image->count; i-- > 0;) {
			e = &image->entries[i];
			if (vaddr - e->vaddr < e->size &&
			    ptd_asid_match(&e->asid, asid))
				break;
		}
		if (i == (size_t)-1)
			return -pte_nomap;
	}

	if (!e->data) {
		errcode = ptd_section_map(e->sec, &e->data);
		if (errcode < 0) {
			e->data = NULL;
			return errcode;
		}
	}

	/* Newer sections of address spaces that do not match e's but match
	 * @asid may cover parts of e: e wins only between them. */
	lo = e->vaddr;
	last = ptd_range_last(lo, e->size);
	for (j = i + 1; !use_index && j < image->count; ++j) {
		const struct ptd_image_entry *n = &image->entries[j];

		if (!n->size || !ptd_asid_match(&n->asid, asid))
			continue;
		if (n->vaddr > vaddr) {
			if (n->vaddr <= last)
				last = n->vaddr - 1;
		} else {
			/* n ends at or before vaddr (it does not hold it). */
			uint64_t nlast = ptd_range_last(n->vaddr, n->size);

			if (nlast >= lo)
				lo = nlast + 1;
		}
	}

	/* Remember it in a free window, else in the one after the most
	 * recently used (round robin). */
	if (image->nwindows < ptd_image_windows)
		image->mru = image->nwindows++;
	else
		image->mru = (image->mru + 1) % ptd_image_windows;
	w = &image->windows[image->mru];
	w->lo = lo;
	w->span = last - lo;
	w->cr3 = asid->cr3;
	w->vmcs = asid->vmcs;
	w->begin = e->data + (lo - e->vaddr);
	w->isid = e->isid;
	w->section = lo == e->vaddr && last - lo == e->size - 1 ? e->sec : NULL;
	ptd_window_fill(w, msec);
	return 0;
}

int ptd_image_find(struct pt_image *image, struct ptd_msec *msec,
                   const struct pt_asid *uasid, uint64_t vaddr)
{
	const struct ptd_image_window *w;
	struct pt_asid asid;
	unsigned i;

	if (!image || !msec)
		return -pte_invalid;
	ptd_asid_from_user(&asid, uasid);

	/* The hot path: the window of the last lookup, then the others. */
	if (image->nwindows) {
		w = &image->windows[image->mru];
		if (vaddr - w->lo <= w->span && w->cr3 == asid.cr3 &&
		    w->vmcs == asid.vmcs) {
			ptd_window_fill(w, msec);
			return 0;
		}
		for (i = 0; i < image->nwindows; ++i) {
			w = &image->windows[i];
			if (vaddr - w->lo <= w->span && w->cr3 == asid.cr3 &&
			    w->vmcs == asid.vmcs) {
				image->mru = i;
				ptd_window_fill(w, msec);
				return 0;
			}
		}
	}
	return ptd_image_lookup(image, &asid, vaddr, msec);
}

int ptd_image_read(struct pt_image *image, int *isid, uint8_t *buffer,
                   uint16_t size, const struct pt_asid *asid, uint64_t vaddr)
{
	struct ptd_msec msec;
	uint64_t delta;
	int errcode;

	if (!image || !isid || !buffer)
		return -pte_invalid;
	if (!size)
		return -pte_invalid;
	errcode = ptd_image_find(image, &msec, asid, vaddr);
	if (errcode == -pte_nomap && image->callback) {
		struct pt_asid whole;

		ptd_asid_from_user(&whole, asid);
		*isid = 0;
		return image->callback(buffer, size, &whole, vaddr,
		                       image->context);
	}
	if (errcode < 0)
		return errcode;
	delta = vaddr - msec.vaddr;
	if (size > msec.size - delta)
		size = (uint16_t)(msec.size - delta);
	memcpy(buffer, msec.begin + delta, size);
	*isid = msec.isid;
	return size;
}

int ptd_image_read_memory(struct pt_image *image, uint8_t *buffer, size_t size,
                          const struct pt_asid *asid, uint64_t vaddr)
{
	struct ptd_msec msec;
	uint64_t delta;
	int errcode;

	if (!image || !buffer || !size)
		return -pte_invalid;
	if (size > INT_MAX)
		size = INT_MAX;
	errcode = ptd_image_find(image, &msec, asid, vaddr);
	if (errcode == -pte_nomap && image->callback) {
		struct pt_asid whole;

		ptd_asid_from_user(&whole, asid);
		return image->callback(buffer, size, &whole, vaddr,
		                       image->context);
	}
	if (errcode < 0)
		return errcode;
	delta = vaddr - msec.vaddr;
	if (size > msec.size - delta)
		size = (size_t)(msec.size - delta);
	memcpy(buffer, msec.begin + delta, size);
	return (int)size;
}
