/* SPDX-License-Identifier: BSD-3-Clause */
/* Copying user configurations. */
#include "config.h"

#include <stddef.h>
#include <string.h>

int ptd_config_from_user(struct pt_config *config, const struct pt_config *user)
{
	size_t size;

	if (!config || !user)
		return -pte_internal;

	size = user->size;
	if (size < offsetof(struct pt_config, decode))
		return -pte_bad_config;
	if (!user->begin || !user->end || user->end < user->begin)
		return -pte_bad_config;
	if (size > sizeof(*config))
		size = sizeof(*config);

	memset(config, 0, sizeof(*config));
	memcpy(config, user, size);
	config->size = sizeof(*config);
	return 0;
}
