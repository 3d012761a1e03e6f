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

#endif /* VS_CMD_BUILTIN_H */
