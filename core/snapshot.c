// SPDX-License-Identifier: MIT
/*
 * snapshot.c - counter snapshots at interrupt boundaries: the snapshot
 * members' attr, the decoding of their samples, the merge into twins.
 */
#include <string.h>

#include "core/record-int.h"
#include "core/snapshot.h"

_Static_assert(VS_SNAPSHOT_SAMPLE_TYPE == (VS_SAMPLE_TYPE | PERF_SAMPLE_READ),
	       "a snapshot sample is a recorder sample with the group read");

bool vs_snapshot_role(enum vs_tp_role role)
{
	switch (role) {
	case VS_TP_IRQ_ENTRY:
	case VS_TP_IRQ_EXIT:
	case VS_TP_SOFTIRQ_ENTRY:
	case VS_TP_SOFTIRQ_EXIT:
	case VS_TP_VECTOR_ENTRY:
	case VS_TP_VECTOR_EXIT:
		return true;
	case VS_TP_SWITCH:
	case VS_TP_FAULT:
		break;
	}
	return false;
}

void vs_snapshot_attr(struct perf_event_attr *attr, uint64_t tp_id)
{
	vs_event_attr(attr, PERF_TYPE_TRACEPOINT, tp_id);
	attr->size = sizeof(*attr);
	attr->sample_type |= PERF_SAMPLE_READ;
	attr->read_format = VS_PMU_READ_FORMAT;
}

/* Take @n bytes at *@p of the @end-bounded record into @dst. */
static bool take(const char **p, const char *end, void *dst, size_t n)
{
	if ((size_t)(end - *p) < n)
		return false;
	memcpy(dst, *p, n);
	*p += n;
	return true;
}

int vs_snapshot_parse(const struct perf_event_header *h,
		      struct vs_snapshot_sample *out)
{
	const char *p = (const char *)(h + 1);
	const char *end = (const char *)h + h->size;
	uint32_t res;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h))
		return -1;
	/* perf_output_sample()'s order: IDENTIFIER, TID, TIME, CPU, READ, RAW */
	if (!take(&p, end, &out->id, 8) || !take(&p, end, &out->pid, 4) ||
	    !take(&p, end, &out->tid, 4) || !take(&p, end, &out->time, 8) ||
	    !take(&p, end, &out->cpu, 4) || !take(&p, end, &res, 4))
		return -1;
	n = vs_counter_read_parse(p, end - p, &out->read);
	if (n < 0)
		return -1;
	p += n;
	out->read.t_before = out->read.t_after = out->time;
	if (!take(&p, end, &out->raw_size, 4) ||
	    (size_t)(end - p) < out->raw_size)
		return -1;
	out->raw = p;
	return 0;
}

int vs_snapshot_of(const struct vs_snapshot_sample *smp,
		   const struct vs_counter_group *g, unsigned int nr,
		   const uint16_t *ids, struct vs_snapshot *snap)
{
	snap->nr = 0;
	if (nr > VS_MAX_HW_COUNTERS || nr > g->nr ||
	    vs_counter_read_order(g, &smp->read, snap->values))
		return -1;
	snap->nr = nr;
	memcpy(snap->ids, ids, nr * sizeof(*ids));
	snap->read = smp->read;
	return 0;
}

void vs_snapshot_attach(const struct vs_snapshot *snap,
			struct vs_acct_event *ev)
{
	ev->snapshot = (struct vs_acct_counters){ snap->nr, snap->ids,
						  snap->values };
	ev->snapshot_read = &snap->read;
}

void vs_snapshot_pair_init(struct vs_snapshot_pair *p)
{
	p->last_tp = p->pending_tp = -1;
}

void vs_snapshot_pair_other(struct vs_snapshot_pair *p)
{
	vs_snapshot_pair_init(p);
}

bool vs_snapshot_pair_event(struct vs_snapshot_pair *p, int tp,
			    struct vs_snapshot *out)
{
	bool mine = p->pending_tp == tp;

	if (mine)
		*out = p->pending;
	p->pending_tp = -1;
	p->last_tp = mine ? -1 : tp;
	return mine;
}

bool vs_snapshot_pair_snapshot(struct vs_snapshot_pair *p, int tp,
			       const struct vs_snapshot *snap)
{
	bool twin = p->last_tp == tp;

	p->last_tp = -1;
	p->pending_tp = twin ? -1 : tp;
	if (!twin)
		p->pending = *snap;
	return twin;
}
