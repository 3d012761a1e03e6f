// SPDX-License-Identifier: MIT
/*
 * forks.c - a program whose children hang and end: it forks N children
 * that each block in a read of a pipe nobody writes until the parent
 * closes it, S seconds later; then it reaps them, prints "reaped" and
 * sleeps T seconds.
 *
 * usage: forks N S T
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fds[2], i, n, s, t;
	char c;

	if (argc != 4 || (n = atoi(argv[1])) < 1 || (s = atoi(argv[2])) < 1 ||
	    (t = atoi(argv[3])) < 0) {
		fprintf(stderr, "usage: forks N S T\n");
		return 2;
	}
	if (pipe(fds) < 0) {
		perror("forks: pipe");
		return 1;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("forks: fork");
			return 1;
		}
		if (!pid) {
			close(fds[1]);
			_exit(read(fds[0], &c, 1) == 0 ? 0 : 1);
		}
	}
	sleep(s);
	close(fds[1]);
	while (wait(NULL) > 0)
		;
	printf("reaped\n");
	fflush(stdout);
	sleep(t);
	return 0;
}
