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
};

/**
 * vs_workload_prepare - fork; the child waits at the gate, then execs
 * @argv[0] (searched in PATH) with @argv.  Returns 0 or -1 with errno.
 */
int vs_workload_prepare(struct vs_workload *w, const char *const *argv);

/**
 * vs_workload_start - open the gate; returns 0, or -1 with errno set to
 * the reason exec failed (the child is then reaped)
 */
int vs_workload_start(struct vs_workload *w);

#endif /* VS_CORE_WORKLOAD_H */
