// SPDX-License-Identifier: MIT
/*
 * open-gate - hold the first open of a file until a command has run: a
 * test's way to act at an exact point of another program, the moment it
 * opens FILE (a fanotify permission event: the opener waits in open(2)
 * for the answer, whatever the load).
 *
 *	open-gate FILE CMD [ARG...]
 *
 * Prints "armed" once FILE is watched.  At the first open of FILE by
 * another process, runs CMD, then lets the open go on and prints
 * "opened by COMM (pid P)".  Exits with CMD's status; 1 when FILE is
 * not opened within 60 s; 2, with one line, when the kernel gives no
 * permission events (CONFIG_FANOTIFY_ACCESS_PERMISSIONS, root).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/wait.h>
#include <unistd.h>

#define WAIT_MS	60000

/* The status of CMD @argv run to its end, 127 when it could not run. */
static int run(char **argv)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return 127;
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "open-gate: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void comm_of(pid_t pid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f || !fgets(comm, len, f))
		snprintf(comm, len, "?");
	comm[strcspn(comm, "\n")] = 0;
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	struct fanotify_event_metadata ev[16], *m;
	struct pollfd pfd;
	char comm[64];
	ssize_t n;
	int fd, status = -1;

	if (argc < 3) {
		fprintf(stderr, "usage: open-gate FILE CMD [ARG...]\n");
		return 2;
	}
	fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	if (fd < 0 || fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD,
				    argv[1])) {
		fprintf(stderr, "open-gate: no fanotify permission events for "
			"%s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	printf("armed\n");
	fflush(stdout);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (status < 0) {
		if (poll(&pfd, 1, WAIT_MS) <= 0) {
			fprintf(stderr, "open-gate: %s not opened in %d s\n",
				argv[1], WAIT_MS / 1000);
			return 1;
		}
		n = read(fd, ev, sizeof(ev));
		if (n <= 0)
			continue;
		for (m = ev; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			struct fanotify_response r = { m->fd, FAN_ALLOW };

			if (m->pid != getpid() && status < 0) {
				comm_of(m->pid, comm, sizeof(comm));
				status = run(argv + 2);
				printf("opened by %s (pid %d)\n", comm,
				       (int)m->pid);
				fflush(stdout);
			}
			if (write(fd, &r, sizeof(r)) != sizeof(r))
				perror("open-gate: fanotify answer");
			if (m->fd >= 0)
				close(m->fd);
		}
	}
	return status < 0 ? 1 : status;
}
