// SPDX-License-Identifier: MIT
/*
 * rotating-writer.c - unit test of core/trace/rotating-writer.c: tasks go to
 * the file of their end time and none is lost at a boundary; each file
 * stands alone (catalog, notes, epoch, live names and mappings, segment
 * mark); the clock opens files when no task comes; a size bound removes
 * the oldest files; files of an earlier recording become PATH.old.NNNN;
 * what is kept for the next files does not grow with dead threads.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/trace/rotating-writer.h"
#include "t/unit/tap.h"

#define SEC	1000000000ull
#define START	(100 * SEC)

static char dir[] = "/tmp/vs-rotate-XXXXXX";
static char base[256];

static const struct vs_header hdr = {
	.clockid = 1, .start_time = START, .start_realtime = 7 * SEC,
	.host = "unit", .kernel = "unit", .cpu_model = "unit", .tool = "unit",
};

static char *seg_file(const char *mid, unsigned int n)
{
	static char name[320];

	snprintf(name, sizeof(name), "%s.%s%04u", base, mid, n);
	return name;
}

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

/* What one file holds. */
struct contents {
	bool ok;
	uint64_t start;
	unsigned int tasks, metas, epochs, comms, mmaps, marks;
	uint32_t mark_number;
	uint64_t first_end, last_end;
	bool has_event;
};

static struct contents read_file(const char *path)
{
	struct contents c = { 0 };
	struct vs_record rec;
	struct vs_reader *r = vs_reader_open(path, NULL, 0);
	int ret;

	if (!r)
		return c;
	c.start = vs_reader_header(r)->start_time;
	while ((ret = vs_reader_next(r, &rec)) > 0) {
		switch (rec.kind) {
		case VS_REC_TASK:
			if (!c.tasks++)
				c.first_end = rec.task.end;
			c.last_end = rec.task.end;
			break;
		case VS_REC_META: c.metas++; break;
		case VS_REC_EPOCH: c.epochs++; break;
		case VS_REC_COMM: c.comms++; break;
		case VS_REC_MMAP: c.mmaps++; break;
		case VS_REC_SEGMENT:
			c.marks++;
			c.mark_number = rec.segment.number;
			break;
		}
	}
	c.has_event = vs_reader_event_by_name(r, "sched.blocked.time");
	c.ok = ret == 0;
	vs_reader_close(r);
	return c;
}

static void add(struct vs_rotwriter *rw, struct vs_record rec)
{
	if (vs_rotwriter_add(rw, &rec))
		perror("vs_rotwriter_add");
}

static void add_task(struct vs_rotwriter *rw, uint64_t end)
{
	static uint64_t id;
	static const struct vs_value v = { 0, 1000 };

	add(rw, (struct vs_record){ .kind = VS_REC_TASK, .task = {
		.id = ++id, .type = 0, .pid = 10, .tid = 11,
		.start = end - 5000, .end = end, .nr_values = 1,
		.values = &v } });
}

static void add_context(struct vs_rotwriter *rw)
{
	static const uint16_t live[] = { 0 };

	add(rw, (struct vs_record){ .kind = VS_REC_EVENT_DEF, .event_def = {
		0, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, "sched.blocked.time",
		"ns" } });
	add(rw, (struct vs_record){ .kind = VS_REC_META,
				    .meta = { "cmdline", "unit test" } });
	add(rw, (struct vs_record){ .kind = VS_REC_EPOCH,
				    .epoch = { START, 1, 1, live } });
	add(rw, (struct vs_record){ .kind = VS_REC_COMM,
				    .comm = { START, 10, 11, 1, "worker" } });
	add(rw, (struct vs_record){ .kind = VS_REC_MMAP, .mmap = {
		.time = START, .pid = 10, .tid = 10, .start = 0x400000,
		.len = 0x1000, .filename = "/usr/bin/worker" } });
}

static void test_rotation(void)
{
	struct vs_rotwriter_opts o = { .segment_ns = SEC };
	struct vs_rotwriter *rw = vs_rotwriter_open(base, &hdr, &o);
	struct contents c;
	unsigned int i, total = 0;
	bool each = true;

	ok(rw && !strcmp(vs_rotwriter_path(rw), seg_file("", 1)),
	   "the first file is PATH.0001");
	add_context(rw);
	/* tasks ending every 100 ms from 0.1 s to 3.5 s */
	for (i = 1; i <= 35; i++)
		add_task(rw, START + i * SEC / 10);
	/* read late: it ended in segment 3, after the switch to segment 4 */
	add_task(rw, START + 2 * SEC + SEC / 2);
	is_u64(vs_rotwriter_nr_files(rw), 4, "4 files for 3.5 s of 1 s");
	ok(!vs_rotwriter_flush(rw), "flushes");
	is_u64(vs_rotwriter_nr_written(rw, VS_REC_TASK), 36,
	       "36 tasks written, over 4 files");
	is_u64(vs_rotwriter_nr_written(rw, VS_REC_COMM), 4,
	       "a comm in each file");
	ok(!vs_rotwriter_close(rw), "closes");

	for (i = 1; i <= 4; i++) {
		c = read_file(seg_file("", i));
		total += c.tasks;
		if (!c.ok || c.start != START + (i - 1) * SEC ||
		    c.marks != 1 || c.mark_number != i || !c.has_event ||
		    c.metas != 1 || c.epochs != 1 || c.comms != 1 ||
		    c.mmaps != 1)
			each = false;
		if (i < 4 && (c.first_end < START + (i - 1) * SEC ||
			      c.last_end >= START + i * SEC))
			each = false;
	}
	ok(each, "each file stands alone: header start, segment mark, "
	   "catalog, meta, epoch, comm, mmap, and only its own tasks");
	c = read_file(seg_file("", 1));
	is_u64(c.tasks, 9, "0.1 .. 0.9 s in the first file");
	c = read_file(seg_file("", 2));
	is_u64(c.tasks, 10, "1.0 .. 1.9 s in the second");
	c = read_file(seg_file("", 4));
	is_u64(c.tasks, 7, "3.0 .. 3.5 s and the late one in the fourth");
	is_u64(total, 36, "no task lost or written twice");
}

static void test_clock_and_exits(void)
{
	struct vs_rotwriter_opts o = { .segment_ns = SEC };
	struct vs_rotwriter *rw = vs_rotwriter_open(base, &hdr, &o);
	struct contents c;
	int i;

	ok(!exists(seg_file("", 2)) && !exists(seg_file("old.", 2)) &&
	   exists(seg_file("", 1)), "an earlier recording's files are set "
	   "aside at the open");
	ok(!vs_rotwriter_keep_old(rw) && !exists(seg_file("", 2)) &&
	   exists(seg_file("old.", 2)) && exists(seg_file("", 1)),
	   "and become PATH.old.NNNN once it started");
	add_context(rw);
	add_task(rw, START + SEC / 2);
	ok(!vs_rotwriter_tick(rw, START + SEC / 2 + 1) &&
	   vs_rotwriter_nr_files(rw) == 1, "no switch before the boundary");
	ok(!vs_rotwriter_tick(rw, START + 5 * SEC / 2) &&
	   !strcmp(vs_rotwriter_path(rw), seg_file("", 3)),
	   "the clock opens the file of its segment when no task comes");
	ok(!exists(seg_file("", 2)), "an empty segment has no file");

	/* threads come and go: what the next files get does not grow */
	for (i = 0; i < 1000; i++) {
		add(rw, (struct vs_record){ .kind = VS_REC_COMM, .comm = {
			START, 10, 100 + i, 0, "short-lived" } });
		add(rw, (struct vs_record){ .kind = VS_REC_PROCESS,
			.process = { START, VS_PROCESS_EXIT, 10, 1,
				     100 + i, 11 } });
		add(rw, (struct vs_record){ .kind = VS_REC_EPOCH,
			.epoch = { START, 2 + i, 0, NULL } });
	}
	/* a process that exits takes its names and mappings along */
	add(rw, (struct vs_record){ .kind = VS_REC_COMM,
				    .comm = { START, 20, 20, 1, "gone" } });
	add(rw, (struct vs_record){ .kind = VS_REC_MMAP, .mmap = {
		.time = START, .pid = 20, .tid = 20, .start = 0x400000,
		.len = 0x1000, .filename = "/usr/bin/gone" } });
	add(rw, (struct vs_record){ .kind = VS_REC_PROCESS, .process = {
		START, VS_PROCESS_EXIT, 20, 1, 20, 1 } });
	add_task(rw, START + 7 * SEC / 2);
	vs_rotwriter_close(rw);
	c = read_file(seg_file("", 4));
	ok(c.ok && c.comms == 1 && c.mmaps == 1 && c.epochs == 2,
	   "the next file gets the live thread's name and mapping and the "
	   "last two epochs (%u comm, %u mmap, %u epochs)", c.comms, c.mmaps,
	   c.epochs);
}

static void test_max_size(void)
{
	struct vs_rotwriter_opts o = { .segment_ns = SEC, .max_size = 200000 };
	struct vs_rotwriter *rw = vs_rotwriter_open(base, &hdr, &o);
	uint64_t sum = 0, t;
	struct stat st;
	unsigned int i, kept = 0;

	add_context(rw);
	/* ~40 s of tasks with incompressible-ish values */
	for (t = 1; t < 40 * 2000; t++) {
		struct vs_value v = { 0, t * 2654435761u };

		add(rw, (struct vs_record){ .kind = VS_REC_TASK, .task = {
			.id = t, .tid = 11, .start = START + t * SEC / 2000 - 1,
			.end = START + t * SEC / 2000, .nr_values = 1,
			.values = &v } });
	}
	vs_rotwriter_flush(rw);
	ok(vs_rotwriter_nr_removed(rw) > 0, "old files removed (%u of %u)",
	   vs_rotwriter_nr_removed(rw), vs_rotwriter_nr_files(rw));
	vs_rotwriter_close(rw);
	for (i = 1; i <= 40; i++)
		if (!stat(seg_file("", i), &st)) {
			sum += st.st_size;
			kept++;
		}
	ok(!exists(seg_file("", 1)) && exists(seg_file("", 40)),
	   "the oldest went, the newest stayed");
	ok(sum <= o.max_size + st.st_size,
	   "the files left fit the bound but for the last (%llu bytes in %u "
	   "files)", (unsigned long long)sum, kept);
}

static void test_one_file(void)
{
	struct vs_rotwriter *rw = vs_rotwriter_open(base, &hdr, NULL);
	struct contents c;

	add_context(rw);
	add_task(rw, START + 10 * SEC);
	ok(vs_rotwriter_nr_files(rw) == 0 && !vs_rotwriter_close(rw),
	   "without a length: one file");
	c = read_file(base);
	ok(c.ok && c.tasks == 1 && c.marks == 0, "PATH itself, no mark");
}

/*
 * A recording that cannot start: its files go, the earlier recording's
 * are back, and the one before it (PATH.old.NNNN, PATH.old) stays.
 */
static void test_discard(void)
{
	struct vs_rotwriter_opts o = { .segment_ns = SEC };
	struct vs_rotwriter *rw;
	struct contents c;
	char cmd[600], old[300];

	/* PATH.NNNN of the last recording, PATH.old.NNNN of the one before */
	snprintf(cmd, sizeof(cmd), "cd '%s' && rm -f varscope.data* && "
		 "echo last > varscope.data.0007 && "
		 "echo before > varscope.data.old.0003", dir);
	if (system(cmd))
		return;
	rw = vs_rotwriter_open(base, &hdr, &o);
	add_context(rw);
	ok(rw && exists(seg_file("", 1)) && !exists(seg_file("", 7)),
	   "segments: the last recording set aside");
	vs_rotwriter_discard(rw);
	ok(!exists(seg_file("", 1)) && exists(seg_file("", 7)) &&
	   exists(seg_file("old.", 3)) && !exists(seg_file("old.", 7)),
	   "discarded: the new file gone, both recordings where they were");

	/* one file: PATH and PATH.old */
	snprintf(old, sizeof(old), "%s.old", base);
	snprintf(cmd, sizeof(cmd), "cd '%s' && rm -f varscope.data* && "
		 "echo last > varscope.data && echo before > varscope.data.old",
		 dir);
	if (system(cmd))
		return;
	rw = vs_rotwriter_open(base, &hdr, NULL);
	add_context(rw);
	vs_rotwriter_discard(rw);
	c = read_file(base);
	ok(!c.ok && exists(base) && exists(old),
	   "one file: discarded, PATH and PATH.old as they were");
	rw = vs_rotwriter_open(base, &hdr, NULL);
	add_context(rw);
	ok(!vs_rotwriter_keep_old(rw) && !vs_rotwriter_close(rw) &&
	   read_file(base).ok && !read_file(old).ok && exists(old),
	   "kept: PATH is the new trace, PATH.old the last one");
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -q '^\\.'", dir);
	ok(system(cmd) != 0, "no hidden folder left behind");
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir))
		return 1;
	snprintf(base, sizeof(base), "%s/varscope.data", dir);
	test_rotation();
	test_clock_and_exits();
	test_max_size();
	test_one_file();
	test_discard();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return 1;
	return done_testing();
}
