/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal configuration helpers shared by every decoder and the encoder. */
#ifndef PTD_CONFIG_H
#define PTD_CONFIG_H

#include "ptdecode/intel-pt.h"

/* Copy a user configuration into @config.
 *
 * Reads min(@user->size, sizeof) bytes and zeroes the rest, so callers built
 * against other layouts keep working.  Returns 0, -pte_internal for NULL
 * arguments, or -pte_bad_config if @user is too small to hold the buffer
 * bounds, or the bounds are NULL or reversed. */
int ptd_config_from_user(struct pt_config *config,
                         const struct pt_config *user);

#endif /* PTD_CONFIG_H */
