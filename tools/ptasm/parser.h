/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: reading a .pta file into a struct ptasm_program.
 *
 * The parser handles the line structure of the language: comments, option
 * lines ("; opt:", "; cpu:", "; range:"), labels, "expect <tool>" blocks and
 * the reserved words; it hands each packet directive to directives.c. */
#ifndef PTASM_PARSER_H
#define PTASM_PARSER_H

#include "diag.h"
#include "program.h"

#include <stddef.h>

/* Parse the @len characters at @text into @program, which the caller has
 * zeroed.  Reports every error it finds to @diag.  Returns 0 if there were
 * none, -1 otherwise. */
int ptasm_parse(const char *text, size_t len, struct ptasm_program *program,
                struct ptasm_diag *diag);

#endif /* PTASM_PARSER_H */
