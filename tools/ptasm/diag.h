/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: error reporting with file:line, and small growable buffers. */
#ifndef PTASM_DIAG_H
#define PTASM_DIAG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Where diagnostics go and how many errors were reported. */
struct ptasm_diag {
	/* The name of the source file, as given on the command line. */
	const char *file;

	/* The stream that receives the messages (stderr). */
	FILE *out;

	/* The number of errors reported so far. */
	unsigned errors;
};

#if defined(__GNUC__)
#define PTASM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PTASM_PRINTF(f, a)
#endif

/* Report an error at @line of the source file (0: no line) as
 * "file:line: error: message".  Always returns -1. */
int ptasm_error(struct ptasm_diag *diag, unsigned line, const char *fmt, ...)
        PTASM_PRINTF(3, 4);

/* A growable array of bytes. */
struct ptasm_bytes {
	uint8_t *data;
	size_t len;
	size_t cap;
};

/* Make room for @extra more bytes.  Returns 0, or -1 if memory runs out. */
int ptasm_bytes_reserve(struct ptasm_bytes *bytes, size_t extra);

/* Append @n bytes from @src.  Returns 0, or -1 if memory runs out. */
int ptasm_bytes_append(struct ptasm_bytes *bytes, const void *src, size_t n);

/* Free the storage of @bytes and clear it. */
void ptasm_bytes_free(struct ptasm_bytes *bytes);

/* Grow the array at *@items (of *@cap elements of @size bytes) so that it
 * holds at least @need elements.  Returns 0, or -1 if memory runs out. */
int ptasm_grow(void **items, size_t *cap, size_t need, size_t size);

/* Return a NUL-terminated copy of the @n characters at @s, or NULL if memory
 * runs out. */
char *ptasm_strndup(const char *s, size_t n);

#endif /* PTASM_DIAG_H */
