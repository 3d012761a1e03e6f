/* SPDX-License-Identifier: MIT */
/*
 * ran-line.h - who ran instead of the slow tasks
 * (core/analysis/ran-instead.h) in words, the one line report and tui print.
 */
#ifndef VS_UI_RAN_LINE_H
#define VS_UI_RAN_LINE_H

#include <stddef.h>

#include "core/analysis/ran-instead.h"

/**
 * vs_ran_blame_line - "run-queue waits of the slow tasks: 287 ms;
 * hogger/4512 201 ms, kworker/0:1/33 3 ms, ..." into @buf (@len bytes),
 * the largest five named; NULL when @b names no thread
 */
const char *vs_ran_blame_line(const struct vs_ran_blame *b, char *buf,
			      size_t len);

#endif /* VS_UI_RAN_LINE_H */
