// SPDX-License-Identifier: MIT
/*
 * vtree-print.c - a variance tree as text or JSON.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/wakeup.h"
#include "ui/json.h"
#include "ui/units.h"
#include "ui/vtree-print.h"

/* Covariance terms below this share of the latency variance: not shown. */
#define COV_SHOWN	0.01

const char *vs_vtree_view_build(struct vs_vtree_view *v,
				const struct vs_func_times *ft,
				const struct vs_task_samples *samples,
				const struct vs_wake_blame *wakeups)
{
	const char *why = "the trace has no samples (record with --sample) "
			  "and no probed functions (--probe)";

	const char *probe_why = NULL;

	v->vt = NULL;
	v->waits = vs_wake_blame_type(wakeups, v->type);
	if (ft) {
		v->vt = vs_vtree_from_probes(ft, v->type, v->waits, &probe_why);
		v->name = vs_vtree_probe_symbol;
		v->source = vs_vtree_probe_source;
		v->library = NULL;
		v->arg = (void *)ft;
		if (probe_why && !strcmp(probe_why, "out of memory"))
			return probe_why;
	}
	if (!v->vt && samples) {
		v->vt = vs_vtree_from_samples(samples, v->type, v->waits, &why);
		v->name = vs_vtree_sample_symbol;
		v->source = vs_vtree_sample_source;
		v->library = vs_vtree_sample_library;
		v->arg = (void *)samples;
	}
	return v->vt ? NULL : why;
}

const char *vs_vtree_node_name(const struct vs_vtree_view *v,
			       unsigned int node)
{
	uint32_t sym = v->vt->nodes[node].symbol;

	if (!node)
		return "latency";
	if (sym >= VS_VTREE_WAIT)
		return v->waits && sym - VS_VTREE_WAIT < v->waits->nr_wakers ?
		       v->waits->wakers[sym - VS_VTREE_WAIT].label : "[wait]";
	return v->name(v->arg, sym);
}

const char *vs_vtree_node_path(const struct vs_vtree_view *v,
			       unsigned int node, char *buf, size_t len)
{
	unsigned int path[VS_VTREE_PATH_SHOWN], nr = 0, at = node;
	size_t n = 0;

	if (!node)
		return snprintf(buf, len, "latency"), buf;
	while (at && nr < VS_VTREE_PATH_SHOWN) {
		path[nr++] = at;
		at = v->vt->nodes[at].parent;
	}
	buf[0] = 0;
	if (at)
		n += snprintf(buf, len, "… → ");
	while (nr-- > 0 && n < len)
		n += snprintf(buf + n, len - n, "%s%s",
			      vs_vtree_node_name(v, path[nr]),
			      nr ? " → " : "");
	return buf;
}

const char *vs_vtree_factor_label(const struct vs_vtree_view *v,
				  const struct vs_vtree_factor *f, char *buf,
				  size_t len)
{
	const struct vs_vtree_node *n = &v->vt->nodes[f->node];
	char a[512], b[512];

	if (f->a < 0)
		snprintf(buf, len, "Var(%s)",
			 vs_vtree_node_path(v, f->node, a, sizeof(a)));
	else
		snprintf(buf, len, "Cov(%s, %s)",
			 vs_vtree_node_path(v, n->children[f->a], a, sizeof(a)),
			 vs_vtree_node_path(v, n->children[f->b], b, sizeof(b)));
	return buf;
}

const char *vs_vtree_probe_list(const struct vs_vtree_view *v, char *buf,
				size_t len)
{
	uint32_t probes[64];
	unsigned int i, nr;
	size_t used = 0;

	nr = vs_vtree_next_probes(v->vt, v->top, probes, 64);
	buf[0] = '\0';
	for (i = 0; i < nr && used < len; i++) {
		const char *lib = v->library ? v->library(v->arg, probes[i])
					     : NULL;

		used += snprintf(buf + used, len - used, "%s%s%s%s",
				 i ? "," : "", v->name(v->arg, probes[i]),
				 lib ? "@" : "", lib ? lib : "");
	}
	return buf;
}

static int by_variance(const void *pa, const void *pb, void *arg)
{
	const struct vs_vtree *vt = arg;
	const unsigned int *a = pa, *b = pb;
	double va = vt->nodes[*a].var, vb = vt->nodes[*b].var;

	if (va != vb)
		return va > vb ? -1 : 1;
	return *a < *b ? -1 : *a > *b;
}

unsigned int vs_vtree_sorted_children(const struct vs_vtree *vt,
				      unsigned int node, unsigned int *out)
{
	const struct vs_vtree_node *n = &vt->nodes[node];

	if (!n->nr_children)	/* a leaf: children may be NULL */
		return 0;
	memcpy(out, n->children, n->nr_children * sizeof(*out));
	qsort_r(out, n->nr_children, sizeof(*out), by_variance,
		(void *)vt);
	return n->nr_children;
}

static double share(const struct vs_vtree *vt, double value)
{
	return vt->nodes[0].var > 0 ? value / vt->nodes[0].var : 0;
}

const char *vs_vtree_node_source(const struct vs_vtree_view *v,
				 unsigned int node)
{
	if (!node || !v->source || v->vt->nodes[node].symbol >= VS_VTREE_WAIT)
		return NULL;
	return v->source(v->arg, v->vt->nodes[node].symbol);
}

static void print_node(FILE *fp, const struct vs_vtree_view *v,
		       unsigned int node)
{
	const struct vs_vtree *vt = v->vt;
	const struct vs_vtree_node *n = &vt->nodes[node];
	unsigned int *order, c, d, nc = n->nr_children;
	char mean[32], noise[16] = "-";
	const char *src;

	if (node && fabs(share(vt, n->var)) < VS_VTREE_MINOR &&
	    n->mean < VS_VTREE_MINOR * vt->nodes[0].mean)
		return;
	vs_format_ns(mean, sizeof(mean), n->mean);
	if (vt->sampled && node)
		snprintf(noise, sizeof(noise), "%.1f%%",
			 100 * share(vt, n->noise));
	src = vs_vtree_node_source(v, node);
	fprintf(fp, "%7.1f%% %7.1f%% %9s %7s  %*s%s%s%s\n",
		100 * share(vt, n->var), 100 * share(vt, n->self_var), mean,
		noise, 2 * n->depth, "", vs_vtree_node_name(v, node),
		src ? "  " : "", src ? src : "");
	for (c = 0; c < nc; c++)
		for (d = c + 1; d < nc; d++) {
			double cov = 2 * n->cov[vs_vtree_pair(nc, c, d)];

			if (fabs(share(vt, cov)) < COV_SHOWN)
				continue;
			fprintf(fp, "%7.1f%% %8s %9s %7s  %*s2 Cov(%s, %s)\n",
				100 * share(vt, cov), "", "", "",
				2 * n->depth + 2, "",
				vs_vtree_node_name(v, n->children[c]),
				vs_vtree_node_name(v, n->children[d]));
		}
	order = malloc(nc * sizeof(*order) + 1);
	if (!order)
		return;
	vs_vtree_sorted_children(vt, node, order);
	for (c = 0; c < nc; c++)
		print_node(fp, v, order[c]);
	free(order);
}

void vs_vtree_print_text(FILE *fp, const struct vs_vtree_view *v)
{
	const struct vs_vtree *vt = v->vt;
	const struct vs_vtree_node *root = &vt->nodes[0];
	char mean[32], sd[32], label[512], probes[4096];
	unsigned int i;

	fprintf(fp, "Variance tree of type %u: %zu tasks, latency mean %s, "
		"sd %s\n", v->type, vt->nr_tasks,
		vs_format_ns(mean, sizeof(mean), root->mean),
		vs_format_ns(sd, sizeof(sd), sqrt(root->var > 0 ?
						    root->var : 0)));
	if (vt->sampled)
		fprintf(fp, "Times from samples; sampling noise subtracted "
			"from the variances (noise column), in all %.1f%% "
			"of the latency variance\n",
			100 * share(vt, vs_vtree_noise(vt)));
	fprintf(fp, "\n%8s %8s %9s %7s  %s\n", "var", "self var", "mean",
		"noise", "function (variances as shares of the latency's)");
	print_node(fp, v, 0);
	fprintf(fp, "\nTop factors (score = specificity x share, "
		"specificity = (root height %u - height)^2):\n",
		root->height);
	fprintf(fp, "%4s %8s %8s %6s  %s\n", "#", "score", "share",
		"height", "factor");
	for (i = 0; i < v->top && i < vt->nr_factors; i++) {
		const struct vs_vtree_factor *f = &vt->factors[i];

		fprintf(fp, "%4u %8.3f %7.1f%% %6u  %s\n", i + 1, f->score,
			100 * f->share, f->height,
			vs_vtree_factor_label(v, f, label, sizeof(label)));
	}
	vs_vtree_probe_list(v, probes, sizeof(probes));
	fprintf(fp, "\nnext --probe: %s\n", *probes ? probes : "(none)");
}

void vs_vtree_print_json(struct json_out *j, const struct vs_vtree_view *v)
{
	const struct vs_vtree *vt = v->vt;
	char label[512], probes[4096];
	unsigned int i, c, d;

	json_begin_object(j);
	json_key(j, "type");
	json_u64(j, v->type);
	json_key(j, "tasks");
	json_u64(j, vt->nr_tasks);
	json_key(j, "sampled");
	json_bool(j, vt->sampled);
	json_key(j, "nodes");
	json_begin_array(j);
	for (i = 0; i < vt->nr_nodes; i++) {
		const struct vs_vtree_node *n = &vt->nodes[i];
		unsigned int nc = n->nr_children;

		json_begin_object(j);
		json_key(j, "id");
		json_u64(j, i);
		json_key(j, "parent");
		if (i)
			json_u64(j, n->parent);
		else
			json_null(j);
		json_key(j, "function");
		json_string(j, vs_vtree_node_name(v, i));
		json_key(j, "source");
		json_string_or_null(j, vs_vtree_node_source(v, i));
		json_key(j, "depth");
		json_u64(j, n->depth);
		json_key(j, "height");
		json_u64(j, n->height);
		json_key(j, "mean_ns");
		json_double(j, n->mean);
		json_key(j, "var");
		json_double(j, n->var);
		json_key(j, "var_share");
		json_double(j, share(vt, n->var));
		json_key(j, "noise_subtracted");
		json_double(j, n->noise);
		json_key(j, "self_mean_ns");
		json_double(j, n->self_mean);
		json_key(j, "self_var");
		json_double(j, n->self_var);
		json_key(j, "self_noise_subtracted");
		json_double(j, n->self_noise);
		json_key(j, "self_cov");
		json_begin_array(j);
		for (c = 0; c < nc; c++)
			json_double(j, n->self_cov[c]);
		json_end_array(j);
		json_key(j, "cov");
		json_begin_array(j);
		for (c = 0; c < nc; c++)
			for (d = c + 1; d < nc; d++) {
				json_begin_object(j);
				json_key(j, "a");
				json_u64(j, n->children[c]);
				json_key(j, "b");
				json_u64(j, n->children[d]);
				json_key(j, "cov");
				json_double(j, n->cov[vs_vtree_pair(nc, c, d)]);
				json_end_object(j);
			}
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
	json_key(j, "factors");
	json_begin_array(j);
	for (i = 0; i < v->top && i < vt->nr_factors; i++) {
		const struct vs_vtree_factor *f = &vt->factors[i];
		const struct vs_vtree_node *n = &vt->nodes[f->node];

		json_begin_object(j);
		json_key(j, "factor");
		json_string(j, vs_vtree_factor_label(v, f, label,
						      sizeof(label)));
		json_key(j, "kind");
		json_string(j, f->a < 0 ? "variance" : "covariance");
		json_key(j, "nodes");
		json_begin_array(j);
		if (f->a < 0) {
			json_u64(j, f->node);
		} else {
			json_u64(j, n->children[f->a]);
			json_u64(j, n->children[f->b]);
		}
		json_end_array(j);
		json_key(j, "value");
		json_double(j, f->value);
		json_key(j, "share");
		json_double(j, f->share);
		json_key(j, "height");
		json_u64(j, f->height);
		json_key(j, "specificity");
		json_double(j, f->specificity);
		json_key(j, "score");
		json_double(j, f->score);
		json_end_object(j);
	}
	json_end_array(j);
	json_key(j, "next_probe");
	json_string(j, vs_vtree_probe_list(v, probes, sizeof(probes)));
	json_end_object(j);
}
