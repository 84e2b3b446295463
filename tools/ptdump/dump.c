/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: the decode loop. */
#include "dump.h"

#include "diag.h"
#include "format.h"
#include "last_ip.h"
#include "line.h"
#include "timing.h"

#include <inttypes.h>
#include <string.h>

/* Where packets come from: the packet decoder, or, when time is tracked
 * (--time, --tcal), the time decoder, which adds the time to each. */
struct ptdump_source {
	struct pt_packet_decoder *packet;
	struct ptd_time_decoder *time;
};

/* State carried from packet to packet; reset on resynchronization. */
struct ptdump_tracking {
	/* For --lastip. */
	struct ptdump_last_ip last_ip;
	/* For --time-delta. */
	struct ptdump_timing timing;
};

/* Everything the loop works with. */
struct ptdump_context {
	const struct pt_config *config;
	const struct ptdump_options *options;
	FILE *out;
	struct ptdump_tracking tracking;
	struct ptdump_stats *stats;
	/* The sideband records to print among the packets (NULL: none). */
	struct ptd_sb_session *sb;
};

static void ptdump_tracking_reset(struct ptdump_tracking *tracking)
{
	ptdump_last_ip_init(&tracking->last_ip);
	ptdump_timing_reset(&tracking->timing);
}

/* Fill the tracking column of an IP packet with the last IP. */
static void ptdump_track_last_ip(struct ptdump_line *line,
                                 struct ptdump_last_ip *last_ip,
                                 const struct pt_packet_ip *packet,
                                 uint64_t offset, FILE *out)
{
	uint64_t ip;
	int err;

	(void)ptdump_set(line->track_id, "ip");

	err = ptdump_last_ip_update(last_ip, packet);
	if (err < 0) {
		(void)ptdump_set(line->track, "<unavailable>");
		ptdump_diag(out, offset, "error tracking last-ip", err);
		return;
	}

	err = ptdump_last_ip_query(last_ip, &ip);
	if (err == -pte_ip_suppressed)
		(void)ptdump_set(line->track, "<suppressed>");
	else if (err < 0) {
		(void)ptdump_set(line->track, "<unavailable>");
		ptdump_diag(out, offset, "error tracking last-ip", err);
	} else
		(void)ptdump_set(line->track, "%016" PRIx64, ip);
}

/* Whether the options hide packets of this type. */
static int ptdump_hidden(const struct pt_packet *packet,
                         const struct ptdump_options *options)
{
	switch (packet->type) {
	case ppt_pad:
		return options->no_pad;
	case ppt_tsc:
	case ppt_tma:
	case ppt_mtc:
	case ppt_cbr:
		return options->no_timing;
	case ppt_cyc:
		return options->no_timing || options->no_cyc;
	default:
		return 0;
	}
}

/* Whether @packet moves the time that sideband records are printed by:
 * the timing packets that ptdump tracks. */
static int ptdump_sb_timing(const struct pt_packet *packet,
                            const struct ptdump_options *options)
{
	switch (packet->type) {
	case ppt_tsc:
	case ppt_tma:
	case ppt_mtc:
	case ppt_cbr:
		return 1;
	case ppt_cyc:
		return !options->no_cyc;
	default:
		return 0;
	}
}

/* Track and print the packet @tpacket, decoded from the @consumed bytes at
 * @offset; its time is valid when time is tracked. */
static int ptdump_packet(struct ptdump_context *ctx, uint64_t offset,
                         uint64_t consumed,
                         const struct ptd_time_packet *tpacket)
{
	const struct pt_packet *packet = &tpacket->packet;
	const struct ptdump_options *options = ctx->options;
	struct ptdump_tracking *tracking = &ctx->tracking;
	struct ptdump_line line;
	int err;

	ptdump_line_init(&line);
	ptdump_line_hex16(line.offset, offset);

	if (options->show_raw_bytes) {
		const uint8_t *begin = ctx->config->begin + offset;

		if (consumed > (uint64_t)(ctx->config->end - begin))
			return ptdump_diag(ctx->out, offset, "bad packet size",
			                   -pte_bad_packet);
		if (ptdump_line_set_raw(&line, begin, (size_t)consumed) < 0)
			ptdump_diag(ctx->out, offset, "truncating raw packet",
			            0);
	}

	err = ptdump_format_packet(&line, packet, options, offset, ctx->out);
	if (err < 0)
		return err;

	switch (packet->type) {
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		if (options->show_last_ip)
			ptdump_track_last_ip(&line, &tracking->last_ip,
			                     &packet->payload.ip, offset,
			                     ctx->out);
		break;
	default:
		break;
	}

	if (options->show_time || options->show_tcal)
		ptdump_timing_track(&line, &tracking->timing, tpacket, options,
		                    offset, ctx->out);

	/* The sideband records that the packet's time reaches come before
	 * it (after its time's diagnostics, as in libipt). */
	if (ctx->sb && ptdump_sb_timing(packet, options))
		ptd_sb_due(ctx->sb, tpacket->tsc, NULL, NULL);

	line.skip = ptdump_hidden(packet, options) || options->quiet;
	ptdump_line_print(ctx->out, &line, options->show_offset);
	return 0;
}

static int ptdump_get_offset(const struct ptdump_source *src, uint64_t *offset)
{
	if (src->time)
		return ptd_time_get_offset(src->time, offset);
	return pt_pkt_get_offset(src->packet, offset);
}

static int ptdump_get_sync_offset(const struct ptdump_source *src,
                                  uint64_t *offset)
{
	if (src->time)
		return ptd_time_get_sync_offset(src->time, offset);
	return pt_pkt_get_sync_offset(src->packet, offset);
}

static int ptdump_sync_forward(struct ptdump_source *src)
{
	if (src->time)
		return ptd_time_sync_forward(src->time);
	return pt_pkt_sync_forward(src->packet);
}

static int ptdump_sync_set(struct ptdump_source *src, uint64_t offset)
{
	if (src->time)
		return ptd_time_sync_set(src->time, offset);
	return pt_pkt_sync_set(src->packet, offset);
}

static int ptdump_next(struct ptdump_source *src,
                       struct ptd_time_packet *packet)
{
	if (src->time)
		return ptd_time_next(src->time, packet, sizeof(*packet));
	return pt_pkt_next(src->packet, &packet->packet,
	                   sizeof(packet->packet));
}

/* Dump packets until the end of the trace (returns 0) or an error (returns
 * it, after reporting it). */
static int ptdump_packets(struct ptdump_context *ctx, struct ptdump_source *src)
{
	for (;;) {
		struct ptd_time_packet packet;
		uint64_t offset = 0, next = 0;
		int size, err;

		err = ptdump_get_offset(src, &offset);
		if (err < 0)
			return ptdump_diag(ctx->out, offset,
			                   "error getting offset", err);

		memset(&packet, 0, sizeof(packet));
		size = ptdump_next(src, &packet);
		if (size < 0) {
			if (size == -pte_eos)
				return 0;
			ctx->stats->errors++;
			return ptdump_diag(ctx->out, offset,
			                   "error decoding packet", size);
		}
		ctx->stats->packets++;

		/* The decoder normally consumes exactly the packet.  With the
		 * SKD007 work-around it also consumes the broken CYC byte
		 * before the OVF it reports; the OVF is then listed at the
		 * CYC's offset, as libipt's ptdump does, and --raw shows all
		 * the bytes consumed. */
		err = ptdump_get_offset(src, &next);
		if (err < 0)
			return ptdump_diag(ctx->out, offset,
			                   "error getting offset", err);

		err = ptdump_packet(ctx, offset, next - offset, &packet);
		if (err < 0) {
			ctx->stats->errors++;
			return err;
		}
	}
}

/* Allocate the packet source the options call for. */
static int ptdump_source_alloc(struct ptdump_source *src,
                               const struct pt_config *config,
                               const struct ptdump_options *options,
                               const struct ptd_sb_session *sb)
{
	memset(src, 0, sizeof(*src));
	if (options->show_time || options->show_tcal || sb) {
		struct ptd_time_config tconfig;

		ptdump_timing_config(&tconfig, options);
		src->time = ptd_time_alloc_decoder(config, &tconfig);
		return src->time ? 0 : -pte_nomem;
	}
	src->packet = pt_pkt_alloc_decoder(config);
	return src->packet ? 0 : -pte_nomem;
}

/* Free @src, keeping the time engine's diagnostics for the summary when
 * the time was shown or @sideband records were placed by it (where the
 * configuration lacks what the trace's timing packets need, the records
 * gather where the time stands still: the summary says why). */
static void ptdump_source_free(struct ptdump_source *src,
                               const struct ptdump_options *options,
                               struct ptdump_stats *stats, int sideband)
{
	if (src->time &&
	    (options->show_time || options->show_tcal || sideband)) {
		struct ptd_time_status status;

		if (ptd_time_get_status(src->time, &status, sizeof(status)) ==
		    0)
			stats->time_diag = status.diag;
	}
	ptd_time_free_decoder(src->time);
	pt_pkt_free_decoder(src->packet);
}

int ptdump_dump(const struct pt_config *config,
                const struct ptdump_options *options, FILE *out,
                struct ptdump_stats *stats, struct ptd_sb_session *sb)
{
	struct ptdump_source src;
	struct ptdump_context ctx;
	uint64_t sync = 0;
	int err;

	ctx.config = config;
	ctx.options = options;
	ctx.out = out;
	ctx.stats = stats;
	ctx.sb = sb;
	stats->packets = 0;
	stats->errors = 0;
	stats->time_diag = 0;
	ptdump_tracking_reset(&ctx.tracking);

	if (ptdump_source_alloc(&src, config, options, sb) < 0)
		return ptdump_diag(out, 0, "failed to allocate decoder",
		                   -pte_nomem);

	if (options->no_sync) {
		err = ptdump_sync_set(&src, 0);
		if (err < 0) {
			ptdump_diag(out, 0, "sync error", err);
			goto out;
		}
	} else {
		err = ptdump_sync_forward(&src);
		if (err < 0) {
			/* No PSB at all: there is nothing to dump. */
			if (err == -pte_eos)
				err = 0;
			else
				ptdump_diag(out, 0, "sync error", err);
			goto out;
		}
	}

	err = ptdump_get_sync_offset(&src, &sync);
	if (err < 0) {
		ptdump_diag(out, 0, "sync error", err);
		goto out;
	}

	for (;;) {
		uint64_t resync = sync;

		err = ptdump_packets(&ctx, &src);
		if (!err)
			break;

		err = ptdump_sync_forward(&src);
		if (err == -pte_eos) {
			err = 0;
			break;
		}
		if (err >= 0)
			err = ptdump_get_sync_offset(&src, &resync);
		/* Each resynchronization must move forward; anything else
		 * would dump the same packets again and again. */
		if (err >= 0 && resync <= sync)
			err = -pte_internal;
		if (err < 0) {
			ptdump_diag(out, resync, "sync error", err);
			break;
		}
		sync = resync;
		ptdump_tracking_reset(&ctx.tracking);
	}

out:
	/* At the end of the trace, the records that no time reached. */
	if (sb && !err)
		ptd_sb_due(sb, UINT64_MAX, NULL, NULL);
	ptdump_source_free(&src, options, stats, sb && sb->num_channels);
	return err;
}
