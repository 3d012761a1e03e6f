// SPDX-License-Identifier: MIT
/*
 * wakeup-blame.c - the collected wake-up records placed and walked: each
 * thread's records sorted, each edge judged against the tasks and
 * attached intervals of both threads, each wait's chain blamed, the
 * wakers ranked per task type.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/array.h"
#include "core/analysis/delta-seq.h"
#include "core/sort.h"
#include "core/analysis/task-samples.h"
#include "core/analysis/taskset.h"
#include "core/id-index.h"
#include "core/analysis/wakeup.h"
#include "core/analysis/wakeup-int.h"

static int cmp_thread(const void *a, const void *b)
{
	const struct thread_recs *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_task(const void *a, const void *b)
{
	const struct task_type_of *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* by thread; the last name of a thread last (a stable sort by hand) */
static int cmp_comm(const void *a, const void *b)
{
	const struct comm_of *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * Binary search over an array sorted by (thread, time): the number of
 * elements before (@tid, @time), i.e. the index of the first at or after.
 * An array sorted by one key alone gives ZERO as the other's accessor and
 * 0 as its value.
 */
#define COUNT_BEFORE(arr, nr, tid_of, time_of, tid, time) ({		\
	size_t lo_ = 0, hi_ = (nr);					\
	while (lo_ < hi_) {						\
		size_t mid_ = lo_ + (hi_ - lo_) / 2;			\
		if (tid_of((arr)[mid_]) < (tid) ||			\
		    (tid_of((arr)[mid_]) == (tid) &&			\
		     time_of((arr)[mid_]) < (time)))			\
			lo_ = mid_ + 1;					\
		else							\
			hi_ = mid_;					\
	}								\
	lo_; })

#define ZERO(x)		0
#define TID(x)		((x).tid)
#define COMM_TID(x)	((uint64_t)(x).tid)
#define PART_TASK(x)	((x).task)
/* b->ts_by_tid[]: indices into b->ts->tasks */
#define TS_TID(x)	(b->ts->tasks[(x)].tid)
#define TS_START(x)	(b->ts->tasks[(x)].start)

/* The records of thread @tid, or NULL when it has none (finished). */
static const struct thread_recs *thread_of(const struct vs_wake_build *b,
					   uint32_t tid)
{
	size_t i = COUNT_BEFORE(b->threads, b->nr_threads, TID, ZERO, tid, 0);

	return i < b->nr_threads && b->threads[i].tid == tid ?
	       &b->threads[i] : NULL;
}

/* The last interval of @th that starts at or before @time: false, none. */
static bool last_before(const struct thread_recs *th, uint64_t time,
			struct interval *iv)
{
	struct vs_dseq_cursor c;

	if (!th || !vs_dseq_seek_last(&c, &th->iv, time))
		return false;
	decode_interval(c.v, iv);
	return true;
}

/*
 * A search of a thread's wake-ups that goes on from where it stood when
 * it is asked for later times (a task's waits, one after the other).
 */
struct edge_search {
	struct vs_dseq_cursor c;	/* at the first at or after @from */
	uint64_t from;
	bool started;
};

/* The first wake-up of @th at or after @from, up to @to: false, none. */
static bool edge_in(struct edge_search *es, const struct thread_recs *th,
		    uint64_t from, uint64_t to, struct edge *e)
{
	if (!es->started || from < es->from)
		vs_dseq_seek(&es->c, &th->edges, from);
	else
		while (vs_dseq_at(&es->c) && es->c.v[EDGE_TIME] < from)
			vs_dseq_next(&es->c);
	es->started = true;
	es->from = from;
	if (!vs_dseq_at(&es->c) || es->c.v[EDGE_TIME] > to)
		return false;
	decode_edge(es->c.v, e);
	return true;
}

/*
 * A walk over a thread's switches that knows, at each, when the one
 * after it came.
 */
struct switch_walk {
	struct vs_dseq_cursor ahead;	/* at the switch after @cur */
	struct switch_of cur;
	uint64_t in;			/* the time of that one; UINT64_MAX:
					 * none */
};

/* Start @w at the switch @at is at (none: the walk is over). */
static void walk_from(struct switch_walk *w, const struct vs_dseq_cursor *at)
{
	w->ahead = *at;
}

/* The next switch of @w in w->cur and w->in; false after the last. */
static bool walk_next(struct switch_walk *w)
{
	if (!vs_dseq_at(&w->ahead))
		return false;
	decode_switch(w->ahead.v, &w->cur);
	w->in = vs_dseq_next(&w->ahead) ? w->ahead.v[SW_TIME] : UINT64_MAX;
	return true;
}

/* The counts of task type @type, a new entry the first time. */
static struct vs_wake_type *type_counts(struct vs_wake_build *b,
					struct vs_wake_blame *wb,
					uint32_t type)
{
	long i = vs_id_index_find(&b->type_index, type);

	if (i >= 0)
		return &wb->types[i];
	if (ALLOC_GROW(wb->types, wb->nr_types + 1, b->cap_types) ||
	    vs_id_index_add(&b->type_index, type, wb->nr_types))
		return NULL;
	wb->types[wb->nr_types] = (struct vs_wake_type){ .type = type };
	return &wb->types[wb->nr_types++];
}

static int cmp_wake_type(const void *a, const void *b)
{
	const struct vs_wake_type *x = a, *y = b;

	return (x->type > y->type) - (x->type < y->type);
}

/* What the waker of @e did for task @wakee_iv->task. */
static enum vs_waker_kind judge(const struct vs_wake_build *b,
				const struct edge *e,
				const struct interval *wakee_iv)
{
	struct interval w;
	bool in_one = last_before(thread_of(b, e->waker_tid), e->time, &w);

	if (!e->waker_tid)
		return VS_WAKER_INTERRUPT;
	if (in_one && w.task == wakee_iv->task && w.end >= wakee_iv->start)
		return VS_WAKER_SAME_TASK;
	if (in_one && w.end >= e->time)
		return VS_WAKER_OTHER_TASK;
	return VS_WAKER_OUTSIDE;
}

/* The last name of thread @tid (b->comms: by thread, last name last). */
static const char *comm_of(const struct vs_wake_build *b, uint32_t tid)
{
	size_t i = COUNT_BEFORE(b->comms, b->nr_comms, COMM_TID, ZERO,
				(uint64_t)tid + 1, 0);

	return i && b->comms[i - 1].tid == tid ? b->comms[i - 1].comm : "";
}

/* The waker @tid doing @kind of @tc, new when it is not yet one of them. */
static struct vs_waker *waker_of(const struct vs_wake_build *b,
				 struct vs_wake_type *tc, uint32_t tid,
				 enum vs_waker_kind kind, unsigned int depth)
{
	struct vs_waker *w;
	unsigned int i;

	for (i = 0; i < tc->nr_wakers; i++) {
		w = &tc->wakers[i];
		if (w->tid == tid && w->kind == kind) {
			if (depth < w->depth)
				w->depth = depth;
			return w;
		}
	}
	if (ALLOC_GROW(tc->wakers, tc->nr_wakers + 1, tc->alloc_wakers))
		return NULL;
	w = &tc->wakers[tc->nr_wakers++];
	*w = (struct vs_waker){ .tid = tid, .comm = comm_of(b, tid),
				.kind = kind, .depth = depth };
	return w;
}

static int add_func(struct vs_waker *w, uint32_t symbol, uint64_t ns,
		    size_t *cap)
{
	unsigned int i;

	for (i = 0; i < w->nr_funcs; i++)
		if (w->funcs[i].symbol == symbol) {
			w->funcs[i].ns += ns;
			return 0;
		}
	if (ALLOC_GROW(w->funcs, w->nr_funcs + 1, *cap))
		return -1;
	w->funcs[w->nr_funcs++] = (struct vs_wake_func){ symbol, ns };
	return 0;
}

/*
 * The function a sample names: its innermost frame of the application
 * (not the kernel's, not unknown: a vDSO), else its sampled ip.
 */
static uint32_t app_frame(const struct vs_task_samples *ts,
			  const struct vs_ts_sample *sm)
{
	const uint32_t *f = ts->frames + sm->chain;
	uint32_t i;

	for (i = 0; i < sm->nr_frames; i++)
		if (f[i] && f[i] < ts->nr_symbols && ts->symbols[f[i]].file &&
		    strcmp(ts->symbols[f[i]].file, "[kernel]"))
			return f[i];
	return f[0];
}

/* The samples of thread @tid in [@lo, @hi]: the functions of waker @w. */
static int blame_samples(const struct vs_wake_build *b, struct vs_waker *w,
			 uint32_t tid, uint64_t lo, uint64_t hi)
{
	const struct vs_task_samples *ts = b->ts;
	size_t i, cap = w->nr_funcs;
	uint64_t s;

	if (!ts || !tid)
		return 0;
	/* the thread's tasks do not overlap: back from the last before @hi */
	i = COUNT_BEFORE(b->ts_by_tid, ts->nr_tasks, TS_TID, TS_START, tid,
			 hi + 1);
	while (i-- > 0) {
		const struct vs_ts_task *t = &ts->tasks[b->ts_by_tid[i]];

		if (t->tid != tid || t->end < lo)
			break;
		for (s = t->first; s < t->first + t->nr; s++) {
			const struct vs_ts_sample *sm = &ts->samples[s];

			if (!(sm->flags & VS_TS_SAMPLE_ATTACHED) &&
			    sm->time >= lo && sm->time <= hi &&
			    add_func(w, app_frame(ts, sm), sm->weight_ns, &cap))
				return -1;
		}
	}
	return 0;
}

/*
 * Append @part to @tc's parts (its waker unranked yet): there is a part
 * per blamed wait, tens of millions in a long trace.
 */
static int add_part(struct vs_wake_type *tc, struct vs_wake_part part)
{
	if (ALLOC_GROW(tc->parts, tc->nr_parts + 1, tc->alloc_parts))
		return -1;
	tc->parts[tc->nr_parts++] = part;
	return 0;
}

/*
 * Blame [@lo, @hi] of a wait of task @root (type counts @tc) on the waker
 * of @e, and on along the edges that ended the waker's own waits.
 */
static int blame(struct vs_wake_build *b, struct vs_wake_type *tc,
		 const struct interval *root, const struct edge *e,
		 uint64_t lo, uint64_t hi, unsigned int depth)
{
	uint32_t tid = e->waker_tid;
	const struct thread_recs *th = tid ? thread_of(b, tid) : NULL;
	uint64_t own = hi - lo;
	struct edge_search es = { .started = false };
	struct switch_walk walk;
	struct vs_dseq_cursor c;
	struct vs_waker *w;

	if (th) {
		/* from a wait that began before @lo, else the first */
		if (!vs_dseq_seek_last(&c, &th->sw, lo))
			vs_dseq_next(&c);
		walk_from(&walk, &c);
	}
	while (th && depth < VS_WAKE_CHAIN_MAX && walk_next(&walk) &&
	       walk.cur.time < hi) {
		const struct switch_of *out = &walk.cur;
		struct edge e2;
		uint64_t from;

		if (!out->out || out->preempt)
			continue;
		from = out->time > lo ? out->time : lo;
		if (!edge_in(&es, th, out->time, walk.in < hi ? walk.in : hi,
			     &e2) ||
		    e2.waker_tid == tid || e2.time <= from)
			continue;
		if (blame(b, tc, root, &e2, from, e2.time, depth + 1))
			return -1;
		own -= e2.time - from;
	}
	w = waker_of(b, tc, tid, judge(b, e, root), depth);
	if (!w)
		return -1;
	w->waits++;
	w->ns += own;
	if (b->keep_parts &&
	    add_part(tc, (struct vs_wake_part){ root->task, w - tc->wakers,
						own, b->wait_at }))
		return -1;
	return blame_samples(b, w, tid, lo, hi);
}

/*
 * The blocked waits of task @iv on its own thread @th, whose switches
 * from its start on @first_sw is at and whose wake-ups @es searches,
 * that another thread ended; how many, or -1 when memory runs out.  As VProfiler, from the task's own
 * thread only: an attached worker's waits are reached along the edges,
 * where they made the task wait.
 */
static int blame_interval(struct vs_wake_build *b, struct vs_wake_blame *wb,
			  const struct thread_recs *th,
			  const struct vs_dseq_cursor *first_sw,
			  struct edge_search *es, const struct interval *iv)
{
	struct vs_wake_type *tc;
	struct switch_walk walk;
	int blamed = 0;

	walk_from(&walk, first_sw);
	while (walk_next(&walk) && walk.cur.time <= iv->end) {
		const struct switch_of *out = &walk.cur;
		struct edge e;

		if (!out->out || out->preempt)
			continue;
		if (!edge_in(es, th, out->time, walk.in < iv->end ? walk.in :
			     iv->end, &e) ||
		    e.waker_tid == th->tid || e.time <= out->time)
			continue;
		tc = type_counts(b, wb, iv->type);
		if (!tc)
			return -1;
		tc->wait_ns += e.time - out->time;
		blamed++;
		b->wait_at = out->time;
		if (blame(b, tc, iv, &e, out->time, e.time, 1))
			return -1;
	}
	return blamed;
}

static int cmp_func(const void *a, const void *b)
{
	const struct vs_wake_func *x = a, *y = b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

/* @a, @b: indices into the wakers @w */
static int cmp_waker_at(const void *a, const void *b, void *w)
{
	const struct vs_waker *x = (struct vs_waker *)w + *(const uint32_t *)a;
	const struct vs_waker *y = (struct vs_waker *)w + *(const uint32_t *)b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

static int cmp_part(const void *a, const void *b)
{
	const struct vs_wake_part *x = a, *y = b;

	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return (x->waker > y->waker) - (x->waker < y->waker);
}

/*
 * The wakers of @tc by blamed time, each with its largest functions, and
 * its parts by task, naming the ranked wakers.
 */
static int rank_type(struct vs_wake_type *tc)
{
	uint32_t *order = malloc((tc->nr_wakers + 1) * sizeof(*order));
	uint32_t *rank = malloc((tc->nr_wakers + 1) * sizeof(*rank));
	struct vs_waker *ranked = malloc((tc->nr_wakers + 1) *
					 sizeof(*ranked));
	unsigned int i;
	size_t p;

	if (!order || !rank || !ranked) {
		free(order);
		free(rank);
		free(ranked);
		return -1;
	}
	for (i = 0; i < tc->nr_wakers; i++) {
		struct vs_waker *w = &tc->wakers[i];

		vs_qsort(w->funcs, w->nr_funcs, sizeof(*w->funcs), cmp_func);
		if (w->nr_funcs > VS_WAKE_MAX_FUNCS)
			w->nr_funcs = VS_WAKE_MAX_FUNCS;
		order[i] = i;
	}
	vs_qsort_r(order, tc->nr_wakers, sizeof(*order), cmp_waker_at,
		   tc->wakers);
	for (i = 0; i < tc->nr_wakers; i++) {
		ranked[i] = tc->wakers[order[i]];
		rank[order[i]] = i;
	}
	free(tc->wakers);
	tc->wakers = ranked;
	tc->alloc_wakers = tc->nr_wakers + 1;
	for (p = 0; p < tc->nr_parts; p++)
		tc->parts[p].waker = rank[tc->parts[p].waker];
	vs_qsort(tc->parts, tc->nr_parts, sizeof(*tc->parts), cmp_part);
	free(order);
	free(rank);
	return 0;
}

/* "[wait] comm/tid" of every waker: its node in the variance tree. */
static int label_wakers(struct vs_wake_blame *wb)
{
	unsigned int t, i;

	for (t = 0; t < wb->nr_types; t++)
		for (i = 0; i < wb->types[t].nr_wakers; i++) {
			struct vs_waker *w = &wb->types[t].wakers[i];
			int n = w->tid ?
				asprintf(&w->label, "[wait] %s/%u",
					 *w->comm ? w->comm : "?", w->tid) :
				asprintf(&w->label, "[wait] interrupt");

			if (n < 0) {
				w->label = NULL;
				return -1;
			}
		}
	return 0;
}

static struct task_type_of *task_of(const struct vs_wake_build *b,
				    uint64_t id)
{
	struct task_type_of key = { .id = id };

	return b->nr_tasks ? bsearch(&key, b->tasks, b->nr_tasks,
				     sizeof(*b->tasks), cmp_task) : NULL;
}

/* @a, @b: indices into @ts->tasks; by thread, then start */
static int cmp_ts_task(const void *a, const void *b, void *ts)
{
	const struct vs_task_samples *s = ts;
	const struct vs_ts_task *x = &s->tasks[*(const size_t *)a];
	const struct vs_ts_task *y = &s->tasks[*(const size_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/*
 * The tasks that attached intervals may serve, by id: the intervals not
 * attached, with their types; none when no interval is attached.
 */
static int index_tasks(struct vs_wake_build *b)
{
	struct vs_dseq_cursor c;
	struct interval iv;
	size_t t, n = 0;

	if (!b->attached)
		return 0;
	for (t = 0; t < b->nr_threads; t++)
		n += b->threads[t].iv.nr;
	b->tasks = malloc(n * sizeof(*b->tasks));
	if (!b->tasks)
		return -1;
	for (t = 0; t < b->nr_threads; t++)
		for (vs_dseq_first(&c, &b->threads[t].iv); vs_dseq_at(&c);
		     vs_dseq_next(&c)) {
			decode_interval(c.v, &iv);
			if (!iv.attached)
				b->tasks[b->nr_tasks++] = (struct task_type_of){
					iv.task, iv.type };
		}
	vs_qsort(b->tasks, b->nr_tasks, sizeof(*b->tasks), cmp_task);
	return 0;
}

#define SORT_WORKERS_MAX	4

/* A worker of sort_all(): the threads' records, one thread at a time. */
static void *sort_threads(void *arg)
{
	struct vs_wake_build *b = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&b->next_sort, 1, __ATOMIC_RELAXED)) <
	       b->nr_threads) {
		struct thread_recs *th = &b->threads[i];

		if (vs_dseq_sort(&th->iv) || vs_dseq_sort(&th->edges) ||
		    vs_dseq_sort(&th->sw))
			__atomic_store_n(&b->sort_failed, true,
					 __ATOMIC_RELAXED);
	}
	return NULL;
}

static int sort_all(struct vs_wake_build *b)
{
	pthread_t workers[SORT_WORKERS_MAX];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int n = cpus > SORT_WORKERS_MAX ? SORT_WORKERS_MAX :
			 cpus > 1 ? cpus : 1, k;
	size_t i;

	free(b->slots);
	b->slots = NULL;
	b->nr_slots = 0;
	vs_qsort(b->threads, b->nr_threads, sizeof(*b->threads), cmp_thread);
	/* the threads' records are their own: sorted in parallel */
	b->next_sort = 0;
	for (k = 1; k < n && k < b->nr_threads; k++)
		if (pthread_create(&workers[k], NULL, sort_threads, b))
			break;
	sort_threads(b);
	while (--k > 0)
		pthread_join(workers[k], NULL);
	if (b->sort_failed)
		return -1;
	vs_qsort(b->comms, b->nr_comms, sizeof(*b->comms), cmp_comm);
	if (index_tasks(b))
		return -1;
	if (!b->ts || !b->ts->nr_tasks)
		return 0;
	b->ts_by_tid = malloc(b->ts->nr_tasks * sizeof(*b->ts_by_tid));
	if (!b->ts_by_tid)
		return -1;
	for (i = 0; i < b->ts->nr_tasks; i++)
		b->ts_by_tid[i] = i;
	vs_qsort_r(b->ts_by_tid, b->ts->nr_tasks, sizeof(*b->ts_by_tid),
		   cmp_ts_task, (void *)b->ts);
	return 0;
}

/* The wake-ups of @th inside tasks, by what the waker did for them. */
static int count_edges(struct vs_wake_build *b,
		       struct vs_wake_blame *wb, const struct thread_recs *th)
{
	struct vs_dseq_cursor ec, ic;	/* ic: after the last interval that
					 * starts at or before the edge */
	struct interval iv;
	bool in_iv = false;

	vs_dseq_first(&ic, &th->iv);
	for (vs_dseq_first(&ec, &th->edges); vs_dseq_at(&ec);
	     vs_dseq_next(&ec)) {
		struct task_type_of *task = NULL;
		struct vs_wake_type *tc;
		struct edge e;

		decode_edge(ec.v, &e);
		for (; vs_dseq_at(&ic) && ic.v[IV_START] <= e.time;
		     vs_dseq_next(&ic)) {
			decode_interval(ic.v, &iv);
			in_iv = true;
		}
		if (!in_iv || iv.end < e.time)
			continue;	/* not inside a task */
		if (iv.attached && !(task = task_of(b, iv.task)))
			continue;	/* serves a task not in the trace */
		tc = type_counts(b, wb, task ? task->type : iv.type);
		if (!tc)
			return -1;
		tc->edges[judge(b, &e, &iv)]++;
	}
	return 0;
}

/* The waits of the tasks on @th (its own, not attached intervals). */
static int blame_thread(struct vs_wake_build *b, struct vs_wake_blame *wb,
			const struct thread_recs *th)
{
	struct vs_dseq_cursor ic, sc;	/* sc: the first switch at or after
					 * the interval's start */
	struct edge_search es = { .started = false };
	struct vs_wake_type *tc;
	struct interval iv;

	vs_dseq_first(&sc, &th->sw);
	for (vs_dseq_first(&ic, &th->iv); vs_dseq_at(&ic); vs_dseq_next(&ic)) {
		int blamed;

		decode_interval(ic.v, &iv);
		while (vs_dseq_at(&sc) && sc.v[SW_TIME] < iv.start)
			vs_dseq_next(&sc);
		if (iv.attached)
			continue;
		blamed = blame_interval(b, wb, th, &sc, &es, &iv);
		if (blamed < 0)
			return -1;
		if (!blamed)
			continue;
		tc = type_counts(b, wb, iv.type);
		if (!tc)
			return -1;
		tc->tasks++;
	}
	return 0;
}

struct vs_wake_blame *vs_wake_build_finish(struct vs_wake_build *b,
					   const struct vs_task_samples *ts)
{
	struct vs_wake_blame *wb = calloc(1, sizeof(*wb));
	size_t i;

	b->ts = ts;
	if (!wb || vs_wake_build_apply_journal(b) || sort_all(b))
		goto fail;
	for (i = 0; i < b->nr_threads; i++)
		if (count_edges(b, wb, &b->threads[i]))
			goto fail;
	for (i = 0; i < b->nr_threads; i++)
		if (blame_thread(b, wb, &b->threads[i]))
			goto fail;
	vs_wake_build_drop_walked(b);
	vs_qsort(wb->types, wb->nr_types, sizeof(*wb->types), cmp_wake_type);
	vs_id_index_release(&b->type_index);	/* the order changed */
	for (i = 0; i < wb->nr_types; i++)
		if (rank_type(&wb->types[i]))
			goto fail;
	if (label_wakers(wb))
		goto fail;
	wb->comms = malloc((b->nr_comms ? b->nr_comms : 1) *
			   sizeof(*wb->comms));
	if (!wb->comms)
		goto fail;
	for (i = 0; i < b->nr_comms; i++) {
		wb->comms[i] = b->comms[i].comm;
		b->comms[i].comm = NULL;
	}
	wb->nr_comms = b->nr_comms;
	vs_wake_build_free(b);
	return wb;
fail:
	vs_wake_blame_free(wb);
	vs_wake_build_free(b);
	return NULL;
}

struct vs_wake_blame *vs_wake_blame_load(struct vs_taskset *ts,
					 const char *path,
					 const struct vs_task_samples *samples,
					 char *err, size_t errlen)
{
	struct vs_wake_build *b = ts->wake;
	struct vs_wake_blame *wb;

	ts->wake = NULL;
	*err = 0;
	if (!b || !ts->nr_wakeups) {
		vs_wake_build_free(b);
		return NULL;
	}
	wb = vs_wake_build_finish(b, samples);
	if (!wb)
		snprintf(err, errlen, "%s: out of memory placing wake-up "
			 "edges", path);
	return wb;
}

void vs_wake_blame_free(struct vs_wake_blame *wb)
{
	unsigned int t, i;
	size_t c;

	if (!wb)
		return;
	for (t = 0; t < wb->nr_types; t++) {
		for (i = 0; i < wb->types[t].nr_wakers; i++) {
			free(wb->types[t].wakers[i].funcs);
			free(wb->types[t].wakers[i].label);
		}
		free(wb->types[t].wakers);
		free(wb->types[t].parts);
	}
	free(wb->types);
	for (c = 0; c < wb->nr_comms; c++)
		free(wb->comms[c]);
	free(wb->comms);
	free(wb);
}

const struct vs_wake_type *vs_wake_blame_type(const struct vs_wake_blame *wb,
					      uint32_t type)
{
	const struct vs_wake_type key = { .type = type };

	if (!wb || !wb->nr_types)
		return NULL;
	return bsearch(&key, wb->types, wb->nr_types, sizeof(*wb->types),
		       cmp_wake_type);		/* ascending type */
}

size_t vs_wake_task_parts(const struct vs_wake_type *wt, uint64_t task,
			  const struct vs_wake_part **first)
{
	size_t lo, end;

	*first = NULL;
	if (!wt || !wt->nr_parts)
		return 0;
	lo = COUNT_BEFORE(wt->parts, wt->nr_parts, PART_TASK, ZERO, task, 0);
	for (end = lo; end < wt->nr_parts && wt->parts[end].task == task; end++)
		;
	*first = wt->parts + lo;
	return end - lo;
}

const char *vs_waker_kind_name(enum vs_waker_kind k)
{
	static const char *const names[VS_WAKER__NR] = {
		[VS_WAKER_SAME_TASK] = "same_task",
		[VS_WAKER_OTHER_TASK] = "other_task",
		[VS_WAKER_OUTSIDE] = "outside_tasks",
		[VS_WAKER_INTERRUPT] = "interrupt",
	};

	return k < VS_WAKER__NR ? names[k] : "?";
}
