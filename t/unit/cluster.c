// SPDX-License-Identifier: MIT
/*
 * cluster.c - unit test of the divisive clustering and nearest-neighbour
 * outliers (core/signature/cluster.c) on hand-made appearance and count
 * vectors.
 */
#include <math.h>
#include <stdio.h>

#include "core/signature/cluster.h"

#include "t/unit/tap.h"


#define B(k) (1ull << (k))

int main(void)
{
	/* bit k: the k-th call type seen */
	uint64_t rw = B(0) | B(1), rwp = rw | B(2), fx = B(3) | B(4);
	uint64_t sets[13], a = B(0) | B(1), b = B(1) | B(2);
	uint32_t cl[13];
	double pts[12 * 2];
	uint8_t out[12];
	long n, i, same;

	ok(fabs(vs_jaccard_distance(&a, &b, 1) - 2.0 / 3) < 1e-9,
	   "jaccard distance of {read,write} and {write,poll} is 2/3");

	for (i = 0; i < 5; i++)
		sets[i] = rw;
	for (; i < 10; i++)
		sets[i] = rwp;
	for (; i < 13; i++)
		sets[i] = fx;
	n = vs_cluster_divisive(sets, 13, 1, 0.5, cl);
	ok(n == 2, "three kinds of units make two clusters at diameter 0.5");
	for (i = 1, same = 1; i < 10; i++)
		same &= cl[i] == cl[0];
	ok(same && cl[10] == cl[11] && cl[11] == cl[12] && cl[10] != cl[0],
	   "{read,write} with {read,write,poll}; futex units apart");
	n = vs_cluster_divisive(sets, 13, 1, 0.2, cl);
	ok(n == 3 && cl[0] != cl[5], "diameter 0.2 splits them three ways");
	n = vs_cluster_divisive(sets, 13, 1, 1.0, cl);
	ok(n == 1, "diameter 1 keeps one cluster");

	/* eleven points on a small grid and one far away */
	for (i = 0; i < 11; i++) {
		pts[2 * i] = 10 + (i % 4);
		pts[2 * i + 1] = 20 + (i / 4);
	}
	pts[22] = 40;
	pts[23] = 25;
	n = vs_nn_outliers(pts, 12, 2, out);
	ok(n == 1 && out[11], "the far point is the only outlier");
	for (i = 0; i < 12; i++)
		pts[i] = 3;
	n = vs_nn_outliers(pts, 6, 2, out);
	ok(n == 0, "identical points: no outlier");
	return done_testing();
}
