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

struct ptd_time_config;

/** Allocate an instruction-flow decoder (see pt_insn_alloc_decoder()) whose
 * query decoder's time engine uses the options in @tconfig (see
 * ptd_qry_alloc_decoder()), e.g. ptd_time_mode_libipt to make
 * pt_insn_time() and the event and tick times libipt's number for number.
 * @tconfig may be NULL for the defaults (the accurate estimator).  Returns
 * NULL if @config or @tconfig is not valid or if memory runs out. */
extern pt_export struct pt_insn_decoder *
ptd_insn_alloc_decoder(const struct pt_config *config,
                       const struct ptd_time_config *tconfig);

/** Allocate a block decoder (see pt_blk_alloc_decoder()) with the time
 * engine options in @tconfig, as ptd_insn_alloc_decoder(). */
extern pt_export struct pt_block_decoder *
ptd_blk_alloc_decoder(const struct pt_config *config,
                      const struct ptd_time_config *tconfig);

#ifdef __cplusplus
}
#endif

#endif /* PTD_FLOW_H */
