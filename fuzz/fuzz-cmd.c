// SPDX-License-Identifier: MIT
/*
 * fuzz-cmd.c - libFuzzer target for one command that reads traces, run
 * as a user runs it on the input as its trace file.  Built once per
 * command with VS_FUZZ_CMD naming it (see the Makefile's fuzz targets):
 *
 *	report		varscope report -i FILE
 *	tree		varscope report --tree -i FILE
 *	diff		varscope diff FILE FILE@1ms..
 *	segments	varscope segments -i FILE --length 1ms --min-tasks 1
 *	signature	varscope signature infer -s FILE -i FILE
 *
 * Whatever the input, the command must return an exit status (a damaged
 * file is status 2) without a sanitizer report, a leak, a hang or more
 * memory than libFuzzer's -rss_limit_mb; its output goes nowhere.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "cmd/builtin.h"
#include "core/parse-options.h"

#ifndef VS_FUZZ_CMD
#error "build with -DVS_FUZZ_CMD='\"report\"' (or tree, diff, segments, signature)"
#endif

static int run(const char *path)
{
	char range[4200];
	const char *report[] = { "report", "-i", path, NULL };
	const char *tree[] = { "report", "--tree", "-i", path, NULL };
	const char *diff[] = { "diff", path, range, NULL };
	const char *segments[] = { "segments", "-i", path, "--length", "1ms",
				   "--min-tasks", "1", NULL };
	const char *signature[] = { "signature", "infer", "-s", path, "-i",
				    path, NULL };
	const char *name = VS_FUZZ_CMD;

	snprintf(range, sizeof(range), "%s@1ms..", path);
	vs_cmd_name = strcmp(name, "tree") ? name : "report";
	if (!strcmp(name, "report"))
		return cmd_report(3, report);
	if (!strcmp(name, "tree"))
		return cmd_report(4, tree);
	if (!strcmp(name, "diff"))
		return cmd_diff(3, diff);
	if (!strcmp(name, "segments"))
		return cmd_segments(7, segments);
	return cmd_signature(6, signature);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	char path[64];

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		run(path);
		fflush(stdout);
	}
	close(fd);
	return 0;
}
