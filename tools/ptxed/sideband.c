/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: libipt's perf_event sideband; see sideband.h. */
#define _POSIX_C_SOURCE 200809L

#include "sideband.h"

#include "load.h"
#include "load_elf.h"
#include "ptxed.h"
#include "sb_context.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A context's ABI before the first ELF file mapped into it tells it. */
enum { ptxed_abi_unknown = -1 };

/* Where a file's trace is, as its events tell. */
enum ptxed_sb_where {
	ptxed_where_unknown,
	ptxed_where_kernel,
	ptxed_where_likely_kernel,
	ptxed_where_user,
	ptxed_where_likely_user
};

/* A file's state (ptd_sb_channel.user). */
struct ptxed_sb_chan {
	struct ptxed_ctx *current, *pending;
	enum ptxed_sb_where where;
};

struct ptxed_sb {
	struct ptd_sb_session session;
	struct pt_image_section_cache *iscache;
	/* --pevent:kcore's sections: where every context starts from. */
	struct pt_image *kernel;
	struct ptxed_ctxs contexts;
	struct ptxed_sb_chan *chans;
	/* The image to give the decoder after this event (NULL: none), and
	 * the one it has (NULL: ptxed's own, until the first switch). */
	struct pt_image *switch_to;
	const struct pt_image *in_use;
	/* Memory ran out for the sideband: for the channels or a context
	 * (said once), or for a map or a fork's image (each an error line). */
	int failed;
	const char *prog;
};

struct ptxed_sb *ptxed_sb_alloc(struct pt_image_section_cache *iscache,
                                const char *prog)
{
	struct ptxed_sb *sb = calloc(1, sizeof(*sb));

	if (!sb)
		return NULL;
	ptd_sb_init(&sb->session);
	sb->session.keep_retired = 1;
	sb->iscache = iscache;
	sb->prog = prog;
	sb->kernel = pt_image_alloc("kernel");
	if (!sb->kernel || ptxed_ctxs_init(&sb->contexts) < 0) {
		pt_image_free(sb->kernel);
		free(sb);
		return NULL;
	}
	return sb;
}

void ptxed_sb_free(struct ptxed_sb *sb)
{
	if (!sb)
		return;
	ptxed_ctxs_fini(&sb->contexts);
	free(sb->chans);
	pt_image_free(sb->kernel);
	ptd_sb_fini(&sb->session);
	free(sb);
}

struct ptd_sb_session *ptxed_sb_session(struct ptxed_sb *sb)
{
	return &sb->session;
}

int ptxed_sb_any(const struct ptxed_sb *sb)
{
	return sb && ptd_sb_any(&sb->session);
}

int ptxed_sb_option(struct ptxed_sb *sb, int argc, char *argv[], int *idx,
                    int verbose)
{
	uint64_t base = 0;
	int has_base;
	char *arg;

	if (strcmp(argv[*idx], "--pevent:kcore") != 0)
		return ptd_sb_option(&sb->session, ptd_sb_ptxed, argc, argv,
		                     idx, sb->prog, stderr);
	if (*idx + 1 >= argc) {
		fprintf(stderr, "%s: --pevent:kcore: missing argument.\n",
		        sb->prog);
		return -1;
	}
	*idx += 1;
	arg = argv[*idx];
	has_base = ptxed_split_base(arg, &base);
	if (ptxed_load_elf(sb->iscache, sb->kernel, arg, base, has_base,
	                   sb->prog, verbose) < 0)
		return -1;
	return 1;
}

void ptxed_sb_start(struct ptxed_sb *sb)
{
	struct ptd_sb_session *s = &sb->session;

	sb->chans = calloc(s->num_channels ? s->num_channels : 1,
	                   sizeof(*sb->chans));
	if (!sb->chans) {
		fprintf(stderr, "%s: out of memory.\n", sb->prog);
		sb->failed = 1;
		s->active = NULL;
		return;
	}
	for (size_t i = 0; i < s->num_channels; ++i)
		s->channels[i]->user = &sb->chans[i];
	ptd_sb_start(s);
}

int ptxed_sb_failed(const struct ptxed_sb *sb)
{
	return sb && sb->failed;
}

/* ---- contexts ---------------------------------------------------------- */

/* A new context for @pid, its image a copy of the kernel image, in place
 * of the old one.  NULL if memory runs out (said once). */
static struct ptxed_ctx *sb_new(struct ptxed_sb *sb, uint32_t pid)
{
	struct ptxed_ctx *ctx = ptxed_ctxs_new(&sb->contexts, pid, sb->kernel);

	if (!ctx && !sb->failed)
		fprintf(stderr, "%s: out of memory.\n", sb->prog);
	if (!ctx)
		sb->failed = 1;
	return ctx;
}

/* The live context of @pid, made if there is none. */
static struct ptxed_ctx *sb_get(struct ptxed_sb *sb, uint32_t pid)
{
	struct ptxed_ctx *ctx = ptxed_ctxs_find(&sb->contexts, pid);

	return ctx ? ctx : sb_new(sb, pid);
}

/* Set @chan's next context to @ctx (NULL: none), counting the files that
 * refer to a context. */
static void sb_set_pending(struct ptxed_sb_chan *chan, struct ptxed_ctx *ctx)
{
	if (chan->pending)
		chan->pending->refs -= 1;
	chan->pending = ctx;
	if (ctx)
		ctx->refs += 1;
}

/* Make @ctx the context @chan switches to next. */
static void sb_prepare(struct ptxed_sb_chan *chan, struct ptxed_ctx *ctx)
{
	if (!ctx || chan->pending == ctx)
		return;
	sb_set_pending(chan, chan->current != ctx ? ctx : NULL);
}

/* A file is done: its current and next contexts are no longer its. */
static void sb_release(struct ptxed_sb_chan *chan)
{
	sb_set_pending(chan, NULL);
	if (chan->current)
		chan->current->refs -= 1;
	chan->current = NULL;
}

/* Switch @chan to its next context. */
static void sb_switch(struct ptxed_sb *sb, struct ptxed_sb_chan *chan)
{
	struct ptxed_ctx *ctx = chan->pending;

	if (!ctx)
		return;
	if (sb->session.print & ptd_sb_print_switch) {
		const char *name = pt_image_name(ctx->image);

		fprintf(sb->session.out, "[context: %s]\n",
		        name ? name : "(unnamed)");
	}
	/* (The next context's count goes to the current one.) */
	if (chan->current)
		chan->current->refs -= 1;
	chan->current = ctx;
	chan->pending = NULL;
	sb->switch_to = ctx->image;
}

/* ---- memory maps ------------------------------------------------------- */

/* The ABI of the ELF file at @path, or ptxed_abi_unknown. */
static int sb_elf_abi(const char *path)
{
	unsigned char h[20];
	FILE *file = fopen(path, "rb");
	size_t got;

	if (!file)
		return ptxed_abi_unknown;
	got = fread(h, 1, sizeof(h), file);
	fclose(file);
	if (got != sizeof(h) || memcmp(h, "\177ELF", 4) != 0)
		return ptxed_abi_unknown;
	if (h[4] == 2)
		return ptd_sb_abi_x64;
	if (h[4] == 1 && h[5] == 1) {
		unsigned machine = (unsigned)h[18] | (unsigned)h[19] << 8;

		if (machine == 3)
			return ptd_sb_abi_ia32;
		if (machine == 62)
			return ptd_sb_abi_x32;
	}
	return ptxed_abi_unknown;
}

/* Add [@pgoff, @pgoff + @len) of @path at @addr to @ctx's image.  Returns
 * 0 or a negative error code. */
static int sb_add(struct ptxed_sb *sb, struct ptxed_ctx *ctx, const char *path,
                  uint64_t addr, uint64_t len, uint64_t pgoff)
{
	struct stat st;
	int isid;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return -pte_bad_file;
	if (pgoff >= (uint64_t)st.st_size)
		return -pte_invalid;
	if (len > (uint64_t)st.st_size - pgoff)
		len = (uint64_t)st.st_size - pgoff;
	isid = pt_iscache_add_file(sb->iscache, path, pgoff, len, addr);
	if (isid < 0)
		return isid;
	return pt_image_add_cached(ctx->image, sb->iscache, isid, NULL);
}

/* Whether the @len characters at @s contain @what. */
static int sb_contains(const char *s, size_t len, const char *what)
{
	const size_t n = strlen(what);

	for (size_t i = 0; i + n <= len; ++i)
		if (!memcmp(s + i, what, n))
			return 1;
	return 0;
}

/* MMAP and MMAP2 of @ch's current record. */
static void sb_mmap(struct ptxed_sb *sb, const struct ptd_sb_channel *ch)
{
	const struct ptd_pevent_record *r = &ch->rec;
	const struct ptd_pevent_string *f = &r->u.mmap.filename;
	struct ptxed_ctx *ctx;
	char path[4096];
	const char *use = path;
	int err;

	/* The kernel's own maps: its code comes from --pevent:kcore. */
	if ((r->misc & ptd_pevent_misc_cpumode) == 1)
		return;
	ctx = sb_get(sb, r->u.mmap.pid);
	if (!ctx)
		return;
	if (f->len && f->str[0] == '[') {
		if (f->len != 6 || memcmp(f->str, "[vdso]", 6) != 0) {
			ptd_sb_warning(&sb->session, ch, "image section lost");
			return;
		}
		if (ctx->abi == ptxed_abi_unknown ||
		    !ch->config.vdso[ctx->abi]) {
			ptd_sb_error(&sb->session, ch, -pte_bad_config);
			return;
		}
		use = ch->config.vdso[ctx->abi];
	} else if ((f->len == 6 && !memcmp(f->str, "//anon", 6)) ||
	           sb_contains(f->str, f->len, " (deleted)")) {
		ptd_sb_warning(&sb->session, ch, "image section lost");
		return;
	} else {
		const char *root = ch->config.sysroot ? ch->config.sysroot : "";
		int n = snprintf(path, sizeof(path), "%s%.*s", root,
		                 (int)f->len, f->str);

		/* A name cut short could name another file: the file cannot
		 * be read, as for a file that does not exist. */
		if (n < 0 || (size_t)n >= sizeof(path)) {
			ptd_sb_error(&sb->session, ch, -pte_bad_file);
			return;
		}
	}
	if (ctx->abi == ptxed_abi_unknown)
		ctx->abi = sb_elf_abi(use);
	err = sb_add(sb, ctx, use, r->u.mmap.addr, r->u.mmap.len,
	             r->u.mmap.pgoff);
	if (err < 0)
		ptd_sb_error(&sb->session, ch, err);
	if (err == -pte_nomem)
		sb->failed = 1;
}

/* ---- records ----------------------------------------------------------- */

/* Apply @ch's current record (ptd_sb_apply_fn). */
static void sb_apply(struct ptd_sb_channel *ch, void *ctxp)
{
	struct ptxed_sb *sb = ctxp;
	struct ptxed_sb_chan *chan = ch->user;
	const struct ptd_pevent_record *r = &ch->rec;
	const int out = (r->misc & ptd_pevent_misc_switch_out) != 0;
	const int have_tid = (r->sample.present & ptd_pevent_sample_tid) != 0;

	switch (r->type) {
	case ptd_pevent_itrace_start:
		if (!ch->primary)
			break;
		sb_prepare(chan, sb_get(sb, r->u.itrace_start.pid));
		sb_switch(sb, chan);
		break;

	case ptd_pevent_switch:
		if (!ch->primary || out)
			break;
		if (!have_tid) {
			ptd_sb_error(&sb->session, ch, -pte_bad_config);
			break;
		}
		sb_prepare(chan, sb_get(sb, r->sample.pid));
		break;

	case ptd_pevent_switch_cpu_wide:
		if (!ch->primary)
			break;
		if (out)
			sb_prepare(chan, sb_get(sb, r->u.switch_cpu_wide.pid));
		else if (have_tid)
			sb_prepare(chan, sb_get(sb, r->sample.pid));
		break;

	case ptd_pevent_comm:
		if (r->misc & ptd_pevent_misc_comm_exec) {
			struct ptxed_ctx *ctx = sb_new(sb, r->u.comm.pid);

			if (ch->primary)
				sb_prepare(chan, ctx);
		}
		break;

	case ptd_pevent_fork:
		if (r->u.task.pid == r->u.task.ppid)
			break;
		if (r->u.task.pid != r->u.task.tid) {
			ptd_sb_error(&sb->session, ch, -pte_internal);
			break;
		}
		{
			struct ptxed_ctx *parent =
			        ptxed_ctxs_find(&sb->contexts, r->u.task.ppid);
			struct ptxed_ctx *child = sb_new(sb, r->u.task.pid);

			if (child && parent &&
			    pt_image_copy(child->image, parent->image) < 0) {
				ptd_sb_error(&sb->session, ch, -pte_nomem);
				sb->failed = 1;
			}
		}
		break;

	case ptd_pevent_mmap:
	case ptd_pevent_mmap2:
		sb_mmap(sb, ch);
		break;

	case ptd_pevent_lost:
		ptd_sb_warning(&sb->session, ch, "sideband lost");
		break;

	case ptd_pevent_aux:
		if (ch->primary && (r->u.aux.flags & ptd_pevent_aux_truncated))
			ptd_sb_warning(&sb->session, ch, "trace lost");
		break;

	default:
		break;
	}
	/* A context an exec or fork replaced goes as soon as nothing uses
	 * it (not at the end of the event: a file's records may replace
	 * many). */
	if (sb->contexts.replaced)
		ptxed_ctxs_collect(&sb->contexts, sb->in_use, sb->switch_to);
}

/* ---- where the trace is ------------------------------------------------ */

static enum ptxed_sb_where sb_where_ip(const struct ptd_sb_channel *ch,
                                       uint64_t ip)
{
	return ip >= ch->config.kernel_start ? ptxed_where_kernel
	                                     : ptxed_where_user;
}

/* The other side of @where: tracing stopped at a ring change. */
static enum ptxed_sb_where sb_flip(enum ptxed_sb_where where)
{
	switch (where) {
	case ptxed_where_kernel:
	case ptxed_where_likely_kernel:
		return ptxed_where_likely_user;
	case ptxed_where_user:
	case ptxed_where_likely_user:
		return ptxed_where_likely_kernel;
	default:
		return ptxed_where_unknown;
	}
}

/* The IP of events whose IP tells where the trace is, or NULL. */
static const uint64_t *sb_event_ip(const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_overflow:
		return &ev->variant.overflow.ip;
	case ptev_exec_mode:
		return &ev->variant.exec_mode.ip;
	case ptev_tsx:
		return &ev->variant.tsx.ip;
	case ptev_exstop:
		return &ev->variant.exstop.ip;
	case ptev_mwait:
		return &ev->variant.mwait.ip;
	case ptev_ptwrite:
		return &ev->variant.ptwrite.ip;
	case ptev_tick:
		return &ev->variant.tick.ip;
	case ptev_iflags:
		return &ev->variant.iflags.ip;
	case ptev_interrupt:
		return &ev->variant.interrupt.ip;
	case ptev_iret:
		return &ev->variant.iret.ip;
	case ptev_smi:
		return &ev->variant.smi.ip;
	case ptev_rsm:
		return &ev->variant.rsm.ip;
	case ptev_init:
		return &ev->variant.init.ip;
	case ptev_vmentry:
		return &ev->variant.vmentry.ip;
	case ptev_vmexit:
		return &ev->variant.vmexit.ip;
	case ptev_shutdown:
		return &ev->variant.shutdown.ip;
	case ptev_uintr:
		return &ev->variant.uintr.ip;
	case ptev_uiret:
		return &ev->variant.uiret.ip;
	default:
		return NULL;
	}
}

/* Where @ch's trace is after @ev, having been at @old. */
static enum ptxed_sb_where sb_where(const struct ptd_sb_channel *ch,
                                    enum ptxed_sb_where old,
                                    const struct pt_event *ev)
{
	const uint64_t *ip;

	switch (ev->type) {
	case ptev_enabled:
		return sb_where_ip(ch, ev->variant.enabled.ip);
	case ptev_disabled:
		if (!ev->ip_suppressed)
			return sb_where_ip(ch, ev->variant.disabled.ip);
		return sb_flip(old);
	case ptev_async_disabled:
		if (!ev->ip_suppressed)
			return sb_where_ip(ch, ev->variant.async_disabled.ip);
		return sb_flip(sb_where_ip(ch, ev->variant.async_disabled.at));
	case ptev_async_branch:
		return sb_where_ip(ch, ev->variant.async_branch.to);
	case ptev_async_paging:
		if (!ev->ip_suppressed)
			return sb_where_ip(ch, ev->variant.async_paging.ip);
		return ptxed_where_likely_kernel;
	case ptev_paging:
		return ptxed_where_likely_kernel;
	case ptev_tip:
		return sb_where_ip(ch, ev->variant.tip.ip);
	default:
		ip = sb_event_ip(ev);
		if (ip && !ev->ip_suppressed)
			return sb_where_ip(ch, *ip);
		return ptxed_where_unknown;
	}
}

/* Whether a switch may happen at @where: the trace is in the kernel, or may
 * be. */
static int sb_may_switch(enum ptxed_sb_where where)
{
	return where == ptxed_where_kernel ||
	       where == ptxed_where_likely_kernel ||
	       where == ptxed_where_unknown;
}

/* After @ev: where @ch's trace is now, and the switch it waits for if the
 * trace is in the kernel before or after. */
static void sb_follow(struct ptxed_sb *sb, struct ptd_sb_channel *ch,
                      const struct pt_event *ev)
{
	struct ptxed_sb_chan *chan = ch->user;
	enum ptxed_sb_where old = chan->where;

	chan->where = sb_where(ch, old, ev);
	if (chan->pending && (sb_may_switch(old) || sb_may_switch(chan->where)))
		sb_switch(sb, chan);
}

void ptxed_sb_event(struct ptxed_sb *sb, struct ptxed_decoder *decoder,
                    const struct pt_event *event)
{
	struct ptd_sb_session *s;
	struct ptd_sb_channel **at;
	int err = 0;

	if (!sb || !sb->chans)
		return;
	s = &sb->session;
	ptd_sb_due(s, event->tsc, sb_apply, sb);

	/* A file dropped after a bad record lets go of its contexts. */
	while (s->dropped) {
		struct ptd_sb_channel *ch = s->dropped;

		s->dropped = ch->link;
		sb_release(ch->user);
	}
	for (struct ptd_sb_channel *ch = s->active; ch; ch = ch->link)
		sb_follow(sb, ch, event);
	/* A file at its end goes once it has no switch waiting. */
	for (at = &s->retired; *at;) {
		struct ptd_sb_channel *ch = *at;
		struct ptxed_sb_chan *chan = ch->user;

		if (!chan->pending) {
			*at = ch->link;
			sb_release(chan);
			continue;
		}
		sb_follow(sb, ch, event);
		at = &ch->link;
	}

	if (sb->switch_to) {
		err = ptxed_set_image(decoder, sb->switch_to);
		if (err < 0)
			fprintf(stderr, "%s: failed to set the image: %s.\n",
			        sb->prog, pt_errstr(pt_errcode(err)));
		else
			sb->in_use = sb->switch_to;
		sb->switch_to = NULL;
	}
	/* Replaced contexts that nothing uses any more. */
	if (sb->contexts.replaced)
		ptxed_ctxs_collect(&sb->contexts, sb->in_use, NULL);
}
