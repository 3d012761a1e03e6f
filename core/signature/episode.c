// SPDX-License-Identifier: MIT
/*
 * episode.c - A-priori mining of closed frequent system-call episodes with
 * non-contiguous finite-state matching (PerfScope, section 3.1.2).
 *
 * Counting follows the paper's matcher exactly: one automaton per
 * candidate, advanced when the input is the call it waits for, otherwise
 * left where it is; a complete match counts one and restarts the
 * automaton.  To keep long sequences cheap, automata are kept in lists by
 * the call they wait for, so each input call touches only the automata
 * that it advances.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arch.h"
#include "core/array.h"
#include "core/signature/episode.h"
#include "core/sort.h"

#define NO_CALL		0xffffu
#define NR_CALLS	0x10000u
#define EMPTY_KEY	UINT64_MAX

unsigned int vs_episode_min_support(size_t n, double p)
{
	double l = (double)n * p;

	if (l > 10)
		l = 10;
	if (l < 2)
		l = 2;
	return (unsigned int)l;
}

uint64_t vs_episode_key(const struct vs_episode *e)
{
	uint64_t key = 0;
	int i;

	for (i = VS_EPISODE_MAX_LEN - 1; i >= 0; i--)
		key = key << 16 | (i < e->len ? e->nr[i] : NO_CALL);
	return key;
}

const char *vs_episode_call_name(unsigned int nr, char *buf, size_t size)
{
	const char *name = vs_syscall_name(nr);

	if (name)
		return name;
	snprintf(buf, size, "syscall_%u", nr);
	return buf;
}

void vs_episode_format(const struct vs_episode *e, char *buf, size_t size)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < e->len && off < size; i++) {
		char unknown[24];

		off += snprintf(buf + off, size - off, "%s%s", i ? ", " : "",
				vs_episode_call_name(e->nr[i], unknown,
						     sizeof(unknown)));
		if (off < size && i + 1 < e->len && (e->gaps & (1u << i)))
			off += snprintf(buf + off, size - off, ", *");
	}
}

/* --- a set of episode keys (open addressing, power-of-two size) --- */

struct keyset {
	uint64_t *keys;		/* EMPTY_KEY: free slot (a key of no episode) */
	uint32_t *idx;
	size_t mask;
};

static int keyset_init(struct keyset *ks, size_t n)
{
	size_t size = 16;

	while (size < 2 * n)
		size <<= 1;
	ks->keys = malloc(size * sizeof(*ks->keys));
	ks->idx = malloc(size * sizeof(*ks->idx));
	ks->mask = size - 1;
	if (!ks->keys || !ks->idx)
		return -1;
	memset(ks->keys, 0xff, size * sizeof(*ks->keys));
	return 0;
}

static void keyset_free(struct keyset *ks)
{
	free(ks->keys);
	free(ks->idx);
}

static size_t keyset_slot(const struct keyset *ks, uint64_t key)
{
	size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & ks->mask;

	while (ks->keys[h] != EMPTY_KEY && ks->keys[h] != key)
		h = (h + 1) & ks->mask;
	return h;
}

static void keyset_add(struct keyset *ks, uint64_t key, uint32_t idx)
{
	size_t h = keyset_slot(ks, key);

	ks->keys[h] = key;
	ks->idx[h] = idx;
}

static long keyset_find(const struct keyset *ks, uint64_t key)
{
	size_t h = keyset_slot(ks, key);

	return ks->keys[h] != EMPTY_KEY ? (long)ks->idx[h] : -1;
}

/* --- counting --- */

/*
 * head[] is all -1 between two counts: every list a sequence leaves
 * behind is cleared at its end.
 */
struct matcher {
	int32_t *head;		/* per call: first automaton waiting for it */
	int32_t *next;
	uint8_t *state;
	uint8_t *gaps;
	size_t *last_pos;
	uint64_t *start;
};

/* Count the support of the @nc candidates @c in @s. */
static void count_candidates(struct vs_episode *c, size_t nc,
			     const struct vs_seqs *s, struct matcher *m)
{
	size_t q, j, k;

	for (k = 0; k < nc; k++) {
		c[k].support = 0;
		c[k].gaps = 0;
		c[k].first = c[k].last = 0;
	}
	for (q = 0; q < s->nr_seqs; q++) {
		for (k = 0; k < nc; k++) {
			m->state[k] = 0;
			m->next[k] = m->head[c[k].nr[0]];
			m->head[c[k].nr[0]] = k;
		}
		for (j = s->start[q]; j < s->start[q + 1]; j++) {
			uint16_t call = s->nr[j];
			int32_t a = m->head[call], nexta;

			if (a < 0)
				continue;
			m->head[call] = -1;
			for (; a >= 0; a = nexta) {
				struct vs_episode *e = &c[a];
				unsigned int st = m->state[a];

				nexta = m->next[a];
				if (st == 0) {
					m->gaps[a] = 0;
					m->start[a] = s->time ? s->time[j] : 0;
				} else if (j > m->last_pos[a] + 1) {
					m->gaps[a] |= 1u << (st - 1);
				}
				m->last_pos[a] = j;
				if (++st == e->len) {
					if (!e->support++)
						e->first = m->start[a];
					e->last = s->end ? s->end[j] :
						  s->time ? s->time[j] : 0;
					e->gaps |= m->gaps[a];
					st = 0;
				}
				m->state[a] = st;
				m->next[a] = m->head[e->nr[st]];
				m->head[e->nr[st]] = a;
			}
		}
		/* clear the lists this sequence left behind */
		for (k = 0; k < nc; k++)
			m->head[c[k].nr[m->state[k]]] = -1;
	}
}

static int matcher_init(struct matcher *m, size_t nc)
{
	m->next = malloc(nc * sizeof(*m->next));
	m->state = malloc(nc);
	m->gaps = malloc(nc);
	m->last_pos = malloc(nc * sizeof(*m->last_pos));
	m->start = malloc(nc * sizeof(*m->start));
	return m->next && m->state && m->gaps && m->last_pos && m->start ?
	       0 : -1;
}

static void matcher_free_automata(struct matcher *m)
{
	free(m->next);
	free(m->state);
	free(m->gaps);
	free(m->last_pos);
	free(m->start);
	m->next = NULL;
	m->state = m->gaps = NULL;
	m->last_pos = NULL;
	m->start = NULL;
}

/* --- levels --- */

struct level {
	struct vs_episode *ep;
	size_t nr;
	struct keyset keys;
	uint8_t *closed;
};

/* Is every sub-episode of @e with one call dropped in @prev? */
static int subepisodes_frequent(const struct vs_episode *e,
				const struct level *prev)
{
	struct vs_episode sub;
	int drop, i, n;

	for (drop = 0; drop < e->len; drop++) {
		sub.len = e->len - 1;
		for (i = 0, n = 0; i < e->len; i++)
			if (i != drop)
				sub.nr[n++] = e->nr[i];
		if (keyset_find(&prev->keys, vs_episode_key(&sub)) < 0)
			return 0;
	}
	return 1;
}

/*
 * Candidates of length prev->ep[0].len + 1: a frequent episode + a call,
 * the most frequent first (@prev and @singles are by support), at most
 * VS_EPISODE_MAX_COUNTED (*@capped set when there were more).
 */
static struct vs_episode *candidates(const struct level *prev,
				     const struct level *singles, size_t *nc,
				     bool *capped)
{
	struct vs_episode *c = NULL;
	size_t n = 0, cap = 0, i, j;

	for (i = 0; i < prev->nr && !*capped; i++) {
		for (j = 0; j < singles->nr; j++) {
			struct vs_episode e = prev->ep[i];

			e.nr[e.len++] = singles->ep[j].nr[0];
			if (!subepisodes_frequent(&e, prev))
				continue;
			if (n == VS_EPISODE_MAX_COUNTED) {
				*capped = true;
				break;
			}
			if (ALLOC_GROW(c, n + 1, cap)) {
				free(c);
				return NULL;
			}
			c[n++] = e;
		}
	}
	*nc = n;
	return c;
}

static int cmp_episode(const void *a, const void *b)
{
	const struct vs_episode *x = a, *y = b;
	uint64_t kx = vs_episode_key(x), ky = vs_episode_key(y);

	if (x->len != y->len)
		return y->len - x->len;
	if (x->support != y->support)
		return x->support < y->support ? 1 : -1;
	return kx < ky ? -1 : kx > ky;
}

/* Keep the candidates counted at least @min_support times, indexed. */
static int keep_frequent(struct level *lv, struct vs_episode *c, size_t nc,
			 unsigned int min_support)
{
	size_t i;

	lv->ep = c;
	lv->nr = 0;
	for (i = 0; i < nc; i++)
		if (c[i].support >= min_support)
			c[lv->nr++] = c[i];
	vs_qsort(c, lv->nr, sizeof(*c), cmp_episode);	/* most frequent first */
	lv->closed = malloc(lv->nr + 1);
	if (!lv->closed || keyset_init(&lv->keys, lv->nr) < 0)
		return -1;
	memset(lv->closed, 1, lv->nr + 1);
	for (i = 0; i < lv->nr; i++)
		keyset_add(&lv->keys, vs_episode_key(&c[i]), i);
	return 0;
}

/* Clear closed[] of the episodes of @lv that are sub-episodes in @up. */
static void mark_not_closed(struct level *lv, const struct level *up)
{
	struct vs_episode sub;
	size_t k;
	long idx;
	int drop, i, n;

	for (k = 0; k < up->nr; k++) {
		for (drop = 0; drop < up->ep[k].len; drop++) {
			sub.len = up->ep[k].len - 1;
			for (i = 0, n = 0; i < up->ep[k].len; i++)
				if (i != drop)
					sub.nr[n++] = up->ep[k].nr[i];
			idx = keyset_find(&lv->keys, vs_episode_key(&sub));
			if (idx >= 0)
				lv->closed[idx] = 0;
		}
	}
}

static struct vs_episode *single_candidates(const struct vs_seqs *s,
					    size_t *nc)
{
	uint8_t *seen = calloc(NR_CALLS, 1);
	struct vs_episode *c;
	size_t j, n = 0, total = s->nr_seqs ? s->start[s->nr_seqs] : 0;

	if (!seen)
		return NULL;
	for (j = s->nr_seqs ? s->start[0] : 0; j < total; j++) {
		if (!seen[s->nr[j]]) {
			seen[s->nr[j]] = 1;
			n++;
		}
	}
	c = calloc(n + 1, sizeof(*c));
	if (c) {
		n = 0;
		for (j = 0; j < NR_CALLS; j++) {
			if (!seen[j] || j == NO_CALL)
				continue;
			c[n].len = 1;
			c[n++].nr[0] = j;
		}
	}
	free(seen);
	*nc = n;
	return c;
}

struct vs_episode *vs_episodes_mine(const struct vs_seqs *seqs,
				    unsigned int min_support, size_t *nr_out,
				    bool *capped)
{
	bool was_capped = false;
	struct level lv[VS_EPISODE_MAX_LEN + 1];
	struct vs_episode *c, *out = NULL;
	struct matcher m = { 0 };
	size_t nc, k, i, n = 0;
	int top = 0, failed = 0;

	*nr_out = 0;
	memset(lv, 0, sizeof(lv));
	m.head = malloc(NR_CALLS * sizeof(*m.head));
	c = single_candidates(seqs, &nc);
	if (!m.head || !c) {
		free(c);
		goto nomem;
	}
	memset(m.head, 0xff, NR_CALLS * sizeof(*m.head));
	for (k = 1; k <= VS_EPISODE_MAX_LEN && nc; k++) {
		if (matcher_init(&m, nc) < 0) {
			free(c);
			goto nomem;
		}
		count_candidates(c, nc, seqs, &m);
		matcher_free_automata(&m);
		if (keep_frequent(&lv[k], c, nc, min_support) < 0)
			goto nomem;
		if (!lv[k].nr)
			break;
		top = k;
		if (k == VS_EPISODE_MAX_LEN)
			break;
		c = candidates(&lv[k], &lv[1], &nc, &was_capped);
		if (!c && nc)
			goto nomem;
	}
	for (k = 1; k < (size_t)top; k++)
		mark_not_closed(&lv[k], &lv[k + 1]);
	for (k = 1; k <= (size_t)top; k++)
		for (i = 0; i < lv[k].nr; i++)
			n += lv[k].closed[i];
	out = n ? malloc(n * sizeof(*out)) : NULL;
	if (n && !out)
		goto nomem;
	n = 0;
	for (k = 1; k <= (size_t)top; k++)
		for (i = 0; i < lv[k].nr; i++)
			if (lv[k].closed[i])
				out[n++] = lv[k].ep[i];
	vs_qsort(out, n, sizeof(*out), cmp_episode);
	*nr_out = n;
	if (capped)
		*capped = was_capped;
	goto out;
nomem:
	failed = 1;
out:
	for (k = 1; k <= VS_EPISODE_MAX_LEN; k++) {
		free(lv[k].ep);
		free(lv[k].closed);
		keyset_free(&lv[k].keys);
	}
	matcher_free_automata(&m);
	free(m.head);
	if (failed) {
		free(out);
		errno = ENOMEM;
		return NULL;
	}
	return out;
}
