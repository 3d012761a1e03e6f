// SPDX-License-Identifier: MIT
/*
 * taskset-attach - attached intervals are not tasks of their own: their
 * values are added to the task they serve, with an "attached.E" column per
 * event, whether the interval's record comes before or after the task's,
 * read by one reader or several.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analysis/taskset.h"
#include "t/unit/tap.h"

#define NR_TASKS	3000

static char path[] = "/tmp/vs-taskset-attach-XXXXXX";

static void add(struct vs_writer *w, const struct vs_record *rec)
{
	vs_writer_add(w, rec);
}

/*
 * Task i (id i + 1, type 1, thread 1) lasts 1000 ns with run.time 100;
 * every even one is served by an attached interval of thread 2 with
 * run.time 10 * i and blocked 7; every fourth by a second one with
 * run.time 1.  Odd tasks come after their intervals, even ones before.
 */
static void write_trace(void)
{
	struct vs_header hdr = { .clockid = 1, .host = "unit", .kernel = "unit",
				 .cpu_model = "unit", .tool = "unit" };
	struct vs_writer *w;
	int fd = mkstemp(path), i;

	w = vs_writer_fdopen(fd, &hdr);
	add(w, &(struct vs_record){ .kind = VS_REC_EVENT_DEF, .event_def = {
		0, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, "run.time", "ns" } });
	add(w, &(struct vs_record){ .kind = VS_REC_EVENT_DEF, .event_def = {
		1, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, "sched.blocked.time",
		"ns" } });
	for (i = 0; i < NR_TASKS; i++) {
		uint64_t t0 = 10000ull * (i + 1), id = i + 1;
		struct vs_value own[] = { { 0, 100 } };
		struct vs_value att[] = { { 0, 10ull * i }, { 1, 7 } };
		struct vs_value two[] = { { 0, 1 } };
		struct vs_record task = { .kind = VS_REC_TASK, .task = {
			.id = id, .type = 1, .tid = 1, .start = t0,
			.end = t0 + 1000, .nr_values = 1, .values = own } };
		struct vs_record a = { .kind = VS_REC_ATTACH };
		struct vs_record iv = { .kind = VS_REC_TASK, .task = {
			.id = 2ull << 32 | i, .type = 0, .tid = 2,
			.flags = VS_TASK_ATTACHED, .start = t0 + 100,
			.end = t0 + 500, .nr_values = 2, .values = att } };

		if (i % 2 == 0)
			add(w, &task);
		a.attach = (struct vs_attach){ t0 + 100, 2, VS_ATTACH, id };
		add(w, &a);
		add(w, &iv);
		if (i % 4 == 0) {	/* a second interval, of thread 3 */
			a.attach = (struct vs_attach){ t0 + 600, 3, VS_ATTACH,
						       id };
			iv.task.tid = 3;
			iv.task.start = t0 + 600;
			iv.task.nr_values = 1;
			iv.task.values = two;
			add(w, &a);
			add(w, &iv);
		}
		if (i % 2)
			add(w, &task);
		if (i % 200 == 199)
			vs_writer_flush(w);
	}
	vs_writer_close(w);
}

static bool value(const struct vs_taskset *ts, const char *event, size_t task,
		  float want)
{
	const struct vs_task_type *tt = vs_taskset_type(ts, 1);
	int id = vs_taskset_event_by_name(ts, event);
	const struct vs_column *col;
	float v;

	if (!tt || id < 0 || !(col = vs_column_find(tt, id)))
		return false;
	return vs_column_value(col, task, &v) && v == want;
}

static bool all_tasks_right(const struct vs_taskset *ts)
{
	size_t i;

	for (i = 0; i < NR_TASKS; i++) {
		float extra = i % 4 == 0 ? 1 : 0;

		if (!value(ts, "run.time", i, 100 + 10 * i + extra) ||
		    !value(ts, "attached.run.time", i, 10 * i + extra) ||
		    !value(ts, "sched.blocked.time", i, 7) ||
		    !value(ts, "attached.sched.blocked.time", i, 7))
			return false;
	}
	return true;
}

static void check_read(unsigned int parts)
{
	struct vs_taskset_opts o = { .parts = parts };
	struct vs_taskset *ts;
	char err[256];
	int id;

	if (vs_taskset_read(path, &o, &ts, err, sizeof(err)) != VS_LOAD_OK) {
		ok(0, "%u reader(s): load: %s", parts, err);
		return;
	}
	ok(ts->nr_types == 1 && ts->types[0].type == 1 &&
	   ts->types[0].nr_tasks == NR_TASKS,
	   "%u reader(s): one task type, no type 0 of intervals", parts);
	ok(all_tasks_right(ts),
	   "%u reader(s): every task has its intervals' values added", parts);
	id = vs_taskset_event_by_name(ts, "attached.run.time");
	ok(id >= 0 && vs_taskset_event(ts, id)->parent ==
	   vs_taskset_event_by_name(ts, "run.time"),
	   "%u reader(s): attached.run.time is a child of run.time", parts);
	vs_taskset_free(ts);
}

#define NR_SLICES	100

/*
 * The trace cut into 100 slices read in one pass: every slice's tasks
 * have their intervals' values, whichever slice holds the intervals'
 * records (they share one set of attach records and intervals).
 */
static void check_slices(unsigned int parts)
{
	struct vs_taskset_opts o = { .parts = parts };
	struct vs_time_range range[NR_SLICES];
	struct vs_taskset *ts[NR_SLICES];
	const uint64_t len = 10000ull * NR_TASKS / NR_SLICES;
	size_t i, j, first = 0, wrong = 0;
	char err[256];

	for (i = 0; i < NR_SLICES; i++)	/* task i ends at 10000 i + 11000 */
		range[i] = (struct vs_time_range){ .from_ns = len * i,
						   .to_ns = len * (i + 1) };
	range[NR_SLICES - 1].to_ns = 0;
	if (vs_taskset_read_ranges(path, &o, range, NR_SLICES, ts, err,
				   sizeof(err)) != VS_LOAD_OK) {
		ok(0, "%u reader(s), slices: load: %s", parts, err);
		return;
	}
	for (i = 0; i < NR_SLICES; i++) {
		const struct vs_task_type *tt = vs_taskset_type(ts[i], 1);

		for (j = 0; tt && j < tt->nr_tasks; j++) {
			float extra = (first + j) % 4 == 0 ? 1 : 0;

			if (!value(ts[i], "run.time", j,
				   100 + 10 * (first + j) + extra) ||
			    !value(ts[i], "attached.sched.blocked.time", j, 7))
				wrong++;
		}
		first += tt ? tt->nr_tasks : 0;
		if (ts[i]->nr_types != (tt ? 1 : 0))
			wrong++;
		vs_taskset_free(ts[i]);
	}
	ok(first == NR_TASKS && !wrong, "%u reader(s): each of %d slices read "
	   "in one pass has its tasks' intervals (%zu tasks, %zu wrong)",
	   parts, NR_SLICES, first, wrong);
}

/* Built by hand: a served task that lacks the event gets it. */
static void check_by_hand(void)
{
	struct vs_taskset *ts = vs_taskset_new();
	struct vs_value a0[] = { { 0, 5 } }, a1[] = { { 1, 3 } };
	struct vs_task t = { .id = 1, .type = 4, .end = 10, .nr_values = 1,
			     .values = a0 };

	vs_taskset_add_event(ts, &(struct vs_event_def){ 0, VS_EVENT_NO_PARENT,
					0, "a", "ns" });
	vs_taskset_add_event(ts, &(struct vs_event_def){ 1, VS_EVENT_NO_PARENT,
					0, "b", "ns" });
	vs_taskset_add_task(ts, &t);
	t.id = 2;
	vs_taskset_add_task(ts, &t);
	t.id = 3;
	vs_taskset_add_task(ts, &t);
	t = (struct vs_task){ .nr_values = 1, .values = a1 };
	vs_taskset_add_attached(ts, 2, &t);
	vs_taskset_add_attached(ts, 99, &t);	/* serves no task here */
	ok(!vs_taskset_finish(ts), "by hand: finish");
	ok(vs_column_find(&ts->types[0], 1) &&
	   vs_column_find(&ts->types[0], 1)->nr == 1,
	   "by hand: only the served task records b");
	{
		float v;
		bool got = vs_column_value(vs_column_find(&ts->types[0], 1),
					   1, &v);

		ok(got && v == 3, "by hand: task 2 has b = 3 from its interval");
	}
	ok(ts->nr_types == 1, "by hand: an unserved interval is dropped");
	vs_taskset_free(ts);
}

int main(void)
{
	write_trace();
	check_read(1);
	check_read(4);
	check_slices(1);
	check_slices(4);
	check_by_hand();
	unlink(path);
	return done_testing();
}
