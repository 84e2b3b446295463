/* SPDX-License-Identifier: BSD-3-Clause */
/* Loading libipt 2.0.5 at run time; see libipt_dl.h. */
#define _GNU_SOURCE /* RTLD_DEEPBIND */

#include "libipt_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* AddressSanitizer refuses RTLD_DEEPBIND (it would bypass its interceptors).
 * libipt is built with hidden visibility and calls its own functions
 * directly, and our executables do not export the pt_* symbols, so plain
 * RTLD_LOCAL is enough there. */
#if defined(__SANITIZE_ADDRESS__)
#define PTD_DL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) ||     \
        __has_feature(thread_sanitizer)
#define PTD_DL_SANITIZED 1
#endif
#endif

#if defined(PTD_DL_SANITIZED) || !defined(RTLD_DEEPBIND)
#define PTD_DL_FLAGS (RTLD_NOW | RTLD_LOCAL)
#else
#define PTD_DL_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#endif

/* Every function of struct ptd_libipt: libipt's name for it, and where in
 * the struct its pointer is and how large. */
#define PTD_DL_SYM(field, name)                                                \
	name, offsetof(struct ptd_libipt, field),                              \
	        sizeof(((struct ptd_libipt *)0)->field)

static const struct {
	const char *name;
	size_t offset;
	size_t size;
} ptd_dl_syms[] = {
        {PTD_DL_SYM(library_version, "pt_library_version")},
        {PTD_DL_SYM(errstr, "pt_errstr")},
        {PTD_DL_SYM(cpu_errata, "pt_cpu_errata")},
        {PTD_DL_SYM(pkt_alloc_decoder, "pt_pkt_alloc_decoder")},
        {PTD_DL_SYM(pkt_free_decoder, "pt_pkt_free_decoder")},
        {PTD_DL_SYM(pkt_sync_forward, "pt_pkt_sync_forward")},
        {PTD_DL_SYM(pkt_sync_backward, "pt_pkt_sync_backward")},
        {PTD_DL_SYM(pkt_sync_set, "pt_pkt_sync_set")},
        {PTD_DL_SYM(pkt_get_offset, "pt_pkt_get_offset")},
        {PTD_DL_SYM(pkt_get_sync_offset, "pt_pkt_get_sync_offset")},
        {PTD_DL_SYM(pkt_next, "pt_pkt_next")},
        {PTD_DL_SYM(qry_alloc_decoder, "pt_qry_alloc_decoder")},
        {PTD_DL_SYM(qry_free_decoder, "pt_qry_free_decoder")},
        {PTD_DL_SYM(qry_sync_forward, "pt_qry_sync_forward")},
        {PTD_DL_SYM(qry_sync_backward, "pt_qry_sync_backward")},
        {PTD_DL_SYM(qry_sync_set, "pt_qry_sync_set")},
        {PTD_DL_SYM(qry_get_offset, "pt_qry_get_offset")},
        {PTD_DL_SYM(qry_get_sync_offset, "pt_qry_get_sync_offset")},
        {PTD_DL_SYM(qry_cond_branch, "pt_qry_cond_branch")},
        {PTD_DL_SYM(qry_indirect_branch, "pt_qry_indirect_branch")},
        {PTD_DL_SYM(qry_event, "pt_qry_event")},
        {PTD_DL_SYM(qry_time, "pt_qry_time")},
        {PTD_DL_SYM(iscache_alloc, "pt_iscache_alloc")},
        {PTD_DL_SYM(iscache_free, "pt_iscache_free")},
        {PTD_DL_SYM(iscache_set_limit, "pt_iscache_set_limit")},
        {PTD_DL_SYM(iscache_name, "pt_iscache_name")},
        {PTD_DL_SYM(iscache_add_file, "pt_iscache_add_file")},
        {PTD_DL_SYM(iscache_read, "pt_iscache_read")},
        {PTD_DL_SYM(image_alloc, "pt_image_alloc")},
        {PTD_DL_SYM(image_free, "pt_image_free")},
        {PTD_DL_SYM(image_name, "pt_image_name")},
        {PTD_DL_SYM(image_add_file, "pt_image_add_file")},
        {PTD_DL_SYM(image_add_cached, "pt_image_add_cached")},
        {PTD_DL_SYM(image_copy, "pt_image_copy")},
        {PTD_DL_SYM(image_remove_by_filename, "pt_image_remove_by_filename")},
        {PTD_DL_SYM(image_remove_by_asid, "pt_image_remove_by_asid")},
        {PTD_DL_SYM(image_set_callback, "pt_image_set_callback")},
        {PTD_DL_SYM(insn_alloc_decoder, "pt_insn_alloc_decoder")},
        {PTD_DL_SYM(insn_free_decoder, "pt_insn_free_decoder")},
        {PTD_DL_SYM(insn_sync_forward, "pt_insn_sync_forward")},
        {PTD_DL_SYM(insn_sync_set, "pt_insn_sync_set")},
        {PTD_DL_SYM(insn_sync_backward, "pt_insn_sync_backward")},
        {PTD_DL_SYM(insn_get_offset, "pt_insn_get_offset")},
        {PTD_DL_SYM(insn_get_sync_offset, "pt_insn_get_sync_offset")},
        {PTD_DL_SYM(insn_set_image, "pt_insn_set_image")},
        {PTD_DL_SYM(insn_time, "pt_insn_time")},
        {PTD_DL_SYM(insn_next, "pt_insn_next")},
        {PTD_DL_SYM(insn_event, "pt_insn_event")},
        {PTD_DL_SYM(blk_alloc_decoder, "pt_blk_alloc_decoder")},
        {PTD_DL_SYM(blk_free_decoder, "pt_blk_free_decoder")},
        {PTD_DL_SYM(blk_sync_forward, "pt_blk_sync_forward")},
        {PTD_DL_SYM(blk_sync_set, "pt_blk_sync_set")},
        {PTD_DL_SYM(blk_sync_backward, "pt_blk_sync_backward")},
        {PTD_DL_SYM(blk_get_offset, "pt_blk_get_offset")},
        {PTD_DL_SYM(blk_get_sync_offset, "pt_blk_get_sync_offset")},
        {PTD_DL_SYM(blk_set_image, "pt_blk_set_image")},
        {PTD_DL_SYM(blk_time, "pt_blk_time")},
        {PTD_DL_SYM(blk_next, "pt_blk_next")},
        {PTD_DL_SYM(blk_event, "pt_blk_event")},
};

/* ISO C has no conversion from void * to a function pointer; POSIX
 * guarantees that dlsym's result can be used as one, and both have the same
 * size and representation there, so copy the bits. */
static int ptd_dl_sym(void *handle, const char *name, void *fn, size_t fnsize,
                      char *msg, size_t size)
{
	void *sym;

	if (fnsize != sizeof(sym)) {
		snprintf(msg, size, "function pointers differ from void *");
		return -1;
	}
	dlerror();
	sym = dlsym(handle, name);
	if (!sym) {
		const char *err = dlerror();

		snprintf(msg, size, "the libipt library lacks %s: %s", name,
		         err ? err : "NULL");
		return -1;
	}
	memcpy(fn, &sym, sizeof(sym));
	return 0;
}

int ptd_libipt_open(struct ptd_libipt *ipt, char *msg, size_t size)
{
	const char *err, *name = getenv("PTD_LIBIPT");
	size_t i;

	if (!name || !*name)
		name = "libipt.so.2";
	memset(ipt, 0, sizeof(*ipt));
	ipt->handle = dlopen(name, PTD_DL_FLAGS);
	if (!ipt->handle) {
		err = dlerror();
		snprintf(msg, size, "cannot load %s: %s", name,
		         err ? err : "unknown error");
		return -1;
	}
	for (i = 0; i < sizeof(ptd_dl_syms) / sizeof(ptd_dl_syms[0]); ++i) {
		if (ptd_dl_sym(ipt->handle, ptd_dl_syms[i].name,
		               (char *)ipt + ptd_dl_syms[i].offset,
		               ptd_dl_syms[i].size, msg, size) < 0) {
			ptd_libipt_close(ipt);
			return -1;
		}
	}
	return 0;
}

void ptd_libipt_close(struct ptd_libipt *ipt)
{
	if (ipt->handle)
		dlclose(ipt->handle);
	memset(ipt, 0, sizeof(*ipt));
}
