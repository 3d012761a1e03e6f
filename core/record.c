// SPDX-License-Identifier: MIT
/*
 * record.c - the recording engine: run the command, register its threads,
 * track its processes and mappings, drain every ring, account, write.
 * The session's struct is core/record/recorder.h's; the end's summary is
 * core/record/summary.c, the registration socket core/record/control.c.
 *
 * The program links libvarscope; VARSCOPE_CTL in its environment names
 * the rate and an abstract unix socket.  Each thread registers there at
 * its first selected task, and gets the descriptors of the events this
 * process opened for it (core/record-thread.c).  A tracking dummy event
 * per CPU, system-wide, gives COMM, FORK, EXIT and MMAP2 (with build-ids)
 * for symbolization and the end of threads; the recorder keeps those of
 * the command's processes, which it follows through their FORK records,
 * and reads from /proc again what a full ring lost of them.
 * Nothing is opened in the command's threads until they register: a
 * per-task event costs the thread at every context switch.  The main loop wakes every 10 ms (1 ms while a task
 * ring fills fast), or when a ring passes its watermark, drains everything, writes an EPOCH record per epoch and
 * flushes a chunk at least every second.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch/x86/intel-events.h"
#include "core/pmu.h"
#include "core/array.h"
#include "core/plural.h"
#include "core/record-int.h"
#include "core/record/recorder.h"
#include "core/sort.h"
#include "core/symbols.h"
#include "core/wakeup.h"
#include "core/syscall-trace.h"
#include "core/workload.h"

#define VS_POLL_MS		10
#define VS_BUSY_POLL_MS		1	/* while task rings fill fast */
#define VS_FLUSH_NS		1000000000ull
#define VS_SAMPLE_CPU_PAGES	512	/* per CPU, with every sample */
#define VS_TRACK_PAGES		64
#ifndef VARSCOPE_VERSION
#define VARSCOPE_VERSION "0.0"
#endif

static volatile sig_atomic_t stop_signal;

const char vs_fault_time_note[] =
	"fault.page.time unavailable: page faults have no exit tracepoint "
	"and this kernel has no kprobes; fault.page.count only";

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* --- output -------------------------------------------------------------- */

static struct vs_recorder *recorder_of(struct vs_session *s)
{
	return (struct vs_recorder *)s;
}

void vs_session_write(struct vs_session *s, const struct vs_record *rec)
{
	struct vs_recorder *r = recorder_of(s);

	if (!r->recording)
		return;
	if (vs_rotwriter_add(s->out, rec) == 0)
		return;
	s->out_error = errno;
	r->recording = false;
}

void vs_session_write_meta(struct vs_session *s, const char *key,
			   const char *value)
{
	struct vs_record rec = { .kind = VS_REC_META };

	rec.meta = (struct vs_meta){ key, value };
	vs_session_write(s, &rec);
}

static void on_new_event(void *ctx, const struct vs_event_def *def)
{
	struct vs_record rec = { .kind = VS_REC_EVENT_DEF };

	rec.event_def = *def;
	vs_session_write(ctx, &rec);
}

static void on_task(void *ctx, const struct vs_task *task)
{
	vs_session_task(ctx, task);
}

void vs_session_task(struct vs_session *s, const struct vs_task *task)
{
	struct vs_record rec = { .kind = VS_REC_TASK };
	struct vs_value *buf = NULL;

	rec.task = *task;
	/* cpu.freq: cycles over run.time */
	if (s->hw && (buf = malloc((task->nr_values + 1) * sizeof(*buf))))
		vs_hwcount_add_freq(s->hw, task, buf, &rec.task);
	vs_session_write(s, &rec);
	free(buf);
	if (recorder_of(s)->recording)
		s->tasks_taken++;
}

/*
 * A new epoch: its hardware group on every thread (the schedule counts
 * epochs from 0, the trace from 1).
 */
static void rotate_hw(struct vs_recorder *r)
{
	struct vs_rthread *rt;
	unsigned int i;

	if (!r->s.hw)
		return;
	vs_hwcount_set_epoch(r->s.hw, r->epoch - 1);
	r->s.hw_gen = r->epoch;
	for (i = 0; i < r->s.nr_buckets; i++)
		for (rt = r->s.threads[i]; rt; rt = *vs_rthread_next(rt))
			vs_rthread_hw_rotate(&r->s, rt);
}

/*
 * The events live from now on: the whole catalog so far, less the
 * hardware events the epoch does not count.
 */
static void write_epoch(struct vs_recorder *r, uint64_t time)
{
	unsigned int n = vs_catalog_size(r->s.cat), i, nr = 0;
	uint16_t *ids = calloc(n ? n : 1, sizeof(*ids));
	struct vs_record rec = { .kind = VS_REC_EPOCH };

	if (!ids)
		return;
	for (i = 0; i < n; i++)
		if (!r->s.hw || !vs_hwcount_hides(r->s.hw, i))
			ids[nr++] = i;
	rec.epoch = (struct vs_epoch){ time, r->epoch, nr, ids };
	vs_acct_set_epoch(r->s.acct, r->epoch);
	r->s.epoch = r->epoch;
	vs_session_write(&r->s, &rec);
	free(ids);
}

static int open_output(struct vs_recorder *r)
{
	const char *path = r->opts->output ? r->opts->output : VS_DEFAULT_FILE;
	struct vs_header hdr = {
		.major = VS_FORMAT_MAJOR, .minor = VS_FORMAT_MINOR,
		.clockid = CLOCK_MONOTONIC,
		.start_time = vs_perf_clock_ns(), .start_realtime = realtime_ns(),
		.tool = "varscope " VARSCOPE_VERSION " record",
	};
	struct vs_rotwriter_opts ro = {
		.segment_ns = r->opts->segment_ns,
		.max_size = r->opts->max_size,
	};
	struct stat st;
	char old[4096];

	/* a regular file, not a link: what a link names is not ours */
	if (!ro.segment_ns && strcmp(path, "-") && !lstat(path, &st) &&
	    S_ISREG(st.st_mode)) {
		snprintf(old, sizeof(old), "%s.old", path);
		if (rename(path, old)) {
			fprintf(stderr, "varscope record: cannot rename %s to %s: %s\n",
				path, old, strerror(errno));
			return -1;
		}
	}
	r->s.out = vs_rotwriter_open(path, &hdr, &ro);
	if (!r->s.out) {
		fprintf(stderr, "varscope record: cannot create %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	/* -o -: the trace has the standard output, the command gets stderr */
	if (!strcmp(path, "-") && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fprintf(stderr, "varscope record: cannot keep the command's "
			"output out of the trace: %s\n", strerror(errno));
		return -1;
	}
	r->start = hdr.start_time;
	return 0;
}

static int keep_fd(struct vs_recorder *r, int fd)
{
	int *fds = realloc(r->extra_fds, (r->nr_extra_fds + 1) * sizeof(*fds));

	if (!fds)
		return -1;
	r->extra_fds = fds;
	r->extra_fds[r->nr_extra_fds++] = fd;
	return 0;
}

/* --- the command --------------------------------------------------------- */

/*
 * Fork the command, held before its exec until its events exist, with
 * VARSCOPE_CTL for the library (not for function tasks: the program's
 * own annotations would make tasks too).  It outlives the recorder.
 */
static int start_child(struct vs_recorder *r)
{
	snprintf(r->ctl, sizeof(r->ctl), "%s=%s,rate=%.9g,sock=%s", VS_CTL_ENV,
		 VS_CTL_VERSION, r->opts->rate, r->sock_name);
	if (vs_workload_fork(&r->workload, r->opts->argv,
			     vs_probe_tasks(&r->s) ? NULL : r->ctl,
			     VS_WORKLOAD_OWN_GROUP | VS_WORKLOAD_TERMINAL))
		return -1;
	r->child = r->workload.pid;
	return 0;
}

/* Let the child exec; -1 if it could not. */
static int release_child(struct vs_recorder *r)
{
	if (!vs_workload_start(&r->workload))
		return 0;
	vs_workload_terminal_back(&r->workload);
	fprintf(stderr, "varscope record: cannot run '%s': %s\n",
		r->opts->argv[0], strerror(errno));
	r->child_done = true;
	return -1;
}

/*
 * The command's own name for messages: what it exec'd last, not the
 * wrapper it was started with (taskset, nice, env...), read from /proc
 * while it is there and not reaped (its pid is not another's yet);
 * argv[0] until then.
 */
const char *vs_record_command_name(struct vs_recorder *r)
{
	char path[64];
	ssize_t n;
	int fd = -1;

	if (r->child > 0 && !r->child_reaped) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)r->child);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd >= 0) {
		n = read(fd, r->child_comm, sizeof(r->child_comm) - 1);
		if (n > 0) {
			r->child_comm[n] = '\0';
			r->child_comm[strcspn(r->child_comm, "\n")] = '\0';
		}
		close(fd);
	}
	return *r->child_comm ? r->child_comm : r->opts->argv[0];
}

/*
 * waitpid() of the command: its name is read first, while it is still a
 * zombie that /proc shows (the messages after its end name it).
 */
static pid_t reap_command(struct vs_recorder *r, int flags)
{
	siginfo_t si = { 0 };

	pid_t pid;

	if (!waitid(P_PID, r->child, &si, WEXITED | WNOWAIT | flags) &&
	    si.si_pid == r->child)
		vs_record_command_name(r);
	pid = waitpid(r->child, &r->child_status, flags);
	if (pid == r->child)
		r->child_reaped = true;
	return pid;
}

/* --- tracking: comm, fork, exit, mmap ------------------------------------ */

static struct command_proc *command_proc(const struct vs_recorder *r,
					 uint32_t pid)
{
	size_t i;

	for (i = 0; i < r->nr_procs; i++)
		if ((uint32_t)r->procs[i].pid == pid)
			return &r->procs[i];
	return NULL;
}

static bool command_pid(const struct vs_recorder *r, uint32_t pid)
{
	return command_proc(r, pid);
}

static void add_command_pid(struct vs_recorder *r, pid_t pid)
{
	if (vs_grow(&r->procs, &r->alloc_procs, r->nr_procs + 1,
		    sizeof(*r->procs)))
		return;
	r->procs[r->nr_procs++] = (struct command_proc){ pid, 0, 0 };
}

/*
 * How long the records of a process whose leader exited are still its:
 * the leader's EXIT can come before its other threads' (a process killed
 * by a signal: each thread exits on its own, 180 ms apart on a loaded
 * machine), and those threads' EXITs end their open tasks.
 */
#define VS_EXIT_GRACE_NS	1000000000ull

/* The leader of @pid exited at @time: the process ends after the grace. */
static void exit_command_pid(struct vs_recorder *r, uint32_t pid,
			     uint64_t time)
{
	struct command_proc *p = command_proc(r, pid);

	if (p && !p->exit_time)
		p->exit_time = time ? time : 1;
}

/* Forget the processes whose leader exited before @time by the grace. */
static void forget_exited(struct vs_recorder *r, uint64_t time)
{
	size_t i;

	for (i = r->nr_procs; i-- > 0;)
		if (r->procs[i].exit_time &&
		    r->procs[i].exit_time + VS_EXIT_GRACE_NS < time)
			r->procs[i] = r->procs[--r->nr_procs];
}

static int compare_tid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The filter of sched_waking that passes the wake-ups of the recorded
 * threads alone: their tids as ranges, "pid==7||(pid>=9&&pid<=12)"; none
 * registered, "pid<0".  A list longer than the kernel takes (a page) is
 * the span of them all: the reader checks the wakee anyway.
 */
static void wake_filter(const struct vs_recorder *r, uint32_t *tids,
			char *buf, size_t size)
{
	unsigned int i, j, n = 0;
	struct vs_rthread *rt;
	size_t len = 0;

	for (i = 0; i < r->s.nr_buckets; i++)
		for (rt = r->s.threads[i]; rt; rt = *vs_rthread_next(rt))
			tids[n++] = vs_rthread_tid(rt);
	if (!n) {
		snprintf(buf, size, "pid<0");
		return;
	}
	vs_qsort(tids, n, sizeof(*tids), compare_tid);
	for (i = 0; i < n && len < size; i = j + 1) {
		for (j = i; j + 1 < n && tids[j + 1] <= tids[j] + 1; j++)
			;
		if (tids[i] == tids[j])
			len += snprintf(buf + len, size - len, "%spid==%u",
					i ? "||" : "", tids[i]);
		else
			len += snprintf(buf + len, size - len,
					"%s(pid>=%u&&pid<=%u)", i ? "||" : "",
					tids[i], tids[j]);
	}
	if (len >= size)
		snprintf(buf, size, "pid>=%u&&pid<=%u", tids[0], tids[n - 1]);
}

/*
 * sched:sched_waking on @cpu, with @filter (NULL: none), writing into
 * the CPU's wake-up ring; its descriptor, or -1.
 */
static int open_waking(struct vs_recorder *r, int cpu, const char *filter)
{
	struct perf_event_attr attr;
	int fd, err;

	vs_event_attr(&attr, PERF_TYPE_TRACEPOINT, r->s.waking.id);
	attr.disabled = 1;
	fd = vs_perf_open(&attr, -1, cpu, -1);
	if (fd < 0)
		return -1;
	if ((filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter)) ||
	    ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->wake[cpu].fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/*
 * Let the kernel drop the wake-ups of threads not recorded: called when
 * a thread registers, before its first task can wait.  A tracepoint
 * event takes one filter for its life, so a new event with the new
 * filter replaces the old one on each CPU; it is enabled before the old
 * one is closed, and what both wrote of the same wake-up is read once
 * (wake_add()).  When the kernel refuses a filter, every wake-up is
 * read from then on and said once.
 */
void vs_record_set_wake_filter(struct vs_recorder *r)
{
	char filter[VS_WAKE_FILTER_MAX];
	struct vs_wake_filter *wf;
	uint32_t *tids;
	int cpu, fd;

	if (r->s.waking.id < 0 || r->wake_unfiltered)
		return;
	tids = malloc((r->s.nr_threads + 1) * sizeof(*tids));
	if (!tids)
		return;
	wake_filter(r, tids, filter, sizeof(filter));
	free(tids);
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		if (!r->wake[cpu].base)
			continue;
		wf = &r->wake_filter[cpu];
		fd = open_waking(r, cpu, r->wake_unfiltered ? NULL : filter);
		if (fd < 0 && !r->wake_unfiltered) {
			fprintf(stderr, "varscope record: sched:sched_waking "
				"filter: %s: every wake-up is read\n",
				strerror(errno));
			r->wake_unfiltered = true;
			cpu = -1;	/* again, unfiltered */
			continue;
		}
		if (fd < 0)
			continue;
		if (wf->fd >= 0)
			close(wf->fd);
		wf->fd = fd;
	}
}

/*
 * sched:sched_waking on @cpu, system-wide, into its own ring: the
 * wake-ups of the recorded threads that the command's threads make.  The
 * event fires in the waker's context, whose own events are gated off
 * outside tasks, so it is opened per CPU, like the tracking events; the
 * kernel drops the wake-ups of other threads (vs_record_set_wake_filter()), the
 * waker's process is checked when the ring is read.  Without it (no such
 * tracepoint, not allowed) the trace has no wake-up edges.
 */
static int open_wakeup(struct vs_recorder *r, int cpu)
{
	struct perf_event_attr attr;
	int fd;

	if (r->s.waking.id < 0 || r->s.engine)
		return 0;
	vs_event_attr(&attr, PERF_TYPE_TRACEPOINT, r->s.waking.id);
	attr.watermark = 1;
	attr.wakeup_watermark = VS_WAKE_PAGES * 4096 / 2;
	fd = vs_perf_open(&attr, -1, cpu, -1);
	if (fd < 0) {
		fprintf(stderr, "varscope record: sched:sched_waking: %s: "
			"no wake-up edges\n", strerror(errno));
		r->s.waking.id = -1;
		return 0;
	}
	if (vs_perf_ring_mmap(&r->wake[cpu], fd, VS_WAKE_PAGES)) {
		close(fd);
		return -1;
	}
	/* the owner of the ring passes nothing: vs_record_set_wake_filter() */
	r->wake_filter[cpu].fd = -1;
	if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "pid<0")) {
		fprintf(stderr, "varscope record: sched:sched_waking filter: "
			"%s: every wake-up is read\n", strerror(errno));
		r->wake_unfiltered = true;
	}
	epoll_ctl(r->s.epoll_fd, EPOLL_CTL_ADD, fd,
		  &(struct epoll_event){ .events = EPOLLIN,
					 .data.u64 = VS_WAKE_RING });
	return 0;
}

/* Is @h a sched_waking sample? */
static bool is_wakeup(const struct vs_recorder *r,
		      const struct perf_event_header *h)
{
	const struct vs_raw_sample *smp = (const void *)h;

	return h->type == PERF_RECORD_SAMPLE && r->s.waking.id >= 0 &&
	       smp->raw_size >= 2 &&
	       *(const uint16_t *)smp->raw == (uint16_t)r->s.waking.id;
}

/*
 * A wake-up of a recorded thread (one that registered with the library)
 * goes to that thread, which writes it as a VS_REC_WAKEUP if it ends one
 * of its blocked waits inside a selected task.  A wake-up made in
 * interrupt context was made by no thread: waker 0.
 */
static void take_wakeup(struct vs_recorder *r, const struct vs_raw_sample *smp)
{
	struct vs_wakeup w;
	struct vs_rthread *rt;
	bool in_irq = false;
	uint32_t wakee;

	wakee = vs_tp_wakee(&r->s.tps, &r->s.waking, smp->raw, smp->raw_size,
			    &in_irq);
	rt = wakee ? vs_session_thread(&r->s, wakee) : NULL;
	if (!rt)
		return;
	w = (struct vs_wakeup){ smp->time, in_irq ? 0 : smp->tid, wakee,
				smp->cpu };
	vs_rthread_wakeup(&r->s, rt, &w);
}

/*
 * The tracking dummy of every CPU, system-wide (a per-task one would
 * cost every thread of the command at each context switch), each owning
 * that CPU's tracking ring, and the wake-up tracepoint.
 */
static int open_tracking(struct vs_recorder *r)
{
	unsigned int pages = VS_TRACK_PAGES;
	struct perf_event_attr attr;
	int cpu, fd;

	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		vs_event_attr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
		attr.comm = 1;
		attr.comm_exec = 1;
		attr.mmap = 1;
		attr.mmap2 = 1;
		attr.build_id = 1;
		attr.task = 1;
		attr.watermark = 1;
		attr.wakeup_watermark = pages * 4096 / 2;
		fd = vs_perf_open(&attr, -1, cpu, -1);
		if (fd < 0) {
			if (errno == ENODEV || errno == EINVAL)
				continue;	/* cpu offline */
			return -1;
		}
		if (vs_perf_ring_mmap(&r->track[cpu], fd, pages)) {
			close(fd);
			return -1;
		}
		epoll_ctl(r->s.epoll_fd, EPOLL_CTL_ADD, fd,
			  &(struct epoll_event){ .events = EPOLLIN,
						 .data.u64 = VS_WAKE_RING });
		if (open_wakeup(r, cpu))
			return -1;
		if (r->s.engine && r->s.sampling &&
		    vs_sample_open_cpu(&r->s, cpu, &r->samples[cpu],
				       r->opts->mmap_pages ? r->opts->mmap_pages :
				       vs_sample_ring_pages(&r->s,
							    VS_SAMPLE_CPU_PAGES)))
			return -1;
		if (r->samples[cpu].base)
			epoll_ctl(r->s.epoll_fd, EPOLL_CTL_ADD,
				  r->samples[cpu].fd,
				  &(struct epoll_event){ .events = EPOLLIN,
							 .data.u64 = VS_WAKE_RING });
	}
	return 0;
}

/* --- -p: attach to a running process ------------------------------------- */

/*
 * Whether process @pid is gone: no such process, or one that has exited
 * and waits for its parent to reap it (a zombie, which kill(2) still
 * finds; its exit may have come before the attach, with no EXIT record).
 */
static bool process_gone(pid_t pid)
{
	char path[64], buf[512], *state;
	ssize_t n;
	int fd;

	if (kill(pid, 0) && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	state = strrchr(buf, ')');	/* the name may hold anything */
	return state && state[1] && (state[2] == 'Z' || state[2] == 'X');
}

/* -p @pid: one line and -1 unless it names a live process. */
static int check_target(pid_t pid)
{
	if (kill(pid, 0) && errno == ESRCH) {
		fprintf(stderr, "varscope record: no process %d\n", pid);
		return -1;
	}
	if (process_gone(pid)) {
		fprintf(stderr, "varscope record: process %d has exited "
			"(its parent has not reaped it yet)\n", pid);
		return -1;
	}
	return 0;
}

/*
 * A mapping without its file's build-id (the kernel leaves it out of an
 * MMAP2 record when the file's note is not in memory where it looks, and
 * /proc/PID/maps has none): read it from the file, once per file, as
 * perf record's build-id pass does.
 */
static void fill_build_id(struct vs_recorder *r, struct vs_mmap *m)
{
	struct build_id_of *b;
	size_t i;

	if (m->build_id_len || m->filename[0] != '/')
		return;		/* [vdso], [uprobes], //anon */
	for (i = 0; i < r->nr_build_ids &&
		    strcmp(r->build_ids[i].path, m->filename); i++)
		;
	if (i == r->nr_build_ids) {
		if (vs_grow(&r->build_ids, &r->cap_build_ids, i + 1,
			    sizeof(*b)) < 0)
			return;
		b = &r->build_ids[i];
		b->path = strdup(m->filename);
		if (!b->path)
			return;
		b->len = vs_elf_build_id(m->filename, b->id);
		r->nr_build_ids++;
	}
	b = &r->build_ids[i];
	m->build_id_len = b->len;
	memcpy(m->build_id, b->id, b->len);
}

typedef void (*proc_record_fn)(struct vs_recorder *r, struct vs_record *rec,
			       void *ctx);

/*
 * The thread names and executable mappings of @pid as they are now, each
 * to @fn as a COMM or MMAP record (without its build-id).
 */
static void scan_proc_state(struct vs_recorder *r, pid_t pid,
			    proc_record_fn fn, void *ctx)
{
	char path[64], line[4200], file[4097], comm[64], perms[8];
	unsigned long long start, end, pgoff;
	struct vs_record rec;
	uint64_t now = vs_perf_clock_ns();
	struct dirent *d;
	FILE *f;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		int tid = atoi(d->d_name);

		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
		if (tid <= 0 || !(f = fopen(path, "r")))
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = 0;
			memset(&rec, 0, sizeof(rec));
			rec.kind = VS_REC_COMM;
			rec.comm = (struct vs_comm){ now, pid, tid, 0, comm };
			fn(r, &rec, ctx);
		}
		fclose(f);
	}
	if (dir)
		closedir(dir);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4096[^\n]", &start,
			   &end, perms, &pgoff, file) < 4 || perms[2] != 'x')
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.kind = VS_REC_MMAP;
		rec.mmap = (struct vs_mmap){ now, pid, pid, start, end - start,
			pgoff, PROT_READ | PROT_EXEC, MAP_PRIVATE, 0, {0}, file };
		fn(r, &rec, ctx);
	}
	if (f)
		fclose(f);
}

static void write_proc_record(struct vs_recorder *r, struct vs_record *rec,
			      void *ctx)
{
	(void)ctx;
	if (rec->kind == VS_REC_MMAP)
		fill_build_id(r, &rec->mmap);
	vs_session_write(&r->s, rec);
}

/* The executable mappings and thread names of @pid as it is now. */
static void write_proc_state(struct vs_recorder *r, pid_t pid)
{
	scan_proc_state(r, pid, write_proc_record, NULL);
}

/* FNV-1a of @len bytes at @p into *@h */
static void hash_bytes(uint64_t *h, const void *p, size_t len)
{
	const unsigned char *c = p;

	while (len--)
		*h = (*h ^ *c++) * 0x100000001b3ull;
}

/* What scan_proc_state() gives, less the times, into the hash at @ctx. */
static void hash_proc_record(struct vs_recorder *r, struct vs_record *rec,
			     void *ctx)
{
	const struct vs_mmap *m = &rec->mmap;
	const struct vs_comm *c = &rec->comm;

	(void)r;
	if (rec->kind == VS_REC_COMM) {
		hash_bytes(ctx, &c->tid, sizeof(c->tid));
		hash_bytes(ctx, c->comm, strlen(c->comm) + 1);
		return;
	}
	hash_bytes(ctx, &m->start, sizeof(m->start));
	hash_bytes(ctx, &m->len, sizeof(m->len));
	hash_bytes(ctx, &m->pgoff, sizeof(m->pgoff));
	hash_bytes(ctx, m->filename, strlen(m->filename) + 1);
}

/*
 * Write the names and mappings of the command's process @p again, unless
 * they are what the last resync wrote.
 */
static void resync_proc(struct vs_recorder *r, struct command_proc *p)
{
	uint64_t state = 0xcbf29ce484222325ull;	/* FNV-1a's basis */

	scan_proc_state(r, p->pid, hash_proc_record, &state);
	if (state == p->state)
		return;
	p->state = state;
	write_proc_state(r, p->pid);
	r->resyncs++;
}

/* -p: the process exited before its recording could begin. */
static int attach_lost(pid_t pid)
{
	fprintf(stderr, "varscope record: process %d exited during the "
		"attach: nothing recorded\n", pid);
	return -1;
}

/*
 * The events of thread @tid of @pid: the probes of --task-func, and with
 * --syscalls its system calls (the trace's own events follow the
 * attached process's main thread already); the threads and children it
 * creates inherit them.  The system calls first: a call the probes open
 * as a task has its system calls from its start.  A thread that is gone
 * is no error.
 */
static int follow_thread(struct vs_recorder *r, pid_t pid, int tid)
{
	char err[256];

	if (r->syscalls && tid != r->opts->pid &&
	    vs_syscall_trace_add_thread(r->syscalls, tid, err, sizeof(err)) &&
	    errno != ESRCH) {
		fprintf(stderr, "varscope record: --syscalls: %s\n", err);
		return -1;
	}
	return 0;
}

/*
 * @fn(@r, child) for each child process of @pid now, until one returns
 * non-zero; returns that.
 */
static int for_each_child(struct vs_recorder *r, pid_t pid,
			  int (*fn)(struct vs_recorder *r, pid_t child))
{
	char path[80];
	struct dirent *d;
	int ret = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (!ret && dir && (d = readdir(dir))) {
		int tid = atoi(d->d_name), child;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid,
			 tid);
		if (tid <= 0 || !(f = fopen(path, "r")))
			continue;
		while (!ret && fscanf(f, "%d", &child) == 1)
			ret = fn(r, child);
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return ret;
}

/*
 * Follow @pid: its threads, and the processes it forks from now on, with
 * the events of follow_thread() in each of its threads.  Then the same
 * for the children it has now (a pre-forking server's workers), which
 * inherit nothing from it.  The attached process (check_target() at
 * the start) may exit meanwhile: its threads' events fail then, and that
 * is said in one line; a child or a thread that exits is no error.
 */
static int attach(struct vs_recorder *r, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return pid == r->opts->pid ? attach_lost(pid) : 0;
	write_proc_state(r, pid);
	add_command_pid(r, pid);
	if (r->s.probe && vs_probe_trace(&r->s, pid)) {
		fprintf(stderr, "varscope record: cannot trace process %d: %s\n",
			pid, strerror(errno));
		closedir(dir);
		return -1;
	}
	while ((d = readdir(dir))) {
		int tid = atoi(d->d_name);

		if (tid > 0 && follow_thread(r, pid, tid)) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	if (for_each_child(r, pid, attach))
		return -1;
	if (pid == r->opts->pid && process_gone(pid))
		return attach_lost(pid);
	return 0;
}

/*
 * The thread @tid exited at @time.  A tid is reused once its thread is
 * gone: an exit older than the registration of the thread that has @tid
 * now is that of an earlier one (closed when the new one registered).
 */
bool vs_record_track_exit(struct vs_recorder *r, uint32_t tid, uint64_t time)
{
	struct vs_rthread **p;

	p = &r->s.threads[tid % r->s.nr_buckets];
	while (*p && vs_rthread_tid(*p) != tid)
		p = vs_rthread_next(*p);
	if (*p && time >= vs_rthread_opened(*p)) {
		struct vs_rthread *rt = *p;

		*p = *vs_rthread_next(rt);
		r->s.nr_threads--;
		vs_rthread_close(&r->s, rt, time, true);
		return true;
	}
	return false;
}

/*
 * A thread's exit takes effect once every tracking ring is read: the
 * wake-ups of the thread that other CPUs' rings hold (made before it
 * exited, read after its EXIT when their CPU comes later) still find it.
 */
static void defer_exit(struct vs_recorder *r, uint32_t tid, uint64_t time)
{
	if (vs_grow(&r->exits, &r->cap_exits, r->nr_exits + 1,
		    sizeof(*r->exits))) {
		vs_record_track_exit(r, tid, time);	/* no memory: at once */
		return;
	}
	r->exits[r->nr_exits++] = (struct thread_exit){ tid, time };
}

static void on_track_record(void *ctx, const struct perf_event_header *h)
{
	struct vs_recorder *r = ctx;
	const struct vs_sample_id *sid = vs_sample_id_of(h);
	struct vs_record rec;

	memset(&rec, 0, sizeof(rec));
	switch (h->type) {
	case PERF_RECORD_COMM: {
		const struct { struct perf_event_header h; uint32_t pid, tid;
			       char comm[]; } *c = (const void *)h;

		rec.kind = VS_REC_COMM;
		rec.comm = (struct vs_comm){ sid->time, c->pid, c->tid,
			!!(h->misc & PERF_RECORD_MISC_COMM_EXEC), c->comm };
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		const struct { struct perf_event_header h; uint32_t pid, ppid,
			       tid, ptid; uint64_t time; } *f = (const void *)h;

		if (h->type == PERF_RECORD_EXIT && f->pid == f->tid)
			exit_command_pid(r, f->pid, f->time);
		rec.kind = VS_REC_PROCESS;
		rec.process = (struct vs_process){ f->time,
			h->type == PERF_RECORD_FORK ? VS_PROCESS_FORK :
						      VS_PROCESS_EXIT,
			f->pid, f->ppid, f->tid, f->ptid };
		if (h->type == PERF_RECORD_EXIT && !vs_probe_tasks(&r->s))
			defer_exit(r, f->tid, f->time);
		break;
	}
	case PERF_RECORD_MMAP2: {
		const struct perf_record_mmap2 {
			struct perf_event_header h;
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
			uint8_t build_id_size, res[3];
			uint8_t build_id[20];
			uint32_t prot, flags;
			char filename[];
		} *m = (const void *)h;

		rec.kind = VS_REC_MMAP;
		rec.mmap = (struct vs_mmap){ sid->time, m->pid, m->tid,
			m->start, m->len, m->pgoff, m->prot, m->flags, 0, {0},
			m->filename };
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			rec.mmap.build_id_len = m->build_id_size > 20 ? 20 :
						m->build_id_size;
			memcpy(rec.mmap.build_id, m->build_id, 20);
		}
		fill_build_id(r, &rec.mmap);
		break;
	}
	case PERF_RECORD_LOST:
		rec.kind = VS_REC_LOST;
		rec.lost = (struct vs_lost){ sid->time, 0, sid->cpu,
			VS_LOST_KERNEL_RING, ((const uint64_t *)(h + 1))[1] };
		r->lost_tracking += rec.lost.count;
		break;
	default:
		if (is_wakeup(r, h))
			take_wakeup(r, (const void *)h);
		return;
	}
	vs_session_write(&r->s, &rec);
}

/*
 * A record of a CPU's sample ring (the engine's filter kept it): a sample,
 * or the count of those the ring had no room for.
 */
static void on_cpu_sample(void *ctx, const struct perf_event_header *h)
{
	struct vs_recorder *r = ctx;
	const struct vs_sample_id *sid = vs_sample_id_of(h);
	struct vs_record rec = { .kind = VS_REC_LOST };

	if (h->type == PERF_RECORD_SAMPLE) {
		vs_sample_write(&r->s, h);
	} else if (h->type == PERF_RECORD_LOST) {
		rec.lost = (struct vs_lost){ sid->time, 0, sid->cpu,
			VS_LOST_KERNEL_RING, ((const uint64_t *)(h + 1))[1] };
		r->s.stats.lost_events += rec.lost.count;
		vs_session_write(&r->s, &rec);
	}
}

/* Records this recent may belong to a process whose FORK is not read yet. */
#define VS_TRACK_SLACK_NS	2000000ull

static void batch_add(void *ctx, const struct perf_event_header *h)
{
	struct vs_track_batch *b = ctx;

	if (b->len + h->size > b->alloc) {
		size_t alloc = b->alloc ? 2 * b->alloc : 65536;
		char *buf;

		while (alloc < b->len + h->size)
			alloc *= 2;
		buf = realloc(b->buf, alloc);
		if (!buf)
			return;
		b->buf = buf;
		b->alloc = alloc;
	}
	memcpy(b->buf + b->len, h, h->size);
	b->len += h->size;
}

/*
 * Is @smp the twin of a wake-up just read from @wf's ring?  While a new
 * filtered event replaces the old one (vs_record_set_wake_filter()), both write
 * the wake-ups that pass both filters: two events, the same data.
 */
static bool is_twin(const struct vs_wake_filter *wf,
		    const struct vs_raw_sample *smp)
{
	const struct vs_wake_seen *w;
	unsigned int i;

	for (i = 0; i < VS_WAKE_SEEN; i++) {
		w = &wf->seen[i];
		if (w->id && w->id != smp->id && w->tid == smp->tid &&
		    smp->time - w->time < VS_WAKE_TWIN_NS &&
		    w->raw_size == smp->raw_size &&
		    !memcmp(w->raw, smp->raw, smp->raw_size))
			return true;
	}
	return false;
}

struct wake_read {
	struct vs_recorder *r;
	struct vs_wake_filter *wf;
};

/* A record of a CPU's wake-up ring into the batch, twins once. */
static void wake_add(void *ctx, const struct perf_event_header *h)
{
	const struct wake_read *wr = ctx;
	const struct vs_raw_sample *smp = (const void *)h;
	struct vs_wake_filter *wf = wr->wf;
	struct vs_wake_seen *w;

	if (is_wakeup(wr->r, h) && smp->raw_size <= VS_WAKE_RAW_MAX) {
		if (is_twin(wf, smp))
			return;
		w = &wf->seen[wf->next_seen++ % VS_WAKE_SEEN];
		w->id = smp->id;
		w->time = smp->time;
		w->tid = smp->tid;
		w->raw_size = smp->raw_size;
		memcpy(w->raw, smp->raw, smp->raw_size);
		wr->r->wakeups_read++;
	}
	batch_add(&wr->r->batch, h);
}

/*
 * The process of a system-wide record (tracking, wake-up), or 0 for the
 * records of the command's own events (probes, switches, losses).
 */
static uint32_t record_pid(const struct vs_recorder *r,
			   const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_MMAP2:
		/* each begins with the pid */
		return *(const uint32_t *)(h + 1);
	}
	return is_wakeup(r, h) ? ((const struct vs_raw_sample *)h)->pid : 0;
}

/* The FORK records of @b that make new processes of the command. */
static void follow_forks(struct vs_recorder *r, const struct vs_track_batch *b)
{
	const struct perf_event_header *h;
	bool more = true;
	size_t off;

	while (more) {		/* a grandchild's fork may come first */
		more = false;
		for (off = 0; off < b->len; off += h->size) {
			const uint32_t *f;	/* pid, ppid, tid, ptid */

			h = (const void *)(b->buf + off);
			f = (const void *)(h + 1);
			if (h->type == PERF_RECORD_FORK && f[0] != f[1] &&
			    command_pid(r, f[1]) && !command_pid(r, f[0])) {
				add_command_pid(r, f[0]);
				more = true;
			}
		}
	}
}

/* A record of a CPU's tracking ring into the batch. */
static void track_add(void *ctx, const struct perf_event_header *h)
{
	struct vs_recorder *r = ctx;

	if (h->type == PERF_RECORD_LOST)
		r->resync = true;
	batch_add(&r->batch, h);
}

static int adopt_child(struct vs_recorder *r, pid_t pid)
{
	if (!command_pid(r, pid))
		add_command_pid(r, pid);
	return 0;
}

/*
 * A tracking ring lost records, or was found full and may be losing them
 * now: the command's FORK, EXIT, COMM and MMAP2 records may be among
 * them (the ring is the whole machine's: a loaded machine that keeps the
 * recorder from it fills it with other processes' records).  Read from
 * /proc what they would have said: the command's processes (a lost FORK),
 * their names and mappings, written again when they changed since the
 * last resync (a lost MMAP2: samples without it cannot be symbolized),
 * and the recorded threads that are gone (a lost EXIT).  A process that
 * came and went while the ring was full stays unknown.
 */
static void resync_command(struct vs_recorder *r)
{
	uint64_t now = vs_perf_clock_ns();
	struct vs_rthread *rt, *next;
	unsigned int gone = 0;
	size_t i;

	r->resync = false;
	for (i = 0; i < r->nr_procs; i++)	/* the new ones' children too */
		for_each_child(r, r->procs[i].pid, adopt_child);
	for (i = r->nr_procs; i-- > 0;)
		if (process_gone(r->procs[i].pid))
			r->procs[i] = r->procs[--r->nr_procs];
		else
			resync_proc(r, &r->procs[i]);
	for (i = 0; i < r->s.nr_buckets; i++)
		for (rt = r->s.threads[i]; rt; rt = next) {
			next = *vs_rthread_next(rt);
			if (process_gone(vs_rthread_tid(rt)))
				gone += vs_record_track_exit(r, vs_rthread_tid(rt), now);
		}
	if (gone)
		vs_record_set_wake_filter(r);
}

/*
 * Read every CPU's tracking ring and keep what concerns the command: the
 * rings are read one after the other, so a child's first records can be
 * read before its parent's FORK; new processes are found first, and a
 * record too recent to be judged (its FORK may still be unread) waits for
 * the next drain.  @all: the command is gone, nothing more will come.
 */
static void drain_tracking(struct vs_recorder *r, bool all)
{
	struct vs_track_batch *b = &r->batch;
	uint64_t read_time = vs_perf_clock_ns();
	uint64_t cut = read_time - VS_TRACK_SLACK_NS;
	const struct perf_event_header *h;
	size_t off, size, carried = b->len, keep = 0;
	unsigned int gone = 0;
	uint32_t pid;
	size_t i;
	int cpu;

	for (cpu = 0; cpu < r->nr_cpus; cpu++)
		vs_perf_ring_read(&r->samples[cpu], on_cpu_sample, r);
	/* wake-ups first: a thread's EXIT in this batch would drop its last */
	for (cpu = 0; cpu < r->nr_cpus; cpu++)
		vs_perf_ring_read(&r->wake[cpu], wake_add,
				  &(struct wake_read){ r, &r->wake_filter[cpu] });
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		vs_perf_ring_read(&r->track[cpu], track_add, r);
		if (r->track[cpu].full)		/* its LOST still to come */
			r->resync = true;
	}
	follow_forks(r, b);
	for (off = 0; off < b->len; off += size) {
		h = (const void *)(b->buf + off);
		size = h->size;
		pid = record_pid(r, h);
		if (!pid || command_pid(r, pid))
			on_track_record(r, h);
		else if (!all && off >= carried &&
			 vs_sample_id_of(h)->time > cut) {
			memmove(b->buf + keep, h, size);
			keep += size;
		}
	}
	b->len = keep;
	for (i = 0; i < r->nr_exits; i++)
		gone += vs_record_track_exit(r, r->exits[i].tid, r->exits[i].time);
	r->nr_exits = 0;
	if (gone)
		vs_record_set_wake_filter(r);
	forget_exited(r, cut);
	if (r->resync)
		resync_command(r);
}

/* --- threads ------------------------------------------------------------- */

struct vs_rthread *vs_session_thread(struct vs_session *s, uint32_t tid)
{
	struct vs_rthread *rt = s->threads[tid % s->nr_buckets];

	while (rt && vs_rthread_tid(rt) != tid)
		rt = *vs_rthread_next(rt);
	return rt;
}

/* Drain every thread; true when one task ring was filling fast. */
static bool drain_threads(struct vs_recorder *r)
{
	unsigned int i, busiest = 0, n;
	struct vs_rthread *rt;

	for (i = 0; i < r->s.nr_buckets; i++)
		for (rt = r->s.threads[i]; rt; rt = *vs_rthread_next(rt)) {
			n = vs_rthread_drain(&r->s, rt);
			if (n > busiest)
				busiest = n;
		}
	return busiest >= VS_RING_ENTRIES / 8;
}

/* Close every thread: exited when the command is gone, else truncated. */
static void close_threads(struct vs_recorder *r, uint64_t time, bool exited)
{
	unsigned int i;
	struct vs_rthread *rt;

	for (i = 0; i < r->s.nr_buckets; i++)
		while ((rt = r->s.threads[i])) {
			r->s.threads[i] = *vs_rthread_next(rt);
			vs_rthread_close(&r->s, rt, time, exited);
		}
	r->s.nr_threads = 0;
}

/*
 * Each recorded thread costs about 30 descriptors here: raise the limit
 * to the system's maximum when allowed, else to the hard limit.
 */
static void raise_nofile(void)
{
	struct rlimit rl;
	unsigned long nr_open = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");

	if (f) {
		if (fscanf(f, "%lu", &nr_open) != 1)
			nr_open = 0;
		fclose(f);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (nr_open > rl.rlim_max) {
		struct rlimit want = { nr_open, nr_open };

		if (!setrlimit(RLIMIT_NOFILE, &want))
			return;
	}
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/*
 * Open every tracepoint on ourselves as it will be opened per thread:
 * the first failure for want of privilege says what is needed; one that
 * the kernel refuses per thread (irq_vectors:irq_work_exit: perf itself
 * raises irq_work) is dropped, with its pair, and named in the trace.
 *
 * The event opened stays open, disabled, until the end: the kernel
 * registers a tracepoint's perf probe with its first event and
 * unregisters it with its last, after an RCU grace period (0.1 s here).
 * Without this one, each time the recorded threads that had it all
 * exited, closing their events waited that long per tracepoint, and a
 * program that makes a thread per request ran 50 times slower.
 */
static int probe_tracepoints(struct vs_recorder *r)
{
	struct vs_tp_set *set = &r->s.tps;
	struct perf_event_attr attr;
	size_t len;
	int i = 0, fd;

	while (i < set->nr) {
		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = set->tp[i].id;
		attr.sample_period = 1;
		attr.sample_type = PERF_SAMPLE_RAW;
		attr.disabled = 1;
		fd = vs_perf_open(&attr, 0, -1, -1);
		if (fd >= 0) {
			if (keep_fd(r, fd))
				close(fd);
			i++;
			continue;
		}
		if ((errno == EACCES || errno == EPERM) && geteuid()) {
			fprintf(stderr, "varscope record: tracing kernel events "
				"needs root or CAP_PERFMON (or "
				"kernel.perf_event_paranoid = -1)\n");
			return -1;
		}
		len = strlen(r->dropped_tps);
		snprintf(r->dropped_tps + len, sizeof(r->dropped_tps) - len,
			 "%s%s:%s (%s)", len ? ", " : "", set->tp[i].system,
			 set->tp[i].name, strerror(errno));
		vs_tp_set_drop(set, i);
	}
	if (!set->nr) {
		fprintf(stderr, "varscope record: no tracepoint can be recorded\n");
		return -1;
	}
	return 0;
}

/*
 * The hardware PMU: one line when it is absent (software counters only,
 * -e raw events named in a note); with one, the hardware events and their
 * epoch schedule, counted per thread (core/record-thread.c).
 */
static int check_pmu(struct vs_recorder *r)
{
	struct vs_pmu pmu;
	unsigned int width;
	char line[256], err[160];

	vs_pmu_probe(&pmu);
	vs_pmu_status(&pmu, line, sizeof(line));
	if (!pmu.hw)
		fprintf(stderr, "varscope record: %s\n", line);
	vs_session_write_meta(&r->s, "pmu", line);
	if (!pmu.hw) {
		if (*r->raw_events) {
			snprintf(line, sizeof(line), "hardware events not "
				 "recorded (no hardware PMU): %s",
				 r->raw_events);
			fprintf(stderr, "varscope record: %s\n", line);
			vs_session_write_meta(&r->s, "note", line);
		}
		return 0;
	}
	/* a group is the fixed counters and at most this many more */
	width = vs_pmu_epoch_width(&pmu);
	if (width > VS_MAX_HW_COUNTERS - pmu.nr_fixed)
		width = VS_MAX_HW_COUNTERS - pmu.nr_fixed;
	r->s.hw = vs_hwcount_new(r->s.cat, pmu.table, r->raw_events, width,
				 err, sizeof(err));
	if (!r->s.hw) {
		fprintf(stderr, "varscope record: hardware counters: %s\n", err);
		return -1;
	}
	return 0;
}


static void write_metas(struct vs_recorder *r)
{
	char buf[64];

	vs_session_write_meta(&r->s, "cmdline",
			      r->opts->cmdline ? r->opts->cmdline : "");
	snprintf(buf, sizeof(buf), "%.9g", r->opts->rate);
	vs_session_write_meta(&r->s, "rate", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->opts->epoch_ns);
	vs_session_write_meta(&r->s, "epoch_ns", buf);
	vs_session_write_meta(&r->s, "note", vs_fault_time_note);
	if (r->dropped_tps[0]) {
		char note[600];

		snprintf(note, sizeof(note), "not recorded: %s", r->dropped_tps);
		vs_session_write_meta(&r->s, "note", note);
	}
}

/* --- the in-kernel engine ------------------------------------------------ */

static const char no_waking_note[] =
	"sched:sched_waking: no format in tracefs: no wake-up edges";

/*
 * Whether the engine accounts the tasks: function calls (--task-func,
 * --probe) always, annotated threads unless a sampling event or hardware
 * counters go with each thread's perf ring, which the engine has not
 * taken over yet.
 */
static bool use_engine(const struct vs_recorder *r)
{
	return !r->s.hw;
}

/* What the engine accounts, from the tracepoints selected (-e). */
static unsigned int engine_what(const struct vs_tp_set *set)
{
	unsigned int what = 0;
	int i, v;

	for (i = 0; i < set->nr; i++)
		switch (set->tp[i].role) {
		case VS_TP_IRQ_ENTRY:
			what |= VS_BPF_IRQ;
			break;
		case VS_TP_SOFTIRQ_ENTRY:
			what |= VS_BPF_SOFTIRQ;
			break;
		case VS_TP_FAULT:
			what |= VS_BPF_FAULT;
			break;
		case VS_TP_VECTOR_ENTRY:
			for (v = 0; v < VS_SLOT_VECTORS; v++)
				if (set->tp[i].label &&
				    !strcmp(set->tp[i].label,
					    vs_bpf_vector_names[v]))
					what |= VS_BPF_VECTOR << v;
			break;
		default:
			break;
		}
	return what;
}

static int open_engine(struct vs_recorder *r)
{
	char err[256];
	int fd;

	if (!use_engine(r)) {
		/* the engine's sched_waking needs no format in tracefs */
		if (r->s.waking.id < 0) {
			fprintf(stderr, "varscope record: %s\n",
				no_waking_note);
			vs_session_write_meta(&r->s, "note", no_waking_note);
		}
		return 0;
	}
	r->s.engine = vs_bpf_engine_open(engine_what(&r->s.tps) |
					 (r->s.probe ? VS_BPF_CALLS : 0) |
					 (r->s.sampling ? VS_BPF_SAMPLES : 0),
					 err, sizeof(err));
	if (!r->s.engine) {
		fprintf(stderr, "varscope record: %s\n", err);
		return -1;
	}
	r->s.values = vs_task_values_new(r->s.cat, r->s.sw_ids);
	if (!r->s.values)
		return -1;
	if (r->s.probe && vs_probe_attach(&r->s, err, sizeof(err))) {
		fprintf(stderr, "varscope record: %s\n", err);
		return -1;
	}
	fd = vs_bpf_engine_events_fd(r->s.engine);
	epoll_ctl(r->s.epoll_fd, EPOLL_CTL_ADD, fd,
		  &(struct epoll_event){ .events = EPOLLIN,
					 .data.u64 = VS_WAKE_RING });
	return 0;
}

/*
 * An event of the engine: a wake-up edge of a thread in a task, or a
 * switch that begins or ends its blocked wait (--syscalls writes every
 * switch of the command already).
 */
static void on_engine_event(void *ctx, const struct vs_engine_event *ev)
{
	struct vs_recorder *r = ctx;
	struct vs_record rec = { 0 };

	/* a function task's thread registers nothing */
	if (!vs_probe_tasks(&r->s) && !vs_session_thread(&r->s, ev->tid))
		return;
	if (ev->kind == VS_ENGINE_WAKE) {
		rec.kind = VS_REC_WAKEUP;
		rec.wakeup = (struct vs_wakeup){ ev->time_ns, ev->other_tid,
						 ev->tid, ev->cpu };
		r->wakeups_read++;
	} else if (!r->opts->syscalls) {
		rec.kind = VS_REC_SWITCH;
		rec.switch_ = (struct vs_switch){
			.time = ev->time_ns, .tid = ev->tid, .cpu = ev->cpu,
			.out = ev->kind == VS_ENGINE_BLOCK };
	} else {
		return;
	}
	vs_session_write(&r->s, &rec);
}

static void drain_engine(struct vs_recorder *r)
{
	if (r->s.engine)
		vs_bpf_engine_read_events(r->s.engine, on_engine_event, r);
}

/* --- the loop ------------------------------------------------------------ */

static void check_child(struct vs_recorder *r)
{
	if (r->child_done)
		return;
	if (r->attached) {
		r->child_done = process_gone(r->child);
		return;
	}
	if (reap_command(r, WNOHANG) == r->child)
		r->child_done = true;
}

static void tick(struct vs_recorder *r)
{
	uint64_t now = vs_perf_clock_ns();

	/* the next segment file, when its time has come */
	if (r->recording && vs_rotwriter_tick(r->s.out, now)) {
		r->s.out_error = errno;
		r->recording = false;
	}
	if (now >= r->next_epoch) {
		r->epoch++;
		rotate_hw(r);
		write_epoch(r, now);
		r->next_epoch = now + r->opts->epoch_ns;
	}
	if (now >= r->next_flush) {
		if (r->recording && vs_rotwriter_flush(r->s.out)) {
			r->s.out_error = errno;
			r->recording = false;
		}
		r->next_flush = now + VS_FLUSH_NS;
	}
}

/* An output error: stop recording, let the command run on. */
static void stop_recording(struct vs_recorder *r)
{
	fprintf(stderr, "varscope record: %s: %s; recording stopped, the command "
		"goes on; the trace keeps what was written (%llu bytes)\n",
		vs_rotwriter_path(r->s.out), strerror(r->s.out_error),
		(unsigned long long)vs_rotwriter_bytes(r->s.out));
	close_threads(r, vs_perf_clock_ns(), false);
	r->s.out_error = -1;	/* said once */
}

/* --syscalls: every system call and context switch of the command. */
#define VS_SYSCALL_PAGES	1024
#define VS_SYSCALL_STACK	512	/* --syscall-stacks: a few frames */

static void write_syscall_record(void *s, const struct vs_record *rec)
{
	vs_session_write(s, rec);
}

/*
 * The system calls of the command, enabled at its exec, or of the
 * attached process's main thread (attach() adds the others).
 */
static int open_syscalls(struct vs_recorder *r)
{
	struct vs_sc_opts sc = { .switches = true, .pages = VS_SYSCALL_PAGES,
				 .callchain = r->opts->syscall_stacks,
				 .long_calls = r->opts->syscall_stacks,
				 .stack_size = VS_SYSCALL_STACK };
	char err[256];

	r->syscalls = vs_syscall_trace_open(r->child, r->attached, &sc, err,
					    sizeof(err));
	if (r->syscalls)
		return 0;
	if (r->attached && process_gone(r->child))
		return attach_lost(r->child);
	fprintf(stderr, "varscope record: --syscalls: %s\n", err);
	if (!r->attached) {
		vs_workload_cancel(&r->workload);
		r->child_done = true;
	}
	return -1;
}

static void drain_syscalls(struct vs_recorder *r, bool all)
{
	if (r->syscalls)
		vs_syscall_trace_records(r->syscalls, 0, all,
					 write_syscall_record, &r->s);
}

static void loop(struct vs_recorder *r)
{
	struct epoll_event evs[16];
	bool busy = false;
	int n, i;

	while (!stop_signal) {
		n = epoll_wait(r->s.epoll_fd, evs, 16,
			       busy ? VS_BUSY_POLL_MS : VS_POLL_MS);
		/*
		 * the tracking first: a thread that registers waits for
		 * the reply, so a resync finds its process alive
		 */
		drain_engine(r);
		drain_tracking(r, false);
		for (i = 0; i < n; i++)
			if (evs[i].data.u64 == VS_WAKE_LISTEN)
				while (vs_record_register_thread(r, false))
					;
		drain_syscalls(r, false);
		busy = drain_threads(r);
		if (!r->recording && r->s.out_error > 0)
			stop_recording(r);
		tick(r);
		check_child(r);
		if (r->child_done)
			break;
		if (r->stop_at && vs_perf_clock_ns() >= r->stop_at)
			break;
	}
}

static const char *signal_name(int sig)
{
	const char *name = strsignal(sig);

	return name ? name : "unknown signal";
}

static int exit_status(struct vs_recorder *r)
{
	int st = r->child_status;

	if (r->attached || r->child_left)
		return 0;
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "varscope record: '%s' terminated by signal %d (%s)\n",
			vs_record_command_name(r), WTERMSIG(st),
			signal_name(WTERMSIG(st)));
		return 128 + WTERMSIG(st);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* How long the recorder waits for the command's exit before saying so. */
#define VS_TERM_NOTE_S	3

/*
 * Wait for the command after its SIGTERM.  One that takes longer than
 * VS_TERM_NOTE_S (it may ignore SIGTERM) is named, once; another SIGINT
 * or SIGTERM ends the wait and leaves it running.
 */
static void wait_command(struct vs_recorder *r)
{
	const struct timespec period = { 0, VS_POLL_MS * 1000000l };
	pid_t pid;
	int i;

	stop_signal = 0;
	for (i = 0;; i++) {
		pid = reap_command(r, WNOHANG);
		if (pid == r->child || (pid < 0 && errno != EINTR))
			break;
		if (stop_signal) {
			r->child_left = true;
			break;
		}
		/*
		 * the machine's records fill the tracking rings meanwhile:
		 * read them as often as the main loop does
		 */
		drain_tracking(r, false);
		if (i == VS_TERM_NOTE_S * 1000 / VS_POLL_MS)
			fprintf(stderr, "varscope record: '%s' (pid %d) has not "
				"exited %d s after SIGTERM: waiting for it; "
				"interrupt again to leave it running\n",
				vs_record_command_name(r), (int)r->child, VS_TERM_NOTE_S);
		nanosleep(&period, NULL);
	}
	r->child_done = true;
}

static void finish(struct vs_recorder *r)
{
	uint64_t now;

	/* a signal or --duration ended the recording: end the command too */
	if (r->attached) {
		r->child_done = true;	/* leave it running */
		vs_probe_stop(&r->s, vs_perf_clock_ns());
	}
	if (!r->child_done) {
		/*
		 * --duration or a signal: the tasks open now are truncated,
		 * then the command is ended (before, its threads' exits
		 * could end them first)
		 */
		now = vs_perf_clock_ns();
		drain_tracking(r, false);
		drain_engine(r);
		vs_probe_stop(&r->s, now);
		close_threads(r, now, false);
		kill(r->child, SIGTERM);
		wait_command(r);
	}
	drain_tracking(r, true);
	drain_syscalls(r, true);
	drain_engine(r);
	now = vs_perf_clock_ns();
	if (r->s.last_time > now)
		now = r->s.last_time;
	close_threads(r, now, true);
	if (!r->recording && r->s.out_error > 0)
		stop_recording(r);
	if (r->recording) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)r->wakeups_read);
		vs_session_write_meta(&r->s, "wakeups_read", buf);
		write_epoch(r, now);
		if (vs_rotwriter_flush(r->s.out))
			stop_recording(r);
	}
}

/*
 * The binary of a --task-func without @BINARY: the command's; NULL when
 * the attached process exited.
 */
static const char *command_binary(struct vs_recorder *r, char *exe)
{
	char path[64];
	ssize_t n;

	if (!r->opts->pid)
		return r->opts->argv[0];
	snprintf(path, sizeof(path), "/proc/%d/exe", r->opts->pid);
	n = readlink(path, exe, PATH_MAX - 1);
	if (n <= 0 && process_gone(r->opts->pid))
		return NULL;
	exe[n > 0 ? n : 0] = 0;
	return exe;
}

int vs_record_split_events(const char *events, char **tps, char **raws,
			   char *err, size_t errlen)
{
	size_t len = events ? strlen(events) : 0;
	char *tp = calloc(1, len + 1), *raw = calloc(1, len + 1);
	struct vs_hw_config hw;
	char item[256];

	*tps = tp;
	*raws = raw;
	if (!tp || !raw)
		return -1;
	if (events && !*events) {
		snprintf(err, errlen, "names no event");
		return -1;
	}
	while (vs_event_list_next(&events, item, sizeof(item))) {
		if (strchr(item, ':')) {
			strcat(tp, *tp ? "," : "");
			strcat(tp, item);
		} else if (vs_x86_parse_raw(item, &hw, err, errlen)) {
			return -1;
		} else {
			strcat(raw, *raw ? "," : "");
			strcat(raw, item);
		}
	}
	return 0;
}

static int setup(struct vs_recorder *r)
{
	char err[256], exe[PATH_MAX], *tps = NULL;
	const char *binary;
	int i;

	if (vs_record_split_events(r->opts->events, &tps, &r->raw_events, err,
				   sizeof(err))) {
		fprintf(stderr, "varscope record: -e: %s\n", err);
		free(tps);
		return -1;
	}
	/* no tracepoint named: all of them */
	i = vs_tp_set_init(&r->s.tps, *tps ? tps : NULL, err, sizeof(err));
	free(tps);
	if (i) {
		fprintf(stderr, "varscope record: %s\n", err);
		return -1;
	}
	if (!r->s.tps.nr) {
		fprintf(stderr, "varscope record: no tracepoint selected\n");
		return -1;
	}
	if (probe_tracepoints(r))
		return -1;
	vs_tp_waking(&r->s.tps, &r->s.waking);
	if (r->opts->task_funcs || r->opts->probe_funcs) {
		binary = command_binary(r, exe);
		if (!binary)
			return attach_lost(r->opts->pid);
		if (vs_probe_init(&r->s, r->opts->task_funcs,
				  r->opts->probe_funcs, binary, err,
				  sizeof(err))) {
			fprintf(stderr, "varscope record: %s\n", err);
			return -1;
		}
	}
	for (i = 0; i < r->s.tps.nr; i++)
		if (r->s.tps.tp[i].role == VS_TP_SWITCH)
			r->s.have_switch_tp = true;
	raise_nofile();
	r->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (r->nr_cpus > VS_MAX_CPUS)
		r->nr_cpus = VS_MAX_CPUS;
	r->s.nr_buckets = 4096;
	r->s.threads = calloc(r->s.nr_buckets, sizeof(*r->s.threads));
	r->s.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (!r->s.threads || r->s.epoll_fd < 0 || vs_record_open_socket(r)) {
		fprintf(stderr, "varscope record: cannot listen: %s\n",
			strerror(errno));
		return -1;
	}
	if (open_output(r))
		return -1;
	r->recording = true;
	r->s.cat = vs_catalog_new(on_new_event, &r->s);
	r->s.acct = vs_acct_new(r->s.cat, on_task, &r->s);
	if (!r->s.cat || !r->s.acct)
		return -1;
	/*
	 * Function tasks have no per-thread group to read the software
	 * counters from: leave them out of the catalog, and so out of the
	 * epochs, rather than have every task read them as 0.
	 */
	if (!vs_probe_tasks(&r->s))
		vs_rthread_sw_counters(&r->s);
	write_metas(r);
	vs_probe_write_symbols(&r->s);
	vs_probe_name_types(&r->s);
	vs_probe_write_cost(&r->s);
	if (check_pmu(r))
		return -1;
	if (vs_sample_setup(&r->s, err, sizeof(err))) {
		fprintf(stderr, "varscope record: %s\n", err);
		return -1;
	}
	return open_engine(r);
}

/*
 * -r: the recorder runs SCHED_FIFO, so that a loaded machine does not
 * keep it from its rings for long (perf record -r); reset on fork, so
 * that the command runs as it would.
 */
static int go_realtime(const struct vs_record_opts *opts)
{
	struct sched_param sp = { .sched_priority = opts->realtime };

	if (!opts->realtime ||
	    !sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		return 0;
	fprintf(stderr, "varscope record: --realtime %d: %s\n", opts->realtime,
		strerror(errno));
	return -1;
}

int vs_record(const struct vs_record_opts *opts)
{
	struct vs_recorder *r = calloc(1, sizeof(*r));
	struct sigaction sa = { .sa_handler = on_stop_signal };
	int status = 1, i;

	if (!r)
		return 1;
	r->opts = opts;
	r->s.opts = opts;
	r->listen_fd = r->s.epoll_fd = -1;
	/* before its binary is read for --task-func */
	if ((opts->pid && check_target(opts->pid)) || go_realtime(opts) ||
	    setup(r))
		goto out;
	if (open_tracking(r)) {
		fprintf(stderr, "varscope record: cannot track: %s\n",
			strerror(errno));
		goto out;
	}
	/* before any task: readers collect for the blame in their first pass */
	if (r->s.waking.id >= 0 || r->s.engine)
		vs_session_write_meta(&r->s, "wakeups", VS_META_WAKEUPS_RECORDED);
	if (opts->pid) {
		r->child = opts->pid;
		r->attached = true;
		/* first: attach() adds the threads and children to it */
		if ((opts->syscalls && open_syscalls(r)) || attach(r, opts->pid))
			goto out;
	} else if (start_child(r)) {
		fprintf(stderr, "varscope record: cannot start '%s': %s\n",
			opts->argv[0], strerror(errno));
		goto out;
	} else {
		add_command_pid(r, r->child);
		if (r->s.probe && vs_probe_trace(&r->s, r->child)) {
			fprintf(stderr, "varscope record: cannot trace '%s': %s\n",
				opts->argv[0], strerror(errno));
			vs_workload_cancel(&r->workload);
			r->child_done = true;
			goto out;
		}
		if (opts->syscalls && open_syscalls(r))
			goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	r->next_epoch = vs_perf_clock_ns();
	r->next_flush = r->next_epoch + VS_FLUSH_NS;
	if (opts->duration_ns)
		r->stop_at = r->next_epoch + opts->duration_ns;
	/* room in the tracking rings for the exec's records */
	drain_tracking(r, false);
	if (!r->attached && release_child(r)) {
		status = 127;
		goto out;
	}
	tick(r);
	loop(r);
	if (!r->attached)
		vs_workload_terminal_back(&r->workload);
	while (vs_record_register_thread(r, true))
		;
	finish(r);
	vs_record_summary(r);
	status = exit_status(r);
out:
	if (r->s.out && vs_rotwriter_close(r->s.out) && r->recording)
		fprintf(stderr, "varscope record: closing the trace: %s\n",
			strerror(errno));
	vs_syscall_trace_close(r->syscalls);
	vs_task_values_free(r->s.values);
	vs_bpf_engine_close(r->s.engine);
	vs_acct_free(r->s.acct);
	vs_type_names_release(&r->s.type_names);
	vs_hwcount_free(r->s.hw);
	vs_catalog_free(r->s.cat);
	vs_probe_free(&r->s);
	for (i = 0; i < r->nr_cpus; i++)
		if (r->track[i].base) {
			close(r->track[i].fd);
			vs_perf_ring_unmap(&r->track[i]);
		}
	for (i = 0; i < r->nr_cpus; i++)	/* the engine closes their fds */
		vs_perf_ring_unmap(&r->samples[i]);
	for (i = 0; i < r->nr_cpus; i++)
		if (r->wake[i].base) {
			if (r->wake_filter[i].fd >= 0)
				close(r->wake_filter[i].fd);
			close(r->wake[i].fd);
			vs_perf_ring_unmap(&r->wake[i]);
		}
	while (r->nr_extra_fds)
		close(r->extra_fds[--r->nr_extra_fds]);
	free(r->extra_fds);
	free(r->procs);
	free(r->batch.buf);
	free(r->exits);
	while (r->nr_build_ids)
		free(r->build_ids[--r->nr_build_ids].path);
	free(r->build_ids);
	vs_tp_set_exit(&r->s.tps);
	free(r->raw_events);
	free(r->s.threads);
	free(r);
	return status;
}
