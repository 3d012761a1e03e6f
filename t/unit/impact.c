// SPDX-License-Identifier: MIT
/*
 * impact.c - unit test of core/analysis/impact: every step of the analysis on
 * small data whose answers are worked out by hand in the comments.
 */
#include <math.h>
#include <stdlib.h>

#include "core/bitmap.h"
#include "core/analysis/impact.h"
#include "core/trace/trace.h"
#include "t/unit/tap.h"

static int is_near(double got, double want, double eps, const char *what)
{
	if (ok(fabs(got - want) <= eps, "%s", what))
		return 1;
	printf("#   got:  %.9g\n#   want: %.9g\n", got, want);
	return 0;
}

static void set_bits(uint64_t *map, const int *bits, int n)
{
	int i;

	for (i = 0; i < n; i++)
		vs_bit_set(map, bits[i]);
}

static void test_percentiles(void)
{
	static const float ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	static const float all[] = { 1, 2, 2, 3, 5, 8, 9 };
	static const float sub[] = { 2, 9 };
	/* tasks 0..5; descending latency order 5 1 3 4 2 0 */
	static const uint64_t lat[] = { 10, 50, 20, 40, 30, 60 };
	static const uint32_t desc[] = { 5, 1, 3, 4, 2, 0 };
	uint64_t in[1] = { 0x1f }, out[1] = { 0x2 };

	is_u64(vs_rank(100, 0.99), 99, "rank: p99 of 100 is the 99th");
	is_u64(vs_rank(10, 0.99), 10, "rank: p99 of 10 is the 10th");
	is_u64(vs_rank(10, 0.5), 5, "rank: p50 of 10 is the 5th");
	is_u64(vs_rank(10, 0), 1, "rank: p0 is the smallest");
	is_u64(vs_rank(0, 0.5), 0, "rank: nothing of nothing");

	is_near(vs_percentile_sorted(ten, 10, 0.9), 9, 0, "p90 of 1..10 is 9");
	is_near(vs_percentile_sorted(ten, 10, 0.99), 10, 0, "p99 of 1..10 is 10");

	/* {1,2,2,3,5,8,9} without {2,9} is {1,2,3,5,8} */
	is_near(vs_percentile_excluding(all, 7, sub, 2, 0.5), 3, 0,
		"p50 of the rest: 3rd of 1 2 3 5 8");
	is_near(vs_percentile_excluding(all, 7, sub, 2, 1), 8, 0,
		"p100 of the rest is 8, not the excluded 9");
	is_near(vs_percentile_excluding(all, 7, sub, 2, 0.2), 1, 0,
		"p20 of the rest is 1");

	/* tasks 0..4 without task 1: latencies 10 20 40 30 -> 10 20 30 40 */
	is_u64(vs_masked_percentile(lat, desc, 6, in, out, 4, 0.5), 20,
	       "masked p50: 2nd of 10 20 30 40");
	is_u64(vs_masked_percentile(lat, desc, 6, in, out, 4, 0.75), 30,
	       "masked p75: 3rd");
	is_u64(vs_masked_percentile(lat, desc, 6, in, out, 4, 0.99), 40,
	       "masked p99: the slowest selected, not task 5 or 1");
	is_u64(vs_masked_percentile(lat, desc, 6, NULL, NULL, 6, 0.99), 60,
	       "unmasked p99 is the slowest task");
	is_u64(vs_masked_percentile(lat, desc, 6, in, out, 0, 0.5), 0,
	       "masked percentile of an empty set is 0");
}

static void test_impact_value(void)
{
	is_near(vs_impact_value(100, 60), 0.4, 1e-12, "impact (100-60)/100");
	is_near(vs_impact_value(100, 100), 0, 0, "no change, no impact");
	is_near(vs_impact_value(0, 10), 0, 0, "zero latency gives 0, not NaN");
}

static void test_fit(void)
{
	/* points t = .125 .375 .625 .875, v = 0 1/3 2/3 1 */
	static const float line[] = { 0, 1, 2, 3 };
	struct vs_fit whole, lo, hi, merged;
	double a, b;

	vs_fit_points(line, 4, 0, 4, 0, 3, &whole);
	vs_fit_line(&whole, &a, &b);
	is_near(b, 4.0 / 3, 1e-12, "fit: slope (1/3) / (1/4)");
	is_near(a, -1.0 / 6, 1e-12, "fit: intercept 0 - 4/3 * 1/8");
	is_near(vs_fit_r2(&whole, a, b, false), 1, 1e-12,
		"fit: points on a line have R² 1");
	/* under v = 0: 1 - sum v² / sum (v - 1/2)² = 1 - (14/9) / (5/9) */
	is_near(vs_fit_r2(&whole, 0, 0, false), 1 - 14.0 / 5, 1e-12,
		"fit: R² under another line");

	vs_fit_points(line, 4, 0, 2, 0, 3, &lo);
	vs_fit_points(line, 4, 2, 4, 0, 3, &hi);
	vs_fit_merge(&lo, &hi, &merged);
	ok(fabs(merged.mt - whole.mt) < 1e-12 &&
	   fabs(merged.mv - whole.mv) < 1e-12 &&
	   fabs(merged.ctt - whole.ctt) < 1e-12 &&
	   fabs(merged.ctv - whole.ctv) < 1e-12 &&
	   fabs(merged.cvv - whole.cvv) < 1e-12 && merged.n == 4,
	   "fit: merging two halves in O(1) equals fitting the whole");
}

static void test_threshold(void)
{
	float step[100], uniform[1000], flat[50], few[5] = { 1, 2, 3, 4, 5 };
	size_t breaks[16], nr, i;
	struct vs_threshold thr;

	/*
	 * 90 values 1 then 10 values 100: 25 ranges of 4; range 22 (88..91)
	 * holds the jump, so lines meet at 88 and 92, and both points move
	 * to the gap at 90: the 10 hundreds are the high values.
	 */
	for (i = 0; i < 100; i++)
		step[i] = i < 90 ? 1 : 100;
	nr = vs_cdf_breaks(step, 100, VS_CDF_RANGES, breaks, 16);
	ok(nr == 1 && breaks[0] == 90, "breaks of a step: at the step, 90 "
	   "(got %zu: %zu %zu)", nr, nr > 0 ? breaks[0] : 0,
	   nr > 1 ? breaks[1] : 0);
	vs_find_threshold(step, 100, 0.99, -1, &thr);
	ok(thr.how == VS_THRESHOLD_STEP && thr.value == 1 &&
	   fabs(thr.pthreshold - 0.90) < 1e-12 && thr.nr_lines == 2,
	   "step: pThreshold 0.90, high means above 1, 2 lines");

	/*
	 * 93 values near 2, 6 near 4 and one 7: the point moves to the
	 * gap 2 -> 4 (at 93), not inside the cluster of 4s, and not to the
	 * last gap (99), above pTarget.
	 */
	for (i = 0; i < 100; i++)
		step[i] = i < 93 ? 2 + i * 0.001f : i < 99 ? 4 + i * 0.01f : 7;
	vs_find_threshold(step, 100, 0.99, -1, &thr);
	ok(thr.how == VS_THRESHOLD_STEP && fabs(thr.pthreshold - 0.93) < 1e-12,
	   "two clusters: pThreshold at the gap between them, 0.93 (%.3f)",
	   thr.pthreshold);

	/* a straight CDF has no connection point: pTarget is used */
	for (i = 0; i < 1000; i++)
		uniform[i] = i;
	is_u64(vs_cdf_breaks(uniform, 1000, VS_CDF_RANGES, breaks, 16), 0,
	       "uniform values fit one line");
	vs_find_threshold(uniform, 1000, 0.99, -1, &thr);
	ok(thr.how == VS_THRESHOLD_NO_STEP && thr.pthreshold == 0.99 &&
	   thr.value == 989, "no step: pTarget 0.99, the 990th value 989");

	for (i = 0; i < 50; i++)
		flat[i] = 7;
	vs_find_threshold(flat, 50, 0.99, -1, &thr);
	ok(thr.how == VS_THRESHOLD_CONSTANT && thr.value == 7 &&
	   thr.pthreshold == 1, "constant: nothing above 7");

	vs_find_threshold(few, 5, 0.99, -1, &thr);
	ok(thr.how == VS_THRESHOLD_TOO_FEW && thr.value == 5,
	   "five values are too few to fit: pTarget value 5");

	/* one low value: the step at 0.01 is below the median, no candidate */
	for (i = 0; i < 100; i++)
		step[i] = i ? 256 : 238;
	vs_find_threshold(step, 100, 0.99, -1, &thr);
	ok(thr.how == VS_THRESHOLD_NO_STEP && thr.value == 256,
	   "a step below the median is no threshold: nothing above 256");

	vs_find_threshold(uniform, 1000, 0.99, 0.5, &thr);
	ok(thr.how == VS_THRESHOLD_GIVEN && thr.value == 499,
	   "given pThreshold 0.5: the 500th value 499");
	is_str(vs_threshold_how_name(VS_THRESHOLD_NO_STEP), "no-step",
	       "threshold kinds have names");
}

static void test_rules(void)
{
	uint64_t pa[1] = { 0 }, pb[1] = { 0 }, ha[1] = { 0 }, hb[1] = { 0 };
	static const int pa_bits[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const int pb_bits[] = { 0, 1, 2, 3, 4, 5 };
	static const int ha_bits[] = { 0, 1, 2, 6 };
	static const int hb_bits[] = { 1, 2, 3 };
	/* INST .5, CACHE .4, CYCLE .3, KERNEL .2 */
	static const double impact[] = { 0.5, 0.4, 0.3, 0.2 };
	static const uint8_t group[] = { VS_GROUP_INST, VS_GROUP_CACHE,
					 VS_GROUP_CYCLE, VS_GROUP_KERNEL };
	static const double corr[16] = {
		1,   0.6, 0.2, 1,
		0.6, 1,   0.5, 0,
		0.2, 0.5, 1,   0,
		1,   0,   0,   1,
	};
	struct vs_prop prop = { 0 }, anti = { 0 };
	double adjusted[4], alpha;
	size_t both;
	int cause[4], i;

	set_bits(pa, pa_bits, 8);
	set_bits(pb, pb_bits, 6);
	set_bits(ha, ha_bits, 4);
	set_bits(hb, hb_bits, 3);
	/* over tasks 0..5: Ha = {0,1,2}, Hb = {1,2,3}: 2 / 4 */
	is_near(vs_jaccard(pa, ha, pb, hb, 8, &both), 0.5, 1e-12,
		"Jaccard over tasks with both: |{1,2}| / |{0,1,2,3}|");
	is_u64(both, 6, "six tasks recorded both");

	ok(vs_rule1_may_cause(VS_GROUP_INST, VS_GROUP_CYCLE) &&
	   vs_rule1_may_cause(VS_GROUP_CACHE, VS_GROUP_CYCLE) &&
	   !vs_rule1_may_cause(VS_GROUP_CYCLE, VS_GROUP_INST) &&
	   !vs_rule1_may_cause(VS_GROUP_KERNEL, VS_GROUP_CYCLE) &&
	   !vs_rule1_may_cause(VS_GROUP_INST, VS_GROUP_KERNEL) &&
	   !vs_rule1_may_cause(VS_GROUP_INST, VS_GROUP_INST),
	   "Rule 1: INST > CACHE > CYCLE, kernel events outside");

	/*
	 * CACHE: .4 - .5 * .6 = .1 (cause INST); CYCLE: .3 - max(.5 * .2,
	 * .4 * .5) = .1 (cause CACHE); INST and KERNEL keep theirs although
	 * KERNEL correlates 1 with INST.
	 */
	vs_rule1_adjust(4, impact, group, corr, adjusted, cause);
	ok(fabs(adjusted[0] - 0.5) < 1e-12 && cause[0] == -1,
	   "Rule 1: INST has no cause");
	ok(fabs(adjusted[1] - 0.1) < 1e-12 && cause[1] == 0,
	   "Rule 1: CACHE loses .5 x .6 to INST");
	ok(fabs(adjusted[2] - 0.1) < 1e-12 && cause[2] == 1,
	   "Rule 1: CYCLE loses the larger deduction, .4 x .5 of CACHE");
	ok(fabs(adjusted[3] - 0.2) < 1e-12 && cause[3] == -1,
	   "Rule 1: kernel events form their own group");

	for (i = 1; i <= 4; i++) {
		vs_prop_add(&prop, i, 2 * i);
		vs_prop_add(&anti, i, 5 - i);
	}
	is_near(vs_prop_r2(&prop, &alpha), 1, 1e-12,
		"Rule 2: parent = 2 x child has R² 1");
	is_near(alpha, 2, 1e-12, "Rule 2: alpha 2");
	/* y = 4 3 2 1: alpha 20/30, SSres 30 - 40/3, SStot 30 - 25 */
	is_near(vs_prop_r2(&anti, &alpha), 1 - (50.0 / 3) / 5, 1e-9,
		"Rule 2: R² of a falling pair by hand");
}

static void test_recording_length(void)
{
	is_u64(vs_tasks_needed(1000, 10, 30), 2000,
	       "5.3: 10 high in 1000 tasks, 30 needed: 2000 more");
	is_u64(vs_tasks_needed(1000, 30, 30), 0, "5.3: enough");
	is_u64(vs_tasks_needed(1000, 0, 30), UINT64_MAX,
	       "5.3: no high task, no estimate");
}

static void test_bootstrap(void)
{
	size_t n = 1000, i;
	uint64_t *lat = malloc(n * sizeof(*lat));
	bool *high = malloc(n * sizeof(*high));
	double lo, hi, lo2, hi2, point;

	/*
	 * Latencies 1..1000, the slowest 20 high: p99 of all is 990, of the
	 * 980 low ones the 971st, 971: impact 19 / 990.
	 */
	for (i = 0; i < n; i++) {
		lat[i] = i + 1;
		high[i] = i >= 980;
	}
	point = vs_impact_value(990, 971);
	vs_bootstrap_impact(lat, high, n, 0.99, 500, 42, 0.95, &lo, &hi);
	ok(lo <= point && point <= hi && lo < hi,
	   "bootstrap interval [%.4f, %.4f] holds the impact %.4f",
	   lo, hi, point);
	ok(hi - lo < 0.05, "bootstrap interval is narrow on 1000 tasks");
	vs_bootstrap_impact(lat, high, n, 0.99, 500, 42, 0.95, &lo2, &hi2);
	ok(lo == lo2 && hi == hi2, "same seed, same interval");
	vs_bootstrap_impact(lat, high, n, 0.99, 500, 7, 0.95, &lo2, &hi2);
	ok(lo != lo2 || hi != hi2, "another seed, another interval");

	/* no high task: every round has impact 0 */
	for (i = 0; i < n; i++)
		high[i] = false;
	vs_bootstrap_impact(lat, high, n, 0.99, 100, 1, 0.95, &lo, &hi);
	ok(lo == 0 && hi == 0, "no high task: interval [0, 0]");
	free(lat);
	free(high);
}

int main(void)
{
	test_percentiles();
	test_impact_value();
	test_fit();
	test_threshold();
	test_rules();
	test_recording_length();
	test_bootstrap();
	return done_testing();
}
