// SPDX-License-Identifier: MIT
/*
 * wakeup.c - wake-up edges judged against the tasks and attached
 * intervals of both threads, and the waits they ended blamed along them:
 * collect each thread's intervals, edges and switches in packed
 * sequences of its own (core/analysis/delta-seq.h; a thread's records come in
 * time order: they need no sort, except when they do not), then place
 * each edge and walk each wait's chain.
 *
 * What a record means depends on the records before it only for thread
 * names (a new thread inherits its creator's), kept in file order in a
 * journal applied when finishing, and for the intervals of type 0: the
 * task they serve is named by the last attach record of their thread
 * before them (core/analysis/attach.h), which each thread's attach records say
 * by how many intervals of the thread came before them.  Everything else
 * goes straight to its thread.  So the builds of consecutive parts of a
 * file, read at once by several readers, merge into the build of the
 * whole file (vs_wake_build_merge).
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

/*
 * The records kept per thread, one packed sequence of each kind, keyed
 * by time: 23 bytes for a gen-trace --wakeups task, which waits once (an
 * interval 8, a wake-up 4, two switches 4 each, the block index 3),
 * where the plain structures took 62.  Each is decoded into its
 * structure when it is walked.
 */
struct interval {
	uint64_t start, end;
	uint64_t task;			/* the task it is or serves */
	uint32_t type;			/* of its record */
	bool attached;			/* serves it */
	bool type0;			/* may serve a task (attach.h);
					 * placed when finishing */
};

enum { IV_START, IV_END, IV_TASK, IV_TYPE_FLAGS, IV_FIELDS };
#define IV_ATTACHED	2		/* flags under the type */
#define IV_TYPE0	1

/* a wake-up of the thread it is filed under */
struct edge {
	uint64_t time;
	uint32_t waker_tid;
};

enum { EDGE_TIME, EDGE_WAKER, EDGE_FIELDS };

struct switch_of {
	uint64_t time;
	bool out, preempt;
};

enum { SW_TIME, SW_FLAGS, SW_FIELDS };
#define SW_OUT		2
#define SW_PREEMPT	1

/* A VS_ATTACH record of a thread, after @before of its intervals. */
struct attach_at {
	size_t before;
	uint64_t time;
	uint64_t task;
};

struct task_type_of {
	uint64_t id;
	uint32_t type;
} __attribute__((packed));

/* The records of one thread, each sequence by time once finished. */
struct thread_recs {
	uint32_t tid;
	struct vs_dseq iv;		/* IV_FIELDS */
	struct vs_dseq edges;		/* its wake-ups, EDGE_FIELDS */
	struct vs_dseq sw;		/* SW_FIELDS */
	struct attach_at *attach;	/* in file order */
	size_t nr_attach, cap_attach;
};

static void decode_interval(const uint64_t *v, struct interval *iv)
{
	*iv = (struct interval){ v[IV_START], v[IV_END], v[IV_TASK],
		v[IV_TYPE_FLAGS] >> 2, v[IV_TYPE_FLAGS] & IV_ATTACHED,
		v[IV_TYPE_FLAGS] & IV_TYPE0 };
}

static int append_interval(struct vs_dseq *s, const struct interval *iv)
{
	uint64_t v[IV_FIELDS] = { iv->start, iv->end, iv->task,
		(uint64_t)iv->type << 2 | (iv->attached ? IV_ATTACHED : 0) |
		(iv->type0 ? IV_TYPE0 : 0) };

	return vs_dseq_append(s, v);
}

static void decode_edge(const uint64_t *v, struct edge *e)
{
	*e = (struct edge){ v[EDGE_TIME], v[EDGE_WAKER] };
}

static void decode_switch(const uint64_t *v, struct switch_of *sw)
{
	*sw = (struct switch_of){ v[SW_TIME], v[SW_FLAGS] & SW_OUT,
				  v[SW_FLAGS] & SW_PREEMPT };
}

struct comm_of {
	uint32_t tid;
	char *comm;
};

/* A name or a fork, as it was fed (comm strdup()ed). */
struct ordered {
	struct vs_record rec;
};

struct vs_wake_build {
	struct thread_recs *threads;	/* by tid, once finished */
	size_t nr_threads, cap_threads;
	uint32_t *slots;		/* feeding: tid hash of threads[] + 1 */
	size_t nr_slots;
	struct task_type_of *tasks;	/* finishing: by id, the tasks that
					 * attached intervals may serve */
	size_t nr_tasks;
	struct comm_of *comms;		/* by thread, once finished */
	size_t nr_comms, cap_comms;
	struct ordered *journal;	/* in file order, until finishing */
	size_t nr_journal, cap_journal;
	bool keep_parts;		/* the waits' parts, not only sums */
	bool attached;			/* an interval serves a task */
	/* finishing */
	size_t next_sort;		/* sort_all(): next thread to sort */
	bool sort_failed;		/* sort_all(): out of memory */
	const struct vs_task_samples *ts;
	size_t *ts_by_tid;		/* ts task indices by thread, start */
	uint64_t wait_at;		/* the wait of a task being blamed */
	struct vs_wake_blame *wb;
	struct vs_id_index type_index;	/* wb->types by type number,
						 * unsorted until the end */
	size_t cap_types;
};

struct vs_wake_build *vs_wake_build_new(bool parts)
{
	struct vs_wake_build *b = calloc(1, sizeof(*b));

	if (b)
		b->keep_parts = parts;
	return b;
}

/*
 * What the edges and waits were placed in: once every wait is blamed,
 * only the wakers, the parts and the names are left to use.  Freed then,
 * the largest arrays are not held while the parts are sorted.
 */
static void drop_walked(struct vs_wake_build *b)
{
	size_t i;

	for (i = 0; i < b->nr_threads; i++) {
		vs_dseq_release(&b->threads[i].iv);
		vs_dseq_release(&b->threads[i].edges);
		vs_dseq_release(&b->threads[i].sw);
		free(b->threads[i].attach);
	}
	free(b->threads);
	free(b->slots);
	free(b->tasks);
	free(b->ts_by_tid);
	b->threads = NULL;
	b->slots = NULL;
	b->tasks = NULL;
	b->ts_by_tid = NULL;
	b->nr_threads = b->nr_slots = b->nr_tasks = 0;
}

static void drop_journal(struct vs_wake_build *b)
{
	size_t i;

	for (i = 0; i < b->nr_journal; i++)
		if (b->journal[i].rec.kind == VS_REC_COMM)
			free((char *)b->journal[i].rec.comm.comm);
	free(b->journal);
	b->journal = NULL;
	b->nr_journal = b->cap_journal = 0;
}

void vs_wake_build_free(struct vs_wake_build *b)
{
	size_t i;

	if (!b)
		return;
	drop_walked(b);
	drop_journal(b);
	for (i = 0; i < b->nr_comms; i++)
		free(b->comms[i].comm);
	free(b->comms);
	vs_id_index_release(&b->type_index);
	free(b);
}

static int add_comm(struct vs_wake_build *b, uint32_t tid, const char *name)
{
	char *comm = strdup(name);

	if (!comm || ALLOC_GROW(b->comms, b->nr_comms + 1, b->cap_comms)) {
		free(comm);
		return -1;
	}
	b->comms[b->nr_comms++] = (struct comm_of){ tid, comm };
	return 0;
}

/* A new thread has its creator's name until it names itself. */
static int feed_fork(struct vs_wake_build *b, const struct vs_process *p)
{
	size_t i = b->nr_comms;

	if (p->what != VS_PROCESS_FORK)
		return 0;
	while (i-- > 0)
		if (b->comms[i].tid == p->ptid)
			return add_comm(b, p->tid, b->comms[i].comm);
	return 0;
}

static size_t slot_of(const struct vs_wake_build *b, uint32_t tid)
{
	size_t mask = b->nr_slots - 1, i = (tid * 2654435761u) & mask;

	while (b->slots[i] && b->threads[b->slots[i] - 1].tid != tid)
		i = (i + 1) & mask;
	return i;
}

/* Twice as many slots (at least 64): at most half of them in use. */
static int grow_slots(struct vs_wake_build *b)
{
	size_t n = b->nr_slots ? b->nr_slots * 2 : 64, i;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	free(b->slots);
	b->slots = slots;
	b->nr_slots = n;
	for (i = 0; i < b->nr_threads; i++)
		b->slots[slot_of(b, b->threads[i].tid)] = i + 1;
	return 0;
}

/* The records of thread @tid, new when it has none yet; NULL: no memory */
static struct thread_recs *thread_recs(struct vs_wake_build *b, uint32_t tid)
{
	struct thread_recs *th;
	size_t i;

	if (b->nr_slots) {
		i = slot_of(b, tid);
		if (b->slots[i])
			return &b->threads[b->slots[i] - 1];
	}
	if ((b->nr_threads + 1) * 2 > b->nr_slots && grow_slots(b))
		return NULL;
	if (ALLOC_GROW(b->threads, b->nr_threads + 1, b->cap_threads))
		return NULL;
	th = &b->threads[b->nr_threads];
	*th = (struct thread_recs){ .tid = tid };
	vs_dseq_init(&th->iv, IV_FIELDS);
	vs_dseq_init(&th->edges, EDGE_FIELDS);
	vs_dseq_init(&th->sw, SW_FIELDS);
	b->slots[slot_of(b, tid)] = ++b->nr_threads;
	return th;
}

/*
 * Task record @t: an interval of its thread, a task of its own unless
 * flagged attached; one of type 0 may serve a task instead
 * (resolve_served()).
 */
static int add_interval(struct vs_wake_build *b, const struct vs_task *t)
{
	struct thread_recs *th = thread_recs(b, t->tid);
	struct interval iv = { t->start, t->end, t->id, t->type,
			       t->flags & VS_TASK_ATTACHED, !t->type };

	b->attached |= iv.attached;
	return th ? append_interval(&th->iv, &iv) : -1;
}

static int add_attach(struct vs_wake_build *b, const struct vs_attach *a)
{
	struct thread_recs *th = thread_recs(b, a->tid);

	if (!th || ALLOC_GROW(th->attach, th->nr_attach + 1, th->cap_attach))
		return -1;
	th->attach[th->nr_attach++] = (struct attach_at){ th->iv.nr, a->time,
							  a->task_id };
	return 0;
}

/*
 * The intervals of type 0 of @th that serve a task: the last attach of
 * the thread before them has their start time (core/analysis/attach.c).  Its
 * intervals are coded again, in file order still.
 */
static int resolve_served(struct vs_wake_build *b, struct thread_recs *th)
{
	const struct attach_at *last = NULL;
	struct vs_dseq served;
	struct vs_dseq_cursor c;
	size_t k = 0;

	vs_dseq_init(&served, IV_FIELDS);
	for (vs_dseq_first(&c, &th->iv); vs_dseq_at(&c); vs_dseq_next(&c)) {
		struct interval iv;

		decode_interval(c.v, &iv);
		while (k < th->nr_attach && th->attach[k].before <= c.i)
			last = &th->attach[k++];
		if (iv.type0 && last && last->time == iv.start) {
			iv.task = last->task;
			iv.attached = b->attached = true;
		}
		if (append_interval(&served, &iv)) {
			vs_dseq_release(&served);
			return -1;
		}
	}
	vs_dseq_release(&th->iv);
	th->iv = served;
	return 0;
}

/* Keep @rec for later, in file order (see the top of the file). */
static int journal(struct vs_wake_build *b, const struct vs_record *rec)
{
	struct ordered *o;

	if (ALLOC_GROW(b->journal, b->nr_journal + 1, b->cap_journal))
		return -1;
	o = &b->journal[b->nr_journal];
	o->rec = *rec;
	if (rec->kind == VS_REC_COMM &&
	    !(o->rec.comm.comm = strdup(rec->comm.comm ? rec->comm.comm : "")))
		return -1;
	b->nr_journal++;
	return 0;
}

/* Apply the journal's records in file order, then the attach records. */
static int apply_journal(struct vs_wake_build *b)
{
	size_t i;

	for (i = 0; i < b->nr_journal; i++) {
		const struct vs_record *rec = &b->journal[i].rec;

		if (rec->kind == VS_REC_COMM ?
		    add_comm(b, rec->comm.tid, rec->comm.comm) :
		    feed_fork(b, &rec->process))
			return -1;
	}
	drop_journal(b);
	for (i = 0; i < b->nr_threads; i++)
		if (b->threads[i].nr_attach &&
		    resolve_served(b, &b->threads[i]))
			return -1;
	return 0;
}

int vs_wake_build_feed(struct vs_wake_build *b, const struct vs_record *rec)
{
	struct thread_recs *th;

	switch (rec->kind) {
	case VS_REC_WAKEUP: {
		uint64_t v[EDGE_FIELDS] = { rec->wakeup.time,
					    rec->wakeup.waker_tid };

		th = thread_recs(b, rec->wakeup.wakee_tid);
		return th ? vs_dseq_append(&th->edges, v) : -1;
	}
	case VS_REC_SWITCH: {
		uint64_t v[SW_FIELDS] = { rec->switch_.time,
			(rec->switch_.out ? SW_OUT : 0) |
			(rec->switch_.preempt ? SW_PREEMPT : 0) };

		th = thread_recs(b, rec->switch_.tid);
		return th ? vs_dseq_append(&th->sw, v) : -1;
	}
	case VS_REC_ATTACH:
		return rec->attach.what == VS_ATTACH ?
		       add_attach(b, &rec->attach) : 0;
	case VS_REC_COMM:
		return journal(b, rec);
	case VS_REC_PROCESS:
		return rec->process.what == VS_PROCESS_FORK ? journal(b, rec) : 0;
	case VS_REC_TASK:
		return add_interval(b, &rec->task);
	default:
		return 0;
	}
}

/*
 * Move the @n elements of @size in *@src (capacity *@src_cap) to the end
 * of the *@nr in *@dst (capacity *@cap): the array itself when *@dst has
 * none; else appended and *@src freed at once, so that two copies of the
 * records are never held.
 */
static int append(void *dst, size_t *nr, size_t *cap, void *src,
		  size_t *src_cap, size_t n, size_t size)
{
	if (!n)
		return 0;
	if (!*nr) {
		free(*(void **)dst);
		*(void **)dst = *(void **)src;
		*cap = *src_cap;
	} else {
		if (vs_alloc_grow(dst, cap, *nr + n, size))
			return -1;
		memcpy(*(char **)dst + *nr * size, *(void **)src, n * size);
		free(*(void **)src);
	}
	*(void **)src = NULL;
	*src_cap = 0;
	*nr += n;
	return 0;
}

int vs_wake_build_merge(struct vs_wake_build *b, struct vs_wake_build *next)
{
	size_t i;

	for (i = 0; i < next->nr_threads; i++) {
		struct thread_recs *from = &next->threads[i];
		struct thread_recs *th = thread_recs(b, from->tid);
		size_t k;

		if (!th)
			goto fail;
		for (k = 0; k < from->nr_attach; k++)
			from->attach[k].before += th->iv.nr;
		if (append(&th->attach, &th->nr_attach, &th->cap_attach,
			   &from->attach, &from->cap_attach, from->nr_attach,
			   sizeof(*th->attach)) ||
		    vs_dseq_concat(&th->iv, &from->iv) ||
		    vs_dseq_concat(&th->edges, &from->edges) ||
		    vs_dseq_concat(&th->sw, &from->sw))
			goto fail;
	}
	if (append(&b->journal, &b->nr_journal, &b->cap_journal,
		   &next->journal, &next->cap_journal, next->nr_journal,
		   sizeof(*b->journal)))
		goto fail;
	next->nr_journal = 0;	/* its names are @b's now */
	b->attached |= next->attached;
	vs_wake_build_free(next);
	return 0;
fail:
	vs_wake_build_free(next);
	return -1;
}

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
	if (!wb || apply_journal(b) || sort_all(b))
		goto fail;
	for (i = 0; i < b->nr_threads; i++)
		if (count_edges(b, wb, &b->threads[i]))
			goto fail;
	for (i = 0; i < b->nr_threads; i++)
		if (blame_thread(b, wb, &b->threads[i]))
			goto fail;
	drop_walked(b);
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
