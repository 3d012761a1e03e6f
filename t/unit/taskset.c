// SPDX-License-Identifier: MIT
/*
 * taskset.c - unit test of vs_taskset_read(): a trace written here with
 * epochs, missing values, wake-ups and many chunks loads the same with
 * one reader and with several in parallel, and time ranges and types
 * select right.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bitmap.h"
#include "core/analysis/taskset.h"
#include "t/unit/tap.h"

#define NR_TASKS	20000
#define NR_EVENTS	6

static char path[] = "/tmp/vs-taskset-XXXXXX";

static void write_trace(void)
{
	struct vs_header hdr = { .clockid = 1, .host = "unit", .kernel = "unit",
				 .cpu_model = "unit", .tool = "unit" };
	struct vs_writer *w;
	struct vs_record rec;
	struct vs_value v[NR_EVENTS];
	uint16_t live[NR_EVENTS];
	char name[32];
	int fd = mkstemp(path), i, e;

	w = vs_writer_fdopen(fd, &hdr);
	for (e = 0; e < NR_EVENTS; e++) {
		snprintf(name, sizeof(name), "ev.%d", e);
		rec = (struct vs_record){ .kind = VS_REC_EVENT_DEF,
			.event_def = { e, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL,
				       name, "ns" } };
		vs_writer_add(w, &rec);
	}
	for (i = 0; i < NR_TASKS; i++) {
		uint32_t nr = 0;

		if (i % 1000 == 0) {	/* a new epoch: events live in it */
			uint32_t nl = 0;

			for (e = 0; e < NR_EVENTS; e++)
				if ((e + i / 1000) % 3)
					live[nl++] = e;
			rec = (struct vs_record){ .kind = VS_REC_EPOCH,
				.epoch = { 1000000ull * i, i / 1000, nl, live } };
			vs_writer_add(w, &rec);
		}
		for (e = 0; e < NR_EVENTS; e++)	/* live, but not always given */
			if ((e + i / 1000) % 3 && (i + e) % 5)
				v[nr++] = (struct vs_value){ e, (i * 7 + e) % 1000 };
		if (i % 7 == 0) {	/* before the task, often a chunk's first */
			rec = (struct vs_record){ .kind = VS_REC_WAKEUP,
				.wakeup = { 1000000ull * i, 2, 1, 0 } };
			vs_writer_add(w, &rec);
		}
		rec = (struct vs_record){ .kind = VS_REC_TASK, .task = {
			.id = i + 1, .type = i % 3, .tid = 1, .epoch = i / 1000,
			.start = 1000000ull * i, .end = 1000000ull * i + i % 977,
			.nr_values = nr, .values = v } };
		vs_writer_add(w, &rec);
		if (i % 300 == 299 || i % 7 == 6)
			vs_writer_flush(w);
	}
	vs_writer_close(w);
}

/* Same types, tasks, latencies, columns and values. */
static bool same(const struct vs_taskset *a, const struct vs_taskset *b)
{
	unsigned int t, c;

	if (a->nr_types != b->nr_types)
		return false;
	for (t = 0; t < a->nr_types; t++) {
		const struct vs_task_type *x = &a->types[t], *y = &b->types[t];

		if (x->type != y->type || x->nr_tasks != y->nr_tasks ||
		    x->nr_columns != y->nr_columns ||
		    memcmp(x->latency, y->latency,
			   x->nr_tasks * sizeof(*x->latency)))
			return false;
		for (c = 0; c < x->nr_columns; c++) {
			const struct vs_column *p = &x->columns[c],
					       *q = &y->columns[c];

			if (p->event != q->event || p->nr != q->nr ||
			    memcmp(p->values, q->values, p->nr * sizeof(float)) ||
			    memcmp(p->present, q->present,
				   vs_bitmap_words(x->nr_tasks) * 8))
				return false;
		}
	}
	return true;
}

#define NR_RANGES	64
#define RANGE(from, to)	(struct vs_time_range){ .from_ns = (from), \
						.to_ns = (to) }

/*
 * Read @nr_ranges ranges in one pass, with @parts readers, and each alone
 * (latencies alone for a range that asks for them): the same task sets.
 */
static void check_ranges(const struct vs_time_range *range, size_t nr_ranges,
			 unsigned int parts, const char *what)
{
	struct vs_taskset_opts o = { .parts = parts };
	struct vs_taskset *many[NR_RANGES], *alone;
	char err[256];
	size_t i, tasks = 0, differ = 0;
	unsigned int t;

	if (!ok(vs_taskset_read_ranges(path, &o, range, nr_ranges, many, err,
				       sizeof(err)) == VS_LOAD_OK,
		"%s, %u reader(s): read in one pass", what, parts)) {
		printf("# %s\n", err);
		return;
	}
	for (i = 0; i < nr_ranges; i++) {
		o.from_ns = range[i].from_ns;
		o.to_ns = range[i].to_ns;
		o.latency_only = range[i].latency_only;
		if (vs_taskset_read(path, &o, &alone, err, sizeof(err)) ||
		    !same(many[i], alone))
			differ++;
		for (t = 0; t < many[i]->nr_types; t++)
			tasks += many[i]->types[t].nr_tasks;
		vs_taskset_free(alone);
		vs_taskset_free(many[i]);
	}
	ok(!differ && tasks, "%s, %u reader(s): each range as read alone "
	   "(%zu differ, %zu tasks)", what, parts, differ, tasks);
}

/*
 * Many ranges of one trace read in one pass load what each loads alone:
 * slices that tile it, and ranges that overlap, nest, are open or empty,
 * in any order.
 */
static void test_ranges(void)
{
	struct vs_time_range range[NR_RANGES];
	size_t i;

	for (i = 0; i < NR_RANGES; i++)	/* 64 slices of 350 ms */
		range[i] = RANGE(350000000ull * i, 350000000ull * (i + 1));
	check_ranges(range, NR_RANGES, 1, "64 slices");
	check_ranges(range, NR_RANGES, 4, "64 slices");
	range[0] = RANGE(7000000000ull, 0);
	range[1] = RANGE(1000000000ull, 9000000000ull);
	range[2] = RANGE(0, 500000000ull);
	range[3] = RANGE(3000000000ull, 3000500000ull);
	range[4] = RANGE(1000000000ull, 2000000000ull);
	range[5] = RANGE(99000000000ull, 0);
	range[6] = RANGE(12000000000ull, 14000000000ull);
	check_ranges(range, 7, 1, "overlapping ranges");
	check_ranges(range, 7, 4, "overlapping ranges");
	check_ranges(range + 6, 1, 4, "one range late in the file");
}

/*
 * The whole file with its values and slices of it with latencies alone,
 * in one pass (the tui's read): the slices hold no column.
 */
static void test_latency_only_ranges(void)
{
	struct vs_time_range range[NR_RANGES];
	struct vs_taskset *ts[NR_RANGES];
	size_t i, columns = 0;
	unsigned int t;
	char err[256];

	range[0] = RANGE(0, 0);
	for (i = 1; i < NR_RANGES; i++) {	/* 63 slices of 350 ms */
		range[i] = RANGE(350000000ull * (i - 1), 350000000ull * i);
		range[i].latency_only = true;
	}
	check_ranges(range, NR_RANGES, 1, "the file and latency-only slices");
	check_ranges(range, NR_RANGES, 4, "the file and latency-only slices");
	if (vs_taskset_read_ranges(path, NULL, range, NR_RANGES, ts, err,
				   sizeof(err))) {
		ok(0, "the file and latency-only slices: %s", err);
		return;
	}
	for (i = 1; i < NR_RANGES; i++)
		for (t = 0; t < ts[i]->nr_types; t++)
			columns += ts[i]->types[t].nr_columns;
	ok(ts[0]->types[0].nr_columns == NR_EVENTS && !columns,
	   "the file has its %u columns, the latency-only slices %zu",
	   ts[0]->types[0].nr_columns, columns);
	for (i = 0; i < NR_RANGES; i++)
		vs_taskset_free(ts[i]);
}

int main(void)
{
	struct vs_taskset_opts one = { .parts = 1 }, four = { .parts = 4 };
	struct vs_taskset *a, *b;
	const struct vs_task_type *tt;
	const struct vs_column *col;
	char err[256];
	float v;

	write_trace();
	is_u64(vs_taskset_read(path, &one, &a, err, sizeof(err)), VS_LOAD_OK,
	       "read with one reader");
	is_u64(vs_taskset_read(path, &four, &b, err, sizeof(err)), VS_LOAD_OK,
	       "read with four readers");
	ok(a->nr_types == 3 && a->types[0].nr_tasks == 6667,
	   "three types, 6667 tasks of type 0");
	ok(same(a, b), "four readers load exactly what one loads");
	is_u64(a->nr_wakeups, (NR_TASKS + 6) / 7, "one reader counts every "
	       "wake-up record");
	is_u64(b->nr_wakeups, a->nr_wakeups, "four readers too, those before "
	       "a part's first task included");

	/* type 0 holds tasks 0 3 6 9 ...: task 9 is its task 3 */
	tt = vs_taskset_type(a, 0);
	col = vs_column_find(tt, 1);	/* live; (9 + 1) % 5 == 0: not given */
	ok(col && vs_column_value(col, 3, &v) && v == 0,
	   "task 9: ev.1 live but not given counts 0");
	col = vs_column_find(tt, 2);	/* (9 + 2) % 5 != 0: given */
	ok(col && vs_column_value(col, 3, &v) && v == (9 * 7 + 2) % 1000,
	   "task 9: ev.2 as given");
	col = vs_column_find(tt, 4);
	ok(col && vs_column_value(col, 0, &v) && v == 4,
	   "task 0: ev.4 as given");
	col = vs_column_find(tt, 0);	/* (0 + 0) % 3 == 0: not live */
	ok(col && !vs_column_value(col, 0, &v), "task 0: ev.0 not recorded");
	vs_taskset_free(a);
	vs_taskset_free(b);

	one.from_ns = four.from_ns = 5000 * 1000000ull;
	one.to_ns = four.to_ns = 15000 * 1000000ull;
	one.one_type = four.one_type = true;
	one.type = four.type = 1;
	vs_taskset_read(path, &one, &a, err, sizeof(err));
	vs_taskset_read(path, &four, &b, err, sizeof(err));
	ok(a->nr_types == 1 && a->types[0].nr_tasks == 3333,
	   "time range and type: 3333 tasks (%zu)",
	   a->nr_types ? a->types[0].nr_tasks : 0);
	ok(same(a, b), "the same with four readers");
	vs_taskset_free(a);
	vs_taskset_free(b);

	/* four readers' parts start in the same chunk: none takes a task twice */
	one.to_ns = four.to_ns = one.from_ns + 350 * 1000000ull;
	one.one_type = four.one_type = false;
	vs_taskset_read(path, &one, &a, err, sizeof(err));
	vs_taskset_read(path, &four, &b, err, sizeof(err));
	ok(same(a, b), "a range inside a chunk or two: four readers load what "
	   "one loads (%zu, %zu tasks of type 0)", a->types[0].nr_tasks,
	   b->types[0].nr_tasks);
	vs_taskset_free(a);
	vs_taskset_free(b);

	/* parts that end where ev.2 and ev.5 are not live: short bitmaps */
	one.from_ns = four.from_ns = 7000 * 1000000ull;
	one.to_ns = four.to_ns = 0;
	vs_taskset_read(path, &one, &a, err, sizeof(err));
	vs_taskset_read(path, &four, &b, err, sizeof(err));
	ok(same(a, b), "from 7 s on: four readers load what one loads");
	vs_taskset_free(a);
	vs_taskset_free(b);

	test_ranges();
	test_latency_only_ranges();

	is_u64(vs_taskset_read("/nonexistent/x", NULL, &a, err, sizeof(err)),
	       VS_LOAD_ERROR, "a missing file is an error, not corruption");
	ok(strstr(err, "/nonexistent/x") != NULL, "the message names it");
	unlink(path);
	return done_testing();
}
