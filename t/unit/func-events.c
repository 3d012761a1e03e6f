// SPDX-License-Identifier: MIT
/*
 * func-events - function events from both sources
 * (core/analysis/func-events.c): a function both sampled and probed has the
 * probed time in each task, one only sampled keeps its estimate, one only
 * probed becomes an event of its own; a trace with probes alone has its
 * functions ranked.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analysis/func-events.h"
#include "core/analysis/ranking.h"
#include "core/trace/trace-head.h"
#include "t/unit/tap.h"

#define NR_TASKS	60

static char path[] = "/tmp/vs-func-events-XXXXXX";

enum { F, H };	/* probed symbols */

static struct vs_task task(uint64_t id, uint64_t start, uint64_t end)
{
	return (struct vs_task){ .id = id, .type = 7, .pid = 1, .tid = 10,
				 .start = start, .end = end };
}

static void add(struct vs_writer *w, struct vs_record rec)
{
	vs_writer_add(w, &rec);
}

static void add_call(struct vs_writer *w, uint32_t symbol, uint64_t enter,
		     uint64_t exit)
{
	add(w, (struct vs_record){ .kind = VS_REC_FUNC,
		.func = { enter, 10, 0, symbol, VS_FUNC_ENTER } });
	add(w, (struct vs_record){ .kind = VS_REC_FUNC,
		.func = { exit, 10, 0, symbol, VS_FUNC_EXIT } });
}

/*
 * Tasks i = 1 .. NR_TASKS of type 7 on thread 10 at [i ms, i ms + 500 us
 * + h): f runs 400 ns in task 1; h runs 250 ns in task 2, and in every
 * task from 3 on for 1 us, or 200 us in each tenth (the slow ones).
 */
static void write_trace(int fd)
{
	struct vs_writer *w = vs_writer_fdopen(fd, &(struct vs_header){ 0 });
	uint64_t i, start, h;

	add(w, (struct vs_record){ .kind = VS_REC_SYMBOL_DEF,
		.symbol_def = { F, 0x1000, "f", "app" } });
	add(w, (struct vs_record){ .kind = VS_REC_SYMBOL_DEF,
		.symbol_def = { H, 0x2000, "h", "app" } });
	add_call(w, F, 1100, 1500);
	add(w, (struct vs_record){ .kind = VS_REC_TASK,
		.task = task(1, 1000, 2000) });
	add_call(w, H, 3100, 3350);
	add(w, (struct vs_record){ .kind = VS_REC_TASK,
		.task = task(2, 3000, 4000) });
	for (i = 3; i <= NR_TASKS; i++) {
		start = i * 1000000;
		h = i % 10 ? 1000 : 200000;
		add_call(w, H, start + 100, start + 100 + h);
		add(w, (struct vs_record){ .kind = VS_REC_TASK,
			.task = task(i, start, start + 500000 + h) });
	}
	vs_writer_close(w);
}

static void sample(struct vs_task_samples *ts, uint64_t time, uint32_t leaf)
{
	struct vs_sample s = { .time = time, .pid = 1, .tid = 10,
			       .period = 100 };

	vs_task_samples_add_sample(ts, &s, &leaf, 1);
}

/* Samples of tasks 1 and 2: f 300 ns and g 100 ns in 1, g 100 ns in 2. */
static struct vs_task_samples *samples(void)
{
	struct vs_task_samples *ts = vs_task_samples_new();
	struct vs_task t;
	uint32_t f, g;

	f = vs_task_samples_symbol(ts, "f", "app");
	g = vs_task_samples_symbol(ts, "g", "app");
	t = task(1, 1000, 2000);
	vs_task_samples_add_task(ts, &t, 0);
	t = task(2, 3000, 4000);
	vs_task_samples_add_task(ts, &t, 0);
	sample(ts, 1100, f);
	sample(ts, 1200, f);
	sample(ts, 1300, f);
	sample(ts, 1600, g);
	sample(ts, 3500, g);
	vs_task_samples_finish(ts);
	return ts;
}

static struct vs_func_times *probes(void)
{
	char err[256];
	struct vs_reader *r = vs_reader_open(path, err, sizeof(err));
	struct vs_func_times *ft = r ? vs_func_times_read(r, err,
							  sizeof(err)) : NULL;

	vs_reader_close(r);
	return ft;
}

/* The value of event @name in @vals, or -1. */
static int64_t value(const struct vs_func_sources *fs,
		     const struct vs_value *vals, uint32_t nr, const char *name)
{
	const struct vs_event_def *defs;
	unsigned int nd, i, k;

	defs = vs_func_sources_defs(fs, &nd);
	for (i = 0; i < nd; i++)
		if (!strcmp(defs[i].name, name))
			for (k = 0; k < nr; k++)
				if (vals[k].event == defs[i].id)
					return vals[k].value;
	return -1;
}

static void both_sources(void)
{
	struct vs_func_sources *fs;
	const struct vs_event_def *defs;
	struct vs_value vals[8];
	struct vs_task rec;
	unsigned int nr;

	fs = vs_func_sources_new(samples(), probes(), VS_FUNC_COUNT, 40);
	if (!ok(fs && fs->probes, "samples and probes together"))
		return;
	defs = vs_func_sources_defs(fs, &nr);
	ok(nr == 3 && !strcmp(defs[0].name, "func:f.time") &&
	   defs[0].id == 40 && !strcmp(defs[1].name, "func:g.time") &&
	   !strcmp(defs[2].name, "func:h.time") && defs[2].id == 42 &&
	   defs[2].group == VS_GROUP_FUNC && !strcmp(defs[2].unit, "ns"),
	   "one event per name: sampled first, then the probed-only");
	rec = task(1, 1000, 2000);
	nr = vs_func_sources_values(fs, &rec, vals, 8);
	is_u64(value(fs, vals, nr, "func:f.time"), 400,
	       "task 1: the probed 400 ns of f win over its sampled 300");
	is_u64(value(fs, vals, nr, "func:g.time"), 100,
	       "task 1: g, only sampled, keeps its estimate");
	is_u64(value(fs, vals, nr, "func:h.time"), 0,
	       "task 1: h, probed and not called, is 0");
	rec = task(2, 3000, 4000);
	nr = vs_func_sources_values(fs, &rec, vals, 8);
	ok(value(fs, vals, nr, "func:f.time") == 0 &&
	   value(fs, vals, nr, "func:h.time") == 250 &&
	   value(fs, vals, nr, "func:g.time") == 100,
	   "task 2: f 0 (probed, not called), h 250 ns, g sampled");
	rec = task(99, 1000, 2000);
	is_u64(vs_func_sources_values(fs, &rec, vals, 8), 0,
	       "a task neither source knows gets nothing");
	vs_func_sources_free(fs);
}

/* A trace with probes alone: its functions are events of the ranking. */
static void probes_ranked(void)
{
	struct vs_rank_opts ro = VS_RANK_OPTS_INIT;
	struct vs_taskset_opts o = { 0 };
	struct vs_trace_head head;
	struct vs_func_sources *fs;
	struct vs_taskset *ts = NULL;
	struct vs_type_rank tr;
	char err[256] = "";
	size_t i;
	int rank = 0;

	if (!ok(!vs_trace_head_read(path, &head) &&
		!vs_func_sources_load(path, &head, VS_FUNC_COUNT, &fs, err,
				      sizeof(err)), "load: %s", err))
		return;
	vs_trace_head_release(&head);
	ok(!fs->samples && fs->probes, "the trace has probes, no samples");
	vs_func_sources_hook(fs, &o);
	ok(o.task_values && o.nr_extra_events == 2,
	   "the task set gets both probed functions' events");
	if (!ok(!vs_taskset_read(path, &o, &ts, err, sizeof(err)) &&
		ts->nr_types == 1, "the tasks are read"))
		goto out;
	ro.min_tasks = 10;
	ro.min_high = 3;
	if (!ok(!vs_rank_type(ts, &ts->types[0], &ro, &tr), "ranked"))
		goto out;
	for (i = 0; i < tr.nr_ranked; i++)
		if (!strcmp(tr.events[i].name, "func:h.time"))
			rank = i + 1;
	is_u64(rank, 1, "func:h.time, probed only, leads the ranking");
	vs_type_rank_free(&tr);
out:
	vs_taskset_free(ts);
	vs_func_sources_free(fs);
}

int main(void)
{
	int fd = mkstemp(path);

	write_trace(fd);
	both_sources();
	probes_ranked();
	unlink(path);
	return done_testing();
}
