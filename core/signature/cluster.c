// SPDX-License-Identifier: MIT
/*
 * cluster.c - divisive clustering and nearest-neighbour outliers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/signature/cluster.h"

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
	size_t *members;	/* scratch: the members of the group split */
	double *to_rest, *to_splinter;	/* weighted distance sums */
};

static double dist(const struct diana *d, size_t i, size_t j)
{
	return vs_jaccard_distance(d->sets + d->rep[i] * d->nwords,
				   d->sets + d->rep[j] * d->nwords, d->nwords);
}

/* The members of group @g into d->members; their number. */
static size_t gather(struct diana *d, uint32_t g)
{
	size_t i, m = 0;

	for (i = 0; i < d->nd; i++)
		if (d->group[i] == g)
			d->members[m++] = i;
	return m;
}

/* Are two of the @m gathered members further apart than @limit? */
static int wider_than(const struct diana *d, size_t m, double limit)
{
	size_t a, b;

	for (a = 0; a < m; a++)
		for (b = a + 1; b < m; b++)
			if (dist(d, d->members[a], d->members[b]) > limit)
				return 1;
	return 0;
}

/* Move member @a of the @m gathered ones to the splinter group @ng. */
static void move(struct diana *d, size_t m, size_t a, uint32_t ng,
		 double *w_rest, double *w_splinter)
{
	size_t i = d->members[a], k;

	d->group[i] = ng;
	*w_rest -= d->weight[i];
	*w_splinter += d->weight[i];
	for (k = 0; k < m; k++) {
		double x = d->weight[i] * dist(d, d->members[k], i);

		d->to_rest[k] -= x;
		d->to_splinter[k] += x;
	}
}

/*
 * Split the @m gathered members of group @g: the one furthest on average
 * from the others starts the splinter group @ng; then, while some member
 * is closer on average to the splinter group than to the rest, the one
 * with the largest difference moves over.  Distance sums are kept per
 * member and updated by each move.
 */
static void split(struct diana *d, size_t m, uint32_t g, uint32_t ng)
{
	double w_rest = 0, w_splinter = 0, best, x;
	size_t a, b, best_a = 0;

	for (a = 0; a < m; a++) {
		w_rest += d->weight[d->members[a]];
		d->to_rest[a] = d->to_splinter[a] = 0;
	}
	for (a = 0; a < m; a++) {
		for (b = a + 1; b < m; b++) {
			x = dist(d, d->members[a], d->members[b]);
			d->to_rest[a] += d->weight[d->members[b]] * x;
			d->to_rest[b] += d->weight[d->members[a]] * x;
		}
	}
	best = -1;
	for (a = 0; a < m; a++) {
		x = d->to_rest[a];
		if (x > best) {
			best = x;
			best_a = a;
		}
	}
	move(d, m, best_a, ng, &w_rest, &w_splinter);
	for (;;) {
		best = 0;
		for (a = 0; a < m; a++) {
			double w = w_rest - 1;

			if (d->group[d->members[a]] != g || w <= 0)
				continue;
			x = d->to_rest[a] / w - d->to_splinter[a] / w_splinter;
			if (x > best) {
				best = x;
				best_a = a;
			}
		}
		if (best <= 0)
			break;
		move(d, m, best_a, ng, &w_rest, &w_splinter);
	}
}

struct slot {
	uint64_t hash;
	size_t distinct;	/* index + 1, 0 when free */
};

static uint64_t hash_words(const uint64_t *w, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 31);
}

/* Number the distinct vectors; item -> distinct index in @of. */
static long find_distinct(struct diana *d, size_t n, size_t *of)
{
	size_t size = 16, mask, i, h;
	struct slot *tab;

	while (size < 2 * n)
		size <<= 1;
	mask = size - 1;
	tab = calloc(size, sizeof(*tab));
	if (!tab)
		return -1;
	d->nd = 0;
	for (i = 0; i < n; i++) {
		const uint64_t *s = d->sets + i * d->nwords;
		uint64_t hv = hash_words(s, d->nwords);

		for (h = hv & mask; tab[h].distinct; h = (h + 1) & mask)
			if (tab[h].hash == hv &&
			    !memcmp(d->sets + d->rep[tab[h].distinct - 1] *
				    d->nwords, s, d->nwords * sizeof(*s)))
				break;
		if (!tab[h].distinct) {
			tab[h].hash = hv;
			tab[h].distinct = d->nd + 1;
			d->rep[d->nd] = i;
			d->weight[d->nd++] = 0;
		}
		d->weight[tab[h].distinct - 1]++;
		of[i] = tab[h].distinct - 1;
	}
	free(tab);
	return 0;
}

long vs_cluster_divisive(const uint64_t *sets, size_t n, size_t nwords,
			 double max_diameter, uint32_t *cluster)
{
	struct diana d = { .sets = sets, .nwords = nwords };
	size_t *of = malloc((n + 1) * sizeof(*of)), i, m;
	uint32_t *todo = malloc((n + 1) * sizeof(*todo));
	uint32_t ng = n ? 1 : 0, g;
	size_t ntodo = ng;
	long ret = -1;

	d.rep = malloc((n + 1) * sizeof(*d.rep));
	d.weight = malloc((n + 1) * sizeof(*d.weight));
	d.group = calloc(n + 1, sizeof(*d.group));
	d.members = malloc((n + 1) * sizeof(*d.members));
	d.to_rest = malloc((n + 1) * sizeof(*d.to_rest));
	d.to_splinter = malloc((n + 1) * sizeof(*d.to_splinter));
	if (!of || !todo || !d.rep || !d.weight || !d.group || !d.members ||
	    !d.to_rest || !d.to_splinter || find_distinct(&d, n, of) < 0)
		goto out;
	/* which cluster splits first does not change the end result */
	todo[0] = 0;
	while (ntodo) {
		g = todo[--ntodo];
		m = gather(&d, g);
		if (m < 2 || !wider_than(&d, m, max_diameter))
			continue;
		split(&d, m, g, ng);
		todo[ntodo++] = g;
		todo[ntodo++] = ng++;
	}
	for (i = 0; i < n; i++)
		cluster[i] = d.group[of[i]];
	ret = ng;
out:
	free(of);
	free(todo);
	free(d.rep);
	free(d.weight);
	free(d.group);
	free(d.members);
	free(d.to_rest);
	free(d.to_splinter);
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
 * The squared distance from point @a of the sorted @pr to its nearest
 * neighbour in direction @step (+1 or -1), if nearer than @best.
 */
static double scan(const double *vec, size_t dim, const struct proj *pr,
		   size_t n, size_t a, int step, double best)
{
	const double *x = vec + pr[a].i * dim;
	double d;
	size_t b;

	for (b = a + step; b < n; b += step) {	/* wraps past 0 */
		d = pr[b].p - pr[a].p;
		if (d * d >= best)
			break;
		d = euclid2(x, vec + pr[b].i * dim, dim);
		if (d < best)
			best = d;
	}
	return best;
}

#define POWER_STEPS	16

/*
 * @dir = the main axis of the points (the first principal component, by
 * power iteration on their covariance), unit length.
 */
static void main_axis(const double *vec, size_t n, size_t dim, double *mean,
		      double *dir, double *next)
{
	double norm, dot;
	size_t i, k, step;

	memset(mean, 0, dim * sizeof(*mean));
	for (i = 0; i < n; i++)
		for (k = 0; k < dim; k++)
			mean[k] += vec[i * dim + k] / n;
	for (k = 0; k < dim; k++)
		dir[k] = 1 / sqrt(dim);
	for (step = 0; step < POWER_STEPS; step++) {
		memset(next, 0, dim * sizeof(*next));
		for (i = 0; i < n; i++) {
			const double *x = vec + i * dim;

			for (k = 0, dot = 0; k < dim; k++)
				dot += (x[k] - mean[k]) * dir[k];
			for (k = 0; k < dim; k++)
				next[k] += (x[k] - mean[k]) * dot;
		}
		for (k = 0, norm = 0; k < dim; k++)
			norm += next[k] * next[k];
		if (norm <= 0)
			return;
		for (k = 0; k < dim; k++)
			dir[k] = next[k] / sqrt(norm);
	}
}

/*
 * Exact nearest neighbours: points sorted by their projection on their
 * main axis, whose difference never exceeds the distance, so the scan
 * around each point stops as soon as the projections are further apart
 * than the best distance found.
 */
long vs_nn_outliers(const double *vec, size_t n, size_t dim, uint8_t *outlier)
{
	struct proj *pr = malloc((n + 1) * sizeof(*pr));
	double *nn = malloc((n + 1) * sizeof(*nn));
	double *axis = malloc((3 * dim + 1) * sizeof(*axis));
	double mean = 0, var = 0, limit;
	long nout = 0;
	size_t i, k, a;

	if (!pr || !nn || !axis) {
		free(pr);
		free(nn);
		free(axis);
		return -1;
	}
	main_axis(vec, n, dim, axis + dim, axis, axis + 2 * dim);
	for (i = 0; i < n; i++) {
		double s = 0;

		for (k = 0; k < dim; k++)
			s += vec[i * dim + k] * axis[k];
		pr[i].p = s;
		pr[i].i = i;
	}
	qsort(pr, n, sizeof(*pr), cmp_proj);
	for (a = 0; a < n; a++) {
		double best = INFINITY;

		best = scan(vec, dim, pr, n, a, 1, best);
		best = scan(vec, dim, pr, n, a, -1, best);
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
	free(axis);
	return nout;
}
