// SPDX-License-Identifier: MIT
/*
 * bpf-engine.c - load, attach and drive task-acct.bpf.c through its
 * bpftool skeleton (build/core/record/task-acct.skel.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/perf-ring.h"
#include "core/array.h"
#include "core/record/bpf-engine.h"
#include "core/record/task-acct.skel.h"

struct vs_bpf_engine {
	struct task_acct *skel;
	struct vs_slot *slots;		/* the recorder's mapping */
	size_t slots_bytes;
	struct ring_buffer *events;
	vs_engine_event_fn event_fn;
	void *event_ctx;
	vs_call_record_fn call_fn;
	void *call_ctx;
	/* the entry and return probes of each function */
	struct bpf_link *call_link[VS_CALL_FUNCS][2];
	/* the sample filter on each CPU's sampling event */
	struct bpf_link **sample_link;
	size_t nr_sample_links, alloc_sample_links;
	/* the counters: VS_SLOT_COUNTERS per CPU, as the map holds them */
	int *counter_fd;
	int nr_cpus;
	unsigned int nr_counters;
	bool counting;			/* a set was given */
	uint32_t next_free;		/* where the search for a slot starts */
	uint8_t used[VS_SLOTS];
	uint32_t kernel_tid[VS_SLOTS];	/* the thread's key in thread_state */
	bool fault_time;		/* fentry/fexit on the fault handler */
	char no_fault_time[256];	/* why not */
};

/*
 * The verifier's reason when the kernel refuses one of the programs (an
 * older kernel's verifier, a helper it lacks): "PROGRAM: last line".
 */
static char vs_refusal[256];

/* Whether the verifier log's @line is one of the statistics at its end. */
static bool vs_verifier_stats(const char *line, size_t len)
{
	static const char *const stats[] = {
		"verification time", "stack depth", "processed ",
	};
	size_t i;

	for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
		if (len >= strlen(stats[i]) &&
		    !strncmp(line, stats[i], strlen(stats[i])))
			return true;
	return false;
}

/*
 * libbpf's messages stay quiet, the open's one line says what failed;
 * of a refused program's load log (one message: "prog 'NAME': -- BEGIN
 * PROG LOAD LOG --\nLOG-- END PROG LOAD LOG --") the name and the last
 * line of LOG before the statistics are kept for that line.
 */
static int vs_libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			   va_list ap)
{
	static const char begin[] = "': -- BEGIN PROG LOAD LOG --\n";
	const char *name, *log, *end, *bol, *eol;
	char *msg;

	if (level != LIBBPF_WARN || !strstr(fmt, "BEGIN PROG LOAD LOG"))
		return 0;
	if (vasprintf(&msg, fmt, ap) < 0)
		return 0;
	name = strstr(msg, "prog '");
	log = strstr(msg, begin);
	end = log ? strstr(log, "-- END PROG LOAD LOG --") : NULL;
	if (name && end && name < log) {
		name += strlen("prog '");
		for (eol = end; ; eol = bol) {
			while (eol > log + strlen(begin) && eol[-1] == '\n')
				eol--;
			if (eol == log + strlen(begin))
				break;
			for (bol = eol; bol[-1] != '\n'; bol--)
				;
			if (!vs_verifier_stats(bol, eol - bol)) {
				snprintf(vs_refusal, sizeof(vs_refusal),
					 "%.*s: %.*s", (int)(log - name), name,
					 (int)(eol - bol), bol);
				break;
			}
		}
	}
	free(msg);
	return 0;
}

const char *const vs_bpf_vector_names[VS_SLOT_VECTORS] = {
	[VS_VEC_LOCAL_TIMER]		= "local_timer",
	[VS_VEC_RESCHEDULE]		= "reschedule",
	[VS_VEC_CALL_FUNCTION]		= "call_function",
	[VS_VEC_CALL_FUNCTION_SINGLE]	= "call_function_single",
	[VS_VEC_IRQ_WORK]		= "irq_work",
};

static int vs_event_cb(void *ctx, void *data, size_t size)
{
	struct vs_bpf_engine *e = ctx;

	if (size >= sizeof(struct vs_engine_event) && e->event_fn)
		e->event_fn(e->event_ctx, data);
	return 0;
}

static int vs_call_cb(void *ctx, void *data, size_t size)
{
	struct vs_bpf_engine *e = ctx;

	if (size >= VS_CALL_FUNC_SIZE && size <= sizeof(struct vs_call_record) &&
	    e->call_fn)
		e->call_fn(e->call_ctx, data, size);
	return 0;
}

/*
 * The level of our pid namespace (0: the initial one): the number of
 * pids on /proc/self/status's NSpid line less one.
 */
static uint32_t vs_ns_level(void)
{
	char line[256], *p;
	uint32_t level = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "NSpid:", 6)) {
			for (p = line + 6; (p = strchr(p, '\t')); p++)
				level++;
			break;
		}
	fclose(f);
	return level ? level - 1 : 0;
}

/* Leave out the programs of what @what does not take. */
static void vs_choose_programs(struct task_acct *skel, unsigned int what)
{
	struct {
		unsigned int flag;
		struct bpf_program *entry, *exit;
	} progs[] = {
		{ VS_BPF_IRQ, skel->progs.vs_irq_entry, skel->progs.vs_irq_exit },
		{ VS_BPF_SOFTIRQ, skel->progs.vs_softirq_entry,
		  skel->progs.vs_softirq_exit },
		{ VS_BPF_FAULT, skel->progs.vs_page_fault_user,
		  skel->progs.vs_page_fault_kernel },
		{ VS_BPF_VECTOR << VS_VEC_LOCAL_TIMER,
		  skel->progs.vs_local_timer_entry,
		  skel->progs.vs_local_timer_exit },
		{ VS_BPF_VECTOR << VS_VEC_RESCHEDULE,
		  skel->progs.vs_reschedule_entry,
		  skel->progs.vs_reschedule_exit },
		{ VS_BPF_VECTOR << VS_VEC_CALL_FUNCTION,
		  skel->progs.vs_call_function_entry,
		  skel->progs.vs_call_function_exit },
		{ VS_BPF_VECTOR << VS_VEC_CALL_FUNCTION_SINGLE,
		  skel->progs.vs_call_function_single_entry,
		  skel->progs.vs_call_function_single_exit },
		{ VS_BPF_VECTOR << VS_VEC_IRQ_WORK,
		  skel->progs.vs_irq_work_entry,
		  skel->progs.vs_irq_work_exit },
	};

	struct bpf_program *calls[] = {
		skel->progs.vs_call_entry, skel->progs.vs_call_return,
		skel->progs.vs_call_fork, skel->progs.vs_calls_stop,
	};
	size_t i;

	for (i = 0; i < sizeof(progs) / sizeof(*progs); i++) {
		if (what & progs[i].flag)
			continue;
		bpf_program__set_autoload(progs[i].entry, false);
		bpf_program__set_autoload(progs[i].exit, false);
	}
	for (i = 0; i < sizeof(calls) / sizeof(*calls); i++)
		bpf_program__set_autoload(calls[i], what & VS_BPF_CALLS);
	bpf_program__set_autoload(skel->progs.vs_fault_enter,
				  what & VS_BPF_FAULT_TIME);
	bpf_program__set_autoload(skel->progs.vs_fault_exit,
				  what & VS_BPF_FAULT_TIME);
	bpf_program__set_autoload(skel->progs.vs_sample_filter,
				  what & VS_BPF_SAMPLES);
	bpf_program__set_autoattach(skel->progs.vs_sample_filter, false);
	/* attached to each function, and run at the stop */
	for (i = 0; i < 2; i++)
		bpf_program__set_autoattach(calls[i], false);
	bpf_program__set_autoattach(skel->progs.vs_calls_stop, false);
}

/*
 * The tests' fault injection (DEVELOPERS.md): VARSCOPE_TEST_UNSEEN_SWITCH_IN
 * =N leaves every Nth switch-in of a thread in a task unseen,
 * VARSCOPE_TEST_UNSEEN_SWITCH_FROM=COMM every switch away from a thread
 * named COMM.
 */
static void vs_test_knobs(struct task_acct *skel)
{
	const char *n = getenv("VARSCOPE_TEST_UNSEEN_SWITCH_IN");
	const char *from = getenv("VARSCOPE_TEST_UNSEEN_SWITCH_FROM");

	if (n)
		skel->bss->test_unseen_switch_in = strtoul(n, NULL, 10);
	if (from)
		snprintf(skel->bss->test_unseen_from,
			 sizeof(skel->bss->test_unseen_from), "%s", from);
}

/*
 * Whether the kernel takes the fault handler's fentry/fexit, loaded
 * alone in a skeleton thrown away (the switch program's verification
 * alone takes 0.14 s here): a kernel that refuses function tracing
 * (EPERM: this development machine's) or lacks handle_mm_fault's BTF
 * loads the engine without them, the reason kept.
 */
static void try_fault_time(struct vs_bpf_engine *e)
{
	struct task_acct *skel = task_acct__open();
	struct bpf_program *prog;
	int ret = -ENOMEM;

	vs_refusal[0] = '\0';
	if (skel) {
		bpf_object__for_each_program(prog, skel->obj)
			bpf_program__set_autoload(prog,
				prog == skel->progs.vs_fault_enter ||
				prog == skel->progs.vs_fault_exit);
		ret = bpf_map__set_max_entries(skel->maps.counters,
					       VS_SLOT_COUNTERS * e->nr_cpus);
		if (!ret)
			ret = task_acct__load(skel);
		task_acct__destroy(skel);
	}
	e->fault_time = !ret;
	if (ret)
		snprintf(e->no_fault_time, sizeof(e->no_fault_time), "%s",
			 vs_refusal[0] ? vs_refusal : strerror(-ret));
	if (ret && !e->no_fault_time[0])
		snprintf(e->no_fault_time, sizeof(e->no_fault_time),
			 "error %d", ret);
}

struct vs_bpf_engine *vs_bpf_engine_open(unsigned int what, char *err,
					 size_t errlen)
{
	struct vs_bpf_engine *e;
	const char *stage;
	int ret;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen, "the kernel has no BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF): the recording engine needs it");
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	libbpf_set_print(vs_libbpf_quiet);
	e->slots = MAP_FAILED;
	e->nr_cpus = libbpf_num_possible_cpus();
	if (e->nr_cpus <= 0) {
		errno = -e->nr_cpus;
		stage = "open";
		goto fail;
	}
	if (what & VS_BPF_FAULT)
		try_fault_time(e);
	vs_refusal[0] = '\0';
	stage = "open";
	e->skel = task_acct__open();
	if (!e->skel)
		goto fail;
	vs_choose_programs(e->skel, what | (e->fault_time ? VS_BPF_FAULT_TIME : 0));
	/* the iterator runs at each registration, never attached for good */
	bpf_program__set_autoattach(e->skel->progs.vs_register, false);
	/* run by the libraries, with BPF_PROG_TEST_RUN */
	bpf_program__set_autoattach(e->skel->progs.vs_counters_mark, false);
	if (bpf_map__set_max_entries(e->skel->maps.counters,
				     VS_SLOT_COUNTERS * e->nr_cpus))
		goto fail;
	e->counter_fd = malloc(VS_SLOT_COUNTERS * e->nr_cpus *
			       sizeof(*e->counter_fd));
	if (!e->counter_fd)
		goto fail;
	memset(e->counter_fd, 0xff, VS_SLOT_COUNTERS * e->nr_cpus *
	       sizeof(*e->counter_fd));
	stage = "load";
	ret = task_acct__load(e->skel);
	if (ret) {
		errno = -ret;
		goto fail;
	}
	e->skel->bss->ns_level = vs_ns_level();
	e->skel->bss->nr_cpus = e->nr_cpus;
	vs_test_knobs(e->skel);
	stage = "attach";
	ret = task_acct__attach(e->skel);
	if (ret) {
		errno = -ret;
		goto fail;
	}
	e->slots_bytes = (size_t)VS_SLOTS * sizeof(struct vs_slot);
	stage = "map the slots of";
	e->slots = mmap(NULL, e->slots_bytes, PROT_READ | PROT_WRITE,
			MAP_SHARED, bpf_map__fd(e->skel->maps.slots), 0);
	if (e->slots == MAP_FAILED)
		goto fail;
	stage = "open the event ring of";
	e->events = ring_buffer__new(bpf_map__fd(e->skel->maps.events),
				     vs_event_cb, e, NULL);
	if (!e->events)
		goto fail;
	if ((what & VS_BPF_CALLS) &&
	    ring_buffer__add(e->events, bpf_map__fd(e->skel->maps.calls),
			     vs_call_cb, e))
		goto fail;
	e->next_free = 1;
	return e;
fail:
	if (vs_refusal[0])
		snprintf(err, errlen, "cannot %s the BPF recording engine: this kernel's verifier refuses %s",
			 stage, vs_refusal);
	else if (errno == EPERM || errno == EACCES)
		snprintf(err, errlen, "cannot %s the BPF recording engine: %s (it needs CAP_BPF and CAP_PERFMON, or root)",
			 stage, strerror(errno));
	else
		snprintf(err, errlen, "cannot %s the BPF recording engine: %s",
			 stage, strerror(errno));
	vs_bpf_engine_close(e);
	return NULL;
}

void vs_bpf_engine_close(struct vs_bpf_engine *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < VS_CALL_FUNCS; i++) {
		bpf_link__destroy(e->call_link[i][0]);
		bpf_link__destroy(e->call_link[i][1]);
	}
	for (i = 0; i < e->nr_sample_links; i++)
		bpf_link__destroy(e->sample_link[i]);
	free(e->sample_link);
	for (i = 0; e->counter_fd && i < (size_t)VS_SLOT_COUNTERS * e->nr_cpus;
	     i++)
		if (e->counter_fd[i] >= 0)
			close(e->counter_fd[i]);
	free(e->counter_fd);
	ring_buffer__free(e->events);
	if (e->slots != MAP_FAILED)
		munmap(e->slots, e->slots_bytes);
	task_acct__destroy(e->skel);
	free(e);
}

/* Close the counters of @fds (VS_SLOT_COUNTERS per CPU) and set them -1. */
static void vs_close_counters(struct vs_bpf_engine *e, int *fds)
{
	int i;

	for (i = 0; i < VS_SLOT_COUNTERS * e->nr_cpus; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

/*
 * Open @hw on each CPU into @fds (index k * nr_cpus + cpu); a CPU that is
 * not there (ENODEV) has none.  False with @err set.
 */
static bool vs_open_counters(struct vs_bpf_engine *e,
			     const struct vs_hw_config *hw, unsigned int n,
			     int *fds, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	unsigned int k;
	int cpu, fd;

	for (k = 0; k < n; k++)
		for (cpu = 0; cpu < e->nr_cpus; cpu++) {
			memset(&attr, 0, sizeof(attr));
			attr.size = sizeof(attr);
			attr.type = hw[k].type;
			attr.config = hw[k].config;
			attr.config1 = hw[k].config1;
			attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					   PERF_FORMAT_TOTAL_TIME_RUNNING;
			fd = vs_perf_open(&attr, -1, cpu, -1);
			if (fd < 0 && errno == ENODEV)
				continue;
			if (fd < 0) {
				snprintf(err, errlen, "cannot count event "
					 "%u:%#llx on CPU %d: %s", hw[k].type,
					 (unsigned long long)hw[k].config, cpu,
					 strerror(errno));
				vs_close_counters(e, fds);
				return false;
			}
			fds[k * e->nr_cpus + cpu] = fd;
		}
	return true;
}

uint32_t vs_bpf_engine_counters(struct vs_bpf_engine *e,
				const struct vs_hw_config *hw, unsigned int n,
				char *err, size_t errlen)
{
	struct task_acct__bss *bss = e->skel->bss;
	int map = bpf_map__fd(e->skel->maps.counters);
	size_t nr = (size_t)VS_SLOT_COUNTERS * e->nr_cpus, i;
	uint32_t gen = bss->counter_gen;
	int *fds, failed = 0;

	if (n > VS_SLOT_COUNTERS) {
		snprintf(err, errlen, "at most %d counters at once",
			 VS_SLOT_COUNTERS);
		return 0;
	}
	fds = malloc(nr * sizeof(*fds));
	if (!fds) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return 0;
	}
	memset(fds, 0xff, nr * sizeof(*fds));
	if (!vs_open_counters(e, hw, n, fds, err, errlen)) {
		free(fds);
		return 0;
	}
	/* odd while the map holds both sets: no reading is taken then */
	__atomic_store_n(&bss->counter_gen, gen | 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < nr; i++) {
		if (fds[i] < 0) {
			bpf_map_delete_elem(map, &(uint32_t){ i });
		} else if (bpf_map_update_elem(map, &(uint32_t){ i }, &fds[i],
					       BPF_ANY) && !failed) {
			failed = errno;
			snprintf(err, errlen, "cannot put counter %zu of CPU "
				 "%zu into the engine's map: %s",
				 i / e->nr_cpus, i % e->nr_cpus,
				 strerror(errno));
		}
	}
	bss->nr_counters = n;
	gen = (gen | 1) + 1;
	__atomic_store_n(&bss->counter_gen, gen, __ATOMIC_SEQ_CST);
	/* the map held them: the programs are done with them */
	vs_close_counters(e, e->counter_fd);
	free(e->counter_fd);
	e->counter_fd = fds;
	e->nr_counters = n;
	e->counting = true;
	return failed ? 0 : gen;
}

int vs_bpf_engine_mark_fd(const struct vs_bpf_engine *e)
{
	return e->counting ?
	       bpf_program__fd(e->skel->progs.vs_counters_mark) : -1;
}

int vs_bpf_engine_slots_fd(const struct vs_bpf_engine *e)
{
	return bpf_map__fd(e->skel->maps.slots);
}

int vs_bpf_engine_nr_cpus(const struct vs_bpf_engine *e)
{
	return e->nr_cpus;
}

const char *vs_bpf_engine_no_fault_time(const struct vs_bpf_engine *e)
{
	return e->fault_time || !e->no_fault_time[0] ? NULL : e->no_fault_time;
}

bool vs_bpf_engine_fault_time(const struct vs_bpf_engine *e)
{
	return e->fault_time;
}

struct vs_slot *vs_bpf_engine_slot(struct vs_bpf_engine *e, uint32_t idx)
{
	return idx < VS_SLOTS ? &e->slots[idx] : NULL;
}

/*
 * Run the registration iterator over thread @tid (a task iterator limited
 * to it, Linux 6.1); it prints "tid slot kernel-tid" for the binding it
 * made.  The kernel's id of the thread goes to @ktid.
 */
static bool vs_bind(struct vs_bpf_engine *e, uint32_t tid, uint32_t slot,
		    uint32_t *ktid)
{
	union bpf_iter_link_info linfo = { .task.tid = tid };
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &linfo,
		    .link_info_len = sizeof(linfo));
	struct bpf_link *link;
	char buf[64];
	unsigned int got_tid, got_slot;
	ssize_t n, len = 0;
	int fd;

	link = bpf_program__attach_iter(e->skel->progs.vs_register, &opts);
	if (!link)
		return false;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd >= 0) {
		while (len < (ssize_t)sizeof(buf) - 1 &&
		       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += n;
		close(fd);
	}
	bpf_link__destroy(link);
	buf[len > 0 ? len : 0] = '\0';
	return sscanf(buf, "%u %u %u", &got_tid, &got_slot, ktid) == 3 &&
	       got_tid == tid && got_slot == slot;
}

int vs_bpf_engine_register(struct vs_bpf_engine *e, uint32_t tid)
{
	uint32_t i, idx = 0;
	int pending = bpf_map__fd(e->skel->maps.pending);

	for (i = 0; i < VS_SLOTS - 1 && !idx; i++) {
		uint32_t k = 1 + (e->next_free - 1 + i) % (VS_SLOTS - 1);

		if (!e->used[k])
			idx = k;
	}
	if (!idx) {
		errno = ENOSPC;
		return -1;
	}
	memset(&e->slots[idx], 0, sizeof(e->slots[idx]));
	if (bpf_map_update_elem(pending, &tid, &idx, BPF_ANY))
		return -1;
	if (!vs_bind(e, tid, idx, &e->kernel_tid[idx])) {
		bpf_map_delete_elem(pending, &tid);
		errno = ESRCH;
		return -1;
	}
	e->used[idx] = 1;
	e->next_free = idx + 1;
	return idx;
}

void vs_bpf_engine_release(struct vs_bpf_engine *e, uint32_t idx)
{
	if (!idx || idx >= VS_SLOTS || !e->used[idx])
		return;
	bpf_map_delete_elem(bpf_map__fd(e->skel->maps.thread_state),
			    &e->kernel_tid[idx]);
	e->used[idx] = 0;
}

int vs_bpf_engine_events_fd(const struct vs_bpf_engine *e)
{
	return ring_buffer__epoll_fd(e->events);
}

int vs_bpf_engine_read_events(struct vs_bpf_engine *e, vs_engine_event_fn fn,
			      void *ctx)
{
	e->event_fn = fn;
	e->event_ctx = ctx;
	return ring_buffer__consume(e->events);
}

/* The engine's per-CPU counts (a calloc'd array of them), or NULL. */
static struct vs_engine_stats *stats_per_cpu(const struct vs_bpf_engine *e,
					     int *nr)
{
	struct vs_engine_stats *per_cpu;
	uint32_t zero = 0;

	*nr = libbpf_num_possible_cpus();
	if (*nr <= 0)
		return NULL;
	per_cpu = calloc(*nr, sizeof(*per_cpu));
	if (per_cpu && bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.engine_stats),
					   &zero, per_cpu)) {
		free(per_cpu);
		return NULL;
	}
	return per_cpu;
}

void vs_bpf_engine_stats(const struct vs_bpf_engine *e,
			 struct vs_bpf_engine_stats *st)
{
	struct vs_engine_stats *per_cpu;
	int nr, i;

	memset(st, 0, sizeof(*st));
	per_cpu = stats_per_cpu(e, &nr);
	for (i = 0; per_cpu && i < nr; i++) {
		st->event_drops += per_cpu[i].event_drops;
		st->stack_overflows += per_cpu[i].stack_overflows;
		st->unmatched_exits += per_cpu[i].unmatched_exits;
	}
	free(per_cpu);
}

int vs_bpf_engine_samples_passed(const struct vs_bpf_engine *e,
				 uint64_t *passed, int nr_cpus)
{
	struct vs_engine_stats *per_cpu;
	int nr, i;

	per_cpu = stats_per_cpu(e, &nr);
	if (!per_cpu)
		return -1;
	for (i = 0; i < nr_cpus; i++)
		passed[i] = i < nr ? per_cpu[i].samples_passed : 0;
	free(per_cpu);
	return 0;
}

int vs_bpf_engine_filter_samples(struct vs_bpf_engine *e, int fd)
{
	struct bpf_link *link;
	int err;

	if (ALLOC_GROW(e->sample_link, e->nr_sample_links + 1,
		       e->alloc_sample_links) < 0) {
		close(fd);
		return -1;
	}
	link = bpf_program__attach_perf_event(e->skel->progs.vs_sample_filter,
					      fd);
	if (!link) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	e->sample_link[e->nr_sample_links++] = link;
	return 0;
}

/* --- function calls -------------------------------------------------------- */

int vs_bpf_engine_calls_setup(struct vs_bpf_engine *e, uint32_t nr_task_funcs,
			      double rate)
{
	int queue = bpf_map__fd(e->skel->maps.free_slots);
	struct task_acct__bss *bss = e->skel->bss;
	uint32_t idx;

	bss->nr_task_funcs = nr_task_funcs;
	bss->select_all = rate >= 1;
	bss->select_below = rate <= 0 ? 0 : rate >= 1 ? UINT32_MAX :
			    (uint32_t)(rate * 4294967296.0);
	for (idx = 1; nr_task_funcs && idx < VS_SLOTS; idx++) {
		if (e->used[idx])
			continue;
		memset(&e->slots[idx], 0, sizeof(e->slots[idx]));
		if (bpf_map_update_elem(queue, NULL, &idx, BPF_ANY))
			return -1;
		e->used[idx] = 1;
	}
	return 0;
}

int vs_bpf_engine_attach_call(struct vs_bpf_engine *e, uint32_t func,
			      bool ret, int fd, char *err, size_t errlen)
{
	struct bpf_program *prog = ret ? e->skel->progs.vs_call_return :
					 e->skel->progs.vs_call_entry;
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = func);
	int saved;

	if (func >= VS_CALL_FUNCS) {
		snprintf(err, errlen, "at most %d probed functions",
			 VS_CALL_FUNCS);
		close(fd);
		return -1;
	}
	e->call_link[func][ret] = bpf_program__attach_perf_event_opts(prog, fd,
								      &opts);
	if (!e->call_link[func][ret]) {
		saved = errno;
		snprintf(err, errlen, "cannot attach the %s program to its "
			 "uprobe event: %s", ret ? "return" : "entry",
			 strerror(saved));
		close(fd);
		errno = saved;
		return -1;
	}
	return 0;
}

int vs_bpf_engine_trace_process(struct vs_bpf_engine *e, uint32_t pid)
{
	uint32_t one = 1;

	return bpf_map_update_elem(bpf_map__fd(e->skel->maps.traced), &pid,
				   &one, BPF_ANY);
}

void vs_bpf_engine_stop_calls(struct vs_bpf_engine *e, uint64_t time)
{
	struct task_acct__bss *bss = e->skel->bss;
	struct bpf_link *link;
	char buf[64];
	int fd;

	if (!bpf_program__autoload(e->skel->progs.vs_calls_stop) ||
	    bss->calls_stopped)
		return;
	bss->stop_ns = time;
	__atomic_store_n(&bss->calls_stopped, 1, __ATOMIC_RELEASE);
	link = bpf_program__attach_iter(e->skel->progs.vs_calls_stop, NULL);
	if (!link)
		return;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd >= 0) {
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	bpf_link__destroy(link);
}

void vs_bpf_engine_on_calls(struct vs_bpf_engine *e, vs_call_record_fn fn,
			    void *ctx)
{
	e->call_fn = fn;
	e->call_ctx = ctx;
}

void vs_bpf_engine_call_stats(const struct vs_bpf_engine *e,
			      struct vs_bpf_call_stats *st)
{
	const struct task_acct__bss *bss = e->skel->bss;

	memcpy(st->nested, (const void *)bss->call_nested, sizeof(st->nested));
	memcpy(st->no_return, (const void *)bss->call_no_return,
	       sizeof(st->no_return));
	st->measured_no_return = bss->measured_no_return;
	st->drops = bss->call_drops;
	st->no_slot = bss->call_no_slot;
	st->too_deep = bss->call_too_deep;
	st->no_thread = bss->call_no_thread;
}
