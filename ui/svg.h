/* SPDX-License-Identifier: MIT */
/*
 * svg.h - small SVG plots: framed axes with ticks, lines, marker lines,
 * legends and text, enough for CDFs (report, Figs. 5 and 7 of VarMRI)
 * and per-segment curves (diff, Fig. 8).
 *
 *	svg = vs_svg_create("out.svg", 900, 600);
 *	struct vs_plot_spec spec = { .title = "latency", .xunit = "ns",
 *				     .xmin = 0, .xmax = 5e6, .ymin = 0, .ymax = 1 };
 *	vs_plot_begin(&plot, svg, 60, 40, 380, 220, &spec);
 *	vs_plot_line(&plot, xs, ys, n, VS_SVG_BLUE);
 *	vs_plot_vline(&plot, threshold, VS_SVG_RED, "threshold");
 *	vs_svg_finish(svg);
 */
#ifndef VS_UI_SVG_H
#define VS_UI_SVG_H

#include <stddef.h>

#define VS_SVG_BLUE	"#1f77b4"
#define VS_SVG_RED	"#d62728"
#define VS_SVG_GREEN	"#2ca02c"
#define VS_SVG_ORANGE	"#ff7f0e"
#define VS_SVG_GREY	"#7f7f7f"

struct vs_svg;

/**
 * vs_svg_create - start an SVG file of @width x @height pixels
 *
 * Returns NULL with errno set when the file cannot be created.
 */
struct vs_svg *vs_svg_create(const char *path, double width, double height);

/**
 * vs_svg_finish - close the document; 0, or -1 with errno on a write error
 */
int vs_svg_finish(struct vs_svg *svg);

/* Text at (@x, @y); @anchor "start", "middle" or "end"; XML-escaped. */
void vs_svg_text(struct vs_svg *svg, double x, double y, double size,
		 const char *anchor, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

struct vs_plot_spec {
	const char *title;
	const char *xlabel, *ylabel;
	const char *xunit, *yunit;	/* tick labels: "ns" as durations */
	double xmin, xmax, ymin, ymax;
};

struct vs_plot {
	struct vs_svg *svg;
	double left, top, width, height;	/* the inner area, pixels */
	double xmin, xmax, ymin, ymax;
	int nr_legend;
};

/**
 * vs_plot_begin - frame, ticks, labels and title of a plot in the box
 * (@x, @y, @w, @h); the axes' labels and ticks take room inside the box
 */
void vs_plot_begin(struct vs_plot *p, struct vs_svg *svg, double x, double y,
		   double w, double h, const struct vs_plot_spec *spec);

/* A polyline through @n points, clipped to the plot. */
void vs_plot_line(struct vs_plot *p, const double *xs, const double *ys,
		  size_t n, const char *color);

/* Dots at @n points. */
void vs_plot_points(struct vs_plot *p, const double *xs, const double *ys,
		    size_t n, const char *color);

/* A dashed vertical (horizontal) line at @x (@y), labelled if @label. */
void vs_plot_vline(struct vs_plot *p, double x, const char *color,
		   const char *label);
void vs_plot_hline(struct vs_plot *p, double y, const char *color,
		   const char *label);

/* One more legend entry in the plot's top-left corner. */
void vs_plot_legend(struct vs_plot *p, const char *color, const char *label);

#endif /* VS_UI_SVG_H */
