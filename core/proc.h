/* SPDX-License-Identifier: MIT */
/*
 * proc.h - the threads of a process, as /proc/PID/task lists them.
 *
 *	struct vs_proc_tids it;
 *	pid_t tid;
 *
 *	if (vs_proc_tids_open(&it, pid))
 *		return -1;	(errno: ENOENT when the process is gone)
 *	while ((tid = vs_proc_tids_next(&it)))
 *		...
 *	vs_proc_tids_close(&it);
 *
 * The list is the kernel's at each read: a thread that starts meanwhile
 * may or may not be in it, one that exits may still be.
 */
#ifndef VS_CORE_PROC_H
#define VS_CORE_PROC_H

#include <dirent.h>
#include <sys/types.h>

struct vs_proc_tids {
	DIR *dir;
};

/**
 * vs_proc_tids_open - start listing the threads of process @pid
 * @it: the iterator
 * @pid: the process
 *
 * Returns 0, or -1 with errno when /proc cannot list them.
 */
int vs_proc_tids_open(struct vs_proc_tids *it, pid_t pid);

/**
 * vs_proc_tids_next - the next thread's id, 0 at the end of the list
 */
pid_t vs_proc_tids_next(struct vs_proc_tids *it);

/**
 * vs_proc_tids_close - end the listing; nothing when it was not open
 */
void vs_proc_tids_close(struct vs_proc_tids *it);

#endif
