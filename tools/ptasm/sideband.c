/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: perf_event sideband files; see sideband.h.
 *
 *   pevent primary|secondary [tid] [time] [id] [stream] [cpu] [identifier]
 *          [time_zero <n>] [time_shift <n>] [time_mult <n>] [tsc_offset <n>]
 *   [<label>:] pevent <record> <operands> [misc <n>] [{ <samples> }]
 *
 * Records are written as the kernel lays them out (include/uapi/linux/
 * perf_event.h), each followed by the sample_id fields of its file's sample
 * type in the kernel's order (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER);
 * the samples are given in the order libipt's tools print them. */
#include "sideband.h"

#include "ptdecode/ptd_pevent.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A record kind: its name, perf_event type, misc bits, layout of its
 * numbers (4 or 8 bytes each; "p" a pid/tid pair "<pid>/<tid>" of two
 * 4-byte fields) and whether a string follows them. */
struct sb_kind {
	const char *name;
	uint32_t type;
	uint16_t misc;
	const char *layout;
	int string;
};

/* Layout letters: 'p' pid/tid pair (two u32), 'q' a pair written as
 * "<pid>/<tid> <ppid>/<ptid>" but laid out pid, ppid, tid, ptid, '8' u64,
 * '4' u32. */
static const struct sb_kind sb_kinds[] = {
        {"mmap", 1, 0, "p888", 1},
        {"mmap2", 10, 0, "p888", 1},
        {"lost", 2, 0, "88", 0},
        {"comm", 3, 0, "p", 1},
        {"comm.exec", 3, 1 << 13, "p", 1},
        {"exit", 4, 0, "q8", 0},
        {"throttle", 5, 0, "888", 0},
        {"unthrottle", 6, 0, "888", 0},
        {"fork", 7, 0, "q8", 0},
        {"aux", 11, 0, "888", 0},
        {"itrace_start", 12, 0, "p", 0},
        {"lost_samples", 13, 0, "8", 0},
        {"switch.in", 14, 0, "", 0},
        {"switch.out", 14, 1 << 13, "", 0},
        {"switch_cpu_wide.in", 15, 0, "p", 0},
        {"switch_cpu_wide.out", 15, 1 << 13, "p", 0},
};

/* The operands of one line. */
struct sb_ops {
	struct ptasm_lexer *lexer;
	struct ptasm_diag *diag;
	unsigned line;
	const char *what;
};

static int sb_error(struct sb_ops *ops, const char *msg)
{
	struct ptasm_tok tok = ptasm_lex_peek(ops->lexer);

	if (tok.kind == PTASM_TOK_END)
		return ptasm_error(ops->diag, ops->line,
		                   "pevent %s: %s, found the end of the line",
		                   ops->what, msg);
	return ptasm_error(ops->diag, ops->line, "pevent %s: %s, found '%.*s'",
	                   ops->what, msg, (int)tok.len, tok.text);
}

/* An optional ','. */
static void sb_comma(struct sb_ops *ops)
{
	struct ptasm_tok tok = ptasm_lex_peek(ops->lexer);

	if (ptasm_tok_is_punct(&tok, ','))
		(void)ptasm_lex_next(ops->lexer);
}

static int sb_number(struct sb_ops *ops, uint64_t max, uint64_t *value)
{
	struct ptasm_tok tok;

	sb_comma(ops);
	tok = ptasm_lex_peek(ops->lexer);
	if (tok.kind != PTASM_TOK_WORD ||
	    ptasm_parse_number(tok.text, tok.len, value) < 0)
		return sb_error(ops, "expected a number");
	if (*value > max)
		return sb_error(ops, "the number is too big for its field");
	(void)ptasm_lex_next(ops->lexer);
	return 0;
}

/* "<a>/<b>" */
static int sb_pair(struct sb_ops *ops, uint64_t *a, uint64_t *b)
{
	struct ptasm_tok tok;

	if (sb_number(ops, UINT32_MAX, a) < 0)
		return -1;
	tok = ptasm_lex_peek(ops->lexer);
	if (!ptasm_tok_is_punct(&tok, '/'))
		return sb_error(ops, "expected '/'");
	(void)ptasm_lex_next(ops->lexer);
	tok = ptasm_lex_peek(ops->lexer);
	if (tok.kind != PTASM_TOK_WORD ||
	    ptasm_parse_number(tok.text, tok.len, b) < 0 || *b > UINT32_MAX)
		return sb_error(ops, "expected a number after '/'");
	(void)ptasm_lex_next(ops->lexer);
	return 0;
}

/* A string: "<text>" in double quotes, or a word; "bin" (unquoted) names
 * the code's .bin file (*@bin). */
static int sb_string(struct sb_ops *ops, char **str, int *bin)
{
	struct ptasm_lexer *lx = ops->lexer;
	struct ptasm_tok tok;

	sb_comma(ops);
	while (lx->pos < lx->end && (*lx->pos == ' ' || *lx->pos == '\t'))
		++lx->pos;
	if (lx->pos < lx->end && *lx->pos == '"') {
		const char *start = lx->pos + 1;
		const char *close =
		        memchr(start, '"', (size_t)(lx->end - start));

		if (!close)
			return sb_error(ops,
			                "a string without its closing '\"'");
		*str = ptasm_strndup(start, (size_t)(close - start));
		lx->pos = close + 1;
		return *str ? 0 : ptasm_error(ops->diag, 0, "out of memory");
	}
	tok = ptasm_lex_peek(lx);
	if (tok.kind != PTASM_TOK_WORD)
		return sb_error(ops, "expected a string");
	(void)ptasm_lex_next(lx);
	if (bin && ptasm_tok_is(&tok, "bin")) {
		*bin = 1;
		*str = NULL;
		return 0;
	}
	*str = ptasm_strndup(tok.text, tok.len);
	return *str ? 0 : ptasm_error(ops->diag, 0, "out of memory");
}

/* "{ <pid>/<tid> <time> <id> cpu-<n> <stream> <identifier> }": the fields
 * of @stype in that order. */
static int sb_samples(struct sb_ops *ops, uint64_t stype,
                      struct ptasm_sb_samples *s)
{
	struct ptasm_tok tok;
	uint64_t v, w;

	(void)ptasm_lex_next(ops->lexer); /* '{' */
	if (stype & ptd_pevent_sample_tid) {
		if (sb_pair(ops, &v, &w) < 0)
			return -1;
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)w;
	}
	if ((stype & ptd_pevent_sample_time) &&
	    sb_number(ops, UINT64_MAX, &s->time) < 0)
		return -1;
	if ((stype & ptd_pevent_sample_id) &&
	    sb_number(ops, UINT64_MAX, &s->id) < 0)
		return -1;
	if (stype & ptd_pevent_sample_cpu) {
		tok = ptasm_lex_peek(ops->lexer);
		if (ptasm_tok_is(&tok, "cpu")) {
			(void)ptasm_lex_next(ops->lexer);
			tok = ptasm_lex_peek(ops->lexer);
			if (!ptasm_tok_is_punct(&tok, '-'))
				return sb_error(ops, "expected 'cpu-<n>'");
			(void)ptasm_lex_next(ops->lexer);
		}
		if (sb_number(ops, UINT32_MAX, &v) < 0)
			return -1;
		s->cpu = (uint32_t)v;
	}
	if ((stype & ptd_pevent_sample_stream_id) &&
	    sb_number(ops, UINT64_MAX, &s->stream_id) < 0)
		return -1;
	if ((stype & ptd_pevent_sample_identifier) &&
	    sb_number(ops, UINT64_MAX, &s->identifier) < 0)
		return -1;
	tok = ptasm_lex_peek(ops->lexer);
	if (!ptasm_tok_is_punct(&tok, '}'))
		return sb_error(ops, "expected '}' after the file's samples");
	(void)ptasm_lex_next(ops->lexer);
	return 0;
}

/* "pevent primary|secondary ..." */
static int sb_parse_file(struct ptasm_program *program, struct sb_ops *ops,
                         int primary)
{
	static const struct {
		const char *name;
		uint64_t bit;
	} fields[] = {{"tid", ptd_pevent_sample_tid},
	              {"time", ptd_pevent_sample_time},
	              {"id", ptd_pevent_sample_id},
	              {"stream", ptd_pevent_sample_stream_id},
	              {"cpu", ptd_pevent_sample_cpu},
	              {"identifier", ptd_pevent_sample_identifier}};
	struct ptasm_sb_file *f;
	void *files = program->sb;

	if (ptasm_grow(&files, &program->sb_cap, program->nsb + 1,
	               sizeof(*program->sb)) < 0)
		return ptasm_error(ops->diag, 0, "out of memory");
	program->sb = files;
	f = &program->sb[program->nsb];
	memset(f, 0, sizeof(*f));
	f->line = ops->line;
	f->primary = primary;
	f->time_mult = 1;
	program->nsb += 1;

	for (;;) {
		struct ptasm_tok tok;
		size_t i;

		sb_comma(ops);
		tok = ptasm_lex_peek(ops->lexer);
		if (tok.kind == PTASM_TOK_END)
			return 0;
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i)
			if (ptasm_tok_is(&tok, fields[i].name))
				break;
		if (i < sizeof(fields) / sizeof(fields[0])) {
			(void)ptasm_lex_next(ops->lexer);
			f->sample_type |= fields[i].bit;
			continue;
		}
		(void)ptasm_lex_next(ops->lexer);
		if (ptasm_tok_is(&tok, "time_zero")) {
			if (sb_number(ops, UINT64_MAX, &f->time_zero) < 0)
				return -1;
		} else if (ptasm_tok_is(&tok, "time_shift")) {
			if (sb_number(ops, 63, &f->time_shift) < 0)
				return -1;
		} else if (ptasm_tok_is(&tok, "time_mult")) {
			if (sb_number(ops, UINT32_MAX, &f->time_mult) < 0)
				return -1;
		} else if (ptasm_tok_is(&tok, "tsc_offset")) {
			if (sb_number(ops, UINT64_MAX, &f->tsc_offset) < 0)
				return -1;
		} else
			return ptasm_error(
			        ops->diag, ops->line,
			        "pevent %s: unknown setting '%.*s' (tid, "
			        "time, id, stream, cpu, identifier, time_zero, "
			        "time_shift, time_mult, tsc_offset)",
			        ops->what, (int)tok.len, tok.text);
	}
}

/* "pevent raw <byte>...": bytes as they are. */
static int sb_parse_raw(struct sb_ops *ops, struct ptasm_sb_rec *r)
{
	struct ptasm_bytes bytes = {NULL, 0, 0};

	r->raw = 1;
	while (ptasm_lex_peek(ops->lexer).kind != PTASM_TOK_END) {
		uint64_t v;
		uint8_t b;

		if (sb_number(ops, 0xff, &v) < 0) {
			ptasm_bytes_free(&bytes);
			return -1;
		}
		b = (uint8_t)v;
		if (ptasm_bytes_append(&bytes, &b, 1) < 0) {
			ptasm_bytes_free(&bytes);
			return ptasm_error(ops->diag, 0, "out of memory");
		}
	}
	if (!bytes.len)
		return sb_error(ops, "expected the record's bytes");
	r->str = (char *)bytes.data;
	r->nraw = bytes.len;
	return 0;
}

/* A record's operands after its kind. */
static int sb_parse_record(struct sb_ops *ops, const struct sb_kind *k,
                           uint64_t stype, struct ptasm_sb_rec *r)
{
	struct ptasm_tok tok;

	r->type = k->type;
	r->misc = k->misc;
	for (const char *l = k->layout; *l; ++l) {
		uint64_t a, b, c, d;

		switch (*l) {
		case 'p':
			if (sb_pair(ops, &a, &b) < 0)
				return -1;
			r->f[r->nf++] = a;
			r->f[r->nf++] = b;
			break;
		case 'q':
			if (sb_pair(ops, &a, &b) < 0)
				return -1;
			sb_comma(ops);
			if (sb_pair(ops, &c, &d) < 0)
				return -1;
			/* pid, ppid, tid, ptid */
			r->f[r->nf++] = a;
			r->f[r->nf++] = c;
			r->f[r->nf++] = b;
			r->f[r->nf++] = d;
			break;
		default:
			if (sb_number(ops, UINT64_MAX, &a) < 0)
				return -1;
			r->f[r->nf++] = a;
			break;
		}
	}
	if (k->string && sb_string(ops, &r->str, k->type != 3 ? &r->bin : NULL))
		return -1;
	for (;;) {
		sb_comma(ops);
		tok = ptasm_lex_peek(ops->lexer);
		if (ptasm_tok_is(&tok, "misc")) {
			uint64_t v;

			(void)ptasm_lex_next(ops->lexer);
			if (sb_number(ops, UINT16_MAX, &v) < 0)
				return -1;
			r->misc = (uint16_t)v;
			continue;
		}
		if (ptasm_tok_is_punct(&tok, '{')) {
			if (sb_samples(ops, stype, &r->samples) < 0)
				return -1;
			continue;
		}
		if (tok.kind == PTASM_TOK_END)
			return 0;
		return sb_error(ops, "unexpected operand");
	}
}

int ptasm_sb_parse(struct ptasm_program *program, struct ptasm_lexer *lexer,
                   struct ptasm_diag *diag, unsigned line, size_t *file,
                   size_t *rec)
{
	struct ptasm_tok tok = ptasm_lex_next(lexer);
	struct sb_ops ops = {lexer, diag, line, ""};
	struct ptasm_sb_file *f;
	struct ptasm_sb_rec r;
	void *recs;
	size_t i;
	char what[40];

	*file = 0;
	*rec = 0;
	if (tok.kind != PTASM_TOK_WORD)
		return ptasm_error(diag, line,
		                   "pevent: expected primary, secondary or a "
		                   "record");
	snprintf(what, sizeof(what), "%.*s", (int)(tok.len < 30 ? tok.len : 30),
	         tok.text);
	ops.what = what;
	if (ptasm_tok_is(&tok, "primary") || ptasm_tok_is(&tok, "secondary"))
		return sb_parse_file(program, &ops, tok.text[0] == 'p');
	if (!program->nsb)
		return ptasm_error(diag, line,
		                   "pevent %s: a record before the first "
		                   "'pevent primary' or 'pevent secondary'",
		                   what);
	f = &program->sb[program->nsb - 1];

	memset(&r, 0, sizeof(r));
	r.line = line;
	if (ptasm_tok_is(&tok, "raw")) {
		if (sb_parse_raw(&ops, &r) < 0)
			return -1;
	} else {
		for (i = 0; i < sizeof(sb_kinds) / sizeof(sb_kinds[0]); ++i)
			if (ptasm_tok_is(&tok, sb_kinds[i].name))
				break;
		if (i == sizeof(sb_kinds) / sizeof(sb_kinds[0]))
			return ptasm_error(diag, line,
			                   "pevent: unknown record '%s'", what);
		if (sb_parse_record(&ops, &sb_kinds[i], f->sample_type, &r) <
		    0) {
			free(r.str);
			return -1;
		}
	}
	recs = f->recs;
	if (ptasm_grow(&recs, &f->recs_cap, f->nrecs + 1, sizeof(*f->recs)) <
	    0) {
		free(r.str);
		return ptasm_error(diag, 0, "out of memory");
	}
	f->recs = recs;
	f->recs[f->nrecs] = r;
	*file = program->nsb;
	*rec = f->nrecs;
	f->nrecs += 1;
	return 0;
}

/* ---- writing ----------------------------------------------------------- */

/* Append the @size (at most 8) low bytes of @v, little-endian. */
static int sb_put(struct ptasm_bytes *b, uint64_t v, unsigned size)
{
	uint8_t le[8];

	for (unsigned i = 0; i < size; ++i)
		le[i] = (uint8_t)(v >> (8 * i));
	return ptasm_bytes_append(b, le, size);
}

/* The fields of record @r of a file of sample type @stype. */
static int sb_encode_record(struct ptasm_bytes *b, const struct ptasm_sb_rec *r,
                            uint64_t stype, const char *binname,
                            const struct ptasm_code *code)
{
	const struct ptasm_sb_samples *s = &r->samples;
	size_t start = b->len;
	int err = 0;

	if (r->raw)
		return ptasm_bytes_append(b, r->str, r->nraw);

	err |= sb_put(b, r->type, 4);
	err |= sb_put(b, r->misc, 2);
	err |= sb_put(b, 0, 2); /* the size, set below */
	switch (r->type) {
	case 1:
	case 10:
		err |= sb_put(b, r->f[0], 4);
		err |= sb_put(b, r->f[1], 4);
		if (r->bin && !r->f[3]) {
			/* The whole code at its address. */
			err |= sb_put(b, code->org, 8);
			err |= sb_put(b, code->size, 8);
			err |= sb_put(b, 0, 8);
		} else {
			err |= sb_put(b, r->f[2], 8);
			err |= sb_put(b, r->f[3], 8);
			err |= sb_put(b, r->f[4], 8);
		}
		if (r->type ==
		    10) /* maj, min, ino, ino_generation, prot, flags */
			for (unsigned i = 0; i < 4; ++i)
				err |= sb_put(b, 0, 8);
		break;
	case 3:
	case 12:
	case 15:
		err |= sb_put(b, r->f[0], 4);
		err |= sb_put(b, r->f[1], 4);
		break;
	case 4:
	case 7:
		for (unsigned i = 0; i < 4; ++i)
			err |= sb_put(b, r->f[i], 4);
		err |= sb_put(b, r->f[4], 8);
		break;
	default:
		for (unsigned i = 0; i < r->nf; ++i)
			err |= sb_put(b, r->f[i], 8);
		break;
	}
	if (r->type == 1 || r->type == 10 || r->type == 3) {
		const char *str = r->bin ? binname : r->str;
		size_t n = strlen(str) + 1;

		err |= ptasm_bytes_append(b, str, n);
		err |= sb_put(b, 0, (unsigned)((8 - n % 8) % 8));
	}
	if (stype & ptd_pevent_sample_tid) {
		err |= sb_put(b, s->pid, 4);
		err |= sb_put(b, s->tid, 4);
	}
	if (stype & ptd_pevent_sample_time)
		err |= sb_put(b, s->time, 8);
	if (stype & ptd_pevent_sample_id)
		err |= sb_put(b, s->id, 8);
	if (stype & ptd_pevent_sample_stream_id)
		err |= sb_put(b, s->stream_id, 8);
	if (stype & ptd_pevent_sample_cpu) {
		err |= sb_put(b, s->cpu, 4);
		err |= sb_put(b, 0, 4);
	}
	if (stype & ptd_pevent_sample_identifier)
		err |= sb_put(b, s->identifier, 8);
	if (err)
		return -1;
	if (b->len - start > UINT16_MAX)
		return -2;
	b->data[start + 6] = (uint8_t)((b->len - start) & 0xff);
	b->data[start + 7] = (uint8_t)((b->len - start) >> 8);
	return 0;
}

int ptasm_sb_encode(const struct ptasm_program *program, const char *binname,
                    struct ptasm_sb_out **out, struct ptasm_diag *diag)
{
	struct ptasm_sb_out *files;

	*out = NULL;
	if (!program->nsb)
		return 0;
	files = calloc(program->nsb, sizeof(*files));
	if (!files)
		return ptasm_error(diag, 0, "out of memory");
	*out = files;
	for (size_t i = 0; i < program->nsb; ++i) {
		const struct ptasm_sb_file *f = &program->sb[i];
		struct ptasm_bytes b = {NULL, 0, 0};

		files[i].offsets =
		        calloc(f->nrecs + 1, sizeof(*files[i].offsets));
		if (!files[i].offsets)
			return ptasm_error(diag, 0, "out of memory");
		for (size_t k = 0; k < f->nrecs; ++k) {
			const struct ptasm_sb_rec *r = &f->recs[k];
			int err;

			if (r->bin && !program->code.present) {
				ptasm_bytes_free(&b);
				return ptasm_error(
				        diag, r->line,
				        "pevent: 'bin' names the code "
				        "of a file with x86 code");
			}
			files[i].offsets[k] = b.len;
			err = sb_encode_record(&b, r, f->sample_type, binname,
			                       &program->code);
			if (err < 0) {
				ptasm_bytes_free(&b);
				return ptasm_error(
				        diag, r->line,
				        err == -2 ? "pevent: the record is "
				                    "longer than 65535 bytes"
				                  : "out of memory");
			}
		}
		files[i].offsets[f->nrecs] = b.len;
		files[i].data = b.data;
		files[i].size = b.len;
	}
	return 0;
}

void ptasm_sb_out_free(struct ptasm_sb_out *out, size_t n)
{
	if (!out)
		return;
	for (size_t i = 0; i < n; ++i) {
		free(out[i].data);
		free(out[i].offsets);
	}
	free(out);
}
