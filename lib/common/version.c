/* SPDX-License-Identifier: BSD-3-Clause */
/* Library version. */
#include "ptdecode/ptdecode.h"

#define PTD_STR2(x) #x
#define PTD_STR(x) PTD_STR2(x)
#define PTD_VERSION_STRING                                                     \
	PTD_STR(PTDECODE_VERSION_MAJOR)                                        \
	"." PTD_STR(PTDECODE_VERSION_MINOR) "." PTD_STR(PTDECODE_VERSION_PATCH)

struct pt_version pt_library_version(void)
{
	struct pt_version v;

	v.major = LIBIPT_VERSION_MAJOR;
	v.minor = LIBIPT_VERSION_MINOR;
	v.patch = LIBIPT_VERSION_PATCH;
	v.build = 0;
	/* (As libipt's: no leading '-'; its printers add one.) */
	v.ext = "ptdecode-" PTD_VERSION_STRING;
	return v;
}

const char *ptd_version_string(void)
{
	return PTD_VERSION_STRING;
}
