/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Instruction-flow and block decoder extensions.
 *
 * Part of ptdecode's extensions (include <ptdecode/ptdecode.h>).  Everything
 * here has the ptd_ prefix; a negative return value is a negated
 * enum pt_error_code.
 */

#ifndef PTD_FLOW_H
#define PTD_FLOW_H

#include "intel-pt.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* PTD_FLOW_H */
