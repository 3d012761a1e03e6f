// SPDX-License-Identifier: MIT
/*
 * syscall-trace.c - raw_syscalls:sys_enter/sys_exit on a process tree.
 *
 * Per CPU, sys_enter and sys_exit are opened on the process with inherit
 * (so threads and children follow), each on its own - never in a group,
 * whose members may deliver nothing - and sys_exit's output is redirected
 * into sys_enter's ring with PERF_EVENT_IOC_SET_OUTPUT.  sys_enter also
 * carries the side band.  Times are CLOCK_MONOTONIC, the clock of every
 * other varscope event (with perf's default, local_clock, a --syscalls
 * trace would have two clocks).  A read drains every ring (core/perf-ring.h's
 * reader) into a copy, after the records the last read kept, then hands
 * the events over merged by time up to a cut a moment before the read
 * began, and keeps the younger ones: so mmap and fork records come before
 * the samples they symbolize whatever CPU they were written on, even when
 * the sample was drained in an earlier read.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "core/arch.h"
#include "core/array.h"
#include "core/perf-ring.h"
#include "core/signature/syscall-trace.h"
#include "core/trace/trace.h"
#include "core/uprobe.h"

#define MAX_STACK	64	/* user frames */

#define ENTER_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)
#define CHAIN_TYPE	(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | \
			 PERF_SAMPLE_STACK_USER)

struct ring {
	struct vs_perf_ring perf;	/* a sys_enter's, fd and ring */
	uint8_t *copy;			/* drained records not handed over */
	size_t copy_len, copy_cap, pos;
};

/* What the samples of one perf event are. */
struct event_id {
	uint64_t id;			/* perf id, 0: free slot */
	enum vs_sc_type type;		/* VS_SC_ENTER, _EXIT or _PROBE */
	uint32_t cookie;		/* of a probe */
	bool ret;
};

/* A thread's call in progress, as it entered (opts.long_calls). */
struct long_call {
	uint32_t tid;			/* 0: a free slot */
	uint32_t pid, cpu;
	bool on;
	uint16_t nr;
	uint64_t enter, ip, regs_mask;
	uint32_t nr_regs, nr_stack;	/* registers, stack words */
	uint64_t regs[32];
	uint64_t *stack;		/* vs_sc_stack_size() bytes */
};

struct vs_syscall_trace {
	struct vs_sc_opts opts;
	struct long_call *calls;	/* open addressing by tid */
	size_t calls_mask, nr_calls;
	uint64_t last_time;		/* of the events handed over */
	struct perf_event_attr enter, exit;	/* of every ring's events */
	int nr_cpus;
	struct ring *rings;
	struct event_id *events;	/* open addressing by perf id */
	size_t nr_events, event_mask;
	int *fds;			/* redirected into the rings: */
	size_t nr_fds, cap_fds;		/* threads added, probes */
	struct tracefs_dynevent **probe_events;	/* removed after the fds */
	size_t nr_probe_events, cap_probe_events;
};

static int tracepoint_id(const char *name, char *err, size_t errlen)
{
	const char *dir = tracefs_tracing_dir();
	char path[512], buf[32];
	int fd, n;

	if (!dir) {
		snprintf(err, errlen, "no tracefs (mount -t tracefs nodev "
			 "/sys/kernel/tracing)");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events/%s/id", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	return atoi(buf);
}

/*
 * The slot of @id in the open-addressing table @tab of @mask + 1 slots:
 * where it is, or the free slot where it goes.
 */
static size_t event_slot(const struct event_id *tab, size_t mask, uint64_t id)
{
	size_t h;

	for (h = (id * 0x9e3779b97f4a7c15ull) >> 20 & mask;
	     tab[h].id && tab[h].id != id; h = (h + 1) & mask)
		;
	return h;
}

static int add_event_id(struct vs_syscall_trace *t, uint64_t id,
			enum vs_sc_type type, uint32_t cookie, bool ret)
{
	size_t i;

	if (2 * (t->nr_events + 1) > t->event_mask + 1) {
		size_t size = t->event_mask ? 2 * (t->event_mask + 1) : 256;
		struct event_id *old = t->events, *tab;

		tab = calloc(size, sizeof(*tab));
		if (!tab)
			return -1;
		t->events = tab;
		for (i = 0; old && i <= t->event_mask; i++)
			if (old[i].id)
				tab[event_slot(tab, size - 1, old[i].id)] = old[i];
		free(old);
		t->event_mask = size - 1;
	}
	t->events[event_slot(t->events, t->event_mask, id)] =
		(struct event_id){ id, type, cookie, ret };
	t->nr_events++;
	return 0;
}

/*
 * Keep @fd, an event whose output goes into the ring of @cpu, and note
 * what its samples are; -1 with errno set (@fd closed).
 */
static int add_event(struct vs_syscall_trace *t, int fd, int cpu,
		     enum vs_sc_type type, uint32_t cookie, bool ret)
{
	uint64_t id;

	if (ALLOC_GROW(t->fds, t->nr_fds + 1, t->cap_fds)) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	t->fds[t->nr_fds++] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, t->rings[cpu].perf.fd) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return -1;
	if (add_event_id(t, id, type, cookie, ret) < 0) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/*
 * Open sys_enter and sys_exit on @pid and @cpu: the first sys_enter of
 * @cpu owns its ring, every other event writes into it.
 */
static int open_events(struct vs_syscall_trace *t, pid_t pid, int cpu,
		       char *err, size_t errlen)
{
	struct ring *r = &t->rings[cpu];
	uint64_t id;
	int fd, e;

	fd = vs_perf_open(&t->enter, pid, cpu, -1);
	if (fd < 0)
		goto fail;
	if (r->perf.fd >= 0) {
		if (add_event(t, fd, cpu, VS_SC_ENTER, 0, false) < 0)
			goto fail;
	} else if (vs_perf_ring_mmap(&r->perf, fd, t->opts.pages) < 0 ||
		   ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0 ||
		   add_event_id(t, id, VS_SC_ENTER, 0, false) < 0) {
		goto fail;
	}
	fd = vs_perf_open(&t->exit, pid, cpu, -1);
	if (fd < 0 || add_event(t, fd, cpu, VS_SC_EXIT, 0, false) < 0)
		goto fail;
	return 0;
fail:
	e = errno;
	snprintf(err, errlen, "raw_syscalls of %d on cpu %d: %s", (int)pid,
		 cpu, strerror(e));
	errno = e;
	return -1;
}

struct vs_syscall_trace *vs_syscall_trace_open(pid_t pid, bool enable_now,
					       const struct vs_sc_opts *opts,
					       char *err, size_t errlen)
{
	struct vs_syscall_trace *t = calloc(1, sizeof(*t));
	struct perf_event_attr *enter, *exit;
	int enter_tp, exit_tp, cpu;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->opts = *opts;
	if (!t->opts.pages)
		t->opts.pages = 256;
	enter_tp = tracepoint_id("raw_syscalls/sys_enter", err, errlen);
	exit_tp = tracepoint_id("raw_syscalls/sys_exit", err, errlen);
	if (enter_tp < 0 || exit_tp < 0)
		goto fail;

	enter = &t->enter;
	exit = &t->exit;
	enter->type = exit->type = PERF_TYPE_TRACEPOINT;
	enter->config = enter_tp;
	exit->config = exit_tp;
	enter->sample_period = exit->sample_period = 1;
	enter->sample_type = ENTER_TYPE | (opts->callchain ? CHAIN_TYPE : 0);
	exit->sample_type = ENTER_TYPE;
	enter->inherit = exit->inherit = 1;
	enter->use_clockid = exit->use_clockid = 1;
	enter->clockid = exit->clockid = CLOCK_MONOTONIC;
	enter->disabled = exit->disabled = !enable_now;
	enter->enable_on_exec = exit->enable_on_exec = !enable_now;
	enter->sample_id_all = exit->sample_id_all = 1;
	enter->mmap = enter->comm = enter->task = opts->sideband;
	enter->context_switch = opts->switches;
	enter->watermark = 1;
	enter->wakeup_watermark = t->opts.pages * 4096 / 4;
	if (opts->callchain) {
		enter->exclude_callchain_kernel = 1;
		enter->sample_max_stack = MAX_STACK;
		enter->sample_regs_user = vs_arch_regs_user_mask;
		enter->sample_stack_user = vs_sc_stack_size(opts);
	}

	t->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	t->rings = calloc(t->nr_cpus, sizeof(*t->rings));
	if (!t->rings) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (cpu = 0; cpu < t->nr_cpus; cpu++)
		t->rings[cpu].perf.fd = -1;
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		if (open_events(t, pid, cpu, err, errlen) == 0)
			continue;
		if (errno == ENODEV && t->rings[cpu].perf.fd < 0)
			continue;	/* CPU offline */
		goto fail;
	}
	return t;
fail:
	vs_syscall_trace_close(t);
	return NULL;
}

int vs_syscall_trace_add_thread(struct vs_syscall_trace *t, pid_t tid,
				char *err, size_t errlen)
{
	int cpu;

	for (cpu = 0; cpu < t->nr_cpus; cpu++)
		if (t->rings[cpu].perf.fd >= 0 &&
		    open_events(t, tid, cpu, err, errlen))
			return -1;
	return 0;
}

int vs_syscall_trace_add_probe(struct vs_syscall_trace *t, const char *path,
			       uint64_t offset, bool ret, uint32_t cookie,
			       char *err, size_t errlen)
{
	struct perf_event_attr attr = { 0 };
	struct vs_func_probe fp = { .offset = offset };
	struct tracefs_dynevent *dyn;
	char system[64], event[64];
	int cpu, fd, tp;

	if (!t->nr_probe_events)
		vs_uprobe_remove_stale(VS_UPROBE_GROUP);
	if (ALLOC_GROW(t->probe_events, t->nr_probe_events + 1,
		       t->cap_probe_events)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(fp.symbol, sizeof(fp.symbol), "0x%llx",
		 (unsigned long long)offset);
	snprintf(fp.binary, sizeof(fp.binary), "%s", path);
	snprintf(system, sizeof(system), VS_UPROBE_GROUP "%d", getpid());
	snprintf(event, sizeof(event), "s%u_%s", cookie,
		 ret ? "return" : "entry");
	tp = vs_uprobe_create(&fp, ret, system, event, &dyn, err, errlen);
	if (tp < 0)
		return -1;
	t->probe_events[t->nr_probe_events++] = dyn;
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = tp;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	attr.sample_id_all = 1;
	attr.use_clockid = 1;	/* the ring's clock: SET_OUTPUT wants one */
	attr.clockid = CLOCK_MONOTONIC;
	/* CPU-wide: hits of other processes are for the caller to drop */
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		if (t->rings[cpu].perf.fd < 0)
			continue;
		fd = vs_perf_open(&attr, -1, cpu, -1);
		if (fd < 0 ||
		    add_event(t, fd, cpu, VS_SC_PROBE, cookie, ret) < 0) {
			snprintf(err, errlen, "uprobe %s+0x%llx: %s", path,
				 (unsigned long long)offset, strerror(errno));
			return -1;
		}
	}
	return 0;
}

void vs_syscall_trace_close(struct vs_syscall_trace *t)
{
	size_t i;
	int cpu;

	if (!t)
		return;
	for (cpu = 0; t->rings && cpu < t->nr_cpus; cpu++) {
		struct ring *r = &t->rings[cpu];

		vs_perf_ring_unmap(&r->perf);
		if (r->perf.fd >= 0)
			close(r->perf.fd);
		free(r->copy);
	}
	while (t->nr_fds)
		close(t->fds[--t->nr_fds]);
	while (t->nr_probe_events)
		vs_uprobe_destroy(t->probe_events[--t->nr_probe_events]);
	for (i = 0; t->calls && i <= t->calls_mask; i++)
		free(t->calls[i].stack);
	free(t->calls);
	free(t->fds);
	free(t->probe_events);
	free(t->events);
	free(t->rings);
	free(t);
}

static void copy_record(void *arg, const struct perf_event_header *h)
{
	struct ring *r = arg;

	memcpy(r->copy + r->copy_len, h, h->size);
	r->copy_len += h->size;
}

/*
 * Copy the ring's unread records out after those held back by the last
 * read and release the space; they fit in a ring's worth more.
 */
static int drain(struct ring *r)
{
	if (r->pos) {
		memmove(r->copy, r->copy + r->pos, r->copy_len - r->pos);
		r->copy_len -= r->pos;
		r->pos = 0;
	}
	if (ALLOC_GROW(r->copy, r->copy_len + r->perf.data_size, r->copy_cap))
		return -1;
	vs_perf_ring_read(&r->perf, copy_record, r);
	return 0;
}

/* The sample_id trailer of a side-band record: tid, time, cpu, id. */
static void parse_sample_id(const struct perf_event_header *h,
			    struct vs_sc_event *ev)
{
	const uint8_t *end = (const uint8_t *)h + h->size;
	const uint32_t *tid = (const uint32_t *)(end - 32);

	ev->pid = tid[0];
	ev->tid = tid[1];
	memcpy(&ev->time, end - 24, 8);
	memcpy(&ev->cpu, end - 16, 4);
}

static const struct event_id *find_event(const struct vs_syscall_trace *t,
					 uint64_t id)
{
	const struct event_id *e;

	if (!t->nr_events)
		return NULL;
	e = &t->events[event_slot(t->events, t->event_mask, id)];
	return e->id ? e : NULL;
}

/* Decode one sample of sys_enter or sys_exit. */
static int parse_sample(struct vs_syscall_trace *t,
			const struct perf_event_header *h,
			struct vs_sc_event *ev)
{
	const uint64_t *p = (const uint64_t *)(h + 1);
	const uint8_t *end = (const uint8_t *)h + h->size;
	const struct event_id *e = find_event(t, p[0]);
	const struct event_id *probe = e && e->type == VS_SC_PROBE ? e : NULL;
	bool exit = e && e->type == VS_SC_EXIT;
	const uint8_t *raw;
	uint32_t raw_size;
	int64_t nr;

	ev->type = probe ? VS_SC_PROBE : exit ? VS_SC_EXIT : VS_SC_ENTER;
	ev->pid = (uint32_t)p[1];
	ev->tid = (uint32_t)(p[1] >> 32);
	ev->time = p[2];
	ev->cpu = (uint32_t)p[3];
	p += 4;
	if (probe) {
		ev->cookie = probe->cookie;
		ev->is_return = probe->ret;
		return 0;
	}
	if (!exit && t->opts.callchain) {
		uint64_t n = *p++, i, *ips = (uint64_t *)p;

		ev->ips = ips;
		ev->nr_ips = 0;
		for (i = 0; i < n; i++)	/* drop PERF_CONTEXT_USER & co */
			if (ips[i] < PERF_CONTEXT_MAX)
				ips[ev->nr_ips++] = ips[i];
		for (i = ev->nr_ips; i < n; i++) /* the same in a later read */
			ips[i] = PERF_CONTEXT_USER;
		p += n;
	}
	raw_size = *(const uint32_t *)p;
	raw = (const uint8_t *)p + 4;
	if (raw + raw_size > end || raw_size < 24)
		return -1;
	/* common fields (8 bytes), then long id, then args[6] or long ret */
	memcpy(&nr, raw + 8, 8);
	/*
	 * The probes' own trampolines, and exits of no system call (the
	 * kernel's id -1: the uretprobe trampoline's, a skipped call's)
	 */
	if (vs_syscall_by_uprobe(nr) || nr < 0)
		return 1;
	ev->nr = (uint16_t)nr;
	if (exit)
		memcpy(&ev->ret, raw + 16, 8);
	p = (const uint64_t *)(raw + raw_size);
	if (!exit && t->opts.callchain) {
		uint64_t abi = *p++, size;

		ev->nr_regs = 0;
		if (abi) {	/* one per bit of the mask, in bit order */
			ev->regs_mask = vs_arch_regs_user_mask;
			ev->regs = p;
			ev->nr_regs = __builtin_popcountll(ev->regs_mask);
			p += ev->nr_regs;
		}
		size = *p++;
		ev->stack = (const uint8_t *)p;
		ev->stack_size = 0;
		if (size) {
			uint64_t dyn;

			memcpy(&dyn, (const uint8_t *)p + size, 8);
			ev->stack_size = dyn < size ? dyn : size;
		}
	}
	return 0;
}

static int decode(struct vs_syscall_trace *t, const struct perf_event_header *h,
		  struct vs_sc_event *ev)
{
	const uint32_t *u = (const uint32_t *)(h + 1);
	const uint64_t *q = (const uint64_t *)(h + 1);

	memset(ev, 0, sizeof(*ev));
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return parse_sample(t, h, ev);
	case PERF_RECORD_MMAP:
		parse_sample_id(h, ev);
		ev->type = VS_SC_MMAP;
		ev->pid = u[0];
		ev->tid = u[1];
		ev->start = q[1];
		ev->len = q[2];
		ev->pgoff = q[3];
		ev->name = (const char *)(q + 4);
		return 0;
	case PERF_RECORD_COMM:
		parse_sample_id(h, ev);
		ev->type = VS_SC_COMM;
		ev->name = (const char *)(u + 2);
		ev->exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		parse_sample_id(h, ev);
		ev->type = h->type == PERF_RECORD_FORK ? VS_SC_FORK :
			   VS_SC_TASK_EXIT;
		ev->pid = u[0];
		ev->ppid = u[1];
		ev->tid = u[2];
		ev->ptid = u[3];
		memcpy(&ev->time, u + 4, 8);
		return 0;
	case PERF_RECORD_SWITCH:
		parse_sample_id(h, ev);
		ev->type = h->misc & PERF_RECORD_MISC_SWITCH_OUT ?
			   VS_SC_SWITCH_OUT : VS_SC_SWITCH_IN;
		ev->preempt = h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
		return 0;
	case PERF_RECORD_LOST:
		parse_sample_id(h, ev);
		ev->type = VS_SC_LOST;
		ev->lost = q[1];
		return 0;
	}
	return 1;	/* not ours: skip */
}

/* The time of the ring's next record, UINT64_MAX when none is left. */
static uint64_t next_time(struct vs_syscall_trace *t, struct ring *r,
			  struct vs_sc_event *ev)
{
	while (r->pos + sizeof(struct perf_event_header) <= r->copy_len) {
		const struct perf_event_header *h =
			(const void *)(r->copy + r->pos);

		if (h->size < sizeof(*h) || r->pos + h->size > r->copy_len)
			break;
		if (!decode(t, h, ev))
			return ev->time;
		r->pos += h->size;
	}
	r->pos = r->copy_len;
	return UINT64_MAX;
}

long vs_syscall_trace_read(struct vs_syscall_trace *t, int timeout_ms,
			   bool all, vs_sc_handler fn, void *arg)
{
	struct pollfd *pfd = calloc(t->nr_cpus, sizeof(*pfd));
	struct vs_sc_event *next = calloc(t->nr_cpus, sizeof(*next));
	uint64_t *when = calloc(t->nr_cpus, sizeof(*when));
	uint64_t cut = UINT64_MAX;
	long n = 0;
	int cpu, np = 0, ret, best;

	if (!pfd || !next || !when) {
		n = -1;
		goto out;
	}
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		if (t->rings[cpu].perf.fd < 0)
			continue;
		pfd[np].fd = t->rings[cpu].perf.fd;
		pfd[np++].events = POLLIN;
	}
	if (timeout_ms)
		poll(pfd, np, timeout_ms);
	/* before any drain: what is older is in the rings by then */
	if (!all)
		cut = vs_perf_clock_ns() - VS_SC_SLACK_NS;
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		if (!t->rings[cpu].perf.base) {
			when[cpu] = UINT64_MAX;
			continue;
		}
		if (drain(&t->rings[cpu]) < 0) {
			n = -1;
			goto out;
		}
		when[cpu] = next_time(t, &t->rings[cpu], &next[cpu]);
	}
	for (;;) {
		best = -1;
		for (cpu = 0; cpu < t->nr_cpus; cpu++)
			if (when[cpu] != UINT64_MAX &&
			    (best < 0 || when[cpu] < when[best]))
				best = cpu;
		if (best < 0 || when[best] > cut)
			break;
		ret = fn(&next[best], arg);
		if (ret) {
			n = ret;
			goto out;
		}
		n++;
		t->rings[best].pos += ((const struct perf_event_header *)
				       (t->rings[best].copy +
					t->rings[best].pos))->size;
		when[best] = next_time(t, &t->rings[best], &next[best]);
	}
out:
	free(pfd);
	free(next);
	free(when);
	return n;
}

/* One event as a trace record; 1 when it has none. */
static int event_record(const struct vs_sc_event *ev, struct vs_record *rec)
{
	switch (ev->type) {
	case VS_SC_ENTER:
	case VS_SC_EXIT:
		rec->kind = VS_REC_SYSCALL;
		rec->syscall = (struct vs_syscall){
			.time = ev->time, .tid = ev->tid, .cpu = ev->cpu,
			.nr = ev->nr, .ret = ev->type == VS_SC_EXIT ? ev->ret : 0,
			.dir = ev->type == VS_SC_ENTER ? VS_SYSCALL_ENTER :
							 VS_SYSCALL_EXIT };
		return 0;
	case VS_SC_SWITCH_OUT:
	case VS_SC_SWITCH_IN:
		rec->kind = VS_REC_SWITCH;
		rec->switch_ = (struct vs_switch){
			.time = ev->time, .tid = ev->tid, .cpu = ev->cpu,
			.out = ev->type == VS_SC_SWITCH_OUT,
			.preempt = ev->preempt };
		return 0;
	case VS_SC_LOST:
		rec->kind = VS_REC_LOST;
		rec->lost = (struct vs_lost){
			.time = ev->time, .tid = ev->tid, .cpu = ev->cpu,
			.what = VS_LOST_KERNEL_RING, .count = ev->lost };
		return 0;
	default:
		return 1;	/* the side band is the caller's own */
	}
}

struct emit {
	struct vs_syscall_trace *t;
	vs_sc_record_fn fn;
	void *arg;
};

/* The slot of thread @tid, taken if need be; NULL when out of memory. */
static struct long_call *long_call_slot(struct vs_syscall_trace *t,
					uint32_t tid)
{
	size_t h, i;

	if (!tid)
		return NULL;
	if ((t->nr_calls + 1) * 2 > t->calls_mask + 1) {
		size_t mask = t->calls_mask ? 2 * t->calls_mask + 1 : 63;
		struct long_call *tab = calloc(mask + 1, sizeof(*tab));

		if (!tab)
			return NULL;
		for (i = 0; t->calls && i <= t->calls_mask; i++) {
			if (!t->calls[i].tid)
				continue;
			for (h = t->calls[i].tid * 0x9e3779b1u & mask; tab[h].tid;
			     h = (h + 1) & mask)
				;
			tab[h] = t->calls[i];
		}
		free(t->calls);
		t->calls = tab;
		t->calls_mask = mask;
	}
	for (h = tid * 0x9e3779b1u & t->calls_mask;
	     t->calls[h].tid && t->calls[h].tid != tid;
	     h = (h + 1) & t->calls_mask)
		;
	if (!t->calls[h].tid) {
		t->calls[h].tid = tid;
		t->nr_calls++;
	}
	return &t->calls[h];
}

/* Keep the enter @ev of a call: its registers and stack copy. */
static void long_call_enter(struct vs_syscall_trace *t,
			    const struct vs_sc_event *ev)
{
	struct long_call *c = long_call_slot(t, ev->tid);
	size_t words = ev->stack_size / 8;

	if (!c || ev->nr_regs > 32)
		return;
	if (!c->stack)
		c->stack = malloc(vs_sc_stack_size(&t->opts));
	if (!c->stack)
		return;
	if (words > vs_sc_stack_size(&t->opts) / 8)
		words = vs_sc_stack_size(&t->opts) / 8;
	*c = (struct long_call){ .tid = ev->tid, .pid = ev->pid,
		.cpu = ev->cpu, .on = true, .nr = ev->nr, .enter = ev->time,
		.ip = ev->nr_ips ? ev->ips[0] : 0, .regs_mask = ev->regs_mask,
		.nr_regs = ev->nr_regs, .nr_stack = words, .stack = c->stack };
	memcpy(c->regs, ev->regs, ev->nr_regs * sizeof(*c->regs));
	memcpy(c->stack, ev->stack, words * 8);
}

/* The SAMPLE record of long call @c, at @time. */
static void long_call_record(struct emit *e, struct long_call *c,
			     uint64_t time)
{
	struct vs_record rec = { .kind = VS_REC_SAMPLE };

	rec.sample = (struct vs_sample){
		.time = time, .pid = c->pid, .tid = c->tid, .cpu = c->cpu,
		.flags = VS_SAMPLE_USER_STACK | VS_SAMPLE_SYSCALL,
		.ip = c->ip, .regs_mask = c->regs_mask, .nr_regs = c->nr_regs,
		.regs = c->regs, .nr_stack = c->nr_stack, .stack = c->stack };
	e->fn(e->arg, &rec);
	c->on = false;
}

static void long_call_exit(struct emit *e, const struct vs_sc_event *ev)
{
	struct vs_syscall_trace *t = e->t;
	struct long_call *c;
	size_t h;

	if (!t->calls)
		return;
	for (h = ev->tid * 0x9e3779b1u & t->calls_mask;
	     t->calls[h].tid && t->calls[h].tid != ev->tid;
	     h = (h + 1) & t->calls_mask)
		;
	c = &t->calls[h];
	if (!c->tid || !c->on || c->nr != ev->nr)
		return;
	if (ev->time >= c->enter + VS_SC_LONG_CALL_NS)
		long_call_record(e, c, ev->time);
	c->on = false;
}

static int emit_event(const struct vs_sc_event *ev, void *arg)
{
	struct emit *e = arg;
	struct vs_record rec;

	if (ev->time > e->t->last_time)
		e->t->last_time = ev->time;
	if (event_record(ev, &rec))
		return 0;
	e->fn(e->arg, &rec);
	if (!e->t->opts.long_calls)
		return 0;
	if (ev->type == VS_SC_ENTER && ev->nr_regs)
		long_call_enter(e->t, ev);
	else if (ev->type == VS_SC_EXIT)
		long_call_exit(e, ev);
	return 0;
}

long vs_syscall_trace_records(struct vs_syscall_trace *t, int timeout_ms,
			      bool all, vs_sc_record_fn fn, void *arg)
{
	struct emit e = { t, fn, arg };
	long n = vs_syscall_trace_read(t, timeout_ms, all, emit_event, &e);
	size_t i;

	/* the last read: the long calls still going */
	for (i = 0; all && t->calls && i <= t->calls_mask; i++)
		if (t->calls[i].tid && t->calls[i].on &&
		    t->last_time >= t->calls[i].enter + VS_SC_LONG_CALL_NS)
			long_call_record(&e, &t->calls[i], t->last_time);
	return n;
}
