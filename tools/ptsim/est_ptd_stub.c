/* SPDX-License-Identifier: BSD-3-Clause */
/* STUB of est_ptd.c, built only while libptdecode has no time decoder
 * (ptd_time_alloc_decoder() and friends from ptd_time.h): it gives no
 * estimates, and the report shows "n/a" for ptdecode.  tools/ptsim's
 * CMakeLists.txt switches to est_ptd.c once the library builds
 * lib/time/time_decoder.c. */
#include "est_ptd.h"

#include <stdio.h>

int ptsim_ptd_available(void)
{
	return 0;
}

int ptsim_ptd_estimate(const struct ptsim_trace *trace,
                       struct ptsim_estimates *est, int libipt_mode)
{
	(void)trace;
	(void)libipt_mode;
	snprintf(est->error, sizeof(est->error),
	         "ptdecode's time decoder is not built (stub)");
	est->failed = 1;
	return -1;
}
