/* SPDX-License-Identifier: MIT */
/*
 * tracepoints.h - the kernel tracepoints the recorder opens per thread,
 * their ids and field offsets read with libtraceevent, and the decoding of
 * their raw samples into accounting events.
 */
#ifndef VS_CORE_TRACEPOINTS_H
#define VS_CORE_TRACEPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/accounting.h"

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
#define VS_IRQ_NAMES	1024

struct tep_handle;
struct tep_format_field;

struct vs_tp {
	char system[32];
	char name[64];
	enum vs_tp_role role;
	const char *label;		/* vector name */
	int id;				/* tracepoint id (attr.config) */
	struct tep_format_field *field;	/* prev_state, irq or vec */
	struct tep_format_field *name_field;	/* irq name */
};

struct vs_tp_set {
	struct tep_handle *tep;
	struct vs_tp tp[VS_TP_MAX];
	int nr;
	char *irq_name[VS_IRQ_NAMES];	/* first name seen per irq */
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

/*
 * sched:sched_waking, the wake-up edges of the recording.  Not
 * sched_wakeup: the kernel may fire that one on the wakee's CPU, from the
 * IPI that queues it there (try_to_wake_up()'s wake list, taken when that
 * CPU is idle), where the current task is not the waker; sched_waking
 * always fires in the waking context.
 */
struct vs_tp_waking {
	int id;					/* -1: the kernel lacks it */
	const struct tep_format_field *pid;	/* the wakee */
	const struct tep_format_field *flags;	/* common_flags */
};

/**
 * vs_tp_waking - find sched:sched_waking in @set's formats
 * Returns its id (also in @w->id), or -1 when the kernel lacks it.
 *
 * It is not one of the per-thread tracepoints: it fires in the waker's
 * context, and the recorder opens it on the command's processes instead.
 */
int vs_tp_waking(const struct vs_tp_set *set, struct vs_tp_waking *w);

/**
 * vs_tp_wakee - the wakee tid in the raw data of a sched_waking sample
 * (0: too short); *@in_irq says whether the wake-up was made in hard or
 * soft interrupt (or NMI) context, by no thread
 */
uint32_t vs_tp_wakee(const struct vs_tp_set *set,
		     const struct vs_tp_waking *w, const void *raw,
		     uint32_t size, bool *in_irq);

/**
 * vs_tp_set_drop - remove tracepoint @i and the other half of its
 * entry/exit pair (for one that cannot be opened per thread)
 */
void vs_tp_set_drop(struct vs_tp_set *set, int i);

/**
 * vs_tp_decode - turn the raw data of a sample of @tp into @ev's kind,
 * name and state (time, cpu and tid are the caller's)
 */
void vs_tp_decode(struct vs_tp_set *set, const struct vs_tp *tp,
		  const void *raw, uint32_t size, struct vs_acct_event *ev);

#endif /* VS_CORE_TRACEPOINTS_H */
