/* SPDX-License-Identifier: BSD-3-Clause */
/* Running an instruction-flow or block decoder as ptxed does, one result
 * at a time, so that two decoders can be compared in lockstep.
 *
 * The loop: synchronize forward; drain pending events; decode the next
 * instruction or block; after an error report it and synchronize onto the
 * next PSB; stop at the end of the trace, at the first pts_eos, or when a
 * failed synchronization made no progress.  flow_ipt.c drives libipt 2.0.5
 * (through tests/support/libipt_dl.h), flow_ptd.c ptdecode. */
#ifndef PTD_FLOW_RUN_H
#define PTD_FLOW_RUN_H

#include "intel-pt.h"

#include <stddef.h>
#include <stdint.h>

/* One section of the traced image: bytes of a file at an address. */
struct flow_section {
	const char *file;
	uint64_t offset, size, vaddr;
};

/* What a decoder decodes. */
struct flow_input {
	struct pt_config config; /* trace buffer, cpu, timing; flags unused */
	const struct flow_section *sections;
	size_t nsections;
};

/* One result of a decoder. */
enum flow_item_kind {
	fi_sync,       /* synchronized onto the PSB at @offset */
	fi_sync_error, /* synchronization failed with @err at @offset */
	fi_event,      /* @event */
	fi_insn,       /* an instruction */
	fi_block,      /* a block */
	fi_error,      /* decoding failed with @err at @offset, IP @ip */
	fi_end         /* no more results */
};

struct flow_item {
	enum flow_item_kind kind;
	int err;
	uint64_t offset;

	/* Instructions and blocks (for an instruction @end_ip is @ip and
	 * @ninsn 1). */
	uint64_t ip, end_ip;
	uint16_t ninsn;
	uint8_t size, mode, iclass, speculative, truncated;
	uint8_t raw[pt_max_insn_size];

	/* The time after this result (pt_*_time), if the runner asks. */
	uint64_t tsc;
	int time_status;

	struct pt_event event;
};

/* The operations of one decoder. */
struct flow_ops {
	const char *name;
	int (*sync_forward)(void *decoder);
	int (*get_offset)(void *decoder, uint64_t *offset);
	int (*get_sync_offset)(void *decoder, uint64_t *offset);
	int (*event)(void *decoder, struct pt_event *event);
	/* Decode the next instruction or block into @item (kind, ip, ...);
	 * return the decoder's status. */
	int (*next)(void *decoder, struct flow_item *item);
	int (*time)(void *decoder, uint64_t *tsc);
	void (*free)(void *decoder);
	int (*sync_set)(void *decoder, uint64_t offset);
	int (*sync_backward)(void *decoder);
};

/* A decoder with its loop state. */
struct flow_runner {
	const struct flow_ops *ops;
	void *decoder;

	int state; /* 0: needs sync, 1: running, 2: done */
	int status;
	uint64_t last_sync;
	/* An error that comes after the (partial) result just returned. */
	int pending_err;
	uint64_t pending_ip;
	/* Ask pt_*_time after every instruction or block. */
	int with_time;
	/* Ask pt_*_get_offset before every instruction, block and event (as
	 * ptxed --offset does) and keep it in the result's @offset. */
	int with_offsets;
	/* With @nsync_offsets: synchronize with pt_*_sync_set() at these
	 * offsets, one after the other, instead of pt_*_sync_forward(), and
	 * again after every @sync_every results; the end after the last. */
	const uint64_t *sync_offsets;
	unsigned nsync_offsets, next_sync, sync_every, since_sync;
};

/* Start a runner on @decoder (owned by the runner from now on). */
void flow_runner_init(struct flow_runner *runner, const struct flow_ops *ops,
                      void *decoder, int with_time, int with_offsets);

/* Produce the next result.  Returns 0, or 1 at the end (fi_end). */
int flow_runner_next(struct flow_runner *runner, struct flow_item *item);

/* Free the decoder. */
void flow_runner_fini(struct flow_runner *runner);

/* Allocate decoders for @input: libipt's (flow_ipt.c) and ptdecode's
 * (flow_ptd.c), instruction-flow (@block 0) or block (@block 1), with the
 * decoder flags @flags.  Return NULL with a message in @msg on failure. */
struct ptd_libipt;
void *flow_ipt_alloc(const struct ptd_libipt *ipt,
                     const struct flow_input *input, int block,
                     const struct pt_conf_flags *flags,
                     const struct flow_ops **ops, char *msg, size_t msgsize);
/* @libipt_time: ptdecode's decoders with libipt's time estimator
 * (ptd_insn_alloc_decoder(), ptd_time_mode_libipt), else the default. */
void *flow_ptd_alloc(const struct flow_input *input, int block,
                     const struct pt_conf_flags *flags, int libipt_time,
                     const struct flow_ops **ops, char *msg, size_t msgsize);

#endif /* PTD_FLOW_RUN_H */
