/* SPDX-License-Identifier: MIT */
/*
 * units.h - numbers for people: nanoseconds as "1.25 ms", counts as
 * "12.3M", the way every varscope table and plot prints them.
 */
#ifndef VS_UI_UNITS_H
#define VS_UI_UNITS_H

#include <stddef.h>

/**
 * vs_format_ns - a duration with 3 significant digits: "850 ns", "1.25 ms"
 */
char *vs_format_ns(char *buf, size_t len, double ns);

/**
 * vs_format_value - a value in its unit: durations for "ns", else a plain
 * number, integers exact below 10^6, then with k/M/G suffixes
 */
char *vs_format_value(char *buf, size_t len, double value, const char *unit);

#endif /* VS_UI_UNITS_H */
