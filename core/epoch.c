// SPDX-License-Identifier: MIT
/*
 * epoch.c - a pair-covering epoch schedule.
 *
 * One cycle is built greedily, block by block: a block starts with the
 * event that still misses the most partners and grows by the event that
 * meets the most members it has not met yet.  Ties are broken by a seeded
 * generator; several seeds are tried and the shortest cycle kept, so the
 * schedule is deterministic.  For Table 1 (78 events, K = 4) this gives a
 * cycle within a few percent of the lower bound: at one epoch a second a
 * full cycle takes about nine minutes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/epoch.h"

struct vs_epoch_schedule {
	unsigned int n, k, len;
	uint16_t *sets;		/* len blocks of k ids */
	unsigned char *size;	/* events in each block */
};

/* Work budget of all tries, in candidate evaluations. */
#define GREEDY_BUDGET	(1u << 25)
#define GREEDY_TRIES	64

struct greedy {
	unsigned int n, k;
	unsigned char *met;	/* n * n: the pair shared an epoch */
	unsigned int *missing;	/* per event: partners not met yet */
	unsigned int *blocks;	/* blocks * k event indices */
	unsigned char *size;
	unsigned int len, cap;
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
	if (g->len < g->cap)
		return 0;
	g->cap = g->cap ? g->cap * 2 : 64;
	g->blocks = realloc(g->blocks, (size_t)g->cap * g->k * sizeof(*g->blocks));
	g->size = realloc(g->size, g->cap);
	return g->blocks && g->size ? 0 : -1;
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
	if (greedy_run(&g, best_seed))
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
