/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: turning the statements of a program into trace bytes.
 *
 * Packets are encoded with one libptdecode encoder over a buffer that is
 * large enough for every statement (no packet is longer than a PSB).  Raw
 * bytes are copied into the same buffer and the encoder is moved past them
 * with pt_enc_sync_set(). */
#include "encode.h"

#include "ptdecode/ptdecode.h"

#include <stdlib.h>
#include <string.h>

/* The longest packet the encoder writes: PSB. */
#define PTASM_MAX_PACKET 16

/* Compute an upper bound for the trace size in @size.  Returns 0, or -1 if
 * it does not fit in memory. */
static int ptasm_trace_bound(const struct ptasm_program *program, size_t *size)
{
	size_t total = 0;

	for (size_t i = 0; i < program->nstmts; ++i) {
		const struct ptasm_stmt *stmt = &program->stmts[i];
		size_t n;

		if (stmt->kind == PTASM_STMT_BYTES) {
			n = stmt->nbytes;
		} else {
			/* The parser limits @count to 2^20. */
			n = (size_t)stmt->count * PTASM_MAX_PACKET;
		}
		if (n > SIZE_MAX - total)
			return -1;
		total += n;
	}
	*size = total;
	return 0;
}

/* Encode one packet statement. */
static int ptasm_encode_packet(struct pt_encoder *encoder,
                               const struct ptasm_stmt *stmt,
                               struct ptasm_diag *diag)
{
	for (unsigned i = 0; i < stmt->count; ++i) {
		int size = pt_enc_next(encoder, &stmt->packet);

		if (size < 0) {
			const char *name =
			        ptd_packet_type_name(stmt->packet.type);
			const char *hint = "";

			if (stmt->packet.type == ppt_bip)
				hint = " (a bip must follow a bbp, and its "
				       "payload must fit the bbp's item size)";
			return ptasm_error(diag, stmt->line,
			                   "cannot encode %s: %s%s",
			                   name ? name : "packet",
			                   pt_errstr(pt_errcode(size)), hint);
		}
	}
	return 0;
}

int ptasm_encode(const struct ptasm_program *program, struct ptasm_diag *diag,
                 struct ptasm_trace *trace)
{
	struct pt_encoder *encoder = NULL;
	struct pt_config config;
	uint64_t offset = 0;
	size_t cap;
	int err = 0;

	memset(trace, 0, sizeof(*trace));
	if (ptasm_trace_bound(program, &cap) < 0)
		return ptasm_error(diag, 0, "the trace is too large");

	/* One more byte so that the buffer is never empty. */
	trace->data = malloc(cap + 1);
	trace->offsets =
	        malloc((program->nstmts + 1) * sizeof(*trace->offsets));
	if (!trace->data || !trace->offsets) {
		ptasm_trace_free(trace);
		return ptasm_error(diag, 0, "out of memory");
	}
	trace->noffsets = program->nstmts + 1;

	pt_config_init(&config);
	config.begin = trace->data;
	config.end = trace->data + cap;
	encoder = pt_alloc_encoder(&config);
	if (!encoder) {
		ptasm_trace_free(trace);
		return ptasm_error(diag, 0, "cannot allocate the encoder");
	}

	for (size_t i = 0; i < program->nstmts; ++i) {
		const struct ptasm_stmt *stmt = &program->stmts[i];

		if (pt_enc_get_offset(encoder, &offset) < 0) {
			err = ptasm_error(diag, stmt->line, "encoder error");
			break;
		}
		trace->offsets[i] = offset;
		if (stmt->kind == PTASM_STMT_BYTES) {
			memcpy(trace->data + offset, stmt->bytes, stmt->nbytes);
			if (pt_enc_sync_set(encoder, offset + stmt->nbytes) <
			    0) {
				err = ptasm_error(diag, stmt->line,
				                  "encoder error");
				break;
			}
			continue;
		}
		if (ptasm_encode_packet(encoder, stmt, diag) < 0)
			err = -1;
	}
	if (!err && pt_enc_get_offset(encoder, &offset) < 0)
		err = ptasm_error(diag, 0, "encoder error");
	pt_free_encoder(encoder);
	if (err) {
		ptasm_trace_free(trace);
		return -1;
	}
	trace->offsets[program->nstmts] = offset;
	trace->size = (size_t)offset;
	return 0;
}

void ptasm_trace_free(struct ptasm_trace *trace)
{
	free(trace->data);
	free(trace->offsets);
	ptasm_sb_out_free(trace->sb, trace->nsb);
	memset(trace, 0, sizeof(*trace));
}

uint64_t ptasm_label_offset(const struct ptasm_trace *trace,
                            const struct ptasm_label *label)
{
	if (label->sb_file)
		return trace->sb[label->sb_file - 1].offsets[label->sb_rec];
	return trace->offsets[label->stmt];
}
