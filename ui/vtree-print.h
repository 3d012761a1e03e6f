/* SPDX-License-Identifier: MIT */
/*
 * vtree-print.h - a variance tree as text or JSON (varscope report
 * --tree), and the labels the tui shows for its nodes and factors.
 */
#ifndef VS_UI_VTREE_PRINT_H
#define VS_UI_VTREE_PRINT_H

#include <stdio.h>

#include "core/analysis/vtree.h"

struct json_out;

/* The name of symbol @symbol (never NULL); or its source line, or NULL. */
typedef const char *(*vs_vtree_name_fn)(void *arg, uint32_t symbol);

struct vs_vtree_view {
	struct vs_vtree *vt;
	vs_vtree_name_fn name;
	vs_vtree_name_fn source;	/* NULL: no source lines */
	vs_vtree_name_fn library;	/* NULL: no function in a library */
	const struct vs_wake_type *waits;	/* names the wait nodes */
	void *arg;
	uint32_t type;		/* the task type */
	unsigned int top;	/* factors listed and refined */
};

struct vs_func_times;
struct vs_task_samples;
struct vs_wake_blame;

/**
 * vs_vtree_view_build - the tree of task type @v->type: exact from the
 * probed call paths of @ft when its tasks have some, else from the
 * callchains of @samples (either may be NULL) and the waits @wakeups
 * blames on threads outside the task (NULL: none, core/analysis/wakeup.h)
 *
 * Fills @v->vt (NULL when there is no tree), @v->name and @v->arg;
 * returns why there is no tree, or NULL.  "out of memory" is one reason.
 */
const char *vs_vtree_view_build(struct vs_vtree_view *v,
				const struct vs_func_times *ft,
				const struct vs_task_samples *samples,
				const struct vs_wake_blame *wakeups);

/* The name of node @node: "latency" for the root, "[wait] comm/tid". */
const char *vs_vtree_node_name(const struct vs_vtree_view *v,
			       unsigned int node);

/* Where the function of node @node begins ("file.c:12"), or NULL. */
const char *vs_vtree_node_source(const struct vs_vtree_view *v,
				 unsigned int node);

#define VS_VTREE_PATH_SHOWN	3	/* functions of a factor's path */

/**
 * vs_vtree_node_path - the call path of node @node into @buf: its
 * ancestors' names and its own from the root's child down, " → " between
 * them, the innermost VS_VTREE_PATH_SHOWN, "… → " before them when there
 * are more ("latency" for the root)
 */
const char *vs_vtree_node_path(const struct vs_vtree_view *v,
			       unsigned int node, char *buf, size_t len);

/*
 * "Var(lookup → hash)" or "Cov(lookup → hash, lookup → seek)" of factor
 * @f into @buf: each node by its call path (vs_vtree_node_path()), so
 * that the same function under two callers, two nodes, reads as two.
 */
const char *vs_vtree_factor_label(const struct vs_vtree_view *v,
				  const struct vs_vtree_factor *f, char *buf,
				  size_t len);

/* The next --probe list, "f,g,h", into @buf ("" when there is none). */
const char *vs_vtree_probe_list(const struct vs_vtree_view *v, char *buf,
				size_t len);

/**
 * vs_vtree_sorted_children - @node's children (node indices) in @out, largest
 * variance first; returns how many
 */
unsigned int vs_vtree_sorted_children(const struct vs_vtree *vt,
				      unsigned int node, unsigned int *out);

void vs_vtree_print_text(FILE *fp, const struct vs_vtree_view *v);
void vs_vtree_print_json(struct json_out *j, const struct vs_vtree_view *v);

#endif /* VS_UI_VTREE_PRINT_H */
