/* SPDX-License-Identifier: BSD-3-Clause */
/* Example: summarize each CPU's Intel PT trace in a perf.data file.
 *
 *   perf record -e intel_pt// -a -- sleep 1
 *   perf_summary perf.data
 *
 * For every AUX area (one per CPU in perf's default per-CPU mode) it runs
 * the query decoder (libipt's API) over the trace with the configuration
 * the file holds (ptdecode's perf.data reader, <ptdecode/ptd_perf.h>), and
 * prints the number of conditional and indirect branches, events and decode
 * errors, and the span of time the trace covers, in perf time (the time of
 * perf's own records and of `perf script`), converted from the trace's TSC
 * with the conversion perf stored in the file.  Where the file has context
 * switches, it also lists the processes whose turns the trace holds: at
 * each enable event (tracing starts, or comes back to the traced code), the
 * task the switches say runs on that CPU then (ptd_perf_task_at()). */
#include <intel-pt.h>
#include <ptdecode/ptdecode.h>

#include <inttypes.h>
#include <stdio.h>

/* The processes seen at enable events, and how often. */
enum { max_tasks = 8 };

struct summary {
	uint64_t cond, indirect, events, errors;
	uint64_t first_tsc, last_tsc;
	int have_time;
	struct {
		int32_t pid;
		uint64_t turns;
	} tasks[max_tasks];
	size_t num_tasks;
};

/* Count a turn of the task that runs on @cpu at @tsc (if the switches
 * say). */
static void note_task(const struct ptd_perf *perf,
                      const struct ptd_perf_info *info, int32_t cpu,
                      uint64_t tsc, struct summary *s)
{
	uint64_t ns;
	int32_t pid, tid;
	size_t i;

	if (!info->have_tc || ptd_perf_tsc_to_ns(&ns, &info->tc, tsc) < 0 ||
	    ptd_perf_task_at(perf, cpu, ns, &pid, &tid) < 1)
		return;
	for (i = 0; i < s->num_tasks; ++i)
		if (s->tasks[i].pid == pid)
			break;
	if (i == s->num_tasks) {
		if (i == max_tasks)
			return;
		s->tasks[i].pid = pid;
		s->tasks[i].turns = 0;
		s->num_tasks += 1;
	}
	s->tasks[i].turns += 1;
}

/* The name of process @pid (its last COMM), or "?". */
static const char *task_name(const struct ptd_perf *perf, int32_t pid)
{
	const char *name = "?";

	for (size_t i = 0; i < ptd_perf_num_comms(perf); ++i) {
		struct ptd_perf_comm c;

		if (ptd_perf_get_comm(perf, i, &c) == 0 && c.pid == pid)
			name = c.comm;
	}
	return name;
}

/* Note the decoder's time after a query. */
static void note_time(struct pt_query_decoder *decoder, struct summary *s)
{
	uint64_t tsc;

	if (pt_qry_time(decoder, &tsc, NULL, NULL) < 0)
		return;
	if (!s->have_time)
		s->first_tsc = tsc;
	s->last_tsc = tsc;
	s->have_time = 1;
}

/* Run the query decoder over the trace in @config, as a tool that follows
 * control flow would, without the code: events first, then a conditional
 * branch, else an indirect one; after an error, the next PSB. */
static void summarize(const struct pt_config *config,
                      const struct ptd_perf *perf,
                      const struct ptd_perf_info *info, int32_t cpu,
                      struct summary *s)
{
	struct pt_query_decoder *decoder = pt_qry_alloc_decoder(config);
	int status;

	if (!decoder) {
		s->errors += 1;
		return;
	}
	for (;;) {
		uint64_t ip;

		status = pt_qry_sync_forward(decoder, &ip);
		if (status == -pte_eos)
			break;
		while (status >= 0) {
			struct pt_event event;
			int taken;

			if (status & pts_event_pending) {
				status = pt_qry_event(decoder, &event,
				                      sizeof(event));
				if (status >= 0)
					s->events += 1;
				if (status >= 0 && event.type == ptev_enabled &&
				    event.has_tsc)
					note_task(perf, info, cpu, event.tsc,
					          s);
			} else {
				status = pt_qry_cond_branch(decoder, &taken);
				if (status >= 0)
					s->cond += 1;
				else if (status == -pte_bad_query) {
					status = pt_qry_indirect_branch(decoder,
					                                &ip);
					if (status >= 0)
						s->indirect += 1;
				}
			}
			if (status >= 0)
				note_time(decoder, s);
		}
		if (status == -pte_eos)
			break;
		s->errors += 1;
	}
	pt_qry_free_decoder(decoder);
}

/* Print @tsc as perf time in seconds, or the raw TSC without a conversion. */
static void print_time(const struct ptd_perf_info *info, uint64_t tsc)
{
	uint64_t ns;

	if (info->have_tc && ptd_perf_tsc_to_ns(&ns, &info->tc, tsc) == 0)
		printf("%" PRIu64 ".%09" PRIu64 " s", ns / 1000000000u,
		       ns % 1000000000u);
	else
		printf("tsc 0x%" PRIx64, tsc);
}

int main(int argc, char **argv)
{
	struct ptd_perf *perf;
	struct ptd_perf_diag diag;
	struct ptd_perf_info info;
	struct ptd_rtit_diag cdiag;
	struct pt_config config;

	if (argc != 2) {
		fprintf(stderr, "usage: %s <perf.data>\n", argv[0]);
		return 2;
	}
	if (ptd_perf_read(&perf, argv[1], &diag) < 0) {
		fprintf(stderr, "%s:%" PRIu64 ": %s\n", argv[1], diag.offset,
		        diag.message);
		return 1;
	}
	ptd_perf_get_info(perf, &info);
	pt_config_init(&config);
	if (ptd_perf_config(perf, &config, &cdiag) < 0)
		fprintf(stderr, "%s: warning: %s\n", argv[1], cdiag.message);
	printf("%s: %s, %" PRIu64 " bytes of trace in %zu AUX areas\n", argv[1],
	       info.cpuid[0] ? info.cpuid : "unknown processor",
	       info.trace_bytes, ptd_perf_num_streams(perf));

	for (size_t i = 0; i < ptd_perf_num_streams(perf); ++i) {
		struct ptd_perf_stream stream;
		struct summary s = {0};

		ptd_perf_get_stream(perf, i, &stream);
		config.begin = (uint8_t *)stream.data;
		config.end = (uint8_t *)stream.data + stream.size;
		summarize(&config, perf, &info, stream.cpu, &s);
		printf("cpu %" PRId32 ": %" PRIu64 " bytes, %" PRIu64
		       " conditional and %" PRIu64
		       " indirect branches, %" PRIu64 " events, %" PRIu64
		       " errors",
		       stream.cpu, stream.size, s.cond, s.indirect, s.events,
		       s.errors);
		if (s.have_time) {
			printf(", from ");
			print_time(&info, s.first_tsc);
			printf(" to ");
			print_time(&info, s.last_tsc);
		}
		printf("\n");
		for (size_t t = 0; t < s.num_tasks; ++t)
			printf("  %s (%" PRId32 "): %" PRIu64 " turn%s\n",
			       task_name(perf, s.tasks[t].pid), s.tasks[t].pid,
			       s.tasks[t].turns,
			       s.tasks[t].turns == 1 ? "" : "s");
	}
	ptd_perf_free(perf);
	return 0;
}
