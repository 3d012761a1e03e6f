// SPDX-License-Identifier: MIT
/*
 * t/unit/vtree.c - the variance tree on hand-computed data.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/analysis/func-times.h"
#include "core/analysis/task-samples.h"
#include "core/analysis/vtree.h"
#include "core/analysis/wakeup.h"
#include "t/unit/tap.h"

enum { A = 1, B = 2, C = 3, D = 4 };

static int near(double got, double want)
{
	return fabs(got - want) <= 1e-9 * (fabs(want) + 1);
}

static const struct vs_vtree_node *child(const struct vs_vtree *vt,
					 unsigned int node, uint32_t symbol)
{
	const struct vs_vtree_node *n = &vt->nodes[node];
	unsigned int i;

	for (i = 0; i < n->nr_children; i++)
		if (vt->nodes[n->children[i]].symbol == symbol)
			return &vt->nodes[n->children[i]];
	return NULL;
}

/* Var(node) - sum Var(child) - Var(self) - 2 sum Cov, relative to Var(node) */
static double decomposition_error(const struct vs_vtree *vt, unsigned int i)
{
	const struct vs_vtree_node *n = &vt->nodes[i];
	unsigned int c, d, nc = n->nr_children;
	double sum = n->self_var;

	for (c = 0; c < nc; c++) {
		sum += vt->nodes[n->children[c]].var + 2 * n->self_cov[c];
		for (d = c + 1; d < nc; d++)
			sum += 2 * n->cov[vs_vtree_pair(nc, c, d)];
	}
	return fabs(n->var - sum) / (fabs(n->var) + 1e-300);
}

static double max_decomposition_error(const struct vs_vtree *vt)
{
	double worst = 0;
	unsigned int i;

	for (i = 0; i < vt->nr_nodes; i++)
		if (vt->nodes[i].nr_children) {
			double e = decomposition_error(vt, i);

			if (e > worst)
				worst = e;
		}
	return worst;
}

/*
 * Three tasks, exact times:       task 0  1  2   mean var
 *   latency                           10 20 30    20  100
 *   A (inclusive)                      4  8 12     8   16
 *     A/C                              1  4  7     4    9
 *   B                                  2  2  2     2    0
 *   root self = L - A - B              4 10 16    10   36, Cov(self, A) 24
 *   A self = A - C                     3  4  5     4    1, Cov(self, C) 3
 * Heights: C 0, A 1, B 0, root 2.  Scores: C 4 x .09, A 1 x .16, B 0.
 */
static void test_exact(void)
{
	static const double lat[] = { 10, 20, 30 }, a[] = { 4, 8, 12 },
		c[] = { 1, 4, 7 };
	const uint32_t pa[] = { A }, pac[] = { A, C }, pb[] = { B };
	struct vs_vtree *vt = vs_vtree_new(3, false);
	const struct vs_vtree_node *na, *nb, *nc;
	uint32_t probes[8];
	unsigned int t, nr;

	for (t = 0; t < 3; t++) {
		vs_vtree_set_latency(vt, t, lat[t]);
		vs_vtree_add(vt, t, pac, 2, c[t]);
		vs_vtree_add(vt, t, pa, 1, a[t] - c[t]);
		vs_vtree_add(vt, t, pb, 1, 2);
	}
	ok(!vs_vtree_finish(vt), "exact tree built");
	na = child(vt, 0, A);
	nb = child(vt, 0, B);
	nc = na ? child(vt, na - vt->nodes, C) : NULL;
	if (!ok(na && nb && nc && vt->nr_nodes == 4, "4 nodes: root, A, A/C, B"))
		return;
	ok(near(vt->nodes[0].var, 100) && near(vt->nodes[0].mean, 20),
	   "latency variance 100, mean 20");
	ok(near(na->var, 16) && near(nb->var, 0) && near(nc->var, 9),
	   "Var A 16, B 0, C 9");
	ok(near(vt->nodes[0].self_var, 36) && near(vt->nodes[0].self_mean, 10),
	   "root self: the rest, variance 36");
	ok(near(vt->nodes[0].self_cov[0], 24), "Cov(root self, A) 24");
	ok(near(na->self_var, 1) && near(na->self_cov[0], 3),
	   "A self variance 1, Cov(A self, C) 3");
	ok(near(vt->nodes[0].cov[0], 0), "Cov(A, B) 0");
	ok(max_decomposition_error(vt) < 1e-12, "decomposition holds");
	ok(vt->nodes[0].height == 2 && na->height == 1 && nc->height == 0,
	   "heights 2, 1, 0");
	ok(vt->nr_factors == 4, "factors: 3 variances, 1 pair");
	ok(vt->factors[0].node == (unsigned int)(nc - vt->nodes) &&
	   near(vt->factors[0].share, .09) &&
	   near(vt->factors[0].specificity, 4) &&
	   near(vt->factors[0].score, .36), "top factor: C, 4 x 9%%");
	ok(vt->factors[1].node == (unsigned int)(na - vt->nodes) &&
	   near(vt->factors[1].score, .16), "second: A, 1 x 16%%");
	nr = vs_vtree_next_probes(vt, 2, probes, 8);
	ok(nr == 1 && probes[0] == C,
	   "next probes of C (a leaf) and A: C alone");
	vs_vtree_free(vt);
}

/*
 * Two children that vary together: their covariance is the top factor,
 * though B once called D (an interrupt one sample caught): a child that
 * carries none of the variance makes B no less specific than A.
 */
static void test_covary(void)
{
	const uint32_t pa[] = { A }, pb[] = { B }, pc[] = { C },
		pbd[] = { B, D };
	struct vs_vtree *vt = vs_vtree_new(100, false);
	const struct vs_vtree_factor *f;
	unsigned int t;

	for (t = 0; t < 100; t++) {
		double x = (t % 10) * 100.0;

		vs_vtree_add(vt, t, pa, 1, 1000 + x);
		vs_vtree_add(vt, t, pb, 1, 1000 + x);
		vs_vtree_add(vt, t, pc, 1, 1000 + (t % 2));
		vs_vtree_set_latency(vt, t, 3500 + 2 * x + (t % 2));
	}
	vs_vtree_add(vt, 7, pbd, 2, 1);
	vs_vtree_finish(vt);
	f = &vt->factors[0];
	ok(f->a >= 0 && f->node == 0 &&
	   vt->nodes[vt->nodes[0].children[f->a]].symbol == A &&
	   vt->nodes[vt->nodes[0].children[f->b]].symbol == B &&
	   f->share > 0.49, "A and B vary together: Cov(A, B) on top (%.2f)",
	   f->share);
	ok(vt->nodes[0].height == 1, "B/D, no variance: no height (%u)",
	   vt->nodes[0].height);
	ok(max_decomposition_error(vt) < 1e-12, "decomposition holds");
	vs_vtree_free(vt);
}

/* Poisson sample counts, Knuth's method; small lambda */
static unsigned int poisson(double lambda)
{
	double l = exp(-lambda), p = 1;
	unsigned int k = 0;

	do {
		k++;
		p *= (double)random() / ((double)RAND_MAX + 1);
	} while (p > l);
	return k - 1;
}

/* About @lambda samples of weight @p on @path in task @t. */
static void add_samples(struct vs_vtree *vt, size_t t, const uint32_t *path,
			unsigned int depth, double lambda, double p)
{
	unsigned int k, cnt = poisson(lambda);

	for (k = 0; k < cnt; k++)
		vs_vtree_add(vt, t, path, depth, p);
}

/*
 * A runs 1 ms in every task, sampled every 10 us: about 100 samples, and
 * a raw variance of about p^2 * lambda = 1e10 ns^2 that is all noise.  B
 * varies for real.  The corrected variance of A is near 0; the
 * decomposition holds on corrected values, sampled parent included.
 */
static void test_sampled(void)
{
	const uint32_t pa[] = { A, C }, pb[] = { A, B }, pself[] = { A };
	const double p = 10000;
	const size_t n = 4000;
	struct vs_vtree *vt = vs_vtree_new(n, true);
	const struct vs_vtree_node *na, *nc, *nb;
	unsigned int t;
	double raw;

	srandom(1);
	for (t = 0; t < n; t++) {
		double b = (t % 4) * 200000.0;

		add_samples(vt, t, pa, 2, 100, p);
		add_samples(vt, t, pb, 2, b / p, p);
		add_samples(vt, t, pself, 1, 20, p);
		vs_vtree_set_latency(vt, t, 2000000 + b);
	}
	vs_vtree_finish(vt);
	na = child(vt, 0, A);
	nc = na ? child(vt, na - vt->nodes, C) : NULL;
	nb = na ? child(vt, na - vt->nodes, B) : NULL;
	if (!ok(na && nb && nc, "sampled tree: A, A/B, A/C"))
		return;
	raw = nc->var + nc->noise;
	ok(fabs(nc->noise - p * p * 100) < 0.05 * p * p * 100,
	   "noise of C ~ p^2 lambda (%.3g)", nc->noise);
	ok(raw > 0.8e10 && fabs(nc->var) < 0.2 * raw,
	   "C: raw variance %.3g is noise, corrected %.3g", raw, nc->var);
	ok(fabs(nb->var - 5e10) < 0.1 * 5e10,
	   "B: corrected variance %.3g ~ the true 5e10", nb->var);
	ok(max_decomposition_error(vt) < 1e-9,
	   "decomposition holds on corrected values");
	ok(vt->nodes[vt->factors[0].node].symbol == B && vt->factors[0].a < 0,
	   "top factor: B");
	ok(vs_vtree_noise(vt) == na->noise &&
	   na->noise < na->noise + nb->noise + nc->noise,
	   "noise in all: A's, which holds B's and C's (%.3g)",
	   vs_vtree_noise(vt));
	vs_vtree_free(vt);
}

/*
 * A sampled tree with an exact wait (VS_VTREE_WAIT, a waker's part): the
 * wait varies for real and has no noise; A is all noise.  The wait is
 * the top factor, the decomposition holds, and no --probe names it.
 */
static void test_wait(void)
{
	const uint32_t pa[] = { A }, wait = VS_VTREE_WAIT;
	const double p = 10000;
	const size_t n = 2000;
	struct vs_vtree *vt = vs_vtree_new(n, true);
	const struct vs_vtree_node *na, *nw;
	unsigned int t;
	uint32_t probes[4];

	srandom(2);
	for (t = 0; t < n; t++) {
		double w = (t % 2) * 500000.0;

		add_samples(vt, t, pa, 1, 100, p);
		vs_vtree_add_exact(vt, t, &wait, 1, w);
		vs_vtree_set_latency(vt, t, 1500000 + w);
	}
	vs_vtree_finish(vt);
	na = child(vt, 0, A);
	nw = child(vt, 0, VS_VTREE_WAIT);
	if (!ok(na && nw, "sampled tree with a wait node"))
		return;
	ok(nw->exact && nw->noise == 0 && near(nw->var, 250000.0 * 250000 *
						n / (n - 1)),
	   "the wait: exact, its true variance");
	ok(fabs(na->var) < 0.2 * (na->var + na->noise), "A: noise only");
	ok(max_decomposition_error(vt) < 1e-9, "decomposition holds");
	ok(vt->nodes[vt->factors[0].node].symbol == VS_VTREE_WAIT,
	   "top factor: the wait");
	ok(vs_vtree_next_probes(vt, 1, probes, 4) == 0,
	   "a wait is no function to probe");
	vs_vtree_free(vt);
}

/*
 * Closed tasks: 100 samples split each task's CPU time T (1 or 2 ms)
 * evenly, all under main (A), each in B or C with odds 1:1, and the
 * latency is T + 50 us.  A has all of T in every task: its estimate is
 * exact, its variance Var(T) = 2.5e11 ns^2 (x n / (n - 1)), no noise,
 * where free counts would take w T (2.5e10 on the mean) off it.  B and C
 * are T / 2, variance 6.25e10, their errors (w^2 N / 4: 6.25e9 on the
 * mean) covarying by minus as much.  The root's self, 50 us in every
 * task, neither varies nor carries noise.
 */
static void test_closed(void)
{
	const uint32_t pb[] = { A, B }, pc[] = { A, C };
	const size_t n = 4000;
	struct vs_vtree *vt = vs_vtree_new(n, true);
	const struct vs_vtree_node *na, *nb, *nc, *root;
	unsigned int t, k;

	srandom(3);
	for (t = 0; t < n; t++) {
		double cpu = (1 + t % 2) * 1000000.0;

		for (k = 0; k < 100; k++)
			vs_vtree_add(vt, t, random() & 1 ? pb : pc, 2,
				     cpu / 100);
		vs_vtree_close_task(vt, t);
		vs_vtree_set_latency(vt, t, cpu + 50000);
	}
	vs_vtree_finish(vt);
	root = &vt->nodes[0];
	na = child(vt, 0, A);
	nb = na ? child(vt, na - vt->nodes, B) : NULL;
	nc = na ? child(vt, na - vt->nodes, C) : NULL;
	if (!ok(na && nb && nc, "closed tasks: A, A/B, A/C"))
		return;
	ok(fabs(na->noise) < 1 && near(na->var, 2.5e11 * n / (n - 1)),
	   "A holds all of T: no noise, variance Var(T) (%.4g)", na->var);
	ok(fabs(nb->noise - 6.25e9) < 0.05 * 6.25e9 &&
	   fabs(nb->var - 6.25e10) < 0.05 * 6.25e10,
	   "B: noise %.3g ~ 6.25e9, corrected variance %.4g ~ 6.25e10",
	   nb->noise, nb->var);
	ok(fabs(na->cov[0] - 6.25e10) < 0.05 * 6.25e10,
	   "Cov(B, C) %.4g ~ 6.25e10, their errors' -6.25e9 added back",
	   na->cov[0]);
	ok(fabs(root->self_var) < 1e-6 * 2.5e11 && fabs(root->self_noise) < 1,
	   "the root's self: no variance (%.3g), no noise", root->self_var);
	ok(max_decomposition_error(vt) < 1e-9,
	   "decomposition holds on corrected values");
	vs_vtree_free(vt);
}

static void add(struct vs_writer *w, const struct vs_record *rec)
{
	vs_writer_add(w, rec);
}

/*
 * The tasks of test_probes() with waits blamed on a thread outside them
 * (waker 0): 5, 30, 60 ns blocked inside B, and 3 ns of the third task
 * before A; a wait ended by the task's own worker (waker 1) is no node.
 * The waits in B are a node under A/B, B's time stays its own (Var 900),
 * the one before A a node under the root.
 */
static void test_probe_waits(const struct vs_func_times *ft)
{
	struct vs_waker wakers[] = {
		{ .tid = 20, .kind = VS_WAKER_OUTSIDE },
		{ .tid = 30, .kind = VS_WAKER_SAME_TASK },
	};
	struct vs_wake_part parts[] = {
		{ 1, 0, 5, 1022 }, { 1, 1, 4, 1023 },
		{ 2, 0, 30, 2025 },
		{ 3, 0, 3, 3002 }, { 3, 0, 60, 3025 },
	};
	struct vs_wake_type wt = { .type = 1, .nr_wakers = 2,
		.wakers = wakers, .nr_parts = 5, .parts = parts };
	const struct vs_vtree_node *na, *nb, *nw, *nr;
	const char *why;
	struct vs_vtree *vt = vs_vtree_from_probes(ft, 1, &wt, &why);

	if (!ok(vt != NULL, "tree from probed calls and waits (%s)",
		vt ? "" : why))
		return;
	na = child(vt, 0, 0);
	nb = na ? child(vt, na - vt->nodes, 1) : NULL;
	nw = nb ? child(vt, nb - vt->nodes, VS_VTREE_WAIT) : NULL;
	nr = child(vt, 0, VS_VTREE_WAIT);
	ok(nw && nr && vt->nr_nodes == 5 && !child(vt, 0, VS_VTREE_WAIT + 1),
	   "waits: one node under A/B, one under the root, none of the "
	   "task's own worker");
	if (nw && nr)
		ok(vs_vtree_time(vt, nw - vt->nodes, 0) == 5 &&
		   vs_vtree_time(vt, nw - vt->nodes, 1) == 30 &&
		   vs_vtree_time(vt, nw - vt->nodes, 2) == 60 &&
		   near(nb->var, 900) && near(na->var, 1600) &&
		   vs_vtree_time(vt, nr - vt->nodes, 0) == 0 &&
		   vs_vtree_time(vt, nr - vt->nodes, 2) == 3,
		   "A/B/wait 5, 30, 60 ns; A and B keep their times");
	ok(max_decomposition_error(vt) < 1e-12, "decomposition holds");
	vs_vtree_free(vt);
}

/*
 * From record --probe: three tasks of 100, 200, 300 ns on one thread, A
 * running 40, 80, 120 ns in them and B, inside A, 10, 40, 70 ns.  The
 * exact tree has Var(latency) 10000, Var(A) 1600, Var(A/B) 900.
 */
static void test_probes(void)
{
	static const uint64_t lat[] = { 100, 200, 300 }, a[] = { 40, 80, 120 },
		b[] = { 10, 40, 70 };
	char path[] = "/tmp/vs-vtree-XXXXXX", err[256];
	int fd = mkstemp(path);
	struct vs_writer *w = vs_writer_fdopen(fd, &(struct vs_header){ 0 });
	struct vs_func_times *ft = NULL;
	const struct vs_vtree_node *na, *nb;
	struct vs_vtree *vt = NULL;
	struct vs_reader *r;
	const char *why = "no trace";
	unsigned int t;

	add(w, &(struct vs_record){ .kind = VS_REC_SYMBOL_DEF,
		.symbol_def = { A, 0x1000, "A", "app" } });
	add(w, &(struct vs_record){ .kind = VS_REC_SYMBOL_DEF,
		.symbol_def = { B, 0x2000, "B", "app" } });
	for (t = 0; t < 3; t++) {
		uint64_t s0 = 1000 * (t + 1);

		add(w, &(struct vs_record){ .kind = VS_REC_FUNC,
			.func = { s0 + 10, 10, 0, A, VS_FUNC_ENTER } });
		add(w, &(struct vs_record){ .kind = VS_REC_FUNC,
			.func = { s0 + 20, 10, 0, B, VS_FUNC_ENTER } });
		add(w, &(struct vs_record){ .kind = VS_REC_FUNC,
			.func = { s0 + 20 + b[t], 10, 0, B, VS_FUNC_EXIT } });
		add(w, &(struct vs_record){ .kind = VS_REC_FUNC,
			.func = { s0 + 10 + a[t], 10, 0, A, VS_FUNC_EXIT } });
		add(w, &(struct vs_record){ .kind = VS_REC_TASK,
			.task = { .id = t + 1, .type = 1, .pid = 10, .tid = 10,
				  .start = s0, .end = s0 + lat[t] } });
	}
	vs_writer_close(w);
	r = vs_reader_open(path, err, sizeof(err));
	if (r) {
		ft = vs_func_times_read(r, err, sizeof(err));
		vs_reader_close(r);
	}
	if (ft)
		vt = vs_vtree_from_probes(ft, 1, NULL, &why);
	unlink(path);
	if (!ok(vt != NULL, "tree from probed calls (%s)", vt ? "" : why))
		goto out;
	/* the nodes name symbol indices: the definitions in order */
	is_str(vs_func_times_symbol(ft, 0), "A", "symbol id 1 is index 0");
	na = child(vt, 0, 0);
	nb = na ? child(vt, na - vt->nodes, 1) : NULL;
	ok(!vt->sampled && na && nb && vt->nr_nodes == 3,
	   "exact tree: root, A, A/B");
	if (!na || !nb)
		goto out;
	ok(near(vt->nodes[0].var, 10000) && near(na->var, 1600) &&
	   near(nb->var, 900) && near(na->mean, 80) && near(nb->mean, 40),
	   "Var latency 10000, A 1600, A/B 900; means 80, 40");
	ok(na->noise == 0 && nb->noise == 0, "no sampling noise subtracted");
	ok(max_decomposition_error(vt) < 1e-12, "decomposition holds");
	vs_vtree_free(vt);
	vt = vs_vtree_from_probes(ft, 2, NULL, &why);
	ok(!vt && !strcmp(why, "fewer than 2 tasks"), "no tasks of type 2");
	test_probe_waits(ft);
out:
	vs_vtree_free(vt);
	vs_func_times_free(ft);
}

/*
 * From samples, the next --probe list holds what uprobes can measure: not
 * a kernel function nor an address without a symbol, even as children of
 * the top factor; a library's function comes with its library.  Twenty
 * tasks run serve, and under it lookup, memcpy of libc, a timer
 * interrupt and unsymbolized libc code, each for a varying time that
 * the latency follows.
 */
static void test_sampled_probes(void)
{
	static const char libc[] = "/lib/x86_64-linux-gnu/libc.so.6";
	struct vs_task_samples *ts = vs_task_samples_new();
	uint32_t serve, leaf[4], probes[16], chain[2];
	struct vs_vtree *vt;
	const char *why;
	unsigned int i, k, j, nr, kernel_nodes = 0;
	struct vs_task t = { .type = 1, .pid = 1, .tid = 10 };
	struct vs_sample sm = { .pid = 1, .tid = 10, .period = 100 };

	serve = vs_task_samples_symbol(ts, "serve", "/srv/app");
	leaf[0] = vs_task_samples_symbol(ts, "lookup", "/srv/app");
	leaf[1] = vs_task_samples_symbol(ts, "memcpy", libc);
	leaf[2] = vs_task_samples_symbol(ts, "asm_sysvec_apic_timer_interrupt",
					 "[kernel]");
	leaf[3] = vs_task_samples_symbol(ts, "[libc.so.6]", libc);
	for (i = 0; i < 20; i++) {
		t.id = i + 1;
		t.start = i * 1000000ull;
		t.end = t.start + 40000;
		for (k = 0; k < 4; k++)
			t.end += 100 * (1 + (i * (k + 1)) % 7 * 10);
		vs_task_samples_add_task(ts, &t, 0);
		for (k = 0; k < 4; k++)
			for (j = 0; j < 1 + (i * (k + 1)) % 7 * 10; j++) {
				sm.time = t.start + 100 * (100 * k + j + 1);
				chain[0] = leaf[k];
				chain[1] = serve;
				vs_task_samples_add_sample(ts, &sm, chain, 2);
			}
	}
	vs_task_samples_finish(ts);
	vt = vs_vtree_from_samples(ts, 1, NULL, &why);
	if (!ok(vt != NULL, "tree from samples (%s)", vt ? "built" : why)) {
		vs_task_samples_free(ts);
		return;
	}
	for (i = 0; i < vt->nr_nodes; i++)
		kernel_nodes += vt->nodes[i].symbol == leaf[2] &&
				vt->nodes[i].unprobeable;
	ok(kernel_nodes == 1, "the timer interrupt is a node, unprobeable");
	nr = vs_vtree_next_probes(vt, vt->nr_factors, probes, 16);
	for (i = 0, k = 0; i < nr; i++)
		k |= probes[i] == leaf[0] ? 1 : probes[i] == leaf[1] ? 2 : 4;
	ok(k == 3, "next --probe: lookup and memcpy alone (%u of them)", nr);
	is_str(vs_vtree_sample_library(ts, leaf[1]), libc,
	       "memcpy is probed in libc");
	ok(!vs_vtree_sample_library(ts, leaf[0]), "lookup in the program");
	vs_vtree_free(vt);
	vs_task_samples_free(ts);
}

/*
 * A handler that spins on a system call (VProfiler's worker serving a
 * request, its samples in the kernel): twenty tasks under start_thread,
 * worker and handle, nearly all their samples deep in the kernel below
 * handle's system call, one in handle's own code and one in worker's.
 * The prefix every task goes through ends at handle, not in the kernel
 * frames the tree folds into their entry, and every sample is a node's
 * time: the root's children hold all the sampled time.
 */
static void test_sampled_syscall(void)
{
	static const char *const names[] = {
		"clear_user", "read_zero", "do_syscall_64",
		"entry_SYSCALL_64_after_hwframe", "handle", "worker",
		"start_thread",
	};
	enum { NR_NAMES = sizeof(names) / sizeof(names[0]) };
	struct vs_task_samples *ts = vs_task_samples_new();
	const struct vs_vtree_node *nh, *ne, *nw;
	struct vs_task t = { .type = 1, .pid = 1, .tid = 10 };
	struct vs_sample sm = { .pid = 1, .tid = 10, .period = 100 };
	uint32_t chain[NR_NAMES];
	double sampled = 0;
	struct vs_vtree *vt;
	const char *why;
	unsigned int i, k, j, nr;

	for (k = 0; k < NR_NAMES; k++)
		chain[k] = vs_task_samples_symbol(ts, names[k],
						  k < 4 ? "[kernel]" :
						  "/srv/app");
	for (i = 0; i < 20; i++) {
		nr = 20 + i % 3;
		t.id = i + 1;
		t.start = i * 1000000ull;
		t.end = t.start + 100 * (nr + 3);
		vs_task_samples_add_task(ts, &t, 0);
		for (j = 0; j < nr; j++) {
			sm.time = t.start + 100 * (j + 1);
			/* the kernel's, the user's in handle, in worker */
			k = j < nr - 2 ? 0 : j == nr - 2 ? 4 : 5;
			vs_task_samples_add_sample(ts, &sm, chain + k,
						   NR_NAMES - k);
		}
	}
	vs_task_samples_finish(ts);
	for (i = 0; i < ts->nr_samples; i++)
		sampled += (double)ts->samples[i].weight_ns / 20;
	vt = vs_vtree_from_samples(ts, 1, NULL, &why);
	if (!ok(vt != NULL, "tree from samples (%s)", vt ? "built" : why)) {
		vs_task_samples_free(ts);
		return;
	}
	nh = child(vt, 0, chain[4]);
	ne = nh ? child(vt, nh - vt->nodes, chain[3]) : NULL;
	nw = child(vt, 0, chain[5]);
	ok(nh && ne && nw && vt->nr_nodes == 4,
	   "root, handle, handle/entry_SYSCALL_64_after_hwframe, worker");
	ok(sampled > 0 && near(vt->nodes[0].mean - vt->nodes[0].self_mean,
			       sampled),
	   "the root's children hold all the sampled time (%.0f of %.0f ns)",
	   vt->nodes[0].mean - vt->nodes[0].self_mean, sampled);
	vs_vtree_free(vt);
	vs_task_samples_free(ts);
}

int main(void)
{
	test_exact();
	test_covary();
	test_sampled();
	test_wait();
	test_closed();
	test_probes();
	test_sampled_probes();
	test_sampled_syscall();
	ok(!vs_vtree_new(1, false), "one task: no tree");
	return done_testing();
}
