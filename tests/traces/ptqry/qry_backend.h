/* SPDX-License-Identifier: BSD-3-Clause */
/* ptqry: one query decoder behind a table of functions, either ptdecode's
 * (linked in) or libipt 2.0.5's (loaded with dlopen through
 * tests/support/libipt_dl), so that the script runner drives both the same
 * way. */
#ifndef PTQRY_BACKEND_H
#define PTQRY_BACKEND_H

#include "ptdecode/ptdecode.h"

#include <stddef.h>
#include <stdint.h>

/* The decoder options of the command line. */
struct ptqry_decoder_options {
	/* The configuration: trace buffer, cpu, errata, timing, flags. */
	struct pt_config config;

	/* Our decoder uses libipt's time estimator (ptd_time_mode_libipt). */
	int time_libipt;
};

/* A query decoder and the pt_qry_* functions that work on it.  Every
 * function returns what the pt_qry_* function of the same name returns;
 * events come back in ptdecode's struct pt_event, whose layout is libipt's
 * for every event type libipt 2.0.5 knows. */
struct ptqry_backend {
	/* The implementation's name, "ptdecode" or "libipt". */
	const char *name;

	void *decoder;

	int (*sync_forward)(void *decoder, uint64_t *ip);
	int (*sync_backward)(void *decoder, uint64_t *ip);
	int (*sync_set)(void *decoder, uint64_t *ip, uint64_t offset);
	int (*get_offset)(void *decoder, uint64_t *offset);
	int (*get_sync_offset)(void *decoder, uint64_t *offset);
	int (*cond_branch)(void *decoder, int *taken);
	int (*indirect_branch)(void *decoder, uint64_t *ip);
	int (*event)(void *decoder, struct pt_event *event);
	int (*time)(void *decoder, uint64_t *time, uint32_t *lost_mtc,
	            uint32_t *lost_cyc);
	int (*core_bus_ratio)(void *decoder, uint32_t *cbr);

	/* Private: frees the decoder (and unloads libipt). */
	void (*free_decoder)(void *decoder);
};

/* Open ptdecode's query decoder on @options.  Returns 0, or -1 with a
 * message in @msg (@size bytes). */
int ptqry_open_ptdecode(struct ptqry_backend *backend,
                        const struct ptqry_decoder_options *options, char *msg,
                        size_t size);

/* Load libipt 2.0.5 and open its query decoder on @options.  Returns 0, -1
 * with a message in @msg if the decoder cannot be allocated, or -2 with a
 * message if the library cannot be loaded. */
int ptqry_open_libipt(struct ptqry_backend *backend,
                      const struct ptqry_decoder_options *options, char *msg,
                      size_t size);

/* Free the decoder and unload what was loaded (a zeroed @backend is
 * allowed). */
void ptqry_close(struct ptqry_backend *backend);

#endif /* PTQRY_BACKEND_H */
