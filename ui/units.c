// SPDX-License-Identifier: MIT
/*
 * units.c - durations and counts for tables and plots.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/units.h"

/* @v with 3 significant digits and @suffix. */
static char *three_digits(char *buf, size_t len, double v, const char *suffix)
{
	const char *fmt = fabs(v) >= 100 ? "%.0f%s" :
			  fabs(v) >= 10 ? "%.1f%s" : "%.2f%s";

	snprintf(buf, len, fmt, v, suffix);
	return buf;
}

char *vs_format_ns(char *buf, size_t len, double ns)
{
	double a = fabs(ns);

	if (a < 1e3) {
		snprintf(buf, len, "%.0f ns", ns);
		return buf;
	}
	if (a < 1e6)
		return three_digits(buf, len, ns / 1e3, " us");
	if (a < 1e9)
		return three_digits(buf, len, ns / 1e6, " ms");
	return three_digits(buf, len, ns / 1e9, " s");
}

char *vs_format_value(char *buf, size_t len, double value, const char *unit)
{
	double a = fabs(value);

	if (unit && !strcmp(unit, "ns"))
		return vs_format_ns(buf, len, value);
	if (a < 1e6 && value == floor(value)) {
		snprintf(buf, len, "%.0f", value);
		return buf;
	}
	if (a < 1e3)
		return three_digits(buf, len, value, "");
	if (a < 1e6)
		return three_digits(buf, len, value / 1e3, "k");
	if (a < 1e9)
		return three_digits(buf, len, value / 1e6, "M");
	return three_digits(buf, len, value / 1e9, "G");
}
