// SPDX-License-Identifier: MIT
/*
 * buggyserver - a small request server with switchable performance bugs,
 * the workload of `varscope signature` (PerfScope).
 *
 * A client thread sends requests over loopback TCP to WORKERS server
 * threads.  Each request names one of 34 handlers; every handler has its
 * own system-call behaviour (files, pipes, sockets, timers, memory, ...).
 * Before dispatching, a worker "parses" the request for about 500 us of
 * CPU, which separates requests in the system-call stream.
 *
 *   buggyserver [--bug=none|retry|spin|fsync|hang] [--duration=SECONDS]
 *               [--bug-after=SECONDS] [--workers=N] [--requests=N]
 *               [--dir=DIR]
 *
 * Bugs, active from --bug-after seconds into the run until its end; each
 * repeats without end what its function normally does a few times:
 *   retry  fetch_upstream retries gettimeofday + read of an empty pipe
 *          endlessly (normally the answer comes after two tries)
 *   spin   lock_update spins on a futex that is never released
 *          (normally three short waits)
 *   fsync  journal_commit rewrites and fsyncs record after record, an
 *          fsync storm (normally two records, two fsyncs)
 *   hang   wait_reply waits in 200 us ppoll slices for a reply that never
 *          comes on its socket (normally it comes after three polls)
 *
 * gettimeofday is made as a real system call (syscall(2)), not through
 * the vDSO, so that it shows in the system-call trace as in the paper.
 * The run always ends after --duration seconds (default 3), or once each
 * client has had --requests answers: the requests are the same sequence in
 * every run (a fixed seed per client), so a run of N requests does the same
 * work however loaded the machine is.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/times.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define MAX_WORKERS 8

enum bug { BUG_NONE, BUG_RETRY, BUG_SPIN, BUG_FSYNC, BUG_HANG };

static enum bug bug;
static double duration = 3, bug_after = 1;
static int nr_workers = 2;
static long max_requests;		/* per client, 0: no limit */
static char dir[256] = "/tmp";
static uint64_t t_start;
static volatile int stop;
static uint32_t never_released = 1;	/* the futex the spin bug waits on */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int past(double seconds)
{
	return now_ns() - t_start >= (uint64_t)(seconds * 1e9);
}

static int bug_on(enum bug b)
{
	return bug == b && past(bug_after);
}

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/buggyserver.%d.%s", dir, getpid(), name);
}

static long gtod(void)
{
	struct timeval tv;

	return syscall(SYS_gettimeofday, &tv, NULL);
}

/* --- the handlers --- */

NOINLINE static void stat_files(void)
{
	struct stat st;

	stat("/etc/hostname", &st);
	stat("/etc/passwd", &st);
}

NOINLINE static void read_config(void)
{
	char buf[256];
	int fd = open("/etc/hostname", O_RDONLY);

	if (fd >= 0) {
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
}

NOINLINE static void append_log(void)
{
	static const char line[] = "request served\n";
	char p[300];
	int fd;

	path_of(p, sizeof(p), "log");
	fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (fd >= 0) {
		if (write(fd, line, sizeof(line) - 1) < 0)
			perror("log");
		lseek(fd, 0, SEEK_CUR);
		close(fd);
	}
}

NOINLINE static void journal_commit(void)
{
	char p[300], rec[64];
	int fd, i;

	path_of(p, sizeof(p), "journal");
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return;
	memset(rec, 'j', sizeof(rec));
	/*
	 * A data record and a commit record, each made durable.  The bug:
	 * the dirty check never clears, so records are rewritten and
	 * fsync'ed one by one until the server stops (an fsync storm).
	 */
	for (i = 0; i < 2 || (bug_on(BUG_FSYNC) && !stop); i++) {
		if (pwrite(fd, rec, sizeof(rec), (i % 64) * sizeof(rec)) < 0)
			break;
		fsync(fd);
	}
	close(fd);
}

NOINLINE static void pipe_echo(void)
{
	int p[2];
	char c = 'x';

	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	if (write(p[1], &c, 1) == 1 && read(p[0], &c, 1) != 1)
		perror("pipe");
	close(p[0]);
	close(p[1]);
}

NOINLINE static void list_dir(void)
{
	char buf[4096];
	int fd = open("/etc", O_RDONLY | O_DIRECTORY);

	if (fd >= 0) {
		while (syscall(SYS_getdents64, fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
}

NOINLINE static void map_buffer(void)
{
	void *p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED) {
		mprotect(p, 4096, PROT_READ);
		munmap(p, 1 << 16);
	}
}

NOINLINE static void check_clock(void)
{
	struct timespec ts;

	gtod();
	syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
	syscall(SYS_clock_getres, CLOCK_MONOTONIC, &ts);
}

NOINLINE static void host_info(void)
{
	struct utsname u;
	char name[64];

	uname(&u);
	gethostname(name, sizeof(name));
	syscall(SYS_sysinfo, &(char[128]){ 0 });
}

NOINLINE static void who_am_i(void)
{
	syscall(SYS_getpid);
	syscall(SYS_getuid);
	syscall(SYS_getgid);
	syscall(SYS_geteuid);
}

NOINLINE static void short_nap(void)
{
	struct timespec ts = { 0, 30000 };

	nanosleep(&ts, NULL);
}

NOINLINE static void poll_pipe(void)
{
	int p[2];
	struct pollfd pfd;

	if (pipe(p) < 0)
		return;
	pfd.fd = p[1];
	pfd.events = POLLOUT;
	poll(&pfd, 1, 0);
	close(p[0]);
	close(p[1]);
}

NOINLINE static void notify_event(void)
{
	uint64_t v = 1;
	int fd = eventfd(0, EFD_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, &v, 8) != 8 || read(fd, &v, 8) != 8)
		perror("eventfd");
	close(fd);
}

NOINLINE static void local_rpc(void)
{
	int sv[2];
	char buf[16] = "ping";

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return;
	send(sv[0], buf, 4, 0);
	recv(sv[1], buf, sizeof(buf), 0);
	shutdown(sv[0], SHUT_RDWR);
	close(sv[0]);
	close(sv[1]);
}

NOINLINE static void dup_descriptor(void)
{
	int fd = dup(0);

	if (fd >= 0) {
		fcntl(fd, F_GETFD);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		close(fd);
	}
}

NOINLINE static void check_access(void)
{
	access("/etc/hostname", R_OK);
	faccessat(AT_FDCWD, "/etc/passwd", R_OK, 0);
	access("/nonexistent", F_OK);
}

NOINLINE static void find_self(void)
{
	char buf[512];

	if (readlink("/proc/self/exe", buf, sizeof(buf)) < 0)
		perror("readlink");
	syscall(SYS_getcwd, buf, sizeof(buf));
}

NOINLINE static void account_usage(void)
{
	struct rusage ru;
	struct tms t;

	getrusage(RUSAGE_SELF, &ru);
	times(&t);
}

NOINLINE static void yield_cpu(void)
{
	sched_yield();
	sched_yield();
}

NOINLINE static void read_block(void)
{
	char buf[512];
	int fd = open("/etc/passwd", O_RDONLY);

	if (fd >= 0) {
		if (pread(fd, buf, sizeof(buf), 0) < 0)
			perror("pread");
		fstat(fd, &(struct stat){ 0 });
		close(fd);
	}
}

NOINLINE static void write_block(void)
{
	char p[300], buf[256] = { 0 };
	struct iovec iov[2] = { { buf, 128 }, { buf + 128, 128 } };
	int fd;

	path_of(p, sizeof(p), "block");
	fd = open(p, O_RDWR | O_CREAT, 0600);
	if (fd >= 0) {
		if (pwritev(fd, iov, 2, 0) < 0)
			perror("pwritev");
		close(fd);
	}
}

NOINLINE static void resize_file(void)
{
	char p[300];
	struct stat st;
	int fd;

	path_of(p, sizeof(p), "resize");
	fd = open(p, O_RDWR | O_CREAT, 0600);
	if (fd >= 0) {
		if (ftruncate(fd, 8192) < 0)
			perror("ftruncate");
		fstat(fd, &st);
		if (ftruncate(fd, 0) < 0)
			perror("ftruncate");
		close(fd);
	}
}

NOINLINE static void rotate_files(void)
{
	char a[300], b[300];
	int fd;

	path_of(a, sizeof(a), "rot.a");
	path_of(b, sizeof(b), "rot.b");
	fd = creat(a, 0600);
	if (fd >= 0)
		close(fd);
	rename(a, b);
	unlink(b);
}

NOINLINE static void make_spool(void)
{
	char p[300];

	path_of(p, sizeof(p), "spool");
	mkdir(p, 0700);
	chmod(p, 0750);
	rmdir(p);
}

NOINLINE static void arm_timer(void)
{
	struct itimerspec its = { .it_value = { 10, 0 } };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

	if (fd >= 0) {
		timerfd_settime(fd, 0, &its, NULL);
		timerfd_gettime(fd, &its);
		close(fd);
	}
}

NOINLINE static void mask_signals(void)
{
	sigset_t set, old;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, &old, 8);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8);
}

NOINLINE static void thread_name(void)
{
	char name[17];

	prctl(PR_GET_NAME, name);
	prctl(PR_SET_NAME, "worker");
}

NOINLINE static void disk_space(void)
{
	struct statfs sf;

	statfs("/", &sf);
	statfs(dir, &sf);
}

NOINLINE static void advise_memory(void)
{
	static char area[1 << 16] __attribute__((aligned(4096)));

	madvise(area, sizeof(area), MADV_WILLNEED);
	syscall(SYS_mincore, area, 4096, (unsigned char[1]){ 0 });
}

NOINLINE static void copy_file(void)
{
	char p[300];
	int in = open("/etc/passwd", O_RDONLY), out;

	path_of(p, sizeof(p), "copy");
	out = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (in >= 0 && out >= 0) {
		off_t off = 0;

		syscall(SYS_sendfile, out, in, &off, 4096);
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

NOINLINE static void sync_range(void)
{
	char p[300];
	int fd;

	path_of(p, sizeof(p), "range");
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	if (fd >= 0) {
		if (write(fd, "range", 5) < 0)
			perror("write");
		sync_file_range(fd, 0, 5, SYNC_FILE_RANGE_WRITE);
		close(fd);
	}
}

NOINLINE static void get_limits(void)
{
	struct rlimit rl;

	getrlimit(RLIMIT_NOFILE, &rl);
	syscall(SYS_getpriority, PRIO_PROCESS, 0);
	syscall(SYS_umask, 077);
	syscall(SYS_umask, 077);
}

/*
 * fetch_upstream: polls a non-blocking pipe for an upstream's answer.
 * Each worker has its own pipe: with a shared one, a worker could read
 * the answer another wrote and that one would retry until the next
 * request came, a retry storm in the normal run.
 */
static __thread int upstream[2];

NOINLINE static void fetch_upstream(void)
{
	char buf[64];
	int tries;

	for (tries = 0; !stop; tries++) {
		gtod();			/* retry deadline check */
		if (read(upstream[0], buf, sizeof(buf)) > 0)
			break;
		/*
		 * The upstream answers after the second try.  The bug: its
		 * answer never comes and EAGAIN is retried forever.
		 */
		if (tries == 1 && !bug_on(BUG_RETRY) &&
		    write(upstream[1], "data", 4) != 4)
			perror("upstream");
	}
}

/* lock_update: waits for a futex lock a flusher holds for a moment. */
static uint32_t state_lock;

NOINLINE static void lock_update(void)
{
	struct timespec slice = { 0, 20000 };
	uint32_t *word = bug_on(BUG_SPIN) ? &never_released : &state_lock;
	int waits = 0;

	/*
	 * Three short waits until the flusher lets go (state_lock is free
	 * again by then, so they return at once).  The bug: the lock is
	 * never released and the waits go on.
	 */
	while (waits++ < 3 || (word == &never_released && !stop))
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 1, &slice,
			NULL, 0);
	syscall(SYS_futex, &state_lock, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* wait_reply: asks a peer over a socket and waits for its answer. */
NOINLINE static void wait_reply(void)
{
	struct timespec now = { 0, 0 }, slice = { 0, 200000 };
	struct pollfd pfd;
	char buf[16];
	int sv[2], polls;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	pfd.fd = sv[0];
	pfd.events = POLLIN;
	/*
	 * The peer answers after three polls.  The bug: it never does, and
	 * the wait goes on in 200 us slices (a hang on a socket).
	 */
	for (polls = 0; !stop; polls++) {
		if (polls == 3 && !bug_on(BUG_HANG))
			sendto(sv[1], "pong", 4, 0, NULL, 0);
		if (ppoll(&pfd, 1, polls < 3 ? &now : &slice, NULL) > 0)
			break;
	}
	if (!stop)
		recvfrom(sv[0], buf, sizeof(buf), MSG_DONTWAIT, NULL, NULL);
	close(sv[0]);
	close(sv[1]);
}

typedef void (*handler_fn)(void);

static const handler_fn handlers[] = {
	stat_files, read_config, append_log, journal_commit, pipe_echo,
	list_dir, map_buffer, check_clock, host_info, who_am_i, short_nap,
	poll_pipe, notify_event, local_rpc, dup_descriptor, check_access,
	find_self, account_usage, yield_cpu, read_block, write_block,
	resize_file, rotate_files, make_spool, arm_timer, mask_signals,
	thread_name, disk_space, advise_memory, copy_file, sync_range,
	get_limits, fetch_upstream, lock_update, wait_reply,
};

#define NR_HANDLERS (sizeof(handlers) / sizeof(handlers[0]))

/* --- the server --- */

NOINLINE static unsigned int parse_request(const unsigned char *req)
{
	uint64_t h = req[0], t = now_ns();
	volatile uint64_t x = 0;

	/* about 500 us of parsing work between two requests */
	while (now_ns() - t < 500000)
		x += h * 2654435761u;
	(void)x;	/* the work is its point: read once, for clang's sake */
	return req[0] % NR_HANDLERS;
}

NOINLINE static void dispatch(unsigned int which)
{
	handlers[which]();
}

NOINLINE static void send_response(int fd)
{
	if (send(fd, "ok", 2, MSG_NOSIGNAL) != 2)
		stop = 1;
}

static void *worker(void *arg)
{
	int fd = (int)(intptr_t)arg;
	unsigned char req[1];

	if (pipe2(upstream, O_NONBLOCK | O_CLOEXEC) < 0) {
		perror("buggyserver: pipe2");
		stop = 1;
	}
	while (!stop && recv(fd, req, 1, MSG_WAITALL) == 1) {
		dispatch(parse_request(req));
		send_response(fd);
	}
	close(upstream[0]);
	close(upstream[1]);
	close(fd);
	return NULL;
}

struct client {
	int fd;
	unsigned int seed;
};

static void *client(void *arg)
{
	struct client *c = arg;
	unsigned char req, resp[2];
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	long n;

	for (n = 0; !past(duration) && (!max_requests || n < max_requests);
	     n++) {
		req = rand_r(&c->seed) % NR_HANDLERS;
		if (send(c->fd, &req, 1, MSG_NOSIGNAL) != 1)
			break;
		/* a stuck worker must not stop the clock */
		while (!past(duration) && poll(&pfd, 1, 50) == 0)
			;
		if (past(duration) ||
		    recv(c->fd, resp, 2, MSG_WAITALL) != 2)
			break;
	}
	/* one done with its requests leaves the others theirs */
	if (!max_requests || n < max_requests)
		stop = 1;
	shutdown(c->fd, SHUT_RDWR);
	return NULL;
}

static int listen_loopback(struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (void *)sa, sizeof(*sa)) < 0 ||
	    listen(fd, 16) < 0 || getsockname(fd, (void *)sa, &len) < 0) {
		perror("buggyserver: listen");
		exit(1);
	}
	return fd;
}

static void usage(void)
{
	fprintf(stderr, "usage: buggyserver [--bug=none|retry|spin|fsync|hang]"
		" [--duration=S] [--bug-after=S] [--workers=N]"
		" [--requests=N] [--dir=DIR]\n");
	exit(129);
}

static void parse_args(int argc, char **argv)
{
	static const char *const names[] = { "none", "retry", "spin",
					     "fsync", "hang" };
	int i, b;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--bug=", 6)) {
			for (b = 0; b < 5 && strcmp(a + 6, names[b]); b++)
				;
			if (b == 5)
				usage();
			bug = b;
		} else if (!strncmp(a, "--duration=", 11)) {
			duration = atof(a + 11);
		} else if (!strncmp(a, "--bug-after=", 12)) {
			bug_after = atof(a + 12);
		} else if (!strncmp(a, "--workers=", 10)) {
			nr_workers = atoi(a + 10);
		} else if (!strncmp(a, "--requests=", 11)) {
			max_requests = atol(a + 11);
		} else if (!strncmp(a, "--dir=", 6)) {
			snprintf(dir, sizeof(dir), "%s", a + 6);
		} else {
			usage();
		}
	}
	if (duration <= 0 || duration > 600 || nr_workers < 1 ||
	    nr_workers > MAX_WORKERS || max_requests < 0)
		usage();
}

static void remove_files(void)
{
	static const char *const names[] = { "log", "journal", "block",
		"resize", "copy", "range" };
	char p[300];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path_of(p, sizeof(p), names[i]);
		unlink(p);
	}
}

int main(int argc, char **argv)
{
	pthread_t wth[MAX_WORKERS], cth[MAX_WORKERS];
	struct client cl[MAX_WORKERS];
	struct sockaddr_in sa;
	int lfd, i;

	parse_args(argc, argv);
	t_start = now_ns();
	lfd = listen_loopback(&sa);
	for (i = 0; i < nr_workers; i++) {
		int one = 1;

		cl[i].fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		cl[i].seed = 12345 + i;
		setsockopt(cl[i].fd, IPPROTO_TCP, TCP_NODELAY, &one,
			   sizeof(one));
		if (connect(cl[i].fd, (void *)&sa, sizeof(sa)) < 0) {
			perror("buggyserver: connect");
			return 1;
		}
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		errno = pthread_create(&wth[i], NULL, worker,
				       (void *)(intptr_t)fd);
		if (!errno)
			errno = pthread_create(&cth[i], NULL, client, &cl[i]);
		if (errno) {
			perror("buggyserver: pthread_create");
			return 1;
		}
	}
	for (i = 0; i < nr_workers; i++) {
		pthread_join(cth[i], NULL);
		pthread_join(wth[i], NULL);
		close(cl[i].fd);
	}
	close(lfd);
	remove_files();
	return 0;
}
