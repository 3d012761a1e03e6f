/* SPDX-License-Identifier: MIT */
/*
 * workload.h - start a command stopped before its exec, so events can be
 * opened on it (enable_on_exec) before it runs a single instruction.
 */
#ifndef VS_CORE_WORKLOAD_H
#define VS_CORE_WORKLOAD_H

#include <sys/types.h>

struct vs_workload {
	pid_t pid;
	int go_fd;		/* write end of the gate */
	int err_fd;		/* read end: errno of a failed exec */
	int tty_fd;		/* the terminal the child took, or -1 */
};

/* The child gets SIGTERM when the process that forked it dies. */
#define VS_WORKLOAD_DIE_WITH_PARENT	1u
/*
 * The child leads a process group of its own: a kill(0, sig) of the
 * command (a server's shutdown signalling its group) does not reach the
 * process that started it, nor that one's shell.
 */
#define VS_WORKLOAD_OWN_GROUP		2u
/*
 * With VS_WORKLOAD_OWN_GROUP, when the caller is the foreground of the
 * terminal on its standard input: the child's group takes the terminal
 * at its exec, so the command reads it (and gets its Ctrl-C) as it
 * would without the caller; vs_workload_terminal_back() returns it.
 */
#define VS_WORKLOAD_TERMINAL		4u

/**
 * vs_workload_fork - fork; the child waits at the gate, then execs
 * @argv[0] (searched in PATH) with @argv, with @env ("NAME=VALUE", or
 * NULL) added to its environment.  @flags: VS_WORKLOAD_*.  Returns 0 or
 * -1 with errno.
 */
int vs_workload_fork(struct vs_workload *w, const char *const *argv,
		     const char *env, unsigned int flags);

/**
 * vs_workload_prepare - vs_workload_fork() of a child that dies with its
 * parent, in the parent's environment
 */
int vs_workload_prepare(struct vs_workload *w, const char *const *argv);

/**
 * vs_workload_start - open the gate; returns 0, or -1 with errno set to
 * the reason exec failed (the child is then reaped)
 */
int vs_workload_start(struct vs_workload *w);

/**
 * vs_workload_terminal_back - give the terminal the child took
 * (VS_WORKLOAD_TERMINAL) back to the caller's process group; nothing
 * when it took none
 */
void vs_workload_terminal_back(struct vs_workload *w);

/**
 * vs_workload_cancel - kill the child held at the gate and reap it
 */
void vs_workload_cancel(struct vs_workload *w);

#endif /* VS_CORE_WORKLOAD_H */
