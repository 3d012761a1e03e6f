// SPDX-License-Identifier: MIT
/*
 * syncs.c - for t3120-report-breakdown: task type 1 writes 4 KiB to a file
 * and fdatasync()s it, 200 times; type 2 sleeps 2 ms, 200 times.  The
 * first waits in fdatasync (uninterruptible, for the disk), the second in
 * clock_nanosleep.
 *
 * usage: syncs FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "varscope.h"

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 2000000 };
	char buf[4096];
	int fd, i;

	if (argc != 2 || (fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC,
				    0600)) < 0)
		return 1;
	memset(buf, 'x', sizeof(buf));
	vs_task_type_name(1, "sync");
	vs_task_type_name(2, "sleep");
	for (i = 0; i < 200; i++) {
		vs_task_begin(1);
		if (write(fd, buf, sizeof(buf)) != sizeof(buf) ||
		    fdatasync(fd))
			return 1;
		vs_task_end(1);
		vs_task_begin(2);
		nanosleep(&ts, NULL);
		vs_task_end(2);
	}
	close(fd);
	return 0;
}
