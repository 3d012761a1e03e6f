/* SPDX-License-Identifier: MIT */
/*
 * output-format.h - the --format option every printing command has: text
 * for people, JSON and CSV for programs.
 */
#ifndef VS_UI_OUTPUT_FORMAT_H
#define VS_UI_OUTPUT_FORMAT_H

enum vs_output_format {
	VS_FORMAT_TEXT,
	VS_FORMAT_JSON,
	VS_FORMAT_CSV,
	VS_FORMAT__NR
};

/* A command's formats, for vs_format_option()'s @allowed. */
#define VS_FORMATS_TEXT_JSON	((1u << VS_FORMAT_TEXT) | (1u << VS_FORMAT_JSON))
#define VS_FORMATS_ALL		(VS_FORMATS_TEXT_JSON | (1u << VS_FORMAT_CSV))

/**
 * vs_format_option - the format that --format @name names
 * @name: "text", "json" or "csv"
 * @allowed: the formats the command prints, a mask of 1 << VS_FORMAT_*
 *
 * A name not in @allowed exits through option_error() (status 129):
 * "must be text, json or csv".
 */
enum vs_output_format vs_format_option(const char *name, unsigned int allowed);

#endif /* VS_UI_OUTPUT_FORMAT_H */
