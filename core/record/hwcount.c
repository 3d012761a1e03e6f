// SPDX-License-Identifier: MIT
/*
 * hwcount.c - the hardware events of a recording, their epochs, and
 * cpu.freq.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record/epoch.h"
#include "core/record/hwcount.h"

/* Fixed counters and every event of a table, or of a -e list. */
#define VS_HW_MAX_EVENTS	256

struct vs_hwcount {
	struct vs_epoch_schedule *sched;
	/* every hardware event: fixed ones first */
	unsigned int nr, nr_fixed;
	uint16_t id[VS_HW_MAX_EVENTS];
	struct vs_hw_config hw[VS_HW_MAX_EVENTS];
	/* the current epoch's group */
	unsigned int nr_live;
	uint16_t live_id[VS_PMU_MAX_GROUP];
	struct vs_hw_config live_hw[VS_PMU_MAX_GROUP];
	uint16_t cycles, run_time, freq;
};

static int add_event(struct vs_hwcount *h, uint16_t id,
		     const struct vs_hw_config *hw)
{
	unsigned int i;

	if (id == VS_EVENT_NO_PARENT || h->nr == VS_HW_MAX_EVENTS)
		return -1;
	for (i = 0; i < h->nr; i++)
		if (h->id[i] == id)
			return 0;	/* named twice */
	h->id[h->nr] = id;
	h->hw[h->nr++] = *hw;
	return 0;
}

static int add_table_event(struct vs_hwcount *h, struct vs_catalog *cat,
			   const struct vs_arch_table *t,
			   const struct vs_arch_event *e)
{
	struct vs_hw_config hw;

	vs_arch_event_hw(e, &hw);
	return add_event(h, vs_pmu_intern(cat, t, e), &hw);
}

/* One -e raw event: the table's if it knows the encoding. */
static int add_raw(struct vs_hwcount *h, struct vs_catalog *cat,
		   const struct vs_arch_table *t, const char *raw,
		   char *err, size_t errlen)
{
	const struct vs_arch_event *e;
	struct vs_hw_config hw;
	char name[64];

	if (vs_arch_parse_raw(raw, &hw, err, errlen))
		return -1;
	e = vs_arch_event_by_config(t, &hw);
	if (e)
		return add_table_event(h, cat, t, e);
	snprintf(name, sizeof(name), "hw.raw.0x%llx",
		 (unsigned long long)hw.config);
	return add_event(h, vs_catalog_intern(cat, name, "count",
					      VS_GROUP_OTHER,
					      VS_EVENT_NO_PARENT), &hw);
}

bool vs_event_list_next(const char **p, char *item, size_t size)
{
	const char *end;
	bool in_slash = false;

	if (!*p || !**p)
		return false;
	for (end = *p; *end && (in_slash || *end != ','); end++)
		if (*end == '/')
			in_slash = !in_slash;
	snprintf(item, size, "%.*s", (int)(end - *p), *p);
	*p = *end ? end + 1 : end;
	return true;
}

static int add_raws(struct vs_hwcount *h, struct vs_catalog *cat,
		    const struct vs_arch_table *t, const char *raws,
		    char *err, size_t errlen)
{
	char item[256];

	while (vs_event_list_next(&raws, item, sizeof(item)))
		if (add_raw(h, cat, t, item, err, errlen))
			return -1;
	return 0;
}

struct vs_hwcount *vs_hwcount_new(struct vs_catalog *cat,
				  const struct vs_arch_table *t,
				  const char *raws, unsigned int width,
				  char *err, size_t errlen)
{
	struct vs_hwcount *h = calloc(1, sizeof(*h));
	unsigned int i, room;

	snprintf(err, errlen, "too many hardware events");
	if (!h) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return NULL;
	}
	for (i = 0; i < t->nr; i++)
		if ((vs_arch_event_flags(vs_arch_table_event(t, i)) &
		     VS_ARCH_EV_FIXED) &&
		    add_table_event(h, cat, t, vs_arch_table_event(t, i)))
			goto fail;
	h->nr_fixed = h->nr;
	if (raws && *raws) {
		if (add_raws(h, cat, t, raws, err, errlen))
			goto fail;
	} else {
		for (i = 0; i < t->nr; i++) {
			const struct vs_arch_event *e = vs_arch_table_event(t, i);

			if (vs_arch_event_recorded(e) &&
			    add_table_event(h, cat, t, e))
				goto fail;
		}
	}
	room = VS_PMU_MAX_GROUP - h->nr_fixed;
	if (width > room)
		width = room;
	if (h->nr - h->nr_fixed <= 1 && width > 1)
		width = 1;
	h->sched = vs_epoch_schedule_new(h->id + h->nr_fixed,
					 h->nr - h->nr_fixed, width);
	if (!h->sched) {
		snprintf(err, errlen, "epoch schedule of %u events, %u per "
			 "epoch: %s", h->nr - h->nr_fixed, width,
			 strerror(errno));
		goto fail;
	}
	h->cycles = vs_catalog_find(cat, VS_HW_CYCLES);
	h->run_time = vs_catalog_find(cat, "run.time");
	h->freq = vs_catalog_intern(cat, VS_CPU_FREQ, "kHz", VS_GROUP_OTHER,
				    VS_EVENT_NO_PARENT);
	vs_hwcount_set_epoch(h, 0);
	return h;
fail:
	vs_hwcount_free(h);
	return NULL;
}

void vs_hwcount_free(struct vs_hwcount *h)
{
	if (!h)
		return;
	vs_epoch_schedule_free(h->sched);
	free(h);
}

unsigned int vs_hwcount_cycle(const struct vs_hwcount *h)
{
	return vs_epoch_schedule_len(h->sched);
}

static const struct vs_hw_config *config_of(const struct vs_hwcount *h,
					    uint16_t id)
{
	unsigned int i;

	for (i = 0; i < h->nr; i++)
		if (h->id[i] == id)
			return &h->hw[i];
	return NULL;
}

void vs_hwcount_set_epoch(struct vs_hwcount *h, uint64_t epoch)
{
	const uint16_t *set;
	unsigned int nr, i;

	set = vs_epoch_schedule_set(h->sched, epoch, &nr);
	memcpy(h->live_id, h->id, h->nr_fixed * sizeof(*h->id));
	memcpy(h->live_hw, h->hw, h->nr_fixed * sizeof(*h->hw));
	h->nr_live = h->nr_fixed;
	for (i = 0; i < nr && h->nr_live < VS_PMU_MAX_GROUP; i++) {
		h->live_id[h->nr_live] = set[i];
		h->live_hw[h->nr_live++] = *config_of(h, set[i]);
	}
}

unsigned int vs_hwcount_group(const struct vs_hwcount *h,
			      const struct vs_hw_config **hw,
			      const uint16_t **ids)
{
	*hw = h->live_hw;
	*ids = h->live_id;
	return h->nr_live;
}

bool vs_hwcount_hides(const struct vs_hwcount *h, uint16_t id)
{
	unsigned int i;

	if (!config_of(h, id))
		return false;
	for (i = 0; i < h->nr_live; i++)
		if (h->live_id[i] == id)
			return false;
	return true;
}

static int64_t value_of(const struct vs_task *t, uint16_t id)
{
	uint32_t i;

	for (i = 0; i < t->nr_values; i++)
		if (t->values[i].event == id)
			return t->values[i].value;
	return -1;
}

void vs_hwcount_add_freq(const struct vs_hwcount *h,
			 const struct vs_task *task, struct vs_value *buf,
			 struct vs_task *out)
{
	int64_t cycles = value_of(task, h->cycles);
	int64_t ns = value_of(task, h->run_time);
	uint32_t i, n = 0;
	bool added = false;

	*out = *task;
	if (cycles < 0 || ns <= 0 || h->freq == VS_EVENT_NO_PARENT)
		return;
	/* values stay sorted by id */
	for (i = 0; i < task->nr_values; i++) {
		if (!added && task->values[i].event > h->freq) {
			buf[n].event = h->freq;
			buf[n++].value = vs_cpu_freq_khz(cycles, ns);
			added = true;
		}
		buf[n++] = task->values[i];
	}
	if (!added) {
		buf[n].event = h->freq;
		buf[n++].value = vs_cpu_freq_khz(cycles, ns);
	}
	out->nr_values = n;
	out->values = buf;
}
