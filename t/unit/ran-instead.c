// SPDX-License-Identifier: MIT
/*
 * ran-instead.c - unit test of core/analysis/ran-instead: who ran while a
 * type's slow tasks waited, from a trace written here, with the answers
 * worked out in the comments.
 *
 * 4000 tasks of type 1, then of type 2 alternately.  Task i of type 1
 * waits 20 ns in the run queue, and hogger (pid 50, tid 50) ran 20 ns
 * of it; every 40th task of type 1 (i % 80 == 0: 50 tasks) is slow: it
 * waits 9000 ns, 6000 of them behind hogger, 2000 behind kworker/0:1
 * (pid 7, tid 7) and 1000 behind the others (pid 0, tid 0).  Tasks of
 * type 2 wait 50000 ns behind "other", every one: not type 1's.
 * Chunks are cut every 7 records, so that a task's ran_instead records
 * and the task itself often lie in two chunks, and two readers' parts.
 * A second trace puts each task's records, after a wake-up, in chunks
 * before the task's, where a part seeking to its first task may begin.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analysis/ran-instead.h"
#include "core/analysis/ranking.h"
#include "core/analysis/taskset.h"
#include "t/unit/tap.h"

#define NR_TASKS	4000
#define SLOW_EVERY	80	/* of all tasks: every 40th of type 1 */

enum { RUN, RUNNABLE, NR_EVENTS };

static char path[] = "/tmp/vs-ran-instead-XXXXXX";
static uint64_t nr_written;

static void add(struct vs_writer *w, const struct vs_record *rec)
{
	vs_writer_add(w, rec);
	if (++nr_written % 7 == 0)
		vs_writer_flush(w);
}

static void add_ran(struct vs_writer *w, uint64_t task, uint32_t tid,
		    const char *comm, uint64_t ns)
{
	struct vs_record rec = { .kind = VS_REC_RAN_INSTEAD, .ran_instead = {
		.task_id = task, .pid = tid, .tid = tid, .comm = comm,
		.time_ns = ns } };

	add(w, &rec);
}

/* Returns how many ran_instead records it wrote. */
static size_t write_trace(void)
{
	static const char *const names[NR_EVENTS] = {
		"run.time", VS_RAN_EVENT,
	};
	struct vs_header hdr = { .clockid = 1, .host = "unit", .kernel = "unit",
				 .cpu_model = "unit", .tool = "unit" };
	struct vs_writer *w = vs_writer_fdopen(mkstemp(path), &hdr);
	struct vs_record rec;
	struct vs_value v[NR_EVENTS];
	size_t nr_ran = 0;
	int i, e;

	for (e = 0; e < NR_EVENTS; e++) {
		rec = (struct vs_record){ .kind = VS_REC_EVENT_DEF,
			.event_def = { e, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL,
				       names[e], "ns" } };
		add(w, &rec);
	}
	for (i = 0; i < NR_TASKS; i++) {
		uint64_t id = i + 1, wait;
		uint32_t type = i % 2 ? 2 : 1;

		if (type == 2) {
			wait = 50000;
			add_ran(w, id, 300, "other", wait);
			nr_ran++;
		} else if (i % SLOW_EVERY == 0) {
			wait = 9000;
			add_ran(w, id, 50, "hogger", 6000);
			add_ran(w, id, 7, "kworker/0:1", 2000);
			add_ran(w, id, 0, "", 1000);
			nr_ran += 3;
		} else {
			wait = 20;
			add_ran(w, id, 50, "hogger", 20);
			nr_ran++;
		}
		v[RUN] = (struct vs_value){ RUN, 1000 + i % 13 };
		v[RUNNABLE] = (struct vs_value){ RUNNABLE, wait };
		rec = (struct vs_record){ .kind = VS_REC_TASK, .task = {
			.id = id, .type = type, .tid = 1,
			.start = 100000ull * i,
			.end = 100000ull * i + 1000 + i % 13 + wait,
			.nr_values = NR_EVENTS, .values = v } };
		add(w, &rec);
	}
	vs_writer_close(w);
	return nr_ran;
}

static bool same_entries(const struct vs_ran_list *a,
			 const struct vs_ran_list *b);

/*
 * A second trace: each task's ran_instead records after a wake-up, in a
 * chunk of their own before the task's, so that a reader's part seeking
 * to a task's time may start at them.  Returns the records written.
 */
static size_t write_apart(const char *apart)
{
	struct vs_header hdr = { .clockid = 1, .host = "unit", .kernel = "unit",
				 .cpu_model = "unit", .tool = "unit" };
	struct vs_writer *w = vs_writer_open(apart, &hdr);
	struct vs_value v = { 0, 500 };
	struct vs_record rec = { .kind = VS_REC_EVENT_DEF, .event_def = {
		0, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, VS_RAN_EVENT, "ns" } };
	int i;

	vs_writer_add(w, &rec);
	for (i = 0; i < 2000; i++) {
		vs_writer_flush(w);
		rec = (struct vs_record){ .kind = VS_REC_WAKEUP,
			.wakeup = { 100000ull * i, 2, 1, 0 } };
		vs_writer_add(w, &rec);
		add_ran(w, i + 1, 50, "hogger", 300);
		add_ran(w, i + 1, 7, "kworker/0:1", 200);
		vs_writer_flush(w);
		rec = (struct vs_record){ .kind = VS_REC_TASK, .task = {
			.id = i + 1, .type = 1, .tid = 1,
			.start = 100000ull * i, .end = 100000ull * i + 1000,
			.nr_values = 1, .values = &v } };
		vs_writer_add(w, &rec);
	}
	vs_writer_close(w);
	return 2 * 2000;
}

static void test_apart(void)
{
	char apart[] = "/tmp/vs-ran-apart-XXXXXX";
	struct vs_taskset_opts one = { .parts = 1, .ran_instead = true };
	struct vs_taskset_opts four = { .parts = 4, .ran_instead = true };
	struct vs_taskset *a, *b;
	char err[256];
	size_t nr_ran;

	close(mkstemp(apart));
	nr_ran = write_apart(apart);
	if (!ok(!vs_taskset_read(apart, &one, &a, err, sizeof(err)) &&
		!vs_taskset_read(apart, &four, &b, err, sizeof(err)),
		"records apart: read with one reader and with four"))
		return;
	is_u64(a->ran.nr, nr_ran, "records apart: one reader keeps each once");
	is_u64(b->ran.nr, nr_ran, "four readers too, none twice");
	ok(same_entries(&a->ran, &b->ran), "the same entries");
	is_u64(b->nr_wakeups, 2000, "four readers count each wake-up once");
	vs_taskset_free(a);
	vs_taskset_free(b);
	unlink(apart);
}

static bool same_entries(const struct vs_ran_list *a,
			 const struct vs_ran_list *b)
{
	size_t i;

	if (a->nr != b->nr)
		return false;
	for (i = 0; i < a->nr; i++) {
		const struct vs_ran_entry *x = &a->entries[i],
					  *y = &b->entries[i];

		if (x->type != y->type || x->pid != y->pid ||
		    x->tid != y->tid || x->wait_ns != y->wait_ns ||
		    x->time_ns != y->time_ns || strcmp(x->comm, y->comm))
			return false;
	}
	return true;
}

static void test_blame(const struct vs_taskset *ts)
{
	struct vs_rank_opts opts = VS_RANK_OPTS_INIT;
	const struct vs_task_type *tt = vs_taskset_type(ts, 1);
	struct vs_type_rank tr;
	struct vs_ran_blame b;
	const struct vs_ran_thread *t = NULL;

	if (!ok(tt && !vs_rank_type(ts, tt, &opts, &tr), "type 1 ranks"))
		return;
	is_u64(vs_ran_blame(ts, tt, &tr, &b), 0, "blame");
	ok(b.event == vs_taskset_event_by_name(ts, VS_RAN_EVENT),
	   "the blame is that of %s", VS_RAN_EVENT);
	/* the 50 slow tasks alone are above the threshold */
	is_u64(b.tasks, NR_TASKS / SLOW_EVERY, "the slow tasks");
	is_u64(b.wait_ns, NR_TASKS / SLOW_EVERY * 9000ull,
	       "their run-queue wait in all");
	if (ok(b.nr == 3, "three threads: hogger, kworker, the others (%zu)",
	       b.nr))
		t = b.threads;
	if (t) {
		is_str(t[0].comm, "hogger", "hogger first");
		is_u64(t[0].tid, 50, "... its tid");
		is_u64(t[0].time_ns, 50 * 6000ull,
		       "... 6000 ns in each slow task, not its 20 ns in the "
		       "others");
		is_u64(t[0].tasks, 50, "... in 50 tasks");
		is_str(t[1].comm, "kworker/0:1", "kworker second");
		is_u64(t[1].time_ns, 50 * 2000ull, "... 2000 ns a task");
		ok(t[2].tid == 0 && t[2].time_ns == 50 * 1000ull,
		   "the others last");
	}
	ok(!t || (strcmp(t[0].comm, "other") && strcmp(t[1].comm, "other")),
	   "type 2's co-runner is not type 1's");
	vs_ran_blame_release(&b);
	vs_type_rank_free(&tr);
}

int main(void)
{
	struct vs_taskset_opts one = { .parts = 1, .ran_instead = true };
	struct vs_taskset_opts four = one;
	struct vs_taskset *a, *b;
	size_t nr_ran;
	char err[256];

	nr_ran = write_trace();
	four.parts = 4;
	is_u64(vs_taskset_read(path, &one, &a, err, sizeof(err)), VS_LOAD_OK,
	       "read with one reader");
	is_u64(vs_taskset_read(path, &four, &b, err, sizeof(err)), VS_LOAD_OK,
	       "read with four readers");
	is_u64(a->ran.nr, nr_ran, "one reader keeps every ran_instead record");
	is_u64(b->ran.nr, nr_ran, "four readers keep every one too, those "
	       "whose task is in the next part's chunk included");
	ok(same_entries(&a->ran, &b->ran), "the same entries, in file order");
	test_blame(b);
	test_apart();
	vs_taskset_free(a);
	vs_taskset_free(b);
	unlink(path);
	return done_testing();
}
