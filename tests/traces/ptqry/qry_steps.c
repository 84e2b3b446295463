/* SPDX-License-Identifier: BSD-3-Clause */
/* ptqry: the standard query loop through the pull API and through
 * ptd_qry_next_batch(), printed alike. */
#include "qry_steps.h"

#include "qry_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The most results printed: the traces of tests are small. */
#define PTQRY_STEPS_MAX 100000

/* The time and the core:bus ratio @cbr (0: none) after a step. */
static void ptqry_step_time(int has_tsc, uint64_t tsc, uint32_t lost_mtc,
                            uint32_t lost_cyc, uint32_t cbr)
{
	printf("time tsc 0x%" PRIx64 " lost-mtc 0x%" PRIx32
	       " lost-cyc 0x%" PRIx32 "%s cbr 0x%" PRIx32 "\n",
	       tsc, lost_mtc, lost_cyc, has_tsc ? "" : " no-tsc", cbr);
}

static void ptqry_step_ip(const char *kind, int suppressed, uint64_t ip)
{
	if (suppressed)
		printf("%s suppressed\n", kind);
	else
		printf("%s ip %016" PRIx64 "\n", kind, ip);
}

/* A failed call (@call: cond, indirect, event or sync). */
static void ptqry_step_error(const char *call, int code, uint64_t offset)
{
	printf("%s", call);
	ptqry_print_error(stdout, code);
	printf(" at %016" PRIx64 "\n", offset);
}

static void ptqry_step_event(const struct pt_event *ev)
{
	printf("event");
	ptqry_print_event(stdout, ev);
	printf("\n");
}

/* ---- the pull API ------------------------------------------------------ */

/* The time after a step. */
static void ptqry_pull_time(const struct ptqry_backend *be)
{
	uint64_t tsc = 0;
	uint32_t lost_mtc = 0, lost_cyc = 0, cbr = 0;
	int status = be->time(be->decoder, &tsc, &lost_mtc, &lost_cyc);

	if (be->core_bus_ratio(be->decoder, &cbr) < 0)
		cbr = 0;
	ptqry_step_time(status >= 0, tsc, lost_mtc, lost_cyc, cbr);
}

/* A failed call @call: an error line (a query's -pte_eos included). */
static void ptqry_pull_error(const struct ptqry_backend *be, int status,
                             const char *call)
{
	uint64_t offset = 0;

	(void)be->get_offset(be->decoder, &offset);
	ptqry_step_error(call, status, offset);
	ptqry_pull_time(be);
}

/* Sync forward and print the result (no line for -pte_eos, the end, and
 * -pte_nosync, as ptd_qry_next_batch() makes no item for them); returns
 * it. */
static int ptqry_pull_sync(const struct ptqry_backend *be)
{
	uint64_t ip = 0;
	int status = be->sync_forward(be->decoder, &ip);

	if (status < 0) {
		if (status != -pte_eos && status != -pte_nosync)
			ptqry_pull_error(be, status, "sync");
		return status;
	}
	ptqry_step_ip("sync", status & pts_ip_suppressed, ip);
	ptqry_pull_time(be);
	return status;
}

void ptqry_steps_pull(const struct ptqry_backend *be)
{
	int status = -pte_nosync;

	for (unsigned n = 0; n < PTQRY_STEPS_MAX; ++n) {
		if (status < 0) {
			status = ptqry_pull_sync(be);
			if (status == -pte_eos)
				return;
		} else if (status & pts_event_pending) {
			struct pt_event ev;

			status = be->event(be->decoder, &ev);
			if (status < 0) {
				ptqry_pull_error(be, status, "event");
			} else {
				ptqry_step_event(&ev);
				ptqry_pull_time(be);
			}
		} else if (status & pts_eos) {
			/* Nothing follows: sync forward to the next PSB. */
			status = -pte_nosync;
		} else {
			uint64_t ip = 0;
			int taken = 0;

			status = be->cond_branch(be->decoder, &taken);
			if (status >= 0) {
				printf("cond %s\n",
				       taken ? "taken" : "not-taken");
				ptqry_pull_time(be);
				continue;
			}
			if (status == -pte_bad_query) {
				status = be->indirect_branch(be->decoder, &ip);
				if (status >= 0) {
					ptqry_step_ip(
					        "indirect",
					        status & pts_ip_suppressed, ip);
					ptqry_pull_time(be);
					continue;
				}
				ptqry_pull_error(be, status, "indirect");
				continue;
			}
			ptqry_pull_error(be, status, "cond");
		}
	}
}

/* ---- ptd_qry_next_batch() ---------------------------------------------- */

int ptqry_steps_batch(struct pt_query_decoder *decoder)
{
	struct ptd_qry_item items[64];
	struct pt_event events[8];

	for (unsigned n = 0; n < PTQRY_STEPS_MAX;) {
		int count = ptd_qry_next_batch(decoder, items, 64, events, 8);

		if (count == -pte_eos)
			return 0;
		if (count <= 0) {
			fprintf(stderr,
			        "ptqry: ptd_qry_next_batch() returned "
			        "%d.\n",
			        count);
			return -1;
		}
		for (int i = 0; i < count; ++i, ++n) {
			const struct ptd_qry_item *it = &items[i];
			int suppressed = it->flags & ptd_qry_item_ip_suppressed;
			int has_tsc = (it->flags & ptd_qry_item_has_tsc) != 0;
			unsigned k;

			switch (it->kind) {
			case ptd_qry_item_tnt:
				for (k = it->count; k > 0; --k) {
					printf("cond %s\n",
					       (it->value >> (k - 1)) & 1
					               ? "taken"
					               : "not-taken");
					ptqry_step_time(has_tsc, it->tsc,
					                it->lost_mtc,
					                it->lost_cyc, it->cbr);
				}
				continue;
			case ptd_qry_item_tip:
				ptqry_step_ip("indirect", suppressed,
				              it->value);
				break;
			case ptd_qry_item_sync:
				ptqry_step_ip("sync", suppressed, it->value);
				break;
			case ptd_qry_item_event:
				if (it->value >= 8) {
					fprintf(stderr,
					        "ptqry: event index "
					        "%" PRIu64 " out of "
					        "range.\n",
					        it->value);
					return -1;
				}
				ptqry_step_event(&events[it->value]);
				break;
			case ptd_qry_item_error:
				/* The flags say which call failed. */
				ptqry_step_error(
				        (it->flags & ptd_qry_item_resync)
				                ? "sync"
				        : (it->flags &
				           ptd_qry_item_event_pending)
				                ? "event"
				        : (it->flags & ptd_qry_item_indirect)
				                ? "indirect"
				                : "cond",
				        it->error, it->value);
				break;
			default:
				fprintf(stderr,
				        "ptqry: unknown item kind %u.\n",
				        it->kind);
				return -1;
			}
			ptqry_step_time(has_tsc, it->tsc, it->lost_mtc,
			                it->lost_cyc, it->cbr);
		}
	}
	return 0;
}

/* ---- the event decoder ------------------------------------------------- */

/* A synchronization of the event decoder @dec: "sync <offset>" or "sync" and
 * its error.  Returns its result. */
static int ptqry_events_sync(struct pt_event_decoder *dec)
{
	uint64_t offset = 0;
	int status = pt_evt_sync_forward(dec);

	printf("sync");
	if (status < 0) {
		ptqry_print_error(stdout, status);
		printf("\n");
		return status;
	}
	(void)pt_evt_get_sync_offset(dec, &offset);
	printf(" %016" PRIx64 "\n", offset);
	return status;
}

int ptqry_steps_events(const struct ptqry_decoder_options *options)
{
	struct ptd_time_config tconfig;
	struct pt_event_decoder *dec;
	int status;

	ptd_time_config_init(&tconfig);
	if (options->time_libipt)
		tconfig.mode = ptd_time_mode_libipt;
	dec = ptd_evt_alloc_decoder(&options->config, &tconfig);
	if (!dec)
		return -1;
	status = ptqry_events_sync(dec);
	for (unsigned n = 0; n < PTQRY_STEPS_MAX && status != -pte_eos; ++n) {
		struct pt_event ev;
		uint64_t offset = 0;

		if (status < 0) {
			status = ptqry_events_sync(dec);
			continue;
		}
		status = pt_evt_next(dec, &ev, sizeof(ev));
		if (status >= 0) {
			ptqry_step_event(&ev);
			continue;
		}
		(void)pt_evt_get_offset(dec, &offset);
		ptqry_step_error("next", status, offset);
		/* After the end or an error: the next PSB. */
		status = -pte_nosync;
	}
	pt_evt_free_decoder(dec);
	return 0;
}
