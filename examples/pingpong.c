// SPDX-License-Identifier: MIT
/*
 * pingpong - a pipe ping-pong server: each client sends a small message
 * over a pipe and waits for the echo on a second pipe; its server thread
 * reads the request and writes the reply.  A server request is an AppTask
 * (type 1) placed as VarMRI places Memcached's: it begins after the
 * request has been read and ends after the reply has been written.
 *
 * Every request wakes the other side, so the run is dominated by
 * scheduling and system calls: the densest stream of kernel events per
 * request of the examples, which makes it the first workload of the
 * recording-overhead benchmark (bench/record-overhead).
 *
 * The clients are threads of the same process (default) or, with
 * --client=process, one child process per server thread.
 */
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>

#include "workload.h"

enum { TYPE_ECHO = 1 };

struct pair {
	int req[2];		/* client -> server */
	int resp[2];		/* server -> client */
	uint64_t requests;
	pthread_t client;
	pid_t pid;
	char buf[PIPE_BUF];
};

static size_t msg_size = 64;

/* Read exactly @len bytes; false on end of file or error. */
static bool read_full(int fd, char *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return false;
		}
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/* Writes of at most PIPE_BUF bytes to a pipe are whole. */
static bool write_msg(int fd, const char *buf)
{
	ssize_t n;

	do
		n = write(fd, buf, msg_size);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)msg_size;
}

static uint32_t next_request(struct wl_thread *t)
{
	struct pair *p = t->priv;

	return read_full(p->req[0], p->buf, msg_size) ? TYPE_ECHO : 0;
}

static void serve_echo(struct wl_thread *t)
{
	struct pair *p = t->priv;

	write_msg(p->resp[1], p->buf);
}

static const struct wl_ops echo_ops = {
	.next = next_request,
	.serve = serve_echo,
};

/* The client of one pair: send, wait for the echo, until done or EOF. */
static void *client_main(void *arg)
{
	struct pair *p = arg;
	char buf[PIPE_BUF];
	uint64_t i;

	memset(buf, 'x', msg_size);
	for (i = 0; i < p->requests; i++) {
		if (!write_msg(p->req[1], buf) ||
		    !read_full(p->resp[0], buf, msg_size))
			break;
	}
	return NULL;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void start_clients(const struct wl_config *cfg, struct pair *pairs,
			  bool processes)
{
	unsigned int i, j;
	int err;

	for (i = 0; i < cfg->threads; i++) {
		struct pair *p = &pairs[i];

		if (!processes) {
			err = pthread_create(&p->client, NULL, client_main, p);
			if (err) {
				fprintf(stderr, "pingpong: pthread_create: %s\n",
					strerror(err));
				exit(1);
			}
			continue;
		}
		p->pid = fork();
		if (p->pid < 0) {
			perror("pingpong: fork");
			exit(1);
		}
		if (p->pid == 0) {
			/* Keep only this client's ends, so EOF reaches it. */
			for (j = 0; j < cfg->threads; j++) {
				close_fd(&pairs[j].req[0]);
				close_fd(&pairs[j].resp[1]);
				if (j != i) {
					close_fd(&pairs[j].req[1]);
					close_fd(&pairs[j].resp[0]);
				}
			}
			client_main(p);
			_exit(0);
		}
	}
	if (processes) {
		for (i = 0; i < cfg->threads; i++) {
			close_fd(&pairs[i].req[1]);
			close_fd(&pairs[i].resp[0]);
		}
	}
}

/* After the servers: EOF tells the clients left to stop. */
static void stop_clients(const struct wl_config *cfg, struct pair *pairs,
			 bool processes)
{
	unsigned int i;

	for (i = 0; i < cfg->threads; i++) {
		close_fd(&pairs[i].req[0]);
		close_fd(&pairs[i].resp[1]);
	}
	for (i = 0; i < cfg->threads; i++) {
		if (processes)
			waitpid(pairs[i].pid, NULL, 0);
		else
			pthread_join(pairs[i].client, NULL);
	}
	for (i = 0; i < cfg->threads; i++) {
		close_fd(&pairs[i].req[1]);
		close_fd(&pairs[i].resp[0]);
	}
}

static void usage(const struct wl_config *cfg)
{
	printf("usage: pingpong [<options>]\n\n"
	       "Clients send small messages over pipes to server threads, which echo\n"
	       "them; each server request is an AppTask (type 1).  One client per\n"
	       "server thread (--threads).\n\n"
	       "    -s, --size <n>         message size in bytes (default %zu, at most %d)\n"
	       "        --client <kind>    thread (default) or process\n",
	       msg_size, PIPE_BUF);
	wl_usage_common(cfg);
}

enum { OPT_CLIENT = WL_OPT__WORKLOAD };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "client", required_argument, NULL, OPT_CLIENT },
		WL_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct wl_config cfg = WL_CONFIG("pingpong", 100000);
	bool processes = false;
	struct wl_thread *threads;
	struct pair *pairs;
	struct wl_run run;
	unsigned int i;
	int c;

	while ((c = wl_getopt(&cfg, argc, argv, "s:" WL_COMMON_SHORTOPTS,
			      longopts)) != -1) {
		switch (c) {
		case 's':
			msg_size = wl_parse_u64(&cfg, "size", optarg, false);
			if (msg_size > PIPE_BUF)
				wl_option_error(&cfg, "size", "at most %d",
						PIPE_BUF);
			break;
		case OPT_CLIENT:
			if (!strcmp(optarg, "process"))
				processes = true;
			else if (strcmp(optarg, "thread"))
				wl_option_error(&cfg, "client",
						"'%s' is not thread or process",
						optarg);
			break;
		case 'h':
			usage(&cfg);
			return 0;
		}
	}
	signal(SIGPIPE, SIG_IGN);

	threads = wl_threads_new(&cfg, &echo_ops);
	pairs = wl_xcalloc(cfg.threads, sizeof(*pairs));
	for (i = 0; i < cfg.threads; i++) {
		if (pipe(pairs[i].req) || pipe(pairs[i].resp)) {
			perror("pingpong: pipe");
			return 1;
		}
		pairs[i].requests = threads[i].quota;
		threads[i].priv = &pairs[i];
	}

	start_clients(&cfg, pairs, processes);
	run = wl_threads_run(&cfg, threads);
	stop_clients(&cfg, pairs, processes);

	wl_report(&cfg, threads, &run, NULL, 0);
	wl_threads_free(&cfg, threads);
	free(pairs);
	return 0;
}
