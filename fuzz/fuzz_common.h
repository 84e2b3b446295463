/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the fuzz targets: checks that abort with a message,
 * a reference PSB scan, and the format rules of every packet, written from
 * the SDM independently of the library. */
#ifndef PTD_FUZZ_COMMON_H
#define PTD_FUZZ_COMMON_H

#include "ptdecode/ptdecode.h"

#include "pkt_equal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Abort with a message if @cond does not hold: libFuzzer (or the replay
 * main) reports the input. */
#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, \
			        __LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/* Abort if an allocation failed (inputs are small; this is not expected). */
static inline void *fuzz_alloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	FUZZ_CHECK(p != NULL, "out of memory (%zu bytes)", size);
	return p;
}

enum { FUZZ_PSB_SIZE = 16 };

/* For every offset of @buf, whether a PSB starts there (the 16-byte
 * pattern 02 82 ... 02 82, entirely inside the buffer). */
static inline uint8_t *fuzz_psb_map(const uint8_t *buf, size_t size)
{
	uint8_t *map = fuzz_alloc(size + 1);
	size_t i, k;

	for (i = 0; i <= size; ++i) {
		map[i] = 0;
		if (size - i < FUZZ_PSB_SIZE || i == size)
			continue;
		for (k = 0; k < FUZZ_PSB_SIZE; ++k)
			if (buf[i + k] != ((k & 1) ? 0x82 : 0x02))
				break;
		/* A PSB is the last 16 bytes of a run of 02 82 pairs: the
		 * bytes before it may continue the pattern, the packet after
		 * it never does. */
		map[i] = (k == FUZZ_PSB_SIZE) &&
		         !(size - i >= FUZZ_PSB_SIZE + 2 &&
		           buf[i + FUZZ_PSB_SIZE] == 0x02 &&
		           buf[i + FUZZ_PSB_SIZE + 1] == 0x82);
	}
	return map;
}

/* The first PSB at or after @from, or @size if there is none. */
static inline size_t fuzz_psb_after(const uint8_t *map, size_t size,
                                    size_t from)
{
	for (; from < size; ++from)
		if (map[from])
			return from;
	return size;
}

/* The last PSB before @before, or @size if there is none. */
static inline size_t fuzz_psb_before(const uint8_t *map, size_t size,
                                     size_t before)
{
	while (before-- > 0)
		if (map[before])
			return before;
	return size;
}

/* The payload bytes of an IP packet by compression, -1 if reserved. */
static inline int fuzz_ip_bytes(unsigned ipc)
{
	switch (ipc) {
	case pt_ipc_suppressed:
		return 0;
	case pt_ipc_update_16:
		return 2;
	case pt_ipc_update_32:
		return 4;
	case pt_ipc_sext_48:
	case pt_ipc_update_48:
		return 6;
	case pt_ipc_full:
		return 8;
	}
	return -1;
}

static inline int fuzz_fits(uint64_t value, unsigned bits)
{
	return bits >= 64 || (value >> bits) == 0;
}

/* The size of a CYC with @value: 5 bits in the opcode byte, 7 in each
 * extension byte. */
static inline int fuzz_cyc_size(uint64_t value)
{
	int size = 1;

	for (value >>= 5; value; value >>= 7)
		++size;
	return size;
}

/* The byte of a TNT-8 with 1..6 outcomes: stop bit and outcomes, shifted
 * left by one. */
static inline unsigned fuzz_tnt8_byte(const struct pt_packet *p)
{
	uint64_t raw = p->payload.tnt.payload |
	               (UINT64_C(1) << p->payload.tnt.bit_size);

	return (unsigned)((raw << 1) & 0xff);
}

/* What encoding @p must give by the SDM's rules and libipt's encoder's:
 * its size, or the negative error for a packet that cannot be encoded
 * (fields wider than the packet's are cut, as libipt's encoder cuts them;
 * see fuzz_reserve_size() for a buffer that is too small).  @bip_size is
 * the BIP payload size of the enclosing BBP block, 0 outside one. */
static inline int fuzz_expected_encoding(const struct pt_packet *p,
                                         unsigned bip_size)
{
	const int bad = -pte_bad_packet;

	switch (p->type) {
	case ppt_pad:
		return 1;
	case ppt_psb:
		return 16;
	case ppt_psbend:
	case ppt_ovf:
	case ppt_stop:
	case ppt_exstop:
	case ppt_bep:
		return 2;
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
	case ppt_fup: {
		int n = fuzz_ip_bytes((unsigned)p->payload.ip.ipc);

		return n < 0 ? -pte_invalid : 1 + n;
	}
	case ppt_tnt_8:
		if (p->payload.tnt.bit_size < 1 ||
		    p->payload.tnt.bit_size > 6 ||
		    !fuzz_fits(p->payload.tnt.payload, p->payload.tnt.bit_size))
			return bad;
		/* Inside a PEBS block a byte xxxxx100b is a BIP: the TNT-8's
		 * byte (outcomes and stop bit, shifted left by one) must not
		 * be one. */
		if (bip_size && fuzz_tnt8_byte(p) % 8 == 4)
			return bad;
		return 1;
	case ppt_tnt_64:
		if (p->payload.tnt.bit_size < 1 ||
		    p->payload.tnt.bit_size > 47 ||
		    !fuzz_fits(p->payload.tnt.payload, p->payload.tnt.bit_size))
			return -pte_invalid;
		return 8;
	case ppt_mode:
		if (p->payload.mode.leaf != pt_mol_exec &&
		    p->payload.mode.leaf != pt_mol_tsx)
			return bad;
		return 2;
	case ppt_pip:
		return 8;
	case ppt_vmcs:
		return 7;
	case ppt_cbr:
		return 4;
	case ppt_tsc:
		return 8;
	case ppt_tma:
		return p->payload.tma.fc <= 0x1ff ? 7 : bad;
	case ppt_mtc:
		return 2;
	case ppt_cyc:
		/* 5 + 8 * 7 = 61 bits at most. */
		if (!fuzz_fits(p->payload.cyc.value, 61))
			return bad;
		return fuzz_cyc_size(p->payload.cyc.value);
	case ppt_mnt:
		return 11;
	case ppt_mwait:
		return 10;
	case ppt_pwre:
		return 4;
	case ppt_pwrx:
		return 7;
	case ppt_ptw:
		/* (pt_ptw_size()'s errors.) */
		if (p->payload.ptw.plc > 3)
			return -pte_internal;
		if (p->payload.ptw.plc > 1)
			return bad;
		return p->payload.ptw.plc ? 10 : 6;
	case ppt_cfe:
		return 4;
	case ppt_evd:
		return 11;
	case ppt_trig:
		return p->payload.trig.icntv ? 5 : 3;
	case ppt_bbp:
		return p->payload.bbp.type <= 0x1f ? 3 : bad;
	case ppt_bip:
		if (!bip_size || p->payload.bip.id > 0x1f ||
		    !fuzz_fits(p->payload.bip.payload, 8 * bip_size))
			return bad;
		return 1 + (int)bip_size;
	case ppt_invalid:
	case ppt_unknown:
		break;
	}
	return -pte_bad_opc;
}

/* The size libipt's encoder checks there is room for before it looks at
 * @p's payload (so that a bad packet that would not fit either is
 * -pte_eos), or 0 where it looks at the payload first. */
static inline int fuzz_reserve_size(const struct pt_packet *p)
{
	switch (p->type) {
	case ppt_pad:
		return 1;
	case ppt_psb:
		return 16;
	case ppt_psbend:
	case ppt_ovf:
	case ppt_stop:
	case ppt_mtc:
	case ppt_mode:
	case ppt_exstop:
		return 2;
	case ppt_tnt_64:
	case ppt_pip:
	case ppt_tsc:
		return 8;
	case ppt_cbr:
	case ppt_cfe:
		return 4;
	case ppt_tma:
	case ppt_vmcs:
	case ppt_pwrx:
		return 7;
	case ppt_mnt:
	case ppt_evd:
		return 11;
	case ppt_mwait:
		return 10;
	case ppt_pwre:
		return 4;
	case ppt_trig:
		return p->payload.trig.icntv ? 5 : 3;
	default:
		return 0;
	}
}

/* The BIP size after @p, given the one before it. */
static inline unsigned fuzz_block_after(const struct pt_packet *p,
                                        unsigned bip_size)
{
	switch (p->type) {
	case ppt_bbp:
		return p->payload.bbp.sz ? 4 : 8;
	case ppt_bep:
	case ppt_psb:
	case ppt_ovf:
		return 0;
	default:
		return bip_size;
	}
}

#endif /* PTD_FUZZ_COMMON_H */
