// SPDX-License-Identifier: MIT
/*
 * sample.c - varscope record --sample: the sampling event
 * (Akiyama et al.'s hybrid of coarse instrumentation and PEBS).
 *
 * The event (PEBS UOPS_RETIRED.ALL with reset value R, PEBS load latency
 * for --sample=mem, or cpu-clock where there is no PEBS) is opened once
 * per CPU, into a ring of that CPU's, with the engine's filter attached:
 * the kernel drops the samples of threads outside selected tasks, so the
 * volume written follows the selection rate.  Each sample goes to the
 * trace as it is read (VS_REC_SAMPLE); which task it belongs to is found
 * at report time from its thread and time (core/analysis/task-samples.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/arch.h"
#include "core/record/perf-sample.h"
#include "core/pmu.h"
#include "core/record/record-int.h"

#define NS_PER_SEC	1000000000ull

/*
 * --call-graph dwarf: the user registers and a copy of the user stack
 * with each sample, and the kernel's callchain for the kernel frames
 * only; fp: the kernel's callchain, user frame records included.
 */
static void sample_call_graph(struct perf_event_attr *attr,
			      const struct vs_record_opts *o)
{
	if (o->call_graph != VS_CALL_GRAPH_DWARF)
		return;
	attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	attr->sample_regs_user = vs_arch_regs_user_mask;
	attr->sample_stack_user = o->stack_size ? o->stack_size :
				  VS_CALL_GRAPH_STACK;
	attr->exclude_callchain_user = 1;
}

int vs_sample_setup(struct vs_session *s, char *err, size_t errlen)
{
	const struct vs_record_opts *o = s->opts;
	bool mem = false, clock = false;
	struct vs_sample_spec spec;
	char line[256], desc[300];
	struct vs_pmu pmu;
	uint64_t freq = o->sample_freq;

	if (!o->sample)
		return 0;
	if (!strcmp(o->sample, "mem"))
		mem = true;
	else if (!strcmp(o->sample, "cpu-clock"))
		clock = true;
	else if (*o->sample && strcmp(o->sample, "uops")) {
		snprintf(err, errlen, "--sample: unknown event '%s' (uops, mem "
			 "or cpu-clock)", o->sample);
		return -1;
	}
	vs_pmu_probe(&pmu);
	if (clock)
		pmu.max_precise = 0;
	vs_pmu_sample_choose(&pmu, mem, o->sample_period, freq, &spec,
			     line, sizeof(line));
	if (spec.source == VS_SAMPLE_SRC_CPU_CLOCK && o->sample_period) {
		/* the period of the software clock is in ns */
		freq = NS_PER_SEC / o->sample_period;
		vs_pmu_sample_choose(&pmu, mem, o->sample_period,
				     freq ? freq : 1, &spec, line, sizeof(line));
	}
	vs_pmu_sample_attr(&s->sample_attr, &spec);
	sample_call_graph(&s->sample_attr, o);
	if (spec.source == VS_SAMPLE_SRC_CPU_CLOCK && o->sample_period)
		s->sample_attr.sample_period = o->sample_period;
	s->sample_attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
	s->sample_attr.disabled = 0;
	s->sample_flags = spec.source == VS_SAMPLE_SRC_CPU_CLOCK ?
			  0 : VS_SAMPLE_PRECISE;
	s->sampling = true;
	if (clock)
		snprintf(line, sizeof(line), "sampling cpu-clock every %llu ns",
			 (unsigned long long)s->sample_attr.sample_period);
	if (*line)
		fprintf(stderr, "varscope record: %s\n", line);
	snprintf(desc, sizeof(desc), "%s period=%llu%s call-graph=%s",
		 spec.source == VS_SAMPLE_SRC_CPU_CLOCK ? "cpu-clock" :
		 spec.source == VS_SAMPLE_SRC_PEBS_MEM ?
		 vs_arch_event_name(vs_arch_precise_loads()) :
		 vs_arch_event_name(vs_arch_precise_uops()),
		 (unsigned long long)s->sample_attr.sample_period,
		 spec.source == VS_SAMPLE_SRC_CPU_CLOCK ? "ns" : "",
		 o->call_graph == VS_CALL_GRAPH_FP ? "fp" : "dwarf");
	vs_session_write_meta(s, "sample", desc);
	if (*line)
		vs_session_write_meta(s, "note", line);
	return 0;
}

unsigned int vs_sample_ring_pages(const struct vs_session *s,
				  unsigned int pages)
{
	uint32_t stack = s->sample_attr.sample_stack_user;

	if (!s->sampling || !(s->sample_attr.sample_type &
			      PERF_SAMPLE_STACK_USER))
		return pages;
	return pages * ((stack + 2047) / 2048);
}

int vs_sample_open_cpu(struct vs_session *s, int cpu,
		       struct vs_perf_ring *ring, unsigned int pages)
{
	struct perf_event_attr attr = s->sample_attr;
	int fd, err;

	attr.inherit = 0;
	attr.watermark = 1;
	attr.wakeup_watermark = pages * 4096 / 2;
	attr.disabled = 1;	/* until the filter is on it */
	fd = vs_perf_open(&attr, -1, cpu, -1);
	if (fd < 0)
		return -1;
	if (vs_perf_ring_mmap(ring, fd, pages)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	if (vs_bpf_engine_filter_samples(s->engine, fd))
		return -1;
	return ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

void vs_sample_write(struct vs_session *s, const struct perf_event_header *h)
{
	struct vs_record rec = { .kind = VS_REC_SAMPLE };

	if (vs_perf_sample_parse(h, s->sample_attr.sample_type,
				 s->sample_flags, &rec.sample))
		return;
	vs_session_write(s, &rec);
}
