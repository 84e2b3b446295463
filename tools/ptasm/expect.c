/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: writing the expected output and the arguments of a tool. */
#include "expect.h"

#include "lexer.h"

#include <inttypes.h>
#include <string.h>

/* Resolve one end of the range. */
static int ptasm_resolve_ref(const struct ptasm_program *program,
                             const struct ptasm_trace *trace,
                             const struct ptasm_ref *ref, uint64_t *value,
                             struct ptasm_diag *diag)
{
	const struct ptasm_label *label;
	uint64_t offset;

	if (!ref->label) {
		*value = ref->value;
		return 0;
	}
	if (strcmp(ref->label, "eos") == 0) {
		offset = trace->size;
	} else {
		label = ptasm_program_label(program, ref->label,
		                            strlen(ref->label));
		if (!label)
			return ptasm_error(diag, ref->line,
			                   "range: unknown label '%s'",
			                   ref->label);
		if (label->sb_file)
			return ptasm_error(diag, ref->line,
			                   "range: '%s' names a sideband "
			                   "record, not a place in the trace",
			                   ref->label);
		offset = ptasm_label_offset(trace, label);
	}
	if (ref->adjust < 0 && (uint64_t)-ref->adjust > offset)
		return ptasm_error(diag, ref->line,
		                   "range: '%s' minus 0x%" PRIx64
		                   " is negative",
		                   ref->label, (uint64_t)-ref->adjust);
	*value = offset + (uint64_t)ref->adjust;
	return 0;
}

int ptasm_resolve_range(const struct ptasm_program *program,
                        const struct ptasm_trace *trace,
                        struct ptasm_range *range, struct ptasm_diag *diag)
{
	const struct ptasm_ref *from = &program->range_from;
	const struct ptasm_ref *to = &program->range_to;

	memset(range, 0, sizeof(*range));
	if (!from->present)
		return 0;
	if (ptasm_resolve_ref(program, trace, from, &range->from, diag) < 0)
		return -1;
	range->has_from = 1;
	if (range->from >= trace->size)
		return ptasm_error(diag, from->line,
		                   "range: start 0x%" PRIx64
		                   " is not inside the trace (size 0x%zx)",
		                   range->from, trace->size);
	if (!to->present)
		return 0;
	if (ptasm_resolve_ref(program, trace, to, &range->to, diag) < 0)
		return -1;
	range->has_to = 1;
	if (range->to <= range->from || range->to > trace->size)
		return ptasm_error(diag, to->line,
		                   "range: end 0x%" PRIx64
		                   " must lie after the start 0x%" PRIx64
		                   " and not beyond the trace (size 0x%zx)",
		                   range->to, range->from, trace->size);
	return 0;
}

/* Return the offset of the label or "eos" named by the @len characters at
 * @s, relative to the start of @range, in @offset; for a label of the x86
 * code (only those if @code is set), its address.  Returns 0, or -1 after
 * reporting an error. */
static int ptasm_lookup(const char *s, size_t len, int64_t adjust, int code,
                        const struct ptasm_program *program,
                        const struct ptasm_trace *trace,
                        const struct ptasm_range *range, unsigned line,
                        struct ptasm_diag *diag, uint64_t *offset)
{
	const struct ptasm_label *label = NULL;
	uint64_t value;

	if (len == 3 && memcmp(s, "eos", 3) == 0) {
		value = trace->size;
	} else {
		label = code ? NULL : ptasm_program_label(program, s, len);
		if (!label) {
			const struct ptasm_symbol *sym =
			        ptasm_program_symbol(program, s, len);

			if (!sym)
				return ptasm_error(
				        diag, line,
				        code ? "unknown code label "
				               "'%.*s'"
				             : "unknown label '%.*s'",
				        (int)len, s);
			/* An address: not relative to the range. */
			*offset = sym->addr + (uint64_t)adjust;
			return 0;
		}
		value = ptasm_label_offset(trace, label);
	}
	if (adjust < 0 && (uint64_t)-adjust > value)
		return ptasm_error(diag, line,
		                   "'%.*s' minus 0x%" PRIx64 " is negative",
		                   (int)len, s, (uint64_t)-adjust);
	value += (uint64_t)adjust;
	/* A sideband record's offset is in its file, not in the trace. */
	if (label && label->sb_file) {
		*offset = value;
		return 0;
	}
	if (value < range->from)
		return ptasm_error(diag, line,
		                   "offset 0x%" PRIx64 " of '%.*s' lies before "
		                   "the range start 0x%" PRIx64,
		                   value, (int)len, s, range->from);
	*offset = value - range->from;
	return 0;
}

static int ptasm_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* The length of the label name at @s: an identifier, and for the local
 * labels of nasm ("l1.loop") further ".<identifier>" parts. */
static size_t ptasm_name_len(const char *s)
{
	size_t n = 0;

	for (;;) {
		while (ptasm_is_ident_char((unsigned char)s[n]))
			++n;
		if (n && s[n] == '.' && ptasm_ident_start(s[n + 1])) {
			++n;
			continue;
		}
		return n;
	}
}

/* Parse "{<label>[+-<number>]}" at @s.  Returns the number of characters
 * used with the label in [@name, @name + @len) and the adjustment in
 * @adjust, or -1 if the text is malformed. */
static int ptasm_parse_braced(const char *s, const char **name, size_t *len,
                              int64_t *adjust)
{
	const char *close = strchr(s, '}');
	const char *p = s + 1;
	uint64_t n;
	int neg;

	if (!close)
		return -1;
	*name = p;
	p += ptasm_name_len(p);
	*len = (size_t)(p - *name);
	if (!*len || !ptasm_ident_start(**name))
		return -1;
	*adjust = 0;
	if (p == close)
		return (int)(close + 1 - s);
	if (*p != '+' && *p != '-')
		return -1;
	neg = *p == '-';
	++p;
	if (ptasm_parse_number(p, (size_t)(close - p), &n) < 0 || n > INT64_MAX)
		return -1;
	*adjust = neg ? -(int64_t)n : (int64_t)n;
	return (int)(close + 1 - s);
}

/* How a substitution is written. */
enum ptasm_subst_form {
	/* 16 hex digits. */
	PTASM_SUBST_FULL,
	/* Hex without leading zeros ("%%"). */
	PTASM_SUBST_PLAIN,
	/* 16 characters, '?' for all but the low bytes ("%?"), as ptdump
	 * prints the IPs of compressed IP packets. */
	PTASM_SUBST_MASKED
};

/* Substitute the label reference at @s (just after the '%', "%%", "%?" or
 * "%@"): a label name, or a braced "{<label>[+-<number>]}"; for "%?" a
 * ".<bytes>" may follow.  @code: only labels of the x86 code.  Writes the
 * value and returns the number of characters used, or -1 after reporting
 * an error. */
static int ptasm_subst(FILE *out, const char *s, enum ptasm_subst_form form,
                       int code, const struct ptasm_program *program,
                       const struct ptasm_trace *trace,
                       const struct ptasm_range *range, unsigned line,
                       struct ptasm_diag *diag)
{
	const char *name = s;
	int64_t adjust = 0;
	uint64_t offset = 0;
	unsigned bytes = 8;
	size_t len;
	int used;

	if (*s == '{') {
		used = ptasm_parse_braced(s, &name, &len, &adjust);
		if (used < 0) {
			ptasm_error(
			        diag, line,
			        "expected '{<label>[+-<number>]}' after '%%'");
			return -1;
		}
	} else {
		len = ptasm_name_len(s);
		used = (int)len;
	}
	if (form == PTASM_SUBST_MASKED && s[used] == '.' &&
	    s[used + 1] >= '0' && s[used + 1] <= '8' &&
	    !ptasm_is_ident_char((unsigned char)s[used + 2])) {
		bytes = (unsigned)(s[used + 1] - '0');
		used += 2;
	}
	if (ptasm_lookup(name, len, adjust, code, program, trace, range, line,
	                 diag, &offset) < 0)
		return -1;
	switch (form) {
	case PTASM_SUBST_PLAIN:
		fprintf(out, "%" PRIx64, offset);
		break;
	case PTASM_SUBST_FULL:
		fprintf(out, "%016" PRIx64, offset);
		break;
	case PTASM_SUBST_MASKED: {
		char digits[17];

		snprintf(digits, sizeof(digits), "%016" PRIx64, offset);
		memset(digits, '?', 16 - 2 * bytes);
		fputs(digits, out);
		break;
	}
	}
	return used;
}

/* Write one expectation line with substitutions. */
static int ptasm_write_line(FILE *out, const struct ptasm_expect_line *line,
                            const struct ptasm_program *program,
                            const struct ptasm_trace *trace,
                            const struct ptasm_range *range,
                            struct ptasm_diag *diag)
{
	const char *s = line->text;
	int err = 0;

	while (*s) {
		enum ptasm_subst_form form = PTASM_SUBST_FULL;
		int code = 0, n;

		if (*s != '%') {
			fputc(*s++, out);
			continue;
		}
		++s;
		if (*s == '%') {
			form = PTASM_SUBST_PLAIN;
			++s;
		} else if (*s == '?' &&
		           (s[1] == '{' || ptasm_ident_start(s[1]))) {
			form = PTASM_SUBST_MASKED;
			++s;
		}
		if (*s == '@' && (s[1] == '{' || ptasm_ident_start(s[1]))) {
			code = 1;
			++s;
		}
		if (*s != '{' && !ptasm_ident_start(*s)) {
			/* A lone '%' or "%%" is a literal '%'. */
			fputc('%', out);
			continue;
		}
		n = ptasm_subst(out, s, form, code, program, trace, range,
		                line->line, diag);
		if (n < 0) {
			err = -1;
			if (*s == '{')
				++s;
			s += ptasm_name_len(s);
			continue;
		}
		s += n;
	}
	fputc('\n', out);
	return err;
}

int ptasm_write_expect(FILE *out, const struct ptasm_tool *tool,
                       const struct ptasm_program *program,
                       const struct ptasm_trace *trace,
                       const struct ptasm_range *range, struct ptasm_diag *diag)
{
	int err = 0;

	for (size_t i = 0; i < tool->nlines; ++i) {
		if (ptasm_write_line(out, &tool->lines[i], program, trace,
		                     range, diag) < 0)
			err = -1;
	}
	return err;
}

int ptasm_write_args(FILE *out, const struct ptasm_tool *tool,
                     const struct ptasm_program *program, const char *ptfile,
                     const char *binfile, char *const *sbnames,
                     const struct ptasm_range *range)
{
	int ptxed = strcmp(tool->name, "ptxed") == 0;

	if (ptxed && binfile)
		fprintf(out, "--raw\n%s:0x%" PRIx64 "\n", binfile,
		        program->code.org);
	for (size_t i = 0; i < tool->nargs; ++i)
		fprintf(out, "%s\n", tool->args[i]);
	/* The sideband files, by their names in the output folder, where
	 * the tools run: each with all its settings. */
	if (ptxed || !strcmp(tool->name, "ptdump")) {
		for (size_t i = 0; i < program->nsb; ++i) {
			const struct ptasm_sb_file *f = &program->sb[i];

			fprintf(out,
			        "--pevent:sample-type\n0x%" PRIx64
			        "\n--pevent:time-zero\n0x%" PRIx64
			        "\n--pevent:time-shift\n0x%" PRIx64
			        "\n--pevent:time-mult\n0x%" PRIx64
			        "\n--pevent:tsc-offset\n0x%" PRIx64
			        "\n--pevent:%s\n%s\n",
			        f->sample_type, f->time_zero, f->time_shift,
			        f->time_mult, f->tsc_offset,
			        f->primary ? "primary" : "secondary",
			        sbnames[i]);
		}
	}
	if (program->cpu)
		fprintf(out, "--cpu\n%s\n", program->cpu);
	if (ptxed)
		fprintf(out, "--no-inst\n--pt\n");
	fprintf(out, "%s", ptfile);
	if (range->has_from)
		fprintf(out, ":0x%" PRIx64, range->from);
	if (range->has_to)
		fprintf(out, "-0x%" PRIx64, range->to);
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}
