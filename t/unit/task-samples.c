// SPDX-License-Identifier: MIT
/*
 * task-samples.c - samples tied to tasks (core/analysis/task-samples.c) on
 * hand-made streams: attribution by thread and time across migrations,
 * both estimators, PEBS weights from the task's CPU time, the function
 * events of the report.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "core/analysis/task-samples.h"
#include "core/analysis/taskset.h"
#include "t/unit/tap.h"

/* A function of this program, for the samples of test_map_after(). */
__attribute__((noinline)) int sampled_here(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

static struct vs_task task(uint64_t id, uint32_t type, uint32_t tid,
			   uint64_t start, uint64_t end)
{
	return (struct vs_task){ .id = id, .type = type, .pid = 1, .tid = tid,
				 .start = start, .end = end };
}

static void sample(struct vs_task_samples *ts, uint32_t tid, uint32_t cpu,
		   uint64_t time, uint64_t period, uint32_t flags,
		   uint32_t leaf, uint32_t caller)
{
	struct vs_sample s = { .time = time, .pid = 1, .tid = tid, .cpu = cpu,
			       .flags = flags, .period = period };
	uint32_t frames[2] = { leaf, caller };

	vs_task_samples_add_sample(ts, &s, frames, 2);
}

/*
 * A worker (thread 21) attached to request 5 of thread 20: its samples
 * count for request 5 too, with the interval's weights, in time order
 * with the request's own; its interval keeps them.
 */
static void test_attached(uint32_t f, uint32_t g)
{
	struct vs_task_samples *ts = vs_task_samples_new();
	struct vs_record at = { .kind = VS_REC_ATTACH };
	const struct vs_ts_task *t;
	struct vs_task rec;
	uint32_t i, own = 0, copies = 0;

	vs_task_samples_symbol(ts, "f", "/bin/app");
	vs_task_samples_symbol(ts, "g", "/bin/app");
	rec = task(5, 1, 20, 1000, 5000);
	vs_task_samples_add_task(ts, &rec, 0);
	at.attach = (struct vs_attach){ 2000, 21, VS_ATTACH, 5 };
	vs_task_samples_add_attach(ts, &at);
	rec = task(21ull << 32, 0, 21, 2000, 4000);
	rec.flags = VS_TASK_ATTACHED;
	vs_task_samples_add_task(ts, &rec, 900);	/* 3 samples: 300 */
	sample(ts, 20, 0, 1500, 100, 0, f, f);
	sample(ts, 21, 1, 2100, 100, 0, g, g);
	sample(ts, 21, 1, 2500, 100, 0, g, g);
	sample(ts, 21, 1, 3000, 100, 0, g, g);
	sample(ts, 20, 0, 4500, 100, 0, f, f);
	ok(!vs_task_samples_finish(ts), "attached: finish");
	t = vs_task_samples_find(ts, 5);
	for (i = 0; t && i < t->nr; i++) {
		if (ts->samples[t->first + i].flags & VS_TS_SAMPLE_ATTACHED)
			copies++;
		else
			own++;
	}
	ok(t && own == 2 && copies == 3, "the request holds its 2 samples "
	   "and the worker's 3, flagged attached");
	ok(t && ts->samples[t->first].time == 1500 &&
	   ts->samples[t->first + 1].time == 2100 &&
	   ts->samples[t->first + 4].time == 4500, "in time order");
	is_u64(t ? vs_func_time(ts, t, g, VS_FUNC_COUNT) : 0, 900,
	       "the worker's function time counts for the request, by the "
	       "interval's CPU time");
	is_u64(t ? vs_func_time(ts, t, f, VS_FUNC_COUNT) : 0, 200,
	       "the request's own function time stays");
	t = vs_task_samples_find(ts, 21ull << 32);
	ok(t && t->nr == 3 && t->serves == 5 &&
	   !(ts->samples[t->first].flags & VS_TS_SAMPLE_ATTACHED),
	   "the interval keeps its own samples and knows what it serves");
	vs_task_samples_free(ts);
}

/* The executable mapping of this program that holds @addr. */
static bool own_mapping(uint64_t addr, struct vs_mmap *m, char *path,
			size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4200], perms[8], file[4097];
	unsigned long long start, end, pgoff;
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4096s", &start,
			   &end, perms, &pgoff, file) == 5 &&
		    perms[2] == 'x' && start <= addr && addr < end) {
			snprintf(path, len, "%s", file);
			*m = (struct vs_mmap){ .pid = getpid(), .tid = getpid(),
					       .start = start,
					       .len = end - start,
					       .pgoff = pgoff, .prot = 5,
					       .flags = 2, .filename = path };
			found = true;
		}
	if (f)
		fclose(f);
	return found;
}

/* A trace of @recs and a task of this thread over [0, 2000], read. */
static struct vs_task_samples *read_trace(const struct vs_record *recs,
					  size_t nr, const char *what)
{
	char file[] = "/tmp/vs-task-samples-XXXXXX", err[256];
	struct vs_header hdr = { .tool = "task-samples" };
	struct vs_record task = { .kind = VS_REC_TASK };
	struct vs_task_samples *ts = NULL;
	int fd = mkstemp(file), err_;
	struct vs_writer *w = fd >= 0 ? vs_writer_fdopen(fd, &hdr) : NULL;
	size_t i;

	err_ = !w;
	for (i = 0; w && i < nr; i++)
		err_ |= vs_writer_add(w, &recs[i]);
	task.task = (struct vs_task){ .id = 1, .type = 1, .pid = getpid(),
				      .tid = getpid(), .start = 0,
				      .end = 2000 };
	err_ |= !w || vs_writer_add(w, &task) || vs_writer_close(w);
	ok(!err_ && vs_task_samples_read(file, &ts, err, sizeof(err)) ==
		    VS_LOAD_OK, "%s", what);
	unlink(file);
	return ts;
}

/* A sample of this thread at @time, in sampled_here(). */
static struct vs_record sample_here(uint64_t time)
{
	return (struct vs_record){ .kind = VS_REC_SAMPLE, .sample = {
		.time = time, .pid = getpid(), .tid = getpid(),
		.ip = (uint64_t)(uintptr_t)sampled_here + 1, .period = 100 } };
}

/*
 * The recorder reads its rings in turn, so a sample can come in the file
 * before the mapping it fell in (a thread's first samples before its
 * process's MMAP records): it is named once the mapping is there, and
 * the samples of the same address after it are named too.
 */
static void test_map_after(void)
{
	uint64_t ip = (uint64_t)(uintptr_t)sampled_here + 1;
	struct vs_record recs[4] = { sample_here(1000),
				     { .kind = VS_REC_MMAP },
				     sample_here(1001), sample_here(1002) };
	struct vs_task_samples *ts;
	const struct vs_ts_task *t;
	char path[4097];
	const char *name;
	int i;

	ok(own_mapping(ip, &recs[1].mmap, path, sizeof(path)),
	   "this program's mapping of sampled_here()");
	recs[1].mmap.time = 500;
	ts = read_trace(recs, 4, "a trace whose first sample precedes its map");
	t = ts ? vs_task_samples_find(ts, 1) : NULL;
	ok(t && t->nr == 3, "the task has its 3 samples");
	for (i = 0; t && i < 3; i++) {
		name = ts->symbols[ts->frames[ts->samples[t->first + i].chain]]
			       .name;
		ok(!strcmp(name, i ? "sampled_here" : "[unknown]"),
		   "sample %d, %s the map: %s", i, i ? "after" : "before",
		   name);
	}
	vs_task_samples_free(ts);
}

/*
 * A user chain of code without frame pointers: the kernel's walk reads
 * data as frames (21, 21, ... to the depth limit).  The chain ends at
 * the first address no code can have.
 */
static void test_chain_walked_off(void)
{
	uint64_t ip = (uint64_t)(uintptr_t)sampled_here + 1;
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, ip, ip + 1, 21, 21,
			     0, 21 };
	struct vs_record recs[2] = { { .kind = VS_REC_MMAP },
				     sample_here(1000) };
	struct vs_task_samples *ts;
	const struct vs_ts_task *t;
	char path[4097];

	ok(own_mapping(ip, &recs[0].mmap, path, sizeof(path)),
	   "this program's mapping of sampled_here()");
	recs[1].sample.nr_callchain = 7;
	recs[1].sample.callchain = chain;
	ts = read_trace(recs, 2, "a trace with a chain walked off into data");
	t = ts ? vs_task_samples_find(ts, 1) : NULL;
	ok(t && t->nr == 1 && ts->samples[t->first].nr_frames == 2,
	   "its chain ends before the first address below 4096 (%u frames)",
	   t && t->nr ? ts->samples[t->first].nr_frames : 0);
	vs_task_samples_free(ts);
}

int main(void)
{
	struct vs_task_samples *ts = vs_task_samples_new();
	const struct vs_event_def *defs;
	const struct vs_ts_task *t;
	struct vs_value vals[8];
	struct vs_task rec;
	unsigned int nr;
	uint32_t f, g, main_;
	size_t first, n;
	struct vs_func_events *fe;

	f = vs_task_samples_symbol(ts, "f", "/bin/app");
	g = vs_task_samples_symbol(ts, "g", "/bin/app");
	main_ = vs_task_samples_symbol(ts, "main", "/bin/app");
	ok(f == 1 && g == 2 && main_ == 3, "symbols are numbered from 1");
	is_u64(vs_task_samples_symbol(ts, "f", "/bin/app"), f,
	       "the same function of the same file has one id");
	ok(vs_task_samples_symbol(ts, "f", "/lib/other.so") > 3,
	   "the same name in another file is another symbol");

	/* thread 10: tasks 1 [1000, 2000] and 2 [3000, 4000]; thread 11: 3 */
	rec = task(1, 7, 10, 1000, 2000);
	vs_task_samples_add_task(ts, &rec, 0);
	rec = task(2, 7, 10, 3000, 4000);
	vs_task_samples_add_task(ts, &rec, 0);
	rec = task(3, 8, 11, 1500, 2500);
	vs_task_samples_add_task(ts, &rec, 800);
	/* task 1: f at 1100 (cpu 0), 1200 (cpu 1: migrated), g at 1300 */
	sample(ts, 10, 0, 1100, 100, 0, f, main_);
	sample(ts, 10, 1, 1200, 100, 0, f, main_);
	sample(ts, 10, 1, 1300, 100, 0, g, f);
	sample(ts, 10, 1, 1600, 100, 0, f, main_);
	/* between the tasks of thread 10, and after its last */
	sample(ts, 10, 0, 2500, 100, 0, f, main_);
	sample(ts, 10, 0, 4001, 100, 0, f, main_);
	/* thread 11 in task 3: PEBS samples, weights from its CPU time */
	sample(ts, 11, 0, 1600, 8000, VS_SAMPLE_PRECISE, g, main_);
	sample(ts, 11, 0, 1700, 8000, VS_SAMPLE_PRECISE, g, main_);
	ok(!vs_task_samples_finish(ts), "finish");

	is_u64(ts->unattributed, 2, "samples outside every task of their "
	       "thread count for none");
	t = vs_task_samples_find(ts, 1);
	ok(t && t->nr == 4, "task 1 has its 4 samples, across CPUs");
	is_u64(vs_func_time(ts, t, f, VS_FUNC_COUNT), 300,
	       "count: 3 samples of f x period 100");
	is_u64(vs_func_time(ts, t, f, VS_FUNC_SPAN), 500,
	       "span: first (1100) to last (1600) sample of f");
	is_u64(vs_func_time(ts, t, g, VS_FUNC_SPAN), 0,
	       "span of a function sampled once is 0");
	is_u64(vs_func_time(ts, t, main_, VS_FUNC_COUNT), 0,
	       "a caller has no time of its own");
	ok(ts->samples[t->first].time == 1100 &&
	   ts->samples[t->first + 3].time == 1600, "samples in time order");
	ok(ts->frames[ts->samples[t->first + 2].chain + 1] == f,
	   "the callchain keeps the caller");
	t = vs_task_samples_find(ts, 2);
	ok(t && t->nr == 0, "task 2 has none");
	t = vs_task_samples_find(ts, 3);
	ok(t && t->nr == 2, "task 3 has thread 11's samples, not thread 10's");
	is_u64(vs_func_time(ts, t, g, VS_FUNC_COUNT), 800,
	       "PEBS: the samples share the task's CPU time");
	ok(!vs_task_samples_find(ts, 99), "an unknown id finds nothing");
	n = vs_task_samples_type(ts, 7, &first);
	ok(n == 2 && ts->tasks[first].id == 1 && ts->tasks[first + 1].id == 2,
	   "the tasks of a type, by start");

	fe = vs_func_events_new(ts, VS_FUNC_COUNT, 40);
	defs = vs_func_events_defs(fe, &nr);
	ok(nr == 3 && !strcmp(defs[0].name, "func:f.time") &&
	   defs[0].id == 40 && defs[0].group == VS_GROUP_FUNC &&
	   !strcmp(defs[1].name, "func:g.time"),
	   "function events numbered from the first free id");
	/*
	 * inclusive: main is on 3 of type 7's 4 samples, under f; f on all
	 * of them (the task's CPU time again) and g, a leaf (its own time
	 * again), have no .total
	 */
	ok(nr == 3 && !strcmp(defs[2].name, "func:main.total") &&
	   defs[2].id == 42,
	   "inclusive times of callers on some of the stacks only");
	rec = task(2, 7, 10, 3000, 4000);
	nr = vs_func_events_values(fe, &rec, vals, 8);
	ok(nr == 3 && vals[0].value == 0 && vals[1].value == 0 &&
	   vals[2].value == 0,
	   "a task of the type without samples gets zeros");
	rec = task(1, 7, 10, 1000, 2000);
	nr = vs_func_events_values(fe, &rec, vals, 8);
	ok(nr == 3 && vals[0].event == 40 && vals[0].value == 300 &&
	   vals[1].value == 100, "task 1: f 300 ns, g 100 ns");
	ok(nr == 3 && vals[2].event == 42 && vals[2].value == 300,
	   "task 1 inclusive: main 300 ns, its callees'");
	rec = task(42, 7, 10, 1000, 2000);
	is_u64(vs_func_events_values(fe, &rec, vals, 8), 0,
	       "a task the samples do not know gets nothing");
	vs_func_events_free(fe);
	fe = vs_func_events_new(ts, VS_FUNC_SPAN, 40);
	rec = task(1, 7, 10, 1000, 2000);
	nr = vs_func_events_values(fe, &rec, vals, 8);
	ok(nr == 3 && vals[0].value == 500, "span estimator: f 500 ns");
	vs_func_events_free(fe);
	ok(vs_func_estimator_parse("count") == VS_FUNC_COUNT &&
	   vs_func_estimator_parse("span") == VS_FUNC_SPAN &&
	   vs_func_estimator_parse("mean") < 0, "estimator names");
	vs_task_samples_free(ts);
	test_attached(f, g);
	test_map_after();
	test_chain_walked_off();
	return done_testing();
}
