// SPDX-License-Identifier: MIT
/*
 * control.c - the recorder's registration socket: a thread of the command
 * asks for its slot and the recorder checks that it is one of the
 * command's before it answers; a program names a task type.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include "core/plural.h"
#include "core/proc.h"
#include "core/record/recorder.h"

/* Is @pid the command or one of its descendants? */
static bool in_command(struct vs_recorder *r, pid_t pid)
{
	char path[64], buf[512], *p;
	int depth;
	FILE *f;

	for (depth = 0; depth < 64 && pid > 1; depth++) {
		if (pid == r->child)
			return true;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			return false;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		p = p ? strrchr(buf, ')') : NULL;
		if (!p || sscanf(p, ") %*c %d", &pid) != 1)
			return false;
	}
	return false;
}

/* The id thread @tid of /proc/@pid has in its own, innermost pid namespace. */
static pid_t inner_tid(pid_t pid, pid_t tid)
{
	char path[80], line[256];
	pid_t inner = 0;
	char *p, *end;
	long id;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "NSpid:", 6))
			for (p = line + 6; (id = strtol(p, &end, 10)), end != p;
			     p = end)
				inner = id;
	fclose(f);
	return inner;
}

/*
 * The thread that registers, @tid of the process @pid in its own pid
 * namespace (what its getpid() and gettid() say), is thread @peer (the
 * socket's peer, in our namespace): its tid in our namespace, 0 when
 * @peer has no such thread.  A command in a pid namespace of its own
 * (unshare -p, a container) numbers its threads differently.
 */
static pid_t peer_tid(pid_t peer, pid_t pid, pid_t tid)
{
	struct vs_proc_tids tids;
	char path[64];
	struct stat st;
	pid_t ours = 0, t;

	if (pid == peer) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, tid);
		return stat(path, &st) ? 0 : tid;
	}
	vs_proc_tids_open(&tids, peer);
	while (!ours && (t = vs_proc_tids_next(&tids)))
		if (inner_tid(peer, t) == tid)
			ours = t;
	vs_proc_tids_close(&tids);
	return ours;
}

/*
 * The inode of the socket at the other end of our connection @fd, as the
 * kernel says (unix_diag, the interface of ss -x): 0 when it cannot
 * say, with errno set when the kernel cannot say it of any socket.
 */
static uint64_t peer_inode(int fd)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} q = {
		.nlh = { .nlmsg_len = sizeof(q),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST },
		.req = { .sdiag_family = AF_UNIX,
			 .udiag_show = UDIAG_SHOW_PEER,
			 .udiag_cookie = { INET_DIAG_NOCOOKIE,
					   INET_DIAG_NOCOOKIE } },
	};
	union {
		struct nlmsghdr nlh;
		char buf[1024];
	} a;
	struct unix_diag_msg *m;
	struct nlmsgerr *e;
	struct rtattr *rta;
	struct stat st;
	uint64_t ino = 0;
	int nl, rta_len;
	ssize_t n;

	if (fstat(fd, &st))
		return 0;
	q.req.udiag_ino = st.st_ino;
	nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl < 0)
		return 0;
	/* the kernel answers within send(): the answer waits already */
	n = send(nl, &q, sizeof(q), 0) == sizeof(q) ?
	    recv(nl, &a, sizeof(a), MSG_DONTWAIT) : -1;
	if (n >= 0)
		errno = EPROTO;
	if (n >= (ssize_t)NLMSG_LENGTH(sizeof(*e)) &&
	    a.nlh.nlmsg_type == NLMSG_ERROR) {
		e = NLMSG_DATA(&a.nlh);
		errno = -e->error;
	} else if (n >= (ssize_t)NLMSG_LENGTH(sizeof(*m)) &&
		   a.nlh.nlmsg_len <= n &&
		   a.nlh.nlmsg_type == SOCK_DIAG_BY_FAMILY) {
		m = NLMSG_DATA(&a.nlh);
		rta = (struct rtattr *)(m + 1);
		rta_len = a.nlh.nlmsg_len - NLMSG_LENGTH(sizeof(*m));
		for (; RTA_OK(rta, rta_len); rta = RTA_NEXT(rta, rta_len))
			if (rta->rta_type == UNIX_DIAG_PEER &&
			    RTA_PAYLOAD(rta) >= sizeof(uint32_t))
				ino = *(uint32_t *)RTA_DATA(rta);
		errno = 0;
	}
	close(nl);
	return ino;
}

/*
 * Did thread @tid (ours) send the registration on our connection @fd?  It
 * vouched for its socket (vs_reg_vouch() of core/record/task-ring.h): its
 * robust futex list, which a sibling cannot set, names the inode the
 * kernel gives as our connection's peer.  A sibling that names it sends
 * from a socket of its own, which @tid never vouches for.  1 when it did,
 * 0 when not, -1 when the kernel does not say which socket is the peer
 * (errno: why, 0 when the peer is gone).
 */
static int vouched(int fd, pid_t tid)
{
	uint64_t ino = peer_inode(fd);
	size_t len;
	void *head;

	if (!ino)
		return -1;
	return !syscall(SYS_get_robust_list, tid, &head, &len) &&
	       head == vs_reg_vouch(ino);
}

/*
 * @nr_fds descriptors @fds, or none, to thread @tid (ours: 0 if refused),
 * accounted by the engine in @slot (0 if refused)
 */
static void reply(int fd, int status, const int *fds, unsigned int nr_fds,
		  uint32_t flags, pid_t tid, uint32_t slot)
{
	struct vs_reg_reply rep = { VS_REG_MAGIC, status, nr_fds, flags, tid,
				    slot };
	char cbuf[CMSG_SPACE(sizeof(int) * VS_REG_MAX_FDS)];
	struct iovec iov = { &rep, sizeof(rep) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;

	if (fds) {
		memset(cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * nr_fds);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * nr_fds);
		memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * nr_fds);
	}
	sendmsg(fd, &msg, MSG_NOSIGNAL);
}

/* Said once, when it happens: the summary counts the threads refused. */
static void out_of_fds(struct vs_recorder *r, int err)
{
	struct rlimit rl = { 0, 0 };

	getrlimit(RLIMIT_NOFILE, &rl);
	fprintf(stderr, "varscope record: %s (limit %llu) with %u %s "
		"traced: threads registering now are not recorded, those "
		"traced go on\n", strerror(err),
		(unsigned long long)rl.rlim_cur, r->s.nr_threads,
		vs_plural(r->s.nr_threads, "thread", "threads"));
}

/*
 * The message of connection @fd from @pid, a process of the command
 * (command_peer()), if it came (false: not yet; @fd is then still open).
 * A thread registers: check that it is a thread of @pid, take its slot,
 * pass the descriptors.  The ids it sends are its own pid namespace's; the peer's
 * pid is ours.  Or a program names a task type (vs_task_type_name()).
 * @names_only at the end of the recording: the names sent last are
 * written, and a thread registering then is told no.  @fd is closed.
 */
static bool take_message(struct vs_recorder *r, int fd, pid_t pid,
			 bool names_only)
{
	union {
		struct vs_reg_request req;
		struct vs_type_name_msg name;
	} msg;
	struct vs_reg_request *req = &msg.req;
	struct vs_rthread *rt, *old;
	int fds[VS_REG_MAX_FDS];
	unsigned int nr_fds;
	int err;
	pid_t tid = 0;
	ssize_t n;

	n = recv(fd, &msg, sizeof(msg), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	if (n == sizeof(msg.name) && msg.name.magic == VS_NAME_MAGIC) {
		vs_session_name_type_msg(&r->s, &msg.name);
		close(fd);
		return true;
	}
	if (names_only) {
		reply(fd, ENOSPC, NULL, 0, 0, 0, 0);
		close(fd);
		return true;
	}
	if (n != sizeof(*req) || req->magic != VS_REG_MAGIC ||
	    !(tid = peer_tid(pid, req->pid, req->tid))) {
		reply(fd, EPERM, NULL, 0, 0, 0, 0);
		r->s.stats.refused++;
		close(fd);
		return true;
	}
	switch (vouched(fd, tid)) {
	case 1:
		break;
	case 0:
		reply(fd, EPERM, NULL, 0, 0, 0, 0);
		r->s.stats.misnamed++;
		close(fd);
		return true;
	default:
		if (errno && r->refuse_errno != errno)
			fprintf(stderr, "varscope record: the kernel does not "
				"say which socket a thread registers from "
				"(unix_diag: %s): threads are not recorded\n",
				strerror(errno));
		if (errno)
			r->refuse_errno = errno;
		reply(fd, EPERM, NULL, 0, 0, 0, 0);
		r->s.stats.refused++;
		close(fd);
		return true;
	}
	if (!r->recording) {
		reply(fd, ENOSPC, NULL, 0, 0, 0, 0);
		r->late_threads++;
		close(fd);
		return true;
	}
	/* the same tid again: it exec'd; its old image's state ends here */
	old = vs_session_thread(&r->s, tid);
	if (old)
		vs_record_track_exit(r, tid, vs_perf_clock_ns());
	rt = vs_rthread_open(&r->s, pid, tid);
	if (!rt) {
		err = errno;
		if ((err == EMFILE || err == ENFILE) && r->refuse_errno != err)
			out_of_fds(r, err);
		reply(fd, err, NULL, 0, 0, 0, 0);
		if (err == ENOSPC) {
			r->s.stats.no_slot++;
		} else {
			r->refuse_errno = err;
			r->s.stats.refused++;
		}
		close(fd);
		return true;
	}
	*vs_rthread_next(rt) = r->s.threads[tid % r->s.nr_buckets];
	r->s.threads[tid % r->s.nr_buckets] = rt;
	r->s.nr_threads++;
	r->s.stats.threads++;
	nr_fds = vs_rthread_fds(&r->s, rt, fds);
	reply(fd, 0, fds, nr_fds,
	      nr_fds == VS_REG_MAX_FDS ? VS_REG_COUNTERS : 0, tid,
	      vs_rthread_slot(rt));
	vs_rthread_sent(rt);
	close(fd);
	return true;
}

/* The peer of connection @fd when the command is (the kernel's word), or 0. */
static pid_t command_peer(struct vs_recorder *r, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) &&
	       in_command(r, cred.pid) ? cred.pid : 0;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

unsigned int vs_record_registrations(struct vs_recorder *r, bool names_only)
{
	uint64_t now = monotonic_ns();
	struct vs_reg_conn *c;
	unsigned int i;
	pid_t pid;
	int fd;

	/* those whose message had not come, until their time is up */
	for (i = 0; i < r->nr_reg_waiting;) {
		c = &r->reg_waiting[i];
		if (!take_message(r, c->fd, c->pid, names_only)) {
			if (now < c->deadline && !names_only) {
				i++;
				continue;
			}
			close(c->fd);
			r->s.stats.silent++;
		}
		*c = r->reg_waiting[--r->nr_reg_waiting];
	}
	for (i = 0; i < VS_REG_ACCEPTS; i++) {
		fd = accept4(r->listen_fd, NULL, NULL,
			     SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			break;
		pid = command_peer(r, fd);
		if (!pid) {
			close(fd);
			r->s.stats.strangers++;
			continue;
		}
		if (take_message(r, fd, pid, names_only))
			continue;
		if (names_only || r->nr_reg_waiting == VS_REG_WAITING) {
			close(fd);
			r->s.stats.silent++;
			continue;
		}
		r->reg_waiting[r->nr_reg_waiting++] = (struct vs_reg_conn){
			fd, pid, now + VS_REG_WAIT_NS };
	}
	return i;
}

int vs_record_open_socket(struct vs_recorder *r)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	size_t len;

	snprintf(r->sock_name, sizeof(r->sock_name), "varscope-%d-%llx",
		 getpid(), (unsigned long long)vs_perf_clock_ns());
	len = strlen(r->sock_name);
	memcpy(addr.sun_path + 1, r->sock_name, len);
	r->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC |
			      SOCK_NONBLOCK, 0);
	if (r->listen_fd < 0 ||
	    bind(r->listen_fd, (struct sockaddr *)&addr,
		 offsetof(struct sockaddr_un, sun_path) + 1 + len) ||
	    listen(r->listen_fd, 128))
		return -1;
	return epoll_ctl(r->s.epoll_fd, EPOLL_CTL_ADD, r->listen_fd,
			 &(struct epoll_event){ .events = EPOLLIN,
						.data.u64 = VS_WAKE_LISTEN });
}

/* --- setup checks -------------------------------------------------------- */
