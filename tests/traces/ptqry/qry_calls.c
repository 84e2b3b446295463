/* SPDX-License-Identifier: BSD-3-Clause */
/* ptqry: the query calls an expectation names - making each call on a
 * decoder and printing its result as an expectation line (docs/ptasm.md,
 * "Query expectations"). */
#include "qry_calls.h"

#include "qry_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most lines ptqry_run_auto() prints: the traces of tests are small. */
#define PTQRY_AUTO_MAX 100000

/* ---- the calls --------------------------------------------------------- */

/* Print " at <offset>" where the decoder is, if it knows. */
static void ptqry_print_at(const struct ptqry_backend *be)
{
	uint64_t offset;

	if (be->get_offset(be->decoder, &offset) >= 0)
		printf(" at %016" PRIx64, offset);
}

/* One of the sync calls; @kind is "sync", "sync-backward" or "sync-set".
 * Returns the call's result. */
static int ptqry_sync(const struct ptqry_backend *be, const char *kind,
                      uint64_t offset)
{
	uint64_t ip = 0, sync;
	int status;

	if (!strcmp(kind, "sync"))
		status = be->sync_forward(be->decoder, &ip);
	else if (!strcmp(kind, "sync-backward"))
		status = be->sync_backward(be->decoder, &ip);
	else
		status = be->sync_set(be->decoder, &ip, offset);
	printf("%s", kind);
	if (status < 0) {
		if (!strcmp(kind, "sync-set"))
			printf(" %016" PRIx64, offset);
		ptqry_print_error(stdout, status);
		if (status != -pte_eos && status != -pte_nosync)
			ptqry_print_at(be);
		return status;
	}
	if (be->get_sync_offset(be->decoder, &sync) >= 0)
		printf(" %016" PRIx64, sync);
	if (!(status & pts_ip_suppressed))
		printf(" ip %016" PRIx64, ip);
	ptqry_print_flags(stdout, status);
	return status;
}

static int ptqry_cond(const struct ptqry_backend *be)
{
	int taken = 0;
	int status = be->cond_branch(be->decoder, &taken);

	printf("cond");
	if (status < 0) {
		ptqry_print_error(stdout, status);
		ptqry_print_at(be);
		return status;
	}
	printf(" %s", taken ? "taken" : "not-taken");
	ptqry_print_flags(stdout, status);
	return status;
}

static int ptqry_indirect(const struct ptqry_backend *be)
{
	uint64_t ip = 0;
	int status = be->indirect_branch(be->decoder, &ip);

	printf("indirect");
	if (status < 0) {
		ptqry_print_error(stdout, status);
		ptqry_print_at(be);
		return status;
	}
	if (!(status & pts_ip_suppressed))
		printf(" ip %016" PRIx64, ip);
	ptqry_print_flags(stdout, status);
	return status;
}

static int ptqry_event(const struct ptqry_backend *be)
{
	struct pt_event ev;
	int status = be->event(be->decoder, &ev);

	printf("event");
	if (status < 0) {
		ptqry_print_error(stdout, status);
		ptqry_print_at(be);
		return status;
	}
	ptqry_print_event(stdout, &ev);
	ptqry_print_flags(stdout, status);
	return status;
}

static void ptqry_time(const struct ptqry_backend *be)
{
	uint64_t tsc = 0;
	uint32_t lost_mtc = 0, lost_cyc = 0;
	int status = be->time(be->decoder, &tsc, &lost_mtc, &lost_cyc);

	printf("time");
	if (status < 0) {
		ptqry_print_error(stdout, status);
		return;
	}
	printf(" tsc 0x%" PRIx64 " lost-mtc 0x%" PRIx32 " lost-cyc 0x%" PRIx32,
	       tsc, lost_mtc, lost_cyc);
}

static void ptqry_cbr(const struct ptqry_backend *be)
{
	uint32_t cbr = 0;
	int status = be->core_bus_ratio(be->decoder, &cbr);

	printf("cbr");
	if (status < 0)
		ptqry_print_error(stdout, status);
	else
		printf(" 0x%" PRIx32, cbr);
}

static void ptqry_offset(const struct ptqry_backend *be, int sync)
{
	uint64_t offset = 0;
	int status = sync ? be->get_sync_offset(be->decoder, &offset)
	                  : be->get_offset(be->decoder, &offset);

	printf("%s", sync ? "sync-offset" : "offset");
	if (status < 0)
		ptqry_print_error(stdout, status);
	else
		printf(" %016" PRIx64, offset);
}

/* ---- scripts ----------------------------------------------------------- */

/* Copy the next blank-separated word of *@s into @word (@size bytes) and
 * advance *@s past it.  Returns the word's length (0 at the end). */
static size_t ptqry_word_at(const char **s, char *word, size_t size)
{
	const char *p = *s;
	size_t n = 0;

	while (*p == ' ' || *p == '\t')
		++p;
	while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
		if (n + 1 < size)
			word[n] = *p;
		++n;
		++p;
	}
	word[n < size ? n : size - 1] = '\0';
	*s = p;
	return n;
}

int ptqry_run_script(const struct ptqry_backend *be, const char *name,
                     char *text)
{
	unsigned lineno = 0;
	char *line = text;

	while (line && *line) {
		char *eol = strchr(line, '\n');
		const char *s = line;
		char cmd[32], arg[64];

		if (eol)
			*eol = '\0';
		lineno += 1;
		while (*s == ' ' || *s == '\t')
			++s;
		if (*s == ';') {
			/* Comments are printed as they are. */
			printf("%s\n", line);
		} else if (ptqry_word_at(&s, cmd, sizeof(cmd))) {
			if (!strcmp(cmd, "sync") ||
			    !strcmp(cmd, "sync-backward")) {
				(void)ptqry_sync(be, cmd, 0);
			} else if (!strcmp(cmd, "sync-set")) {
				char *end;
				uint64_t offset;

				(void)ptqry_word_at(&s, arg, sizeof(arg));
				offset = strtoull(arg, &end, 16);
				if (!arg[0] || *end) {
					fprintf(stderr,
					        "%s:%u: sync-set needs an "
					        "offset in hex.\n",
					        name, lineno);
					return -1;
				}
				(void)ptqry_sync(be, cmd, offset);
			} else if (!strcmp(cmd, "cond")) {
				(void)ptqry_cond(be);
			} else if (!strcmp(cmd, "indirect")) {
				(void)ptqry_indirect(be);
			} else if (!strcmp(cmd, "event")) {
				(void)ptqry_event(be);
			} else if (!strcmp(cmd, "time")) {
				ptqry_time(be);
			} else if (!strcmp(cmd, "cbr")) {
				ptqry_cbr(be);
			} else if (!strcmp(cmd, "offset")) {
				ptqry_offset(be, 0);
			} else if (!strcmp(cmd, "sync-offset")) {
				ptqry_offset(be, 1);
			} else {
				fprintf(stderr,
				        "%s:%u: unknown call '%s' (sync, "
				        "sync-backward, sync-set, cond, "
				        "indirect, event, time, cbr, offset, "
				        "sync-offset).\n",
				        name, lineno, cmd);
				return -1;
			}
			printf("\n");
		}
		line = eol ? eol + 1 : NULL;
	}
	return 0;
}

void ptqry_run_auto(const struct ptqry_backend *be)
{
	int status = -pte_nosync;

	for (unsigned n = 0; n < PTQRY_AUTO_MAX; ++n) {
		if (status < 0) {
			status = ptqry_sync(be, "sync", 0);
			printf("\n");
			if (status == -pte_eos)
				return;
			continue;
		}
		if (status & pts_event_pending) {
			status = ptqry_event(be);
		} else if (status & pts_eos) {
			status = -pte_eos;
			continue;
		} else {
			int taken = 0;

			/* A failed cond query changes nothing: ask the
			 * indirect branch instead and print only that. */
			status = be->cond_branch(be->decoder, &taken);
			if (status == -pte_bad_query) {
				status = ptqry_indirect(be);
			} else {
				printf("cond");
				if (status < 0) {
					ptqry_print_error(stdout, status);
					ptqry_print_at(be);
				} else {
					printf(" %s",
					       taken ? "taken" : "not-taken");
					ptqry_print_flags(stdout, status);
				}
			}
		}
		printf("\n");
	}
}
