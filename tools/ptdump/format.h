/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: packet formatting.
 *
 * Fills the opcode and payload columns of a listing line from a decoded
 * packet, in libipt ptdump's spelling, plus the tracking columns that a
 * packet determines on its own (cr3 for PIP, vmcs for VMCS, the execution
 * mode with --exec-mode).  Tracking that needs state across packets (last
 * IP, and later timing) is added by the caller; see dump.c. */
#ifndef PTDUMP_FORMAT_H
#define PTDUMP_FORMAT_H

#include "line.h"
#include "options.h"
#include "ptdecode/intel-pt.h"

#include <stdint.h>
#include <stdio.h>

/* Format @packet at @offset into @line.  Notes about odd packets go to @out
 * as diagnostic lines.  Returns 0, or a negative pt_error_code for a packet
 * ptdump cannot show (the caller then resynchronizes). */
int ptdump_format_packet(struct ptdump_line *line,
                         const struct pt_packet *packet,
                         const struct ptdump_options *options, uint64_t offset,
                         FILE *out);

/* Format the payload of an IP packet as "<ipc>: <ip>", with a '?' for each
 * hex digit the packet does not provide.  Returns 0, or -pte_bad_packet for
 * a reserved IP compression (the field then shows the raw value). */
int ptdump_format_ip(char *field, size_t size, const struct pt_packet_ip *ip);

#endif /* PTDUMP_FORMAT_H */
