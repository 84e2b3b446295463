/* SPDX-License-Identifier: BSD-3-Clause */
/* Intel PT errata by processor, and parsing of processor names. */
#include "ptdecode/ptdecode.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Errata groups: processors in one group share the same set of errata. */
enum {
	E_BDM70 = 1 << 0,
	E_BDM64 = 1 << 1,
	E_SKD007 = 1 << 2,
	E_SKD022 = 1 << 3,
	E_SKD010 = 1 << 4,
	E_SKL014 = 1 << 5,
	E_APL12 = 1 << 6,
	E_APL11 = 1 << 7,
	E_SKL168 = 1 << 8,
	E_SKZ84 = 1 << 9
};

struct ptd_errata_entry {
	uint16_t family;
	uint8_t model;
	uint16_t errata;
};

/* Which Intel PT errata each processor model has, from Intel's
 * specification updates for the respective processor families. */
static const struct ptd_errata_entry ptd_errata_table[] = {
        /* Broadwell */
        {0x6, 0x3d, E_BDM70 | E_BDM64},
        {0x6, 0x47, E_BDM70 | E_BDM64},
        {0x6, 0x4f, E_BDM70 | E_BDM64},
        {0x6, 0x56, E_BDM70 | E_BDM64},
        /* Skylake, Kaby Lake, Coffee Lake, Comet Lake client */
        {0x6, 0x4e,
         E_BDM70 | E_SKD007 | E_SKD022 | E_SKD010 | E_SKL014 | E_SKL168},
        {0x6, 0x5e,
         E_BDM70 | E_SKD007 | E_SKD022 | E_SKD010 | E_SKL014 | E_SKL168},
        {0x6, 0x8e,
         E_BDM70 | E_SKD007 | E_SKD022 | E_SKD010 | E_SKL014 | E_SKL168},
        {0x6, 0x9e,
         E_BDM70 | E_SKD007 | E_SKD022 | E_SKD010 | E_SKL014 | E_SKL168},
        {0x6, 0xa5,
         E_BDM70 | E_SKD007 | E_SKD022 | E_SKD010 | E_SKL014 | E_SKL168},
        {0x6, 0xa6,
         E_BDM70 | E_SKD007 | E_SKD022 | E_SKD010 | E_SKL014 | E_SKL168},
        /* Skylake, Cascade Lake, Cooper Lake server; Ice Lake server/D */
        {0x6, 0x55, E_BDM70 | E_SKL014 | E_SKD022 | E_SKZ84},
        {0x6, 0x6a, E_BDM70 | E_SKL014 | E_SKD022 | E_SKZ84},
        {0x6, 0x6c, E_BDM70 | E_SKL014 | E_SKD022 | E_SKZ84},
        /* Sapphire Rapids, Emerald Rapids, Granite Rapids, Sierra Forest,
         * Diamond Rapids */
        {0x6, 0x8f, E_BDM70 | E_SKD022 | E_SKZ84},
        {0x6, 0xcf, E_BDM70 | E_SKD022 | E_SKZ84},
        {0x6, 0xad, E_BDM70 | E_SKD022 | E_SKZ84},
        {0x6, 0xae, E_BDM70 | E_SKD022 | E_SKZ84},
        {0x13, 0x01, E_BDM70 | E_SKD022 | E_SKZ84},
        /* Cannon Lake, Ice Lake, Tiger Lake client */
        {0x6, 0x66, E_BDM70 | E_SKL014 | E_SKD022},
        {0x6, 0x7d, E_BDM70 | E_SKL014 | E_SKD022},
        {0x6, 0x7e, E_BDM70 | E_SKL014 | E_SKD022},
        {0x6, 0x8c, E_BDM70 | E_SKL014 | E_SKD022},
        {0x6, 0x8d, E_BDM70 | E_SKL014 | E_SKD022},
        {0x6, 0xa7, E_BDM70 | E_SKL014 | E_SKD022},
        {0x6, 0xa8, E_BDM70 | E_SKL014 | E_SKD022},
        /* Alder Lake, Raptor Lake, Meteor Lake, Arrow Lake, Lunar Lake,
         * Panther Lake and later hybrid parts */
        {0x6, 0x97, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0x9a, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0xba, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0xb7, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0xbf, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0xc5, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0xc6, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0xb5, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0xaa, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0xac, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0xbd, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0xcc, E_BDM70 | E_SKD022 | E_APL11},
        {0x6, 0xd5, E_BDM70 | E_SKD022 | E_APL11},
        {0x12, 0x01, E_BDM70 | E_SKD022 | E_APL11},
        {0x12, 0x03, E_BDM70 | E_SKD022 | E_APL11},
        /* Apollo Lake, Denverton */
        {0x6, 0x5c, E_APL12 | E_APL11},
        {0x6, 0x5f, E_APL12 | E_APL11},
        /* Gemini Lake, Snow Ridge, Elkhart/Jasper Lake, Grand Ridge,
         * Crestmont, Clearwater Forest */
        {0x6, 0x7a, E_APL11},
        {0x6, 0x86, E_APL11},
        {0x6, 0x96, E_APL11},
        {0x6, 0x9c, E_APL11},
        {0x6, 0xb6, E_APL11},
        {0x6, 0xaf, E_APL11},
        {0x6, 0xdd, E_APL11},
};

int pt_cpu_errata(struct pt_errata *errata, const struct pt_cpu *cpu)
{
	size_t i;

	if (!errata || !cpu)
		return -pte_invalid;
	/* As libipt: the errata of @cpu only (none if it is not known). */
	memset(errata, 0, sizeof(*errata));
	if (cpu->vendor != pcv_intel)
		return -pte_bad_cpu;

	for (i = 0; i < sizeof(ptd_errata_table) / sizeof(ptd_errata_table[0]);
	     ++i) {
		const struct ptd_errata_entry *e = &ptd_errata_table[i];
		unsigned bits = e->errata;

		if (e->family != cpu->family || e->model != cpu->model)
			continue;

		errata->bdm70 |= (bits & E_BDM70) ? 1 : 0;
		errata->bdm64 |= (bits & E_BDM64) ? 1 : 0;
		errata->skd007 |= (bits & E_SKD007) ? 1 : 0;
		errata->skd022 |= (bits & E_SKD022) ? 1 : 0;
		errata->skd010 |= (bits & E_SKD010) ? 1 : 0;
		errata->skl014 |= (bits & E_SKL014) ? 1 : 0;
		errata->apl12 |= (bits & E_APL12) ? 1 : 0;
		errata->apl11 |= (bits & E_APL11) ? 1 : 0;
		errata->skl168 |= (bits & E_SKL168) ? 1 : 0;
		errata->skz84 |= (bits & E_SKZ84) ? 1 : 0;
		return 0;
	}
	return -pte_bad_cpu;
}

/* Parse one unsigned number, decimal or hexadecimal with a 0x prefix, up to
 * @max; advance @s past it. */
static int ptd_parse_num(const char **s, unsigned long max,
                         unsigned long *value)
{
	const char *digits = *s;
	int base = 10;
	unsigned long v;
	char *end;

	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
		digits += 2;
		base = 16;
	}
	/* strtoul() would accept signs and white space; we do not. */
	if (!isxdigit((unsigned char)*digits) ||
	    (base == 10 && !isdigit((unsigned char)*digits)))
		return -pte_bad_cpu;
	errno = 0;
	v = strtoul(digits, &end, base);
	if (errno || v > max)
		return -pte_bad_cpu;
	*s = end;
	*value = v;
	return 0;
}

int ptd_cpu_parse(struct pt_cpu *cpu, const char *s)
{
	unsigned long family, model, stepping = 0;

	if (!cpu || !s)
		return -pte_invalid;

	memset(cpu, 0, sizeof(*cpu));
	if (strcmp(s, "none") == 0)
		return 0;

	if (ptd_parse_num(&s, 0xffff, &family) < 0 || *s++ != '/')
		return -pte_bad_cpu;
	if (ptd_parse_num(&s, 0xff, &model) < 0)
		return -pte_bad_cpu;
	if (*s == '/') {
		++s;
		if (ptd_parse_num(&s, 0xff, &stepping) < 0)
			return -pte_bad_cpu;
	}
	if (*s)
		return -pte_bad_cpu;

	cpu->vendor = pcv_intel;
	cpu->family = (uint16_t)family;
	cpu->model = (uint8_t)model;
	cpu->stepping = (uint8_t)stepping;
	return 0;
}
