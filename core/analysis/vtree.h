/* SPDX-License-Identifier: MIT */
/*
 * vtree.h - the variance tree of one task type (VProfiler, Huang et al.,
 * EuroSys'17).
 *
 * Each node is a function in its calling context; its value in a task is
 * its inclusive time in that task (0 where it did not run).  The root is
 * the task latency, its children the top-level functions, its self time
 * the rest (waits, unsampled code).  For every node the tree keeps the
 * variance of its time across tasks, the variance of its self time
 * (node minus children) and the covariance of every pair of its children;
 * with self counted as one more child,
 *
 *	Var(node) = sum Var(child) + Var(self) + 2 * sum Cov(pairs)
 *
 * holds exactly on the estimates (sample variances, n - 1).
 *
 * Input is source-neutral: per task, call paths (symbol ids, root first)
 * with the ns each stands for; sampled callchains and exact probe
 * enter/exit nesting both feed it.
 *
 * Sampling noise.  A sampled node's estimate is X = T + e, where T is the
 * true time and e the sampling error: with samples as a Poisson process
 * of weights w (a cpu-clock sample stands for its period p), e has mean 0
 * and, given the task, variance sum w^2 over the task's samples in the
 * node (p^2 * count, i.e. p^2 * lambda in expectation for expected count
 * lambda).  So E[s^2(X)] = Var(T) + E[sum w^2], and the tree subtracts the
 * mean over tasks of sum w^2 from every sampled variance.  Errors of
 * disjoint call paths are independent: child pairs need no correction.
 * Under an exact parent (the root) self = parent - sum children carries
 * minus the children's errors: Var(self) loses sum of the children's
 * noise and Cov(self, child) gains that child's.  The decomposition then
 * still holds on the corrected values.
 *
 * A closed task (vs_vtree_close_task()): its N samples split a measured
 * total S (its task-clock) evenly, w = S / N, so a node's estimate is a
 * share of S: the counts are multinomial, not free.  The error of a node
 * holding x of S then has variance w x - x^2 / N, and two disjoint nodes'
 * errors covary by -x_a x_b / N: every noise term above loses the mean
 * of x_a x_b / N over the closed tasks.  A node with all the task's
 * samples (main) has no error at all, where the free-count model would
 * take p^2 N off a variance that is exact.
 *
 * Factors are non-root node variances and child-pair covariance terms
 * (2 Cov), as shares of the latency variance; score = specificity x
 * share, specificity = (height of root - height of factor)^2, height =
 * depth of the tree below a node (a leaf: 0; a pair: the higher one)
 * counting only the nodes of VS_VTREE_MINOR of the latency variance.
 */
#ifndef VS_CORE_VTREE_H
#define VS_CORE_VTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A node under this share of the latency variance adds no height to its
 * callers (the printers fold it when it is under it in the mean too).
 */
#define VS_VTREE_MINOR	0.001

#define VS_VTREE_ROOT	UINT32_MAX	/* symbol id of the root */
/*
 * Symbol ids from here on are waits blamed on waker VS_VTREE_WAIT + i of
 * the type's (core/analysis/wakeup.h): exact nodes, no functions to probe.
 */
#define VS_VTREE_WAIT	0x80000000u

struct vs_vtree_node {
	uint32_t symbol;	/* the caller's id; VS_VTREE_ROOT for the root */
	unsigned int parent;	/* node index; the root's is 0 */
	unsigned int depth, height;
	bool exact;		/* measured, not sampled (a wait) */
	bool unprobeable;	/* no --probe can measure it (a kernel
				   function, an address without a symbol) */
	unsigned int nr_children;
	unsigned int *children;	/* node indices */
	size_t alloc_children;
	double *time;		/* inclusive ns, per slot (vs_vtree_time()) */
	size_t len, alloc;	/* slots in @time; 0 ns past them */
	double noise_sq;	/* sum over tasks of sum w^2 (sampled) */
	double mean;		/* ns per task */
	double var;		/* corrected variance */
	double noise;		/* sampling variance subtracted from @var */
	double self_mean, self_var, self_noise;
	double *cov;		/* child pairs (i < j) in vs_vtree_pair() order */
	double *self_cov;	/* Cov(self, child i), corrected */
};

struct vs_vtree_factor {
	unsigned int node;	/* a variance: the node; a pair: the parent */
	int a, b;		/* a pair: child positions; a variance: -1 */
	double value;		/* Var, or 2 Cov: ns^2 */
	double share;		/* @value / latency variance */
	unsigned int height;
	double specificity, score;
};

/*
 * Tasks are stored by slot: a task gets one at its first path (few of a
 * large type's tasks have samples: 8 thousand of 400 thousand), and a
 * node's times cover the slots up to its last; a task without a slot is
 * 0 ns in every node but the root.  The root's times (latencies) cover
 * every task: the slots first, then the others, in task order.  So the
 * tree costs time and memory by samples, not by tasks.
 */
struct vs_vtree {
	size_t nr_tasks;
	bool sampled;
	uint32_t *slot_of;		/* per task: its slot, or UINT32_MAX */
	size_t *task_of;		/* per slot */
	size_t nr_slots, alloc_slots;
	double *samples;		/* per slot: its vs_vtree_add()s */
	bool *closed;			/* per slot: vs_vtree_close_task() */
	double *latency;		/* per task */
	unsigned int nr_nodes;
	size_t alloc_nodes;
	struct vs_vtree_node *nodes;	/* [0] is the root */
	unsigned int nr_factors;
	struct vs_vtree_factor *factors;	/* best score first */
};

/**
 * vs_vtree_new - an empty tree over @nr_tasks tasks (at least 2)
 * @sampled: the paths added are samples (their variance is corrected for
 * sampling noise), not exact measurements
 */
struct vs_vtree *vs_vtree_new(size_t nr_tasks, bool sampled);
void vs_vtree_free(struct vs_vtree *vt);

/* The time of node @node in task @task, ns (after vs_vtree_finish() for
 * the root). */
double vs_vtree_time(const struct vs_vtree *vt, unsigned int node,
		     size_t task);

/* The latency of task @task, ns: the root's value. */
void vs_vtree_set_latency(struct vs_vtree *vt, size_t task, double ns);

/**
 * vs_vtree_add - @ns of task @task spent in call path @path[0..@depth)
 * (outermost function first); every node on the path gets @ns
 * Returns 0, or -1 when memory runs out.
 */
int vs_vtree_add(struct vs_vtree *vt, size_t task, const uint32_t *path,
		 unsigned int depth, double ns);

/**
 * vs_vtree_close_task - task @task's samples, all of them added, split
 * a measured total evenly: their errors are shares (see the top)
 */
void vs_vtree_close_task(struct vs_vtree *vt, size_t task);

/**
 * vs_vtree_add_exact - vs_vtree_add() of a measured time (no sampling
 * noise) in a sampled tree: the path's nodes are exact ones
 */
int vs_vtree_add_exact(struct vs_vtree *vt, size_t task, const uint32_t *path,
		       unsigned int depth, double ns);

/**
 * vs_vtree_finish - compute means, variances, covariances and the
 * factors ranked by score; 0 or -1 (no memory)
 */
int vs_vtree_finish(struct vs_vtree *vt);

/**
 * vs_vtree_noise - the sampling noise the tree subtracted, in all: that of
 * the root's children, ns^2.  Their paths are disjoint and hold every
 * sample once; a deeper node's noise is part of its ancestor's, so adding
 * up nested nodes would count samples again (and pass the latency
 * variance).  0 for an exact tree.
 */
double vs_vtree_noise(const struct vs_vtree *vt);

/* Index of the pair (i, j), i < j, of @n children in node->cov[]. */
static inline size_t vs_vtree_pair(unsigned int n, unsigned int i,
				   unsigned int j)
{
	return (size_t)i * (2 * n - i - 1) / 2 + (j - i - 1);
}

/**
 * vs_vtree_next_probes - the functions to measure next (VProfiler's
 * refinement): the children of the top @k factors; a factor's node
 * without children stands for itself.  Waits and unprobeable nodes are
 * left out.  Writes up to @max distinct symbol ids into @out and returns
 * how many.
 */
unsigned int vs_vtree_next_probes(const struct vs_vtree *vt, unsigned int k,
				  uint32_t *out, unsigned int max);

struct vs_task_samples;
struct vs_wake_type;
struct vs_wake_part;

/**
 * vs_vtree_wait_symbol - the node of a blamed part of a task's waits
 * (core/analysis/wakeup.h): VS_VTREE_WAIT + its waker's index, or VS_VTREE_ROOT
 * when it is no node (the waker worked for the task, attached to it: its
 * time is the task's already, in its samples or probed calls)
 */
uint32_t vs_vtree_wait_symbol(const struct vs_wake_type *waits,
			      const struct vs_wake_part *part);

/**
 * vs_vtree_from_samples - the variance tree of the tasks of @type from
 * their samples' callchains (core/analysis/task-samples.h)
 * @waits: the type's waits blamed along wake-up edges
 * (core/analysis/wakeup.h), or NULL: each task's parts blamed on a thread
 * that did not work for it (not attached to it: its samples are not the
 * task's) become exact children of the root, one per waker, symbol
 * VS_VTREE_WAIT + its index
 * @why: when there is no tree (NULL returned), says why in a few words
 *
 * Kernel frames are kept down to the entry (syscall, interrupt, fault)
 * only.  The application's frames at the root of nearly all callchains
 * (_start, main, a worker loop) are dropped but the deepest, which
 * becomes the root's main child.  Every sample is some node's time.
 * Symbol ids are @ts's.
 */
struct vs_vtree *vs_vtree_from_samples(const struct vs_task_samples *ts,
				       uint32_t type,
				       const struct vs_wake_type *waits,
				       const char **why);

/* The name of symbol @id of the struct vs_task_samples @samples. */
const char *vs_vtree_sample_symbol(void *samples, uint32_t id);

/* Where symbol @id of @samples begins, "file.c:12", or NULL (no debug info) */
const char *vs_vtree_sample_source(void *samples, uint32_t id);

/*
 * The shared library holding symbol @id of @samples, or NULL (the
 * program's own function): --probe needs it named, as SYMBOL@LIBRARY.
 */
const char *vs_vtree_sample_library(void *samples, uint32_t id);

struct vs_func_times;

/**
 * vs_vtree_from_probes - the exact variance tree of the tasks of @type
 * from the call paths of probed functions (record --probe,
 * core/analysis/func-times.h); no sampling noise.  Symbol ids are @ft's.
 * @waits: as vs_vtree_from_samples(); a wait's node is a child of the
 * path of the probed calls its thread was blocked in (their time holds
 * it: it is taken from their self time), or of the root
 * @why: as vs_vtree_from_samples()
 */
struct vs_vtree *vs_vtree_from_probes(const struct vs_func_times *ft,
				      uint32_t type,
				      const struct vs_wake_type *waits,
				      const char **why);

/* The name of symbol @id of the struct vs_func_times @func_times. */
const char *vs_vtree_probe_symbol(void *func_times, uint32_t id);

/* Where symbol @id of @func_times is declared, or NULL (no debug info) */
const char *vs_vtree_probe_source(void *func_times, uint32_t id);

#endif /* VS_CORE_VTREE_H */
