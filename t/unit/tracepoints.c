// SPDX-License-Identifier: MIT
/*
 * tracepoints.c - record's tracepoint set (-e), on tracepoint formats
 * given as text (as tracefs prints them), without a kernel.
 */
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "core/record/tracepoints.h"
#include "t/unit/tap.h"

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const struct {
	const char *system;
	const char *text;
} formats[] = {
	{ "sched", "name: sched_switch\nID: 300\nformat:\n" COMMON
	  "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	  "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	  "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"prev_pid=%d\", REC->prev_pid\n" },
	{ "irq", "name: irq_handler_entry\nID: 301\nformat:\n" COMMON
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	  "print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n" },
	{ "irq", "name: irq_handler_exit\nID: 302\nformat:\n" COMMON
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"irq=%d ret=%d\", REC->irq, REC->ret\n" },
	{ "irq", "name: softirq_entry\nID: 303\nformat:\n" COMMON
	  "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	  "print fmt: \"vec=%u\", REC->vec\n" },
	{ "irq", "name: softirq_exit\nID: 304\nformat:\n" COMMON
	  "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	  "print fmt: \"vec=%u\", REC->vec\n" },
	{ "irq_vectors", "name: local_timer_entry\nID: 305\nformat:\n" COMMON
	  "\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"vector=%d\", REC->vector\n" },
	{ "irq_vectors", "name: local_timer_exit\nID: 306\nformat:\n" COMMON
	  "\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"vector=%d\", REC->vector\n" },
	{ "irq_vectors", "name: reschedule_entry\nID: 307\nformat:\n" COMMON
	  "\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"vector=%d\", REC->vector\n" },
	{ "irq_vectors", "name: reschedule_exit\nID: 308\nformat:\n" COMMON
	  "\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"vector=%d\", REC->vector\n" },
	{ "exceptions", "name: page_fault_user\nID: 309\nformat:\n" COMMON
	  "\tfield:unsigned long address;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long error_code;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"address=%lx\", REC->address\n" },
	{ "exceptions", "name: page_fault_kernel\nID: 310\nformat:\n" COMMON
	  "\tfield:unsigned long address;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long error_code;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"address=%lx\", REC->address\n" },
};

static struct tep_handle *parse_formats(void)
{
	struct tep_handle *tep = tep_alloc();
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(*formats); i++)
		if (tep_parse_event(tep, formats[i].text,
				     strlen(formats[i].text),
				     formats[i].system) != TEP_ERRNO__SUCCESS)
			return NULL;
	return tep;
}

static const struct vs_tp *find(const struct vs_tp_set *set, const char *name)
{
	int i;

	for (i = 0; i < set->nr; i++)
		if (!strcmp(set->tp[i].name, name))
			return &set->tp[i];
	return NULL;
}

int main(void)
{
	struct tep_handle *tep = parse_formats();
	struct vs_tp_set set;
	char err[256];

	if (!ok(tep != NULL, "tracepoint formats parse"))
		return done_testing();
	ok(!vs_tp_set_select(&set, tep, NULL, err, sizeof(err)),
	   "the default selection resolves");
	/* 1 switch, 2 irq, 2 softirq, 2 vectors x 2, 2 faults */
	is_u64(set.nr, 11, "every known tracepoint selected, pairs included");
	ok(find(&set, "sched_switch")->role == VS_TP_SWITCH &&
	   find(&set, "reschedule_exit")->role == VS_TP_VECTOR_EXIT &&
	   !strcmp(find(&set, "reschedule_exit")->label, "reschedule"),
	   "roles, and the vectors' names");
	vs_tp_set_exit(&set);

	tep = parse_formats();
	ok(!vs_tp_set_select(&set, tep, "irq:softirq_entry", err, sizeof(err)) &&
	   set.nr == 2 && find(&set, "softirq_exit"),
	   "an _entry brings its _exit");
	vs_tp_set_exit(&set);
	tep = parse_formats();
	ok(vs_tp_set_select(&set, tep, "sched:nope", err, sizeof(err)) &&
	   strstr(err, "'sched:nope'"), "an unknown tracepoint is named");
	vs_tp_set_exit(&set);
	tep = parse_formats();
	ok(!vs_tp_set_select(&set, tep, "irq_vectors:local*", err, sizeof(err)) &&
	   set.nr == 2, "a glob selects matching vectors only");
	vs_tp_set_exit(&set);
	return done_testing();
}
