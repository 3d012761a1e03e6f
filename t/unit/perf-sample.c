// SPDX-License-Identifier: MIT
/*
 * perf-sample.c - decoding the sampling event's records: a synthetic PEBS
 * load-latency sample (this machine has no PEBS), a cpu-clock sample as
 * the kernel writes it, one with user registers and stack (--call-graph
 * dwarf), and records cut short.
 */
#include <linux/perf_event.h>
#include <string.h>

#include "core/arch.h"
#include "core/record/perf-sample.h"
#include "core/pmu.h"
#include "t/unit/tap.h"

struct raw {
	struct perf_event_header h;
	uint64_t w[128];
};

#define STACK_WORDS	8	/* sample_stack_user of the dwarf sample */
#define STACK_USED	40	/* ... of which the kernel could copy */

/* Build a record of the fields of @type, in the kernel's order. */
static void build(struct raw *r, uint64_t type, uint16_t misc)
{
	unsigned int n = 0;

	memset(r, 0, sizeof(*r));
	if (type & PERF_SAMPLE_IDENTIFIER)
		r->w[n++] = 77;
	if (type & PERF_SAMPLE_IP)
		r->w[n++] = 0x401234;
	if (type & PERF_SAMPLE_TID)
		r->w[n++] = (uint64_t)102 << 32 | 101;
	if (type & PERF_SAMPLE_TIME)
		r->w[n++] = 123456789;
	if (type & PERF_SAMPLE_ADDR)
		r->w[n++] = 0x7fff0000dead;
	if (type & PERF_SAMPLE_CPU)
		r->w[n++] = 1;
	if (type & PERF_SAMPLE_PERIOD)
		r->w[n++] = 8000;
	if (type & PERF_SAMPLE_CALLCHAIN) {
		r->w[n++] = 4;
		r->w[n++] = PERF_CONTEXT_USER;
		r->w[n++] = 0x401234;
		r->w[n++] = 0x401100;
		r->w[n++] = 0x401000;
	}
	if (type & PERF_SAMPLE_REGS_USER) {
		unsigned int i, nr = __builtin_popcountll(vs_arch_regs_user_mask);

		r->w[n++] = PERF_SAMPLE_REGS_ABI_64;
		for (i = 0; i < nr; i++)
			r->w[n++] = 0x1000 + i;
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		unsigned int i;

		r->w[n++] = STACK_WORDS * 8;
		for (i = 0; i < STACK_WORDS; i++)
			r->w[n++] = 0x2000 + i;
		r->w[n++] = STACK_USED;
	}
	if (type & PERF_SAMPLE_WEIGHT)
		r->w[n++] = 245;
	if (type & PERF_SAMPLE_DATA_SRC)
		r->w[n++] = 0x68100142;
	r->h.type = PERF_RECORD_SAMPLE;
	r->h.misc = misc;
	r->h.size = sizeof(r->h) + n * 8;
}

int main(void)
{
	struct perf_event_attr attr;
	struct vs_sample_spec spec = { .source = VS_SAMPLE_SRC_PEBS_MEM,
				       .period = 8000, .precise_ip = 2 };
	struct vs_sample s;
	struct raw r;
	uint64_t type;

	vs_pmu_sample_attr(&attr, &spec);
	type = attr.sample_type | PERF_SAMPLE_IDENTIFIER;
	build(&r, type, PERF_RECORD_MISC_USER);
	ok(!vs_perf_sample_parse(&r.h, type, VS_SAMPLE_PRECISE, &s),
	   "a PEBS load-latency sample decodes");
	is_u64(s.ip, 0x401234, "ip");
	is_u64(s.pid, 101, "pid");
	is_u64(s.tid, 102, "tid");
	is_u64(s.time, 123456789, "time");
	is_u64(s.cpu, 1, "cpu");
	is_u64(s.period, 8000, "period (the reset value)");
	is_u64(s.addr, 0x7fff0000dead, "data address");
	is_u64(s.weight, 245, "latency weight");
	is_u64(s.data_src, 0x68100142, "data source");
	is_u64(s.nr_callchain, 4, "callchain length");
	ok(s.callchain && s.callchain[2] == 0x401100, "callchain frames");
	is_u64(s.flags, VS_SAMPLE_PRECISE | VS_SAMPLE_ADDR | VS_SAMPLE_WEIGHT |
	       VS_SAMPLE_DATA_SRC, "flags say precise, addr, weight, data_src");

	spec.source = VS_SAMPLE_SRC_CPU_CLOCK;
	spec.freq = 4000;
	vs_pmu_sample_attr(&attr, &spec);
	type = attr.sample_type | PERF_SAMPLE_IDENTIFIER;
	build(&r, type, PERF_RECORD_MISC_KERNEL);
	ok(!vs_perf_sample_parse(&r.h, type, 0, &s),
	   "a cpu-clock sample decodes");
	is_u64(s.flags, VS_SAMPLE_KERNEL, "no optional fields, kernel ip");
	is_u64(s.weight, 0, "no weight");
	is_u64(s.tid, 102, "tid after ip");
	is_u64(s.nr_callchain, 4, "callchain after the period");

	type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	build(&r, type, PERF_RECORD_MISC_USER);
	ok(!vs_perf_sample_parse(&r.h, type, 0, &s),
	   "a sample with user registers and stack decodes");
	is_u64(s.flags, VS_SAMPLE_USER_STACK, "flagged USER_STACK");
	is_u64(s.regs_mask, vs_arch_regs_user_mask, "the registers asked for");
	is_u64(s.nr_regs, 17, "17 registers");
	ok(s.regs && s.regs[0] == 0x1000 && s.regs[16] == 0x1010,
	   "registers in bit order");
	is_u64(s.nr_stack, STACK_USED / 8, "the stack the kernel copied");
	ok(s.stack && s.stack[0] == 0x2000, "stack words from the sp");
	r.h.size -= 8 * (STACK_WORDS + 1);
	ok(vs_perf_sample_parse(&r.h, type, 0, &s),
	   "a stack copy cut short is refused");
	type &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	build(&r, type, PERF_RECORD_MISC_KERNEL);

	r.h.size -= 8;
	ok(vs_perf_sample_parse(&r.h, type, 0, &s),
	   "a callchain cut short is refused");
	r.h.size = sizeof(r.h) + 16;
	ok(vs_perf_sample_parse(&r.h, type, 0, &s),
	   "a record cut after the ip is refused");
	ok(vs_perf_sample_parse(&r.h, type | PERF_SAMPLE_RAW, 0, &s),
	   "an unknown field is refused");
	return done_testing();
}
