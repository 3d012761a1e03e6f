/* SPDX-License-Identifier: MIT */
/*
 * output-file.h - create the files a command writes (traces, signature
 * files, SVG plots) without following a link or racing anyone.
 *
 * varscope record runs as root, often in a directory others can write
 * (/tmp): a name given with -o may be, or become, another user's symbolic
 * link or a FIFO.  So an output is never opened by its name.  It is
 * created under a fresh temporary name in the same directory (O_EXCL,
 * which follows no link) and renamed over the name at once, before
 * anything is written after its header: whatever sat at the name (a file,
 * a link planted in between) is replaced, never followed or truncated,
 * and a recording killed halfway leaves its trace under the final name,
 * readable up to its last whole chunk.  As git does for its lock files,
 * but renamed first, not last.
 *
 * A name that already is a symbolic link, a FIFO, a device, a socket or a
 * directory is refused with one line before the command starts
 * (vs_output_check()); "-" is the standard output.
 */
#ifndef VS_CORE_OUTPUT_FILE_H
#define VS_CORE_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

/**
 * vs_output_check - whether @path may be written as an output
 *
 * True for "-", a name that does not exist (or cannot be looked at: the
 * creation will say why) and a regular file (not a link to one);
 * otherwise false with "'PATH' is a ...: refused ..." in
 * @err.  A command calls it before it starts, to fail at once.
 */
bool vs_output_check(const char *path, char *err, size_t errlen);

/**
 * vs_output_option - vs_output_check() of @path, the value of option
 * --@name: a refusal is that option's one-line error (exit 129); a NULL
 * @path (the option not given) passes
 */
void vs_output_option(const char *name, const char *path);

/**
 * vs_output_writable - whether @path can be written, tried before a run
 * that may last (signature build's profiling) and leaving the file as it
 * was: a file that does not exist is created and removed again, one that
 * does is opened for writing (not through a link) and closed
 *
 * Returns 0, or -1 with errno saying why not.
 */
int vs_output_writable(const char *path);

/**
 * vs_output_create - create @path (mode 0600) for writing, as above
 * @path: the file; "-" is a duplicate of the standard output
 *
 * Returns a descriptor (close-on-exec) of the new file, already at @path,
 * or -1 with errno: ELOOP, EISDIR or EEXIST when @path is a link, a
 * directory or another file that is not regular (vs_output_check()
 * says it in words), or what creating or renaming failed with.  (record
 * sets a file it replaces aside itself: core/record/record.c.)
 */
int vs_output_create(const char *path);

#endif /* VS_CORE_OUTPUT_FILE_H */
