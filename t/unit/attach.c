// SPDX-License-Identifier: MIT
/*
 * attach - attached intervals find the task they serve through the attach
 * record of their thread and start time, in stream order.
 */
#include "core/analysis/attach.h"
#include "t/unit/tap.h"

static struct vs_record attach(uint64_t time, uint32_t tid, uint8_t what,
			       uint64_t id)
{
	struct vs_record rec = { .kind = VS_REC_ATTACH };

	rec.attach = (struct vs_attach){ time, tid, what, id };
	return rec;
}

int main(void)
{
	struct vs_attach_map *m = vs_attach_map_new();
	struct vs_record r;
	struct vs_task own = { .id = 1, .type = 1, .tid = 10, .start = 100 };
	struct vs_task a = { .id = 2, .type = 0, .tid = 11, .start = 150,
			     .flags = VS_TASK_ATTACHED };
	struct vs_task b = { .id = 3, .type = 0, .tid = 11, .start = 400,
			     .flags = VS_TASK_THREAD_EXIT };
	struct vs_task stray = { .id = 4, .type = 0, .tid = 12, .start = 150 };

	r = attach(150, 11, VS_ATTACH, 1);
	ok(!vs_attach_map_add(m, &r), "an attach record is noted");
	r = attach(300, 11, VS_DETACH, 1);
	vs_attach_map_add(m, &r);
	is_u64(vs_attach_map_served(m, &a), 1, "the interval serves task 1");
	is_u64(vs_attach_map_served(m, &own), 0, "a task of type 1 is its own");
	is_u64(vs_attach_map_served(m, &stray), 0,
	       "a type 0 task of a thread that never attached is its own");
	r = attach(400, 11, VS_ATTACH, 7);
	vs_attach_map_add(m, &r);
	is_u64(vs_attach_map_served(m, &b), 7,
	       "the thread's next attach; no detach needed (thread exit)");
	is_u64(vs_attach_map_served(m, &a), 0,
	       "an interval whose start is not the last attach is not linked");
	vs_attach_map_free(m);
	return done_testing();
}
