/* SPDX-License-Identifier: MIT */
/*
 * recorder.h - the recording session as the parts of core/record/record.c's
 * command see it: struct vs_recorder (the session, the command, the
 * tracking rings, the output), shared by record.c, the registration
 * socket (core/record/control.c) and the summary (core/record/summary.c).
 */
#ifndef VS_CORE_RECORD_RECORDER_H
#define VS_CORE_RECORD_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/perf-ring.h"
#include "core/record/record-int.h"
#include "core/symbols/symbols.h"
#include "core/workload.h"

#define VS_MAX_CPUS		1024

#define VS_REG_ACCEPTS		64	/* connections taken a wake-up */
#define VS_REG_WAITING		64	/* connections waiting for their message */
#define VS_REG_WAIT_NS		1000000000ull

/* A connection of the command's whose message has not come yet. */
struct vs_reg_conn {
	int fd;
	pid_t pid;		/* its peer, checked to be the command's */
	uint64_t deadline;	/* CLOCK_MONOTONIC ns */
};

struct vs_recorder {
	struct vs_session s;
	const struct vs_record_opts *opts;
	pid_t child;
	struct vs_workload workload;	/* the command, before its exec */
	char ctl[160];			/* VARSCOPE_CTL=... for it */
	int child_status;
	char child_comm[16];		/* its name once it ran, "" before */
	bool child_reaped;
	bool child_done;
	bool child_left;		/* it outlived its SIGTERM: left running */
	int listen_fd;
	char sock_name[64];
	struct vs_reg_conn reg_waiting[VS_REG_WAITING];
	unsigned int nr_reg_waiting;
	int nr_cpus;
	struct vs_perf_ring track[VS_MAX_CPUS];
	/* --sample: each CPU's samples (kept by the engine's filter) */
	struct vs_perf_ring samples[VS_MAX_CPUS];
	uint64_t samples_read[VS_MAX_CPUS];	/* samples read from them */
	uint64_t samples_lost[VS_MAX_CPUS];	/* and counted lost */
	uint64_t lost_tracking;		/* tracking records */
	uint64_t wakeups_read;		/* the engine's wake-up edges read */
	uint32_t epoch;
	uint64_t start, next_epoch, next_flush, stop_at;
	bool recording;		/* false after an output error */
	bool started;		/* the command runs (or -p's is attached) */
	uint64_t late_threads;	/* registered after it: not recorded */
	bool attached;		/* -p: the process is not ours */
	char *raw_events;	/* -e hardware events, comma separated */
	struct command_proc {	/* the command's processes, unsorted */
		pid_t pid;
		uint64_t state;	/* hash of what resync_proc() wrote */
		uint64_t exit_time;	/* its leader's EXIT, 0: none yet */
	} *procs;
	size_t nr_procs, alloc_procs;
	bool resync;		/* tracking records lost: resync_command() */
	uint64_t resyncs;	/* process states written again */
	struct vs_track_batch {	/* tracking records of a drain */
		char *buf;
		size_t len, alloc;
	} batch;
	int refuse_errno;	/* why opening a thread's events failed */
	struct vs_syscall_trace *syscalls;	/* --syscalls */
	struct build_id_of {	/* files whose build-id was read here */
		char *path;
		uint8_t id[VS_BUILD_ID_MAX];
		size_t len;
	} *build_ids;
	size_t nr_build_ids, cap_build_ids;
};

/**
 * vs_record_fault_note - why page faults are not timed, in @buf (a note
 * of the trace and a line of the summary), or NULL when they are
 */
const char *vs_record_fault_note(const struct vs_recorder *r, char *buf,
				 size_t len);

/**
 * vs_record_track_exit - thread @tid exited at @time: close its recorded
 * thread; true when it was one
 */
bool vs_record_track_exit(struct vs_recorder *r, uint32_t tid, uint64_t time);

/* --- core/record/command.c: the command's life --------------------------- */

/**
 * vs_record_start_command - fork the command with VARSCOPE_CTL, held
 * before its exec; 0 or -1 (said in one line)
 */
int vs_record_start_command(struct vs_recorder *r);

/* vs_record_release_command - let the command exec; -1 (said) if it could not */
int vs_record_release_command(struct vs_recorder *r);

/**
 * vs_record_command_name - the command's own name for messages: what it
 * exec'd last (from /proc while it is not reaped), argv[0] until then
 */
const char *vs_record_command_name(struct vs_recorder *r);

/**
 * vs_record_reap_command - waitpid() of the command with @flags, its name
 * read first while it is a zombie; the pid reaped, 0 or -1 as waitpid()
 */
pid_t vs_record_reap_command(struct vs_recorder *r, int flags);

/* vs_record_signal_name - signal @sig's name, for messages */
const char *vs_record_signal_name(int sig);

/**
 * vs_record_exit_status - record's exit status from the command's (128 +
 * N for a signal, said); 0 when it was attached to or left running
 */
int vs_record_exit_status(struct vs_recorder *r);

/**
 * vs_record_command_binary - the binary of a --task-func without @BINARY:
 * the command's, or the attached process's (read into @exe, PATH_MAX
 * bytes); NULL when that process exited
 */
const char *vs_record_command_binary(struct vs_recorder *r, char *exe);

/* --- core/record/tracking.c: the command's processes --------------------- */

/* vs_record_add_command_pid - process @pid is the command's from now on */
void vs_record_add_command_pid(struct vs_recorder *r, pid_t pid);

/**
 * vs_record_open_tracking - the tracking events of every CPU, and the
 * sampling events of --sample; 0 or -1 (said in one line)
 */
int vs_record_open_tracking(struct vs_recorder *r);

/**
 * vs_record_drain_tracking - read every CPU's tracking ring and keep what
 * concerns the command; @all: the command is gone, nothing more will come
 */
void vs_record_drain_tracking(struct vs_recorder *r, bool all);

/* vs_record_process_gone - no process @pid, or only its zombie */
bool vs_record_process_gone(pid_t pid);

/* vs_record_check_target - -p @pid: 0, or one line and -1 unless it lives */
int vs_record_check_target(pid_t pid);

/**
 * vs_record_attach - -p: follow @pid, its threads and children, and the
 * processes it forks from now on; 0 or -1 (said in one line)
 */
int vs_record_attach(struct vs_recorder *r, pid_t pid);

/* vs_record_attach_lost - -p: @pid exited before its recording began */
int vs_record_attach_lost(pid_t pid);

/**
 * vs_record_open_socket - listen on the registration socket named in the
 * command's VARSCOPE_CTL; 0 or -1 with errno
 */
int vs_record_open_socket(struct vs_recorder *r);

/**
 * vs_record_registrations - take the connections of the socket, at most
 * VS_REG_ACCEPTS a call: a thread's registration (checked to be the
 * command's own, answered with its slot and descriptors) or a task
 * type's name; @names_only at the end, when a registering thread is told
 * no.  A connection from outside the command is closed unread and
 * counted; one whose message has not come waits (never the loop) for
 * VS_REG_WAIT_NS at most, among VS_REG_WAITING, and is retried at each
 * call.  Returns the number of connections accepted.
 */
unsigned int vs_record_registrations(struct vs_recorder *r, bool names_only);

/**
 * vs_record_summary - the end of record's lines on stderr: what was
 * written, lost, dropped and refused, the notes, and the processes left
 * running
 */
void vs_record_summary(struct vs_recorder *r);

#endif /* VS_CORE_RECORD_RECORDER_H */
