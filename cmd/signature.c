// SPDX-License-Identifier: MIT
/*
 * signature.c - varscope signature: build function signatures from the
 * system calls of a normal run, and infer the functions behind an
 * anomalous recording (PerfScope).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/arch.h"
#include "core/signature/cluster.h"
#include "core/output-file.h"
#include "core/parse-options.h"
#include "core/signature/signature-build.h"
#include "core/signature/signature-watch.h"
#include "core/signature/signature.h"
#include "core/signature/syscall-trace.h"
#include "core/trace/trace.h"
#include "ui/output-format.h"
#include "ui/signature-print.h"

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

/* --support and --cluster-diameter of infer and watch */
static void check_infer_opts(const struct vs_infer_opts *o)
{
	check_support(o->support);
	if (!(o->cluster_diameter > 0 && o->cluster_diameter <= 1))
		option_error("cluster-diameter", "must be in (0, 1]");
}

/* --stack-size of build and watch */
static void check_stack_size(uint64_t stack_size)
{
	if (stack_size < 8 || stack_size > VS_SC_STACK_MAX)
		option_error("stack-size", "must be from 8 to %d bytes",
			     VS_SC_STACK_MAX);
}

/* --- build --- */

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
	check_stack_size(stack_size);
	opts.stack_size = stack_size;
	if (!argc)
		usage_with_options(signature_usage, options);
	opts.functions = functions;
	if (vs_output_writable(output)) {
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
	if (vs_signature_file_write(output, sig, argv, method, functions,
				    support, &st) < 0) {
		fprintf(stderr, "varscope signature: %s: %s\n", output,
			strerror(errno));
		vs_signatures_free(sig);
		return 1;
	}
	vs_signature_print_built(sig, &st, output, stack_size, argv[0],
				 status);
	vs_signatures_free(sig);
	return 0;
}

/* --- infer --- */

static int signature_infer(int argc, const char **argv)
{
	const char *sigfile = NULL, *input = VS_DEFAULT_FILE;
	const char *format_name = "text";
	struct vs_infer_opts opts = {
		.support = VS_EPISODE_DEFAULT_P,
		.cluster_diameter = VS_CLUSTER_DEFAULT_DIAMETER,
	};
	const struct vs_option options[] = {
		OPT_STRING('s', "signatures", &sigfile, "file",
			   "signature file of `signature build`"),
		OPT_STRING('i', "input", &input, "file",
			   "recording with system calls (record --syscalls)"),
		OPT_STRING(0, "format", &format_name, "text|json",
			   "output format"),
		OPT_DOUBLE(0, "support", &opts.support, "p",
			   "minimum support of the units' episodes (0.01)"),
		OPT_DOUBLE(0, "cluster-diameter", &opts.cluster_diameter, "d",
			   "largest Jaccard distance inside a cluster (0.5)"),
		OPT_END()
	};
	struct vs_thread_calls *threads = NULL;
	struct vs_infer_result res;
	struct vs_signatures *sig;
	size_t nth = 0;
	enum vs_output_format format;
	char err[512];
	int ret;

	argc = parse_options(argc, argv, options, signature_usage, 0);
	if (argc)
		usage_with_options(signature_usage, options);
	if (!sigfile)
		option_error("signatures", "is required");
	format = vs_format_option(format_name, VS_FORMATS_TEXT_JSON);
	check_infer_opts(&opts);

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
	} else {
		vs_signature_print_infer(&res, vs_thread_calls_first(threads, nth),
					 nth, format);
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
	struct vs_signature_watch_print out;
	struct vs_sig_watch_stats st;
	struct vs_signatures *sig;
	struct sigaction sa = { .sa_handler = on_signal };
	char err[512];
	bool json;

	argc = parse_options(argc, argv, options, signature_usage,
			     VS_PARSE_STOP_AT_NON_OPTION);
	if (!sigfile)
		option_error("signatures", "is required");
	json = vs_format_option(format, VS_FORMATS_TEXT_JSON) ==
	       VS_FORMAT_JSON;
	check_infer_opts(&opts.infer);
	if (window < 1000000)
		option_error("window", "must be 1ms or more");
	if (!(opts.min_score > 0))
		option_error("min-score", "must be above 0");
	check_stack_size(stack_size);
	if (pid < 0 || (pid && argc) || (!pid && !argc))
		option_error("pid", "give either -p PID or a command");
	opts.window_ns = window;
	opts.stack_size = stack_size & ~7u;

	sig = vs_signatures_read(sigfile, err, sizeof(err));
	if (!sig) {
		fprintf(stderr, "varscope signature: %s\n", err);
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	vs_signature_watch_print_start(&out, json, window, sig->normal_calls);
	if (vs_signature_watch(sig, pid ? NULL : argv, pid, &opts,
			       vs_signature_print_window, &out, &watch_stop, &st,
			       err, sizeof(err)) < 0) {
		fprintf(stderr, "varscope signature: %s\n", err);
		vs_signatures_free(sig);
		return 1;
	}
	vs_signature_print_watched(&out, &st);
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
