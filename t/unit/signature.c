// SPDX-License-Identifier: MIT
/*
 * signature.c - unit test of signature building and inference
 * (core/signature/signature.c) on hand-made threads of system calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/signature/signature.h"

#include "t/unit/shuffle.h"
#include "t/unit/tap.h"


enum { READ = 0, WRITE = 1, FSYNC = 74, GTOD = 96, FUTEX = 202, POLL = 7 };

static struct vs_call calls[4][20000];
static struct vs_thread_calls th[4];

/* Append @n calls of @seq to thread @t, 1 us apart, after a gap of @gap ns. */
static void run(int t, const int *seq, size_t n, uint64_t gap, uint64_t dur)
{
	struct vs_thread_calls *tc = &th[t];
	uint64_t now = tc->nr_calls ? calls[t][tc->nr_calls - 1].exit : 1000;
	size_t i;

	now += gap;
	for (i = 0; i < n; i++) {
		struct vs_call *c = &calls[t][tc->nr_calls++];

		c->enter = now + 1000;
		c->exit = c->enter + dur;
		c->nr = seq[i];
		now = c->exit;
	}
}

/* One execution of @func, i us into the run and 10 us long: @seq once. */
static void profile(struct vs_profile *p, const char *func, const int *seq,
		    size_t n, int i)
{
	static const uint32_t gap[8];
	uint16_t nr[8];
	size_t k;

	for (k = 0; k < n; k++)
		nr[k] = seq[k];
	vs_profile_add_execution(p, func, nr, gap, n, i * 1000,
				 i * 1000 + 10000);
}

/*
 * Executions are cut into sequences at gaps above the limit, and each
 * sequence restarts the matchers: (gettimeofday, read) twice with a 5 us
 * gap between, in 20 executions, is (gettimeofday, read) 40 times when
 * the limit is 1 us, and (gettimeofday, read, gettimeofday, read) 20
 * times without a limit or under a 1 ms one.
 */
static void test_sequences(void)
{
	static const uint16_t nr[] = { GTOD, READ, GTOD, READ };
	static const uint32_t gap[] = { 9999, 100, 5000, 100 };
	static const struct { const char *what; uint64_t limit;
			      const uint32_t *gap; const char *ep;
			      unsigned int support; } c[] = {
		{ "cut at a 5 us gap", 1000, gap, "gettimeofday, read", 40 },
		{ "no limit", UINT64_MAX, gap,
		  "gettimeofday, read, gettimeofday, read", 20 },
		{ "no cut under 1 ms", 1000000, gap,
		  "gettimeofday, read, gettimeofday, read", 20 },
	};
	struct vs_signatures *sig;
	struct vs_profile *p;
	char buf[128];
	size_t k;
	int i;

	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		p = vs_profile_new();
		for (i = 0; i < 20; i++)
			vs_profile_add_execution(p, "loop", nr, c[k].gap, 4,
						 1000 * i, 1000 * i + 1500);
		sig = vs_profile_mine(p, 0.01, c[k].limit);
		buf[0] = 0;
		if (sig && sig->funcs[0].nr_episodes)
			vs_episode_format(&sig->funcs[0].episodes[0], buf,
					  sizeof(buf));
		ok(sig && sig->funcs[0].executions == 20 &&
		   sig->funcs[0].mean_ns == 1500 &&
		   sig->funcs[0].nr_episodes == 1 && !strcmp(buf, c[k].ep) &&
		   sig->funcs[0].episodes[0].support == c[k].support,
		   "%s: 20 executions, %s x %u", c[k].what, c[k].ep,
		   c[k].support);
		printf("# %s (%u)\n", buf, sig && sig->funcs[0].nr_episodes ?
		       sig->funcs[0].episodes[0].support : 0);
		vs_signatures_free(sig);
		vs_profile_free(p);
	}
}

/*
 * A function that holds one episode of another's loop, rarely made when
 * profiled (support 4), has the larger percentage increase when the loop
 * runs away; the loop's function, whose whole signature matches, still
 * ranks first, and the other is within it.
 */
static void test_explained(void)
{
	static const int fetch[] = { GTOD, READ, GTOD, READ };
	static const int other[][4] = { { WRITE, POLL, WRITE, POLL },
					 { FUTEX, POLL, FUTEX, FSYNC } };
	struct vs_infer_opts opts = { .support = 0.01,
				      .cluster_diameter = 0.5 };
	struct vs_profile *p = vs_profile_new();
	struct vs_signatures *sig;
	struct vs_infer_result res;
	int i, k;

	for (i = 0; i < 50; i++) {
		profile(p, "fetch", fetch, 4, i);
		profile(p, "part", other[0], 4, i);
		profile(p, "part", other[1], 4, i);
		profile(p, "other", other[0], 4, i);
	}
	for (i = 50; i < 54; i++)	/* L = 4 for its 416 calls */
		profile(p, "part", fetch, 4, i);
	sig = vs_profile_mine(p, 0.01, UINT64_MAX);
	memset(th, 0, sizeof(th));
	for (i = 0; i < 40; i++) {
		run(0, fetch, 4, 1000000, 2000);
		run(1, other[i % 2], 4, 1000000, 2000);
	}
	for (i = 0; i < 1000; i++)
		run(0, fetch, 4, 0, 2000);
	for (k = 0; k < 2; k++)
		th[k].calls = calls[k];
	ok(sig && !vs_signature_infer(sig, th, 2, &opts, &res),
	   "inference runs");
	for (i = 0; i < (int)res.nr; i++)
		printf("# %d: %s score %.3f increase %.1f match %.1f within "
		       "%s\n", i + 1, res.funcs[i].func->name,
		       res.funcs[i].score, res.funcs[i].increase,
		       res.funcs[i].match, res.funcs[i].within ?
		       res.funcs[i].within->name : "-");
	ok(res.nr >= 2 && !strcmp(res.funcs[0].func->name, "fetch") &&
	   !strcmp(res.funcs[1].func->name, "part") &&
	   res.funcs[1].increase > res.funcs[0].increase &&
	   res.funcs[1].within == &sig->funcs[0] && !res.funcs[0].within,
	   "the whole match ranks first, the larger increase within it");
	vs_infer_result_free(&res);
	vs_signatures_free(sig);
	vs_profile_free(p);
}

/* A function of the tests below: its loops, {x, y, x, y} each. */
struct weighed {
	const char *name;
	int loops[4][2];	/* calls x and y; x = 0: none */
	int support[4];		/* executions of each when profiled */
	int runaway[4];		/* times the abnormal unit makes each */
};

/* The first two functions ranked, none within another. */
struct top_two {
	int nr;			/* functions identified; 0: inference failed,
				   or one of the two is within another */
	char name[2][32];
	double score[2], increase[2], match[2], specificity[2];
};

/*
 * Profile @f (@nr functions), infer a run whose threads make the first
 * loop of each once a millisecond, then the loops in one runaway unit
 * as @f says, into @top.
 */
static void rank_weighed(const struct weighed *f, int nr, struct top_two *top)
{
	struct vs_infer_opts opts = { .support = 0.01,
				      .cluster_diameter = 0.5 };
	struct vs_profile *p = vs_profile_new();
	struct vs_signatures *sig;
	struct vs_infer_result res;
	int i, k, l, r, seq[4];

	for (k = 0; k < nr; k++)
		for (l = 0; l < 4 && f[k].loops[l][0]; l++)
			for (i = 0; i < f[k].support[l]; i++) {
				seq[0] = seq[2] = f[k].loops[l][0];
				seq[1] = seq[3] = f[k].loops[l][1];
				profile(p, f[k].name, seq, 4, i);
			}
	sig = vs_profile_mine(p, 0.01, UINT64_MAX);
	memset(th, 0, sizeof(th));
	for (i = 0; i < 40; i++)
		for (k = 0; k < nr; k++) {
			seq[0] = seq[2] = f[k].loops[0][0];
			seq[1] = seq[3] = f[k].loops[0][1];
			run(1, seq, 4, 1000000, 2000);
		}
	for (r = 0; r < 2000; r++)
		for (k = 0; k < nr; k++)
			for (l = 0; l < 4; l++)
				if (r < f[k].runaway[l]) {
					seq[0] = seq[2] = f[k].loops[l][0];
					seq[1] = seq[3] = f[k].loops[l][1];
					run(0, seq, 4, 0, 2000);
				}
	for (k = 0; k < 2; k++)
		th[k].calls = calls[k];
	memset(top, 0, sizeof(*top));
	if (sig && !vs_signature_infer(sig, th, 2, &opts, &res)) {
		for (i = 0; i < (int)res.nr; i++) {
			const struct vs_infer_function *g = &res.funcs[i];

			printf("# %d: %s score %.3f increase %.1f match %.1f "
			       "specificity %.2f\n", i + 1, g->func->name,
			       g->score, g->increase, g->match,
			       g->specificity);
			if (i >= 2)
				continue;
			snprintf(top->name[i], sizeof(top->name[i]), "%s",
				 g->func->name);
			top->score[i] = g->score;
			top->increase[i] = g->increase;
			top->match[i] = g->match;
			top->specificity[i] = g->specificity;
		}
		top->nr = res.nr >= 2 && !res.funcs[0].within &&
			  !res.funcs[1].within ? res.nr : 0;
		vs_infer_result_free(&res);
	}
	vs_signatures_free(sig);
	vs_profile_free(p);
}

/*
 * Specificity: four functions, each with two loops, one of which a
 * runaway unit makes ten times as often as their normal runs did (the
 * matcher's counts differ by one at most): gettimeofday+read, a loop
 * three of them hold, and write+poll, one that b_own alone holds.  Same
 * increase, same share matched, none matched whole: b_own, whose matched
 * episode tells the most, ranks first, the three that share theirs
 * below it (by name alone, a_shared would come first).
 */
static void test_specific(void)
{
	static const struct weighed f[] = {
		{ "a_shared", { { GTOD, READ }, { FUTEX, FSYNC } },
		  { 50, 50 }, { 500 } },
		{ "c_shared", { { GTOD, READ }, { FSYNC, FUTEX } },
		  { 50, 50 }, { 0 } },
		{ "d_shared", { { GTOD, READ }, { 2, 3 } }, { 50, 50 },
		  { 0 } },
		{ "b_own", { { WRITE, POLL }, { 4, 5 } }, { 50, 50 },
		  { 500 } },
	};
	struct top_two top;

	rank_weighed(f, 4, &top);
	ok(top.nr == 4 && top.increase[0] > 0.99 * top.increase[1] &&
	   top.increase[1] > 0.99 * top.increase[0] &&
	   top.match[0] == top.match[1],
	   "four identified, alike but for whom their episodes are shared with");
	is_str(top.name[0], "b_own",
	       "the function of the episode it alone holds ranks first");
	ok(top.specificity[0] == 1 && top.score[0] > 2.5 * top.score[1],
	   "...by its score (%.3f, %.3f)", top.score[0], top.score[1]);
}

/*
 * The score weighs the increase by the share of the signature matched,
 * and takes its logarithm: of two functions matched in part, none
 * whole, the one whose matched loop is half of its signature ranks above
 * one whose loop, a quarter of its signature, grew twice as much; and
 * two loops of a signature grown tenfold rank above one grown fiftyfold
 * that was rare when profiled.  Without the share, or without the
 * logarithm, the other ranks first.
 */
static void test_weights(void)
{
	static const struct weighed share[] = {
		{ "half", { { 2, 3 }, { 4, 5 } }, { 50, 50 }, { 500 } },
		{ "quarter", { { 8, 9 }, { 10, 11 }, { 12, 13 }, { 16, 17 } },
		  { 50, 50, 50, 50 }, { 1000 } },
	};
	static const struct weighed rare[] = {
		{ "two_loops", { { 2, 3 }, { 4, 5 }, { 8, 9 }, { 10, 11 } },
		  { 50, 50, 50, 50 }, { 500, 500 } },
		{ "rare_loop", { { 12, 13 }, { 16, 17 }, { 20, 21 },
				 { 23, 32 } },
		  { 10, 50, 50, 50 }, { 510 } },
	};
	struct top_two top;

	rank_weighed(share, 2, &top);
	is_str(top.name[0], "half", "half the signature grown tenfold, above "
	       "a quarter grown twentyfold");
	ok(top.score[0] > 1.3 * top.score[1], "...by its score (%.3f, %.3f)",
	   top.score[0], top.score[1]);
	rank_weighed(rare, 2, &top);
	is_str(top.name[0], "two_loops",
	       "two loops grown tenfold, above a rare one grown fiftyfold");
	ok(top.score[0] > 1.1 * top.score[1], "...by its score (%.3f, %.3f)",
	   top.score[0], top.score[1]);
}

/*
 * A function that makes 20 calls in any order has more candidate
 * episodes of length 4 than are counted: its signature is mined in part
 * (t/unit/episode.c checks what is counted), the others' whole; a
 * runaway unit of its calls among units of fetch is too, and the
 * function is still the one behind it.
 */
static void test_capped(void)
{
	static const int fetch[] = { GTOD, READ, GTOD, READ };
	struct vs_infer_opts opts = { .support = 0.01,
				      .cluster_diameter = 0.5 };
	struct vs_profile *p = vs_profile_new();
	struct vs_infer_result res = { 0 };
	static int runaway[5000];
	uint32_t gap[20] = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	struct vs_signatures *sig;
	uint16_t calls20[20];
	int i;

	for (i = 0; i < 300; i++) {
		shuffle_calls(calls20, 20, 100, &x);
		vs_profile_add_execution(p, "busy", calls20, gap, 20,
					 i * 100000ull, i * 100000ull + 50000);
		if (i < 50)
			profile(p, "fetch", fetch, 4, i);
	}
	sig = vs_profile_mine(p, 0.01, UINT64_MAX);
	ok(sig && sig->nr_capped == 1 && sig->nr == 2 &&
	   sig->funcs[1].nr_episodes == 1 &&
	   sig->funcs[1].episodes[0].support == 50,
	   "build: busy mined in part, fetch whole");
	memset(th, 0, sizeof(th));
	for (i = 0; i < 40 * 5; i++)
		run(0, fetch, 4, i % 5 ? 0 : 1000000, 1000);
	for (i = 0; i < 5000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		runaway[i] = 100 + x % 20;
	}
	run(0, runaway, 5000, 1000000, 1000);
	th[0].calls = calls[0];
	ok(sig && !vs_signature_infer(sig, th, 1, &opts, &res) &&
	   res.nr_abnormal == 1 && res.nr_capped == 1 && res.nr == 1 &&
	   !strcmp(res.funcs[0].func->name, "busy"),
	   "infer: the runaway unit mined in part, busy behind it");
	printf("# %zu units, %zu abnormal, %zu mined in part, first %s\n",
	       res.nr_units, res.nr_abnormal, res.nr_capped,
	       res.nr ? res.funcs[0].func->name : "-");
	vs_infer_result_free(&res);
	vs_signatures_free(sig);
	vs_profile_free(p);
	memset(th, 0, sizeof(th));
}

int main(void)
{
	static const int fetch[] = { GTOD, READ, GTOD, READ };
	static const int flush[] = { WRITE, FSYNC, WRITE, FSYNC };
	static const int lock[] = { FUTEX, FUTEX, WRITE };
	static const int wait[] = { POLL, READ, WRITE };
	struct vs_infer_opts opts = { .support = 0.01,
				      .cluster_diameter = 0.5 };
	struct vs_profile *p = vs_profile_new();
	struct vs_signatures *sig;
	struct vs_infer_result res;
	char buf[128];
	int i, k, ret;

	test_sequences();
	test_capped();
	for (i = 0; i < 50; i++) {
		profile(p, "fetch", fetch, 4, i);
		profile(p, "flush", flush, 4, i);
		profile(p, "lock", lock, 3, i);
		profile(p, "wait", wait, 3, i);
	}
	ok(vs_profile_nr_functions(p) == 4, "four functions profiled");
	sig = vs_profile_mine(p, 0.01, UINT64_MAX);
	ok(sig && sig->nr == 4 && sig->funcs[0].executions == 50,
	   "signatures mined, 50 executions each");
	vs_episode_format(&sig->funcs[0].episodes[0], buf, sizeof(buf));
	ok(!strcmp(sig->funcs[0].name, "fetch") &&
	   !strcmp(buf, "gettimeofday, read, gettimeofday, read") &&
	   sig->funcs[0].episodes[0].support == 50,
	   "fetch: gettimeofday, read, gettimeofday, read x 50");
	printf("# %s: %s (%u)\n", sig->funcs[0].name, buf,
	       sig->funcs[0].episodes[0].support);

	/* four threads of normal units 1 ms apart; thread 0 then loops */
	for (i = 0; i < 40; i++) {
		run(0, fetch, 4, 1000000, 2000);
		run(1, flush, 4, 1000000, 2000);
		run(2, lock, 3, 1000000, 2000);
		run(3, wait, 3, 1000000, 2000);
	}
	for (i = 0; i < 1000; i++)
		run(0, fetch, 4, 0, 2000);
	for (k = 0; k < 4; k++)
		th[k].calls = calls[k];
	ret = vs_signature_infer(sig, th, 4, &opts, &res);
	ok(!ret, "inference runs");
	ok(res.nr_units == 160, "gaps cut 160 units (the loop ends one)");
	printf("# %zu units, %zu clusters, %zu abnormal, gap limit %llu\n",
	       res.nr_units, res.nr_clusters, res.nr_abnormal,
	       (unsigned long long)res.gap_limit);
	ok(res.nr >= 1 && !strcmp(res.funcs[0].func->name, "fetch"),
	   "the looping function ranks first");
	if (res.nr)
		printf("# 1: %s score %.1f match %.1f\n",
		       res.funcs[0].func->name, res.funcs[0].score,
		       res.funcs[0].match);
	ok(res.nr && res.funcs[0].increase > 1000,
	   "its episode count rose by more than 1000%%");
	vs_infer_result_free(&res);

	/* a 1 ms gap spent switched out does not cut a unit */
	memset(th, 0, sizeof(th));
	for (i = 0; i < 40; i++)
		run(0, fetch, 4, i % 2 ? 1000000 : 0, 2000);
	th[0].calls = calls[0];
	ret = vs_signature_infer(sig, th, 1, &opts, &res);
	ok(!ret && res.nr_units == 21, "twenty 1 ms gaps cut 21 units");
	vs_infer_result_free(&res);
	struct vs_offcpu off[20];

	for (i = 0, k = 0; i + 1 < (int)th[0].nr_calls; i++) {
		uint64_t a = th[0].calls[i].exit, b = th[0].calls[i + 1].enter;

		if (b - a > 500000)
			off[k++] = (struct vs_offcpu){ a + 100, b - 100 };
	}
	th[0].off = off;
	th[0].nr_off = k;
	th[0].switches = true;
	ret = vs_signature_infer(sig, th, 1, &opts, &res);
	ok(!ret && res.nr_units <= 2, "switched-out time is not a gap");
	printf("# %zu units\n", res.nr_units);
	vs_infer_result_free(&res);

	/*
	 * the paper ignores such a gap, whatever part of it the thread was
	 * still on the CPU (here 400 us before it was switched out, as a
	 * timer tick that preempts it would take)
	 */
	for (i = 0; i < k; i++)
		off[i].start += 400000;
	ret = vs_signature_infer(sig, th, 1, &opts, &res);
	ok(!ret && res.nr_units == 1, "a gap with a switch does not cut");
	printf("# %zu units\n", res.nr_units);
	vs_infer_result_free(&res);
	vs_signatures_free(sig);
	vs_profile_free(p);
	test_explained();
	test_specific();
	test_weights();
	return done_testing();
}
