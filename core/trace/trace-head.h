/* SPDX-License-Identifier: MIT */
/*
 * trace-head.h - what the records before a trace's first task say about
 * the recording: whether it has samples or probed functions, and the
 * notes the recorder left on what it could not measure.
 */
#ifndef VS_CORE_TRACE_HEAD_H
#define VS_CORE_TRACE_HEAD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * META key: with --task-func, the ns that a function's probe pair adds to
 * each of its calls, measured by record at its start
 * (core/record/probe-cost.h).
 */
#define VS_META_PROBE_COST	"probe_cost_ns"

struct vs_trace_head {
	uint64_t start_ns;	/* when the recording started (the times
				 * of --time count from it):
				 * vs_reader_start_time() */
	bool samples;		/* --sample: samples, or META "sample" */
	bool probes;		/* --probe: symbol definitions, func records */
	uint64_t probe_cost_ns;	/* META VS_META_PROBE_COST, 0: none */
	unsigned int nr_notes;
	char **notes;		/* META "pmu" and "note" values, in order */
};

/**
 * vs_trace_head_read - read the head of the trace at @path
 * @h: filled; empty when the file cannot be read (the caller's own
 *     reader says why)
 *
 * The recorder writes its META records before the first task; the scan
 * stops there.  Returns 0, or -1 when out of memory.
 */
int vs_trace_head_read(const char *path, struct vs_trace_head *h);

/* Free the notes of @h; its flags stay. */
void vs_trace_head_release(struct vs_trace_head *h);

#endif
