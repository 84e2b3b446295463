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
	image->last_valid = 0;
}

void pt_image_free(struct pt_image *image)
{
	size_t i;

	if (!image)
		return;
	for (i = 0; i < image->count; ++i)
		ptd_entry_release(&image->entries[i]);
	free(image->entries);
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

	for (i = 0; i < image->count; ++i)
		noverlap += ptd_entry_overlaps(&image->entries[i], sec, asid);
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
	end = ptd_sec_end(sec);
	for (i = 0; i < image->count && errcode >= 0; ++i) {
		e = &image->entries[i];
		if (!ptd_entry_overlaps(e, sec, asid))
			continue;
		if (e->sec->vaddr < sec->vaddr) {
			pieces[npieces] = *e;
			pieces[npieces].data = NULL;
			errcode = ptd_section_new_view(&pieces[npieces].sec,
			                               e->sec, e->sec->vaddr,
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
	 * pieces, in this order (as libipt orders its list). */
	for (i = 0, w = 0; i < image->count; ++i) {
		e = &image->entries[i];
		if (ptd_entry_overlaps(e, sec, asid))
			ptd_entry_release(e);
		else
			image->entries[w++] = *e;
	}
	e = &image->entries[w++];
	e->sec = sec;
	e->asid = *asid;
	e->isid = isid;
	e->data = NULL;
	for (i = 0; i < npieces; ++i)
		image->entries[w++] = pieces[i];
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
	errcode = ptd_section_new_file(&sec, filename, offset, size, vaddr,
	                               NULL);
	if (errcode < 0)
		return errcode;
	errcode = ptd_image_add_section(image, sec, &asid, 0);
	if (errcode < 0)
		ptd_section_put(sec);
	return errcode;
}

int ptd_image_add_buffer(struct pt_image *image, const void *buf,
                         uint64_t size, const struct pt_asid *uasid,
                         uint64_t vaddr, int copy)
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

int pt_image_remove_by_asid(struct pt_image *image,
                            const struct pt_asid *uasid)
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

/* Describe the window of the last lookup in @msec. */
static void ptd_image_fill(const struct pt_image *image, struct ptd_msec *msec)
{
	const struct ptd_image_entry *e = &image->entries[image->last_index];

	msec->begin = e->data + (image->last_lo - e->sec->vaddr);
	msec->vaddr = image->last_lo;
	msec->size = image->last_span + 1;
	msec->isid = e->isid;
	msec->section = image->last_whole ? e->sec : NULL;
}

/* The slow path of ptd_image_find(): search the entries, newest first, map
 * the winner, and remember where it wins. */
static int ptd_image_lookup(struct pt_image *image, const struct pt_asid *asid,
                            uint64_t vaddr)
{
	struct ptd_image_entry *e = NULL;
	uint64_t lo, last;
	size_t i, j;
	int errcode;

	for (i = image->count; i-- > 0;) {
		e = &image->entries[i];
		if (vaddr - e->sec->vaddr < e->sec->size &&
		    ptd_asid_match(&e->asid, asid))
			break;
	}
	if (i == (size_t)-1)
		return -pte_nomap;

	if (!e->data) {
		errcode = ptd_section_map(e->sec, &e->data);
		if (errcode < 0) {
			e->data = NULL;
			return errcode;
		}
	}

	/* Newer sections of address spaces that do not match e's but match
	 * @asid may cover parts of e: e wins only between them. */
	lo = e->sec->vaddr;
	last = ptd_range_last(lo, e->sec->size);
	for (j = i + 1; j < image->count; ++j) {
		const struct ptd_section *n = image->entries[j].sec;

		if (!n->size || !ptd_asid_match(&image->entries[j].asid, asid))
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

	image->last_valid = 1;
	image->last_index = i;
	image->last_asid = *asid;
	image->last_lo = lo;
	image->last_span = last - lo;
	image->last_whole =
	        lo == e->sec->vaddr && last - lo == e->sec->size - 1;
	return 0;
}

int ptd_image_find(struct pt_image *image, struct ptd_msec *msec,
                   const struct pt_asid *uasid, uint64_t vaddr)
{
	struct pt_asid asid;
	int errcode;

	if (!image || !msec)
		return -pte_invalid;
	ptd_asid_from_user(&asid, uasid);
	if (!image->last_valid || vaddr - image->last_lo > image->last_span ||
	    !ptd_asid_equal(&asid, &image->last_asid)) {
		errcode = ptd_image_lookup(image, &asid, vaddr);
		if (errcode < 0)
			return errcode;
	}
	ptd_image_fill(image, msec);
	return 0;
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

int ptd_image_read_memory(struct pt_image *image, uint8_t *buffer,
                          size_t size, const struct pt_asid *asid,
                          uint64_t vaddr)
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
