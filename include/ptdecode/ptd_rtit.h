/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ptdecode extension: see docs/design-time.md.  Included by ptdecode.h.
 */
#ifndef PTD_RTIT_H
#define PTD_RTIT_H

#include "intel-pt.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* PTD_RTIT_H */
