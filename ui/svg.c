// SPDX-License-Identifier: MIT
/*
 * svg.c - SVG plots.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/output-file.h"
#include "ui/svg.h"
#include "ui/units.h"

#define FONT		"font-family=\"DejaVu Sans, Helvetica, sans-serif\""
#define TICK_FONT	10
#define LABEL_FONT	11
#define TITLE_FONT	12
#define MARGIN_LEFT	58	/* tick labels and the y label */
#define MARGIN_BOTTOM	36	/* tick labels and the x label */
#define MARGIN_TOP	20	/* the title */
#define MARGIN_RIGHT	10

struct vs_svg {
	FILE *fp;
};

static void put_escaped(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default: fputc(*s, fp);
		}
	}
}

struct vs_svg *vs_svg_create(const char *path, double width, double height)
{
	struct vs_svg *svg = calloc(1, sizeof(*svg));
	int fd;

	if (!svg)
		return NULL;
	fd = vs_output_create(path);
	svg->fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!svg->fp) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		free(svg);
		errno = e;
		return NULL;
	}
	fprintf(svg->fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		width, height, width, height);
	return svg;
}

int vs_svg_finish(struct vs_svg *svg)
{
	int ret, e;

	fputs("</svg>\n", svg->fp);
	ret = ferror(svg->fp) ? -1 : 0;
	e = errno;
	if (fclose(svg->fp))
		ret = -1;
	else
		errno = e;
	free(svg);
	return ret;
}

static void vtext(struct vs_svg *svg, double x, double y, double size,
		  const char *anchor, const char *extra, const char *fmt,
		  va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return;
	fprintf(svg->fp, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" "
		"text-anchor=\"%s\" %s%s>", x, y, size, anchor, FONT, extra);
	put_escaped(svg->fp, s);
	fputs("</text>\n", svg->fp);
	free(s);
}

void vs_svg_text(struct vs_svg *svg, double x, double y, double size,
		 const char *anchor, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtext(svg, x, y, size, anchor, "", fmt, ap);
	va_end(ap);
}

static void text_extra(struct vs_svg *svg, double x, double y, double size,
		       const char *anchor, const char *extra,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtext(svg, x, y, size, anchor, extra, fmt, ap);
	va_end(ap);
}

static double px(const struct vs_plot *p, double x)
{
	double span = p->xmax - p->xmin;

	return p->left + (span > 0 ? (x - p->xmin) / span : 0.5) * p->width;
}

static double py(const struct vs_plot *p, double y)
{
	double span = p->ymax - p->ymin;

	return p->top + p->height -
	       (span > 0 ? (y - p->ymin) / span : 0.5) * p->height;
}

/* A 1, 2 or 5 times 10^k step that cuts [lo, hi] in 4 to 6: labels fit. */
static double nice_step(double lo, double hi)
{
	double raw = (hi - lo) / 5, mag, f;

	if (!(raw > 0))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static const char *tick_label(char *buf, size_t len, double v,
			      const char *unit)
{
	if (unit)
		return vs_format_value(buf, len, v, unit);
	snprintf(buf, len, "%g", v);
	return buf;
}

/* About how wide a tick label is drawn: 0.6 em a character. */
static double label_width(const char *label)
{
	return strlen(label) * TICK_FONT * 0.6;
}

/* Grid lines and labelled ticks along the x axis, or the y axis. */
static void ticks(struct vs_plot *p, bool y_axis, const char *unit)
{
	double lo = y_axis ? p->ymin : p->xmin, hi = y_axis ? p->ymax : p->xmax;
	double step = nice_step(lo, hi), v;
	char buf[32];

	if (unit && !strcmp(unit, "count") && step < 1)
		step = 1;	/* no 0.2 of a count */

	for (v = ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
		double at = y_axis ? py(p, v) : px(p, v);

		fprintf(p->svg->fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
			y_axis ? p->left : at, y_axis ? at : p->top,
			y_axis ? p->left + p->width : at,
			y_axis ? at : p->top + p->height);
		tick_label(buf, sizeof(buf), v, unit);
		if (y_axis)
			vs_svg_text(p->svg, p->left - 4, at + 3.5, TICK_FONT,
				    "end", "%s", buf);
		else if (at + label_width(buf) / 2 > p->left + p->width +
			 MARGIN_RIGHT)	/* would be cut at the right edge */
			vs_svg_text(p->svg, at, p->top + p->height + 13,
				    TICK_FONT, "end", "%s", buf);
		else
			vs_svg_text(p->svg, at, p->top + p->height + 13,
				    TICK_FONT, "middle", "%s", buf);
	}
}

static void axes(struct vs_plot *p, const struct vs_plot_spec *spec)
{
	FILE *fp = p->svg->fp;

	fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n",
		p->left, p->top, p->width, p->height);
	ticks(p, false, spec->xunit);
	ticks(p, true, spec->yunit);
	if (spec->title)
		vs_svg_text(p->svg, p->left + p->width / 2, p->top - 7,
			    TITLE_FONT, "middle", "%s", spec->title);
	if (spec->xlabel)
		vs_svg_text(p->svg, p->left + p->width / 2,
			    p->top + p->height + 29, LABEL_FONT, "middle",
			    "%s", spec->xlabel);
	if (spec->ylabel) {
		char rot[64];

		snprintf(rot, sizeof(rot), " transform=\"rotate(-90 %.1f %.1f)\"",
			 p->left - 44, p->top + p->height / 2);
		text_extra(p->svg, p->left - 44, p->top + p->height / 2,
			   LABEL_FONT, "middle", rot, "%s", spec->ylabel);
	}
}

void vs_plot_begin(struct vs_plot *p, struct vs_svg *svg, double x, double y,
		   double w, double h, const struct vs_plot_spec *spec)
{
	p->svg = svg;
	p->left = x + MARGIN_LEFT;
	p->top = y + MARGIN_TOP;
	p->width = w - MARGIN_LEFT - MARGIN_RIGHT;
	p->height = h - MARGIN_TOP - MARGIN_BOTTOM;
	p->xmin = spec->xmin;
	p->xmax = spec->xmax;
	p->ymin = spec->ymin;
	p->ymax = spec->ymax;
	p->nr_legend = 0;
	axes(p, spec);
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void vs_plot_line(struct vs_plot *p, const double *xs, const double *ys,
		  size_t n, const char *color)
{
	FILE *fp = p->svg->fp;
	size_t i;

	if (!n)
		return;
	fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
		"points=\"", color);
	for (i = 0; i < n; i++)
		fprintf(fp, "%s%.1f,%.1f", i ? " " : "",
			clamp(px(p, xs[i]), p->left, p->left + p->width),
			clamp(py(p, ys[i]), p->top, p->top + p->height));
	fputs("\"/>\n", fp);
}

void vs_plot_points(struct vs_plot *p, const double *xs, const double *ys,
		    size_t n, const char *color)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(p->svg->fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" "
			"fill=\"%s\"/>\n",
			clamp(px(p, xs[i]), p->left, p->left + p->width),
			clamp(py(p, ys[i]), p->top, p->top + p->height), color);
}

void vs_plot_vline(struct vs_plot *p, double x, const char *color,
		   const char *label)
{
	double X = clamp(px(p, x), p->left, p->left + p->width);
	bool right_half = X > p->left + p->width / 2;
	char fill[40];

	fprintf(p->svg->fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.2\" "
		"stroke-dasharray=\"5,3\"/>\n",
		X, p->top, X, p->top + p->height, color);
	snprintf(fill, sizeof(fill), " fill=\"%s\"", color);
	if (label)
		text_extra(p->svg, X + (right_half ? -4 : 4),
			   p->top + p->height - 6, TICK_FONT,
			   right_half ? "end" : "start", fill, "%s", label);
}

void vs_plot_hline(struct vs_plot *p, double y, const char *color,
		   const char *label)
{
	double Y = clamp(py(p, y), p->top, p->top + p->height);

	fprintf(p->svg->fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\" "
		"stroke-dasharray=\"2,3\"/>\n",
		p->left, Y, p->left + p->width, Y, color);
	if (label)
		vs_svg_text(p->svg, p->left + p->width - 4, Y + 12, TICK_FONT,
			    "end", "%s", label);
}

void vs_plot_legend(struct vs_plot *p, const char *color, const char *label)
{
	double x = p->left + 8, y = p->top + 14 + 14 * p->nr_legend++;

	fprintf(p->svg->fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
		x, y - 4, x + 16, y - 4, color);
	vs_svg_text(p->svg, x + 20, y, TICK_FONT, "start", "%s", label);
}
