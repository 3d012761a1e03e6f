// SPDX-License-Identifier: MIT
/*
 * tail-line.c - the tail past pTarget in words (tail-line.h).
 */
#include <stdio.h>

#include "core/plural.h"
#include "ui/tail-line.h"
#include "ui/units.h"

const char *vs_tail_hint_line(const struct vs_tail_hint *h, double ptarget,
			      char *buf, size_t len)
{
	char a[32];

	snprintf(buf, len, "the slowest %.2g%% (%zu %s) take %s, %.0fx the "
		 "p%g: their top event is %s; see --ptarget %g",
		 100 * h->share, h->tasks, vs_plural(h->tasks, "task", "tasks"),
		 vs_format_ns(a, sizeof(a), h->median_ns), h->times_ptarget,
		 100 * ptarget, h->name, h->ptarget);
	return buf;
}
