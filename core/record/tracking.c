// SPDX-License-Identifier: MIT
/*
 * tracking.c - what record knows of the command's processes: a tracking
 * dummy event per CPU, system-wide, gives COMM, FORK, EXIT and MMAP2
 * (with build-ids) records, of which the recorder keeps the command's
 * processes', followed through their FORKs (an EXIT ends a recorded
 * thread); each CPU's --sample ring; -p, attaching to a running
 * process; and /proc, read again for what a full ring lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/array.h"
#include "core/proc.h"
#include "core/record/record-int.h"
#include "core/record/recorder.h"
#include "core/symbols/symbols.h"
#include "core/signature/syscall-trace.h"

#define VS_SAMPLE_CPU_PAGES	512	/* per CPU, with every sample */
#define VS_TRACK_PAGES		64

/*
 * @attr for an event of the recorder: every record sampled (period 1)
 * with VS_SAMPLE_TYPE, sample_id_all, on CLOCK_MONOTONIC
 */
static void vs_event_attr(struct perf_event_attr *attr, uint32_t type,
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

void vs_record_add_command_pid(struct vs_recorder *r, pid_t pid)
{
	if (ALLOC_GROW(r->procs, r->nr_procs + 1, r->alloc_procs))
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

/* Process @i of the command is gone: forgotten, its probes closed. */
static void drop_proc(struct vs_recorder *r, size_t i)
{
	vs_probe_forget(&r->s, r->procs[i].pid);
	r->procs[i] = r->procs[--r->nr_procs];
}

/* Forget the processes whose leader exited before @time by the grace. */
static void forget_exited(struct vs_recorder *r, uint64_t time)
{
	size_t i;

	for (i = r->nr_procs; i-- > 0;)
		if (r->procs[i].exit_time &&
		    r->procs[i].exit_time + VS_EXIT_GRACE_NS < time)
			drop_proc(r, i);
}

/*
 * The tracking dummy of every CPU, system-wide (a per-task one would
 * cost every thread of the command at each context switch), each owning
 * that CPU's tracking ring, and under --sample the CPU's sampling event.
 */
int vs_record_open_tracking(struct vs_recorder *r)
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
		if (r->s.sampling &&
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
bool vs_record_process_gone(pid_t pid)
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
int vs_record_check_target(pid_t pid)
{
	if (kill(pid, 0) && errno == ESRCH) {
		fprintf(stderr, "varscope record: no process %d\n", pid);
		return -1;
	}
	if (vs_record_process_gone(pid)) {
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
		if (ALLOC_GROW(r->build_ids, i + 1, r->cap_build_ids))
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
	struct vs_proc_tids tids;
	pid_t tid;
	FILE *f;

	vs_proc_tids_open(&tids, pid);
	while ((tid = vs_proc_tids_next(&tids))) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
		if (!(f = fopen(path, "r")))
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
	vs_proc_tids_close(&tids);
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
int vs_record_attach_lost(pid_t pid)
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
	struct vs_proc_tids tids;
	char path[80];
	int ret = 0, child;
	pid_t tid;
	FILE *f;

	vs_proc_tids_open(&tids, pid);
	while (!ret && (tid = vs_proc_tids_next(&tids))) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid,
			 tid);
		if (!(f = fopen(path, "r")))
			continue;
		while (!ret && fscanf(f, "%d", &child) == 1)
			ret = fn(r, child);
		fclose(f);
	}
	vs_proc_tids_close(&tids);
	return ret;
}

/*
 * Follow @pid: its threads, and the processes it forks from now on, with
 * the events of follow_thread() in each of its threads.  Then the same
 * for the children it has now (a pre-forking server's workers), which
 * inherit nothing from it.  The attached process (vs_record_check_target() at
 * the start) may exit meanwhile: its threads' events fail then, and that
 * is said in one line; a child or a thread that exits is no error.
 */
int vs_record_attach(struct vs_recorder *r, pid_t pid)
{
	struct vs_proc_tids tids;
	char err[256];
	pid_t tid;

	if (vs_proc_tids_open(&tids, pid))
		return pid == r->opts->pid ? vs_record_attach_lost(pid) : 0;
	write_proc_state(r, pid);
	vs_record_add_command_pid(r, pid);
	while ((tid = vs_proc_tids_next(&tids))) {
		if (follow_thread(r, pid, tid)) {
			vs_proc_tids_close(&tids);
			return -1;
		}
	}
	vs_proc_tids_close(&tids);
	/* its calls after its threads' system calls: a call has them all */
	if (r->s.probe && vs_probe_trace(&r->s, pid, err, sizeof(err)) &&
	    !vs_record_process_gone(pid)) {
		fprintf(stderr, "varscope record: cannot trace process %d: %s\n",
			pid, err);
		return -1;
	}
	if (for_each_child(r, pid, vs_record_attach))
		return -1;
	if (pid == r->opts->pid && vs_record_process_gone(pid))
		return vs_record_attach_lost(pid);
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
		if (h->type == PERF_RECORD_FORK && command_pid(r, f->ppid))
			vs_probe_forked(&r->s, f->ppid, f->time);
		rec.kind = VS_REC_PROCESS;
		rec.process = (struct vs_process){ f->time,
			h->type == PERF_RECORD_FORK ? VS_PROCESS_FORK :
						      VS_PROCESS_EXIT,
			f->pid, f->ppid, f->tid, f->ptid };
		if (h->type == PERF_RECORD_EXIT && !vs_probe_tasks(&r->s))
			vs_record_track_exit(r, f->tid, f->time);
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
		return;
	}
	vs_session_write(&r->s, &rec);
}

struct sample_read {
	struct vs_recorder *r;
	int cpu;		/* whose ring */
};

/* Samples of @cpu's ring lost at @time: a LOST record, and counted. */
static void samples_lost(struct vs_recorder *r, int cpu, uint64_t time,
			 uint64_t count)
{
	struct vs_record rec = { .kind = VS_REC_LOST };

	rec.lost = (struct vs_lost){ time, 0, cpu, VS_LOST_SAMPLES, count };
	r->samples_lost[cpu] += count;
	r->s.stats.lost_samples += count;
	vs_session_write(&r->s, &rec);
}

/*
 * A record of a CPU's sample ring (the engine's filter kept it): a sample,
 * or the count of those the ring had no room for.
 */
static void on_cpu_sample(void *ctx, const struct perf_event_header *h)
{
	const struct sample_read *sr = ctx;

	if (h->type == PERF_RECORD_SAMPLE) {
		sr->r->samples_read[sr->cpu]++;
		vs_sample_write(&sr->r->s, h);
	} else if (h->type == PERF_RECORD_LOST) {
		samples_lost(sr->r, sr->cpu, vs_sample_id_of(h)->time,
			     ((const uint64_t *)(h + 1))[1]);
	}
}

/*
 * The last read: the samples each CPU's filter kept that were neither
 * read nor counted lost were lost in a ring found full at its end (the
 * kernel counts them out in a PERF_RECORD_LOST at the ring's next record,
 * which never comes).  Counted here, at @time.
 */
static void settle_samples(struct vs_recorder *r, uint64_t time)
{
	uint64_t passed[VS_MAX_CPUS], seen;
	int cpu;

	if (!r->s.sampling ||
	    vs_bpf_engine_samples_passed(r->s.engine, passed, r->nr_cpus))
		return;
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		seen = r->samples_read[cpu] + r->samples_lost[cpu];
		if (r->samples[cpu].base && passed[cpu] > seen)
			samples_lost(r, cpu, time, passed[cpu] - seen);
	}
}

/* Records this recent may belong to a process whose FORK is not read yet. */
#define VS_TRACK_SLACK_NS	2000000ull

static void batch_add(void *ctx, const struct perf_event_header *h)
{
	struct vs_track_batch *b = ctx;

	if (ALLOC_GROW(b->buf, b->len + h->size, b->alloc))
		return;
	memcpy(b->buf + b->len, h, h->size);
	b->len += h->size;
}

/* The process of a tracking record, or 0 for a loss. */
static uint32_t record_pid(const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_MMAP2:
		/* each begins with the pid */
		return *(const uint32_t *)(h + 1);
	}
	return 0;
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
				vs_record_add_command_pid(r, f[0]);
				vs_probe_follow(&r->s, f[0]);
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
	if (!command_pid(r, pid)) {
		vs_record_add_command_pid(r, pid);
		vs_probe_follow(&r->s, pid);
	}
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
	size_t i;

	r->resync = false;
	for (i = 0; i < r->nr_procs; i++)	/* the new ones' children too */
		for_each_child(r, r->procs[i].pid, adopt_child);
	for (i = r->nr_procs; i-- > 0;)
		if (vs_record_process_gone(r->procs[i].pid))
			drop_proc(r, i);
		else
			resync_proc(r, &r->procs[i]);
	for (i = 0; i < r->s.nr_buckets; i++)
		for (rt = r->s.threads[i]; rt; rt = next) {
			next = *vs_rthread_next(rt);
			if (vs_record_process_gone(vs_rthread_tid(rt)))
				vs_record_track_exit(r, vs_rthread_tid(rt), now);
		}
}

/*
 * Read every CPU's tracking ring and keep what concerns the command: the
 * rings are read one after the other, so a child's first records can be
 * read before its parent's FORK; new processes are found first, and a
 * record too recent to be judged (its FORK may still be unread) waits for
 * the next drain.  @all: the command is gone, nothing more will come.
 */
void vs_record_drain_tracking(struct vs_recorder *r, bool all)
{
	struct vs_track_batch *b = &r->batch;
	uint64_t read_time = vs_perf_clock_ns();
	uint64_t cut = read_time - VS_TRACK_SLACK_NS;
	const struct perf_event_header *h;
	size_t off, size, carried = b->len, keep = 0;
	uint32_t pid;
	int cpu;

	for (cpu = 0; cpu < r->nr_cpus; cpu++)
		vs_perf_ring_read(&r->samples[cpu], on_cpu_sample,
				  &(struct sample_read){ r, cpu });
	if (all)
		settle_samples(r, read_time);
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		vs_perf_ring_read(&r->track[cpu], track_add, r);
		if (r->track[cpu].full)		/* its LOST still to come */
			r->resync = true;
	}
	follow_forks(r, b);
	for (off = 0; off < b->len; off += size) {
		h = (const void *)(b->buf + off);
		size = h->size;
		pid = record_pid(h);
		if (!pid || command_pid(r, pid))
			on_track_record(r, h);
		else if (!all && off >= carried &&
			 vs_sample_id_of(h)->time > cut) {
			memmove(b->buf + keep, h, size);
			keep += size;
		}
	}
	b->len = keep;
	forget_exited(r, cut);
	if (r->resync)
		resync_command(r);
}
