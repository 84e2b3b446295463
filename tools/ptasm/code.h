/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: the x86 code of a .pta file - assembling it with nasm, reading its
 * labels from nasm's map file, and putting their addresses into the IP
 * packets that name them. */
#ifndef PTASM_CODE_H
#define PTASM_CODE_H

#include "diag.h"
#include "program.h"

#include <stddef.h>

/* Assemble the code of @program (the @len characters at @text are the whole
 * .pta file) with nasm into the flat binary "<prefix>.bin": the lines of
 * expect blocks are blanked, everything else goes to nasm as it is, so
 * nasm's messages name the lines of the .pta file.  Fills in the program
 * origin and the labels of @program->code.  The program "nasm" is found in
 * the PATH, or named by the environment variable PTASM_NASM.  The
 * intermediate files "<prefix>.asm" and "<prefix>.map" are removed again.
 * Returns 0, or -1 after reporting errors. */
int ptasm_code_assemble(struct ptasm_program *program, const char *text,
                        size_t len, const char *prefix,
                        struct ptasm_diag *diag);

/* Put the addresses of the code labels that IP packets name into their
 * packets, cut to the IP compression's bits; check that no trace label has
 * the name of a code label.  Returns 0, or -1 after reporting errors. */
int ptasm_code_resolve(struct ptasm_program *program, struct ptasm_diag *diag);

#endif /* PTASM_CODE_H */
