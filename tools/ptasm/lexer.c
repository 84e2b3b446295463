/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: splitting a directive line into tokens, and reading numbers. */
#include "lexer.h"

#include <string.h>

static int ptasm_is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int ptasm_is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int ptasm_is_digit(int c)
{
	return c >= '0' && c <= '9';
}

int ptasm_is_ident_char(int c)
{
	return ptasm_is_alpha(c) || ptasm_is_digit(c) || c == '_';
}

static int ptasm_is_word_char(int c)
{
	return ptasm_is_ident_char(c) || c == '.';
}

int ptasm_is_ident(const char *s, size_t len)
{
	if (!len || !(ptasm_is_alpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < len; ++i) {
		if (!ptasm_is_ident_char((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

void ptasm_lex_init(struct ptasm_lexer *lexer, const char *text, size_t len)
{
	lexer->pos = text;
	lexer->end = text + len;
}

/* Scan one token starting at @pos; return where it ends. */
static const char *ptasm_scan(const char *pos, const char *end,
                              struct ptasm_tok *tok)
{
	const char *start = pos;

	while (pos < end && ptasm_is_blank((unsigned char)*pos))
		++pos;
	tok->spaced = pos != start;
	tok->text = pos;
	tok->len = 0;
	if (pos >= end || *pos == ';' || *pos == '\n') {
		tok->kind = PTASM_TOK_END;
		return pos;
	}
	if (ptasm_is_word_char((unsigned char)*pos)) {
		while (pos < end && ptasm_is_word_char((unsigned char)*pos))
			++pos;
		tok->kind = PTASM_TOK_WORD;
		tok->len = (size_t)(pos - tok->text);
		return pos;
	}
	tok->kind = PTASM_TOK_PUNCT;
	tok->len = 1;
	return pos + 1;
}

struct ptasm_tok ptasm_lex_peek(const struct ptasm_lexer *lexer)
{
	struct ptasm_tok tok;

	(void)ptasm_scan(lexer->pos, lexer->end, &tok);
	return tok;
}

struct ptasm_tok ptasm_lex_next(struct ptasm_lexer *lexer)
{
	struct ptasm_tok tok;

	lexer->pos = ptasm_scan(lexer->pos, lexer->end, &tok);
	return tok;
}

int ptasm_tok_is(const struct ptasm_tok *tok, const char *word)
{
	return tok->kind == PTASM_TOK_WORD && strlen(word) == tok->len &&
	       memcmp(tok->text, word, tok->len) == 0;
}

int ptasm_tok_is_punct(const struct ptasm_tok *tok, char c)
{
	return tok->kind == PTASM_TOK_PUNCT && tok->text[0] == c;
}

static int ptasm_digit_value(int c)
{
	if (ptasm_is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

int ptasm_parse_number(const char *s, size_t len, uint64_t *value)
{
	unsigned base = 10;
	uint64_t v = 0;
	int overflow = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		len -= 2;
	} else if (len > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2;
		s += 2;
		len -= 2;
	}
	if (!len)
		return -1;
	for (size_t i = 0; i < len; ++i) {
		int d = ptasm_digit_value((unsigned char)s[i]);

		if (d >= (int)base)
			return -1;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			overflow = 1;
		v = v * base + (uint64_t)d;
	}
	if (overflow)
		return -2;
	*value = v;
	return 0;
}
