/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Query decoder extensions: the batch interface that hands out many TNT decisions, IPs and events with their times per call.
 *
 * Part of ptdecode's extensions (include <ptdecode/ptdecode.h>).  Everything
 * here has the ptd_ prefix; a negative return value is a negated
 * enum pt_error_code.
 */

#ifndef PTD_QUERY_H
#define PTD_QUERY_H

#include "intel-pt.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* PTD_QUERY_H */
