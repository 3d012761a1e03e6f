// SPDX-License-Identifier: MIT
/*
 * workload.c - fork a command and hold it before exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "core/workload.h"

/*
 * Make @pgrp the foreground of terminal @fd, from a process that may be
 * in the background (SIGTTOU blocked meanwhile, as shells do).
 */
static void take_terminal(int fd, pid_t pgrp)
{
	sigset_t ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	tcsetpgrp(fd, pgrp);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int vs_workload_fork(struct vs_workload *w, const char *const *argv,
		     const char *env, unsigned int flags)
{
	int go[2], err[2];
	char c;

	w->tty_fd = -1;
	if ((flags & VS_WORKLOAD_OWN_GROUP) && (flags & VS_WORKLOAD_TERMINAL) &&
	    isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp())
		w->tty_fd = STDIN_FILENO;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	w->pid = fork();
	if (w->pid < 0) {
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return -1;
	}
	if (!w->pid) {
		close(go[1]);
		close(err[0]);
		if (flags & VS_WORKLOAD_DIE_WITH_PARENT)
			prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (flags & VS_WORKLOAD_OWN_GROUP)
			setpgid(0, 0);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		if (w->tty_fd >= 0)
			take_terminal(w->tty_fd, getpid());
		if (env)
			putenv((char *)env);
		execvp(argv[0], (char *const *)argv);
		c = errno;
		if (write(err[1], &c, 1) != 1)
			_exit(127);
		_exit(127);
	}
	if (flags & VS_WORKLOAD_OWN_GROUP)
		setpgid(w->pid, w->pid);	/* whichever runs first */
	close(go[0]);
	close(err[1]);
	w->go_fd = go[1];
	w->err_fd = err[0];
	return 0;
}

int vs_workload_prepare(struct vs_workload *w, const char *const *argv)
{
	return vs_workload_fork(w, argv, NULL, VS_WORKLOAD_DIE_WITH_PARENT);
}

int vs_workload_start(struct vs_workload *w)
{
	char c = 1;
	int ret = 0;

	if (write(w->go_fd, &c, 1) != 1)
		ret = -1;
	close(w->go_fd);
	if (!ret && read(w->err_fd, &c, 1) == 1) {
		waitpid(w->pid, NULL, 0);
		errno = c;
		ret = -1;
	}
	close(w->err_fd);
	return ret;
}

void vs_workload_terminal_back(struct vs_workload *w)
{
	if (w->tty_fd < 0)
		return;
	take_terminal(w->tty_fd, getpgrp());
	w->tty_fd = -1;
}

void vs_workload_cancel(struct vs_workload *w)
{
	kill(w->pid, SIGKILL);
	close(w->go_fd);
	close(w->err_fd);
	waitpid(w->pid, NULL, 0);
}
