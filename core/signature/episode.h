/* SPDX-License-Identifier: MIT */
/*
 * episode.h - closed frequent system-call episodes (PerfScope, 3.1.2).
 *
 * An episode is an ordered list of system calls.  Its support in a set
 * of sequences is the number of times a finite-state matcher runs through
 * it: the matcher waits for the episode's next system call, skipping any
 * others ("write, *, read": the non-contiguous matching of the paper), and
 * counts and restarts when it reaches the end.  Matchers restart at the
 * start of every sequence.  Episodes are found level by level with
 * A-priori: candidates of length k are built from frequent episodes of
 * length k-1 whose every sub-episode of length k-1 is frequent.  The
 * closed episodes are the frequent ones that are no sub-episode of a
 * longer frequent one.
 */
#ifndef VS_CORE_EPISODE_H
#define VS_CORE_EPISODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* Longest episode searched (the length of the paper's Table 3 episodes). */
#define VS_EPISODE_MAX_LEN	4
/*
 * Candidates counted at one length at most: those made from the most
 * frequent episodes of the length below (the paper's functions have up
 * to 900 episodes; 30 calls in every order would make 657,720 of length
 * 4, each counted over every sequence).
 */
#define VS_EPISODE_MAX_COUNTED	16384
/* Default p of the minimum support L = max(min(N * p, 10), 2). */
#define VS_EPISODE_DEFAULT_P	0.01

/* A set of sequences of system-call numbers, concatenated. */
struct vs_seqs {
	const uint16_t *nr;	/* system-call numbers */
	const uint64_t *time;	/* enter time of each, or NULL */
	const uint64_t *end;	/* exit time of each, or NULL */
	const size_t *start;	/* sequence i is [start[i], start[i + 1]) */
	size_t nr_seqs;
};

struct vs_episode {
	uint8_t len;
	uint8_t gaps;		/* bit i: calls came between nr[i] and nr[i+1] */
	uint16_t nr[VS_EPISODE_MAX_LEN];
	uint32_t support;
	uint64_t first;		/* enter time of the first counted occurrence */
	uint64_t last;		/* exit time of the last counted occurrence */
};

/**
 * vs_episode_min_support - L = max(min(@n * @p, 10), 2), the paper's
 * minimum support for @n system calls
 */
unsigned int vs_episode_min_support(size_t n, double p);

/**
 * vs_episodes_mine - the closed frequent episodes of @seqs
 * @seqs: the sequences
 * @min_support: L; episodes counted fewer times are not frequent
 * @nr_out: number of episodes returned
 * @capped: set when a length had more candidates than
 *	VS_EPISODE_MAX_COUNTED (those of the most frequent shorter
 *	episodes were counted), else cleared; may be NULL
 *
 * Returns a malloc'ed array ordered by length, then support (largest
 * first), then system-call numbers; NULL with *@nr_out = 0 when there is
 * none (or memory ran out: errno is then ENOMEM).
 */
struct vs_episode *vs_episodes_mine(const struct vs_seqs *seqs,
				    unsigned int min_support, size_t *nr_out,
				    bool *capped);

/**
 * vs_episode_key - the episode's system calls packed in 64 bits (wildcards
 * ignored), equal for equal episodes: the key signatures are matched by
 */
uint64_t vs_episode_key(const struct vs_episode *e);

/**
 * vs_episode_call_name - the name of system call @nr, or "syscall_N" in
 * @buf (of @size) for a number without one
 */
const char *vs_episode_call_name(unsigned int nr, char *buf, size_t size);

/**
 * vs_episode_format - "write, *, read" into @buf (truncated to @size)
 */
void vs_episode_format(const struct vs_episode *e, char *buf, size_t size);

#endif /* VS_CORE_EPISODE_H */
