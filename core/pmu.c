// SPDX-License-Identifier: MIT
/*
 * pmu.c - hardware counters: detection, the DTE filter, cpu.freq,
 * sampling events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/catalog.h"
#include "core/perf-ring.h"
#include "core/pmu.h"
#include "core/trace/trace.h"

/* core/arch.h numbers an event's class as the trace format does. */
_Static_assert((int)VS_ARCH_GROUP_SOFTWARE == VS_GROUP_SOFTWARE &&
	       (int)VS_ARCH_GROUP_CYCLE == VS_GROUP_CYCLE &&
	       (int)VS_ARCH_GROUP_INST == VS_GROUP_INST &&
	       (int)VS_ARCH_GROUP_CACHE == VS_GROUP_CACHE &&
	       (int)VS_ARCH_GROUP_UOP == VS_GROUP_UOP &&
	       (int)VS_ARCH_GROUP_OTHER == VS_GROUP_OTHER,
	       "enum vs_arch_group is enum vs_event_group's numbers");

/* --- detection --------------------------------------------------------- */

/* The reason for an errno of perf_event_open() on a hardware event. */
static const char *errno_reason(int err)
{
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "cycles not supported";
	case EACCES:
	case EPERM:
		return "not permitted: see /proc/sys/kernel/perf_event_paranoid";
	case EMFILE:
		return "too many open files";
	default:
		return strerror(err);
	}
}

static int read_int_file(const char *path, int def)
{
	FILE *f = fopen(path, "r");
	int v;

	if (!f)
		return def;
	if (fscanf(f, "%d", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

/* Try @hw on this thread; returns 0 or the errno. */
static int try_open(struct perf_event_attr *attr)
{
	int fd = vs_perf_open(attr, 0, -1, -1);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int probe_pebs(const struct vs_pmu *pmu)
{
	struct vs_sample_spec s = {
		.source = VS_SAMPLE_SRC_PEBS_UOPS,
		.period = VS_ARCH_PRECISE_PERIOD,
	};
	struct perf_event_attr attr;

	if (!pmu->table->precise)
		return 0;
	for (s.precise_ip = 2; s.precise_ip >= 1; s.precise_ip--) {
		vs_pmu_sample_attr(&attr, &s);
		if (!try_open(&attr))
			return s.precise_ip;
	}
	return 0;
}

int vs_pmu_probe(struct vs_pmu *pmu)
{
	struct perf_event_attr attr;
	int err;

	memset(pmu, 0, sizeof(*pmu));
	if (vs_arch_cpu_detect(&pmu->cpu))
		snprintf(pmu->cpu.vendor, sizeof(pmu->cpu.vendor), "unknown");
	pmu->table = vs_arch_table_for(&pmu->cpu);
	if (vs_arch_cpu_counters(&pmu->nr_gp, &pmu->nr_fixed) ||
	    !pmu->nr_gp)
		pmu->nr_gp = VS_PMU_DEFAULT_GP;
	pmu->nmi_watchdog = read_int_file("/proc/sys/kernel/nmi_watchdog", 0) > 0;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	err = try_open(&attr);
	if (err) {
		pmu->err = err;
		if (err == EACCES || err == EPERM)
			snprintf(pmu->why, sizeof(pmu->why),
				 "not permitted: perf_event_paranoid is %d",
				 read_int_file("/proc/sys/kernel/perf_event_paranoid",
					       -1));
		else
			snprintf(pmu->why, sizeof(pmu->why), "%s",
				 errno_reason(err));
		return -1;
	}
	pmu->hw = true;
	pmu->max_precise = probe_pebs(pmu);
	return 0;
}

unsigned int vs_pmu_epoch_width(const struct vs_pmu *pmu)
{
	unsigned int k = pmu->nr_gp;

	if (pmu->nmi_watchdog && k > 1)
		k--;
	return k;
}

void vs_pmu_status(const struct vs_pmu *pmu, char *buf, size_t len)
{
	char cpu[96];

	if (!pmu->hw) {
		bool absent = pmu->err == ENOENT || pmu->err == EOPNOTSUPP ||
			      pmu->err == ENODEV;

		snprintf(buf, len, "%s (%s): recording kernel events and "
			 "software counters only",
			 absent ? "no hardware PMU" : "hardware counters unavailable",
			 pmu->why);
		return;
	}
	vs_arch_cpu_describe(&pmu->cpu, cpu, sizeof(cpu));
	if (pmu->table == vs_arch_generic_table())
		snprintf(buf, len, "hardware PMU on %s: no event table for this "
			 "model: fixed counters and generic hardware events only",
			 cpu);
	else
		snprintf(buf, len, "hardware PMU on %s (%s): %u programmable "
			 "counters per epoch, %u fixed, PEBS %s", cpu,
			 pmu->table->desc, vs_pmu_epoch_width(pmu),
			 pmu->nr_fixed, pmu->max_precise ? "yes" : "no");
}

uint16_t vs_pmu_intern(struct vs_catalog *cat, const struct vs_arch_table *t,
		       const struct vs_arch_event *e)
{
	const char *parent_name = vs_arch_event_parent(e);
	const struct vs_arch_event *p = parent_name ?
		vs_arch_event_lookup(t, parent_name) : NULL;
	uint16_t parent = VS_EVENT_NO_PARENT;

	/* Parent chains are a few links long (Table 2 nests twice). */
	if (p) {
		parent = vs_pmu_intern(cat, t, p);
		if (parent == VS_EVENT_NO_PARENT)
			return VS_EVENT_NO_PARENT;
	}
	return vs_catalog_intern(cat, vs_arch_event_vs_name(e),
				 vs_arch_event_unit(e), vs_arch_event_group(e),
				 parent);
}

/* --- fidelity ---------------------------------------------------------- */

bool vs_dte_span_distorted(uint64_t starts, uint64_t ends,
			   unsigned int tolerance_ppm)
{
	uint64_t diff = ends > starts ? ends - starts : starts - ends;

	if (!starts)
		return true;
	/* |ends / starts - 1| > tol  <=>  diff * 1e6 > tol * starts */
	return (unsigned __int128)diff * 1000000u >
	       (unsigned __int128)tolerance_ppm * starts;
}

uint64_t vs_cpu_freq_khz(uint64_t cycles, uint64_t ns)
{
	if (!ns)
		return 0;
	/* cycles per ns is GHz; kHz = cycles * 1e6 / ns */
	return (uint64_t)((unsigned __int128)cycles * 1000000u / ns);
}

/* --- sampling ---------------------------------------------------------- */

void vs_pmu_sample_choose(const struct vs_pmu *pmu, bool mem,
			  uint64_t period, uint64_t freq,
			  struct vs_sample_spec *s, char *line, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->period = period ? period : VS_ARCH_PRECISE_PERIOD;
	s->freq = freq ? freq : VS_SAMPLE_DEFAULT_FREQ;
	if (line && len)
		line[0] = '\0';
	if (pmu->hw && pmu->max_precise) {
		s->source = mem ? VS_SAMPLE_SRC_PEBS_MEM : VS_SAMPLE_SRC_PEBS_UOPS;
		s->precise_ip = pmu->max_precise;
		s->ldlat = VS_ARCH_LDLAT_DEFAULT;
		return;
	}
	s->source = VS_SAMPLE_SRC_CPU_CLOCK;
	if (line && len)
		snprintf(line, len, "no PEBS (%s): sampling cpu-clock at %llu Hz%s",
			 !pmu->hw ? pmu->why :
			 pmu->table == vs_arch_generic_table() ? "no event table for this CPU" :
			 "precise events not supported",
			 (unsigned long long)s->freq,
			 mem ? ", without data addresses" : "");
}

void vs_pmu_sample_attr(struct perf_event_attr *attr,
			const struct vs_sample_spec *s)
{
	struct vs_hw_config hw;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->disabled = 1;
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;

	switch (s->source) {
	case VS_SAMPLE_SRC_PEBS_MEM:
		vs_arch_event_hw(vs_arch_precise_loads(), &hw);
		hw.config1 = s->ldlat ? s->ldlat : VS_ARCH_LDLAT_DEFAULT;
		attr->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT |
				     PERF_SAMPLE_DATA_SRC;
		break;
	case VS_SAMPLE_SRC_PEBS_UOPS:
		vs_arch_event_hw(vs_arch_precise_uops(), &hw);
		break;
	case VS_SAMPLE_SRC_CPU_CLOCK:
	default:
		/* A fixed period in ns: the clock ticks at exactly @freq. */
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CPU_CLOCK;
		attr->sample_period = 1000000000ull /
				      (s->freq ? s->freq : VS_SAMPLE_DEFAULT_FREQ);
		return;
	}
	attr->type = hw.type;
	attr->config = hw.config;
	attr->config1 = hw.config1;
	attr->sample_period = s->period;
	attr->precise_ip = s->precise_ip;
}
