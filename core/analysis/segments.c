// SPDX-License-Identifier: MIT
/*
 * segments.c - segments of long recordings: naming them, cutting traces
 * into them, and the latency figures of Table 3 (VarMRI section 6).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/array.h"
#include "core/analysis/impact.h"
#include "core/parse-options.h"
#include "core/analysis/segments.h"
#include "core/sort.h"

/* --- naming segments --- */

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* START..END after the '@' of @arg; either side may be empty. */
static int parse_range(const char *arg, const char *range,
		       struct vs_segment_spec *spec, char *err, size_t errlen)
{
	const char *dots = strstr(range, "..");
	char from[64], to[64];

	if (!dots) {
		snprintf(err, errlen, "'%s': a time range is START..END, "
			 "like 10s..20s", arg);
		return -1;
	}
	snprintf(from, sizeof(from), "%.*s", (int)(dots - range), range);
	snprintf(to, sizeof(to), "%s", dots + 2);
	if (*from && vs_parse_duration(from, &spec->from)) {
		snprintf(err, errlen, "'%s': bad start '%s' (a duration like "
			 "10s, 500ms or 2m)", arg, from);
		return -1;
	}
	spec->open_end = !*to;
	if (*to && vs_parse_duration(to, &spec->to)) {
		snprintf(err, errlen, "'%s': bad end '%s' (a duration like "
			 "10s, 500ms or 2m)", arg, to);
		return -1;
	}
	if (!spec->open_end && spec->to <= spec->from) {
		snprintf(err, errlen, "'%s': the range ends %s its start", arg,
			 spec->to < spec->from ? "before" : "at");
		return -1;
	}
	spec->kind = VS_SEGMENT_RANGE;
	return 0;
}

int vs_segment_spec_parse(const char *arg, struct vs_segment_spec *spec,
			  char *err, size_t errlen)
{
	const char *at = strrchr(arg, '@'), *colon = strrchr(arg, ':');
	size_t path_len = strlen(arg);

	memset(spec, 0, sizeof(*spec));
	spec->kind = VS_SEGMENT_FILE;
	if (!*arg) {
		snprintf(err, errlen, "empty segment name");
		return -1;
	}
	if (access(arg, F_OK)) {
		if (at && (strstr(at, "..") || isdigit((unsigned char)at[1]))) {
			if (parse_range(arg, at + 1, spec, err, errlen))
				return -1;
			path_len = at - arg;
		} else if (colon && all_digits(colon + 1)) {
			errno = 0;
			spec->slice = strtoul(colon + 1, NULL, 10);
			if (!spec->slice || errno) {
				snprintf(err, errlen, "'%s': slices are "
					 "numbered from 1", arg);
				return -1;
			}
			spec->kind = VS_SEGMENT_SLICE;
			path_len = colon - arg;
		}
	}
	if (!path_len) {
		snprintf(err, errlen, "'%s': no file name", arg);
		return -1;
	}
	spec->arg = strdup(arg);
	spec->path = strndup(arg, path_len);
	if (!spec->arg || !spec->path) {
		vs_segment_spec_release(spec);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void vs_segment_spec_release(struct vs_segment_spec *spec)
{
	free(spec->arg);
	free(spec->path);
	spec->arg = spec->path = NULL;
}

/* --- resolving them against their files --- */

/*
 * The start of the recording in @path and the time of its last record:
 * the header's start time, or the first record's when the header has
 * none (or one after it).  An empty trace ends where it starts.
 */
static int recording_span(const char *path, uint64_t *start, uint64_t *last,
			  char *err, size_t errlen)
{
	struct vs_reader *r;
	uint64_t first;

	if (!vs_trace_can_open(path, err, errlen))
		return VS_LOAD_ERROR;
	r = vs_reader_open(path, err, errlen);
	if (!r)
		return VS_LOAD_CORRUPT;
	*start = vs_reader_start_time(r);
	if (vs_reader_time_range(r, &first, last)) {
		if (vs_reader_error(r)) {
			snprintf(err, errlen, "%s", vs_reader_error(r));
			vs_reader_close(r);
			return VS_LOAD_CORRUPT;
		}
		*last = *start;
	}
	vs_reader_close(r);
	return VS_LOAD_OK;
}

/* Slices of @length from @start that reach the record at @last. */
static uint64_t nr_slices(uint64_t start, uint64_t last, uint64_t length)
{
	return (last - start) / length + 1;
}

/* @seg: a copy of @from with its own path and label. */
static int set_segment(struct vs_trace_segment *seg,
		       const struct vs_trace_segment *from)
{
	*seg = *from;
	seg->path = strdup(from->path);
	seg->label = strdup(from->label);
	if (seg->path && seg->label)
		return 0;
	vs_segment_release(seg);
	return -1;
}

int vs_segment_resolve(const struct vs_segment_spec *spec, uint64_t length,
		       struct vs_trace_segment *out, char *err, size_t errlen)
{
	uint64_t start, last, from = 0, to = 0, n;
	struct vs_trace_segment seg;
	int ret;

	memset(out, 0, sizeof(*out));
	if (spec->kind == VS_SEGMENT_SLICE && !length) {
		snprintf(err, errlen, "'%s': a slice number needs --length",
			 spec->arg);
		return VS_LOAD_ERROR;
	}
	ret = recording_span(spec->path, &start, &last, err, errlen);
	if (ret)
		return ret;
	switch (spec->kind) {
	case VS_SEGMENT_FILE:
		break;
	case VS_SEGMENT_SLICE:
		n = nr_slices(start, last, length);
		if (spec->slice > n) {
			snprintf(err, errlen, "'%s': %s has %llu slices of "
				 "that length", spec->arg, spec->path,
				 (unsigned long long)n);
			return VS_LOAD_ERROR;
		}
		from = start + (spec->slice - 1) * length;
		to = from + length;
		break;
	case VS_SEGMENT_RANGE:
		from = start + spec->from;
		to = spec->open_end ? 0 : start + spec->to;
		if (from > last) {
			snprintf(err, errlen, "'%s': starts after the end of "
				 "the recording (%.3f s)", spec->arg,
				 (last - start) / 1e9);
			return VS_LOAD_ERROR;
		}
		break;
	}
	seg = (struct vs_trace_segment){
		.path = spec->path, .label = spec->arg, .start = start,
		.last = last, .from_ns = from, .to_ns = to,
	};
	if (set_segment(out, &seg)) {
		snprintf(err, errlen, "out of memory");
		return VS_LOAD_ERROR;
	}
	return VS_LOAD_OK;
}

void vs_segment_release(struct vs_trace_segment *seg)
{
	free(seg->path);
	free(seg->label);
	seg->path = seg->label = NULL;
}

int vs_segment_list_add(struct vs_segment_list *list,
			const struct vs_trace_segment *seg)
{
	if (ALLOC_GROW(list->seg, list->nr + 1, list->alloc))
		return -1;
	return set_segment(&list->seg[list->nr], seg) ? -1 : (list->nr++, 0);
}

void vs_segment_list_release(struct vs_segment_list *list)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		vs_segment_release(&list->seg[i]);
	free(list->seg);
	memset(list, 0, sizeof(*list));
}

int vs_segments_cut_file(const struct vs_trace_segment *file, uint64_t length,
			 struct vs_segment_list *list, char *err,
			 size_t errlen)
{
	const char *path = file->path;
	uint64_t start = file->start, last = file->last, n, i;
	struct vs_trace_segment seg;
	char label[4096];

	n = length ? nr_slices(start, last, length) : 1;
	if (n > VS_MAX_SLICES) {
		/* a task set and a row each: 1ns would be billions */
		snprintf(err, errlen, "%s: --length cuts it into %llu slices, "
			 "more than %u: choose a longer one", path,
			 (unsigned long long)n, VS_MAX_SLICES);
		return VS_LOAD_ERROR;
	}
	for (i = 0; i < n; i++) {
		if (length)
			snprintf(label, sizeof(label), "%s:%llu", path,
				 (unsigned long long)i + 1);
		seg = (struct vs_trace_segment){
			.path = (char *)path,
			.label = length ? label : (char *)path,
			.start = start,
			.last = last,
			.from_ns = length ? start + i * length : 0,
			.to_ns = length ? start + (i + 1) * length : 0,
		};
		if (vs_segment_list_add(list, &seg)) {
			snprintf(err, errlen, "out of memory");
			return VS_LOAD_ERROR;
		}
	}
	return VS_LOAD_OK;
}

int vs_segments_cut(const char *path, uint64_t length,
		    struct vs_segment_list *list, char *err, size_t errlen)
{
	struct vs_trace_segment file = { .path = (char *)path };
	int ret;

	ret = recording_span(path, &file.start, &file.last, err, errlen);
	if (ret)
		return ret;
	return vs_segments_cut_file(&file, length, list, err, errlen);
}

int vs_segment_list_add_arg(struct vs_segment_list *list, const char *arg,
			    uint64_t length, bool cut, char *err,
			    size_t errlen)
{
	struct vs_segment_spec spec;
	struct vs_trace_segment seg;
	int ret;

	if (vs_segment_spec_parse(arg, &spec, err, errlen))
		return VS_LOAD_ERROR;
	if (spec.kind == VS_SEGMENT_FILE && cut) {
		ret = vs_segments_cut(spec.path, length, list, err, errlen);
	} else {
		ret = vs_segment_resolve(&spec, length, &seg, err, errlen);
		if (!ret) {
			if (vs_segment_list_add(list, &seg)) {
				snprintf(err, errlen, "out of memory");
				ret = VS_LOAD_ERROR;
			}
			vs_segment_release(&seg);
		}
	}
	vs_segment_spec_release(&spec);
	return ret;
}

/*
 * The segments of @list on the file of segment @first that are not @done
 * yet: their indices into @index, their time ranges into @range, marked
 * done; how many.
 */
static size_t file_segments(const struct vs_segment_list *list, size_t first,
			    bool *done, size_t *index,
			    struct vs_time_range *range)
{
	const char *path = list->seg[first].path;
	size_t s, n = 0;

	for (s = first; s < list->nr; s++) {
		if (done[s] || strcmp(list->seg[s].path, path))
			continue;
		done[s] = true;
		index[n] = s;
		range[n++] = (struct vs_time_range){
			.from_ns = list->seg[s].from_ns,
			.to_ns = list->seg[s].to_ns,
		};
	}
	return n;
}

/* Hand the @n task sets of one file to @each, the file's warning once. */
static int hand_over(struct vs_taskset **ts, const size_t *index, size_t n,
		     vs_segment_fn each, void *arg)
{
	size_t k;
	int ret = 0;

	for (k = 0; k < n; k++) {
		if (k) {
			free(ts[k]->warning);
			ts[k]->warning = NULL;
		}
		if (!ret)
			ret = each(arg, index[k], ts[k]);
		else
			vs_taskset_free(ts[k]);
	}
	return ret;
}

int vs_segments_read(const struct vs_segment_list *list,
		     const struct vs_taskset_opts *base, vs_segment_fn each,
		     void *arg, char *err, size_t errlen)
{
	size_t n = list->nr ? list->nr : 1, s, nr;
	struct vs_time_range *range = malloc(n * sizeof(*range));
	struct vs_taskset **ts = malloc(n * sizeof(*ts));
	size_t *index = malloc(n * sizeof(*index));
	bool *done = calloc(n, sizeof(*done));
	int ret = VS_LOAD_OK;

	if (!range || !ts || !index || !done)
		goto nomem;
	for (s = 0; s < list->nr; s++) {
		if (done[s])
			continue;
		nr = file_segments(list, s, done, index, range);
		ret = vs_taskset_read_ranges(list->seg[s].path, base, range, nr,
					     ts, err, errlen);
		if (ret)
			goto out;
		if (hand_over(ts, index, nr, each, arg))
			goto nomem;
	}
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
	ret = VS_LOAD_ERROR;
out:
	free(range);
	free(ts);
	free(index);
	free(done);
	return ret;
}

/* --- latency figures --- */

/* The nearest-rank @p-percentile of a type's latencies. */
static uint64_t latency_percentile(const struct vs_task_type *tt, double p)
{
	size_t k = vs_rank(tt->nr_tasks, p);

	return k ? tt->latency[tt->by_latency[tt->nr_tasks - k]] : 0;
}

/* Running mean and squared deviations (Welford). */
struct moments {
	size_t n;
	double mean, m2;
};

static void moments_add(struct moments *m, double v)
{
	double d = v - m->mean;

	m->mean += d / ++m->n;
	m->m2 += d * (v - m->mean);
}

/* Coefficient of variation: population standard deviation / mean. */
static double moments_cov(const struct moments *m)
{
	return m->n && m->mean > 0 ? sqrt(m->m2 / m->n) / m->mean : 0;
}

void vs_latency_stats(const struct vs_task_type *tt,
		      struct vs_latency_stats *st)
{
	struct moments m = { 0 };
	size_t i;

	memset(st, 0, sizeof(*st));
	st->tasks = tt->nr_tasks;
	if (!tt->nr_tasks)
		return;
	st->p50 = latency_percentile(tt, 0.5);
	st->p99 = latency_percentile(tt, 0.99);
	for (i = 0; i < tt->nr_tasks; i++)
		moments_add(&m, tt->latency[i]);
	st->mean = m.mean;
	st->cov = moments_cov(&m);
}

static int cmp_p99(const void *a, const void *b, void *arg)
{
	const uint64_t *p99 = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (p99[x] != p99[y])
		return p99[x] < p99[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

size_t vs_segments_by_p99(const uint64_t *p99, const bool *counted, size_t n,
			  size_t *order)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (!counted || counted[i])
			order[k++] = i;
	vs_qsort_r(order, k, sizeof(*order), cmp_p99, (void *)p99);
	return k;
}

int vs_segment_summarize(const uint64_t *p99, const bool *counted, size_t n,
			 struct vs_segment_summary *sum)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	struct moments m = { 0 };
	size_t i;

	memset(sum, 0, sizeof(*sum));
	if (!order)
		return -1;
	sum->nr = vs_segments_by_p99(p99, counted, n, order);
	if (sum->nr) {
		sum->min = order[0];
		sum->median = order[(sum->nr - 1) / 2];
		sum->max = order[sum->nr - 1];
	}
	for (i = 0; i < sum->nr; i++)
		moments_add(&m, p99[order[i]]);
	sum->p99_cov = moments_cov(&m);
	free(order);
	return 0;
}

bool vs_segment_same(const struct vs_trace_segment *x,
		     const struct vs_trace_segment *y)
{
	return !strcmp(x->path, y->path) && x->from_ns == y->from_ns &&
	       x->to_ns == y->to_ns;
}

/* --- the latency figures of many segments --- */

/*
 * The types of @ts that @tab does not have yet, added with empty figures
 * in every segment: both lists ascend, so one merge from their ends, in
 * time linear in the two.  -1 when memory runs out or when the figures
 * would pass VS_SEGMENT_FIGURES_MAX (@tab->types_wanted says how many
 * types).
 */
static int add_types(struct vs_segment_table *tab, const struct vs_taskset *ts)
{
	size_t i = 0, j, k, nr = tab->nr_types, fresh = 0;
	struct vs_segment_type *t;

	for (j = 0; j < ts->nr_types; j++) {
		while (i < nr && tab->types[i].type < ts->types[j].type)
			i++;
		fresh += i == nr || tab->types[i].type != ts->types[j].type;
	}
	if (!fresh)
		return 0;
	if (nr + fresh > VS_SEGMENT_FIGURES_MAX / tab->nr_segments) {
		tab->types_wanted = nr + fresh;
		return -1;
	}
	if (ALLOC_GROW(tab->types, nr + fresh, tab->alloc_types))
		return -1;
	t = tab->types;
	for (i = nr, j = ts->nr_types, k = nr + fresh; j > 0;) {
		uint32_t type = ts->types[j - 1].type;

		if (i > 0 && t[i - 1].type >= type) {
			j -= t[i - 1].type == type;
			t[--k] = t[--i];
			continue;
		}
		t[--k] = (struct vs_segment_type){
			.type = type,
			.stats = calloc(tab->nr_segments, sizeof(*t->stats)),
			.counted = calloc(tab->nr_segments, sizeof(*t->counted)),
			.p99 = calloc(tab->nr_segments, sizeof(*t->p99)),
		};
		j--;
	}
	tab->nr_types = nr + fresh;
	for (k = 0; k < tab->nr_types; k++)
		if (!t[k].stats || !t[k].counted || !t[k].p99)
			return -1;
	return 0;
}

int vs_segment_table_add(struct vs_segment_table *tab, size_t seg,
			 const struct vs_taskset *ts)
{
	unsigned int i, k = 0;

	if (add_types(tab, ts))
		return -1;
	for (i = 0; i < ts->nr_types; i++) {
		struct vs_segment_type *t;

		while (tab->types[k].type != ts->types[i].type)
			k++;		/* there: add_types() */
		t = &tab->types[k];
		vs_latency_stats(&ts->types[i], &t->stats[seg]);
		t->p99[seg] = t->stats[seg].p99;
		t->counted[seg] = t->stats[seg].tasks >= tab->min_tasks;
	}
	return vs_type_names_merge(&tab->names, &ts->names);
}

int vs_segment_table_summarize(struct vs_segment_table *tab)
{
	unsigned int i;

	for (i = 0; i < tab->nr_types; i++)
		if (vs_segment_summarize(tab->types[i].p99,
					 tab->types[i].counted,
					 tab->nr_segments, &tab->types[i].sum))
			return -1;
	return 0;
}

void vs_segment_table_release(struct vs_segment_table *tab)
{
	unsigned int i;

	for (i = 0; i < tab->nr_types; i++) {
		free(tab->types[i].stats);
		free(tab->types[i].counted);
		free(tab->types[i].p99);
	}
	free(tab->types);
	vs_type_names_release(&tab->names);
	tab->types = NULL;
	tab->nr_types = 0;
	tab->alloc_types = 0;
}
