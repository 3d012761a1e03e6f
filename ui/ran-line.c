// SPDX-License-Identifier: MIT
/*
 * ran-line.c - who ran instead of the slow tasks in words (ran-line.h).
 */
#include <stdio.h>

#include "ui/ran-line.h"
#include "ui/units.h"

#define RAN_SHOWN	5	/* threads named in the line */

const char *vs_ran_blame_line(const struct vs_ran_blame *b, char *buf,
			      size_t len)
{
	size_t i, at;
	char a[32];

	if (!b || !b->nr)
		return NULL;
	at = snprintf(buf, len, "run-queue waits of the slow tasks: %s",
		      vs_format_ns(a, sizeof(a), (double)b->wait_ns));
	for (i = 0; i < b->nr && i < RAN_SHOWN && at < len; i++) {
		const struct vs_ran_thread *t = &b->threads[i];

		vs_format_ns(a, sizeof(a), (double)t->time_ns);
		if (t->tid)
			at += snprintf(buf + at, len - at, "%s %s/%u %s",
				       i ? "," : ";", t->comm, t->tid, a);
		else
			at += snprintf(buf + at, len - at, "%s others %s",
				       i ? "," : ";", a);
	}
	if (at < len && b->nr > RAN_SHOWN)
		snprintf(buf + at, len - at, ", ...");
	return buf;
}
