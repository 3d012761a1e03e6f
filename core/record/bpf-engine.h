/* SPDX-License-Identifier: MIT */
/*
 * bpf-engine.h - the loader of the in-kernel recording engine
 * (core/record/task-acct.bpf.c, through its bpftool skeleton): load and
 * attach the programs, hand out and bind the threads' slots, read the
 * wake-up edges and the programs' own counts.
 */
#ifndef VS_CORE_RECORD_BPF_ENGINE_H
#define VS_CORE_RECORD_BPF_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "core/arch.h"
#include "core/record/task-slot.h"

struct vs_bpf_engine;

/* What to account besides the waits (the tracepoints of record -e). */
#define VS_BPF_IRQ		(1u << 0)
#define VS_BPF_SOFTIRQ		(1u << 1)
#define VS_BPF_FAULT		(1u << 2)
/* irq_vectors: bit VS_BPF_VECTOR << enum vs_slot_vector */
#define VS_BPF_VECTOR		(1u << 3)
#define VS_BPF_ALL		((VS_BPF_VECTOR << VS_SLOT_VECTORS) - 1)
/* the programs of function calls (--task-func, --probe) */
#define VS_BPF_CALLS		(VS_BPF_VECTOR << VS_SLOT_VECTORS)
/* the filter of the sampling events (--sample) */
#define VS_BPF_SAMPLES		(VS_BPF_CALLS << 1)
/* the fault handler's fentry/fexit (tried with VS_BPF_FAULT) */
#define VS_BPF_FAULT_TIME	(VS_BPF_SAMPLES << 1)

/* The irq_vectors names of enum vs_slot_vector, in order. */
extern const char *const vs_bpf_vector_names[VS_SLOT_VECTORS];

/**
 * vs_bpf_engine_open - load the programs and attach them to the
 * scheduler tracepoints, and to the interrupt and fault ones of @what
 * @what: VS_BPF_* flags
 * @err: one line naming what the kernel lacks (its BTF, CAP_BPF and
 *	CAP_PERFMON, a tracepoint) on failure
 * @errlen: size of @err
 *
 * Returns the engine, or NULL with @err set.
 */
struct vs_bpf_engine *vs_bpf_engine_open(unsigned int what, char *err,
					 size_t errlen);

void vs_bpf_engine_close(struct vs_bpf_engine *e);

/*
 * The slots map, to pass to a registered thread's library (which maps it
 * and closes it).
 */
int vs_bpf_engine_slots_fd(const struct vs_bpf_engine *e);

/*
 * Why the page faults recorded are not timed (the kernel refused the
 * fault handler's fentry/fexit: the verifier's reason, or the error), or
 * NULL when they are (fault.page.time) or not recorded at all (-e).
 */
const char *vs_bpf_engine_no_fault_time(const struct vs_bpf_engine *e);

/* Whether the engine times page faults (fault.page.time). */
bool vs_bpf_engine_fault_time(const struct vs_bpf_engine *e);

/* The machine's possible CPUs, as the engine's per-CPU maps count them. */
int vs_bpf_engine_nr_cpus(const struct vs_bpf_engine *e);

/* The recorder's own mapping of slot @idx (< VS_SLOTS). */
struct vs_slot *vs_bpf_engine_slot(struct vs_bpf_engine *e, uint32_t idx);

/**
 * vs_bpf_engine_register - give thread @tid a free slot, cleared, and bind
 * it in the kernel (the programs' map of threads, by an iterator over
 * that thread)
 *
 * Returns the slot (> 0), or -1 with errno set: ENOSPC when every slot is
 * taken, ESRCH when the thread is gone.  A thread registered again gets
 * a new slot; its old one is freed.
 */
int vs_bpf_engine_register(struct vs_bpf_engine *e, uint32_t tid);

/* Slot @idx's thread is gone: unbound, the slot may be given again. */
void vs_bpf_engine_release(struct vs_bpf_engine *e, uint32_t idx);

/**
 * vs_bpf_engine_counters - count the @n events @hw (at most
 * VS_SLOT_COUNTERS) on every CPU from now on, read by the programs at
 * each transition of a thread inside a task (task-slot.h): opened per
 * CPU, they take the place of the set before in the programs' map, and
 * that set is closed.  The first call makes the engine give
 * vs_bpf_engine_mark_fd().
 * @err: one line on failure (the set before then stays)
 *
 * Returns the new set's generation (a task's counter_gen), or 0.
 */
uint32_t vs_bpf_engine_counters(struct vs_bpf_engine *e,
				const struct vs_hw_config *hw, unsigned int n,
				char *err, size_t errlen);

/*
 * The program a registered thread's library runs (BPF_PROG_TEST_RUN) to
 * mark the begin and end of its tasks, -1 when no counters are recorded.
 */
int vs_bpf_engine_mark_fd(const struct vs_bpf_engine *e);

typedef void (*vs_engine_event_fn)(void *ctx,
				   const struct vs_engine_event *ev);

/* The descriptor that polls readable when events wait. */
int vs_bpf_engine_events_fd(const struct vs_bpf_engine *e);

/**
 * vs_bpf_engine_read_events - call @fn for each event waiting (wake-up
 * edges, blocked waits' switches), at most a ring buffer's worth
 *
 * Returns how many.
 */
int vs_bpf_engine_read_events(struct vs_bpf_engine *e, vs_engine_event_fn fn,
			      void *ctx);

struct vs_bpf_engine_stats {
	uint64_t event_drops;		/* events the ring buffer had no room for */
	uint64_t stack_overflows;	/* interrupts nested past the stack */
	uint64_t unmatched_exits;	/* interrupt exits without their entry */
};

/* The programs' counts, summed over the CPUs. */
void vs_bpf_engine_stats(const struct vs_bpf_engine *e,
			 struct vs_bpf_engine_stats *st);

/**
 * vs_bpf_engine_samples_passed - the samples the filter kept on each CPU
 * (vs_bpf_engine_filter_samples()), into @passed[0..@nr_cpus)
 *
 * Returns 0, or -1 with errno set.
 */
int vs_bpf_engine_samples_passed(const struct vs_bpf_engine *e,
				 uint64_t *passed, int nr_cpus);

/**
 * vs_bpf_engine_filter_samples - attach the sample filter (the engine was
 * opened with VS_BPF_SAMPLES) to the sampling event @fd of one CPU: it
 * keeps the samples of threads inside a task only.  The engine owns @fd
 * from then on, and closes it, even on failure.
 *
 * Returns 0 or -1 with errno set.
 */
int vs_bpf_engine_filter_samples(struct vs_bpf_engine *e, int fd);

/* --- function calls: --task-func and --probe (task-acct.bpf.c) --- */

/**
 * vs_bpf_engine_calls_setup - the first @nr_task_funcs probed functions
 * make tasks, selected at @rate; the slots left free go to their threads
 * (each keeps one until it exits).  The engine was opened with
 * VS_BPF_CALLS.  Returns 0 or -1.
 */
int vs_bpf_engine_calls_setup(struct vs_bpf_engine *e, uint32_t nr_task_funcs,
			      double rate);

/**
 * vs_bpf_engine_attach_call - run the program of function @func's entry
 * (@ret false) or return (< VS_CALL_FUNCS) on the hits of the uprobe
 * trace event @fd is a perf event of: the kernel runs a trace event's
 * programs on every hit of the event, whichever of its perf events (one
 * per traced process) wanted it, and the programs keep the traced
 * processes' calls.  The engine owns @fd from then on, and closes it,
 * even on failure.
 * @err: one line on failure
 *
 * Returns 0 or -1.
 */
int vs_bpf_engine_attach_call(struct vs_bpf_engine *e, uint32_t func,
			      bool ret, int fd, char *err, size_t errlen);

/* Trace process @pid's calls, and those of the children it forks later. */
int vs_bpf_engine_trace_process(struct vs_bpf_engine *e, uint32_t pid);

/*
 * The recording stops at @time: no task begins any more, the open ones
 * end at @time flagged VS_CALL_TRUNCATED (read them with
 * vs_bpf_engine_read_events()).
 */
void vs_bpf_engine_stop_calls(struct vs_bpf_engine *e, uint64_t time);

typedef void (*vs_call_record_fn)(void *ctx, const struct vs_call_record *rec,
				  size_t size);

/*
 * vs_bpf_engine_read_events() passes the records of the calls ring to
 * @fn (@size: VS_CALL_FUNC_SIZE or a whole record).
 */
void vs_bpf_engine_on_calls(struct vs_bpf_engine *e, vs_call_record_fn fn,
			    void *ctx);

struct vs_bpf_call_stats {
	uint64_t nested[VS_CALL_FUNCS];		/* inside another's task */
	uint64_t no_return[VS_CALL_FUNCS];	/* task calls left */
	uint64_t measured_no_return;	/* --probe calls left */
	uint64_t drops;			/* records the ring had no room for */
	uint64_t no_slot;		/* selected tasks without a slot */
	uint64_t too_deep;		/* calls nested too deep to be kept */
	uint64_t no_thread;		/* threads the map had no room for */
};

void vs_bpf_engine_call_stats(const struct vs_bpf_engine *e,
			      struct vs_bpf_call_stats *st);

#endif /* VS_CORE_RECORD_BPF_ENGINE_H */
