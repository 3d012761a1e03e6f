// SPDX-License-Identifier: MIT
/*
 * record.c - varscope record: run a command and record, for each of its
 * AppTasks, the cumulative kernel and counter values (core/record/record.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/output-file.h"
#include "core/parse-options.h"
#include "core/record/record.h"
#include "core/trace/trace.h"

static const char *const record_usage[] = {
	"varscope record [<options>] [--] COMMAND [ARGS]",
	"varscope record [<options>] --task-func SYMBOL[@BINARY] -p PID",
	NULL
};

/* The command line as one string, for the trace's META record. */
static char *join_argv(int argc, const char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* What an option left at its default holds, so that 0 is the user's. */
#define NOT_GIVEN	UINT64_MAX

/* @v back to 0 (none) when not given; an error when given as 0. */
static void nonzero_if_given(uint64_t *v, const char *name)
{
	if (!*v)
		option_error(name, "must be more than 0");
	if (*v == NOT_GIVEN)
		*v = 0;
}

/* --call-graph fp|dwarf[,SIZE] into @o, as perf record takes it */
static void parse_call_graph(const char *arg, struct vs_record_opts *o)
{
	unsigned long long size;
	char *end;

	if (!strcmp(arg, "fp")) {
		o->call_graph = VS_CALL_GRAPH_FP;
		return;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		option_error("call-graph", "'%s': fp or dwarf[,SIZE]", arg);
	o->call_graph = VS_CALL_GRAPH_DWARF;
	if (!arg[5])
		return;
	errno = 0;
	size = strtoull(arg + 6, &end, 0);
	if (errno || *end || end == arg + 6 || size < 8 ||
	    size > VS_CALL_GRAPH_STACK_MAX)
		option_error("call-graph", "dwarf,SIZE: SIZE must be bytes "
			     "from 8 to %u", VS_CALL_GRAPH_STACK_MAX);
	o->stack_size = (size + 7) & ~7ull;
}

int cmd_record(int argc, const char **argv)
{
	const char *call_graph = NULL;
	struct vs_record_opts opts = {
		.rate = 1.0,
		.epoch_ns = 1000000000ull,
		.duration_ns = NOT_GIVEN,
		.segment_ns = NOT_GIVEN,
		.max_size = NOT_GIVEN,
		.sample_period = NOT_GIVEN,
		.sample_freq = NOT_GIVEN,
	};
	int mmap_pages = -1;	/* not given: the default */
	int realtime = -1;
	const struct vs_option options[] = {
		OPT_STRING('o', "output", &opts.output, "file",
			   "output file (default varscope.data; an existing one "
			   "becomes varscope.data.old)"),
		OPT_DOUBLE(0, "rate", &opts.rate, "R",
			   "record a random fraction R of the tasks, 0 < R <= 1"),
		OPT_DURATION(0, "epoch", &opts.epoch_ns,
			     "length of an epoch (default 1s)"),
		OPT_DURATION(0, "duration", &opts.duration_ns,
			     "stop recording after this time"),
		OPT_DURATION(0, "segment-length", &opts.segment_ns,
			     "write numbered files FILE.0001.. of this much "
			     "time each"),
		OPT_SIZE(0, "max-size", &opts.max_size,
			 "remove the oldest segment files beyond this size"),
		OPT_STRING_MULTI('e', "event", &opts.events, "event",
				 "tracepoints to record (sys:name, name may "
				 "end in *), comma separated"),
		OPT_STRING_MULTI(0, "task-func", &opts.task_funcs, "sym[@bin]",
				 "each call of this function is a task (uprobes; "
				 "type 1, 2... in the order given)"),
		OPT_STRING_MULTI(0, "probe", &opts.probe_funcs, "sym[@bin]",
				 "measure each call of this function exactly "
				 "(uprobes, ~10 us a call): func records"),
		OPT_INTEGER('p', "pid", &opts.pid,
			    "attach to this running process (with --task-func)"),
		OPT_BOOLEAN(0, "syscalls", &opts.syscalls,
			    "also store every system call (enter and exit) "
			    "and context switch, for signature infer"),
		OPT_BOOLEAN(0, "syscall-stacks", &opts.syscall_stacks,
			    "with --syscalls: the stack of each call of 1 s "
			    "or more (a hang's function, for signature infer)"),
		OPT_STRING_OPTARG(0, "sample", &opts.sample, "event",
				  "sample inside tasks: uops (default: PEBS "
				  "UOPS_RETIRED.ALL), mem (PEBS load latency) or "
				  "cpu-clock (what is used without PEBS)", ""),
		OPT_U64(0, "sample-period", &opts.sample_period,
			"events between samples (PEBS reset value, default "
			"8000); ns of cpu-clock without PEBS"),
		OPT_U64('F', "freq", &opts.sample_freq,
			"cpu-clock samples per second (default 4000)"),
		OPT_STRING(0, "call-graph", &call_graph, "mode",
			   "user call chains of samples: dwarf[,SIZE] (the "
			   "default: SIZE bytes of stack, 8192, unwound "
			   "offline) or fp (frame pointers)"),
		OPT_INTEGER('m', "mmap-pages", &mmap_pages,
			    "data pages of each CPU's --sample ring (a power "
			    "of two; default 512, 2048 with --call-graph "
			    "dwarf)"),
		OPT_INTEGER('r', "realtime", &realtime,
			    "drain the rings with this SCHED_FIFO priority "
			    "(1-99; the command runs as it would)"),
		OPT_END()
	};
	char *cmdline, *tps = NULL, *raws = NULL, err[256];
	int status;

	cmdline = join_argv(argc, argv);
	argc = parse_options(argc, argv, options, record_usage,
			     VS_PARSE_STOP_AT_NON_OPTION);
	nonzero_if_given(&opts.duration_ns, "duration");
	nonzero_if_given(&opts.segment_ns, "segment-length");
	nonzero_if_given(&opts.max_size, "max-size");
	nonzero_if_given(&opts.sample_period, "sample-period");
	nonzero_if_given(&opts.sample_freq, "freq");
	if (!(opts.rate > 0 && opts.rate <= 1))
		option_error("rate", "must be in (0, 1]");
	if (opts.segment_ns && opts.segment_ns < VS_RECORD_MIN_PERIOD_NS)
		option_error("segment-length", "must be at least "
			     VS_RECORD_MIN_PERIOD ": files switch on the "
			     "recorder's 10 ms tick");
	if (opts.epoch_ns < VS_RECORD_MIN_PERIOD_NS)
		option_error("epoch", "must be at least " VS_RECORD_MIN_PERIOD
			     ": epochs switch on the recorder's 10 ms tick, "
			     "each opening new counters in every thread");
	if (opts.segment_ns && opts.output && !strcmp(opts.output, "-"))
		option_error("output", "- (the standard output) cannot be cut "
			     "into segment files");
	vs_output_option("output", opts.output ? opts.output :
			 VS_DEFAULT_FILE);
	if (opts.max_size && !opts.segment_ns)
		option_error("max-size", "needs --segment-length: only whole "
			     "segment files are removed");
	if (mmap_pages != -1 && (mmap_pages < 1 || mmap_pages > 65536 ||
				 (mmap_pages & (mmap_pages - 1))))
		option_error("mmap-pages", "must be a power of two up to 65536");
	if (realtime != -1 && (realtime < 1 || realtime > 99))
		option_error("realtime", "must be a priority from 1 to 99");
	if (vs_record_split_events(opts.events, &tps, &raws, err, sizeof(err)))
		option_error("event", "%s", err);
	free(tps);
	free(raws);
	if ((opts.sample_period || opts.sample_freq) && !opts.sample)
		option_error(opts.sample_period ? "sample-period" : "freq",
			     "needs --sample");
	if (opts.sample_period && opts.sample_freq)
		option_error("freq", "give --sample-period or -F, not both");
	if (opts.sample_freq > 100000)
		option_error("freq", "must be at most 100000");
	if (call_graph && !opts.sample)
		option_error("call-graph", "needs --sample");
	if (opts.syscall_stacks && !opts.syscalls)
		option_error("syscall-stacks", "needs --syscalls");
	if (call_graph)
		parse_call_graph(call_graph, &opts);
	if (opts.pid && argc)
		option_error("pid", "attaches to a process: give no command");
	if (opts.pid && !opts.task_funcs)
		option_error("pid", "needs --task-func (an annotated program is "
			     "recorded from its start: varscope record -- CMD)");
	if (opts.pid < 0)
		option_error("pid", "must be a process id");
	if (!argc && !opts.pid) {
		fprintf(stderr, "varscope record: no command to run\n");
		usage_with_options(record_usage, options);
	}
	opts.mmap_pages = mmap_pages == -1 ? 0 : mmap_pages;
	opts.realtime = realtime == -1 ? 0 : realtime;
	opts.argv = argv;
	opts.cmdline = cmdline;
	status = vs_record(&opts);
	free(cmdline);
	return status;
}
