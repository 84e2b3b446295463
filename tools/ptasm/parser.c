/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: reading a .pta file into a struct ptasm_program. */
#include "parser.h"

#include "directives.h"
#include "lexer.h"
#include "ptdecode/ptdecode.h"
#include "sideband.h"

#include <stdlib.h>
#include <string.h>

/* Assembler directives that only make sense in a file with x86 code (one
 * with an "org" line); elsewhere they are reported as such. */
static const char *const ptasm_reserved[] = {"code", "section", "bits"};

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

static int ptasm_add_args(struct ptasm_parser *parser, struct ptasm_tool *tool,
                          const char *s, size_t len);

/* "; opt[(<tool>)]: <arg>..." or "; opt:<tool> <arg>..." - @s points
 * after "opt". */
static int ptasm_parse_opt(struct ptasm_parser *parser, const char *s,
                           size_t len)
{
	const char *name = PTASM_DEFAULT_TOOL;
	size_t name_len = strlen(PTASM_DEFAULT_TOOL);
	struct ptasm_tool *tool;

	/* pttc's form: the tool's name right after the colon. */
	if (len > 1 && s[0] == ':' &&
	    (s[1] == '_' || (s[1] >= 'a' && s[1] <= 'z') ||
	     (s[1] >= 'A' && s[1] <= 'Z'))) {
		size_t n = 1;

		while (n < len && ptasm_is_ident_char((unsigned char)s[n]))
			++n;
		if (n == len || ptasm_is_space(s[n])) {
			name = s + 1;
			name_len = n - 1;
			s += n;
			len -= n;
			tool = ptasm_program_tool(parser->program, name,
			                          name_len, 1);
			if (!tool)
				return ptasm_oom(parser);
			return ptasm_add_args(parser, tool, s, len);
		}
	}

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
	return ptasm_add_args(parser, tool, s, len);
}

/* Add the blank-separated words at @s to the arguments of @tool. */
static int ptasm_add_args(struct ptasm_parser *parser, struct ptasm_tool *tool,
                          const char *s, size_t len)
{
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
	/* A '#' at the start or after a blank starts a comment. */
	for (size_t i = 0; i < len; ++i) {
		if (s[i] == '#' && (i == 0 || ptasm_is_space(s[i - 1]))) {
			len = i;
			break;
		}
	}
	/* Keep leading blanks, drop trailing ones. */
	while (len && ptasm_is_space(s[len - 1]))
		--len;
	/* The tools print no empty lines; ignore them. */
	t = s;
	tlen = len;
	ptasm_trim(&t, &tlen);
	if (!tlen)
		return 0;

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
	label->sb_file = 0;
	label->sb_rec = 0;
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
		free(stmt.ip_label);
		return -1;
	}
	stmts = program->stmts;
	if (ptasm_grow(&stmts, &program->stmts_cap, program->nstmts + 1,
	               sizeof(*program->stmts)) < 0) {
		free(stmt.bytes);
		free(stmt.ip_label);
		return ptasm_oom(parser);
	}
	program->stmts = stmts;
	program->stmts[program->nstmts] = stmt;
	program->nstmts += 1;
	return 0;
}

/* "<name> = <number>": a name for an address, used like a label of x86
 * code (in IP operands and as %<name> in expected output).  Only in files
 * without code, whose labels come from nasm. */
static int ptasm_parse_address(struct ptasm_parser *parser,
                               const struct ptasm_tok *name,
                               struct ptasm_lexer *lexer)
{
	struct ptasm_code *code = &parser->program->code;
	struct ptasm_tok tok;
	uint64_t value;
	void *symbols;

	(void)ptasm_lex_next(lexer);
	tok = ptasm_lex_next(lexer);
	if (tok.kind != PTASM_TOK_WORD ||
	    ptasm_parse_number(tok.text, tok.len, &value) < 0)
		return ptasm_error(parser->diag, parser->line,
		                   "expected an address after '%.*s ='",
		                   (int)name->len, name->text);
	if (ptasm_lex_peek(lexer).kind != PTASM_TOK_END)
		return ptasm_error(parser->diag, parser->line,
		                   "unexpected text after the address");
	if (ptasm_tok_is(name, "eos"))
		return ptasm_error(parser->diag, parser->line,
		                   "the label name 'eos' is reserved");
	if (ptasm_program_symbol(parser->program, name->text, name->len))
		return ptasm_error(parser->diag, parser->line,
		                   "address '%.*s' was already defined",
		                   (int)name->len, name->text);
	symbols = code->symbols;
	if (ptasm_grow(&symbols, &code->symbols_cap, code->nsymbols + 1,
	               sizeof(*code->symbols)) < 0)
		return ptasm_oom(parser);
	code->symbols = symbols;
	code->symbols[code->nsymbols].name =
	        ptasm_strndup(name->text, name->len);
	if (!code->symbols[code->nsymbols].name)
		return ptasm_oom(parser);
	code->symbols[code->nsymbols].addr = value;
	code->nsymbols += 1;
	return 0;
}

/* A line outside expect blocks that is not a comment. */
static int ptasm_parse_statement(struct ptasm_parser *parser, const char *s,
                                 size_t len)
{
	struct ptasm_lexer lexer;
	struct ptasm_tok tok, next;
	int labeled = 0;

	ptasm_lex_init(&lexer, s, len);
	tok = ptasm_lex_next(&lexer);
	next = ptasm_lex_peek(&lexer);

	/* An address: "<name> = <number>". */
	if (tok.kind == PTASM_TOK_WORD && ptasm_is_ident(tok.text, tok.len) &&
	    ptasm_tok_is_punct(&next, '='))
		return ptasm_parse_address(parser, &tok, &lexer);

	/* A label: an identifier directly followed by ':'. */
	if (tok.kind == PTASM_TOK_WORD && ptasm_is_ident(tok.text, tok.len) &&
	    ptasm_tok_is_punct(&next, ':') && !next.spaced) {
		(void)ptasm_lex_next(&lexer);
		if (ptasm_add_label(parser, &tok) < 0)
			return -1;
		labeled = 1;
		tok = ptasm_lex_next(&lexer);
		if (tok.kind == PTASM_TOK_END)
			return 0;
	}

	/* A sideband file or record: a label names the record. */
	if (ptasm_tok_is(&tok, "pevent")) {
		struct ptasm_program *program = parser->program;
		size_t file, rec;

		if (ptasm_sb_parse(program, &lexer, parser->diag, parser->line,
		                   &file, &rec) < 0)
			return -1;
		if (labeled && !file)
			return ptasm_error(parser->diag, parser->line,
			                   "a label names a sideband record, "
			                   "not a sideband file");
		if (labeled) {
			program->labels[program->nlabels - 1].sb_file = file;
			program->labels[program->nlabels - 1].sb_rec = rec;
		}
		return 0;
	}

	if (ptasm_tok_is_punct(&tok, '@'))
		return ptasm_error(parser->diag, parser->line,
		                   "'@' starts packet directives in comments "
		                   "('; @pt'), in files with x86 code only");
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
			        "'%s' is an assembler directive: a file with "
			        "x86 code needs an 'org' line",
			        ptasm_reserved[i]);
	}
	return ptasm_add_directive(parser, &tok, &lexer);
}

/* Does the line at [@s, @s + @len) (trimmed) start with the word @word,
 * ignoring case? */
static int ptasm_first_word_is(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	if (len < n || (len > n && !ptasm_is_space(s[n])))
		return 0;
	for (size_t i = 0; i < n; ++i) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != word[i])
			return 0;
	}
	return 1;
}

/* A packet directive in a comment of a file with code:
 * "; @pt [<label>:] <directive> [<operands>]", where the operands may also be
 * written in parentheses as pttc does ("@pt p1: tip(3: l1)").  @s points
 * after "@pt". */
static int ptasm_parse_pt_comment(struct ptasm_parser *parser, const char *s,
                                  size_t len)
{
	const char *open, *semi;
	char *copy;
	int err;

	ptasm_trim(&s, &len);
	/* A ';' ends the directive. */
	semi = memchr(s, ';', len);
	if (semi) {
		len = (size_t)(semi - s);
		ptasm_trim(&s, &len);
	}
	if (!len)
		return ptasm_error(parser->diag, parser->line,
		                   "'@pt' without a directive");
	copy = ptasm_strndup(s, len);
	if (!copy)
		return ptasm_oom(parser);
	open = memchr(copy, '(', len);
	if (open && copy[len - 1] == ')') {
		copy[open - copy] = ' ';
		copy[len - 1] = ' ';
	}
	if (len >= 4 && memcmp(copy, ".exp", 4) == 0)
		err = ptasm_error(parser->diag, parser->line,
		                  "pttc's .exp(<tool>) is written as an "
		                  "'expect <tool>' block ... 'end' here");
	else
		err = ptasm_parse_statement(parser, copy, len);
	free(copy);
	return err;
}

/* A sideband record in a comment of a file with code:
 * "; @sb [<label>:] <record> [<operands>]", the "pevent" line of a file
 * without code (also "; @sb primary ..." for a file).  @s points after
 * "@sb". */
static int ptasm_parse_sb_comment(struct ptasm_parser *parser, const char *s,
                                  size_t len)
{
	const char *colon;
	size_t head = 0;
	char *line;
	int err;

	ptasm_trim(&s, &len);
	if (!len)
		return ptasm_error(parser->diag, parser->line,
		                   "'@sb' without a record");
	/* "pevent" goes after the label, if there is one. */
	colon = memchr(s, ':', len);
	if (colon && ptasm_is_ident(s, (size_t)(colon - s)))
		head = (size_t)(colon - s) + 1;
	line = malloc(len + 8);
	if (!line)
		return ptasm_oom(parser);
	memcpy(line, s, head);
	memcpy(line + head, " pevent ", 8);
	memcpy(line + head + 8, s + head, len - head);
	err = ptasm_parse_statement(parser, line, len + 8);
	free(line);
	return err;
}

/* A line of a file with x86 code, outside expect blocks: packet directives
 * are in "; @pt" comments, sideband records in "; @sb" comments, options in
 * the usual comments, and "expect" starts a block; everything else is
 * nasm's. */
static int ptasm_parse_code_line(struct ptasm_parser *parser, const char *t,
                                 size_t tlen)
{
	if (*t == ';') {
		const char *c = t + 1;
		size_t clen = tlen - 1;

		while (clen && ptasm_is_space(*c)) {
			++c;
			--clen;
		}
		if (clen >= 3 && memcmp(c, "@pt", 3) == 0 &&
		    (clen == 3 || ptasm_is_space(c[3])))
			return ptasm_parse_pt_comment(parser, c + 3, clen - 3);
		if (clen >= 3 && memcmp(c, "@sb", 3) == 0 &&
		    (clen == 3 || ptasm_is_space(c[3])))
			return ptasm_parse_sb_comment(parser, c + 3, clen - 3);
		return ptasm_parse_comment(parser, t, tlen);
	}
	if (ptasm_first_word_is(t, tlen, "expect"))
		return ptasm_parse_statement(parser, t, tlen);
	return 0;
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
	if (parser->program->code.present)
		return ptasm_parse_code_line(parser, t, tlen);
	if (*t == ';')
		return ptasm_parse_comment(parser, t, tlen);
	return ptasm_parse_statement(parser, t, tlen);
}

/* Find out whether the file has x86 code (an "org" line outside expect
 * blocks) and which lines nasm must not see (those of expect blocks). */
static int ptasm_prescan(const char *text, size_t len,
                         struct ptasm_program *program)
{
	struct ptasm_code *code = &program->code;
	const char *end = text + len;
	size_t lines = 0, line = 0;
	int in_block = 0;

	for (const char *p = text; p < end; ++p)
		lines += *p == '\n';
	lines += 1;
	code->skip = calloc(lines, 1);
	if (!code->skip)
		return -1;
	code->nlines = lines;
	while (text < end) {
		const char *eol = memchr(text, '\n', (size_t)(end - text));
		size_t n = eol ? (size_t)(eol - text) : (size_t)(end - text);
		const char *t = text;
		size_t tlen = n;

		ptasm_trim(&t, &tlen);
		if (in_block) {
			code->skip[line] = 1;
			if (tlen == 3 && memcmp(t, "end", 3) == 0)
				in_block = 0;
		} else if (ptasm_first_word_is(t, tlen, "expect")) {
			code->skip[line] = 1;
			in_block = 1;
		} else if (!code->present &&
		           ptasm_first_word_is(t, tlen, "org")) {
			code->present = 1;
			code->org_line = (unsigned)line + 1;
		}
		line += 1;
		text += n + (eol ? 1 : 0);
	}
	return 0;
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
	if (ptasm_prescan(text, len, program) < 0)
		return ptasm_error(diag, 0, "out of memory");

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
