// SPDX-License-Identifier: MIT
/*
 * signature-watch.c - unit test of signature watch's windows
 * (core/signature/signature-watch.c) on hand-made system-call events: a
 * window is inferred once time passes its end, only abnormal ones are handed
 * over, a runaway loop makes its window abnormal and names its function, a
 * call that stays open past its limit is a hang (unless the thread is no
 * longer in it: its exit was lost), so is a silent thread the kernel
 * shows blocked in one call without running between two looks (its
 * enter was lost, or made before the watch), and the windows' memory is
 * reused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/signature/signature-watch.h"
#include "core/signature/syscall-trace.h"

#include "t/unit/tap.h"

enum { READ = 0, WRITE = 1, GTOD = 96, FUTEX = 202 };

#define MS	1000000ull
#define WINDOW	(100 * MS)

struct seen {
	int windows;
	unsigned long number[16];
	char first[16][32];		/* the top function of each */
	int hangs[16];
	char hang_function[16][32];
};

static int on_window(const struct vs_sig_window *win, void *arg)
{
	struct seen *s = arg;

	if (s->windows == 16)
		return 0;
	s->number[s->windows] = win->number;
	snprintf(s->first[s->windows], sizeof(s->first[0]), "%s",
		 win->res.nr ? win->res.funcs[0].func->name : "");
	s->hangs[s->windows] = win->res.nr_hangs;
	snprintf(s->hang_function[s->windows], sizeof(s->hang_function[0]),
		 "%.31s", win->res.nr_hangs ? win->res.hangs[0].function : "");
	s->windows++;
	return 0;
}

static uint64_t now = 1000 * MS;

/* One call of thread @tid, 2 us long, after @gap ns. */
static void call(struct vs_sig_watch *w, uint32_t tid, uint16_t nr,
		 uint64_t gap, struct seen *s)
{
	struct vs_sc_event ev = { .type = VS_SC_ENTER, .pid = 1, .tid = tid,
				  .nr = nr };

	now += gap;
	ev.time = now;
	vs_sig_watch_event(w, &ev, on_window, s);
	now += 2000;
	ev.type = VS_SC_EXIT;
	ev.time = now;
	vs_sig_watch_event(w, &ev, on_window, s);
}

/*
 * A request of thread @tid after 500 us: fetch's calls, then flush's
 * (eight calls: the gap between two requests is then above the mean + 2
 * sigma of the gaps, and cuts).
 */
static void request(struct vs_sig_watch *w, uint32_t tid, struct seen *s)
{
	static const uint16_t calls[] = { GTOD, READ, GTOD, READ, WRITE,
					  FUTEX, WRITE, FUTEX };
	size_t i;

	for (i = 0; i < 8; i++)
		call(w, tid, calls[i], i ? 1000 : 500000, s);
}

/*
 * The kernel's view: threads 12 and 13 blocked in a read (CPU time @run),
 * the others in no call.
 */
static uint64_t run;

static int call_read(uint32_t pid, uint32_t tid, struct vs_sig_proc_call *c)
{
	(void)pid;
	if (tid != 12 && tid != 13)
		return 0;
	c->nr = READ;
	c->run_ns = run;
	c->sp = c->pc = 0;
	c->stack_size = 0;
	return 1;
}

static int call_none(uint32_t pid, uint32_t tid, struct vs_sig_proc_call *c)
{
	(void)pid, (void)tid, (void)c;
	return 0;
}

static int call_gone(uint32_t pid, uint32_t tid, struct vs_sig_proc_call *c)
{
	(void)pid, (void)tid, (void)c;
	return -1;
}

static struct vs_signatures *signatures(void)
{
	static const uint16_t fetch[] = { GTOD, READ, GTOD, READ };
	static const uint16_t flush[] = { WRITE, FUTEX, WRITE, FUTEX };
	static const uint32_t gap[4];
	struct vs_profile *p = vs_profile_new();
	struct vs_signatures *sig;
	int i;

	for (i = 0; i < 50; i++) {
		vs_profile_add_execution(p, "fetch", fetch, gap, 4, i, i + 1);
		vs_profile_add_execution(p, "flush", flush, gap, 4, i, i + 1);
	}
	sig = vs_profile_mine(p, 0.01, UINT64_MAX);
	vs_profile_free(p);
	sig->call_max_ns = calloc(512, sizeof(*sig->call_max_ns));
	sig->call_max_ns[READ] = 10000;		/* 10 us: limit 1 s */
	return sig;
}

int main(void)
{
	struct vs_sig_watch_opts opts = {
		.window_ns = WINDOW, .min_score = VS_SIG_WATCH_MIN_SCORE,
		.infer = { .support = 0.01, .cluster_diameter = 0.5 },
		.stack_size = 64, .call_of = call_read };
	struct vs_signatures *sig = signatures();
	struct vs_sig_watch_counts c;
	struct vs_sig_watch *w;
	struct seen s = { 0 };
	struct vs_sc_event ev = { .pid = 1 };
	size_t peak;
	int i, k;

	w = vs_sig_watch_new(sig, &opts, NULL, NULL, NULL, now);
	ok(w != NULL, "a watch");

	/* three windows of normal requests in two threads */
	while (now < 1000 * MS + 3 * WINDOW - MS) {
		request(w, 10, &s);
		request(w, 11, &s);
	}
	vs_sig_watch_close(w, 1000 * MS + 3 * WINDOW, false, on_window, &s);
	vs_sig_watch_counts(w, &c);
	ok(c.windows == 3 && s.windows == 0,
	   "three normal windows inferred, none handed over");
	printf("# %lu windows, %d abnormal, %llu calls, peak %zu\n",
	       c.windows, s.windows, (unsigned long long)c.calls,
	       c.peak_calls);
	peak = c.peak_calls;

	/* thread 11 falls into a loop of fetch's calls in window 3 */
	for (k = 0; k < 20; k++)
		request(w, 10, &s);
	for (i = 0; i < 3000; i++) {
		call(w, 11, GTOD, 1000, &s);
		call(w, 11, READ, 1000, &s);
	}
	vs_sig_watch_close(w, 1000 * MS + 4 * WINDOW, false, on_window, &s);
	ok(s.windows == 1 && s.number[0] == 3 && !strcmp(s.first[0], "fetch"),
	   "the window the loop is in is handed over, fetch first");

	/* more normal windows: the arrays are reused, not grown */
	while (now < 1000 * MS + 7 * WINDOW - MS) {
		request(w, 10, &s);
		request(w, 11, &s);
	}
	vs_sig_watch_close(w, 1000 * MS + 7 * WINDOW, false, on_window, &s);
	vs_sig_watch_counts(w, &c);
	ok(c.windows == 7 && s.windows == 1, "normal again: not handed over");
	ok(c.peak_calls <= peak + 6000 + 60 && c.calls > 2 * c.peak_calls,
	   "the peak of one window is the loop's, not the sum");

	/* thread 12 enters a read and stays in it for 1.5 s */
	ev.type = VS_SC_ENTER;
	ev.tid = 12;
	ev.nr = READ;
	ev.time = now += MS;
	vs_sig_watch_event(w, &ev, on_window, &s);
	for (i = 0; i < 16; i++) {
		request(w, 10, &s);
		vs_sig_watch_close(w, now += WINDOW, false, on_window, &s);
	}
	k = s.windows;
	ok(k > 1 && s.hangs[k - 1] == 1 && !s.hang_function[k - 1][0],
	   "a read open for over 1 s is a hang (no chain: no function)");
	printf("# %d windows handed over, %d hangs in the last\n", k,
	       s.hangs[k - 1]);
	vs_sig_watch_free(w);

	/* the same, but /proc says the thread is no longer in the call */
	opts.call_of = call_none;
	w = vs_sig_watch_new(sig, &opts, NULL, NULL, NULL, now);
	memset(&s, 0, sizeof(s));
	ev.time = now += MS;
	vs_sig_watch_event(w, &ev, on_window, &s);
	for (i = 0; i < 16; i++) {
		request(w, 10, &s);
		vs_sig_watch_close(w, now += WINDOW, false, on_window, &s);
	}
	ok(s.windows == 0, "a call whose exit was lost is no hang");
	vs_sig_watch_free(w);

	/* /proc cannot say (the program ended): it stays a hang */
	opts.call_of = call_gone;
	w = vs_sig_watch_new(sig, &opts, NULL, NULL, NULL, now);
	memset(&s, 0, sizeof(s));
	ev.time = now += MS;
	vs_sig_watch_event(w, &ev, on_window, &s);
	for (i = 0; i < 16; i++) {
		request(w, 10, &s);
		vs_sig_watch_close(w, now += WINDOW, false, on_window, &s);
	}
	ok(s.windows > 0 && s.hangs[s.windows - 1] == 1,
	   "a call of a thread gone stays a hang");
	vs_sig_watch_free(w);

	/*
	 * thread 13, in a read since before the watch (no record of it):
	 * the kernel shows it in the read, never running
	 */
	opts.call_of = call_read;
	w = vs_sig_watch_new(sig, &opts, NULL, NULL, NULL, now);
	memset(&s, 0, sizeof(s));
	vs_sig_watch_add_thread(w, 1, 13);
	for (i = 0; i < 16; i++) {
		request(w, 10, &s);
		vs_sig_watch_close(w, now += WINDOW, false, on_window, &s);
	}
	k = s.windows;
	ok(k > 1 && s.hangs[k - 1] == 1 && s.number[0] >= 10,
	   "a silent thread in a read since the start hangs from 1 s on");
	printf("# first handed over: window %lu\n", s.number[0]);
	vs_sig_watch_free(w);

	/* the same, but it runs between two looks: no hang */
	w = vs_sig_watch_new(sig, &opts, NULL, NULL, NULL, now);
	memset(&s, 0, sizeof(s));
	vs_sig_watch_add_thread(w, 1, 13);
	for (i = 0; i < 16; i++) {
		request(w, 10, &s);
		run += 1000;
		vs_sig_watch_close(w, now += WINDOW, false, on_window, &s);
	}
	ok(s.windows == 0, "a thread that ran between two looks is no hang");
	vs_sig_watch_free(w);
	vs_signatures_free(sig);
	return done_testing();
}
