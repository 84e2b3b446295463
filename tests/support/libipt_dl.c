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

/* ISO C has no conversion from void * to a function pointer; POSIX
 * guarantees that dlsym's result can be used as one, and both have the same
 * size and representation there, so copy the bits. */
#define PTD_DL_SYM(ipt, field, name, msg, size)                                \
	ptd_dl_sym((ipt)->handle, name, &(ipt)->field, sizeof((ipt)->field),   \
	           msg, size)

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
	if (PTD_DL_SYM(ipt, library_version, "pt_library_version", msg, size) <
	            0 ||
	    PTD_DL_SYM(ipt, errstr, "pt_errstr", msg, size) < 0 ||
	    PTD_DL_SYM(ipt, pkt_alloc_decoder, "pt_pkt_alloc_decoder", msg,
	               size) < 0 ||
	    PTD_DL_SYM(ipt, pkt_free_decoder, "pt_pkt_free_decoder", msg,
	               size) < 0 ||
	    PTD_DL_SYM(ipt, pkt_sync_forward, "pt_pkt_sync_forward", msg,
	               size) < 0 ||
	    PTD_DL_SYM(ipt, pkt_sync_backward, "pt_pkt_sync_backward", msg,
	               size) < 0 ||
	    PTD_DL_SYM(ipt, pkt_sync_set, "pt_pkt_sync_set", msg, size) < 0 ||
	    PTD_DL_SYM(ipt, pkt_get_offset, "pt_pkt_get_offset", msg, size) <
	            0 ||
	    PTD_DL_SYM(ipt, pkt_get_sync_offset, "pt_pkt_get_sync_offset", msg,
	               size) < 0 ||
	    PTD_DL_SYM(ipt, pkt_next, "pt_pkt_next", msg, size) < 0) {
		ptd_libipt_close(ipt);
		return -1;
	}
	return 0;
}

void ptd_libipt_close(struct ptd_libipt *ipt)
{
	if (ipt->handle)
		dlclose(ipt->handle);
	memset(ipt, 0, sizeof(*ipt));
}
