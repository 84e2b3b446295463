/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ptdecode extensions to the libipt-compatible API in <ptdecode/intel-pt.h>.
 *
 * Everything here is ptdecode's own and has the ptd_ prefix.  Functions follow
 * the conventions of intel-pt.h: a negative return value is a negated
 * enum pt_error_code.
 */

#ifndef PTDECODE_H
#define PTDECODE_H

#include "intel-pt.h"
#include "ptd_clock.h"
#include "ptd_flow.h"
#include "ptd_flow_batch.h"
#include "ptd_image.h"
#include "ptd_perf.h"
#include "ptd_pevent.h"
#include "ptd_query.h"
#include "ptd_rtit.h"
#include "ptd_time.h"

#ifdef __cplusplus
extern "C" {
#endif

/** ptdecode's own version. */
#define PTDECODE_VERSION_MAJOR 0
#define PTDECODE_VERSION_MINOR 1
#define PTDECODE_VERSION_PATCH 0

/** Return ptdecode's version as a string, e.g. "0.1.0". */
extern pt_export const char *ptd_version_string(void);

/** Parse a processor given as "family/model[/stepping]" into @cpu.
 *
 * Numbers may be decimal or hexadecimal with a 0x prefix, as in "6/0x9e" or
 * "6/158/9".  The vendor is set to pcv_intel.  The string "none" yields a
 * cpu with vendor pcv_unknown (no errata).  Returns 0, -pte_invalid for a
 * NULL argument, or -pte_bad_cpu for a string that does not parse or has
 * values out of range (family > 0xffff, model or stepping > 0xff). */
extern pt_export int ptd_cpu_parse(struct pt_cpu *cpu, const char *s);

/** Decode up to @count packets in one call.
 *
 * Equivalent to calling pt_pkt_next() up to @count times, but much cheaper
 * per packet.  Each packet goes to @packets[i]; if @offsets is not NULL, the
 * offset of packet i goes to @offsets[i]: the decoder's offset before that
 * packet, as pt_pkt_get_offset() would report it before pt_pkt_next(). Decoding
 * stops early at the first error; that error is returned by the next call.
 * It may also return up to 7 packets fewer than @count although more
 * packets follow (the fast loop decodes several packets per step and
 * returns where the next step might not fit).  So a return value below
 * @count does not mean the end of the trace: call again until it returns a
 * negative value.  The packets returned are always the next ones in the
 * trace; none is skipped.  @packets[n..count) may be overwritten.
 *
 * Returns the number of packets decoded (> 0), or, if the very first packet
 * fails, the negative error pt_pkt_next() would return (-pte_eos at the end
 * of the buffer).  Like pt_pkt_next(), it returns 0 without moving when the
 * decode callback reports a zero-size unknown packet first.  Returns
 * -pte_invalid for a NULL @decoder or @packets or a zero @count. */
extern pt_export int ptd_pkt_next_batch(struct pt_packet_decoder *decoder,
                                        struct pt_packet *packets, size_t count,
                                        uint64_t *offsets);

/** Return the libipt-style name of a packet type, as ptdump prints it
 * ("tip.pge", "tnt.8", "mode.exec" is reported as "mode"), or NULL for a
 * value that is not a packet type. */
extern pt_export const char *ptd_packet_type_name(enum pt_packet_type type);

/** Allocate a query decoder (see pt_qry_alloc_decoder()) whose time engine
 * uses the options in @tconfig, e.g. ptd_time_mode_libipt to reproduce
 * libipt's pt_qry_time() and event times number for number.  @tconfig may
 * be NULL for the defaults (the accurate estimator).  The query flag
 * keep_tcal_on_ovf of @config is honoured either way.  Returns NULL if
 * @config or @tconfig is not valid or if memory runs out. */
extern pt_export struct pt_query_decoder *
ptd_qry_alloc_decoder(const struct pt_config *config,
                      const struct ptd_time_config *tconfig);

/** Allocate an event decoder (see pt_evt_alloc_decoder()) whose time engine
 * uses the options in @tconfig, as ptd_qry_alloc_decoder() does.  @tconfig
 * may be NULL for the defaults.  Returns NULL if @config or @tconfig is not
 * valid or if memory runs out. */
extern pt_export struct pt_event_decoder *
ptd_evt_alloc_decoder(const struct pt_config *config,
                      const struct ptd_time_config *tconfig);

#ifdef __cplusplus
}
#endif

#endif /* PTDECODE_H */
