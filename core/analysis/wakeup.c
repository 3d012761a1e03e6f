// SPDX-License-Identifier: MIT
/*
 * wakeup.c - wake-up edges judged against the tasks and attached
 * intervals of both threads, and the waits they ended blamed along them:
 * collect each thread's intervals, edges and switches in packed
 * sequences of its own (core/analysis/delta-seq.h; a thread's records come in
 * time order: they need no sort, except when they do not), then place
 * each edge and walk each wait's chain (wakeup-blame.c).
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
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/analysis/delta-seq.h"
#include "core/id-index.h"
#include "core/analysis/wakeup.h"
#include "core/analysis/wakeup-int.h"

struct vs_wake_build *vs_wake_build_new(bool parts)
{
	struct vs_wake_build *b = calloc(1, sizeof(*b));

	if (b)
		b->keep_parts = parts;
	return b;
}

void vs_wake_build_drop_walked(struct vs_wake_build *b)
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
	vs_wake_build_drop_walked(b);
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

int vs_wake_build_apply_journal(struct vs_wake_build *b)
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
