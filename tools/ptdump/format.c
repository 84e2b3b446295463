/* SPDX-License-Identifier: BSD-3-Clause */
/* ptdump: packet formatting. */
#include "format.h"

#include "diag.h"
#include "ptdecode/ptdecode.h"

#include <inttypes.h>
#include <string.h>

int ptdump_format_ip(char *field, size_t size, const struct pt_packet_ip *ip)
{
	unsigned ipc = (unsigned)ip->ipc;
	uint64_t sext;

	switch (ip->ipc) {
	case pt_ipc_suppressed:
		return ptdump_line_set(field, size, "%x: ????????????????",
		                       ipc);
	case pt_ipc_update_16:
		return ptdump_line_set(field, size,
		                       "%x: ????????????%04" PRIx64, ipc,
		                       ip->ip & 0xffff);
	case pt_ipc_update_32:
		return ptdump_line_set(field, size, "%x: ????????%08" PRIx64,
		                       ipc, ip->ip & 0xffffffff);
	case pt_ipc_update_48:
		return ptdump_line_set(field, size, "%x: ????%012" PRIx64, ipc,
		                       ip->ip & 0xffffffffffff);
	case pt_ipc_sext_48:
		sext = ip->ip & 0xffffffffffff;
		if (sext & (UINT64_C(1) << 47))
			sext |= ~UINT64_C(0xffffffffffff);
		return ptdump_line_set(field, size, "%x: %016" PRIx64, ipc,
		                       sext);
	case pt_ipc_full:
		return ptdump_line_set(field, size, "%x: %016" PRIx64, ipc,
		                       ip->ip);
	}

	/* A reserved IP compression: show what there is. */
	(void)ptdump_line_set(field, size, "%x: %016" PRIx64, ipc, ip->ip);
	return -pte_bad_packet;
}

/* "!" for taken, "." for not taken, oldest outcome first. */
static int ptdump_format_tnt(char *field, size_t size,
                             const struct pt_packet_tnt *tnt)
{
	unsigned bits = tnt->bit_size;
	unsigned i;

	if (bits >= size || bits > 64)
		return -pte_internal;
	for (i = 0; i < bits; ++i)
		field[i] = ((tnt->payload >> (bits - 1 - i)) & 1) ? '!' : '.';
	field[bits] = '\0';
	return 0;
}

static const char *ptdump_exec_mode_name(const struct pt_packet_mode_exec *e)
{
	switch (pt_get_exec_mode(e)) {
	case ptem_64bit:
		return "64-bit";
	case ptem_32bit:
		return "32-bit";
	case ptem_16bit:
		return "16-bit";
	case ptem_unknown:
		break;
	}
	return "unknown";
}

/* Append ", @text" (or just @text at the start) to the list in @field. */
static void ptdump_list_add(char *field, size_t size, const char *text)
{
	size_t len = strlen(field);

	if (len)
		(void)ptdump_line_set(field + len, size - len, ", %s", text);
	else
		(void)ptdump_line_set(field, size, "%s", text);
}

static int ptdump_format_mode(struct ptdump_line *line,
                              const struct pt_packet_mode *mode,
                              const struct ptdump_options *options,
                              uint64_t offset, FILE *out)
{
	switch (mode->leaf) {
	case pt_mol_exec:
		(void)ptdump_set(line->opcode, "mode.exec");
		if (mode->bits.exec.csd)
			ptdump_list_add(line->payload, sizeof(line->payload),
			                "cs.d");
		if (mode->bits.exec.csl)
			ptdump_list_add(line->payload, sizeof(line->payload),
			                "cs.l");
		if (mode->bits.exec.iflag)
			ptdump_list_add(line->payload, sizeof(line->payload),
			                "if");
		if (options->show_exec_mode) {
			(void)ptdump_set(line->track_id, "em");
			(void)ptdump_set(
			        line->track, "%s",
			        ptdump_exec_mode_name(&mode->bits.exec));
		}
		return 0;

	case pt_mol_tsx:
		(void)ptdump_set(line->opcode, "mode.tsx");
		if (mode->bits.tsx.intx)
			ptdump_list_add(line->payload, sizeof(line->payload),
			                "intx");
		if (mode->bits.tsx.abrt)
			ptdump_list_add(line->payload, sizeof(line->payload),
			                "abrt");
		return 0;
	}

	(void)ptdump_set(line->opcode, "mode");
	(void)ptdump_set(line->payload, "leaf: %x", (unsigned)mode->leaf);
	ptdump_diag(out, offset, "unknown mode leaf", 0);
	return 0;
}

/* The wake reason of a PWRX: exactly one of the three bits should be set.
 * (" st" and " hw" have the leading space of libipt's ptdump, which lines
 * them up with "int" and "bad".) */
static const char *ptdump_pwrx_reason(const struct pt_packet_pwrx *pwrx)
{
	unsigned n = (unsigned)pwrx->interrupt + (unsigned)pwrx->store +
	             (unsigned)pwrx->autonomous;

	if (n != 1)
		return "bad";
	if (pwrx->interrupt)
		return "int";
	return pwrx->store ? " st" : " hw";
}

/* C-states are encoded as the state number minus one, modulo 16. */
static unsigned ptdump_cstate(unsigned encoded)
{
	return (encoded + 1) & 0xf;
}

static void ptdump_format_cfe(struct ptdump_line *line,
                              const struct pt_packet_cfe *cfe)
{
	const char *ip = cfe->ip ? ", ip" : "";

	switch (cfe->type) {
	case pt_cfe_intr:
	case pt_cfe_vmexit_intr:
	case pt_cfe_uintr:
		/* The vector of an interrupt, in decimal. */
		(void)ptdump_set(line->payload, "%u: %u%s", (unsigned)cfe->type,
		                 (unsigned)cfe->vector, ip);
		break;
	case pt_cfe_sipi:
		/* The SIPI vector (a page number), in hex. */
		(void)ptdump_set(line->payload, "%u: %x%s", (unsigned)cfe->type,
		                 (unsigned)cfe->vector, ip);
		break;
	default:
		(void)ptdump_set(line->payload, "%u%s", (unsigned)cfe->type,
		                 ip);
		break;
	}
}

static void ptdump_format_trig(struct ptdump_line *line,
                               const struct pt_packet_trig *trig)
{
	char *field = line->payload;
	size_t size = sizeof(line->payload);

	/* (The trigger bits in two digits, as libipt's ptdump and ptxed.) */
	(void)ptdump_line_set(field, size, "%02x", (unsigned)trig->trbv);
	if (trig->ip)
		ptdump_list_add(field, size, "ip");
	if (trig->mult)
		ptdump_list_add(field, size, "mult");
	if (trig->icntv) {
		size_t len = strlen(field);

		(void)ptdump_line_set(field + len, size - len, ", icnt: %u",
		                      (unsigned)trig->icnt);
	}
}

int ptdump_format_packet(struct ptdump_line *line,
                         const struct pt_packet *packet,
                         const struct ptdump_options *options, uint64_t offset,
                         FILE *out)
{
	const char *name = ptd_packet_type_name(packet->type);

	/* The formats below stay well inside the columns; a failed
	 * ptdump_set() could only truncate, so its result is not checked. */
	if (!name)
		name = "";
	(void)ptdump_set(line->opcode, "%s", name);

	switch (packet->type) {
	case ppt_invalid:
	case ppt_unknown:
	case ppt_pad:
	case ppt_psb:
	case ppt_psbend:
	case ppt_ovf:
	case ppt_stop:
		return 0;

	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		if (ptdump_format_ip(line->payload, sizeof(line->payload),
		                     &packet->payload.ip) < 0)
			ptdump_diag(out, offset, "bad ipc", -pte_bad_packet);
		return 0;

	case ppt_tnt_8:
	case ppt_tnt_64:
		if (ptdump_format_tnt(line->payload, sizeof(line->payload),
		                      &packet->payload.tnt) < 0)
			return ptdump_diag(out, offset, "bad tnt payload",
			                   -pte_bad_packet);
		return 0;

	case ppt_mode:
		return ptdump_format_mode(line, &packet->payload.mode, options,
		                          offset, out);

	case ppt_pip:
		(void)ptdump_set(line->payload, "%" PRIx64 "%s",
		                 packet->payload.pip.cr3,
		                 packet->payload.pip.nr ? ", nr" : "");
		(void)ptdump_set(line->track_id, "cr3");
		(void)ptdump_set(line->track, "%016" PRIx64,
		                 packet->payload.pip.cr3);
		return 0;

	case ppt_vmcs:
		(void)ptdump_set(line->payload, "%" PRIx64,
		                 packet->payload.vmcs.base);
		(void)ptdump_set(line->track_id, "vmcs");
		(void)ptdump_set(line->track, "%016" PRIx64,
		                 packet->payload.vmcs.base);
		return 0;

	case ppt_tsc:
		(void)ptdump_set(line->payload, "%" PRIx64,
		                 packet->payload.tsc.tsc);
		return 0;

	case ppt_cbr:
		(void)ptdump_set(line->payload, "%x",
		                 (unsigned)packet->payload.cbr.ratio);
		return 0;

	case ppt_tma:
		(void)ptdump_set(line->payload, "%x, %x",
		                 (unsigned)packet->payload.tma.ctc,
		                 (unsigned)packet->payload.tma.fc);
		return 0;

	case ppt_mtc:
		(void)ptdump_set(line->payload, "%x",
		                 (unsigned)packet->payload.mtc.ctc);
		return 0;

	case ppt_cyc:
		(void)ptdump_set(line->payload, "%" PRIx64,
		                 packet->payload.cyc.value);
		return 0;

	case ppt_mnt:
		(void)ptdump_set(line->payload, "%" PRIx64,
		                 packet->payload.mnt.payload);
		return 0;

	case ppt_exstop:
		if (packet->payload.exstop.ip)
			(void)ptdump_set(line->payload, "ip");
		return 0;

	case ppt_mwait:
		(void)ptdump_set(line->payload, "%08x, %08x",
		                 (unsigned)packet->payload.mwait.hints,
		                 (unsigned)packet->payload.mwait.ext);
		return 0;

	case ppt_pwre:
		(void)ptdump_set(line->payload, "c%u.%u%s",
		                 ptdump_cstate(packet->payload.pwre.state),
		                 ptdump_cstate(packet->payload.pwre.sub_state),
		                 packet->payload.pwre.hw ? ", hw" : "");
		return 0;

	case ppt_pwrx:
		(void)ptdump_set(line->payload, "%s: c%u, c%u",
		                 ptdump_pwrx_reason(&packet->payload.pwrx),
		                 ptdump_cstate(packet->payload.pwrx.last),
		                 ptdump_cstate(packet->payload.pwrx.deepest));
		return 0;

	case ppt_ptw:
		(void)ptdump_set(line->payload, "%x: %" PRIx64 "%s",
		                 (unsigned)packet->payload.ptw.plc,
		                 packet->payload.ptw.payload,
		                 packet->payload.ptw.ip ? ", ip" : "");
		return 0;

	case ppt_cfe:
		ptdump_format_cfe(line, &packet->payload.cfe);
		return 0;

	case ppt_evd:
		(void)ptdump_set(line->payload, "%u: %" PRIx64,
		                 (unsigned)packet->payload.evd.type,
		                 packet->payload.evd.payload);
		return 0;

	case ppt_trig:
		ptdump_format_trig(line, &packet->payload.trig);
		return 0;

	case ppt_bbp:
		(void)ptdump_set(line->payload, "%x%s",
		                 (unsigned)packet->payload.bbp.type,
		                 packet->payload.bbp.sz ? ", sz" : "");
		return 0;

	case ppt_bip:
		(void)ptdump_set(line->payload, "%x: %" PRIx64,
		                 (unsigned)packet->payload.bip.id,
		                 packet->payload.bip.payload);
		return 0;

	case ppt_bep:
		if (packet->payload.bep.ip)
			(void)ptdump_set(line->payload, "ip");
		return 0;
	}

	return ptdump_diag(out, offset, "unknown packet", -pte_bad_opc);
}
