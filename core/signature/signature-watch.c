// SPDX-License-Identifier: MIT
/*
 * signature-watch.c - `signature watch`: windows of a running program's
 * system calls inferred against the signatures as they end.
 *
 * Each thread keeps the calls and off-CPU spans of the current window
 * (struct vs_thread_calls, the input of vs_signature_infer()) and, for
 * its call in progress, the registers, kernel frame-pointer walk and
 * stack copy of its enter: the call chain is unwound only if the thread
 * turns out to hang in it (once per call).  At a window's end the
 * threads' arrays go with the window to its inference (a job, inferred
 * at once or by the inferring thread, opts.background), the functions of
 * its possible hangs named first; threads that exited or made no call
 * in the window go.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/perf_regs.h>

#include "core/array.h"
#include "core/signature/signature-watch.h"
#include "core/signature/syscall-trace.h"
#include "core/symbols/symbols.h"
#include "core/symbols/unwind.h"

#define MAX_FRAMES	64
#define MAX_REGS	32

/* A thread's call in progress, as it entered. */
struct pending {
	bool on;
	uint16_t nr;
	uint64_t enter;
	uint32_t cpu;
	uint64_t regs_mask;
	uint32_t nr_regs, nr_ips, stack_size;
	uint64_t regs[MAX_REGS];
	uint64_t ips[MAX_FRAMES];
	uint8_t *stack;			/* opts.stack_size bytes */
};

struct wthread {
	uint32_t pid, tid;
	bool exited;
	struct vs_thread_calls calls;	/* of the window */
	size_t cap_calls, cap_off;
	struct pending pend;
	uint64_t hung_enter, hung_duration;	/* a call of the window
						 * that hung and ended, */
	char function[sizeof(((struct vs_sig_hang *)0)->function)];
					/* ... made in this function */
	uint64_t named_enter;		/* the call @function is of */
	uint64_t last_event;		/* the time of its last record */
	bool looked;			/* silent at the end of the window
					 * before, and blocked in ... */
	unsigned int looked_nr;		/* ... this call, having run ... */
	uint64_t looked_run;		/* ... this long (opts.call_of) */
};

/* A hung call of a thread, named before its window goes to inference. */
struct named_call {
	uint32_t tid;
	uint64_t enter;
	char function[sizeof(((struct vs_sig_hang *)0)->function)];
};

/* A window that ended, to infer: its threads' calls, owned. */
struct window_job {
	struct vs_sig_window win;
	struct vs_thread_calls *in;	/* win.nr_threads of them */
	struct named_call *named;
	size_t nr_named;
	vs_sig_window_fn fn;
	void *arg;
	struct window_job *next;
};

/* Windows inferred at once: more, and the reader waits (back-pressure). */
#define MAX_QUEUED	2

struct vs_sig_watch {
	const struct vs_signatures *sig;
	struct vs_sig_watch_opts opts;
	struct vs_symbols *syms;
	struct vs_unwinder *uw;
	const struct vs_dso *program;
	struct wthread **th;
	size_t nth, cap_th;
	uint64_t start;			/* of the current window */
	uint64_t last_loss;		/* the last LOST record, or start */
	struct vs_sig_watch_counts counts;
	size_t window_calls;
	unsigned long closed;		/* windows ended, inferred or not */
	/* opts.background: the inferring thread and its queue */
	bool background, quit;
	pthread_t worker;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct window_job *head, *tail;
	size_t queued;			/* jobs queued or being inferred */
	int failed;			/* a job's -1 or @fn's return */
};

static void *infer_windows(void *arg);

struct vs_sig_watch *vs_sig_watch_new(const struct vs_signatures *sig,
				      const struct vs_sig_watch_opts *opts,
				      struct vs_symbols *syms,
				      struct vs_unwinder *uw,
				      const struct vs_dso *program,
				      uint64_t start)
{
	struct vs_sig_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->sig = sig;
	w->opts = *opts;
	if (!w->opts.window_ns)
		w->opts.window_ns = VS_SIG_WATCH_WINDOW_NS;
	w->syms = syms;
	w->uw = uw;
	w->program = program;
	w->start = w->last_loss = start;
	if (opts->background) {
		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->cond, NULL);
		w->background = !pthread_create(&w->worker, NULL,
						infer_windows, w);
		if (!w->background) {
			pthread_cond_destroy(&w->cond);
			pthread_mutex_destroy(&w->lock);
		}
	}
	return w;
}

static void free_thread(struct wthread *t)
{
	free(t->calls.calls);
	free(t->calls.off);
	free(t->pend.stack);
	free(t);
}

void vs_sig_watch_free(struct vs_sig_watch *w)
{
	size_t i;

	if (!w)
		return;
	if (w->background) {
		pthread_mutex_lock(&w->lock);
		w->quit = true;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->worker, NULL);
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
	}
	for (i = 0; i < w->nth; i++)
		free_thread(w->th[i]);
	free(w->th);
	free(w);
}

void vs_sig_watch_set_program(struct vs_sig_watch *w,
			      const struct vs_dso *program)
{
	w->program = program;
}

void vs_sig_watch_counts(struct vs_sig_watch *w, struct vs_sig_watch_counts *c)
{
	if (w->background)
		pthread_mutex_lock(&w->lock);
	*c = w->counts;
	if (w->background)
		pthread_mutex_unlock(&w->lock);
}

static struct wthread *find_thread(struct vs_sig_watch *w, uint32_t pid,
				   uint32_t tid)
{
	struct wthread *t;
	size_t i;

	for (i = w->nth; i-- > 0;)
		if (w->th[i]->tid == tid)
			return w->th[i];
	if (ALLOC_GROW(w->th, w->nth + 1, w->cap_th) < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = t->calls.tid = tid;
	t->calls.switches = true;
	t->last_event = w->start;
	w->th[w->nth++] = t;
	return t;
}

int vs_sig_watch_add_thread(struct vs_sig_watch *w, uint32_t pid,
			    uint32_t tid)
{
	return find_thread(w, pid, tid) ? 0 : -1;
}

/* Keep what the call chain of @ev needs, should the call hang. */
static int keep_chain(struct vs_sig_watch *w, struct pending *p,
		      const struct vs_sc_event *ev)
{
	unsigned int size = ev->stack_size < w->opts.stack_size ?
			    ev->stack_size : w->opts.stack_size;

	p->nr_ips = ev->nr_ips < MAX_FRAMES ? ev->nr_ips : MAX_FRAMES;
	memcpy(p->ips, ev->ips, p->nr_ips * sizeof(*p->ips));
	p->nr_regs = ev->nr_regs < MAX_REGS ? ev->nr_regs : 0;
	p->regs_mask = p->nr_regs ? ev->regs_mask : 0;
	memcpy(p->regs, ev->regs, p->nr_regs * sizeof(*p->regs));
	p->stack_size = 0;
	if (!size)
		return 0;
	if (!p->stack) {
		p->stack = malloc(w->opts.stack_size);
		if (!p->stack)
			return -1;
	}
	memcpy(p->stack, ev->stack, size);
	p->stack_size = size;
	return 0;
}

static int enter_call(struct vs_sig_watch *w, struct wthread *t,
		      const struct vs_sc_event *ev)
{
	struct vs_thread_calls *c = &t->calls;

	if (ALLOC_GROW(c->calls, c->nr_calls + 1, t->cap_calls) < 0)
		return -1;
	c->calls[c->nr_calls++] = (struct vs_call){
		.enter = ev->time, .cpu = ev->cpu, .nr = ev->nr };
	w->counts.calls++;
	w->window_calls++;
	t->pend.on = true;
	t->pend.nr = ev->nr;
	t->pend.enter = ev->time;
	t->pend.cpu = ev->cpu;
	return ev->nr_ips ? keep_chain(w, &t->pend, ev) : 0;
}

static void name_function(struct vs_sig_watch *w, struct wthread *t);

static void exit_call(struct vs_sig_watch *w, struct wthread *t,
		      const struct vs_sc_event *ev)
{
	struct vs_thread_calls *c = &t->calls;

	if (!t->pend.on || t->pend.nr != ev->nr)
		return;
	/* a call that hung and ended: its chain goes with it */
	if (ev->time > t->pend.enter && ev->time - t->pend.enter >
	    vs_signature_hang_limit(w->sig, ev->nr) &&
	    ev->time - t->pend.enter > t->hung_duration) {
		name_function(w, t);
		t->hung_enter = t->pend.enter;
		t->hung_duration = ev->time - t->pend.enter;
	}
	t->pend.on = false;
	if (c->nr_calls && c->calls[c->nr_calls - 1].enter == t->pend.enter)
		c->calls[c->nr_calls - 1].exit = ev->time;
}

static int switch_out(struct wthread *t, const struct vs_sc_event *ev)
{
	struct vs_thread_calls *c = &t->calls;

	if (ALLOC_GROW(c->off, c->nr_off + 1, t->cap_off) < 0)
		return -1;
	c->off[c->nr_off++] = (struct vs_offcpu){ .start = ev->time };
	return 0;
}

static void switch_in(struct wthread *t, const struct vs_sc_event *ev)
{
	struct vs_thread_calls *c = &t->calls;

	if (c->nr_off && !c->off[c->nr_off - 1].end)
		c->off[c->nr_off - 1].end = ev->time;
}

/*
 * The innermost function of the program on the call chain of @t's call
 * in progress, into t->function ("" when none is known).
 */
static void name_function(struct vs_sig_watch *w, struct wthread *t)
{
	struct pending *p = &t->pend;
	struct vs_user_stack u = {
		.regs_mask = p->regs_mask, .regs = p->regs,
		.nr_regs = p->nr_regs, .stack = p->stack,
		.size = p->stack_size, .fp_chain = p->ips,
		.fp_len = p->nr_ips };
	struct vs_symbol_hit hit;
	uint64_t chain[MAX_FRAMES];
	bool cut;
	int n, i;

	if (t->named_enter == p->enter)	/* unwound already */
		return;
	t->named_enter = p->enter;
	t->function[0] = '\0';
	if (!w->uw || (!p->nr_ips && !p->nr_regs))
		return;
	n = vs_unwind(w->uw, t->pid, t->tid, &u, chain, MAX_FRAMES, &cut);
	for (i = 0; i < n; i++) {
		uint64_t addr = i ? chain[i] - 1 : chain[i];

		if (vs_symbols_lookup(w->syms, t->pid, addr, &hit) || !hit.sym ||
		    (w->program && hit.dso != w->program))
			continue;
		snprintf(t->function, sizeof(t->function), "%s",
			 hit.sym->name);
		return;
	}
}

/* Whether the kernel says thread @t is in its call in progress (or is gone). */
static bool in_call(struct vs_sig_watch *w, struct wthread *t)
{
	struct vs_sig_proc_call pc = { 0 };
	int ret = w->opts.call_of(t->pid, t->tid, &pc);

	return ret < 0 || (ret == 1 && pc.nr == t->pend.nr);
}

/*
 * Thread @t made no call in the window, and its records say it is in
 * none.  If the kernel shows it blocked in the same call as at the end
 * of the window before, without having run since, it has been in that
 * call since then at least: its enter record was lost, or made before
 * the watch began.  That call is then its call in progress, entered at
 * the latest at its last record or at the last loss of records (the
 * time it is said to have been in it is no more than it was), with the
 * registers and stack the kernel shows.  Returns -1 when out of memory.
 */
static int find_silent_call(struct vs_sig_watch *w, struct wthread *t)
{
	struct vs_sig_proc_call pc = { 0 };
	struct pending *p = &t->pend;
	bool same;

	if (!p->stack && w->opts.stack_size) {
		p->stack = malloc(w->opts.stack_size);
		if (!p->stack)
			return -1;
	}
	pc.stack = p->stack;
	pc.stack_size = p->stack ? w->opts.stack_size : 0;
	if (w->opts.call_of(t->pid, t->tid, &pc) != 1) {
		t->looked = false;
		return 0;
	}
	same = t->looked && t->looked_nr == pc.nr &&
	       t->looked_run == pc.run_ns;
	t->looked = !same;
	t->looked_nr = pc.nr;
	t->looked_run = pc.run_ns;
	if (!same)
		return 0;
	*p = (struct pending){ .on = true, .nr = pc.nr,
		.enter = t->last_event > w->last_loss ? t->last_event :
							w->last_loss,
		.stack = p->stack, .stack_size = pc.stack_size };
	if (pc.sp && pc.pc) {	/* in perf's order of the bits */
		p->regs_mask = 1ull << PERF_REG_X86_SP |
			       1ull << PERF_REG_X86_IP;
		p->regs[0] = pc.sp;
		p->regs[1] = pc.pc;
		p->nr_regs = 2;
	}
	return 0;
}

static void free_job(struct window_job *j)
{
	size_t i;

	for (i = 0; i < j->win.nr_threads; i++) {
		free(j->in[i].calls);
		free(j->in[i].off);
	}
	free(j->in);
	free(j->named);
	free(j);
}

/* Infer window @j, name its hangs, hand it over if abnormal. */
static int infer_job(struct vs_sig_watch *w, struct window_job *j)
{
	struct vs_sig_window *win = &j->win;
	size_t i, k;
	int ret;

	if (vs_signature_infer(w->sig, j->in, win->nr_threads, &w->opts.infer,
			       &win->res) < 0)
		return -1;
	for (i = 0; i < win->res.nr_hangs; i++) {
		struct vs_sig_hang *h = &win->res.hangs[i];

		for (k = 0; k < j->nr_named; k++)
			if (j->named[k].tid == h->tid &&
			    j->named[k].enter == h->enter)
				memcpy(h->function, j->named[k].function,
				       sizeof(h->function));
	}
	win->abnormal = vs_infer_abnormal(&win->res, w->opts.min_score);
	if (w->background)
		pthread_mutex_lock(&w->lock);
	w->counts.windows++;
	w->counts.abnormal += win->abnormal;
	if (w->background)
		pthread_mutex_unlock(&w->lock);
	ret = win->abnormal && j->fn ? j->fn(win, j->arg) : 0;
	vs_infer_result_free(&win->res);
	return ret;
}

/*
 * opts.background: infer the queued windows in turn, away from the
 * thread that reads the rings (a window takes from milliseconds to a
 * second or more to mine, and the rings fill meanwhile).
 */
static void *infer_windows(void *arg)
{
	struct vs_sig_watch *w = arg;
	struct window_job *j;
	int ret;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->head && !w->quit)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->head)
			break;
		j = w->head;
		w->head = j->next;
		if (!w->head)
			w->tail = NULL;
		ret = w->failed;
		pthread_mutex_unlock(&w->lock);
		if (!ret)	/* after a failure: dropped */
			ret = infer_job(w, j);
		free_job(j);
		pthread_mutex_lock(&w->lock);
		if (ret && !w->failed)
			w->failed = ret;
		w->queued--;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Infer @j: now, or queued to the inferring thread.  Takes @j. */
static int hand_job(struct vs_sig_watch *w, struct window_job *j)
{
	int ret;

	if (!w->background) {
		ret = infer_job(w, j);
		free_job(j);
		return ret;
	}
	pthread_mutex_lock(&w->lock);
	while (w->queued >= MAX_QUEUED && !w->failed)
		pthread_cond_wait(&w->cond, &w->lock);
	if (w->tail)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	w->queued++;
	pthread_cond_broadcast(&w->cond);
	ret = w->failed;
	pthread_mutex_unlock(&w->lock);
	return ret;
}

/* Wait for every window queued to be inferred. */
static int wait_jobs(struct vs_sig_watch *w)
{
	int ret;

	if (!w->background)
		return 0;
	pthread_mutex_lock(&w->lock);
	while (w->queued)
		pthread_cond_wait(&w->cond, &w->lock);
	ret = w->failed;
	pthread_mutex_unlock(&w->lock);
	return ret;
}

/* Note the function of @t's hung call that entered at @enter. */
static int add_named(struct window_job *j, size_t *cap,
		     const struct wthread *t, uint64_t enter)
{
	if (ALLOC_GROW(j->named, j->nr_named + 1, *cap) < 0)
		return -1;
	j->named[j->nr_named].tid = t->tid;
	j->named[j->nr_named].enter = enter;
	memcpy(j->named[j->nr_named].function, t->function,
	       sizeof(t->function));
	j->nr_named++;
	return 0;
}

/*
 * End the window [w->start, @end): its calls go to inference (and the
 * window to @fn if abnormal) with the functions of its hung calls named
 * here, where the unwinder is; start the next window.
 */
static int close_window(struct vs_sig_watch *w, uint64_t end,
			vs_sig_window_fn fn, void *arg)
{
	struct window_job *j = calloc(1, sizeof(*j));
	size_t i, k, n = 0, cap_named = 0;
	int ret = -1;

	if (!j || !(j->in = calloc(w->nth + 1, sizeof(*j->in)))) {
		free(j);
		return -1;
	}
	j->win = (struct vs_sig_window){ .number = w->closed++,
					 .start = w->start, .end = end };
	j->fn = fn;
	j->arg = arg;
	for (i = 0; i < w->nth; i++) {
		struct wthread *t = w->th[i];
		struct vs_thread_calls *c = &t->calls;

		if (!t->pend.on && !c->nr_calls && w->opts.call_of) {
			if (find_silent_call(w, t) < 0)
				goto out;
		} else {
			t->looked = false;
		}
		/*
		 * a call that looks hung and is not (the thread is in
		 * another call or none): its exit was lost.  A thread gone
		 * keeps it: its exit may be on its way.
		 */
		if (t->pend.on && w->opts.call_of && end > t->pend.enter &&
		    end - t->pend.enter > vs_signature_hang_limit(w->sig,
								 t->pend.nr) &&
		    !in_call(w, t)) {
			t->pend.on = false;
			if (c->nr_calls &&
			    c->calls[c->nr_calls - 1].enter == t->pend.enter)
				c->calls[c->nr_calls - 1].exit =
					c->calls[c->nr_calls - 1].enter;
		}
		/* a call in progress is in the window, open to its end */
		if (t->pend.on && (!c->nr_calls ||
		    c->calls[c->nr_calls - 1].enter != t->pend.enter)) {
			if (ALLOC_GROW(c->calls, c->nr_calls + 1, t->cap_calls) < 0)
				goto out;
			c->calls[c->nr_calls++] = (struct vs_call){
				.enter = t->pend.enter, .cpu = t->pend.cpu,
				.nr = t->pend.nr };
		}
		vs_thread_calls_close(c, end);
		for (k = 0; k < c->nr_off; k++)
			if (!c->off[k].end)
				c->off[k].end = end;
		/* the functions of its calls that may be hangs */
		if (t->hung_enter && t->named_enter == t->hung_enter &&
		    add_named(j, &cap_named, t, t->hung_enter) < 0)
			goto out;
		if (t->pend.on && end > t->pend.enter &&
		    end - t->pend.enter > vs_signature_hang_limit(w->sig,
								 t->pend.nr)) {
			name_function(w, t);
			if (add_named(j, &cap_named, t, t->pend.enter) < 0)
				goto out;
		}
		if (!c->nr_calls)
			continue;
		/* the window's arrays go with it; the thread starts anew */
		j->in[n++] = *c;
		j->win.nr_threads = n;
		c->calls = NULL;
		c->off = NULL;
		t->cap_calls = t->cap_off = 0;
	}
	if (w->window_calls > w->counts.peak_calls)
		w->counts.peak_calls = w->window_calls;
	ret = hand_job(w, j);
	j = NULL;
out:
	if (j)
		free_job(j);
	/* the next window: exited threads gone */
	for (i = 0, n = 0; i < w->nth; i++) {
		struct wthread *t = w->th[i];
		bool idle = !t->calls.nr_calls && !t->pend.on && !t->looked;

		t->calls.nr_calls = 0;
		t->calls.nr_off = 0;
		t->hung_enter = t->hung_duration = 0;
		/* gone, or idle for a window (its exit may have been lost):
		 * it comes back with its next event */
		if ((t->exited && !t->pend.on) || idle)
			free_thread(t);
		else
			w->th[n++] = t;
	}
	w->nth = n;
	w->window_calls = 0;
	w->start = end;
	return ret;
}

int vs_sig_watch_close(struct vs_sig_watch *w, uint64_t now, bool all,
		       vs_sig_window_fn fn, void *arg)
{
	int ret;

	while (now >= w->start + w->opts.window_ns) {
		ret = close_window(w, w->start + w->opts.window_ns, fn, arg);
		if (ret)
			return ret;
	}
	ret = all && now > w->start ? close_window(w, now, fn, arg) : 0;
	if (all && !ret)
		ret = wait_jobs(w);
	return ret;
}

int vs_sig_watch_lost(struct vs_sig_watch *w, uint64_t from, uint64_t to)
{
	size_t i;

	if (to > w->last_loss)
		w->last_loss = to;
	if (from < w->start)	/* the windows before are inferred */
		from = w->start;
	for (i = 0; i < w->nth; i++)
		if (vs_thread_calls_hole(&w->th[i]->calls, &w->th[i]->cap_off,
					 from, to) < 0)
			return -1;
	return 0;
}

int vs_sig_watch_event(struct vs_sig_watch *w, const struct vs_sc_event *ev,
		       vs_sig_window_fn fn, void *arg)
{
	struct wthread *t;
	int ret;

	switch (ev->type) {
	case VS_SC_ENTER:
	case VS_SC_EXIT:
	case VS_SC_SWITCH_OUT:
	case VS_SC_SWITCH_IN:
	case VS_SC_TASK_EXIT:
		break;
	default:
		return 0;
	}
	ret = vs_sig_watch_close(w, ev->time, false, fn, arg);
	if (ret)
		return ret;
	t = find_thread(w, ev->pid, ev->tid);
	if (!t)
		return -1;
	t->last_event = ev->time;
	switch (ev->type) {
	case VS_SC_ENTER:
		return enter_call(w, t, ev);
	case VS_SC_EXIT:
		exit_call(w, t, ev);
		return 0;
	case VS_SC_SWITCH_OUT:
		return switch_out(t, ev);
	case VS_SC_SWITCH_IN:
		switch_in(t, ev);
		return 0;
	default:
		t->exited = true;
		t->pend.on = false;
		return 0;
	}
}
