/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading a whole file, pipes and standard input included. */
#include "read_all.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int ptd_tool_read_all(FILE *file, uint64_t limit, uint8_t **pbuffer,
                      size_t *psize)
{
	uint8_t *buffer = NULL;
	size_t size = 0, capacity = 0;

	for (;;) {
		size_t want, got;

		if (size == capacity) {
			size_t grow = capacity ? capacity : 64 * 1024;
			uint8_t *bigger;

			if (capacity > SIZE_MAX - grow) {
				free(buffer);
				return -2;
			}
			bigger = realloc(buffer, capacity + grow);
			if (!bigger) {
				free(buffer);
				return -2;
			}
			buffer = bigger;
			capacity += grow;
		}

		want = capacity - size;
		if ((uint64_t)want > limit - size)
			want = (size_t)(limit - size);
		if (!want)
			break;

		errno = 0;
		got = fread(buffer + size, 1, want, file);
		size += got;
		if (got < want) {
			if (ferror(file)) {
				int errnum = errno ? errno : EIO;

				free(buffer);
				errno = errnum;
				return -1;
			}
			break;
		}
	}

	*pbuffer = buffer;
	*psize = size;
	return 0;
}
