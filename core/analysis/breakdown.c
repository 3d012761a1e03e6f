// SPDX-License-Identifier: MIT
/*
 * breakdown.c - the part of an event that holds most of it
 * (breakdown.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/breakdown.h"

/*
 * What part @child names of @total: the child's name without the total's
 * stem and last component ("irq.soft." and ".time" of irq.soft.time in
 * irq.soft.NET_RX.time), or the whole name when it has not that shape.
 */
static void part_name(const char *total, const char *child, char *buf,
		      size_t len)
{
	const char *last = strrchr(total, '.');
	size_t stem = last ? (size_t)(last - total) + 1 : 0;
	size_t tail = last ? strlen(last) : 0, n = strlen(child);

	if (last && n > stem + tail && !strncmp(child, total, stem) &&
	    !strcmp(child + n - tail, last))
		snprintf(buf, len, "%.*s", (int)(n - stem - tail), child + stem);
	else
		snprintf(buf, len, "%s", child);
}

bool vs_main_part(const struct vs_taskset *ts, const struct vs_task_type *tt,
		  const struct vs_event_rank *er, struct vs_main_part *out)
{
	const struct vs_column *total = vs_column_find(tt, er->event);
	const struct vs_column **parts;
	double sum = 0, *part_sum, best = 0;
	unsigned int c, nr = 0, top = 0;
	float v, pv;
	size_t i;

	if (!total || !er->high_tasks)
		return false;
	parts = calloc(tt->nr_columns, sizeof(*parts));
	part_sum = calloc(tt->nr_columns, sizeof(*part_sum));
	for (c = 0; parts && part_sum && c < tt->nr_columns; c++) {
		const struct vs_event_def *def =
			vs_taskset_event(ts, tt->columns[c].event);

		if (def && def->parent == er->event)
			parts[nr++] = &tt->columns[c];
	}
	for (i = 0; nr && i < tt->nr_tasks; i++) {
		if (!vs_column_value(total, i, &v) || v <= er->thr.value)
			continue;
		sum += v;
		for (c = 0; c < nr; c++)
			if (vs_column_value(parts[c], i, &pv))
				part_sum[c] += pv;
	}
	for (c = 0; c < nr; c++)
		if (part_sum[c] > best) {
			best = part_sum[c];
			top = c;
		}
	if (nr && sum > 0 && best > VS_MAIN_PART_SHARE * sum) {
		out->event = parts[top]->event;
		out->name = vs_taskset_event(ts, out->event)->name;
		out->share = best / sum;
		part_name(er->name, out->name, out->part, sizeof(out->part));
	} else {
		nr = 0;
	}
	free(parts);
	free(part_sum);
	return nr > 0;
}
