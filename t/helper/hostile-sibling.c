// SPDX-License-Identifier: MIT
/*
 * hostile-sibling - a thread of a traced program that asks "varscope
 * record" for its sibling's registration (issue 19): the sibling runs
 * TASKS tasks of type 1, each a 1 ms sleep, while the main thread, once
 * before the sibling's first task and once in the middle of them,
 * connects to the recorder's registration socket and sends the
 * library's request with the sibling's tid.  It plays the protocol as
 * the library does (core/record/task-ring.h), vouching for its own socket: all
 * it changes is the tid.
 *
 *	hostile-sibling [TASKS]
 *
 * Prints "sibling: tid=T tasks=N" (the tasks it ran) and
 * "attack: accepted=A refused=R" (the recorder's answers); exits 0.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "varscope.h"
#include "core/record/task-ring.h"

static int nr_tasks = 300;
static pid_t sibling_tid;	/* set by the sibling */
static int attacked;		/* attacks made */
static int done;		/* the sibling's tasks ended */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int load(int *v)
{
	return __atomic_load_n(v, __ATOMIC_ACQUIRE);
}

static void *sibling(void *arg)
{
	int i;

	(void)arg;
	__atomic_store_n(&sibling_tid, gettid(), __ATOMIC_RELEASE);
	while (load(&attacked) < 1)
		sleep_ms(1);
	for (i = 0; i < nr_tasks; i++) {
		vs_task_begin(1);
		sleep_ms(1);
		vs_task_end(1);
		__atomic_store_n(&done, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * Ask the recorder for thread @tid's registration: 0 when it answered
 * with descriptors (closed here), its refusal's errno otherwise.
 */
static int ask_for(pid_t tid)
{
	struct vs_reg_request req = { VS_REG_MAGIC, getpid(), tid };
	struct vs_reg_reply rep = { 0 };
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 10 };
	const char *ctl = getenv(VS_CTL_ENV);
	const char *name = ctl ? strstr(ctl, "sock=") : NULL;
	char cbuf[CMSG_SPACE(sizeof(int) * VS_REG_MAX_FDS)];
	struct iovec iov = { &rep, sizeof(rep) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cmsg;
	void *head = NULL;
	size_t len = 0, name_len;
	struct stat st;
	int sock, i, err = EIO;

	if (!name)
		return ENOENT;
	name += 5;
	name_len = strcspn(name, ",");
	if (name_len >= sizeof(addr.sun_path) - 1)
		return ENAMETOOLONG;
	memcpy(addr.sun_path + 1, name, name_len);
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return errno;
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* the library's word, for its own socket: only the tid lies */
	syscall(SYS_get_robust_list, 0, &head, &len);
	if (!fstat(sock, &st))
		syscall(SYS_set_robust_list, vs_reg_vouch(st.st_ino), len);
	if (!connect(sock, (struct sockaddr *)&addr,
		     offsetof(struct sockaddr_un, sun_path) + 1 + name_len) &&
	    send(sock, &req, sizeof(req), MSG_NOSIGNAL) == sizeof(req) &&
	    recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) == sizeof(rep) &&
	    rep.magic == VS_REG_MAGIC)
		err = rep.status;
	syscall(SYS_set_robust_list, head, len);
	for (cmsg = CMSG_FIRSTHDR(&msg); !err && cmsg;
	     cmsg = CMSG_NXTHDR(&msg, cmsg))
		if (cmsg->cmsg_type == SCM_RIGHTS)
			for (i = 0; i < (int)((cmsg->cmsg_len - CMSG_LEN(0)) /
					      sizeof(int)); i++)
				close(((int *)CMSG_DATA(cmsg))[i]);
	close(sock);
	return err;
}

int main(int argc, char **argv)
{
	int accepted = 0, refused = 0;
	pthread_t t;
	pid_t tid;

	if (argc > 1)
		nr_tasks = atoi(argv[1]);
	if (pthread_create(&t, NULL, sibling, NULL))
		return 1;
	while (!(tid = __atomic_load_n(&sibling_tid, __ATOMIC_ACQUIRE)))
		sleep_ms(1);
	/* before the sibling registered, then while it records */
	ask_for(tid) ? refused++ : accepted++;
	__atomic_store_n(&attacked, 1, __ATOMIC_RELEASE);
	while (load(&done) < nr_tasks / 3)
		sleep_ms(1);
	ask_for(tid) ? refused++ : accepted++;
	pthread_join(t, NULL);
	printf("sibling: tid=%d tasks=%d\n", tid, load(&done));
	printf("attack: accepted=%d refused=%d\n", accepted, refused);
	return 0;
}
