// SPDX-License-Identifier: MIT
/*
 * trace-pack.c - packed task records (kind 17): the encoder and decoder
 * round trip on edge values and on random task streams, each chunk decodes
 * on its own (seek), the same streams written the 1.0 way (kind 2) read
 * the same, a task too large to pack falls back to kind 2, and damaged
 * bodies give an error, never a crash.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/trace/trace.h"
#include "core/trace/trace-pack.h"
#include "t/unit/same-task.h"
#include "t/unit/tap.h"

static char dir[] = "/tmp/vs-trace-pack-XXXXXX";
static char path[256];

static const struct vs_header test_hdr = {
	.clockid = 1, .start_time = 1, .start_realtime = 2, .host = "h",
	.kernel = "k", .cpu_model = "c", .tool = "trace-pack",
};

/*
 * Encode @t against @enc, decode it against @dec: the same task again,
 * with values never NULL (readers memcpy from them, as from kind 2's)?
 */
static int round_trip(struct vs_task_pack *enc, struct vs_task_pack *dec,
		      const struct vs_task *t, size_t *size)
{
	uint8_t buf[4096];
	struct vs_task back;
	const char *err;

	if (vs_task_pack_bound(t) > sizeof(buf) ||
	    vs_task_pack_encode(enc, t, buf, size))
		return 0;
	vs_task_pack_commit(enc, t);
	err = vs_task_pack_decode(dec, buf, *size, &back);
	if (err)
		printf("# decode: %s\n", err);
	return !err && same_task(t, &back) && back.values;
}

static const struct vs_value epoch1[] = {
	{ 0, 0 }, { 1, 0 }, { 2, 7 }, { 3, 0 }, { 4, 0 },
};
static const struct vs_value epoch1_more[] = {	/* + events not in epoch 1 */
	{ 0, 5000 }, { 1, 0 }, { 2, 7 }, { 3, 0 }, { 4, 0 },
	{ 40, 1234567 }, { 41, 1 }, { 0xffff, UINT64_MAX },
};
static const struct vs_value epoch2[] = {	/* an epoch with other events */
	{ 0, 1 }, { 7, 2 }, { 8, 3 },
};
static const struct vs_value extremes[] = {
	{ 0, UINT64_MAX }, { 1, UINT64_MAX - 1 }, { 2, UINT64_MAX },
	{ 0xfffe, 1ull << 63 }, { 5, 0 }, { 5, 0 },	/* an id twice */
};
static const struct vs_value repeats[] = {	/* back references */
	{ 0, 9000 }, { 1, 70 }, { 2, 9000 }, { 3, 70 }, { 4, 63 }, { 5, 63 },
	{ 6, 12345 },
};

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static const struct vs_task edge_tasks[] = {
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL },
	{ UINT64_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
	  UINT32_MAX, UINT32_MAX, UINT64_MAX, UINT64_MAX, 0, NULL },
	{ 0, 1, 100, 101, 0, 1, 0, 0, UINT64_MAX, N(epoch1), epoch1 },
	{ 1000, 1, 100, 101, 0, 1, 0, 1000, 2000, N(epoch1), epoch1 },
	/* id gap, another thread, a start before the end of the one before */
	{ 1u << 20, 1, 100, 202, 1, 1, 0, 1500, 1600, N(epoch1_more),
	  epoch1_more },
	{ 5, 1, 100, 101, 0, 1, 1, 500, 9000, N(epoch1), epoch1 },
	/* epoch change: another list of events */
	{ 6, 2, 100, 101, 0, 2, 0, 10000, 10050, N(epoch2), epoch2 },
	{ 7, 2, 100, 101, 0, 2, 0, 10100, 10150, N(epoch2), epoch2 },
	{ 8, 1, 100, 101, 0, 1, 0, 10200, 10250, N(epoch1), epoch1 },
	{ 9, 1, 100, 101, 0, 1, 0, 11000, 11000, 2, epoch1 },	/* fewer */
	{ 10, 1, 100, 101, 0, 1, 0, 12000, 11999, N(extremes), extremes },
	{ 11, 1, 100, 101, 0, 1, 0, 13000, 22000, N(repeats), repeats },
	{ 0, 0, 0, 0, 0, 0, 0, UINT64_MAX, 0, 0, NULL },
};

static void test_edges(void)
{
	struct vs_task_pack enc = { .nr_ids = 0 }, dec = { .nr_ids = 0 };
	size_t i, size;
	int all = 1;

	for (i = 0; i < N(edge_tasks); i++)
		if (!round_trip(&enc, &dec, &edge_tasks[i], &size)) {
			ok(0, "edge task %zu round trips", i);
			all = 0;
		}
	ok(all, "%zu tasks with edge values round trip in one chunk",
	   N(edge_tasks));

	/* a reset (a new chunk) on both sides, then the same again */
	vs_task_pack_reset(&enc);
	vs_task_pack_reset(&dec);
	for (i = N(edge_tasks); i-- > 0;)
		if (!round_trip(&enc, &dec, &edge_tasks[i], &size))
			all = 0;
	ok(all, "and in the reverse order after a reset");
	vs_task_pack_release(&enc);
	vs_task_pack_release(&dec);
}

/* The task after @t on its thread: 10 ns later, 100 ns long. */
static void next_task(struct vs_task *t)
{
	t->id++;
	t->start = t->end + 10;
	t->end = t->start + 100;
}

/* What the format promises about size: what repeats costs about nothing. */
static void test_sizes(void)
{
	struct vs_task_pack enc = { .nr_ids = 0 }, dec = { .nr_ids = 0 };
	struct vs_value v[20];
	struct vs_task t = { 1, 1, 100, 101, 0, 1, 0, 1000, 1100, 20, v };
	size_t size;
	unsigned int i;
	int same;

	for (i = 0; i < 20; i++)
		v[i] = (struct vs_value){ i, 0 };
	round_trip(&enc, &dec, &t, &size);
	next_task(&t);
	same = round_trip(&enc, &dec, &t, &size);
	ok(same && size == 1 + 1 + 1 + 1 + 1 + 20 + 1,
	   "the next task of the thread, 20 zero values: %zu bytes (changed, "
	   "id, start, latency, count, a byte per value, count)", size);
	next_task(&t);
	v[3].value = 100;	/* the latency */
	v[9].value = 100;
	same = round_trip(&enc, &dec, &t, &size);
	ok(same && size == 26, "values equal to the latency refer back to "
	   "it in a byte (%zu bytes)", size);
	next_task(&t);
	v[3].value = 1ull << 40;
	v[9].value = 1ull << 40;
	same = round_trip(&enc, &dec, &t, &size);
	ok(same && size == 26 + 5, "a 41-bit value takes 6 bytes, the same "
	   "again one (%zu bytes)", size);
	vs_task_pack_release(&enc);
	vs_task_pack_release(&dec);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A random value: small, zero, huge or one of a few repeating ones. */
static uint64_t rnd_value(void)
{
	switch (rnd() % 5) {
	case 0:
		return 0;
	case 1:
		return rnd() % 100;
	case 2:
		return rnd();
	case 3:
		return rnd() % 4 * 1000;
	}
	return rnd() % 1000000;
}

#define NR_RANDOM	20000

static struct vs_task random_tasks[NR_RANDOM];
static struct vs_value random_values[NR_RANDOM][12];

/* Tasks of 4 threads, 3 event lists, now and then an event of its own. */
static void make_random_tasks(void)
{
	uint64_t now = 1000000, next_id[4] = { 1, 1 << 16, 2 << 16, 3 << 16 };
	unsigned int i, k, tid, list, n;

	for (i = 0; i < NR_RANDOM; i++) {
		struct vs_task *t = &random_tasks[i];

		tid = rnd() % 4;
		list = i / 5000 % 3;
		n = 3 + list * 3 + (rnd() % 7 == 0);
		for (k = 0; k < n; k++)
			random_values[i][k] = (struct vs_value){
				k < n - (rnd() % 7 == 0) ? list * 10 + k :
				200 + rnd() % 100, rnd_value() };
		now += rnd() % 20000;
		*t = (struct vs_task){ .id = next_id[tid]++,
			.type = rnd() % 3, .pid = 100, .tid = 100 + tid,
			.cpu = rnd() % 2, .epoch = list,
			.flags = rnd() % 50 ? 0 : VS_TASK_LOST_EVENTS,
			.end = now, .nr_values = n,
			.values = random_values[i] };
		t->start = now - rnd() % 200000;	/* may be long ago */
	}
}

static void write_random(unsigned int major, unsigned int flush_every)
{
	struct vs_header h = test_hdr;
	struct vs_record rec = { .kind = VS_REC_TASK };
	struct vs_writer *w;
	unsigned int i;
	int err;

	h.major = major;
	w = vs_writer_open(path, &h);
	err = !w;
	for (i = 0; i < NR_RANDOM && !err; i++) {
		rec.task = random_tasks[i];
		err |= vs_writer_add(w, &rec);
		if (flush_every && i % flush_every == flush_every - 1)
			err |= vs_writer_flush(w);
	}
	if (err || vs_writer_close(w)) {
		printf("# writing %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* Read the tasks from @path; the index of the first, or -1 if one differs. */
static long read_random(struct vs_reader *r, unsigned int *n)
{
	struct vs_record rec;
	long first = -1, i = -1;

	*n = 0;
	while (vs_reader_next(r, &rec) > 0) {
		if (rec.kind != VS_REC_TASK)
			return -1;
		if (first < 0) {
			for (i = 0; i < NR_RANDOM; i++)
				if (random_tasks[i].id == rec.task.id &&
				    random_tasks[i].end == rec.task.end)
					break;
			first = i;
		}
		if (i >= NR_RANDOM || !same_task(&rec.task, &random_tasks[i]))
			return -1;
		i++;
		(*n)++;
	}
	return vs_reader_error(r) ? -1 : first;
}

static void test_random_streams(void)
{
	static const unsigned int flushes[] = { 0, 1, 7, 1000 };
	struct vs_reader *r;
	unsigned int f, n, major;
	char err[512];
	long first;

	make_random_tasks();
	for (major = 1; major <= 2; major++) {
		for (f = 0; f < N(flushes); f++) {
			write_random(major, flushes[f]);
			r = vs_reader_open(path, err, sizeof(err));
			first = r ? read_random(r, &n) : -1;
			ok(first == 0 && n == NR_RANDOM,
			   "%u random tasks read back the same from a %u.0 "
			   "file, chunks cut every %u tasks (0: by size)",
			   NR_RANDOM, major, flushes[f]);
			vs_reader_close(r);
		}
	}

	/* chunks decode on their own: seek to the middle of the stream */
	write_random(2, 1000);
	r = vs_reader_open(path, err, sizeof(err));
	if (r && !vs_reader_seek_time(r, random_tasks[NR_RANDOM / 2].end)) {
		first = read_random(r, &n);
		ok(first > 0 && first % 1000 == 0 && first + n == NR_RANDOM,
		   "seek into the middle: tasks from %ld on, all decoded", first);
	} else {
		ok(0, "seek into the middle");
	}
	vs_reader_close(r);
}

/* A task too large to pack is written as kind 2, between packed ones. */
static void test_unpackable(void)
{
	static struct vs_value many[VS_PACK_MAX_VALUES + 1];
	struct vs_record rec = { .kind = VS_REC_TASK }, back;
	struct vs_writer *w = vs_writer_open(path, &test_hdr);
	struct vs_task tasks[3] = {
		{ 1, 1, 1, 1, 0, 0, 0, 10, 20, 3, epoch1 },
		{ 2, 1, 1, 1, 0, 0, 0, 30, 40, N(many), many },
		{ 3, 1, 1, 1, 0, 0, 0, 50, 60, 3, epoch1 },
	};
	struct vs_reader *r;
	unsigned int i, n = 0, same = 0;
	char err[512];

	for (i = 0; i < N(many); i++)
		many[i] = (struct vs_value){ i % 65536, i };
	for (i = 0; w && i < 3; i++) {
		rec.task = tasks[i];
		if (vs_writer_add(w, &rec))
			w = NULL;
	}
	ok(w && !vs_writer_close(w), "write a task of %zu values between two",
	   N(many));
	r = vs_reader_open(path, err, sizeof(err));
	while (r && vs_reader_next(r, &back) > 0)
		same += n < 3 && same_task(&back.task, &tasks[n++]);
	ok(same == 3 && !vs_reader_error(r),
	   "all three read back the same (the large one as kind 2)");
	vs_reader_close(r);

	w = vs_writer_open(path, &test_hdr);
	errno = 0;
	ok(w && vs_writer_add_raw(w, VS_REC_PACKED_TASK, "x", 1) == -1 &&
	   errno == EINVAL, "vs_writer_add_raw refuses packed tasks");
	rec.kind = VS_REC_PACKED_TASK;
	errno = 0;
	ok(w && vs_writer_add(w, &rec) == -1 && errno == EINVAL,
	   "and so does vs_writer_add: they have no in-memory form");
	vs_writer_close(w);
}

/* Every cut of a body and a few bad codes: an error, never a crash. */
static void test_damage(void)
{
	static const struct {
		const uint8_t body[16];
		size_t size;
		const char *err;
	} bad[] = {
		{ { 0x40 }, 1, "unknown fields changed" },
		{ { 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
		    0x02 }, 11, "varint out of range" },
		{ { 1, 0, 0x80, 0x80, 0x80, 0x80, 0x10 }, 7,
		  "varint out of range" },	/* a type over 32 bits */
		{ { 0, 0, 0, 0, 1 }, 5, "more values than the task before" },
		{ { 0, 0, 0, 0, 0, 1, 0x80, 0x80, 0x04, 0 }, 10,
		  "event id out of range" },
		{ { 0, 0, 0, 0, 0, 1, 1, 5 }, 8,
		  "back reference out of range" },
		{ { 0, 0, 0, 0, 0, 1, 1, 1 }, 8,
		  "back reference out of range" },
		{ { 0, 0, 0, 0, 0, 1, 1, 3 }, 8, NULL },	/* = latency */
		{ { 0, 0, 0, 0, 0, 9, 1, 0 }, 8,
		  "value count overruns its record" },
	};
	struct vs_task_pack enc = { .nr_ids = 0 }, dec = { .nr_ids = 0 };
	const struct vs_task *t = &edge_tasks[N(edge_tasks) - 3];
	uint8_t buf[1024];
	struct vs_task back;
	size_t size, cut;
	unsigned int i, errors = 0;
	const char *err;

	vs_task_pack_encode(&enc, t, buf, &size);
	for (cut = 0; cut < size; cut++) {
		vs_task_pack_reset(&dec);
		errors += vs_task_pack_decode(&dec, buf, cut, &back) != NULL;
	}
	vs_task_pack_reset(&dec);
	ok(errors == size && !vs_task_pack_decode(&dec, buf, size, &back) &&
	   same_task(t, &back), "each of the %zu cuts of a body is an error, "
	   "the whole body decodes", size);
	for (i = 0; i < N(bad); i++) {
		vs_task_pack_reset(&dec);
		err = vs_task_pack_decode(&dec, bad[i].body, bad[i].size,
					  &back);
		is_str(err, bad[i].err, bad[i].err ? bad[i].err :
		       "a back reference to the latency");
	}
	vs_task_pack_release(&enc);
	vs_task_pack_release(&dec);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/t.data", dir);
	test_edges();
	test_sizes();
	test_random_streams();
	test_unpackable();
	test_damage();
	unlink(path);
	rmdir(dir);
	return done_testing();
}
