// SPDX-License-Identifier: MIT
/*
 * trace-head.c - the records before a trace's first task (trace-head.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/trace/trace-head.h"
#include "core/trace/trace.h"

/* Records scanned at most: the head is a few dozen, a --probe one more. */
#define HEAD_MAX_RECORDS	100000

static int add_note(struct vs_trace_head *h, size_t *cap, const char *note)
{
	char *copy = strdup(note);

	if (!copy || ALLOC_GROW(h->notes, h->nr_notes + 1, *cap)) {
		free(copy);
		return -1;
	}
	h->notes[h->nr_notes++] = copy;
	return 0;
}

int vs_trace_head_read(const char *path, struct vs_trace_head *h)
{
	struct vs_reader *r = vs_reader_open(path, NULL, 0);
	struct vs_record rec;
	size_t cap = 0;
	int i, ret = 0;

	*h = (struct vs_trace_head){ 0 };
	if (!r)
		return 0;
	h->start_ns = vs_reader_start_time(r);
	for (i = 0; !ret && i < HEAD_MAX_RECORDS &&
		    vs_reader_next(r, &rec) > 0 && rec.kind != VS_REC_TASK;
	     i++) {
		if (rec.kind == VS_REC_SAMPLE)
			h->samples = true;
		if (rec.kind == VS_REC_SYMBOL_DEF || rec.kind == VS_REC_FUNC)
			h->probes = true;
		if (rec.kind != VS_REC_META)
			continue;
		if (!strcmp(rec.meta.key, "sample"))
			h->samples = true;
		if (!strcmp(rec.meta.key, VS_META_PROBE_COST))
			h->probe_cost_ns = strtoull(rec.meta.value, NULL, 10);
		if (!strcmp(rec.meta.key, "pmu") ||
		    !strcmp(rec.meta.key, "note"))
			ret = add_note(h, &cap, rec.meta.value);
	}
	vs_reader_close(r);
	if (ret)
		vs_trace_head_release(h);
	return ret;
}

void vs_trace_head_release(struct vs_trace_head *h)
{
	unsigned int i;

	for (i = 0; i < h->nr_notes; i++)
		free(h->notes[i]);
	free(h->notes);
	h->notes = NULL;
	h->nr_notes = 0;
}
