// SPDX-License-Identifier: MIT
/*
 * command.c - the recorded command's life: its fork, held before its exec
 * until its events exist, its release, its name for messages, its reaping
 * and the exit status record passes on.  The main loop that watches it is
 * core/record/record.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/record/recorder.h"
#include "core/workload.h"

/*
 * Fork the command, held before its exec until its events exist, with
 * VARSCOPE_CTL for the library (not for function tasks: the program's
 * own annotations would make tasks too).  It outlives the recorder.
 */
int vs_record_start_command(struct vs_recorder *r)
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
int vs_record_release_command(struct vs_recorder *r)
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
pid_t vs_record_reap_command(struct vs_recorder *r, int flags)
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

const char *vs_record_signal_name(int sig)
{
	const char *name = strsignal(sig);

	return name ? name : "unknown signal";
}

int vs_record_exit_status(struct vs_recorder *r)
{
	int st = r->child_status;

	if (r->attached || r->child_left)
		return 0;
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "varscope record: '%s' terminated by signal %d (%s)\n",
			vs_record_command_name(r), WTERMSIG(st),
			vs_record_signal_name(WTERMSIG(st)));
		return 128 + WTERMSIG(st);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/*
 * The binary of a --task-func without @BINARY: the command's; NULL when
 * the attached process exited.
 */
const char *vs_record_command_binary(struct vs_recorder *r, char *exe)
{
	char path[64];
	ssize_t n;

	if (!r->opts->pid)
		return r->opts->argv[0];
	snprintf(path, sizeof(path), "/proc/%d/exe", r->opts->pid);
	n = readlink(path, exe, PATH_MAX - 1);
	if (n <= 0 && vs_record_process_gone(r->opts->pid))
		return NULL;
	exe[n > 0 ? n : 0] = 0;
	return exe;
}
