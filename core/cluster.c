// SPDX-License-Identifier: MIT
/*
 * cluster.c - divisive clustering and nearest-neighbour outliers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"

double vs_jaccard_distance(const uint64_t *a, const uint64_t *b,
			   size_t nwords)
{
	unsigned int both = 0, any = 0;
	size_t i;

	for (i = 0; i < nwords; i++) {
		both += __builtin_popcountll(a[i] & b[i]);
		any += __builtin_popcountll(a[i] | b[i]);
	}
	return any ? 1.0 - (double)both / any : 0.0;
}

/* --- DIANA over the distinct vectors, weighted by their multiplicity --- */

struct diana {
	const uint64_t *sets;
	size_t nwords;
	size_t *rep;		/* distinct vector -> an item holding it */
	double *weight;		/* distinct vector -> number of items */
	uint32_t *group;	/* distinct vector -> cluster */
	size_t nd;
};

static double dist(const struct diana *d, size_t i, size_t j)
{
	return vs_jaccard_distance(d->sets + d->rep[i] * d->nwords,
				   d->sets + d->rep[j] * d->nwords, d->nwords);
}

static double diameter(const struct diana *d, uint32_t g)
{
	double best = 0, x;
	size_t i, j;

	for (i = 0; i < d->nd; i++) {
		if (d->group[i] != g)
			continue;
		for (j = i + 1; j < d->nd; j++) {
			if (d->group[j] != g)
				continue;
			x = dist(d, i, j);
			if (x > best)
				best = x;
		}
	}
	return best;
}

/* Mean distance of @i to the members of group @g other than itself. */
static double mean_distance(const struct diana *d, size_t i, uint32_t g)
{
	double sum = 0, w = 0;
	size_t j;

	for (j = 0; j < d->nd; j++) {
		if (d->group[j] != g)
			continue;
		w += j == i ? d->weight[j] - 1 : d->weight[j];
		if (j != i)
			sum += d->weight[j] * dist(d, i, j);
	}
	return w > 0 ? sum / w : 0;
}

/* Split group @g: its splinter group becomes group @ng. */
static void split(struct diana *d, uint32_t g, uint32_t ng)
{
	size_t i, best_i = 0;
	double best, x;

	best = -1;
	for (i = 0; i < d->nd; i++) {
		if (d->group[i] != g)
			continue;
		x = mean_distance(d, i, g);
		if (x > best) {
			best = x;
			best_i = i;
		}
	}
	d->group[best_i] = ng;
	for (;;) {
		best = 0;
		for (i = 0; i < d->nd; i++) {
			if (d->group[i] != g)
				continue;
			x = mean_distance(d, i, g) - mean_distance(d, i, ng);
			if (x > best) {
				best = x;
				best_i = i;
			}
		}
		if (best <= 0)
			break;
		d->group[best_i] = ng;
	}
}

/* Number the distinct vectors; item -> distinct index in @of. */
static size_t find_distinct(struct diana *d, size_t n, size_t *of)
{
	size_t i, k, nd = 0;

	for (i = 0; i < n; i++) {
		const uint64_t *s = d->sets + i * d->nwords;

		for (k = 0; k < nd; k++)
			if (!memcmp(d->sets + d->rep[k] * d->nwords, s,
				    d->nwords * sizeof(*s)))
				break;
		if (k == nd) {
			d->rep[nd] = i;
			d->weight[nd++] = 0;
		}
		d->weight[k]++;
		of[i] = k;
	}
	return nd;
}

long vs_cluster_divisive(const uint64_t *sets, size_t n, size_t nwords,
			 double max_diameter, uint32_t *cluster)
{
	struct diana d = { .sets = sets, .nwords = nwords };
	size_t *of = malloc((n + 1) * sizeof(*of));
	double *diam = NULL;
	uint32_t ng = n ? 1 : 0, g, worst;
	long ret = -1;
	size_t i;

	d.rep = malloc((n + 1) * sizeof(*d.rep));
	d.weight = malloc((n + 1) * sizeof(*d.weight));
	d.group = calloc(n + 1, sizeof(*d.group));
	diam = malloc((n + 1) * sizeof(*diam));
	if (!of || !d.rep || !d.weight || !d.group || !diam)
		goto out;
	d.nd = find_distinct(&d, n, of);
	if (n)
		diam[0] = diameter(&d, 0);
	for (;;) {
		worst = 0;
		for (g = 1; g < ng; g++)
			if (diam[g] > diam[worst])
				worst = g;
		if (!ng || diam[worst] <= max_diameter)
			break;
		split(&d, worst, ng);
		diam[worst] = diameter(&d, worst);
		diam[ng] = diameter(&d, ng);
		ng++;
	}
	for (i = 0; i < n; i++)
		cluster[i] = d.group[of[i]];
	ret = ng;
out:
	free(of);
	free(d.rep);
	free(d.weight);
	free(d.group);
	free(diam);
	return ret;
}

/* --- nearest-neighbour outliers --- */

struct proj {
	double p;
	size_t i;
};

static int cmp_proj(const void *a, const void *b)
{
	const struct proj *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p;
}

static double euclid2(const double *a, const double *b, size_t dim)
{
	double s = 0, x;
	size_t k;

	for (k = 0; k < dim; k++) {
		x = a[k] - b[k];
		s += x * x;
	}
	return s;
}

/*
 * Exact nearest neighbours: points sorted by their projection on the
 * diagonal, whose difference never exceeds the distance, so the scan
 * around each point stops as soon as the projections are further apart
 * than the best distance found.
 */
long vs_nn_outliers(const double *vec, size_t n, size_t dim, uint8_t *outlier)
{
	struct proj *pr = malloc((n + 1) * sizeof(*pr));
	double *nn = malloc((n + 1) * sizeof(*nn));
	double mean = 0, var = 0, limit, scale = 1 / sqrt(dim ? dim : 1);
	long nout = 0;
	size_t i, k, a;

	if (!pr || !nn) {
		free(pr);
		free(nn);
		return -1;
	}
	for (i = 0; i < n; i++) {
		double s = 0;

		for (k = 0; k < dim; k++)
			s += vec[i * dim + k];
		pr[i].p = s * scale;
		pr[i].i = i;
	}
	qsort(pr, n, sizeof(*pr), cmp_proj);
	for (a = 0; a < n; a++) {
		const double *x = vec + pr[a].i * dim;
		double best = INFINITY, d2;
		size_t b;

		for (b = a + 1; b < n; b++) {
			d2 = pr[b].p - pr[a].p;
			if (d2 * d2 >= best)
				break;
			d2 = euclid2(x, vec + pr[b].i * dim, dim);
			if (d2 < best)
				best = d2;
		}
		for (b = a; b-- > 0;) {
			d2 = pr[a].p - pr[b].p;
			if (d2 * d2 >= best)
				break;
			d2 = euclid2(x, vec + pr[b].i * dim, dim);
			if (d2 < best)
				best = d2;
		}
		nn[pr[a].i] = n > 1 ? sqrt(best) : 0;
	}
	for (i = 0; i < n; i++)
		mean += nn[i];
	mean /= n ? n : 1;
	for (i = 0; i < n; i++)
		var += (nn[i] - mean) * (nn[i] - mean);
	var /= n ? n : 1;
	limit = mean + 2 * sqrt(var);
	for (i = 0; i < n; i++) {
		outlier[i] = nn[i] > limit;
		nout += outlier[i];
	}
	free(pr);
	free(nn);
	return nout;
}
