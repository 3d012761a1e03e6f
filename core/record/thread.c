// SPDX-License-Identifier: MIT
/*
 * thread.c - one recorded thread: its slot in the in-kernel
 * engine (core/record/task-slot.h), which the BPF programs account its
 * kernel events into while it holds a task, and its task ring, where the
 * library pushes each finished task with the slot's values.
 *
 * The recorder opens nothing in the thread: registration takes a slot
 * and makes the task ring; a drain copies the ring's tasks out, checks
 * them (the program may write anything there) and writes them with their
 * values; the thread's exit or the end of the recording closes the task
 * open then with the slot's values at that time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/record/record-int.h"

struct vs_rthread {
	struct vs_rthread *next;	/* session hash chain */
	uint32_t pid, tid;
	uint64_t opened;		/* an exit before is an earlier thread's */
	int tasks_fd;
	struct vs_task_ring *tasks;
	uint64_t last_dropped, last_unmatched;
	uint64_t counts_read;		/* when they were read last */
	uint32_t done_seq;		/* last task written */
	/* the slot, the tasks read (ours, not the ring's tail, which the
	 * program may write), a lying ring */
	uint32_t slot;
	uint64_t tail;
	bool bad;
};

/* The names of the engine's per-task software facts, in slot order. */
static const struct {
	const char *name;
	const char *unit;
} sw_counters[VS_NR_SW_COUNTERS] = {
	{ "task-clock",	      "ns" },
	{ "context-switches", "count" },
	{ "page-faults",      "count" },
	{ "cpu-migrations",   "count" },
};

uint32_t vs_rthread_slot(const struct vs_rthread *rt)
{
	return rt->slot;
}

uint32_t vs_rthread_tid(const struct vs_rthread *rt)
{
	return rt->tid;
}

struct vs_rthread **vs_rthread_next(struct vs_rthread *rt)
{
	return &rt->next;
}

uint64_t vs_rthread_opened(const struct vs_rthread *rt)
{
	return rt->opened;
}

static void close_fds(struct vs_session *s, struct vs_rthread *rt)
{
	if (rt->slot)
		vs_bpf_engine_release(s->engine, rt->slot);
	rt->slot = 0;
	if (rt->tasks)
		munmap(rt->tasks, sizeof(*rt->tasks));
	if (rt->tasks_fd >= 0)
		close(rt->tasks_fd);
	rt->tasks_fd = -1;
	rt->tasks = NULL;
}

/*
 * The thread's task ring: a memfd the program maps.  Sealed at its size:
 * the program holds the descriptor (and can open another through
 * /proc/self/map_files), and a ring it truncated would be a SIGBUS in the
 * recorder at its next read.
 */
static int open_task_ring(struct vs_rthread *rt)
{
	void *p;

	rt->tasks_fd = memfd_create("varscope-tasks",
				    MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (rt->tasks_fd < 0 ||
	    ftruncate(rt->tasks_fd, sizeof(struct vs_task_ring)) ||
	    fcntl(rt->tasks_fd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		return -1;
	p = mmap(NULL, sizeof(struct vs_task_ring), PROT_READ | PROT_WRITE,
		 MAP_SHARED, rt->tasks_fd, 0);
	if (p == MAP_FAILED)
		return -1;
	rt->tasks = p;
	return 0;
}

struct vs_rthread *vs_rthread_open(struct vs_session *s, uint32_t pid,
				   uint32_t tid)
{
	struct vs_rthread *rt = calloc(1, sizeof(*rt));
	int slot, err;

	if (!rt)
		return NULL;
	rt->opened = vs_perf_clock_ns();
	rt->counts_read = rt->opened;
	rt->pid = pid;
	rt->tid = tid;
	rt->tasks_fd = -1;
	if (open_task_ring(rt) ||
	    (slot = vs_bpf_engine_register(s->engine, tid)) < 0) {
		err = errno;
		close_fds(s, rt);
		free(rt);
		errno = err;
		return NULL;
	}
	rt->slot = slot;
	return rt;
}

unsigned int vs_rthread_fds(const struct vs_session *s,
			    const struct vs_rthread *rt, int fds[VS_REG_MAX_FDS])
{
	fds[VS_REG_FD_SLOTS] = vs_bpf_engine_slots_fd(s->engine);
	fds[VS_REG_FD_TASKS] = rt->tasks_fd;
	if (vs_bpf_engine_mark_fd(s->engine) < 0)
		return VS_REG_NR_FDS;
	fds[VS_REG_FD_MARK] = vs_bpf_engine_mark_fd(s->engine);
	return VS_REG_MAX_FDS;
}

void vs_rthread_sent(struct vs_rthread *rt)
{
	close(rt->tasks_fd);	/* the mapping stays */
	rt->tasks_fd = -1;
}

/* A thread attached to (detached from) task @id at @time. */
static void write_attach(struct vs_session *s, struct vs_rthread *rt,
			 uint64_t time, uint8_t what, uint64_t id)
{
	struct vs_record rec = { .kind = VS_REC_ATTACH };

	rec.attach = (struct vs_attach){ time, rt->tid, what, id };
	vs_session_write(s, &rec);
}

/* The library's counts of @rt, read at @now. */
static void read_counts(struct vs_session *s, struct vs_rthread *rt,
			uint64_t now)
{
	uint64_t dropped = __atomic_load_n(&rt->tasks->dropped, __ATOMIC_RELAXED);
	uint64_t unmatched = __atomic_load_n(&rt->tasks->unmatched_ends,
					     __ATOMIC_RELAXED);

	if (dropped != rt->last_dropped) {
		struct vs_record rec = { .kind = VS_REC_LOST };

		rec.lost = (struct vs_lost){ now, rt->tid, 0,
					     VS_LOST_TASKS,
					     dropped - rt->last_dropped };
		vs_session_write(s, &rec);
		s->stats.dropped_tasks += dropped - rt->last_dropped;
		rt->last_dropped = dropped;
	}
	s->stats.unmatched_ends += unmatched - rt->last_unmatched;
	rt->last_unmatched = unmatched;
	rt->counts_read = now;
}

/*
 * The library's ring of @rt lied (a head no ring can have, a counter that
 * went back): its later tasks are not read, and the summary says so.
 */
static void thread_lied(struct vs_session *s, struct vs_rthread *rt)
{
	rt->bad = true;
	s->stats.bad_threads++;
}

/* The library may set these; the recorder sets the others. */
#define VS_LIB_TASK_FLAGS	(VS_TASK_NESTED_BEGIN | VS_TASK_UNMATCHED_END | \
				 VS_TASK_ATTACHED | VS_TASK_DISTORTED)

#define VS_RAN_TOP	4	/* threads named in a task's ran_instead */

/*
 * The VS_REC_RAN_INSTEAD records of @task: the threads of @kv with the
 * most time, most first, then the others' time as one of tid 0.
 */
static void write_ran_instead(struct vs_session *s, const struct vs_task *task,
			      const struct vs_slot_values *kv)
{
	struct vs_record rec = { .kind = VS_REC_RAN_INSTEAD };
	bool taken[VS_SLOT_RAN] = { false };
	uint64_t rest = kv->ran_other_ns;
	char comm[sizeof(kv->ran[0].comm) + 1];
	int i, k, best;

	for (k = 0; k < VS_RAN_TOP; k++) {
		best = -1;
		for (i = 0; i < VS_SLOT_RAN; i++)
			if (!taken[i] && kv->ran[i].time_ns && kv->ran[i].tid &&
			    (best < 0 || kv->ran[i].time_ns > kv->ran[best].time_ns))
				best = i;
		if (best < 0)
			break;
		taken[best] = true;
		memcpy(comm, kv->ran[best].comm, sizeof(kv->ran[best].comm));
		comm[sizeof(comm) - 1] = '\0';
		rec.ran_instead = (struct vs_ran_instead){ task->id,
			kv->ran[best].pid, kv->ran[best].tid, comm,
			kv->ran[best].time_ns };
		vs_session_write(s, &rec);
	}
	for (i = 0; i < VS_SLOT_RAN; i++)
		if (!taken[i] && kv->ran[i].time_ns)
			rest = rest + kv->ran[i].time_ns < rest ? UINT64_MAX :
			       rest + kv->ran[i].time_ns;
	if (!rest)
		return;
	rec.ran_instead = (struct vs_ran_instead){ task->id, 0, 0, "", rest };
	vs_session_write(s, &rec);
}

void vs_record_engine_task(struct vs_session *s, struct vs_task *task,
			   const struct vs_slot_values *kv)
{
	/* the names first (event definitions), then who ran, then the task */
	if (kv->unseen_switch_ins) {
		s->stats.unseen_switch_tasks++;
		task->flags |= VS_TASK_UNSEEN_SWITCH;
	}
	if (vs_task_values_fill(s->values, kv, task) == 0) {
		write_ran_instead(s, task, kv);
		vs_session_task(s, task);
	}
}

/*
 * A task of @rt from the engine's values @kv, written with its values;
 * an attached interval (@attach_id) between its attach and, if it was
 * ended (not cut by the thread's exit or the stop), its detach.
 */
static void write_slot_task(struct vs_session *s, struct vs_rthread *rt,
			    struct vs_task *task,
			    const struct vs_slot_values *kv, uint64_t attach_id,
			    bool ended)
{
	task->id = (uint64_t)rt->tid << 32 | (uint32_t)task->id;
	task->pid = rt->pid;
	task->tid = rt->tid;
	task->epoch = s->epoch;
	if (attach_id)
		write_attach(s, rt, task->start, VS_ATTACH, attach_id);
	vs_record_engine_task(s, task, kv);
	if (attach_id && ended)
		write_attach(s, rt, task->end, VS_DETACH, attach_id);
}

/*
 * How far the clocks of a task may lie before the thread's registration
 * or after the drain that reads it.
 */
#define VS_TASK_CLOCK_SLACK_NS	1000000000ull

/*
 * One finished task of the ring: copied first, the program may write it.
 * A task that cannot be (it ends before it begins, outside the thread's
 * time, on a CPU the machine does not have, or its sequence number goes
 * back) is dropped and counted.
 */
static void take_slot_task(struct vs_session *s, struct vs_rthread *rt,
			   const struct vs_ring_task *entry, uint64_t now)
{
	static struct vs_ring_task t;	/* 1 KiB: not on the stack */
	struct vs_task task = { 0 };

	memcpy(&t, entry, sizeof(t));
	if (t.end < t.start || t.seq <= rt->done_seq ||
	    t.cpu >= (uint32_t)vs_bpf_engine_nr_cpus(s->engine) ||
	    t.start + VS_TASK_CLOCK_SLACK_NS < rt->opened ||
	    t.end > now + VS_TASK_CLOCK_SLACK_NS) {
		s->stats.bad_tasks++;
		return;
	}
	task.id = t.seq;
	task.type = t.type;
	task.cpu = t.cpu;
	task.flags = t.flags & VS_LIB_TASK_FLAGS;
	task.start = t.start;
	task.end = t.end;
	if (t.attach_id)
		task.flags |= VS_TASK_ATTACHED;
	write_slot_task(s, rt, &task, &t.kernel, t.attach_id, true);
	rt->done_seq = t.seq;
}

/*
 * The task open now on @rt ends at @time: the thread exited inside it
 * (@exited) or the recording stops.  Its values are the slot's now.
 */
static void close_slot_task(struct vs_session *s, struct vs_rthread *rt,
			    uint64_t time, bool exited)
{
	struct vs_task_ring *r = rt->tasks;
	struct vs_slot_values kv;
	struct vs_slot_open_wait wait;	/* still open: it ends with the task */
	struct vs_task task = { 0 };
	uint32_t seq = __atomic_load_n(&r->open, __ATOMIC_ACQUIRE);
	uint64_t attach_id = r->open_attach_id;

	task.start = r->open_start;
	task.type = r->open_type;
	task.cpu = r->open_cpu;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (!seq || seq != __atomic_load_n(&r->open, __ATOMIC_RELAXED) ||
	    seq == rt->done_seq || task.start > time)
		return;
	if (!vs_slot_read(vs_bpf_engine_slot(s->engine, rt->slot), seq, &kv,
			  &wait))
		task.flags |= VS_TASK_DISTORTED;
	task.id = seq;
	task.end = time;
	task.flags |= exited ? VS_TASK_THREAD_EXIT : VS_TASK_TRUNCATED;
	write_slot_task(s, rt, &task, &kv, attach_id, false);
	rt->done_seq = seq;
}

/*
 * The library's counts, each of which may only grow, and by at most one
 * a nanosecond since they were read last (@elapsed): a task dropped, or
 * an end without begin, is a call of the library.
 */
static bool count_grew(uint64_t now, uint64_t last, uint64_t elapsed)
{
	return now >= last && now - last <= elapsed;
}

/*
 * The tasks of the ring, at most a ring's worth: a head further than
 * that from what was read, or counts that went back, are a lie.
 */
static unsigned int drain_slot_thread(struct vs_session *s,
				      struct vs_rthread *rt)
{
	struct vs_task_ring *r = rt->tasks;
	uint64_t head, first = rt->tail, now = vs_perf_clock_ns();
	uint64_t elapsed = now - rt->counts_read;

	if (rt->bad)
		return 0;
	head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	if (head - rt->tail > VS_RING_ENTRIES ||
	    !count_grew(__atomic_load_n(&r->dropped, __ATOMIC_RELAXED),
			rt->last_dropped, elapsed) ||
	    !count_grew(__atomic_load_n(&r->unmatched_ends, __ATOMIC_RELAXED),
			rt->last_unmatched, elapsed)) {
		thread_lied(s, rt);
		return 0;
	}
	for (; rt->tail != head; rt->tail++)
		take_slot_task(s, rt, &r->slot[rt->tail & (VS_RING_ENTRIES - 1)],
			       now);
	__atomic_store_n(&r->tail, rt->tail, __ATOMIC_RELEASE);
	read_counts(s, rt, now);
	return rt->tail - first;
}

unsigned int vs_rthread_drain(struct vs_session *s, struct vs_rthread *rt)
{
	return rt->tasks ? drain_slot_thread(s, rt) : 0;
}

void vs_rthread_close(struct vs_session *s, struct vs_rthread *rt,
		      uint64_t time, bool exited)
{
	vs_rthread_drain(s, rt);
	if (!rt->bad)
		close_slot_task(s, rt, time, exited);
	close_fds(s, rt);
	free(rt);
}

void vs_rthread_sw_counters(struct vs_session *s)
{
	int i;

	for (i = 0; i < VS_NR_SW_COUNTERS; i++)
		s->sw_ids[i] = vs_catalog_intern(s->cat, sw_counters[i].name,
						 sw_counters[i].unit,
						 VS_GROUP_SOFTWARE,
						 VS_EVENT_NO_PARENT);
}
