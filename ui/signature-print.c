// SPDX-License-Identifier: MIT
/*
 * signature-print.c - what varscope signature prints: the functions
 * inferred behind an anomalous recording (infer) or window (watch), as
 * text or JSON, and the lines that close a build or a watch.
 */
#include <stdio.h>
#include <time.h>

#include "core/plural.h"
#include "ui/json.h"
#include "ui/signature-print.h"

/* --- build --- */

void vs_signature_print_built(const struct vs_signatures *sig,
			      const struct vs_sig_build_stats *st,
			      const char *output, uint64_t stack_size,
			      const char *command, int status)
{
	size_t i, nep = 0;

	for (i = 0; i < sig->nr; i++)
		nep += sig->funcs[i].nr_episodes;
	fprintf(stderr, "varscope signature: %zu %s of %s, %zu %s, from "
		"%llu of %llu system calls%s -> %s\n", sig->nr,
		vs_plural(sig->nr, "function", "functions"), st->program, nep,
		vs_plural(nep, "episode", "episodes"),
		(unsigned long long)st->attributed,
		(unsigned long long)st->calls, st->lost ? " (records lost)" : "",
		output);
	if (sig->nr_capped)
		fprintf(stderr, "varscope signature: %zu %s more than %d "
			"candidate episodes of a length: those of the most "
			"frequent shorter ones were counted\n", sig->nr_capped,
			vs_plural(sig->nr_capped, "function had",
				  "functions had"), VS_EPISODE_MAX_COUNTED);
	if (st->lost)
		fprintf(stderr, "varscope signature: warning: the kernel "
			"dropped %llu %s\n", (unsigned long long)st->lost,
			vs_plural(st->lost, "record", "records"));
	if (st->cut)
		fprintf(stderr, "varscope signature: warning: the stacks of "
			"%llu calls were cut at their %llu-byte copy (raise "
			"--stack-size)\n", (unsigned long long)st->cut,
			(unsigned long long)stack_size);
	if (status)
		fprintf(stderr, "varscope signature: warning: %s exited with "
			"status %d\n", command, status);
}

/* --- infer --- */

static void episode_names(const struct vs_episode *e, const char **out,
			  int *n)
{
	static char unknown[VS_EPISODE_MAX_LEN][24];
	int i;

	*n = 0;
	for (i = 0; i < e->len; i++) {
		out[(*n)++] = vs_episode_call_name(e->nr[i], unknown[i],
						   sizeof(unknown[i]));
		if (i + 1 < e->len && (e->gaps & (1u << i)))
			out[(*n)++] = "*";
	}
}

static void json_functions(struct json_out *j,
			   const struct vs_infer_result *res)
{
	const char *names[2 * VS_EPISODE_MAX_LEN];
	size_t i, k;
	int n, m;

	json_key(j, "functions");
	json_begin_array(j);
	for (i = 0; i < res->nr; i++) {
		const struct vs_infer_function *f = &res->funcs[i];

		json_begin_object(j);
		json_key(j, "rank");
		json_u64(j, i + 1);
		json_key(j, "function");
		json_string(j, f->func->name);
		json_key(j, "score");
		json_double(j, f->score);
		json_key(j, "increase");
		json_double(j, f->increase);
		json_key(j, "match");
		json_double(j, f->match);
		json_key(j, "specificity");
		json_double(j, f->specificity);
		json_key(j, "within");
		json_string_or_null(j, f->within ? f->within->name : NULL);
		json_key(j, "first_ns");
		json_u64(j, f->first);
		json_key(j, "last_ns");
		json_u64(j, f->last);
		json_key(j, "episodes");
		json_begin_array(j);
		for (k = 0; k < f->nr_episodes; k++) {
			episode_names(&f->episodes[k].ep, names, &n);
			json_begin_array(j);
			for (m = 0; m < n; m++)
				json_string(j, names[m]);
			json_end_array(j);
		}
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
	json_key(j, "hangs");
	json_begin_array(j);
	for (i = 0; i < res->nr_hangs; i++) {
		const struct vs_sig_hang *h = &res->hangs[i];
		char buf[24];

		json_begin_object(j);
		json_key(j, "tid");
		json_u64(j, h->tid);
		json_key(j, "call");
		json_string(j, vs_episode_call_name(h->nr, buf, sizeof(buf)));
		json_key(j, "function");
		json_string_or_null(j, h->function[0] ? h->function : NULL);
		json_key(j, "enter_ns");
		json_u64(j, h->enter);
		json_key(j, "duration_ns");
		json_u64(j, h->duration);
		json_key(j, "normal_max_ns");
		json_u64(j, h->normal_max);
		json_key(j, "limit_ns");
		json_u64(j, h->limit);
		json_end_object(j);
	}
	json_end_array(j);
}

static void print_json(const struct vs_infer_result *res)
{
	struct json_out j;
	size_t i;

	json_init(&j, stdout);
	json_begin_object(&j);
	json_functions(&j, res);
	json_key(&j, "time_order");
	json_begin_array(&j);
	for (i = 0; i < res->nr; i++)
		json_string(&j, res->funcs[res->time_order[i]].func->name);
	json_end_array(&j);
	json_key(&j, "calls");
	json_u64(&j, res->nr_calls);
	json_key(&j, "units");
	json_u64(&j, res->nr_units);
	json_key(&j, "clusters");
	json_u64(&j, res->nr_clusters);
	json_key(&j, "time_outliers");
	json_u64(&j, res->nr_time_outliers);
	json_key(&j, "frequency_outliers");
	json_u64(&j, res->nr_freq_outliers);
	json_key(&j, "small_cluster_units");
	json_u64(&j, res->nr_small_cluster);
	json_end_object(&j);
	json_newline(&j);
}

#define EPISODES_SHOWN	5

/* The ranked functions, each with its first @shown episodes; the hangs. */
static void print_ranking(const struct vs_infer_result *res, uint64_t t0,
			  size_t shown)
{
	char buf[160];
	size_t i, k;

	if (res->nr)
		printf("%4s  %7s  %12s  %8s  %-17s  %s\n", "rank", "score",
		       "increase(%)", "match(%)", "active (s)", "function");
	for (i = 0; i < res->nr; i++) {
		const struct vs_infer_function *f = &res->funcs[i];

		snprintf(buf, sizeof(buf), "%.3f-%.3f", (f->first - t0) / 1e9,
			 (f->last - t0) / 1e9);
		printf("%4zu  %7.3f  %12.1f  %8.1f  %-17s  %s", i + 1,
		       f->score, f->increase, f->match, buf, f->func->name);
		if (f->within)
			printf(" (within %s)", f->within->name);
		printf("\n");
		for (k = 0; k < f->nr_episodes && k < shown; k++) {
			const struct vs_infer_episode *e = &f->episodes[k];

			vs_episode_format(&e->ep, buf, sizeof(buf));
			printf("%6s{%s}  %u %s, signature %u\n", "", buf,
			       e->ep.support,
			       vs_plural(e->ep.support, "time", "times"),
			       e->signature_support);
		}
		if (f->nr_episodes > shown)
			printf("%6s... %zu more %s\n", "",
			       f->nr_episodes - shown,
			       vs_plural(f->nr_episodes - shown,
					 "episode", "episodes"));
	}
	for (i = 0; i < res->nr_hangs; i++) {
		const struct vs_sig_hang *h = &res->hangs[i];

		printf("# hung: thread %u in %s for %.3f s, from %.3f s (its "
		       "longest in the normal run %.6f s, limit %.3f s), in %s\n",
		       h->tid, vs_episode_call_name(h->nr, buf, sizeof(buf)),
		       h->duration / 1e9, (h->enter - t0) / 1e9,
		       h->normal_max / 1e9, h->limit / 1e9,
		       h->function[0] ? h->function : "a function the "
		       "recording does not say (record --syscall-stacks)");
	}
}

static void print_text(const struct vs_infer_result *res, uint64_t t0,
		       size_t nr_threads)
{
	size_t i;

	printf("# %zu system calls of %zu %s: %zu execution units "
	       "(split at gaps > %.1f us), %zu clusters\n", res->nr_calls,
	       nr_threads, vs_plural(nr_threads, "thread", "threads"),
	       res->nr_units, res->gap_limit / 1e3,
	       res->nr_clusters);
	printf("# abnormal units: %zu (%zu by time, %zu by frequency, %zu in "
	       "clusters < %d)\n", res->nr_abnormal, res->nr_time_outliers,
	       res->nr_freq_outliers, res->nr_small_cluster,
	       VS_SIG_SMALL_CLUSTER);
	if (res->nr_capped)
		printf("# %zu abnormal %s more than %d candidate episodes of "
		       "a length: those of the most frequent shorter ones "
		       "were counted\n", res->nr_capped,
		       vs_plural(res->nr_capped, "unit had", "units had"),
		       VS_EPISODE_MAX_COUNTED);
	if (!res->nr && !res->nr_hangs) {
		printf("# no profiled function matches an abnormal unit\n");
		return;
	}
	print_ranking(res, t0, EPISODES_SHOWN);
	if (!res->nr)
		return;
	printf("# active in time order:");
	for (i = 0; i < res->nr; i++)
		printf("%s %s (%.3f s)", i ? "," : "",
		       res->funcs[res->time_order[i]].func->name,
		       (res->funcs[res->time_order[i]].first - t0) / 1e9);
	printf("\n");
}

void vs_signature_print_infer(const struct vs_infer_result *res, uint64_t t0,
			      size_t nr_threads, enum vs_output_format format)
{
	if (format == VS_FORMAT_JSON)
		print_json(res);
	else
		print_text(res, t0, nr_threads);
}

/* --- watch --- */

void vs_signature_watch_print_start(struct vs_signature_watch_print *o,
				    bool json, uint64_t window_ns,
				    uint64_t normal_calls)
{
	struct timespec mono, real;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	o->json = json;
	o->window_ns = window_ns;
	o->normal_calls = normal_calls;
	o->t0 = mono.tv_sec * 1000000000ull + mono.tv_nsec;
	o->to_realtime = (int64_t)(real.tv_sec * 1000000000ull +
				   real.tv_nsec) - (int64_t)o->t0;
}

static void format_utc(const struct vs_signature_watch_print *o,
		       uint64_t mono, char *buf, size_t size)
{
	time_t sec = (time_t)((mono + o->to_realtime) / 1000000000ull);
	struct tm tm;

	gmtime_r(&sec, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int vs_signature_print_window(const struct vs_sig_window *win, void *arg)
{
	struct vs_signature_watch_print *o = arg;
	const struct vs_infer_result *res = &win->res;
	char when[32];

	/* times from the start of the first window */
	o->t0 = win->start - win->number * o->window_ns;

	format_utc(o, win->start, when, sizeof(when));
	if (o->json) {
		struct json_out j;

		json_init(&j, stdout);
		json_begin_object(&j);
		json_key(&j, "window");
		json_u64(&j, win->number);
		json_key(&j, "start");
		json_string(&j, when);
		json_key(&j, "start_s");
		json_double(&j, (win->start - o->t0) / 1e9);
		json_key(&j, "end_s");
		json_double(&j, (win->end - o->t0) / 1e9);
		json_key(&j, "start_ns");
		json_u64(&j, win->start);
		json_key(&j, "end_ns");
		json_u64(&j, win->end);
		json_key(&j, "calls");
		json_u64(&j, res->nr_calls);
		json_key(&j, "threads");
		json_u64(&j, win->nr_threads);
		json_key(&j, "abnormal_units");
		json_u64(&j, res->nr_abnormal);
		json_key(&j, "normal_run_calls");
		if (o->normal_calls)
			json_u64(&j, o->normal_calls);
		else
			json_null(&j);
		json_functions(&j, res);
		json_end_object(&j);
		json_newline(&j);
	} else {
		printf("# window %lu, %.3f-%.3f s (%s): %zu system calls of "
		       "%zu %s, %zu abnormal %s\n", win->number,
		       (win->start - o->t0) / 1e9, (win->end - o->t0) / 1e9,
		       when, res->nr_calls, win->nr_threads,
		       vs_plural(win->nr_threads, "thread", "threads"),
		       res->nr_abnormal,
		       vs_plural(res->nr_abnormal, "unit", "units"));
		if (o->normal_calls && res->nr_calls > o->normal_calls)
			printf("# more system calls than the normal run of the "
			       "signatures (%llu): a function that runs "
			       "throughout exceeds its supports for that "
			       "alone\n", (unsigned long long)o->normal_calls);
		print_ranking(res, o->t0, 1);
	}
	fflush(stdout);
	return 0;
}

void vs_signature_print_watched(const struct vs_signature_watch_print *o,
				const struct vs_sig_watch_stats *st)
{
	fprintf(stderr, "varscope signature: watched %.1f s, %lu %s (%lu "
		"abnormal): %llu system calls traced (%.0f a second), the "
		"watcher's CPU %.2f s (%.1f%% of one CPU), %llu %s lost\n",
		st->seconds, st->counts.windows,
		vs_plural(st->counts.windows, "window", "windows"),
		st->counts.abnormal, (unsigned long long)st->counts.calls,
		st->seconds > 0 ? st->counts.calls / st->seconds : 0,
		st->cpu_seconds, st->seconds > 0 ?
		100 * st->cpu_seconds / st->seconds : 0,
		(unsigned long long)st->lost,
		vs_plural(st->lost, "record", "records"));
	if (o->normal_calls && st->counts.peak_calls > o->normal_calls)
		fprintf(stderr, "varscope signature: warning: a window made "
			"%zu system calls, more than the %llu of the "
			"signatures' normal run: what runs through a window "
			"exceeds its normal counts for that alone; build them "
			"from a longer run, or use a shorter --window\n",
			st->counts.peak_calls,
			(unsigned long long)o->normal_calls);
}
