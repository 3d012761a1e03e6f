// SPDX-License-Identifier: MIT
/*
 * parse-options.c - unit test of core/parse-options: every option type in
 * its long, short and --name=value forms, "--", --no-BOOL, and the one-line
 * errors (exit status 129) for bad values and unknown options.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/parse-options.h"
#include "t/unit/tap.h"

static bool verbose, dry_run;
static int count;
static uint64_t limit, duration, max_size;
static double rate;
static const char *output, *events, *sample;

static const struct vs_option options[] = {
	OPT_BOOLEAN('v', "verbose", &verbose, "be verbose"),
	OPT_BOOLEAN('n', "dry-run", &dry_run, "do nothing"),
	OPT_INTEGER('c', "count", &count, "how many"),
	OPT_U64(0, "limit", &limit, "at most"),
	OPT_DOUBLE('r', "rate", &rate, "rate", "fraction kept"),
	OPT_DURATION('d', "duration", &duration, "how long"),
	OPT_SIZE(0, "max-size", &max_size, "disk bound"),
	OPT_STRING('o', "output", &output, "file", "output file"),
	OPT_STRING_MULTI('e', "event", &events, "event", "events, repeatable"),
	OPT_STRING_OPTARG(0, "sample", &sample, "event", "sample", "cpu-clock"),
	OPT_END()
};

static const char *const usage[] = { "varscope unit [<options>] [ARGS]", NULL };

#define MAX_ARGS 16

static const char *argv_buf[MAX_ARGS + 2];
static int argc_buf;

/* Build argv (argv[0] = "unit") from a NULL-terminated list. */
static void set_args(const char *first, va_list ap)
{
	const char *a;

	argc_buf = 0;
	argv_buf[argc_buf++] = "unit";
	for (a = first; a && argc_buf <= MAX_ARGS; a = va_arg(ap, const char *))
		argv_buf[argc_buf++] = a;
	argv_buf[argc_buf] = NULL;
}

static void reset(void)
{
	verbose = dry_run = false;
	count = 0;
	limit = duration = max_size = 0;
	rate = 0;
	output = events = sample = NULL;
}

/* Parse in this process; returns the number of arguments left. */
static int parse(int flags, const char *first, ...)
{
	va_list ap;

	reset();
	va_start(ap, first);
	set_args(first, ap);
	va_end(ap);
	return parse_options(argc_buf, argv_buf, options, usage, flags);
}

struct outcome {
	int status;		/* exit status, or -1 if not exited */
	char err[1024];		/* what went to stderr */
	char out[4096];		/* what went to stdout */
};

static void read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += r;
	buf[n] = '\0';
}

/* Parse in a child, which exits on errors and --help. */
static void vparse_in_child(struct outcome *o, const char *first, va_list ap)
{
	int err[2], out[2], st;
	pid_t pid;

	set_args(first, ap);
	fflush(stdout);
	if (pipe(err) || pipe(out)) {
		perror("pipe");
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		dup2(err[1], 2);
		dup2(out[1], 1);
		parse_options(argc_buf, argv_buf, options, usage, 0);
		fflush(stdout);
		_exit(0);
	}
	close(err[1]);
	close(out[1]);
	read_all(out[0], o->out, sizeof(o->out));
	read_all(err[0], o->err, sizeof(o->err));
	close(err[0]);
	close(out[0]);
	waitpid(pid, &st, 0);
	o->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void parse_in_child(struct outcome *o, const char *first, ...)
{
	va_list ap;

	va_start(ap, first);
	vparse_in_child(o, first, ap);
	va_end(ap);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A bad command line: exit 129 and exactly the one line @want on stderr. */
static void rejects(const char *want, const char *what, const char *first, ...)
{
	struct outcome o;
	va_list ap;

	va_start(ap, first);
	vparse_in_child(&o, first, ap);
	va_end(ap);
	ok(o.status == 129 && count_lines(o.err) == 1 && !strcmp(o.err, want),
	   "%s", what);
	if (o.status != 129 || strcmp(o.err, want))
		printf("#   status %d, stderr: %s#   want: %s", o.status, o.err,
		       want);
}

static void test_long_and_short_forms(void)
{
	int n;

	n = parse(0, "--count", "7", "--rate=0.25", "-o", "out.data",
		  "-d500ms", "--max-size", "64k", "--limit=12", NULL);
	is_u64(n, 0, "no argument left after options only");
	is_u64(count, 7, "--count 7");
	ok(rate == 0.25, "--rate=0.25");
	is_str(output, "out.data", "-o out.data");
	is_u64(duration, 500000000, "-d500ms is 500 ms in ns");
	is_u64(max_size, 65536, "--max-size 64k");
	is_u64(limit, 12, "--limit=12");

	parse(0, "-vn", NULL);
	ok(verbose && dry_run, "bundled short booleans -vn");
	parse(0, "-c", "-3", "-ofile", NULL);
	ok(count == -3, "-c -3: a negative integer is a value");
	is_str(output, "file", "-ofile: value glued to the switch");
}

static void test_arguments_and_dashdash(void)
{
	int n;

	n = parse(0, "a", "-v", "b", "--", "-c", "--count=1", NULL);
	is_u64(n, 4, "arguments around options are kept, in order");
	ok(n == 4 && !strcmp(argv_buf[0], "a") && !strcmp(argv_buf[1], "b") &&
	   !strcmp(argv_buf[2], "-c") && !strcmp(argv_buf[3], "--count=1"),
	   "'--' ends options: what follows stays an argument");
	ok(verbose && count == 0, "options before '--' are parsed, not after");
	ok(argv_buf[n] == NULL, "the arguments left are NULL terminated");

	n = parse(VS_PARSE_STOP_AT_NON_OPTION, "-v", "./prog", "-c", "2", NULL);
	ok(n == 3 && !strcmp(argv_buf[0], "./prog") &&
	   !strcmp(argv_buf[1], "-c") && count == 0,
	   "STOP_AT_NON_OPTION leaves the command's own options alone");

	n = parse(VS_PARSE_KEEP_DASHDASH, "--", "x", NULL);
	ok(n == 2 && !strcmp(argv_buf[0], "--"), "KEEP_DASHDASH keeps '--'");
}

static void test_booleans_multi_optarg(void)
{
	parse(0, "--verbose", "--no-verbose", NULL);
	ok(!verbose, "--no-verbose clears --verbose");
	parse(0, "--no-dry-run", "--dry-run", NULL);
	ok(dry_run, "the last of --no-dry-run --dry-run wins");

	parse(0, "-e", "a", "--event=b", "--event", "c", NULL);
	is_str(events, "a,b,c", "repeated multi-string options are comma joined");

	parse(0, "--sample", NULL);
	is_str(sample, "cpu-clock", "--sample without a value takes its default");
	parse(0, "--sample=mem", NULL);
	is_str(sample, "mem", "--sample=mem");
}

static void test_value_parsers(void)
{
	static const struct { const char *s; uint64_t ns; } durations[] = {
		{ "10", 10000000000ULL }, { "10s", 10000000000ULL },
		{ "500ms", 500000000 }, { "20us", 20000 }, { "7ns", 7 },
		{ "3m", 180000000000ULL }, { "1h", 3600000000000ULL },
		{ "1.5s", 1500000000 },
	};
	static const char *const bad_durations[] = {
		"", "-1", "10x", "s", "1e400", "nan", "10 s",
	};
	static const struct { const char *s; uint64_t bytes; } sizes[] = {
		{ "4096", 4096 }, { "64k", 65536 }, { "10M", 10485760 },
		{ "2G", 2147483648ULL }, { "1kB", 1024 }, { "1T", 1ULL << 40 },
	};
	static const char *const bad_sizes[] = {
		"", "-1", "1x", "k", "1.5M", "99999999999999T", "1kk",
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		v = 0;
		ok(!vs_parse_duration(durations[i].s, &v) &&
		   v == durations[i].ns, "duration '%s'", durations[i].s);
	}
	for (i = 0; i < sizeof(bad_durations) / sizeof(bad_durations[0]); i++)
		ok(vs_parse_duration(bad_durations[i], &v) == -1,
		   "bad duration '%s' is rejected", bad_durations[i]);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		v = 0;
		ok(!vs_parse_size(sizes[i].s, &v) && v == sizes[i].bytes,
		   "size '%s'", sizes[i].s);
	}
	for (i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++)
		ok(vs_parse_size(bad_sizes[i], &v) == -1,
		   "bad size '%s' is rejected", bad_sizes[i]);
}

static void test_errors(void)
{
	struct outcome o;

	rejects("varscope unit: option `--count': expects an integer, not 'x'\n",
		"bad integer", "--count", "x", NULL);
	rejects("varscope unit: option `--count': expects an integer, not '99999999999'\n",
		"integer out of range", "-c", "99999999999", NULL);
	rejects("varscope unit: option `--limit': expects a non-negative integer, not '-1'\n",
		"negative u64", "--limit=-1", NULL);
	rejects("varscope unit: option `--rate': expects a number, not '0.5x'\n",
		"bad double", "--rate", "0.5x", NULL);
	rejects("varscope unit: option `--rate': expects a number, not 'inf'\n",
		"infinite double", "-r", "inf", NULL);
	rejects("varscope unit: option `--duration': expects a duration like 10s, 500ms or 2m, not '5 parsecs'\n",
		"bad duration", "--duration=5 parsecs", NULL);
	rejects("varscope unit: option `--max-size': expects a size like 4096, 64k, 10M or 2G, not '1Q'\n",
		"bad size", "--max-size", "1Q", NULL);
	rejects("varscope unit: option `--output': requires a value\n",
		"missing value", "--output", NULL);
	rejects("varscope unit: option `--verbose': takes no value\n",
		"value given to a boolean", "--verbose=1", NULL);
	rejects("varscope unit: option `--output': cannot be negated\n",
		"--no- on a non-boolean", "--no-output", NULL);
	rejects("varscope unit: unknown option `--bogus'. See 'varscope unit --help'.\n",
		"unknown long option", "--bogus=3", NULL);
	rejects("varscope unit: unknown switch `x'. See 'varscope unit --help'.\n",
		"unknown short switch", "-vx", NULL);

	parse_in_child(&o, "--help", NULL);
	ok(o.status == 0 && strstr(o.out, "usage: varscope unit") &&
	   strstr(o.out, "--max-size <size>") && !o.err[0],
	   "--help prints the usage on stdout and exits 0");
	parse_in_child(&o, "-h", NULL);
	ok(o.status == 0 && strstr(o.out, "usage: varscope unit"), "-h is --help");
	parse_in_child(&o, "--list-opts", NULL);
	ok(o.status == 0 && strstr(o.out, "--verbose --dry-run --count=") &&
	   strstr(o.out, "--help\n"), "--list-opts lists the long options");
}

int main(void)
{
	vs_cmd_name = "unit";
	test_long_and_short_forms();
	test_arguments_and_dashdash();
	test_booleans_multi_optarg();
	test_value_parsers();
	test_errors();
	return done_testing();
}
