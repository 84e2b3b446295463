/* SPDX-License-Identifier: BSD-3-Clause */
/* Self-checks of a simulated trace: the truth must be consistent with the
 * packets and with the model (docs/ptsim.md, "Self-checks"). */
#ifndef PTSIM_CHECK_H
#define PTSIM_CHECK_H

#include "sim.h"

#include <stdio.h>

/* Check @trace.  Returns the number of violations found; the first @max
 * are described on @out (which may be NULL). */
unsigned ptsim_check_trace(const struct ptsim_trace *trace, FILE *out,
                           unsigned max);

#endif /* PTSIM_CHECK_H */
