/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdecode's instruction-flow and block decoders as flow runners. */
#include "flow_run.h"

#include "ptdecode/ptdecode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct flow_ptd {
	struct pt_image *image;
	struct pt_insn_decoder *insn;
	struct pt_block_decoder *blk;
};

static int fp_sync(void *d)
{
	struct flow_ptd *f = d;

	return f->insn ? pt_insn_sync_forward(f->insn)
	               : pt_blk_sync_forward(f->blk);
}

static int fp_sync_set(void *d, uint64_t offset)
{
	struct flow_ptd *f = d;

	return f->insn ? pt_insn_sync_set(f->insn, offset)
	               : pt_blk_sync_set(f->blk, offset);
}

static int fp_sync_backward(void *d)
{
	struct flow_ptd *f = d;

	return f->insn ? pt_insn_sync_backward(f->insn)
	               : pt_blk_sync_backward(f->blk);
}

static int fp_offset(void *d, uint64_t *offset)
{
	struct flow_ptd *f = d;

	return f->insn ? pt_insn_get_offset(f->insn, offset)
	               : pt_blk_get_offset(f->blk, offset);
}

static int fp_sync_offset(void *d, uint64_t *offset)
{
	struct flow_ptd *f = d;

	return f->insn ? pt_insn_get_sync_offset(f->insn, offset)
	               : pt_blk_get_sync_offset(f->blk, offset);
}

static int fp_event(void *d, struct pt_event *event)
{
	struct flow_ptd *f = d;

	memset(event, 0, sizeof(*event));
	return f->insn ? pt_insn_event(f->insn, event, sizeof(*event))
	               : pt_blk_event(f->blk, event, sizeof(*event));
}

static int fp_next(void *d, struct flow_item *item)
{
	struct flow_ptd *f = d;
	int status;

	if (f->insn) {
		struct pt_insn insn;

		memset(&insn, 0, sizeof(insn));
		status = pt_insn_next(f->insn, &insn, sizeof(insn));
		item->kind = fi_insn;
		item->ip = item->end_ip = insn.ip;
		item->ninsn = 1;
		item->size = insn.size;
		item->mode = (uint8_t)insn.mode;
		item->iclass = (uint8_t)insn.iclass;
		item->speculative = insn.speculative;
		item->truncated = insn.truncated;
		memcpy(item->raw, insn.raw, sizeof(item->raw));
	} else {
		struct pt_block block;

		memset(&block, 0, sizeof(block));
		status = pt_blk_next(f->blk, &block, sizeof(block));
		item->kind = fi_block;
		item->ip = block.ip;
		item->end_ip = block.end_ip;
		item->ninsn = block.ninsn;
		item->mode = (uint8_t)block.mode;
		item->iclass = (uint8_t)block.iclass;
		item->speculative = block.speculative;
		item->truncated = block.truncated;
		if (block.truncated) {
			item->size = block.size;
			memcpy(item->raw, block.raw, sizeof(item->raw));
		}
	}
	return status;
}

static int fp_time(void *d, uint64_t *tsc)
{
	struct flow_ptd *f = d;

	return f->insn ? pt_insn_time(f->insn, tsc, NULL, NULL)
	               : pt_blk_time(f->blk, tsc, NULL, NULL);
}

static void fp_free(void *d)
{
	struct flow_ptd *f = d;

	pt_insn_free_decoder(f->insn);
	pt_blk_free_decoder(f->blk);
	pt_image_free(f->image);
	free(f);
}

static const struct flow_ops flow_ptd_ops = {
        "ptdecode", fp_sync, fp_offset, fp_sync_offset, fp_event,
        fp_next,    fp_time, fp_free,   fp_sync_set,    fp_sync_backward,
};

void *flow_ptd_alloc(const struct flow_input *input, int block,
                     const struct pt_conf_flags *flags, int libipt_time,
                     const struct flow_ops **ops, char *msg, size_t msgsize)
{
	struct ptd_time_config tconfig;
	struct flow_ptd *f = calloc(1, sizeof(*f));
	struct pt_config config = input->config;
	size_t i;
	int err;

	if (!f) {
		snprintf(msg, msgsize, "out of memory");
		return NULL;
	}
	f->image = pt_image_alloc(NULL);
	if (!f->image) {
		snprintf(msg, msgsize, "ptdecode: pt_image_alloc failed");
		free(f);
		return NULL;
	}
	for (i = 0; i < input->nsections; ++i) {
		const struct flow_section *s = &input->sections[i];

		err = pt_image_add_file(f->image, s->file, s->offset, s->size,
		                        NULL, s->vaddr);
		if (err < 0) {
			snprintf(msg, msgsize,
			         "ptdecode: pt_image_add_file(%s) failed: %s",
			         s->file, pt_errstr(pt_errcode(err)));
			fp_free(f);
			return NULL;
		}
	}
	config.flags = *flags;
	ptd_time_config_init(&tconfig);
	if (libipt_time)
		tconfig.mode = ptd_time_mode_libipt;
	if (block) {
		f->blk = ptd_blk_alloc_decoder(&config, &tconfig);
		err = f->blk ? pt_blk_set_image(f->blk, f->image) : -pte_nomem;
	} else {
		f->insn = ptd_insn_alloc_decoder(&config, &tconfig);
		err = f->insn ? pt_insn_set_image(f->insn, f->image)
		              : -pte_nomem;
	}
	if (err < 0) {
		snprintf(msg, msgsize,
		         "ptdecode: cannot allocate the decoder: %s",
		         pt_errstr(pt_errcode(err)));
		fp_free(f);
		return NULL;
	}
	*ops = &flow_ptd_ops;
	return f;
}
