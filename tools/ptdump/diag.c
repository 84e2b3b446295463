/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: diagnostic lines in the packet listing. */
#include "diag.h"

#include "ptdecode/intel-pt.h"

#include <inttypes.h>

int ptdump_diag(FILE *out, uint64_t offset, const char *what, int errcode)
{
	if (errcode)
		fprintf(out, "[%" PRIx64 ": %s: %s]\n", offset, what,
		        pt_errstr(pt_errcode(errcode)));
	else
		fprintf(out, "[%" PRIx64 ": %s]\n", offset, what);
	return errcode;
}
