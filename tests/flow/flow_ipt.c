/* SPDX-License-Identifier: BSD-3-Clause */
/* libipt 2.0.5's instruction-flow and block decoders as flow runners. */
#include "flow_run.h"
#include "libipt_dl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct flow_ipt {
	const struct ptd_libipt *ipt;
	struct ptd_ipt_image *image;
	struct ptd_ipt_insn_decoder *insn;
	struct ptd_ipt_blk_decoder *blk;
};

/* libipt 2.0.5's struct pt_event into ours: the same fields and, for the
 * event types 2.0.5 has, the same variant layouts. */
static void flow_ipt_event(struct pt_event *out, const struct ptd_ipt_event *in)
{
	size_t n = sizeof(out->variant) < sizeof(in->variant)
	                   ? sizeof(out->variant)
	                   : sizeof(in->variant);

	memset(out, 0, sizeof(*out));
	out->type = (enum pt_event_type)in->type;
	out->ip_suppressed = in->ip_suppressed;
	out->status_update = in->status_update;
	out->has_tsc = in->has_tsc;
	out->tsc = in->tsc;
	out->lost_mtc = in->lost_mtc;
	out->lost_cyc = in->lost_cyc;
	memcpy(&out->variant, in->variant, n);
}

static int fx_sync(void *d)
{
	struct flow_ipt *f = d;

	return f->insn ? f->ipt->insn_sync_forward(f->insn)
	               : f->ipt->blk_sync_forward(f->blk);
}

static int fx_sync_set(void *d, uint64_t offset)
{
	struct flow_ipt *f = d;

	return f->insn ? f->ipt->insn_sync_set(f->insn, offset)
	               : f->ipt->blk_sync_set(f->blk, offset);
}

static int fx_sync_backward(void *d)
{
	struct flow_ipt *f = d;

	return f->insn ? f->ipt->insn_sync_backward(f->insn)
	               : f->ipt->blk_sync_backward(f->blk);
}

static int fx_offset(void *d, uint64_t *offset)
{
	struct flow_ipt *f = d;

	return f->insn ? f->ipt->insn_get_offset(f->insn, offset)
	               : f->ipt->blk_get_offset(f->blk, offset);
}

static int fx_sync_offset(void *d, uint64_t *offset)
{
	struct flow_ipt *f = d;

	return f->insn ? f->ipt->insn_get_sync_offset(f->insn, offset)
	               : f->ipt->blk_get_sync_offset(f->blk, offset);
}

static int fx_event(void *d, struct pt_event *event)
{
	struct flow_ipt *f = d;
	struct ptd_ipt_event ev;
	int status;

	memset(&ev, 0, sizeof(ev));
	status = f->insn ? f->ipt->insn_event(f->insn, &ev, sizeof(ev))
	                 : f->ipt->blk_event(f->blk, &ev, sizeof(ev));
	if (status >= 0)
		flow_ipt_event(event, &ev);
	return status;
}

static int fx_next(void *d, struct flow_item *item)
{
	struct flow_ipt *f = d;
	int status;

	if (f->insn) {
		struct ptd_ipt_insn insn;

		memset(&insn, 0, sizeof(insn));
		status = f->ipt->insn_next(f->insn, &insn, sizeof(insn));
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
		struct ptd_ipt_block block;

		memset(&block, 0, sizeof(block));
		status = f->ipt->blk_next(f->blk, &block, sizeof(block));
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

static int fx_time(void *d, uint64_t *tsc)
{
	struct flow_ipt *f = d;

	return f->insn ? f->ipt->insn_time(f->insn, tsc, NULL, NULL)
	               : f->ipt->blk_time(f->blk, tsc, NULL, NULL);
}

static void fx_free(void *d)
{
	struct flow_ipt *f = d;

	if (f->insn)
		f->ipt->insn_free_decoder(f->insn);
	if (f->blk)
		f->ipt->blk_free_decoder(f->blk);
	f->ipt->image_free(f->image);
	free(f);
}

static const struct flow_ops flow_ipt_ops = {
        "libipt", fx_sync, fx_offset, fx_sync_offset, fx_event,
        fx_next,  fx_time, fx_free,   fx_sync_set,    fx_sync_backward,
};

void *flow_ipt_alloc(const struct ptd_libipt *ipt,
                     const struct flow_input *input, int block,
                     const struct pt_conf_flags *flags,
                     const struct flow_ops **ops, char *msg, size_t msgsize)
{
	struct flow_ipt *f = calloc(1, sizeof(*f));
	struct pt_config config = input->config;
	size_t i;
	int err;

	if (!f) {
		snprintf(msg, msgsize, "out of memory");
		return NULL;
	}
	f->ipt = ipt;
	f->image = ipt->image_alloc(NULL);
	if (!f->image) {
		snprintf(msg, msgsize, "libipt: pt_image_alloc failed");
		free(f);
		return NULL;
	}
	for (i = 0; i < input->nsections; ++i) {
		const struct flow_section *s = &input->sections[i];

		err = ipt->image_add_file(f->image, s->file, s->offset, s->size,
		                          NULL, s->vaddr);
		if (err < 0) {
			snprintf(msg, msgsize,
			         "libipt: pt_image_add_file(%s) failed: %s",
			         s->file, ipt->errstr(pt_errcode(err)));
			fx_free(f);
			return NULL;
		}
	}
	config.flags = *flags;
	if (block) {
		f->blk = ipt->blk_alloc_decoder(&config);
		err = f->blk ? ipt->blk_set_image(f->blk, f->image)
		             : -pte_nomem;
	} else {
		f->insn = ipt->insn_alloc_decoder(&config);
		err = f->insn ? ipt->insn_set_image(f->insn, f->image)
		              : -pte_nomem;
	}
	if (err < 0) {
		snprintf(msg, msgsize,
		         "libipt: cannot allocate the decoder: %s",
		         ipt->errstr(pt_errcode(err)));
		fx_free(f);
		return NULL;
	}
	*ops = &flow_ipt_ops;
	return f;
}
