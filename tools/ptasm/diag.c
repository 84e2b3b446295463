/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: error reporting with file:line, and small growable buffers. */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int ptasm_error(struct ptasm_diag *diag, unsigned line, const char *fmt, ...)
{
	va_list ap;

	diag->errors += 1;
	if (line)
		fprintf(diag->out, "%s:%u: error: ", diag->file, line);
	else
		fprintf(diag->out, "%s: error: ", diag->file);
	va_start(ap, fmt);
	vfprintf(diag->out, fmt, ap);
	va_end(ap);
	fputc('\n', diag->out);
	return -1;
}

int ptasm_grow(void **items, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *nitems;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -1;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / size)
		return -1;
	nitems = realloc(*items, ncap * size);
	if (!nitems)
		return -1;
	*items = nitems;
	*cap = ncap;
	return 0;
}

int ptasm_bytes_reserve(struct ptasm_bytes *bytes, size_t extra)
{
	void *data = bytes->data;
	int err;

	if (extra > SIZE_MAX - bytes->len)
		return -1;
	err = ptasm_grow(&data, &bytes->cap, bytes->len + extra, 1);
	bytes->data = data;
	return err;
}

int ptasm_bytes_append(struct ptasm_bytes *bytes, const void *src, size_t n)
{
	if (!n)
		return 0;
	if (ptasm_bytes_reserve(bytes, n) < 0)
		return -1;
	memcpy(bytes->data + bytes->len, src, n);
	bytes->len += n;
	return 0;
}

void ptasm_bytes_free(struct ptasm_bytes *bytes)
{
	free(bytes->data);
	memset(bytes, 0, sizeof(*bytes));
}

char *ptasm_strndup(const char *s, size_t n)
{
	char *copy = malloc(n + 1);

	if (!copy)
		return NULL;
	memcpy(copy, s, n);
	copy[n] = '\0';
	return copy;
}
