// SPDX-License-Identifier: MIT
/*
 * taskset-read.c - read a trace's task records into task sets: the file
 * cut into parts read in parallel, each task routed to the time ranges
 * that hold it, what the same pass collects for the wake-up analysis
 * and who ran instead, the parts' sets merged in file order at the end.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/analysis/attach.h"
#include "core/sort.h"
#include "core/analysis/taskset.h"
#include "core/analysis/taskset-int.h"
#include "core/analysis/wakeup.h"

#define PROGRESS_EVERY	4096	/* tasks between progress calls */

static void set_warning(struct vs_taskset *ts, const char *w)
{
	if (w && !ts->warning)
		ts->warning = strdup(w);
}

/*
 * The time ranges of a read, to route each task to those that hold it, in
 * layers of ranges that do not overlap, each by start time: a task is in
 * one range of a layer at most, found by a binary search.  Slices that
 * tile a file are one layer, the whole file read with them another.
 */
struct ranges {
	size_t nr;
	const struct vs_time_range *range;	/* as given */
	size_t *by_layer;	/* indices: layer after layer, by from_ns */
	size_t *layer;		/* layer l: by_layer[layer[l] .. layer[l + 1]) */
	size_t nr_layers;
	struct vs_time_range span;		/* what they cover together */
};

/* The end of @r as a bound: an open end is after every time. */
static uint64_t range_end(const struct vs_time_range *r)
{
	return r->to_ns ? r->to_ns : UINT64_MAX;
}

static int cmp_from(const void *a, const void *b, void *arg)
{
	const struct vs_time_range *range = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (range[x].from_ns != range[y].from_ns)
		return range[x].from_ns < range[y].from_ns ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * Put the ranges @by_from (indices by start time) in layers: each in the
 * first layer it does not overlap, that layer's number into @layer_of;
 * how many layers there are.  @last_end: room for @nr ends.
 */
static size_t make_layers(const struct vs_time_range *range,
			  const size_t *by_from, size_t nr, size_t *layer_of,
			  uint64_t *last_end)
{
	size_t k, l, nr_layers = 0;

	for (k = 0; k < nr; k++) {
		const struct vs_time_range *r = &range[by_from[k]];

		for (l = 0; l < nr_layers && last_end[l] > r->from_ns; l++)
			;
		if (l == nr_layers)
			nr_layers++;
		last_end[l] = range_end(r);
		layer_of[k] = l;
	}
	return nr_layers;
}

static int ranges_init(struct ranges *rs, const struct vs_time_range *range,
		       size_t nr)
{
	size_t *by_from = malloc((nr ? nr : 1) * sizeof(*by_from));
	size_t *layer_of = malloc((nr ? nr : 1) * sizeof(*layer_of));
	uint64_t *last_end = malloc((nr ? nr : 1) * sizeof(*last_end));
	uint64_t last = 0;
	size_t k, l;
	int ret = -1;

	rs->nr = nr;
	rs->range = range;
	rs->by_layer = malloc((nr ? nr : 1) * sizeof(*rs->by_layer));
	rs->layer = calloc(nr + 1, sizeof(*rs->layer));
	if (!nr || !by_from || !layer_of || !last_end || !rs->by_layer ||
	    !rs->layer)
		goto out;
	for (k = 0; k < nr; k++)
		by_from[k] = k;
	vs_qsort_r(by_from, nr, sizeof(*by_from), cmp_from, (void *)range);
	rs->nr_layers = make_layers(range, by_from, nr, layer_of, last_end);
	for (k = 0; k < nr; k++) {
		uint64_t end = range_end(&range[by_from[k]]);

		last = end > last ? end : last;
		rs->layer[layer_of[k] + 1]++;
	}
	for (l = 0; l < rs->nr_layers; l++)
		rs->layer[l + 1] += rs->layer[l];
	for (l = 0; l < rs->nr_layers; l++)	/* where each fills now */
		last_end[l] = rs->layer[l];
	for (k = 0; k < nr; k++)
		rs->by_layer[last_end[layer_of[k]]++] = by_from[k];
	rs->span.from_ns = range[by_from[0]].from_ns;
	rs->span.to_ns = last == UINT64_MAX ? 0 : last;
	ret = 0;
out:
	free(by_from);
	free(layer_of);
	free(last_end);
	return ret;
}

static void ranges_release(struct ranges *rs)
{
	free(rs->by_layer);
	free(rs->layer);
}

/* The ranges that hold a task ending at @end, into @hits; how many. */
static size_t route(const struct ranges *rs, uint64_t end, size_t *hits)
{
	size_t l, n = 0;

	for (l = 0; l < rs->nr_layers; l++) {
		const size_t *in = rs->by_layer + rs->layer[l];
		size_t lo = 0, hi = rs->layer[l + 1] - rs->layer[l];

		while (lo < hi) {	/* in[lo..] start after @end */
			size_t mid = lo + (hi - lo) / 2;

			if (rs->range[in[mid]].from_ns <= end)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && end < range_end(&rs->range[in[lo - 1]]))
			hits[n++] = in[lo - 1];
	}
	return n;
}

/* One reader's share of the file: records of chunks in [start, end). */
struct part {
	struct vs_reader *r;
	struct vs_taskset **ts;		/* one per range; ts[0] holds the
					 * epochs and attached intervals */
	const struct vs_taskset_opts *opts;
	const struct ranges *ranges;
	size_t *hits;			/* the ranges of a task */
	uint64_t start_off, end_off;
	bool pending;			/* rec holds a record read ahead */
	struct vs_record rec;
	int status;			/* VS_LOAD_* */
	uint64_t done;			/* bytes behind, for progress */
	struct part *all;		/* part 0 reports progress for all */
	unsigned int nr_parts;
	struct vs_value *values;	/* a task's values with the extra ones */
	size_t alloc_values;
	struct vs_attach_map *attach;	/* the attach records read */
	struct vs_wake_build *wake;	/* opts->wakeups: records in
					 * [start_off, end_off) */
	struct vs_type_names names;	/* type_name records read */
	bool ran_on;			/* opts->ran_instead over the file */
	int ran_event;			/* VS_RAN_EVENT's id; -1: not
					 * found yet */
	struct vs_ran_list ran;		/* records in [start_off, end_off) */
};

#define MAX_EXTRA_VALUES	128	/* sampled .time and .total, probed */

/* The values of opts->task_values added to those of @t. */
static int add_extra_values(struct part *p, struct vs_task *t)
{
	const struct vs_taskset_opts *o = p->opts;

	if (ALLOC_GROW(p->values, t->nr_values + MAX_EXTRA_VALUES,
		       p->alloc_values))
		return -1;
	memcpy(p->values, t->values, t->nr_values * sizeof(*p->values));
	t->nr_values += o->task_values(o->task_values_arg, t,
				       p->values + t->nr_values,
				       MAX_EXTRA_VALUES);
	t->values = p->values;
	return 0;
}

/* Task @t, with the values the options ask for, into @nr ranges' sets. */
static int add_to_ranges(struct part *p, const struct vs_task *t, size_t nr)
{
	struct vs_task task = *t;
	size_t i;

	if (!p->opts->latency_only && p->opts->task_values &&
	    add_extra_values(p, &task))
		return -1;
	for (i = 0; i < nr; i++)
		if (vs_taskset_add_task(p->ts[p->hits[i]], &task))
			return -1;
	return 0;
}

/*
 * An attached interval goes to the task it serves whatever its time: the
 * values of its record alone, none for a latency-only set.  Function
 * events (opts->task_values) are not added: the served task's own already
 * hold the interval's function time (sampled: core/analysis/task-samples.c,
 * probed: core/analysis/func-times.c).  An interval whose attach record this
 * part did not see is dropped.
 */
static int take_attached(struct part *p, const struct vs_task *t)
{
	uint64_t serves = vs_attach_map_served(p->attach, t);
	struct vs_task bare = *t;

	if (!serves)
		return 0;
	if (p->opts->latency_only)
		bare.nr_values = 0;
	return vs_taskset_add_attached(p->ts[0], serves, &bare);
}

/* @rec into the ran_instead records of part @p (ran_on). */
static int feed_ran(struct part *p, const struct vs_record *rec)
{
	unsigned int id;

	/* the catalog may grow as the file goes: looked up at a task */
	if (p->ran_event < 0 && rec->kind == VS_REC_TASK &&
	    p->ran.nr_pending) {
		for (id = 0; id < vs_reader_nr_events(p->r); id++) {
			const struct vs_event_def *def =
				vs_reader_event(p->r, id);

			if (def && def->name && !strcmp(def->name, VS_RAN_EVENT))
				p->ran_event = (int)id;
		}
	}
	return vs_ran_list_feed(&p->ran, rec, p->ran_event);
}

static int take_record(struct part *p, const struct vs_record *rec)
{
	const struct vs_taskset_opts *o = p->opts;
	const struct vs_task *t = &rec->task;
	uint64_t off = vs_reader_offset(p->r);
	size_t nr;

	if (p->wake && off >= p->start_off && off < p->end_off &&
	    vs_wake_build_feed(p->wake, rec))
		return -1;
	if (p->ran_on && off >= p->start_off && off < p->end_off &&
	    feed_ran(p, rec))
		return -1;

	if (rec->kind == VS_REC_EPOCH && !o->latency_only)
		return vs_taskset_add_epoch(p->ts[0], &rec->epoch);
	if (rec->kind == VS_REC_TYPE_NAME)
		return vs_type_names_add(&p->names, rec->type_name.type,
					 rec->type_name.name) < 0 ? -1 : 0;
	if (rec->kind == VS_REC_ATTACH)
		return vs_attach_map_add(p->attach, rec);
	if (rec->kind == VS_REC_WAKEUP)
		p->ts[0]->nr_wakeups++;
	if (rec->kind != VS_REC_TASK || vs_reader_offset(p->r) < p->start_off)
		return 0;
	if (t->type == 0 && (t->flags & VS_TASK_ATTACHED ||
			     vs_attach_map_served(p->attach, t)))
		return take_attached(p, t);
	if (o->one_type && t->type != o->type)
		return 0;
	nr = route(p->ranges, t->end, p->hits);
	return nr ? add_to_ranges(p, t, nr) : 0;
}

/*
 * The task of the ran_instead records @p's part ended with lies in the
 * next part's first chunk, where @p->rec, its first record, is: read on
 * in that chunk to the task, and give it the records.  The next part
 * reads the records of that chunk before the task itself; @p reads no
 * further than the chunk, whatever it holds.  Returns 0, or -1 when
 * memory runs out.
 */
static int finish_ran(struct part *p)
{
	uint64_t chunk = vs_reader_offset(p->r);
	int ret = 1;

	if (!p->ran_on || !p->ran.nr_pending)
		return 0;
	for (; ret > 0 && vs_reader_offset(p->r) == chunk;
	     ret = vs_reader_next(p->r, &p->rec)) {
		if (p->rec.kind == VS_REC_RAN_INSTEAD &&
		    p->rec.ran_instead.task_id == p->ran.pending_task)
			continue;		/* the next part's */
		if (p->rec.kind == VS_REC_RAN_INSTEAD)
			break;			/* another task's: never came */
		if (p->rec.kind == VS_REC_TASK)
			return feed_ran(p, &p->rec);
	}
	p->ran.nr_pending = 0;		/* a damaged chunk: the next part's */
	return 0;
}

static void part_progress(struct part *p)
{
	uint64_t off = vs_reader_offset(p->r), sum = 0;
	unsigned int i;

	__atomic_store_n(&p->done, off > p->start_off ? off - p->start_off : 0,
			 __ATOMIC_RELAXED);
	if (p != p->all || !p->opts->progress)
		return;
	for (i = 0; i < p->nr_parts; i++)
		sum += __atomic_load_n(&p->all[i].done, __ATOMIC_RELAXED);
	p->opts->progress(p->opts->progress_arg, sum, vs_reader_size(p->r));
}

static void *load_part(void *arg)
{
	struct part *p = arg;
	uint64_t seen = 0;
	int ret = 1;

	p->status = VS_LOAD_ERROR;
	/* a part that starts where the next one does has no task */
	if (p->pending && p->start_off < p->end_off &&
	    take_record(p, &p->rec))
		return NULL;
	while (p->start_off != UINT64_MAX && (ret = vs_reader_next(p->r, &p->rec)) > 0) {
		if (vs_reader_offset(p->r) >= p->end_off) {
			if (finish_ran(p))
				return NULL;
			break;
		}
		if (take_record(p, &p->rec))
			return NULL;
		if (!(++seen % PROGRESS_EVERY))
			part_progress(p);
	}
	p->status = ret < 0 ? VS_LOAD_CORRUPT : VS_LOAD_OK;
	return NULL;
}

/* Forget the wake-up records collected so far: they are another part's. */
static int restart_wake(struct part *p)
{
	if (!p->wake)
		return 0;
	vs_wake_build_free(p->wake);
	p->wake = vs_wake_build_new(p->opts->wake_parts);
	return p->wake ? 0 : -1;
}

/*
 * Position reader @p at time @time and read ahead to its first task: the
 * part starts at that task's chunk.  Epochs read on the way are kept;
 * the wake-up records and the ran_instead records of that chunk before
 * the task are the part's (those of the chunks before it, the previous
 * part's).
 */
static int start_part(struct part *p, uint64_t time)
{
	uint64_t chunk = UINT64_MAX, wakeups = 0;
	int ret;

	if (vs_reader_seek_time(p->r, time))
		return -1;
	p->start_off = UINT64_MAX;
	while ((ret = vs_reader_next(p->r, &p->rec)) > 0) {
		if (vs_reader_offset(p->r) != chunk) {
			chunk = vs_reader_offset(p->r);
			wakeups = 0;
			p->ran.nr_pending = 0;
			if (restart_wake(p))
				return -1;
		}
		if (p->rec.kind == VS_REC_TASK) {
			p->start_off = vs_reader_offset(p->r);
			p->ts[0]->nr_wakeups += wakeups;
			p->pending = true;
			return 0;
		}
		if (p->rec.kind == VS_REC_WAKEUP)
			wakeups++;
		if (p->rec.kind == VS_REC_EPOCH && !p->opts->latency_only &&
		    vs_taskset_add_epoch(p->ts[0], &p->rec.epoch))
			return -1;
		if (p->rec.kind == VS_REC_TYPE_NAME &&
		    vs_type_names_add(&p->names, p->rec.type_name.type,
				      p->rec.type_name.name) < 0)
			return -1;
		if (vs_attach_map_add(p->attach, &p->rec))
			return -1;
		if (p->wake && vs_wake_build_feed(p->wake, &p->rec))
			return -1;
		if (p->ran_on && feed_ran(p, &p->rec))
			return -1;
	}
	return ret;
}

/*
 * The names in @names of @ts's types: not all of the file's, so that the
 * sets of many ranges cost what their types do, not the ranges times the
 * names.
 */
static int add_type_names(struct vs_taskset *ts,
			  const struct vs_type_names *names)
{
	const char *name;
	unsigned int t;

	for (t = 0; t < ts->nr_types; t++) {
		name = vs_type_names_get(names, ts->types[t].type);
		if (name && vs_type_names_add(&ts->names, ts->types[t].type,
					      name) < 0)
			return -1;
	}
	return 0;
}

static int add_catalog(struct vs_taskset *ts, struct vs_reader *r)
{
	unsigned int id;

	for (id = 0; id < vs_reader_nr_events(r); id++) {
		const struct vs_event_def *def = vs_reader_event(r, id);

		if (def && vs_taskset_add_event(ts, def))
			return -1;
	}
	return 0;
}

/* Cut @span of the trace into @n parts by time; 1 if it cannot. */
static unsigned int plan_parts(struct part *parts, unsigned int n,
			       const struct vs_time_range *span)
{
	uint64_t first, last;
	unsigned int k;

	if (n < 2 || vs_reader_time_range(parts[0].r, &first, &last))
		return 1;
	if (span->from_ns > first)
		first = span->from_ns;
	if (span->to_ns && span->to_ns < last)
		last = span->to_ns;
	if (last <= first)
		return 1;
	for (k = 1; k < n; k++) {
		if (start_part(&parts[k], first + (last - first) / n * k))
			return k;
		if (parts[k].start_off < parts[k - 1].start_off) {
			/* it reads on to there: what it read is before */
			parts[k].start_off = parts[k - 1].start_off;
			if (restart_wake(&parts[k]))
				return k;
		}
		parts[k - 1].end_off = parts[k].start_off;
	}
	return n;
}

/*
 * The wake-up records of the parts that read some of the file, in file
 * order, into part 0's first task set.  A file without wake-up records
 * has no blame to make: the parts' records are freed at once, before the
 * task sets are finished.
 */
static int merge_wake(struct part *parts, unsigned int used)
{
	struct vs_wake_build *wake = parts[0].wake;
	unsigned int k;

	if (!wake)
		return 0;
	if (!parts[0].ts[0]->nr_wakeups) {
		for (k = 0; k < used; k++) {
			vs_wake_build_free(parts[k].wake);
			parts[k].wake = NULL;
		}
		return 0;
	}
	parts[0].wake = NULL;
	for (k = 1; k < used; k++) {
		struct vs_wake_build *next = parts[k].wake;

		if (parts[k].start_off >= parts[k].end_off)
			continue;	/* read nothing of its own */
		parts[k].wake = NULL;
		if (vs_wake_build_merge(wake, next)) {
			vs_wake_build_free(wake);
			return -1;
		}
	}
	parts[0].ts[0]->wake = wake;
	return 0;
}

/* The ran_instead records of the parts, in file order, into part 0's
 * first task set. */
static int merge_ran(struct part *parts, unsigned int used)
{
	struct vs_ran_list *ran = &parts[0].ts[0]->ran;
	unsigned int k;

	if (!parts[0].ran_on)
		return 0;
	if (vs_ran_list_merge(ran, &parts[0].ran))
		return -1;
	for (k = 1; k < used; k++)
		if (parts[k].start_off < parts[k].end_off &&
		    vs_ran_list_merge(ran, &parts[k].ran))
			return -1;
	return 0;
}

/* Part @p's reader and empty task sets, one per range of @rs. */
static int part_init(struct part *p, const char *path,
		     const struct vs_taskset_opts *opts,
		     const struct ranges *rs, char *err, size_t errlen)
{
	size_t i;

	p->r = vs_reader_open(path, err, errlen);
	if (!p->r)
		return VS_LOAD_CORRUPT;
	p->ts = calloc(rs->nr, sizeof(*p->ts));
	p->hits = malloc(rs->nr * sizeof(*p->hits));
	p->attach = vs_attach_map_new();
	if (!p->ts || !p->hits || !p->attach)
		return VS_LOAD_ERROR;
	for (i = 0; i < rs->nr; i++) {
		p->ts[i] = vs_taskset_new();
		if (!p->ts[i])
			return VS_LOAD_ERROR;
		if (i)
			vs_taskset_share_context(p->ts[i], p->ts[0]);
		vs_taskset_set_latency_only(p->ts[i], opts->latency_only ||
					    rs->range[i].latency_only);
	}
	if (opts->wakeups && !rs->span.from_ns && !rs->span.to_ns &&
	    !(p->wake = vs_wake_build_new(opts->wake_parts)))
		return VS_LOAD_ERROR;
	p->ran_on = opts->ran_instead && !rs->span.from_ns && !rs->span.to_ns;
	p->ran_event = -1;
	p->opts = opts;
	p->ranges = rs;
	p->end_off = UINT64_MAX;
	return VS_LOAD_OK;
}

static void free_parts(struct part *parts, unsigned int n, size_t nr_ranges)
{
	unsigned int k;
	size_t i;

	for (k = 0; k < n; k++) {
		if (parts[k].r)
			vs_reader_close(parts[k].r);
		free(parts[k].values);
		free(parts[k].hits);
		vs_attach_map_free(parts[k].attach);
		vs_wake_build_free(parts[k].wake);
		vs_ran_list_release(&parts[k].ran);
		vs_type_names_release(&parts[k].names);
		for (i = 0; parts[k].ts && i < nr_ranges; i++)
			vs_taskset_free(parts[k].ts[i]);
		free(parts[k].ts);
	}
	free(parts);
}

/*
 * The task sets of the @used parts joined in file order, with the
 * catalog and the readers' warnings, finished into @out: -1 when memory
 * runs out.  A range's sets are merged and finished after those of the
 * ranges that share their context.
 */
static int join_parts(struct part *parts, unsigned int used,
		      size_t nr_ranges, struct vs_taskset **out)
{
	const struct vs_taskset_opts *o = parts[0].opts;
	struct vs_taskset *ts;
	unsigned int k;
	size_t i;

	for (k = 1; k < used; k++) {
		for (i = nr_ranges; i-- > 0;) {
			ts = parts[k].ts[i];
			parts[k].ts[i] = NULL;
			if (vs_taskset_merge(parts[0].ts[i], ts))
				return -1;
		}
	}
	if (merge_wake(parts, used) || merge_ran(parts, used))
		return -1;
	for (i = nr_ranges; i-- > 0;) {
		ts = parts[0].ts[i];
		ts->nr_wakeups = parts[0].ts[0]->nr_wakeups;
		/* a set of latencies has no columns to name: no catalog (a
		 * copy per range would cost the ranges times the catalog) */
		for (k = 0; !vs_taskset_latency_only(ts) &&
			    k < o->nr_extra_events; k++)
			if (vs_taskset_add_event(ts, &o->extra_events[k]))
				return -1;
		for (k = 0; k < used; k++) {
			if ((!vs_taskset_latency_only(ts) &&
			     add_catalog(ts, parts[k].r)) ||
			    add_type_names(ts, &parts[k].names))
				return -1;
			set_warning(ts, vs_reader_warning(parts[k].r));
		}
		if (vs_taskset_finish(ts))
			return -1;
		out[i] = ts;
		parts[0].ts[i] = NULL;
	}
	return 0;
}

int vs_taskset_read_ranges(const char *path, const struct vs_taskset_opts *opts,
			   const struct vs_time_range *range, size_t nr_ranges,
			   struct vs_taskset **out, char *err, size_t errlen)
{
	static const struct vs_taskset_opts all;
	unsigned int n = opts && opts->parts > 1 ? opts->parts : 1, k, used;
	pthread_t *threads = calloc(n, sizeof(*threads));
	struct part *parts = calloc(n, sizeof(*parts));
	struct ranges rs = { 0 };
	const struct vs_time_range *span = &rs.span;
	int status = VS_LOAD_ERROR;
	size_t i;

	memset(out, 0, nr_ranges * sizeof(*out));
	if (!opts)
		opts = &all;
	if (!parts || !threads || ranges_init(&rs, range, nr_ranges))
		goto nomem;
	if (!vs_trace_can_open(path, err, errlen))
		goto out;
	for (k = 0; k < n; k++) {
		status = part_init(&parts[k], path, opts, &rs, err, errlen);
		if (status == VS_LOAD_CORRUPT) {	/* @err says why */
			status = k ? VS_LOAD_ERROR : VS_LOAD_CORRUPT;
			goto out;
		}
		if (status)
			goto nomem;
		parts[k].all = parts;
	}
	used = plan_parts(parts, n, span);
	for (k = 0; k < used; k++)
		parts[k].nr_parts = used;
	if (span->to_ns)
		parts[used - 1].end_off = vs_reader_offset_until(parts[0].r,
								 span->to_ns);
	if (span->from_ns && vs_reader_seek_time(parts[0].r, span->from_ns))
		goto corrupt;
	for (k = 1; k < used; k++)
		if (pthread_create(&threads[k], NULL, load_part, &parts[k]))
			break;
	load_part(&parts[0]);
	while (--k > 0)
		pthread_join(threads[k], NULL);

	for (k = 0; k < used; k++) {
		if (parts[k].status == VS_LOAD_OK)
			continue;
		if (parts[k].status == VS_LOAD_CORRUPT) {
			snprintf(err, errlen, "%s", vs_reader_error(parts[k].r));
			status = VS_LOAD_CORRUPT;
			goto out;
		}
		goto nomem;
	}
	if (join_parts(parts, used, nr_ranges, out))
		goto nomem;
	status = VS_LOAD_OK;
	goto out;
corrupt:
	snprintf(err, errlen, "%s", vs_reader_error(parts[0].r));
	status = VS_LOAD_CORRUPT;
	goto out;
nomem:
	snprintf(err, errlen, "%s: out of memory loading tasks", path);
	status = VS_LOAD_ERROR;
out:
	if (status)
		for (i = 0; i < nr_ranges; i++) {
			vs_taskset_free(out[i]);
			out[i] = NULL;
		}
	if (parts)
		free_parts(parts, n, nr_ranges);
	ranges_release(&rs);
	free(threads);
	return status;
}

int vs_taskset_read(const char *path, const struct vs_taskset_opts *opts,
		    struct vs_taskset **out, char *err, size_t errlen)
{
	struct vs_time_range range = { 0 };

	if (opts)
		range = (struct vs_time_range){ .from_ns = opts->from_ns,
						.to_ns = opts->to_ns };
	return vs_taskset_read_ranges(path, opts, &range, 1, out, err, errlen);
}
