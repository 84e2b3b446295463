/* SPDX-License-Identifier: BSD-3-Clause */
/* Differential test of pt_cpu_errata() against libipt 2.0.5's, over every
 * vendor, family (0 to 0x1ff, and 0xffff), model and stepping: the return
 * value and every errata bit must be equal, except where ptdecode follows
 * the table of later libipt (docs/compatibility.md, "Errata by processor"):
 *
 *  - processors libipt 2.0.5 does not know (it returns -pte_bad_cpu and no
 *    errata): family 6 models 0xaa, 0xac, 0xad, 0xae, 0xaf, 0xb5, 0xb6,
 *    0xb7, 0xba, 0xbd, 0xc5, 0xc6, 0xcc, 0xcf, 0xd5, 0xdd, and families
 *    0x12 (models 1 and 3) and 0x13 (model 1);
 *  - SKL014, which libipt 2.0.5 sets and later libipt no longer sets, for
 *    family 6 models 0x8f, 0x97, 0x9a, 0xbf.
 *
 * Each such case is counted; a difference of any other kind fails.  The
 * reserved words of ptdecode's struct pt_errata must stay zero, and so must
 * the errata after an error.
 *
 * Usage: diff_errata [-v]
 * Exit status: 0 pass, 1 failure, 77 libipt.so.2 not loadable (skip). */
#include "ptdecode/intel-pt.h"

#include "libipt_dl.h"

#include <stdio.h>
#include <string.h>

/* Bits 0 to 9 of the first word of struct pt_errata, in order: bdm70,
 * bdm64, skd007, skd022, skd010, skl014, apl12, apl11, skl168, skz84 (the
 * same in libipt 2.0.5, docs/compatibility.md). */
enum { skl014_bit = 1u << 5, known_bits = (1u << 10) - 1 };

static int newer_model(unsigned family, unsigned model)
{
	static const unsigned char fam6[] = {0xaa, 0xac, 0xad, 0xae, 0xaf, 0xb5,
	                                     0xb6, 0xb7, 0xba, 0xbd, 0xc5, 0xc6,
	                                     0xcc, 0xcf, 0xd5, 0xdd};

	if (family == 0x12)
		return model == 1 || model == 3;
	if (family == 0x13)
		return model == 1;
	if (family != 6)
		return 0;
	return memchr(fam6, (int)model, sizeof(fam6)) != NULL;
}

static int skl014_dropped(unsigned family, unsigned model)
{
	return family == 6 && (model == 0x8f || model == 0x97 ||
	                       model == 0x9a || model == 0xbf);
}

static uint32_t first_word(const struct pt_errata *errata)
{
	uint32_t w;

	memcpy(&w, errata, sizeof(w));
	return w;
}

/* What the processors compared so far gave. */
struct counts {
	unsigned long cases, newer, dropped, failures;
};

/* Compare pt_cpu_errata() for @cpu; returns NULL if it agrees (or differs
 * as documented), else what differs. */
static const char *compare(const struct ptd_libipt *ipt,
                           const struct pt_cpu *cpu, struct counts *n, int *ra,
                           int *rb, uint32_t *a, uint32_t *b)
{
	struct pt_errata ours, theirs;
	unsigned fam = cpu->family, model = cpu->model;
	int intel = cpu->vendor == pcv_intel;

	memset(&ours, 0, sizeof(ours));
	memset(&theirs, 0, sizeof(theirs));
	*ra = pt_cpu_errata(&ours, cpu);
	*rb = ipt->cpu_errata(&theirs, cpu);
	*a = first_word(&ours);
	*b = first_word(&theirs);
	n->cases++;
	for (size_t k = 0; k < sizeof(ours.reserved) / sizeof(ours.reserved[0]);
	     ++k)
		if (ours.reserved[k])
			return "reserved bits set";
	if ((*a & ~(uint32_t)known_bits) || (*ra < 0 && *a))
		return "unknown or stray bits";
	if (*ra == *rb && *a == *b)
		return NULL;
	if (intel && newer_model(fam, model) && *rb == -pte_bad_cpu && !*b &&
	    *ra == 0) {
		n->newer++;
		return NULL;
	}
	if (intel && skl014_dropped(fam, model) && *ra == 0 && *rb == 0 &&
	    (*a ^ *b) == skl014_bit && (*b & skl014_bit)) {
		n->dropped++;
		return NULL;
	}
	return "differs";
}

int main(int argc, char **argv)
{
	struct ptd_libipt ipt;
	struct counts n = {0, 0, 0, 0};
	int verbose = argc > 1 && !strcmp(argv[1], "-v");
	char msg[256];

	if (ptd_libipt_open(&ipt, msg, sizeof(msg)) < 0) {
		printf("diff_errata: %s: skipped\n", msg);
		return 77;
	}
	for (unsigned vendor = 0; vendor < 2; ++vendor)
		for (unsigned family = 0; family <= 0x200; ++family)
			for (unsigned model = 0; model < 256; ++model)
				for (unsigned st = 0; st < 16; ++st) {
					struct pt_cpu cpu;
					const char *why;
					uint32_t a, b;
					int ra, rb;

					memset(&cpu, 0, sizeof(cpu));
					cpu.vendor = vendor ? pcv_intel
					                    : pcv_unknown;
					cpu.family =
					        (uint16_t)(family == 0x200
					                           ? 0xffff
					                           : family);
					cpu.model = (uint8_t)model;
					cpu.stepping = (uint8_t)st;
					why = compare(&ipt, &cpu, &n, &ra, &rb,
					              &a, &b);
					if (!why ||
					    (n.failures++ >= 20 && !verbose))
						continue;
					printf("diff_errata: vendor %u family "
					       "%#x model %#x stepping %u: %s: "
					       "ours %d %#x, libipt %d %#x\n",
					       vendor, (unsigned)cpu.family,
					       model, st, why, ra, a, rb, b);
				}
	printf("diff_errata: %lu processors: %lu only ptdecode knows, %lu "
	       "without SKL014 as in later libipt, %lu other differences: "
	       "%s\n",
	       n.cases, n.newer, n.dropped, n.failures,
	       n.failures ? "FAILED" : "passed");
	ptd_libipt_close(&ipt);
	return n.failures ? 1 : 0;
}
