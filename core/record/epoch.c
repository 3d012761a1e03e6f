// SPDX-License-Identifier: MIT
/*
 * epoch.c - a pair-covering epoch schedule.
 *
 * One cycle is built greedily, block by block: a block starts with the
 * event that still misses the most partners and grows by the event that
 * meets the most members it has not met yet.  A local search then drops
 * blocks and repairs the cover while it can.  Ties and moves are drawn
 * from a seeded generator, so the schedule is deterministic.  For Table 1
 * (78 events, K = 4) the cycle is 517 epochs against a lower bound of 507:
 * at one epoch a second, every pair meets within nine minutes.  Small
 * cases reach the known optima (the Fano plane for 7 events by 3, the
 * projective plane of order 3 for 13 by 4).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/record/epoch.h"

struct vs_epoch_schedule {
	unsigned int n, k, len;
	uint16_t *sets;		/* len blocks of k ids */
	unsigned char *size;	/* events in each block */
};

/* Work budget of all tries, in candidate evaluations. */
#define GREEDY_BUDGET	(1u << 25)
#define GREEDY_TRIES	8

struct greedy {
	unsigned int n, k;
	unsigned char *met;	/* n * n: the pair shared an epoch */
	unsigned int *missing;	/* per event: partners not met yet */
	unsigned int *blocks;	/* blocks * k event indices */
	unsigned char *size;
	unsigned int len;
	size_t alloc_blocks, alloc_size;
	uint64_t rng;
};

static uint64_t rng_next(uint64_t *x)
{
	/* xorshift64* */
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

unsigned int vs_epoch_pairs_lower_bound(unsigned int n, unsigned int k)
{
	uint64_t inner;

	if (n < 2)
		return n ? 1 : 0;
	if (k >= n)
		return 1;
	if (k < 2)
		return 0;
	inner = (n - 1 + (k - 2)) / (k - 1);		/* ceil((n-1)/(k-1)) */
	return (unsigned int)((n * inner + k - 1) / k);	/* ceil(n/k * inner) */
}

static int greedy_grow(struct greedy *g)
{
	size_t need = (size_t)g->len + 1;

	return ALLOC_GROW(g->blocks, need * g->k, g->alloc_blocks) ||
	       ALLOC_GROW(g->size, need, g->alloc_size) ? -1 : 0;
}

/* Append one block to @g; returns the pairs it newly covered. */
static unsigned long greedy_block(struct greedy *g)
{
	unsigned int *blk, nb = 0, i, j;
	unsigned long gained = 0;
	bool in[g->n];

	memset(in, 0, sizeof(in));
	blk = &g->blocks[(size_t)g->len * g->k];
	while (nb < g->k && nb < g->n) {
		unsigned int best = g->n, best_gain = 0, best_miss = 0;
		uint64_t best_tie = 0;

		for (i = 0; i < g->n; i++) {
			unsigned int gain = 0;
			uint64_t tie;

			if (in[i])
				continue;
			for (j = 0; j < nb; j++)
				gain += !g->met[(size_t)i * g->n + blk[j]];
			tie = rng_next(&g->rng);
			if (best == g->n || gain > best_gain ||
			    (gain == best_gain && (g->missing[i] > best_miss ||
			     (g->missing[i] == best_miss && tie > best_tie)))) {
				best = i;
				best_gain = gain;
				best_miss = g->missing[i];
				best_tie = tie;
			}
		}
		/* Nothing new to meet: a smaller block records fewer events
		 * per task for nothing, but an empty slot costs nothing
		 * either; keep the block short and honest. */
		if (nb && !best_gain && !best_miss)
			break;
		in[best] = true;
		blk[nb++] = best;
	}
	for (i = 0; i < nb; i++)
		for (j = i + 1; j < nb; j++) {
			size_t a = (size_t)blk[i] * g->n + blk[j];
			size_t b = (size_t)blk[j] * g->n + blk[i];

			if (g->met[a])
				continue;
			g->met[a] = g->met[b] = 1;
			g->missing[blk[i]]--;
			g->missing[blk[j]]--;
			gained++;
		}
	g->size[g->len++] = nb;
	return gained;
}

/*
 * Drop the blocks whose every pair another block covers too; @g->met
 * becomes the number of blocks that cover each pair.
 */
static void greedy_prune(struct greedy *g)
{
	unsigned int b, i, j, out = 0;

	memset(g->met, 0, (size_t)g->n * g->n);
	for (b = 0; b < g->len; b++) {
		const unsigned int *blk = &g->blocks[(size_t)b * g->k];

		for (i = 0; i < g->size[b]; i++)
			for (j = i + 1; j < g->size[b]; j++)
				g->met[(size_t)blk[i] * g->n + blk[j]]++,
				g->met[(size_t)blk[j] * g->n + blk[i]]++;
	}
	for (b = 0; b < g->len; b++) {
		unsigned int *blk = &g->blocks[(size_t)b * g->k];
		bool needed = false;

		for (i = 0; i < g->size[b] && !needed; i++)
			for (j = i + 1; j < g->size[b] && !needed; j++)
				needed = g->met[(size_t)blk[i] * g->n + blk[j]] < 2;
		if (!needed) {
			for (i = 0; i < g->size[b]; i++)
				for (j = i + 1; j < g->size[b]; j++)
					g->met[(size_t)blk[i] * g->n + blk[j]]--,
					g->met[(size_t)blk[j] * g->n + blk[i]]--;
			continue;
		}
		if (out != b) {
			memmove(&g->blocks[(size_t)out * g->k], blk,
				g->k * sizeof(*blk));
			g->size[out] = g->size[b];
		}
		out++;
	}
	g->len = out;
}

/* One greedy cycle with seed @seed; returns 0 or -1 (ENOMEM). */
static int greedy_run(struct greedy *g, uint64_t seed)
{
	unsigned long left = (unsigned long)g->n * (g->n - 1) / 2;
	unsigned int i;

	memset(g->met, 0, (size_t)g->n * g->n);
	for (i = 0; i < g->n; i++)
		g->missing[i] = g->n - 1;
	g->len = 0;
	g->rng = seed * 0x9e3779b97f4a7c15ull + 1;
	do {
		if (greedy_grow(g))
			return -1;
		left -= greedy_block(g);
	} while (left);
	greedy_prune(g);
	return 0;
}

/*
 * Local search (after Nurmela and Oestergaard's covering-design search):
 * drop one block of a full cover, then move events between blocks until
 * every pair is covered again; repeat while it succeeds.  A move takes an
 * uncovered pair (u, v) and a block holding u, and puts v in place of the
 * member whose removal uncovers the fewest pairs; moves that uncover more
 * than they cover are taken with a small probability so the search can
 * leave local minima.
 */
struct cover {
	unsigned int n, k, len;
	unsigned int *blocks;	/* len * k, every block full */
	uint16_t *cnt;		/* n * n: blocks covering the pair */
	unsigned int *occ;	/* n * occ_cap: blocks holding each event */
	unsigned int *nocc, occ_cap;
	unsigned int *unc, nunc;	/* uncovered pairs (a * n + b, a < b) */
	int *unc_pos;		/* n * n: index in unc, or -1 */
	uint64_t rng;
};

#define SEARCH_MOVES	(1u << 24)	/* all reductions together */
#define SEARCH_STEP	(1u << 20)	/* one reduction */

static void cover_pair(struct cover *c, unsigned int a, unsigned int b, int d)
{
	unsigned int lo = a < b ? a : b, hi = a < b ? b : a;
	size_t p = (size_t)lo * c->n + hi;

	c->cnt[p] += d;
	if (d > 0 && c->cnt[p] == 1 && c->unc_pos[p] >= 0) {
		unsigned int last = c->unc[--c->nunc];

		c->unc[c->unc_pos[p]] = last;
		c->unc_pos[last] = c->unc_pos[p];
		c->unc_pos[p] = -1;
	} else if (d < 0 && c->cnt[p] == 0) {
		c->unc_pos[p] = c->nunc;
		c->unc[c->nunc++] = p;
	}
}

static unsigned int cover_count(const struct cover *c, unsigned int a,
				unsigned int b)
{
	return a < b ? c->cnt[(size_t)a * c->n + b] : c->cnt[(size_t)b * c->n + a];
}

static void occ_del(struct cover *c, unsigned int e, unsigned int blk)
{
	unsigned int *o = &c->occ[(size_t)e * c->occ_cap], i;

	for (i = 0; i < c->nocc[e]; i++)
		if (o[i] == blk) {
			o[i] = o[--c->nocc[e]];
			return;
		}
}

static void occ_rename(struct cover *c, unsigned int e, unsigned int from,
		       unsigned int to)
{
	unsigned int *o = &c->occ[(size_t)e * c->occ_cap], i;

	for (i = 0; i < c->nocc[e]; i++)
		if (o[i] == from)
			o[i] = to;
}

/* Block @b gives up member slot @slot for event @v. */
static void cover_replace(struct cover *c, unsigned int b, unsigned int slot,
			  unsigned int v)
{
	unsigned int *blk = &c->blocks[(size_t)b * c->k], w = blk[slot], i;

	for (i = 0; i < c->k; i++)
		if (i != slot) {
			cover_pair(c, w, blk[i], -1);
			cover_pair(c, v, blk[i], +1);
		}
	blk[slot] = v;
	occ_del(c, w, b);
	c->occ[(size_t)v * c->occ_cap + c->nocc[v]++] = b;
}

/* Remove the block that covers the fewest pairs alone. */
static void cover_drop_block(struct cover *c)
{
	unsigned int b, i, j, best = 0, best_alone = ~0u, last = c->len - 1;
	unsigned int *blk;

	for (b = 0; b < c->len; b++) {
		unsigned int alone = 0;

		blk = &c->blocks[(size_t)b * c->k];
		for (i = 0; i < c->k; i++)
			for (j = i + 1; j < c->k; j++)
				alone += cover_count(c, blk[i], blk[j]) == 1;
		if (alone < best_alone) {
			best_alone = alone;
			best = b;
		}
	}
	blk = &c->blocks[(size_t)best * c->k];
	for (i = 0; i < c->k; i++) {
		for (j = i + 1; j < c->k; j++)
			cover_pair(c, blk[i], blk[j], -1);
		occ_del(c, blk[i], best);
	}
	if (best != last) {
		memcpy(blk, &c->blocks[(size_t)last * c->k], c->k * sizeof(*blk));
		for (i = 0; i < c->k; i++)
			occ_rename(c, blk[i], last, best);
	}
	c->len--;
}

/* One move towards covering everything again. */
static void cover_move(struct cover *c)
{
	unsigned int p = c->unc[rng_next(&c->rng) % c->nunc];
	unsigned int u = p / c->n, v = p % c->n, b, *blk, i, j, slot = 0;
	int best = 0x7fffffff;

	if (rng_next(&c->rng) & 1) {
		unsigned int t = u;

		u = v;
		v = t;
	}
	if (!c->nocc[u])
		return;
	b = c->occ[(size_t)u * c->occ_cap +
		   rng_next(&c->rng) % c->nocc[u]];
	blk = &c->blocks[(size_t)b * c->k];
	for (i = 0; i < c->k; i++) {
		int delta = 0;

		if (blk[i] == u)
			continue;
		for (j = 0; j < c->k; j++) {
			if (j == i)
				continue;
			delta += cover_count(c, blk[i], blk[j]) == 1;
			delta -= cover_count(c, v, blk[j]) == 0;
		}
		if (delta < best || (delta == best && rng_next(&c->rng) & 1)) {
			best = delta;
			slot = i;
		}
	}
	/* A worse move passes with probability 1024^-delta. */
	if (best > 0 && (best > 4 ||
			 rng_next(&c->rng) & ((1ull << (10 * best)) - 1)))
		return;
	cover_replace(c, b, slot, v);
}

/*
 * Shorten the cover of @g (blocks padded to k) as far as the search
 * budget goes; @g keeps the shortest full cover found.
 */
static int cover_improve(struct greedy *g)
{
	struct cover c = { .n = g->n, .k = g->k, .len = g->len,
			   .occ_cap = g->len, .rng = g->rng };
	unsigned int b, i, j, moves = 0;
	int ret = -1;

	c.blocks = malloc((size_t)g->len * g->k * sizeof(*c.blocks));
	c.cnt = calloc((size_t)g->n * g->n, sizeof(*c.cnt));
	c.occ = malloc((size_t)g->n * c.occ_cap * sizeof(*c.occ));
	c.nocc = calloc(g->n, sizeof(*c.nocc));
	c.unc = malloc((size_t)g->n * g->n * sizeof(*c.unc));
	c.unc_pos = malloc((size_t)g->n * g->n * sizeof(*c.unc_pos));
	if (!c.blocks || !c.cnt || !c.occ || !c.nocc || !c.unc || !c.unc_pos)
		goto out;
	memset(c.unc_pos, 0xff, (size_t)g->n * g->n * sizeof(*c.unc_pos));
	for (b = 0; b < g->len; b++) {
		unsigned int *blk = &c.blocks[(size_t)b * g->k];

		memcpy(blk, &g->blocks[(size_t)b * g->k], g->size[b] * sizeof(*blk));
		/* Pad with the events that appear least. */
		for (i = g->size[b]; i < g->k; i++) {
			unsigned int e, pick = g->n;

			for (e = 0; e < g->n; e++) {
				for (j = 0; j < i && blk[j] != e; j++)
					;
				if (j == i && (pick == g->n || c.nocc[e] < c.nocc[pick]))
					pick = e;
			}
			blk[i] = pick;
		}
		for (i = 0; i < g->k; i++) {
			c.occ[(size_t)blk[i] * c.occ_cap + c.nocc[blk[i]]++] = b;
			for (j = i + 1; j < g->k; j++)
				cover_pair(&c, blk[i], blk[j], +1);
		}
	}
	while (moves < SEARCH_MOVES &&
	       c.len > vs_epoch_pairs_lower_bound(c.n, c.k)) {
		unsigned int step = 0;

		cover_drop_block(&c);
		while (c.nunc && step < SEARCH_STEP) {
			cover_move(&c);
			step++;
		}
		moves += step;
		if (c.nunc)
			break;
		g->len = c.len;
		for (b = 0; b < c.len; b++) {
			memcpy(&g->blocks[(size_t)b * g->k],
			       &c.blocks[(size_t)b * g->k], g->k * sizeof(*c.blocks));
			g->size[b] = g->k;
		}
	}
	ret = 0;
out:
	free(c.blocks);
	free(c.cnt);
	free(c.occ);
	free(c.nocc);
	free(c.unc);
	free(c.unc_pos);
	return ret;
}

static int schedule_fill(struct vs_epoch_schedule *s, const uint16_t *events)
{
	struct greedy g = { .n = s->n, .k = s->k };
	unsigned int tries, t, best_len = 0;
	unsigned long cost;
	uint64_t best_seed = 0;
	int ret = -1;

	g.met = malloc((size_t)g.n * g.n);
	g.missing = malloc(g.n * sizeof(*g.missing));
	if (!g.met || !g.missing)
		goto out;
	/* A cycle costs about blocks * k * n evaluations. */
	cost = (unsigned long)vs_epoch_pairs_lower_bound(g.n, g.k) * g.k * g.n;
	tries = cost ? GREEDY_BUDGET / cost : GREEDY_TRIES;
	if (tries > GREEDY_TRIES)
		tries = GREEDY_TRIES;
	if (!tries)
		tries = 1;
	for (t = 0; t < tries; t++) {
		if (greedy_run(&g, t))
			goto out;
		if (!best_len || g.len < best_len) {
			best_len = g.len;
			best_seed = t;
		}
	}
	if (greedy_run(&g, best_seed) || cover_improve(&g))
		goto out;
	s->len = g.len;
	s->sets = malloc((size_t)g.len * g.k * sizeof(*s->sets));
	s->size = malloc(g.len);
	if (!s->sets || !s->size)
		goto out;
	for (t = 0; t < g.len; t++) {
		s->size[t] = g.size[t];
		for (unsigned int j = 0; j < g.size[t]; j++)
			s->sets[(size_t)t * g.k + j] =
				events[g.blocks[(size_t)t * g.k + j]];
	}
	ret = 0;
out:
	free(g.met);
	free(g.missing);
	free(g.blocks);
	free(g.size);
	return ret;
}

struct vs_epoch_schedule *vs_epoch_schedule_new(const uint16_t *events,
						unsigned int n,
						unsigned int k)
{
	struct vs_epoch_schedule *s;
	unsigned int i;

	if (n > 1 && k < 2) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->n = n;
	s->k = k < n ? k : n;
	if (n <= s->k) {
		/* Everything fits in one epoch. */
		s->len = 1;
		s->sets = malloc((n ? n : 1) * sizeof(*s->sets));
		s->size = malloc(1);
		if (!s->sets || !s->size)
			goto fail;
		for (i = 0; i < n; i++)
			s->sets[i] = events[i];
		s->size[0] = n;
		return s;
	}
	if (schedule_fill(s, events))
		goto fail;
	return s;
fail:
	vs_epoch_schedule_free(s);
	errno = ENOMEM;
	return NULL;
}

unsigned int vs_epoch_schedule_len(const struct vs_epoch_schedule *s)
{
	return s->len;
}

const uint16_t *vs_epoch_schedule_set(const struct vs_epoch_schedule *s,
				      uint64_t epoch, unsigned int *nr)
{
	unsigned int b = epoch % s->len;

	*nr = s->size[b];
	return &s->sets[(size_t)b * s->k];
}

void vs_epoch_schedule_free(struct vs_epoch_schedule *s)
{
	if (!s)
		return;
	free(s->sets);
	free(s->size);
	free(s);
}
