/* SPDX-License-Identifier: BSD-3-Clause */
/* libipt 2.0.5, loaded at run time: its packet decoder (tests/diff,
 * bench/pkt_bench) and its query decoder (tools/ptsim's ptsim-accuracy).
 *
 * ptdecode and libipt export the same symbol names, so a program that links
 * ptdecode cannot also link libipt.  Instead we dlopen("libipt.so.2") with
 * RTLD_LOCAL (and RTLD_DEEPBIND where the sanitizers allow it, so that libipt
 * binds to its own functions) and call it through the function pointers
 * below.  The layouts of struct pt_version, struct pt_config and struct
 * pt_packet are the same in both libraries, so ptdecode's header describes
 * libipt's types too; the decoder objects are opaque and get their own types
 * here so that the two libraries' decoders cannot be mixed up.  ptdecode has
 * no query decoder, so libipt's struct pt_event is mirrored below. */
#ifndef PTD_LIBIPT_DL_H
#define PTD_LIBIPT_DL_H

#include "ptdecode/intel-pt.h"

#include <stddef.h>
#include <stdint.h>

/* A libipt packet decoder (libipt's struct pt_packet_decoder). */
struct ptd_ipt_pkt_decoder;

/* A libipt query decoder (libipt's struct pt_query_decoder). */
struct ptd_ipt_qry_decoder;

/* libipt 2.0.5's struct pt_event (intel-pt.h): the fields up to the
 * variant, then room for the largest variant. */
struct ptd_ipt_event {
	int type; /* enum pt_event_type */
	uint32_t ip_suppressed : 1;
	uint32_t status_update : 1;
	uint32_t has_tsc : 1;
	uint64_t tsc;
	uint32_t lost_mtc;
	uint32_t lost_cyc;
	uint64_t reserved[2];
	uint64_t variant[8];
};

/* libipt's enum pt_event_type values we look at, and enum
 * pt_status_flag. */
enum {
	PTD_IPT_PTEV_ENABLED = 0,
	PTD_IPT_PTEV_DISABLED = 1,
	PTD_IPT_PTS_EVENT_PENDING = 1 << 0,
	PTD_IPT_PTS_EOS = 1 << 2
};

/* The libipt functions we use, and the library handle. */
struct ptd_libipt {
	void *handle;

	struct pt_version (*library_version)(void);
	const char *(*errstr)(enum pt_error_code code);

	/* The packet decoder. */
	struct ptd_ipt_pkt_decoder *(*pkt_alloc_decoder)(
	        const struct pt_config *config);
	void (*pkt_free_decoder)(struct ptd_ipt_pkt_decoder *decoder);
	int (*pkt_sync_forward)(struct ptd_ipt_pkt_decoder *decoder);
	int (*pkt_sync_backward)(struct ptd_ipt_pkt_decoder *decoder);
	int (*pkt_sync_set)(struct ptd_ipt_pkt_decoder *decoder,
	                    uint64_t offset);
	int (*pkt_get_offset)(const struct ptd_ipt_pkt_decoder *decoder,
	                      uint64_t *offset);
	int (*pkt_get_sync_offset)(const struct ptd_ipt_pkt_decoder *decoder,
	                           uint64_t *offset);
	int (*pkt_next)(struct ptd_ipt_pkt_decoder *decoder,
	                struct pt_packet *packet, size_t size);

	/* The query decoder. */
	struct ptd_ipt_qry_decoder *(*qry_alloc_decoder)(
	        const struct pt_config *config);
	void (*qry_free_decoder)(struct ptd_ipt_qry_decoder *decoder);
	int (*qry_sync_forward)(struct ptd_ipt_qry_decoder *decoder,
	                        uint64_t *ip);
	int (*qry_get_offset)(const struct ptd_ipt_qry_decoder *decoder,
	                      uint64_t *offset);
	int (*qry_cond_branch)(struct ptd_ipt_qry_decoder *decoder, int *taken);
	int (*qry_indirect_branch)(struct ptd_ipt_qry_decoder *decoder,
	                           uint64_t *ip);
	int (*qry_event)(struct ptd_ipt_qry_decoder *decoder,
	                 struct ptd_ipt_event *event, size_t size);
	int (*qry_time)(struct ptd_ipt_qry_decoder *decoder, uint64_t *time,
	                uint32_t *lost_mtc, uint32_t *lost_cyc);
};

/* Load libipt.so.2 (or the library that the environment variable
 * PTD_LIBIPT names, e.g. another libipt build) into @ipt.  Returns 0, or -1
 * with a message in @msg (@size bytes) if the library or one of its
 * functions cannot be found. */
int ptd_libipt_open(struct ptd_libipt *ipt, char *msg, size_t size);

/* Unload the library (a zeroed @ipt is allowed). */
void ptd_libipt_close(struct ptd_libipt *ipt);

#endif /* PTD_LIBIPT_DL_H */
