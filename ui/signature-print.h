/* SPDX-License-Identifier: MIT */
/*
 * signature-print.h - what varscope signature prints: the ranking of the
 * functions inferred behind an anomalous recording (infer) or window of
 * time (watch, core/signature/signature-watch.h) as text or JSON, and
 * the summary lines of a build and of a watch, on the standard error.
 */
#ifndef VS_UI_SIGNATURE_PRINT_H
#define VS_UI_SIGNATURE_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/signature/signature-build.h"
#include "core/signature/signature-watch.h"
#include "core/signature/signature.h"
#include "ui/output-format.h"

/**
 * vs_signature_print_built - what build made of command @command (its
 * exit @status): the functions and episodes of @sig written to @output,
 * then the warnings of @st (records lost, stacks cut at @stack_size
 * bytes), on stderr
 */
void vs_signature_print_built(const struct vs_signatures *sig,
			      const struct vs_sig_build_stats *st,
			      const char *output, uint64_t stack_size,
			      const char *command, int status);

/**
 * vs_signature_print_infer - the functions of @res on stdout in @format
 * (text or JSON)
 * @t0: the first call's enter, times are printed from it
 * @nr_threads: the threads whose calls were inferred
 */
void vs_signature_print_infer(const struct vs_infer_result *res, uint64_t t0,
			      size_t nr_threads, enum vs_output_format format);

/* How a watch prints its windows. */
struct vs_signature_watch_print {
	bool json;
	uint64_t t0;			/* CLOCK_MONOTONIC of the start */
	uint64_t window_ns;
	int64_t to_realtime;		/* add to get CLOCK_REALTIME */
	uint64_t normal_calls;		/* of the signatures' normal run, 0:
					   not known */
};

/**
 * vs_signature_watch_print_start - @o for a watch starting now, whose
 * windows are @window_ns long, printed as JSON lines when @json, against
 * signatures of a normal run of @normal_calls system calls (0: not known)
 */
void vs_signature_watch_print_start(struct vs_signature_watch_print *o,
				    bool json, uint64_t window_ns,
				    uint64_t normal_calls);

/**
 * vs_signature_print_window - print abnormal window @win on stdout and
 * flush it: a vs_sig_window_fn whose @arg is a struct
 * vs_signature_watch_print; returns 0
 */
int vs_signature_print_window(const struct vs_sig_window *win, void *arg);

/**
 * vs_signature_print_watched - the line that ends a watch, of @st, on
 * stderr: how long, the windows, the calls traced, the watcher's CPU
 * time, the records lost; then a warning when a window made more calls
 * than the normal run of the signatures (@o's)
 */
void vs_signature_print_watched(const struct vs_signature_watch_print *o,
				const struct vs_sig_watch_stats *st);

#endif /* VS_UI_SIGNATURE_PRINT_H */
