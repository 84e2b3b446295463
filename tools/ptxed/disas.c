/* SPDX-License-Identifier: BSD-3-Clause */
/* ptxed: instruction decoding through lib/ild; see disas.h. */
#include "disas.h"

#include "ild/ild.h"

struct ptd_ild_ctx *ptxed_disas_alloc(void)
{
	return ptd_ild_alloc();
}

void ptxed_disas_free(struct ptd_ild_ctx *ctx)
{
	ptd_ild_free(ctx);
}

int ptxed_disas_decode(struct ptd_ild_ctx *ctx, struct ptxed_insn_info *info,
                       const uint8_t *code, size_t avail,
                       enum pt_exec_mode mode, uint64_t ip)
{
	struct ptd_ild insn;
	int err;

	err = ptd_ild_decode(ctx, &insn, code, avail, mode);
	if (err < 0)
		return err;
	info->size = insn.size;
	info->iclass = insn.iclass;
	info->next_ip = ip + insn.size;
	if (insn.is_direct &&
	    (insn.kind == ptd_ik_jmp_rel || insn.kind == ptd_ik_call_rel)) {
		info->next_ip += (uint64_t)(int64_t)insn.disp;
	}
	return 0;
}

int ptxed_disas_format(struct ptd_ild_ctx *ctx, char *buf, size_t size,
                       const uint8_t *code, size_t avail,
                       enum pt_exec_mode mode, uint64_t ip, int att)
{
	return ptd_ild_format(ctx, buf, size, code, avail, mode, ip, att);
}
