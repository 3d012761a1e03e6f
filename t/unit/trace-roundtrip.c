// SPDX-License-Identifier: MIT
/*
 * trace-roundtrip.c - write records of every kind, read them back field
 * by field; the catalog, chunking, rewind, seek by time, compatibility
 * (newer minor with an unknown kind, newer major) and a full disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "core/trace/trace.h"
#include "core/trace/trace-codec.h"
#include "t/unit/same-task.h"
#include "t/unit/tap.h"

static char dir[] = "/tmp/vs-roundtrip-XXXXXX";
static char path[256];

static const struct vs_header test_hdr = {
	.clockid = 1, .start_time = 123456789, .start_realtime = 987654321,
	.host = "host \"one\"", .kernel = "6.18.0-test", .cpu_model = "cpu",
	.tool = "trace-roundtrip",
};

static const struct vs_value values[] = {
	{ 0, 0 }, { 1, UINT64_MAX }, { 0xfffe, 42 },
};
static const uint64_t chain[] = { 1, 0xfffffffffffffe00ull, 0x401000 };
static const uint16_t events[] = { 0, 7, 0xfffe };
static const uint16_t syscalls[] = { 1, VS_SIG_WILDCARD, 0 };

/* One record of every kind, extreme values where a width could be wrong. */
static const struct vs_record recs[] = {
	{ .kind = VS_REC_EVENT_DEF, .event_def = { 0, VS_EVENT_NO_PARENT,
		VS_GROUP_KERNEL, "run.time", "ns" } },
	{ .kind = VS_REC_EVENT_DEF, .event_def = { 1, 0, VS_GROUP_CACHE,
		"l1d.miss", "count" } },
	{ .kind = VS_REC_EVENT_DEF, .event_def = { 0xfffe, 1, VS_GROUP_FUNC,
		"func:f3.time", "" } },
	{ .kind = VS_REC_TASK, .task = { 0xfedcba9876543210ull, 0xffffffffu,
		1, 2, 3, 4, VS_TASK_LOST_EVENTS | VS_TASK_TRUNCATED,
		1000, 5000, 3, values } },
	{ .kind = VS_REC_TASK, .task = { 2, 0, 1, 2, 3, 4, 0, 6000, 6000,
		0, NULL } },
	{ .kind = VS_REC_SAMPLE, .sample = { .time = 7000, .pid = 10,
		.tid = 11, .cpu = 12, .flags = VS_SAMPLE_ADDR |
		VS_SAMPLE_WEIGHT | VS_SAMPLE_DATA_SRC | VS_SAMPLE_PRECISE,
		.ip = 0xffffffff81000000ull, .period = 100003,
		.addr = 0x7ffd1234, .weight = 250, .data_src = 0x68100142,
		.nr_callchain = 3, .callchain = chain } },
	{ .kind = VS_REC_SAMPLE, .sample = { .time = 7001, .pid = 10,
		.tid = 11, .cpu = 12, .flags = VS_SAMPLE_WEIGHT,
		.ip = 0x401000, .period = 1, .weight = 77 } },
	{ .kind = VS_REC_SYSCALL, .syscall = { 8000, 11, 1, 0xffff,
		VS_SYSCALL_EXIT, -4095 } },
	{ .kind = VS_REC_FUNC, .func = { 9000, 11, 1, 0xffffffffu,
		VS_FUNC_ENTER } },
	{ .kind = VS_REC_SYMBOL_DEF, .symbol_def = { 5, 0x401200, "f3",
		"/usr/lib/x86_64-linux-gnu/libc.so.6" } },
	{ .kind = VS_REC_COMM, .comm = { 10000, 10, 11, 1, "worker 0" } },
	{ .kind = VS_REC_PROCESS, .process = { 11000, VS_PROCESS_EXIT, 10, 1,
		11, 10 } },
	{ .kind = VS_REC_MMAP, .mmap = { 12000, 10, 11, 0x7f0000000000ull,
		0x21000, 0x1000, 5, 0x802, 20,
		{ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
		  18, 19, 0xff }, "/bin/app (deleted)" } },
	{ .kind = VS_REC_MMAP, .mmap = { 12001, 10, 11, 1, 2, 3, 4, 5, 0,
		{ 0 }, "[vdso]" } },
	{ .kind = VS_REC_EPOCH, .epoch = { 13000, 9, 3, events } },
	{ .kind = VS_REC_LOST, .lost = { 14000, 11, 1, VS_LOST_OUTPUT,
		UINT64_MAX } },
	{ .kind = VS_REC_SEGMENT, .segment = { 15000, 3, "steady" } },
	{ .kind = VS_REC_META, .meta = { "cmdline", "" } },
	{ .kind = VS_REC_ATTACH, .attach = { 16000, 12, VS_DETACH,
		0xfedcba9876543210ull } },
	{ .kind = VS_REC_WAKEUP, .wakeup = { 17000, 11, 12, 1 } },
	{ .kind = VS_REC_SWITCH, .switch_ = { 17500, 11, 1, 1, 1 } },
	{ .kind = VS_REC_TYPE_NAME, .type_name = { 0xfffffffeu, "checkout" } },
	{ .kind = VS_REC_RAN_INSTEAD, .ran_instead = { 0xfedcba9876543210ull,
		10, 11, "corunner", 3000000 } },
	{ .kind = VS_REC_SIG_FUNC, .sig_func = { 4, 1000, 52000, "PortalRun" } },
	{ .kind = VS_REC_SIG_EPISODE, .sig_episode = { 4, 999, 3, syscalls } },
};

#define NR_RECS (sizeof(recs) / sizeof(recs[0]))

static int same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

#define EQ(m)		(a->m == b->m)
#define STR(m)		same_str(a->m, b->m)
#define ARRAY(p, n)	(EQ(n) && (!a->n || !memcmp(a->p, b->p, a->n * sizeof(*a->p))))

/* Field by field, written out per kind rather than from the codec table. */
static int same_record(const struct vs_record *x, const struct vs_record *y)
{
	if (x->kind != y->kind)
		return 0;
	switch (x->kind) {
	case VS_REC_EVENT_DEF: {
		const struct vs_event_def *a = &x->event_def, *b = &y->event_def;

		return EQ(id) && EQ(parent) && EQ(group) && STR(name) && STR(unit);
	}
	case VS_REC_TASK:
		return same_task(&x->task, &y->task);
	case VS_REC_SAMPLE: {
		const struct vs_sample *a = &x->sample, *b = &y->sample;

		return EQ(time) && EQ(pid) && EQ(tid) && EQ(cpu) && EQ(flags) &&
		       EQ(ip) && EQ(period) &&
		       (!(a->flags & VS_SAMPLE_ADDR) || EQ(addr)) &&
		       (!(a->flags & VS_SAMPLE_WEIGHT) || EQ(weight)) &&
		       (!(a->flags & VS_SAMPLE_DATA_SRC) || EQ(data_src)) &&
		       ARRAY(callchain, nr_callchain);
	}
	case VS_REC_SYSCALL: {
		const struct vs_syscall *a = &x->syscall, *b = &y->syscall;

		return EQ(time) && EQ(tid) && EQ(cpu) && EQ(nr) && EQ(dir) &&
		       EQ(ret);
	}
	case VS_REC_FUNC: {
		const struct vs_func *a = &x->func, *b = &y->func;

		return EQ(time) && EQ(tid) && EQ(cpu) && EQ(symbol) && EQ(dir);
	}
	case VS_REC_SYMBOL_DEF: {
		const struct vs_symbol_def *a = &x->symbol_def, *b = &y->symbol_def;

		return EQ(id) && EQ(addr) && STR(name) && STR(binary);
	}
	case VS_REC_COMM: {
		const struct vs_comm *a = &x->comm, *b = &y->comm;

		return EQ(time) && EQ(pid) && EQ(tid) && EQ(exec) && STR(comm);
	}
	case VS_REC_PROCESS: {
		const struct vs_process *a = &x->process, *b = &y->process;

		return EQ(time) && EQ(what) && EQ(pid) && EQ(ppid) && EQ(tid) &&
		       EQ(ptid);
	}
	case VS_REC_MMAP: {
		const struct vs_mmap *a = &x->mmap, *b = &y->mmap;

		return EQ(time) && EQ(pid) && EQ(tid) && EQ(start) && EQ(len) &&
		       EQ(pgoff) && EQ(prot) && EQ(flags) &&
		       EQ(build_id_len) &&
		       !memcmp(a->build_id, b->build_id, a->build_id_len) &&
		       STR(filename);
	}
	case VS_REC_EPOCH: {
		const struct vs_epoch *a = &x->epoch, *b = &y->epoch;

		return EQ(time) && EQ(epoch) && ARRAY(events, nr_events);
	}
	case VS_REC_LOST: {
		const struct vs_lost *a = &x->lost, *b = &y->lost;

		return EQ(time) && EQ(tid) && EQ(cpu) && EQ(what) && EQ(count);
	}
	case VS_REC_SEGMENT: {
		const struct vs_segment *a = &x->segment, *b = &y->segment;

		return EQ(time) && EQ(number) && STR(label);
	}
	case VS_REC_META: {
		const struct vs_meta *a = &x->meta, *b = &y->meta;

		return STR(key) && STR(value);
	}
	case VS_REC_ATTACH: {
		const struct vs_attach *a = &x->attach, *b = &y->attach;

		return EQ(time) && EQ(tid) && EQ(what) && EQ(task_id);
	}
	case VS_REC_WAKEUP: {
		const struct vs_wakeup *a = &x->wakeup, *b = &y->wakeup;

		return EQ(time) && EQ(waker_tid) && EQ(wakee_tid) && EQ(cpu);
	}
	case VS_REC_SWITCH: {
		const struct vs_switch *a = &x->switch_, *b = &y->switch_;

		return EQ(time) && EQ(tid) && EQ(cpu) && EQ(out) &&
		       EQ(preempt);
	}
	case VS_REC_TYPE_NAME: {
		const struct vs_type_name *a = &x->type_name, *b = &y->type_name;

		return EQ(type) && STR(name);
	}
	case VS_REC_RAN_INSTEAD: {
		const struct vs_ran_instead *a = &x->ran_instead,
					    *b = &y->ran_instead;

		return EQ(task_id) && EQ(pid) && EQ(tid) && STR(comm) &&
		       EQ(time_ns);
	}
	case VS_REC_SIG_FUNC: {
		const struct vs_sig_func *a = &x->sig_func, *b = &y->sig_func;

		return EQ(id) && EQ(executions) && EQ(mean_ns) && STR(name);
	}
	case VS_REC_SIG_EPISODE: {
		const struct vs_sig_episode *a = &x->sig_episode,
					    *b = &y->sig_episode;

		return EQ(func) && EQ(support) && ARRAY(syscalls, len);
	}
	}
	return 0;
}

static struct vs_reader *open_or_die(const char *p)
{
	char err[512];
	struct vs_reader *r = vs_reader_open(p, err, sizeof(err));

	if (!r) {
		printf("# %s\n", err);
		exit(1);
	}
	return r;
}

/* Tasks go as kind 2 in a file of major 1, packed (kind 17) in major 2. */
static void test_every_kind(unsigned int major)
{
	struct vs_header hdr = test_hdr;
	struct vs_writer *w;
	const struct vs_header *h;
	struct vs_reader *r;
	struct vs_record rec;
	size_t i, n = 0;
	int kinds_seen[VS_REC_SIG_EPISODE + 1] = { 0 }, all = 1;
	struct stat st;

	hdr.major = major;
	w = vs_writer_open(path, &hdr);
	for (i = 0; w && i < NR_RECS; i++)
		if (vs_writer_add(w, &recs[i]))
			w = NULL;
	ok(w && vs_writer_close(w) == 0,
	   "major %u: write one record of every kind", major);
	ok(!stat(path, &st) && (st.st_mode & 0777) == 0600,
	   "the trace is created mode 0600");

	r = open_or_die(path);
	h = vs_reader_header(r);
	ok(h->major == major && h->minor == 0 &&
	   h->clockid == 1 && h->start_time == 123456789 &&
	   h->start_realtime == 987654321 && !strcmp(h->host, "host \"one\"") &&
	   !strcmp(h->kernel, "6.18.0-test") && !strcmp(h->cpu_model, "cpu") &&
	   !strcmp(h->tool, "trace-roundtrip"), "header round trip");
	while (vs_reader_next(r, &rec) > 0) {
		if (n < NR_RECS && !same_record(&rec, &recs[n]))
			ok(0, "record %zu (%s) differs", n,
			   vs_record_kind_name(rec.kind));
		kinds_seen[rec.kind] = 1;
		n++;
	}
	is_u64(n, NR_RECS, "every record read back");
	ok(!vs_reader_error(r) && !vs_reader_warning(r),
	   "no error, no warning on a whole file");
	for (i = 1; i <= VS_REC_SIG_EPISODE; i++)
		if (vs_kind_desc(i) && !kinds_seen[i])
			all = 0;
	ok(all, "the test covers every record kind the codec knows");

	is_u64(vs_reader_nr_events(r), 3, "three catalog entries");
	is_str(vs_reader_event(r, 1)->name, "l1d.miss", "event by id");
	ok(vs_reader_event(r, 0xfffe)->parent == 1 &&
	   vs_reader_event(r, 0xfffe)->group == VS_GROUP_FUNC,
	   "event parent and group");
	ok(vs_reader_event_by_name(r, "run.time") == vs_reader_event(r, 0),
	   "event by name");
	ok(!vs_reader_event(r, 2) && !vs_reader_event_by_name(r, "nope"),
	   "unknown events are NULL");

	ok(vs_reader_rewind(r) == 0, "rewind");
	for (n = 0; vs_reader_next(r, &rec) > 0; n++)
		;
	is_u64(n, NR_RECS, "every record again after rewind");
	vs_reader_close(r);
}

static void test_names(void)
{
	is_str(vs_record_kind_name(VS_REC_TASK), "task", "kind name");
	is_str(vs_record_kind_name(999), "unknown", "unknown kind name");
	is_str(vs_group_name(VS_GROUP_CACHE), "CACHE", "group name");
	ok(vs_group_from_name("inst") == VS_GROUP_INST &&
	   vs_group_from_name("nope") == -1, "group from name");
}

/* @n tasks, a chunk cut every @flush_every (0: by size), a comm midway. */
static void write_tasks(const char *p, unsigned int n, unsigned int flush_every,
			int level)
{
	struct vs_writer *w = vs_writer_open(p, &test_hdr);
	struct vs_record rec = { .kind = VS_REC_EVENT_DEF };
	struct vs_value v[2];
	unsigned int i;
	int err = !w;

	vs_writer_set_level(w, level);
	rec.event_def = (struct vs_event_def){ 0, VS_EVENT_NO_PARENT,
		VS_GROUP_KERNEL, "run.time", "ns" };
	err |= vs_writer_add(w, &rec);
	for (i = 0; i < n && !err; i++) {
		if (i == n / 2) {
			rec.kind = VS_REC_COMM;
			rec.comm = (struct vs_comm){ 1000ull * i, 1, 1, 0, "mid" };
			err |= vs_writer_add(w, &rec);
		}
		v[0] = (struct vs_value){ 0, i };
		v[1] = (struct vs_value){ 1, 3ull * i };
		rec.kind = VS_REC_TASK;
		rec.task = (struct vs_task){ .id = i, .type = i % 3,
			.start = 1000ull * i, .end = 1000ull * i + 500,
			.nr_values = 2, .values = v };
		err |= vs_writer_add(w, &rec);
		if (flush_every && i % flush_every == flush_every - 1)
			err |= vs_writer_flush(w);
	}
	err |= vs_writer_close(w);
	if (err) {
		printf("# writing %s: %s\n", p, strerror(errno));
		exit(1);
	}
}

static void test_many_chunks(void)
{
	struct vs_reader *r;
	struct vs_record rec;
	uint64_t n = 0, sum = 0, last = 0, chunks = 0;
	int level, ordered = 1;

	for (level = 0; level <= 9; level += 9) {
		write_tasks(path, 200000, 0, level);
		r = open_or_die(path);
		n = sum = chunks = 0;
		ordered = 1;
		while (vs_reader_next(r, &rec) > 0) {
			if (vs_reader_offset(r) != last) {
				last = vs_reader_offset(r);
				chunks++;
			}
			if (rec.kind != VS_REC_TASK)
				continue;
			if (rec.task.id != n || rec.task.values[1].value != 3 * n)
				ordered = 0;
			n++;
			sum += rec.task.values[0].value;
		}
		ok(n == 200000 && ordered && sum == 199999ull * 200000 / 2,
		   "level %d: 200000 tasks in order with their values", level);
		ok(chunks > 10, "level %d: cut into %llu chunks of about 256 KiB",
		   level, (unsigned long long)chunks);
		ok(!vs_reader_error(r) && !vs_reader_warning(r),
		   "level %d: clean end", level);
		vs_reader_close(r);
	}
}

static void test_seek_time(void)
{
	static const uint64_t targets[] = { 0, 1, 499, 500, 123456, 5000000,
					    9999499, 9999500, 10000000, UINT64_MAX };
	struct vs_reader *r;
	struct vs_record rec;
	size_t i;

	write_tasks(path, 10000, 100, 1);
	r = open_or_die(path);
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		uint64_t t = targets[i], first = UINT64_MAX, n = 0, early = 0;
		int catalog = 0, comm = 0;

		ok(vs_reader_seek_time(r, t) == 0, "seek to %llu",
		   (unsigned long long)t);
		while (vs_reader_next(r, &rec) > 0) {
			if (rec.kind == VS_REC_EVENT_DEF)
				catalog = 1;
			if (rec.kind == VS_REC_COMM)
				comm = 1;
			if (rec.kind != VS_REC_TASK)
				continue;
			if (first == UINT64_MAX)
				first = rec.task.id;
			if (rec.task.end < t)
				early++;
			n++;
		}
		/* Every task ending at or after t, in order, from its chunk on. */
		{
			uint64_t want_first = t <= 500 ? 0 :
					      t >= 10000000 ? 10000 :
					      (t - 500 + 999) / 1000;

			want_first -= want_first % 100;
			ok(catalog && comm,
			   "seek %llu: the catalog and comm records of skipped chunks are read",
			   (unsigned long long)t);
			ok(n == 10000 - want_first &&
			   (n == 0 || first == want_first) && early < 100,
			   "seek %llu: tasks from %llu on (got %llu from %llu, %llu early)",
			   (unsigned long long)t, (unsigned long long)want_first,
			   (unsigned long long)n, (unsigned long long)first,
			   (unsigned long long)early);
		}
	}
	ok(vs_reader_rewind(r) == 0 && vs_reader_next(r, &rec) == 1 &&
	   rec.kind == VS_REC_EVENT_DEF, "rewind after seek starts at the top");
	vs_reader_close(r);
}

static void test_newer_minor(void)
{
	struct vs_header h = test_hdr;
	struct vs_writer *w;
	struct vs_reader *r;
	struct vs_record rec = { .kind = VS_REC_SEGMENT };
	static const uint8_t body[100] = { 1, 2, 3 };
	int n = 0, segs = 0, err = 0;

	h.major = VS_FORMAT_MAJOR;
	h.minor = VS_FORMAT_MINOR + 7;
	w = vs_writer_open(path, &h);
	rec.segment = (struct vs_segment){ 1, 1, "before" };
	err |= !w || vs_writer_add(w, &rec);
	err |= vs_writer_add_raw(w, 4242, body, sizeof(body));
	err |= vs_writer_add_raw(w, 4243, body, 0);
	rec.segment = (struct vs_segment){ 2, 2, "after" };
	err |= vs_writer_add(w, &rec);
	err |= vs_writer_close(w);
	ok(!err, "write a newer minor version with unknown kinds");
	r = open_or_die(path);
	is_u64(vs_reader_header(r)->minor, VS_FORMAT_MINOR + 7,
	       "the newer minor version opens");
	while (vs_reader_next(r, &rec) > 0) {
		n++;
		segs += rec.kind == VS_REC_SEGMENT;
	}
	ok(n == 2 && segs == 2 && !vs_reader_error(r),
	   "unknown kinds are skipped, the records around them read");
	vs_reader_close(r);
}

static void test_newer_major(void)
{
	struct vs_header h = test_hdr;
	struct vs_writer *w;
	char err[512] = "";

	h.major = VS_FORMAT_MAJOR + 1;
	w = vs_writer_open(path, &h);
	ok(w && !vs_writer_close(w), "write a newer major version");
	ok(!vs_reader_open(path, err, sizeof(err)) &&
	   strstr(err, "format version from the future at byte 8"),
	   "a newer major version is refused: %s", err);
	ok(!vs_reader_open("/nonexistent/x", err, sizeof(err)) &&
	   strstr(err, "/nonexistent/x: No such file"), "missing file: %s", err);
}

static void test_full_disk(void)
{
	struct rlimit old, lim;
	struct vs_writer *w;
	struct vs_reader *r;
	struct vs_record rec = { .kind = VS_REC_TASK };
	uint64_t i, n = 0, whole = 0, written;
	int ret = 0, saved = 0;
	struct stat st;

	int full = open("/dev/full", O_WRONLY | O_CLOEXEC);

	errno = 0;
	ok(!vs_writer_open("/dev/full", &test_hdr) && errno == EEXIST,
	   "a device is no output file: refused (EEXIST)");
	errno = 0;
	ok(full >= 0 && !vs_writer_fdopen(full, &test_hdr) && errno == ENOSPC,
	   "a full device fails at the header with ENOSPC");
	if (full >= 0)
		close(full);

	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 1000000;
	w = vs_writer_open(path, &test_hdr);
	setrlimit(RLIMIT_FSIZE, &lim);
	for (i = 0; w && i < 10000000; i++) {
		/* ids that do not compress, so that the file grows */
		rec.task = (struct vs_task){ .id = i * 0x9e3779b97f4a7c15ull,
					     .start = i, .end = i + 1 };
		ret = vs_writer_add(w, &rec);
		if (ret) {
			saved = errno;
			break;
		}
		/* tasks of the chunks written so far */
		whole = vs_writer_bytes(w) > 1000 ? i : 0;
	}
	ok(ret == -1 && saved == EFBIG, "add fails when the file cannot grow (%s)",
	   strerror(saved));
	ok(vs_writer_add(w, &rec) == -1, "and keeps failing");
	written = vs_writer_nr_written(w, VS_REC_TASK);
	ok(vs_writer_close(w) == -1, "close reports the failure");
	setrlimit(RLIMIT_FSIZE, &old);
	ok(!stat(path, &st) && st.st_size <= 1000000, "file within the limit");

	r = open_or_die(path);
	while (vs_reader_next(r, &rec) > 0)
		n++;
	ok(!vs_reader_error(r) && vs_reader_warning(r) && n > 0 && n <= whole + 1,
	   "the file reads up to its last whole chunk (%llu tasks): %s",
	   (unsigned long long)n, vs_reader_warning(r));
	is_u64(written, n, "vs_writer_nr_written() counts the tasks of the "
	       "chunks written, not of the one that failed");
	vs_reader_close(r);
}

static void test_too_big(void)
{
	struct vs_writer *w = vs_writer_open(path, &test_hdr);
	struct vs_record rec = { .kind = VS_REC_SAMPLE };
	static uint64_t big[VS_CHUNK_RAW_MAX / 8];

	rec.sample.nr_callchain = sizeof(big) / sizeof(big[0]);
	rec.sample.callchain = big;
	errno = 0;
	ok(vs_writer_add(w, &rec) == -1 && errno == E2BIG,
	   "a record larger than a chunk may be is refused");
	rec.kind = 999;
	ok(vs_writer_add(w, &rec) == -1 && errno == EINVAL,
	   "vs_writer_add refuses kinds it does not know");
	ok(vs_writer_close(w) == 0, "the writer still closes cleanly");
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/t.data", dir);
	test_names();
	test_every_kind(1);
	test_every_kind(VS_FORMAT_MAJOR);
	test_many_chunks();
	test_seek_time();
	test_newer_minor();
	test_newer_major();
	test_full_disk();
	test_too_big();
	unlink(path);
	rmdir(dir);
	return done_testing();
}
