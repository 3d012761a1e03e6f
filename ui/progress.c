// SPDX-License-Identifier: MIT
/*
 * progress.c - the progress line.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "ui/progress.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

void vs_progress_start(struct vs_progress *p, const char *what)
{
	p->what = what;
	p->tty = isatty(STDERR_FILENO);
	p->shown = false;
	p->start_ms = p->last_ms = now_ms();
}

void vs_progress_update(struct vs_progress *p, uint64_t done, uint64_t total)
{
	uint64_t now;

	if (!p->tty)
		return;
	now = now_ms();
	if (now - p->start_ms < VS_PROGRESS_DELAY_MS ||
	    (p->shown && now - p->last_ms < VS_PROGRESS_EVERY_MS))
		return;
	p->last_ms = now;
	p->shown = true;
	if (total)
		fprintf(stderr, "\r%s: %3.0f%% (%.0f of %.0f MB)\033[K",
			p->what, 100.0 * done / total, done / 1e6, total / 1e6);
	else
		fprintf(stderr, "\r%s: %.0f MB\033[K", p->what, done / 1e6);
	fflush(stderr);
}

void vs_progress_cb(void *progress, uint64_t done, uint64_t total)
{
	vs_progress_update(progress, done, total);
}

void vs_progress_end(struct vs_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

void vs_progress_stage_cb(void *progress, const char *what)
{
	vs_progress_end(progress);
	vs_progress_start(progress, what);
}
