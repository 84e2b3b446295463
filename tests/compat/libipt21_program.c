/* SPDX-License-Identifier: BSD-3-Clause */
/* A program written for libipt 2.1's event decoder (pt_evt_*), used
 * unchanged to check source compatibility with ptdecode (libipt 2.0.5 has
 * no event decoder, so it is built against ptdecode only).  It prints every
 * event of the trace, and answers the query decoder's questions from the
 * events as libipt 2.1's own query decoder does (ptev_tnt and ptev_tip
 * answer the branch queries, every other event pt_qry_event()): both
 * decoders must tell the same story.  Exit status 0 if they do. */
#include <intel-pt.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if (LIBIPT_VERSION < 0x201)
#error "this program needs libipt 2.1's event decoder"
#endif

static int read_file(const char *name, uint8_t **buf, size_t *size)
{
	FILE *file = fopen(name, "rb");
	long n;

	if (!file || fseek(file, 0, SEEK_END) != 0 || (n = ftell(file)) <= 0)
		return -1;
	rewind(file);
	*buf = malloc((size_t)n);
	if (!*buf || fread(*buf, 1, (size_t)n, file) != (size_t)n)
		return -1;
	fclose(file);
	*size = (size_t)n;
	return 0;
}

/* The next event that is not a PSB+'s tracing status (which the query
 * decoder tells with its synchronization instead); 0 or an error. */
static int next_answer(struct pt_event_decoder *evt, struct pt_event *ev)
{
	int status;

	do {
		status = pt_evt_next(evt, ev, sizeof(*ev));
	} while (status >= 0 && ev->status_update &&
	         (ev->type == ptev_enabled || ev->type == ptev_disabled));
	return status;
}

int main(int argc, char **argv)
{
	struct pt_event_decoder *evt;
	struct pt_query_decoder *qry;
	struct pt_config config;
	struct pt_event ev, qev;
	unsigned long events = 0, tnt = 0, tip = 0, left = 0;
	uint8_t *buf;
	size_t size;
	int status, qstatus;

	if (argc != 2) {
		fprintf(stderr, "usage: %s <trace>\n", argv[0]);
		return 2;
	}
	if (read_file(argv[1], &buf, &size) < 0)
		return 1;
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	evt = pt_evt_alloc_decoder(&config);
	qry = pt_qry_alloc_decoder(&config);
	if (!evt || !qry)
		return 1;

	/* One PSB segment after the other, in step. */
	for (;;) {
		uint64_t ip = 0, offset = 0;

		status = pt_evt_sync_forward(evt);
		qstatus = pt_qry_sync_forward(qry, &ip);
		if (status < 0 || qstatus < 0)
			break;
		(void)pt_evt_get_sync_offset(evt, &offset);
		printf("sync %" PRIx64 "\n", offset);
		for (;;) {
			uint64_t qip = 0;
			int taken = 0;

			status = left ? 0 : next_answer(evt, &ev);
			if (status < 0) {
				printf("%s\n", pt_errstr(pt_errcode(status)));
				break;
			}
			if (!left) {
				events++;
				printf("event %d", (int)ev.type);
				if (ev.type == ptev_tnt)
					printf(" %" PRIx64 "/%u",
					       ev.variant.tnt.bits,
					       (unsigned)ev.variant.tnt.size);
				if (ev.type == ptev_tip && !ev.ip_suppressed)
					printf(" %" PRIx64, ev.variant.tip.ip);
				if (ev.has_tsc)
					printf(" tsc %" PRIx64, ev.tsc);
				printf("\n");
			}
			if (ev.type == ptev_tnt) {
				if (!left) {
					tnt++;
					left = ev.variant.tnt.size;
				}
				left--;
				qstatus = pt_qry_cond_branch(qry, &taken);
				if (qstatus < 0 ||
				    (uint64_t)taken !=
				            ((ev.variant.tnt.bits >> left) & 1))
					goto differ;
			} else if (ev.type == ptev_tip) {
				tip++;
				qstatus = pt_qry_indirect_branch(qry, &qip);
				if (qstatus < 0 ||
				    !(qstatus & pts_ip_suppressed) !=
				            !ev.ip_suppressed ||
				    (!ev.ip_suppressed &&
				     qip != ev.variant.tip.ip))
					goto differ;
			} else {
				qstatus = pt_qry_event(qry, &qev, sizeof(qev));
				if (qstatus < 0 ||
				    memcmp(&qev, &ev, sizeof(ev)))
					goto differ;
			}
		}
	}
	printf("%lu events, %lu TNT packets, %lu TIPs: the query decoder "
	       "agrees\n",
	       events, tnt, tip);
	pt_evt_free_decoder(evt);
	pt_qry_free_decoder(qry);
	free(buf);
	return 0;

differ:
	printf("the query decoder differs at event %lu (status %d)\n", events,
	       qstatus);
	return 1;
}
