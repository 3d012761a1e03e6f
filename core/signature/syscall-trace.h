/* SPDX-License-Identifier: MIT */
/*
 * syscall-trace.h - capture the system calls of a process and of every
 * thread and child it makes: raw_syscalls:sys_enter and sys_exit as
 * per-CPU perf events inherited by new tasks, one ring per CPU, with the
 * side band (mmap, comm, fork/exit, and optionally context switches)
 * that symbolization and execution-unit splitting need.  Used by
 * `varscope signature build` (with user callchains) and by
 * `varscope record --syscalls`.
 */
#ifndef VS_CORE_SYSCALL_TRACE_H
#define VS_CORE_SYSCALL_TRACE_H

#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

enum vs_sc_type {
	VS_SC_ENTER,		/* nr; ips/stack when callchains are on */
	VS_SC_EXIT,		/* nr, ret */
	VS_SC_SWITCH_OUT,	/* the thread left the CPU */
	VS_SC_SWITCH_IN,	/* ... and came back */
	VS_SC_MMAP,		/* start, len, pgoff, filename (exec maps) */
	VS_SC_COMM,		/* comm, exec */
	VS_SC_FORK,		/* ppid/ptid -> pid/tid */
	VS_SC_TASK_EXIT,
	VS_SC_LOST,		/* lost records of the ring */
	VS_SC_PROBE,		/* a uprobe hit: cookie, ret */
};

struct vs_sc_event {
	enum vs_sc_type type;
	uint64_t time;			/* CLOCK_MONOTONIC ns */
	uint32_t pid, tid, cpu;
	uint16_t nr;			/* system call */
	int64_t ret;
	/* VS_SC_ENTER with callchains: */
	uint32_t nr_ips;
	const uint64_t *ips;		/* user frames, innermost first */
	uint64_t regs_mask;		/* the user registers (PERF_REG_* */
	const uint64_t *regs;		/* bits), one per bit of the mask, */
	uint32_t nr_regs;		/* 0 when there are none, */
	uint32_t stack_size;
	const uint8_t *stack;		/* ... the stack bytes from sp up */
	/* side band: */
	uint64_t start, len, pgoff;
	const char *name;		/* mmap file, comm */
	uint32_t ppid, ptid;
	bool exec;
	bool preempt;			/* switched out while runnable */
	uint64_t lost;
	/* VS_SC_PROBE: */
	uint32_t cookie;		/* given to vs_syscall_trace_add_probe */
	bool is_return;			/* a uretprobe (the function returns) */
};

/*
 * Bytes of user stack copied at each enter with callchains, by default:
 * perf's for DWARF unwinding, room for a PATH_MAX buffer and a few frames.
 */
#define VS_SC_STACK_SIZE	8192
#define VS_SC_STACK_MAX		65528	/* the most perf copies */

struct vs_sc_opts {
	bool callchain;		/* user callchain + regs + stack at enter */
	unsigned int stack_size; /* ... of that many bytes (multiple of 8),
				  * 0: VS_SC_STACK_SIZE */
	bool switches;		/* PERF_RECORD_SWITCH of the traced tasks */
	bool sideband;		/* mmap, comm, fork/exit records */
	bool long_calls;	/* records: with callchain, the stack of each
				 * call of VS_SC_LONG_CALL_NS or more */
	unsigned int pages;	/* ring size per CPU, pages (power of 2) */
};

/* The bytes of user stack copied at each enter with @o's callchains. */
static inline unsigned int vs_sc_stack_size(const struct vs_sc_opts *o)
{
	return o->stack_size ? o->stack_size & ~7u : VS_SC_STACK_SIZE;
}

/*
 * A record reaches its ring microseconds after its time stamp (longer if
 * the host preempts the virtual CPU in between): a read hands over the
 * records older than its start less this, all in the rings by then, and
 * keeps the younger ones for the next read, so that no record handed
 * over later is older than one handed over before.
 */
#define VS_SC_SLACK_NS	20000000ull	/* 20 ms */

/* A call this long or longer may be a hang (core/signature/signature.h). */
#define VS_SC_LONG_CALL_NS	1000000000ull	/* 1 s */

typedef int (*vs_sc_handler)(const struct vs_sc_event *ev, void *arg);

struct vs_syscall_trace;

/**
 * vs_syscall_trace_open - open the events on process @pid
 * @pid: a process that has not yet exec'd (events start at its exec) or,
 *       with @enable_now, a running one (its thread @pid and what that
 *       creates from now on; vs_syscall_trace_add_thread() adds others)
 * @err: a one-line reason on failure
 */
struct vs_syscall_trace *vs_syscall_trace_open(pid_t pid, bool enable_now,
					       const struct vs_sc_opts *opts,
					       char *err, size_t errlen);

/**
 * vs_syscall_trace_add_thread - also follow running thread @tid (of any
 * process) and what it creates from now on, into the same rings, with
 * the same options; for a trace opened with @enable_now
 *
 * Returns 0, or -1 with errno set (ESRCH: the thread is gone) and a
 * one-line reason in @err.
 */
int vs_syscall_trace_add_thread(struct vs_syscall_trace *t, pid_t tid,
				char *err, size_t errlen);

/**
 * vs_syscall_trace_add_probe - also follow a function of @path, at file
 * offset @offset, on entry (@ret false) or return (@ret true), through
 * a uprobe trace event made in tracefs (core/uprobe.h, removed at
 * vs_syscall_trace_close()); its hits come as VS_SC_PROBE events with
 * @cookie.  @cookie names the event: one per function and direction.
 *
 * The probes watch every process on the CPUs: drop the hits of processes
 * not traced, by pid.  Returns 0, or -1 with a reason in @err.
 */
int vs_syscall_trace_add_probe(struct vs_syscall_trace *t, const char *path,
			       uint64_t offset, bool ret, uint32_t cookie,
			       char *err, size_t errlen);

/**
 * vs_syscall_trace_read - hand the events of the rings to @fn in time
 * order; waits up to @timeout_ms for data.
 *
 * Events reach the per-CPU rings a little after their time stamps: a
 * read hands over those older than VS_SC_SLACK_NS before it began and
 * keeps the others for the next read, so the order holds across reads
 * too (a child's fork and maps come before its calls, whatever CPUs they
 * were written on).  With @all, everything read is handed over: the last
 * read, once the traced tasks are gone.
 * Returns the number of events, or the first non-zero return of @fn
 * (-1 when out of memory).
 */
long vs_syscall_trace_read(struct vs_syscall_trace *t, int timeout_ms,
			   bool all, vs_sc_handler fn, void *arg);

struct vs_record;
typedef void (*vs_sc_record_fn)(void *arg, const struct vs_record *rec);

/**
 * vs_syscall_trace_records - read like vs_syscall_trace_read() and hand
 * the system calls, context switches and losses to @fn as trace records
 * (SYSCALL enter/exit, SWITCH, LOST): what `record --syscalls` stores.
 * With opts.long_calls, the registers and stack copy of each call's
 * enter are kept while the call goes on, and a call that lasted
 * VS_SC_LONG_CALL_NS or more gets a SAMPLE record (VS_SAMPLE_USER_STACK |
 * VS_SAMPLE_SYSCALL, at its exit, or at the last event of the last read
 * when it is still going) right after its exit record.
 * Returns the number of events read.
 */
long vs_syscall_trace_records(struct vs_syscall_trace *t, int timeout_ms,
			      bool all, vs_sc_record_fn fn, void *arg);

void vs_syscall_trace_close(struct vs_syscall_trace *t);

#endif /* VS_CORE_SYSCALL_TRACE_H */
