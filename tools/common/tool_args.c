/* SPDX-License-Identifier: BSD-3-Clause */
/* Command-line numbers, file ranges and processors; see tool_args.h. */
#include "tool_args.h"

#include "ptdecode/ptdecode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int ptd_tool_number(uint64_t *value, uint64_t max, const char *option,
                    const char *arg, const char *prog, FILE *err)
{
	char *rest;

	if (!arg || !arg[0] || (arg[0] == '-' && arg[1] == '-')) {
		fprintf(err, "%s: %s: missing argument.\n", prog, option);
		return 0;
	}
	errno = 0;
	*value = strtoull(arg, &rest, 0);
	if (errno || *rest || rest == arg) {
		fprintf(err, "%s: %s: bad argument: %s.\n", prog, option, arg);
		return 0;
	}
	if (*value > max) {
		fprintf(err, "%s: %s: value too big: %s.\n", prog, option, arg);
		return 0;
	}
	return 1;
}

/* Parse "<from>[-<to>]".  Returns 0 if it does not parse, 1 for <from>
 * alone, 2 for both. */
static int ptd_tool_parse_range(const char *arg, uint64_t *begin, uint64_t *end)
{
	char *rest;

	if (!*arg || *arg == '-')
		return 0;
	errno = 0;
	*begin = strtoull(arg, &rest, 0);
	if (errno || rest == arg)
		return 0;
	if (!*rest)
		return 1;
	if (*rest != '-' || !rest[1] || rest[1] == '-')
		return 0;
	arg = rest + 1;
	*end = strtoull(arg, &rest, 0);
	if (errno || *rest || rest == arg)
		return 0;
	return 2;
}

int ptd_tool_split_range(char *arg, uint64_t *offset, uint64_t *size)
{
	char *colon = strrchr(arg, ':');
	uint64_t begin = 0, end = 0;
	int parts;

	*offset = 0;
	*size = 0;
	if (!colon)
		return 0;
	parts = ptd_tool_parse_range(colon + 1, &begin, &end);
	if (parts == 0)
		return 0;
	if (parts == 2) {
		if (end <= begin) {
			*offset = begin;
			*size = end;
			return -pte_invalid;
		}
		*size = end - begin;
	}
	*offset = begin;
	*colon = 0;
	return 0;
}

int ptd_tool_cpu(struct pt_cpu *cpu, const char *arg, const char *prog,
                 FILE *err)
{
	if (!arg || !arg[0] || (arg[0] == '-' && arg[1] == '-')) {
		fprintf(err, "%s: --cpu: missing argument.\n", prog);
		return 0;
	}
	if (strcmp(arg, "auto") == 0) {
		fprintf(err,
		        "%s: --cpu auto is not supported: give the processor "
		        "as family/model[/stepping], e.g. 6/158.\n",
		        prog);
		return 0;
	}
	if (ptd_cpu_parse(cpu, arg) < 0) {
		fprintf(err,
		        "%s: --cpu: bad processor: %s (expected none or "
		        "family/model[/stepping], e.g. 6/158 or 6/0x9e/9).\n",
		        prog, arg);
		return 0;
	}
	return 1;
}

void ptd_tool_mtc_freq_check(uint64_t value, const char *prog, FILE *err)
{
	if (value > 15)
		fprintf(err,
		        "%s: warning: --mtc-freq %" PRIu64 " is no MTCFreq (a "
		        "4-bit field, 0 to 15): ptdecode's time leaves MTC "
		        "packets out.\n",
		        prog, value);
}
