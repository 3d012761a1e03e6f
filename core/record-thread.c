// SPDX-License-Identifier: MIT
/*
 * record-thread.c - one recorded thread: its perf events, its gated perf
 * ring, its task ring, and the merge of both streams into the accounting.
 *
 * Per thread, one group of events, led by the first tracepoint: the leader
 * owns the ring (and with context_switch=1 writes the switch records into
 * it), every other tracepoint (pid=tid, cpu=-1) is redirected into that
 * ring with PERF_EVENT_IOC_SET_OUTPUT, and the software counters are
 * counting members.  Only the leader is opened disabled; the library
 * enables it inside selected tasks, which schedules the whole group in,
 * and reads the counters with one PERF_FORMAT_GROUP read(2) of the leader
 * after the disable at each end (they count nothing in between, so the
 * previous end's read is the task's base).  Outside selected tasks
 * nothing of the thread is active: no record reaches the ring, no counter
 * counts, and a context switch of the thread finds no event to schedule.
 * At --rate 1 (vs_gate_by_pause()) the leader is opened enabled and the
 * ring paused instead: the library resumes and pauses the ring and reads
 * the counters at both ends.
 * (A group led by a dummy loses tracepoint samples: the leader is a
 * tracepoint.)  With
 * --sample the sampling event stays outside the group and the ring starts
 * paused; the library resumes it too.  With a hardware PMU, the epoch's
 * hardware counter group too: opened here at registration and at each
 * epoch, its leader passed on a socket the library takes it from at its
 * next begin.  That group counts all along (enabled here): the library
 * reads it at begin and at end.  Led by its first hardware counter, it
 * also holds the interrupt entry and exit tracepoints as snapshot members
 * (core/snapshot.h) writing into the thread's ring, so with a PMU the
 * ring starts paused as under --sample.  A snapshot sample is merged into
 * its twin (the same hit's sample of the thread's group), and the
 * accounting leaves each interrupt's counts out.
 *
 * Merge: perf records are queued in ring order (one thread: time order).
 * A task record in the task ring means every kernel event of that task is
 * already in the perf ring (the library pushes after disabling), so queued
 * events up to its end can be fed.  The task open now is fed as soon as
 * its begin is visible, so a long task does not hold its events here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/array.h"
#include "core/record-int.h"
#include "core/snapshot.h"

/* A first-in first-out array of one type of items, grown by doubling. */
struct vs_fifo {
	void *buf;
	size_t head, len, alloc;
};

struct vs_rthread {
	struct vs_rthread *next;	/* session hash chain */
	uint32_t pid, tid;
	uint64_t opened;		/* an exit before is an earlier thread's */
	int tp_fd[VS_TP_MAX];		/* [0]: the leader, owning the ring */
	uint64_t tp_id[VS_TP_MAX];	/* sample ids, index = tp index */
	int sample_fd;			/* --sample, -1: none */
	uint64_t sample_id;
	int nr_tp;
	int counter_fd[VS_NR_SW_COUNTERS];	/* members after the leader */
	int tasks_fd;
	struct vs_perf_ring ring;
	struct vs_task_ring *tasks;
	uint64_t last_dropped, last_unmatched;
	bool fds_closed;		/* counted in the session's stats */
	uint32_t done_seq;		/* last task fed whole */
	uint32_t begun_seq;		/* task whose begin was fed, 0: none */
	uint64_t last_time;		/* of the last perf record */
	bool blocked;			/* the last switch out was blocked */
	uint64_t overflow_since;	/* ring near full from about then,
					 * loss not reported yet; 0: none */
	struct vs_fifo queue;		/* struct vs_acct_event */
	/* the in-kernel engine: the slot, the tasks read (ours, not the
	 * ring's tail, which the program may write), a lying ring */
	uint32_t slot;
	uint64_t tail;
	bool bad;
	/* hardware: the socket to the library, its end until sent */
	int hw_sock, hw_lib_sock;
	/*
	 * the current group [0] and the previous one [1], by generation:
	 * hw_nr counters (catalog ids hw_ids), then snapshot members, each
	 * of tracepoint index hw_tp[member]
	 */
	struct vs_counter_group hw[2];
	uint32_t hw_gen[2];
	unsigned int hw_nr[2];
	uint16_t hw_ids[2][VS_MAX_HW_COUNTERS];
	int8_t hw_tp[2][VS_PMU_MAX_GROUP];
	struct vs_snapshot_pair pair;
	/* the snapshots of queued events that have one, in queue order */
	struct vs_fifo snaps;		/* struct vs_snapshot */
	/*
	 * Wake-ups of the thread waiting to be judged, and its blocked
	 * waits inside selected tasks (in 0: not back yet), by time, kept
	 * VS_WAIT_KEEP_NS: a wake-up is written when it ends one of them.
	 * Its events before @horizon have all been read.
	 */
	struct vs_wakeup *wakes;
	size_t nr_wakes, cap_wakes;
	struct vs_wait {
		uint64_t out, in;
	} *waits;
	size_t nr_waits, cap_waits;
	uint64_t horizon;
};

static const struct {
	uint64_t config;
	const char *name;
	const char *unit;
} sw_counters[VS_NR_SW_COUNTERS] = {
	{ PERF_COUNT_SW_TASK_CLOCK,	  "task-clock",	      "ns" },
	{ PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches", "count" },
	{ PERF_COUNT_SW_PAGE_FAULTS,	  "page-faults",      "count" },
	{ PERF_COUNT_SW_CPU_MIGRATIONS,	  "cpu-migrations",   "count" },
};

_Static_assert(1 + 1 + VS_NR_SW_COUNTERS + VS_TP_MAX - 1 <= VS_MAX_GROUP_READ,
	       "a thread's group read fits the library's buffer");
_Static_assert(VS_PMU_MAX_GROUP <= VS_MAX_HW_READ,
	       "a hardware group read fits the library's buffer");

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

bool vs_gate_by_pause(const struct vs_session *s)
{
	return s->opts->rate >= 1.0;
}

bool vs_ring_paused(const struct vs_session *s)
{
	return s->sampling || s->hw || vs_gate_by_pause(s);
}

void vs_event_attr(struct perf_event_attr *attr, uint32_t type,
		   uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = type;
	attr->config = config;
	attr->sample_period = 1;
	attr->sample_type = VS_SAMPLE_TYPE;
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
}

static void close_fds(struct vs_session *s, struct vs_rthread *rt)
{
	int i;

	/* the library holds the leader's file too: epoll would keep it */
	if (rt->nr_tp)
		epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, rt->tp_fd[0], NULL);
	if (rt->ring.base)
		s->ring_bytes -= rt->ring.data_size;
	vs_perf_ring_unmap(&rt->ring);
	for (i = 0; i < rt->nr_tp; i++)
		close(rt->tp_fd[i]);
	if (rt->sample_fd >= 0)
		close(rt->sample_fd);
	rt->sample_fd = -1;
	for (i = 0; i < VS_NR_SW_COUNTERS; i++)
		if (rt->counter_fd[i] >= 0)
			close(rt->counter_fd[i]);
	if (rt->slot)
		vs_bpf_engine_release(s->engine, rt->slot);
	rt->slot = 0;
	if (rt->tasks)
		munmap(rt->tasks, sizeof(*rt->tasks));
	if (rt->tasks_fd >= 0)
		close(rt->tasks_fd);
	for (i = 0; i < 2; i++)
		vs_counter_group_close(&rt->hw[i]);
	if (rt->hw_sock >= 0)
		close(rt->hw_sock);
	if (rt->hw_lib_sock >= 0)
		close(rt->hw_lib_sock);
	rt->hw_sock = rt->hw_lib_sock = -1;
	rt->nr_tp = 0;
	rt->tasks_fd = -1;
	rt->tasks = NULL;
}

/*
 * A member of the thread's group: opened enabled, it counts or writes
 * while the leader (opened disabled, enabled by the library inside
 * selected tasks; enabled from the start when the pause gates) is; the
 * first event opened is the leader.
 * (PERF_IOC_FLAG_GROUP would resched the thread's events once per member:
 * tens of microseconds; enabling the leader alone schedules the group once.)
 */
static int open_member(struct vs_session *s, struct vs_rthread *rt,
		       struct perf_event_attr *attr)
{
	int leader = rt->nr_tp ? rt->tp_fd[0] : -1;

	attr->disabled = leader < 0 && !vs_gate_by_pause(s);
	return vs_perf_open(attr, rt->tid, -1, leader);
}

/* The software counters, members of the group read with the leader. */
static int open_counters(struct vs_session *s, struct vs_rthread *rt)
{
	struct perf_event_attr attr;
	int i;

	for (i = 0; i < VS_NR_SW_COUNTERS; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = sw_counters[i].config;
		attr.use_clockid = 1;	/* the group's clock */
		attr.clockid = CLOCK_MONOTONIC;
		rt->counter_fd[i] = open_member(s, rt, &attr);
		if (rt->counter_fd[i] < 0)
			return -1;
	}
	return 0;
}

static int open_tracepoint(struct vs_session *s, struct vs_rthread *rt,
			   int i)
{
	struct perf_event_attr attr;
	int fd;

	vs_event_attr(&attr, PERF_TYPE_TRACEPOINT, s->tps.tp[i].id);
	fd = open_member(s, rt, &attr);
	if (fd < 0)
		return -1;
	rt->tp_fd[rt->nr_tp++] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &rt->tp_id[i]))
		return -1;
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rt->tp_fd[0]);
}

/*
 * The data pages of a new thread's ring: -m, or VS_RING_PAGES
 * (VS_RING_PAGES_SAMPLE under --sample) while the rings open total less
 * than VS_RING_BUDGET, VS_RING_PAGES_OVER past it.
 */
static unsigned int ring_pages(const struct vs_session *s)
{
	if (s->opts->mmap_pages)
		return s->opts->mmap_pages;
	if (s->ring_bytes >= VS_RING_BUDGET)
		return VS_RING_PAGES_OVER;
	return s->sampling ?
	       vs_sample_ring_pages(s, VS_RING_PAGES_SAMPLE) : VS_RING_PAGES;
}

/*
 * The leader: the first tracepoint, owning the ring, with the switch
 * records (context_switch: side-band records of an event that is off
 * are not written, so they too come only inside selected tasks), read
 * with PERF_FORMAT_GROUP: { nr, leader, counters..., tracepoints... }.
 * The recorder drains every ring each 10 ms; a burst (a task's fault
 * storm) wakes it when the ring is a quarter full, so that it has the
 * other three quarters' time to come.
 */
static int open_leader(struct vs_session *s, struct vs_rthread *rt)
{
	struct perf_event_attr attr;
	unsigned int pages = ring_pages(s);
	int fd;

	vs_event_attr(&attr, PERF_TYPE_TRACEPOINT, s->tps.tp[0].id);
	attr.context_switch = 1;
	attr.read_format = PERF_FORMAT_GROUP;
	attr.watermark = 1;
	attr.wakeup_watermark = pages * 4096 / 4;
	fd = open_member(s, rt, &attr);
	if (fd < 0)
		return -1;
	rt->tp_fd[rt->nr_tp++] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &rt->tp_id[0]) ||
	    vs_perf_ring_mmap(&rt->ring, fd, pages))
		return -1;
	s->ring_bytes += rt->ring.data_size;
	if (vs_ring_paused(s) && ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1))
		return -1;
	return epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, fd,
			 &(struct epoll_event){ .events = EPOLLIN,
						.data.u64 = VS_WAKE_RING });
}

/* The group in read order: leader, counters, the other tracepoints. */
static int open_group(struct vs_session *s, struct vs_rthread *rt)
{
	int i;

	if (open_leader(s, rt) || open_counters(s, rt))
		return -1;
	for (i = 1; i < s->tps.nr; i++)
		if (open_tracepoint(s, rt, i))
			return -1;
	return 0;
}

static int open_task_ring(struct vs_rthread *rt)
{
	void *p;

	rt->tasks_fd = memfd_create("varscope-tasks", MFD_CLOEXEC);
	if (rt->tasks_fd < 0 ||
	    ftruncate(rt->tasks_fd, sizeof(struct vs_task_ring)))
		return -1;
	p = mmap(NULL, sizeof(struct vs_task_ring), PROT_READ | PROT_WRITE,
		 MAP_SHARED, rt->tasks_fd, 0);
	if (p == MAP_FAILED)
		return -1;
	rt->tasks = p;
	return 0;
}

/*
 * Pass the leader of group @g, generation @gen, whose first @nr members
 * are the counters, to the library.
 */
static int send_hw_group(struct vs_rthread *rt, const struct vs_counter_group *g,
			 unsigned int nr, uint32_t gen)
{
	struct vs_hw_group grp = { gen, nr, g->nr };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &grp, sizeof(grp) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;

	memset(cbuf, 0, sizeof(cbuf));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &g->fd[0], sizeof(int));
	return sendmsg(rt->hw_sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) ==
	       sizeof(grp) ? 0 : -1;
}

static void hw_failed(struct vs_session *s, const char *what)
{
	if (!s->hw_failures++)
		snprintf(s->hw_error, sizeof(s->hw_error), "%s", what);
}

static void snapshot_failed(struct vs_session *s, const char *tp, int err)
{
	if (!s->snapshot_failures++)
		snprintf(s->snapshot_error, sizeof(s->snapshot_error), "%s: %s",
			 tp, strerror(err));
}

/*
 * The snapshot members of @g (whose members so far are its counters): the
 * thread's interrupt entry and exit tracepoints, as many as fit, each
 * writing into the thread's ring; @tp gets their tracepoint indexes.  One
 * that cannot be added is left out (its interrupts stay in the counters).
 */
static void add_snapshots(struct vs_session *s, struct vs_rthread *rt,
			  struct vs_counter_group *g, int8_t *tp)
{
	struct perf_event_attr attr;
	int i, fd;

	for (i = 0; i < s->tps.nr && g->nr < VS_PMU_MAX_GROUP; i++) {
		if (!vs_snapshot_role(s->tps.tp[i].role))
			continue;
		vs_snapshot_attr(&attr, s->tps.tp[i].id);
		fd = vs_counter_group_add_snapshot(g, &attr, rt->tid, -1);
		if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rt->tp_fd[0])) {
			snapshot_failed(s, s->tps.tp[i].name, errno);
			close(fd);	/* the last member: out of the group */
			g->fd[--g->nr] = -1;
			continue;
		}
		if (fd < 0) {
			snapshot_failed(s, s->tps.tp[i].name, errno);
			continue;
		}
		tp[g->nr - 1] = i;
	}
}

/* Group @k's snapshot members stop sampling. */
static void stop_snapshots(struct vs_rthread *rt, int k)
{
	unsigned int m;

	for (m = rt->hw_nr[k]; m < rt->hw[k].nr; m++)
		ioctl(rt->hw[k].fd[m], PERF_EVENT_IOC_DISABLE, 0);
}

void vs_rthread_hw_rotate(struct vs_session *s, struct vs_rthread *rt)
{
	const struct vs_hw_config *hw;
	const uint16_t *ids;
	struct vs_counter_group g;
	unsigned int n = vs_hwcount_group(s->hw, &hw, &ids);
	char err[128];
	int8_t tp[VS_PMU_MAX_GROUP];

	if (rt->hw_sock < 0 || rt->hw_gen[0] == s->hw_gen)
		return;
	if (vs_counter_group_open(&g, hw, n, rt->tid, -1, err, sizeof(err))) {
		hw_failed(s, err);
		return;
	}
	add_snapshots(s, rt, &g, tp);
	if (vs_counter_group_enable(&g) ||
	    send_hw_group(rt, &g, n, s->hw_gen)) {
		hw_failed(s, strerror(errno));
		vs_counter_group_close(&g);
		return;
	}
	/* a hit sampled by both groups meanwhile pairs once: one is dropped */
	stop_snapshots(rt, 0);
	/* the library may still read the previous group: keep it */
	vs_counter_group_close(&rt->hw[1]);
	rt->hw[1] = rt->hw[0];
	rt->hw_gen[1] = rt->hw_gen[0];
	rt->hw_nr[1] = rt->hw_nr[0];
	memcpy(rt->hw_ids[1], rt->hw_ids[0], sizeof(rt->hw_ids[0]));
	memcpy(rt->hw_tp[1], rt->hw_tp[0], sizeof(rt->hw_tp[0]));
	rt->hw[0] = g;
	rt->hw_gen[0] = s->hw_gen;
	rt->hw_nr[0] = n;
	memcpy(rt->hw_ids[0], ids, n * sizeof(*ids));
	memcpy(rt->hw_tp[0], tp, sizeof(tp));
	__atomic_store_n(&rt->tasks->hw_gen, s->hw_gen, __ATOMIC_RELEASE);
}

static int open_hw(struct vs_session *s, struct vs_rthread *rt)
{
	int sv[2];

	if (!s->hw)
		return 0;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	rt->hw_sock = sv[0];
	rt->hw_lib_sock = sv[1];
	vs_rthread_hw_rotate(s, rt);
	return 0;
}

struct vs_rthread *vs_rthread_open(struct vs_session *s, uint32_t pid,
				   uint32_t tid)
{
	struct vs_rthread *rt = calloc(1, sizeof(*rt));
	int i, err;

	if (!rt)
		return NULL;
	rt->opened = vs_perf_clock_ns();
	rt->pid = pid;
	rt->tid = tid;
	rt->tasks_fd = rt->sample_fd = -1;
	rt->hw_sock = rt->hw_lib_sock = -1;
	for (i = 0; i < 2; i++)
		vs_counter_group_close(&rt->hw[i]);	/* no fds: all -1 */
	vs_snapshot_pair_init(&rt->pair);
	for (i = 0; i < VS_NR_SW_COUNTERS; i++)
		rt->counter_fd[i] = -1;
	if (s->engine) {
		/* the engine accounts it: a slot and the task ring */
		if (open_task_ring(rt) ||
		    (i = vs_bpf_engine_register(s->engine, tid)) < 0) {
			err = errno;
			close_fds(s, rt);
			free(rt);
			errno = err;
			return NULL;
		}
		rt->slot = i;
		return rt;
	}
	if (open_group(s, rt) ||
	    (s->sampling && (rt->sample_fd = vs_sample_open(s, tid, rt->tp_fd[0],
							    &rt->sample_id)) < 0) ||
	    open_task_ring(rt) || open_hw(s, rt)) {
		err = errno;
		close_fds(s, rt);
		free(rt);
		errno = err;
		return NULL;
	}
	return rt;
}

unsigned int vs_rthread_fds(const struct vs_session *s,
			    const struct vs_rthread *rt, int fds[VS_REG_MAX_FDS])
{
	fds[VS_REG_FD_RING] = rt->slot ? vs_bpf_engine_slots_fd(s->engine) :
					 rt->tp_fd[0];
	fds[VS_REG_FD_TASKS] = rt->tasks_fd;
	if (rt->slot && vs_bpf_engine_mark_fd(s->engine) >= 0) {
		fds[VS_REG_FD_HW] = vs_bpf_engine_mark_fd(s->engine);
		return VS_REG_MAX_FDS;
	}
	if (rt->hw_lib_sock < 0)
		return VS_REG_NR_FDS;
	fds[VS_REG_FD_HW] = rt->hw_lib_sock;
	return VS_REG_MAX_FDS;
}

void vs_rthread_sent(struct vs_rthread *rt)
{
	close(rt->tasks_fd);	/* the mapping stays */
	rt->tasks_fd = -1;
	if (rt->hw_lib_sock >= 0)
		close(rt->hw_lib_sock);
	rt->hw_lib_sock = -1;
}

/* --- the perf stream ---------------------------------------------------- */

/* Room for one more @size-byte item at @f's tail; NULL without memory. */
static void *fifo_push(struct vs_fifo *f, size_t size)
{
	if (f->head && f->head == f->len)
		f->head = f->len = 0;
	if (f->len == f->alloc && f->head) {	/* compact before growing */
		memmove(f->buf, (char *)f->buf + f->head * size,
			(f->len - f->head) * size);
		f->len -= f->head;
		f->head = 0;
	}
	if (vs_alloc_grow(&f->buf, &f->alloc, f->len + 1, size))
		return NULL;
	return (char *)f->buf + f->len++ * size;
}

/* The item at @f's head, NULL when empty; fifo_pop() takes it. */
static void *fifo_peek(const struct vs_fifo *f, size_t size)
{
	return f->head < f->len ? (char *)f->buf + f->head * size : NULL;
}

static void fifo_pop(struct vs_fifo *f)
{
	f->head++;
}

static struct vs_acct_event *queue_add(struct vs_rthread *rt)
{
	struct vs_acct_event *ev = fifo_push(&rt->queue, sizeof(*ev));

	if (!ev)
		return NULL;
	memset(ev, 0, sizeof(*ev));
	ev->tid = rt->tid;
	ev->pid = rt->pid;
	return ev;
}

/*
 * @snap is the snapshot of the event queued last: kept in queue order,
 * attached when the event is fed.
 */
static void queue_snapshot(struct vs_rthread *rt, const struct vs_snapshot *snap)
{
	struct vs_acct_event *ev = (struct vs_acct_event *)rt->queue.buf +
				   rt->queue.len - 1;
	struct vs_snapshot *keep = fifo_push(&rt->snaps, sizeof(*keep));

	if (!keep)
		return;
	*keep = *snap;
	ev->snapshot.nr = snap->nr;
}

/*
 * A sample of a snapshot member of the thread's hardware groups: its
 * snapshot merges into its twin.  False when @id is none of them.
 */
static bool on_snapshot(struct vs_rthread *rt,
			const struct perf_event_header *h, uint64_t id)
{
	struct vs_snapshot_sample smp;
	struct vs_snapshot snap;
	unsigned int k, m;

	for (k = 0; k < 2; k++)
		for (m = rt->hw_nr[k]; m < rt->hw[k].nr; m++)
			if (rt->hw[k].id[m] == id)
				goto found;
	return false;
found:
	if (vs_snapshot_parse(h, &smp) ||
	    vs_snapshot_of(&smp, &rt->hw[k], rt->hw_nr[k], rt->hw_ids[k], &snap))
		vs_snapshot_pair_other(&rt->pair);
	else if (vs_snapshot_pair_snapshot(&rt->pair, rt->hw_tp[k][m], &snap))
		queue_snapshot(rt, &snap);
	return true;
}

static void on_sample(struct vs_session *s, struct vs_rthread *rt,
		      const struct vs_raw_sample *smp)
{
	struct vs_acct_event *ev;
	struct vs_snapshot snap;
	int i;

	if (rt->sample_fd >= 0 && smp->id == rt->sample_id) {
		vs_snapshot_pair_other(&rt->pair);
		vs_sample_write(s, &smp->header);
		return;
	}
	for (i = 0; i < rt->nr_tp; i++)
		if (rt->tp_id[i] == smp->id)
			break;
	if (i == rt->nr_tp) {
		if (!on_snapshot(rt, &smp->header, smp->id))
			vs_snapshot_pair_other(&rt->pair);
		return;
	}
	ev = queue_add(rt);
	if (!ev) {
		vs_snapshot_pair_other(&rt->pair);
		return;
	}
	ev->time = smp->time;
	ev->cpu = smp->cpu;
	vs_tp_decode(&s->tps, &s->tps.tp[i], smp->raw, smp->raw_size, ev);
	rt->last_time = smp->time;
	if (vs_snapshot_pair_event(&rt->pair, i, &snap))
		queue_snapshot(rt, &snap);
}

bool vs_decode_switch(const struct vs_session *s,
		      const struct perf_event_header *h, struct vs_acct_event *ev)
{
	const struct vs_sample_id *sid = vs_sample_id_of(h);
	bool out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;

	/* sched_switch carries the state of a switch out; use it if open */
	if (out && s->have_switch_tp)
		return false;
	ev->time = sid->time;
	ev->cpu = sid->cpu;
	ev->tid = sid->tid;
	ev->kind = out ? VS_ACCT_SWITCH_OUT : VS_ACCT_SWITCH_IN;
	ev->state = h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ?
		    VS_WAIT_RUNNABLE : VS_WAIT_BLOCKED;
	return true;
}

/*
 * Does @time fall in one of @rt's blocked waits: 1, 0, or -1 when its
 * events around @time may not all be read yet.
 */
static int in_wait(const struct vs_rthread *rt, uint64_t time)
{
	size_t i = rt->nr_waits;

	while (i > 0 && rt->waits[i - 1].out > time)
		i--;
	if (i > 0 && time <= rt->waits[i - 1].in)
		return 1;
	if (time >= rt->horizon)
		return -1;
	/* not back by the horizon: still waiting */
	return i > 0 && !rt->waits[i - 1].in;
}

/*
 * Write @w if it ends a blocked wait of the thread inside its selected
 * tasks; true when that cannot be told yet.  The others are dropped:
 * the kernel's filter passes every wake-up of a recorded thread.
 */
static bool judge_wakeup(struct vs_session *s, struct vs_rthread *rt,
			 const struct vs_wakeup *w)
{
	struct vs_record rec = { .kind = VS_REC_WAKEUP };
	int in = in_wait(rt, w->time);

	if (in > 0) {
		rec.wakeup = *w;
		vs_session_write(s, &rec);
	}
	return in < 0;
}

/* Judge the wake-ups kept, and keep them no more if @all. */
static void settle_wakeups(struct vs_session *s, struct vs_rthread *rt,
			   bool all)
{
	size_t i, keep = 0;

	for (i = 0; i < rt->nr_wakes; i++)
		if (judge_wakeup(s, rt, &rt->wakes[i]) && !all)
			rt->wakes[keep++] = rt->wakes[i];
	rt->nr_wakes = keep;
	for (i = 0; i < rt->nr_waits && rt->waits[i].in &&
		    rt->waits[i].in + VS_WAIT_KEEP_NS < rt->horizon; i++)
		;
	if (i) {
		memmove(rt->waits, rt->waits + i, (rt->nr_waits - i) *
			sizeof(*rt->waits));
		rt->nr_waits -= i;
	}
}

void vs_rthread_wakeup(struct vs_session *s, struct vs_rthread *rt,
		       const struct vs_wakeup *w)
{
	if (judge_wakeup(s, rt, w) &&
	    ALLOC_GROW(rt->wakes, rt->nr_wakes + 1, rt->cap_wakes) == 0)
		rt->wakes[rt->nr_wakes++] = *w;
}

/* A blocked wait begins (@out) or ends. */
static void track_wait(struct vs_session *s, struct vs_rthread *rt,
		       bool out, uint64_t time)
{
	if (out) {
		if (ALLOC_GROW(rt->waits, rt->nr_waits + 1, rt->cap_waits))
			return;
		rt->waits[rt->nr_waits++] = (struct vs_wait){ time, 0 };
	} else if (rt->nr_waits && !rt->waits[rt->nr_waits - 1].in) {
		rt->waits[rt->nr_waits - 1].in = time;
	}
	if (rt->nr_wakes)
		settle_wakeups(s, rt, false);
}

/*
 * The switches of a thread inside its selected tasks (its events reach
 * the ring only then) that begin and end its blocked waits, as
 * VS_REC_SWITCH records, for the blame along wake-up edges
 * (core/analysis/wakeup.h): a preemption is woken by no one, so neither its
 * switch out nor the switch in that ends it is written (on a ping-pong,
 * two records a task).  --syscalls writes every switch of the command
 * already.
 */
static void write_switch(struct vs_session *s, struct vs_rthread *rt,
			 const struct perf_event_header *h)
{
	const struct vs_sample_id *sid = vs_sample_id_of(h);
	struct vs_record rec = { .kind = VS_REC_SWITCH };
	bool out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;
	bool blocked = out && !(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	bool wait_end = !out && rt->blocked;

	rt->blocked = blocked;
	if (!(blocked || wait_end))
		return;
	track_wait(s, rt, out, sid->time);
	if (s->opts->syscalls)
		return;
	rec.switch_ = (struct vs_switch){
		.time = sid->time, .tid = sid->tid, .cpu = sid->cpu,
		.out = out, .preempt = false };
	vs_session_write(s, &rec);
}

static void on_switch(struct vs_session *s, struct vs_rthread *rt,
		      const struct perf_event_header *h)
{
	struct vs_acct_event ev = { 0 }, *q;

	rt->last_time = vs_sample_id_of(h)->time;
	write_switch(s, rt, h);
	if (!vs_decode_switch(s, h, &ev))
		return;
	q = queue_add(rt);
	if (q) {
		ev.pid = q->pid;
		*q = ev;
	}
}

/*
 * PERF_RECORD_LOST.  While the ring is paused the kernel counts every
 * event it drops and reports them at the first output after the resume:
 * those are events of the thread outside selected tasks, dropped on
 * purpose.  A real loss needs a ring without room; the reader knows
 * whether the ring came near full since its last read.  A loss while near
 * full counts as real (pause drops are then counted as lost too: never
 * the other way round).
 */
static void on_lost(struct vs_session *s, struct vs_rthread *rt,
		    const struct perf_event_header *h)
{
	const struct perf_record_lost {
		struct perf_event_header header;
		uint64_t id, lost;
	} *lost = (const void *)h;
	const struct vs_sample_id *sid = vs_sample_id_of(h);
	struct vs_acct_event *ev;
	struct vs_record rec = { .kind = VS_REC_LOST };

	if (!rt->ring.full) {
		s->stats.paused_drops += lost->lost;
		return;
	}
	s->stats.lost_events += lost->lost;
	rec.lost = (struct vs_lost){ sid->time, rt->tid, sid->cpu,
				     VS_LOST_KERNEL_RING, lost->lost };
	vs_session_write(s, &rec);
	ev = queue_add(rt);
	if (!ev)
		return;
	ev->time = rt->overflow_since && rt->overflow_since < rt->last_time ?
		   rt->overflow_since : rt->last_time;
	ev->until = sid->time;
	ev->cpu = sid->cpu;
	ev->kind = VS_ACCT_LOST;
	ev->count = lost->lost;
	rt->overflow_since = 0;
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	void **args = ctx;
	struct vs_session *s = args[0];
	struct vs_rthread *rt = args[1];

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(s, rt, (const void *)h);
		return;
	case PERF_RECORD_SWITCH:
		on_switch(s, rt, h);
		break;
	case PERF_RECORD_LOST:
		on_lost(s, rt, h);
		break;
	}
	vs_snapshot_pair_other(&rt->pair);
}

/* --- the merge ---------------------------------------------------------- */

static void feed(struct vs_session *s, const struct vs_acct_event *ev)
{
	if (ev->time > s->last_time)
		s->last_time = ev->time;
	vs_acct_feed(s->acct, ev);
}

/* Feed queued events before @time (up to and including it if @incl). */
static void feed_until(struct vs_session *s, struct vs_rthread *rt,
		       uint64_t time, bool incl)
{
	struct vs_acct_event *ev;
	const struct vs_snapshot *snap;

	while ((ev = fifo_peek(&rt->queue, sizeof(*ev)))) {
		if (ev->time > time || (ev->time == time && !incl))
			break;
		if (ev->snapshot.nr) {
			snap = fifo_peek(&rt->snaps, sizeof(*snap));
			ev->snapshot.nr = 0;
			if (snap) {
				vs_snapshot_attach(snap, ev);
				fifo_pop(&rt->snaps);
			}
		}
		feed(s, ev);
		fifo_pop(&rt->queue);
	}
}

/* A thread attached to (detached from) task @id at @time. */
static void write_attach(struct vs_session *s, struct vs_rthread *rt,
			 uint64_t time, uint8_t what, uint64_t id)
{
	struct vs_record rec = { .kind = VS_REC_ATTACH };

	rec.attach = (struct vs_attach){ time, rt->tid, what, id };
	vs_session_write(s, &rec);
}

/* @attach_id: the task an attached interval serves, else 0 */
static void feed_begin(struct vs_session *s, struct vs_rthread *rt,
		       uint32_t seq, uint64_t start, uint32_t cpu,
		       uint32_t type, uint64_t attach_id)
{
	struct vs_acct_event ev = {
		.time = start, .cpu = cpu, .tid = rt->tid, .pid = rt->pid,
		.kind = VS_ACCT_TASK_BEGIN, .type = type,
		.id = (uint64_t)rt->tid << 32 | seq,
	};

	feed_until(s, rt, start, false);
	if (attach_id)
		write_attach(s, rt, start, VS_ATTACH, attach_id);
	feed(s, &ev);
	rt->begun_seq = seq;
}

/*
 * The task's hardware deltas after its software ones in @ids, @values, if
 * the group it read is one of the thread's two last; returns how many
 * and ORs the fidelity of the begin-to-end period into @flags.
 */
static uint32_t hw_deltas(const struct vs_rthread *rt,
			  const struct vs_ring_task *t, uint16_t *ids,
			  uint64_t *values, uint32_t *flags)
{
	struct vs_counter_read from = { 0 }, to = { 0 };
	int k;

	for (k = 0; k < 2; k++)
		if (t->hw_gen && t->hw_gen == rt->hw_gen[k] &&
		    t->hw_nr == rt->hw_nr[k] && t->hw_nr <= VS_MAX_HW_COUNTERS)
			break;
	if (k == 2)
		return 0;
	from.t_before = t->hw_clock[0];
	from.t_after = t->hw_clock[1];
	from.time_enabled = t->hw_enabled[0];
	from.time_running = t->hw_running[0];
	from.nr = to.nr = t->hw_nr;
	to.t_before = t->hw_clock[2];
	to.t_after = t->hw_clock[3];
	to.time_enabled = t->hw_enabled[1];
	to.time_running = t->hw_running[1];
	memcpy(to.value, t->hw, t->hw_nr * sizeof(*t->hw));
	*flags |= vs_counter_period_flags(&from, &to);
	memcpy(ids, rt->hw_ids[k], t->hw_nr * sizeof(*ids));
	memcpy(values, t->hw, t->hw_nr * sizeof(*values));
	return t->hw_nr;
}

static void feed_task(struct vs_session *s, struct vs_rthread *rt,
		      const struct vs_ring_task *t)
{
	uint32_t nr_sw = t->nr_counters < VS_NR_SW_COUNTERS ?
			 t->nr_counters : VS_NR_SW_COUNTERS;
	uint16_t ids[VS_NR_SW_COUNTERS + VS_MAX_HW_COUNTERS];
	uint64_t values[VS_NR_SW_COUNTERS + VS_MAX_HW_COUNTERS];
	struct vs_acct_event ev = {
		.time = t->end, .cpu = t->cpu, .tid = rt->tid,
		.kind = VS_ACCT_TASK_END, .flags = t->flags,
	};

	memcpy(ids, s->sw_ids, nr_sw * sizeof(*ids));
	memcpy(values, t->counters, nr_sw * sizeof(*values));
	ev.deltas = (struct vs_acct_counters){ nr_sw, ids, values };
	ev.deltas.nr += hw_deltas(rt, t, ids + nr_sw, values + nr_sw,
				  &ev.flags);

	/* the kernel has not said yet what it dropped: assume this task */
	if (rt->overflow_since && t->end >= rt->overflow_since)
		ev.flags |= VS_TASK_LOST_EVENTS;
	if (rt->begun_seq != t->seq)
		feed_begin(s, rt, t->seq, t->start, t->cpu, t->type,
			   t->attach_id);
	feed_until(s, rt, t->end, true);
	feed(s, &ev);
	if (t->attach_id)
		write_attach(s, rt, t->end, VS_DETACH, t->attach_id);
	rt->begun_seq = 0;
	rt->done_seq = t->seq;
}

/* The open task, if its begin is readable consistently (a seqlock). */
static void feed_open_task(struct vs_session *s, struct vs_rthread *rt)
{
	struct vs_task_ring *r = rt->tasks;
	uint32_t seq = __atomic_load_n(&r->open, __ATOMIC_ACQUIRE);
	uint64_t start = r->open_start;
	uint32_t type = r->open_type, cpu = r->open_cpu;
	uint64_t attach_id = r->open_attach_id;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (!seq || seq != __atomic_load_n(&r->open, __ATOMIC_RELAXED) ||
	    seq != rt->done_seq + 1 || seq == rt->begun_seq)
		return;
	feed_begin(s, rt, seq, start, cpu, type, attach_id);
}

static void read_counts(struct vs_session *s, struct vs_rthread *rt)
{
	uint64_t dropped = __atomic_load_n(&rt->tasks->dropped, __ATOMIC_RELAXED);
	uint64_t unmatched = __atomic_load_n(&rt->tasks->unmatched_ends,
					     __ATOMIC_RELAXED);

	if (dropped != rt->last_dropped) {
		struct vs_record rec = { .kind = VS_REC_LOST };

		rec.lost = (struct vs_lost){ s->last_time, rt->tid, 0,
					     VS_LOST_TASKS,
					     dropped - rt->last_dropped };
		vs_session_write(s, &rec);
		s->stats.dropped_tasks += dropped - rt->last_dropped;
		rt->last_dropped = dropped;
	}
	s->stats.unmatched_ends += unmatched - rt->last_unmatched;
	rt->last_unmatched = unmatched;
	if (!rt->fds_closed &&
	    __atomic_load_n(&rt->tasks->fds_closed, __ATOMIC_ACQUIRE)) {
		rt->fds_closed = true;
		s->stats.fds_closed++;
	}
}

/* --- threads of the in-kernel engine --------------------------------------- */

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
	if (kv->unseen_switch_ins)
		s->stats.unseen_switch_tasks++;
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
 * time, or its sequence number goes back) is dropped and counted.
 */
static void take_slot_task(struct vs_session *s, struct vs_rthread *rt,
			   const struct vs_ring_task *entry, uint64_t now)
{
	static struct vs_ring_task t;	/* 1 KiB: not on the stack */
	struct vs_task task = { 0 };

	memcpy(&t, entry, sizeof(t));
	if (t.end < t.start || t.seq <= rt->done_seq ||
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

/* The library's counts, each of which may only grow, by a bounded step. */
#define VS_MAX_COUNT_STEP	(1ull << 32)

static bool count_grew(uint64_t now, uint64_t last)
{
	return now >= last && now - last <= VS_MAX_COUNT_STEP;
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

	if (rt->bad)
		return 0;
	head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	if (head - rt->tail > VS_RING_ENTRIES ||
	    !count_grew(__atomic_load_n(&r->dropped, __ATOMIC_RELAXED),
			rt->last_dropped) ||
	    !count_grew(__atomic_load_n(&r->unmatched_ends, __ATOMIC_RELAXED),
			rt->last_unmatched)) {
		thread_lied(s, rt);
		return 0;
	}
	for (; rt->tail != head; rt->tail++)
		take_slot_task(s, rt, &r->slot[rt->tail & (VS_RING_ENTRIES - 1)],
			       now);
	__atomic_store_n(&r->tail, rt->tail, __ATOMIC_RELEASE);
	read_counts(s, rt);
	return rt->tail - first;
}

unsigned int vs_rthread_drain(struct vs_session *s, struct vs_rthread *rt)
{
	struct vs_task_ring *r = rt->tasks;
	void *args[2] = { s, rt };
	uint64_t head, tail, first, horizon;

	if (!r)
		return 0;
	if (rt->slot)
		return drain_slot_thread(s, rt);
	/*
	 * The tasks ended before the perf ring is read: the kernel wrote all
	 * their events before the thread published the end.  A task that
	 * ends while the ring is read is left to the next drain, or its last
	 * events would reach the task after it.
	 */
	head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	horizon = vs_perf_clock_ns() - VS_WAKE_SLACK_NS;
	vs_snapshot_pair_other(&rt->pair);	/* what it read may be fed */
	vs_perf_ring_read(&rt->ring, on_record, args);
	rt->horizon = horizon;
	settle_wakeups(s, rt, false);
	if (!rt->ring.full)
		rt->overflow_since = 0;		/* no drop's LOST to come */
	else if (!rt->overflow_since)
		rt->overflow_since = rt->last_time ? rt->last_time : 1;
	for (first = tail = r->tail; tail < head; tail++)
		feed_task(s, rt, &r->slot[tail & (VS_RING_ENTRIES - 1)]);
	__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	read_counts(s, rt);
	/* every event read belongs to the open task only if none ended */
	if (head != __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
		return tail - first;
	feed_open_task(s, rt);
	if (rt->begun_seq)
		feed_until(s, rt, UINT64_MAX, true);
	return tail - first;
}

void vs_rthread_close(struct vs_session *s, struct vs_rthread *rt,
		      uint64_t time, bool exited)
{
	struct vs_acct_event ev = {
		.time = time, .tid = rt->tid,
		.kind = exited ? VS_ACCT_THREAD_EXIT : VS_ACCT_TRUNCATE,
	};

	vs_rthread_drain(s, rt);
	if (rt->slot) {
		if (!rt->bad)
			close_slot_task(s, rt, time, exited);
		close_fds(s, rt);
		free(rt);
		return;
	}
	settle_wakeups(s, rt, true);
	if (rt->overflow_since) {
		struct vs_acct_event lost = {
			.time = rt->overflow_since, .until = UINT64_MAX,
			.tid = rt->tid, .kind = VS_ACCT_LOST,
		};

		feed(s, &lost);
		s->stats.lost_uncounted++;
	}
	if (rt->begun_seq) {
		feed_until(s, rt, UINT64_MAX, true);
		if (time < s->last_time)
			ev.time = s->last_time;
	}
	feed(s, &ev);
	close_fds(s, rt);
	free(rt->queue.buf);
	free(rt->snaps.buf);
	free(rt->wakes);
	free(rt->waits);
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
