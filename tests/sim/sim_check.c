/* SPDX-License-Identifier: BSD-3-Clause */
/* Self-checks of the ptsim simulator (tools/ptsim): for every scenario and
 * a few seeds, generate the trace, check that the truth is consistent with
 * the packets and the model (check.h), write the three files, read them
 * back, and check that nothing changed on the way.
 *
 * usage: sim_check [--seeds <n>] [--dir <dir>] [<scenario>...]
 *        sim_check --files <prefix>...
 *
 * Exit status: 0 pass, 1 failure, 2 bad command line. */
#include "check.h"
#include "files.h"
#include "params.h"
#include "sim.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Violations printed per trace. */
#define SIM_CHECK_SHOW 10

/* The records of @a and @b agree (the packets as decoded). */
static int sim_check_same(const struct ptsim_trace *a,
                          const struct ptsim_trace *b)
{
	size_t i;

	if (a->nrecs != b->nrecs || a->size != b->size ||
	    memcmp(a->buf, b->buf, a->size) != 0) {
		fprintf(stderr, "%s: the files differ from the trace\n",
		        a->params.name);
		return -1;
	}
	for (i = 0; i < a->nrecs; ++i) {
		const struct ptsim_rec *x = &a->recs[i], *y = &b->recs[i];

		if (x->offset != y->offset || x->tsc != y->tsc ||
		    x->host != y->host || x->art != y->art ||
		    x->cycles != y->cycles || x->cbr != y->cbr ||
		    x->flags != y->flags || x->packet.type != y->packet.type) {
			fprintf(stderr,
			        "%s: truth line %zu (offset 0x%" PRIx64
			        ") differs after reading it back\n",
			        a->params.name, i, x->offset);
			return -1;
		}
	}
	return 0;
}

/* Generate, check, write, read back, check. */
static int sim_check_scenario(const char *name, uint64_t seed, const char *dir)
{
	struct ptsim_params p;
	struct ptsim_trace t, back;
	char msg[512], prefix[1024];
	unsigned bad;
	int rc = 0;

	if (ptsim_preset_load(&p, name, seed, msg, sizeof(msg)) < 0 ||
	    ptsim_generate(&t, &p, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "%s seed %" PRIu64 ": %s\n", name, seed, msg);
		return -1;
	}
	bad = ptsim_check_trace(&t, stderr, SIM_CHECK_SHOW);
	if (bad) {
		fprintf(stderr, "%s seed %" PRIu64 ": %u violations\n", name,
		        seed, bad);
		rc = -1;
	}
	snprintf(prefix, sizeof(prefix), "%s/%s-%" PRIu64, dir, name, seed);
	if (rc == 0 && ptsim_write_files(&t, prefix, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "%s\n", msg);
		rc = -1;
	}
	if (rc == 0) {
		if (ptsim_read_files(&back, prefix, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "%s\n", msg);
			rc = -1;
		} else {
			if (sim_check_same(&t, &back) < 0 ||
			    ptsim_check_trace(&back, stderr, SIM_CHECK_SHOW))
				rc = -1;
			ptsim_trace_fini(&back);
		}
	}
	if (rc == 0)
		printf("ok   %-13s seed %" PRIu64 ": %zu packets, %" PRIu64
		       " PSBs, %" PRIu64 " MTCs (%" PRIu64 " dropped), %" PRIu64
		       " CBR changes, %" PRIu64 " sleeps\n",
		       name, seed, t.nrecs, t.stats.psbs, t.stats.mtc_emitted,
		       t.stats.mtc_dropped, t.stats.freq_changes,
		       t.stats.sleeps);
	else
		printf("FAIL %-13s seed %" PRIu64 "\n", name, seed);
	ptsim_trace_fini(&t);
	return rc;
}

static int sim_check_files(const char *prefix)
{
	struct ptsim_trace t;
	char msg[512];
	unsigned bad;

	if (ptsim_read_files(&t, prefix, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "%s\n", msg);
		printf("FAIL %s\n", prefix);
		return -1;
	}
	bad = ptsim_check_trace(&t, stderr, SIM_CHECK_SHOW);
	printf("%s %s: %zu packets\n", bad ? "FAIL" : "ok  ", prefix, t.nrecs);
	ptsim_trace_fini(&t);
	return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *dir = ".";
	uint64_t seeds = 2, seed;
	int i, files = 0, named = 0, failed = 0;

	for (i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
			seeds = strtoull(argv[++i], NULL, 0);
		} else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
			dir = argv[++i];
		} else if (strcmp(argv[i], "--files") == 0) {
			files = 1;
		} else if (argv[i][0] == '-') {
			fprintf(stderr,
			        "usage: %s [--seeds <n>] [--dir <dir>] "
			        "[<scenario>...]\n"
			        "       %s --files <prefix>...\n",
			        argv[0], argv[0]);
			return 2;
		} else {
			named += 1;
		}
	}
	for (i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--seeds") == 0 ||
		    strcmp(argv[i], "--dir") == 0) {
			++i;
			continue;
		}
		if (argv[i][0] == '-')
			continue;
		if (files) {
			failed |= sim_check_files(argv[i]) < 0;
			continue;
		}
		for (seed = 1; seed <= seeds; ++seed)
			failed |= sim_check_scenario(argv[i], seed, dir) < 0;
	}
	if (!named && !files) {
		size_t k;

		for (k = 0; k < ptsim_preset_count(); ++k)
			for (seed = 1; seed <= seeds; ++seed)
				failed |=
				        sim_check_scenario(ptsim_preset_name(k),
				                           seed, dir) < 0;
	}
	return failed ? 1 : 0;
}
