/* SPDX-License-Identifier: BSD-3-Clause */
/* What bench/flow_bench.c and bench/flow_batch_bench.c share: the input
 * (libxdc's mruby trace with its page dump as the image, in both
 * libraries), the passes of four decoders, and the measuring and printing of
 * their table. */
#ifndef PTD_BENCH_FLOW_COMMON_H
#define PTD_BENCH_FLOW_COMMON_H

#include "libipt_dl.h"
#include "page_dump.h"

#include "ptdecode/ptdecode.h"

#include <stddef.h>
#include <stdint.h>

/* The four decoders: ptdecode's and libipt's instruction flow, then
 * ptdecode's and libipt's blocks. */
enum { D_PTD_INSN, D_IPT_INSN, D_PTD_BLK, D_IPT_BLK, D_COUNT };

/* What one pass did.  cpu_time is set by the caller: the pass times itself
 * with flow_now(cpu_time). */
struct flow_pass {
	uint64_t insns, blocks, events, errors, mix;
	double seconds;
	int cpu_time;
};

/* The trace, the image sections and both libraries' images. */
struct flow_input {
	const char *name;
	uint8_t *buf;
	size_t size;
	struct ptxed_page_run *runs;
	size_t nruns;
	const char *dump;
	struct pt_image *ptd_image;
	struct ptd_ipt_image *ipt_image;
};

/* One pass of a ptdecode decoder over @in into @p (zeroed by the caller,
 * timed by the callee).  Returns 0, or -1 if the decoder cannot be set up. */
typedef int (*flow_ptd_run_fn)(const struct flow_input *in,
                               struct flow_pass *p);

/* The four decoders of a benchmark: their names (indexed by D_*),
 * ptdecode's two passes, and libipt's two (flow_run_ipt_insn(),
 * flow_run_ipt_blk()) timed with flow_now(@cpu_time). */
struct flow_decoders {
	const char *const *names;
	flow_ptd_run_fn ptd_insn, ptd_blk;
	int cpu_time;
};

/* Mix @v into @p's checksum. */
static inline void flow_mix(struct flow_pass *p, uint64_t v)
{
	p->mix = (p->mix ^ v) * 0x100000001b3ull;
}

/* The current time in seconds: the thread's CPU time if @cpu_time, else
 * monotonic wall-clock time. */
double flow_now(int cpu_time);

/* A configuration for decoding @in's trace. */
void flow_config_of(struct pt_config *config, const struct flow_input *in);

/* One pass of libipt's instruction-flow decoder over @in into @p (zeroed by
 * the caller), as ptxed does it: synchronize, drain events, next
 * instruction and pt_insn_time() (both mixed into the checksum),
 * resynchronize after an error.  Timed with flow_now(@cpu_time).  Returns 0,
 * or -1 if the decoder cannot be set up. */
int flow_run_ipt_insn(const struct ptd_libipt *ipt, const struct flow_input *in,
                      struct flow_pass *p, int cpu_time);

/* The same with libipt's block decoder (each block's IP mixed into the
 * checksum). */
int flow_run_ipt_blk(const struct ptd_libipt *ipt, const struct flow_input *in,
                     struct flow_pass *p, int cpu_time);

/* Load libxdc's mruby trace from @corpora (at most its first 64 KiB if
 * @smoke) into @in, named "mruby", and build both libraries' images from its
 * page dump; @dump (@dump_size bytes) holds the dump's path while @in is
 * used.  Returns 0; 77 after printing "SKIP: ..." if the trace or dump is
 * absent; 1 after printing an error if the image cannot be built. */
int flow_load_mruby(const struct ptd_libipt *ipt, const char *corpora,
                    int smoke, struct flow_input *in, char *dump,
                    size_t dump_size);

/* Free what flow_load_mruby() allocated in @in. */
void flow_input_free(const struct ptd_libipt *ipt, struct flow_input *in);

/* Print the table's header line. */
void flow_print_header(void);

/* Measure @in with the decoders of @decs in @mask (bit 1 << D_*) @reps
 * times each, interleaved, and print a row per decoder.
 * Returns 0, or 1 if a decoder cannot be set up or the two libraries did
 * not do the same work. */
int flow_bench_input(const struct ptd_libipt *ipt, const struct flow_input *in,
                     unsigned reps, unsigned mask,
                     const struct flow_decoders *decs);

/* Measure @mruby's trace repeated to at least @large_mb MiB (as "mruby x
 * N", with @mruby's images) like flow_bench_input().  Returns 0 or 1 (also
 * when out of memory). */
int flow_bench_large(const struct ptd_libipt *ipt,
                     const struct flow_input *mruby, unsigned large_mb,
                     unsigned reps, unsigned mask,
                     const struct flow_decoders *decs);

#endif /* PTD_BENCH_FLOW_COMMON_H */
