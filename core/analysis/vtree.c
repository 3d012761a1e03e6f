// SPDX-License-Identifier: MIT
/*
 * vtree.c - the variance tree of one task type (see vtree.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/analysis/wakeup.h"
#include "core/analysis/vtree.h"

static int node_new(struct vs_vtree *vt, unsigned int parent, uint32_t symbol)
{
	struct vs_vtree_node *n;

	if (ALLOC_GROW(vt->nodes, vt->nr_nodes + 1, vt->alloc_nodes))
		return -1;
	n = &vt->nodes[vt->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->symbol = symbol;
	n->parent = parent;
	if (vt->nr_nodes) {
		struct vs_vtree_node *p = &vt->nodes[parent];

		if (ALLOC_GROW(p->children, p->nr_children + 1,
			       p->alloc_children))
			return -1;
		p->children[p->nr_children++] = vt->nr_nodes;
		n->depth = p->depth + 1;
	}
	return vt->nr_nodes++;
}

struct vs_vtree *vs_vtree_new(size_t nr_tasks, bool sampled)
{
	struct vs_vtree *vt;
	size_t t;

	if (nr_tasks < 2)
		return NULL;
	vt = calloc(1, sizeof(*vt));
	if (!vt)
		return NULL;
	vt->nr_tasks = nr_tasks;
	vt->sampled = sampled;
	vt->slot_of = malloc(nr_tasks * sizeof(*vt->slot_of));
	vt->latency = calloc(nr_tasks, sizeof(*vt->latency));
	if (!vt->slot_of || !vt->latency || node_new(vt, 0, VS_VTREE_ROOT) < 0) {
		vs_vtree_free(vt);
		return NULL;
	}
	for (t = 0; t < nr_tasks; t++)
		vt->slot_of[t] = UINT32_MAX;
	return vt;
}

void vs_vtree_free(struct vs_vtree *vt)
{
	unsigned int i;

	if (!vt)
		return;
	for (i = 0; i < vt->nr_nodes; i++) {
		free(vt->nodes[i].children);
		free(vt->nodes[i].time);
		free(vt->nodes[i].cov);
		free(vt->nodes[i].self_cov);
	}
	free(vt->nodes);
	free(vt->factors);
	free(vt->slot_of);
	free(vt->task_of);
	free(vt->samples);
	free(vt->closed);
	free(vt->latency);
	free(vt);
}

void vs_vtree_set_latency(struct vs_vtree *vt, size_t task, double ns)
{
	vt->latency[task] = ns;
}

double vs_vtree_time(const struct vs_vtree *vt, unsigned int node,
		     size_t task)
{
	const struct vs_vtree_node *n = &vt->nodes[node];
	size_t slot = vt->slot_of[task];

	if (!node)
		return vt->latency[task];
	return slot < n->len ? n->time[slot] : 0;
}

/* The slot of task @task, given at its first path; -1: no memory. */
static int64_t task_slot(struct vs_vtree *vt, size_t task)
{
	/* the three grow alike: one capacity, taken when all have it */
	size_t alloc_task_of = vt->alloc_slots, alloc_samples = vt->alloc_slots,
	       alloc_closed = vt->alloc_slots;

	if (vt->slot_of[task] != UINT32_MAX)
		return vt->slot_of[task];
	if (ALLOC_GROW(vt->task_of, vt->nr_slots + 1, alloc_task_of) ||
	    ALLOC_GROW(vt->samples, vt->nr_slots + 1, alloc_samples) ||
	    ALLOC_GROW(vt->closed, vt->nr_slots + 1, alloc_closed))
		return -1;
	vt->alloc_slots = alloc_closed;
	vt->task_of[vt->nr_slots] = task;
	vt->samples[vt->nr_slots] = 0;
	vt->closed[vt->nr_slots] = false;
	vt->slot_of[task] = vt->nr_slots;
	return vt->nr_slots++;
}

/* Node @n's time in @slot, its slots grown to hold it; NULL: no memory. */
static double *node_slot(struct vs_vtree_node *n, size_t slot)
{
	if (ALLOC_GROW(n->time, slot + 1, n->alloc))
		return NULL;
	if (slot >= n->len) {
		memset(n->time + n->len, 0, (slot + 1 - n->len) * sizeof(double));
		n->len = slot + 1;
	}
	return &n->time[slot];
}

static int child_of(struct vs_vtree *vt, unsigned int parent, uint32_t symbol)
{
	const struct vs_vtree_node *p = &vt->nodes[parent];
	unsigned int i;

	for (i = 0; i < p->nr_children; i++)
		if (vt->nodes[p->children[i]].symbol == symbol)
			return p->children[i];
	return node_new(vt, parent, symbol);
}

static int add_path(struct vs_vtree *vt, size_t task, const uint32_t *path,
		    unsigned int depth, double ns, bool exact)
{
	int64_t slot = task_slot(vt, task);
	unsigned int d;
	double *time;
	int node = 0;

	if (slot < 0)
		return -1;
	if (!exact)
		vt->samples[slot]++;
	for (d = 0; d < depth; d++) {
		node = child_of(vt, node, path[d]);
		if (node < 0)
			return -1;
		time = node_slot(&vt->nodes[node], slot);
		if (!time)
			return -1;
		*time += ns;
		if (exact)
			vt->nodes[node].exact = true;
		else if (vt->sampled)
			vt->nodes[node].noise_sq += ns * ns;
	}
	return 0;
}

int vs_vtree_add(struct vs_vtree *vt, size_t task, const uint32_t *path,
		 unsigned int depth, double ns)
{
	return add_path(vt, task, path, depth, ns, false);
}

void vs_vtree_close_task(struct vs_vtree *vt, size_t task)
{
	/* a task without samples has no shares to split */
	if (vt->slot_of[task] != UINT32_MAX)
		vt->closed[vt->slot_of[task]] = true;
}

int vs_vtree_add_exact(struct vs_vtree *vt, size_t task, const uint32_t *path,
		       unsigned int depth, double ns)
{
	return add_path(vt, task, path, depth, ns, true);
}

uint32_t vs_vtree_wait_symbol(const struct vs_wake_type *waits,
			      const struct vs_wake_part *part)
{
	return waits->wakers[part->waker].kind == VS_WAKER_SAME_TASK ?
	       VS_VTREE_ROOT : VS_VTREE_WAIT + part->waker;
}

/*
 * Sample covariance (n - 1) over @n tasks of a and b, whose means are
 * given: a holds @na values, b @nb, 0 past them.
 */
static double covariance(const double *a, size_t na, double ma,
			 const double *b, size_t nb, double mb, size_t n)
{
	size_t m = na < nb ? na : nb, big = na < nb ? nb : na, t;
	double sum = 0;

	for (t = 0; t < m; t++)
		sum += (a[t] - ma) * (b[t] - mb);
	for (t = m; t < na; t++)
		sum -= (a[t] - ma) * mb;
	for (t = m; t < nb; t++)
		sum -= ma * (b[t] - mb);
	sum += (double)(n - big) * ma * mb;
	return sum / (double)(n - 1);
}

/* The mean over @n tasks of @a's @na values, 0 past them. */
static double mean_of(const double *a, size_t na, size_t n)
{
	double sum = 0;
	size_t t;

	for (t = 0; t < na; t++)
		sum += a[t];
	return sum / (double)n;
}

/*
 * The mean over the closed tasks of @a x @b / N: what the noise terms of
 * two sampled nodes of times @a and @b lose to the shares (see vtree.h).
 * Only tasks with slots have samples.
 */
static double share_term(const struct vs_vtree *vt, const double *a,
			 size_t na, const double *b, size_t nb)
{
	size_t m = na < nb ? na : nb, t;
	double sum = 0;

	if (m > vt->nr_slots)
		m = vt->nr_slots;
	for (t = 0; t < m; t++)
		if (vt->closed[t] && vt->samples[t])
			sum += a[t] * b[t] / vt->samples[t];
	return sum / (double)vt->nr_tasks;
}

/*
 * Variances and covariances of node @i; its children are done.  @self
 * and @sampled: room for a value per task.
 */
static int node_stats(struct vs_vtree *vt, unsigned int i, double *self,
		      double *sampled)
{
	struct vs_vtree_node *n = &vt->nodes[i];
	size_t t, nt = vt->nr_tasks, len = n->len;
	unsigned int c, d, nc = n->nr_children;
	/* the root, and every node of an exact tree, has no sampling noise */
	bool exact = !i || !vt->sampled || n->exact;
	double child_free = 0;		/* the children's free-count noise */

	n->mean = mean_of(n->time, len, nt);
	n->noise = exact ? 0 : n->noise_sq / (double)nt -
			       share_term(vt, n->time, len, n->time, len);
	n->var = covariance(n->time, len, n->mean, n->time, len, n->mean,
			    nt) - n->noise;

	/* a child's slots are its parent's: len covers them */
	memcpy(self, n->time, len * sizeof(*self));
	memset(sampled, 0, len * sizeof(*sampled));
	for (c = 0; c < nc; c++) {
		const struct vs_vtree_node *ch = &vt->nodes[n->children[c]];

		for (t = 0; t < ch->len; t++) {
			self[t] -= ch->time[t];
			if (!ch->exact)
				sampled[t] += ch->time[t];
		}
		child_free += ch->noise_sq / (double)nt;
	}
	n->self_mean = mean_of(self, len, nt);
	/*
	 * Exact parent: self = parent - children carries minus the error of
	 * their sampled sum.  Sampled parent: self holds the samples of none
	 * of the children, a node of its own.
	 */
	if (exact)
		n->self_noise = child_free - share_term(vt, sampled, len,
							 sampled, len);
	else
		n->self_noise = n->noise_sq / (double)nt - child_free -
				share_term(vt, self, len, self, len);
	n->self_var = covariance(self, len, n->self_mean, self, len,
				 n->self_mean, nt) - n->self_noise;
	if (!nc)
		return 0;
	n->self_cov = calloc(nc, sizeof(*n->self_cov));
	n->cov = calloc((size_t)nc * (nc - 1) / 2 + 1, sizeof(*n->cov));
	if (!n->self_cov || !n->cov)
		return -1;
	for (c = 0; c < nc; c++) {
		const struct vs_vtree_node *a = &vt->nodes[n->children[c]];

		n->self_cov[c] = covariance(self, len, n->self_mean, a->time,
					    a->len, a->mean, nt);
		if (a->exact || !vt->sampled)
			;	/* no error: nothing covaries with it */
		else if (exact)
			n->self_cov[c] += a->noise_sq / (double)nt -
					  share_term(vt, sampled, len, a->time,
						     a->len);
		else
			n->self_cov[c] += share_term(vt, self, len, a->time,
						     a->len);
		for (d = c + 1; d < nc; d++) {
			const struct vs_vtree_node *b =
				&vt->nodes[n->children[d]];
			double *cov = &n->cov[vs_vtree_pair(nc, c, d)];

			*cov = covariance(a->time, a->len, a->mean, b->time,
					  b->len, b->mean, nt);
			if (vt->sampled && !a->exact && !b->exact)
				*cov += share_term(vt, a->time, a->len,
						   b->time, b->len);
		}
	}
	return 0;
}

/*
 * The root's times: every task's latency, those with slots first (in
 * slot order, as the other nodes), then the others.
 */
static int root_times(struct vs_vtree *vt)
{
	struct vs_vtree_node *root = &vt->nodes[0];
	size_t t, n = vt->nr_slots;
	double *time = malloc(vt->nr_tasks * sizeof(*time));

	if (!time)
		return -1;
	for (t = 0; t < vt->nr_slots; t++)
		time[t] = vt->latency[vt->task_of[t]];
	for (t = 0; t < vt->nr_tasks; t++)
		if (vt->slot_of[t] == UINT32_MAX)
			time[n++] = vt->latency[t];
	free(root->time);
	root->time = time;
	root->len = root->alloc = vt->nr_tasks;
	return 0;
}

/*
 * Heights, once the variances are known: a node adds to its callers'
 * heights only when it carries VS_VTREE_MINOR of the latency variance.
 * The call tree a sampled profile shows has branches that one sample
 * made (an interrupt caught in render()); they must not make render()
 * less specific than its sibling, and a child that explains none of its
 * caller's variance leaves the caller the most specific place for it.
 */
static void set_heights(struct vs_vtree *vt)
{
	double minor = VS_VTREE_MINOR * vt->nodes[0].var;
	unsigned int i;

	for (i = vt->nr_nodes; i-- > 1;) {
		const struct vs_vtree_node *n = &vt->nodes[i];
		struct vs_vtree_node *parent = &vt->nodes[n->parent];

		if (n->var >= minor && parent->height < n->height + 1)
			parent->height = n->height + 1;
	}
}

static int factor_cmp(const void *pa, const void *pb)
{
	const struct vs_vtree_factor *a = pa, *b = pb;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	return a->node < b->node ? -1 : a->node > b->node;
}

static void factor_set(struct vs_vtree *vt, struct vs_vtree_factor *f,
		       double value, unsigned int height)
{
	double total = vt->nodes[0].var;
	double h = (double)vt->nodes[0].height - height;

	f->value = value;
	f->share = total > 0 ? value / total : 0;
	f->height = height;
	f->specificity = h * h;
	f->score = f->specificity * f->share;
}

static int make_factors(struct vs_vtree *vt)
{
	size_t nr = vt->nr_nodes ? vt->nr_nodes - 1 : 0;
	unsigned int i, c, d;

	for (i = 0; i < vt->nr_nodes; i++) {
		unsigned int nc = vt->nodes[i].nr_children;

		nr += (size_t)nc * (nc ? nc - 1 : 0) / 2;
	}
	vt->factors = calloc(nr + 1, sizeof(*vt->factors));
	if (!vt->factors)
		return -1;
	for (i = 0; i < vt->nr_nodes; i++) {
		const struct vs_vtree_node *n = &vt->nodes[i];
		unsigned int nc = n->nr_children;

		if (i) {
			struct vs_vtree_factor *f =
				&vt->factors[vt->nr_factors++];

			f->node = i;
			f->a = f->b = -1;
			factor_set(vt, f, n->var, n->height);
		}
		for (c = 0; c < nc; c++) {
			for (d = c + 1; d < nc; d++) {
				struct vs_vtree_factor *f =
					&vt->factors[vt->nr_factors++];
				unsigned int ha, hb;

				ha = vt->nodes[n->children[c]].height;
				hb = vt->nodes[n->children[d]].height;
				f->node = i;
				f->a = c;
				f->b = d;
				factor_set(vt, f,
					   2 * n->cov[vs_vtree_pair(nc, c, d)],
					   ha > hb ? ha : hb);
			}
		}
	}
	qsort(vt->factors, vt->nr_factors, sizeof(*vt->factors), factor_cmp);
	return 0;
}

int vs_vtree_finish(struct vs_vtree *vt)
{
	double *self = malloc(2 * vt->nr_tasks * sizeof(*self));
	unsigned int i;
	int ret = 0;

	if (!self || root_times(vt)) {
		free(self);
		return -1;
	}
	/* children come after their parents: walk backwards */
	for (i = vt->nr_nodes; i-- > 0;) {
		if (node_stats(vt, i, self, self + vt->nr_tasks) < 0) {
			ret = -1;
			break;
		}
	}
	free(self);
	if (ret)
		return ret;
	set_heights(vt);
	return make_factors(vt);
}

static unsigned int add_probe(uint32_t *out, unsigned int nr,
			      unsigned int max, const struct vs_vtree_node *n)
{
	unsigned int i;

	if (n->symbol >= VS_VTREE_WAIT || n->unprobeable)
		return nr;	/* a wait, a kernel function: no uprobe */
	for (i = 0; i < nr; i++)
		if (out[i] == n->symbol)
			return nr;
	if (nr < max)
		out[nr++] = n->symbol;
	return nr;
}

static unsigned int add_children(const struct vs_vtree *vt, unsigned int node,
				 uint32_t *out, unsigned int nr,
				 unsigned int max)
{
	const struct vs_vtree_node *n = &vt->nodes[node];
	unsigned int c;

	if (!n->nr_children)
		return add_probe(out, nr, max, n);
	for (c = 0; c < n->nr_children; c++)
		nr = add_probe(out, nr, max, &vt->nodes[n->children[c]]);
	return nr;
}

double vs_vtree_noise(const struct vs_vtree *vt)
{
	const struct vs_vtree_node *root = &vt->nodes[0];
	double noise = 0;
	unsigned int c;

	for (c = 0; c < root->nr_children; c++)
		noise += vt->nodes[root->children[c]].noise;
	return noise;
}

unsigned int vs_vtree_next_probes(const struct vs_vtree *vt, unsigned int k,
				  uint32_t *out, unsigned int max)
{
	unsigned int i, nr = 0;

	for (i = 0; i < k && i < vt->nr_factors; i++) {
		const struct vs_vtree_factor *f = &vt->factors[i];
		const struct vs_vtree_node *n = &vt->nodes[f->node];

		if (f->score <= 0)
			break;
		if (f->a < 0) {
			nr = add_children(vt, f->node, out, nr, max);
			continue;
		}
		nr = add_children(vt, n->children[f->a], out, nr, max);
		nr = add_children(vt, n->children[f->b], out, nr, max);
	}
	return nr;
}
