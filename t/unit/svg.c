// SPDX-License-Identifier: MIT
/*
 * svg.c - unit test of ui/svg: the x axis's tick labels stay inside the
 * plot's box.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui/svg.h"
#include "t/unit/tap.h"

/* The text-anchor of the tick label @label in the SVG text @doc. */
static const char *anchor_of(const char *doc, const char *label)
{
	char want[64];
	const char *at, *start;

	snprintf(want, sizeof(want), ">%s</text>", label);
	at = strstr(doc, want);
	if (!at)
		return "(none)";
	start = at;
	while (start > doc && strncmp(start, "<text", 5))
		start--;
	if (strstr(start, "text-anchor=\"end\"") &&
	    strstr(start, "text-anchor=\"end\"") < at)
		return "end";
	if (strstr(start, "text-anchor=\"middle\"") &&
	    strstr(start, "text-anchor=\"middle\"") < at)
		return "middle";
	return "other";
}

int main(void)
{
	char path[] = "/tmp/vs-svg-XXXXXX";
	struct vs_plot_spec spec = {
		.xunit = "ns", .yunit = "count",
		.xmin = 0, .xmax = 100, .ymin = 0, .ymax = 10,
	};
	struct vs_plot p;
	struct vs_svg *svg;
	char doc[65536];
	size_t n;
	FILE *fp;
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	svg = vs_svg_create(path, 400, 200);
	vs_plot_begin(&p, svg, 0, 0, 400, 200, &spec);
	ok(!vs_svg_finish(svg), "the document is written");
	fp = fopen(path, "r");
	n = fp ? fread(doc, 1, sizeof(doc) - 1, fp) : 0;
	doc[n] = 0;
	if (fp)
		fclose(fp);
	unlink(path);
	/* the last label sits on the right edge: centred, it would be cut */
	is_str(anchor_of(doc, "100 ns"), "end", "the right-most label ends at its tick");
	is_str(anchor_of(doc, "40 ns"), "middle", "the others are centred on theirs");
	return done_testing();
}
