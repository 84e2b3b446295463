/* SPDX-License-Identifier: BSD-3-Clause */
/* ptsim-accuracy: compare time estimates with ptsim's truth.
 *
 * For every scenario (and seed), the trace is simulated in memory (or read
 * from ptsim's files with --files) and decoded by
 *
 *   libipt   libipt 2.0.5's query decoder (dlopen()ed, see ipt_query.h):
 *            pt_qry_time() after every query;
 *   ptdecode ptdecode's time decoder (ptd_time.h) in accurate mode: the
 *            estimated TSC of every packet.
 *
 * Both are compared with the true TSC at the query points: the
 * CYC-eligible packets outside PSB+ where a query decoder stops (TNT, TIP,
 * TIP.PGE, TIP.PGD).  The report is a Markdown table of the mean and
 * maximum absolute error in TSC ticks and the number of backward steps;
 * docs/accuracy.md has the measured table.
 *
 * Exit status: 0, 1 when a --check fails, 2 for a bad command line, 77
 * when libipt.so.2 cannot be loaded (unless --no-libipt). */
#include "check.h"
#include "est_ptd.h"
#include "estimate.h"
#include "files.h"
#include "ipt_query.h"
#include "metrics.h"
#include "params.h"
#include "ptdecode/ptdecode.h"
#include "sim.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	ACC_EXIT_OK = 0,
	ACC_EXIT_FAIL = 1,
	ACC_EXIT_USAGE = 2,
	ACC_EXIT_SKIP = 77
};

/* Most scenarios or files on one command line. */
#define ACC_MAX_INPUTS 64

struct acc_options {
	const char *inputs[ACC_MAX_INPUTS];
	size_t ninputs;
	int files;
	uint64_t seeds;
	int check_truth;
	int check_target;
	int no_libipt;
	int libipt_mode;
	const char *dump; /* write every point's estimates here */
	int dump_all;     /* ... and every other packet's */
};

/* One line of the table. */
struct acc_row {
	char name[PTSIM_NAME_MAX + 8];
	unsigned truth_violations;
	uint64_t points;               /* query points in the traces */
	struct ptsim_accuracy ipt;     /* libipt at the query points */
	struct ptsim_accuracy ptd;     /* ptdecode at the query points */
	struct ptsim_accuracy ptd_all; /* ptdecode at every packet */
	uint64_t ptd_libipt_same;      /* ptdecode's libipt mode == libipt */
	uint64_t ptd_libipt_compared;
	char ipt_error[320];
	char ptd_error[320];
};

struct acc_ctx {
	struct acc_options opt;
	struct ptd_libipt ipt;
	int have_ipt;
	FILE *dump;
};

/* One line per query point: scenario, seed, offset, type, truth, and the
 * estimates (or -). */
static void acc_dump(struct acc_ctx *ctx, const struct ptsim_trace *t,
                     const struct ptsim_estimates *ipt,
                     const struct ptsim_estimates *ptd)
{
	size_t i;

	for (i = 0; i < t->nrecs; ++i) {
		const struct ptsim_rec *r = &t->recs[i];
		char a[32] = "-", b[32] = "-";

		if (!ctx->opt.dump_all && !ptsim_is_query_point(r))
			continue;
		if (ipt && ipt->tsc && ipt->have[i])
			snprintf(a, sizeof(a), "0x%" PRIx64, ipt->tsc[i]);
		if (ptd && ptd->tsc && ptd->have[i])
			snprintf(b, sizeof(b), "0x%" PRIx64, ptd->tsc[i]);
		fprintf(ctx->dump,
		        "%s %" PRIu64 " 0x%" PRIx64 " %s 0x%" PRIx64 " %s %s\n",
		        t->params.name, t->params.seed, r->offset,
		        ptd_packet_type_name(r->packet.type), r->tsc, a, b);
	}
}

static void acc_usage(FILE *out, const char *prog)
{
	fprintf(out,
	        "usage: %s [<options>] [<scenario>...]\n"
	        "       %s [<options>] --files <prefix>...\n"
	        "\n"
	        "Compare the time estimates of libipt 2.0.5's query decoder "
	        "and\n"
	        "of ptdecode's time decoder with ptsim's true TSC, for every\n"
	        "scenario (default: all) or for traces written by ptsim.\n"
	        "\n"
	        "options:\n"
	        "  -h, --help        print this text and exit.\n"
	        "  --seeds <n>       simulate seeds 1..n of each scenario and\n"
	        "                    report them together (default 1).\n"
	        "  --files           the arguments are ptsim file prefixes\n"
	        "                    (<prefix>.pt, .truth, .cfg).\n"
	        "  --check-truth     fail unless every trace passes ptsim's\n"
	        "                    self-checks and libipt decodes it to "
	        "the\n"
	        "                    end.\n"
	        "  --check-target    fail unless ptdecode never steps back, "
	        "its\n"
	        "                    maximum error is at most libipt's, and\n"
	        "                    below it where libipt steps back.\n"
	        "  --libipt-mode     also run ptdecode's libipt mode and "
	        "count\n"
	        "                    the points where it equals libipt.\n"
	        "  --no-libipt       do not load libipt.\n"
	        "  --dump <file>     write the truth and both estimates at "
	        "every\n"
	        "                    query point to <file> (one line each).\n"
	        "  --dump-all        dump every packet, not only the query\n"
	        "                    points.\n"
	        "\n"
	        "The environment variable PTD_LIBIPT names another libipt "
	        "to\n"
	        "load.  Exit status: 0, 1 if a check fails, 2 for a bad "
	        "command\n"
	        "line, 77 if libipt cannot be loaded.\n",
	        prog, prog);
}

static int acc_parse_args(int argc, char **argv, struct acc_options *o)
{
	const char *prog = argv[0] ? argv[0] : "ptsim-accuracy";
	int i;

	memset(o, 0, sizeof(*o));
	o->seeds = 1;
	for (i = 1; i < argc; ++i) {
		const char *arg = argv[i];

		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			acc_usage(stdout, prog);
			return 1;
		} else if (strcmp(arg, "--seeds") == 0 && i + 1 < argc) {
			char *end;

			o->seeds = strtoull(argv[++i], &end, 0);
			if (*end || o->seeds == 0 || o->seeds > 1000) {
				fprintf(stderr, "%s: bad --seeds\n", prog);
				return -1;
			}
		} else if (strcmp(arg, "--files") == 0) {
			o->files = 1;
		} else if (strcmp(arg, "--check-truth") == 0) {
			o->check_truth = 1;
		} else if (strcmp(arg, "--check-target") == 0) {
			o->check_target = 1;
		} else if (strcmp(arg, "--libipt-mode") == 0) {
			o->libipt_mode = 1;
		} else if (strcmp(arg, "--dump") == 0 && i + 1 < argc) {
			o->dump = argv[++i];
		} else if (strcmp(arg, "--dump-all") == 0) {
			o->dump_all = 1;
		} else if (strcmp(arg, "--no-libipt") == 0) {
			o->no_libipt = 1;
		} else if (arg[0] == '-') {
			fprintf(stderr, "%s: unknown option '%s'\n", prog, arg);
			return -1;
		} else if (o->ninputs == ACC_MAX_INPUTS) {
			fprintf(stderr, "%s: too many arguments\n", prog);
			return -1;
		} else {
			o->inputs[o->ninputs++] = arg;
		}
	}
	if (o->files && !o->ninputs) {
		fprintf(stderr, "%s: --files needs file prefixes\n", prog);
		return -1;
	}
	return 0;
}

/* Run libipt over @t; add its accuracy to @row.  Returns the estimates in
 * @est (to compare with ptdecode's libipt mode) or -1 without memory. */
static int acc_run_libipt(struct acc_ctx *ctx, const struct ptsim_trace *t,
                          struct acc_row *row, struct ptsim_estimates *est)
{
	struct ptsim_accuracy acc;

	if (ptsim_estimates_init(est, t) < 0 ||
	    ptsim_libipt_estimate(&ctx->ipt, t, est) < 0)
		return -1;
	ptsim_accuracy_measure(&acc, t, est, ptsim_points_query);
	ptsim_accuracy_add(&row->ipt, &acc);
	if (est->failed && !row->ipt_error[0])
		snprintf(row->ipt_error, sizeof(row->ipt_error),
		         "%s seed %" PRIu64 " at 0x%" PRIx64 ": %s",
		         t->params.name, t->params.seed, est->error_offset,
		         est->error);
	return 0;
}

static int acc_run_ptd(struct acc_ctx *ctx, const struct ptsim_trace *t,
                       struct acc_row *row,
                       const struct ptsim_estimates *ipt_est)
{
	struct ptsim_estimates est;
	struct ptsim_accuracy acc;

	if (ptsim_estimates_init(&est, t) < 0)
		return -1;
	(void)ptsim_ptd_estimate(t, &est, 0);
	ptsim_accuracy_measure(&acc, t, &est, ptsim_points_query);
	ptsim_accuracy_add(&row->ptd, &acc);
	ptsim_accuracy_measure(&acc, t, &est, ptsim_points_all);
	ptsim_accuracy_add(&row->ptd_all, &acc);
	if (est.failed && !row->ptd_error[0])
		snprintf(row->ptd_error, sizeof(row->ptd_error),
		         "%s seed %" PRIu64 ": %s", t->params.name,
		         t->params.seed, est.error);
	if (ctx->dump)
		acc_dump(ctx, t, ipt_est, &est);
	ptsim_estimates_fini(&est);

	if (ctx->opt.libipt_mode && ipt_est && ipt_est->tsc) {
		size_t i;

		if (ptsim_estimates_init(&est, t) < 0)
			return -1;
		(void)ptsim_ptd_estimate(t, &est, 1);
		for (i = 0; i < t->nrecs; ++i) {
			if (!ptsim_is_query_point(&t->recs[i]) ||
			    !ipt_est->have[i])
				continue;
			row->ptd_libipt_compared += 1;
			row->ptd_libipt_same +=
			        est.have[i] && est.tsc[i] == ipt_est->tsc[i];
		}
		ptsim_estimates_fini(&est);
	}
	return 0;
}

/* Evaluate one trace into @row. */
static int acc_evaluate(struct acc_ctx *ctx, const struct ptsim_trace *t,
                        struct acc_row *row)
{
	struct ptsim_estimates ipt_est;
	int rc = 0;

	memset(&ipt_est, 0, sizeof(ipt_est));
	row->truth_violations += ptsim_check_trace(t, stderr, 5);
	for (size_t i = 0; i < t->nrecs; ++i)
		row->points += (uint64_t)ptsim_is_query_point(&t->recs[i]);
	if (ctx->have_ipt && acc_run_libipt(ctx, t, row, &ipt_est) < 0)
		rc = -1;
	if (rc == 0 &&
	    acc_run_ptd(ctx, t, row, ctx->have_ipt ? &ipt_est : NULL) < 0)
		rc = -1;
	ptsim_estimates_fini(&ipt_est);
	if (rc < 0)
		fprintf(stderr, "ptsim-accuracy: out of memory\n");
	return rc;
}

static int acc_scenario(struct acc_ctx *ctx, const char *name,
                        struct acc_row *row)
{
	uint64_t seed;

	snprintf(row->name, sizeof(row->name), "%s", name);
	for (seed = 1; seed <= ctx->opt.seeds; ++seed) {
		struct ptsim_params p;
		struct ptsim_trace t;
		char msg[512];
		int rc;

		if (ptsim_preset_load(&p, name, seed, msg, sizeof(msg)) < 0 ||
		    ptsim_generate(&t, &p, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "ptsim-accuracy: %s\n", msg);
			return -1;
		}
		rc = acc_evaluate(ctx, &t, row);
		ptsim_trace_fini(&t);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int acc_file(struct acc_ctx *ctx, const char *prefix,
                    struct acc_row *row)
{
	struct ptsim_trace t;
	char msg[512];
	int rc;

	if (ptsim_read_files(&t, prefix, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "ptsim-accuracy: %s\n", msg);
		return -1;
	}
	snprintf(row->name, sizeof(row->name), "%s", t.params.name);
	rc = acc_evaluate(ctx, &t, row);
	ptsim_trace_fini(&t);
	return rc;
}

/* "mean | max | back" of one decoder, or n/a. */
static void acc_cells(char *out, size_t size, const struct ptsim_accuracy *a,
                      int available)
{
	if (!available || !a->measured) {
		snprintf(out, size, "n/a | n/a | n/a");
		return;
	}
	snprintf(out, size, "%.1f | %" PRIu64 " | %" PRIu64,
	         ptsim_accuracy_mean(a), a->max_abs, a->backwards);
}

static void acc_print(const struct acc_ctx *ctx, const struct acc_row *rows,
                      size_t n)
{
	size_t i;

	printf("| scenario | points | libipt mean | libipt max | libipt back "
	       "| ptdecode mean | ptdecode max | ptdecode back |\n"
	       "|---|--:|--:|--:|--:|--:|--:|--:|\n");
	for (i = 0; i < n; ++i) {
		const struct acc_row *r = &rows[i];
		char ipt[96], ptd[96];

		acc_cells(ipt, sizeof(ipt), &r->ipt, ctx->have_ipt);
		acc_cells(ptd, sizeof(ptd), &r->ptd, 1);
		printf("| %s | %" PRIu64 " | %s | %s |\n", r->name, r->points,
		       ipt, ptd);
	}
	printf("\n");
	printf("ptdecode at every packet (PSB+, CYC, MTC, TSC, ... "
	       "included):\n\n"
	       "| scenario | packets | mean | max | back |\n"
	       "|---|--:|--:|--:|--:|\n");
	for (i = 0; i < n; ++i) {
		char ptd[96];

		acc_cells(ptd, sizeof(ptd), &rows[i].ptd_all, 1);
		printf("| %s | %" PRIu64 " | %s |\n", rows[i].name,
		       rows[i].ptd_all.points, ptd);
	}
	printf("\n");
	for (i = 0; i < n; ++i) {
		const struct acc_row *r = &rows[i];

		if (ctx->have_ipt && r->ipt.backwards)
			printf("- %s: libipt steps back %" PRIu64
			       " times (%" PRIu64
			       " right after an MTC), by up to %" PRIu64
			       " ticks\n",
			       r->name, r->ipt.backwards, r->ipt.back_at_mtc,
			       r->ipt.max_back);
		if (r->ptd_all.backwards)
			printf("- %s: ptdecode steps back %" PRIu64
			       " times over all packets, by up to %" PRIu64
			       " ticks\n",
			       r->name, r->ptd_all.backwards,
			       r->ptd_all.max_back);
		if (ctx->opt.libipt_mode && r->ptd_libipt_compared)
			printf("- %s: ptdecode's libipt mode equals libipt at "
			       "%" PRIu64 " of %" PRIu64 " points\n",
			       r->name, r->ptd_libipt_same,
			       r->ptd_libipt_compared);
		if (r->ipt_error[0])
			printf("- %s: libipt stopped: %s\n", r->name,
			       r->ipt_error);
		if (r->ptd_error[0])
			printf("- %s: ptdecode: %s\n", r->name, r->ptd_error);
		if (r->truth_violations)
			printf("- %s: %u self-check violations\n", r->name,
			       r->truth_violations);
	}
}

/* The checks of --check-truth and --check-target; returns the number of
 * failures and describes them on stderr. */
static unsigned acc_checks(const struct acc_ctx *ctx,
                           const struct acc_row *rows, size_t n)
{
	unsigned bad = 0;
	size_t i;

	for (i = 0; i < n; ++i) {
		const struct acc_row *r = &rows[i];

		if (ctx->opt.check_truth) {
			if (r->truth_violations) {
				fprintf(stderr,
				        "FAIL %s: the truth is "
				        "inconsistent\n",
				        r->name);
				bad += 1;
			}
			if (ctx->have_ipt &&
			    (r->ipt.failed ||
			     r->ipt.measured != r->ipt.points ||
			     !r->ipt.points)) {
				fprintf(stderr,
				        "FAIL %s: libipt measured %" PRIu64
				        " of %" PRIu64 " points\n",
				        r->name, r->ipt.measured,
				        r->ipt.points);
				bad += 1;
			}
		}
		if (!ctx->opt.check_target)
			continue;
		if (r->ptd.failed || r->ptd.measured != r->ptd.points) {
			fprintf(stderr,
			        "FAIL %s: ptdecode measured %" PRIu64
			        " of %" PRIu64 " points\n",
			        r->name, r->ptd.measured, r->ptd.points);
			bad += 1;
		}
		if (r->ptd_all.backwards) {
			fprintf(stderr, "FAIL %s: ptdecode steps back\n",
			        r->name);
			bad += 1;
		}
		if (!ctx->have_ipt)
			continue;
		if (r->ptd.max_abs > r->ipt.max_abs ||
		    (r->ipt.backwards && r->ptd.max_abs >= r->ipt.max_abs)) {
			fprintf(stderr,
			        "FAIL %s: ptdecode's maximum error %" PRIu64
			        " at 0x%" PRIx64 " %s libipt's %" PRIu64 "\n",
			        r->name, r->ptd.max_abs, r->ptd.max_offset,
			        r->ptd.max_abs > r->ipt.max_abs
			                ? "exceeds"
			                : "is not below (libipt steps back)",
			        r->ipt.max_abs);
			bad += 1;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	struct acc_ctx ctx;
	struct acc_row *rows;
	size_t i, n;
	int rc;
	char msg[512];

	memset(&ctx, 0, sizeof(ctx));
	rc = acc_parse_args(argc, argv, &ctx.opt);
	if (rc != 0)
		return rc > 0 ? ACC_EXIT_OK : ACC_EXIT_USAGE;
	if (!ctx.opt.no_libipt) {
		if (ptd_libipt_open(&ctx.ipt, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "ptsim-accuracy: %s (skipped)\n", msg);
			return ACC_EXIT_SKIP;
		}
		ctx.have_ipt = 1;
	}

	n = ctx.opt.ninputs ? ctx.opt.ninputs : ptsim_preset_count();
	rows = calloc(n, sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "ptsim-accuracy: out of memory\n");
		ptd_libipt_close(&ctx.ipt);
		return ACC_EXIT_FAIL;
	}
	rc = 0;
	if (ctx.opt.dump) {
		ctx.dump = fopen(ctx.opt.dump, "w");
		if (!ctx.dump) {
			fprintf(stderr, "ptsim-accuracy: cannot create %s\n",
			        ctx.opt.dump);
			rc = -1;
		} else {
			fprintf(ctx.dump, "# scenario seed offset type truth "
			                  "libipt ptdecode\n");
		}
	}
	for (i = 0; i < n && rc == 0; ++i) {
		if (ctx.opt.files)
			rc = acc_file(&ctx, ctx.opt.inputs[i], &rows[i]);
		else
			rc = acc_scenario(&ctx,
			                  ctx.opt.ninputs
			                          ? ctx.opt.inputs[i]
			                          : ptsim_preset_name(i),
			                  &rows[i]);
	}
	if (rc == 0) {
		if (ctx.have_ipt) {
			struct pt_version v = ctx.ipt.library_version();

			printf("libipt %u.%u.%u query decoder vs. ptdecode %s "
			       "time decoder; errors in TSC ticks at %s, "
			       "%" PRIu64 " seed(s) per scenario.\n\n",
			       v.major, v.minor, v.patch, ptd_version_string(),
			       "TNT/TIP/TIP.PGE/TIP.PGD packets",
			       ctx.opt.seeds);
		}
		acc_print(&ctx, rows, n);
		if (acc_checks(&ctx, rows, n))
			rc = -1;
	}
	if (ctx.dump) {
		/* (A write that failed before the last flush leaves only the
		 * stream's error indicator.) */
		const int bad = ferror(ctx.dump);

		if (fclose(ctx.dump) != 0 || bad) {
			fprintf(stderr, "ptsim-accuracy: cannot write %s\n",
			        ctx.opt.dump);
			rc = -1;
		}
	}
	free(rows);
	ptd_libipt_close(&ctx.ipt);
	return rc < 0 ? ACC_EXIT_FAIL : ACC_EXIT_OK;
}
