/* SPDX-License-Identifier: MIT */
/*
 * signature.h - function signatures from system-call episodes and the
 * inference of the functions behind an anomalous run (PerfScope, SoCC'14,
 * section 3).
 *
 * Building: the system calls made while a function was on the stack are
 * grouped per execution of the function (struct vs_profile), and each
 * execution is cut into time-ordered sequences at the gaps that cut
 * execution units (below); each function's signature is the set of
 * closed frequent episodes of its sequences (core/signature/episode.h).
 *
 * Inference: each thread's system calls are cut into execution units at
 * gaps longer than mean + 2 sigma (a gap in which the thread was switched
 * out is ignored); units are clustered by appearance vector, abnormal units are
 * the nearest-neighbour outliers of their cluster on the execution-time
 * and the frequency vector, and every unit of a cluster smaller than 4;
 * the closed frequent episodes of abnormal units are matched against the
 * signatures, and the functions found are ranked by how much of the
 * abnormal behaviour their own signature explains (struct
 * vs_infer_function), not by the paper's maximum percentage increase of
 * a matched episode's count over its support alone.
 */
#ifndef VS_CORE_SIGNATURE_H
#define VS_CORE_SIGNATURE_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#include "core/signature/episode.h"
#include "core/signature/syscall-trace.h"

struct vs_writer;
struct vs_reader;

/* Clusters smaller than this are abnormal as a whole. */
#define VS_SIG_SMALL_CLUSTER	4

/*
 * The gaps between a thread's system calls, from one call's exit to the
 * next one's enter, and the limit that cuts a thread into execution units
 * (and a function's executions into sequences): their mean plus two
 * standard deviations.
 */
struct vs_gap_stats {
	size_t n;
	double mean, m2;
};

void vs_gap_stats_add(struct vs_gap_stats *s, uint64_t gap);

/* mean + 2 sigma of the gaps added, in ns; 0 when none was */
uint64_t vs_gap_stats_limit(const struct vs_gap_stats *s);

/* --- building --- */

struct vs_profile;

struct vs_profile *vs_profile_new(void);
void vs_profile_free(struct vs_profile *p);

/**
 * vs_profile_add_execution - one execution of @func and the system calls
 * it made (itself or in its callees)
 * @nr: the calls, @n of them (at least one), in time order
 * @gap: @gap[k] is the time from the exit of the thread's call before
 *       call k to the enter of call k that the thread spent on the CPU,
 *       in ns; @gap[0] is not used
 * @first: the enter of its first call, @last: the exit of its last
 *
 * Returns 0 or -1 (out of memory).
 */
int vs_profile_add_execution(struct vs_profile *p, const char *func,
			     const uint16_t *nr, const uint32_t *gap, size_t n,
			     uint64_t first, uint64_t last);

/* Number of functions seen so far. */
size_t vs_profile_nr_functions(const struct vs_profile *p);

/* --- signatures --- */

struct vs_sig_function {
	char *name;
	uint32_t executions;
	uint64_t mean_ns;
	size_t nr_calls;		/* N of its minimum support */
	size_t nr_episodes, alloc_episodes;
	struct vs_episode *episodes;
};

struct vs_signatures {
	size_t nr, alloc_funcs;
	struct vs_sig_function *funcs;
	size_t nr_capped;		/* functions mined with more candidates
					 * of a length than VS_EPISODE_MAX_COUNTED
					 * (vs_profile_mine()) */
	char *program;			/* the profiled program's file */
	uint64_t *call_max_ns;		/* by system call: its longest in the
					 * normal run (0: never made); NULL
					 * when the file does not say */
	uint64_t normal_calls;		/* system calls of the normal run; 0
					 * when the file does not say */
};

/* A call that waited for half the normal run or more: no longest. */
#define VS_SIG_CALL_UNBOUNDED	UINT64_MAX

/*
 * A thread is hung in a system call when it has been inside it longer
 * than VS_SIG_HANG_FACTOR times the call's longest duration in the
 * normal run, and at least VS_SIG_HANG_MIN_NS; never in a call that
 * waited for half the normal run or more (VS_SIG_CALL_UNBOUNDED), nor
 * with signatures that do not say (call_max_ns NULL).
 */
#define VS_SIG_HANG_FACTOR	10
#define VS_SIG_HANG_MIN_NS	VS_SC_LONG_CALL_NS	/* the calls whose
							 * stack record keeps */

/* The time inside call @nr beyond which a thread is hung (UINT64_MAX:
 * none). */
uint64_t vs_signature_hang_limit(const struct vs_signatures *s,
				 unsigned int nr);

/**
 * vs_profile_mine - the signatures of every profiled function: its closed
 * frequent episodes at L = max(min(N * @p, 10), 2), N its system calls,
 * in sequences that are its executions cut where a gap exceeds
 * @gap_limit (UINT64_MAX: none does).  Functions
 * without any episode are kept (with none).  NULL when out of memory.
 */
struct vs_signatures *vs_profile_mine(const struct vs_profile *p, double pct,
				      uint64_t gap_limit);

void vs_signatures_free(struct vs_signatures *s);

/**
 * vs_signatures_write - the signatures as SIG_FUNC and SIG_EPISODE records
 * (a '*' of an episode is VS_SIG_WILDCARD); 0 or -1 with errno
 */
int vs_signatures_write(const struct vs_signatures *s, struct vs_writer *w);

/**
 * vs_signatures_read - load the signatures of a file written by
 * vs_signatures_write(); NULL with a one-line message in @err when the file
 * is unreadable, truncated or holds no signature
 */
struct vs_signatures *vs_signatures_read(const char *path, char *err,
					 size_t errlen);

/* --- inference --- */

/* One system call of a thread, enter to exit. */
struct vs_call {
	uint64_t enter, exit;
	uint32_t cpu;
	uint16_t nr;
	bool open;			/* no exit yet: @exit is the end seen */
};

/* A span of time a thread spent switched out. */
struct vs_offcpu {
	uint64_t start, end;
};

struct vs_thread_calls {
	uint32_t tid;
	size_t nr_calls;
	struct vs_call *calls;		/* by enter time */
	size_t nr_off;
	struct vs_offcpu *off;		/* by start time */
	bool switches;			/* off[] is known (else: CPU changes) */
};

struct vs_infer_opts {
	double support;			/* p of the minimum support */
	double cluster_diameter;	/* VS_CLUSTER_DEFAULT_DIAMETER */
};

/* An episode of an abnormal unit that matched a signature. */
struct vs_infer_episode {
	struct vs_episode ep;		/* with the unit's count and times */
	uint32_t signature_support;
	uint32_t functions;		/* signatures that hold it */
};

/*
 * A function identified in abnormal units (its matched episodes count at
 * least as often in a unit as in its signature: the paper's rule).  Its
 * rank score weighs each matched episode's increase by how specific the
 * episode is and spreads it over the whole signature:
 *
 *   score = sum over matched e of log2(1 + increase(e) / 100) / F(e),
 *           divided by the number of episodes of the signature
 *
 * where F(e) is the number of signatures that hold e.  A function matched
 * only in part in units where another function's whole signature matched
 * ranks below that function (@within).
 */
struct vs_infer_function {
	const struct vs_sig_function *func;
	double score;			/* the rank score above */
	double increase;		/* maximum percentage increase (paper) */
	double match;			/* % of its episodes matched */
	double specificity;		/* mean 1/F(e) of the matched ones */
	const struct vs_sig_function *within;	/* explained by, or NULL */
	uint64_t first, last;		/* when its episodes were active */
	size_t nr_episodes;
	struct vs_infer_episode *episodes;	/* by increase, largest first */
};

/* A thread inside one system call beyond its hang limit. */
struct vs_sig_hang {
	uint32_t tid;
	uint16_t nr;
	uint64_t enter;			/* when the call began */
	uint64_t duration;		/* inside it, to its exit or the end */
	bool open;			/* no exit came */
	uint64_t normal_max;		/* longest in the normal run, 0: none */
	uint64_t limit;			/* vs_signature_hang_limit() */
	char function[128];		/* that made it, "": unknown (set by
					 * who has the call chain) */
};

struct vs_infer_result {
	size_t nr_calls, nr_units, nr_clusters;
	size_t nr_time_outliers, nr_freq_outliers, nr_small_cluster;
	size_t nr_abnormal;
	size_t nr_capped;		/* abnormal units mined with more
					 * candidates of a length than
					 * VS_EPISODE_MAX_COUNTED */
	uint64_t gap_limit;		/* mean + 2 sigma, ns */
	size_t nr;
	struct vs_infer_function *funcs;	/* by rank */
	size_t *time_order;		/* indices into funcs, by first */
	size_t nr_hangs;
	struct vs_sig_hang *hangs;	/* by duration, longest first */
};

/**
 * vs_signature_infer - rank the functions of @sig behind the abnormal
 * execution units of @threads, and find the threads hung in a call (per
 * thread, its longest call beyond its hang limit)
 *
 * Returns 0, or -1 when memory ran out.
 */
int vs_signature_infer(const struct vs_signatures *sig,
		       const struct vs_thread_calls *threads, size_t nr_threads,
		       const struct vs_infer_opts *opts,
		       struct vs_infer_result *res);

void vs_infer_result_free(struct vs_infer_result *res);

/**
 * vs_infer_abnormal - whether @res shows abnormal behaviour: a function
 * whose rank score reaches @min_score, or a hung thread
 */
bool vs_infer_abnormal(const struct vs_infer_result *res,
		       double min_score);

/**
 * vs_signature_read_calls - the system calls of every thread of the trace
 * @path (SYSCALL records), with their off-CPU spans (SWITCH records)
 * @threads/@nr: out, malloc'ed; free with vs_thread_calls_free()
 *
 * A call still open at the end of the trace lasts until its last record
 * (vs_thread_calls_close()).
 * Returns 0, or -1 with a one-line message in @err.
 */
int vs_signature_read_calls(const char *path, struct vs_thread_calls **threads,
			    size_t *nr, char *err, size_t errlen);

/**
 * vs_thread_calls_close - give the calls of @th without an exit one: the
 * next call's enter (the exit record was lost), or, for the last call,
 * @end (the call is still going: open)
 */
void vs_thread_calls_close(struct vs_thread_calls *th, uint64_t end);

/**
 * vs_thread_calls_first - the enter time of the first call of the @nr
 * threads @threads (each's calls by enter time), UINT64_MAX when they
 * made none
 */
uint64_t vs_thread_calls_first(const struct vs_thread_calls *threads,
			       size_t nr);

void vs_thread_calls_free(struct vs_thread_calls *threads, size_t nr);

/**
 * vs_thread_calls_hole - records of @from to @to may be missing from @th
 * (a ring dropped them): a gap of its calls across that time is unknown,
 * as across an off-CPU span (it is ignored, never a cut, never in the
 * gap statistics).  @off_cap is the capacity of th->off.
 *
 * One lost stretch of records would otherwise be one gap of its whole
 * length, and mean + 2 sigma of the gaps would grow past every gap
 * between requests: a whole thread in one execution unit.
 * Returns 0, or -1 when out of memory.
 */
int vs_thread_calls_hole(struct vs_thread_calls *th, size_t *off_cap,
			 uint64_t from, uint64_t to);

/*
 * The time of each CPU's last record: a PERF_RECORD_LOST of a CPU's ring
 * says the records of that ring since then, up to its own time, were
 * dropped.
 */
struct vs_cpu_times {
	uint64_t *time;			/* by CPU, 0: none yet */
	size_t cap;
};

/* Note a record of @cpu at @time; -1 when out of memory. */
int vs_cpu_times_see(struct vs_cpu_times *c, uint32_t cpu, uint64_t time);

/* The time of @cpu's last record, 0 when it had none. */
uint64_t vs_cpu_times_last(const struct vs_cpu_times *c, uint32_t cpu);

void vs_cpu_times_release(struct vs_cpu_times *c);

/**
 * vs_signature_name_hangs - name the function of each hang of @res from
 * recording @path: the stack of the thread's long call (a SAMPLE record
 * with VS_SAMPLE_SYSCALL, `record --syscalls --syscall-stacks`), unwound
 * with the recording's MMAP records; the innermost function of @sig's
 * program on it.  A hang without one stays unnamed.
 *
 * Returns 0, or -1 with a one-line message in @err.
 */
int vs_signature_name_hangs(const char *path, const struct vs_signatures *sig,
			    struct vs_infer_result *res, char *err,
			    size_t errlen);

#endif /* VS_CORE_SIGNATURE_H */
