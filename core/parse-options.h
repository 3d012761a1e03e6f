/* SPDX-License-Identifier: MIT */
/*
 * parse-options.h - one option parser for every varscope command
 * (the shape of perf's and git's parse-options).
 *
 * Long (--name, --name=value, --name value) and short (-n value, -nvalue)
 * forms; "--" ends options.  A bad value prints one line naming the option
 * and exits with status 129; -h/--help prints the usage and exits 0;
 * --list-opts prints the long options on one line (bash completion).
 */
#ifndef VS_CORE_PARSE_OPTIONS_H
#define VS_CORE_PARSE_OPTIONS_H

#include <stdint.h>
#include <stdbool.h>

enum vs_option_type {
	VS_OPT_END,
	VS_OPT_GROUP,		/* a heading in --help */
	VS_OPT_BOOLEAN,		/* bool; --no-NAME clears it */
	VS_OPT_STRING,		/* const char * */
	VS_OPT_INTEGER,		/* int */
	VS_OPT_U64,		/* uint64_t */
	VS_OPT_DOUBLE,		/* double */
	VS_OPT_DURATION,	/* uint64_t ns: 10, 10s, 500ms, 20us, 3m, 1h */
	VS_OPT_SIZE,		/* uint64_t bytes: 4096, 64k, 10M, 2G */
	VS_OPT_CALLBACK,	/* int cb(opt, arg): 0 ok, -1 error (cb prints) */
};

/* flags */
#define VS_OPT_OPTARG	(1 << 0)	/* value is optional (--sample[=EV]) */
#define VS_OPT_MULTI	(1 << 1)	/* string options append, comma joined */

struct vs_option;
typedef int (*vs_option_cb)(const struct vs_option *opt, const char *arg);

struct vs_option {
	enum vs_option_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh;	/* "file", "rate" ... shown in --help */
	const char *help;
	int flags;
	vs_option_cb callback;
	const char *defval;	/* value for VS_OPT_OPTARG without '=' */
};

#define OPT_END()		{ .type = VS_OPT_END }
#define OPT_GROUP(h)		{ .type = VS_OPT_GROUP, .help = (h) }
#define OPT_BOOLEAN(s, l, v, h)	{ VS_OPT_BOOLEAN, (s), (l), (v), NULL, (h), 0, NULL, NULL }
#define OPT_STRING(s, l, v, a, h) { VS_OPT_STRING, (s), (l), (v), (a), (h), 0, NULL, NULL }
#define OPT_STRING_OPTARG(s, l, v, a, h, d) \
	{ VS_OPT_STRING, (s), (l), (v), (a), (h), VS_OPT_OPTARG, NULL, (d) }
#define OPT_STRING_MULTI(s, l, v, a, h) \
	{ VS_OPT_STRING, (s), (l), (v), (a), (h), VS_OPT_MULTI, NULL, NULL }
#define OPT_INTEGER(s, l, v, h)	{ VS_OPT_INTEGER, (s), (l), (v), "n", (h), 0, NULL, NULL }
#define OPT_U64(s, l, v, h)	{ VS_OPT_U64, (s), (l), (v), "n", (h), 0, NULL, NULL }
#define OPT_DOUBLE(s, l, v, a, h) { VS_OPT_DOUBLE, (s), (l), (v), (a), (h), 0, NULL, NULL }
#define OPT_DURATION(s, l, v, h) { VS_OPT_DURATION, (s), (l), (v), "time", (h), 0, NULL, NULL }
#define OPT_SIZE(s, l, v, h)	{ VS_OPT_SIZE, (s), (l), (v), "size", (h), 0, NULL, NULL }
#define OPT_CALLBACK(s, l, v, a, h, cb) \
	{ VS_OPT_CALLBACK, (s), (l), (v), (a), (h), 0, (cb), NULL }

/* parse_options() flags */
#define VS_PARSE_STOP_AT_NON_OPTION	(1 << 0)  /* "record ./cmd -x": -x is cmd's */
#define VS_PARSE_KEEP_DASHDASH		(1 << 1)

/**
 * parse_options - parse @argv[1..] against @opts
 * @argc/@argv: as given to the command (argv[0] is the command name)
 * @opts: the options, ended by OPT_END()
 * @usage: usage lines, NULL terminated; usage[0] is "varscope CMD [<options>]"
 * @flags: VS_PARSE_*
 *
 * Returns the number of arguments left; they are moved to argv[0..n-1].
 * Exits 129 on a bad option (one line on stderr) and 0 after --help.
 */
int parse_options(int argc, const char **argv, const struct vs_option *opts,
		  const char *const *usage, int flags);

/**
 * usage_with_options - print usage and option help to stderr, exit 129
 */
void usage_with_options(const char *const *usage, const struct vs_option *opts)
	__attribute__((noreturn));

/**
 * option_error - one line "varscope CMD: option `--NAME': MSG", exit 129
 * @long_name: the option's long name, without dashes
 */
void option_error(const char *long_name, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/* A time range given as durations from the start of a recording. */
struct vs_time_option {
	uint64_t from, to;		/* ns from the start */
	bool open_end;			/* END left empty: to the end */
};

/**
 * parse_time_option - the value @arg of option --@long_name, START,END:
 * two durations from the recording's start (vs_parse_duration()), either
 * side may be empty (`,500ms` from the start, `10s,` to the end), END
 * after START
 *
 * A bad value exits through option_error().
 */
struct vs_time_option parse_time_option(const char *long_name,
					const char *arg);

/* Value parsers shared with config and tests: 0 on success, -1 if bad. */
int vs_parse_duration(const char *s, uint64_t *ns);
int vs_parse_size(const char *s, uint64_t *bytes);
int vs_parse_task_type(const char *s, uint32_t *type);	/* decimal u32 */

/* The running command's name for messages ("record"); set by main. */
extern const char *vs_cmd_name;

#endif /* VS_CORE_PARSE_OPTIONS_H */
