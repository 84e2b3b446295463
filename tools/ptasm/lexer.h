/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: splitting a directive line into tokens, and reading numbers.
 *
 * A token is either a word - a run of letters, digits, '_' and '.' (so
 * "tip.pge", "0x1000", "c1.2" and "1.0.1" are single words) - or a single
 * punctuation character such as ':' or ','.  Blanks separate tokens; a ';'
 * starts a comment that runs to the end of the line. */
#ifndef PTASM_LEXER_H
#define PTASM_LEXER_H

#include <stddef.h>
#include <stdint.h>

enum ptasm_tok_kind {
	PTASM_TOK_END,  /* end of the line (or a comment) */
	PTASM_TOK_WORD, /* a word */
	PTASM_TOK_PUNCT /* one punctuation character */
};

struct ptasm_tok {
	enum ptasm_tok_kind kind;
	/* The token's text (not NUL-terminated) and length. */
	const char *text;
	size_t len;
	/* Set if a blank precedes the token. */
	int spaced;
};

/* A position in one line of text. */
struct ptasm_lexer {
	const char *pos;
	const char *end;
};

/* Start lexing the @len characters at @text. */
void ptasm_lex_init(struct ptasm_lexer *lexer, const char *text, size_t len);

/* Return the next token without consuming it. */
struct ptasm_tok ptasm_lex_peek(const struct ptasm_lexer *lexer);

/* Return the next token and consume it. */
struct ptasm_tok ptasm_lex_next(struct ptasm_lexer *lexer);

/* Return non-zero if @tok is the word @word. */
int ptasm_tok_is(const struct ptasm_tok *tok, const char *word);

/* Return non-zero if @tok is the punctuation character @c. */
int ptasm_tok_is_punct(const struct ptasm_tok *tok, char c);

/* Return non-zero if the @len characters at @s form an identifier:
 * a letter or '_' followed by letters, digits and '_'. */
int ptasm_is_ident(const char *s, size_t len);

/* Return non-zero if @c may appear in an identifier after its first
 * character. */
int ptasm_is_ident_char(int c);

/* Read the @len characters at @s as an unsigned number: decimal, hexadecimal
 * with a 0x prefix, or binary with a 0b prefix.  Returns 0 with the value in
 * @value, -1 if the text is not a number, -2 if it exceeds 64 bits. */
int ptasm_parse_number(const char *s, size_t len, uint64_t *value);

#endif /* PTASM_LEXER_H */
