/* SPDX-License-Identifier: BSD-3-Clause */
/* ptqry: ptdecode's and libipt's query decoders behind one table. */
#include "qry_backend.h"

#include "libipt_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ptdecode ---------------------------------------------------------- */

static int ours_sync_forward(void *d, uint64_t *ip)
{
	return pt_qry_sync_forward(d, ip);
}

static int ours_sync_backward(void *d, uint64_t *ip)
{
	return pt_qry_sync_backward(d, ip);
}

static int ours_sync_set(void *d, uint64_t *ip, uint64_t offset)
{
	return pt_qry_sync_set(d, ip, offset);
}

static int ours_get_offset(void *d, uint64_t *offset)
{
	return pt_qry_get_offset(d, offset);
}

static int ours_get_sync_offset(void *d, uint64_t *offset)
{
	return pt_qry_get_sync_offset(d, offset);
}

static int ours_cond_branch(void *d, int *taken)
{
	return pt_qry_cond_branch(d, taken);
}

static int ours_indirect_branch(void *d, uint64_t *ip)
{
	return pt_qry_indirect_branch(d, ip);
}

static int ours_event(void *d, struct pt_event *event)
{
	memset(event, 0, sizeof(*event));
	return pt_qry_event(d, event, sizeof(*event));
}

static int ours_time(void *d, uint64_t *time, uint32_t *lost_mtc,
                     uint32_t *lost_cyc)
{
	return pt_qry_time(d, time, lost_mtc, lost_cyc);
}

static int ours_core_bus_ratio(void *d, uint32_t *cbr)
{
	return pt_qry_core_bus_ratio(d, cbr);
}

static void ours_free(void *d)
{
	pt_qry_free_decoder(d);
}

int ptqry_open_ptdecode(struct ptqry_backend *backend,
                        const struct ptqry_decoder_options *options, char *msg,
                        size_t size)
{
	struct ptd_time_config tconfig;

	memset(backend, 0, sizeof(*backend));
	ptd_time_config_init(&tconfig);
	if (options->time_libipt)
		tconfig.mode = ptd_time_mode_libipt;
	backend->decoder = ptd_qry_alloc_decoder(&options->config, &tconfig);
	if (!backend->decoder) {
		snprintf(msg, size, "cannot allocate ptdecode's query decoder");
		return -1;
	}
	backend->name = "ptdecode";
	backend->sync_forward = ours_sync_forward;
	backend->sync_backward = ours_sync_backward;
	backend->sync_set = ours_sync_set;
	backend->get_offset = ours_get_offset;
	backend->get_sync_offset = ours_get_sync_offset;
	backend->cond_branch = ours_cond_branch;
	backend->indirect_branch = ours_indirect_branch;
	backend->event = ours_event;
	backend->time = ours_time;
	backend->core_bus_ratio = ours_core_bus_ratio;
	backend->free_decoder = ours_free;
	return 0;
}

/* ---- libipt 2.0.5 ------------------------------------------------------ */

/* libipt's decoder with the functions tests/support/libipt_dl.h does not
 * load, looked up in the same library handle. */
struct ptqry_ipt {
	struct ptd_libipt lib;
	struct ptd_ipt_qry_decoder *decoder;

	int (*sync_backward)(struct ptd_ipt_qry_decoder *decoder, uint64_t *ip);
	int (*sync_set)(struct ptd_ipt_qry_decoder *decoder, uint64_t *ip,
	                uint64_t offset);
	int (*get_sync_offset)(const struct ptd_ipt_qry_decoder *decoder,
	                       uint64_t *offset);
	int (*core_bus_ratio)(struct ptd_ipt_qry_decoder *decoder,
	                      uint32_t *cbr);
};

static int ipt_sync_forward(void *d, uint64_t *ip)
{
	struct ptqry_ipt *ipt = d;

	return ipt->lib.qry_sync_forward(ipt->decoder, ip);
}

static int ipt_sync_backward(void *d, uint64_t *ip)
{
	struct ptqry_ipt *ipt = d;

	return ipt->sync_backward(ipt->decoder, ip);
}

static int ipt_sync_set(void *d, uint64_t *ip, uint64_t offset)
{
	struct ptqry_ipt *ipt = d;

	return ipt->sync_set(ipt->decoder, ip, offset);
}

static int ipt_get_offset(void *d, uint64_t *offset)
{
	struct ptqry_ipt *ipt = d;

	return ipt->lib.qry_get_offset(ipt->decoder, offset);
}

static int ipt_get_sync_offset(void *d, uint64_t *offset)
{
	struct ptqry_ipt *ipt = d;

	return ipt->get_sync_offset(ipt->decoder, offset);
}

static int ipt_cond_branch(void *d, int *taken)
{
	struct ptqry_ipt *ipt = d;

	return ipt->lib.qry_cond_branch(ipt->decoder, taken);
}

static int ipt_indirect_branch(void *d, uint64_t *ip)
{
	struct ptqry_ipt *ipt = d;

	return ipt->lib.qry_indirect_branch(ipt->decoder, ip);
}

/* libipt 2.0.5's struct pt_event has the same layout as ours up to and
 * including every variant it knows; copy what fits. */
static int ipt_event(void *d, struct pt_event *event)
{
	struct ptqry_ipt *ipt = d;
	struct ptd_ipt_event iev;
	size_t n = sizeof(iev) < sizeof(*event) ? sizeof(iev) : sizeof(*event);
	int status;

	memset(&iev, 0, sizeof(iev));
	status = ipt->lib.qry_event(ipt->decoder, &iev, sizeof(iev));
	memset(event, 0, sizeof(*event));
	memcpy(event, &iev, n);
	return status;
}

static int ipt_time(void *d, uint64_t *time, uint32_t *lost_mtc,
                    uint32_t *lost_cyc)
{
	struct ptqry_ipt *ipt = d;

	return ipt->lib.qry_time(ipt->decoder, time, lost_mtc, lost_cyc);
}

static int ipt_core_bus_ratio(void *d, uint32_t *cbr)
{
	struct ptqry_ipt *ipt = d;

	return ipt->core_bus_ratio(ipt->decoder, cbr);
}

static void ipt_free(void *d)
{
	struct ptqry_ipt *ipt = d;

	if (ipt->decoder)
		ipt->lib.qry_free_decoder(ipt->decoder);
	ptd_libipt_close(&ipt->lib);
	free(ipt);
}

/* Look up @name in the library of @ipt into the function pointer at @fn
 * (POSIX lets dlsym's result be used as a function pointer; copy the
 * bits, as libipt_dl.c does). */
static int ipt_sym(struct ptqry_ipt *ipt, const char *name, void *fn,
                   size_t fnsize, char *msg, size_t size)
{
	void *sym = dlsym(ipt->lib.handle, name);

	if (!sym || fnsize != sizeof(sym)) {
		snprintf(msg, size, "the libipt library lacks %s", name);
		return -1;
	}
	memcpy(fn, &sym, sizeof(sym));
	return 0;
}

int ptqry_open_libipt(struct ptqry_backend *backend,
                      const struct ptqry_decoder_options *options, char *msg,
                      size_t size)
{
	struct ptqry_ipt *ipt;

	memset(backend, 0, sizeof(*backend));
	ipt = calloc(1, sizeof(*ipt));
	if (!ipt) {
		snprintf(msg, size, "out of memory");
		return -1;
	}
	if (ptd_libipt_open(&ipt->lib, msg, size) < 0) {
		free(ipt);
		return -2;
	}
	if (ipt_sym(ipt, "pt_qry_sync_backward", &ipt->sync_backward,
	            sizeof(ipt->sync_backward), msg, size) < 0 ||
	    ipt_sym(ipt, "pt_qry_sync_set", &ipt->sync_set,
	            sizeof(ipt->sync_set), msg, size) < 0 ||
	    ipt_sym(ipt, "pt_qry_get_sync_offset", &ipt->get_sync_offset,
	            sizeof(ipt->get_sync_offset), msg, size) < 0 ||
	    ipt_sym(ipt, "pt_qry_core_bus_ratio", &ipt->core_bus_ratio,
	            sizeof(ipt->core_bus_ratio), msg, size) < 0) {
		ipt_free(ipt);
		return -2;
	}
	ipt->decoder = ipt->lib.qry_alloc_decoder(&options->config);
	if (!ipt->decoder) {
		snprintf(msg, size, "cannot allocate libipt's query decoder");
		ipt_free(ipt);
		return -1;
	}
	backend->name = "libipt";
	backend->decoder = ipt;
	backend->sync_forward = ipt_sync_forward;
	backend->sync_backward = ipt_sync_backward;
	backend->sync_set = ipt_sync_set;
	backend->get_offset = ipt_get_offset;
	backend->get_sync_offset = ipt_get_sync_offset;
	backend->cond_branch = ipt_cond_branch;
	backend->indirect_branch = ipt_indirect_branch;
	backend->event = ipt_event;
	backend->time = ipt_time;
	backend->core_bus_ratio = ipt_core_bus_ratio;
	backend->free_decoder = ipt_free;
	return 0;
}

void ptqry_close(struct ptqry_backend *backend)
{
	if (backend->decoder && backend->free_decoder)
		backend->free_decoder(backend->decoder);
	memset(backend, 0, sizeof(*backend));
}
