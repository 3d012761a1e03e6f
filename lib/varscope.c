// SPDX-License-Identifier: MIT
/*
 * varscope.c - libvarscope, the AppTask annotation library.
 *
 * Outside "varscope record" every entry point tests one global that the
 * constructor set from the environment and returns: a predictable branch.
 *
 * Under record (VARSCOPE_CTL set, see core/task-ring.h), each thread, at
 * its first selected vs_task_begin(), registers with the recorder over a
 * unix socket.  With the in-kernel engine (VS_REG_BPF_SLOT, the default:
 * core/record/task-slot.h) the reply brings the engine's slots map and the
 * thread's slot in it, and a memfd holding the thread's task ring; both are
 * mapped and their descriptors closed.  From then on:
 *
 *   begin (selected):   clock, count the task open in the map's header,
 *                       store the task's seq into the slot
 *   end:                store 0 into the slot, uncount, clock, read the
 *                       slot's values under its seqcount, push
 *                       {type, start, end, cpu, values} to the ring
 *
 * no system call either way: the BPF programs account the thread's kernel
 * events into the slot while it holds a task.  When the engine records
 * counters (VS_REG_COUNTERS), begin and end make one system call each,
 * BPF_PROG_TEST_RUN of the engine's mark program: the programs read the
 * counters at each switch and interrupt of the thread, but the begin and
 * end are stores they never see, and the counts between the thread's
 * last transition and either are the task's only from there.
 *
 * With --sample or a PMU the recorder opens the thread's perf events
 * instead (privilege stays there) and passes back two descriptors: the leader of the thread's
 * event group (writing its perf ring, read for its software counters),
 * and a memfd holding the thread's ring of finished tasks.  From then on:
 *
 *   begin (selected):   enable the group, clock
 *   end:                clock, disable the group, read its counters,
 *                       push {type, start, end, cpu, deltas} to the ring
 *
 * The software counters are members of the group: they count only while
 * it is enabled, inside selected tasks, and are read with the leader.  As
 * nothing counts between a selected task's disable and the next one's
 * enable, a task's deltas are its end read minus the previous end read
 * on the thread (0 before the first): one read(2) per task, none at begin.
 *
 * At --rate 1 the recorder sets VS_REG_PAUSE_GATE: the group is enabled
 * all along and the thread's ring, paused outside tasks, is the gate
 * (the kernel drops the records of a paused ring): a server's request
 * measured a fifth less CPU so than with the enable and disable
 * (bench/README), though an empty task's pair costs about the same:
 *
 *   begin:              resume the ring, read the counters (the base), clock
 *   end:                clock, pause the ring, read the counters, push
 *
 * With a hardware PMU the recorder passes a fourth descriptor, a socket
 * that brings the hardware counter group of each epoch: a begin that sees
 * the ring's hw_gen move takes the new group's leader from it (one
 * recvmsg, the group is already open), then begin and end read the group
 * too, bracketed by clock reads, and the task carries the deltas.  That
 * group counts all along (the recorder enables it, and the library never
 * touches its state): its deltas take both reads.
 *   begin (unselected): one draw of a thread-local PRNG, a TLS store
 *   attach, detach:     as begin and end, of an interval pushed with
 *                       VS_TASK_ATTACHED and the id of the task it served
 *
 * The group is disabled (or its ring paused) outside selected tasks, so
 * the kernel events of a thread that is not inside a selected task never
 * reach user space; with the group disabled, its context switches do not
 * schedule the events in and out either.
 * Nothing here locks or allocates once the thread is registered.  A full
 * task ring (a burst of short tasks faster than the recorder's drains, or
 * a recorder starved of CPU) makes vs_task_end() wait for room, sleeping
 * VS_RING_WAIT_STEP_NS at a time, at most VS_RING_WAIT_NS; a ring that
 * stayed full that long drops the task and counts it, and so does every
 * task after it, without a wait, until the recorder has emptied half of
 * the ring (a recorder that is gone costs one wait).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <varscope.h>

#include "core/task-ring.h"
#include "core/trace/trace.h"

#define VS_API __attribute__((visibility("default")))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

enum vs_thread_state { VS_T_NEW, VS_T_READY, VS_T_DISABLED };

/* One read of the hardware group, bracketed by clock reads. */
struct vs_hw_read {
	uint64_t before, after;
	uint64_t enabled, running;
	uint64_t value[VS_MAX_HW_COUNTERS];
};
enum vs_open { VS_OPEN_NONE, VS_OPEN_SELECTED, VS_OPEN_UNSELECTED };

struct vs_thread {
	enum vs_thread_state state;
	enum vs_open open;
	uint32_t type;			/* of the open task */
	uint64_t attach_id;		/* open is an attached interval: its task */
	uint32_t cpu;
	uint32_t seq;			/* selected tasks so far */
	uint32_t tid;			/* as the recorder knows it */
	uint32_t nr_counters;
	uint32_t counters_at;		/* in the group read, after nr */
	bool paused_ring;		/* --sample: pause the ring as well */
	bool ring_stalled;		/* a wait for room timed out */
	bool pause_gate;		/* VS_REG_PAUSE_GATE: the pause alone */
	uint64_t start;
	uint64_t rnd;			/* xorshift64* state, 0: unseeded */
	int ring_fd;
	struct vs_task_ring *ring;
	/* the counters at the last read: what the next deltas start from */
	uint64_t counters_base[VS_MAX_SW_COUNTERS];
	uint64_t scratch[VS_MAX_SW_COUNTERS];	/* deltas nobody takes */
	/* read(2) buffer, touched at registration: no page fault in a read */
	uint64_t group_read[VS_MAX_GROUP_READ];
	/* hardware counters: the socket, the group of generation hw_gen */
	int hw_sock, hw_fd;
	uint32_t hw_gen, hw_nr, hw_nr_read;	/* counters, members */
	bool hw_begun;			/* hw_begin holds the open task's read */
	struct vs_hw_read hw_begin;
	/* VS_REG_BPF_SLOT: the slots map, the thread's slot, the header */
	int mark_fd;			/* VS_REG_COUNTERS: the mark, or -1 */
	void *slots;
	struct vs_slot *slot;
	struct vs_slot_header *header;
};

#define VS_SLOTS_BYTES	((size_t)VS_SLOTS * sizeof(struct vs_slot))

/* Read once by the constructor; the only thing the off path touches. */
static int vs_on;
static uint64_t vs_select_below;	/* select when rnd < this */
static bool vs_select_all;
static char vs_sock_name[108];
static pthread_key_t vs_exit_key;

static __thread struct vs_thread vs_self
	__attribute__((tls_model("initial-exec")));

static uint64_t vs_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t vs_random(struct vs_thread *t)
{
	uint64_t x = t->rnd;

	if (unlikely(!x))
		x = (vs_now() ^ ((uint64_t)gettid() << 32) ^
		     (uintptr_t)t) | 1;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->rnd = x;
	return x * 0x2545f4914f6cdd1dull;
}

static bool vs_selected(struct vs_thread *t)
{
	return vs_select_all || vs_random(t) < vs_select_below;
}

static void vs_release(struct vs_thread *t)
{
	if (t->slots)
		munmap(t->slots, VS_SLOTS_BYTES);
	t->slots = NULL;
	t->slot = NULL;
	t->header = NULL;
	if (t->ring)
		munmap(t->ring, sizeof(*t->ring));
	if (t->ring_fd >= 0)
		close(t->ring_fd);
	if (t->hw_sock >= 0)
		close(t->hw_sock);
	if (t->hw_fd >= 0)
		close(t->hw_fd);
	if (t->mark_fd >= 0)
		close(t->mark_fd);
	t->ring = NULL;
	t->ring_fd = t->hw_sock = t->hw_fd = t->mark_fd = -1;
	t->hw_gen = 0;
}

/*
 * VS_REG_COUNTERS: the engine's program marks the begin or end of the
 * task open in the slot, on this CPU (see the top of this file).  A
 * failure leaves the task's counters unmarked: the recorder leaves them
 * out.
 */
static void vs_counters_mark(struct vs_thread *t)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = t->mark_fd;
	syscall(__NR_bpf, BPF_PROG_TEST_RUN, &attr, sizeof(attr));
}

/* The engine's stores that open and close a selected task. */
static void vs_slot_open(struct vs_thread *t)
{
	__atomic_fetch_add(&t->header->tasks_open, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&t->slot->active, t->seq, __ATOMIC_RELEASE);
	if (t->mark_fd >= 0)
		vs_counters_mark(t);
}

static void vs_slot_close(struct vs_thread *t)
{
	if (t->mark_fd >= 0)
		vs_counters_mark(t);
	__atomic_store_n(&t->slot->active, 0, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&t->header->tasks_open, 1, __ATOMIC_RELAXED);
}

static void vs_thread_exit(void *arg)
{
	struct vs_thread *t = &vs_self;

	(void)arg;
	/* the recorder ends the open task with the thread's exit */
	if (t->slot && t->open == VS_OPEN_SELECTED)
		__atomic_fetch_sub(&t->header->tasks_open, 1, __ATOMIC_RELAXED);
	vs_release(t);
	t->state = VS_T_DISABLED;
}

/* The child of fork() inherits the parent thread's registration: drop it. */
static void vs_atfork_child(void)
{
	struct vs_thread *t = &vs_self;

	if (t->state == VS_T_READY)
		vs_release(t);
	memset(t, 0, sizeof(*t));
	t->ring_fd = t->hw_sock = t->hw_fd = t->mark_fd = -1;
}

static int vs_recv_fds(int sock, struct vs_reg_reply *reply, int *fds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * VS_REG_MAX_FDS)];
	struct iovec iov = { reply, sizeof(*reply) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	ssize_t n;

	n = TEMP_FAILURE_RETRY(recvmsg(sock, &msg, MSG_CMSG_CLOEXEC));
	if (n != sizeof(*reply) || reply->magic != VS_REG_MAGIC)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (reply->status || !cmsg || cmsg->cmsg_type != SCM_RIGHTS ||
	    (reply->nr_fds != VS_REG_NR_FDS &&
	     reply->nr_fds != VS_REG_MAX_FDS) ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(int) * reply->nr_fds))
		return -1;
	memcpy(fds, CMSG_DATA(cmsg), sizeof(int) * reply->nr_fds);
	return 0;
}

/*
 * The calling thread vouches for the registration it sends on @sock
 * (vs_reg_vouch() of core/task-ring.h): its robust futex list names the
 * socket until vs_unvouch() puts back @saved, glibc's.  The kernel uses
 * that list only when the thread exits.
 */
#define VS_NOT_VOUCHED	((void *)-1)	/* no list of glibc's */

static void vs_vouch(int sock, void **saved)
{
	size_t len;
	struct stat st;

	/* a list it cannot read back (a seccomp filter) stays: refused */
	if (syscall(SYS_get_robust_list, 0, saved, &len) ||
	    fstat(sock, &st)) {
		*saved = VS_NOT_VOUCHED;
		return;
	}
	syscall(SYS_set_robust_list, vs_reg_vouch(st.st_ino),
		sizeof(struct robust_list_head));
}

static void vs_unvouch(void *saved)
{
	if (saved != VS_NOT_VOUCHED)
		syscall(SYS_set_robust_list, saved,
			sizeof(struct robust_list_head));
}

/*
 * One message on a new connection to the recorder's socket: the
 * connected socket (receive timeout 10 s), or -1.  With @vouch, the
 * thread vouches for it (vs_vouch(); the caller calls vs_unvouch(*vouch)
 * before it closes the socket).
 */
static int vs_send_to_recorder(const void *msg, size_t size, void **vouch)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 10 };
	size_t len = strlen(vs_sock_name);
	int sock;

	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return -1;
	memcpy(addr.sun_path + 1, vs_sock_name, len);
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (vouch)
		vs_vouch(sock, vouch);
	if (TEMP_FAILURE_RETRY(connect(sock, (struct sockaddr *)&addr,
				       offsetof(struct sockaddr_un, sun_path) +
				       1 + len)) ||
	    TEMP_FAILURE_RETRY(send(sock, msg, size, MSG_NOSIGNAL)) !=
	    (ssize_t)size) {
		if (vouch)
			vs_unvouch(*vouch);
		close(sock);
		return -1;
	}
	return sock;
}

/*
 * vs_register - get the calling thread's descriptors from the recorder.
 * Once per thread; blocks for the round trip (a few ms while the recorder
 * opens the events).  A signal that interrupts it (a program's interval
 * timer: a socket with a receive timeout is never restarted) does not
 * end it: each call is made again.  On any failure the thread stays
 * unrecorded.
 */
static bool vs_register(struct vs_thread *t)
{
	struct vs_reg_request req = { VS_REG_MAGIC, getpid(), gettid() };
	struct vs_reg_reply reply;
	int fds[VS_REG_MAX_FDS] = { -1, -1, -1 };
	void *ring, *robust;
	int sock, err;

	t->state = VS_T_DISABLED;
	t->ring_fd = t->hw_sock = t->hw_fd = t->mark_fd = -1;
	sock = vs_send_to_recorder(&req, sizeof(req), &robust);
	if (sock < 0)
		return false;
	err = vs_recv_fds(sock, &reply, fds);
	vs_unvouch(robust);
	close(sock);
	if (err)
		return false;
	ring = mmap(NULL, sizeof(struct vs_task_ring), PROT_READ | PROT_WRITE,
		    MAP_SHARED, fds[VS_REG_FD_TASKS], 0);
	close(fds[VS_REG_FD_TASKS]);
	t->ring_fd = fds[VS_REG_FD_RING];
	t->hw_sock = fds[VS_REG_FD_HW];
	if (ring != MAP_FAILED && (reply.flags & VS_REG_BPF_SLOT)) {
		/* the slots map: mapped, its descriptor not kept */
		t->slots = mmap(NULL, VS_SLOTS_BYTES, PROT_READ | PROT_WRITE,
				MAP_SHARED, t->ring_fd, 0);
		close(t->ring_fd);
		t->ring_fd = -1;
		if (t->slots == MAP_FAILED || !reply.slot ||
		    reply.slot >= VS_SLOTS) {
			if (t->slots == MAP_FAILED)
				t->slots = NULL;
			munmap(ring, sizeof(struct vs_task_ring));
			vs_release(t);
			return false;
		}
		t->slot = (struct vs_slot *)t->slots + reply.slot;
		t->header = t->slots;
		if (reply.flags & VS_REG_COUNTERS) {
			t->mark_fd = t->hw_sock;
			t->hw_sock = -1;
		}
	}
	if (ring == MAP_FAILED) {
		vs_release(t);
		return false;
	}
	t->ring = ring;
	memset(t->group_read, 0, sizeof(t->group_read));
	memset(t->counters_base, 0, sizeof(t->counters_base));
	t->paused_ring = reply.flags & VS_REG_PAUSED_RING;
	t->tid = reply.tid;
	t->pause_gate = reply.flags & VS_REG_PAUSE_GATE;
	if (reply.counters_at + reply.nr_counters < VS_MAX_GROUP_READ) {
		t->nr_counters = reply.nr_counters < VS_MAX_SW_COUNTERS ?
				 reply.nr_counters : VS_MAX_SW_COUNTERS;
		t->counters_at = reply.counters_at;
	}
	pthread_setspecific(vs_exit_key, t);
	/*
	 * The process's first clock read may fault in the vDSO's data page:
	 * not in a task's begin, between the counters' base and its start
	 * time, where the counters would count a fault outside the task.
	 */
	vs_now();
	t->state = VS_T_READY;
	return true;
}

static bool vs_ready(struct vs_thread *t)
{
	if (likely(t->state == VS_T_READY))
		return true;
	return t->state == VS_T_NEW && vs_register(t);
}

/*
 * One read(2) of the whole group, { nr, value[nr] }: the counters' deltas
 * since the last read into @delta, and the values read become the base of
 * the next.  Called at a task's end, after the disable or the pause (and
 * at begin too, under the pause gate): the deltas are
 * what the group counted while it was enabled, around this task's start
 * and end clock reads (the nested begin that keeps the group enabled
 * reads without a disable, and the next task counts from there).  A read
 * that fails gives zeros and leaves the base.
 */
static void vs_read_deltas(struct vs_thread *t, uint64_t *delta)
{
	const uint64_t *val = t->group_read + 1 + t->counters_at;
	ssize_t want = (1 + t->counters_at + t->nr_counters) * sizeof(uint64_t);
	uint32_t i;

	if (read(t->ring_fd, t->group_read, sizeof(t->group_read)) < want) {
		memset(delta, 0, t->nr_counters * sizeof(uint64_t));
		return;
	}
	for (i = 0; i < t->nr_counters; i++) {
		delta[i] = val[i] - t->counters_base[i];
		t->counters_base[i] = val[i];
	}
}

/*
 * The ring's hw_gen moved: take the groups waiting on the socket, keep
 * the last.  Called at a begin only, so a task reads one group.
 */
static void vs_hw_update(struct vs_thread *t)
{
	struct vs_hw_group grp;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &grp, sizeof(grp) };
	struct msghdr msg;
	struct cmsghdr *cmsg;
	int fd;

	if (__atomic_load_n(&t->ring->hw_gen, __ATOMIC_ACQUIRE) == t->hw_gen)
		return;
	for (;;) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		if (recvmsg(t->hw_sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) !=
		    sizeof(grp))
			return;
		cmsg = CMSG_FIRSTHDR(&msg);
		if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS ||
		    cmsg->cmsg_len != CMSG_LEN(sizeof(int)))
			continue;
		memcpy(&fd, CMSG_DATA(cmsg), sizeof(fd));
		if (t->hw_fd >= 0)
			close(t->hw_fd);
		t->hw_fd = fd;
		t->hw_gen = grp.gen;
		t->hw_nr_read = grp.nr_read;
		t->hw_nr = grp.nr <= VS_MAX_HW_COUNTERS &&
			   grp.nr <= grp.nr_read &&
			   grp.nr_read <= VS_MAX_HW_READ ? grp.nr : 0;
	}
}

/*
 * One read(2) of the hardware group (VS_PMU_READ_FORMAT: nr, enabled,
 * running, {value, id}[nr]), the counters first; false when it fails or
 * the group shrank.
 */
static bool vs_hw_read(struct vs_thread *t, struct vs_hw_read *r)
{
	uint64_t buf[3 + 2 * VS_MAX_HW_READ];
	ssize_t n;
	uint32_t i;

	r->before = vs_now();
	n = read(t->hw_fd, buf, sizeof(buf));
	r->after = vs_now();
	if (n < (ssize_t)((3 + 2 * t->hw_nr_read) * sizeof(uint64_t)) ||
	    buf[0] != t->hw_nr_read)
		return false;
	r->enabled = buf[1];
	r->running = buf[2];
	for (i = 0; i < t->hw_nr; i++)
		r->value[i] = buf[3 + 2 * i];
	return true;
}

/* The hardware part of a finished task's slot. */
static void vs_hw_push(struct vs_thread *t, const struct vs_hw_read *end,
		       bool have_end, struct vs_ring_task *slot)
{
	const struct vs_hw_read *b = &t->hw_begin;
	uint32_t i;

	slot->hw_gen = 0;
	if (!t->hw_begun || !have_end)
		return;
	slot->hw_gen = t->hw_gen;
	slot->hw_nr = t->hw_nr;
	slot->hw_clock[0] = b->before;
	slot->hw_clock[1] = b->after;
	slot->hw_clock[2] = end->before;
	slot->hw_clock[3] = end->after;
	slot->hw_enabled[0] = b->enabled;
	slot->hw_enabled[1] = end->enabled;
	slot->hw_running[0] = b->running;
	slot->hw_running[1] = end->running;
	for (i = 0; i < t->hw_nr; i++) {
		/* a value that went backwards: the group was reset */
		if (end->value[i] < b->value[i])
			slot->flags |= VS_TASK_DISTORTED;
		slot->hw[i] = end->value[i] >= b->value[i] ?
			      end->value[i] - b->value[i] : 0;
	}
}

/*
 * Disable (@pause) or enable the thread's event group: its leader.  The
 * ring's pause (--sample) goes outside, so that the counters, which count
 * from the enable to the disable, do not count it.  Under the pause gate
 * the group stays enabled and only the ring is paused or resumed.  False
 * when the descriptor is no perf event any more (see vs_lose_fds()).
 */
static bool vs_pause(struct vs_thread *t, int pause)
{
	int ret;

	if (t->slot)
		return true;
	if (t->pause_gate) {
		ret = ioctl(t->ring_fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause);
		return ret == 0 || (errno != EBADF && errno != ENOTTY);
	}
	if (t->paused_ring && !pause)
		ioctl(t->ring_fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
	ret = ioctl(t->ring_fd, pause ? PERF_EVENT_IOC_DISABLE :
					PERF_EVENT_IOC_ENABLE, 0);
	if (ret && (errno == EBADF || errno == ENOTTY))
		return false;
	if (t->paused_ring && pause)
		ioctl(t->ring_fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
	return true;
}

/*
 * The program closed the descriptors the recorder passed (a daemon that
 * closes every descriptor once it runs): their numbers may be its own
 * files now, so never touch them again (a read(2) would take its data).
 * Tell the recorder, through the ring, and record the thread no more.
 */
static void vs_lose_fds(struct vs_thread *t)
{
	__atomic_store_n(&t->ring->open, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&t->ring->fds_closed, 1, __ATOMIC_RELEASE);
	t->ring_fd = t->hw_sock = t->hw_fd = t->mark_fd = -1;
	vs_release(t);
	t->open = VS_OPEN_NONE;
	t->state = VS_T_DISABLED;
}

/* The thread's CPU time, the scheduler's sum_exec_runtime: 0 if none. */
static uint64_t vs_thread_cpu_time(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The engine's values of the task that ended at @end, into @v, read at
 * once after @end.  A wait still open in the slot is one whose switch-in
 * no program saw (see core/record/task-slot.h): it ended when the thread
 * began to run again, which its CPU time tells (one system call, in that
 * case only), less what it ran since @end (it has run all along).
 */
static void vs_slot_take(struct vs_thread *t, uint64_t end,
			 struct vs_slot_values *v, uint32_t *flags)
{
	struct vs_slot_open_wait wait;
	uint64_t wait_end, cpu, since_end;

	if (!vs_slot_read(t->slot, t->seq, v, &wait)) {
		*flags |= VS_TASK_DISTORTED;
		return;
	}
	if (wait.task != t->seq || !wait.since)
		return;
	cpu = vs_thread_cpu_time();
	since_end = vs_now() - end;
	if (cpu < since_end)
		return;
	wait_end = vs_slot_wait_end(&wait, end, cpu - since_end);
	if (!wait_end)
		return;
	vs_slot_add_wait(v, &wait, wait_end - wait.since);
	v->unseen_switch_ins++;
}

#define VS_RING_WAIT_NS		100000000ull	/* 100 ms */
#define VS_RING_WAIT_STEP_NS	100000l		/* 100 us */

/*
 * Whether @ring has room for the entry at @head, waiting for the recorder
 * to drain a full one (see the top of this file).  The task is already
 * closed: the wait is outside its latency.
 */
static bool vs_ring_room(struct vs_thread *t, struct vs_task_ring *ring,
			 uint64_t head)
{
	const struct timespec step = { 0, VS_RING_WAIT_STEP_NS };
	uint64_t tail, waited;

	tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
	if (t->ring_stalled && head - tail <= VS_RING_ENTRIES / 2)
		t->ring_stalled = false;
	if (head - tail < VS_RING_ENTRIES)
		return true;
	if (t->ring_stalled)
		return false;
	for (waited = 0; waited < VS_RING_WAIT_NS;
	     waited += VS_RING_WAIT_STEP_NS) {
		nanosleep(&step, NULL);
		tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
		if (head - tail < VS_RING_ENTRIES)
			return true;
	}
	t->ring_stalled = true;
	return false;
}

/* Close the open selected task: clock, disable, counters, push. */
static void vs_finish(struct vs_thread *t, uint32_t flags, bool pause)
{
	struct vs_task_ring *ring = t->ring;
	uint64_t counters[VS_MAX_SW_COUNTERS];
	uint64_t end, head;
	struct vs_ring_task *slot;
	struct vs_slot_values kernel;
	uint32_t kernel_flags = 0;
	struct vs_hw_read hw;
	bool have_hw = false;

	if (t->slot)
		vs_slot_close(t);
	end = vs_now();
	if (t->slot)
		vs_slot_take(t, end, &kernel, &kernel_flags);
	if (t->hw_begun)
		have_hw = vs_hw_read(t, &hw);
	/*
	 * After the pause or disable, whose failure says the descriptor is
	 * no longer ours: a read(2) of it would take the program's data
	 */
	if (pause && !vs_pause(t, 1)) {
		vs_lose_fds(t);
		return;
	}
	if (t->nr_counters)
		vs_read_deltas(t, counters);
	__atomic_store_n(&ring->open, 0, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	t->open = VS_OPEN_NONE;

	head = ring->head;
	if (!vs_ring_room(t, ring, head)) {
		__atomic_store_n(&ring->dropped, ring->dropped + 1,
				 __ATOMIC_RELAXED);
		return;
	}
	slot = &ring->slot[head & (VS_RING_ENTRIES - 1)];
	slot->start = t->start;
	slot->end = end;
	slot->type = t->type;
	slot->flags = flags;
	slot->cpu = t->cpu;
	slot->seq = t->seq;
	slot->attach_id = t->attach_id;
	if (t->attach_id)
		slot->flags |= VS_TASK_ATTACHED;
	slot->nr_counters = t->nr_counters;
	memcpy(slot->counters, counters, t->nr_counters * sizeof(*counters));
	vs_hw_push(t, &hw, have_hw, slot);
	if (t->slot) {
		slot->kernel = kernel;
		slot->flags |= kernel_flags;
	}
	__atomic_store_n(&ring->head, head + 1, __ATOMIC_RELEASE);
}

/*
 * Open a task of @type, or with @attach_id an attached interval (always
 * selected: the task it serves was).
 */
static void vs_begin(uint32_t type, uint64_t attach_id)
{
	struct vs_thread *t = &vs_self;
	bool selected = attach_id || vs_selected(t);
	bool running = false;	/* the perf ring is resumed */
	struct vs_task_ring *ring;

	if (t->open == VS_OPEN_SELECTED) {
		vs_finish(t, VS_TASK_NESTED_BEGIN, !selected);
		running = selected;
	}
	t->type = type;
	t->attach_id = attach_id;
	t->open = VS_OPEN_UNSELECTED;
	if (!selected || !vs_ready(t))
		return;
	ring = t->ring;
	if (!running) {
		if (!vs_pause(t, 0)) {
			vs_lose_fds(t);
			return;
		}
		/* the group counted since the last read: a new base */
		if (t->pause_gate && t->nr_counters)
			vs_read_deltas(t, t->scratch);
	}
	if (t->hw_sock >= 0)
		vs_hw_update(t);
	t->hw_begun = t->hw_fd >= 0 && vs_hw_read(t, &t->hw_begin);
	t->start = vs_now();
	t->cpu = sched_getcpu();
	if (!++t->seq)		/* 0 means no task to the engine */
		t->seq = 1;
	if (t->slot)
		vs_slot_open(t);
	t->open = VS_OPEN_SELECTED;
	ring->open_type = type;
	ring->open_cpu = t->cpu;
	ring->open_start = t->start;
	ring->open_attach_id = attach_id;
	__atomic_store_n(&ring->open, t->seq, __ATOMIC_RELEASE);
}

/* @attached: vs_task_detach(), which closes only an attached interval */
static void vs_end(uint32_t type, bool attached)
{
	struct vs_thread *t = &vs_self;
	enum vs_open open = t->open;

	if (attached != !!t->attach_id)
		open = VS_OPEN_NONE;	/* detach of a task, end of an attach */
	switch (open) {
	case VS_OPEN_SELECTED:
		vs_finish(t, type == t->type ? 0 : VS_TASK_UNMATCHED_END, true);
		break;
	case VS_OPEN_UNSELECTED:
		t->open = VS_OPEN_NONE;
		break;
	case VS_OPEN_NONE:
		/* Counted, then ignored; registering makes it countable. */
		if (vs_ready(t))
			__atomic_store_n(&t->ring->unmatched_ends,
					 t->ring->unmatched_ends + 1,
					 __ATOMIC_RELAXED);
		break;
	}
}

VS_API void vs_task_begin(uint32_t type)
{
	if (likely(!vs_on))
		return;
	vs_begin(type, 0);
}

VS_API void vs_task_end(uint32_t type)
{
	if (likely(!vs_on))
		return;
	vs_end(type, false);
}

VS_API uint64_t vs_task_id(void)
{
	struct vs_thread *t = &vs_self;

	if (likely(!vs_on) || t->open != VS_OPEN_SELECTED)
		return 0;
	if (t->attach_id)
		return t->attach_id;
	return (uint64_t)t->tid << 32 | t->seq;
}

/*
 * An attached interval is a task of type 0 on this thread, flagged
 * VS_TASK_ATTACHED with the id it serves; the recorder writes it with
 * VS_REC_ATTACH records and the analysis adds it to that task.  Attach to
 * id 0 (a vs_task_id() of an unselected task) does nothing.
 */
VS_API void vs_task_attach(uint64_t id)
{
	if (likely(!vs_on) || !id)
		return;
	vs_begin(0, id);
}

VS_API void vs_task_detach(void)
{
	if (likely(!vs_on))
		return;
	vs_end(0, true);
}

/* The last names sent: the same call again sends nothing. */
#define VS_NAMES_SENT	64

static struct vs_type_name_msg vs_names_sent[VS_NAMES_SENT];
static unsigned int vs_nr_names_sent;
static pthread_mutex_t vs_names_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether @msg went out already; if not, it is noted as sent. */
static bool vs_name_sent(const struct vs_type_name_msg *msg)
{
	unsigned int i, n;
	bool sent = false;

	pthread_mutex_lock(&vs_names_lock);
	n = vs_nr_names_sent < VS_NAMES_SENT ? vs_nr_names_sent :
					       VS_NAMES_SENT;
	for (i = 0; i < n && !sent; i++)
		sent = !memcmp(&vs_names_sent[i], msg, sizeof(*msg));
	if (!sent)
		vs_names_sent[vs_nr_names_sent++ % VS_NAMES_SENT] = *msg;
	pthread_mutex_unlock(&vs_names_lock);
	return sent;
}

/*
 * One message to the recorder, which checks the name and writes it into
 * the trace; nothing comes back.  Any thread, any time: the type's tasks
 * need not have begun.  A call like one of the last 64 sends nothing, so
 * a program may name the type where it handles each request.
 */
VS_API void vs_task_type_name(uint32_t type, const char *name)
{
	struct vs_type_name_msg msg = { VS_NAME_MAGIC, type, { 0 } };
	int sock;

	if (likely(!vs_on) || !name)
		return;
	memcpy(msg.name, name, strnlen(name, sizeof(msg.name)));
	if (vs_name_sent(&msg))
		return;
	sock = vs_send_to_recorder(&msg, sizeof(msg), NULL);
	if (sock >= 0)
		close(sock);
}

/*
 * vs_parse_ctl - "v1,rate=R,sock=NAME" into the globals; false if
 * malformed, and then the library stays off.
 */
static bool vs_parse_ctl(const char *ctl)
{
	char buf[256], *save = NULL, *tok;
	double rate = 1.0;
	bool have_sock = false;

	if (strlen(ctl) >= sizeof(buf))
		return false;
	strcpy(buf, ctl);
	tok = strtok_r(buf, ",", &save);
	if (!tok || strcmp(tok, VS_CTL_VERSION))
		return false;
	while ((tok = strtok_r(NULL, ",", &save))) {
		if (!strncmp(tok, "rate=", 5)) {
			char *end;

			rate = strtod(tok + 5, &end);
			if (*end || !(rate > 0 && rate <= 1))
				return false;
		} else if (!strncmp(tok, "sock=", 5)) {
			if (strlen(tok + 5) >= sizeof(vs_sock_name) - 1)
				return false;
			strcpy(vs_sock_name, tok + 5);
			have_sock = true;
		}
	}
	vs_select_all = rate >= 1.0;
	/* rate * 2^64, below 2^64 when the rate is below 1 */
	vs_select_below = vs_select_all ? 0 : (uint64_t)(rate * 18446744073709551616.0);
	return have_sock;
}

/*
 * The first constructor of the program (the lowest priority a program may
 * take): linked statically, the library's constructor would otherwise run
 * after those of the objects before it on the link line, and a task begun
 * in one of them, or in a thread it starts, would be lost.
 */
__attribute__((constructor(101))) static void vs_init(void)
{
	const char *ctl = getenv(VS_CTL_ENV);

	if (!ctl || !vs_parse_ctl(ctl))
		return;
	if (pthread_key_create(&vs_exit_key, vs_thread_exit) ||
	    pthread_atfork(NULL, NULL, vs_atfork_child))
		return;
	vs_on = 1;
}
