// SPDX-License-Identifier: MIT
/*
 * segments.c - unit test of core/analysis/segments.c: segment names, cutting a
 * trace into time slices through the time index, the latency figures of
 * a segment and the max/median/min segment by p99, on hand-made data.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analysis/segments.h"
#include "t/unit/tap.h"

#define START		1000000000ull	/* the recording's start, ns */
#define SEC		1000000000ull
#define NR_TASKS	3000		/* one every 10 ms: 30 s */

static char path[] = "/tmp/vs-segments-XXXXXX";
static char odd_path[] = "/tmp/vs-seg:3-XXXXXX";

static void check_spec(const char *arg, enum vs_segment_kind kind,
		       const char *file, unsigned long slice, uint64_t from,
		       uint64_t to, bool open_end)
{
	struct vs_segment_spec s;
	char err[256] = "";

	if (!ok(!vs_segment_spec_parse(arg, &s, err, sizeof(err)),
		"'%s' parses", arg)) {
		printf("#   %s\n", err);
		return;
	}
	ok(s.kind == kind && !strcmp(s.path, file) && s.slice == slice &&
	   s.from == from && s.to == to && s.open_end == open_end,
	   "'%s': kind %d file %s slice %lu range %llu..%llu%s", arg, s.kind,
	   s.path, s.slice, (unsigned long long)s.from,
	   (unsigned long long)s.to, s.open_end ? " (open)" : "");
	vs_segment_spec_release(&s);
}

static void check_bad_spec(const char *arg, const char *want)
{
	struct vs_segment_spec s;
	char err[256] = "";

	ok(vs_segment_spec_parse(arg, &s, err, sizeof(err)) &&
	   strstr(err, want) && !strchr(err, '\n'),
	   "'%s' is refused: %s", arg, err);
}

static void test_specs(void)
{
	int fd = mkstemp(odd_path);

	close(fd);
	check_spec("a.data", VS_SEGMENT_FILE, "a.data", 0, 0, 0, false);
	check_spec("a.data:3", VS_SEGMENT_SLICE, "a.data", 3, 0, 0, false);
	check_spec("dir/a.data.0002:12", VS_SEGMENT_SLICE, "dir/a.data.0002",
		   12, 0, 0, false);
	check_spec("a.data@10s..20s", VS_SEGMENT_RANGE, "a.data", 0,
		   10 * SEC, 20 * SEC, false);
	check_spec("a.data@..500ms", VS_SEGMENT_RANGE, "a.data", 0, 0,
		   500000000, false);
	check_spec("a.data@1m..", VS_SEGMENT_RANGE, "a.data", 0, 60 * SEC,
		   0, true);
	check_spec("a@b.data@1.5s..2s", VS_SEGMENT_RANGE, "a@b.data", 0,
		   1500000000, 2 * SEC, false);
	/* an existing file is a file, whatever its name looks like */
	check_spec(odd_path, VS_SEGMENT_FILE, odd_path, 0, 0, 0, false);
	unlink(odd_path);

	check_bad_spec("a.data:0", "numbered from 1");
	check_bad_spec("a.data@20s..10s", "ends before its start");
	check_bad_spec("a.data@10s..10s", "ends at its start");
	check_bad_spec("a.data@ten..20s", "bad start 'ten'");
	check_bad_spec("a.data@10s..soon", "bad end 'soon'");
	check_bad_spec("a.data@10s", "START..END");
	check_bad_spec("@1s..2s", "no file name");
	check_bad_spec("", "empty");
}

/* Task i ends at START + 10 ms * (i + 1); type i % 2; latency i % 100 + 1 us. */
static void write_trace(void)
{
	struct vs_header hdr = { .clockid = 1, .start_time = START,
				 .start_realtime = 1, .host = "unit",
				 .kernel = "unit", .cpu_model = "unit",
				 .tool = "unit" };
	struct vs_record rec = { .kind = VS_REC_EVENT_DEF,
		.event_def = { 0, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL,
			       "ev.0", "ns" } };
	struct vs_value v;
	struct vs_writer *w;
	int fd = mkstemp(path), i;

	w = vs_writer_fdopen(fd, &hdr);
	vs_writer_add(w, &rec);
	for (i = 0; i < NR_TASKS; i++) {
		uint64_t end = START + 10000000ull * (i + 1);
		uint64_t lat = 1000ull * (i % 100 + 1);

		v = (struct vs_value){ 0, lat / 2 };
		rec = (struct vs_record){ .kind = VS_REC_TASK, .task = {
			.id = i + 1, .type = i % 2, .tid = 1,
			.start = end - lat, .end = end,
			.nr_values = 1, .values = &v } };
		vs_writer_add(w, &rec);
		if (i % 50 == 49)	/* a chunk every half second */
			vs_writer_flush(w);
	}
	vs_writer_close(w);
}

/* What count_tasks() counts: the tasks of each segment, in call order. */
struct counts {
	bool latency_only;
	size_t calls;
	size_t order[16];		/* the segments, as called */
	size_t tasks[16];		/* by segment; -2: columns loaded */
};

static int count_tasks(void *arg, size_t seg, struct vs_taskset *ts)
{
	struct counts *c = arg;
	unsigned int t;
	size_t n = 0;

	for (t = 0; t < ts->nr_types; t++) {
		n += ts->types[t].nr_tasks;
		if (c->latency_only && ts->types[t].nr_columns)
			n = (size_t)-2;
	}
	if (c->calls < 16)
		c->order[c->calls] = seg;
	c->calls++;
	if (seg < 16)
		c->tasks[seg] = n;
	vs_taskset_free(ts);
	return 0;
}

/* The tasks of each segment of @list, read together, into @c. */
static int read_counts(const struct vs_segment_list *list, bool latency_only,
		       struct counts *c)
{
	struct vs_taskset_opts o = { .latency_only = latency_only };
	char err[256];

	memset(c, 0, sizeof(*c));
	c->latency_only = latency_only;
	if (vs_segments_read(list, &o, count_tasks, c, err, sizeof(err))) {
		printf("# %s\n", err);
		return -1;
	}
	return 0;
}

static size_t tasks_in(const struct vs_trace_segment *seg, bool latency_only)
{
	struct vs_segment_list one = {
		.nr = 1, .alloc = 1, .seg = (struct vs_trace_segment *)seg,
	};
	struct counts c;

	return read_counts(&one, latency_only, &c) ? (size_t)-1 : c.tasks[0];
}

static int resolve(const char *arg, uint64_t length,
		   struct vs_trace_segment *seg, char *err, size_t errlen)
{
	struct vs_segment_spec spec;
	int ret;

	if (vs_segment_spec_parse(arg, &spec, err, errlen))
		return -1;
	ret = vs_segment_resolve(&spec, length, seg, err, errlen);
	vs_segment_spec_release(&spec);
	return ret;
}

static void test_cut(void)
{
	struct vs_segment_list list = { 0 };
	struct vs_trace_segment seg;
	struct vs_reader *r;
	struct counts c;
	char arg[256], err[256];
	size_t i, sum = 0;
	bool exact = true;

	write_trace();
	r = vs_reader_open(path, err, sizeof(err));
	ok(r && vs_reader_offset_until(r, START + 5 * SEC) < vs_reader_size(r) / 5 &&
	   vs_reader_offset_until(r, START + 5 * SEC) >
	   vs_reader_offset_until(r, START + 4 * SEC) &&
	   vs_reader_offset_until(r, START + 31 * SEC) == vs_reader_size(r),
	   "a time range's chunks end early in the file, where its records do");
	vs_reader_close(r);
	/* 30 s of tasks, the last ending at 30 s: 4 slices of 10 s */
	is_u64(vs_segments_cut(path, 10 * SEC, &list, err, sizeof(err)),
	       VS_LOAD_OK, "a trace cuts into slices");
	is_u64(list.nr, 4, "30 s end in the 4th slice of 10 s");
	for (i = 0; i < list.nr; i++) {
		size_t n = tasks_in(&list.seg[i], false);

		sum += n;
		if (n != (i < 3 ? (i ? 1000 : 999) : 1))
			exact = false;
	}
	ok(exact, "each slice holds the tasks that end in it");
	is_u64(sum, NR_TASKS, "no task lost or counted twice");
	snprintf(arg, sizeof(arg), "%s:2", path);
	is_str(list.seg[1].label, arg, "slices are named FILE:N");
	is_u64(tasks_in(&list.seg[1], true), 1000,
	       "latencies alone load without event columns");
	vs_segment_list_release(&list);

	is_u64(vs_segments_cut(path, 0, &list, err, sizeof(err)), VS_LOAD_OK,
	       "without a length a file is one segment");
	ok(list.nr == 1 && !strcmp(list.seg[0].label, path) &&
	   tasks_in(&list.seg[0], false) == NR_TASKS, "the whole file");
	vs_segment_list_release(&list);

	/* the slices with a range, the whole file and a slice again */
	vs_segments_cut(path, 10 * SEC, &list, err, sizeof(err));
	vs_segments_cut(path, 0, &list, err, sizeof(err));
	snprintf(arg, sizeof(arg), "%s@5s..7500ms", path);
	vs_segment_list_add_arg(&list, arg, 0, false, err, sizeof(err));
	snprintf(arg, sizeof(arg), "%s:2", path);
	vs_segment_list_add_arg(&list, arg, 10 * SEC, false, err, sizeof(err));
	ok(list.nr == 7 && !read_counts(&list, true, &c) && c.calls == 7,
	   "segments read together: one call each");
	exact = true;
	for (i = 0; i < 7; i++)
		if (c.order[i] != i || c.tasks[i] != (size_t[]){
			999, 1000, 1000, 1, NR_TASKS, 250, 1000 }[i])
			exact = false;
	ok(exact, "in list order, each with its own tasks");
	vs_segment_list_release(&list);

	snprintf(arg, sizeof(arg), "%s@5s..7500ms", path);
	ok(!resolve(arg, 0, &seg, err, sizeof(err)) &&
	   seg.from_ns == START + 5 * SEC && tasks_in(&seg, false) == 250,
	   "FILE@5s..7500ms: the 250 tasks ending in it");
	vs_segment_release(&seg);
	snprintf(arg, sizeof(arg), "%s@29s..", path);
	ok(!resolve(arg, 0, &seg, err, sizeof(err)) && !seg.to_ns &&
	   tasks_in(&seg, false) == 101, "FILE@29s..: to the end");
	vs_segment_release(&seg);
	snprintf(arg, sizeof(arg), "%s:3", path);
	ok(!resolve(arg, 10 * SEC, &seg, err, sizeof(err)) &&
	   seg.from_ns == START + 20 * SEC && seg.to_ns == START + 30 * SEC,
	   "FILE:3 of 10 s is [20 s, 30 s)");
	vs_segment_release(&seg);

	snprintf(arg, sizeof(arg), "%s:5", path);
	ok(resolve(arg, 10 * SEC, &seg, err, sizeof(err)) == VS_LOAD_ERROR &&
	   strstr(err, "has 4 slices"), "FILE:5 beyond the end: %s", err);
	snprintf(arg, sizeof(arg), "%s:1", path);
	ok(resolve(arg, 0, &seg, err, sizeof(err)) == VS_LOAD_ERROR &&
	   strstr(err, "needs --length"), "FILE:N without length: %s", err);
	snprintf(arg, sizeof(arg), "%s@40s..", path);
	ok(resolve(arg, 0, &seg, err, sizeof(err)) == VS_LOAD_ERROR &&
	   strstr(err, "after the end"), "a range after the end: %s", err);
	ok(resolve("/nonexistent/x.data", 0, &seg, err, sizeof(err)) ==
	   VS_LOAD_ERROR && strstr(err, "cannot open '/nonexistent/x.data'"),
	   "a missing file: %s", err);
	unlink(path);
}

static void add_task(struct vs_taskset *ts, uint32_t type, uint64_t lat)
{
	static uint64_t id;
	struct vs_task t = { .id = ++id, .type = type, .start = 1000,
			     .end = 1000 + lat };

	vs_taskset_add_task(ts, &t);
}

static void test_stats(void)
{
	struct vs_taskset *ts = vs_taskset_new();
	struct vs_latency_stats st;
	int i;

	/* type 0: 1..200 us; type 1: 100 tasks of 10 us and one of 1 ms */
	for (i = 200; i >= 1; i--)
		add_task(ts, 0, 1000ull * i);
	for (i = 0; i < 100; i++)
		add_task(ts, 1, 10000);
	add_task(ts, 1, 1000000);
	vs_taskset_finish(ts);

	vs_latency_stats(vs_taskset_type(ts, 0), &st);
	ok(st.tasks == 200 && st.p50 == 100000 && st.p99 == 198000,
	   "1..200 us: p50 100 us, p99 198 us (nearest rank)");
	/* mean 100.5, population sd sqrt((200^2 - 1) / 12) */
	ok(fabs(st.mean - 100500) < 1e-6 &&
	   fabs(st.cov - sqrt((200.0 * 200 - 1) / 12) / 100.5) < 1e-9,
	   "mean and CoV of 1..200 us (cov %.6f)", st.cov);
	vs_latency_stats(vs_taskset_type(ts, 1), &st);
	ok(st.tasks == 101 && st.p50 == 10000 && st.p99 == 10000,
	   "one slow task in 101 stays above p99");
	vs_taskset_free(ts);

	ts = vs_taskset_new();
	add_task(ts, 7, 5000);
	vs_taskset_finish(ts);
	vs_latency_stats(vs_taskset_type(ts, 7), &st);
	ok(st.tasks == 1 && st.p50 == 5000 && st.p99 == 5000 && st.cov == 0,
	   "a single task: its latency, no variation");
	vs_taskset_free(ts);
}

static void test_summary(void)
{
	const uint64_t p99[] = { 50, 10, 30, 90, 70, 30 };
	const bool counted[] = { true, true, true, false, true, true };
	struct vs_segment_summary sum;
	size_t order[6];

	is_u64(vs_segments_by_p99(p99, NULL, 6, order), 6, "all counted");
	ok(order[0] == 1 && order[1] == 2 && order[2] == 5 && order[3] == 0 &&
	   order[4] == 4 && order[5] == 3, "ordered by p99, ties by index");
	vs_segment_summarize(p99, NULL, 6, &sum);
	ok(sum.nr == 6 && sum.max == 3 && sum.min == 1 && sum.median == 5,
	   "max, min, and the lower middle as median (even count)");
	vs_segment_summarize(p99, counted, 6, &sum);
	ok(sum.nr == 5 && sum.max == 4 && sum.min == 1 && sum.median == 5,
	   "segments not counted (too few tasks) take no part");
	/* p99s 10 30 30 50 70: mean 38, population sd sqrt(416) */
	ok(fabs(sum.p99_cov - sqrt(416.0) / 38) < 1e-9,
	   "CoV of the p99s across segments (%.4f)", sum.p99_cov);
	vs_segment_summarize(p99, NULL, 0, &sum);
	ok(sum.nr == 0 && sum.p99_cov == 0, "no segment, no summary");
}

int main(void)
{
	test_specs();
	test_cut();
	test_stats();
	test_summary();
	return done_testing();
}
