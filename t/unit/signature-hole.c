// SPDX-License-Identifier: MIT
/*
 * signature-hole.c - unit test of lost records in signature inference
 * (vs_thread_calls_hole(), core/signature/signature-file.c): requests of eight
 * calls 500 us apart are one execution unit each; a stretch of 300 ms
 * whose records a ring dropped, left as one gap, would raise the limit
 * of mean + 2 sigma above every gap between requests (one unit for the
 * thread); marked as a hole, the gap across it is ignored (never a cut)
 * and every other request stays a unit of its own.  A thread off the CPU since before
 * the hole keeps its open span last (its switch-in closes it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/signature/signature.h"

#include "t/unit/tap.h"

#define US	1000ull
#define MS	1000000ull
#define REQUESTS	400

/* @n requests of eight 2-us calls 1 us apart, 500 us between them. */
static void requests(struct vs_thread_calls *th, uint64_t *now, int n)
{
	static const uint16_t nr[] = { 96, 0, 96, 0, 1, 202, 1, 202 };
	int i, k;

	for (i = 0; i < n; i++) {
		*now += 500 * US;
		for (k = 0; k < 8; k++) {
			th->calls[th->nr_calls++] = (struct vs_call){
				.enter = *now, .exit = *now + 2 * US,
				.nr = nr[k] };
			*now += 3 * US;
		}
	}
}

/* The units of one thread's requests with a stretch of 300 ms lost. */
static size_t units(bool hole, uint64_t *limit)
{
	struct vs_signatures sig = { 0 };
	struct vs_infer_opts opts = { .support = 0.01,
				      .cluster_diameter = 0.5 };
	struct vs_thread_calls th = { .tid = 1, .switches = true };
	struct vs_infer_result res;
	size_t off_cap = 0, n;
	uint64_t now = 1000 * MS, from;

	th.calls = calloc(8 * REQUESTS, sizeof(*th.calls));
	requests(&th, &now, REQUESTS / 2);
	from = now;
	now += 300 * MS;
	if (hole && vs_thread_calls_hole(&th, &off_cap, from, now) < 0)
		return 0;
	requests(&th, &now, REQUESTS / 2);
	if (vs_signature_infer(&sig, &th, 1, &opts, &res) < 0)
		return 0;
	n = res.nr_units;
	*limit = res.gap_limit;
	vs_infer_result_free(&res);
	free(th.calls);
	free(th.off);
	return n;
}

int main(void)
{
	struct vs_thread_calls th = { .tid = 1 };
	uint64_t limit;
	size_t n, cap = 0;

	n = units(false, &limit);
	printf("# without the hole: %zu units, gap limit %llu ns\n", n,
	     (unsigned long long)limit);
	ok(n < 10, "one lost stretch as a gap: the requests run together");
	n = units(true, &limit);
	printf("# with the hole: %zu units, gap limit %llu ns\n", n,
	     (unsigned long long)limit);
	ok(n == REQUESTS - 1,
	   "marked as a hole: every request is a unit (the two around it one)");

	/* switched out at 10, a hole from 20 to 30, then one from 5 */
	th.off = calloc(1, sizeof(*th.off));
	cap = 1;
	th.off[th.nr_off++] = (struct vs_offcpu){ .start = 10 };
	ok(!vs_thread_calls_hole(&th, &cap, 20, 30) && th.nr_off == 1,
	   "off the CPU since before the hole: nothing added");
	ok(!vs_thread_calls_hole(&th, &cap, 5, 8) && th.nr_off == 2 &&
	   th.off[0].start == 5 && th.off[0].end == 8 && th.off[1].start == 10 &&
	   !th.off[1].end, "a hole before the open span goes before it");
	free(th.off);
	return done_testing();
}
