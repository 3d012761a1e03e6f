// SPDX-License-Identifier: MIT
/*
 * script.c - varscope script: dump every record of a trace as text or JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "core/parse-options.h"
#include "core/trace.h"
#include "core/type-names.h"
#include "ui/record-print.h"

static const char *const script_usage[] = {
	"varscope script [-i FILE] [--format text|json]",
	NULL
};

int cmd_script(int argc, const char **argv)
{
	const char *input = VS_DEFAULT_FILE, *format = "text";
	const struct vs_option options[] = {
		OPT_STRING('i', "input", &input, "file",
			   "trace to read (default " VS_DEFAULT_FILE ")"),
		OPT_STRING(0, "format", &format, "text|json", "output format"),
		OPT_END()
	};
	void (*print)(FILE *, const struct vs_reader *,
		      const struct vs_type_names *, const struct vs_record *);
	struct vs_type_names names = { 0 };
	struct vs_reader *r;
	struct vs_record rec;
	char err[512];
	int fd, ret;

	argc = parse_options(argc, argv, options, script_usage, 0);
	if (argc)
		usage_with_options(script_usage, options);
	if (!strcmp(format, "text"))
		print = vs_print_record_text;
	else if (!strcmp(format, "json"))
		print = vs_print_record_json;
	else
		option_error("format", "must be text or json");

	fd = vs_trace_open_fd(input);
	if (fd < 0) {
		fprintf(stderr, "varscope script: %s: %s\n", input,
			strerror(errno));
		return 1;
	}
	r = vs_reader_fdopen(fd, input, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "varscope script: %s\n", err);
		return 2;
	}
	if (vs_type_names_read(&names, input)) {
		fprintf(stderr, "varscope script: out of memory\n");
		vs_reader_close(r);
		return 1;
	}
	if (print == vs_print_record_json)
		vs_print_header_json(stdout, vs_reader_header(r));
	else
		vs_print_header_text(stdout, vs_reader_header(r));
	while ((ret = vs_reader_next(r, &rec)) > 0)
		print(stdout, r, &names, &rec);
	fflush(stdout);
	if (ret < 0)
		fprintf(stderr, "varscope script: %s\n", vs_reader_error(r));
	else if (vs_reader_warning(r))
		fprintf(stderr, "varscope script: warning: %s\n",
			vs_reader_warning(r));
	vs_reader_close(r);
	vs_type_names_release(&names);
	return ret < 0 ? 2 : 0;
}
