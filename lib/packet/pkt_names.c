/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet type names. */
#include "ptdecode/ptdecode.h"

const char *ptd_packet_type_name(enum pt_packet_type type)
{
	switch (type) {
	case ppt_invalid:
		return "<invalid>";
	case ppt_unknown:
		return "<unknown>";
	case ppt_pad:
		return "pad";
	case ppt_psb:
		return "psb";
	case ppt_psbend:
		return "psbend";
	case ppt_fup:
		return "fup";
	case ppt_tip:
		return "tip";
	case ppt_tip_pge:
		return "tip.pge";
	case ppt_tip_pgd:
		return "tip.pgd";
	case ppt_tnt_8:
		return "tnt.8";
	case ppt_tnt_64:
		return "tnt.64";
	case ppt_mode:
		return "mode";
	case ppt_pip:
		return "pip";
	case ppt_vmcs:
		return "vmcs";
	case ppt_cbr:
		return "cbr";
	case ppt_tsc:
		return "tsc";
	case ppt_tma:
		return "tma";
	case ppt_mtc:
		return "mtc";
	case ppt_cyc:
		return "cyc";
	case ppt_stop:
		return "stop";
	case ppt_ovf:
		return "ovf";
	case ppt_mnt:
		return "mnt";
	case ppt_exstop:
		return "exstop";
	case ppt_mwait:
		return "mwait";
	case ppt_pwre:
		return "pwre";
	case ppt_pwrx:
		return "pwrx";
	case ppt_ptw:
		return "ptw";
	case ppt_cfe:
		return "cfe";
	case ppt_evd:
		return "evd";
	case ppt_trig:
		return "trig";
	case ppt_bbp:
		return "bbp";
	case ppt_bip:
		return "bip";
	case ppt_bep:
		return "bep";
	}
	return NULL;
}
