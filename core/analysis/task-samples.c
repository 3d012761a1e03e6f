// SPDX-License-Identifier: MIT
/*
 * task-samples.c - samples tied to tasks, symbolized once per address;
 * the function times estimated from them are func-estimate.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "core/array.h"
#include "core/analysis/attach.h"
#include "core/sort.h"
#include "core/symbols/symbols.h"
#include "core/analysis/task-samples.h"
#include "core/analysis/taskset.h"
#include "core/symbols/unwind.h"

/* An open-addressing table: 64-bit key pairs -> 32-bit value. */
struct slot {
	uint64_t a, b;
	uint32_t value;
	uint32_t used;
};

struct table {
	struct slot *slots;
	size_t size, nr;	/* size: a power of two */
};

struct vs_ts_build {
	uint32_t *tid;			/* of each sample, until finish */
	size_t alloc_samples, alloc_frames, alloc_tasks;
	unsigned int alloc_symbols;
	struct table addr_cache;	/* (pid, address) -> symbol id */
	struct table names;		/* hash of (file, name) -> symbol id */
	uint64_t *cpu_ns;		/* of each task */
	struct vs_attach_map *attach;	/* which task an interval serves */
};

static void build_free(struct vs_ts_build *b)
{
	if (!b)
		return;
	free(b->tid);
	free(b->cpu_ns);
	free(b->addr_cache.slots);
	free(b->names.slots);
	vs_attach_map_free(b->attach);
	free(b);
}

static uint64_t hash64(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static uint64_t hash_str(const char *s, uint64_t h)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static struct slot *table_find(struct table *t, uint64_t a, uint64_t b)
{
	size_t i = hash64(a, b) & (t->size - 1);

	while (t->slots[i].used && (t->slots[i].a != a || t->slots[i].b != b))
		i = (i + 1) & (t->size - 1);
	return &t->slots[i];
}

static int table_grow(struct table *t)
{
	struct table bigger = { NULL, t->size ? 2 * t->size : 1024, 0 };
	size_t i;

	if (t->size && t->nr + 1 < t->size / 2)
		return 0;
	bigger.slots = calloc(bigger.size, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -1;
	for (i = 0; i < t->size; i++)
		if (t->slots[i].used)
			*table_find(&bigger, t->slots[i].a, t->slots[i].b) =
				t->slots[i];
	bigger.nr = t->nr;
	free(t->slots);
	*t = bigger;
	return 0;
}

struct vs_task_samples *vs_task_samples_new(void)
{
	struct vs_task_samples *ts = calloc(1, sizeof(*ts));

	if (!ts)
		return NULL;
	ts->build = calloc(1, sizeof(*ts->build));
	if (!ts->build || !(ts->build->attach = vs_attach_map_new()) ||
	    vs_task_samples_symbol(ts, "[unknown]", "") != 0) {
		vs_task_samples_free(ts);
		return NULL;
	}
	return ts;
}

int64_t vs_task_samples_symbol(struct vs_task_samples *ts, const char *name,
			       const char *file)
{
	struct vs_ts_build *b = ts->build;
	uint64_t h = hash_str(name, hash_str(file, 0xcbf29ce484222325ull));
	struct vs_ts_symbol *sym;
	struct slot *slot;
	size_t alloc = b->alloc_symbols;

	/* probe the name hashes; equal hashes compare the strings */
	if (b->names.size) {
		size_t i = hash64(h, 0) & (b->names.size - 1);

		for (; b->names.slots[i].used; i = (i + 1) & (b->names.size - 1)) {
			sym = &ts->symbols[b->names.slots[i].value];
			if (b->names.slots[i].a == h && !strcmp(sym->name, name) &&
			    !strcmp(sym->file, file))
				return b->names.slots[i].value;
		}
	}
	if (table_grow(&b->names) ||
	    ALLOC_GROW(ts->symbols, ts->nr_symbols + 1, alloc))
		return -1;
	b->alloc_symbols = alloc;
	sym = &ts->symbols[ts->nr_symbols];
	sym->name = strdup(name);
	sym->file = strdup(file);
	sym->src = NULL;
	if (!sym->name || !sym->file)
		return -1;
	/* the first free slot of the probe sequence above */
	for (slot = &b->names.slots[hash64(h, 0) & (b->names.size - 1)];
	     slot->used;
	     slot = slot + 1 < b->names.slots + b->names.size ? slot + 1 :
		    b->names.slots)
		;
	*slot = (struct slot){ h, 0, ts->nr_symbols, 1 };
	b->names.nr++;
	return ts->nr_symbols++;
}

int vs_task_samples_add_task(struct vs_task_samples *ts,
			     const struct vs_task *t, uint64_t cpu_ns)
{
	struct vs_ts_build *b = ts->build;
	size_t alloc = b->alloc_tasks;

	if (ALLOC_GROW(ts->tasks, ts->nr_tasks + 1, alloc) ||
	    ALLOC_GROW(b->cpu_ns, ts->nr_tasks + 1, b->alloc_tasks))
		return -1;
	ts->tasks[ts->nr_tasks] = (struct vs_ts_task){
		.id = t->id, .type = t->type, .pid = t->pid, .tid = t->tid,
		.start = t->start, .end = t->end,
		.serves = vs_attach_map_served(b->attach, t),
	};
	b->cpu_ns[ts->nr_tasks++] = cpu_ns;
	return 0;
}

int vs_task_samples_add_attach(struct vs_task_samples *ts,
			       const struct vs_record *rec)
{
	return vs_attach_map_add(ts->build->attach, rec);
}

int vs_task_samples_add_sample(struct vs_task_samples *ts,
			       const struct vs_sample *s,
			       const uint32_t *frames, uint32_t nr_frames)
{
	struct vs_ts_build *b = ts->build;
	size_t alloc = b->alloc_samples, falloc = b->alloc_frames;

	if (!nr_frames)
		return 0;
	if (ALLOC_GROW(ts->samples, ts->nr_samples + 1, alloc) ||
	    ALLOC_GROW(b->tid, ts->nr_samples + 1, b->alloc_samples) ||
	    ALLOC_GROW(ts->frames, ts->nr_frames + nr_frames, falloc))
		return -1;
	b->alloc_frames = falloc;
	ts->samples[ts->nr_samples] = (struct vs_ts_sample){
		.time = s->time,
		/* PEBS weights are set at finish, from the task's CPU time */
		.weight_ns = s->flags & VS_SAMPLE_PRECISE ? 0 : s->period,
		.cpu = s->cpu, .flags = s->flags,
		.chain = ts->nr_frames, .nr_frames = nr_frames,
	};
	b->tid[ts->nr_samples++] = s->tid;
	memcpy(ts->frames + ts->nr_frames, frames, nr_frames * sizeof(*frames));
	ts->nr_frames += nr_frames;
	return 0;
}

/* --- attribution ---------------------------------------------------------- */

/* @a, @b: indices into @ts->tasks */
static int cmp_tid_start(const void *a, const void *b, void *ts)
{
	const struct vs_task_samples *s = ts;
	const struct vs_ts_task *x = &s->tasks[*(const uint32_t *)a];
	const struct vs_ts_task *y = &s->tasks[*(const uint32_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static int cmp_id(const void *a, const void *b, void *ts)
{
	const struct vs_task_samples *s = ts;
	uint64_t x = s->tasks[*(const uint32_t *)a].id;
	uint64_t y = s->tasks[*(const uint32_t *)b].id;

	return (x > y) - (x < y);
}

static int cmp_type_start(const void *a, const void *b)
{
	const struct vs_ts_task *x = a, *y = b;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The task of thread @tid bracketing @time: its index, or -1. */
static int64_t owner(const struct vs_task_samples *ts, const uint32_t *by_tid,
		     uint32_t tid, uint64_t time)
{
	size_t lo = 0, hi = ts->nr_tasks, mid;
	const struct vs_ts_task *t;

	/* the last task of @tid starting at or before @time */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		t = &ts->tasks[by_tid[mid]];
		if (t->tid < tid || (t->tid == tid && t->start <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	t = &ts->tasks[by_tid[lo - 1]];
	return t->tid == tid && time <= t->end ? (int64_t)by_tid[lo - 1] : -1;
}

static int cmp_sample_time(const void *a, const void *b)
{
	const struct vs_ts_sample *x = a, *y = b;

	return (x->time > y->time) - (x->time < y->time);
}

/*
 * The samples of every attached interval also count for the task it
 * serves: copies, flagged VS_TS_SAMPLE_ATTACHED, with the interval's
 * weights, merged into the served task's samples in time order.
 */
static int add_attached(struct vs_task_samples *ts)
{
	size_t n = ts->nr_tasks, i, extra = 0, pos = 0;
	int64_t *served = malloc((n ? n : 1) * sizeof(*served));
	size_t *fill = calloc(n ? n : 1, sizeof(*fill));
	struct vs_ts_sample *all = NULL;
	int ret = -1;

	if (!served || !fill)
		goto out;
	for (i = 0; i < n; i++) {	/* fill[]: the copies each receives */
		const struct vs_ts_task *s = ts->tasks[i].serves ?
			vs_task_samples_find(ts, ts->tasks[i].serves) : NULL;

		served[i] = s ? s - ts->tasks : -1;
		if (s) {
			extra += ts->tasks[i].nr;
			fill[served[i]] += ts->tasks[i].nr;
		}
	}
	ret = 0;
	if (!extra)
		goto out;
	ret = -1;
	all = malloc((ts->nr_samples + extra) * sizeof(*all));
	if (!all)
		goto out;
	for (i = 0; i < n; i++) {	/* own samples, room for the copies */
		struct vs_ts_task *t = &ts->tasks[i];
		size_t copies = fill[i];

		memcpy(all + pos, ts->samples + t->first,
		       t->nr * sizeof(*all));
		t->first = pos;
		if (copies)	/* samples of other totals join its own */
			t->closed = false;
		fill[i] = pos + t->nr;
		pos += t->nr + copies;
	}
	for (i = 0; i < n; i++) {
		const struct vs_ts_task *a = &ts->tasks[i];
		uint32_t k;

		for (k = 0; served[i] >= 0 && k < a->nr; k++) {
			struct vs_ts_sample *c = &all[fill[served[i]]++];

			*c = all[a->first + k];
			c->flags |= VS_TS_SAMPLE_ATTACHED;
		}
	}
	free(ts->samples);
	ts->samples = all;
	ts->nr_samples += extra;
	for (i = 0; i < n; i++) {
		struct vs_ts_task *t = &ts->tasks[i];

		t->nr = fill[i] - t->first;
		qsort(ts->samples + t->first, t->nr, sizeof(*ts->samples),
		      cmp_sample_time);
	}
	ret = 0;
out:
	free(served);
	free(fill);
	return ret;
}

int vs_task_samples_finish(struct vs_task_samples *ts)
{
	struct vs_ts_build *b = ts->build;
	size_t n = ts->nr_tasks, i, kept = 0;
	uint32_t *by_tid = malloc((n ? n : 1) * sizeof(*by_tid));
	int64_t *task_of = malloc((ts->nr_samples ? ts->nr_samples : 1) *
				  sizeof(*task_of));
	struct vs_ts_sample *placed = NULL;
	uint64_t *rank = NULL;
	int ret = -1;

	ts->by_id = malloc((n ? n : 1) * sizeof(*ts->by_id));
	if (!by_tid || !task_of || !ts->by_id)
		goto out;
	/* order by type and start, keeping each task's cpu_ns with it */
	for (i = 0; i < n; i++)
		ts->tasks[i].first = b->cpu_ns[i];	/* borrowed */
	vs_qsort(ts->tasks, n, sizeof(*ts->tasks), cmp_type_start);
	for (i = 0; i < n; i++) {
		b->cpu_ns[i] = ts->tasks[i].first;
		ts->tasks[i].first = 0;
		by_tid[i] = ts->by_id[i] = i;
	}
	vs_qsort_r(by_tid, n, sizeof(*by_tid), cmp_tid_start, ts);
	vs_qsort_r(ts->by_id, n, sizeof(*ts->by_id), cmp_id, ts);
	for (i = 0; i < ts->nr_samples; i++) {
		task_of[i] = owner(ts, by_tid, b->tid[i], ts->samples[i].time);
		if (task_of[i] < 0)
			ts->unattributed++;
		else
			ts->tasks[task_of[i]].nr++;
	}
	/* counting sort of the samples by task */
	rank = calloc(n + 1, sizeof(*rank));
	placed = malloc((ts->nr_samples - ts->unattributed + 1) *
			sizeof(*placed));
	if (!rank || !placed)
		goto out;
	for (i = 0; i < n; i++) {
		ts->tasks[i].first = kept;
		rank[i] = kept;
		kept += ts->tasks[i].nr;
	}
	for (i = 0; i < ts->nr_samples; i++)
		if (task_of[i] >= 0)
			placed[rank[task_of[i]]++] = ts->samples[i];
	free(ts->samples);
	ts->samples = placed;
	ts->nr_samples = kept;
	placed = NULL;
	for (i = 0; i < n; i++) {
		struct vs_ts_task *t = &ts->tasks[i];
		uint64_t cpu = b->cpu_ns[i];
		uint32_t k;

		qsort(ts->samples + t->first, t->nr, sizeof(*ts->samples),
		      cmp_sample_time);
		for (k = 0; k < t->nr; k++) {
			struct vs_ts_sample *smp = &ts->samples[t->first + k];

			if (cpu)
				smp->weight_ns = cpu / t->nr;
			else if (smp->flags & VS_SAMPLE_PRECISE)
				smp->weight_ns = (t->end - t->start) / t->nr;
		}
		t->closed = t->nr && (cpu || (ts->samples[t->first].flags &
					       VS_SAMPLE_PRECISE));
	}
	ret = add_attached(ts);
out:
	free(by_tid);
	free(task_of);
	free(rank);
	free(placed);
	if (!ret) {
		build_free(b);
		ts->build = NULL;
	}
	return ret;
}

void vs_task_samples_free(struct vs_task_samples *ts)
{
	unsigned int i;

	if (!ts)
		return;
	build_free(ts->build);
	for (i = 0; i < ts->nr_symbols; i++) {
		free((char *)ts->symbols[i].name);
		free((char *)ts->symbols[i].file);
		free((char *)ts->symbols[i].src);
	}
	for (i = 0; i < ts->nr_stale; i++)
		free(ts->stale[i]);
	free(ts->stale);
	free(ts->by_id);
	free(ts->symbols);
	free(ts->tasks);
	free(ts->samples);
	free(ts->frames);
	free(ts);
}

size_t vs_task_samples_type(const struct vs_task_samples *ts, uint32_t type,
			    size_t *first)
{
	size_t lo = 0, hi = ts->nr_tasks, mid, start;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ts->tasks[mid].type < type)
			lo = mid + 1;
		else
			hi = mid;
	}
	start = lo;
	hi = ts->nr_tasks;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ts->tasks[mid].type <= type)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = start;
	return lo - start;
}

const struct vs_ts_task *vs_task_samples_find(const struct vs_task_samples *ts,
					      uint64_t id)
{
	size_t lo = 0, hi = ts->nr_tasks, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ts->tasks[ts->by_id[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ts->nr_tasks && ts->tasks[ts->by_id[lo]].id == id ?
	       &ts->tasks[ts->by_id[lo]] : NULL;
}

/* --- reading a trace ------------------------------------------------------ */

struct reading {
	struct vs_task_samples *ts;
	struct vs_symbols *syms;
	struct vs_unwinder *unwinder;	/* over @syms */
	int task_clock;			/* event id, -1 until seen */
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The source line of symbol @id, from its first address (core/symbols/). */
static int set_source(struct reading *rd, int64_t id,
		      const struct vs_symbol_hit *hit)
{
	struct vs_ts_symbol *sym = &rd->ts->symbols[id];
	const char *src;

	if (sym->src)
		return 0;
	src = vs_symbols_srcline(rd->syms, hit);
	if (src && !(sym->src = strdup(src)))
		return -1;
	return 0;
}

/*
 * The name of the function of @hit that has no symbol: "binary+0xADDR",
 * ADDR its first instruction's link-time address (from the call frame
 * information: the same name for every address of it, one that
 * addr2line -e and objdump --start-address take), else "[binary]"
 */
static void unnamed_function(const struct vs_symbol_hit *hit, char *name,
			     size_t size)
{
	const char *base = base_name(vs_dso_path(hit->dso));
	uint64_t start;

	/* the file's state is @rd->syms', which the caller holds */
	if (!vs_dso_func_start((struct vs_dso *)hit->dso, hit->vaddr, &start))
		snprintf(name, size, "%s+0x%llx", base,
			 (unsigned long long)start);
	else
		snprintf(name, size, "[%s]", base);
}

/* The symbol id of address @addr of process @pid, in the kernel or not. */
static int64_t symbolize(struct reading *rd, uint32_t pid, uint64_t addr,
			 bool kernel)
{
	struct vs_ts_build *b = rd->ts->build;
	const struct vs_elf_symbol *sym;
	struct vs_symbol_hit hit;
	char name[300];
	struct slot *slot;
	int64_t id;
	int found;

	if (table_grow(&b->addr_cache))
		return -1;
	slot = table_find(&b->addr_cache, kernel ? 0 : (uint64_t)pid + 1, addr);
	if (slot->used)
		return slot->value;
	if (kernel) {
		sym = vs_symbols_kernel(rd->syms, addr);
		id = vs_task_samples_symbol(rd->ts,
					    sym ? sym->name : VS_TS_KERNEL_FILE,
					    VS_TS_KERNEL_FILE);
	} else if ((found = vs_symbols_lookup(rd->syms, pid, addr, &hit)) == 0) {
		const char *file = vs_dso_path(hit.dso);

		unnamed_function(&hit, name, sizeof(name));
		id = vs_task_samples_symbol(rd->ts, hit.sym ? hit.sym->name :
					    name, file);
		if (id >= 0 && set_source(rd, id, &hit))
			return -1;
	} else if (found == -2) {
		rd->ts->stale_frames++;
		id = 0;
	} else {
		sym = vs_symbols_jit(rd->syms, pid, addr);
		/*
		 * No map holds it yet: not cached, for the mapping may come
		 * later in the file (each ring of the recorder is read in
		 * turn, not in time order)
		 */
		if (!sym)
			return 0;
		id = vs_task_samples_symbol(rd->ts, sym->name, VS_TS_JIT_FILE);
	}
	if (id < 0)
		return -1;
	slot = table_find(&b->addr_cache, kernel ? 0 : (uint64_t)pid + 1, addr);
	*slot = (struct slot){ kernel ? 0 : (uint64_t)pid + 1, addr, id, 1 };
	b->addr_cache.nr++;
	return id;
}

/*
 * No code lives below this address (Linux maps nothing in the first
 * page, whatever vm.mmap_min_addr says): a user return address under it
 * is the kernel's frame-pointer walk gone into data, in code built
 * without frame pointers (nginx's, lighttpd's: 21, 21, ... to the depth
 * limit).  It ends the user chain.
 */
#define VS_MIN_CODE_ADDR	4096

/*
 * The user frames of sample @s (record --call-graph dwarf), unwound from
 * its registers and stack copy, into @frames (room for @max) as symbol
 * ids; how many, or -1 when memory ran out.
 */
static int unwound_frames(struct reading *rd, const struct vs_sample *s,
			  uint32_t *frames, int max)
{
	struct vs_user_stack u = {
		.regs_mask = s->regs_mask, .regs = s->regs,
		.nr_regs = s->nr_regs, .stack = (const uint8_t *)s->stack,
		.size = (size_t)s->nr_stack * 8 };
	uint64_t chain[PERF_MAX_STACK_DEPTH];
	int n, i;
	int64_t id;
	bool cut;

	n = vs_unwind(rd->unwinder, s->pid, s->tid, &u, chain,
		      max < PERF_MAX_STACK_DEPTH ? max : PERF_MAX_STACK_DEPTH,
		      &cut);
	for (i = 0; i < n; i++) {
		/* the ip as it is, a return address one byte back */
		id = symbolize(rd, s->pid, i ? chain[i] - 1 : chain[i], false);
		if (id < 0)
			return -1;
		frames[i] = id;
	}
	return n;
}

static int take_sample(struct reading *rd, const struct vs_sample *s)
{
	uint32_t frames[PERF_MAX_STACK_DEPTH + 8], nr = 0, i;
	bool kernel = s->flags & VS_SAMPLE_KERNEL, walk_ended = false;
	bool stopped = true;	/* the next address is where it stopped */
	int64_t id;

	if (!s->nr_callchain && !(s->flags & VS_SAMPLE_USER_STACK)) {
		id = symbolize(rd, s->pid, s->ip, kernel);
		if (id < 0)
			return -1;
		frames[nr++] = id;
	}
	for (i = 0; i < s->nr_callchain && nr < PERF_MAX_STACK_DEPTH + 8; i++) {
		uint64_t a = s->callchain[i];

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = a == (uint64_t)PERF_CONTEXT_KERNEL ||
				 a == (uint64_t)PERF_CONTEXT_GUEST_KERNEL;
			walk_ended = false;
			stopped = true;
			continue;
		}
		if (!kernel && nr && a < VS_MIN_CODE_ADDR)
			walk_ended = true;
		if (walk_ended)
			continue;
		/*
		 * The first address of each context (the sampled ip, the
		 * user ip the kernel was entered at: a uprobe's breakpoint
		 * at a function's first byte) is looked up as it is; a
		 * return address, one byte back, in the call before it
		 */
		id = symbolize(rd, s->pid, stopped ? a : a - 1, kernel);
		if (id < 0)
			return -1;
		frames[nr++] = id;
		stopped = false;
	}
	if (s->flags & VS_SAMPLE_USER_STACK) {
		int n = unwound_frames(rd, s, frames + nr,
				       PERF_MAX_STACK_DEPTH + 8 - nr);

		if (n < 0)
			return -1;
		nr += n;
	}
	if (!nr)
		frames[nr++] = 0;	/* [unknown]: not even an ip */
	return vs_task_samples_add_sample(rd->ts, s, frames, nr);
}

static int take_task(struct reading *rd, struct vs_reader *r,
		     const struct vs_task *t)
{
	const struct vs_event_def *def;
	uint64_t cpu_ns = 0;
	uint32_t i;

	if (rd->task_clock < 0 &&
	    (def = vs_reader_event_by_name(r, "task-clock")))
		rd->task_clock = def->id;
	for (i = 0; rd->task_clock >= 0 && i < t->nr_values; i++)
		if (t->values[i].event == rd->task_clock)
			cpu_ns = t->values[i].value;
	return vs_task_samples_add_task(rd->ts, t, cpu_ns);
}

static int take_record(struct reading *rd, struct vs_reader *r,
		       const struct vs_record *rec)
{
	const struct vs_mmap *m = &rec->mmap;

	switch (rec->kind) {
	case VS_REC_TASK:
		return take_task(rd, r, &rec->task);
	case VS_REC_ATTACH:
		return vs_task_samples_add_attach(rd->ts, rec);
	case VS_REC_SAMPLE:
		return take_sample(rd, &rec->sample);
	case VS_REC_MMAP:
		return vs_symbols_add_map_build_id(rd->syms, m->pid, m->start,
						   m->len, m->pgoff, m->filename,
						   m->build_id, m->build_id_len);
	case VS_REC_PROCESS:
		if (rec->process.what == VS_PROCESS_FORK &&
		    rec->process.pid != rec->process.ppid)
			return vs_symbols_fork(rd->syms, rec->process.ppid,
					       rec->process.pid);
		return 0;
	}
	return 0;
}

static int keep_stale(struct vs_task_samples *ts, struct vs_symbols *syms)
{
	const char *const *paths = vs_symbols_stale(syms, &ts->nr_stale);
	size_t i;

	ts->stale = calloc(ts->nr_stale + 1, sizeof(*ts->stale));
	if (!ts->stale)
		return -1;
	for (i = 0; i < ts->nr_stale; i++)
		if (!(ts->stale[i] = strdup(paths[i])))
			return -1;
	return 0;
}

int vs_task_samples_read(const char *path, struct vs_task_samples **out,
			 char *err, size_t errlen)
{
	return vs_task_samples_read_progress(path, out, err, errlen, NULL,
					     NULL);
}

#define PROGRESS_EVERY	1024	/* records between progress calls */

int vs_task_samples_read_progress(const char *path,
				  struct vs_task_samples **out, char *err,
				  size_t errlen, vs_read_progress_fn progress,
				  void *arg)
{
	struct reading rd = { .task_clock = -1 };
	struct vs_reader *r;
	struct vs_record rec;
	int ret, status = VS_LOAD_ERROR;
	uint64_t n = 0;

	*out = NULL;
	r = vs_reader_open(path, err, errlen);
	if (!r)
		return VS_LOAD_CORRUPT;
	rd.ts = vs_task_samples_new();
	rd.syms = vs_symbols_new();
	rd.unwinder = rd.syms ? vs_unwinder_new(rd.syms) : NULL;
	if (!rd.ts || !rd.unwinder)
		goto nomem;
	while ((ret = vs_reader_next(r, &rec)) > 0) {
		if (take_record(&rd, r, &rec))
			goto nomem;
		if (progress && ++n % PROGRESS_EVERY == 0)
			progress(arg, vs_reader_offset(r), vs_reader_size(r));
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s", vs_reader_error(r));
		status = VS_LOAD_CORRUPT;
		goto out;
	}
	rd.ts->nr_trace_events = vs_reader_nr_events(r);
	if (keep_stale(rd.ts, rd.syms) || vs_task_samples_finish(rd.ts))
		goto nomem;
	*out = rd.ts;
	rd.ts = NULL;
	status = VS_LOAD_OK;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory reading samples");
out:
	vs_task_samples_free(rd.ts);
	vs_unwinder_free(rd.unwinder);
	vs_symbols_free(rd.syms);
	vs_reader_close(r);
	return status;
}
