// SPDX-License-Identifier: MIT
/*
 * func-times - exact function times per task from a synthetic stream of
 * FUNC records: nesting into paths, clipping to the task, recursion
 * counted once, calls of threads without tasks ignored, unpaired records
 * counted, calls of an attached thread added to the task it serves;
 * symbol ids that index nothing (a huge one costs no memory, an undefined
 * one is unmatched); and the one name of a function's event.
 */
#include <stdlib.h>
#include <unistd.h>

#include "core/catalog.h"
#include "core/analysis/func-times.h"
#include "t/unit/tap.h"

static char path[] = "/tmp/vs-func-times-XXXXXX";

static void add_symbol(struct vs_writer *w, uint32_t id, const char *name)
{
	struct vs_record rec = { .kind = VS_REC_SYMBOL_DEF };

	rec.symbol_def = (struct vs_symbol_def){ id, 0x1000 + id, name, "app" };
	vs_writer_add(w, &rec);
}

static void add_func(struct vs_writer *w, uint64_t time, uint32_t tid,
		     uint32_t symbol, uint8_t dir)
{
	struct vs_record rec = { .kind = VS_REC_FUNC };

	rec.func = (struct vs_func){ time, tid, 0, symbol, dir };
	vs_writer_add(w, &rec);
}

static void add_task(struct vs_writer *w, uint64_t id, uint32_t tid,
		     uint64_t start, uint64_t end)
{
	struct vs_record rec = { .kind = VS_REC_TASK };

	rec.task = (struct vs_task){ .id = id, .type = tid == 20 ? 0 : 1,
				     .pid = 10,
				     .tid = tid, .start = start, .end = end };
	vs_writer_add(w, &rec);
}

enum { A, B, C };

#define HUGE_ID		378000000u	/* a file's id: no array that big */
#define UNDEFINED_ID	999u

static void write_stream(int fd)
{
	struct vs_writer *w = vs_writer_fdopen(fd, &(struct vs_header){ 0 });

	add_symbol(w, A, "A");
	add_symbol(w, B, "B");
	add_symbol(w, C, "C");
	/* task 1 on thread 10: A { B } { C }, then an exit of C alone */
	add_func(w, 150, 10, A, VS_FUNC_ENTER);
	add_func(w, 200, 10, B, VS_FUNC_ENTER);
	add_func(w, 400, 10, B, VS_FUNC_EXIT);
	/* thread 11 works for no task: its calls count nowhere */
	add_func(w, 420, 11, A, VS_FUNC_ENTER);
	add_func(w, 800, 11, A, VS_FUNC_EXIT);
	add_func(w, 450, 10, C, VS_FUNC_ENTER);	/* out of time order */
	add_func(w, 500, 10, C, VS_FUNC_EXIT);
	add_func(w, 900, 10, A, VS_FUNC_EXIT);
	add_func(w, 950, 10, C, VS_FUNC_EXIT);
	add_task(w, 1, 10, 100, 1000);
	/* task 2: A began before it; B calls B; C never returns */
	add_func(w, 1900, 10, A, VS_FUNC_ENTER);
	add_func(w, 2100, 10, A, VS_FUNC_EXIT);
	add_func(w, 2500, 10, B, VS_FUNC_ENTER);
	add_func(w, 2600, 10, B, VS_FUNC_ENTER);
	add_func(w, 2700, 10, B, VS_FUNC_EXIT);
	add_func(w, 2800, 10, B, VS_FUNC_EXIT);
	add_func(w, 2900, 10, C, VS_FUNC_ENTER);
	add_task(w, 2, 10, 2000, 3000);
	/* task 3 on thread 12: no probed function called */
	add_task(w, 3, 12, 100, 200);
	/* thread 20 works for task 1 from 300 to 500: B there counts for it */
	vs_writer_add(w, &(struct vs_record){ .kind = VS_REC_ATTACH,
		.attach = { 300, 20, VS_ATTACH, 1 } });
	add_func(w, 320, 20, B, VS_FUNC_ENTER);
	add_func(w, 420, 20, B, VS_FUNC_EXIT);
	add_task(w, 5, 20, 300, 500);
	/* task 6 on thread 13: a call of D (a huge id), one of no symbol */
	add_symbol(w, HUGE_ID, "D");
	add_func(w, 4100, 13, HUGE_ID, VS_FUNC_ENTER);
	add_func(w, 4200, 13, UNDEFINED_ID, VS_FUNC_ENTER);
	add_func(w, 4300, 13, UNDEFINED_ID, VS_FUNC_EXIT);
	add_func(w, 4400, 13, HUGE_ID, VS_FUNC_EXIT);
	add_task(w, 6, 13, 4000, 5000);
	vs_writer_close(w);
}

static uint64_t path_time(const struct vs_ft_task *t, uint32_t depth,
			  const uint32_t *symbols)
{
	uint32_t i;

	for (i = 0; i < t->nr_paths; i++)
		if (t->paths[i].depth == depth &&
		    !memcmp(t->paths[i].symbols, symbols,
			    depth * sizeof(*symbols)))
			return t->paths[i].time;
	return 0;
}

int main(void)
{
	const struct vs_ft_task *t1, *t2, *t3;
	struct vs_func_times *ft;
	struct vs_reader *r;
	char err[256], name[64];
	int fd = mkstemp(path);

	write_stream(fd);
	r = vs_reader_open(path, err, sizeof(err));
	ft = r ? vs_func_times_read(r, err, sizeof(err)) : NULL;
	if (!ok(ft != NULL, "the stream is read: %s", ft ? "" : err))
		return done_testing();
	is_u64(vs_func_times_nr_tasks(ft), 5, "four tasks and an interval");
	t1 = vs_func_times_task(ft, 0);
	t2 = vs_func_times_task(ft, 1);
	t3 = vs_func_times_task(ft, 2);
	is_str(vs_func_times_symbol(ft, B), "B", "symbol names from the trace");
	is_str(vs_func_times_symbol(ft, 7), "?", "an undefined symbol is ?");

	is_u64(vs_ft_func_time(t1, A), 750, "task 1: A from enter to exit");
	is_u64(vs_ft_func_time(t1, B), 300,
	       "task 1: B nested in A, and B on the attached thread");
	is_u64(path_time(t1, 1, (uint32_t[]){ B }), 100,
	       "task 1: path B from the attached thread");
	is_u64(vs_func_times_task(ft, 3)->serves, 1,
	       "the interval knows the task it serves");
	is_u64(vs_ft_func_time(t1, C), 50, "task 1: C after a thread-11 call");
	is_u64(path_time(t1, 1, (uint32_t[]){ A }), 750, "task 1: path A");
	is_u64(path_time(t1, 2, (uint32_t[]){ A, B }), 200, "task 1: path A>B");
	is_u64(path_time(t1, 2, (uint32_t[]){ A, C }), 50, "task 1: path A>C");
	is_u64(t1->nr_paths, 4, "task 1: four paths");

	is_u64(vs_ft_func_time(t2, A), 100, "task 2: A clipped to its start");
	is_u64(vs_ft_func_time(t2, B), 300, "task 2: recursive B counted once");
	is_u64(t2->funcs[1].calls, 1, "task 2: one outermost call of B");
	is_u64(path_time(t2, 2, (uint32_t[]){ B, B }), 100,
	       "task 2: the inner B has its own path");
	is_u64(vs_ft_func_time(t2, C), 0, "task 2: C never returned");

	is_u64(t3->nr_funcs + t3->nr_paths, 0, "task 3: no calls");
	is_u64(vs_func_times_unmatched(ft), 4,
	       "an exit without enter, a call left open and the two records "
	       "of no symbol are unmatched");

	is_u64(vs_func_times_nr_symbols(ft), 4, "four symbols: A, B, C, D");
	is_str(vs_func_times_symbol(ft, 3), "D",
	       "symbol id 378 million is index 3");
	is_u64(vs_ft_func_time(vs_func_times_task(ft, 4), 3), 300,
	       "task 6: D's call, the undefined one inside left out");

	vs_func_event_name(name, sizeof(name), "handle");
	is_str(name, "func:handle.time", "the event name of a function");

	vs_func_times_free(ft);
	vs_reader_close(r);
	unlink(path);
	return done_testing();
}
