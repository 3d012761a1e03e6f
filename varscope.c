// SPDX-License-Identifier: MIT
/*
 * varscope.c - the varscope command: dispatch to the subcommands in cmd/.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "core/parse-options.h"

#ifndef VARSCOPE_VERSION
#define VARSCOPE_VERSION "0.0"
#endif

struct cmd_struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *summary;
};

static const struct cmd_struct commands[] = {
	{ "record",	cmd_record,	"Run a program and record its AppTasks' kernel and hardware events" },
	{ "report",	cmd_report,	"Rank events by their impact on tail latency" },
	{ "tui",	cmd_tui,	"Browse the ranking and the variance tree in the terminal" },
	{ "diff",	cmd_diff,	"Compare two segments of recordings" },
	{ "segments",	cmd_segments,	"Cut recordings into segments and tabulate their tails" },
	{ "signature",	cmd_signature,	"Build and match function signatures from system calls" },
	{ "script",	cmd_script,	"Dump every record of a trace as text or JSON" },
	{ "list",	cmd_list,	"List the hardware events and what the PMU can count" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_main_usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: varscope [--version] [--help] COMMAND [ARGS]\n\n"
		"The varscope commands are:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(fp, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "   %-10s %s\n", "help", "Show the manual page of a command");
	fprintf(fp, "\nSee 'varscope help COMMAND' for more on a command.\n");
}

static const struct cmd_struct *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Damerau-free Levenshtein distance, small strings only. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[64], prev, tmp;

	if (lb >= sizeof(row) / sizeof(row[0]))
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			tmp = row[j];
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

static const char *closest_command(const char *name)
{
	const char *best = NULL;
	size_t i, best_d = (size_t)-1;

	for (i = 0; i < NR_COMMANDS; i++) {
		size_t d = edit_distance(name, commands[i].name);

		if (!strncmp(name, commands[i].name, strlen(name)))
			d = 0;
		if (d < best_d) {
			best_d = d;
			best = commands[i].name;
		}
	}
	return best;
}

static int unknown_command(const char *name)
{
	fprintf(stderr, "varscope: '%s' is not a varscope command. See 'varscope --help'.\n",
		name);
	fprintf(stderr, "\nThe most similar command is\n\t%s\n", closest_command(name));
	return 1;
}

static int run_builtin(const struct cmd_struct *cmd, int argc, const char **argv)
{
	int status;

	vs_cmd_name = cmd->name;
	status = cmd->fn(argc, argv);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "varscope %s: write error on standard output\n",
			cmd->name);
		return status ? status : 1;
	}
	return status;
}

/*
 * The man pages of a build tree (make doc puts them in build/man) or of an
 * installation under another prefix are not on man's default path: look
 * for them next to the binary and put the first found in front of MANPATH
 * (the trailing ':' keeps man's own path after it).
 */
static void add_own_manpath(void)
{
	static const char *const candidates[] = {
		"build/man", "../build/man", "../share/man",
	};
	char exe[PATH_MAX], dir[PATH_MAX + 32];
	const char *old = getenv("MANPATH");
	char *slash;
	ssize_t n;
	size_t i;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		struct stat st;
		char *value;

		snprintf(dir, sizeof(dir), "%s/%s/man1", exe, candidates[i]);
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			continue;
		dir[strlen(dir) - strlen("/man1")] = '\0';
		if (asprintf(&value, "%s:%s", dir, old ? old : "") < 0)
			return;
		setenv("MANPATH", value, 1);
		free(value);
		return;
	}
}

/* Returns 0 when man showed @page, -1 when man or the page is missing. */
static int show_man_page(const char *page)
{
	int status;
	pid_t pid;

	add_own_manpath();
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		/* man's "No manual entry" is replaced by the usage */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		execlp("man", "man", page, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * varscope help CMD: the man page varscope-CMD(1), or the command's usage
 * when man or the page is missing, or VARSCOPE_NO_MAN is set.
 */
static int cmd_help(int argc, const char **argv)
{
	const char *hargv[] = { NULL, "--help", NULL };
	const struct cmd_struct *cmd;
	char page[64];

	if (argc < 2) {
		print_main_usage(stdout);
		return 0;
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	snprintf(page, sizeof(page), "varscope-%s", cmd->name);
	if (!getenv("VARSCOPE_NO_MAN") && !show_man_page(page))
		return 0;
	hargv[0] = cmd->name;
	return run_builtin(cmd, 2, hargv);
}

int main(int argc, const char **argv)
{
	const struct cmd_struct *cmd;
	size_t i;

	if (argc < 2) {
		print_main_usage(stdout);
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_main_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("varscope version %s\n", VARSCOPE_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--list-cmds")) {
		for (i = 0; i < NR_COMMANDS; i++)
			printf("%s\n", commands[i].name);
		printf("help\n");
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	if (argv[1][0] == '-') {
		fprintf(stderr, "varscope: unknown option '%s'. See 'varscope --help'.\n",
			argv[1]);
		return 129;
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	return run_builtin(cmd, argc - 1, argv + 1);
}
