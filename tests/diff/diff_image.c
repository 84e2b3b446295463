/* SPDX-License-Identifier: BSD-3-Clause */
/* Differential test of the traced image against libipt 2.0.5's.
 *
 * Each trial builds the same images and image section caches in both
 * libraries with random operations on a few small files (pt_image_add_file
 * with offsets and sizes in and beyond the files, pt_iscache_add_file,
 * pt_image_add_cached with good and bad isids, pt_image_copy both ways
 * between two images, pt_image_remove_by_filename/_by_asid, and
 * pt_iscache_read) with address spaces from a small set (any, CR3 only,
 * CR3 and VMCS, a truncated struct pt_asid), at addresses chosen so that
 * sections overlap a lot.  Every return value must be equal, and
 * pt_iscache_read's bytes too.  (Images that hold pieces of split sections
 * are not copied: libipt 2.0.5 copies such pieces wrongly.)
 *
 * libipt has no function that reads an image, so its instruction-flow
 * decoder reads it for us: the files hold only one-byte instructions that
 * do not branch (32-bit code), and a trace of PSB, PIP, VMCS, MODE.Exec,
 * PSBEND, TIP.PGE makes pt_insn_next() walk the image byte by byte from
 * the TIP.PGE address until an address is not mapped.  Every instruction's
 * address, byte and isid, and the address where the walk stops with
 * -pte_nomap, must be what ptd_image_read() returns for the same address
 * space.
 *
 * Usage: diff_image [--seed N] [--trials N] [-v]
 * Exit status: 0 pass, 1 failure, 77 libipt.so.2 not loadable (skip). */
#define _POSIX_C_SOURCE 200809L

#include "ptdecode/ptdecode.h"

#include "image/image.h"
#include "image/image_int.h"
#include "libipt_dl.h"
#include "pktgen.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PTD_EXIT_SKIP 77

enum { nfiles = 4, file_size = 0x3000, base = 0x10000, span = 0x5000 };

/* libipt 2.0.5's struct pt_insn. */
struct ipt_insn {
	uint64_t ip;
	int isid;
	int mode;
	int iclass;
	uint8_t raw[15];
	uint8_t size;
	uint32_t speculative : 1;
	uint32_t truncated : 1;
};

struct ipt_insn_decoder;

/* libipt's instruction-flow decoder, loaded here (libipt_dl has no
 * instruction-flow functions of its own yet). */
struct ipt_flow {
	struct ipt_insn_decoder *(*alloc)(const struct pt_config *config);
	void (*free)(struct ipt_insn_decoder *decoder);
	int (*sync_forward)(struct ipt_insn_decoder *decoder);
	int (*set_image)(struct ipt_insn_decoder *decoder,
	                 struct ptd_ipt_image *image);
	int (*next)(struct ipt_insn_decoder *decoder, struct ipt_insn *insn,
	            size_t size);
	int (*event)(struct ipt_insn_decoder *decoder,
	             struct ptd_ipt_event *event, size_t size);
};

static int load_sym(void *handle, const char *name, void *fn)
{
	void *sym = dlsym(handle, name);

	if (!sym) {
		fprintf(stderr, "diff_image: skipped: libipt lacks %s\n", name);
		return -1;
	}
	memcpy(fn, &sym, sizeof(sym));
	return 0;
}

static int load_flow(struct ptd_libipt *ipt, struct ipt_flow *flow)
{
	return load_sym(ipt->handle, "pt_insn_alloc_decoder", &flow->alloc) ||
	       load_sym(ipt->handle, "pt_insn_free_decoder", &flow->free) ||
	       load_sym(ipt->handle, "pt_insn_sync_forward",
	                &flow->sync_forward) ||
	       load_sym(ipt->handle, "pt_insn_set_image", &flow->set_image) ||
	       load_sym(ipt->handle, "pt_insn_next", &flow->next) ||
	       load_sym(ipt->handle, "pt_insn_event", &flow->event);
}

/* One-byte 32-bit instructions that do not change the control flow. */
static const uint8_t insn_bytes[] = {
        0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a,
        0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55,
        0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x90,
        0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9e, 0x9f,
        0xf5, 0xf8, 0xf9, 0xfc, 0xfd, 0x27, 0x2f, 0x37, 0x3f};

/* The address spaces sections are added in (NULL = any). */
static const struct pt_asid asids[] = {
        {sizeof(struct pt_asid), UINT64_MAX, UINT64_MAX},
        {sizeof(struct pt_asid), 0x1000, UINT64_MAX},
        {sizeof(struct pt_asid), 0x2000, UINT64_MAX},
        {sizeof(struct pt_asid), 0x1000, 0x5000},
        {offsetof(struct pt_asid, vmcs), 0x2000, 0x5000}, /* = 0x2000 */
        {0, 0x3000, 0x5000},                              /* = any */
};
enum { nasids = sizeof(asids) / sizeof(asids[0]) };

/* The address spaces of the walks: CR3 (0 for none: no PIP) and VMCS (0
 * for none).  A walk without PIP would look up with an unknown CR3, which
 * matches sections of different CR3s that may overlap; which one wins
 * there is not defined the same way (docs/image.md), so no walk does. */
static const uint64_t walk_cr3[] = {0x1000, 0x2000, 0x3000};
static const uint64_t walk_vmcs[] = {0, 0x5000, 0x6000};

struct ctx {
	struct ptd_libipt *ipt;
	struct ipt_flow *flow;
	struct ptd_rng rng;
	char files[nfiles + 1][128];
	int verbose;
	unsigned failures;
	unsigned long ops, steps, walks;

	/* Both libraries' objects: two images and a cache. */
	struct pt_image *img[2];
	struct ptd_ipt_image *iimg[2];
	struct pt_image_section_cache *ic;
	struct ptd_ipt_iscache *iic;
	int nisids;
};

static uint64_t below(struct ctx *c, uint64_t n)
{
	return ptd_rng_below(&c->rng, n);
}

static void fail(struct ctx *c, const char *what, long ours, long theirs)
{
	c->failures += 1;
	fprintf(stderr, "diff_image: %s: ptdecode %ld, libipt %ld\n", what,
	        ours, theirs);
}

static const struct pt_asid *pick_asid(struct ctx *c)
{
	uint64_t i = below(c, nasids + 1);

	return i == nasids ? NULL : &asids[i];
}

static uint64_t pick_vaddr(struct ctx *c)
{
	/* Mostly on 16-byte boundaries, so that sections meet exactly. */
	uint64_t v = base + below(c, span);

	return below(c, 4) ? v & ~(uint64_t)0xf : v;
}

static uint64_t pick_size(struct ctx *c)
{
	switch (below(c, 8)) {
	case 0:
		return 0;
	case 1:
		return below(c, 16) + 1;
	case 2:
		return UINT64_MAX;
	default:
		return (below(c, 0x100) + 1) * 0x10;
	}
}

static uint64_t pick_offset(struct ctx *c)
{
	switch (below(c, 10)) {
	case 0:
		return file_size + below(c, 2);
	case 1:
		return file_size - 1 - below(c, 16);
	default:
		return below(c, file_size) & ~(uint64_t)(below(c, 2) ? 0xf : 0);
	}
}

static void check(struct ctx *c, const char *what, int ours, int theirs)
{
	c->ops += 1;
	if (ours != theirs)
		fail(c, what, ours, theirs);
	else if (c->verbose > 1)
		fprintf(stderr, "  %s -> %d\n", what, ours);
}

/* Whether @image holds a piece of a split section. */
static int has_pieces(const struct pt_image *image)
{
	size_t i;

	for (i = 0; i < image->count; ++i)
		if (image->entries[i].sec->kind == ptd_sk_view)
			return 1;
	return 0;
}

/* One random operation on both sides. */
static void operate(struct ctx *c)
{
	const struct pt_asid *asid;
	const char *file;
	uint64_t offset, size, vaddr;
	unsigned k = (unsigned)below(c, 2);
	int isid;

	file = c->files[below(c, 8) ? below(c, nfiles) : nfiles];
	switch (below(c, 14)) {
	case 0:
	case 1:
	case 2:
	case 3:
		offset = pick_offset(c);
		size = pick_size(c);
		vaddr = pick_vaddr(c);
		asid = pick_asid(c);
		check(c, "pt_image_add_file",
		      pt_image_add_file(c->img[k], file, offset, size, asid,
		                        vaddr),
		      c->ipt->image_add_file(c->iimg[k], file, offset, size,
		                             asid, vaddr));
		break;
	case 4:
	case 5:
		offset = pick_offset(c);
		size = pick_size(c);
		vaddr = pick_vaddr(c);
		isid = pt_iscache_add_file(c->ic, file, offset, size, vaddr);
		check(c, "pt_iscache_add_file", isid,
		      c->ipt->iscache_add_file(c->iic, file, offset, size,
		                               vaddr));
		if (isid > c->nisids)
			c->nisids = isid;
		break;
	case 6:
	case 7:
	case 8:
		isid = (int)below(c, (uint64_t)c->nisids + 2);
		asid = pick_asid(c);
		check(c, "pt_image_add_cached",
		      pt_image_add_cached(c->img[k], c->ic, isid, asid),
		      c->ipt->image_add_cached(c->iimg[k], c->iic, isid, asid));
		break;
	case 9:
		/* libipt 2.0.5 copies the whole file section for each piece
		 * of a split one, placed at the piece's address (wrong bytes
		 * after the piece's start; docs/compatibility.md), so copy
		 * only images without pieces. */
		if (has_pieces(c->img[!k]))
			break;
		check(c, "pt_image_copy", pt_image_copy(c->img[k], c->img[!k]),
		      c->ipt->image_copy(c->iimg[k], c->iimg[!k]));
		break;
	case 10:
		asid = pick_asid(c);
		check(c, "pt_image_remove_by_filename",
		      pt_image_remove_by_filename(c->img[k], file, asid),
		      c->ipt->image_remove_by_filename(c->iimg[k], file, asid));
		break;
	case 11:
		if (below(c, 4))
			break;
		asid = pick_asid(c);
		check(c, "pt_image_remove_by_asid",
		      pt_image_remove_by_asid(c->img[k], asid),
		      c->ipt->image_remove_by_asid(c->iimg[k], asid));
		break;
	case 12: {
		uint8_t a[0x1100], b[0x1100];
		int ra, rb;

		isid = (int)below(c, (uint64_t)c->nisids + 2);
		vaddr = pick_vaddr(c);
		size = below(c, 3) ? below(c, 64) : below(c, sizeof(a));
		ra = pt_iscache_read(c->ic, a, size, isid, vaddr);
		rb = c->ipt->iscache_read(c->iic, b, size, isid, vaddr);
		check(c, "pt_iscache_read", ra, rb);
		if (ra > 0 && ra == rb && memcmp(a, b, (size_t)ra) != 0)
			fail(c, "pt_iscache_read bytes", 0, 1);
		break;
	}
	case 13: {
		uint64_t limit = below(c, 4) * 0x800;

		check(c, "pt_iscache_set_limit",
		      pt_iscache_set_limit(c->ic, limit),
		      c->ipt->iscache_set_limit(c->iic, limit));
		break;
	}
	}
}

/* Encode the trace of a walk from @ip into @buf; return its size. */
static size_t walk_trace(uint8_t *buf, size_t size, uint64_t cr3, uint64_t vmcs,
                         uint64_t ip)
{
	struct pt_packet pkts[6];
	struct pt_encoder *enc;
	struct pt_config config;
	uint64_t offset = 0;
	size_t n = 0, i;

	memset(pkts, 0, sizeof(pkts));
	pkts[n++].type = ppt_psb;
	if (cr3) {
		pkts[n].type = ppt_pip;
		pkts[n++].payload.pip.cr3 = cr3;
	}
	if (vmcs) {
		pkts[n].type = ppt_vmcs;
		pkts[n++].payload.vmcs.base = vmcs;
	}
	pkts[n].type = ppt_mode;
	pkts[n].payload.mode.leaf = pt_mol_exec;
	pkts[n++].payload.mode.bits.exec.csd = 1;
	pkts[n++].type = ppt_psbend;
	pkts[n].type = ppt_tip_pge;
	pkts[n].payload.ip.ipc = pt_ipc_sext_48;
	pkts[n++].payload.ip.ip = ip;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	enc = pt_alloc_encoder(&config);
	if (!enc)
		return 0;
	for (i = 0; i < n; ++i)
		if (pt_enc_next(enc, &pkts[i]) <= 0) {
			pt_free_encoder(enc);
			return 0;
		}
	pt_enc_get_offset(enc, &offset);
	pt_free_encoder(enc);
	return (size_t)offset;
}

/* Walk image @k from @ip in both libraries. */
static void walk(struct ctx *c, unsigned k, uint64_t ip)
{
	uint64_t cr3 = walk_cr3[below(c, sizeof(walk_cr3) / 8)];
	uint64_t vmcs = walk_vmcs[below(c, sizeof(walk_vmcs) / 8)];
	struct ipt_insn_decoder *dec;
	struct pt_config config;
	struct pt_asid asid;
	uint8_t trace[128];
	uint64_t next = ip;
	unsigned steps;
	size_t size;
	int status;

	size = walk_trace(trace, sizeof(trace), cr3, vmcs, ip);
	if (!size) {
		fail(c, "encoding a walk", 0, 0);
		return;
	}
	pt_asid_init(&asid);
	if (cr3)
		asid.cr3 = cr3;
	if (vmcs)
		asid.vmcs = vmcs;

	pt_config_init(&config);
	config.begin = trace;
	config.end = trace + size;
	dec = c->flow->alloc(&config);
	if (!dec) {
		fail(c, "libipt's pt_insn_alloc_decoder", 0, 0);
		return;
	}
	c->walks += 1;
	status = c->flow->set_image(dec, c->iimg[k]);
	if (status >= 0)
		status = c->flow->sync_forward(dec);
	for (steps = 0; status >= 0 && steps < 600; ++steps) {
		struct ipt_insn insn;
		uint8_t byte;
		int isid = -1, got;

		while (status >= 0 && (status & PTD_IPT_PTS_EVENT_PENDING)) {
			struct ptd_ipt_event ev;

			status = c->flow->event(dec, &ev, sizeof(ev));
		}
		if (status < 0)
			break;
		memset(&insn, 0, sizeof(insn));
		status = c->flow->next(dec, &insn, sizeof(insn));
		if (status < 0)
			break;
		c->steps += 1;
		got = ptd_image_read(c->img[k], &isid, &byte, 1, &asid,
		                     insn.ip);
		if (insn.ip != next || got != 1 || byte != insn.raw[0] ||
		    isid != insn.isid || insn.size != 1) {
			fprintf(stderr,
			        "diff_image: walk of image %u from %" PRIx64
			        " (cr3 %" PRIx64 ", vmcs %" PRIx64
			        ") at %" PRIx64 ": libipt byte %02x isid %d"
			        " size %u, ptdecode %d byte %02x isid %d\n",
			        k, ip, cr3, vmcs, insn.ip, insn.raw[0],
			        insn.isid, insn.size, got, byte, isid);
			c->failures += 1;
			break;
		}
		next = insn.ip + 1;
	}
	if (status < 0) {
		uint8_t byte;
		int isid, got;

		got = ptd_image_read(c->img[k], &isid, &byte, 1, &asid, next);
		if (status != -pte_nomap || got != -pte_nomap) {
			fprintf(stderr,
			        "diff_image: walk of image %u from %" PRIx64
			        " (cr3 %" PRIx64 ", vmcs %" PRIx64
			        ") ends at %" PRIx64
			        ": libipt %d, ptdecode %d\n",
			        k, ip, cr3, vmcs, next, status, got);
			c->failures += 1;
		}
	}
	c->flow->free(dec);
}

static int write_files(struct ctx *c, const char *dir)
{
	static uint8_t buf[file_size];
	unsigned f;
	size_t i;

	for (f = 0; f < nfiles; ++f) {
		FILE *file;

		snprintf(c->files[f], sizeof(c->files[f]), "%s/f%u", dir, f);
		for (i = 0; i < sizeof(buf); ++i)
			buf[i] = insn_bytes[below(c, sizeof(insn_bytes))];
		file = fopen(c->files[f], "wb");
		if (!file || fwrite(buf, 1, sizeof(buf), file) != sizeof(buf)) {
			if (file)
				fclose(file);
			return -1;
		}
		if (fclose(file) != 0)
			return -1;
	}
	snprintf(c->files[nfiles], sizeof(c->files[nfiles]), "%s/missing", dir);
	return 0;
}

int main(int argc, char **argv)
{
	struct ptd_libipt ipt;
	struct ipt_flow flow;
	struct ctx c;
	char msg[256], dir[64] = "/tmp/ptd-diff-image-XXXXXX";
	unsigned long trials = 300, t;
	uint64_t seed = 1;
	unsigned f;
	int i;

	memset(&c, 0, sizeof(c));
	for (i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--trials") == 0 && i + 1 < argc)
			trials = strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "-v") == 0)
			c.verbose += 1;
		else {
			fprintf(stderr, "usage: diff_image [--seed N] "
			                "[--trials N] [-v]\n");
			return 2;
		}
	}
	if (ptd_libipt_open(&ipt, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "diff_image: skipped: %s\n", msg);
		return PTD_EXIT_SKIP;
	}
	if (load_flow(&ipt, &flow) != 0) {
		ptd_libipt_close(&ipt);
		return PTD_EXIT_SKIP;
	}
	c.ipt = &ipt;
	c.flow = &flow;
	ptd_rng_seed(&c.rng, seed);
	if (!mkdtemp(dir) || write_files(&c, dir) < 0) {
		fprintf(stderr, "diff_image: cannot write files in /tmp\n");
		return 1;
	}

	for (t = 0; t < trials && c.failures < 5; ++t) {
		unsigned nops = 1 + (unsigned)below(&c, 60), op, k;

		c.img[0] = pt_image_alloc("a");
		c.img[1] = pt_image_alloc("b");
		c.iimg[0] = ipt.image_alloc("a");
		c.iimg[1] = ipt.image_alloc("b");
		c.ic = pt_iscache_alloc("c");
		c.iic = ipt.iscache_alloc("c");
		c.nisids = 0;
		if (!c.img[0] || !c.img[1] || !c.iimg[0] || !c.iimg[1] ||
		    !c.ic || !c.iic) {
			fprintf(stderr, "diff_image: out of memory\n");
			return 1;
		}
		for (op = 0; op < nops; ++op)
			operate(&c);
		for (k = 0; k < 2; ++k) {
			unsigned w;

			for (w = 0; w < 12; ++w)
				walk(&c, k, pick_vaddr(&c));
		}
		if (c.failures && c.verbose)
			fprintf(stderr, "diff_image: trial %lu failed\n", t);
		/* Free in a random order: sections outlive their cache. */
		if (below(&c, 2)) {
			pt_iscache_free(c.ic);
			ipt.iscache_free(c.iic);
			c.ic = NULL;
			c.iic = NULL;
		}
		pt_image_free(c.img[0]);
		pt_image_free(c.img[1]);
		ipt.image_free(c.iimg[0]);
		ipt.image_free(c.iimg[1]);
		if (c.ic) {
			pt_iscache_free(c.ic);
			ipt.iscache_free(c.iic);
		}
		c.ic = NULL;
		c.iic = NULL;
	}

	for (f = 0; f < nfiles; ++f)
		unlink(c.files[f]);
	rmdir(dir);
	ptd_libipt_close(&ipt);
	printf("diff_image: %lu trials, %lu operations, %lu walks, %lu "
	       "instructions compared, %u failures\n",
	       t, c.ops, c.walks, c.steps, c.failures);
	return c.failures ? 1 : 0;
}
