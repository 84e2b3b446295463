/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: last-IP tracking for --lastip.
 *
 * TIP, TIP.PGE, TIP.PGD and FUP packets compress their IP against the IP of
 * the previous such packet (the "last IP", Intel SDM Vol. 3C, "IP
 * Compression"):
 *
 *	suppressed	no IP; the last IP is kept but marked suppressed
 *	update-16	bits 15:0 replace those of the last IP
 *	update-32	bits 31:0 replace those of the last IP
 *	update-48	bits 47:0 replace those of the last IP
 *	sext-48		bits 47:0, sign-extended from bit 47
 *	full		all 64 bits
 *
 * This is ptdump's own small copy of that state machine, so that ptdump
 * shows the raw packet stream independently of the library's decoders.  As
 * in libipt's ptdump, the state survives PSBs and is reset only when ptdump
 * resynchronizes after a decode error.  Bits that no packet has provided
 * yet read as zero. */
#ifndef PTDUMP_LAST_IP_H
#define PTDUMP_LAST_IP_H

#include "ptdecode/intel-pt.h"

#include <stdint.h>

struct ptdump_last_ip {
	/* The last IP; valid if @have_ip. */
	uint64_t ip;
	/* Set once any IP bits have been seen. */
	uint32_t have_ip : 1;
	/* Set if the last IP packet had its IP suppressed. */
	uint32_t suppressed : 1;
};

/* Forget everything. */
void ptdump_last_ip_init(struct ptdump_last_ip *last_ip);

/* Apply the IP packet @packet.  Returns 0, or -pte_bad_packet for a reserved
 * IP compression (the state is then unchanged). */
int ptdump_last_ip_update(struct ptdump_last_ip *last_ip,
                          const struct pt_packet_ip *packet);

/* Store the last IP in @ip.  Returns 0, -pte_noip if no IP bits were ever
 * seen (even if the last IP packet suppressed its IP), or -pte_ip_suppressed
 * if the last IP packet suppressed its IP. */
int ptdump_last_ip_query(const struct ptdump_last_ip *last_ip, uint64_t *ip);

#endif /* PTDUMP_LAST_IP_H */
