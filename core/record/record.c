// SPDX-License-Identifier: MIT
/*
 * record.c - the recording engine: run the command, register its threads,
 * track its processes and mappings, drain every ring, write.
 * The session's struct is core/record/recorder.h's; the end's summary is
 * core/record/summary.c, the registration socket core/record/control.c,
 * the command's fork, reaping and exit status core/record/command.c.
 *
 * The program links libvarscope; VARSCOPE_CTL in its environment names
 * the rate and an abstract unix socket.  Each thread registers there at
 * its first selected task, and gets its slot in the in-kernel engine
 * (core/record/bpf-engine.h) and its task ring (core/record/thread.c).
 * What record knows of the command's processes (tracking records, -p,
 * /proc) is core/record/tracking.c's.  Nothing is opened in the
 * command's threads: the engine's programs and the tracking events are
 * per CPU.  The main loop wakes every 10 ms (1 ms while a task ring
 * fills fast), or when a ring passes its watermark, drains everything,
 * writes an EPOCH record per epoch and flushes a chunk at least every
 * second.
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

#include "core/arch.h"
#include "core/pmu.h"
#include "core/array.h"
#include "core/plural.h"
#include "core/record/record-int.h"
#include "core/record/recorder.h"
#include "core/sort.h"
#include "core/symbols/symbols.h"
#include "core/analysis/wakeup.h"
#include "core/signature/syscall-trace.h"
#include "core/workload.h"

#define VS_POLL_MS		10
#define VS_BUSY_POLL_MS		1	/* while task rings fill fast */
#define VS_FLUSH_NS		1000000000ull
#ifndef VARSCOPE_VERSION
#define VARSCOPE_VERSION "0.0"
#endif

static volatile sig_atomic_t stop_signal;

const char *vs_record_fault_note(const struct vs_recorder *r, char *buf,
				 size_t len)
{
	const char *why = r->s.engine ?
			  vs_bpf_engine_no_fault_time(r->s.engine) : NULL;

	if (!why)
		return NULL;
	snprintf(buf, len, "fault.page.time unavailable: page faults have no "
		 "exit tracepoint and this kernel refuses fentry/fexit on "
		 "their handler (%s): a fault's handling is in run.time; "
		 "fault.page.count only", why);
	return buf;
}

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
 * The engine counts the current epoch's events on every CPU, in place of
 * the epoch before's; the tasks of that set take their values by them.
 * A failure leaves the set before (counted for the summary).
 */
static int engine_counters(struct vs_recorder *r)
{
	const struct vs_hw_config *hw;
	const uint16_t *ids;
	unsigned int n = vs_hwcount_group(r->s.hw, &hw, &ids);
	char err[160];
	uint32_t gen;

	gen = vs_bpf_engine_counters(r->s.engine, hw, n, err, sizeof(err));
	if (!gen) {
		if (!r->s.hw_failures++)
			snprintf(r->s.hw_error, sizeof(r->s.hw_error), "%s",
				 err);
		return -1;
	}
	/*
	 * before the first tick (epoch 0), the set counts for epoch 1: the
	 * tick writes its EPOCH record with these events (a -p or a
	 * --task-func task may come before it)
	 */
	vs_task_values_counters(r->s.values, gen, r->epoch ? r->epoch : 1,
				ids, n);
	return 0;
}

/*
 * A new epoch: its counters on the engine's CPUs (the schedule counts
 * epochs from 0, the trace from 1).
 */
static void rotate_hw(struct vs_recorder *r)
{
	if (!r->s.hw)
		return;
	vs_hwcount_set_epoch(r->s.hw, r->epoch - 1);
	engine_counters(r);
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
	r->s.epoch = r->epoch;
	vs_session_write(&r->s, &rec);
	free(ids);
}

static const char *output_path(const struct vs_recorder *r)
{
	return r->opts->output ? r->opts->output : VS_DEFAULT_FILE;
}

static int open_output(struct vs_recorder *r)
{
	const char *path = output_path(r);
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

	/*
	 * The trace there (or its segment files) is set aside until the
	 * command runs (keep_old_trace()): a recording that cannot start
	 * (no privilege, a command that does not exist) puts it back.
	 */
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
 * --syscalls on an attached process opens two events per CPU for each of
 * its threads: raise the limit to the system's maximum when allowed,
 * else to the hard limit.
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
 * The hardware PMU: one line when it is absent (software counters only,
 * -e raw events named in a note); with one, the hardware events and their
 * epoch schedule, counted per CPU by the engine.
 *
 * Tests only (VARSCOPE_TEST_SW_COUNTERS, DEVELOPERS.md): on a machine
 * without a PMU, software events in place of hardware ones
 * (vs_arch_software_table()), two programmable events an epoch, through the
 * same schedule, map and programs.
 */
static int check_pmu(struct vs_recorder *r)
{
	const struct vs_arch_table *table;
	const char *raws = r->raw_events;
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
		if (!getenv("VARSCOPE_TEST_SW_COUNTERS"))
			return 0;
		table = vs_arch_software_table();
		raws = NULL;
		width = 2;
	} else {
		/* a group is the fixed counters and at most this many more */
		table = pmu.table;
		width = vs_pmu_epoch_width(&pmu);
		if (width > VS_SLOT_COUNTERS - pmu.nr_fixed)
			width = VS_SLOT_COUNTERS - pmu.nr_fixed;
	}
	r->s.hw = vs_hwcount_new(r->s.cat, table, raws, width, err,
				 sizeof(err));
	if (!r->s.hw) {
		fprintf(stderr, "varscope record: hardware counters: %s\n", err);
		return -1;
	}
	return 0;
}


static void write_metas(struct vs_recorder *r)
{
	char buf[64], note[512];

	vs_session_write_meta(&r->s, "cmdline",
			      r->opts->cmdline ? r->opts->cmdline : "");
	snprintf(buf, sizeof(buf), "%.9g", r->opts->rate);
	vs_session_write_meta(&r->s, "rate", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->opts->epoch_ns);
	vs_session_write_meta(&r->s, "epoch_ns", buf);
	if (vs_record_fault_note(r, note, sizeof(note)))
		vs_session_write_meta(&r->s, "note", note);
}

/* --- the in-kernel engine ------------------------------------------------ */

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

/*
 * Load the engine, first of all that needs privileges: a kernel without
 * BTF or a user without CAP_BPF gets that one line, and nothing else.
 */
static int load_engine(struct vs_recorder *r)
{
	char err[256];

	r->s.engine = vs_bpf_engine_open(engine_what(&r->s.tps) |
					 (r->s.probe ? VS_BPF_CALLS : 0) |
					 (r->opts->sample ? VS_BPF_SAMPLES : 0),
					 err, sizeof(err));
	if (!r->s.engine) {
		fprintf(stderr, "varscope record: %s\n", err);
		return -1;
	}
	return 0;
}

/* The loaded engine's counters, probes and event ring. */
static int open_engine(struct vs_recorder *r)
{
	char err[256];
	int fd;

	if (r->s.hw && engine_counters(r)) {
		fprintf(stderr, "varscope record: hardware counters: %s\n",
			r->s.hw_error);
		return -1;
	}
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
	vs_bpf_engine_read_events(r->s.engine, on_engine_event, r);
}

/* --- the loop ------------------------------------------------------------ */

static void check_child(struct vs_recorder *r)
{
	if (r->child_done)
		return;
	if (r->attached) {
		r->child_done = vs_record_process_gone(r->child);
		return;
	}
	if (vs_record_reap_command(r, WNOHANG) == r->child)
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
#define VS_SYSCALL_STACK	512	/* --syscall-stacks: a few frames */

/*
 * Each CPU's ring of --syscalls holds what the recorder may be late by on
 * a loaded machine: t7030's overlap wrote 32 MB/s a CPU with two CPU hogs
 * beside it, and the recorder's 10 ms poll returned 40 to 450 ms late, so
 * that rings of 4 MiB lost records in half the runs.  32 MiB a CPU, less
 * past 4 CPUs (128 MiB in all), 4 MiB at least.
 */
#define VS_SYSCALL_PAGES_MAX	8192
#define VS_SYSCALL_PAGES_MIN	1024
#define VS_SYSCALL_PAGES_ALL	32768

static unsigned int syscall_ring_pages(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned int pages = VS_SYSCALL_PAGES_MAX;

	while (pages > VS_SYSCALL_PAGES_MIN && cpus > 0 &&
	       (long)pages * cpus > VS_SYSCALL_PAGES_ALL)
		pages /= 2;
	return pages;
}

static void write_syscall_record(void *s, const struct vs_record *rec)
{
	vs_session_write(s, rec);
}

/*
 * The system calls of the command, enabled at its exec, or of the
 * attached process's main thread (vs_record_attach() adds the others).
 */
static int open_syscalls(struct vs_recorder *r)
{
	struct vs_sc_opts sc = { .switches = true, .pages = syscall_ring_pages(),
				 .callchain = r->opts->syscall_stacks,
				 .long_calls = r->opts->syscall_stacks,
				 .stack_size = VS_SYSCALL_STACK };
	char err[256];

	r->syscalls = vs_syscall_trace_open(r->child, r->attached, &sc, err,
					    sizeof(err));
	if (r->syscalls)
		return 0;
	if (r->attached && vs_record_process_gone(r->child))
		return vs_record_attach_lost(r->child);
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
		vs_record_drain_tracking(r, false);
		for (i = 0; i < n; i++)
			if (evs[i].data.u64 == VS_WAKE_LISTEN)
				break;
		if (i < n || r->nr_reg_waiting)
			vs_record_registrations(r, false);
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
		pid = vs_record_reap_command(r, WNOHANG);
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
		vs_record_drain_tracking(r, false);
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
		vs_record_drain_tracking(r, false);
		drain_engine(r);
		vs_probe_stop(&r->s, now);
		close_threads(r, now, false);
		kill(r->child, SIGTERM);
		wait_command(r);
	}
	vs_record_drain_tracking(r, true);
	drain_syscalls(r, true);
	drain_engine(r);
	now = vs_perf_clock_ns();
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
		} else if (vs_arch_parse_raw(item, &hw, err, errlen)) {
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
	if (r->opts->task_funcs || r->opts->probe_funcs) {
		binary = vs_record_command_binary(r, exe);
		if (!binary)
			return vs_record_attach_lost(r->opts->pid);
		if (vs_probe_init(&r->s, r->opts->task_funcs,
				  r->opts->probe_funcs, binary, err,
				  sizeof(err))) {
			fprintf(stderr, "varscope record: %s\n", err);
			return -1;
		}
	}
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
	if (load_engine(r) || open_output(r))
		return -1;
	r->recording = true;
	r->s.cat = vs_catalog_new(on_new_event, &r->s);
	if (!r->s.cat)
		return -1;
	/*
	 * Function tasks are named by the engine's own events only: with
	 * context-switches beside sched.*.count, the ranking put the count
	 * first (t2045).  Their ids are then none.  The engine's names come
	 * before the hardware events': cpu.freq takes run.time's id.
	 */
	if (!vs_probe_tasks(&r->s))
		vs_rthread_sw_counters(&r->s);
	else
		for (i = 0; i < VS_NR_SW_COUNTERS; i++)
			r->s.sw_ids[i] = VS_EVENT_NO_PARENT;
	r->s.values = vs_task_values_new(r->s.cat, r->s.sw_ids);
	if (!r->s.values)
		return -1;
	if (vs_bpf_engine_fault_time(r->s.engine))
		vs_task_values_fault_time(r->s.values);
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
	struct sigaction sa = { .sa_handler = on_stop_signal,
				.sa_flags = SA_RESTART };
	int status = 1, i;
	char err[256];

	if (!r)
		return 1;
	/*
	 * An interrupt while record starts (loading its programs can take
	 * seconds) is kept, not lost nor fatal: the recording then ends as
	 * soon as it began; meanwhile the calls it interrupts restart.
	 */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	r->opts = opts;
	r->s.opts = opts;
	r->listen_fd = r->s.epoll_fd = -1;
	/* before its binary is read for --task-func */
	if ((opts->pid && vs_record_check_target(opts->pid)) || go_realtime(opts) ||
	    setup(r))
		goto out;
	if (vs_record_open_tracking(r)) {
		fprintf(stderr, "varscope record: cannot track: %s\n",
			strerror(errno));
		goto out;
	}
	/* before any task: readers collect for the blame in their first pass */
	vs_session_write_meta(&r->s, "wakeups", VS_META_WAKEUPS_RECORDED);
	if (opts->pid) {
		r->child = opts->pid;
		r->attached = true;
		/* first: vs_record_attach() adds the threads and children to it */
		if ((opts->syscalls && open_syscalls(r)) || vs_record_attach(r, opts->pid))
			goto out;
		fprintf(stderr, "varscope record: attached to process %d "
			"(%s): recording until it exits or an interrupt\n",
			(int)opts->pid, vs_record_command_name(r));
	} else if (vs_record_start_command(r)) {
		fprintf(stderr, "varscope record: cannot start '%s': %s\n",
			opts->argv[0], strerror(errno));
		goto out;
	} else {
		vs_record_add_command_pid(r, r->child);
		if (r->s.probe && vs_probe_trace(&r->s, r->child, err,
						 sizeof(err))) {
			fprintf(stderr, "varscope record: cannot trace '%s': %s\n",
				opts->argv[0], err);
			vs_workload_cancel(&r->workload);
			r->child_done = true;
			goto out;
		}
		if (opts->syscalls && open_syscalls(r))
			goto out;
	}
	if (stop_signal && !r->attached) {
		fprintf(stderr, "varscope record: stopped by signal %d (%s) "
			"before '%s' started: nothing recorded\n",
			(int)stop_signal, vs_record_signal_name(stop_signal),
			opts->argv[0]);
		vs_workload_cancel(&r->workload);
		r->child_done = true;
		status = 128 + stop_signal;
		goto out;
	}
	/* from now on a stop signal also ends the loop's waits */
	sa.sa_flags = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	r->next_epoch = vs_perf_clock_ns();
	r->next_flush = r->next_epoch + VS_FLUSH_NS;
	if (opts->duration_ns)
		r->stop_at = r->next_epoch + opts->duration_ns;
	/* room in the tracking rings for the exec's records */
	vs_record_drain_tracking(r, false);
	if (!r->attached && vs_record_release_command(r)) {
		status = 127;
		goto out;
	}
	r->started = true;
	if (vs_rotwriter_keep_old(r->s.out))
		fprintf(stderr, "varscope record: cannot rename the earlier "
			"trace to %s.old: %s\n", output_path(r), strerror(errno));
	tick(r);
	loop(r);
	if (!r->attached)
		vs_workload_terminal_back(&r->workload);
	/* the names sent last: at most VS_MAX_TYPE_NAMES connections */
	for (i = 0; i < VS_MAX_TYPE_NAMES / VS_REG_ACCEPTS + 1; i++)
		if (vs_record_registrations(r, true) < VS_REG_ACCEPTS)
			break;
	finish(r);
	vs_record_summary(r);
	status = vs_record_exit_status(r);
out:
	if (!r->started)
		vs_rotwriter_discard(r->s.out);
	else if (vs_rotwriter_close(r->s.out) && r->recording)
		fprintf(stderr, "varscope record: closing the trace: %s\n",
			strerror(errno));
	vs_syscall_trace_close(r->syscalls);
	vs_task_values_free(r->s.values);
	vs_bpf_engine_close(r->s.engine);
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
	free(r->procs);
	free(r->batch.buf);
	while (r->nr_build_ids)
		free(r->build_ids[--r->nr_build_ids].path);
	free(r->build_ids);
	vs_tp_set_exit(&r->s.tps);
	free(r->raw_events);
	free(r->s.threads);
	free(r);
	return status;
}
