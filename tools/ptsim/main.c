/* SPDX-License-Identifier: BSD-3-Clause */
/* ptsim: generate an Intel PT trace from a timing model, with the true TSC
 * of every packet beside it.  See docs/ptsim.md. */
#include "files.h"
#include "params.h"
#include "ptdecode/ptdecode.h"
#include "sim.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PTSIM_EXIT_OK = 0, PTSIM_EXIT_ERROR = 1, PTSIM_EXIT_USAGE = 2 };

/* Most --set options on one command line. */
#define PTSIM_MAX_SETS 64

/* --set <key>=<value> (@key NULL) or --<key> <value>. */
struct ptsim_setting {
	const char *key;
	const char *value;
};

struct ptsim_options {
	const char *scenario;
	const char *output;
	uint64_t seed;
	struct ptsim_setting sets[PTSIM_MAX_SETS];
	size_t nsets;
	int quiet;
	int show_params;
};

static void ptsim_usage(FILE *out, const char *prog)
{
	fprintf(out,
	        "usage: %s [<options>] <scenario>\n"
	        "\n"
	        "Simulate the clocks behind Intel PT timing packets and write\n"
	        "a trace with the true TSC of every packet:\n"
	        "  <prefix>.pt     the raw trace\n"
	        "  <prefix>.truth  one line per packet: offset, type, true "
	        "TSC, ...\n"
	        "  <prefix>.cfg    the configuration a decoder needs, and the\n"
	        "                  model parameters\n"
	        "\n"
	        "options:\n"
	        "  -h, --help            print this text and exit.\n"
	        "  --version             print the version and exit.\n"
	        "  --list                list the scenarios and exit.\n"
	        "  --params              print the scenario's parameters "
	        "(after\n"
	        "                        the options below) and exit.\n"
	        "  -o, --output <prefix> name the output files (default: the\n"
	        "                        scenario name).\n"
	        "  -s, --seed <n>        the random seed (default 1).\n"
	        "  --set <key>=<value>   change a model parameter (see "
	        "--params).\n"
	        "  --<key> <value>       the same, e.g. --mtc_freq 9.\n"
	        "  -q, --quiet           do not print a summary.\n"
	        "\n"
	        "The model, the scenarios and the file formats are described "
	        "in\n"
	        "docs/ptsim.md.\n",
	        prog);
}

static void ptsim_list(void)
{
	size_t i;

	for (i = 0; i < ptsim_preset_count(); ++i) {
		const char *settings = ptsim_preset_settings(i);

		printf("%-13s %s\n", ptsim_preset_name(i),
		       ptsim_preset_help(i));
		if (*settings)
			printf("%-13s   (%s)\n", "", settings);
	}
}

static int ptsim_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	*v = strtoull(s, &end, 0);
	return *end ? -1 : 0;
}

/* Returns -1 to exit with @*status. */
static int ptsim_parse_args(int argc, char **argv, struct ptsim_options *o,
                            int *status)
{
	const char *prog = argv[0] ? argv[0] : "ptsim";
	int i;

	memset(o, 0, sizeof(*o));
	o->seed = 1;
	*status = PTSIM_EXIT_USAGE;
	for (i = 1; i < argc; ++i) {
		const char *arg = argv[i];

		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			ptsim_usage(stdout, prog);
			*status = PTSIM_EXIT_OK;
			return -1;
		}
		if (strcmp(arg, "--version") == 0) {
			printf("ptsim-%s\n", ptd_version_string());
			*status = PTSIM_EXIT_OK;
			return -1;
		}
		if (strcmp(arg, "--list") == 0) {
			ptsim_list();
			*status = PTSIM_EXIT_OK;
			return -1;
		}
		if (strcmp(arg, "--params") == 0) {
			o->show_params = 1;
			continue;
		}
		if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
			o->quiet = 1;
			continue;
		}
		if (arg[0] != '-') {
			if (o->scenario) {
				fprintf(stderr, "%s: more than one scenario\n",
				        prog);
				return -1;
			}
			o->scenario = arg;
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "%s: %s: missing argument\n", prog,
			        arg);
			return -1;
		}
		if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
			o->output = argv[++i];
		} else if (strcmp(arg, "-s") == 0 ||
		           strcmp(arg, "--seed") == 0) {
			if (ptsim_parse_u64(argv[++i], &o->seed) < 0) {
				fprintf(stderr, "%s: bad seed '%s'\n", prog,
				        argv[i]);
				return -1;
			}
		} else if (strcmp(arg, "--set") == 0 ||
		           (arg[1] == '-' && ptsim_params_known(arg + 2))) {
			struct ptsim_setting *set;

			if (o->nsets == PTSIM_MAX_SETS) {
				fprintf(stderr, "%s: too many settings\n",
				        prog);
				return -1;
			}
			set = &o->sets[o->nsets++];
			set->key = strcmp(arg, "--set") == 0 ? NULL : arg + 2;
			set->value = argv[++i];
		} else {
			fprintf(stderr, "%s: unknown option '%s'\n", prog, arg);
			return -1;
		}
	}
	if (!o->scenario) {
		fprintf(stderr, "%s: no scenario (--list shows them)\n", prog);
		return -1;
	}
	return 0;
}

/* Apply the settings in command-line order. */
static int ptsim_apply_sets(struct ptsim_params *p,
                            const struct ptsim_options *o, const char *prog)
{
	size_t i;

	for (i = 0; i < o->nsets; ++i) {
		const struct ptsim_setting *set = &o->sets[i];
		const char *value = set->value;
		char key[64], msg[256];

		if (set->key) {
			snprintf(key, sizeof(key), "%s", set->key);
		} else {
			const char *eq = strchr(value, '=');

			if (!eq || (size_t)(eq - value) >= sizeof(key)) {
				fprintf(stderr,
				        "%s: --set: expected <key>=<value>, "
				        "found '%s'\n",
				        prog, value);
				return -1;
			}
			memcpy(key, value, (size_t)(eq - value));
			key[eq - value] = '\0';
			value = eq + 1;
		}
		if (ptsim_params_set(p, key, value, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "%s: %s\n", prog, msg);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *prog = argv[0] ? argv[0] : "ptsim";
	struct ptsim_options o;
	struct ptsim_params p;
	struct ptsim_trace t;
	char msg[512];
	int status;

	if (ptsim_parse_args(argc, argv, &o, &status) < 0)
		return status;
	if (ptsim_preset_load(&p, o.scenario, o.seed, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return PTSIM_EXIT_USAGE;
	}
	if (ptsim_apply_sets(&p, &o, prog) < 0)
		return PTSIM_EXIT_USAGE;
	if (o.show_params) {
		printf("scenario %s seed %" PRIu64 "\n", p.name, p.seed);
		ptsim_params_print(stdout, &p);
		return PTSIM_EXIT_OK;
	}
	if (ptsim_generate(&t, &p, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return PTSIM_EXIT_ERROR;
	}
	if (ptsim_write_files(&t, o.output ? o.output : o.scenario, msg,
	                      sizeof(msg)) < 0) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		ptsim_trace_fini(&t);
		return PTSIM_EXIT_ERROR;
	}
	if (!o.quiet) {
		const char *prefix = o.output ? o.output : o.scenario;

		printf("%s.pt\n%s.truth\n%s.cfg\n", prefix, prefix, prefix);
		fprintf(stderr,
		        "%s: %zu bytes, %zu packets, %" PRIu64 " PSBs, %" PRIu64
		        " MTCs (%" PRIu64 " dropped), %" PRIu64
		        " frequency changes, %" PRIu64 " deep sleeps, %" PRIu64
		        " standalone CYCs\n",
		        p.name, t.size, t.nrecs, t.stats.psbs,
		        t.stats.mtc_emitted, t.stats.mtc_dropped,
		        t.stats.freq_changes, t.stats.sleeps,
		        t.stats.standalone_cycs);
	}
	ptsim_trace_fini(&t);
	return PTSIM_EXIT_OK;
}
