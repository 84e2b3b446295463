/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: the output lines; see print.h. */
/* (glibc's fwrite_unlocked(): ptxed prints from one thread.) */
#define _DEFAULT_SOURCE 1

#include "print.h"
#include "disas.h"
#include "icache.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char ptxed_digits[] = "0123456789abcdef";

/* The 16 lowercase hexadecimal digits of @v at @p (printf's "%016" PRIx64,
 * which costs more than the rest of an instruction line). */
static char *ptxed_hex16(char *p, uint64_t v)
{
	int i;

	for (i = 15; i >= 0; --i) {
		p[i] = ptxed_digits[v & 0xf];
		v >>= 4;
	}
	return p + 16;
}

/* The time column at @p: the TSC @time in 16 hex digits, or with --perf:time
 * perf time in seconds with nine decimals (as `perf script --ns`); before
 * the first time (0), the hex digits. */
static char *ptxed_time_col(char *p, const struct ptxed_options *options,
                            uint64_t time)
{
	uint64_t ns;

	/* (Time 0: no time yet, which perf time would make a huge
	 * number.) */
	if (options->perf_time && options->have_perf_tc && time &&
	    ptd_perf_tsc_to_ns(&ns, &options->perf_tc, time) == 0)
		return p + sprintf(p, "%" PRIu64 ".%09" PRIu64,
		                   ns / 1000000000u, ns % 1000000000u);
	return ptxed_hex16(p, time);
}

void ptxed_print_time(const struct ptxed_options *options, uint64_t time)
{
	char col[32];

	*ptxed_time_col(col, options, time) = '\0';
	printf("%s  ", col);
}

/* " xx" for each byte, padded to the longest instruction, at @p. */
static char *ptxed_raw(char *p, const uint8_t *raw, uint8_t size)
{
	uint8_t i;

	if (size > pt_max_insn_size)
		size = pt_max_insn_size;
	for (i = 0; i < size; ++i) {
		*p++ = ' ';
		*p++ = ptxed_digits[raw[i] >> 4];
		*p++ = ptxed_digits[raw[i] & 0xf];
	}
	for (; i < pt_max_insn_size; ++i) {
		memcpy(p, "   ", 3);
		p += 3;
	}
	return p;
}

/* fwrite() to stdout without stdio's lock where the C library has such a
 * call. */
static void ptxed_out(const char *buf, size_t size)
{
#if defined(__GLIBC__)
	fwrite_unlocked(buf, 1, size, stdout);
#else
	fwrite(buf, 1, size, stdout);
#endif
}

/* Print an instruction line: @text is the disassembly (shorter than
 * ptxed_text_size), or NULL with the formatting error @err.  The line goes
 * out with one fwrite() (stdio's per-call locking cost more than the
 * rest). */
static void ptxed_print_line(const struct ptxed_options *options,
                             uint64_t offset, uint64_t time, int speculative,
                             uint64_t ip, const uint8_t *raw, uint8_t size,
                             const char *text, int err)
{
	/* (Offset, time (at most 30 characters), "? ", IP, raw bytes: at
	 * most 113 bytes; then two spaces, the text and the newline.) */
	char line[128 + ptxed_text_size], *p = line;
	size_t len;

	if (options->print_offset) {
		p = ptxed_hex16(p, offset);
		*p++ = ' ';
		*p++ = ' ';
	}
	if (options->print_time) {
		p = ptxed_time_col(p, options, time);
		*p++ = ' ';
		*p++ = ' ';
	}
	if (speculative) {
		*p++ = '?';
		*p++ = ' ';
	}
	p = ptxed_hex16(p, ip);
	if (options->dont_print_insn) {
		*p++ = '\n';
		ptxed_out(line, (size_t)(p - line));
		return;
	}
	if (options->print_raw_insn || !text)
		p = ptxed_raw(p, raw, size);
	if (!text) {
		ptxed_out(line, (size_t)(p - line));
		printf(" [disassembly error: %s]\n",
		       pt_errstr(pt_errcode(err)));
		return;
	}
	len = strlen(text);
	*p++ = ' ';
	*p++ = ' ';
	memcpy(p, text, len);
	p += len;
	*p++ = '\n';
	ptxed_out(line, (size_t)(p - line));
}

void ptxed_print_insn(const struct ptxed_options *options,
                      struct ptd_ild_ctx *ild, uint64_t offset, uint64_t time,
                      int speculative, uint64_t ip, const uint8_t *raw,
                      uint8_t size, enum pt_exec_mode mode)
{
	char text[ptxed_text_size];
	int err = 0;

	if (!options->dont_print_insn)
		err = ptxed_disas_format(ild, text, sizeof(text), raw, size,
		                         mode, ip, options->att_format);
	ptxed_print_line(options, offset, time, speculative, ip, raw, size,
	                 err < 0 ? NULL : text, err);
}

void ptxed_print_cached(const struct ptxed_options *options,
                        struct ptd_ild_ctx *ild, struct ptxed_icache *cache,
                        struct ptxed_insn_entry *entry, uint64_t offset,
                        uint64_t time, int speculative)
{
	const char *text = NULL;
	int err = 0;

	if (!options->dont_print_insn)
		text = ptxed_icache_text(cache, entry, ild, options->att_format,
		                         &err);
	ptxed_print_line(options, offset, time, speculative, entry->ip,
	                 entry->raw, entry->size, text, err);
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
		ptxed_print_time(options, event->tsc);

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
