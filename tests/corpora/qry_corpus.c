/* SPDX-License-Identifier: BSD-3-Clause */
/* The query decoder on a real trace, end to end.
 *
 * Usage: qry_corpus [--mtc-freq N] [--eax N] [--ebx N] [--nom-freq N]
 *                   [--cpu f/m] [--max-errors N] <trace>
 *
 * Drives pt_qry_* over the whole trace the way a tool that follows the code
 * would, without the code: an event while one is pending, else a
 * conditional branch, else an indirect branch; after an error, sync forward
 * to the next PSB.  Prints the counts and every error with its offset.
 * Exit status: 0 if there were at most --max-errors errors (default 0), 1
 * otherwise, 77 if the trace is absent. */
#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct pt_config config;
	struct pt_query_decoder *dec;
	const char *path = NULL;
	unsigned long max_errors = 0;
	uint64_t errors = 0, branches = 0, indirect = 0, events = 0, syncs = 0,
	         timed = 0;
	uint8_t *buf;
	long size;
	FILE *f;
	int status = -pte_nosync;

	pt_config_init(&config);
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--mtc-freq") && v)
			config.mtc_freq = (uint8_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(a, "--eax") && v)
			config.cpuid_0x15_eax =
			        (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(a, "--ebx") && v)
			config.cpuid_0x15_ebx =
			        (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(a, "--nom-freq") && v)
			config.nom_freq = (uint8_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(a, "--cpu") && v) {
			if (ptd_cpu_parse(&config.cpu, argv[++i]) < 0 ||
			    pt_cpu_errata(&config.errata, &config.cpu) < 0)
				fprintf(stderr, "qry_corpus: unknown cpu\n");
		} else if (!strcmp(a, "--max-errors") && v)
			max_errors = strtoul(argv[++i], NULL, 0);
		else
			path = a;
	}
	if (!path) {
		fprintf(stderr, "usage: qry_corpus [options] <trace>\n");
		return 2;
	}
	f = fopen(path, "rb");
	if (!f) {
		printf("qry_corpus: skipped: %s is absent\n", path);
		return 77;
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(size > 0 ? (size_t)size : 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		return 1;
	}
	fclose(f);
	config.begin = buf;
	config.end = buf + size;
	dec = pt_qry_alloc_decoder(&config);
	if (!dec)
		return 1;

	for (;;) {
		uint64_t ip, offset = 0;

		if (status < 0) {
			if (status != -pte_nosync && status != -pte_eos) {
				(void)pt_qry_get_offset(dec, &offset);
				printf("error at 0x%" PRIx64 ": %s\n", offset,
				       pt_errstr(pt_errcode(status)));
				errors++;
			}
			status = pt_qry_sync_forward(dec, &ip);
			if (status == -pte_eos)
				break;
			if (status >= 0)
				syncs++;
			continue;
		}
		if (status & pts_event_pending) {
			struct pt_event ev;

			status = pt_qry_event(dec, &ev, sizeof(ev));
			if (status >= 0) {
				events++;
				timed += ev.has_tsc;
			}
		} else if (status & pts_eos) {
			status = -pte_eos;
		} else {
			int taken;

			status = pt_qry_cond_branch(dec, &taken);
			if (status == -pte_bad_query) {
				status = pt_qry_indirect_branch(dec, &ip);
				indirect += status >= 0;
			} else {
				branches += status >= 0;
			}
		}
	}
	printf("%s: %ld bytes, %" PRIu64 " syncs, %" PRIu64
	       " conditional branches, %" PRIu64 " indirect, %" PRIu64
	       " events (%" PRIu64 " with time), %" PRIu64 " errors\n",
	       path, size, syncs, branches, indirect, events, timed, errors);
	pt_qry_free_decoder(dec);
	free(buf);
	return errors <= max_errors ? 0 : 1;
}
