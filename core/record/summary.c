// SPDX-License-Identifier: MIT
/*
 * summary.c - what varscope record says at its end: the tasks and records
 * written, what was lost, dropped or refused and why, the notes, and the
 * command's processes left running.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "core/plural.h"
#include "core/record/recorder.h"

/*
 * The recording ends with the command: a daemon's parent exits at once
 * and leaves its server running, unrecorded.  Say so, with what to do.
 */
static void left_running(struct vs_recorder *r)
{
	unsigned int i, n = 0;
	pid_t first = 0;

	if (r->opts->pid)
		return;
	if (r->child_left) {
		fprintf(stderr, "varscope record: '%s' (pid %d) did not exit "
			"after SIGTERM: left running, with its processes\n",
			vs_record_command_name(r), (int)r->child);
		return;
	}
	for (i = 0; i < r->nr_procs; i++)
		if (r->procs[i].pid != r->child && !kill(r->procs[i].pid, 0) &&
		    (!n++ || r->procs[i].pid < first))
			first = r->procs[i].pid;	/* the oldest, likely */
	if (n)
		fprintf(stderr, "varscope record: the command exited and left "
			"%u %s running, not recorded (pid %d%s): run a "
			"server in the foreground, or attach with -p\n", n,
			vs_plural(n, "process", "processes"), (int)first,
			n > 1 ? ", ..." : "");
}

/* One summary line, "varscope record: N thing(s) @what", unless @n is 0. */
static void count_line(unsigned long long n, const char *one,
		       const char *many, const char *what)
{
	if (!n)
		return;
	fprintf(stderr, "varscope record: %llu %s %s\n", n,
		vs_plural(n, one, many), what);
}

/*
 * What the per-process probes (core/record/probe.c) may have missed: a
 * process whose own events could not be opened, forks too early for
 * them on a kernel without inherit and PERF_SAMPLE_READ.
 */
static void probe_follow_lines(struct vs_recorder *r)
{
	char what[256];
	int why = 0;
	uint64_t n = vs_probe_unfollowed(&r->s, &why);

	snprintf(what, sizeof(what), "of the command got no probes of their "
		 "own (%s), on a kernel before 6.12: their calls after a "
		 "child of theirs exits may be missing", strerror(why));
	count_line(n, "process", "processes", what);
	count_line(vs_probe_early_forks(&r->s), "fork or thread start",
		   "forks or thread starts", "came before the recorder gave "
		   "its process probes of its own, on a kernel before 6.12: "
		   "the calls of that process or child after one of them "
		   "exits may be missing until then");
}

void vs_record_summary(struct vs_recorder *r)
{
	const char *path = r->opts->output ? r->opts->output : VS_DEFAULT_FILE;
	unsigned int files = vs_rotwriter_nr_files(r->s.out);
	uint64_t written = vs_rotwriter_nr_written(r->s.out, VS_REC_TASK);
	struct vs_probe_func_stats fs;
	char where[4200], note[512];
	int i;

	if (files == 1)
		snprintf(where, sizeof(where), "1 segment file %s",
			 vs_rotwriter_path(r->s.out));
	else if (files)
		snprintf(where, sizeof(where), "%u segment files %s.0001.., "
			 "the last %s", files, path,
			 vs_rotwriter_path(r->s.out));
	else
		snprintf(where, sizeof(where), "%s",
			 strcmp(path, "-") ? path : "the standard output");
	if (vs_probe_tasks(&r->s))
		fprintf(stderr, "varscope record: %llu function %s written to "
			"%s (%llu bytes)\n", (unsigned long long)written,
			vs_plural(written, "call", "calls"), where,
			(unsigned long long)vs_rotwriter_bytes(r->s.out));
	else
		fprintf(stderr, "varscope record: %llu %s of %llu %s "
			"written to %s (%llu bytes)\n",
			(unsigned long long)written,
			vs_plural(written, "task", "tasks"),
			(unsigned long long)r->s.stats.threads,
			vs_plural(r->s.stats.threads, "thread", "threads"), where,
			(unsigned long long)vs_rotwriter_bytes(r->s.out));
	if (r->s.tasks_taken > written)
		fprintf(stderr, "varscope record: %llu more %s ended before "
			"the output error: lost with the chunk that could not "
			"be written\n",
			(unsigned long long)(r->s.tasks_taken - written),
			vs_plural(r->s.tasks_taken - written, "task", "tasks"));
	for (i = 0; vs_probe_func_stats(&r->s, i, &fs); i++) {
		if (fs.nested)
			fprintf(stderr, "varscope record: %llu %s of %s ran "
				"inside a call of %s: %s (a thread is in one "
				"task at a time)\n",
				(unsigned long long)fs.nested,
				vs_plural(fs.nested, "call", "calls"), fs.symbol,
				fs.outer,
				vs_plural(fs.nested, "not a task", "not tasks"));
		if (fs.no_return)
			fprintf(stderr, "varscope record: %llu %s of %s "
				"left without returning (longjmp): ended at "
				"the first event past their frame, flagged "
				"NO_RETURN\n", (unsigned long long)fs.no_return,
				vs_plural(fs.no_return, "call", "calls"),
				fs.symbol);
	}
	if (vs_rotwriter_nr_removed(r->s.out))
		fprintf(stderr, "varscope record: %u oldest segment %s "
			"removed to stay under --max-size\n",
			vs_rotwriter_nr_removed(r->s.out),
			vs_plural(vs_rotwriter_nr_removed(r->s.out), "file",
				  "files"));
	if (r->opts->probe_funcs)
		count_line(vs_rotwriter_nr_written(r->s.out, VS_REC_FUNC),
			   "--probe function enter or exit",
			   "--probe function enters and exits", "written");
	count_line(vs_probe_funcs_left(&r->s), "--probe call",
		   "--probe calls", "left without returning (longjmp): "
		   "their exits written at the first event past their "
		   "frame");
	if (r->s.sampling)
		count_line(vs_rotwriter_nr_written(r->s.out, VS_REC_SAMPLE),
			   "sample", "samples", "written");
	count_line(r->lost_tracking, "process or mapping record",
		   "process and mapping records", "lost (ring full)");
	if (r->resyncs)
		fprintf(stderr, "varscope record: the tracking rings were "
			"full: the names and mappings of the command's "
			"processes read again from /proc (%llu changed)\n",
			(unsigned long long)r->resyncs);
	count_line(r->s.stats.lost_samples, "sample", "samples",
		   "lost (a CPU's sample ring was full); a larger "
		   "--mmap-pages helps");
	count_line(r->s.stats.dropped_tasks, "task", "tasks",
		   "dropped (task ring full)");
	if (r->s.stats.unmatched_ends)
		fprintf(stderr, "varscope record: %llu vs_task_end() without begin "
			"ignored\n", (unsigned long long)r->s.stats.unmatched_ends);
	count_line(r->s.stats.bad_threads, "thread", "threads",
		   "wrote impossible values into its task ring (its "
		   "head, its counts): its later tasks were not read");
	count_line(r->s.stats.bad_tasks, "task", "tasks",
		   "dropped as impossible (ending before they began, "
		   "outside their thread's time, on no CPU of the machine, "
		   "or out of order)");
	if (r->s.engine && r->s.probe) {
		struct vs_bpf_call_stats cs;

		vs_bpf_engine_call_stats(r->s.engine, &cs);
		count_line(cs.drops, "task or --probe record",
			   "task and --probe records",
			   "lost (the engine's calls ring full)");
		count_line(cs.no_slot, "function task", "function tasks",
			   "not recorded: every slot of the engine taken");
		count_line(cs.no_thread, "thread", "threads",
			   "not traced: the engine's map of threads full");
		probe_follow_lines(r);
		count_line(cs.too_deep, "probed call", "probed calls",
			   "nested more than 16 deep: counted only by "
			   "their depth");
	}
	if (r->s.engine) {
		struct vs_bpf_engine_stats st;

		vs_bpf_engine_stats(r->s.engine, &st);
		count_line(st.event_drops, "wake-up or switch record",
			   "wake-up and switch records",
			   "lost (the engine's ring full)");
	}
	count_line(r->s.stats.unseen_switch_tasks, "task", "tasks",
		   "had a switch the kernel did not trace (its wait "
		   "ended unseen): the wait was closed from the "
		   "thread's CPU time, without who ran instead "
		   "(flagged UNSEEN_SWITCH)");
	if (r->s.values) {
		const struct vs_counters_left_out *lo =
			vs_task_values_left_out(r->s.values);

		count_line(lo->distorted, "task", "tasks",
			   "left without counter values: their reads "
			   "failed the DTE filter (flagged distorted)");
		count_line(lo->unmarked, "task", "tasks",
			   "left without counter values: a read "
			   "failed, the counters changed in it, or "
			   "its begin or end was not marked");
	}
	if (r->s.hw_failures)
		fprintf(stderr, "varscope record: the hardware counters of "
			"%llu %s could not be opened (%s): the counters of the "
			"epoch before went on\n",
			(unsigned long long)r->s.hw_failures,
			vs_plural(r->s.hw_failures, "epoch", "epochs"),
			r->s.hw_error);
	if (r->s.stats.refused)
		fprintf(stderr, "varscope record: %llu %s not recorded%s%s\n",
			(unsigned long long)r->s.stats.refused,
			vs_plural(r->s.stats.refused, "thread", "threads"),
			r->refuse_errno ? ": " : "",
			r->refuse_errno ? strerror(r->refuse_errno) : "");
	if (r->s.stats.no_slot)
		fprintf(stderr, "varscope record: %llu %s not recorded: the "
			"engine's %d slots were taken (threads registered at "
			"once)\n", (unsigned long long)r->s.stats.no_slot,
			vs_plural(r->s.stats.no_slot, "thread", "threads"),
			VS_SLOTS - 1);
	count_line(r->s.stats.strangers, "connection", "connections",
		   "to the registration socket from outside the "
		   "command closed unread");
	count_line(r->s.stats.silent, "connection", "connections",
		   "of the command to the registration socket sent "
		   "nothing in time: closed");
	count_line(r->s.stats.misnamed, "registration", "registrations",
		   "refused: sent by a thread other than the one "
		   "named");
	count_line(r->late_threads, "thread", "threads",
		   "began after the output error: not recorded");
	count_line(r->s.stats.names_refused, "task type name",
		   "task type names", "refused (not 1 to 64 printable "
		   "characters, all digits, a second name of a type, "
		   "or past 4096 types)");
	if (vs_record_fault_note(r, note, sizeof(note)))
		fprintf(stderr, "varscope record: %s\n", note);
	left_running(r);
}
