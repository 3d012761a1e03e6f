// SPDX-License-Identifier: MIT
/*
 * signature-file.c - signatures in the trace format: one SIG_FUNC record
 * per profiled function, then one SIG_EPISODE per closed frequent episode
 * of it ('*' between two calls is VS_SIG_WILDCARD).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arch.h"
#include "core/array.h"
#include "core/id-index.h"
#include "core/signature/signature-build.h"
#include "core/signature/signature.h"
#include "core/symbols/symbols.h"
#include "core/trace/trace.h"
#include "core/symbols/unwind.h"

int vs_signatures_write(const struct vs_signatures *s, struct vs_writer *w)
{
	uint16_t calls[2 * VS_EPISODE_MAX_LEN];
	struct vs_record rec;
	size_t i, k;
	int j, n;

	for (i = 0; i < s->nr; i++) {
		const struct vs_sig_function *f = &s->funcs[i];

		rec.kind = VS_REC_SIG_FUNC;
		rec.sig_func = (struct vs_sig_func){
			.id = i, .executions = f->executions,
			.mean_ns = f->mean_ns, .name = f->name };
		if (vs_writer_add(w, &rec) < 0)
			return -1;
		for (k = 0; k < f->nr_episodes; k++) {
			const struct vs_episode *e = &f->episodes[k];

			for (j = 0, n = 0; j < e->len; j++) {
				calls[n++] = e->nr[j];
				if (j + 1 < e->len && (e->gaps & (1u << j)))
					calls[n++] = VS_SIG_WILDCARD;
			}
			rec.kind = VS_REC_SIG_EPISODE;
			rec.sig_episode = (struct vs_sig_episode){
				.func = i, .support = e->support, .len = n,
				.syscalls = calls };
			if (vs_writer_add(w, &rec) < 0)
				return -1;
		}
	}
	return 0;
}

/*
 * The longest duration of each system call of the normal run, as the
 * META value "read:1234,write:56,futex:inf,..." (names, ns; inf: the
 * call waited for half the run or more); malloc'ed, or NULL.
 */
static char *call_max_list(const struct vs_sig_build_stats *st)
{
	size_t size = 1, n = 0, nr;
	char *buf;

	for (nr = 0; nr < VS_NR_SYSCALLS; nr++)
		if (st->call_max_ns[nr])
			size += 48;
	buf = malloc(size);
	if (!buf)
		return NULL;
	buf[0] = '\0';
	for (nr = 0; nr < VS_NR_SYSCALLS; nr++) {
		const char *name = vs_syscall_name(nr);

		if (!st->call_max_ns[nr] || !name)
			continue;
		if (st->call_max_ns[nr] == VS_SIG_CALL_UNBOUNDED)
			n += snprintf(buf + n, size - n, "%s%s:inf",
				      n ? "," : "", name);
		else
			n += snprintf(buf + n, size - n, "%s%s:%llu",
				      n ? "," : "", name, (unsigned long long)
				      st->call_max_ns[nr]);
	}
	return buf;
}

int vs_signature_file_write(const char *out, const struct vs_signatures *s,
			    const char *const *argv, const char *method,
			    const char *functions, double support,
			    const struct vs_sig_build_stats *st)
{
	struct vs_header hdr = { .tool = "varscope signature build" };
	char cmdline[4096] = "", num[64], gap[32], nr_calls[32];
	char *calls = call_max_list(st);
	struct vs_writer *w = vs_writer_open(out, &hdr);
	const char *meta[][2] = {
		{ "command", cmdline }, { "program", st->program },
		{ "method", method }, { "functions", functions ? functions : "*" },
		{ "support", num }, { "gap_limit_ns", gap },
		{ "call_max_ns", calls ? calls : "" }, { "calls", nr_calls },
	};
	struct vs_record rec = { .kind = VS_REC_META };
	size_t i, n = 0;

	if (!w || !calls) {
		if (w)
			vs_writer_close(w);
		free(calls);
		errno = w ? ENOMEM : errno;
		return -1;
	}
	for (i = 0; argv[i] && n < sizeof(cmdline); i++)
		n += snprintf(cmdline + n, sizeof(cmdline) - n, "%s%s",
			      i ? " " : "", argv[i]);
	snprintf(num, sizeof(num), "%g", support);
	snprintf(gap, sizeof(gap), "%llu", (unsigned long long)st->gap_limit);
	snprintf(nr_calls, sizeof(nr_calls), "%llu",
		 (unsigned long long)st->calls);
	for (i = 0; i < sizeof(meta) / sizeof(meta[0]); i++) {
		rec.meta.key = meta[i][0];
		rec.meta.value = meta[i][1];
		if (vs_writer_add(w, &rec) < 0)
			goto fail;
	}
	if (vs_signatures_write(s, w) < 0)
		goto fail;
	free(calls);
	return vs_writer_close(w);
fail:
	free(calls);
	vs_writer_close(w);
	return -1;
}

static int add_function(struct vs_signatures *s, const struct vs_sig_func *f)
{
	if (f->id != s->nr)
		return -1;	/* ids are dense and in order */
	if (ALLOC_GROW(s->funcs, s->nr + 1, s->alloc_funcs) < 0)
		return -1;
	memset(&s->funcs[s->nr], 0, sizeof(*s->funcs));
	s->funcs[s->nr].name = strdup(f->name);
	s->funcs[s->nr].executions = f->executions;
	s->funcs[s->nr].mean_ns = f->mean_ns;
	s->nr++;
	return s->funcs[s->nr - 1].name ? 0 : -1;
}

static int add_episode(struct vs_signatures *s, const struct vs_sig_episode *e)
{
	struct vs_sig_function *f;
	struct vs_episode ep = { .support = e->support };
	uint32_t i;

	if (e->func >= s->nr)
		return -1;
	f = &s->funcs[e->func];
	for (i = 0; i < e->len; i++) {
		if (e->syscalls[i] == VS_SIG_WILDCARD) {
			if (!ep.len)
				return -1;
			ep.gaps |= 1u << (ep.len - 1);
		} else if (ep.len == VS_EPISODE_MAX_LEN) {
			return -1;
		} else {
			ep.nr[ep.len++] = e->syscalls[i];
		}
	}
	if (!ep.len)
		return -1;
	if (ALLOC_GROW(f->episodes, f->nr_episodes + 1, f->alloc_episodes) < 0)
		return -1;
	f->episodes[f->nr_episodes++] = ep;
	return 0;
}

/* The META value "calls", a decimal count; -1 when it is malformed. */
static int read_calls(struct vs_signatures *s, const char *value)
{
	char *end;

	if (*value < '0' || *value > '9')
		return -1;
	errno = 0;
	s->normal_calls = strtoull(value, &end, 10);
	return errno || *end ? -1 : 0;
}

/* The META value of call_max_list(); -1 when it is malformed. */
static int read_call_max(struct vs_signatures *s, const char *value)
{
	const char *p = value, *colon, *comma;
	char name[64], *end;
	unsigned long long ns;
	int nr;

	if (!s->call_max_ns)
		s->call_max_ns = calloc(VS_NR_SYSCALLS, sizeof(*s->call_max_ns));
	if (!s->call_max_ns)
		return -1;
	while (*p) {
		colon = strchr(p, ':');
		if (!colon || colon == p || colon - p >= (long)sizeof(name))
			return -1;
		snprintf(name, sizeof(name), "%.*s", (int)(colon - p), p);
		errno = 0;
		if (!strncmp(colon + 1, "inf", 3)) {
			ns = VS_SIG_CALL_UNBOUNDED;
			end = (char *)colon + 4;
		} else {
			ns = strtoull(colon + 1, &end, 10);
			if (errno || end == colon + 1)
				return -1;
		}
		comma = end;
		if (*comma && *comma != ',')
			return -1;
		nr = vs_syscall_number(name);
		if (nr >= 0 && nr < VS_NR_SYSCALLS)	/* else: another table */
			s->call_max_ns[nr] = ns;
		p = *comma ? comma + 1 : comma;
	}
	return 0;
}

struct vs_signatures *vs_signatures_read(const char *path, char *err,
					 size_t errlen)
{
	struct vs_signatures *s = calloc(1, sizeof(*s));
	struct vs_reader *r;
	struct vs_record rec;
	int ret;

	err[0] = '\0';
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r = vs_reader_open(path, err, errlen);
	if (!r) {
		free(s);
		return NULL;
	}
	while ((ret = vs_reader_next(r, &rec)) > 0) {
		if (rec.kind == VS_REC_META &&
		    !strcmp(rec.meta.key, "call_max_ns"))
			ret = read_call_max(s, rec.meta.value);
		else if (rec.kind == VS_REC_META &&
			 !strcmp(rec.meta.key, "calls"))
			ret = read_calls(s, rec.meta.value);
		else if (rec.kind == VS_REC_META &&
			 !strcmp(rec.meta.key, "program"))
			ret = (free(s->program),
			       s->program = strdup(rec.meta.value)) ? 0 : -1;
		else if (rec.kind == VS_REC_SIG_FUNC)
			ret = add_function(s, &rec.sig_func);
		else if (rec.kind == VS_REC_SIG_EPISODE)
			ret = add_episode(s, &rec.sig_episode);
		else
			continue;
		if (ret < 0) {
			snprintf(err, errlen, "%s: bad signature record "
				 "(at byte %llu)", path, (unsigned long long)
				 vs_reader_offset(r));
			break;
		}
	}
	if (ret < 0 && !err[0])
		snprintf(err, errlen, "%s", vs_reader_error(r));
	else if (!ret && vs_reader_warning(r))	/* signatures lost */
		snprintf(err, errlen, "%s: truncated at byte %llu", path,
			 (unsigned long long)vs_reader_size(r));
	else if (!ret && !s->nr)
		snprintf(err, errlen, "%s: no function signature in the file",
			 path);
	vs_reader_close(r);
	if (err[0]) {
		vs_signatures_free(s);
		return NULL;
	}
	return s;
}

/* --- system calls of a recording --- */

struct call_reader {
	struct vs_thread_calls *th;
	size_t n, alloc_th;
	struct {			/* th[i]'s arrays' capacities */
		size_t calls, off;
	} *caps;
	size_t alloc_caps;
	struct vs_id_index index;	/* tid -> th[]: no scan per record */
	uint64_t end;			/* the last time seen */
	struct vs_cpu_times cpus;	/* when records of a ring were lost */
};

static struct vs_thread_calls *reader_thread(struct call_reader *cr,
					     uint32_t tid)
{
	long i = vs_id_index_find(&cr->index, tid);

	if (i >= 0)
		return &cr->th[i];
	if (ALLOC_GROW(cr->th, cr->n + 1, cr->alloc_th) < 0 ||
	    ALLOC_GROW(cr->caps, cr->n + 1, cr->alloc_caps) < 0 ||
	    vs_id_index_add(&cr->index, tid, cr->n))
		return NULL;
	memset(&cr->th[cr->n], 0, sizeof(*cr->th));
	cr->caps[cr->n].calls = cr->caps[cr->n].off = 0;
	cr->th[cr->n].tid = tid;
	return &cr->th[cr->n++];
}

static int read_syscall(struct call_reader *cr, const struct vs_syscall *sc)
{
	struct vs_thread_calls *t = reader_thread(cr, sc->tid);
	size_t i;

	if (!t)
		return -1;
	if (sc->dir == VS_SYSCALL_EXIT) {
		if (t->nr_calls) {
			struct vs_call *c = &t->calls[t->nr_calls - 1];

			if (!c->exit && c->nr == sc->nr)
				c->exit = sc->time;
		}
		return 0;
	}
	i = t - cr->th;
	if (ALLOC_GROW(t->calls, t->nr_calls + 1, cr->caps[i].calls) < 0)
		return -1;
	t->calls[t->nr_calls++] = (struct vs_call){
		.enter = sc->time, .cpu = sc->cpu, .nr = sc->nr };
	return 0;
}

static int read_switch(struct call_reader *cr, const struct vs_switch *sw)
{
	struct vs_thread_calls *t = reader_thread(cr, sw->tid);
	size_t i;

	if (!t)
		return -1;
	t->switches = true;
	if (!sw->out) {
		if (t->nr_off && !t->off[t->nr_off - 1].end)
			t->off[t->nr_off - 1].end = sw->time;
		return 0;
	}
	i = t - cr->th;
	if (ALLOC_GROW(t->off, t->nr_off + 1, cr->caps[i].off) < 0)
		return -1;
	t->off[t->nr_off++] = (struct vs_offcpu){ .start = sw->time };
	return 0;
}

/* Records of the lost one's ring since its last one were dropped. */
static int read_lost(struct call_reader *cr, const struct vs_lost *lost)
{
	uint64_t from = vs_cpu_times_last(&cr->cpus, lost->cpu);
	size_t t;

	for (t = 0; t < cr->n; t++)
		if (vs_thread_calls_hole(&cr->th[t], &cr->caps[t].off, from,
					 lost->time) < 0)
			return -1;
	return 0;
}

static int cmp_call(const void *a, const void *b)
{
	const struct vs_call *x = a, *y = b;

	return x->enter < y->enter ? -1 : x->enter > y->enter;
}

/* Close what the end of the trace left open; sort what came unsorted. */
static void finish_threads(struct call_reader *cr)
{
	size_t t, i;

	for (t = 0; t < cr->n; t++) {
		struct vs_thread_calls *th = &cr->th[t];
		bool sorted = true;

		for (i = 1; i < th->nr_calls; i++)
			if (th->calls[i].enter < th->calls[i - 1].enter)
				sorted = false;
		if (!sorted)
			qsort(th->calls, th->nr_calls, sizeof(*th->calls),
			      cmp_call);
		vs_thread_calls_close(th, cr->end);
		if (th->nr_off && !th->off[th->nr_off - 1].end)
			th->off[th->nr_off - 1].end = cr->end;
	}
}

int vs_signature_read_calls(const char *path, struct vs_thread_calls **threads,
			    size_t *nr, char *err, size_t errlen)
{
	struct call_reader cr = { 0 };
	struct vs_reader *r;
	struct vs_record rec;
	int ret;

	r = vs_reader_open(path, err, errlen);
	if (!r)
		return -1;
	while ((ret = vs_reader_next(r, &rec)) > 0) {
		if (rec.kind == VS_REC_SYSCALL) {
			if (rec.syscall.time > cr.end)
				cr.end = rec.syscall.time;
			ret = read_syscall(&cr, &rec.syscall);
			if (ret >= 0)
				ret = vs_cpu_times_see(&cr.cpus, rec.syscall.cpu,
						       rec.syscall.time);
		} else if (rec.kind == VS_REC_SWITCH) {
			if (rec.switch_.time > cr.end)
				cr.end = rec.switch_.time;
			ret = read_switch(&cr, &rec.switch_);
			if (ret >= 0)
				ret = vs_cpu_times_see(&cr.cpus, rec.switch_.cpu,
						       rec.switch_.time);
		} else if (rec.kind == VS_REC_LOST &&
			   rec.lost.what == VS_LOST_KERNEL_RING) {
			ret = read_lost(&cr, &rec.lost);
		}
		if (ret < 0) {
			snprintf(err, errlen, "out of memory");
			break;
		}
	}
	if (ret < 0 && vs_reader_error(r))
		snprintf(err, errlen, "%s", vs_reader_error(r));
	vs_reader_close(r);
	free(cr.caps);
	vs_id_index_release(&cr.index);
	vs_cpu_times_release(&cr.cpus);
	if (ret < 0) {
		vs_thread_calls_free(cr.th, cr.n);
		return -1;
	}
	finish_threads(&cr);
	*threads = cr.th;
	*nr = cr.n;
	return 0;
}

void vs_thread_calls_close(struct vs_thread_calls *th, uint64_t end)
{
	size_t i;

	for (i = 0; i < th->nr_calls; i++) {
		struct vs_call *c = &th->calls[i];

		if (c->exit)
			continue;
		if (i + 1 < th->nr_calls) {	/* its exit record was lost */
			c->exit = th->calls[i + 1].enter;
			continue;
		}
		c->exit = end > c->enter ? end : c->enter;
		c->open = true;
	}
}

int vs_thread_calls_hole(struct vs_thread_calls *th, size_t *off_cap,
			 uint64_t from, uint64_t to)
{
	size_t k;

	/*
	 * off the CPU since before it: its gaps across it are unknown
	 * already (and its switch-in closes the last span)
	 */
	if (to <= from || (th->nr_off && !th->off[th->nr_off - 1].end &&
			   th->off[th->nr_off - 1].start <= from))
		return 0;
	if (ALLOC_GROW(th->off, th->nr_off + 1, *off_cap) < 0)
		return -1;
	/* by start time: after the spans that began before it */
	for (k = th->nr_off; k > 0 && th->off[k - 1].start > from; k--)
		;
	memmove(&th->off[k + 1], &th->off[k],
		(th->nr_off - k) * sizeof(*th->off));
	th->off[k] = (struct vs_offcpu){ .start = from, .end = to };
	th->nr_off++;
	th->switches = true;
	return 0;
}

/* CPU numbers beyond this are no CPU's (a damaged record): not noted. */
#define MAX_CPU		65536

int vs_cpu_times_see(struct vs_cpu_times *c, uint32_t cpu, uint64_t time)
{
	if (cpu >= MAX_CPU)
		return 0;
	if (cpu >= c->cap) {
		size_t old = c->cap;

		if (ALLOC_GROW(c->time, cpu + 1, c->cap) < 0)
			return -1;
		memset(c->time + old, 0, (c->cap - old) * sizeof(*c->time));
	}
	if (time > c->time[cpu])
		c->time[cpu] = time;
	return 0;
}

uint64_t vs_cpu_times_last(const struct vs_cpu_times *c, uint32_t cpu)
{
	return cpu < c->cap ? c->time[cpu] : 0;
}

void vs_cpu_times_release(struct vs_cpu_times *c)
{
	free(c->time);
	c->time = NULL;
	c->cap = 0;
}

uint64_t vs_thread_calls_first(const struct vs_thread_calls *threads,
			       size_t nr)
{
	uint64_t first = UINT64_MAX;
	size_t i;

	for (i = 0; i < nr; i++)
		if (threads[i].nr_calls && threads[i].calls[0].enter < first)
			first = threads[i].calls[0].enter;
	return first;
}

void vs_thread_calls_free(struct vs_thread_calls *threads, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(threads[i].calls);
		free(threads[i].off);
	}
	free(threads);
}

/* --- the functions of hangs --- */

#define HANG_FRAMES	64

/* Name the hangs of @res the stack sample @sm is of. */
static void name_hang(struct vs_symbols *syms, struct vs_unwinder *uw,
		      const struct vs_signatures *sig,
		      const struct vs_sample *sm, struct vs_infer_result *res)
{
	struct vs_user_stack u = {
		.regs_mask = sm->regs_mask, .regs = sm->regs,
		.nr_regs = sm->nr_regs, .stack = (const uint8_t *)sm->stack,
		.size = (size_t)sm->nr_stack * 8 };
	uint64_t chain[HANG_FRAMES];
	struct vs_symbol_hit hit;
	size_t i;
	bool cut;
	int n = -1, k;

	for (i = 0; i < res->nr_hangs; i++) {
		struct vs_sig_hang *h = &res->hangs[i];

		if (h->tid != sm->tid || h->function[0] || sm->time < h->enter ||
		    sm->time > h->enter + h->duration + VS_SC_LONG_CALL_NS)
			continue;
		if (n < 0)
			n = vs_unwind(uw, sm->pid, sm->tid, &u, chain,
				      HANG_FRAMES, &cut);
		for (k = 0; k < n; k++) {
			uint64_t addr = k ? chain[k] - 1 : chain[k];

			if (vs_symbols_lookup(syms, sm->pid, addr, &hit) ||
			    !hit.sym || (sig->program &&
			    strcmp(vs_dso_path(hit.dso), sig->program)))
				continue;
			snprintf(h->function, sizeof(h->function), "%s",
				 hit.sym->name);
			break;
		}
	}
}

int vs_signature_name_hangs(const char *path, const struct vs_signatures *sig,
			    struct vs_infer_result *res, char *err,
			    size_t errlen)
{
	struct vs_symbols *syms = vs_symbols_new();
	struct vs_unwinder *uw = syms ? vs_unwinder_new(syms) : NULL;
	struct vs_reader *r = NULL;
	struct vs_record rec;
	int ret = -1;

	err[0] = '\0';
	if (!uw) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	r = vs_reader_open(path, err, errlen);
	if (!r)
		goto out;
	while ((ret = vs_reader_next(r, &rec)) > 0) {
		if (rec.kind == VS_REC_MMAP)
			ret = vs_symbols_add_map(syms, rec.mmap.pid,
						 rec.mmap.start, rec.mmap.len,
						 rec.mmap.pgoff,
						 rec.mmap.filename);
		else if (rec.kind == VS_REC_PROCESS &&
			 rec.process.what == VS_PROCESS_FORK &&
			 rec.process.pid != rec.process.ppid)
			ret = vs_symbols_fork(syms, rec.process.ppid,
					      rec.process.pid);
		else if (rec.kind == VS_REC_SAMPLE &&
			 (rec.sample.flags & VS_SAMPLE_SYSCALL) &&
			 (rec.sample.flags & VS_SAMPLE_USER_STACK))
			name_hang(syms, uw, sig, &rec.sample, res);
		if (ret < 0) {
			snprintf(err, errlen, "out of memory");
			break;
		}
	}
	if (ret < 0 && !err[0])
		snprintf(err, errlen, "%s", vs_reader_error(r));
out:
	vs_reader_close(r);
	vs_unwinder_free(uw);
	vs_symbols_free(syms);
	return ret < 0 ? -1 : 0;
}
