// SPDX-License-Identifier: MIT
/*
 * signature-build.c - attribute each system call of a running program to
 * the program's functions active when it was made.
 *
 * Callchain method: each sys_enter's user stack, unwound by libdw with
 * the files' call frame information as far as its copy goes and by the
 * kernel's frame-pointer chain past it (vs_unwind()), gives every function
 * on the stack.  An execution of a function lasts while consecutive
 * system calls of the thread find it at the same place of the stack (same
 * callers below it, as far as both chains go).
 *
 * Probes method: a uprobe on the entry and a uretprobe on the return of
 * each profiled function, and the paper's timestamp matching: with every
 * event of a thread in time order, the functions entered and not yet
 * returned when a call enters are the active ones, each execution being
 * one entry-to-return.
 *
 * Each thread keeps its functions' executions that are still going, with
 * their calls, and hands each over whole when it ends, so that executions
 * of one function in several threads at once stay apart.  With each call
 * goes the gap before it (from the thread's previous call), and the gaps
 * of every thread give the limit (mean + 2 sigma) at which the profile
 * cuts executions into sequences, as infer cuts threads into execution
 * units.  A gap in which the thread was switched out is measured without
 * the time it spent off the CPU: a preemption neither cuts an execution
 * nor joins two.  A loop
 * that runs for the whole program (a worker's request loop) is then a
 * sequence per pass, not one whose episodes would combine the calls of
 * every callee; and a callee's execution, cut at the same gaps, lies
 * within its callers' sequences: its episodes are at least as frequent in
 * their signatures, so on them a caller does not outrank the callee that
 * misbehaves.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/array.h"
#include "core/signature/signature-build.h"
#include "core/symbols/symbols.h"
#include "core/signature/syscall-trace.h"
#include "core/symbols/unwind.h"
#include "core/workload.h"

#define MAX_FRAMES	64
#define RING_PAGES	2048	/* 8 MB per CPU at least, */
#define RING_CALLS	4096	/* ... room for as many stack copies */
#define MAX_DEPTH	256	/* probes: active functions kept per thread */

struct active {
	const struct vs_elf_symbol *sym;
	int at;				/* its frame in the chain, 0: innermost */
	uint64_t exec;
};

/* Probes method: a function entered and not yet returned. */
struct probe_frame {
	uint32_t func;
	uint64_t exec;
};

/* An execution of a function on the thread, still going. */
struct open_exec {
	const struct vs_elf_symbol *sym;
	uint64_t exec;
	uint64_t first, last;		/* first enter, last exit */
	uint16_t *nr;			/* its calls */
	uint32_t *gap;			/* the gap before each */
	size_t n, cap_nr, cap_gap;
};

struct thread {
	uint32_t tid;
	bool pending;			/* a call entered, not yet exited */
	uint16_t nr;
	uint64_t enter;
	bool called;			/* a call exited at last_exit */
	uint64_t last_exit;
	uint64_t off_cpu;		/* ns switched out since then */
	uint64_t off_since;		/* switched out at, 0: on the CPU */
	int ncur, nprev;
	struct active cur[MAX_FRAMES], prev[MAX_FRAMES];
	int nchain, nprev_chain;	/* callchain: cur's and prev's stacks */
	uint64_t chain[MAX_FRAMES], prev_chain[MAX_FRAMES];
	int nopen;			/* open[i]: prev[i]'s execution */
	struct open_exec open[MAX_FRAMES];
	int depth;
	struct probe_frame stack[MAX_DEPTH];
};

struct build {
	const struct vs_sig_build_opts *opts;
	struct vs_profile *p;
	struct vs_sig_build_stats *st;
	struct vs_symbols *syms;
	struct vs_unwinder *unwinder;	/* over @syms */
	const struct vs_dso *program;
	struct thread **th;
	size_t nth, cap;
	uint64_t next_exec;
	const struct vs_elf_symbol **probed;	/* probes: cookie -> function */
	size_t nr_probed;
	pid_t *pids;			/* the traced processes */
	size_t nr_pids, cap_pids;
	struct vs_gap_stats gaps;
	uint64_t first_time, last_time;	/* of the events */
	int failed;
};

static struct thread *find_thread(struct build *b, uint32_t tid)
{
	struct thread *t;
	size_t i;

	for (i = 0; i < b->nth; i++)
		if (b->th[i]->tid == tid)
			return b->th[i];
	if (ALLOC_GROW(b->th, b->nth + 1, b->cap) < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	b->th[b->nth++] = t;
	return t;
}

/* Does @name match one of the comma-separated globs of @list (or none)? */
static bool function_wanted(const char *list, const char *name)
{
	char glob[256];
	const char *p, *comma;

	if (!list)
		return true;
	for (p = list; *p; p = comma + 1) {
		comma = strchrnul(p, ',');
		snprintf(glob, sizeof(glob), "%.*s", (int)(comma - p), p);
		if (!fnmatch(glob, name, 0))
			return true;
		if (!*comma)
			break;
	}
	return false;
}

static bool profiled(const struct build *b, const struct vs_symbol_hit *hit)
{
	return hit->dso == b->program && hit->sym &&
	       function_wanted(b->opts->functions, hit->sym->name);
}

/*
 * Does the frame t->chain[@at] have the callers of t->prev_chain[@prev_at],
 * as far as both chains go?  A chain may end short of the outermost
 * frame (the kernel's frame-pointer walk stops at the first frame without
 * a record, in the C library's start code, where the stack copy would
 * have gone on): compare what both know.
 */
static bool same_callers(const struct thread *t, int at, int prev_at)
{
	int i;

	for (i = 1; at + i < t->nchain && prev_at + i < t->nprev_chain; i++)
		if (t->chain[at + i] != t->prev_chain[prev_at + i])
			return false;
	return true;
}

/* The execution of @sym at t->chain[@at], from the previous call on? */
static uint64_t execution(struct build *b, struct thread *t,
			  const struct vs_elf_symbol *sym, int at)
{
	int i;

	for (i = 0; i < t->nprev; i++)
		if (t->prev[i].sym == sym && same_callers(t, at, t->prev[i].at))
			return t->prev[i].exec;
	return ++b->next_exec;
}

/* An execution is over: to the profile. */
static void end_execution(struct build *b, struct open_exec *o)
{
	if (vs_profile_add_execution(b->p, o->sym->name, o->nr, o->gap, o->n,
				     o->first, o->last) < 0)
		b->failed = 1;
	o->n = 0;
}

/* The thread's executions from open[@from] on are over. */
static void end_executions(struct build *b, struct thread *t, int from)
{
	for (; t->nopen > from; t->nopen--)
		end_execution(b, &t->open[t->nopen - 1]);
}

/*
 * End the thread's open executions that its pending call does not go on
 * with (innermost first), and put those it goes on with in the places of
 * their functions in t->cur; the other places get free ones (n == 0).
 */
static void carry_on(struct build *b, struct thread *t)
{
	struct open_exec was[MAX_FRAMES];
	bool taken[MAX_FRAMES] = { false };
	int from[MAX_FRAMES], i, j, k;

	for (j = t->nopen - 1; j >= 0; j--) {
		for (i = 0; i < t->ncur && t->cur[i].exec != t->open[j].exec; i++)
			;
		if (i == t->ncur)
			end_execution(b, &t->open[j]);
	}
	for (i = 0; i < MAX_FRAMES; i++) {
		for (j = 0; i < t->ncur && j < t->nopen; j++)
			if (t->open[j].n && t->open[j].exec == t->cur[i].exec)
				break;
		from[i] = i < t->ncur && j < t->nopen ? j : -1;
		if (from[i] >= 0)
			taken[j] = true;
	}
	for (i = 0, k = 0; i < MAX_FRAMES; i++) {
		if (from[i] >= 0)
			continue;
		while (taken[k])
			k++;
		from[i] = k;
		taken[k] = true;
	}
	memcpy(was, t->open, sizeof(was));
	for (i = 0; i < MAX_FRAMES; i++)
		t->open[i] = was[from[i]];
}

/*
 * The gap before the thread's pending call (0 for its first), counted in
 * the statistics.  A gap in which the thread was switched out is left out
 * of them, as in infer, and counts only its time on the CPU: a request
 * loop's long parse still cuts when it is preempted, and a retry loop's
 * calls stay together when the thread is preempted between two of them.
 */
static uint32_t call_gap(struct build *b, struct thread *t)
{
	uint64_t gap;

	if (!t->called || t->enter < t->last_exit)
		return 0;
	gap = t->enter - t->last_exit;
	if (t->off_cpu)
		gap = gap > t->off_cpu ? gap - t->off_cpu : 0;
	else
		vs_gap_stats_add(&b->gaps, gap);
	return gap < UINT32_MAX ? gap : UINT32_MAX;
}

/*
 * Credit the thread's pending call to its active functions.  An execution
 * that goes on is one of the thread's previous call, at the same place
 * (execution()); the others are over.
 */
static void finish_call(struct build *b, struct thread *t, uint64_t exit)
{
	uint32_t gap;
	struct open_exec *o;
	int i;

	if (!t->pending)
		return;
	t->pending = false;
	b->st->calls++;
	b->st->attributed += t->ncur > 0;
	gap = call_gap(b, t);
	t->called = true;
	t->off_cpu = 0;
	t->off_since = 0;
	t->last_exit = exit > t->enter ? exit : t->enter;
	carry_on(b, t);
	for (i = 0; i < t->ncur; i++) {
		o = &t->open[i];
		if (!o->n) {
			o->sym = t->cur[i].sym;
			o->exec = t->cur[i].exec;
			o->first = t->enter;
		}
		if (ALLOC_GROW(o->nr, o->n + 1, o->cap_nr) < 0 ||
		    ALLOC_GROW(o->gap, o->n + 1, o->cap_gap) < 0) {
			b->failed = 1;
			return;
		}
		o->nr[o->n] = t->nr;
		o->gap[o->n++] = gap;
		o->last = t->last_exit;
	}
	t->nopen = t->ncur;
	memcpy(t->prev, t->cur, t->ncur * sizeof(*t->cur));
	t->nprev = t->ncur;
	memcpy(t->prev_chain, t->chain, t->nchain * sizeof(*t->chain));
	t->nprev_chain = t->nchain;
}

/* Probes method: the active functions are those entered, not returned. */
static void enter_call_probes(struct build *b, struct thread *t)
{
	int i, k;

	t->ncur = 0;
	for (i = 0; i < t->depth && t->ncur < MAX_FRAMES; i++) {
		const struct vs_elf_symbol *sym = b->probed[t->stack[i].func];

		for (k = 0; k < t->ncur && t->cur[k].sym != sym; k++)
			;
		if (k < t->ncur)
			continue;	/* recursion: the outermost counts */
		t->cur[t->ncur++] = (struct active){
			.sym = sym, .exec = t->stack[i].exec };
	}
}

static bool traced(const struct build *b, pid_t pid)
{
	size_t i;

	for (i = 0; i < b->nr_pids; i++)
		if (b->pids[i] == pid)
			return true;
	return false;
}

static int add_pid(struct build *b, pid_t pid)
{
	if (traced(b, pid))
		return 0;
	if (ALLOC_GROW(b->pids, b->nr_pids + 1, b->cap_pids) < 0)
		return -1;
	b->pids[b->nr_pids++] = pid;
	return 0;
}

static void probe_hit(struct build *b, const struct vs_sc_event *ev)
{
	struct thread *t;
	int i;

	if (!traced(b, ev->pid))	/* the probes watch every process */
		return;
	t = find_thread(b, ev->tid);
	if (!t) {
		b->failed = 1;
		return;
	}
	if (!ev->is_return) {
		if (t->depth < MAX_DEPTH)
			t->stack[t->depth++] = (struct probe_frame){
				ev->cookie, ++b->next_exec };
		return;
	}
	/* pop up to the function returning (returns of deeper frames
	 * may have been lost to longjmp or to the stack limit) */
	for (i = t->depth - 1; i >= 0; i--) {
		if (t->stack[i].func == ev->cookie) {
			t->depth = i;
			break;
		}
	}
}

static void enter_call(struct build *b, const struct vs_sc_event *ev)
{
	struct thread *t = find_thread(b, ev->tid);
	struct vs_symbol_hit hit;
	int i, k;

	if (!t) {
		b->failed = 1;
		return;
	}
	finish_call(b, t, ev->time);	/* exit never came (exit_group) */
	t->pending = true;
	t->nr = ev->nr;
	t->enter = ev->time;
	if (b->probed) {
		enter_call_probes(b, t);
		return;
	}
	if (ev->nr_ips) {
		struct vs_user_stack u = {
			.regs_mask = ev->regs_mask, .regs = ev->regs,
			.nr_regs = ev->nr_regs,
			.stack = ev->stack, .size = ev->stack_size,
			.fp_chain = ev->ips, .fp_len = ev->nr_ips };
		bool cut;

		t->nchain = vs_unwind(b->unwinder, ev->pid, ev->tid, &u,
				      t->chain, MAX_FRAMES, &cut);
		b->st->cut += cut;
	} else {
		t->nchain = 0;
	}

	/* outermost first: recursion counts once, the outermost frame */
	t->ncur = 0;
	for (i = t->nchain - 1; i >= 0; i--) {
		uint64_t addr = i ? t->chain[i] - 1 : t->chain[i];

		if (vs_symbols_lookup(b->syms, ev->pid, addr, &hit) ||
		    !profiled(b, &hit))
			continue;
		for (k = 0; k < t->ncur && t->cur[k].sym != hit.sym; k++)
			;
		if (k < t->ncur)
			continue;
		t->cur[k] = (struct active){
			.sym = hit.sym, .at = i,
			.exec = execution(b, t, hit.sym, i) };
		t->ncur++;
	}
}

/*
 * A call that lasted half the run or more (a join, an accept that waits
 * for the whole run) waited for the end, not for a moment: it has no
 * longest duration to hold a later one against (VS_SIG_CALL_UNBOUNDED).
 */
static void unbounded_waits(struct build *b)
{
	uint64_t run = b->last_time - b->first_time;
	size_t nr;

	for (nr = 0; nr < VS_NR_SYSCALLS; nr++)
		if (b->st->call_max_ns[nr] && b->st->call_max_ns[nr] >= run / 2)
			b->st->call_max_ns[nr] = VS_SIG_CALL_UNBOUNDED;
}

static int on_event(const struct vs_sc_event *ev, void *arg)
{
	struct build *b = arg;
	struct thread *t;

	if (ev->time && (!b->first_time || ev->time < b->first_time))
		b->first_time = ev->time;
	if (ev->time > b->last_time)
		b->last_time = ev->time;

	switch (ev->type) {
	case VS_SC_ENTER:
		enter_call(b, ev);
		break;
	case VS_SC_EXIT:
		t = find_thread(b, ev->tid);
		if (!t || !t->pending || t->nr != ev->nr)
			break;
		if (t->nr < VS_NR_SYSCALLS && ev->time > t->enter &&
		    ev->time - t->enter > b->st->call_max_ns[t->nr])
			b->st->call_max_ns[t->nr] = ev->time - t->enter;
		finish_call(b, t, ev->time);
		break;
	case VS_SC_SWITCH_OUT:
		t = find_thread(b, ev->tid);
		if (!t)
			b->failed = 1;
		else if (!t->pending && t->called)	/* in a gap */
			t->off_since = ev->time;
		break;
	case VS_SC_SWITCH_IN:
		t = find_thread(b, ev->tid);
		if (t && t->off_since && ev->time > t->off_since)
			t->off_cpu += ev->time - t->off_since;
		if (t)
			t->off_since = 0;
		break;
	case VS_SC_MMAP:
		if (vs_symbols_add_map(b->syms, ev->pid, ev->start, ev->len,
				       ev->pgoff, ev->name) < 0)
			b->failed = 1;
		if (!b->program && !strcmp(ev->name, b->st->program))
			b->program = vs_symbols_dso(b->syms, ev->name);
		break;
	case VS_SC_FORK:
		if (vs_symbols_fork(b->syms, ev->ppid, ev->pid) < 0 ||
		    add_pid(b, ev->pid) < 0)
			b->failed = 1;
		break;
	case VS_SC_LOST:
		b->st->lost += ev->lost;
		break;
	case VS_SC_PROBE:
		probe_hit(b, ev);
		break;
	default:
		break;
	}
	return b->failed ? -1 : 0;
}

unsigned int vs_signature_ring_pages(const struct vs_sc_opts *sc)
{
	unsigned int pages = RING_PAGES;
	unsigned int stack = vs_sc_stack_size(sc);

	while (sc->callchain && pages * 4096ull < (uint64_t)RING_CALLS * stack)
		pages *= 2;
	return pages;
}

int vs_signature_find_program(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX], real[PATH_MAX];
	const char *p, *colon;

	if (strchr(name, '/')) {
		if (!realpath(name, real))
			return -1;
		snprintf(out, size, "%s", real);
		return 0;
	}
	for (p = path ? path : "/usr/bin:/bin"; *p; p = colon + 1) {
		colon = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(colon - p), p, name);
		if (!access(buf, X_OK) && realpath(buf, real)) {
			snprintf(out, size, "%s", real);
			return 0;
		}
		if (!*colon)
			break;
	}
	errno = ENOENT;
	return -1;
}

/*
 * Probes method: a uprobe on the entry and one on the return of every
 * function of the program that --functions lets through.
 */
static int add_probes(struct build *b, struct vs_syscall_trace *t,
		      char *err, size_t errlen)
{
	const struct vs_dso *dso = vs_symbols_dso(b->syms, b->st->program);
	const struct vs_elf_symbol *syms;
	struct rlimit rl;
	size_t n, i;
	int64_t off;

	if (!dso) {
		snprintf(err, errlen, "%s: not an ELF file", b->st->program);
		return -1;
	}
	syms = vs_dso_functions(dso, &n);
	b->probed = calloc(n + 1, sizeof(*b->probed));
	if (!b->probed) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* two events per function and CPU */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (i = 0; i < n; i++) {
		if (!function_wanted(b->opts->functions, syms[i].name))
			continue;
		off = vs_dso_file_offset(dso, syms[i].addr);
		if (off < 0)
			continue;
		b->probed[b->nr_probed] = &syms[i];
		if (vs_syscall_trace_add_probe(t, b->st->program, off, false,
					       b->nr_probed, err, errlen) < 0 ||
		    vs_syscall_trace_add_probe(t, b->st->program, off, true,
					       b->nr_probed, err, errlen) < 0)
			return -1;
		b->nr_probed++;
	}
	b->st->probes = b->nr_probed;
	if (!b->nr_probed) {
		snprintf(err, errlen, "%s: no function to probe%s%s",
			 b->st->program, b->opts->functions ? " matches " : "",
			 b->opts->functions ? b->opts->functions : "");
		return -1;
	}
	return 0;
}

static int wait_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
}

int vs_signature_profile(const char *const *argv,
			 const struct vs_sig_build_opts *opts,
			 struct vs_profile *p, struct vs_sig_build_stats *st,
			 char *err, size_t errlen)
{
	struct vs_sc_opts sc = { .callchain = opts->method == VS_SIG_CALLCHAIN,
				 .stack_size = opts->stack_size,
				 .switches = true, .sideband = true };
	struct build b = { .opts = opts, .p = p, .st = st };
	struct vs_syscall_trace *t = NULL;
	struct vs_workload w;
	int status = 0, ret = -1, k;
	size_t i;

	memset(st, 0, sizeof(*st));
	sc.pages = vs_signature_ring_pages(&sc);
	if (vs_signature_find_program(argv[0], st->program,
				      sizeof(st->program)) < 0) {
		snprintf(err, errlen, "%s: %s", argv[0], strerror(errno));
		return -1;
	}
	b.syms = vs_symbols_new();
	b.unwinder = b.syms ? vs_unwinder_new(b.syms) : NULL;
	if (!b.unwinder || vs_workload_prepare(&w, argv) < 0) {
		snprintf(err, errlen, "cannot start %s: %s", argv[0],
			 strerror(errno));
		goto out;
	}
	t = vs_syscall_trace_open(w.pid, false, &sc, err, errlen);
	if (!t || add_pid(&b, w.pid) < 0) {
		kill(w.pid, SIGKILL);
		waitpid(w.pid, NULL, 0);
		goto out;
	}
	if (opts->method == VS_SIG_PROBES &&
	    add_probes(&b, t, err, errlen) < 0) {
		kill(w.pid, SIGKILL);
		waitpid(w.pid, NULL, 0);
		goto out;
	}
	if (vs_workload_start(&w) < 0) {
		snprintf(err, errlen, "cannot run %s: %s", argv[0],
			 strerror(errno));
		goto out;
	}
	while (waitpid(w.pid, &status, WNOHANG) == 0)
		if (vs_syscall_trace_read(t, 10, false, on_event, &b) < 0)
			break;
	if (!b.failed)
		vs_syscall_trace_read(t, 0, true, on_event, &b);
	for (i = 0; i < b.nth; i++) {
		finish_call(&b, b.th[i], b.th[i]->enter);
		end_executions(&b, b.th[i], 0);
	}
	st->gap_limit = vs_gap_stats_limit(&b.gaps);
	unbounded_waits(&b);
	if (b.failed) {
		snprintf(err, errlen, "out of memory");
		kill(w.pid, SIGKILL);
		waitpid(w.pid, NULL, 0);
		goto out;
	}
	ret = wait_status(status);
out:
	vs_syscall_trace_close(t);
	vs_unwinder_free(b.unwinder);
	vs_symbols_free(b.syms);
	for (i = 0; i < b.nth; i++) {
		for (k = 0; k < MAX_FRAMES; k++) {
			free(b.th[i]->open[k].nr);
			free(b.th[i]->open[k].gap);
		}
		free(b.th[i]);
	}
	free(b.th);
	free(b.probed);
	free(b.pids);
	return ret;
}
