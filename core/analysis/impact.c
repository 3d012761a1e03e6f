// SPDX-License-Identifier: MIT
/*
 * impact.c - impact values, pThreshold, correlation, Rules 1 and 2,
 * bootstrap interval and recording length (VarMRI, section 5).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bitmap.h"
#include "core/analysis/impact.h"
#include "core/trace/trace.h"

size_t vs_rank(size_t n, double p)
{
	double k;

	if (!n)
		return 0;
	k = ceil(p * (double)n - 1e-9);	/* 0.99 * 100 is 99, not 99.000001 */
	if (k < 1)
		return 1;
	if (k > (double)n)
		return n;
	return (size_t)k;
}

float vs_percentile_sorted(const float *sorted, size_t n, double p)
{
	return n ? sorted[vs_rank(n, p) - 1] : 0;
}

/* Number of values <= x in ascending @v. */
static size_t count_le(const float *v, size_t n, float x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

float vs_percentile_excluding(const float *all, size_t n,
			      const float *sub, size_t m, double p)
{
	size_t k = vs_rank(n - m, p), lo = 0, hi = n - 1;

	if (m >= n)
		return 0;
	/* smallest i with #(other values <= all[i]) >= k */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		float x = all[mid];

		if (count_le(all, n, x) - count_le(sub, m, x) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return all[lo];
}

uint64_t vs_masked_percentile(const uint64_t *lat, const uint32_t *desc,
			      size_t n, const uint64_t *in, const uint64_t *out,
			      size_t n_sel, double p)
{
	size_t from_top, seen = 0, r;

	if (!n_sel)
		return 0;
	from_top = n_sel - vs_rank(n_sel, p) + 1;
	for (r = 0; r < n; r++) {
		uint32_t i = desc[r];

		if (in && !vs_bit_test(in, i))
			continue;
		if (out && vs_bit_test(out, i))
			continue;
		if (++seen == from_top)
			return lat[i];
	}
	return 0;	/* n_sel was larger than the set */
}

double vs_impact_value(uint64_t p_all, uint64_t p_low)
{
	if (!p_all)
		return 0;
	return ((double)p_all - (double)p_low) / (double)p_all;
}

void vs_fit_points(const float *sorted, size_t n, size_t from, size_t to,
		   double vmin, double vscale, struct vs_fit *fit)
{
	double t0 = (from + 0.5) / n, v0 = (sorted[from] - vmin) / vscale;
	double st = 0, sv = 0, stt = 0, stv = 0, svv = 0, k;
	float first = sorted[from];
	size_t i;

	memset(fit, 0, sizeof(*fit));
	if (from >= to)
		return;
	/*
	 * Plain sums about the part's first point, then centred: the part is
	 * narrow, so the subtraction loses little.
	 */
	for (i = from; i < to; i++) {
		double t = (double)(i - from), v = (double)sorted[i] - first;

		st += t;
		sv += v;
		stt += t * t;
		stv += t * v;
		svv += v * v;
	}
	k = to - from;
	fit->n = k;
	fit->flat = sorted[from] == sorted[to - 1];
	fit->mt = t0 + st / k / n;
	fit->mv = v0 + sv / k / vscale;
	fit->ctt = (stt - st * st / k) / ((double)n * n);
	fit->ctv = (stv - st * sv / k) / ((double)n * vscale);
	fit->cvv = fit->flat ? 0 : (svv - sv * sv / k) / (vscale * vscale);
	if (fit->cvv < 0)
		fit->cvv = 0;
}

void vs_fit_merge(const struct vs_fit *a, const struct vs_fit *b,
		  struct vs_fit *out)
{
	double n = a->n + b->n, dt = b->mt - a->mt, dv = b->mv - a->mv;
	double w = n ? a->n * b->n / n : 0;
	struct vs_fit m;

	if (!a->n || !b->n) {
		*out = a->n ? *a : *b;
		return;
	}
	m.n = n;
	m.mt = a->mt + dt * b->n / n;
	m.mv = a->mv + dv * b->n / n;
	m.ctt = a->ctt + b->ctt + dt * dt * w;
	m.ctv = a->ctv + b->ctv + dt * dv * w;
	m.cvv = a->cvv + b->cvv + dv * dv * w;
	m.flat = a->flat && b->flat && dv == 0;
	*out = m;
}

void vs_fit_line(const struct vs_fit *fit, double *a, double *b)
{
	*b = fit->ctt > 0 ? fit->ctv / fit->ctt : 0;
	*a = fit->mv - *b * fit->mt;
}

double vs_fit_ssres(const struct vs_fit *fit, double a, double b)
{
	double off = fit->mv - a - b * fit->mt;
	double ss = fit->cvv - 2 * b * fit->ctv + b * b * fit->ctt +
		    fit->n * off * off;

	return ss > 0 ? ss : 0;
}

double vs_fit_r2(const struct vs_fit *fit, double a, double b, bool line_flat)
{
	if (fit->flat)
		return line_flat ? 1 : 0;
	if (fit->cvv <= 0)
		return 0;
	return 1 - vs_fit_ssres(fit, a, b) / fit->cvv;
}

/* Does a range lie on the merged line (a, b)?  See vs_cdf_breaks(). */
static bool fits_line(const struct vs_fit *fit, double a, double b,
		      bool line_flat)
{
	double rms = sqrt(vs_fit_ssres(fit, a, b) / fit->n);

	return vs_fit_r2(fit, a, b, line_flat) > VS_CDF_MERGE_R2 ||
	       rms <= VS_CDF_TOLERANCE;
}

/*
 * A step of the CDF falls inside a range, so the lines on either side of
 * it meet at that range's edges: move a connection point at @at to the
 * largest gap between consecutive values within @len values of it.
 */
static size_t snap_to_gap(const float *sorted, size_t n, size_t at, size_t len)
{
	size_t from = at > len ? at - len : 1, to = at + len < n ? at + len : n;
	size_t i, best = at;
	float gap = 0;

	for (i = from; i < to; i++)
		if (sorted[i] - sorted[i - 1] > gap) {
			gap = sorted[i] - sorted[i - 1];
			best = i;
		}
	return best;
}

size_t vs_cdf_breaks(const float *sorted, size_t n, unsigned int nr_ranges,
		     size_t *breaks, size_t max)
{
	double vmin, vscale;
	struct vs_fit cur;
	size_t nr = 0, r, ranges;

	ranges = n / VS_CDF_MIN_POINTS;
	if (ranges > nr_ranges)
		ranges = nr_ranges;
	if (ranges < 2 || sorted[0] == sorted[n - 1])
		return 0;
	vmin = sorted[0];
	vscale = (double)sorted[n - 1] - vmin;

	vs_fit_points(sorted, n, 0, n / ranges, vmin, vscale, &cur);
	for (r = 1; r < ranges; r++) {
		size_t from = r * n / ranges, to = (r + 1) * n / ranges;
		struct vs_fit next, merged;
		double a, b;

		vs_fit_points(sorted, n, from, to, vmin, vscale, &next);
		vs_fit_merge(&cur, &next, &merged);
		vs_fit_line(&merged, &a, &b);
		if (fits_line(&cur, a, b, merged.flat) &&
		    fits_line(&next, a, b, merged.flat)) {
			cur = merged;
			continue;
		}
		from = snap_to_gap(sorted, n, from, n / ranges);
		if (nr < max && (!nr || from > breaks[nr - 1]))
			breaks[nr++] = from;
		cur = next;
	}
	return nr;
}

void vs_find_threshold(const float *sorted, size_t n, double ptarget,
		       double given, struct vs_threshold *thr)
{
	size_t *breaks, nr, i, best = 0;

	memset(thr, 0, sizeof(*thr));
	if (given >= 0) {
		thr->how = VS_THRESHOLD_GIVEN;
		thr->pthreshold = given;
	} else if (n && sorted[0] == sorted[n - 1]) {
		thr->how = VS_THRESHOLD_CONSTANT;
		thr->pthreshold = 1;
		thr->value = sorted[0];
		thr->nr_lines = 1;
		return;
	} else if (n < 2 * VS_CDF_MIN_POINTS) {
		thr->how = VS_THRESHOLD_TOO_FEW;
		thr->pthreshold = ptarget;
	} else {
		breaks = malloc(VS_CDF_RANGES * sizeof(*breaks));
		nr = breaks ? vs_cdf_breaks(sorted, n, VS_CDF_RANGES, breaks,
					    VS_CDF_RANGES) : 0;
		/*
		 * A point above which no value is higher (the top of a step
		 * that ends at the maximum) marks nothing as high, and one
		 * below the median would call most values high: neither is a
		 * candidate.
		 */
		for (i = 0; i < nr; i++)
			if ((double)breaks[i] / n < ptarget &&
			    (double)breaks[i] / n >= VS_PTHRESHOLD_MIN &&
			    sorted[breaks[i] - 1] < sorted[n - 1])
				best = breaks[i];
		free(breaks);
		thr->nr_lines = nr + 1;
		if (best) {
			thr->how = VS_THRESHOLD_STEP;
			thr->pthreshold = (double)best / n;
			thr->value = sorted[best - 1];
			return;
		}
		thr->how = VS_THRESHOLD_NO_STEP;
		thr->pthreshold = ptarget;
	}
	thr->value = vs_percentile_sorted(sorted, n, thr->pthreshold);
}

const char *vs_threshold_how_name(enum vs_threshold_how how)
{
	switch (how) {
	case VS_THRESHOLD_STEP:		return "step";
	case VS_THRESHOLD_GIVEN:	return "given";
	case VS_THRESHOLD_NO_STEP:	return "no-step";
	case VS_THRESHOLD_CONSTANT:	return "constant";
	case VS_THRESHOLD_TOO_FEW:	return "too-few";
	}
	return "?";
}

double vs_jaccard(const uint64_t *pa, const uint64_t *ha,
		  const uint64_t *pb, const uint64_t *hb, size_t nbits,
		  size_t *nr_both)
{
	size_t i, both = 0, inter = 0, uni = 0;

	for (i = 0; i < vs_bitmap_words(nbits); i++) {
		uint64_t w = pa[i] & pb[i];

		if (!w)
			continue;
		both += vs_popcount64(w);
		inter += vs_popcount64(w & ha[i] & hb[i]);
		uni += vs_popcount64(w & (ha[i] | hb[i]));
	}
	if (nr_both)
		*nr_both = both;
	return uni ? (double)inter / uni : 0;
}

/* INST > CACHE > CYCLE; 0 for groups outside Rule 1. */
static int rule1_rank(uint8_t group)
{
	switch (group) {
	case VS_GROUP_INST:	return 3;
	case VS_GROUP_CACHE:	return 2;
	case VS_GROUP_CYCLE:	return 1;
	}
	return 0;
}

bool vs_rule1_may_cause(uint8_t g1, uint8_t g2)
{
	return rule1_rank(g2) && rule1_rank(g1) > rule1_rank(g2);
}

void vs_rule1_adjust(size_t n, const double *impact, const uint8_t *group,
		     const double *corr, double *adjusted, int *cause)
{
	size_t i, j;

	for (j = 0; j < n; j++) {
		double best = 0;
		int who = -1;

		for (i = 0; i < n; i++) {
			double d;

			if (!vs_rule1_may_cause(group[i], group[j]))
				continue;
			d = impact[i] * corr[i * n + j];
			if (d > best) {
				best = d;
				who = i;
			}
		}
		adjusted[j] = impact[j] - best;
		if (cause)
			cause[j] = who;
	}
}

double vs_prop_r2(const struct vs_prop *s, double *alpha)
{
	double a, ss_res, ss_tot;

	if (alpha)
		*alpha = 0;
	if (s->n < 2 || s->xx <= 0)
		return 0;
	a = s->xy / s->xx;
	if (alpha)
		*alpha = a;
	ss_res = s->yy - a * s->xy;
	ss_tot = s->yy - s->y * s->y / s->n;
	if (ss_res < 0)
		ss_res = 0;
	if (ss_tot <= 1e-12 * s->yy)
		return ss_res <= 1e-12 * s->yy ? 1 : 0;
	return 1 - ss_res / ss_tot;
}

uint64_t vs_tasks_needed(uint64_t nr_tasks, uint64_t nr_high,
			 uint64_t min_high)
{
	double total;

	if (nr_high >= min_high)
		return 0;
	if (!nr_high)
		return UINT64_MAX;
	total = ceil((double)min_high * (double)nr_tasks / (double)nr_high);
	return (uint64_t)total - nr_tasks;
}

/* --- bootstrap --- */

struct rng {
	uint64_t s;
};

/* splitmix64: small, fast, good enough for resampling */
static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rng_uniform(struct rng *r)
{
	return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(rng_uniform(r) * n);
}

/* Poisson(lambda): multiplication for small lambda, else Hörmann's PTRS. */
static uint64_t rng_poisson(struct rng *r, double lambda)
{
	double slam, loglam, a, b, invalpha, vr;

	if (lambda <= 0)
		return 0;
	if (lambda < 10) {
		double l = exp(-lambda), prod = rng_uniform(r);
		uint64_t k = 0;

		while (prod > l) {
			prod *= rng_uniform(r);
			k++;
		}
		return k;
	}
	slam = sqrt(lambda);
	loglam = log(lambda);
	b = 0.931 + 2.53 * slam;
	a = -0.059 + 0.02483 * b;
	invalpha = 1.1239 + 1.1328 / (b - 3.4);
	vr = 0.9277 - 3.6224 / (b - 2);
	for (;;) {
		double u = rng_uniform(r) - 0.5, v = rng_uniform(r);
		double us = 0.5 - fabs(u), k;

		k = floor((2 * a / us + b) * u + lambda + 0.43);
		if (us >= 0.07 && v <= vr)
			return (uint64_t)k;
		if (k < 0 || (us < 0.013 && v > us))
			continue;
		if (log(v) + log(invalpha) - log(a / (us * us) + b) <=
		    -lambda + k * loglam - lgamma(k + 1))
			return (uint64_t)k;
	}
}

struct boot_blocks {
	size_t n, size, nr;
	const uint64_t *lat;
	const bool *high;
	size_t *nr_low, *nr_high;	/* tasks per block */
	uint64_t *w_low, *w_high;	/* this round's weight per block */
	uint32_t *count;		/* weight per task inside one block */
	uint32_t *low_at, *high_at;	/* positions of low/high tasks in it */
};

/* Spread @w picks uniformly over the @m tasks at @at[]. */
static void boot_spread(struct boot_blocks *bb, struct rng *r, uint64_t w,
			const uint32_t *at, size_t m)
{
	uint64_t j;

	for (j = 0; j < w; j++)
		bb->count[at[rng_below(r, m)]]++;
}

/*
 * Latency at rank @k (1-based) of the resampled tasks, counting only low
 * tasks when @low_only: find the block where the weights reach k, then
 * spread that block's weight over its tasks (multinomially) and walk it.
 * The spread comes from @round_seed and the block, low tasks first, so
 * both percentiles of a round see the same resample.
 */
static uint64_t boot_rank(struct boot_blocks *bb, uint64_t round_seed,
			  uint64_t k, bool low_only)
{
	struct rng block_rng;
	size_t blk, from, m, i, nl = 0, nh = 0;
	uint64_t seen = 0, w;

	for (blk = 0; blk < bb->nr; blk++) {
		w = bb->w_low[blk] + (low_only ? 0 : bb->w_high[blk]);
		if (seen + w >= k)
			break;
		seen += w;
	}
	if (blk == bb->nr)
		return bb->lat[bb->n - 1];
	from = blk * bb->size;
	m = from + bb->size > bb->n ? bb->n - from : bb->size;
	for (i = 0; i < m; i++) {
		if (bb->high[from + i])
			bb->high_at[nh++] = i;
		else
			bb->low_at[nl++] = i;
	}
	memset(bb->count, 0, m * sizeof(*bb->count));
	block_rng.s = round_seed ^ (blk * 0xd1b54a32d192ed03ull);
	boot_spread(bb, &block_rng, bb->w_low[blk], bb->low_at, nl);
	if (!low_only)
		boot_spread(bb, &block_rng, bb->w_high[blk], bb->high_at, nh);
	for (i = 0; i < m; i++) {
		seen += bb->count[i];
		if (seen >= k)
			return bb->lat[from + i];
	}
	return bb->lat[from + m - 1];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void vs_bootstrap_impact(const uint64_t *lat, const bool *high, size_t n,
			 double p, unsigned int rounds, uint64_t seed,
			 double level, double *lo, double *hi)
{
	struct boot_blocks bb = { .n = n, .lat = lat, .high = high };
	struct rng r = { seed };
	double *impacts;
	unsigned int round, done = 0;
	size_t i;

	*lo = *hi = 0;
	if (!n || !rounds)
		return;
	bb.size = (size_t)sqrt((double)n);
	if (bb.size < 64)
		bb.size = 64;
	bb.nr = (n + bb.size - 1) / bb.size;
	bb.nr_low = calloc(bb.nr, sizeof(*bb.nr_low));
	bb.nr_high = calloc(bb.nr, sizeof(*bb.nr_high));
	bb.w_low = calloc(bb.nr, sizeof(*bb.w_low));
	bb.w_high = calloc(bb.nr, sizeof(*bb.w_high));
	bb.count = calloc(bb.size, sizeof(*bb.count));
	bb.low_at = calloc(bb.size, sizeof(*bb.low_at));
	bb.high_at = calloc(bb.size, sizeof(*bb.high_at));
	impacts = calloc(rounds, sizeof(*impacts));
	if (!bb.nr_low || !bb.nr_high || !bb.w_low || !bb.w_high ||
	    !bb.count || !bb.low_at || !bb.high_at || !impacts)
		goto out;
	for (i = 0; i < n; i++) {
		if (high[i])
			bb.nr_high[i / bb.size]++;
		else
			bb.nr_low[i / bb.size]++;
	}
	for (round = 0; round < rounds; round++) {
		uint64_t total = 0, total_low = 0, p_all, p_low;
		uint64_t round_seed = rng_next(&r);
		size_t blk;

		for (blk = 0; blk < bb.nr; blk++) {
			bb.w_low[blk] = rng_poisson(&r, bb.nr_low[blk]);
			bb.w_high[blk] = rng_poisson(&r, bb.nr_high[blk]);
			total_low += bb.w_low[blk];
			total += bb.w_low[blk] + bb.w_high[blk];
		}
		if (!total_low)
			continue;
		p_all = boot_rank(&bb, round_seed, vs_rank(total, p), false);
		p_low = boot_rank(&bb, round_seed, vs_rank(total_low, p), true);
		impacts[done++] = vs_impact_value(p_all, p_low);
	}
	if (done) {
		qsort(impacts, done, sizeof(*impacts), cmp_double);
		*lo = impacts[vs_rank(done, (1 - level) / 2) - 1];
		*hi = impacts[vs_rank(done, 1 - (1 - level) / 2) - 1];
	}
out:
	free(bb.nr_low);
	free(bb.nr_high);
	free(bb.w_low);
	free(bb.w_high);
	free(bb.count);
	free(bb.low_at);
	free(bb.high_at);
	free(impacts);
}
