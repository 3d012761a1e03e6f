// SPDX-License-Identifier: MIT
/*
 * uprobe-insn.c - unit test of vs_arch_uprobe_emulated(): the first
 * instructions a uprobe costs one trap on (the kernel emulates them) and
 * those it single-steps; and of the probe pair costs a trace's META
 * probe_cost_ns gives each type (vs_trace_head_probe_cost()).
 */
#include "core/arch.h"
#include "core/trace/trace-head.h"
#include "t/unit/tap.h"

#define EMULATED(...) ({						\
	static const uint8_t insn[] = { __VA_ARGS__ };			\
	vs_arch_uprobe_emulated(insn, sizeof(insn));			\
})

static void test_insns(void)
{
	ok(EMULATED(0x55, 0x48, 0x89, 0xe5), "push %%rbp: emulated");
	ok(EMULATED(0x41, 0x57), "push %%r15: emulated");
	ok(EMULATED(0xe8, 0, 0, 0, 0), "call rel32: emulated");
	ok(EMULATED(0xeb, 0x10), "jmp rel8: emulated");
	ok(EMULATED(0x0f, 0x84, 0, 0, 0, 0), "je rel32: emulated");
	ok(EMULATED(0x90), "nop: emulated");
	ok(!EMULATED(0x48, 0x89, 0xf8), "mov %%rdi, %%rax: single-stepped");
	ok(!EMULATED(0xf3, 0x0f, 0x1e, 0xfa), "endbr64: single-stepped");
	ok(!EMULATED(0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8),
	   "movabs: single-stepped");
	ok(!EMULATED(0xc3), "ret: single-stepped");
	ok(!EMULATED(0x41), "a REX prefix alone: single-stepped");
	ok(!vs_arch_uprobe_emulated(NULL, 0), "no bytes: single-stepped");
}

static void test_trace_costs(void)
{
	struct vs_trace_head h = { .nr_probe_costs = 2,
				   .probe_cost_ns = { 780, 10200 } };

	ok(vs_trace_head_probe_cost(&h, 1) == 780 &&
	   vs_trace_head_probe_cost(&h, 2) == 10200,
	   "a cost per type, in type order");
	ok(!vs_trace_head_probe_cost(&h, 3) && !vs_trace_head_probe_cost(&h, 0),
	   "none for a type past them");
	h.nr_probe_costs = 1;
	ok(vs_trace_head_probe_cost(&h, 5) == 780,
	   "one value is every type's");
	h.nr_probe_costs = 0;
	ok(!vs_trace_head_probe_cost(&h, 1), "none without the META");
}

int main(void)
{
	test_insns();
	test_trace_costs();
	return done_testing();
}
