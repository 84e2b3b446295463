/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: the packet directives - their operands and the packets they make. */
#ifndef PTASM_DIRECTIVES_H
#define PTASM_DIRECTIVES_H

#include "diag.h"
#include "lexer.h"
#include "program.h"

/* Return non-zero if @mnemonic names a packet directive. */
int ptasm_is_directive(const struct ptasm_tok *mnemonic);

/* Parse the operands of the directive @mnemonic from @lexer (up to the end of
 * the line) into @stmt, which the caller has zeroed.  @line is the source
 * line for diagnostics.  Returns 0, or -1 after reporting an error. */
int ptasm_parse_directive(const struct ptasm_tok *mnemonic,
                          struct ptasm_lexer *lexer, struct ptasm_stmt *stmt,
                          struct ptasm_diag *diag, unsigned line);

#endif /* PTASM_DIRECTIVES_H */
