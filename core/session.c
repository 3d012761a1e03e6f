// SPDX-License-Identifier: MIT
/*
 * session.c - one reading of a trace or of a set of segment files: the
 * head, the function sources, the task set and the wake-up blame, with
 * the common reader options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analysis/func-events.h"
#include "core/session.h"
#include "core/trace/type-names.h"
#include "core/analysis/wakeup.h"

unsigned int vs_session_parts(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return cpus > VS_SESSION_PARTS_MAX ? VS_SESSION_PARTS_MAX : cpus;
}

int vs_session_type(struct vs_session_opts *opts, const char *const *paths,
		    size_t nr)
{
	if (!opts->type || opts->type_resolved)
		return 0;
	if (vs_type_option_of(opts->type, paths, nr, &opts->type_number))
		return -1;
	opts->type_resolved = true;
	return 0;
}

/* The task set options of @opts: type, readers, progress. */
static int taskset_opts(const struct vs_session_opts *opts,
			const char *const *paths, size_t nr,
			struct vs_taskset_opts *o)
{
	struct vs_session_opts resolved = *opts;

	if (vs_session_type(&resolved, paths, nr))
		return -1;
	*o = (struct vs_taskset_opts){
		.one_type = opts->type != NULL,
		.type = resolved.type_number,
		.latency_only = opts->latency_only,
		.parts = opts->parts,
		.progress = opts->progress,
		.progress_arg = opts->progress_arg,
	};
	return 0;
}

/* The slices of @s->path, and a range per slice after the whole file's. */
static struct vs_time_range *slice_ranges(struct vs_session *s,
					  uint64_t slice_ns, char *err,
					  size_t errlen, int *ret)
{
	struct vs_time_range *range;
	size_t i;

	*ret = vs_segments_cut(s->path, slice_ns, &s->slices, err, errlen);
	if (*ret)
		return NULL;
	range = calloc(s->slices.nr + 1, sizeof(*range));
	s->slice_ts = calloc(s->slices.nr + 1, sizeof(*s->slice_ts));
	if (!range || !s->slice_ts) {
		free(range);
		snprintf(err, errlen, "%s: out of memory", s->path);
		*ret = VS_LOAD_ERROR;
		return NULL;
	}
	for (i = 0; i < s->slices.nr; i++)
		range[i + 1] = (struct vs_time_range){
			.from_ns = s->slices.seg[i].from_ns,
			.to_ns = s->slices.seg[i].to_ns,
			.latency_only = true,
		};
	return range;
}

/* The task set, and with @opts->slice_ns the slices', in one pass. */
static int read_tasks(struct vs_session *s, const struct vs_session_opts *opts,
		      struct vs_taskset_opts *o, char *err, size_t errlen)
{
	struct vs_time_range *range;
	int ret;

	if (!opts->slice_ns)
		return vs_taskset_read(s->path, o, &s->ts, err, errlen);
	range = slice_ranges(s, opts->slice_ns, err, errlen, &ret);
	if (!range)
		return ret;
	ret = vs_taskset_read_ranges(s->path, o, range, s->slices.nr + 1,
				     s->slice_ts, err, errlen);
	free(range);
	if (!ret) {
		s->ts = s->slice_ts[0];		/* the whole file */
		memmove(s->slice_ts, s->slice_ts + 1,
			s->slices.nr * sizeof(*s->slice_ts));
		s->slice_ts[s->slices.nr] = NULL;
	}
	return ret;
}

int vs_session_open(struct vs_session *s, const char *path,
		    const struct vs_session_opts *opts, char *err,
		    size_t errlen)
{
	struct vs_taskset_opts o;
	int ret;

	*s = (struct vs_session){ .path = path };
	if (taskset_opts(opts, &path, 1, &o) ||
	    vs_trace_head_read(path, &s->head)) {
		snprintf(err, errlen, "%s: out of memory", path);
		return VS_LOAD_ERROR;
	}
	if (opts->funcs) {
		if (opts->stage)
			opts->stage(opts->progress_arg, "Reading samples");
		ret = vs_func_sources_load_progress(path, &s->head,
				opts->func_time, &s->funcs, err, errlen,
				opts->stage ? opts->progress : NULL,
				opts->progress_arg);
		if (ret)
			return ret;
		vs_func_sources_hook(s->funcs, &o);
	}
	if (opts->stage)
		opts->stage(opts->progress_arg, "Reading tasks");
	if (opts->time) {
		o.from_ns = s->head.start_ns + opts->time->from;
		o.to_ns = opts->time->open_end ? 0 :
			  s->head.start_ns + opts->time->to;
	}
	o.wakeups = opts->wakeups;
	o.wake_parts = opts->wake_parts;
	o.ran_instead = opts->ran_instead;
	ret = read_tasks(s, opts, &o, err, errlen);
	if (!ret && opts->time && opts->wakeups && s->ts->nr_wakeups)
		snprintf(s->wake_err, sizeof(s->wake_err), "with --time, "
			 "neither the waits blamed along wake-up edges nor who "
			 "ran instead of the slow tasks: both need the whole "
			 "recording");
	if (ret || !opts->wakeups || opts->time)
		return ret;
	s->wakeups = vs_wake_blame_load(s->ts, path, s->funcs ?
					s->funcs->samples : NULL, s->wake_err,
					sizeof(s->wake_err));
	return VS_LOAD_OK;
}

struct vs_taskset *vs_session_take_slice(struct vs_session *s, size_t i)
{
	struct vs_taskset *ts;

	if (!s->slice_ts || i >= s->slices.nr)
		return NULL;
	ts = s->slice_ts[i];
	s->slice_ts[i] = NULL;
	return ts;
}

void vs_session_close(struct vs_session *s)
{
	size_t i;

	for (i = 0; s->slice_ts && i < s->slices.nr; i++)
		vs_taskset_free(s->slice_ts[i]);
	free(s->slice_ts);
	vs_segment_list_release(&s->slices);
	vs_wake_blame_free(s->wakeups);
	vs_taskset_free(s->ts);
	vs_func_sources_free(s->funcs);
	vs_trace_head_release(&s->head);
	*s = (struct vs_session){ 0 };
}

/* The files of @list, each once, in the order they first come. */
static const char **list_files(const struct vs_segment_list *list, size_t *nr)
{
	const char **paths = calloc(list->nr ? list->nr : 1, sizeof(*paths));
	size_t s, k;

	*nr = 0;
	for (s = 0; paths && s < list->nr; s++) {
		for (k = *nr; k > 0; k--)
			if (!strcmp(paths[k - 1], list->seg[s].path))
				break;
		if (!k)
			paths[(*nr)++] = list->seg[s].path;
	}
	return paths;
}

int vs_session_read_segments(const struct vs_segment_list *list,
			     const struct vs_session_opts *opts,
			     vs_segment_fn each, void *arg, char *err,
			     size_t errlen)
{
	struct vs_taskset_opts o;
	const char **paths;
	size_t nr;
	int ret;

	paths = list_files(list, &nr);
	ret = paths ? taskset_opts(opts, paths, nr, &o) : -1;
	free(paths);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		return VS_LOAD_ERROR;
	}
	return vs_segments_read(list, &o, each, arg, err, errlen);
}
