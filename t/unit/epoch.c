// SPDX-License-Identifier: MIT
/*
 * epoch.c - unit test of core/epoch: over one full cycle every pair of
 * the N events shares an epoch, no epoch holds more than K events, and the
 * cycle is close to the lower bound; the schedule wraps and is
 * deterministic.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/intel-events.h"
#include "core/record/epoch.h"
#include "t/unit/tap.h"

#define MAX_N	160

/* Check one cycle of @s over @events; returns the cycle length or 0. */
static unsigned int check_cycle(const struct vs_epoch_schedule *s,
				const uint16_t *events, unsigned int n,
				unsigned int k, const char *what)
{
	static unsigned char met[MAX_N][MAX_N];
	unsigned int len = vs_epoch_schedule_len(s), e, i, j, missing = 0;
	bool sizes = true, members = true;

	memset(met, 0, sizeof(met));
	for (e = 0; e < len; e++) {
		unsigned int nr, idx[MAX_N];
		const uint16_t *set = vs_epoch_schedule_set(s, e, &nr);

		if (nr > k || nr == 0)
			sizes = false;
		for (i = 0; i < nr; i++) {
			for (idx[i] = 0; idx[i] < n && events[idx[i]] != set[i];
			     idx[i]++)
				;
			if (idx[i] == n)
				members = false;
			for (j = 0; j < i; j++)
				if (idx[j] == idx[i])
					members = false;
		}
		if (!members)
			break;
		for (i = 0; i < nr; i++)
			for (j = 0; j < nr; j++)
				met[idx[i]][idx[j]] = 1;
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			missing += !met[i][j];
	ok(sizes, "%s: every epoch has 1 to %u events", what, k);
	ok(members, "%s: epochs hold input events, each once", what);
	ok(!missing, "%s: every pair shares an epoch (%u pairs missing)",
	   what, missing);
	return len;
}

static void test_cover(unsigned int n, unsigned int k, double slack)
{
	uint16_t events[MAX_N];
	struct vs_epoch_schedule *s;
	unsigned int i, len, lb;
	char what[64];

	for (i = 0; i < n; i++)
		events[i] = 1000 + 7 * i;	/* ids are not indices */
	snprintf(what, sizeof(what), "N=%u K=%u", n, k);
	s = vs_epoch_schedule_new(events, n, k);
	if (!ok(s != NULL, "%s: built", what))
		return;
	len = check_cycle(s, events, n, k, what);
	lb = vs_epoch_pairs_lower_bound(n, k);
	ok(len >= lb && len <= lb * slack,
	   "%s: cycle of %u epochs, lower bound %u (at most x%.2f)",
	   what, len, lb, slack);
	vs_epoch_schedule_free(s);
}

static void test_table1(void)
{
	const struct vs_arch_table *t = vs_x86_skylakex();
	uint16_t events[MAX_N];
	unsigned int i, n = 0, len, lb, nr0, nrw;
	struct vs_epoch_schedule *s, *again;
	const uint16_t *a, *b;
	bool same = true;

	for (i = 0; i < t->nr; i++)
		if (vs_arch_event_recorded(&t->events[i]))
			events[n++] = i;
	s = vs_epoch_schedule_new(events, n, 4);
	again = vs_epoch_schedule_new(events, n, 4);
	len = check_cycle(s, events, n, 4, "Table 1 (78 events), K=4");
	lb = vs_epoch_pairs_lower_bound(n, 4);
	ok(lb == 507 && len <= lb * 103 / 100,
	   "Table 1, K=4: %u epochs, within 3%% of the bound %u "
	   "(%.1f minutes a cycle at 1 s epochs)", len, lb, len / 60.0);
	ok(len == vs_epoch_schedule_len(again), "deterministic: same length");
	for (i = 0; i < len && same; i++) {
		a = vs_epoch_schedule_set(s, i, &nr0);
		b = vs_epoch_schedule_set(again, i, &nrw);
		same = nr0 == nrw && !memcmp(a, b, nr0 * sizeof(*a));
	}
	ok(same, "deterministic: same epochs");
	a = vs_epoch_schedule_set(s, 3, &nr0);
	b = vs_epoch_schedule_set(s, 3 + 5 * (uint64_t)len, &nrw);
	ok(a == b && nr0 == nrw, "the schedule wraps after its cycle");
	vs_epoch_schedule_free(s);
	vs_epoch_schedule_free(again);
}

static void test_edges(void)
{
	uint16_t ev[6] = { 5, 6, 7, 8, 9, 10 };
	struct vs_epoch_schedule *s;
	unsigned int nr;
	const uint16_t *set;

	errno = 0;
	ok(!vs_epoch_schedule_new(ev, 6, 1) && errno == EINVAL,
	   "K=1 cannot pair events: EINVAL");
	s = vs_epoch_schedule_new(ev, 6, 8);
	set = vs_epoch_schedule_set(s, 17, &nr);
	ok(vs_epoch_schedule_len(s) == 1 && nr == 6 && set[0] == 5 && set[5] == 10,
	   "N <= K: one epoch with everything");
	vs_epoch_schedule_free(s);
	s = vs_epoch_schedule_new(ev, 0, 4);
	set = vs_epoch_schedule_set(s, 0, &nr);
	ok(s && vs_epoch_schedule_len(s) == 1 && nr == 0,
	   "no events: one empty epoch");
	vs_epoch_schedule_free(s);
	s = vs_epoch_schedule_new(ev, 1, 1);
	set = vs_epoch_schedule_set(s, 0, &nr);
	ok(s && nr == 1 && set[0] == 5, "one event, K=1: fine");
	vs_epoch_schedule_free(s);
	ok(vs_epoch_pairs_lower_bound(79, 4) == 514 &&
	   vs_epoch_pairs_lower_bound(7, 3) == 7 &&
	   vs_epoch_pairs_lower_bound(10, 2) == 45 &&
	   vs_epoch_pairs_lower_bound(5, 8) == 1,
	   "the Schoenheim bound: 514 for (79, 4), the Fano plane for (7, 3)");
}

int main(void)
{
	test_cover(7, 3, 1.0);		/* the Fano plane */
	test_cover(10, 2, 1.0);		/* K=2: all pairs, exactly */
	test_cover(13, 4, 1.0);		/* the projective plane of order 3 */
	test_cover(20, 4, 1.03);
	test_cover(40, 4, 1.05);
	test_cover(79, 4, 1.05);
	test_cover(79, 3, 1.02);
	test_cover(79, 8, 1.20);
	test_cover(150, 4, 1.05);
	test_table1();
	test_edges();
	return done_testing();
}
