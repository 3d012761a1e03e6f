/* throwaway: write tasks from stdin "type start latency run blocked faults" */
#include <stdio.h>
#include <stdlib.h>
#include "core/trace.h"
int main(int argc, char **argv)
{
	struct vs_header hdr = { .clockid = 1, .start_time = 1000000000ull,
		.start_realtime = 1700000000000000000ull, .host = "x",
		.kernel = "x", .cpu_model = "x", .tool = "x" };
	struct vs_writer *w = vs_writer_open(argv[1], &hdr);
	const char *names[] = { "run.time", "sched.blocked.time", "fault.page.count" };
	const char *units[] = { "ns", "ns", "count" };
	struct vs_record rec;
	unsigned long long ty, st, lat, a, b, c, id = 1;
	uint16_t live[] = { 0, 1, 2 };
	for (int i = 0; i < 3; i++) {
		rec = (struct vs_record){ .kind = VS_REC_EVENT_DEF };
		rec.event_def = (struct vs_event_def){ .id = i, .parent = VS_EVENT_NO_PARENT,
			.group = VS_GROUP_KERNEL, .name = names[i], .unit = units[i] };
		vs_writer_add(w, &rec);
	}
	rec = (struct vs_record){ .kind = VS_REC_EPOCH };
	rec.epoch = (struct vs_epoch){ .time = hdr.start_time, .epoch = 0, .nr_events = 3, .events = live };
	vs_writer_add(w, &rec);
	while (scanf("%llu %llu %llu %llu %llu %llu", &ty, &st, &lat, &a, &b, &c) == 6) {
		struct vs_value v[3] = { { 0, a }, { 1, b }, { 2, c } };
		rec = (struct vs_record){ .kind = VS_REC_TASK };
		rec.task = (struct vs_task){ .id = id++, .type = ty, .pid = 1, .tid = 1,
			.start = hdr.start_time + st, .end = hdr.start_time + st + lat,
			.nr_values = 3, .values = v };
		vs_writer_add(w, &rec);
	}
	return vs_writer_close(w) ? 1 : 0;
}
