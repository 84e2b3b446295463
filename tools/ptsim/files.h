/* SPDX-License-Identifier: BSD-3-Clause */
/* ptsim's files: <prefix>.pt (the trace), <prefix>.truth (the true time of
 * every packet) and <prefix>.cfg (the decoder configuration and the model
 * parameters).  docs/ptsim.md describes the formats. */
#ifndef PTSIM_FILES_H
#define PTSIM_FILES_H

#include "sim.h"

#include <stddef.h>

/* Write the three files of @trace.  Returns 0, or -1 with a message. */
int ptsim_write_files(const struct ptsim_trace *trace, const char *prefix,
                      char *msg, size_t size);

/* Read the three files written for @prefix into @trace: the parameters
 * from the .cfg, the bytes from the .pt, the truth from the .truth; every
 * packet is decoded from the .pt with ptdecode's packet decoder and must
 * have the offset and type its truth line gives.  Returns 0, or -1 with a
 * message (@trace is then empty). */
int ptsim_read_files(struct ptsim_trace *trace, const char *prefix, char *msg,
                     size_t size);

/* The flags of a record as letters ("e", "hs", ...; "-" for none) in
 * @out (at least 8 bytes). */
void ptsim_flags_str(char *out, unsigned flags);

#endif /* PTSIM_FILES_H */
