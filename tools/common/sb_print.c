/* SPDX-License-Identifier: BSD-3-Clause */
/* Sideband records and diagnostics as libipt's tools print them; see sb.h
 * and docs/sideband.md.  Numbers are hex without a prefix. */
#include "sb.h"

#include <inttypes.h>
#include <string.h>

/* A record's name with its suffix. */
static const char *sb_name(const struct ptd_pevent_record *r)
{
	const int out = (r->misc & ptd_pevent_misc_switch_out) != 0;

	switch (r->type) {
	case ptd_pevent_comm:
		return (r->misc & ptd_pevent_misc_comm_exec)
		               ? "PERF_RECORD_COMM.EXEC"
		               : "PERF_RECORD_COMM";
	case ptd_pevent_aux:
		return (r->u.aux.flags & ptd_pevent_aux_truncated)
		               ? "PERF_RECORD_AUX.TRUNCATED"
		               : "PERF_RECORD_AUX";
	case ptd_pevent_switch:
		return out ? "PERF_RECORD_SWITCH.OUT" : "PERF_RECORD_SWITCH.IN";
	case ptd_pevent_switch_cpu_wide:
		return out ? "PERF_RECORD_SWITCH_CPU_WIDE.OUT"
		           : "PERF_RECORD_SWITCH_CPU_WIDE.IN";
	default:
		return ptd_pevent_type_name(r->type);
	}
}

/* The one-line form of a known record's fields. */
static void sb_compact(FILE *out, const struct ptd_pevent_record *r)
{
	switch (r->type) {
	case ptd_pevent_mmap:
		fprintf(out,
		        "  %" PRIx32 "/%" PRIx32 ", %" PRIx64 ", %" PRIx64
		        ", %" PRIx64 ", %.*s",
		        r->u.mmap.pid, r->u.mmap.tid, r->u.mmap.addr,
		        r->u.mmap.len, r->u.mmap.pgoff,
		        (int)r->u.mmap.filename.len, r->u.mmap.filename.str);
		break;
	case ptd_pevent_mmap2:
		fprintf(out,
		        "  %" PRIx32 "/%" PRIx32 ", %" PRIx64 ", %" PRIx64
		        ", %" PRIx64 ", %" PRIx32 ", %" PRIx32 ", %" PRIx64
		        ", %" PRIx64 ", %" PRIx32 ", %" PRIx32 ", %.*s",
		        r->u.mmap.pid, r->u.mmap.tid, r->u.mmap.addr,
		        r->u.mmap.len, r->u.mmap.pgoff, r->u.mmap.maj,
		        r->u.mmap.min, r->u.mmap.ino, r->u.mmap.ino_generation,
		        r->u.mmap.prot, r->u.mmap.flags,
		        (int)r->u.mmap.filename.len, r->u.mmap.filename.str);
		break;
	case ptd_pevent_lost:
		fprintf(out, "  %" PRIx64 ", %" PRIx64, r->u.lost.id,
		        r->u.lost.lost);
		break;
	case ptd_pevent_comm:
		fprintf(out, "  %" PRIx32 "/%" PRIx32 ", %.*s", r->u.comm.pid,
		        r->u.comm.tid, (int)r->u.comm.comm.len,
		        r->u.comm.comm.str);
		break;
	case ptd_pevent_exit:
	case ptd_pevent_fork:
		fprintf(out,
		        "  %" PRIx32 "/%" PRIx32 ", %" PRIx32 "/%" PRIx32
		        ", %" PRIx64,
		        r->u.task.pid, r->u.task.tid, r->u.task.ppid,
		        r->u.task.ptid, r->u.task.time);
		break;
	case ptd_pevent_throttle:
	case ptd_pevent_unthrottle:
		fprintf(out, "  %" PRIx64 ", %" PRIx64 ", %" PRIx64,
		        r->u.throttle.time, r->u.throttle.id,
		        r->u.throttle.stream_id);
		break;
	case ptd_pevent_aux:
		fprintf(out, "  %" PRIx64 ", %" PRIx64 ", %" PRIx64,
		        r->u.aux.offset, r->u.aux.size, r->u.aux.flags);
		break;
	case ptd_pevent_itrace_start:
		fprintf(out, "  %" PRIx32 "/%" PRIx32, r->u.itrace_start.pid,
		        r->u.itrace_start.tid);
		break;
	case ptd_pevent_lost_samples:
		fprintf(out, "  %" PRIx64, r->u.lost_samples.lost);
		break;
	case ptd_pevent_switch_cpu_wide:
		fprintf(out, "  %" PRIx32 "/%" PRIx32, r->u.switch_cpu_wide.pid,
		        r->u.switch_cpu_wide.tid);
		break;
	default:
		break;
	}
}

/* A field of the verbose form. */
static void sb_field(FILE *out, const char *label, uint64_t value)
{
	fprintf(out, "\n  %s: %" PRIx64, label, value);
}

static void sb_field_str(FILE *out, const char *label,
                         const struct ptd_pevent_string *s)
{
	fprintf(out, "\n  %s: %.*s", label, (int)s->len, s->str);
}

/* The verbose form of a known record's fields, a line each. */
static void sb_verbose(FILE *out, const struct ptd_pevent_record *r)
{
	const int out_switch = (r->misc & ptd_pevent_misc_switch_out) != 0;

	switch (r->type) {
	case ptd_pevent_mmap:
	case ptd_pevent_mmap2:
		sb_field(out, "pid", r->u.mmap.pid);
		sb_field(out, "tid", r->u.mmap.tid);
		sb_field(out, "addr", r->u.mmap.addr);
		sb_field(out, "len", r->u.mmap.len);
		sb_field(out, "pgoff", r->u.mmap.pgoff);
		if (r->type == ptd_pevent_mmap2) {
			sb_field(out, "maj", r->u.mmap.maj);
			sb_field(out, "min", r->u.mmap.min);
			sb_field(out, "ino", r->u.mmap.ino);
			sb_field(out, "ino_generation",
			         r->u.mmap.ino_generation);
			sb_field(out, "prot", r->u.mmap.prot);
			sb_field(out, "flags", r->u.mmap.flags);
		}
		sb_field_str(out, "filename", &r->u.mmap.filename);
		break;
	case ptd_pevent_lost:
		sb_field(out, "id", r->u.lost.id);
		sb_field(out, "lost", r->u.lost.lost);
		break;
	case ptd_pevent_comm:
		sb_field(out, "pid", r->u.comm.pid);
		sb_field(out, "tid", r->u.comm.tid);
		sb_field_str(out, "comm", &r->u.comm.comm);
		break;
	case ptd_pevent_exit:
	case ptd_pevent_fork:
		sb_field(out, "pid", r->u.task.pid);
		sb_field(out, "ppid", r->u.task.ppid);
		sb_field(out, "tid", r->u.task.tid);
		sb_field(out, "ptid", r->u.task.ptid);
		sb_field(out, "time", r->u.task.time);
		break;
	case ptd_pevent_throttle:
	case ptd_pevent_unthrottle:
		sb_field(out, "time", r->u.throttle.time);
		sb_field(out, "id", r->u.throttle.id);
		sb_field(out, "stream_id", r->u.throttle.stream_id);
		break;
	case ptd_pevent_aux:
		sb_field(out, "aux offset", r->u.aux.offset);
		sb_field(out, "aux size", r->u.aux.size);
		sb_field(out, "flags", r->u.aux.flags);
		break;
	case ptd_pevent_itrace_start:
		sb_field(out, "pid", r->u.itrace_start.pid);
		sb_field(out, "tid", r->u.itrace_start.tid);
		break;
	case ptd_pevent_lost_samples:
		sb_field(out, "lost", r->u.lost_samples.lost);
		break;
	case ptd_pevent_switch_cpu_wide:
		sb_field(out, out_switch ? "next pid" : "prev pid",
		         r->u.switch_cpu_wide.pid);
		sb_field(out, out_switch ? "next tid" : "prev tid",
		         r->u.switch_cpu_wide.tid);
		break;
	default:
		break;
	}
}

/* The sample_id fields: " { 1/2 3 cpu-4 }" or a line each. */
static void sb_samples(FILE *out, const struct ptd_pevent_sample *s,
                       int verbose)
{
	const uint64_t p = s->present;

	if (verbose) {
		if (p & ptd_pevent_sample_tid) {
			sb_field(out, "pid", s->pid);
			sb_field(out, "tid", s->tid);
		}
		if (p & ptd_pevent_sample_time)
			sb_field(out, "time", s->time);
		if (p & ptd_pevent_sample_id)
			sb_field(out, "id", s->id);
		if (p & ptd_pevent_sample_cpu)
			sb_field(out, "cpu", s->cpu);
		if (p & ptd_pevent_sample_stream_id)
			sb_field(out, "stream id", s->stream_id);
		if (p & ptd_pevent_sample_identifier)
			sb_field(out, "identifier", s->identifier);
		return;
	}
	fputs("  {", out);
	if (p & ptd_pevent_sample_tid)
		fprintf(out, " %" PRIx32 "/%" PRIx32, s->pid, s->tid);
	if (p & ptd_pevent_sample_time)
		fprintf(out, " %" PRIx64, s->time);
	if (p & ptd_pevent_sample_id)
		fprintf(out, " %" PRIx64, s->id);
	if (p & ptd_pevent_sample_cpu)
		fprintf(out, " cpu-%" PRIx32, s->cpu);
	if (p & ptd_pevent_sample_stream_id)
		fprintf(out, " %" PRIx64, s->stream_id);
	if (p & ptd_pevent_sample_identifier)
		fprintf(out, " %" PRIx64, s->identifier);
	fputs(" }", out);
}

void ptd_sb_print_record(const struct ptd_sb_session *s,
                         const struct ptd_sb_channel *ch)
{
	const struct ptd_pevent_record *r = &ch->rec;
	const uint32_t print = s->print;
	const char *name = sb_name(r);
	FILE *out = s->out;

	if (!(print & PTD_SB_PRINT_LINE))
		return;
	if ((print & ptd_sb_print_filename) && (print & ptd_sb_print_offset))
		fprintf(out, "%s:%016zx  ", ch->name, ch->pos);
	else if (print & ptd_sb_print_filename)
		fprintf(out, "%s  ", ch->name);
	else if (print & ptd_sb_print_offset)
		fprintf(out, "%016zx  ", ch->pos);
	if ((print & ptd_sb_print_time) &&
	    (r->sample.present & ptd_pevent_sample_time))
		fprintf(out, "%016" PRIx64 "  ", ch->due);

	if (print & (ptd_sb_print_compact | ptd_sb_print_verbose)) {
		const int verbose = (print & ptd_sb_print_verbose) != 0;

		if (!name) {
			if (verbose) {
				fputs("UNKNOWN", out);
				sb_field(out, "type", r->type);
				sb_field(out, "misc", r->misc);
			} else
				fprintf(out, "UNKNOWN (%" PRIx32 ", %x)",
				        r->type, (unsigned)r->misc);
		} else {
			fputs(name, out);
			if (verbose)
				sb_verbose(out, r);
			else
				sb_compact(out, r);
		}
		/* (libipt 2.0 prints the samples where the file has a
		 * sample type.) */
		if (ch->config.pevent.sample_type)
			sb_samples(out, &r->sample, verbose);
	}
	fputc('\n', out);
}

/* "[<file>:<offset> sideband <kind>: <text>]". */
static void sb_diag(const struct ptd_sb_session *s,
                    const struct ptd_sb_channel *ch, const char *kind,
                    const char *text)
{
	fprintf(s->out, "[%s:%016zx sideband %s: %s]\n", ch->name, ch->pos,
	        kind, text);
}

void ptd_sb_error(const struct ptd_sb_session *s,
                  const struct ptd_sb_channel *ch, int errcode)
{
	sb_diag(s, ch, "error", pt_errstr(pt_errcode(errcode)));
}

void ptd_sb_warning(const struct ptd_sb_session *s,
                    const struct ptd_sb_channel *ch, const char *text)
{
	if (s->print & ptd_sb_print_warn)
		sb_diag(s, ch, "warning", text);
}
