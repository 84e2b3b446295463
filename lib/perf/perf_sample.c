/* SPDX-License-Identifier: BSD-3-Clause */
/* The trace inside PERF_RECORD_SAMPLE records (`perf record --aux-sample`):
 * with PERF_SAMPLE_AUX in an event's sample_type, each of its samples ends
 * with {u64 size; char data[size]}, the last bytes of the Intel PT event's
 * AUX area when the sample was taken.  A sample's fields come in the order
 * the kernel writes them (perf_output_sample() in kernel/events/core.c; the
 * uapi header's comment lists AUX before CGROUP and the page sizes, but the
 * kernel writes it last), each present when its bit is in sample_type:
 *
 *   IDENTIFIER u64; IP u64; TID u32 pid, tid; TIME u64; ADDR u64; ID u64;
 *   STREAM_ID u64; CPU u32 cpu, res; PERIOD u64; READ (read_format: with
 *   GROUP {u64 nr; [time_enabled]; [time_running]; {value; [id]; [lost]}
 *   x nr}, else {value; [time_enabled]; [time_running]; [id]; [lost]});
 *   CALLCHAIN {u64 nr; u64 ips[nr]}; RAW {u32 size; data[size]};
 *   BRANCH_STACK {u64 nr; [u64 hw_idx]; 24-byte entries x nr; [u64
 *   counters x nr]}; REGS_USER {u64 abi; u64 regs[popcount(mask)] if
 *   abi}; STACK_USER {u64 size; data[size]; u64 dyn_size if size};
 *   WEIGHT or WEIGHT_STRUCT u64; DATA_SRC u64; TRANSACTION u64;
 *   REGS_INTR as REGS_USER; PHYS_ADDR u64; CGROUP u64; DATA_PAGE_SIZE u64;
 *   CODE_PAGE_SIZE u64; AUX {u64 size; data[size]}. */
#include "perf_int.h"

#include "common/le.h"

#include <string.h>

enum {
	ps_ip = 1 << 0,
	ps_tid = 1 << 1,
	ps_time = 1 << 2,
	ps_addr = 1 << 3,
	ps_read = 1 << 4,
	ps_callchain = 1 << 5,
	ps_id = 1 << 6,
	ps_cpu = 1 << 7,
	ps_period = 1 << 8,
	ps_stream_id = 1 << 9,
	ps_raw = 1 << 10,
	ps_branch_stack = 1 << 11,
	ps_regs_user = 1 << 12,
	ps_stack_user = 1 << 13,
	ps_weight = 1 << 14,
	ps_data_src = 1 << 15,
	ps_identifier = 1 << 16,
	ps_transaction = 1 << 17,
	ps_regs_intr = 1 << 18,
	ps_phys_addr = 1 << 19,
	ps_aux = 1 << 20,
	ps_cgroup = 1 << 21,
	ps_data_page_size = 1 << 22,
	ps_code_page_size = 1 << 23,
	ps_weight_struct = 1 << 24
};

/* read_format bits. */
enum {
	rf_time_enabled = 1 << 0,
	rf_time_running = 1 << 1,
	rf_id = 1 << 2,
	rf_group = 1 << 3,
	rf_lost = 1 << 4
};

/* branch_sample_type bits: the hardware index, the counters. */
enum { bst_hw_index = 1 << 17, bst_counters = 1 << 19 };

/* A cursor over a sample's fields. */
struct ps_cursor {
	const uint8_t *r;
	uint64_t at, size;
	const char *why;
};

/* Step over @n bytes; 0 if the record ends first. */
static int ps_skip(struct ps_cursor *c, uint64_t n, const char *what)
{
	if (n > c->size - c->at) {
		c->why = what;
		return 0;
	}
	c->at += n;
	return 1;
}

/* Read a u64 and step over it; 0 if the record ends first. */
static int ps_u64(struct ps_cursor *c, uint64_t *v, const char *what)
{
	if (c->size - c->at < 8) {
		c->why = what;
		return 0;
	}
	*v = ptd_le64(c->r + c->at);
	c->at += 8;
	return 1;
}

/* Step over @n entries of @each bytes. */
static int ps_skip_n(struct ps_cursor *c, uint64_t n, uint64_t each,
                     const char *what)
{
	if (n > (c->size - c->at) / each) {
		c->why = what;
		return 0;
	}
	c->at += n * each;
	return 1;
}

static int ps_popcount(uint64_t v)
{
	int n = 0;

	for (; v; v &= v - 1)
		++n;
	return n;
}

/* Registers: {u64 abi; u64 regs[popcount(mask)] unless abi is 0}. */
static int ps_regs(struct ps_cursor *c, uint64_t mask, const char *what)
{
	uint64_t abi;

	if (!ps_u64(c, &abi, what))
		return 0;
	return !abi || ps_skip_n(c, (uint64_t)ps_popcount(mask), 8, what);
}

/* The read values. */
static int ps_read_values(struct ps_cursor *c, uint64_t rf)
{
	uint64_t per = 1 + !!(rf & rf_id) + !!(rf & rf_lost), nr;
	uint64_t times = !!(rf & rf_time_enabled) + !!(rf & rf_time_running);

	if (!(rf & rf_group))
		return ps_skip_n(c, per + times, 8, "READ");
	if (!ps_u64(c, &nr, "READ"))
		return 0;
	return ps_skip_n(c, times, 8, "READ") &&
	       ps_skip_n(c, nr, 8 * per, "READ");
}

int ptd_perf_sample_aux(const struct ptd_perf_sample_layout *l,
                        const uint8_t *r, uint64_t size,
                        struct ptd_perf_aux_sample *out)
{
	struct ps_cursor c = {r, 8, size, NULL};
	uint64_t st = l->sample_type, v, n;

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	out->pid = -1;
	out->tid = -1;
	if (!(st & ps_aux))
		return 0;
	if ((st & ps_identifier) && !ps_skip(&c, 8, "IDENTIFIER"))
		goto cut;
	if ((st & ps_ip) && !ps_skip(&c, 8, "IP"))
		goto cut;
	if (st & ps_tid) {
		if (!ps_u64(&c, &v, "TID"))
			goto cut;
		out->pid = (int32_t)(uint32_t)v;
		out->tid = (int32_t)(uint32_t)(v >> 32);
	}
	if (st & ps_time) {
		if (!ps_u64(&c, &out->time, "TIME"))
			goto cut;
		out->have_time = 1;
	}
	if ((st & ps_addr) && !ps_skip(&c, 8, "ADDR"))
		goto cut;
	if ((st & ps_id) && !ps_skip(&c, 8, "ID"))
		goto cut;
	if ((st & ps_stream_id) && !ps_skip(&c, 8, "STREAM_ID"))
		goto cut;
	if (st & ps_cpu) {
		if (!ps_u64(&c, &v, "CPU"))
			goto cut;
		out->cpu = (int32_t)(uint32_t)v;
	}
	if ((st & ps_period) && !ps_skip(&c, 8, "PERIOD"))
		goto cut;
	if ((st & ps_read) && !ps_read_values(&c, l->read_format))
		goto cut;
	if (st & ps_callchain) {
		if (!ps_u64(&c, &n, "CALLCHAIN") ||
		    !ps_skip_n(&c, n, 8, "CALLCHAIN"))
			goto cut;
	}
	if (st & ps_raw) {
		/* {u32 size; data[size]}, the whole padded to 8 bytes by the
		 * kernel (size counts the padding). */
		if (c.size - c.at < 4) {
			c.why = "RAW";
			goto cut;
		}
		n = ptd_le32(r + c.at);
		if (!ps_skip(&c, 4, "RAW") || !ps_skip(&c, n, "RAW"))
			goto cut;
	}
	if (st & ps_branch_stack) {
		if (!ps_u64(&c, &n, "BRANCH_STACK"))
			goto cut;
		if ((l->branch_sample_type & bst_hw_index) &&
		    !ps_skip(&c, 8, "BRANCH_STACK"))
			goto cut;
		if (!ps_skip_n(&c, n, 24, "BRANCH_STACK"))
			goto cut;
		if ((l->branch_sample_type & bst_counters) &&
		    !ps_skip_n(&c, n, 8, "BRANCH_STACK"))
			goto cut;
	}
	if ((st & ps_regs_user) && !ps_regs(&c, l->regs_user, "REGS_USER"))
		goto cut;
	if (st & ps_stack_user) {
		if (!ps_u64(&c, &n, "STACK_USER") ||
		    !ps_skip(&c, n, "STACK_USER") ||
		    (n && !ps_skip(&c, 8, "STACK_USER")))
			goto cut;
	}
	if ((st & (ps_weight | ps_weight_struct)) && !ps_skip(&c, 8, "WEIGHT"))
		goto cut;
	if ((st & ps_data_src) && !ps_skip(&c, 8, "DATA_SRC"))
		goto cut;
	if ((st & ps_transaction) && !ps_skip(&c, 8, "TRANSACTION"))
		goto cut;
	if ((st & ps_regs_intr) && !ps_regs(&c, l->regs_intr, "REGS_INTR"))
		goto cut;
	if ((st & ps_phys_addr) && !ps_skip(&c, 8, "PHYS_ADDR"))
		goto cut;
	if ((st & ps_cgroup) && !ps_skip(&c, 8, "CGROUP"))
		goto cut;
	if ((st & ps_data_page_size) && !ps_skip(&c, 8, "DATA_PAGE_SIZE"))
		goto cut;
	if ((st & ps_code_page_size) && !ps_skip(&c, 8, "CODE_PAGE_SIZE"))
		goto cut;
	if (!ps_u64(&c, &n, "AUX"))
		goto cut;
	out->data_at = c.at;
	if (!ps_skip(&c, n, "AUX"))
		goto cut;
	out->size = n;
	return 1;

cut:
	out->why = c.why;
	return -1;
}
