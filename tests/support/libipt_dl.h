/* SPDX-License-Identifier: BSD-3-Clause */
/* libipt 2.0.5's packet decoder, loaded at run time.
 *
 * ptdecode and libipt export the same symbol names, so a program that links
 * ptdecode cannot also link libipt.  Instead we dlopen("libipt.so.2") with
 * RTLD_LOCAL (and RTLD_DEEPBIND where the sanitizers allow it, so that libipt
 * binds to its own functions) and call it through the function pointers
 * below.  The layouts of struct pt_config and struct pt_packet are the same
 * in both libraries, so ptdecode's header describes libipt's types too; only
 * the decoder object is opaque and gets its own type here so that the two
 * libraries' decoders cannot be mixed up. */
#ifndef PTD_LIBIPT_DL_H
#define PTD_LIBIPT_DL_H

#include "ptdecode/intel-pt.h"

#include <stddef.h>
#include <stdint.h>

/* A libipt packet decoder (libipt's struct pt_packet_decoder). */
struct ptd_ipt_decoder;

/* The libipt functions we use, and the library handle. */
struct ptd_libipt {
	void *handle;

	struct pt_version (*library_version)(void);
	const char *(*errstr)(enum pt_error_code code);

	struct ptd_ipt_decoder *(*pkt_alloc_decoder)(
	        const struct pt_config *config);
	void (*pkt_free_decoder)(struct ptd_ipt_decoder *decoder);
	int (*pkt_sync_forward)(struct ptd_ipt_decoder *decoder);
	int (*pkt_sync_backward)(struct ptd_ipt_decoder *decoder);
	int (*pkt_sync_set)(struct ptd_ipt_decoder *decoder, uint64_t offset);
	int (*pkt_get_offset)(const struct ptd_ipt_decoder *decoder,
	                      uint64_t *offset);
	int (*pkt_get_sync_offset)(const struct ptd_ipt_decoder *decoder,
	                           uint64_t *offset);
	int (*pkt_next)(struct ptd_ipt_decoder *decoder,
	                struct pt_packet *packet, size_t size);
};

/* Load libipt.so.2 (or the library that the environment variable
 * PTD_LIBIPT names, e.g. another libipt build) into @ipt.  Returns 0, or -1
 * with a message in @msg (@size bytes) if the library or one of its
 * functions cannot be found. */
int ptd_libipt_open(struct ptd_libipt *ipt, char *msg, size_t size);

/* Unload the library (a zeroed @ipt is allowed). */
void ptd_libipt_close(struct ptd_libipt *ipt);

#endif /* PTD_LIBIPT_DL_H */
