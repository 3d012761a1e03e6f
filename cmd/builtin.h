/* SPDX-License-Identifier: MIT */
/*
 * builtin.h - the varscope subcommands, one file each in cmd/.
 *
 * Each takes (argc, argv) with argv[0] the command name and returns the
 * process exit status.  Commands are thin: they parse options and call
 * the analyses in core/.
 */
#ifndef VS_CMD_BUILTIN_H
#define VS_CMD_BUILTIN_H

int cmd_record(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_script(int argc, const char **argv);
int cmd_tui(int argc, const char **argv);
int cmd_diff(int argc, const char **argv);
int cmd_segments(int argc, const char **argv);
int cmd_signature(int argc, const char **argv);
int cmd_list(int argc, const char **argv);

/* A command whose issue has not landed: --help works, then exit 1. */
int cmd_not_implemented(int argc, const char **argv, const char *synopsis);

#endif /* VS_CMD_BUILTIN_H */
