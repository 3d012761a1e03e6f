// SPDX-License-Identifier: MIT
/*
 * parse-options.c - the option parser every varscope command uses.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/parse-options.h"

const char *vs_cmd_name = "varscope";

static void print_cmd_prefix(void)
{
	if (strcmp(vs_cmd_name, "varscope"))
		fprintf(stderr, "varscope %s: ", vs_cmd_name);
	else
		fprintf(stderr, "varscope: ");
}

void option_error(const char *long_name, const char *fmt, ...)
{
	va_list ap;

	print_cmd_prefix();
	fprintf(stderr, "option `--%s': ", long_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(129);
}

static void print_usage(FILE *fp, const char *const *usage,
			const struct vs_option *opts)
{
	const struct vs_option *o;
	int i;

	for (i = 0; usage[i]; i++)
		fprintf(fp, "%s%s\n", i ? "   or: " : "usage: ", usage[i]);
	fputc('\n', fp);
	for (o = opts; o->type != VS_OPT_END; o++) {
		char left[80];
		int n = 0;

		if (o->type == VS_OPT_GROUP) {
			fprintf(fp, "\n%s\n", o->help);
			continue;
		}
		if (o->short_name)
			n += snprintf(left + n, sizeof(left) - n, "-%c%s",
				      o->short_name, o->long_name ? ", " : "");
		if (o->long_name)
			n += snprintf(left + n, sizeof(left) - n, "--%s",
				      o->long_name);
		if (o->type != VS_OPT_BOOLEAN && o->argh)
			snprintf(left + n, sizeof(left) - n,
				 (o->flags & VS_OPT_OPTARG) ? "[=<%s>]" : " <%s>",
				 o->argh);
		fprintf(fp, "    %-26s %s\n", left, o->help ? o->help : "");
	}
	if (opts->type != VS_OPT_END)
		fputc('\n', fp);
}

/* --list-opts: the long options on one line, for the bash completion. */
static void list_options(const struct vs_option *opts)
{
	const struct vs_option *o;

	for (o = opts; o->type != VS_OPT_END; o++)
		if (o->long_name)
			printf("--%s%s ", o->long_name,
			       o->type == VS_OPT_BOOLEAN ? "" : "=");
	printf("--help\n");
}

void usage_with_options(const char *const *usage, const struct vs_option *opts)
{
	print_usage(stderr, usage, opts);
	exit(129);
}

static const char *opt_name(const struct vs_option *o, char *buf, size_t len)
{
	if (o->long_name)
		return o->long_name;
	snprintf(buf, len, "%c", o->short_name);
	return buf;
}

int vs_parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *suffix; double mult; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "h", 3600e9 }, { "", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0 || !isfinite(v))
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].suffix)) {
			double r = v * units[i].mult;

			if (r > 1.8e19)
				return -1;
			*ns = (uint64_t)r;
			return 0;
		}
	}
	return -1;
}

int vs_parse_task_type(const char *s, uint32_t *type)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno || v > UINT32_MAX)
		return -1;
	*type = v;
	return 0;
}

int vs_parse_size(const char *s, uint64_t *bytes)
{
	static const char suffixes[] = "kmgt";
	char *end;
	unsigned long long v;
	const char *p;
	int shift = 0;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		p = strchr(suffixes, end[0] | 0x20);
		if (!p || !end[0])
			return -1;
		shift = 10 * (int)(p - suffixes + 1);
		end++;
		if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			return -1;
	}
	if (shift && v > (~0ULL >> shift))
		return -1;
	*bytes = (uint64_t)v << shift;
	return 0;
}

/*
 * The comma-joined values of VS_OPT_MULTI options live as long as the
 * command; they are kept here so that a third value replaces the string
 * of the second one (freed then), and so that they stay reachable.
 */
static char **joined;
static size_t nr_joined, alloc_joined;

static void append_string(const char **dst, const char *arg)
{
	size_t i;
	char *s;

	if (!*dst) {
		*dst = arg;
		return;
	}
	for (i = 0; i < nr_joined; i++)
		if (joined[i] == *dst)
			break;
	if (i == nr_joined) {
		if (ALLOC_GROW(joined, nr_joined + 1, alloc_joined))
			goto oom;
		joined[nr_joined++] = NULL;
	}
	if (asprintf(&s, "%s,%s", *dst, arg) < 0)
		goto oom;
	free(joined[i]);
	joined[i] = s;
	*dst = s;
	return;
oom:
	perror("varscope: realloc");
	exit(1);
}

static void set_value(const struct vs_option *o, const char *arg)
{
	char buf[4];
	const char *name = opt_name(o, buf, sizeof(buf));
	char *end;

	switch (o->type) {
	case VS_OPT_STRING:
		if (o->flags & VS_OPT_MULTI)
			append_string(o->value, arg);
		else
			*(const char **)o->value = arg;
		break;
	case VS_OPT_INTEGER: {
		long v;

		errno = 0;
		v = strtol(arg, &end, 0);
		if (errno || end == arg || *end || v < -2147483647L - 1 ||
		    v > 2147483647L)
			option_error(name, "expects an integer, not '%s'", arg);
		*(int *)o->value = (int)v;
		break;
	}
	case VS_OPT_U64: {
		unsigned long long v;

		errno = 0;
		v = strtoull(arg, &end, 0);
		if (errno || end == arg || *end || arg[0] == '-')
			option_error(name, "expects a non-negative integer, not '%s'", arg);
		*(uint64_t *)o->value = v;
		break;
	}
	case VS_OPT_DOUBLE: {
		double v;

		errno = 0;
		v = strtod(arg, &end);
		if (errno || end == arg || *end || !isfinite(v))
			option_error(name, "expects a number, not '%s'", arg);
		*(double *)o->value = v;
		break;
	}
	case VS_OPT_DURATION:
		if (vs_parse_duration(arg, o->value))
			option_error(name, "expects a duration like 10s, 500ms or 2m, not '%s'", arg);
		break;
	case VS_OPT_SIZE:
		if (vs_parse_size(arg, o->value))
			option_error(name, "expects a size like 4096, 64k, 10M or 2G, not '%s'", arg);
		break;
	case VS_OPT_CALLBACK:
		if (o->callback(o, arg))
			exit(129);
		break;
	default:
		break;
	}
}

static const struct vs_option *find_long(const struct vs_option *opts,
					 const char *name, size_t len,
					 bool *negated)
{
	const struct vs_option *o;

	*negated = false;
	for (o = opts; o->type != VS_OPT_END; o++)
		if (o->long_name && strlen(o->long_name) == len &&
		    !strncmp(o->long_name, name, len))
			return o;
	if (len > 3 && !strncmp(name, "no-", 3)) {
		for (o = opts; o->type != VS_OPT_END; o++)
			if (o->long_name && strlen(o->long_name) == len - 3 &&
			    !strncmp(o->long_name, name + 3, len - 3)) {
				*negated = true;
				return o;
			}
	}
	return NULL;
}

static const struct vs_option *find_short(const struct vs_option *opts, int c)
{
	const struct vs_option *o;

	for (o = opts; o->type != VS_OPT_END; o++)
		if (o->type != VS_OPT_GROUP && o->short_name == c)
			return o;
	return NULL;
}

static bool takes_value(const struct vs_option *o)
{
	return o->type != VS_OPT_BOOLEAN;
}

/* Returns how many argv entries were used (1 or 2). */
static int parse_long(int argc, const char **argv, int i,
		      const struct vs_option *opts, const char *const *usage)
{
	const char *name = argv[i] + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct vs_option *o;
	bool negated;

	if (len == 4 && !strncmp(name, "help", 4)) {
		print_usage(stdout, usage, opts);
		exit(0);
	}
	if (len == 9 && !strncmp(name, "list-opts", 9)) {
		list_options(opts);
		exit(0);
	}
	o = find_long(opts, name, len, &negated);
	if (!o) {
		print_cmd_prefix();
		fprintf(stderr, "unknown option `--%.*s'. See 'varscope %s --help'.\n",
			(int)len, name, vs_cmd_name);
		exit(129);
	}
	if (!takes_value(o)) {
		if (eq)
			option_error(o->long_name, "takes no value");
		*(bool *)o->value = !negated;
		return 1;
	}
	if (negated)
		option_error(o->long_name, "cannot be negated");
	if (eq) {
		set_value(o, eq + 1);
		return 1;
	}
	if (o->flags & VS_OPT_OPTARG) {
		set_value(o, o->defval ? o->defval : "");
		return 1;
	}
	if (i + 1 >= argc)
		option_error(o->long_name, "requires a value");
	set_value(o, argv[i + 1]);
	return 2;
}

static int parse_short(int argc, const char **argv, int i,
		       const struct vs_option *opts, const char *const *usage)
{
	const char *p = argv[i] + 1;

	for (; *p; p++) {
		const struct vs_option *o;
		char buf[4];

		if (*p == 'h') {
			if (!find_short(opts, 'h')) {
				print_usage(stdout, usage, opts);
				exit(0);
			}
		}
		o = find_short(opts, *p);
		if (!o) {
			print_cmd_prefix();
			fprintf(stderr, "unknown switch `%c'. See 'varscope %s --help'.\n",
				*p, vs_cmd_name);
			exit(129);
		}
		if (!takes_value(o)) {
			*(bool *)o->value = true;
			continue;
		}
		if (p[1]) {
			set_value(o, p + 1);
			return 1;
		}
		if (o->flags & VS_OPT_OPTARG) {
			set_value(o, o->defval ? o->defval : "");
			return 1;
		}
		if (i + 1 >= argc)
			option_error(opt_name(o, buf, sizeof(buf)), "requires a value");
		set_value(o, argv[i + 1]);
		return 2;
	}
	return 1;
}

int parse_options(int argc, const char **argv, const struct vs_option *opts,
		  const char *const *usage, int flags)
{
	int i = 1, nleft = 0;

	while (i < argc) {
		const char *arg = argv[i];

		if (!strcmp(arg, "--")) {
			if (flags & VS_PARSE_KEEP_DASHDASH)
				argv[nleft++] = arg;
			i++;
			break;
		}
		if (arg[0] != '-' || !arg[1]) {
			if (flags & VS_PARSE_STOP_AT_NON_OPTION)
				break;
			argv[nleft++] = arg;
			i++;
			continue;
		}
		if (arg[1] == '-')
			i += parse_long(argc, argv, i, opts, usage);
		else
			i += parse_short(argc, argv, i, opts, usage);
	}
	while (i < argc)
		argv[nleft++] = argv[i++];
	argv[nleft] = NULL;
	return nleft;
}

struct vs_time_option parse_time_option(const char *long_name,
					const char *arg)
{
	const char *comma = strchr(arg, ',');
	struct vs_time_option t = { 0 };
	char from[64] = "";

	if (!comma || (size_t)(comma - arg) >= sizeof(from))
		option_error(long_name, "expects START,END (durations from "
			     "the recording's start, like 1s,2.5s or 500ms,), "
			     "not '%s'", arg);
	memcpy(from, arg, comma - arg);
	t.open_end = !comma[1];
	if ((*from && vs_parse_duration(from, &t.from)) ||
	    (!t.open_end && vs_parse_duration(comma + 1, &t.to)))
		option_error(long_name, "'%s': START and END are durations "
			     "like 10s or 500ms", arg);
	if (!t.open_end && t.to <= t.from)
		option_error(long_name, "'%s': END must come after START",
			     arg);
	return t;
}
