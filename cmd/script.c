// SPDX-License-Identifier: MIT
/*
 * script.c - varscope script: dump the records of a trace as text or
 * JSON, all of them or those the filters of perf script select
 * (core/trace/record-filter.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "core/parse-options.h"
#include "core/trace/record-filter.h"
#include "core/trace/trace.h"
#include "core/trace/type-names.h"
#include "ui/output-format.h"
#include "ui/record-print.h"

static const char *const script_usage[] = {
	"varscope script [-i FILE] [--format text|json] [--type T] [--tid TID]",
	"                [--min-latency TIME] [--slowest N] [--time START,END]",
	NULL
};

#define NOT_GIVEN	UINT64_MAX	/* an option not given (0 is a value) */

/* A task's ran_instead records kept for its line: record writes 5 at most. */
#define MAX_RAN	8

struct ran_buf {
	struct vs_ran_instead ran[MAX_RAN];
	char comm[MAX_RAN][64];
	uint32_t nr;
};

struct script {
	const char *input, *format, *type, *time;
	uint64_t tid, min_latency, slowest;	/* NOT_GIVEN: not given */
	struct vs_record_filter filter;
	struct vs_time_option window;	/* --time */
	struct vs_type_names names;
	void (*print)(FILE *, const struct vs_reader *,
		      const struct vs_type_names *, const struct vs_record *);
	struct ran_buf ran;		/* of the task to come */
};

/*
 * The ran_instead records kept and not printed with a task: alone, if
 * the filters take them.
 */
static void flush_ran(struct script *sc, const struct vs_reader *r)
{
	struct vs_record rec = { .kind = VS_REC_RAN_INSTEAD };
	uint32_t i;

	for (i = 0; i < sc->ran.nr; i++) {
		rec.ran_instead = sc->ran.ran[i];
		if (vs_record_filter_match(&sc->filter, &rec))
			sc->print(stdout, r, &sc->names, &rec);
	}
	sc->ran.nr = 0;
}

/*
 * Print @rec, which the filters took: a ran_instead record (taken before
 * the filters) waits for its task, whose line holds it; one of another
 * task, or past MAX_RAN, flushes those kept.
 */
static void print_record(struct script *sc, const struct vs_reader *r,
			 struct vs_record *rec)
{
	struct ran_buf *b = &sc->ran;

	if (rec->kind == VS_REC_RAN_INSTEAD) {
		if (b->nr == MAX_RAN ||
		    (b->nr && b->ran[0].task_id != rec->ran_instead.task_id))
			flush_ran(sc, r);
		b->ran[b->nr] = rec->ran_instead;
		snprintf(b->comm[b->nr], sizeof(b->comm[b->nr]), "%s",
			 rec->ran_instead.comm ? rec->ran_instead.comm : "");
		b->ran[b->nr].comm = b->comm[b->nr];
		b->nr++;
		return;
	}
	if (rec->kind == VS_REC_TASK && b->nr && b->ran[0].task_id == rec->task.id) {
		rec->nr_ran = b->nr;
		rec->ran = b->ran;
		sc->print(stdout, r, &sc->names, rec);
		b->nr = 0;
		return;
	}
	flush_ran(sc, r);
	sc->print(stdout, r, &sc->names, rec);
}

/* --time START,END: durations from the recording's start, a side empty. */
static void check_options(struct script *sc)
{
	if (vs_format_option(sc->format, VS_FORMATS_TEXT_JSON) ==
	    VS_FORMAT_JSON)
		sc->print = vs_print_record_json;
	else
		sc->print = vs_print_record_text;
	if (sc->min_latency != NOT_GIVEN) {
		sc->filter.min_latency_ns = sc->min_latency;
		sc->filter.by_latency = true;
	}
	if (sc->slowest == 0)
		option_error("slowest", "must be 1 or more");
	if (sc->slowest != NOT_GIVEN)
		sc->filter.slowest = sc->slowest;
	if (sc->tid != NOT_GIVEN) {
		if (sc->tid > UINT32_MAX)
			option_error("tid", "%llu is not a thread id",
				     (unsigned long long)sc->tid);
		sc->filter.tid = sc->tid;
		sc->filter.by_tid = true;
	}
	if (sc->time) {
		sc->window = parse_time_option("time", sc->time);
		sc->filter.by_time = true;
	}
}

/* The selected records from where --time starts to where it ends. */
static int print_records(struct script *sc, struct vs_reader *r,
			 struct vs_slowest *slow)
{
	uint64_t end_off = UINT64_MAX, start;
	struct vs_record rec;
	int ret;

	if (sc->filter.by_time) {
		start = vs_reader_start_time(r);
		sc->filter.from_ns = start + sc->window.from;
		sc->filter.to_ns = sc->window.open_end ? UINT64_MAX :
				   start + sc->window.to;
		if (vs_reader_seek_time(r, sc->filter.from_ns))
			return -1;
		if (!sc->window.open_end)
			end_off = vs_reader_offset_until(r, sc->filter.to_ns);
	}
	while ((ret = vs_reader_next(r, &rec)) > 0) {
		if (vs_reader_offset(r) >= end_off)
			break;
		if (!slow && rec.kind == VS_REC_RAN_INSTEAD) {
			print_record(sc, r, &rec);
			continue;
		}
		if (!vs_record_filter_match(&sc->filter, &rec))
			continue;
		if (!slow)
			print_record(sc, r, &rec);
		else if (vs_slowest_add(slow, &rec.task))
			return -2;
	}
	if (!slow)
		flush_ran(sc, r);
	return ret < 0 ? -1 : 0;
}

static void print_slowest(struct script *sc, struct vs_reader *r,
			  struct vs_slowest *slow)
{
	struct vs_record rec = { .kind = VS_REC_TASK };
	size_t i;

	vs_slowest_sort(slow);
	for (i = 0; i < slow->nr; i++) {
		rec.task = slow->heap[i].task;
		sc->print(stdout, r, &sc->names, &rec);
	}
}

int cmd_script(int argc, const char **argv)
{
	struct script sc = { .input = VS_DEFAULT_FILE, .format = "text",
			     .tid = NOT_GIVEN, .min_latency = NOT_GIVEN,
			     .slowest = NOT_GIVEN };
	const struct vs_option options[] = {
		OPT_STRING('i', "input", &sc.input, "file",
			   "trace to read (default " VS_DEFAULT_FILE ")"),
		OPT_STRING(0, "format", &sc.format, "text|json",
			   "output format"),
		OPT_STRING(0, "type", &sc.type, "type",
			   "only the tasks of this type (a number or a name)"),
		OPT_U64(0, "tid", &sc.tid, "only the records of this thread"),
		OPT_DURATION(0, "min-latency", &sc.min_latency,
			     "only the tasks that took this long or longer"),
		OPT_U64(0, "slowest", &sc.slowest,
			"the N slowest tasks of the selection, slowest "
			"first"),
		OPT_STRING(0, "time", &sc.time, "start,end",
			   "only the records in this time range, durations "
			   "from the recording's start (1s,2.5s; a side may "
			   "be empty)"),
		OPT_END()
	};
	struct vs_slowest slow;
	struct vs_reader *r;
	char err[512];
	int fd, ret;

	argc = parse_options(argc, argv, options, script_usage, 0);
	if (argc)
		usage_with_options(script_usage, options);
	check_options(&sc);
	vs_slowest_init(&slow, sc.filter.slowest);

	fd = vs_trace_open_fd(sc.input);
	if (fd < 0) {
		fprintf(stderr, "varscope script: %s: %s\n", sc.input,
			strerror(errno));
		return 1;
	}
	r = vs_reader_fdopen(fd, sc.input, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "varscope script: %s\n", err);
		return 2;
	}
	if (vs_type_names_read(&sc.names, sc.input)) {
		fprintf(stderr, "varscope script: out of memory\n");
		vs_reader_close(r);
		return 1;
	}
	if (sc.type) {
		sc.filter.type = vs_type_option(&sc.names, sc.type);
		sc.filter.by_type = true;
	}
	if (sc.print == vs_print_record_json)
		vs_print_header_json(stdout, vs_reader_header(r));
	else
		vs_print_header_text(stdout, vs_reader_header(r));
	ret = print_records(&sc, r, sc.filter.slowest ? &slow : NULL);
	if (!ret && sc.filter.slowest)
		print_slowest(&sc, r, &slow);
	fflush(stdout);
	if (ret == -2)
		fprintf(stderr, "varscope script: out of memory\n");
	else if (ret < 0)
		fprintf(stderr, "varscope script: %s\n", vs_reader_error(r));
	else if (vs_reader_warning(r))
		fprintf(stderr, "varscope script: warning: %s\n",
			vs_reader_warning(r));
	vs_reader_close(r);
	vs_slowest_release(&slow);
	vs_type_names_release(&sc.names);
	return ret == -2 ? 1 : ret < 0 ? 2 : 0;
}
