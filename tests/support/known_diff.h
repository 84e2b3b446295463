/* SPDX-License-Identifier: BSD-3-Clause */
/* Places in a trace where libipt 2.0.5 fails by design and ptdecode does
 * not (docs/compatibility.md, "The query decoder"), for the differential
 * tests that tell such a difference from one of ptdecode's (tests/diff's
 * diff_qry, tests/flow's flow_diff).  The trace is read with ptdecode's
 * packet decoder. */
#ifndef PTD_KNOWN_DIFF_H
#define PTD_KNOWN_DIFF_H

#include "ptdecode/intel-pt.h"

#include <stdint.h>

/* Whether the first packet from @offset of @config's trace on that libipt
 * 2.0.5 does not know is one of a later libipt that ptdecode decodes (TRIG,
 * CFE, EVD, BBP, BIP, BEP), within 64 packets and before any that ptdecode
 * cannot decode: libipt's -pte_bad_opc comes from its opcode (libipt may
 * report it at the offset where its read-ahead started: the PSB of a PSB+,
 * an OVF's search for its FUP). */
int ptd_known_later_packet(const struct pt_config *config, uint64_t offset);

/* Whether the packet at @offset of @config's trace is a timing packet that
 * libipt 2.0.5's time update rejects, failing the query that reads it while
 * ptdecode's query decoder takes what it can from it: a TMA without a TSC
 * before it (in its PSB+), or a CBR with a ratio of 0; or a PSB whose PSB+
 * holds one (libipt fails at the PSB then); or, with erratum SKD010, the
 * packet after an OVF whose packets up to the end of libipt's look-ahead
 * for a dropped FUP hold one (libipt fails the OVF then, at @offset). */
int ptd_known_rejected_timing(const struct pt_config *config, uint64_t offset);

/* Whether within 64 packets from @offset of @config's trace there is a
 * packet that libipt 2.0.5 fails on by design (one of a later libipt, a TMA
 * with no TSC since the walk began or since the PSB of its PSB+, a CBR of
 * 0), before any that ptdecode cannot decode.  libipt's query decoder
 * reads ahead to it, and its time after the last result before it is 0
 * (pt_insn_time() with libipt's estimator). */
int ptd_known_failure_ahead(const struct pt_config *config, uint64_t offset);

/* The instructions whose length or class ptdecode's decoder (Zydis) gives
 * otherwise than libipt 2.0.5's length decoder (docs/ild.md, "Differences
 * from libipt 2.0.5"), by their bytes. */
enum ptd_known_ild {
	ptd_kild_none = -1,
	ptd_kild_eret, /* ERETS/ERETU, F2/F3 0F 01 CA */
	ptd_kild_ud0,  /* UD0/UD1, 0F FF /r and 0F B9 /r */
	ptd_kild_xop,  /* AMD XOP, 8F with ModRM.reg other than 0 */
	ptd_kild_via   /* VIA PadLock, 0F A6 /r and 0F A7 /r */
};

/* Which of those the instruction at @code (@size bytes) is, after its
 * legacy prefixes and (@mode64) a REX prefix, or ptd_kild_none. */
enum ptd_known_ild ptd_known_ild(const uint8_t *code, size_t size, int mode64);

/* Whether libipt 2.0.5 reports events of @type without a time where they
 * are bound to a later packet (has_tsc 0: EXSTOP, MWAIT, PWRE, PWRX,
 * PTWRITE, and VMCS bound to an asynchronous branch), which ptdecode stamps
 * with the time at the packet that completes them (docs/compatibility.md):
 * their times are compared only where libipt gives one. */
int ptd_known_unstamped(enum pt_event_type type);

#endif /* PTD_KNOWN_DIFF_H */
