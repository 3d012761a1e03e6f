/* SPDX-License-Identifier: MIT */
/*
 * signature-watch.h - PerfScope's inference online: the system calls of a
 * running program, with their call chains, cut into windows of time;
 * each window is inferred against the signatures as `signature infer`
 * infers a recording, and handed over when it is abnormal (a function
 * whose episodes increased, or a thread hung in one call, named by the
 * function its call chain shows).
 *
 * Memory is bounded by a few windows: each thread's calls of a window
 * go when the window has been inferred (with opts.background, up to two
 * windows wait for it), and the threads that exited go at their
 * window's end.
 */
#ifndef VS_CORE_SIGNATURE_WATCH_H
#define VS_CORE_SIGNATURE_WATCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/signature/signature.h"

struct vs_dso;
struct vs_sc_event;
struct vs_symbols;
struct vs_unwinder;

#define VS_SIG_WATCH_WINDOW_NS	10000000000ull	/* 10 s */
#define VS_SIG_WATCH_MIN_SCORE	0.01

/* A thread's system call as the kernel shows it (opts.call_of). */
struct vs_sig_proc_call {
	unsigned int nr;
	uint64_t run_ns;		/* the thread's CPU time: unchanged
					 * between two looks, it never ran,
					 * so never left the call */
	uint64_t sp, pc;		/* user registers, 0: unknown */
	uint8_t *stack;			/* in: room for @stack_size bytes, */
	unsigned int stack_size;	/* out: the bytes read from @sp */
};

struct vs_sig_watch_opts {
	uint64_t window_ns;
	struct vs_infer_opts infer;
	double min_score;	/* a window is abnormal from this score */
	unsigned int stack_size;	/* bytes of stack copied at each call */
	/*
	 * The system call thread @tid of process @pid is blocked in now,
	 * as the kernel says it (/proc/PID/task/TID/syscall): 1 with @c
	 * filled, 0 when it is in none, -1 when that is unknown (it is
	 * gone).  A call whose exit record was lost looks hung, and is
	 * dropped when this says the thread is not in it; a thread silent
	 * for a window whose enter record was lost is found in its call;
	 * NULL: the records alone say.
	 */
	int (*call_of)(uint32_t pid, uint32_t tid, struct vs_sig_proc_call *c);
	/*
	 * Infer the windows in a thread of their own, @fn called there:
	 * the reading of the rings never waits for an inference (up to
	 * two windows queued).  Else each is inferred, and handed over,
	 * when it ends.
	 */
	bool background;
};

/* One window of time, inferred. */
struct vs_sig_window {
	unsigned long number;		/* 0, 1, ... */
	uint64_t start, end;		/* CLOCK_MONOTONIC ns */
	size_t nr_threads;		/* that made calls in it */
	struct vs_infer_result res;	/* hangs with their functions */
	bool abnormal;
};

struct vs_sig_watch;

/**
 * vs_sig_watch_new - windows of @opts->window_ns from @start on, inferred
 * against @sig; call chains are looked up in @syms (through @uw) for the
 * functions of @program (a dso of @syms, or NULL: unknown).  All of them
 * must outlive the watch.  NULL when memory ran out.
 */
struct vs_sig_watch *vs_sig_watch_new(const struct vs_signatures *sig,
				      const struct vs_sig_watch_opts *opts,
				      struct vs_symbols *syms,
				      struct vs_unwinder *uw,
				      const struct vs_dso *program,
				      uint64_t start);

void vs_sig_watch_free(struct vs_sig_watch *w);

/* Set the program's file when it is known only later (its exec). */
void vs_sig_watch_set_program(struct vs_sig_watch *w,
			      const struct vs_dso *program);

typedef int (*vs_sig_window_fn)(const struct vs_sig_window *win, void *arg);

/**
 * vs_sig_watch_event - take a system call, context switch or exit of a
 * thread (other events are ignored); events come in time order.  An
 * event past the current window first closes it (vs_sig_watch_close()).
 * Returns 0, -1 when memory ran out, or what @fn returned if not 0.
 */
int vs_sig_watch_event(struct vs_sig_watch *w, const struct vs_sc_event *ev,
		       vs_sig_window_fn fn, void *arg);

/**
 * vs_sig_watch_add_thread - watch thread @tid of process @pid from the
 * start of the current window on, before any record of it: a thread of
 * a running process, maybe in a call it entered before the watch (found
 * through opts.call_of).  Returns 0, or -1 when out of memory.
 */
int vs_sig_watch_add_thread(struct vs_sig_watch *w, uint32_t pid,
			    uint32_t tid);

/**
 * vs_sig_watch_lost - a ring dropped records from @from to @to (its last
 * record before the loss and the PERF_RECORD_LOST): the threads' gaps
 * across that time are unknown (vs_thread_calls_hole()).  Returns 0, or
 * -1 when out of memory.
 */
int vs_sig_watch_lost(struct vs_sig_watch *w, uint64_t from, uint64_t to);

/**
 * vs_sig_watch_close - infer every window that ended by @now (all events
 * before @now have been taken) and hand each to @fn; with @all, the
 * current window too, ended at @now (the last one).  A thread still in a
 * call at a window's end has that call in the window, open until the
 * end: a hang is found there (vs_signature_infer()).  With
 * opts.background the windows are queued to the inferring thread, and
 * @all waits until each has been inferred.
 * Returns 0, -1 when memory ran out, or what @fn returned if not 0
 * (with opts.background: for a window before).
 */
int vs_sig_watch_close(struct vs_sig_watch *w, uint64_t now, bool all,
		       vs_sig_window_fn fn, void *arg);

/* What a watch took: calls and windows. */
struct vs_sig_watch_counts {
	uint64_t calls;
	unsigned long windows, abnormal;
	size_t peak_calls;		/* the most calls of one window */
};

void vs_sig_watch_counts(struct vs_sig_watch *w, struct vs_sig_watch_counts *c);

/* --- running it on a program --- */

struct vs_sig_watch_stats {
	struct vs_sig_watch_counts counts;
	uint64_t lost;			/* records the kernel dropped */
	double seconds;			/* watched */
	double cpu_seconds;		/* the watcher's, user + system */
	int status;			/* the command's exit status */
};

/* --- core/signature/signature-watch-run.c: the watch on a program --- */

/**
 * vs_signature_watch - watch command @argv (started here, held before
 * its exec until the events are open), or running process @pid when
 * @argv is NULL, until it ends or *@stop is set; each abnormal window
 * goes to @fn as soon as it ends
 *
 * Returns 0 with @st filled, or -1 with a one-line reason in @err.
 */
int vs_signature_watch(const struct vs_signatures *sig,
		       const char *const *argv, pid_t pid,
		       const struct vs_sig_watch_opts *opts,
		       vs_sig_window_fn fn, void *arg,
		       volatile sig_atomic_t *stop,
		       struct vs_sig_watch_stats *st, char *err, size_t errlen);

#endif /* VS_CORE_SIGNATURE_WATCH_H */
