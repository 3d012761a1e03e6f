// SPDX-License-Identifier: MIT
/*
 * t/unit/vtree-print.c - the names of the variance tree's factors
 * (ui/vtree-print.c), which report's text and JSON and the tui print: a
 * node by its call path, the innermost VS_VTREE_PATH_SHOWN functions,
 * "… → " before them when the path is longer.
 */
#include <string.h>

#include "core/analysis/vtree.h"
#include "ui/vtree-print.h"
#include "t/unit/tap.h"

static const char *const names[] = { "", "main", "serve", "lookup", "hash",
				     "mix", "seek" };

static const char *name_of(void *arg, uint32_t symbol)
{
	(void)arg;
	return names[symbol];
}

int main(void)
{
	/*
	 * latency → main → serve → lookup → hash → mix, and seek under
	 * lookup beside hash: node i is names[i]'s
	 */
	static const unsigned int parent[] = { 0, 0, 1, 2, 3, 4, 3 };
	unsigned int lookup_children[] = { 4, 6 };
	struct vs_vtree_node nodes[7];
	struct vs_vtree vt = { .nr_nodes = 7, .nodes = nodes };
	struct vs_vtree_view v = { .vt = &vt, .name = name_of };
	struct vs_vtree_factor var = { .node = 5, .a = -1, .b = -1 };
	struct vs_vtree_factor cov = { .node = 3, .a = 0, .b = 1 };
	char buf[256], small[12];
	unsigned int i;

	memset(nodes, 0, sizeof(nodes));
	for (i = 0; i < 7; i++) {
		nodes[i].symbol = i;
		nodes[i].parent = parent[i];
	}
	nodes[3].nr_children = 2;
	nodes[3].children = lookup_children;

	is_str(vs_vtree_node_path(&v, 0, buf, sizeof(buf)), "latency",
	       "the root is the latency");
	is_str(vs_vtree_node_path(&v, 1, buf, sizeof(buf)), "main",
	       "a child of the root: its name");
	is_str(vs_vtree_node_path(&v, 3, buf, sizeof(buf)),
	       "main → serve → lookup", "three deep: the whole path");
	is_str(vs_vtree_node_path(&v, 4, buf, sizeof(buf)),
	       "… → serve → lookup → hash",
	       "deeper: the innermost three, shortened from the left");
	is_str(vs_vtree_node_path(&v, 5, buf, sizeof(buf)),
	       "… → lookup → hash → mix", "...however deep");
	is_str(vs_vtree_factor_label(&v, &var, buf, sizeof(buf)),
	       "Var(… → lookup → hash → mix)", "a variance by its path");
	is_str(vs_vtree_factor_label(&v, &cov, buf, sizeof(buf)),
	       "Cov(… → serve → lookup → hash, … → serve → lookup → seek)",
	       "a covariance by the paths of its two children");
	vs_vtree_node_path(&v, 5, small, sizeof(small));
	ok(strlen(small) < sizeof(small) && !strncmp(small, "… → ", 4),
	   "a short buffer: cut, terminated (%s)", small);
	return done_testing();
}
