/* SPDX-License-Identifier: MIT */
/*
 * bpf-engine.h - the loader of the in-kernel recording engine
 * (core/record/task-acct.bpf.c, through its bpftool skeleton): load and
 * attach the programs, hand out and bind the threads' slots, read the
 * wake-up edges and the programs' own counts.
 */
#ifndef VS_CORE_RECORD_BPF_ENGINE_H
#define VS_CORE_RECORD_BPF_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "core/record/task-slot.h"

struct vs_bpf_engine;

/* What to account besides the waits (the tracepoints of record -e). */
#define VS_BPF_IRQ		(1u << 0)
#define VS_BPF_SOFTIRQ		(1u << 1)
#define VS_BPF_FAULT		(1u << 2)
/* irq_vectors: bit VS_BPF_VECTOR << enum vs_slot_vector */
#define VS_BPF_VECTOR		(1u << 3)
#define VS_BPF_ALL		((VS_BPF_VECTOR << VS_SLOT_VECTORS) - 1)

/* The irq_vectors names of enum vs_slot_vector, in order. */
extern const char *const vs_bpf_vector_names[VS_SLOT_VECTORS];

/**
 * vs_bpf_engine_open - load the programs and attach them to the
 * scheduler tracepoints, and to the interrupt and fault ones of @what
 * @what: VS_BPF_* flags
 * @err: one line naming what the kernel lacks (its BTF, CAP_BPF and
 *	CAP_PERFMON, a tracepoint) on failure
 * @errlen: size of @err
 *
 * Returns the engine, or NULL with @err set.
 */
struct vs_bpf_engine *vs_bpf_engine_open(unsigned int what, char *err,
					 size_t errlen);

void vs_bpf_engine_close(struct vs_bpf_engine *e);

/*
 * The slots map, to pass to a registered thread's library (which maps it
 * and closes it).
 */
int vs_bpf_engine_slots_fd(const struct vs_bpf_engine *e);

/* The recorder's own mapping of slot @idx (< VS_SLOTS). */
struct vs_slot *vs_bpf_engine_slot(struct vs_bpf_engine *e, uint32_t idx);

/**
 * vs_bpf_engine_register - give thread @tid a free slot, cleared, and bind
 * it in the kernel (the programs' map of threads, by an iterator over
 * that thread)
 *
 * Returns the slot (> 0), or -1 with errno set: ENOSPC when every slot is
 * taken, ESRCH when the thread is gone.  A thread registered again gets
 * a new slot; its old one is freed.
 */
int vs_bpf_engine_register(struct vs_bpf_engine *e, uint32_t tid);

/* Slot @idx's thread is gone: unbound, the slot may be given again. */
void vs_bpf_engine_release(struct vs_bpf_engine *e, uint32_t idx);

typedef void (*vs_engine_event_fn)(void *ctx,
				   const struct vs_engine_event *ev);

/* The descriptor that polls readable when events wait. */
int vs_bpf_engine_events_fd(const struct vs_bpf_engine *e);

/**
 * vs_bpf_engine_read_events - call @fn for each event waiting (wake-up
 * edges, blocked waits' switches), at most a ring buffer's worth
 *
 * Returns how many.
 */
int vs_bpf_engine_read_events(struct vs_bpf_engine *e, vs_engine_event_fn fn,
			      void *ctx);

struct vs_bpf_engine_stats {
	uint64_t event_drops;		/* events the ring buffer had no room for */
	uint64_t stack_overflows;	/* interrupts nested past the stack */
	uint64_t unmatched_exits;	/* interrupt exits without their entry */
};

/* The programs' counts, summed over the CPUs. */
void vs_bpf_engine_stats(const struct vs_bpf_engine *e,
			 struct vs_bpf_engine_stats *st);

#endif /* VS_CORE_RECORD_BPF_ENGINE_H */
