// SPDX-License-Identifier: MIT
/*
 * tracepoints.c - the per-thread tracepoint set and the decoding of raw
 * samples, on tracepoint formats given as text (as tracefs prints them),
 * without a kernel.
 */
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "core/tracepoints.h"
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
	{ "sched", "name: sched_waking\nID: 311\nformat:\n" COMMON
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"pid=%d\", REC->pid\n" },
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

static struct vs_acct_event decode(struct vs_tp_set *set, const char *name,
				   const void *raw, uint32_t size)
{
	struct vs_acct_event ev = { 0 };

	vs_tp_decode(set, find(set, name), raw, size, &ev);
	return ev;
}

static void test_switch_states(struct vs_tp_set *set)
{
	static const struct {
		int64_t prev_state;
		enum vs_wait_state want;
		const char *what;
	} cases[] = {
		{ 0, VS_WAIT_RUNNABLE, "R: runnable" },
		{ 0x100, VS_WAIT_RUNNABLE, "R+ (preempted): runnable" },
		{ 1, VS_WAIT_BLOCKED, "S: blocked" },
		{ 2, VS_WAIT_IOWAIT, "D: iowait" },
		{ 0x80, VS_WAIT_BLOCKED, "I (idle kthread): blocked" },
	};
	unsigned char raw[64];
	struct vs_acct_event ev;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		memset(raw, 0, sizeof(raw));
		memcpy(raw + 32, &cases[i].prev_state, 8);
		ev = decode(set, "sched_switch", raw, sizeof(raw));
		ok(ev.kind == VS_ACCT_SWITCH_OUT && ev.state == cases[i].want,
		   "sched_switch prev_state %s", cases[i].what);
	}
}

static void test_irq_name(struct vs_tp_set *set)
{
	unsigned char raw[40] = { 0 };
	const char *name = "virtio0-input.0";
	uint32_t irq = 24, loc = (uint32_t)(strlen(name) + 1) << 16 | 16;
	struct vs_acct_event ev;

	memcpy(raw + 8, &irq, 4);
	memcpy(raw + 12, &loc, 4);
	strcpy((char *)raw + 16, name);
	ev = decode(set, "irq_handler_entry", raw, sizeof(raw));
	ok(ev.kind == VS_ACCT_IRQ_ENTRY && ev.name && !strcmp(ev.name, name),
	   "irq_handler_entry: the name from its __data_loc field");
	/* a name out of the record's bounds is not read */
	loc = 200u << 16 | 16;
	irq = 25;
	memcpy(raw + 8, &irq, 4);
	memcpy(raw + 12, &loc, 4);
	ev = decode(set, "irq_handler_entry", raw, sizeof(raw));
	ok(ev.kind == VS_ACCT_IRQ_ENTRY && !ev.name,
	   "irq_handler_entry: a name past the record is ignored");
	ev = decode(set, "irq_handler_exit", raw, sizeof(raw));
	ok(ev.kind == VS_ACCT_IRQ_EXIT, "irq_handler_exit");
}

static void test_softirq_vector_fault(struct vs_tp_set *set)
{
	unsigned char raw[32] = { 0 };
	uint32_t vec = 3;
	struct vs_acct_event ev;

	memcpy(raw + 8, &vec, 4);
	ev = decode(set, "softirq_entry", raw, sizeof(raw));
	is_str(ev.name, "NET_RX", "softirq_entry vec 3 is NET_RX");
	vec = 42;
	memcpy(raw + 8, &vec, 4);
	ev = decode(set, "softirq_entry", raw, sizeof(raw));
	ok(ev.kind == VS_ACCT_SOFTIRQ_ENTRY && !ev.name,
	   "softirq_entry: an unknown vec has no breakdown");
	ev = decode(set, "local_timer_entry", raw, sizeof(raw));
	ok(ev.kind == VS_ACCT_VECTOR_ENTRY && ev.name &&
	   !strcmp(ev.name, "local_timer"), "local_timer_entry is a vector");
	ev = decode(set, "local_timer_exit", raw, sizeof(raw));
	ok(ev.kind == VS_ACCT_VECTOR_EXIT, "local_timer_exit");
	ev = decode(set, "page_fault_user", raw, sizeof(raw));
	ok(ev.kind == VS_ACCT_FAULT, "page_fault_user counts a fault");
}

/* The wakee and the context of a sched_waking sample's raw data. */
static void test_waking(struct vs_tp_set *set)
{
	unsigned char raw[40] = { 0 };
	struct vs_tp_waking w;
	uint16_t type = 311;
	int32_t wakee = 4242;
	bool in_irq = true;

	ok(vs_tp_waking(set, &w) == 311 && w.id == 311,
	   "sched_waking found, not part of the per-thread set");
	memcpy(raw, &type, sizeof(type));
	memcpy(raw + 24, &wakee, sizeof(wakee));
	raw[2] = 0x01 | 0x04;		/* irqs off, need resched: a thread */
	ok(vs_tp_wakee(set, &w, raw, sizeof(raw), &in_irq) == 4242 && !in_irq,
	   "a wake-up made by a thread");
	raw[2] = 0x01 | 0x08;		/* hardirq */
	ok(vs_tp_wakee(set, &w, raw, sizeof(raw), &in_irq) == 4242 && in_irq,
	   "a wake-up made in a hard interrupt");
	raw[2] = 0x10;			/* softirq */
	ok(vs_tp_wakee(set, &w, raw, sizeof(raw), &in_irq) == 4242 && in_irq,
	   "a wake-up made in a softirq");
	ok(vs_tp_wakee(set, &w, raw, 26, &in_irq) == 0,
	   "a sample too short for the pid field");
}

int main(void)
{
	struct tep_handle *tep = parse_formats();
	struct vs_tp_set set;
	char err[256];
	int before;

	if (!ok(tep != NULL, "tracepoint formats parse"))
		return done_testing();
	ok(!vs_tp_set_select(&set, tep, NULL, err, sizeof(err)),
	   "the default selection resolves");
	/* 1 switch, 2 irq, 2 softirq, 2 vectors x 2, 2 faults */
	is_u64(set.nr, 11, "every known tracepoint selected, pairs included");
	ok(find(&set, "sched_switch")->id == 300 &&
	   find(&set, "reschedule_exit")->id == 308, "ids from the formats");
	test_switch_states(&set);
	test_irq_name(&set);
	test_softirq_vector_fault(&set);
	test_waking(&set);
	before = set.nr;
	vs_tp_set_drop(&set, find(&set, "reschedule_exit") - set.tp);
	ok(set.nr == before - 2 && !find(&set, "reschedule_entry") &&
	   find(&set, "local_timer_exit"), "dropping an exit drops its entry");
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
