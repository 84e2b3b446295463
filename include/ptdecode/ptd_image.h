/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Traced image extensions: images and section caches filled from memory buffers (JIT code, memory dumps), and loaders for common dump formats.
 *
 * Part of ptdecode's extensions (include <ptdecode/ptdecode.h>).  Everything
 * here has the ptd_ prefix; a negative return value is a negated
 * enum pt_error_code.
 */

#ifndef PTD_IMAGE_H
#define PTD_IMAGE_H

#include "intel-pt.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* PTD_IMAGE_H */
