/* SPDX-License-Identifier: MIT */
/*
 * progress.h - a progress line on stderr for long reads.
 *
 * Nothing is printed unless stderr is a terminal and the work has taken
 * more than a second; then one line, rewritten in place at most ten times
 * a second, and erased by vs_progress_end().
 *
 *	struct vs_progress p;
 *	vs_progress_start(&p, "Reading varscope.data");
 *	... vs_progress_update(&p, bytes_done, bytes_total); ...
 *	vs_progress_end(&p);
 */
#ifndef VS_UI_PROGRESS_H
#define VS_UI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#define VS_PROGRESS_DELAY_MS	1000
#define VS_PROGRESS_EVERY_MS	100

struct vs_progress {
	const char *what;
	bool tty;
	bool shown;
	uint64_t start_ms, last_ms;
};

void vs_progress_start(struct vs_progress *p, const char *what);

void vs_progress_update(struct vs_progress *p, uint64_t done, uint64_t total);

/* vs_progress_update() in the shape of a loader's progress callback. */
void vs_progress_cb(void *progress, uint64_t done, uint64_t total);

void vs_progress_end(struct vs_progress *p);

/**
 * vs_progress_stage_cb - a loader's stage callback: the line of @progress
 * (a struct vs_progress, zeroed or started) ends and says @what from now
 * on
 */
void vs_progress_stage_cb(void *progress, const char *what);

#endif /* VS_UI_PROGRESS_H */
