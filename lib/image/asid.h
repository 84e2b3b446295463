/* SPDX-License-Identifier: BSD-3-Clause */
/* Address spaces: the user's struct pt_asid made whole, and matching. */
#ifndef PTD_IMAGE_ASID_H
#define PTD_IMAGE_ASID_H

#include "ptdecode/intel-pt.h"

#include <stddef.h>

/* Store in @asid the address space @user describes: NULL is any address
 * space, and fields beyond @user->size are unknown. */
static inline void ptd_asid_from_user(struct pt_asid *asid,
                                      const struct pt_asid *user)
{
	pt_asid_init(asid);
	if (!user)
		return;
	if (user->size >= offsetof(struct pt_asid, cr3) + sizeof(user->cr3))
		asid->cr3 = user->cr3;
	if (user->size >= offsetof(struct pt_asid, vmcs) + sizeof(user->vmcs))
		asid->vmcs = user->vmcs;
}

/* Whether two whole address spaces match: each field unknown in either or
 * equal. */
static inline int ptd_asid_match(const struct pt_asid *a,
                                 const struct pt_asid *b)
{
	return (a->cr3 == pt_asid_no_cr3 || b->cr3 == pt_asid_no_cr3 ||
	        a->cr3 == b->cr3) &&
	       (a->vmcs == pt_asid_no_vmcs || b->vmcs == pt_asid_no_vmcs ||
	        a->vmcs == b->vmcs);
}

/* Whether two whole address spaces are the same. */
static inline int ptd_asid_equal(const struct pt_asid *a,
                                 const struct pt_asid *b)
{
	return a->cr3 == b->cr3 && a->vmcs == b->vmcs;
}

#endif /* PTD_IMAGE_ASID_H */
