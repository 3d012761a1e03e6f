// SPDX-License-Identifier: MIT
/*
 * ran-instead.c - who ran while the slow tasks waited (ran-instead.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/ran-instead.h"
#include "core/sort.h"
#include "core/taskset.h"
#include "core/trace.h"

/* A task's records, kept until it comes: the recorder writes 5 at most. */
#define PENDING_MAX	16

static int add_thread(struct vs_ran_blame *b, const struct vs_ran_instead *ri)
{
	const char *comm = ri->comm ? ri->comm : "";
	struct vs_ran_thread *t;
	size_t i;

	for (i = 0; i < b->nr; i++) {
		t = &b->threads[i];
		if (t->pid == ri->pid && t->tid == ri->tid &&
		    !strncmp(t->comm, comm, sizeof(t->comm) - 1))
			break;
	}
	if (i == b->nr) {
		if (vs_grow(&b->threads, &b->alloc, b->nr + 1,
			    sizeof(*b->threads)))
			return -1;
		t = &b->threads[b->nr++];
		*t = (struct vs_ran_thread){ .pid = ri->pid, .tid = ri->tid };
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	}
	b->threads[i].time_ns += ri->time_ns;
	b->threads[i].tasks++;
	return 0;
}

/* The largest time first; the others, summed by the recorder, last. */
static int cmp_time(const void *a, const void *b)
{
	const struct vs_ran_thread *x = a, *y = b;

	if (!x->tid != !y->tid)
		return !x->tid ? 1 : -1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* @t's value of @event; 0 when it has none. */
static uint64_t task_value(const struct vs_task *t, uint16_t event)
{
	uint32_t i;

	for (i = 0; i < t->nr_values; i++)
		if (t->values[i].event == event)
			return t->values[i].value;
	return 0;
}

int vs_ran_blame_read(const char *path, uint32_t type, uint16_t event,
		      double threshold, struct vs_ran_blame *out, char *err,
		      size_t errlen)
{
	struct vs_ran_instead pending[PENDING_MAX];
	char comms[PENDING_MAX][16];
	struct vs_reader *r;
	struct vs_record rec;
	size_t nr = 0, i;
	int ret, status = VS_LOAD_OK;
	uint64_t v;

	*out = (struct vs_ran_blame){ 0 };
	r = vs_reader_open(path, err, errlen);
	if (!r)
		return VS_LOAD_CORRUPT;
	while (status == VS_LOAD_OK && (ret = vs_reader_next(r, &rec)) > 0) {
		if (rec.kind == VS_REC_RAN_INSTEAD) {
			if (nr && pending[0].task_id != rec.ran_instead.task_id)
				nr = 0;
			if (nr == PENDING_MAX)
				continue;
			pending[nr] = rec.ran_instead;
			snprintf(comms[nr], sizeof(comms[nr]), "%s",
				 rec.ran_instead.comm ? rec.ran_instead.comm :
							"");
			pending[nr].comm = comms[nr];
			nr++;
			continue;
		}
		if (rec.kind != VS_REC_TASK)
			continue;
		if (rec.task.type == type &&
		    (v = task_value(&rec.task, event)) > threshold) {
			out->wait_ns += v;
			out->tasks++;
			for (i = 0; i < nr && status == VS_LOAD_OK; i++)
				if (pending[i].task_id == rec.task.id &&
				    add_thread(out, &pending[i])) {
					snprintf(err, errlen, "out of memory");
					status = VS_LOAD_ERROR;
				}
		}
		nr = 0;
	}
	if (status == VS_LOAD_OK && ret < 0) {
		snprintf(err, errlen, "%s", vs_reader_error(r));
		status = VS_LOAD_CORRUPT;
	}
	vs_reader_close(r);
	if (status != VS_LOAD_OK)
		vs_ran_blame_release(out);
	else
		vs_qsort(out->threads, out->nr, sizeof(*out->threads), cmp_time);
	return status;
}

void vs_ran_blame_release(struct vs_ran_blame *b)
{
	free(b->threads);
	*b = (struct vs_ran_blame){ 0 };
}
