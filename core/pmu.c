// SPDX-License-Identifier: MIT
/*
 * pmu.c - hardware counters: detection, groups, fidelity, task deltas,
 * sampling events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

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

const char *vs_pmu_errno_reason(int err)
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
				 vs_pmu_errno_reason(err));
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

/* --- counter groups ---------------------------------------------------- */

void vs_pmu_counter_attr(struct perf_event_attr *attr,
			 const struct vs_hw_config *hw, bool leader)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = hw->type;
	attr->config = hw->config;
	attr->config1 = hw->config1;
	attr->read_format = VS_PMU_READ_FORMAT;
	attr->disabled = leader;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
}

static int group_add(struct vs_counter_group *g, struct perf_event_attr *attr,
		     pid_t tid, int cpu)
{
	int leader = g->nr ? g->fd[0] : -1;
	int fd;

	if (g->nr >= VS_PMU_MAX_GROUP) {
		errno = E2BIG;
		return -1;
	}
	fd = vs_perf_open(attr, tid, cpu, leader);
	if (fd < 0)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &g->id[g->nr]) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	g->fd[g->nr++] = fd;
	return fd;
}

int vs_counter_group_open(struct vs_counter_group *g,
			  const struct vs_hw_config *hw, unsigned int n,
			  pid_t tid, int cpu, char *err, size_t errlen)
{
	unsigned int i;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < VS_PMU_MAX_GROUP; i++)
		g->fd[i] = -1;
	for (i = 0; i < n; i++) {
		struct perf_event_attr attr;

		vs_pmu_counter_attr(&attr, &hw[i], i == 0);
		if (group_add(g, &attr, tid, cpu) < 0) {
			int e = errno;

			if (err)
				snprintf(err, errlen,
					 "counter %u (type %u config 0x%llx): %s",
					 i, hw[i].type,
					 (unsigned long long)hw[i].config,
					 vs_pmu_errno_reason(e));
			vs_counter_group_close(g);
			errno = e;
			return -1;
		}
	}
	return 0;
}

int vs_counter_group_add_snapshot(struct vs_counter_group *g,
				  struct perf_event_attr *attr,
				  pid_t tid, int cpu)
{
	attr->sample_type |= PERF_SAMPLE_READ;
	attr->read_format = VS_PMU_READ_FORMAT;
	attr->disabled = 0;
	attr->inherit = 0;
	attr->use_clockid = 1;		/* the group's clock */
	attr->clockid = CLOCK_MONOTONIC;
	return group_add(g, attr, tid, cpu);
}

static int group_ioctl(const struct vs_counter_group *g, unsigned long req)
{
	if (!g->nr) {
		errno = EBADF;
		return -1;
	}
	return ioctl(g->fd[0], req, PERF_IOC_FLAG_GROUP);
}

int vs_counter_group_enable(const struct vs_counter_group *g)
{
	return group_ioctl(g, PERF_EVENT_IOC_ENABLE);
}

int vs_counter_group_disable(const struct vs_counter_group *g)
{
	return group_ioctl(g, PERF_EVENT_IOC_DISABLE);
}

int vs_counter_group_read(const struct vs_counter_group *g,
			  struct vs_counter_read *r)
{
	uint64_t buf[3 + 2 * VS_PMU_MAX_GROUP];
	uint64_t before, after;
	ssize_t n;

	if (!g->nr) {
		errno = EBADF;
		return -1;
	}
	before = vs_perf_clock_ns();
	n = read(g->fd[0], buf, sizeof(buf));
	after = vs_perf_clock_ns();
	if (n < 0)
		return -1;
	if (vs_counter_read_parse(buf, n, r) < 0) {
		errno = EIO;
		return -1;
	}
	r->t_before = before;
	r->t_after = after;
	return 0;
}

void vs_counter_group_close(struct vs_counter_group *g)
{
	unsigned int i;

	/* Members first: closing the leader first would orphan them. */
	for (i = g->nr; i-- > 0;)
		if (g->fd[i] >= 0)
			close(g->fd[i]);
	for (i = 0; i < VS_PMU_MAX_GROUP; i++)
		g->fd[i] = -1;
	g->nr = 0;
}

ssize_t vs_counter_read_parse(const void *buf, size_t len,
			      struct vs_counter_read *r)
{
	const uint64_t *u = buf;
	uint64_t nr;
	size_t need;
	unsigned int i;

	if (len < 3 * sizeof(uint64_t))
		return -1;
	memcpy(&nr, u, sizeof(nr));
	if (nr > VS_PMU_MAX_GROUP)
		return -1;
	need = (3 + 2 * nr) * sizeof(uint64_t);
	if (len < need)
		return -1;
	r->nr = nr;
	memcpy(&r->time_enabled, &u[1], sizeof(uint64_t));
	memcpy(&r->time_running, &u[2], sizeof(uint64_t));
	for (i = 0; i < nr; i++) {
		memcpy(&r->value[i], &u[3 + 2 * i], sizeof(uint64_t));
		memcpy(&r->id[i], &u[4 + 2 * i], sizeof(uint64_t));
	}
	return need;
}

int vs_counter_read_order(const struct vs_counter_group *g,
			  const struct vs_counter_read *r, uint64_t *values)
{
	unsigned int i, j;

	for (i = 0; i < g->nr; i++) {
		for (j = 0; j < r->nr && r->id[j] != g->id[i]; j++)
			;
		if (j == r->nr)
			return -1;
		values[i] = r->value[j];
	}
	return 0;
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

bool vs_dte_distorted(const struct vs_counter_read *a,
		      const struct vs_counter_read *b,
		      unsigned int tolerance_ppm)
{
	if (b->t_before <= a->t_before || b->t_after < a->t_after ||
	    a->t_after < a->t_before || b->t_after < b->t_before)
		return true;
	return vs_dte_span_distorted(b->t_before - a->t_before,
				     b->t_after - a->t_after, tolerance_ppm);
}

bool vs_counter_multiplexed(const struct vs_counter_read *a,
			    const struct vs_counter_read *b)
{
	uint64_t enabled = b->time_enabled - a->time_enabled;
	uint64_t running = b->time_running - a->time_running;

	return running < enabled;
}

uint32_t vs_counter_period_flags(const struct vs_counter_read *from,
				 const struct vs_counter_read *to)
{
	uint32_t flags = 0;
	unsigned int i;

	if (vs_counter_multiplexed(from, to))
		flags |= VS_TASK_MULTIPLEXED;
	if (vs_dte_distorted(from, to, VS_DTE_TOLERANCE_PPM) ||
	    from->nr != to->nr)
		flags |= VS_TASK_DISTORTED;
	for (i = 0; i < from->nr && i < to->nr; i++)
		if (to->value[i] < from->value[i])
			flags |= VS_TASK_DISTORTED;
	return flags;
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
