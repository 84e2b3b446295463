/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed_ref: libipt's and ptdecode's instruction-flow decoders behind one
 * table. */
#define _POSIX_C_SOURCE 200809L

#include "ref_lib.h"

#include "ptdecode/ptdecode.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- libipt 2.0.5 ------------------------------------------------------ */

/* Copy dlsym's result for @name into the function pointer at @fn (POSIX
 * lets it be used as one). */
static int ref_sym(void *handle, const char *name, void *fn, size_t size)
{
	void *sym = dlsym(handle, name);

	if (!sym || size != sizeof(sym)) {
		fprintf(stderr, "ptxed_ref: libipt lacks %s.\n", name);
		return -1;
	}
	memcpy(fn, &sym, sizeof(sym));
	return 0;
}

#define REF_SYM(lib, field, name)                                              \
	ref_sym((lib)->handle, name, &(lib)->field, sizeof((lib)->field))

int ref_lib_load_libipt(struct ref_lib *lib)
{
	const char *name = getenv("PTD_LIBIPT");

	memset(lib, 0, sizeof(*lib));
	if (!name || !*name)
		name = "libipt.so.2";
	lib->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lib->handle) {
		fprintf(stderr, "ptxed_ref: cannot load %s.\n", name);
		return -1;
	}
	if (REF_SYM(lib, image_alloc, "pt_image_alloc") < 0 ||
	    REF_SYM(lib, image_free, "pt_image_free") < 0 ||
	    REF_SYM(lib, image_add_file, "pt_image_add_file") < 0 ||
	    REF_SYM(lib, insn_alloc, "pt_insn_alloc_decoder") < 0 ||
	    REF_SYM(lib, insn_free, "pt_insn_free_decoder") < 0 ||
	    REF_SYM(lib, insn_set_image, "pt_insn_set_image") < 0 ||
	    REF_SYM(lib, insn_sync_forward, "pt_insn_sync_forward") < 0 ||
	    REF_SYM(lib, insn_get_offset, "pt_insn_get_offset") < 0 ||
	    REF_SYM(lib, insn_get_sync_offset, "pt_insn_get_sync_offset") < 0 ||
	    REF_SYM(lib, insn_next, "pt_insn_next") < 0 ||
	    REF_SYM(lib, insn_event, "pt_insn_event") < 0 ||
	    REF_SYM(lib, errstr, "pt_errstr") < 0) {
		ref_lib_close(lib);
		return -1;
	}
	return 0;
}

void ref_lib_close(struct ref_lib *lib)
{
	if (lib->handle)
		dlclose(lib->handle);
	memset(lib, 0, sizeof(*lib));
}

/* ---- ptdecode ---------------------------------------------------------- */

static void *ours_image_alloc(const char *name)
{
	return pt_image_alloc(name);
}

static void ours_image_free(void *image)
{
	pt_image_free(image);
}

static int ours_image_add_file(void *image, const char *file, uint64_t offset,
                               uint64_t size, const void *asid, uint64_t vaddr)
{
	return pt_image_add_file(image, file, offset, size, asid, vaddr);
}

static void *ours_insn_alloc(const struct pt_config *config)
{
	return pt_insn_alloc_decoder(config);
}

/* The same with libipt's time estimate (ptxed --time-libipt). */
static void *ours_insn_alloc_libipt_time(const struct pt_config *config)
{
	struct ptd_time_config tconfig;

	ptd_time_config_init(&tconfig);
	tconfig.mode = ptd_time_mode_libipt;
	return ptd_insn_alloc_decoder(config, &tconfig);
}

static void ours_insn_free(void *decoder)
{
	pt_insn_free_decoder(decoder);
}

static int ours_insn_set_image(void *decoder, void *image)
{
	return pt_insn_set_image(decoder, image);
}

static int ours_insn_sync_forward(void *decoder)
{
	return pt_insn_sync_forward(decoder);
}

static int ours_insn_get_offset(const void *decoder, uint64_t *offset)
{
	return pt_insn_get_offset(decoder, offset);
}

static int ours_insn_get_sync_offset(const void *decoder, uint64_t *offset)
{
	return pt_insn_get_sync_offset(decoder, offset);
}

static int ours_insn_next(void *decoder, struct ref_insn *insn, size_t size)
{
	struct pt_insn ours;
	int status;

	(void)size;
	memset(&ours, 0, sizeof(ours));
	status = pt_insn_next(decoder, &ours, sizeof(ours));
	memset(insn, 0, sizeof(*insn));
	insn->ip = ours.ip;
	insn->isid = ours.isid;
	insn->mode = (int)ours.mode;
	insn->iclass = (int)ours.iclass;
	memcpy(insn->raw, ours.raw, sizeof(insn->raw));
	insn->size = ours.size;
	insn->speculative = ours.speculative;
	insn->truncated = ours.truncated;
	return status;
}

static int ours_insn_event(void *decoder, struct pt_event *event, size_t size)
{
	return pt_insn_event(decoder, event, size);
}

static const char *ours_errstr(int code)
{
	return pt_errstr((enum pt_error_code)code);
}

void ref_lib_ptdecode(struct ref_lib *lib, int libipt_time)
{
	memset(lib, 0, sizeof(*lib));
	lib->image_alloc = ours_image_alloc;
	lib->image_free = ours_image_free;
	lib->image_add_file = ours_image_add_file;
	lib->insn_alloc =
	        libipt_time ? ours_insn_alloc_libipt_time : ours_insn_alloc;
	lib->insn_free = ours_insn_free;
	lib->insn_set_image = ours_insn_set_image;
	lib->insn_sync_forward = ours_insn_sync_forward;
	lib->insn_get_offset = ours_insn_get_offset;
	lib->insn_get_sync_offset = ours_insn_get_sync_offset;
	lib->insn_next = ours_insn_next;
	lib->insn_event = ours_insn_event;
	lib->errstr = ours_errstr;
}
