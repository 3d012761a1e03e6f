// SPDX-License-Identifier: MIT
/*
 * varscope.c - libvarscope, the AppTask annotation library.
 *
 * Outside "varscope record" every entry point tests one global that the
 * constructor set from the environment and returns: a predictable branch.
 *
 * Under record (VARSCOPE_CTL set, see core/record/task-ring.h), each thread, at
 * its first selected vs_task_begin(), registers with the recorder over a
 * unix socket.  The reply brings the in-kernel engine's slots map
 * (core/record/task-slot.h) and the thread's slot in it, and a memfd
 * holding the thread's task ring; both are mapped and their descriptors
 * closed.  From then on:
 *
 *   begin (selected):   clock, count the task open in the map's header,
 *                       store the task's seq into the slot
 *   end:                store 0 into the slot, uncount, clock, read the
 *                       slot's values under its seqcount, push
 *                       {type, start, end, cpu, values} to the ring
 *   begin (unselected): one draw of a thread-local PRNG, a TLS store
 *   attach, detach:     as begin and end, of an interval pushed with
 *                       VS_TASK_ATTACHED and the id of the task it served
 *
 * no system call either way: the BPF programs account the thread's kernel
 * events into the slot while it holds a task, and return at once for a
 * thread that holds none.  When the engine records counters
 * (VS_REG_COUNTERS), begin and end make one system call each,
 * BPF_PROG_TEST_RUN of the engine's mark program, the one descriptor the
 * library keeps: the programs read the counters at each switch and
 * interrupt of the thread, but the begin and end are stores they never
 * see, and the counts between the thread's last transition and either
 * are the task's only from there.
 *
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
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/futex.h>
#include <varscope.h>

#include "core/record/task-ring.h"
#include "core/trace/trace.h"

#define VS_API __attribute__((visibility("default")))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

enum vs_thread_state { VS_T_NEW, VS_T_READY, VS_T_DISABLED };

enum vs_open { VS_OPEN_NONE, VS_OPEN_SELECTED, VS_OPEN_UNSELECTED };

struct vs_thread {
	enum vs_thread_state state;
	enum vs_open open;
	uint32_t type;			/* of the open task */
	uint64_t attach_id;		/* open is an attached interval: its task */
	uint32_t cpu;
	uint32_t seq;			/* selected tasks so far */
	uint32_t tid;			/* as the recorder knows it */
	bool ring_stalled;		/* a wait for room timed out */
	uint64_t start;
	uint64_t rnd;			/* xorshift64* state, 0: unseeded */
	struct vs_task_ring *ring;
	/* the slots map, the thread's slot, the map's header */
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
/*
 * tests only (DEVELOPERS.md): off the CPU this long after a task's end,
 * and asleep this long before its close, after the reading of its open wait
 */
static struct timespec vs_test_off_cpu, vs_test_wait_before_close;
/* and busy this long before a begin's mark and after an end's */
static uint64_t vs_test_spin_at_mark;
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
	if (t->mark_fd >= 0)
		close(t->mark_fd);
	t->ring = NULL;
	t->mark_fd = -1;
}

/*
 * VS_REG_COUNTERS: the engine's program marks the begin (@what
 * VS_MARK_BEGIN: it opens the slot) or the end (VS_MARK_END: it closes
 * it) of the thread's task, on this CPU (see the top of this file and
 * core/record/task-slot.h).  Returns the mark's time, the task's start or
 * end, so that no time is in the task's latency and outside its counters
 * (a system call's entry or exit, where a host may take the CPU); 0 when
 * no mark was made, which leaves the task's counters unmarked: the
 * recorder leaves them out.
 */
static uint64_t vs_counters_mark(struct vs_thread *t, uint64_t what)
{
	uint64_t ctx[2] = { what, t->seq }, before = vs_now();
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = t->mark_fd;
	attr.test.ctx_in = (uint64_t)(uintptr_t)ctx;
	attr.test.ctx_size_in = sizeof(ctx);
	if (syscall(__NR_bpf, BPF_PROG_TEST_RUN, &attr, sizeof(attr)) ||
	    !attr.test.retval)
		return 0;
	/* the low 32 bits of a time within 2 s of @before */
	return before + (int32_t)(attr.test.retval - (uint32_t)before);
}

/* tests only: busy for vs_test_spin_at_mark ns */
static void vs_test_spin(void)
{
	uint64_t end;

	if (!vs_test_spin_at_mark)
		return;
	end = vs_now() + vs_test_spin_at_mark;
	while (vs_now() < end)
		;
}

/*
 * The engine's stores that open and close a selected task, at its start
 * (into @t->start) and its end (returned).
 */
static void vs_slot_open(struct vs_thread *t)
{
	__atomic_fetch_add(&t->header->tasks_open, 1, __ATOMIC_RELAXED);
	if (t->mark_fd >= 0) {
		vs_test_spin();
		t->start = vs_counters_mark(t, VS_MARK_BEGIN);
		if (t->start)
			return;
	}
	t->start = vs_now();
	__atomic_store_n(&t->slot->active, t->seq, __ATOMIC_RELEASE);
}

static uint64_t vs_slot_close(struct vs_thread *t)
{
	uint64_t end = 0;

	if (t->mark_fd >= 0) {
		end = vs_counters_mark(t, VS_MARK_END);
		vs_test_spin();
	}
	if (!end) {
		__atomic_store_n(&t->slot->active, 0, __ATOMIC_RELEASE);
		end = vs_now();
	}
	__atomic_fetch_sub(&t->header->tasks_open, 1, __ATOMIC_RELAXED);
	return end;
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
	t->mark_fd = -1;
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
 * (vs_reg_vouch() of core/record/task-ring.h): its robust futex list names the
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
 * Once per thread; blocks for the round trip (the recorder takes a slot
 * and makes the task ring).  A signal that interrupts it (a program's interval
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
	t->mark_fd = -1;
	sock = vs_send_to_recorder(&req, sizeof(req), &robust);
	if (sock < 0)
		return false;
	err = vs_recv_fds(sock, &reply, fds);
	vs_unvouch(robust);
	close(sock);
	if (err)
		return false;
	if (reply.flags & VS_REG_COUNTERS && reply.nr_fds == VS_REG_MAX_FDS)
		t->mark_fd = fds[VS_REG_FD_MARK];
	else if (reply.nr_fds == VS_REG_MAX_FDS)
		close(fds[VS_REG_FD_MARK]);
	/* both mapped, their descriptors not kept */
	ring = mmap(NULL, sizeof(struct vs_task_ring), PROT_READ | PROT_WRITE,
		    MAP_SHARED, fds[VS_REG_FD_TASKS], 0);
	close(fds[VS_REG_FD_TASKS]);
	t->slots = mmap(NULL, VS_SLOTS_BYTES, PROT_READ | PROT_WRITE,
			MAP_SHARED, fds[VS_REG_FD_SLOTS], 0);
	close(fds[VS_REG_FD_SLOTS]);
	if (t->slots == MAP_FAILED)
		t->slots = NULL;
	if (ring != MAP_FAILED)
		t->ring = ring;
	if (!t->slots || !t->ring || !reply.slot || reply.slot >= VS_SLOTS) {
		vs_release(t);
		return false;
	}
	t->slot = (struct vs_slot *)t->slots + reply.slot;
	t->header = t->slots;
	t->tid = reply.tid;
	pthread_setspecific(vs_exit_key, t);
	/*
	 * The process's first clock read may fault in the vDSO's data page:
	 * not in a task's begin, where the engine would count a fault the
	 * task did not make.
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

/* The thread's CPU time, the scheduler's sum_exec_runtime: 0 if none. */
static uint64_t vs_thread_cpu_time(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The thread's CPU time @cpu read at @now, for the open wait of @since. */
struct vs_unseen_end {
	uint64_t since, now, cpu;
};

/*
 * A wait still open in the slot while the task runs is one whose
 * switch-in no program saw (see core/record/task-slot.h): it ended when
 * the thread began to run again, which its CPU time tells.  Read before
 * the task ends, the thread on the CPU (one system call, in that case
 * only): after the end, the thread may be preempted unseen before it
 * reads it.  Read again at once after the close: the reading's system
 * call is where a loaded machine preempts the thread, opening a new wait
 * whose switch-in may go unseen too.  @u (zeros at first) is left as it
 * is when no wait is open or the one it holds still is.
 */
static void vs_slot_unseen_end(struct vs_thread *t, struct vs_unseen_end *u)
{
	const struct vs_slot *s = t->slot;
	uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	uint64_t since = 0;

	if (!(seq & 1) &&
	    __atomic_load_n(&s->values_of, __ATOMIC_RELAXED) == t->seq &&
	    __atomic_load_n(&s->wait.task, __ATOMIC_RELAXED) == t->seq)
		since = __atomic_load_n(&s->wait.since, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (!since || since == u->since ||
	    __atomic_load_n(&s->seq, __ATOMIC_RELAXED) != seq)
		return;
	u->cpu = vs_thread_cpu_time();
	u->now = vs_now();
	u->since = since;
}

/*
 * The engine's values of the task that ended at @end, into @v.  A wait
 * still open in the slot ends where its reading in @u says, by @end at
 * the latest (a preemption after the close, which no program sees, is
 * outside the CPU time); one @u does not hold (a slot that would not hold
 * still for the reading) leaves the task DISTORTED.
 */
static void vs_slot_take(struct vs_thread *t, uint64_t end,
			 const struct vs_unseen_end *u,
			 struct vs_slot_values *v, uint32_t *flags)
{
	struct vs_slot_open_wait wait;
	uint64_t wait_end;

	if (!vs_slot_read(t->slot, t->seq, v, &wait)) {
		*flags |= VS_TASK_DISTORTED;
		return;
	}
	if (wait.task != t->seq || !wait.since)
		return;
	if (wait.since != u->since) {
		*flags |= VS_TASK_DISTORTED;
		return;
	}
	wait_end = vs_slot_wait_end(&wait, u->now, u->cpu);
	if (wait_end > end)
		wait_end = end;
	if (wait_end > wait.since)
		vs_slot_add_unseen_wait(v, &wait, wait_end);
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

/* Close the open selected task: close the slot, clock, values, push. */
static void vs_finish(struct vs_thread *t, uint32_t flags)
{
	struct vs_task_ring *ring = t->ring;
	uint64_t end, head;
	struct vs_ring_task *slot;
	struct vs_slot_values kernel;
	struct vs_unseen_end unseen = { 0 };
	uint32_t kernel_flags = 0;

	vs_slot_unseen_end(t, &unseen);
	if (vs_test_wait_before_close.tv_nsec)
		nanosleep(&vs_test_wait_before_close, NULL);
	end = vs_slot_close(t);
	vs_slot_unseen_end(t, &unseen);
	if (vs_test_off_cpu.tv_nsec)
		nanosleep(&vs_test_off_cpu, NULL);
	vs_slot_take(t, end, &unseen, &kernel, &kernel_flags);
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
	slot->flags = flags | kernel_flags;
	slot->cpu = t->cpu;
	slot->seq = t->seq;
	slot->attach_id = t->attach_id;
	if (t->attach_id)
		slot->flags |= VS_TASK_ATTACHED;
	slot->kernel = kernel;
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
	struct vs_task_ring *ring;

	if (t->open == VS_OPEN_SELECTED)
		vs_finish(t, VS_TASK_NESTED_BEGIN);
	t->type = type;
	t->attach_id = attach_id;
	t->open = VS_OPEN_UNSELECTED;
	if (!selected || !vs_ready(t))
		return;
	ring = t->ring;
	t->cpu = sched_getcpu();
	if (!++t->seq)		/* 0 means no task to the engine */
		t->seq = 1;
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
		vs_finish(t, type == t->type ? 0 : VS_TASK_UNMATCHED_END);
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

/* tests only: the microseconds in variable @name, under a second, in ns */
static long vs_test_ns(const char *name)
{
	const char *us = getenv(name);

	return us ? strtoul(us, NULL, 10) % 1000000 * 1000 : 0;
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
	vs_test_off_cpu.tv_nsec = vs_test_ns("VARSCOPE_TEST_OFF_CPU_AT_END");
	vs_test_spin_at_mark = vs_test_ns("VARSCOPE_TEST_SPIN_AT_MARK");
	vs_test_wait_before_close.tv_nsec =
		vs_test_ns("VARSCOPE_TEST_WAIT_BEFORE_CLOSE");
	if (pthread_key_create(&vs_exit_key, vs_thread_exit) ||
	    pthread_atfork(NULL, NULL, vs_atfork_child))
		return;
	vs_on = 1;
}
