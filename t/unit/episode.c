// SPDX-License-Identifier: MIT
/*
 * episode.c - unit test of closed frequent episode mining
 * (core/signature/episode.c) on hand-made system-call sequences with known
 * supports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/signature/episode.h"

#include "t/unit/shuffle.h"
#include "t/unit/tap.h"


#define W 1	/* write */
#define R 0	/* read */
#define P 7	/* poll */
#define S 4	/* stat */

/* How often a matcher runs through @e in sequence [@nr, @nr + @n). */
static unsigned int support_of(const struct vs_episode *e, const uint16_t *nr,
			       size_t n)
{
	unsigned int st = 0, count = 0;
	size_t j;

	for (j = 0; j < n; j++)
		if (nr[j] == e->nr[st] && ++st == e->len) {
			count++;
			st = 0;
		}
	return count;
}

/*
 * 20 calls in 500 random orders: 116,280 candidates of length 4, more
 * than are counted.  Those counted are the VS_EPISODE_MAX_COUNTED made
 * from the most frequent episodes of length 3 (every one frequent here,
 * about 21 times each), each with its exact support.
 */
static void test_capped(void)
{
	enum { CALLS = 20, SEQS = 500 };
	static uint16_t nr[CALLS * SEQS];
	static size_t start[SEQS + 1];
	struct vs_seqs s = { .nr = nr, .start = start, .nr_seqs = SEQS };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t i, k, ne, len4 = 0, wrong = 0;
	struct vs_episode *e;
	bool capped = false;

	for (i = 0; i < SEQS; i++) {
		start[i] = i * CALLS;
		shuffle_calls(nr + i * CALLS, CALLS, 0, &x);
	}
	start[SEQS] = CALLS * SEQS;
	e = vs_episodes_mine(&s, 10, &ne, &capped);
	for (i = 0; i < ne; i++) {
		unsigned int sup = 0;

		if (e[i].len != 4)
			continue;
		len4++;
		for (k = 0; k < SEQS; k++)
			sup += support_of(&e[i], nr + start[k], CALLS);
		wrong += sup != e[i].support;
	}
	ok(capped && len4 == VS_EPISODE_MAX_COUNTED,
	   "20 calls in every order: capped, %d episodes of length 4",
	   VS_EPISODE_MAX_COUNTED);
	printf("# %zu episodes, %zu of length 4\n", ne, len4);
	ok(len4 && !wrong, "each counted as often as it occurs");
	free(e);
}

/* Mine the sequences of @calls split at -1; print them as "a, *, b:N;" */
static char *mine(const int *calls, size_t n, unsigned int min_support)
{
	static char out[4096];
	uint16_t nr[256];
	size_t start[64], nseq = 0, len = 0, i, ne;
	struct vs_episode *e;
	char buf[128];

	start[0] = 0;
	for (i = 0; i < n; i++) {
		if (calls[i] < 0)
			start[++nseq] = len;
		else
			nr[len++] = calls[i];
	}
	start[++nseq] = len;
	struct vs_seqs s = { .nr = nr, .start = start, .nr_seqs = nseq };

	e = vs_episodes_mine(&s, min_support, &ne, NULL);
	out[0] = '\0';
	for (i = 0; i < ne; i++) {
		vs_episode_format(&e[i], buf, sizeof(buf));
		snprintf(out + strlen(out), sizeof(out) - strlen(out),
			 "%s:%u;", buf, e[i].support);
	}
	free(e);
	return out;
}

#define MINE(L, ...) ({ static const int c_[] = { __VA_ARGS__ }; \
	mine(c_, sizeof(c_) / sizeof(c_[0]), (L)); })

int main(void)
{
	char *r;

	ok(vs_episode_min_support(100, 0.01) == 2, "L floor is 2");
	ok(vs_episode_min_support(500, 0.01) == 5, "L = N * p");
	ok(vs_episode_min_support(100000, 0.01) == 10, "L capped at 10");

	/* the paper's Figure 2: poll infrequent, (write, read) closed */
	r = MINE(3, W, P, R, W, R, W, R);
	ok(!strcmp(r, "write, *, read:3;"), "figure 2: write, *, read closed");
	printf("# %s\n", r);

	/* alternation: (write, read) 12 times, (read, write) 11 */
	r = MINE(10, W, R, W, R, W, R, W, R, W, R, W, R,
		 W, R, W, R, W, R, W, R, W, R, W, R);
	ok(!strcmp(r, "write, read:12;read, write:11;"),
	   "contiguous alternation counts non-overlapping matches");
	printf("# %s\n", r);

	/* a poll in the middle puts a '*' into (read, write) only */
	r = MINE(10, W, R, W, R, W, R, W, R, W, R, W, R, P,
		 W, R, W, R, W, R, W, R, W, R, W, R);
	ok(!strcmp(r, "write, read:12;read, *, write:11;"),
	   "gap marks the wildcard");
	printf("# %s\n", r);

	/* matchers restart at each sequence: no (read, write) across -1 */
	r = MINE(2, W, R, -1, W, R, -1, W, R);
	ok(!strcmp(r, "write, read:3;"), "sequences are matched apart");
	printf("# %s\n", r);

	/* non-contiguous: write, <anything>, read each time */
	r = MINE(4, W, S, R, W, P, R, W, 9, R, W, 3, R);
	ok(!strcmp(r, "write, *, read:4;"), "non-contiguous episode found");
	printf("# %s\n", r);

	/* a retry loop: length capped at 4, sub-episodes not reported */
	r = MINE(4, 96, R, 96, R, 96, R, 96, R, 96, R, 96, R, 96, R, 96, R);
	ok(!strcmp(r, "gettimeofday, read, gettimeofday, read:4;"),
	   "closed episodes: longest only, up to length 4");
	printf("# %s\n", r);

	/* a long sequence: every call seen hundreds of times */
	{
		static uint16_t nr[100000];
		size_t start[2] = { 0, 100000 }, ne, i;
		struct vs_seqs s = { .nr = nr, .start = start, .nr_seqs = 1 };
		struct vs_episode *e;

		for (i = 0; i < 100000; i++)
			nr[i] = i % 2 ? 0 : 96;
		char buf[128];

		e = vs_episodes_mine(&s, 10, &ne, NULL);
		if (ne)
			vs_episode_format(&e[0], buf, sizeof(buf));
		ok(ne && !strcmp(buf, "gettimeofday, read, gettimeofday, read")
		   && e[0].support == 25000,
		   "100000 calls (counts past 255): the loop's episode 25000 "
		   "times");
		free(e);
	}

	/* nothing frequent */
	r = MINE(5, W, R, P);
	ok(!strcmp(r, ""), "no episode under the minimum support");
	test_capped();
	return done_testing();
}
