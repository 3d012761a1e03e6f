// SPDX-License-Identifier: MIT
/*
 * signature-watch-run.c - `signature watch` on a program: run it or follow
 * a running process, trace its threads' system calls and switches
 * (core/signature/syscall-trace.c), keep its mappings for the call
 * chains, and feed what comes to the watch (signature-watch.c) until the
 * program ends or the caller stops it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/array.h"
#include "core/proc.h"
#include "core/signature/signature-build.h"
#include "core/signature/signature-watch.h"
#include "core/symbols/symbols.h"
#include "core/signature/syscall-trace.h"
#include "core/symbols/unwind.h"
#include "core/workload.h"

#define POLL_MS		10

struct runner {
	struct vs_sig_watch *w;
	struct vs_symbols *syms;
	const char *program;		/* its file */
	vs_sig_window_fn fn;
	void *arg;
	uint64_t lost;
	struct vs_cpu_times cpus;	/* whence a ring's loss */
	uint32_t *ended;		/* processes found ended, forgotten */
	size_t nr_ended, alloc_ended;	/* at the next sweep */
	int failed;			/* -1: no memory, else @fn's */
};

static int on_event(const struct vs_sc_event *ev, void *arg)
{
	struct runner *r = arg;
	int ret = 0;

	switch (ev->type) {
	case VS_SC_MMAP:
		if (vs_symbols_add_map(r->syms, ev->pid, ev->start, ev->len,
				       ev->pgoff, ev->name) < 0)
			ret = -1;
		else if (!strcmp(ev->name, r->program))
			vs_sig_watch_set_program(r->w,
				vs_symbols_dso(r->syms, ev->name));
		break;
	case VS_SC_FORK:
		if (vs_symbols_fork(r->syms, ev->ppid, ev->pid) < 0)
			ret = -1;
		break;
	case VS_SC_LOST:
		r->lost += ev->lost;
		ret = vs_sig_watch_lost(r->w, vs_cpu_times_last(&r->cpus,
								ev->cpu),
					ev->time);
		break;
	default:
		ret = vs_sig_watch_event(r->w, ev, r->fn, r->arg);
		break;
	}
	if (!ret && vs_cpu_times_see(&r->cpus, ev->cpu, ev->time) < 0)
		ret = -1;
	if (ret)
		r->failed = ret;
	return ret;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/*
 * Follow every thread of running process @pid: trace all but its first
 * (the trace has it), and watch all from now on, those in a call too.
 */
static int add_threads(struct vs_syscall_trace *t, struct vs_sig_watch *w,
		       pid_t pid, char *err, size_t errlen)
{
	struct vs_proc_tids tids;
	pid_t tid;

	if (vs_proc_tids_open(&tids, pid)) {
		snprintf(err, errlen, "process %d: %s", pid, strerror(errno));
		return -1;
	}
	while ((tid = vs_proc_tids_next(&tids))) {
		if (vs_sig_watch_add_thread(w, pid, tid) < 0) {
			snprintf(err, errlen, "out of memory");
			vs_proc_tids_close(&tids);
			return -1;
		}
		if (tid != pid &&
		    vs_syscall_trace_add_thread(t, tid, err, errlen) < 0 &&
		    errno != ESRCH) {
			vs_proc_tids_close(&tids);
			return -1;
		}
	}
	vs_proc_tids_close(&tids);
	return 0;
}

/* The text of /proc/@pid/task/@tid/@file into @buf; -1 when gone. */
static ssize_t read_task_file(uint32_t pid, uint32_t tid, const char *file,
			      char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/%s", pid, tid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * opts.call_of from /proc/PID/task/TID: syscall ("NR ARGS... SP PC" when
 * blocked in a call; "running", or -1 for none), schedstat (the CPU time
 * first) and the stack at SP from /proc/PID/mem.
 */
static int proc_call_of(uint32_t pid, uint32_t tid, struct vs_sig_proc_call *c)
{
	unsigned long long v[9];
	char buf[256], path[64];
	unsigned int want = c->stack_size;
	ssize_t n;
	int fd;

	c->stack_size = 0;
	if (read_task_file(pid, tid, "syscall", buf, sizeof(buf)) < 0)
		return -1;
	if (buf[0] < '0' || buf[0] > '9')
		return 0;
	c->nr = strtoul(buf, NULL, 10);
	c->sp = c->pc = 0;
	if (sscanf(buf, "%llu %llx %llx %llx %llx %llx %llx %llx %llx",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8]) == 9) {
		c->sp = v[7];
		c->pc = v[8];
	}
	if (read_task_file(pid, tid, "schedstat", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%llu", &v[0]) != 1)
		return -1;
	c->run_ns = v[0];
	if (!c->stack || !want || !c->sp)
		return 1;
	snprintf(path, sizeof(path), "/proc/%u/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = pread(fd, c->stack, want, (off_t)c->sp);
	close(fd);
	c->stack_size = n > 0 ? (unsigned int)n & ~7u : 0;
	return 1;
}

/* How often the processes that ended are forgotten. */
#define SWEEP_NS	1000000000ull

static bool process_alive(pid_t pid)
{
	return !kill(pid, 0) || errno != ESRCH;
}

/*
 * Forget the processes that ended (reaped: the kernel has no process of
 * that number) in @r's symbols and in @uw: a program that forks a
 * process a request would otherwise grow them by the mappings of each,
 * for as long as it is watched.  A process is forgotten at the sweep
 * after the one that found it ended, if it still is: its records may
 * still be in the rings when it is reaped (the hang of a child the
 * window's end names comes after), not a sweep later.  A number given
 * to a new process in between is kept: its FORK record replaced the
 * mappings.  Returns -1 when out of memory.
 */
static int forget_ended(struct runner *r, struct vs_unwinder *uw)
{
	uint32_t pid;
	size_t i;

	for (i = 0; i < r->nr_ended; i++) {
		if (process_alive(r->ended[i]))
			continue;
		vs_unwinder_forget(uw, r->ended[i]);
		vs_symbols_forget(r->syms, r->ended[i]);
	}
	r->nr_ended = 0;
	for (i = 0; (pid = vs_symbols_pid(r->syms, i)); i++) {
		if (process_alive(pid))
			continue;
		if (ALLOC_GROW(r->ended, r->nr_ended + 1, r->alloc_ended) < 0)
			return -1;
		r->ended[r->nr_ended++] = pid;
	}
	return 0;
}

int vs_signature_watch(const struct vs_signatures *sig,
		       const char *const *argv, pid_t pid,
		       const struct vs_sig_watch_opts *opts,
		       vs_sig_window_fn fn, void *arg,
		       volatile sig_atomic_t *stop,
		       struct vs_sig_watch_stats *st, char *err, size_t errlen)
{
	struct vs_sc_opts sc = { .callchain = true,
				 .stack_size = opts->stack_size,
				 .switches = true, .sideband = true };
	struct runner r = { .fn = fn, .arg = arg };
	struct vs_sig_watch_opts wopts = *opts;
	struct vs_syscall_trace *t = NULL;
	struct vs_unwinder *uw = NULL;
	char program[4096], path[64];
	struct vs_workload wl;
	double cpu0 = cpu_seconds();
	uint64_t t0, now, swept;
	int status = 0, ret = -1;
	bool child = argv != NULL, done = false;

	memset(st, 0, sizeof(*st));
	sc.pages = 4 * vs_signature_ring_pages(&sc);
	if (child && vs_signature_find_program(argv[0], program,
					       sizeof(program)) < 0) {
		snprintf(err, errlen, "%s: %s", argv[0], strerror(errno));
		return -1;
	}
	if (!child) {
		snprintf(path, sizeof(path), "/proc/%d/exe", pid);
		ssize_t n = readlink(path, program, sizeof(program) - 1);

		if (n < 0) {
			snprintf(err, errlen, "process %d: %s", pid,
				 strerror(errno));
			return -1;
		}
		program[n] = '\0';
	}
	r.program = program;
	r.syms = vs_symbols_new();
	uw = r.syms ? vs_unwinder_new(r.syms) : NULL;
	if (!uw) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!child && vs_symbols_read_proc_maps(r.syms, pid) < 0) {
		snprintf(err, errlen, "process %d: cannot read its maps", pid);
		goto out;
	}
	if (child && vs_workload_prepare(&wl, argv) < 0) {
		snprintf(err, errlen, "cannot start %s: %s", argv[0],
			 strerror(errno));
		goto out;
	}
	t = vs_syscall_trace_open(child ? wl.pid : pid, !child, &sc, err,
				  errlen);
	if (!t) {
		if (child)
			vs_workload_cancel(&wl);
		goto out;
	}
	t0 = swept = monotonic_ns();
	wopts.call_of = proc_call_of;
	wopts.background = true;
	r.w = vs_sig_watch_new(sig, &wopts, r.syms, uw,
			       child ? NULL : vs_symbols_dso(r.syms, program),
			       t0);
	if (!r.w) {
		snprintf(err, errlen, "out of memory");
		if (child)
			vs_workload_cancel(&wl);
		goto out;
	}
	if (!child && add_threads(t, r.w, pid, err, errlen) < 0)
		goto out;
	if (child && vs_workload_start(&wl) < 0) {
		snprintf(err, errlen, "cannot run %s: %s", argv[0],
			 strerror(errno));
		goto out;
	}
	while (!done && !r.failed) {
		if (child)
			done = waitpid(wl.pid, &status, WNOHANG) != 0;
		else
			done = !process_alive(pid);
		if (*stop)
			break;
		now = monotonic_ns();
		if (vs_syscall_trace_read(t, done ? 0 : POLL_MS, done,
					  on_event, &r) < 0 && !r.failed)
			r.failed = -1;
		/* every event of before the read's start less the
		 * tracer's slack has come: close the windows ended by then */
		if (!r.failed && now > VS_SC_SLACK_NS)
			r.failed = vs_sig_watch_close(r.w, done ?
					monotonic_ns() : now - VS_SC_SLACK_NS,
					done, fn, arg);
		if (!r.failed && now - swept >= SWEEP_NS) {
			r.failed = forget_ended(&r, uw);
			swept = now;
		}
	}
	if (!done && !r.failed) {	/* stopped: the window so far */
		vs_syscall_trace_read(t, 0, true, on_event, &r);
		if (!r.failed)
			r.failed = vs_sig_watch_close(r.w, monotonic_ns(), true,
						      fn, arg);
	}
	if (r.failed < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	vs_sig_watch_counts(r.w, &st->counts);
	st->lost = r.lost;
	st->seconds = (monotonic_ns() - t0) / 1e9;
	st->cpu_seconds = cpu_seconds() - cpu0;
	if (child && !done) {		/* stopped by a signal: reap it */
		if (waitpid(wl.pid, &status, WNOHANG) == 0) {
			kill(wl.pid, SIGTERM);
			waitpid(wl.pid, &status, 0);
		}
	}
	st->status = !child ? 0 : WIFEXITED(status) ? WEXITSTATUS(status) :
		     128 + WTERMSIG(status);
	ret = 0;
out:
	vs_syscall_trace_close(t);
	vs_sig_watch_free(r.w);
	vs_cpu_times_release(&r.cpus);
	free(r.ended);
	vs_unwinder_free(uw);
	vs_symbols_free(r.syms);
	return ret;
}
