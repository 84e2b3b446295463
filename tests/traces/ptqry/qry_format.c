/* SPDX-License-Identifier: BSD-3-Clause */
/* ptqry: the text form of query results. */
#include "qry_format.h"

#include <inttypes.h>

void ptqry_print_flags(FILE *out, int status)
{
	if (status & pts_ip_suppressed)
		fputs(" suppressed", out);
	if (status & pts_event_pending)
		fputs(" pending", out);
	if (status & pts_eos)
		fputs(" eos", out);
}

static const char *const ptqry_error_names[] = {"ok",
                                                "internal",
                                                "invalid",
                                                "nosync",
                                                "bad_opc",
                                                "bad_packet",
                                                "bad_context",
                                                "eos",
                                                "bad_query",
                                                "nomem",
                                                "bad_config",
                                                "noip",
                                                "ip_suppressed",
                                                "nomap",
                                                "bad_insn",
                                                "no_time",
                                                "no_cbr",
                                                "bad_image",
                                                "bad_lock",
                                                "not_supported",
                                                "retstack_empty",
                                                "bad_retcomp",
                                                "bad_status_update",
                                                "no_enable",
                                                "event_ignored",
                                                "overflow",
                                                "bad_file",
                                                "bad_cpu"};

const char *ptqry_error_name(int status)
{
	unsigned code = status < 0 ? (unsigned)-status : 0;

	if (code < sizeof(ptqry_error_names) / sizeof(ptqry_error_names[0]))
		return ptqry_error_names[code];
	return NULL;
}

void ptqry_print_error(FILE *out, int status)
{
	const char *name = ptqry_error_name(status);

	if (name)
		fprintf(out, " error %s", name);
	else
		fprintf(out, " error %d", status);
}

static const char *const ptqry_event_names[] = {
        "enabled",      "disabled",  "async_disabled",
        "async_branch", "paging",    "async_paging",
        "overflow",     "exec_mode", "tsx",
        "stop",         "vmcs",      "async_vmcs",
        "exstop",       "mwait",     "pwre",
        "pwrx",         "ptwrite",   "tick",
        "cbr",          "mnt",       "tip",
        "tnt",          "iflags",    "interrupt",
        "iret",         "smi",       "rsm",
        "sipi",         "init",      "vmentry",
        "vmexit",       "shutdown",  "uintr",
        "uiret",        "trig",      "swintr",
        "syscall"};

const char *ptqry_event_name(int type)
{
	if (type < 0 || (size_t)type >= sizeof(ptqry_event_names) /
	                                        sizeof(ptqry_event_names[0]))
		return NULL;
	return ptqry_event_names[type];
}

/* " <key> <16 hex digits>" */
static void ptqry_ip(FILE *out, const char *key, uint64_t ip)
{
	fprintf(out, " %s %016" PRIx64, key, ip);
}

/* " <key> <16 hex digits>" unless the event's IP is suppressed. */
static void ptqry_eip(FILE *out, const struct pt_event *ev, const char *key,
                      uint64_t ip)
{
	if (!ev->ip_suppressed)
		ptqry_ip(out, key, ip);
}

/* " <key> 0x<hex>" */
static void ptqry_num(FILE *out, const char *key, uint64_t value)
{
	fprintf(out, " %s 0x%" PRIx64, key, value);
}

static void ptqry_word(FILE *out, int set, const char *word)
{
	if (set)
		fprintf(out, " %s", word);
}

static const char *ptqry_mode_name(enum pt_exec_mode mode)
{
	switch (mode) {
	case ptem_16bit:
		return "16bit";
	case ptem_32bit:
		return "32bit";
	case ptem_64bit:
		return "64bit";
	case ptem_unknown:
		break;
	}
	return "unknown";
}

/* The fields of the events libipt 2.0.5 knows too. */
static void ptqry_print_classic(FILE *out, const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_enabled:
		ptqry_ip(out, "ip", ev->variant.enabled.ip);
		ptqry_word(out, ev->variant.enabled.resumed, "resumed");
		break;
	case ptev_disabled:
		ptqry_eip(out, ev, "ip", ev->variant.disabled.ip);
		break;
	case ptev_async_disabled:
		ptqry_ip(out, "at", ev->variant.async_disabled.at);
		ptqry_eip(out, ev, "ip", ev->variant.async_disabled.ip);
		break;
	case ptev_async_branch:
		ptqry_ip(out, "from", ev->variant.async_branch.from);
		ptqry_eip(out, ev, "to", ev->variant.async_branch.to);
		break;
	case ptev_paging:
		ptqry_num(out, "cr3", ev->variant.paging.cr3);
		ptqry_word(out, ev->variant.paging.non_root, "nr");
		break;
	case ptev_async_paging:
		ptqry_num(out, "cr3", ev->variant.async_paging.cr3);
		ptqry_word(out, ev->variant.async_paging.non_root, "nr");
		ptqry_eip(out, ev, "ip", ev->variant.async_paging.ip);
		break;
	case ptev_overflow:
		ptqry_eip(out, ev, "ip", ev->variant.overflow.ip);
		break;
	case ptev_exec_mode:
		fprintf(out, " mode %s",
		        ptqry_mode_name(ev->variant.exec_mode.mode));
		ptqry_eip(out, ev, "ip", ev->variant.exec_mode.ip);
		break;
	case ptev_tsx:
		ptqry_word(out, ev->variant.tsx.speculative, "speculative");
		ptqry_word(out, ev->variant.tsx.aborted, "aborted");
		ptqry_eip(out, ev, "ip", ev->variant.tsx.ip);
		break;
	case ptev_vmcs:
		ptqry_num(out, "base", ev->variant.vmcs.base);
		break;
	case ptev_async_vmcs:
		ptqry_num(out, "base", ev->variant.async_vmcs.base);
		ptqry_eip(out, ev, "ip", ev->variant.async_vmcs.ip);
		break;
	case ptev_exstop:
		ptqry_eip(out, ev, "ip", ev->variant.exstop.ip);
		break;
	case ptev_mwait:
		ptqry_num(out, "hints", ev->variant.mwait.hints);
		ptqry_num(out, "ext", ev->variant.mwait.ext);
		ptqry_eip(out, ev, "ip", ev->variant.mwait.ip);
		break;
	case ptev_pwre:
		ptqry_num(out, "state", ev->variant.pwre.state);
		ptqry_num(out, "sub-state", ev->variant.pwre.sub_state);
		ptqry_word(out, ev->variant.pwre.hw, "hw");
		break;
	case ptev_pwrx:
		ptqry_num(out, "last", ev->variant.pwrx.last);
		ptqry_num(out, "deepest", ev->variant.pwrx.deepest);
		ptqry_word(out, ev->variant.pwrx.interrupt, "interrupt");
		ptqry_word(out, ev->variant.pwrx.store, "store");
		ptqry_word(out, ev->variant.pwrx.autonomous, "autonomous");
		break;
	case ptev_ptwrite:
		ptqry_num(out, "size", ev->variant.ptwrite.size);
		ptqry_num(out, "payload", ev->variant.ptwrite.payload);
		ptqry_eip(out, ev, "ip", ev->variant.ptwrite.ip);
		break;
	case ptev_tick:
		ptqry_eip(out, ev, "ip", ev->variant.tick.ip);
		break;
	case ptev_cbr:
		ptqry_num(out, "ratio", ev->variant.cbr.ratio);
		break;
	case ptev_mnt:
		ptqry_num(out, "payload", ev->variant.mnt.payload);
		break;
	default:
		break;
	}
}

/* The fields of the events of libipt 2.1 and later (Event Trace, TRIG). */
static void ptqry_print_new(FILE *out, const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_tip:
		ptqry_eip(out, ev, "ip", ev->variant.tip.ip);
		break;
	case ptev_tnt:
		ptqry_num(out, "bits", ev->variant.tnt.bits);
		ptqry_num(out, "size", ev->variant.tnt.size);
		break;
	case ptev_iflags:
		ptqry_num(out, "iflag", ev->variant.iflags.iflag);
		ptqry_eip(out, ev, "ip", ev->variant.iflags.ip);
		break;
	case ptev_interrupt:
		ptqry_num(out, "vector", ev->variant.interrupt.vector);
		if (ev->variant.interrupt.has_cr2)
			ptqry_num(out, "cr2", ev->variant.interrupt.cr2);
		ptqry_eip(out, ev, "ip", ev->variant.interrupt.ip);
		break;
	case ptev_iret:
		ptqry_eip(out, ev, "ip", ev->variant.iret.ip);
		break;
	case ptev_smi:
		ptqry_eip(out, ev, "ip", ev->variant.smi.ip);
		break;
	case ptev_rsm:
		ptqry_eip(out, ev, "ip", ev->variant.rsm.ip);
		break;
	case ptev_sipi:
		ptqry_num(out, "vector", ev->variant.sipi.vector);
		break;
	case ptev_init:
		ptqry_eip(out, ev, "ip", ev->variant.init.ip);
		break;
	case ptev_vmentry:
		ptqry_eip(out, ev, "ip", ev->variant.vmentry.ip);
		break;
	case ptev_vmexit:
		if (ev->variant.vmexit.has_vector)
			ptqry_num(out, "vector", ev->variant.vmexit.vector);
		if (ev->variant.vmexit.has_vmxr)
			ptqry_num(out, "vmxr", ev->variant.vmexit.vmxr);
		if (ev->variant.vmexit.has_vmxq)
			ptqry_num(out, "vmxq", ev->variant.vmexit.vmxq);
		ptqry_eip(out, ev, "ip", ev->variant.vmexit.ip);
		break;
	case ptev_shutdown:
		ptqry_eip(out, ev, "ip", ev->variant.shutdown.ip);
		break;
	case ptev_uintr:
		ptqry_num(out, "vector", ev->variant.uintr.vector);
		ptqry_eip(out, ev, "ip", ev->variant.uintr.ip);
		break;
	case ptev_uiret:
		ptqry_eip(out, ev, "ip", ev->variant.uiret.ip);
		break;
	case ptev_trig:
		ptqry_num(out, "trbv", ev->variant.trig.trbv);
		ptqry_num(out, "icnt", ev->variant.trig.icnt);
		ptqry_word(out, ev->variant.trig.mult, "mult");
		ptqry_eip(out, ev, "ip", ev->variant.trig.ip);
		break;
	case ptev_swintr:
		ptqry_num(out, "vector", ev->variant.swintr.vector);
		ptqry_eip(out, ev, "ip", ev->variant.swintr.ip);
		break;
	case ptev_syscall:
		ptqry_eip(out, ev, "ip", ev->variant.syscall.ip);
		break;
	default:
		break;
	}
}

void ptqry_print_event(FILE *out, const struct pt_event *ev)
{
	const char *name = ptqry_event_name((int)ev->type);

	if (name)
		fprintf(out, " %s", name);
	else
		fprintf(out, " type-%d", (int)ev->type);
	if (ev->type < ptev_tip)
		ptqry_print_classic(out, ev);
	else
		ptqry_print_new(out, ev);
	ptqry_word(out, ev->ip_suppressed, "ip-suppressed");
	ptqry_word(out, ev->status_update, "status-update");
	if (ev->has_tsc)
		ptqry_num(out, "tsc", ev->tsc);
	if (ev->lost_mtc)
		ptqry_num(out, "lost-mtc", ev->lost_mtc);
	if (ev->lost_cyc)
		ptqry_num(out, "lost-cyc", ev->lost_cyc);
}
