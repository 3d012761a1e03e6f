// SPDX-License-Identifier: MIT
/*
 * signature.c - PerfScope's function signatures and bug inference as pure
 * functions over system-call sequences (the file side is in
 * core/signature/signature-file.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/arch.h"
#include "core/array.h"
#include "core/signature/cluster.h"
#include "core/id-index.h"
#include "core/signature/signature.h"

#define NR_CALLS	0x10000u

/* --- building --- */

struct prof_func {
	char *name;
	uint64_t span_sum;		/* of the executions */
	uint16_t *nr;			/* the calls of every execution */
	uint32_t *gap;			/* and the gap before each */
	size_t n, cap_nr, cap_gap;
	size_t *start;			/* execution starts */
	size_t nexec, cap_start;
};

struct vs_profile {
	struct prof_func *f;
	size_t n, cap;
	uint32_t *slot;			/* name hash -> index + 1, 0 empty */
	size_t mask;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

struct vs_profile *vs_profile_new(void)
{
	struct vs_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->mask = 255;
	p->slot = calloc(p->mask + 1, sizeof(*p->slot));
	if (!p->slot) {
		free(p);
		return NULL;
	}
	return p;
}

void vs_profile_free(struct vs_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		free(p->f[i].name);
		free(p->f[i].nr);
		free(p->f[i].gap);
		free(p->f[i].start);
	}
	free(p->f);
	free(p->slot);
	free(p);
}

size_t vs_profile_nr_functions(const struct vs_profile *p)
{
	return p->n;
}

static int profile_rehash(struct vs_profile *p)
{
	size_t mask = p->mask * 2 + 1, i, h;
	uint32_t *slot = calloc(mask + 1, sizeof(*slot));

	if (!slot)
		return -1;
	for (i = 0; i < p->n; i++) {
		h = hash_str(p->f[i].name) & mask;
		while (slot[h])
			h = (h + 1) & mask;
		slot[h] = i + 1;
	}
	free(p->slot);
	p->slot = slot;
	p->mask = mask;
	return 0;
}

static struct prof_func *profile_func(struct vs_profile *p, const char *name)
{
	size_t h = hash_str(name) & p->mask;
	struct prof_func *f;

	while (p->slot[h]) {
		f = &p->f[p->slot[h] - 1];
		if (!strcmp(f->name, name))
			return f;
		h = (h + 1) & p->mask;
	}
	if (ALLOC_GROW(p->f, p->n + 1, p->cap) < 0)
		return NULL;
	f = &p->f[p->n];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	if (!f->name)
		return NULL;
	p->slot[h] = ++p->n;
	if (p->n * 2 > p->mask && profile_rehash(p) < 0)
		return NULL;
	return &p->f[p->n - 1];
}

int vs_profile_add_execution(struct vs_profile *p, const char *func,
			     const uint16_t *nr, const uint32_t *gap, size_t n,
			     uint64_t first, uint64_t last)
{
	struct prof_func *f = profile_func(p, func);

	if (!f || ALLOC_GROW(f->start, f->nexec + 1, f->cap_start) < 0 ||
	    ALLOC_GROW(f->nr, f->n + n, f->cap_nr) < 0 ||
	    ALLOC_GROW(f->gap, f->n + n, f->cap_gap) < 0)
		return -1;
	f->start[f->nexec++] = f->n;
	memcpy(f->nr + f->n, nr, n * sizeof(*nr));
	memcpy(f->gap + f->n, gap, n * sizeof(*gap));
	f->n += n;
	f->span_sum += last > first ? last - first : 0;
	return 0;
}

/*
 * The sequences of @f: its executions cut where a gap exceeds @limit; a
 * malloc'ed array of their starts and a spare end, or NULL.
 */
static size_t *cut_sequences(const struct prof_func *f, uint64_t limit,
			     size_t *nseq)
{
	size_t *start = malloc((f->n + 1) * sizeof(*start));
	size_t e, k, end, n = 0;

	if (!start)
		return NULL;
	for (e = 0; e < f->nexec; e++) {
		end = e + 1 < f->nexec ? f->start[e + 1] : f->n;
		start[n++] = f->start[e];
		for (k = f->start[e] + 1; k < end; k++)
			if (f->gap[k] > limit)
				start[n++] = k;
	}
	start[n] = f->n;
	*nseq = n;
	return start;
}

struct vs_signatures *vs_profile_mine(const struct vs_profile *p, double pct,
				      uint64_t gap_limit)
{
	struct vs_signatures *s = calloc(1, sizeof(*s));
	size_t i, *start;
	bool capped;

	if (!s)
		return NULL;
	s->funcs = calloc(p->n + 1, sizeof(*s->funcs));
	if (!s->funcs)
		goto nomem;
	for (i = 0; i < p->n; i++) {
		struct prof_func *f = &p->f[i];
		struct vs_sig_function *sf = &s->funcs[s->nr++];
		struct vs_seqs seqs = { .nr = f->nr };

		sf->name = strdup(f->name);
		start = sf->name ? cut_sequences(f, gap_limit, &seqs.nr_seqs) :
			NULL;
		if (!start)
			goto nomem;
		seqs.start = start;
		sf->executions = f->nexec;
		sf->mean_ns = f->span_sum / (f->nexec ? f->nexec : 1);
		sf->nr_calls = f->n;
		sf->episodes = vs_episodes_mine(&seqs,
				vs_episode_min_support(f->n, pct),
				&sf->nr_episodes, &capped);
		s->nr_capped += capped;
		free(start);
		if (!sf->episodes && errno == ENOMEM)
			goto nomem;
	}
	return s;
nomem:
	vs_signatures_free(s);
	return NULL;
}

void vs_signatures_free(struct vs_signatures *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++) {
		free(s->funcs[i].name);
		free(s->funcs[i].episodes);
	}
	free(s->funcs);
	free(s->call_max_ns);
	free(s->program);
	free(s);
}

uint64_t vs_signature_hang_limit(const struct vs_signatures *s,
				 unsigned int nr)
{
	uint64_t max = s->call_max_ns && nr < VS_NR_SYSCALLS ?
		       s->call_max_ns[nr] : 0;

	if (!s->call_max_ns)	/* a file of before the rule */
		return UINT64_MAX;

	if (max >= UINT64_MAX / VS_SIG_HANG_FACTOR)
		return UINT64_MAX;
	return max * VS_SIG_HANG_FACTOR > VS_SIG_HANG_MIN_NS ?
	       max * VS_SIG_HANG_FACTOR : VS_SIG_HANG_MIN_NS;
}

/* --- inference: execution units --- */

struct unit {
	size_t thread, begin, end;	/* calls [begin, end) of the thread */
	uint32_t cluster;
	uint8_t abnormal;
};

/*
 * The gap after call @i: from its exit to the next enter, or -1 when the
 * thread was switched out in between: such a gap is ignored, as in the
 * paper, not shortened by the time spent off the CPU, because what is
 * left of it is no time of the program's own either (on this VM, the
 * ~50 us of the timer tick that preempted it).  Without switch records a
 * change of CPU marks a switch.
 */
static int64_t call_gap(const struct vs_thread_calls *t, size_t i, size_t *off)
{
	const struct vs_call *a = &t->calls[i], *b = &t->calls[i + 1];
	uint64_t from = a->exit > a->enter ? a->exit : a->enter, to = b->enter;

	if (to < from)
		return 0;
	if (!t->switches)
		return a->cpu == b->cpu ? (int64_t)(to - from) : -1;
	while (*off < t->nr_off && t->off[*off].end <= from)
		(*off)++;
	if (*off < t->nr_off && t->off[*off].start < to)
		return -1;
	return to - from;
}

void vs_gap_stats_add(struct vs_gap_stats *s, uint64_t gap)
{
	double d = gap - s->mean;

	s->n++;
	s->mean += d / s->n;
	s->m2 += d * (gap - s->mean);
}

uint64_t vs_gap_stats_limit(const struct vs_gap_stats *s)
{
	return s->n ? (uint64_t)(s->mean + 2 * sqrt(s->m2 / s->n)) : 0;
}

static uint64_t gap_limit(const struct vs_thread_calls *th, size_t nt)
{
	struct vs_gap_stats st = { 0 };
	size_t t, i, off;
	int64_t g;

	for (t = 0; t < nt; t++) {
		for (i = 0, off = 0; i + 1 < th[t].nr_calls; i++) {
			g = call_gap(&th[t], i, &off);
			if (g >= 0)
				vs_gap_stats_add(&st, g);
		}
	}
	return vs_gap_stats_limit(&st);
}

static struct unit *split_units(const struct vs_thread_calls *th, size_t nt,
				uint64_t limit, size_t *nu)
{
	struct unit *u = NULL;
	size_t n = 0, cap = 0, t, i, off, begin;
	int64_t g;

	for (t = 0; t < nt; t++) {
		for (i = 0, off = 0, begin = 0; i < th[t].nr_calls; i++) {
			g = i + 1 < th[t].nr_calls ?
			    call_gap(&th[t], i, &off) : -1;
			if (i + 1 < th[t].nr_calls && (g < 0 ||
						       (uint64_t)g <= limit))
				continue;
			if (ALLOC_GROW(u, n + 1, cap) < 0) {
				free(u);
				return NULL;
			}
			u[n++] = (struct unit){ .thread = t, .begin = begin,
						.end = i + 1 };
			begin = i + 1;
		}
	}
	*nu = n;
	return u ? u : calloc(1, sizeof(*u));
}

/* --- inference: abnormal units --- */

struct infer {
	const struct vs_signatures *sig;
	const struct vs_thread_calls *th;
	const struct vs_infer_opts *opts;
	struct vs_infer_result *res;
	struct unit *u;
	size_t nu;
	int32_t *type;			/* call -> dense type, -1 unseen */
	size_t ntypes;
};

static const struct vs_call *unit_calls(const struct infer *in,
					const struct unit *u)
{
	return in->th[u->thread].calls + u->begin;
}

static int find_types(struct infer *in)
{
	size_t i, k;

	in->type = malloc(NR_CALLS * sizeof(*in->type));
	if (!in->type)
		return -1;
	memset(in->type, 0xff, NR_CALLS * sizeof(*in->type));
	for (i = 0; i < in->nu; i++) {
		const struct vs_call *c = unit_calls(in, &in->u[i]);

		for (k = 0; k < in->u[i].end - in->u[i].begin; k++)
			if (in->type[c[k].nr] < 0)
				in->type[c[k].nr] = in->ntypes++;
	}
	return 0;
}

static int cluster_units(struct infer *in)
{
	size_t nw = (in->ntypes + 63) / 64, i, k;
	uint64_t *sets = calloc(in->nu * nw + 1, sizeof(*sets));
	uint32_t *cl = malloc((in->nu + 1) * sizeof(*cl));
	long nc = -1;

	if (sets && cl) {
		for (i = 0; i < in->nu; i++) {
			const struct vs_call *c = unit_calls(in, &in->u[i]);

			for (k = 0; k < in->u[i].end - in->u[i].begin; k++) {
				int32_t ty = in->type[c[k].nr];

				sets[i * nw + ty / 64] |= 1ull << (ty % 64);
			}
		}
		nc = vs_cluster_divisive(sets, in->nu, nw,
					 in->opts->cluster_diameter, cl);
		for (i = 0; nc >= 0 && i < in->nu; i++)
			in->u[i].cluster = cl[i];
	}
	free(sets);
	free(cl);
	in->res->nr_clusters = nc > 0 ? nc : 0;
	return nc < 0 ? -1 : 0;
}

/* Outliers of the units @m[0..n) of one cluster, on time and frequency. */
static int cluster_outliers(struct infer *in, const size_t *m, size_t n)
{
	size_t dim = in->ntypes, i, k;
	double *tv = calloc(n * dim + 1, sizeof(*tv));
	double *fv = calloc(n * dim + 1, sizeof(*fv));
	uint8_t *to = malloc(n + 1), *fo = malloc(n + 1);
	int ret = -1;

	if (!tv || !fv || !to || !fo)
		goto out;
	for (i = 0; i < n; i++) {
		const struct unit *u = &in->u[m[i]];
		const struct vs_call *c = unit_calls(in, u);
		double *t = tv + i * dim, *f = fv + i * dim;

		for (k = 0; k < u->end - u->begin; k++) {
			int32_t ty = in->type[c[k].nr];

			f[ty]++;
			t[ty] += c[k].exit > c[k].enter ?
				 (c[k].exit - c[k].enter) / 1000.0 : 0;
		}
		for (k = 0; k < dim; k++)
			if (f[k])
				t[k] /= f[k];
	}
	if (vs_nn_outliers(tv, n, dim, to) < 0 ||
	    vs_nn_outliers(fv, n, dim, fo) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		in->res->nr_time_outliers += to[i];
		in->res->nr_freq_outliers += fo[i];
		in->u[m[i]].abnormal = to[i] || fo[i];
	}
	ret = 0;
out:
	free(tv);
	free(fv);
	free(to);
	free(fo);
	return ret;
}

static int find_abnormal(struct infer *in)
{
	size_t nc = in->res->nr_clusters, i, c;
	size_t *count = calloc(nc + 1, sizeof(*count));
	size_t *first = calloc(nc + 2, sizeof(*first));
	size_t *members = malloc((in->nu + 1) * sizeof(*members));
	int ret = -1;

	if (!count || !first || !members)
		goto out;
	for (i = 0; i < in->nu; i++)
		count[in->u[i].cluster]++;
	for (c = 0; c < nc; c++)
		first[c + 1] = first[c] + count[c];
	memset(count, 0, nc * sizeof(*count));
	for (i = 0; i < in->nu; i++) {
		c = in->u[i].cluster;
		members[first[c] + count[c]++] = i;
	}
	for (c = 0; c < nc; c++) {
		if (count[c] < VS_SIG_SMALL_CLUSTER) {
			for (i = 0; i < count[c]; i++)
				in->u[members[first[c] + i]].abnormal = 1;
			in->res->nr_small_cluster += count[c];
		} else if (cluster_outliers(in, members + first[c],
					    count[c]) < 0) {
			goto out;
		}
	}
	for (i = 0; i < in->nu; i++)
		in->res->nr_abnormal += in->u[i].abnormal;
	ret = 0;
out:
	free(count);
	free(first);
	free(members);
	return ret;
}

/* --- inference: matching against the signatures --- */

struct sig_entry {
	uint64_t key;
	uint32_t func, support;
	uint32_t episode;		/* its index in the function's */
	uint32_t functions;		/* signatures holding the key */
	uint32_t max_support;		/* the largest of their supports */
};

static int cmp_sig_entry(const void *a, const void *b)
{
	const struct sig_entry *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

struct sig_index {
	struct sig_entry *e;
	size_t n;
};

static int index_signatures(const struct vs_signatures *s,
			    struct sig_index *ix)
{
	size_t i, k, n = 0;

	for (i = 0; i < s->nr; i++)
		n += s->funcs[i].nr_episodes;
	ix->e = malloc((n + 1) * sizeof(*ix->e));
	if (!ix->e)
		return -1;
	ix->n = 0;
	for (i = 0; i < s->nr; i++)
		for (k = 0; k < s->funcs[i].nr_episodes; k++)
			ix->e[ix->n++] = (struct sig_entry){
				.key = vs_episode_key(&s->funcs[i].episodes[k]),
				.func = i, .episode = k,
				.support = s->funcs[i].episodes[k].support };
	qsort(ix->e, ix->n, sizeof(*ix->e), cmp_sig_entry);
	for (i = 0; i < ix->n; i = k) {
		uint32_t max = 0;

		for (k = i; k < ix->n && ix->e[k].key == ix->e[i].key; k++)
			if (ix->e[k].support > max)
				max = ix->e[k].support;
		for (n = i; n < k; n++) {
			ix->e[n].functions = k - i;
			ix->e[n].max_support = max;
		}
	}
	return 0;
}

static const struct sig_entry *index_find(const struct sig_index *ix,
					  uint64_t key)
{
	size_t lo = 0, hi = ix->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ix->e[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && ix->e[lo].key == key ? &ix->e[lo] : NULL;
}

/* Per function, the matches of the unit being examined. */
struct unit_match {
	size_t matched;			/* its signature's episodes matched */
	uint64_t unit_total, sig_total;
	bool listed;
};

/*
 * Per function, over the units: whether its whole signature matched in
 * one of them, and the functions whose whole signature matched in every
 * unit it was identified in while its own matched only in part.
 */
struct explained {
	bool seen, full;
	uint32_t *by;
	size_t nr_by;
};

struct match {
	uint32_t func, support, functions;
	uint32_t episode;		/* of the function's signature */
	const struct vs_episode *ep;
};

/*
 * Per function, the episodes of its signature matched so far: where each
 * is in its vs_infer_function's (a signature of 600,000 episodes matched
 * in many units is not scanned for each match), and their capacity.
 */
struct matched_index {
	struct vs_id_index where;	/* signature episode -> episodes[] */
	size_t alloc;
};

static double increase(uint32_t count, uint32_t support)
{
	return 100.0 * ((double)count - support) / (support ? support : 1);
}

static int add_episode(struct vs_infer_function *f, struct matched_index *mi,
		       const struct match *m)
{
	long i = vs_id_index_find(&mi->where, m->episode);

	if (i >= 0) {
		if (m->ep->support > f->episodes[i].ep.support)
			f->episodes[i].ep = *m->ep;
		return 0;
	}
	if (ALLOC_GROW(f->episodes, f->nr_episodes + 1, mi->alloc) < 0 ||
	    vs_id_index_add(&mi->where, m->episode, f->nr_episodes) < 0)
		return -1;
	f->episodes[f->nr_episodes++] = (struct vs_infer_episode){
		.ep = *m->ep, .signature_support = m->support,
		.functions = m->functions };
	return 0;
}

/*
 * The functions identified in one unit, @id[0..@n): those whose whole
 * signature matched explain the others there.
 */
static int explain(struct infer *in, const uint32_t *id, size_t n,
		   const struct unit_match *um, struct explained *ex)
{
	size_t i, k, j, nf = 0;
	uint32_t *full = malloc((n + 1) * sizeof(*full));

	if (!full)
		return -1;
	for (i = 0; i < n; i++)
		if (um[id[i]].matched == in->sig->funcs[id[i]].nr_episodes)
			full[nf++] = id[i];
	for (i = 0; i < n; i++) {
		struct explained *e = &ex[id[i]];

		if (um[id[i]].matched == in->sig->funcs[id[i]].nr_episodes) {
			e->full = true;
		} else if (!e->seen) {
			e->by = malloc((nf + 1) * sizeof(*e->by));
			if (!e->by) {
				free(full);
				return -1;
			}
			memcpy(e->by, full, nf * sizeof(*full));
			e->nr_by = nf;
		} else {	/* keep those full here too */
			for (k = 0, j = 0; k < e->nr_by; k++) {
				size_t f;

				for (f = 0; f < nf && full[f] != e->by[k]; f++)
					;
				if (f < nf)
					e->by[j++] = e->by[k];
			}
			e->nr_by = j;
		}
		e->seen = true;
	}
	free(full);
	return 0;
}

/* Mine abnormal unit @u and fold its identified functions into @out. */
static int match_unit(struct infer *in, const struct unit *u,
		      const struct sig_index *ix, struct unit_match *um,
		      struct vs_infer_function *out, struct matched_index *mi,
		      struct explained *ex)
{
	size_t n = u->end - u->begin, i, ne, nm = 0, mcap = 0, nid = 0;
	const struct vs_call *c = unit_calls(in, u);
	uint16_t *nr = malloc((n + 1) * sizeof(*nr));
	uint64_t *t0 = malloc((n + 1) * sizeof(*t0));
	uint64_t *t1 = malloc((n + 1) * sizeof(*t1));
	size_t start[2] = { 0, n };
	struct vs_episode *ep = NULL;
	struct match *m = NULL;
	uint32_t *id = NULL;
	bool capped;
	int ret = -1;

	if (!nr || !t0 || !t1)
		goto out;
	for (i = 0; i < n; i++) {
		nr[i] = c[i].nr;
		t0[i] = c[i].enter;
		t1[i] = c[i].exit;
	}
	struct vs_seqs seqs = { .nr = nr, .time = t0, .end = t1,
				.start = start, .nr_seqs = 1 };
	ep = vs_episodes_mine(&seqs, vs_episode_min_support(n,
				in->opts->support), &ne, &capped);
	in->res->nr_capped += capped;
	if (!ep && errno == ENOMEM)
		goto out;
	for (i = 0; i < ne; i++) {
		const struct sig_entry *e = index_find(ix,
						vs_episode_key(&ep[i]));

		/* as often as one function's normal run made it: normal */
		if (e && ep[i].support <= e->max_support)
			continue;
		for (; e && e < ix->e + ix->n &&
		       e->key == vs_episode_key(&ep[i]); e++) {
			struct unit_match *f = &um[e->func];

			f->matched++;
			f->unit_total += ep[i].support;
			f->sig_total += e->support;
			if (ALLOC_GROW(m, nm + 1, mcap) < 0)
				goto out;
			m[nm++] = (struct match){ e->func, e->support,
						  e->functions, e->episode,
						  &ep[i] };
		}
	}
	id = malloc((nm + 1) * sizeof(*id));
	if (!id)
		goto out;
	for (i = 0; i < nm; i++) {
		struct unit_match *f = &um[m[i].func];
		struct vs_infer_function *o = &out[m[i].func];

		if (!f->matched || f->unit_total < f->sig_total)
			continue;
		if (!f->listed)
			id[nid++] = m[i].func;
		f->listed = true;
		if (!o->func || m[i].ep->first < o->first)
			o->first = m[i].ep->first;
		if (m[i].ep->last > o->last)
			o->last = m[i].ep->last;
		o->func = &in->sig->funcs[m[i].func];
		if (add_episode(o, &mi[m[i].func], &m[i]) < 0)
			goto out;
	}
	if (explain(in, id, nid, um, ex) < 0)
		goto out;
	ret = 0;
out:
	for (i = 0; i < nm; i++)
		um[m[i].func] = (struct unit_match){ 0 };
	free(id);
	free(m);
	free(ep);
	free(nr);
	free(t0);
	free(t1);
	return ret;
}

/* The increase, match, specificity and score of @f from its episodes. */
static void score_function(struct vs_infer_function *f)
{
	size_t k, n = f->func->nr_episodes;
	double sum = 0, spec = 0, inc;

	f->increase = 0;
	for (k = 0; k < f->nr_episodes; k++) {
		const struct vs_infer_episode *e = &f->episodes[k];

		inc = increase(e->ep.support, e->signature_support);
		if (!k || inc > f->increase)
			f->increase = inc;
		spec += 1.0 / e->functions;
		sum += log2(1 + (inc > 0 ? inc : 0) / 100) / e->functions;
	}
	f->match = 100.0 * f->nr_episodes / (n ? n : 1);
	f->specificity = f->nr_episodes ? spec / f->nr_episodes : 0;
	f->score = sum / (n ? n : 1);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct vs_infer_function *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	if (x->match != y->match)
		return x->match < y->match ? 1 : -1;
	return strcmp(x->func->name, y->func->name);
}

/*
 * Move every function matched only in part below the last of the
 * functions whose whole signature explains its units (@ex, by signature
 * index).  Those never move themselves (their signature matched whole
 * somewhere), so one pass places every function.
 */
static void rank_explained(struct vs_infer_function *f, size_t n,
			   const struct vs_signatures *sig,
			   const struct explained *ex)
{
	struct vs_infer_function tmp;
	size_t i = 0, k, j, last;

	while (i < n) {
		const struct explained *e = &ex[f[i].func - sig->funcs];

		last = i;
		for (k = 0; !e->full && k < e->nr_by; k++)
			for (j = i + 1; j < n; j++)
				if (f[j].func == &sig->funcs[e->by[k]] &&
				    j > last)
					last = j;
		if (last == i) {
			i++;
			continue;
		}
		tmp = f[i];
		tmp.within = f[last].func;
		memmove(&f[i], &f[i + 1], (last - i) * sizeof(*f));
		f[last] = tmp;
	}
	for (i = 0; i < n; i++) {
		const struct explained *e = &ex[f[i].func - sig->funcs];

		if (!f[i].within && !e->full && e->nr_by)
			f[i].within = &sig->funcs[e->by[0]];
	}
}

static int cmp_episode_increase(const void *a, const void *b)
{
	const struct vs_infer_episode *x = a, *y = b;
	double ix = increase(x->ep.support, x->signature_support);
	double iy = increase(y->ep.support, y->signature_support);

	return ix < iy ? 1 : ix > iy ? -1 : 0;
}

static const struct vs_infer_function *order_base;

static int cmp_first(const void *a, const void *b)
{
	const struct vs_infer_function *x = &order_base[*(const size_t *)a];
	const struct vs_infer_function *y = &order_base[*(const size_t *)b];

	return x->first < y->first ? -1 : x->first > y->first;
}

static int rank_functions(struct infer *in)
{
	struct vs_infer_function *out;
	struct explained *ex;
	struct unit_match *um;
	struct matched_index *mi;
	struct sig_index ix = { 0 };
	size_t i, n = 0;
	int ret = -1;

	out = calloc(in->sig->nr + 1, sizeof(*out));
	um = calloc(in->sig->nr + 1, sizeof(*um));
	ex = calloc(in->sig->nr + 1, sizeof(*ex));
	mi = calloc(in->sig->nr + 1, sizeof(*mi));
	if (!out || !um || !ex || !mi || index_signatures(in->sig, &ix) < 0)
		goto out;
	for (i = 0; i < in->nu; i++)
		if (in->u[i].abnormal &&
		    match_unit(in, &in->u[i], &ix, um, out, mi, ex) < 0)
			goto out;
	for (i = 0; i < in->sig->nr; i++)
		if (out[i].func)
			out[n++] = out[i];
	memset(out + n, 0, (in->sig->nr - n) * sizeof(*out));
	for (i = 0; i < n; i++) {
		score_function(&out[i]);
		qsort(out[i].episodes, out[i].nr_episodes,
		      sizeof(*out[i].episodes), cmp_episode_increase);
	}
	qsort(out, n, sizeof(*out), cmp_rank);
	rank_explained(out, n, in->sig, ex);
	in->res->time_order = malloc((n + 1) * sizeof(size_t));
	if (!in->res->time_order)
		goto out;
	for (i = 0; i < n; i++)
		in->res->time_order[i] = i;
	order_base = out;
	qsort(in->res->time_order, n, sizeof(size_t), cmp_first);
	in->res->funcs = out;
	in->res->nr = n;
	out = NULL;
	ret = 0;
out:
	if (out) {
		for (i = 0; i < in->sig->nr; i++)
			free(out[i].episodes);
		free(out);
	}
	for (i = 0; ex && i < in->sig->nr; i++)
		free(ex[i].by);
	for (i = 0; mi && i < in->sig->nr; i++)
		vs_id_index_release(&mi[i].where);
	free(mi);
	free(ex);
	free(um);
	free(ix.e);
	return ret;
}

/* --- inference: hangs --- */

static int cmp_hang(const void *a, const void *b)
{
	const struct vs_sig_hang *x = a, *y = b;

	return x->duration < y->duration ? 1 : x->duration > y->duration ?
	       -1 : (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * Per thread, its longest call beyond its limit: a hang (still open, or
 * ended by the end of the program).
 */
static int find_hangs(struct infer *in, size_t nr_threads)
{
	size_t t, i, n = 0;

	in->res->hangs = calloc(nr_threads + 1, sizeof(*in->res->hangs));
	if (!in->res->hangs)
		return -1;
	for (t = 0; t < nr_threads; t++) {
		const struct vs_thread_calls *th = &in->th[t];
		struct vs_sig_hang *h = &in->res->hangs[n];

		h->duration = 0;
		for (i = 0; i < th->nr_calls; i++) {
			const struct vs_call *c = &th->calls[i];
			uint64_t limit = vs_signature_hang_limit(in->sig, c->nr);
			uint64_t d = c->exit > c->enter ? c->exit - c->enter : 0;

			if (d <= limit || d <= h->duration)
				continue;
			*h = (struct vs_sig_hang){
				.tid = th->tid, .nr = c->nr, .enter = c->enter,
				.duration = d, .limit = limit, .open = c->open,
				.normal_max = in->sig->call_max_ns &&
					      c->nr < VS_NR_SYSCALLS ?
					      in->sig->call_max_ns[c->nr] : 0 };
		}
		n += h->duration > 0;
	}
	qsort(in->res->hangs, n, sizeof(*in->res->hangs), cmp_hang);
	in->res->nr_hangs = n;
	return 0;
}

bool vs_infer_abnormal(const struct vs_infer_result *res,
		       double min_score)
{
	size_t i;

	for (i = 0; i < res->nr; i++)
		if (res->funcs[i].score >= min_score)
			return true;
	return res->nr_hangs > 0;
}

int vs_signature_infer(const struct vs_signatures *sig,
		       const struct vs_thread_calls *threads, size_t nr_threads,
		       const struct vs_infer_opts *opts,
		       struct vs_infer_result *res)
{
	struct infer in = { .sig = sig, .th = threads, .opts = opts,
			    .res = res };
	int ret = -1;
	size_t t;

	memset(res, 0, sizeof(*res));
	for (t = 0; t < nr_threads; t++)
		res->nr_calls += threads[t].nr_calls;
	res->gap_limit = gap_limit(threads, nr_threads);
	in.u = split_units(threads, nr_threads, res->gap_limit, &in.nu);
	if (!in.u)
		goto out;
	res->nr_units = in.nu;
	if (find_types(&in) < 0 || cluster_units(&in) < 0 ||
	    find_abnormal(&in) < 0 || rank_functions(&in) < 0 ||
	    find_hangs(&in, nr_threads) < 0)
		goto out;
	ret = 0;
out:
	free(in.u);
	free(in.type);
	if (ret)
		vs_infer_result_free(res);
	return ret;
}

void vs_infer_result_free(struct vs_infer_result *res)
{
	size_t i;

	for (i = 0; i < res->nr; i++)
		free(res->funcs[i].episodes);
	free(res->funcs);
	free(res->time_order);
	free(res->hangs);
	res->funcs = NULL;
	res->time_order = NULL;
	res->hangs = NULL;
	res->nr = 0;
	res->nr_hangs = 0;
}
