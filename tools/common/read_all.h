/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading a whole file, pipes and standard input included. */
#ifndef PTD_TOOL_READ_ALL_H
#define PTD_TOOL_READ_ALL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Read all of @file, or its first @limit bytes, into a new buffer
 * (malloc()ed, the caller frees it, also when *@psize is 0).
 * Works for pipes as well as for regular files: no seeking.  Returns 0, -1
 * for a read error (errno tells), or -2 if out of memory. */
int ptd_tool_read_all(FILE *file, uint64_t limit, uint8_t **pbuffer,
                      size_t *psize);

#endif /* PTD_TOOL_READ_ALL_H */
