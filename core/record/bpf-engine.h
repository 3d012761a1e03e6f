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

/**
 * vs_bpf_engine_open - load the programs and attach them to the
 * scheduler, interrupt and fault tracepoints
 * @err: one line naming what the kernel lacks (its BTF, CAP_BPF and
 *	CAP_PERFMON, a tracepoint) on failure
 * @errlen: size of @err
 *
 * Returns the engine, or NULL with @err set.
 */
struct vs_bpf_engine *vs_bpf_engine_open(char *err, size_t errlen);

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
 * it in the kernel (task storage, made by an iterator over that thread)
 *
 * Returns the slot (> 0), or -1 with errno set: ENOSPC when every slot is
 * taken, ESRCH when the thread is gone.  A thread registered again gets
 * a new slot; its old one is freed.
 */
int vs_bpf_engine_register(struct vs_bpf_engine *e, uint32_t tid);

/* Slot @idx's thread is gone: the slot may be given again. */
void vs_bpf_engine_release(struct vs_bpf_engine *e, uint32_t idx);

typedef void (*vs_wake_edge_fn)(void *ctx, const struct vs_wake_edge *w);

/* The descriptor that polls readable when wake-up edges wait. */
int vs_bpf_engine_wake_fd(const struct vs_bpf_engine *e);

/**
 * vs_bpf_engine_read_wakes - call @fn for each wake-up edge waiting, at
 * most a ring buffer's worth
 *
 * Returns how many.
 */
int vs_bpf_engine_read_wakes(struct vs_bpf_engine *e, vs_wake_edge_fn fn,
			     void *ctx);

struct vs_bpf_engine_stats {
	uint64_t wake_drops;		/* edges the ring buffer had no room for */
	uint64_t stack_overflows;	/* interrupts nested past the stack */
	uint64_t unmatched_exits;	/* interrupt exits without their entry */
};

/* The programs' counts, summed over the CPUs. */
void vs_bpf_engine_stats(const struct vs_bpf_engine *e,
			 struct vs_bpf_engine_stats *st);

#endif /* VS_CORE_RECORD_BPF_ENGINE_H */
