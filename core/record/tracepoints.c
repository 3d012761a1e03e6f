// SPDX-License-Identifier: MIT
/*
 * tracepoints.c - resolve the kernel tracepoints that record selects.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <event-parse.h>

#include "core/arch.h"
#include "core/record/tracepoints.h"

#define VS_TRACEFS	"/sys/kernel/tracing"

static const char *const default_select =
	"sched:sched_switch,irq:irq_handler_entry,irq:softirq_entry,"
	"irq_vectors:*,exceptions:page_fault_user,exceptions:page_fault_kernel";

/*
 * The vectors the default selection takes: those the engine accounts
 * (vs_bpf_vector_names); the ones that practically never fire
 * (spurious_apic, error_apic, thermal_apic, x86_platform_ipi, ...) are
 * opt-in with -e irq_vectors:*.
 */
static const char *const default_vectors[] = {
	"local_timer", "reschedule", "call_function", "call_function_single",
	"irq_work", NULL
};

static bool default_vector(const char *vector)
{
	int i;

	for (i = 0; default_vectors[i]; i++)
		if (!strcmp(default_vectors[i], vector))
			return true;
	return false;
}

/* Mount tracefs when it is absent; 0 when the events can be read. */
static int mount_tracefs(char *err, size_t errlen)
{
	struct stat st;

	if (!stat(VS_TRACEFS "/events", &st))
		return 0;
	if (errno == EACCES) {		/* mounted, not ours to read */
		snprintf(err, errlen,
			 "cannot read %s: %s (recording needs root, or "
			 "CAP_PERFMON and read access to tracefs)",
			 VS_TRACEFS "/events", strerror(errno));
		return -1;
	}
	if (mount("nodev", VS_TRACEFS, "tracefs", 0, NULL) &&
	    errno != EBUSY) {
		snprintf(err, errlen,
			 "cannot mount tracefs on %s: %s (run as root, or mount it: "
			 "mount -t tracefs nodev %s)", VS_TRACEFS,
			 strerror(errno), VS_TRACEFS);
		return -1;
	}
	return 0;
}

static struct vs_tp *add_tp(struct vs_tp_set *set, const char *sys,
			    const char *name, enum vs_tp_role role,
			    const char *label)
{
	struct tep_event *ev;
	struct vs_tp *tp;
	int i;

	for (i = 0; i < set->nr; i++)
		if (!strcmp(set->tp[i].system, sys) &&
		    !strcmp(set->tp[i].name, name))
			return &set->tp[i];
	ev = tep_find_event_by_name(set->tep, sys, name);
	if (!ev || set->nr == VS_TP_MAX)
		return NULL;
	tp = &set->tp[set->nr++];
	snprintf(tp->system, sizeof(tp->system), "%s", sys);
	snprintf(tp->name, sizeof(tp->name), "%s", name);
	tp->role = role;
	tp->label = label;
	return tp;
}

/* One selection item; 0 if it named something, -1 if not. */
static int select_item(struct vs_tp_set *set, const char *sys,
		       const char *name, bool by_default)
{
	char entry[80], exit_name[80];
	int found = 0, i;

	if (!strcmp(sys, "sched") && !fnmatch(name, "sched_switch", 0))
		found += !!add_tp(set, sys, "sched_switch", VS_TP_SWITCH, NULL);
	if (!strcmp(sys, "irq") && (!fnmatch(name, "irq_handler_entry", 0) ||
				    !fnmatch(name, "irq_handler_exit", 0))) {
		found += !!add_tp(set, sys, "irq_handler_entry", VS_TP_IRQ_ENTRY, NULL);
		add_tp(set, sys, "irq_handler_exit", VS_TP_IRQ_EXIT, NULL);
	}
	if (!strcmp(sys, "irq") && (!fnmatch(name, "softirq_entry", 0) ||
				    !fnmatch(name, "softirq_exit", 0))) {
		found += !!add_tp(set, sys, "softirq_entry", VS_TP_SOFTIRQ_ENTRY, NULL);
		add_tp(set, sys, "softirq_exit", VS_TP_SOFTIRQ_EXIT, NULL);
	}
	if (!strcmp(sys, "irq_vectors")) {
		for (i = 0; vs_arch_irq_vectors[i]; i++) {
			snprintf(entry, sizeof(entry), "%s_entry", vs_arch_irq_vectors[i]);
			snprintf(exit_name, sizeof(exit_name), "%s_exit",
				 vs_arch_irq_vectors[i]);
			if ((fnmatch(name, entry, 0) &&
			     fnmatch(name, exit_name, 0)) ||
			    (by_default && !default_vector(vs_arch_irq_vectors[i])))
				continue;
			if (add_tp(set, sys, entry, VS_TP_VECTOR_ENTRY,
				   vs_arch_irq_vectors[i]) &&
			    add_tp(set, sys, exit_name, VS_TP_VECTOR_EXIT,
				   vs_arch_irq_vectors[i]))
				found++;
		}
	}
	if (!strcmp(sys, "exceptions")) {
		if (!fnmatch(name, "page_fault_user", 0))
			found += !!add_tp(set, sys, "page_fault_user", VS_TP_FAULT, NULL);
		if (!fnmatch(name, "page_fault_kernel", 0))
			found += !!add_tp(set, sys, "page_fault_kernel", VS_TP_FAULT, NULL);
	}
	return found ? 0 : -1;
}

int vs_tp_set_select(struct vs_tp_set *set, struct tep_handle *tep,
		     const char *select, char *err, size_t errlen)
{
	char *list, *item, *save = NULL;
	int ret = 0;

	memset(set, 0, sizeof(*set));
	set->tep = tep;
	list = strdup(select ? select : default_select);
	for (item = strtok_r(list, ",", &save); item && !ret;
	     item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');

		if (!colon || !colon[1] || (*colon = 0, select_item(set, item, colon + 1, !select))) {
			if (colon)
				*colon = ':';
			snprintf(err, errlen, "unknown or unsupported tracepoint '%s'",
				 item);
			ret = -1;
		}
	}
	free(list);
	return ret;
}

/* Parse the format of sys/name into @tep; missing ones are skipped. */
static void load_format(struct tep_handle *tep, const char *sys,
			const char *name)
{
	char path[256], *buf;
	size_t len = 0, n;
	FILE *f;

	snprintf(path, sizeof(path), VS_TRACEFS "/events/%s/%s/format", sys,
		 name);
	f = fopen(path, "r");
	if (!f)
		return;
	buf = malloc(65536);
	if (buf) {
		while (len < 65535 && (n = fread(buf + len, 1, 65535 - len, f)))
			len += n;
		tep_parse_event(tep, buf, len, sys);
		free(buf);
	}
	fclose(f);
}

/*
 * The formats of the tracepoints we know, and only those: loading whole
 * systems with libtracefs also parses /proc/kallsyms, seconds under ASAN.
 */
static struct tep_handle *load_formats(void)
{
	static const char *const fixed[][2] = {
		{ "sched", "sched_switch" },
		{ "irq", "irq_handler_entry" }, { "irq", "irq_handler_exit" },
		{ "irq", "softirq_entry" }, { "irq", "softirq_exit" },
		{ "exceptions", "page_fault_user" },
		{ "exceptions", "page_fault_kernel" },
	};
	struct tep_handle *tep = tep_alloc();
	char name[80];
	size_t i;

	if (!tep)
		return NULL;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		load_format(tep, fixed[i][0], fixed[i][1]);
	for (i = 0; vs_arch_irq_vectors[i]; i++) {
		snprintf(name, sizeof(name), "%s_entry", vs_arch_irq_vectors[i]);
		load_format(tep, "irq_vectors", name);
		snprintf(name, sizeof(name), "%s_exit", vs_arch_irq_vectors[i]);
		load_format(tep, "irq_vectors", name);
	}
	return tep;
}

int vs_tp_set_init(struct vs_tp_set *set, const char *select, char *err,
		   size_t errlen)
{
	struct tep_handle *tep;

	memset(set, 0, sizeof(*set));
	if (mount_tracefs(err, errlen))
		return -1;
	tep = load_formats();
	if (!tep) {
		snprintf(err, errlen, "cannot read the tracepoint formats in %s",
			 VS_TRACEFS "/events");
		return -1;
	}
	return vs_tp_set_select(set, tep, select, err, errlen);
}

void vs_tp_set_exit(struct vs_tp_set *set)
{
	if (set->tep)
		tep_free(set->tep);
	set->tep = NULL;
}
