/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: reading a .pta file into a struct ptasm_program. */
#include "parser.h"

#include "directives.h"
#include "lexer.h"
#include "ptdecode/ptdecode.h"

#include <stdlib.h>
#include <string.h>

/* Words that will introduce code sections once ptasm assembles x86 code for
 * the flow decoders' tests; they are rejected until then. */
static const char *const ptasm_reserved[] = {"org", "code", "section", "bits"};

/* The state of the parser between lines. */
struct ptasm_parser {
	struct ptasm_program *program;
	struct ptasm_diag *diag;
	unsigned line;

	/* The tool whose expect block is open, NULL outside blocks. */
	struct ptasm_tool *expect;
};

static int ptasm_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Trim blanks at both ends of [*s, *s + *len). */
static void ptasm_trim(const char **s, size_t *len)
{
	while (*len && ptasm_is_space(**s)) {
		++*s;
		--*len;
	}
	while (*len && ptasm_is_space((*s)[*len - 1]))
		--*len;
}

static int ptasm_oom(struct ptasm_parser *parser)
{
	return ptasm_error(parser->diag, parser->line, "out of memory");
}

/* ---- option lines ----------------------------------------------------- */

/* "; opt[(<tool>)]: <arg>..." - @s points after "opt". */
static int ptasm_parse_opt(struct ptasm_parser *parser, const char *s,
                           size_t len)
{
	const char *name = PTASM_DEFAULT_TOOL;
	size_t name_len = strlen(PTASM_DEFAULT_TOOL);
	struct ptasm_tool *tool;

	if (len && *s == '(') {
		const char *close = memchr(s, ')', len);

		if (!close || !ptasm_is_ident(s + 1, (size_t)(close - s - 1)))
			return ptasm_error(parser->diag, parser->line,
			                   "opt: expected '(<tool>)'");
		name = s + 1;
		name_len = (size_t)(close - s - 1);
		len -= (size_t)(close + 1 - s);
		s = close + 1;
	}
	if (!len || *s != ':')
		return ptasm_error(parser->diag, parser->line,
		                   "opt: expected ':' after 'opt'");
	++s;
	--len;

	tool = ptasm_program_tool(parser->program, name, name_len, 1);
	if (!tool)
		return ptasm_oom(parser);
	for (;;) {
		const char *arg;
		void *args;

		while (len && ptasm_is_space(*s)) {
			++s;
			--len;
		}
		if (!len)
			break;
		arg = s;
		while (len && !ptasm_is_space(*s)) {
			++s;
			--len;
		}
		args = tool->args;
		if (ptasm_grow(&args, &tool->args_cap, tool->nargs + 1,
		               sizeof(*tool->args)) < 0)
			return ptasm_oom(parser);
		tool->args = args;
		tool->args[tool->nargs] = ptasm_strndup(arg, (size_t)(s - arg));
		if (!tool->args[tool->nargs])
			return ptasm_oom(parser);
		tool->nargs += 1;
	}
	return 0;
}

/* "; cpu: <family>/<model>[/<stepping>]" or "; cpu: none" */
static int ptasm_parse_cpu(struct ptasm_parser *parser, const char *s,
                           size_t len)
{
	struct pt_cpu cpu;
	char *text;

	ptasm_trim(&s, &len);
	if (parser->program->cpu)
		return ptasm_error(parser->diag, parser->line,
		                   "cpu: the cpu was already given in line %u",
		                   parser->program->cpu_line);
	text = ptasm_strndup(s, len);
	if (!text)
		return ptasm_oom(parser);
	if (ptd_cpu_parse(&cpu, text) < 0) {
		ptasm_error(
		        parser->diag, parser->line,
		        "cpu: expected none or <family>/<model>[/<stepping>], "
		        "found '%s'",
		        text);
		free(text);
		return -1;
	}
	parser->program->cpu = text;
	parser->program->cpu_line = parser->line;
	return 0;
}

/* The "{<label>[+-<number>]}" form of a range end, after the '%'. */
static int ptasm_parse_braced_ref(struct ptasm_parser *parser,
                                  struct ptasm_lexer *lexer,
                                  struct ptasm_ref *ref)
{
	struct ptasm_tok tok = ptasm_lex_next(lexer);
	uint64_t n;
	int neg;

	if (tok.kind != PTASM_TOK_WORD || !ptasm_is_ident(tok.text, tok.len))
		return ptasm_error(parser->diag, parser->line,
		                   "range: expected a label after '%%{'");
	ref->label = ptasm_strndup(tok.text, tok.len);
	if (!ref->label)
		return ptasm_oom(parser);
	tok = ptasm_lex_next(lexer);
	if (ptasm_tok_is_punct(&tok, '+') || ptasm_tok_is_punct(&tok, '-')) {
		neg = tok.text[0] == '-';
		tok = ptasm_lex_next(lexer);
		if (tok.kind != PTASM_TOK_WORD ||
		    ptasm_parse_number(tok.text, tok.len, &n) < 0 ||
		    n > INT64_MAX)
			return ptasm_error(parser->diag, parser->line,
			                   "range: expected a number after "
			                   "'%c'",
			                   neg ? '-' : '+');
		ref->adjust = neg ? -(int64_t)n : (int64_t)n;
		tok = ptasm_lex_next(lexer);
	}
	if (!ptasm_tok_is_punct(&tok, '}'))
		return ptasm_error(parser->diag, parser->line,
		                   "range: expected '}'");
	return 0;
}

/* One end of a range: a number, a label with or without '%', or
 * "%{<label>[+-<number>]}". */
static int ptasm_parse_ref(struct ptasm_parser *parser,
                           struct ptasm_lexer *lexer, struct ptasm_ref *ref)
{
	struct ptasm_tok tok = ptasm_lex_next(lexer);

	ref->present = 1;
	ref->line = parser->line;
	if (ptasm_tok_is_punct(&tok, '%')) {
		tok = ptasm_lex_next(lexer);
		if (ptasm_tok_is_punct(&tok, '{'))
			return ptasm_parse_braced_ref(parser, lexer, ref);
	}
	if (tok.kind != PTASM_TOK_WORD)
		return ptasm_error(parser->diag, parser->line,
		                   "range: expected an offset or a label");
	if (ptasm_is_ident(tok.text, tok.len)) {
		ref->label = ptasm_strndup(tok.text, tok.len);
		return ref->label ? 0 : ptasm_oom(parser);
	}
	if (ptasm_parse_number(tok.text, tok.len, &ref->value) < 0)
		return ptasm_error(parser->diag, parser->line,
		                   "range: '%.*s' is neither an offset nor a "
		                   "label",
		                   (int)tok.len, tok.text);
	return 0;
}

/* "; range: <from>[-<to>]" */
static int ptasm_parse_range(struct ptasm_parser *parser, const char *s,
                             size_t len)
{
	struct ptasm_program *program = parser->program;
	struct ptasm_lexer lexer;
	struct ptasm_tok tok;

	if (program->range_from.present)
		return ptasm_error(
		        parser->diag, parser->line,
		        "range: the range was already given in line %u",
		        program->range_from.line);
	ptasm_lex_init(&lexer, s, len);
	if (ptasm_parse_ref(parser, &lexer, &program->range_from) < 0)
		return -1;
	tok = ptasm_lex_next(&lexer);
	if (ptasm_tok_is_punct(&tok, '-')) {
		if (ptasm_parse_ref(parser, &lexer, &program->range_to) < 0)
			return -1;
		tok = ptasm_lex_next(&lexer);
	}
	if (tok.kind != PTASM_TOK_END)
		return ptasm_error(parser->diag, parser->line,
		                   "range: unexpected '%.*s'", (int)tok.len,
		                   tok.text);
	return 0;
}

/* Does [@s, @s + @len) start with @word? */
static int ptasm_starts(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len >= n && memcmp(s, word, n) == 0;
}

/* A line that starts with ';': an option line or a comment. */
static int ptasm_parse_comment(struct ptasm_parser *parser, const char *s,
                               size_t len)
{
	/* Skip the ';' and the blanks after it. */
	++s;
	--len;
	while (len && ptasm_is_space(*s)) {
		++s;
		--len;
	}
	if (ptasm_starts(s, len, "opt:") || ptasm_starts(s, len, "opt("))
		return ptasm_parse_opt(parser, s + 3, len - 3);
	if (ptasm_starts(s, len, "cpu:"))
		return ptasm_parse_cpu(parser, s + 4, len - 4);
	if (ptasm_starts(s, len, "range:"))
		return ptasm_parse_range(parser, s + 6, len - 6);
	return 0;
}

/* ---- expect blocks ---------------------------------------------------- */

/* "expect <tool>" */
static int ptasm_parse_expect(struct ptasm_parser *parser,
                              struct ptasm_lexer *lexer)
{
	struct ptasm_tok tok = ptasm_lex_next(lexer);
	struct ptasm_tool *tool;

	if (tok.kind != PTASM_TOK_WORD || !ptasm_is_ident(tok.text, tok.len))
		return ptasm_error(parser->diag, parser->line,
		                   "expect: expected a tool name");
	if (ptasm_lex_peek(lexer).kind != PTASM_TOK_END)
		return ptasm_error(
		        parser->diag, parser->line,
		        "expect: unexpected text after the tool name");
	tool = ptasm_program_tool(parser->program, tok.text, tok.len, 1);
	if (!tool)
		return ptasm_oom(parser);
	if (tool->has_expect) {
		ptasm_error(
		        parser->diag, parser->line,
		        "expect: a block for %s was already given in line %u",
		        tool->name, tool->expect_line);
	}
	tool->has_expect = 1;
	tool->expect_line = parser->line;
	parser->expect = tool;
	return 0;
}

/* A line inside an expect block. */
static int ptasm_parse_expect_line(struct ptasm_parser *parser, const char *s,
                                   size_t len)
{
	struct ptasm_tool *tool = parser->expect;
	const char *t = s;
	size_t tlen = len;
	void *lines;

	ptasm_trim(&t, &tlen);
	if (tlen == 3 && memcmp(t, "end", 3) == 0) {
		parser->expect = NULL;
		return 0;
	}
	/* The tools print no empty lines; ignore them. */
	if (!tlen)
		return 0;
	/* Keep leading blanks, drop trailing ones. */
	while (len && ptasm_is_space(s[len - 1]))
		--len;

	lines = tool->lines;
	if (ptasm_grow(&lines, &tool->lines_cap, tool->nlines + 1,
	               sizeof(*tool->lines)) < 0)
		return ptasm_oom(parser);
	tool->lines = lines;
	tool->lines[tool->nlines].line = parser->line;
	tool->lines[tool->nlines].text = ptasm_strndup(s, len);
	if (!tool->lines[tool->nlines].text)
		return ptasm_oom(parser);
	tool->nlines += 1;
	return 0;
}

/* ---- labels and directives -------------------------------------------- */

static int ptasm_add_label(struct ptasm_parser *parser,
                           const struct ptasm_tok *tok)
{
	struct ptasm_program *program = parser->program;
	const struct ptasm_label *old;
	struct ptasm_label *label;
	void *labels;

	if (ptasm_tok_is(tok, "eos"))
		return ptasm_error(parser->diag, parser->line,
		                   "the label name 'eos' is reserved");
	old = ptasm_program_label(program, tok->text, tok->len);
	if (old)
		return ptasm_error(
		        parser->diag, parser->line,
		        "label '%.*s' was already defined in line %u",
		        (int)tok->len, tok->text, old->line);
	labels = program->labels;
	if (ptasm_grow(&labels, &program->labels_cap, program->nlabels + 1,
	               sizeof(*program->labels)) < 0)
		return ptasm_oom(parser);
	program->labels = labels;
	label = &program->labels[program->nlabels];
	label->name = ptasm_strndup(tok->text, tok->len);
	if (!label->name)
		return ptasm_oom(parser);
	label->line = parser->line;
	label->stmt = program->nstmts;
	program->nlabels += 1;
	return 0;
}

static int ptasm_add_directive(struct ptasm_parser *parser,
                               const struct ptasm_tok *mnemonic,
                               struct ptasm_lexer *lexer)
{
	struct ptasm_program *program = parser->program;
	struct ptasm_stmt stmt;
	void *stmts;

	memset(&stmt, 0, sizeof(stmt));
	if (ptasm_parse_directive(mnemonic, lexer, &stmt, parser->diag,
	                          parser->line) < 0) {
		free(stmt.bytes);
		return -1;
	}
	stmts = program->stmts;
	if (ptasm_grow(&stmts, &program->stmts_cap, program->nstmts + 1,
	               sizeof(*program->stmts)) < 0) {
		free(stmt.bytes);
		return ptasm_oom(parser);
	}
	program->stmts = stmts;
	program->stmts[program->nstmts] = stmt;
	program->nstmts += 1;
	return 0;
}

/* A line outside expect blocks that is not a comment. */
static int ptasm_parse_statement(struct ptasm_parser *parser, const char *s,
                                 size_t len)
{
	struct ptasm_lexer lexer;
	struct ptasm_tok tok, next;

	ptasm_lex_init(&lexer, s, len);
	tok = ptasm_lex_next(&lexer);
	next = ptasm_lex_peek(&lexer);

	/* A label: an identifier directly followed by ':'. */
	if (tok.kind == PTASM_TOK_WORD && ptasm_is_ident(tok.text, tok.len) &&
	    ptasm_tok_is_punct(&next, ':') && !next.spaced) {
		(void)ptasm_lex_next(&lexer);
		if (ptasm_add_label(parser, &tok) < 0)
			return -1;
		tok = ptasm_lex_next(&lexer);
		if (tok.kind == PTASM_TOK_END)
			return 0;
	}

	if (ptasm_tok_is_punct(&tok, '@'))
		return ptasm_error(parser->diag, parser->line,
		                   "'@' is reserved for code directives, which "
		                   "ptasm does not support yet");
	if (tok.kind != PTASM_TOK_WORD)
		return ptasm_error(parser->diag, parser->line,
		                   "expected a directive, found '%.*s'",
		                   (int)tok.len, tok.text);
	if (ptasm_tok_is(&tok, "expect"))
		return ptasm_parse_expect(parser, &lexer);
	if (ptasm_tok_is(&tok, "end"))
		return ptasm_error(parser->diag, parser->line,
		                   "'end' outside an expect block");
	for (size_t i = 0;
	     i < sizeof(ptasm_reserved) / sizeof(ptasm_reserved[0]); ++i) {
		if (ptasm_tok_is(&tok, ptasm_reserved[i]))
			return ptasm_error(
			        parser->diag, parser->line,
			        "'%s' is reserved for code sections, "
			        "which ptasm does not support yet",
			        ptasm_reserved[i]);
	}
	return ptasm_add_directive(parser, &tok, &lexer);
}

static int ptasm_parse_line(struct ptasm_parser *parser, const char *s,
                            size_t len)
{
	const char *t = s;
	size_t tlen = len;

	if (parser->expect)
		return ptasm_parse_expect_line(parser, s, len);

	ptasm_trim(&t, &tlen);
	if (!tlen)
		return 0;
	if (*t == ';')
		return ptasm_parse_comment(parser, t, tlen);
	return ptasm_parse_statement(parser, t, tlen);
}

int ptasm_parse(const char *text, size_t len, struct ptasm_program *program,
                struct ptasm_diag *diag)
{
	struct ptasm_parser parser;
	const char *end = text + len;
	unsigned errors = diag->errors;

	memset(&parser, 0, sizeof(parser));
	parser.program = program;
	parser.diag = diag;

	while (text < end) {
		const char *eol = memchr(text, '\n', (size_t)(end - text));
		size_t n = eol ? (size_t)(eol - text) : (size_t)(end - text);

		parser.line += 1;
		if (memchr(text, '\0', n))
			ptasm_error(diag, parser.line, "NUL character in line");
		else
			(void)ptasm_parse_line(&parser, text, n);
		text += n + (eol ? 1 : 0);
	}
	return diag->errors == errors ? 0 : -1;
}
