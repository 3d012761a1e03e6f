/* SPDX-License-Identifier: MIT */
/*
 * cluster.h - grouping and outlier detection for execution units
 * (PerfScope, 3.2.2): top-down hierarchical clustering of system-call
 * appearance vectors, and nearest-neighbour outliers inside a cluster.
 */
#ifndef VS_CORE_CLUSTER_H
#define VS_CORE_CLUSTER_H

#include <stdint.h>
#include <stddef.h>

/* Default largest Jaccard distance between two members of a cluster. */
#define VS_CLUSTER_DEFAULT_DIAMETER	0.5

/**
 * vs_jaccard_distance - 1 - |a & b| / |a | b| of two bit sets of @nwords
 * 64-bit words (0 when both are empty)
 */
double vs_jaccard_distance(const uint64_t *a, const uint64_t *b,
			   size_t nwords);

/**
 * vs_cluster_divisive - top-down hierarchical clustering (DIANA)
 * @sets: @n appearance vectors, @nwords words each (bit k: call type k seen)
 * @max_diameter: a cluster is split while two of its members are further
 *                apart than this (Jaccard distance)
 * @cluster: out, the cluster number (0..) of each item
 *
 * Identical vectors always share a cluster.  A cluster wider than
 * @max_diameter is split: its most dissimilar member starts a splinter
 * group, and members move to it while they are closer, on average, to
 * the splinter group than to the rest (Kaufman & Rousseeuw's DIANA); both
 * halves are examined again, until no cluster is wider.
 * Returns the number of clusters, or -1 when memory ran out.
 */
long vs_cluster_divisive(const uint64_t *sets, size_t n, size_t nwords,
			 double max_diameter, uint32_t *cluster);

/**
 * vs_nn_outliers - nearest-neighbour outliers among @n points
 * @vec: the points, @dim doubles each
 * @outlier: out, 1 where the Euclidean distance of a point to its nearest
 *           neighbour exceeds the mean of those distances plus twice their
 *           standard deviation, else 0
 *
 * Returns the number of outliers, or -1 when memory ran out.
 */
long vs_nn_outliers(const double *vec, size_t n, size_t dim, uint8_t *outlier);

#endif /* VS_CORE_CLUSTER_H */
