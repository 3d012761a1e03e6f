// SPDX-License-Identifier: MIT
/*
 * signature.c - varscope signature: build function signatures from the
 * system calls of a normal run, and infer the functions behind an
 * anomalous recording (PerfScope).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "core/arch.h"
#include "core/signature/cluster.h"
#include "core/output-file.h"
#include "core/parse-options.h"
#include "core/plural.h"
#include "core/signature/signature-build.h"
#include "core/signature/signature-watch.h"
#include "core/signature/signature.h"
#include "core/signature/syscall-trace.h"
#include "core/trace/trace.h"
#include "ui/json.h"
#include "ui/output-format.h"

static const char *const signature_usage[] = {
	"varscope signature build -o FILE [<options>] -- CMD [ARGS]",
	"varscope signature infer -s FILE [-i FILE] [--format text|json]",
	"varscope signature watch -s FILE [<options>] (-p PID | -- CMD [ARGS])",
	NULL
};

static void check_support(double p)
{
	if (!(p > 0 && p <= 1))
		option_error("support", "must be in (0, 1]");
}

/* --- build --- */

/*
 * Whether @path can be written, before a profiling run that may last: a
 * file left as it was (an old signature survives a failed build).
 */
static int check_writable(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd >= 0) {
		close(fd);
		return unlink(path);
	}
	if (errno != EEXIST)
		return -1;
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int signature_build(int argc, const char **argv)
{
	const char *output = NULL, *functions = NULL, *method = "callchain";
	double support = VS_EPISODE_DEFAULT_P;
	uint64_t stack_size = VS_SC_STACK_SIZE;
	const struct vs_option options[] = {
		OPT_STRING('o', "output", &output, "file",
			   "signature file to write"),
		OPT_DOUBLE(0, "support", &support, "p",
			   "minimum support L = max(min(N*p, 10), 2) (0.01)"),
		OPT_STRING(0, "functions", &functions, "glob[,glob]",
			   "profile only the functions matching these"),
		OPT_STRING(0, "method", &method, "callchain|probes",
			   "how calls are mapped to functions"),
		OPT_SIZE(0, "stack-size", &stack_size,
			 "user stack copied at each call (8k)"),
		OPT_END()
	};
	struct vs_sig_build_opts opts = { .functions = functions };
	struct vs_sig_build_stats st;
	struct vs_signatures *sig;
	struct vs_profile *p;
	size_t i, nep = 0;
	char err[512];
	int status;

	argc = parse_options(argc, argv, options, signature_usage,
			     VS_PARSE_STOP_AT_NON_OPTION);
	if (!output)
		option_error("output", "is required");
	if (!strcmp(output, "-"))
		option_error("output", "must be a file: the command's output "
			     "goes to the standard output");
	vs_output_option("output", output);
	check_support(support);
	if (!strcmp(method, "callchain"))
		opts.method = VS_SIG_CALLCHAIN;
	else if (!strcmp(method, "probes"))
		opts.method = VS_SIG_PROBES;
	else
		option_error("method", "must be callchain or probes");
	if (stack_size < 8 || stack_size > VS_SC_STACK_MAX)
		option_error("stack-size", "must be from 8 to %d bytes",
			     VS_SC_STACK_MAX);
	opts.stack_size = stack_size;
	if (!argc)
		usage_with_options(signature_usage, options);
	opts.functions = functions;
	if (check_writable(output)) {
		fprintf(stderr, "varscope signature: %s: %s\n", output,
			strerror(errno));
		return 1;
	}

	p = vs_profile_new();
	if (!p) {
		fprintf(stderr, "varscope signature: out of memory\n");
		return 1;
	}
	status = vs_signature_profile(argv, &opts, p, &st, err, sizeof(err));
	if (status < 0) {
		fprintf(stderr, "varscope signature: %s\n", err);
		vs_profile_free(p);
		return 1;
	}
	sig = vs_profile_mine(p, support, st.gap_limit);
	vs_profile_free(p);
	if (!sig) {
		fprintf(stderr, "varscope signature: out of memory\n");
		return 1;
	}
	if (!sig->nr) {
		/* a signature file of nothing only fails later, in infer */
		fprintf(stderr, "varscope signature: none of the %llu system "
			"calls was made in a function of %s%s (a script or "
			"wrapper runs the program in a child: give the "
			"program itself)\n", (unsigned long long)st.calls,
			st.program, functions ? " that --functions lets through" :
			"");
		vs_signatures_free(sig);
		return 1;
	}
	for (i = 0; i < sig->nr; i++)
		nep += sig->funcs[i].nr_episodes;
	if (vs_signature_file_write(output, sig, argv, method, functions,
				    support, &st) < 0) {
		fprintf(stderr, "varscope signature: %s: %s\n", output,
			strerror(errno));
		vs_signatures_free(sig);
		return 1;
	}
	fprintf(stderr, "varscope signature: %zu %s of %s, %zu %s, from "
		"%llu of %llu system calls%s -> %s\n", sig->nr,
		vs_plural(sig->nr, "function", "functions"), st.program, nep,
		vs_plural(nep, "episode", "episodes"),
		(unsigned long long)st.attributed,
		(unsigned long long)st.calls, st.lost ? " (records lost)" : "",
		output);
	if (sig->nr_capped)
		fprintf(stderr, "varscope signature: %zu %s more than %d "
			"candidate episodes of a length: those of the most "
			"frequent shorter ones were counted\n", sig->nr_capped,
			vs_plural(sig->nr_capped, "function had",
				  "functions had"), VS_EPISODE_MAX_COUNTED);
	if (st.lost)
		fprintf(stderr, "varscope signature: warning: the kernel "
			"dropped %llu %s\n", (unsigned long long)st.lost,
			vs_plural(st.lost, "record", "records"));
	if (st.cut)
		fprintf(stderr, "varscope signature: warning: the stacks of "
			"%llu calls were cut at their %llu-byte copy (raise "
			"--stack-size)\n", (unsigned long long)st.cut,
			(unsigned long long)stack_size);
	if (status)
		fprintf(stderr, "varscope signature: warning: %s exited with "
			"status %d\n", argv[0], status);
	vs_signatures_free(sig);
	return 0;
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

static void json_functions(struct json_out *j, const struct vs_infer_result *res)
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
		if (f->within)
			json_string(j, f->within->name);
		else
			json_null(j);
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
		if (h->function[0])
			json_string(j, h->function);
		else
			json_null(j);
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

static int signature_infer(int argc, const char **argv)
{
	const char *sigfile = NULL, *input = VS_DEFAULT_FILE, *format = "text";
	struct vs_infer_opts opts = {
		.support = VS_EPISODE_DEFAULT_P,
		.cluster_diameter = VS_CLUSTER_DEFAULT_DIAMETER,
	};
	const struct vs_option options[] = {
		OPT_STRING('s', "signatures", &sigfile, "file",
			   "signature file of `signature build`"),
		OPT_STRING('i', "input", &input, "file",
			   "recording with system calls (record --syscalls)"),
		OPT_STRING(0, "format", &format, "text|json", "output format"),
		OPT_DOUBLE(0, "support", &opts.support, "p",
			   "minimum support of the units' episodes (0.01)"),
		OPT_DOUBLE(0, "cluster-diameter", &opts.cluster_diameter, "d",
			   "largest Jaccard distance inside a cluster (0.5)"),
		OPT_END()
	};
	struct vs_thread_calls *threads = NULL;
	struct vs_infer_result res;
	struct vs_signatures *sig;
	size_t nth = 0, i;
	uint64_t t0 = UINT64_MAX;
	char err[512];
	bool json;
	int ret;

	argc = parse_options(argc, argv, options, signature_usage, 0);
	if (argc)
		usage_with_options(signature_usage, options);
	if (!sigfile)
		option_error("signatures", "is required");
	json = vs_format_option(format, VS_FORMATS_TEXT_JSON) ==
	       VS_FORMAT_JSON;
	check_support(opts.support);
	if (!(opts.cluster_diameter > 0 && opts.cluster_diameter <= 1))
		option_error("cluster-diameter", "must be in (0, 1]");

	sig = vs_signatures_read(sigfile, err, sizeof(err));
	if (!sig) {
		fprintf(stderr, "varscope signature: %s\n", err);
		return 2;
	}
	if (vs_signature_read_calls(input, &threads, &nth, err,
				    sizeof(err)) < 0) {
		fprintf(stderr, "varscope signature: %s\n", err);
		vs_signatures_free(sig);
		return 2;
	}
	for (i = 0; i < nth; i++)
		if (threads[i].nr_calls && threads[i].calls[0].enter < t0)
			t0 = threads[i].calls[0].enter;
	ret = vs_signature_infer(sig, threads, nth, &opts, &res);
	if (!ret && res.nr_hangs && strcmp(input, "-") &&
	    vs_signature_name_hangs(input, sig, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "varscope signature: %s\n", err);
		ret = -1;
	} else if (ret < 0) {
		fprintf(stderr, "varscope signature: out of memory\n");
	} else if (!res.nr_calls) {
		fprintf(stderr, "varscope signature: %s: no system call records"
			" (record with --syscalls)\n", input);
		ret = -1;
	} else if (json) {
		print_json(&res);
	} else {
		print_text(&res, t0, nth);
	}
	vs_infer_result_free(&res);	/* also after "no system call records" */
	vs_thread_calls_free(threads, nth);
	vs_signatures_free(sig);
	return ret < 0 ? 1 : 0;
}

/* --- watch --- */

static volatile sig_atomic_t watch_stop;

static void on_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

struct watch_out {
	bool json;
	uint64_t t0;			/* CLOCK_MONOTONIC of the start */
	uint64_t window_ns;
	int64_t to_realtime;		/* add to get CLOCK_REALTIME */
};

static void format_utc(const struct watch_out *o, uint64_t mono, char *buf,
		       size_t size)
{
	time_t sec = (time_t)((mono + o->to_realtime) / 1000000000ull);
	struct tm tm;

	gmtime_r(&sec, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int print_window(const struct vs_sig_window *win, void *arg)
{
	struct watch_out *o = arg;
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
		print_ranking(res, o->t0, 1);
	}
	fflush(stdout);
	return 0;
}

static int signature_watch(int argc, const char **argv)
{
	const char *sigfile = NULL, *format = "text";
	int pid = 0;
	uint64_t stack_size = 1024, window = VS_SIG_WATCH_WINDOW_NS;
	struct vs_sig_watch_opts opts = {
		.infer = { .support = VS_EPISODE_DEFAULT_P,
			   .cluster_diameter = VS_CLUSTER_DEFAULT_DIAMETER },
		.min_score = VS_SIG_WATCH_MIN_SCORE,
	};
	const struct vs_option options[] = {
		OPT_STRING('s', "signatures", &sigfile, "file",
			   "signature file of `signature build`"),
		OPT_INTEGER('p', "pid", &pid, "watch this running process"),
		OPT_DURATION(0, "window", &window,
			     "length of a window of time (10s)"),
		OPT_STRING(0, "format", &format, "text|json", "output format"),
		OPT_DOUBLE(0, "min-score", &opts.min_score, "s",
			   "a window is abnormal from this score (0.01)"),
		OPT_DOUBLE(0, "support", &opts.infer.support, "p",
			   "minimum support of the units' episodes (0.01)"),
		OPT_DOUBLE(0, "cluster-diameter", &opts.infer.cluster_diameter,
			   "d", "largest Jaccard distance inside a cluster (0.5)"),
		OPT_SIZE(0, "stack-size", &stack_size,
			 "user stack copied at each call (1k)"),
		OPT_END()
	};
	struct watch_out out = { 0 };
	struct vs_sig_watch_stats st;
	struct vs_signatures *sig;
	struct sigaction sa = { .sa_handler = on_signal };
	struct timespec mono, real;
	char err[512];

	argc = parse_options(argc, argv, options, signature_usage,
			     VS_PARSE_STOP_AT_NON_OPTION);
	if (!sigfile)
		option_error("signatures", "is required");
	out.json = vs_format_option(format, VS_FORMATS_TEXT_JSON) ==
		   VS_FORMAT_JSON;
	check_support(opts.infer.support);
	if (!(opts.infer.cluster_diameter > 0 &&
	      opts.infer.cluster_diameter <= 1))
		option_error("cluster-diameter", "must be in (0, 1]");
	if (window < 1000000)
		option_error("window", "must be 1ms or more");
	if (!(opts.min_score > 0))
		option_error("min-score", "must be above 0");
	if (stack_size < 8 || stack_size > VS_SC_STACK_MAX)
		option_error("stack-size", "must be from 8 to %d bytes",
			     VS_SC_STACK_MAX);
	if (pid < 0 || (pid && argc) || (!pid && !argc))
		option_error("pid", "give either -p PID or a command");
	opts.window_ns = window;
	opts.stack_size = stack_size & ~7u;
	out.window_ns = window;

	sig = vs_signatures_read(sigfile, err, sizeof(err));
	if (!sig) {
		fprintf(stderr, "varscope signature: %s\n", err);
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	out.t0 = mono.tv_sec * 1000000000ull + mono.tv_nsec;
	out.to_realtime = (int64_t)(real.tv_sec * 1000000000ull +
				    real.tv_nsec) - (int64_t)out.t0;
	if (vs_signature_watch(sig, pid ? NULL : argv, pid, &opts,
			       print_window, &out, &watch_stop, &st, err,
			       sizeof(err)) < 0) {
		fprintf(stderr, "varscope signature: %s\n", err);
		vs_signatures_free(sig);
		return 1;
	}
	fprintf(stderr, "varscope signature: watched %.1f s, %lu %s (%lu "
		"abnormal): %llu system calls traced (%.0f a second), the "
		"watcher's CPU %.2f s (%.1f%% of one CPU), %llu %s lost\n",
		st.seconds, st.counts.windows,
		vs_plural(st.counts.windows, "window", "windows"),
		st.counts.abnormal, (unsigned long long)st.counts.calls,
		st.seconds > 0 ? st.counts.calls / st.seconds : 0,
		st.cpu_seconds, st.seconds > 0 ?
		100 * st.cpu_seconds / st.seconds : 0,
		(unsigned long long)st.lost,
		vs_plural(st.lost, "record", "records"));
	vs_signatures_free(sig);
	return 0;
}

int cmd_signature(int argc, const char **argv)
{
	const struct vs_option options[] = { OPT_END() };

	if (argc > 1 && !strcmp(argv[1], "build"))
		return signature_build(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "infer"))
		return signature_infer(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "watch"))
		return signature_watch(argc - 1, argv + 1);
	argc = parse_options(argc, argv, options, signature_usage,
			     VS_PARSE_STOP_AT_NON_OPTION);
	if (argc) {
		fprintf(stderr, "varscope signature: unknown subcommand '%s' "
			"(build, infer or watch)\n", argv[0]);
		return 129;
	}
	usage_with_options(signature_usage, options);
}
