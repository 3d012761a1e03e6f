/* SPDX-License-Identifier: MIT */
/*
 * tracepoints.h - the kernel tracepoints record selects (-e), checked
 * against the kernel's formats with libtraceevent, and their roles: which
 * of the engine's programs run (core/record/bpf-engine.h).
 */
#ifndef VS_CORE_TRACEPOINTS_H
#define VS_CORE_TRACEPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vs_tp_role {
	VS_TP_SWITCH,		/* sched:sched_switch (prev_state) */
	VS_TP_IRQ_ENTRY,	/* irq:irq_handler_entry (name) */
	VS_TP_IRQ_EXIT,
	VS_TP_SOFTIRQ_ENTRY,	/* irq:softirq_entry (vec) */
	VS_TP_SOFTIRQ_EXIT,
	VS_TP_VECTOR_ENTRY,	/* irq_vectors:<name>_entry */
	VS_TP_VECTOR_EXIT,
	VS_TP_FAULT,		/* exceptions:page_fault_user/kernel */
};

#define VS_TP_MAX	64

struct tep_handle;

struct vs_tp {
	char system[32];
	char name[64];
	enum vs_tp_role role;
	const char *label;		/* vector name */
};

struct vs_tp_set {
	struct tep_handle *tep;
	struct vs_tp tp[VS_TP_MAX];
	int nr;
};

/**
 * vs_tp_set_init - mount tracefs if needed and resolve the tracepoints
 * @set: filled
 * @select: comma-separated "sys:name" items (name may end in '*'; an
 *          _entry brings its _exit), or NULL for every supported one
 * @err: one-line reason on failure
 *
 * Returns 0, or -1 with @err set.
 */
int vs_tp_set_init(struct vs_tp_set *set, const char *select, char *err,
		   size_t errlen);
/**
 * vs_tp_set_select - like vs_tp_set_init() on formats already parsed in
 * @tep (tests parse format text with tep_parse_event()); @set owns @tep
 */
int vs_tp_set_select(struct vs_tp_set *set, struct tep_handle *tep,
		     const char *select, char *err, size_t errlen);

void vs_tp_set_exit(struct vs_tp_set *set);

#endif /* VS_CORE_TRACEPOINTS_H */
