/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the output lines; see print.h. */
#include "print.h"
#include "disas.h"

#include <inttypes.h>
#include <stdio.h>

/* " xx" for each byte, padded to the longest instruction. */
static void ptxed_print_raw(const uint8_t *raw, uint8_t size)
{
	uint8_t i;

	if (size > pt_max_insn_size)
		size = pt_max_insn_size;
	for (i = 0; i < size; ++i)
		printf(" %02x", raw[i]);
	for (; i < pt_max_insn_size; ++i)
		fputs("   ", stdout);
}

void ptxed_print_insn(const struct ptxed_options *options,
                      struct ptd_ild_ctx *ild, uint64_t offset, uint64_t time,
                      int speculative, uint64_t ip, const uint8_t *raw,
                      uint8_t size, enum pt_exec_mode mode)
{
	char text[256];
	int err;

	if (options->print_offset)
		printf("%016" PRIx64 "  ", offset);
	if (options->print_time)
		printf("%016" PRIx64 "  ", time);
	if (speculative)
		fputs("? ", stdout);
	printf("%016" PRIx64, ip);
	if (!options->dont_print_insn) {
		err = ptxed_disas_format(ild, text, sizeof(text), raw, size,
		                         mode, ip, options->att_format);
		if (options->print_raw_insn || err < 0)
			ptxed_print_raw(raw, size);
		if (err < 0)
			printf(" [disassembly error: %s]",
			       pt_errstr(pt_errcode(err)));
		else
			printf("  %s", text);
	}
	putchar('\n');
}

static const char *ptxed_exec_mode_name(enum pt_exec_mode mode)
{
	switch (mode) {
	case ptem_unknown:
		return "<unknown>";
	case ptem_16bit:
		return "16-bit";
	case ptem_32bit:
		return "32-bit";
	case ptem_64bit:
		return "64-bit";
	}
	return "<invalid>";
}

/* ", ip: <ip>" if --event:ip and the event has one. */
static void ptxed_event_ip(const struct ptxed_options *options,
                           const struct pt_event *event, uint64_t ip)
{
	if (options->print_event_ip && !event->ip_suppressed)
		printf(", ip: %016" PRIx64, ip);
}

void ptxed_print_event(const struct pt_event *event,
                       const struct ptxed_options *options, uint64_t offset)
{
	const int show_ip = options->print_event_ip;

	putchar('[');
	if (options->print_offset)
		printf("%016" PRIx64 "  ", offset);
	if (options->print_event_time && event->has_tsc)
		printf("%016" PRIx64 "  ", event->tsc);

	switch (event->type) {
	case ptev_enabled:
		fputs(event->variant.enabled.resumed ? "resumed" : "enabled",
		      stdout);
		if (show_ip)
			printf(", ip: %016" PRIx64, event->variant.enabled.ip);
		break;
	case ptev_disabled:
		fputs("disabled", stdout);
		ptxed_event_ip(options, event, event->variant.disabled.ip);
		break;
	case ptev_async_disabled:
		fputs("disabled", stdout);
		if (show_ip) {
			printf(", at: %016" PRIx64,
			       event->variant.async_disabled.at);
			ptxed_event_ip(options, event,
			               event->variant.async_disabled.ip);
		}
		break;
	case ptev_async_branch:
		fputs("interrupt", stdout);
		if (show_ip) {
			printf(", from: %016" PRIx64,
			       event->variant.async_branch.from);
			if (!event->ip_suppressed)
				printf(", to: %016" PRIx64,
				       event->variant.async_branch.to);
		}
		break;
	case ptev_paging:
		printf("paging, cr3: %016" PRIx64 "%s",
		       event->variant.paging.cr3,
		       event->variant.paging.non_root ? ", nr" : "");
		break;
	case ptev_async_paging:
		printf("paging, cr3: %016" PRIx64 "%s",
		       event->variant.async_paging.cr3,
		       event->variant.async_paging.non_root ? ", nr" : "");
		if (show_ip)
			printf(", ip: %016" PRIx64,
			       event->variant.async_paging.ip);
		break;
	case ptev_overflow:
		fputs("overflow", stdout);
		ptxed_event_ip(options, event, event->variant.overflow.ip);
		break;
	case ptev_exec_mode:
		printf("exec mode: %s",
		       ptxed_exec_mode_name(event->variant.exec_mode.mode));
		ptxed_event_ip(options, event, event->variant.exec_mode.ip);
		break;
	case ptev_tsx:
		if (event->variant.tsx.aborted)
			fputs("aborted", stdout);
		else if (event->variant.tsx.speculative)
			fputs("begin transaction", stdout);
		else
			fputs("committed", stdout);
		ptxed_event_ip(options, event, event->variant.tsx.ip);
		break;
	case ptev_stop:
		fputs("stopped", stdout);
		break;
	case ptev_vmcs:
		printf("vmcs, base: %016" PRIx64, event->variant.vmcs.base);
		break;
	case ptev_async_vmcs:
		printf("vmcs, base: %016" PRIx64,
		       event->variant.async_vmcs.base);
		if (show_ip)
			printf(", ip: %016" PRIx64,
			       event->variant.async_vmcs.ip);
		break;
	case ptev_exstop:
		fputs("exstop", stdout);
		ptxed_event_ip(options, event, event->variant.exstop.ip);
		break;
	case ptev_mwait:
		printf("mwait %" PRIx32 " %" PRIx32, event->variant.mwait.hints,
		       event->variant.mwait.ext);
		ptxed_event_ip(options, event, event->variant.mwait.ip);
		break;
	case ptev_pwre:
		printf("pwre c%u.%u", (event->variant.pwre.state + 1u) & 0xfu,
		       (event->variant.pwre.sub_state + 1u) & 0xfu);
		if (event->variant.pwre.hw)
			fputs(" hw", stdout);
		break;
	case ptev_pwrx:
		fputs("pwrx ", stdout);
		if (event->variant.pwrx.interrupt)
			fputs("int: ", stdout);
		if (event->variant.pwrx.store)
			fputs("st: ", stdout);
		if (event->variant.pwrx.autonomous)
			fputs("hw: ", stdout);
		printf("c%u (c%u)", (event->variant.pwrx.last + 1u) & 0xfu,
		       (event->variant.pwrx.deepest + 1u) & 0xfu);
		break;
	case ptev_ptwrite:
		printf("ptwrite: %" PRIx64, event->variant.ptwrite.payload);
		ptxed_event_ip(options, event, event->variant.ptwrite.ip);
		break;
	case ptev_tick:
		fputs("tick", stdout);
		ptxed_event_ip(options, event, event->variant.tick.ip);
		break;
	case ptev_cbr:
		printf("cbr: %x", (unsigned)event->variant.cbr.ratio);
		break;
	case ptev_mnt:
		printf("mnt: %" PRIx64, event->variant.mnt.payload);
		break;
#if (LIBIPT_VERSION >= 0x201)
	case ptev_tip:
		printf("tip: %" PRIx64, event->variant.tip.ip);
		break;
	case ptev_tnt: {
		uint8_t i = event->variant.tnt.size;

		fputs("tnt: ", stdout);
		while (i--)
			putchar((event->variant.tnt.bits >> i) & 1 ? '!' : '.');
		break;
	}
	case ptev_iflags:
		printf("interrupts %s",
		       event->variant.iflags.iflag ? "enabled" : "disabled");
		ptxed_event_ip(options, event, event->variant.iflags.ip);
		break;
	case ptev_interrupt:
		printf("interrupt %u",
		       (unsigned)event->variant.interrupt.vector);
		if (event->variant.interrupt.has_cr2)
			printf(", cr2: %016" PRIx64,
			       event->variant.interrupt.cr2);
		ptxed_event_ip(options, event, event->variant.interrupt.ip);
		break;
	case ptev_iret:
		fputs("iret", stdout);
		ptxed_event_ip(options, event, event->variant.iret.ip);
		break;
	case ptev_smi:
		fputs("smi", stdout);
		ptxed_event_ip(options, event, event->variant.smi.ip);
		break;
	case ptev_rsm:
		fputs("rsm", stdout);
		ptxed_event_ip(options, event, event->variant.rsm.ip);
		break;
	case ptev_sipi:
		printf("sipi: %x", (unsigned)event->variant.sipi.vector);
		break;
	case ptev_init:
		fputs("init", stdout);
		ptxed_event_ip(options, event, event->variant.init.ip);
		break;
	case ptev_vmentry:
		fputs("vmentry", stdout);
		ptxed_event_ip(options, event, event->variant.vmentry.ip);
		break;
	case ptev_vmexit:
		fputs("vmexit", stdout);
		if (event->variant.vmexit.has_vector)
			printf(", intr: %u",
			       (unsigned)event->variant.vmexit.vector);
		if (event->variant.vmexit.has_vmxr)
			printf(", vmxr: %016" PRIx64,
			       event->variant.vmexit.vmxr);
		if (event->variant.vmexit.has_vmxq)
			printf(", vmxq: %016" PRIx64,
			       event->variant.vmexit.vmxq);
		ptxed_event_ip(options, event, event->variant.vmexit.ip);
		break;
	case ptev_shutdown:
		fputs("shutdown", stdout);
		ptxed_event_ip(options, event, event->variant.shutdown.ip);
		break;
	case ptev_uintr:
		printf("uintr %u", (unsigned)event->variant.uintr.vector);
		ptxed_event_ip(options, event, event->variant.uintr.ip);
		break;
	case ptev_uiret:
		fputs("uiret", stdout);
		ptxed_event_ip(options, event, event->variant.uiret.ip);
		break;
#endif
#if (LIBIPT_VERSION >= 0x202)
	case ptev_trig:
		printf("trig %02x", (unsigned)event->variant.trig.trbv);
		if (event->variant.trig.mult)
			fputs(", mult", stdout);
		ptxed_event_ip(options, event, event->variant.trig.ip);
		if (event->variant.trig.icnt)
			printf(", icnt: %u",
			       (unsigned)event->variant.trig.icnt);
		break;
	case ptev_swintr:
		printf("swintr %u", (unsigned)event->variant.swintr.vector);
		ptxed_event_ip(options, event, event->variant.swintr.ip);
		break;
	case ptev_syscall:
		fputs("syscall", stdout);
		ptxed_event_ip(options, event, event->variant.syscall.ip);
		break;
#endif
	default:
		printf("event %d", (int)event->type);
		break;
	}
	puts("]");
}

void ptxed_print_error(int have_offset, uint64_t offset, uint64_t ip,
                       const char *errtype, int errcode)
{
	if (have_offset)
		printf("[%" PRIx64 ", %" PRIx64 ": %s: %s]\n", offset, ip,
		       errtype, pt_errstr(pt_errcode(errcode)));
	else
		printf("[?, %" PRIx64 ": %s: %s]\n", ip, errtype,
		       pt_errstr(pt_errcode(errcode)));
}

void ptxed_print_stats(const struct ptxed_stats *stats)
{
	if (stats->flags & ptxed_stat_insn)
		printf("insn: %" PRIu64 ".\n", stats->insn);
	if (stats->flags & ptxed_stat_blocks)
		printf("blocks:\t%" PRIu64 ".\n", stats->blocks);
}
