// SPDX-License-Identifier: MIT
/*
 * browser.c - varscope tui: views over one task type, keys like perf
 * report.
 *
 * Every view is a list of text lines built from the analysis (the
 * ranking, the visible part of the variance tree, the segments) or a
 * drawing (the CDF); one list widget scrolls, selects and searches them.
 */
#include <curses.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/array.h"
#include "core/plural.h"
#include "ui/browser.h"
#include "ui/units.h"

#define WAKERS_SHOWN	3	/* wakers listed in the ranking view */
#define PROGRESS_EVERY_MS 100	/* the loading line, redrawn at most */

enum view { V_RANKING, V_TREE, V_CDF, V_SEGMENTS, V_HELP, NR_VIEWS };

static const char *const view_name[NR_VIEWS] = {
	"Ranking", "Variance tree", "CDF", "Segments", "Help",
};

enum tree_sort { SORT_SCORE, SORT_SHARE, SORT_COV, NR_SORTS };

static const char *const sort_name[NR_SORTS] = {
	"score", "variance share", "covariance factor",
};

struct line {
	char *text;
	int ref;		/* event index, node, or -1 */
};

struct list {
	struct line *l;
	size_t nr, alloc;
	size_t sel, top;
};

struct browser {
	const struct vs_browser_input *in;
	enum view view, back;		/* @back: where q returns from help/CDF */
	struct list lists[NR_VIEWS];
	bool *expanded;			/* per tree node */
	double *node_score, *node_cov;	/* per tree node, for sorting */
	enum tree_sort sort;
	int cdf_event;			/* ranking index shown by the CDF */
	bool linear;			/* the CDF's x axis: linear, not log */
	char search[128];
	char status[1100];
};

static void list_clear(struct list *ls)
{
	size_t i;

	for (i = 0; i < ls->nr; i++)
		free(ls->l[i].text);
	ls->nr = 0;
}

static __attribute__((format(printf, 3, 4)))
void list_add(struct list *ls, int ref, const char *fmt, ...)
{
	va_list ap;
	char *text;

	if (ALLOC_GROW(ls->l, ls->nr + 1, ls->alloc))
		return;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text)
		return;
	ls->l[ls->nr++] = (struct line){ text, ref };
}

/* @text as two lines, cut after the first @at, the second indented. */
static void list_add_wrapped(struct list *ls, const char *text,
			     const char *at)
{
	const char *cut = strstr(text, at);

	if (!cut) {
		list_add(ls, -1, "%s", text);
		return;
	}
	list_add(ls, -1, "%.*s", (int)(cut - text + 1), text);
	list_add(ls, -1, "  %s", cut + strlen(at));
}

/* --- the views' lines ------------------------------------------------ */

/* The waits the type's tasks spent on other threads, as report says. */
static void build_waits(struct browser *b)
{
	const struct vs_wake_type *w = b->in->waits;
	struct list *ls = &b->lists[V_RANKING];
	char ns[32];
	unsigned int i;

	if (!w || !w->nr_wakers)
		return;
	list_add(ls, -1, "Waits blamed along wake-up edges: %s in %llu %s",
		 vs_format_ns(ns, sizeof(ns), (double)w->wait_ns),
		 (unsigned long long)w->tasks,
		 vs_plural(w->tasks, "task", "tasks"));
	for (i = 0; i < w->nr_wakers && i < WAKERS_SHOWN; i++)
		list_add(ls, -1, "  %9s  %s (%s, %u deep), %llu %s",
			 vs_format_ns(ns, sizeof(ns), (double)w->wakers[i].ns),
			 w->wakers[i].label, vs_waker_kind_name(w->wakers[i].kind),
			 w->wakers[i].depth,
			 (unsigned long long)w->wakers[i].waits,
			 vs_plural(w->wakers[i].waits, "wait", "waits"));
}

static void build_ranking(struct browser *b)
{
	const struct vs_type_rank *tr = b->in->rank;
	struct list *ls = &b->lists[V_RANKING];
	char p50[32], pt[32], thr[32];
	size_t i;

	list_clear(ls);
	list_add(ls, -1, "Type %s: %zu tasks, latency p50 %s, p%g %s",
		 b->in->type, tr->tasks, vs_format_ns(p50, sizeof(p50), tr->latency_p50),
		 tr->ptarget * 100,
		 vs_format_ns(pt, sizeof(pt), tr->latency_ptarget));
	if (b->in->tail)	/* two lines, for 80 columns */
		list_add_wrapped(ls, b->in->tail, ": ");
	if (b->in->ran)
		list_add_wrapped(ls, b->in->ran, "; ");
	list_add(ls, -1, "%4s %7s %8s %12s  %s", "#", "impact", "tasks",
		 "threshold", "event (Enter: its CDF)");
	for (i = 0; i < tr->nr_ranked; i++) {
		const struct vs_event_rank *er = &tr->events[i];
		const struct vs_event_def *def =
			vs_taskset_event(b->in->ts, er->event);

		vs_format_value(thr, sizeof(thr), er->thr.value,
				def ? def->unit : "");
		list_add(ls, (int)i, "%4zu %6.1f%% %8zu %12s  %s", i + 1,
			 100 * er->adjusted, er->tasks, thr, er->name);
	}
	if (!tr->nr_ranked)
		list_add(ls, -1, "(no event is ranked: too few tasks)");
	build_waits(b);
	if (!b->in->tree)
		list_add(ls, -1, "No variance tree: %s.", b->in->no_tree);
}

static double node_sort_key(const struct browser *b, unsigned int node)
{
	const struct vs_vtree *vt = b->in->tree->vt;

	if (b->sort == SORT_SCORE)
		return b->node_score[node];
	if (b->sort == SORT_COV)
		return b->node_cov[node];
	return vt->nodes[node].var;
}

static void tree_lines(struct browser *b, unsigned int node)
{
	const struct vs_vtree_view *v = b->in->tree;
	const struct vs_vtree_node *n = &v->vt->nodes[node];
	double total = v->vt->nodes[0].var;
	unsigned int i, j, *order;
	const char *src;
	char mean[32];

	vs_format_ns(mean, sizeof(mean), n->mean);
	src = vs_vtree_node_source(v, node);
	list_add(&b->lists[V_TREE], (int)node,
		 "%6.1f%% %7.3f %6.1f%% %9s %*s%s %s%s%s",
		 total > 0 ? 100 * n->var / total : 0, b->node_score[node],
		 100 * b->node_cov[node], mean, 2 * n->depth, "",
		 !n->nr_children ? " " : b->expanded[node] ? "-" : "+",
		 vs_vtree_node_name(v, node), src ? "  " : "", src ? src : "");
	if (!b->expanded[node] || !n->nr_children)
		return;
	order = malloc(n->nr_children * sizeof(*order));
	if (!order)
		return;
	memcpy(order, n->children, n->nr_children * sizeof(*order));
	for (i = 1; i < n->nr_children; i++)	/* insertion sort, stable */
		for (j = i; j > 0 && node_sort_key(b, order[j]) >
					 node_sort_key(b, order[j - 1]); j--) {
			unsigned int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < n->nr_children; i++)
		tree_lines(b, order[i]);
	free(order);
}

/*
 * Under the tree, its top factors as report --tree names them: each node
 * by its call path, so the same function under two callers reads as two.
 */
static void tree_factors(struct browser *b)
{
	const struct vs_vtree_view *v = b->in->tree;
	struct list *ls = &b->lists[V_TREE];
	char label[512];
	unsigned int i;

	if (!v->vt->nr_factors)
		return;
	list_add(ls, -1, "%s", "");
	list_add(ls, -1, "%4s %7s %7s  %s", "#", "score", "share",
		 "top factors");
	for (i = 0; i < v->top && i < v->vt->nr_factors; i++) {
		const struct vs_vtree_factor *f = &v->vt->factors[i];

		list_add(ls, -1, "%4u %7.3f %6.1f%%  %s", i + 1, f->score,
			 100 * f->share,
			 vs_vtree_factor_label(v, f, label, sizeof(label)));
	}
}

static void build_tree(struct browser *b)
{
	struct list *ls = &b->lists[V_TREE];
	char probes[1024];

	list_clear(ls);
	if (!b->in->tree) {
		list_add(ls, -1, "No variance tree: %s.", b->in->no_tree);
		return;
	}
	list_add(ls, -1, "%7s %7s %7s %9s %s  (sorted by %s; s: sort)",
		 "var", "score", "cov", "mean", "function", sort_name[b->sort]);
	tree_lines(b, 0);
	tree_factors(b);
	snprintf(b->status, sizeof(b->status), "next --probe: %s",
		 *vs_vtree_probe_list(b->in->tree, probes, sizeof(probes)) ?
		 probes : "(none)");
}

/* Per node: its variance factor's score, its largest covariance term. */
static int tree_keys(struct browser *b)
{
	const struct vs_vtree *vt = b->in->tree->vt;
	unsigned int i;

	b->expanded = calloc(vt->nr_nodes, sizeof(*b->expanded));
	b->node_score = calloc(vt->nr_nodes, sizeof(*b->node_score));
	b->node_cov = calloc(vt->nr_nodes, sizeof(*b->node_cov));
	if (!b->expanded || !b->node_score || !b->node_cov)
		return -1;
	b->expanded[0] = true;
	for (i = 0; i < vt->nr_factors; i++) {
		const struct vs_vtree_factor *f = &vt->factors[i];
		const struct vs_vtree_node *n = &vt->nodes[f->node];

		if (f->a < 0) {
			b->node_score[f->node] = f->score;
			continue;
		}
		if (f->share > b->node_cov[n->children[f->a]])
			b->node_cov[n->children[f->a]] = f->share;
		if (f->share > b->node_cov[n->children[f->b]])
			b->node_cov[n->children[f->b]] = f->share;
	}
	return 0;
}

static void build_segments(struct browser *b)
{
	struct list *ls = &b->lists[V_SEGMENTS];
	char p50[32], p99[32];
	size_t i;

	list_clear(ls);
	list_add(ls, -1, "%-40s %8s %10s %10s", "segment", "tasks", "p50",
		 "p99");
	for (i = 0; i < b->in->nr_segments; i++) {
		const struct vs_browser_segment *s = &b->in->segments[i];

		list_add(ls, (int)i, "%-40s %8zu %10s %10s", s->label,
			 s->tasks, vs_format_ns(p50, sizeof(p50), s->p50),
			 vs_format_ns(p99, sizeof(p99), s->p99));
	}
}

static void build_help(struct browser *b)
{
	static const char *const keys[] = {
		"Up/Down, PgUp/PgDn, Home/End   move",
		"Tab                            next view (ranking, tree, "
		"segments)",
		"Enter                          ranking: the event's CDF; "
		"tree: expand/collapse",
		"l                              CDF: logarithmic / linear x axis",
		"+ / -                          tree: expand / collapse",
		"E / C                          tree: expand / collapse all",
		"s                              tree: sort by score, variance "
		"share, covariance",
		"/  n                           search, next match",
		"h  ?                           this help",
		"q  ESC                         back; quit from a main view",
		"",
		"Tree columns: var = the node's variance as a share of the "
		"latency variance;",
		"score = specificity x share; cov = its largest covariance "
		"term (2 Cov)",
		"with a sibling; next --probe (bottom) = children of the top "
		"factors.",
	};
	size_t i;

	list_clear(&b->lists[V_HELP]);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		list_add(&b->lists[V_HELP], -1, "%s", keys[i]);
}

static void rebuild(struct browser *b)
{
	struct list *ls = &b->lists[b->view];

	b->status[0] = '\0';
	if (b->view == V_RANKING)
		build_ranking(b);
	else if (b->view == V_TREE)
		build_tree(b);
	else if (b->view == V_SEGMENTS)
		build_segments(b);
	else if (b->view == V_HELP)
		build_help(b);
	if (ls->nr && ls->sel >= ls->nr)
		ls->sel = ls->nr - 1;
}

/* --- drawing --------------------------------------------------------- */

static int body_rows(void)
{
	return LINES > 2 ? LINES - 2 : 1;
}

static void draw_list(struct list *ls)
{
	int rows = body_rows(), r;

	if (ls->sel < ls->top)
		ls->top = ls->sel;
	if (ls->sel >= ls->top + (size_t)rows)
		ls->top = ls->sel - rows + 1;
	for (r = 0; r < rows && ls->top + r < ls->nr; r++) {
		if (ls->top + r == ls->sel)
			attron(A_REVERSE);
		mvaddnstr(r + 1, 0, ls->l[ls->top + r].text, COLS);
		if (ls->top + r == ls->sel) {
			int x = getcurx(stdscr);

			if (x > 0 || !ls->l[ls->top + r].text[0])
				mvhline(r + 1, x, ' ', COLS - x);
			attroff(A_REVERSE);
		}
	}
}

/* The x of value @v on a scale from @lo to @hi, @w columns, log or not. */
static double cdf_x(double v, double lo, double hi, int w, bool log_x)
{
	if (log_x)
		return v <= lo ? 0 : log(v / lo) / log(hi / lo) * w;
	return (v - lo) / (hi - lo) * w;
}

/* The value at column @x, the inverse of cdf_x(). */
static double cdf_value(int x, double lo, double hi, int w, bool log_x)
{
	if (log_x)
		return lo * pow(hi / lo, (double)x / w);
	return lo + (hi - lo) * x / w;
}

/*
 * The CDF of the chosen event: p up, value right, '|' at the threshold.
 * The x axis is logarithmic by default, from the smallest value above 0
 * (the first column holds the zeros) to the largest, so that a
 * distribution with most values at 0 still shows its tail; 'l' switches
 * to a linear axis up to the p99 (or the threshold, if above), where a
 * far tail does not flatten the rest.
 */
static void draw_cdf(struct browser *b)
{
	const struct vs_event_rank *er = &b->in->rank->events[b->cdf_event];
	const struct vs_event_def *def = vs_taskset_event(b->in->ts,
							  er->event);
	const char *unit = def ? def->unit : "";
	int h = LINES - 6, w = COLS - 8, x, y;
	bool log_x = !b->linear;
	double lo = 0, hi = 0;
	char a[32], c[32], m[32], title[512];
	size_t k;

	if (er->cdf) {
		for (k = 0; k < VS_CDF_POINTS && er->cdf[k] <= 0; k++)
			;
		lo = k < VS_CDF_POINTS ? er->cdf[k] : 0;
		hi = er->cdf[VS_CDF_POINTS - 1];
		log_x = log_x && lo > 0 && hi > lo;
	}
	snprintf(title, sizeof(title), "CDF of %s over %zu tasks; threshold "
		 "%s (p%.1f)", er->name, er->tasks,
		 vs_format_value(a, sizeof(a), er->thr.value, unit),
		 100 * er->thr.pthreshold);
	mvaddnstr(1, 0, title, COLS);
	snprintf(b->status, sizeof(b->status), "x axis: %s (l: %s)",
		 log_x ? "log" : "linear", log_x ? "linear" : "log");
	if (!er->cdf || h < 3 || w < 10) {
		mvaddstr(3, 0, er->cdf ? "(window too small)" : "(no CDF)");
		return;
	}
	if (!log_x) {
		lo = er->cdf[0];
		hi = er->cdf[(VS_CDF_POINTS - 1) * 99 / 100];
		if (er->thr.value * 1.05 > hi)
			hi = er->thr.value * 1.05;
		if (hi <= lo)
			hi = lo + 1;
	}
	for (y = 0; y <= h; y += h / 4 > 0 ? h / 4 : 1)
		mvprintw(2 + y, 0, "%5.2f", 1.0 - (double)y / h);
	mvvline(2, 6, ACS_VLINE, h + 1);
	mvhline(3 + h, 6, ACS_HLINE, w + 1);
	for (x = 0; x <= w; x++) {
		double v = cdf_value(x, lo, hi, w, log_x);
		size_t lo_k = 0, hi_k = VS_CDF_POINTS;

		while (lo_k < hi_k) {	/* points <= v */
			k = (lo_k + hi_k) / 2;
			if (er->cdf[k] <= v * (1 + 1e-9))
				lo_k = k + 1;
			else
				hi_k = k;
		}
		y = h - (int)lround((double)lo_k / VS_CDF_POINTS * h);
		mvaddch(2 + y, 7 + x, '*');
	}
	x = (int)lround(cdf_x(er->thr.value, lo, hi, w, log_x));
	if (x >= 0 && x <= w && (!log_x || er->thr.value > 0))
		for (y = 0; y <= h; y++)
			if ((mvinch(2 + y, 7 + x) & A_CHARTEXT) != '*')
				mvaddch(2 + y, 7 + x, '|');
	vs_format_value(a, sizeof(a), lo, unit);
	mvprintw(4 + h, 7, "%s%s", log_x ? "<=" : "", a);
	vs_format_value(m, sizeof(m), cdf_value(w / 2, lo, hi, w, log_x), unit);
	mvprintw(4 + h, 7 + w / 2 - (int)strlen(m) / 2, "%s", m);
	vs_format_value(c, sizeof(c), hi, unit);
	mvprintw(4 + h, COLS - 1 - (int)strlen(c) > 0 ?
		 COLS - 1 - (int)strlen(c) : 0, "%s", c);
}

static void draw(struct browser *b)
{
	erase();
	attron(A_BOLD);
	mvprintw(0, 0, "varscope tui: %s - %s (type %s)   h: help  Tab: "
		 "views  q: quit", b->in->path, view_name[b->view],
		 b->in->type);
	attroff(A_BOLD);
	if (b->view == V_CDF)
		draw_cdf(b);
	else
		draw_list(&b->lists[b->view]);
	mvaddnstr(LINES - 1, 0, b->status, COLS);
	refresh();
}

/* --- keys ------------------------------------------------------------- */

static void search_next(struct browser *b, bool from_here)
{
	struct list *ls = &b->lists[b->view];
	size_t i, start;

	if (!b->search[0] || !ls->nr)
		return;
	start = from_here ? ls->sel : ls->sel + 1;
	for (i = 0; i < ls->nr; i++) {
		size_t k = (start + i) % ls->nr;

		if (strstr(ls->l[k].text, b->search)) {
			ls->sel = k;
			snprintf(b->status, sizeof(b->status), "/%s",
				 b->search);
			return;
		}
	}
	snprintf(b->status, sizeof(b->status), "not found: %s", b->search);
}

static void search_prompt(struct browser *b)
{
	size_t n = 0;
	int c;

	b->search[0] = '\0';
	for (;;) {
		snprintf(b->status, sizeof(b->status), "/%s", b->search);
		draw(b);
		c = getch();
		if (c == '\n' || c == KEY_ENTER)
			break;
		if (c == 27) {
			b->search[0] = '\0';
			b->status[0] = '\0';
			return;
		}
		if ((c == KEY_BACKSPACE || c == 127 || c == 8) && n)
			b->search[--n] = '\0';
		else if (c >= ' ' && c < 127 && n + 1 < sizeof(b->search)) {
			b->search[n++] = (char)c;
			b->search[n] = '\0';
		}
	}
	search_next(b, true);
}

static void tree_toggle(struct browser *b, int how)
{
	struct list *ls = &b->lists[V_TREE];
	int node;

	if (!b->in->tree || ls->sel >= ls->nr || (node = ls->l[ls->sel].ref) < 0)
		return;
	b->expanded[node] = how < 0 ? !b->expanded[node] : how;
	rebuild(b);
}

static void tree_all(struct browser *b, bool expand)
{
	unsigned int i;

	if (!b->in->tree)
		return;
	for (i = 1; i < b->in->tree->vt->nr_nodes; i++)
		b->expanded[i] = expand;
	rebuild(b);
}

static void show(struct browser *b, enum view v)
{
	b->view = v;
	rebuild(b);
}

/* Returns false when the browser should quit. */
static bool key(struct browser *b, int c)
{
	struct list *ls = &b->lists[b->view];
	size_t page = (size_t)body_rows();

	switch (c) {
	case KEY_UP: case 'k':
		if (ls->sel)
			ls->sel--;
		break;
	case KEY_DOWN: case 'j':
		if (ls->sel + 1 < ls->nr)
			ls->sel++;
		break;
	case KEY_PPAGE:
		ls->sel = ls->sel > page ? ls->sel - page : 0;
		break;
	case KEY_NPAGE: case ' ':
		ls->sel = ls->sel + page < ls->nr ? ls->sel + page :
			  (ls->nr ? ls->nr - 1 : 0);
		break;
	case KEY_HOME:
		ls->sel = 0;
		break;
	case KEY_END:
		ls->sel = ls->nr ? ls->nr - 1 : 0;
		break;
	case '\t':
		show(b, b->view == V_RANKING ? V_TREE :
			b->view == V_TREE ? V_SEGMENTS : V_RANKING);
		break;
	case '\n': case KEY_ENTER: case KEY_RIGHT:
		if (b->view == V_TREE)
			tree_toggle(b, c == KEY_RIGHT ? 1 : -1);
		else if (b->view == V_RANKING && ls->sel < ls->nr &&
			 ls->l[ls->sel].ref >= 0) {
			b->cdf_event = ls->l[ls->sel].ref;
			b->back = b->view;
			show(b, V_CDF);
		}
		break;
	case '+':
		tree_toggle(b, 1);
		break;
	case '-': case KEY_LEFT:
		tree_toggle(b, 0);
		break;
	case 'E':
		tree_all(b, true);
		break;
	case 'C':
		tree_all(b, false);
		break;
	case 'l':
		if (b->view == V_CDF)
			b->linear = !b->linear;
		break;
	case 's':
		if (b->view == V_TREE) {
			b->sort = (b->sort + 1) % NR_SORTS;
			rebuild(b);
		}
		break;
	case '/':
		search_prompt(b);
		break;
	case 'n':
		search_next(b, false);
		break;
	case 'h': case '?':
		if (b->view != V_HELP && b->view != V_CDF)
			b->back = b->view;
		show(b, V_HELP);
		break;
	case 'q': case 27:
		if (b->view != V_HELP && b->view != V_CDF)
			return false;
		show(b, b->back);
		break;
	case KEY_RESIZE:
		break;
	}
	return true;
}

/* --- the terminal ------------------------------------------------------ */

static bool screen_up;

static void screen_restore(void)
{
	if (screen_up) {
		screen_up = false;
		endwin();
	}
}

static void screen_signal(int sig)
{
	screen_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void browser_free(struct browser *b)
{
	unsigned int i;

	for (i = 0; i < NR_VIEWS; i++) {
		list_clear(&b->lists[i]);
		free(b->lists[i].l);
	}
	free(b->expanded);
	free(b->node_score);
	free(b->node_cov);
}

int vs_browser_open(FILE *keys)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	unsigned int i;

	if (screen_up)
		return 0;
	atexit(screen_restore);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], screen_signal);
	setlocale(LC_ALL, "");
	if (!newterm(NULL, stdout, keys))
		return -1;
	screen_up = true;
	/* no flushinp() anywhere: keys typed while the trace loads count */
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	return 0;
}

void vs_browser_close(void)
{
	screen_restore();
}

void vs_browser_loading(const char *line)
{
	if (!screen_up)
		return;
	erase();
	mvprintw(LINES / 2, 2, "%s", line);
	mvprintw(LINES / 2 + 1, 2, "keys typed now are kept");
	refresh();
}

void vs_browser_progress(void *what, uint64_t done, uint64_t total)
{
	static uint64_t last_ms;
	struct timespec ts;
	char line[512];
	uint64_t ms;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ms = ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
	if (!screen_up || (done < total && ms - last_ms < PROGRESS_EVERY_MS))
		return;
	last_ms = ms;
	snprintf(line, sizeof(line), "%s: %3.0f%% (%.1f of %.1f MB)",
		 (const char *)what, total ? 100.0 * done / total : 100.0,
		 done / 1e6, total / 1e6);
	vs_browser_loading(line);
}

int vs_browser_run(const struct vs_browser_input *in)
{
	struct browser b = { .in = in, .view = V_RANKING };
	int c;

	if ((in->tree && tree_keys(&b)) || !screen_up) {
		browser_free(&b);
		return -1;
	}
	if (in->tree)	/* the tree opens one level down, a key away */
		for (c = 0; c < (int)in->tree->vt->nodes[0].nr_children; c++)
			b.expanded[in->tree->vt->nodes[0].children[c]] = true;
	rebuild(&b);
	if (in->status)
		snprintf(b.status, sizeof(b.status), "%s", in->status);
	do {
		draw(&b);
		c = getch();
	} while (key(&b, c));
	screen_restore();
	browser_free(&b);
	return 0;
}
