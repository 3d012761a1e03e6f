// SPDX-License-Identifier: MIT
/*
 * delta-seq - unit test of core/analysis/delta-seq: records read back as
 * written (small and huge differences, both signs), searches against a scan of
 * the plain records, sequences joined at any record, sorted, empty; and
 * records in time order a few microseconds apart packed in a few bytes.
 */
#include <stdlib.h>

#include "core/analysis/delta-seq.h"
#include "t/unit/tap.h"

#define NR	1000
#define FIELDS	3

static uint64_t recs[NR][FIELDS];

static uint64_t rnd64(void)
{
	return (uint64_t)rand() << 42 ^ (uint64_t)rand() << 21 ^ rand();
}

/* Keys in order with gaps of 0 to huge; other fields anything. */
static void make_records(void)
{
	uint64_t key = 0;
	size_t i;

	srand(7);
	for (i = 0; i < NR; i++) {
		switch (rand() % 4) {
		case 0:
			break;				/* a tie */
		case 1:
			key += rand() % 10;
			break;
		case 2:
			key += rand() % 100000;
			break;
		default:
			key += rnd64() >> 12;
		}
		recs[i][0] = i == NR - 1 ? UINT64_MAX : key;
		recs[i][1] = rand() % 3 ? rnd64() : i % 2 ? UINT64_MAX : 0;
		recs[i][2] = rand() % 5;
	}
}

/* Whether @s holds recs[from..to) in order. */
static bool holds(const struct vs_dseq *s, size_t from, size_t to)
{
	struct vs_dseq_cursor c;
	size_t i = from;

	for (vs_dseq_first(&c, s); vs_dseq_at(&c); vs_dseq_next(&c), i++)
		if (i >= to || memcmp(c.v, recs[i], sizeof(recs[i])))
			return false;
	return i == to && s->nr == to - from;
}

static void fill(struct vs_dseq *s, size_t from, size_t to)
{
	size_t i;

	vs_dseq_init(s, FIELDS);
	for (i = from; i < to; i++)
		vs_dseq_append(s, recs[i]);
}

/* seek and seek_last of every key and its neighbours against a scan */
static void test_search(const struct vs_dseq *s)
{
	size_t i, k, bad = 0, tried = 0;

	for (i = 0; i < NR; i++)
		for (k = 0; k < 3; k++) {
			uint64_t key = recs[i][0] + k - 1;
			size_t ge = 0, le = NR;
			struct vs_dseq_cursor c;
			bool found;

			while (ge < NR && recs[ge][0] < key)
				ge++;
			while (le > 0 && recs[le - 1][0] > key)
				le--;
			found = vs_dseq_seek(&c, s, key);
			if (found != (ge < NR) || (found && c.i != ge) ||
			    (!found && vs_dseq_at(&c)))
				bad++;
			found = vs_dseq_seek_last(&c, s, key);
			if (found != (le > 0) || (found && c.i != le - 1))
				bad++;
			if (!found && (!vs_dseq_next(&c) || c.i != 0))
				bad++;	/* before the first: next is it */
			tried++;
		}
	is_u64(bad, 0, "seek and seek_last agree with a scan");
	ok(tried == 3 * NR, "%zu keys tried", tried);
}

static void test_concat(void)
{
	static const size_t cuts[] = { 0, 1, 31, 32, 33, 500, 999, 1000 };
	size_t k, bad = 0;

	for (k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		struct vs_dseq a, b;

		fill(&a, 0, cuts[k]);
		fill(&b, cuts[k], NR);
		if (vs_dseq_concat(&a, &b) || !holds(&a, 0, NR) || b.nr ||
		    a.unsorted)
			bad++;
		else
			test_search(&a);
		vs_dseq_release(&a);
		vs_dseq_release(&b);
	}
	is_u64(bad, 0, "joined at any record, the same records");
}

static void test_sort(void)
{
	struct vs_dseq s, back;
	struct vs_dseq_cursor c;
	size_t i, bad = 0;

	vs_dseq_init(&s, FIELDS);
	for (i = NR; i-- > NR / 2; )
		vs_dseq_append(&s, recs[i]);
	fill(&back, 0, NR / 2);
	ok(s.unsorted && !back.unsorted, "a decreasing key is seen");
	ok(!vs_dseq_concat(&back, &s) && back.unsorted,
	   "joining keeps it unsorted");
	ok(!vs_dseq_sort(&back) && !back.unsorted, "sorted");
	/* ties may come in any order: their keys, the other records whole */
	for (vs_dseq_first(&c, &back); vs_dseq_at(&c); vs_dseq_next(&c)) {
		const uint64_t *want = recs[c.i];
		bool tie = (c.i && recs[c.i - 1][0] == want[0]) ||
			   (c.i + 1 < NR && recs[c.i + 1][0] == want[0]);

		if (tie ? c.v[0] != want[0] :
			  memcmp(c.v, want, sizeof(recs[c.i])))
			bad++;
	}
	is_u64(bad, 0, "records in key order");
	is_u64(back.nr, NR, "none lost");
	vs_dseq_release(&back);
}

/*
 * Records at most @reach places from where they belong, ties among them:
 * sorted with equal keys in their order (a stable sort by hand).
 */
static void test_sort_near(size_t reach, const char *what)
{
	static uint64_t in[NR][FIELDS], want[NR][FIELDS];
	struct vs_dseq s;
	struct vs_dseq_cursor c;
	size_t i, j, bad = 0;

	memcpy(in, recs, sizeof(in));
	srand(11);
	for (i = 0; i + reach < NR; i += reach + 1) {
		uint64_t t[FIELDS];

		j = i + rand() % (reach + 1);
		memcpy(t, in[i], sizeof(t));
		memcpy(in[i], in[j], sizeof(t));
		memcpy(in[j], t, sizeof(t));
	}
	memcpy(want, in, sizeof(want));
	for (i = 1; i < NR; i++)
		for (j = i; j && want[j - 1][0] > want[j][0]; j--) {
			uint64_t t[FIELDS];

			memcpy(t, want[j], sizeof(t));
			memcpy(want[j], want[j - 1], sizeof(t));
			memcpy(want[j - 1], t, sizeof(t));
		}
	vs_dseq_init(&s, FIELDS);
	for (i = 0; i < NR; i++)
		vs_dseq_append(&s, in[i]);
	ok(s.unsorted && !vs_dseq_sort(&s) && !s.unsorted && s.nr == NR,
	   "%s: sorted", what);
	for (vs_dseq_first(&c, &s); vs_dseq_at(&c); vs_dseq_next(&c))
		bad += !!memcmp(c.v, want[c.i], sizeof(want[c.i]));
	is_u64(bad, 0, what);
	vs_dseq_release(&s);
}

static void test_empty(void)
{
	struct vs_dseq s, t;
	struct vs_dseq_cursor c;

	vs_dseq_init(&s, 2);
	vs_dseq_init(&t, 2);
	ok(!vs_dseq_first(&c, &s) && !vs_dseq_at(&c), "empty: no first");
	ok(!vs_dseq_seek(&c, &s, 5) && !vs_dseq_at(&c), "empty: no seek");
	ok(!vs_dseq_seek_last(&c, &s, 5) && !vs_dseq_next(&c),
	   "empty: no seek_last");
	ok(!vs_dseq_concat(&s, &t) && !s.nr && !vs_dseq_sort(&s),
	   "empty joined and sorted");
}

/* A thread's switches: 5 to 50 us apart, out and in alternating. */
static void test_size(void)
{
	struct vs_dseq s;
	uint64_t rec[2] = { 123456789012345ull, 0 };
	size_t i;

	vs_dseq_init(&s, 2);
	srand(3);
	for (i = 0; i < 100000; i++) {
		rec[0] += 5000 + rand() % 45000;
		rec[1] = i % 2;
		vs_dseq_append(&s, rec);
	}
	ok(s.nr_bytes + s.nr_blocks * sizeof(*s.blocks) < 5 * s.nr,
	   "switches in %.2f bytes each (16 plain)",
	   (double)(s.nr_bytes + s.nr_blocks * sizeof(*s.blocks)) / s.nr);
	vs_dseq_release(&s);
}

int main(void)
{
	struct vs_dseq s;

	make_records();
	fill(&s, 0, NR);
	ok(holds(&s, 0, NR) && !s.unsorted, "%d records read back", NR);
	test_search(&s);
	vs_dseq_release(&s);
	ok(!s.nr && !s.bytes, "released");
	test_concat();
	test_sort();
	test_sort_near(5, "5 places out of order, ties in order");
	test_sort_near(VS_DSEQ_SORT_WINDOW - 1,
		       "a window less one out of order, ties in order");
	test_sort_near(3 * VS_DSEQ_SORT_WINDOW, "three windows out of order");
	test_empty();
	test_size();
	return done_testing();
}
