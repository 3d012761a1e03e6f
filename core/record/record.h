/* SPDX-License-Identifier: MIT */
/*
 * record.h - the recording engine behind "varscope record".
 */
#ifndef VS_CORE_RECORD_H
#define VS_CORE_RECORD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The shortest --epoch and --segment-length: the recorder starts an epoch
 * or a file on its tick (every 10 ms), so a shorter one would be a tick
 * long, and each epoch opens a new counter group in every thread.
 */
#define VS_RECORD_MIN_PERIOD_NS	100000000ull
#define VS_RECORD_MIN_PERIOD	"100ms"

/*
 * How a sample's user call chain is taken (--call-graph, as perf's):
 * the kernel's walk of the frame records (fp), or a copy of the user
 * stack and registers unwound offline with libdw (dwarf,
 * core/symbols/unwind.h).
 */
enum vs_call_graph {
	VS_CALL_GRAPH_DWARF,		/* the default */
	VS_CALL_GRAPH_FP,
};

#define VS_CALL_GRAPH_STACK	8192	/* bytes copied by default */
#define VS_CALL_GRAPH_STACK_MAX	65528	/* the most perf copies */

struct vs_record_opts {
	const char *output;		/* NULL: varscope.data */
	double rate;			/* (0, 1] */
	uint64_t epoch_ns;
	uint64_t duration_ns;		/* 0: until the command ends */
	uint64_t segment_ns;		/* numbered files this long, 0: one */
	uint64_t max_size;		/* bytes of all of them, 0: no bound */
	const char *events;		/* -e list, NULL: the default set */
	unsigned int mmap_pages;	/* data pages of each CPU's sample
					 * ring, 0: the default
					 * (core/record/tracking.c) */
	int realtime;			/* -r: the recorder's SCHED_FIFO
					 * priority, 0: it stays SCHED_OTHER */
	const char *task_funcs;		/* --task-func list, or NULL */
	const char *probe_funcs;	/* --probe list, or NULL */
	int pid;			/* -p: attach to it instead of argv */
	bool syscalls;			/* --syscalls: SYSCALL and SWITCH */
	bool syscall_stacks;		/* ... and SAMPLEs of long calls */
	const char *sample;		/* --sample[=EVENT], NULL: no sampling */
	uint64_t sample_period;		/* --sample-period, 0: the default */
	uint64_t sample_freq;		/* -F, 0: the default */
	enum vs_call_graph call_graph;	/* --call-graph */
	unsigned int stack_size;	/* ... dwarf: bytes of user stack,
					 * 0: VS_CALL_GRAPH_STACK */
	const char *const *argv;	/* the command, NULL-terminated */
	const char *cmdline;		/* varscope's own, for the trace */
};

/**
 * vs_record_split_events - split a -e list into tracepoints ("sys:name")
 * and raw hardware events ("cpu/event=0x..,umask=0x../", "rNNNN": commas
 * inside the slashes belong to the event), checking the raw ones
 * @tps, @raws: set to comma-separated lists (free them), maybe empty
 * @err: one line on failure
 *
 * Returns 0, or -1 (an empty list, a malformed raw event, or no memory).
 */
int vs_record_split_events(const char *events, char **tps, char **raws,
			   char *err, size_t errlen);

/**
 * vs_record - run @opts->argv, or attach to @opts->pid, and record until
 * it exits, a signal (SIGINT, SIGTERM) or the duration ends
 *
 * Returns the exit status for varscope: the command's own, 128 + signal
 * when it was killed (0 for an attached process), 127 when it could not
 * run, or 1 when recording could not start.
 */
int vs_record(const struct vs_record_opts *opts);

#endif /* VS_CORE_RECORD_H */
