/* SPDX-License-Identifier: MIT */
/*
 * uprobe.h - function probes: find a symbol's file offset with libelf
 * (--task-func and --probe, whose BPF programs the engine attaches there),
 * and make a uprobe or uretprobe a trace event (the probes' cost
 * measurement, --syscalls).
 *
 * Not the uprobe PMU (/sys/bus/event_source/devices/uprobe): an event of
 * that PMU takes the binary's path as a user pointer (config1) which the
 * kernel reads again for every inherited copy, in the new thread's address
 * space, so clone() of a probed process fails with EFAULT.  A uprobe trace
 * event (tracefs uprobe_events) is a tracepoint and inherits cleanly.
 */
#ifndef VS_CORE_UPROBE_H
#define VS_CORE_UPROBE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct vs_func_probe {
	char symbol[256];
	char binary[PATH_MAX];
	uint64_t offset;	/* file offset of the symbol's first byte */
};

/**
 * vs_uprobe_resolve - SYMBOL[@BINARY] to a binary and file offset
 * @spec: "PortalRun@/usr/lib/postgresql/15/bin/postgres" or "f3"
 * @default_binary: the binary when @spec names none (found in PATH); a
 *	symbol it does not define is looked for in the libraries it links
 *	(DT_NEEDED, where `ldconfig -p` puts them); a BINARY of @spec with
 *	no '/' that PATH lacks is a library's name, found the same way
 * @p: filled
 * @err: one line on failure
 *
 * Looks in .symtab, then .dynsym (stripped binaries), then for a C++
 * function of that demangled name ("app::Server::handle", with or without
 * its parameters; several overloads are an error that lists them);
 * handles PIE and shared libraries (uprobes take file offsets, not
 * addresses).
 * Returns 0 or -1.
 */
int vs_uprobe_resolve(const char *spec, const char *default_binary,
		      struct vs_func_probe *p, char *err, size_t errlen);

struct tracefs_dynevent;

/**
 * vs_uprobe_create - a uprobe (@ret false) or uretprobe trace event at @p
 * @system, @event: its tracefs group and name
 * @dyn: set to the event, for vs_uprobe_destroy()
 * @err: one line on failure
 *
 * Returns the tracepoint id (attr.config of PERF_TYPE_TRACEPOINT), or -1.
 */
int vs_uprobe_create(const struct vs_func_probe *p, bool ret,
		     const char *system, const char *event,
		     struct tracefs_dynevent **dyn, char *err, size_t errlen);

/* Remove a trace event made by vs_uprobe_create() (NULL: nothing). */
void vs_uprobe_destroy(struct tracefs_dynevent *dyn);

/* The tracefs group of a process's uprobe events: this and its pid. */
#define VS_UPROBE_GROUP "varscope_"

/**
 * vs_uprobe_remove_stale - remove the uprobe events of dead recorders
 * @prefix: the groups' common start; a group is @prefix followed by the
 *          pid of the recorder that made it ("varscope_1234")
 *
 * A recorder killed with SIGKILL cannot remove its events; they stay in
 * the machine-wide list.  Events of a recorder still running are kept.
 */
void vs_uprobe_remove_stale(const char *prefix);

#endif /* VS_CORE_UPROBE_H */
