/* SPDX-License-Identifier: BSD-3-Clause */
/* libipt 2.0.5, loaded at run time: its packet decoder (tests/diff,
 * bench/pkt_bench), its query decoder (tools/ptsim's ptsim-accuracy) and its
 * traced image and image section cache (tests/diff/diff_image).
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

/* A libipt traced image and image section cache (struct pt_image and
 * struct pt_image_section_cache).  struct pt_asid and
 * read_memory_callback_t are the same in both libraries. */
struct ptd_ipt_image;
struct ptd_ipt_iscache;

/* libipt's instruction-flow and block decoders (opaque). */
struct ptd_ipt_insn_decoder;
struct ptd_ipt_blk_decoder;

/* libipt 2.0.5's struct pt_insn. */
struct ptd_ipt_insn {
	uint64_t ip;
	int isid;
	int mode;   /* enum pt_exec_mode */
	int iclass; /* enum pt_insn_class (2.0.5: ptic_error is 0) */
	uint8_t raw[15];
	uint8_t size;
	uint32_t speculative : 1;
	uint32_t truncated : 1;
};

/* libipt 2.0.5's struct pt_block. */
struct ptd_ipt_block {
	uint64_t ip;
	uint64_t end_ip;
	int isid;
	int mode;
	int iclass;
	uint16_t ninsn;
	uint8_t raw[15];
	uint8_t size;
	uint32_t speculative : 1;
	uint32_t truncated : 1;
};

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
	PTD_IPT_PTS_IP_SUPPRESSED = 1 << 1,
	PTD_IPT_PTS_EOS = 1 << 2
};

/* The libipt functions we use, and the library handle. */
struct ptd_libipt {
	void *handle;

	struct pt_version (*library_version)(void);
	const char *(*errstr)(enum pt_error_code code);
	/* (struct pt_errata and struct pt_cpu are libipt's layout.) */
	int (*cpu_errata)(struct pt_errata *errata, const struct pt_cpu *cpu);

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
	int (*qry_sync_backward)(struct ptd_ipt_qry_decoder *decoder,
	                         uint64_t *ip);
	int (*qry_sync_set)(struct ptd_ipt_qry_decoder *decoder, uint64_t *ip,
	                    uint64_t offset);
	int (*qry_get_offset)(const struct ptd_ipt_qry_decoder *decoder,
	                      uint64_t *offset);
	int (*qry_get_sync_offset)(const struct ptd_ipt_qry_decoder *decoder,
	                           uint64_t *offset);
	int (*qry_cond_branch)(struct ptd_ipt_qry_decoder *decoder, int *taken);
	int (*qry_indirect_branch)(struct ptd_ipt_qry_decoder *decoder,
	                           uint64_t *ip);
	int (*qry_event)(struct ptd_ipt_qry_decoder *decoder,
	                 struct ptd_ipt_event *event, size_t size);
	int (*qry_time)(struct ptd_ipt_qry_decoder *decoder, uint64_t *time,
	                uint32_t *lost_mtc, uint32_t *lost_cyc);

	/* The image section cache. */
	struct ptd_ipt_iscache *(*iscache_alloc)(const char *name);
	void (*iscache_free)(struct ptd_ipt_iscache *iscache);
	int (*iscache_set_limit)(struct ptd_ipt_iscache *iscache,
	                         uint64_t limit);
	const char *(*iscache_name)(const struct ptd_ipt_iscache *iscache);
	int (*iscache_add_file)(struct ptd_ipt_iscache *iscache,
	                        const char *filename, uint64_t offset,
	                        uint64_t size, uint64_t vaddr);
	int (*iscache_read)(struct ptd_ipt_iscache *iscache, uint8_t *buffer,
	                    uint64_t size, int isid, uint64_t vaddr);

	/* The traced image. */
	struct ptd_ipt_image *(*image_alloc)(const char *name);
	void (*image_free)(struct ptd_ipt_image *image);
	const char *(*image_name)(const struct ptd_ipt_image *image);
	int (*image_add_file)(struct ptd_ipt_image *image, const char *filename,
	                      uint64_t offset, uint64_t size,
	                      const struct pt_asid *asid, uint64_t vaddr);
	int (*image_add_cached)(struct ptd_ipt_image *image,
	                        struct ptd_ipt_iscache *iscache, int isid,
	                        const struct pt_asid *asid);
	int (*image_copy)(struct ptd_ipt_image *image,
	                  const struct ptd_ipt_image *src);
	int (*image_remove_by_filename)(struct ptd_ipt_image *image,
	                                const char *filename,
	                                const struct pt_asid *asid);
	int (*image_remove_by_asid)(struct ptd_ipt_image *image,
	                            const struct pt_asid *asid);
	int (*image_set_callback)(struct ptd_ipt_image *image,
	                          read_memory_callback_t *callback,
	                          void *context);

	/* The instruction-flow decoder. */
	struct ptd_ipt_insn_decoder *(*insn_alloc_decoder)(
	        const struct pt_config *config);
	void (*insn_free_decoder)(struct ptd_ipt_insn_decoder *decoder);
	int (*insn_sync_forward)(struct ptd_ipt_insn_decoder *decoder);
	int (*insn_sync_set)(struct ptd_ipt_insn_decoder *decoder,
	                     uint64_t offset);
	int (*insn_sync_backward)(struct ptd_ipt_insn_decoder *decoder);
	int (*insn_get_offset)(const struct ptd_ipt_insn_decoder *decoder,
	                       uint64_t *offset);
	int (*insn_get_sync_offset)(const struct ptd_ipt_insn_decoder *decoder,
	                            uint64_t *offset);
	int (*insn_set_image)(struct ptd_ipt_insn_decoder *decoder,
	                      struct ptd_ipt_image *image);
	int (*insn_time)(struct ptd_ipt_insn_decoder *decoder, uint64_t *time,
	                 uint32_t *lost_mtc, uint32_t *lost_cyc);
	int (*insn_next)(struct ptd_ipt_insn_decoder *decoder,
	                 struct ptd_ipt_insn *insn, size_t size);
	int (*insn_event)(struct ptd_ipt_insn_decoder *decoder,
	                  struct ptd_ipt_event *event, size_t size);

	/* The block decoder. */
	struct ptd_ipt_blk_decoder *(*blk_alloc_decoder)(
	        const struct pt_config *config);
	void (*blk_free_decoder)(struct ptd_ipt_blk_decoder *decoder);
	int (*blk_sync_forward)(struct ptd_ipt_blk_decoder *decoder);
	int (*blk_sync_set)(struct ptd_ipt_blk_decoder *decoder,
	                    uint64_t offset);
	int (*blk_sync_backward)(struct ptd_ipt_blk_decoder *decoder);
	int (*blk_get_offset)(const struct ptd_ipt_blk_decoder *decoder,
	                      uint64_t *offset);
	int (*blk_get_sync_offset)(const struct ptd_ipt_blk_decoder *decoder,
	                           uint64_t *offset);
	int (*blk_set_image)(struct ptd_ipt_blk_decoder *decoder,
	                     struct ptd_ipt_image *image);
	int (*blk_time)(struct ptd_ipt_blk_decoder *decoder, uint64_t *time,
	                uint32_t *lost_mtc, uint32_t *lost_cyc);
	int (*blk_next)(struct ptd_ipt_blk_decoder *decoder,
	                struct ptd_ipt_block *block, size_t size);
	int (*blk_event)(struct ptd_ipt_blk_decoder *decoder,
	                 struct ptd_ipt_event *event, size_t size);
};

/* Load libipt.so.2 (or the library that the environment variable
 * PTD_LIBIPT names, e.g. another libipt build) into @ipt.  Returns 0, or -1
 * with a message in @msg (@size bytes) if the library or one of its
 * functions cannot be found. */
int ptd_libipt_open(struct ptd_libipt *ipt, char *msg, size_t size);

/* Unload the library (a zeroed @ipt is allowed). */
void ptd_libipt_close(struct ptd_libipt *ipt);

#endif /* PTD_LIBIPT_DL_H */
