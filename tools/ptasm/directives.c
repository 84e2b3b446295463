/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: the packet directives - their operands and the packets they make.
 *
 * Each directive has a parse function that reads its operands and fills a
 * struct ptasm_stmt.  Values are range-checked here so that errors name the
 * offending operand; the encoder (encode.c) then only calls pt_enc_next(). */
#include "directives.h"

#include <stdlib.h>
#include <string.h>

/* The most packets one "pad N" may produce and bytes one "fill" may make. */
#define PTASM_MAX_REPEAT (1u << 20)
#define PTASM_MAX_FILL (1u << 24)

/* The operands of one directive being parsed. */
struct ptasm_ops {
	struct ptasm_lexer *lexer;
	struct ptasm_diag *diag;
	unsigned line;
	/* The mnemonic, for messages. */
	const char *name;
	int name_len;
};

/* Report an error about the directive being parsed. */
static int ptasm_ops_error(struct ptasm_ops *ops, const char *what,
                           const struct ptasm_tok *tok)
{
	if (!tok || tok->kind == PTASM_TOK_END)
		return ptasm_error(ops->diag, ops->line,
		                   "%.*s: %s, found the end of the line",
		                   ops->name_len, ops->name, what);
	return ptasm_error(ops->diag, ops->line, "%.*s: %s, found '%.*s'",
	                   ops->name_len, ops->name, what, (int)tok->len,
	                   tok->text);
}

/* Require the end of the line. */
static int ptasm_ops_end(struct ptasm_ops *ops)
{
	struct ptasm_tok tok = ptasm_lex_peek(ops->lexer);

	if (tok.kind == PTASM_TOK_END)
		return 0;
	return ptasm_ops_error(ops, "unexpected operand", &tok);
}

static int ptasm_ops_at_end(struct ptasm_ops *ops)
{
	return ptasm_lex_peek(ops->lexer).kind == PTASM_TOK_END;
}

/* Consume the punctuation character @c if it comes next. */
static int ptasm_ops_accept(struct ptasm_ops *ops, char c)
{
	struct ptasm_tok tok = ptasm_lex_peek(ops->lexer);

	if (!ptasm_tok_is_punct(&tok, c))
		return 0;
	(void)ptasm_lex_next(ops->lexer);
	return 1;
}

/* Require the punctuation character @c. */
static int ptasm_ops_expect(struct ptasm_ops *ops, char c)
{
	struct ptasm_tok tok = ptasm_lex_peek(ops->lexer);
	char what[32];

	if (ptasm_ops_accept(ops, c))
		return 0;
	snprintf(what, sizeof(what), "expected '%c'", c);
	return ptasm_ops_error(ops, what, &tok);
}

/* Consume the word @word if it comes next. */
static int ptasm_ops_accept_word(struct ptasm_ops *ops, const char *word)
{
	struct ptasm_tok tok = ptasm_lex_peek(ops->lexer);

	if (!ptasm_tok_is(&tok, word))
		return 0;
	(void)ptasm_lex_next(ops->lexer);
	return 1;
}

/* Read a number named @what that must not exceed @max. */
static int ptasm_ops_number(struct ptasm_ops *ops, const char *what,
                            uint64_t max, uint64_t *value)
{
	struct ptasm_tok tok = ptasm_lex_next(ops->lexer);
	char msg[96];
	int err;

	if (tok.kind != PTASM_TOK_WORD) {
		snprintf(msg, sizeof(msg), "expected %s", what);
		return ptasm_ops_error(ops, msg, &tok);
	}
	err = ptasm_parse_number(tok.text, tok.len, value);
	if (err == -2) {
		snprintf(msg, sizeof(msg), "%s does not fit in 64 bits", what);
		return ptasm_ops_error(ops, msg, &tok);
	}
	if (err < 0) {
		snprintf(msg, sizeof(msg), "expected %s", what);
		return ptasm_ops_error(ops, msg, &tok);
	}
	if (*value > max) {
		snprintf(msg, sizeof(msg), "%s exceeds its maximum 0x%llx",
		         what, (unsigned long long)max);
		return ptasm_ops_error(ops, msg, &tok);
	}
	return 0;
}

/* A name for a number, e.g. an IP compression or a CFE type. */
struct ptasm_name {
	const char *name;
	unsigned value;
};

/* Read a number no greater than @max, or one of the @n @names. */
static int ptasm_ops_named(struct ptasm_ops *ops, const char *what,
                           const struct ptasm_name *names, size_t n,
                           uint64_t max, uint64_t *value)
{
	struct ptasm_tok tok = ptasm_lex_peek(ops->lexer);

	for (size_t i = 0; i < n; ++i) {
		if (ptasm_tok_is(&tok, names[i].name)) {
			(void)ptasm_lex_next(ops->lexer);
			*value = names[i].value;
			return 0;
		}
	}
	return ptasm_ops_number(ops, what, max, value);
}

/* ---- directives without operands ------------------------------------- */

static int ptasm_dir_plain(struct ptasm_ops *ops, struct ptasm_stmt *stmt,
                           enum pt_packet_type type)
{
	stmt->packet.type = type;
	return ptasm_ops_end(ops);
}

static int ptasm_dir_psb(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	return ptasm_dir_plain(ops, stmt, ppt_psb);
}

static int ptasm_dir_psbend(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	return ptasm_dir_plain(ops, stmt, ppt_psbend);
}

static int ptasm_dir_ovf(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	return ptasm_dir_plain(ops, stmt, ppt_ovf);
}

static int ptasm_dir_stop(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	return ptasm_dir_plain(ops, stmt, ppt_stop);
}

/* pad [count] */
static int ptasm_dir_pad(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t count = 1;

	stmt->packet.type = ppt_pad;
	if (!ptasm_ops_at_end(ops) &&
	    ptasm_ops_number(ops, "a repeat count", PTASM_MAX_REPEAT, &count) <
	            0)
		return -1;
	if (!count)
		return ptasm_error(ops->diag, ops->line,
		                   "pad: the repeat count must not be 0");
	stmt->count = (unsigned)count;
	return ptasm_ops_end(ops);
}

/* ---- TNT --------------------------------------------------------------- */

/* tnt <bits> / tnt64 <bits>: 1 or t is taken, 0 or n is not taken; '.' and
 * '_' only separate. */
static int ptasm_dir_tnt_any(struct ptasm_ops *ops, struct ptasm_stmt *stmt,
                             enum pt_packet_type type, unsigned max_bits)
{
	uint64_t payload = 0;
	unsigned bits = 0;

	stmt->packet.type = type;
	while (!ptasm_ops_at_end(ops)) {
		struct ptasm_tok tok = ptasm_lex_next(ops->lexer);

		if (tok.kind != PTASM_TOK_WORD)
			return ptasm_ops_error(
			        ops, "expected branch outcomes (1/t, 0/n)",
			        &tok);
		for (size_t i = 0; i < tok.len; ++i) {
			char c = tok.text[i];

			if (c == '.' || c == '_')
				continue;
			if (c != '1' && c != 't' && c != '0' && c != 'n')
				return ptasm_ops_error(
				        ops,
				        "expected branch outcomes (1/t taken, "
				        "0/n not taken)",
				        &tok);
			if (bits == max_bits)
				return ptasm_error(
				        ops->diag, ops->line,
				        "%.*s: more than %u branch outcomes",
				        ops->name_len, ops->name, max_bits);
			payload = (payload << 1) | (c == '1' || c == 't');
			bits += 1;
		}
	}
	if (!bits)
		return ptasm_error(ops->diag, ops->line,
		                   "%.*s: expected 1 to %u branch outcomes",
		                   ops->name_len, ops->name, max_bits);
	stmt->packet.payload.tnt.bit_size = (uint8_t)bits;
	stmt->packet.payload.tnt.payload = payload;
	return 0;
}

static int ptasm_dir_tnt(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	return ptasm_dir_tnt_any(ops, stmt, ppt_tnt_8, 6);
}

static int ptasm_dir_tnt64(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	return ptasm_dir_tnt_any(ops, stmt, ppt_tnt_64, 47);
}

/* ---- IP packets -------------------------------------------------------- */

static const struct ptasm_name ptasm_ipc_names[] = {
        {"suppressed", pt_ipc_suppressed}, {"upd16", pt_ipc_update_16},
        {"upd32", pt_ipc_update_32},       {"sext48", pt_ipc_sext_48},
        {"upd48", pt_ipc_update_48},       {"full", pt_ipc_full}};

/* Check that @ip can be expressed with compression @ipc. */
static int ptasm_ip_fits(enum pt_ip_compression ipc, uint64_t ip)
{
	switch (ipc) {
	case pt_ipc_suppressed:
	case pt_ipc_full:
		return 1;
	case pt_ipc_update_16:
		return ip <= 0xffff;
	case pt_ipc_update_32:
		return ip <= 0xffffffff;
	case pt_ipc_update_48:
		return ip <= UINT64_C(0xffffffffffff);
	case pt_ipc_sext_48:
		/* 48 bits, or a 64-bit address sign-extended from bit 47. */
		return ip <= UINT64_C(0xffffffffffff) ||
		       (ip >> 47) == UINT64_C(0x1ffff);
	}
	return 0;
}

/* An IP that names a code label: "[%]<label>[+-<number>]".  Returns 1 with
 * the label in @stmt, 0 if the operand is not a label, or -1 after an
 * error.  The address is filled in once the code is assembled. */
static int ptasm_ops_ip_label(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	struct ptasm_tok tok = ptasm_lex_peek(ops->lexer);
	uint64_t n;

	if (ptasm_tok_is_punct(&tok, '%')) {
		(void)ptasm_lex_next(ops->lexer);
		tok = ptasm_lex_peek(ops->lexer);
		if (tok.kind != PTASM_TOK_WORD || tok.spaced)
			return ptasm_ops_error(
			        ops, "expected a label after '%'", &tok);
	}
	if (tok.kind != PTASM_TOK_WORD ||
	    !(tok.text[0] == '_' ||
	      (tok.text[0] >= 'a' && tok.text[0] <= 'z') ||
	      (tok.text[0] >= 'A' && tok.text[0] <= 'Z')))
		return 0;
	(void)ptasm_lex_next(ops->lexer);
	stmt->ip_label = ptasm_strndup(tok.text, tok.len);
	if (!stmt->ip_label)
		return ptasm_error(ops->diag, ops->line, "out of memory");
	tok = ptasm_lex_peek(ops->lexer);
	if (ptasm_tok_is_punct(&tok, '+') || ptasm_tok_is_punct(&tok, '-')) {
		int neg = tok.text[0] == '-';

		(void)ptasm_lex_next(ops->lexer);
		if (ptasm_ops_number(ops, "a number", INT64_MAX, &n) < 0)
			return -1;
		stmt->ip_adjust = neg ? -(int64_t)n : (int64_t)n;
	}
	return 1;
}

/* tip|tip.pge|tip.pgd|fup [<ipc>[: <ip>]] */
static int ptasm_dir_ip(struct ptasm_ops *ops, struct ptasm_stmt *stmt,
                        enum pt_packet_type type)
{
	uint64_t ipc = pt_ipc_suppressed, ip = 0;

	stmt->packet.type = type;
	if (!ptasm_ops_at_end(ops)) {
		if (ptasm_ops_named(ops, "an IP compression", ptasm_ipc_names,
		                    sizeof(ptasm_ipc_names) /
		                            sizeof(ptasm_ipc_names[0]),
		                    7, &ipc) < 0)
			return -1;
		if (ipc == 5 || ipc == 7)
			return ptasm_error(
			        ops->diag, ops->line,
			        "%.*s: IP compression %u is reserved",
			        ops->name_len, ops->name, (unsigned)ipc);
		if (ptasm_ops_accept(ops, ':')) {
			int label = ptasm_ops_ip_label(ops, stmt);

			if (label < 0)
				return -1;
			if (label) {
				stmt->packet.payload.ip.ipc =
				        (enum pt_ip_compression)ipc;
				return ptasm_ops_end(ops);
			}
			if (ptasm_ops_number(ops, "an IP", UINT64_MAX, &ip) < 0)
				return -1;
		} else if (ipc != pt_ipc_suppressed) {
			return ptasm_ops_expect(ops, ':');
		}
	}
	if (!ptasm_ip_fits((enum pt_ip_compression)ipc, ip))
		return ptasm_error(
		        ops->diag, ops->line,
		        "%.*s: IP 0x%llx does not fit IP compression %u",
		        ops->name_len, ops->name, (unsigned long long)ip,
		        (unsigned)ipc);
	stmt->packet.payload.ip.ipc = (enum pt_ip_compression)ipc;
	stmt->packet.payload.ip.ip = ip;
	return ptasm_ops_end(ops);
}

static int ptasm_dir_tip(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	return ptasm_dir_ip(ops, stmt, ppt_tip);
}

static int ptasm_dir_tip_pge(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	return ptasm_dir_ip(ops, stmt, ppt_tip_pge);
}

static int ptasm_dir_tip_pgd(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	return ptasm_dir_ip(ops, stmt, ppt_tip_pgd);
}

static int ptasm_dir_fup(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	return ptasm_dir_ip(ops, stmt, ppt_fup);
}

/* ---- MODE -------------------------------------------------------------- */

/* mode.exec <flag>...: 16bit, 32bit, 64bit, cs.l, cs.d, if */
static int ptasm_dir_mode_exec(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	struct pt_packet_mode_exec *exec = &stmt->packet.payload.mode.bits.exec;
	int any = 0;

	stmt->packet.type = ppt_mode;
	stmt->packet.payload.mode.leaf = pt_mol_exec;
	while (!ptasm_ops_at_end(ops)) {
		struct ptasm_tok tok = ptasm_lex_next(ops->lexer);

		if (ptasm_tok_is(&tok, "16bit")) {
			/* Both bits clear. */
		} else if (ptasm_tok_is(&tok, "32bit")) {
			exec->csd = 1;
		} else if (ptasm_tok_is(&tok, "64bit")) {
			exec->csl = 1;
		} else if (ptasm_tok_is(&tok, "cs.l")) {
			exec->csl = 1;
		} else if (ptasm_tok_is(&tok, "cs.d")) {
			exec->csd = 1;
		} else if (ptasm_tok_is(&tok, "if")) {
			exec->iflag = 1;
		} else {
			return ptasm_ops_error(ops,
			                       "expected 16bit, 32bit, 64bit, "
			                       "cs.l, cs.d or if",
			                       &tok);
		}
		any = 1;
		(void)ptasm_ops_accept(ops, ',');
	}
	if (!any)
		return ptasm_ops_error(ops, "expected an execution mode", NULL);
	return 0;
}

/* mode.tsx begin|commit|abort (or the raw bits intx, abrt) */
static int ptasm_dir_mode_tsx(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	struct pt_packet_mode_tsx *tsx = &stmt->packet.payload.mode.bits.tsx;
	int any = 0;

	stmt->packet.type = ppt_mode;
	stmt->packet.payload.mode.leaf = pt_mol_tsx;
	while (!ptasm_ops_at_end(ops)) {
		struct ptasm_tok tok = ptasm_lex_next(ops->lexer);

		if (ptasm_tok_is(&tok, "begin") || ptasm_tok_is(&tok, "intx")) {
			tsx->intx = 1;
		} else if (ptasm_tok_is(&tok, "abort") ||
		           ptasm_tok_is(&tok, "abrt")) {
			tsx->abrt = 1;
		} else if (ptasm_tok_is(&tok, "commit")) {
			/* Both bits clear. */
		} else {
			return ptasm_ops_error(
			        ops,
			        "expected begin, commit, abort, intx or abrt",
			        &tok);
		}
		any = 1;
		(void)ptasm_ops_accept(ops, ',');
	}
	if (!any)
		return ptasm_ops_error(ops, "expected begin, commit or abort",
		                       NULL);
	return 0;
}

/* ---- paging and VMX ------------------------------------------------- */

/* pip <cr3>[,] [nr] */
static int ptasm_dir_pip(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t cr3;

	stmt->packet.type = ppt_pip;
	if (ptasm_ops_number(ops, "a CR3 value", (UINT64_C(1) << 52) - 1,
	                     &cr3) < 0)
		return -1;
	if (cr3 & 0x1f)
		return ptasm_error(ops->diag, ops->line,
		                   "pip: CR3 0x%llx has some of bits 4:0 set",
		                   (unsigned long long)cr3);
	stmt->packet.payload.pip.cr3 = cr3;
	(void)ptasm_ops_accept(ops, ',');
	if (ptasm_ops_accept_word(ops, "nr"))
		stmt->packet.payload.pip.nr = 1;
	return ptasm_ops_end(ops);
}

/* vmcs <base> */
static int ptasm_dir_vmcs(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t base;

	stmt->packet.type = ppt_vmcs;
	if (ptasm_ops_number(ops, "a VMCS base address",
	                     (UINT64_C(1) << 52) - 1, &base) < 0)
		return -1;
	if (base & 0xfff)
		return ptasm_error(
		        ops->diag, ops->line,
		        "vmcs: base 0x%llx has some of bits 11:0 set",
		        (unsigned long long)base);
	stmt->packet.payload.vmcs.base = base;
	return ptasm_ops_end(ops);
}

/* ---- timing ------------------------------------------------------------ */

static int ptasm_dir_tsc(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t tsc;

	stmt->packet.type = ppt_tsc;
	if (ptasm_ops_number(ops, "a 56-bit TSC value", (UINT64_C(1) << 56) - 1,
	                     &tsc) < 0)
		return -1;
	stmt->packet.payload.tsc.tsc = tsc;
	return ptasm_ops_end(ops);
}

static int ptasm_dir_cbr(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t ratio;

	stmt->packet.type = ppt_cbr;
	if (ptasm_ops_number(ops, "a core:bus ratio", 0xff, &ratio) < 0)
		return -1;
	stmt->packet.payload.cbr.ratio = (uint8_t)ratio;
	return ptasm_ops_end(ops);
}

/* tma <ctc>, <fc> */
static int ptasm_dir_tma(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t ctc, fc;

	stmt->packet.type = ppt_tma;
	if (ptasm_ops_number(ops, "a 16-bit CTC value", 0xffff, &ctc) < 0 ||
	    ptasm_ops_expect(ops, ',') < 0 ||
	    ptasm_ops_number(ops, "a 9-bit fast counter", 0x1ff, &fc) < 0)
		return -1;
	stmt->packet.payload.tma.ctc = (uint16_t)ctc;
	stmt->packet.payload.tma.fc = (uint16_t)fc;
	return ptasm_ops_end(ops);
}

static int ptasm_dir_mtc(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t ctc;

	stmt->packet.type = ppt_mtc;
	if (ptasm_ops_number(ops, "an 8-bit CTC value", 0xff, &ctc) < 0)
		return -1;
	stmt->packet.payload.mtc.ctc = (uint8_t)ctc;
	return ptasm_ops_end(ops);
}

static int ptasm_dir_cyc(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t value;

	stmt->packet.type = ppt_cyc;
	if (ptasm_ops_number(ops, "a cycle count", UINT64_MAX, &value) < 0)
		return -1;
	stmt->packet.payload.cyc.value = value;
	return ptasm_ops_end(ops);
}

/* ---- maintenance and power -------------------------------------------- */

static int ptasm_dir_mnt(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t payload;

	stmt->packet.type = ppt_mnt;
	if (ptasm_ops_number(ops, "a payload", UINT64_MAX, &payload) < 0)
		return -1;
	stmt->packet.payload.mnt.payload = payload;
	return ptasm_ops_end(ops);
}

/* exstop [ip] */
static int ptasm_dir_exstop(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	stmt->packet.type = ppt_exstop;
	if (ptasm_ops_accept_word(ops, "ip"))
		stmt->packet.payload.exstop.ip = 1;
	return ptasm_ops_end(ops);
}

/* mwait <hints>, <ext> */
static int ptasm_dir_mwait(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t hints, ext;

	stmt->packet.type = ppt_mwait;
	if (ptasm_ops_number(ops, "32-bit hints", 0xffffffff, &hints) < 0 ||
	    ptasm_ops_expect(ops, ',') < 0 ||
	    ptasm_ops_number(ops, "32-bit extensions", 0xffffffff, &ext) < 0)
		return -1;
	stmt->packet.payload.mwait.hints = (uint32_t)hints;
	stmt->packet.payload.mwait.ext = (uint32_t)ext;
	return ptasm_ops_end(ops);
}

/* Read a C-state "c<n>" (or "c<n>.<m>" if @sub is not NULL) as written by
 * people and printed by ptdump: C0 is encoded as 0xf, C1 as 0, and so on. */
static int ptasm_ops_cstate(struct ptasm_ops *ops, uint8_t *state, uint8_t *sub)
{
	struct ptasm_tok tok = ptasm_lex_next(ops->lexer);
	const char *what = sub ? "expected a C-state c<n>[.<m>] (n, m < 16)"
	                       : "expected a C-state c<n> (n < 16)";
	const char *dot;
	uint64_t s, m = 0;
	size_t len;

	if (tok.kind != PTASM_TOK_WORD || tok.len < 2 || tok.text[0] != 'c')
		return ptasm_ops_error(ops, what, &tok);
	dot = memchr(tok.text, '.', tok.len);
	len = dot ? (size_t)(dot - tok.text) : tok.len;
	if (dot && !sub)
		return ptasm_ops_error(ops, what, &tok);
	if (ptasm_parse_number(tok.text + 1, len - 1, &s) < 0 || s > 15)
		return ptasm_ops_error(ops, what, &tok);
	if (dot &&
	    (ptasm_parse_number(dot + 1, tok.len - len - 1, &m) < 0 || m > 15))
		return ptasm_ops_error(ops, what, &tok);
	*state = (uint8_t)((s - 1) & 0xf);
	if (sub)
		*sub = (uint8_t)((m - 1) & 0xf);
	return 0;
}

/* pwre c<s>[.<sub>][,] [hw] */
static int ptasm_dir_pwre(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	struct pt_packet_pwre *pwre = &stmt->packet.payload.pwre;

	stmt->packet.type = ppt_pwre;
	if (ptasm_ops_cstate(ops, &pwre->state, &pwre->sub_state) < 0)
		return -1;
	(void)ptasm_ops_accept(ops, ',');
	if (ptasm_ops_accept_word(ops, "hw"))
		pwre->hw = 1;
	return ptasm_ops_end(ops);
}

/* pwrx <reason>...: c<last>, c<deepest>; reasons int, st, hw or none */
static int ptasm_dir_pwrx(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	struct pt_packet_pwrx *pwrx = &stmt->packet.payload.pwrx;
	int any = 0;

	stmt->packet.type = ppt_pwrx;
	for (;;) {
		struct ptasm_tok tok = ptasm_lex_peek(ops->lexer);

		if (ptasm_tok_is_punct(&tok, ':') && any)
			break;
		(void)ptasm_lex_next(ops->lexer);
		if (ptasm_tok_is(&tok, "int"))
			pwrx->interrupt = 1;
		else if (ptasm_tok_is(&tok, "st"))
			pwrx->store = 1;
		else if (ptasm_tok_is(&tok, "hw"))
			pwrx->autonomous = 1;
		else if (!ptasm_tok_is(&tok, "none"))
			return ptasm_ops_error(
			        ops,
			        "expected a wake reason (int, st, hw, none)",
			        &tok);
		any = 1;
	}
	if (ptasm_ops_expect(ops, ':') < 0 ||
	    ptasm_ops_cstate(ops, &pwrx->last, NULL) < 0 ||
	    ptasm_ops_expect(ops, ',') < 0 ||
	    ptasm_ops_cstate(ops, &pwrx->deepest, NULL) < 0)
		return -1;
	return ptasm_ops_end(ops);
}

/* ptw 0|1: <payload>[,] [ip] */
static int ptasm_dir_ptw(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t plc, payload;

	stmt->packet.type = ppt_ptw;
	if (ptasm_ops_number(ops, "a payload size code (0 or 1)", 1, &plc) <
	            0 ||
	    ptasm_ops_expect(ops, ':') < 0 ||
	    ptasm_ops_number(ops, plc ? "a 64-bit payload" : "a 32-bit payload",
	                     plc ? UINT64_MAX : 0xffffffff, &payload) < 0)
		return -1;
	stmt->packet.payload.ptw.plc = (uint8_t)plc;
	stmt->packet.payload.ptw.payload = payload;
	(void)ptasm_ops_accept(ops, ',');
	if (ptasm_ops_accept_word(ops, "ip"))
		stmt->packet.payload.ptw.ip = 1;
	return ptasm_ops_end(ops);
}

/* ---- event trace and triggers ----------------------------------------- */

static const struct ptasm_name ptasm_cfe_names[] = {
        {"intr", pt_cfe_intr},
        {"iret", pt_cfe_iret},
        {"smi", pt_cfe_smi},
        {"rsm", pt_cfe_rsm},
        {"sipi", pt_cfe_sipi},
        {"init", pt_cfe_init},
        {"vmentry", pt_cfe_vmentry},
        {"vmexit", pt_cfe_vmexit},
        {"vmexit_intr", pt_cfe_vmexit_intr},
        {"shutdown", pt_cfe_shutdown},
        {"uintr", pt_cfe_uintr},
        {"uiret", pt_cfe_uiret},
        {"swintr", pt_cfe_swintr},
        {"syscall", pt_cfe_syscall}};

/* cfe <type>[, <vector>][,] [ip] */
static int ptasm_dir_cfe(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	struct pt_packet_cfe *cfe = &stmt->packet.payload.cfe;
	uint64_t type, vector;

	stmt->packet.type = ppt_cfe;
	if (ptasm_ops_named(ops, "a CFE type", ptasm_cfe_names,
	                    sizeof(ptasm_cfe_names) /
	                            sizeof(ptasm_cfe_names[0]),
	                    0x1f, &type) < 0)
		return -1;
	cfe->type = (enum pt_cfe_type)type;
	(void)ptasm_ops_accept(ops, ',');
	if (ptasm_ops_accept_word(ops, "ip")) {
		cfe->ip = 1;
		return ptasm_ops_end(ops);
	}
	if (ptasm_ops_at_end(ops))
		return 0;
	if (ptasm_ops_number(ops, "a vector", 0xff, &vector) < 0)
		return -1;
	cfe->vector = (uint8_t)vector;
	(void)ptasm_ops_accept(ops, ',');
	if (ptasm_ops_accept_word(ops, "ip"))
		cfe->ip = 1;
	return ptasm_ops_end(ops);
}

static const struct ptasm_name ptasm_evd_names[] = {
        {"cr2", pt_evd_cr2}, {"vmxq", pt_evd_vmxq}, {"vmxr", pt_evd_vmxr}};

/* evd <type>: <payload> */
static int ptasm_dir_evd(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t type, payload;

	stmt->packet.type = ppt_evd;
	if (ptasm_ops_named(ops, "an EVD type", ptasm_evd_names,
	                    sizeof(ptasm_evd_names) /
	                            sizeof(ptasm_evd_names[0]),
	                    0x1f, &type) < 0 ||
	    ptasm_ops_expect(ops, ':') < 0 ||
	    ptasm_ops_number(ops, "a payload", UINT64_MAX, &payload) < 0)
		return -1;
	stmt->packet.payload.evd.type = (enum pt_evd_type)type;
	stmt->packet.payload.evd.payload = payload;
	return ptasm_ops_end(ops);
}

/* trig <trbv> [ip] [mult] [icnt[:] <n>], flags in any order */
static int ptasm_dir_trig(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	struct pt_packet_trig *trig = &stmt->packet.payload.trig;
	uint64_t trbv, icnt;

	stmt->packet.type = ppt_trig;
	if (ptasm_ops_number(ops, "a trigger bit vector", 0xff, &trbv) < 0)
		return -1;
	trig->trbv = (uint8_t)trbv;
	(void)ptasm_ops_accept(ops, ',');
	while (!ptasm_ops_at_end(ops)) {
		if (ptasm_ops_accept_word(ops, "ip")) {
			trig->ip = 1;
		} else if (ptasm_ops_accept_word(ops, "mult")) {
			trig->mult = 1;
		} else if (ptasm_ops_accept_word(ops, "icnt")) {
			(void)ptasm_ops_accept(ops, ':');
			if (ptasm_ops_number(ops, "a 16-bit instruction count",
			                     0xffff, &icnt) < 0)
				return -1;
			trig->icntv = 1;
			trig->icnt = (uint16_t)icnt;
		} else {
			struct ptasm_tok tok = ptasm_lex_peek(ops->lexer);

			return ptasm_ops_error(ops, "expected ip, mult or icnt",
			                       &tok);
		}
		(void)ptasm_ops_accept(ops, ',');
	}
	return 0;
}

/* ---- PEBS via PT (ptdecode extension) --------------------------------- */

/* bbp <type>[,] [sz4|sz8] */
static int ptasm_dir_bbp(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t type;

	stmt->packet.type = ppt_bbp;
	if (ptasm_ops_number(ops, "a 5-bit block type", 0x1f, &type) < 0)
		return -1;
	stmt->packet.payload.bbp.type = (uint8_t)type;
	(void)ptasm_ops_accept(ops, ',');
	if (ptasm_ops_accept_word(ops, "sz4"))
		stmt->packet.payload.bbp.sz = 1;
	else
		(void)ptasm_ops_accept_word(ops, "sz8");
	return ptasm_ops_end(ops);
}

/* bip <id>: <payload> */
static int ptasm_dir_bip(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t id, payload;

	stmt->packet.type = ppt_bip;
	if (ptasm_ops_number(ops, "a 5-bit item id", 0x1f, &id) < 0 ||
	    ptasm_ops_expect(ops, ':') < 0 ||
	    ptasm_ops_number(ops, "a payload", UINT64_MAX, &payload) < 0)
		return -1;
	stmt->packet.payload.bip.id = (uint8_t)id;
	stmt->packet.payload.bip.payload = payload;
	return ptasm_ops_end(ops);
}

/* bep [ip] */
static int ptasm_dir_bep(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	stmt->packet.type = ppt_bep;
	if (ptasm_ops_accept_word(ops, "ip"))
		stmt->packet.payload.bep.ip = 1;
	return ptasm_ops_end(ops);
}

/* ---- raw bytes --------------------------------------------------------- */

/* raw <byte>[,] <byte>... */
static int ptasm_dir_raw(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	struct ptasm_bytes bytes;

	memset(&bytes, 0, sizeof(bytes));
	stmt->kind = PTASM_STMT_BYTES;
	do {
		uint64_t v;
		uint8_t b;

		if (ptasm_ops_number(ops, "a byte", 0xff, &v) < 0) {
			ptasm_bytes_free(&bytes);
			return -1;
		}
		b = (uint8_t)v;
		if (ptasm_bytes_append(&bytes, &b, 1) < 0) {
			ptasm_bytes_free(&bytes);
			return ptasm_error(ops->diag, ops->line,
			                   "out of memory");
		}
		(void)ptasm_ops_accept(ops, ',');
	} while (!ptasm_ops_at_end(ops));
	stmt->bytes = bytes.data;
	stmt->nbytes = bytes.len;
	return 0;
}

/* fill <count>[, <byte>] */
static int ptasm_dir_fill(struct ptasm_ops *ops, struct ptasm_stmt *stmt)
{
	uint64_t count, value = 0;

	stmt->kind = PTASM_STMT_BYTES;
	if (ptasm_ops_number(ops, "a byte count", PTASM_MAX_FILL, &count) < 0)
		return -1;
	if (ptasm_ops_accept(ops, ',') &&
	    ptasm_ops_number(ops, "a byte", 0xff, &value) < 0)
		return -1;
	if (ptasm_ops_end(ops) < 0)
		return -1;
	if (!count)
		return ptasm_error(ops->diag, ops->line,
		                   "fill: the byte count must not be 0");
	stmt->bytes = malloc((size_t)count);
	if (!stmt->bytes)
		return ptasm_error(ops->diag, ops->line, "out of memory");
	memset(stmt->bytes, (int)value, (size_t)count);
	stmt->nbytes = (size_t)count;
	return 0;
}

/* ---- the directive table ---------------------------------------------- */

struct ptasm_directive {
	const char *name;
	int (*parse)(struct ptasm_ops *ops, struct ptasm_stmt *stmt);
};

static const struct ptasm_directive ptasm_directives[] = {
        {"psb", ptasm_dir_psb},           {"psbend", ptasm_dir_psbend},
        {"pad", ptasm_dir_pad},           {"ovf", ptasm_dir_ovf},
        {"stop", ptasm_dir_stop},         {"tnt", ptasm_dir_tnt},
        {"tnt64", ptasm_dir_tnt64},       {"tip", ptasm_dir_tip},
        {"tip.pge", ptasm_dir_tip_pge},   {"tip.pgd", ptasm_dir_tip_pgd},
        {"fup", ptasm_dir_fup},           {"mode.exec", ptasm_dir_mode_exec},
        {"mode.tsx", ptasm_dir_mode_tsx}, {"pip", ptasm_dir_pip},
        {"vmcs", ptasm_dir_vmcs},         {"tsc", ptasm_dir_tsc},
        {"cbr", ptasm_dir_cbr},           {"tma", ptasm_dir_tma},
        {"mtc", ptasm_dir_mtc},           {"cyc", ptasm_dir_cyc},
        {"mnt", ptasm_dir_mnt},           {"exstop", ptasm_dir_exstop},
        {"mwait", ptasm_dir_mwait},       {"pwre", ptasm_dir_pwre},
        {"pwrx", ptasm_dir_pwrx},         {"ptw", ptasm_dir_ptw},
        {"cfe", ptasm_dir_cfe},           {"evd", ptasm_dir_evd},
        {"trig", ptasm_dir_trig},         {"bbp", ptasm_dir_bbp},
        {"bip", ptasm_dir_bip},           {"bep", ptasm_dir_bep},
        {"raw", ptasm_dir_raw},           {"fill", ptasm_dir_fill}};

static const struct ptasm_directive *
ptasm_find_directive(const struct ptasm_tok *mnemonic)
{
	for (size_t i = 0;
	     i < sizeof(ptasm_directives) / sizeof(ptasm_directives[0]); ++i) {
		if (ptasm_tok_is(mnemonic, ptasm_directives[i].name))
			return &ptasm_directives[i];
	}
	return NULL;
}

int ptasm_is_directive(const struct ptasm_tok *mnemonic)
{
	return ptasm_find_directive(mnemonic) != NULL;
}

int ptasm_parse_directive(const struct ptasm_tok *mnemonic,
                          struct ptasm_lexer *lexer, struct ptasm_stmt *stmt,
                          struct ptasm_diag *diag, unsigned line)
{
	const struct ptasm_directive *dir = ptasm_find_directive(mnemonic);
	struct ptasm_ops ops;

	if (!dir)
		return ptasm_error(diag, line, "unknown directive '%.*s'",
		                   (int)mnemonic->len, mnemonic->text);
	ops.lexer = lexer;
	ops.diag = diag;
	ops.line = line;
	ops.name = dir->name;
	ops.name_len = (int)strlen(dir->name);
	stmt->line = line;
	stmt->kind = PTASM_STMT_PACKET;
	stmt->count = 1;
	return dir->parse(&ops, stmt);
}
