// SPDX-License-Identifier: MIT
/*
 * proc.c - the threads of a process, as /proc/PID/task lists them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/proc.h"

int vs_proc_tids_open(struct vs_proc_tids *it, pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	it->dir = opendir(path);
	return it->dir ? 0 : -1;
}

pid_t vs_proc_tids_next(struct vs_proc_tids *it)
{
	struct dirent *d;
	long tid;

	while (it->dir && (d = readdir(it->dir))) {
		tid = strtol(d->d_name, NULL, 10);
		if (tid > 0)
			return (pid_t)tid;
	}
	return 0;
}

void vs_proc_tids_close(struct vs_proc_tids *it)
{
	if (it->dir)
		closedir(it->dir);
	it->dir = NULL;
}
