/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed_ref: an instruction-flow decoder and a traced image behind a table
 * of functions: libipt 2.0.5's (loaded with dlopen, because it exports the
 * same names as ptdecode) or ptdecode's (linked in). */
#ifndef PTXED_REF_LIB_H
#define PTXED_REF_LIB_H

#include "ptdecode/intel-pt.h"

#include <stddef.h>
#include <stdint.h>

/* An instruction in libipt 2.0.5's layout of struct pt_insn. */
struct ref_insn {
	uint64_t ip;
	int isid;
	int mode;
	int iclass; /* 0: not decoded (ptic_error) */
	uint8_t raw[15];
	uint8_t size;
	uint32_t speculative : 1;
	uint32_t truncated : 1;
};

/* An event: ptdecode's struct pt_event, whose layout is libipt's for every
 * event libipt 2.0.5 knows, with room to spare. */
struct ref_event {
	struct pt_event ev;
	uint64_t spare[8];
};

/* The functions of one library; decoders and images are opaque. */
struct ref_lib {
	/* The library handle (libipt), or NULL (ptdecode). */
	void *handle;

	void *(*image_alloc)(const char *name);
	void (*image_free)(void *image);
	int (*image_add_file)(void *image, const char *file, uint64_t offset,
	                      uint64_t size, const void *asid, uint64_t vaddr);
	void *(*insn_alloc)(const struct pt_config *config);
	void (*insn_free)(void *decoder);
	int (*insn_set_image)(void *decoder, void *image);
	int (*insn_sync_forward)(void *decoder);
	int (*insn_get_offset)(const void *decoder, uint64_t *offset);
	int (*insn_get_sync_offset)(const void *decoder, uint64_t *offset);
	int (*insn_next)(void *decoder, struct ref_insn *insn, size_t size);
	int (*insn_event)(void *decoder, struct pt_event *event, size_t size);
	const char *(*errstr)(int code);
};

/* Load libipt 2.0.5 into @lib.  Returns 0, or -1 after a message on
 * stderr. */
int ref_lib_load_libipt(struct ref_lib *lib);

/* Fill @lib with ptdecode's functions; with @libipt_time, its decoders
 * estimate time as libipt does (ptd_time_mode_libipt). */
void ref_lib_ptdecode(struct ref_lib *lib, int libipt_time);

/* Unload what ref_lib_load_libipt() loaded (nothing for ptdecode). */
void ref_lib_close(struct ref_lib *lib);

#endif /* PTXED_REF_LIB_H */
