// SPDX-License-Identifier: MIT
/*
 * gen-trace.c - write a synthetic varscope trace, for tests and benchmarks.
 *
 * Tasks of K types get values for M events named like the real ones
 * (run.time, sched.blocked.time, ...; ev.N beyond the named list).  Their
 * latency is the sum of their time events plus a little noise, so a cause
 * injected with --cause is ground truth: a fraction of the tasks of one
 * type get a high value of one event, added to their latency as well.
 * With --wakeups, each task's thread blocks once half-way and one of four
 * threads outside tasks wakes it (switch out, wake-up, switch in), as the
 * recorder writes them for a blocking wait, after the META record that
 * says so (--no-wakeups-meta: without it, as an older recorder wrote).
 * With --sample-binary, the samples are in functions of a real ELF file,
 * on a tree of call paths (a few hundred nodes), for the variance tree's
 * benchmark.  The output depends only on the options (fixed header, own
 * PRNG) and the file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse-options.h"
#include "core/symbols/symbols.h"
#include "core/trace/trace.h"
#include "core/analysis/wakeup.h"

static const struct {
	const char *name;
	const char *unit;
	uint8_t group;
	uint64_t mean;		/* typical value per task */
} named_events[] = {
	{ "run.time", "ns", VS_GROUP_KERNEL, 50000 },
	{ "sched.blocked.time", "ns", VS_GROUP_KERNEL, 4000 },
	{ "sched.runnable.time", "ns", VS_GROUP_KERNEL, 2000 },
	{ "irq.hard.time", "ns", VS_GROUP_KERNEL, 500 },
	{ "fault.page.count", "count", VS_GROUP_KERNEL, 3 },
	{ "irq.soft.time", "ns", VS_GROUP_KERNEL, 800 },
	{ "sched.iowait.time", "ns", VS_GROUP_KERNEL, 1000 },
	{ "sched.blocked.count", "count", VS_GROUP_KERNEL, 2 },
	{ "sched.runnable.count", "count", VS_GROUP_KERNEL, 1 },
	{ "irq.hard.count", "count", VS_GROUP_KERNEL, 1 },
	{ "irq.soft.count", "count", VS_GROUP_KERNEL, 1 },
	{ "irq.vector.local_timer.time", "ns", VS_GROUP_KERNEL, 300 },
	{ "irq.vector.local_timer.count", "count", VS_GROUP_KERNEL, 1 },
	{ "cpu.migrations.count", "count", VS_GROUP_KERNEL, 0 },
	{ "task-clock", "ns", VS_GROUP_SOFTWARE, 52000 },
	{ "context-switches", "count", VS_GROUP_SOFTWARE, 2 },
};

#define NR_NAMED (sizeof(named_events) / sizeof(named_events[0]))
#define UNKNOWN_KIND 999

struct gen {
	/* options */
	const char *output;
	uint64_t tasks, types, events, seed, chunk_records, samples, size;
	uint64_t sampled_every;		/* samples in every n-th task */
	uint64_t cause_ns, epoch_tasks, live_events, symbol_id, task_values;
	uint64_t syscall_threads;
	uint64_t cause_from, cause_to;	/* window of the cause, from start */
	const char *cause;
	const char *type_names;	/* names of types 0, 1, ... */
	const char *sample_binary;	/* samples in its functions */
	double cause_frac;
	int level;
	bool every_kind, unknown_kind, wakeups, no_wakeups_meta, signature;
	/* state */
	struct vs_writer *w;
	uint64_t rng, start, now, nr_written;
	int cause_event;
	long cause_type;	/* -1: every type */
	struct vs_value *values;
	uint16_t *live;
	uint32_t nr_live, epoch;
	uint64_t *funcs;	/* --sample-binary: addresses of functions */
	uint32_t nr_funcs;
};

#define BINARY_START	0x555555554000ull	/* where it is mapped */
#define BINARY_FUNCS	256	/* functions of it the samples are in */
#define BINARY_FANOUT	3	/* callees of each function on the paths */
#define BINARY_DEPTH	7	/* deepest path */

static uint64_t rnd(struct gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rnd_unit(struct gen *g)
{
	return (rnd(g) >> 11) * (1.0 / 9007199254740992.0);
}

/* Exponentially distributed around @mean. */
static uint64_t rnd_exp(struct gen *g, uint64_t mean)
{
	return (uint64_t)(-log(1.0 - rnd_unit(g)) * mean);
}

static const char *event_name(uint64_t i, char *buf, size_t len)
{
	if (i < NR_NAMED)
		return named_events[i].name;
	snprintf(buf, len, "ev.%llu", (unsigned long long)(i - NR_NAMED));
	return buf;
}

static bool is_time_event(uint64_t i)
{
	return i >= NR_NAMED || !strcmp(named_events[i].unit, "ns");
}

static void add(struct gen *g, const struct vs_record *rec)
{
	if (vs_writer_add(g->w, rec)) {
		fprintf(stderr, "gen-trace: %s: %s\n", g->output,
			strerror(errno));
		exit(1);
	}
	if (g->chunk_records && ++g->nr_written % g->chunk_records == 0 &&
	    vs_writer_flush(g->w)) {
		fprintf(stderr, "gen-trace: %s: %s\n", g->output,
			strerror(errno));
		exit(1);
	}
}

static void write_catalog(struct gen *g)
{
	struct vs_record rec = { .kind = VS_REC_EVENT_DEF };
	char buf[32];
	uint64_t i;

	for (i = 0; i < g->events; i++) {
		rec.event_def = (struct vs_event_def){
			.id = i,
			.parent = VS_EVENT_NO_PARENT,
			.group = i < NR_NAMED ? named_events[i].group :
				 VS_GROUP_OTHER,
			.name = event_name(i, buf, sizeof(buf)),
			.unit = i < NR_NAMED ? named_events[i].unit : "ns",
		};
		add(g, &rec);
	}
}

static void start_epoch(struct gen *g)
{
	struct vs_record rec = { .kind = VS_REC_EPOCH };
	uint64_t i;

	g->nr_live = g->live_events;
	for (i = 0; i < g->nr_live; i++)
		g->live[i] = (g->epoch * g->nr_live + i) % g->events;
	rec.epoch = (struct vs_epoch){
		.time = g->now,
		.epoch = g->epoch,
		.nr_events = g->nr_live,
		.events = g->live,
	};
	add(g, &rec);
}

/*
 * --sample-binary: an MMAP record of the binary (from offset 0 at
 * BINARY_START, its build-id), and BINARY_FUNCS of its functions
 * (those of more than 4 bytes), addresses inside them (past the first
 * byte: a return address is looked up one byte back)
 */
static int map_binary(struct gen *g)
{
	struct vs_symbols *s = vs_symbols_new();
	struct vs_dso *d = s ? vs_symbols_dso(s, g->sample_binary) : NULL;
	const struct vs_elf_symbol *f;
	struct vs_record rec = { .kind = VS_REC_MMAP };
	const uint8_t *id;
	size_t nr, i, len;
	int64_t off;

	if (!d)
		return -1;
	f = vs_dso_functions(d, &nr);
	g->funcs = calloc(BINARY_FUNCS, sizeof(*g->funcs));
	for (i = 0; g->funcs && i < nr && g->nr_funcs < BINARY_FUNCS; i++)
		if (f[i].size > 4 &&
		    (off = vs_dso_file_offset(d, f[i].addr)) >= 0)
			g->funcs[g->nr_funcs++] = BINARY_START + off + 2;
	id = vs_dso_build_id(d, &len);
	rec.mmap = (struct vs_mmap){ .time = g->now, .pid = 1000,
		.tid = 1000, .start = BINARY_START, .len = 1ull << 30,
		.prot = 5, .flags = 2, .build_id_len = len,
		.filename = g->sample_binary };
	memcpy(rec.mmap.build_id, id, len);
	add(g, &rec);
	vs_symbols_free(s);
	return g->nr_funcs ? 0 : -1;
}

/*
 * A call path in the functions of --sample-binary into @chain, innermost
 * first: from one root, each function calling BINARY_FANOUT others; how
 * many frames
 */
static unsigned int binary_chain(struct gen *g, uint64_t *chain)
{
	unsigned int depth = 2 + rnd(g) % (BINARY_DEPTH - 1), k;
	uint32_t fn[BINARY_DEPTH], at = 0;

	for (k = 0; k < depth; k++) {
		fn[k] = at;
		at = (at * BINARY_FANOUT + 1 + rnd(g) % BINARY_FANOUT) %
		     g->nr_funcs;
	}
	for (k = 0; k < depth; k++)
		chain[k] = g->funcs[fn[depth - 1 - k]];
	return depth;
}

static void write_samples(struct gen *g, const struct vs_task *t)
{
	uint64_t chain[BINARY_DEPTH], i;
	struct vs_record rec = { .kind = VS_REC_SAMPLE };

	for (i = 0; i < g->samples && g->nr_funcs; i++) {
		rec.sample = (struct vs_sample){
			.time = t->start + (t->end - t->start) * (i + 1) /
				(g->samples + 1),
			.pid = t->pid, .tid = t->tid, .cpu = t->cpu,
			.period = 100000,
			.nr_callchain = binary_chain(g, chain),
			.callchain = chain,
		};
		rec.sample.ip = chain[0];
		add(g, &rec);
	}
	for (i = 0; i < g->samples && !g->nr_funcs; i++) {
		uint64_t fn = rnd(g) % 8;

		chain[0] = 0x401000 + fn * 0x100 + rnd(g) % 0x100;
		chain[1] = 0x402000 + (fn / 2) * 0x100;
		chain[2] = 0x403000;
		chain[3] = 0x404000;
		rec.sample = (struct vs_sample){
			.time = t->start + (t->end - t->start) * (i + 1) /
				(g->samples + 1),
			.pid = t->pid, .tid = t->tid, .cpu = t->cpu,
			.ip = chain[0],
			.period = 100000,
			.nr_callchain = 4,
			.callchain = chain,
		};
		add(g, &rec);
	}
}

#define NR_WAKERS	4
#define WAKER_TID	2000

static void write_wakers(struct gen *g)
{
	struct vs_record rec = { .kind = VS_REC_META };
	char name[16];
	uint32_t i;

	rec.meta = (struct vs_meta){ VS_META_WAKEUPS,
				     VS_META_WAKEUPS_RECORDED };
	if (!g->no_wakeups_meta)
		add(g, &rec);
	rec.kind = VS_REC_COMM;

	for (i = 0; i < NR_WAKERS; i++) {
		snprintf(name, sizeof(name), "waker/%u", i);
		rec.comm = (struct vs_comm){ g->now, 1000, WAKER_TID + i, 0,
					     name };
		add(g, &rec);
	}
}

/* Task @t (the @n-th) blocks from 1/4 to 1/2 of its time, then is woken. */
static void write_wait(struct gen *g, const struct vs_task *t, uint64_t n)
{
	uint64_t len = t->end - t->start;
	struct vs_record recs[] = {
		{ .kind = VS_REC_SWITCH, .switch_ = { t->start + len / 4,
			t->tid, t->cpu, 1, 0 } },
		{ .kind = VS_REC_WAKEUP, .wakeup = { t->start + len / 2,
			WAKER_TID + n % NR_WAKERS, t->tid, t->cpu } },
		{ .kind = VS_REC_SWITCH, .switch_ = { t->start + len / 2 + 1,
			t->tid, t->cpu, 0, 0 } },
	};
	size_t i;

	for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		add(g, &recs[i]);
}

static void write_task(struct gen *g, uint64_t n)
{
	struct vs_record rec = { .kind = VS_REC_TASK };
	uint64_t type = rnd(g) % g->types, latency = 0, v, i;
	bool caused = g->cause_event >= 0 &&
		      (g->cause_type < 0 || (uint64_t)g->cause_type == type) &&
		      g->now - g->start >= g->cause_from &&
		      (!g->cause_to || g->now - g->start < g->cause_to) &&
		      rnd_unit(g) < g->cause_frac;
	uint32_t nv = 0;

	if (g->epoch_tasks && n && n % g->epoch_tasks == 0) {
		g->epoch++;
		start_epoch(g);
	}
	for (i = 0; i < g->events; i++) {
		uint64_t mean = i < NR_NAMED ? named_events[i].mean : 1000;
		uint32_t k;

		if (i == 0)
			mean *= type + 1;
		v = rnd_exp(g, mean);
		if (caused && (int)i == g->cause_event)
			v += g->cause_ns;
		if (is_time_event(i) && i < NR_NAMED &&
		    named_events[i].group == VS_GROUP_KERNEL)
			latency += v;
		else if (caused && (int)i == g->cause_event)
			latency += g->cause_ns;
		for (k = 0; k < g->nr_live; k++)
			if (g->live[k] == i)
				g->values[nv++] = (struct vs_value){ i, v };
	}
	latency += rnd_exp(g, 1000);
	rec.task = (struct vs_task){
		.id = n + 1,
		.type = type,
		.pid = 1000,
		.tid = 1000 + n % 8,
		.cpu = n % 2,
		.epoch = g->epoch,
		.start = g->now,
		.end = g->now + latency,
		.nr_values = nv,
		.values = g->values,
	};
	g->now += latency / 4 + 1000;
	if (!g->sampled_every || n % g->sampled_every == 0)
		write_samples(g, &rec.task);
	if (g->wakeups)
		write_wait(g, &rec.task, n);
	add(g, &rec);
}

/*
 * A task of type 0 with @g->task_values values, their event ids going
 * round the catalog (so most are repeats): more than a packed task holds.
 */
static void write_big_task(struct gen *g)
{
	struct vs_record rec = { .kind = VS_REC_TASK };
	struct vs_value *v = calloc(g->task_values, sizeof(*v));
	uint64_t i;

	if (!v) {
		fprintf(stderr, "gen-trace: out of memory\n");
		exit(1);
	}
	for (i = 0; i < g->task_values; i++)
		v[i] = (struct vs_value){ i % g->events, i };
	rec.task = (struct vs_task){ .id = UINT32_MAX, .pid = 1000,
		.tid = 1000, .start = g->now, .end = g->now + 1000,
		.nr_values = g->task_values, .values = v };
	add(g, &rec);
	free(v);
}

/* A signature file's records: function 0 and its episode read, write. */
static void write_signature(struct gen *g)
{
	static const uint16_t episode[] = { 0, 1 };
	struct vs_record recs[] = {
		{ .kind = VS_REC_SIG_FUNC, .sig_func = { 0, 1000, 52000,
							 "handle" } },
		{ .kind = VS_REC_SIG_EPISODE, .sig_episode = { 0, 870, 2,
							       episode } },
	};

	add(g, &recs[0]);
	add(g, &recs[1]);
}

/* A read(2) of each of @g->syscall_threads threads, one after the other. */
static void write_syscall_threads(struct gen *g)
{
	struct vs_record rec = { .kind = VS_REC_SYSCALL };
	uint64_t i;

	for (i = 0; i < g->syscall_threads; i++) {
		rec.syscall = (struct vs_syscall){ g->now + 2 * i,
			100000 + i, 0, 0, VS_SYSCALL_ENTER, 0 };
		add(g, &rec);
		rec.syscall.time++;
		rec.syscall.dir = VS_SYSCALL_EXIT;
		add(g, &rec);
	}
	g->now += 2 * g->syscall_threads;
}

/* One record of every kind that tasks and samples do not cover. */
static void write_every_kind(struct gen *g)
{
	static const uint64_t chain[] = { 0x401234, 0x402000,
					  0xfffffffffffffe00ull };
	static const uint16_t syscalls[] = { 0, 1, VS_SIG_WILDCARD, 232 };
	struct vs_record recs[] = {
		{ .kind = VS_REC_META, .meta = { "command", "gen-trace \"x\"\t\\" } },
		{ .kind = VS_REC_COMM, .comm = { g->now, 1000, 1001, 1, "worker/0" } },
		{ .kind = VS_REC_PROCESS, .process = { g->now, VS_PROCESS_FORK,
						       1000, 1, 1001, 1000 } },
		{ .kind = VS_REC_MMAP, .mmap = {
			.time = g->now, .pid = 1000, .tid = 1000,
			.start = 0x400000, .len = 0x10000, .pgoff = 0x1000,
			.prot = 5, .flags = 2, .build_id_len = 20,
			.build_id = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
				      7, 8, 9, 10, 11, 12, 13, 14, 15, 0xff },
			.filename = "/usr/bin/synthetic" } },
		{ .kind = VS_REC_SYMBOL_DEF, .symbol_def = { g->symbol_id,
			0x401200, "f3", "/usr/bin/synthetic" } },
		{ .kind = VS_REC_SYSCALL, .syscall = { g->now + 1, 1001, 1, 232,
						       VS_SYSCALL_ENTER, 0 } },
		{ .kind = VS_REC_SYSCALL, .syscall = { g->now + 2, 1001, 1, 232,
						       VS_SYSCALL_EXIT, -4 } },
		{ .kind = VS_REC_FUNC, .func = { g->now + 3, 1001, 1,
						 g->symbol_id, VS_FUNC_ENTER } },
		{ .kind = VS_REC_FUNC, .func = { g->now + 4, 1001, 1,
						 g->symbol_id, VS_FUNC_EXIT } },
		{ .kind = VS_REC_ATTACH, .attach = { g->now + 5, 1002, VS_ATTACH,
						     1 } },
		{ .kind = VS_REC_ATTACH, .attach = { g->now + 6, 1002, VS_DETACH,
						     1 } },
		{ .kind = VS_REC_WAKEUP, .wakeup = { g->now + 7, 1002, 1001, 0 } },
		{ .kind = VS_REC_LOST, .lost = { g->now + 8, 1001, 1,
						 VS_LOST_KERNEL_RING, 42 } },
		{ .kind = VS_REC_SEGMENT, .segment = { g->now + 9, 1, "warm-up" } },
		{ .kind = VS_REC_SAMPLE, .sample = {
			.time = g->now + 10, .pid = 1000, .tid = 1001, .cpu = 1,
			.flags = VS_SAMPLE_ADDR | VS_SAMPLE_WEIGHT |
				 VS_SAMPLE_DATA_SRC | VS_SAMPLE_PRECISE,
			.ip = 0x401234, .period = 20011, .addr = 0x7ffd0000,
			.weight = 312, .data_src = 0x68100142,
			.nr_callchain = 3, .callchain = chain } },
		{ .kind = VS_REC_TYPE_NAME, .type_name = { 7, "checkout" } },
		{ .kind = VS_REC_RAN_INSTEAD, .ran_instead = { 999, 1000, 1003,
							       "corunner", 2500000 } },
		{ .kind = VS_REC_SIG_FUNC, .sig_func = { 3, 1000, 52000,
							 "PortalRun" } },
		{ .kind = VS_REC_SIG_EPISODE, .sig_episode = { 3, 870, 4,
							       syscalls } },
	};
	size_t i;

	for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		add(g, &recs[i]);
}

/*
 * --type-names: after the tasks, as a program may name a type late.  An
 * item PREFIX*N names N types PREFIX0 .. PREFIX<N-1>.
 */
static void write_type_names(struct gen *g)
{
	struct vs_record rec = { .kind = VS_REC_TYPE_NAME };
	char *names = strdup(g->type_names), *name, *save = NULL, *star;
	char buf[256];
	uint32_t type = 0;
	unsigned long i, n;

	for (name = strtok_r(names, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		star = strchr(name, '*');
		n = star ? strtoul(star + 1, NULL, 10) : 1;
		if (star)
			*star = 0;
		for (i = 0; i < n; i++) {
			if (star)
				snprintf(buf, sizeof(buf), "%s%lu", name, i);
			rec.type_name = (struct vs_type_name){
				type++, star ? buf : name };
			add(g, &rec);
		}
	}
	free(names);
}

static void parse_cause(struct gen *g)
{
	char name[256], buf[32], *colon, *end;
	uint64_t i;

	g->cause_event = -1;
	g->cause_type = -1;
	if (!g->cause)
		return;
	snprintf(name, sizeof(name), "%s", g->cause);
	colon = strchr(name, ':');
	if (colon) {
		*colon++ = 0;
		g->cause_type = strtol(colon, &end, 10);
		if (!*colon || *end || g->cause_type < 0)
			option_error("cause", "bad task type '%s'", colon);
	}
	for (i = 0; i < g->events; i++)
		if (!strcmp(event_name(i, buf, sizeof(buf)), name))
			g->cause_event = i;
	if (g->cause_event < 0)
		option_error("cause", "no event '%s' among the first %llu",
			     name, (unsigned long long)g->events);
}

static const char *const gen_usage[] = {
	"gen-trace [<options>]",
	NULL
};

int main(int argc, const char **argv)
{
	struct gen g = {
		.output = VS_DEFAULT_FILE, .tasks = 1000, .types = 3,
		.events = 8, .seed = 1, .cause_frac = 0.05,
		.cause_ns = 1000000, .level = 1, .symbol_id = 7,
	};
	const struct vs_option options[] = {
		OPT_STRING('o', "output", &g.output, "file", "trace to write"),
		OPT_U64(0, "tasks", &g.tasks, "number of tasks"),
		OPT_U64(0, "types", &g.types, "number of task types"),
		OPT_U64(0, "events", &g.events, "number of events"),
		OPT_U64(0, "seed", &g.seed, "random seed"),
		OPT_U64(0, "chunk-records", &g.chunk_records,
			"cut a chunk every n records"),
		OPT_U64(0, "samples-per-task", &g.samples,
			"samples inside each task"),
		OPT_U64(0, "sampled-every", &g.sampled_every,
			"... of every n-th task only (default 1)"),
		OPT_STRING(0, "sample-binary", &g.sample_binary, "file",
			   "... on call paths in the functions of this ELF "
			   "file (mapped by an MMAP record)"),
		OPT_SIZE(0, "size", &g.size,
			 "write tasks until the file has this size"),
		OPT_STRING(0, "cause", &g.cause, "event[:type]",
			   "inject a high value of this event"),
		OPT_DOUBLE(0, "cause-frac", &g.cause_frac, "f",
			   "fraction of the type's tasks that get it"),
		OPT_DURATION(0, "cause-ns", &g.cause_ns,
			     "the value added (ns)"),
		OPT_DURATION(0, "cause-from", &g.cause_from,
			     "inject only into tasks that start this long "
			     "after the start"),
		OPT_DURATION(0, "cause-to", &g.cause_to,
			     "... and before this (default: to the end)"),
		OPT_U64(0, "epoch-tasks", &g.epoch_tasks,
			"tasks per epoch (0: one epoch)"),
		OPT_U64(0, "live-events", &g.live_events,
			"events live in each epoch (default all)"),
		OPT_INTEGER(0, "level", &g.level, "zlib level"),
		OPT_STRING(0, "type-names", &g.type_names, "name[*n],...",
			   "name task types 0, 1, ... at the end of the trace"),
		OPT_BOOLEAN(0, "every-kind", &g.every_kind,
			    "write at least one record of every kind"),
		OPT_U64(0, "symbol-id", &g.symbol_id,
			"id of --every-kind's function (default 7)"),
		OPT_U64(0, "task-values", &g.task_values,
			"add a task of type 0 with this many values"),
		OPT_U64(0, "syscall-threads", &g.syscall_threads,
			"add a system call of each of this many threads"),
		OPT_BOOLEAN(0, "signature", &g.signature,
			    "add a signature (varscope signature infer -s)"),
		OPT_BOOLEAN(0, "wakeups", &g.wakeups,
			    "each task blocks once and another thread wakes it"),
		OPT_BOOLEAN(0, "no-wakeups-meta", &g.no_wakeups_meta,
			    "--wakeups without the META record saying so"),
		OPT_BOOLEAN(0, "unknown-kind", &g.unknown_kind,
			    "add a record of an unknown kind (newer minor)"),
		OPT_END()
	};
	struct vs_header hdr = {
		.clockid = 1, .start_time = 1000000000ull,
		.start_realtime = 1700000000000000000ull,
		.host = "gen-trace", .kernel = "synthetic",
		.cpu_model = "synthetic", .tool = "gen-trace",
	};
	uint64_t n;

	vs_cmd_name = "gen-trace";
	if (parse_options(argc, argv, options, gen_usage, 0))
		usage_with_options(gen_usage, options);
	if (g.task_values > UINT32_MAX)
		option_error("task-values", "must fit in 32 bits");
	if (g.symbol_id > UINT32_MAX)
		option_error("symbol-id", "must fit in 32 bits");
	if (!g.types || !g.events || g.events > VS_EVENT_MAX)
		option_error("events", "--types and --events must be at least 1");
	if (g.cause_frac < 0 || g.cause_frac > 1)
		option_error("cause-frac", "must be in [0, 1]");
	if (!g.live_events || g.live_events > g.events)
		g.live_events = g.events;
	parse_cause(&g);
	g.rng = g.seed;
	g.start = g.now = hdr.start_time;
	g.values = calloc(g.events, sizeof(*g.values));
	g.live = calloc(g.events, sizeof(*g.live));
	if (!g.values || !g.live)
		return 1;
	if (g.unknown_kind) {
		hdr.major = VS_FORMAT_MAJOR;
		hdr.minor = VS_FORMAT_MINOR + 1;
	}

	g.w = vs_writer_open(g.output, &hdr);
	if (!g.w) {
		fprintf(stderr, "gen-trace: %s: %s\n", g.output, strerror(errno));
		return 1;
	}
	vs_writer_set_level(g.w, g.level);
	write_catalog(&g);
	start_epoch(&g);
	if (g.wakeups)
		write_wakers(&g);
	if (g.every_kind)
		write_every_kind(&g);
	if (g.unknown_kind) {
		static const char body[] = "a record of a kind from the future";

		if (vs_writer_add_raw(g.w, UNKNOWN_KIND, body, sizeof(body))) {
			perror("gen-trace");
			return 1;
		}
	}
	if (g.task_values)
		write_big_task(&g);
	if (g.signature)
		write_signature(&g);
	write_syscall_threads(&g);
	if (g.sample_binary && map_binary(&g)) {
		fprintf(stderr, "gen-trace: %s: no functions to sample\n",
			g.sample_binary);
		return 1;
	}
	for (n = 0; g.size ? vs_writer_bytes(g.w) < g.size : n < g.tasks; n++)
		write_task(&g, n);
	if (g.type_names)
		write_type_names(&g);
	if (vs_writer_close(g.w)) {
		fprintf(stderr, "gen-trace: %s: %s\n", g.output, strerror(errno));
		return 1;
	}
	free(g.values);
	free(g.live);
	free(g.funcs);
	return 0;
}
