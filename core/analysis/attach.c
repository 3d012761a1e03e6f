// SPDX-License-Identifier: MIT
/*
 * attach.c - the last attach of each thread: an attached interval's task
 * record comes after its attach record and before the thread's next one.
 */
#include <stdlib.h>

#include "core/array.h"
#include "core/analysis/attach.h"

struct last_attach {
	uint32_t tid;
	uint64_t time;
	uint64_t task_id;
};

struct vs_attach_map {
	struct last_attach *last;	/* one per thread, unsorted */
	size_t nr, cap;
};

struct vs_attach_map *vs_attach_map_new(void)
{
	return calloc(1, sizeof(struct vs_attach_map));
}

void vs_attach_map_free(struct vs_attach_map *m)
{
	if (m)
		free(m->last);
	free(m);
}

static struct last_attach *find(const struct vs_attach_map *m, uint32_t tid)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		if (m->last[i].tid == tid)
			return &m->last[i];
	return NULL;
}

int vs_attach_map_add(struct vs_attach_map *m, const struct vs_record *rec)
{
	struct last_attach *l;

	if (rec->kind != VS_REC_ATTACH || rec->attach.what != VS_ATTACH)
		return 0;
	l = find(m, rec->attach.tid);
	if (!l) {
		if (ALLOC_GROW(m->last, m->nr + 1, m->cap))
			return -1;
		l = &m->last[m->nr++];
	}
	*l = (struct last_attach){ rec->attach.tid, rec->attach.time,
				   rec->attach.task_id };
	return 0;
}

uint64_t vs_attach_map_served(const struct vs_attach_map *m,
			      const struct vs_task *t)
{
	const struct last_attach *l;

	if (t->type != 0)
		return 0;
	l = find(m, t->tid);
	return l && l->time == t->start ? l->task_id : 0;
}
