/* SPDX-License-Identifier: MIT */
/*
 * tail-line.h - the tail past pTarget (core/analysis/tail-hint.h) in words, the
 * one line report and tui print.
 */
#ifndef VS_UI_TAIL_LINE_H
#define VS_UI_TAIL_LINE_H

#include <stddef.h>

#include "core/analysis/tail-hint.h"

/**
 * vs_tail_hint_line - "the slowest 0.3% (18 tasks) take 20.2 ms, 270x the
 * p99: their top event is sched.blocked.time; see --ptarget 0.999" into
 * @buf (@len bytes)
 * @ptarget: the target @h was found past
 */
const char *vs_tail_hint_line(const struct vs_tail_hint *h, double ptarget,
			      char *buf, size_t len);

#endif /* VS_UI_TAIL_LINE_H */
