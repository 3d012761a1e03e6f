/* SPDX-License-Identifier: MIT */
/*
 * task-ring.h - what libvarscope and "varscope record" share: the control
 * variable in the environment, the registration message on the recorder's
 * socket, and the per-thread shared-memory ring of finished tasks.
 *
 * One thread writes a ring (the annotated thread, through the library), one
 * reads it (the recorder): a single-producer single-consumer ring indexed
 * by free-running 64-bit counters, so neither side ever locks or blocks.
 * When the ring is full the library drops the task and counts it.
 */
#ifndef VS_CORE_TASK_RING_H
#define VS_CORE_TASK_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "core/record/task-slot.h"

/*
 * VARSCOPE_CTL=v1,rate=R,sock=NAME: set by "varscope record" for the
 * program it runs.  NAME is an abstract unix socket name (without the
 * leading NUL).  Absent or malformed: the library stays off.
 */
#define VS_CTL_ENV		"VARSCOPE_CTL"
#define VS_CTL_VERSION		"v1"

/*
 * Power of two.  A task's entry carries the kernel's values (about 1 KiB):
 * a thread's ring is 4 MiB of shared memory, whose pages exist once the
 * library wrote them (a thread that ran 100 tasks has 100 KiB).  Drained
 * every 10 ms, every 1 ms while a ring fills fast: a thread ending more
 * than 400,000 tasks a second may fill it.
 */
#define VS_RING_ENTRIES		4096
#define VS_MAX_SW_COUNTERS	8
#define VS_MAX_HW_COUNTERS	8	/* fixed counters + an epoch's set */
/* Values in one PERF_FORMAT_GROUP read of a thread's group, nr included. */
#define VS_MAX_GROUP_READ	96

/*
 * Registration: the library sends this, the recorder answers.  The magic
 * changes with anything the two share (the request, the task ring, the
 * engine's slot: core/record/task-slot.h), so that a program linked with
 * an older library is refused, not read wrong.
 */
#define VS_REG_MAGIC		0x76737234u	/* "vsr4": the slot's open wait
						 * and counters */

struct vs_reg_request {
	uint32_t magic;
	uint32_t pid;
	uint32_t tid;
};

/*
 * A thread vouches that the request it sends is its own: from before it
 * sends it until the answer came, its robust futex list head (which a
 * thread sets only for itself, set_robust_list(2)) is vs_reg_vouch() of
 * the inode of the socket it sends from.  The recorder reads the named
 * thread's (get_robust_list(2)) and asks the kernel which socket is the
 * peer of the connection (unix_diag): a thread that names a sibling
 * cannot make the sibling vouch for its socket.  Above every user
 * address, so that a thread that exits meanwhile leaves the kernel no
 * list to walk.
 */
#define VS_REG_VOUCH_TAG	0x7673000000000000ull	/* "vs" */

static inline void *vs_reg_vouch(uint64_t ino)
{
	return (void *)(uintptr_t)(VS_REG_VOUCH_TAG |
				   (ino & 0xffffffffffffull));
}

/*
 * vs_task_type_name(): the other message the recorder takes, on a
 * connection of its own, without an answer.  @name holds the name's
 * bytes, NUL-padded (not NUL-terminated when it fills the field); the
 * recorder checks them (core/trace/type-names.h), keeps a type's first name
 * and counts what it refuses.
 */
#define VS_NAME_MAGIC		0x76736e31u	/* "vsn1" */
#define VS_NAME_MSG_MAX		64		/* VS_TYPE_NAME_MAX */

struct vs_type_name_msg {
	uint32_t magic;
	uint32_t type;
	char name[VS_NAME_MSG_MAX];
};

/* Order of the descriptors passed back with SCM_RIGHTS. */
enum vs_reg_fd {
	VS_REG_FD_RING,		/* leader of the thread's group writing its
				 * perf ring: enable/disable (and pause),
				 * and read the software counters; under
				 * VS_REG_BPF_SLOT the slots map instead */
	VS_REG_FD_TASKS,	/* memfd holding struct vs_task_ring */
	VS_REG_NR_FDS,
	/*
	 * With a hardware PMU only: a datagram socket on which the recorder
	 * passes each epoch's hardware counter group leader, one struct
	 * vs_hw_group message with the fd, when it bumps the ring's hw_gen.
	 * Under VS_REG_BPF_SLOT with VS_REG_COUNTERS: the engine's program
	 * that marks a task's begin and end for its counters instead.
	 */
	VS_REG_FD_HW = VS_REG_NR_FDS,
	VS_REG_MAX_FDS
};

struct vs_reg_reply {
	uint32_t magic;
	int32_t status;		/* 0, or a positive errno */
	/*
	 * A PERF_FORMAT_GROUP read(2) of the leader gives { nr, value[nr] }
	 * (nr < VS_MAX_GROUP_READ); the software counters are nr_counters
	 * values from value[counters_at] on.
	 */
	uint32_t nr_counters;
	uint32_t counters_at;
	uint32_t nr_fds;	/* VS_REG_NR_FDS, or VS_REG_MAX_FDS */
	uint32_t flags;		/* VS_REG_* */
	/*
	 * the thread's id in the recorder's pid namespace, which its task
	 * ids hold (its gettid() in a pid namespace of its own differs)
	 */
	uint32_t tid;
	uint32_t slot;		/* VS_REG_BPF_SLOT: the thread's slot */
};

/* Members of a hardware group: counters, then snapshot events. */
#define VS_MAX_HW_READ		32

/* The message that comes with a hardware group leader. */
struct vs_hw_group {
	uint32_t gen;		/* 1, 2, ...: the ring's hw_gen it answers */
	uint32_t nr;		/* counters: the first members */
	uint32_t nr_read;	/* members (VS_PMU_READ_FORMAT read) */
};

/* The ring also starts paused: resume and pause it with the group. */
#define VS_REG_PAUSED_RING	1u
/*
 * The group is enabled and counts all along: pausing the ring alone gates
 * the thread's events, and the counters are read at begin too.
 */
#define VS_REG_PAUSE_GATE	2u

/*
 * The in-kernel engine accounts the thread (core/record/task-slot.h): the
 * first descriptor is the slots map (mmap VS_SLOTS slots read-write and
 * close it), the thread's is @slot; no perf event, no system call at
 * begin or end.  A task's entry carries the slot's values.
 */
#define VS_REG_BPF_SLOT		4u
/*
 * With VS_REG_BPF_SLOT: the engine records counters, and the third
 * descriptor is its program vs_counters_mark (task-acct.bpf.c), which the
 * library runs (one BPF_PROG_TEST_RUN) right after a selected task's
 * begin and right before its end: the counter values in flight there.
 */
#define VS_REG_COUNTERS		8u

/* One finished task, as the library saw it. */
struct vs_ring_task {
	uint64_t start, end;		/* CLOCK_MONOTONIC ns */
	uint32_t type;
	uint32_t flags;			/* VS_TASK_* of core/trace/trace.h */
	uint32_t cpu;			/* cpu at begin */
	uint32_t seq;			/* 1, 2, ... per thread */
	uint32_t nr_counters;
	uint32_t pad;
	uint64_t attach_id;		/* VS_TASK_ATTACHED: the task worked for */
	/* deltas over the group's enabled time, from the enable to the disable */
	uint64_t counters[VS_MAX_SW_COUNTERS];
	/*
	 * Hardware counters, read at begin and end (@hw_gen 0: none): the
	 * clock just before and after the begin read, then the end read;
	 * time enabled and running of the group at begin and end; the
	 * deltas in group order.
	 */
	uint32_t hw_gen;
	uint32_t hw_nr;
	uint64_t hw_clock[4];
	uint64_t hw_enabled[2], hw_running[2];
	uint64_t hw[VS_MAX_HW_COUNTERS];
	/* VS_REG_BPF_SLOT: what the engine accounted in the task */
	struct vs_slot_values kernel;
};

struct vs_task_ring {
	/* written by the library */
	uint64_t head;			/* tasks produced */
	uint64_t dropped;		/* tasks dropped because the ring was full */
	uint64_t unmatched_ends;	/* vs_task_end() without a begin */
	/*
	 * The task open now: @open is its seq (a seqlock: written last with
	 * release, cleared first at its end), 0 when none is open.
	 */
	uint32_t open;
	uint32_t open_type;
	uint32_t open_cpu;
	uint32_t fds_closed;		/* 1: the program closed the thread's
					 * descriptors, it is recorded no more */
	uint64_t open_start;
	uint64_t open_attach_id;	/* attached: the task worked for, else 0 */
	char pad1[64 - 56];
	/* written by the recorder */
	uint64_t tail;			/* tasks consumed */
	uint32_t hw_gen;		/* hardware group sent last, 0: none */
	uint32_t hw_pad;
	char pad2[64 - 16];
	struct vs_ring_task slot[VS_RING_ENTRIES];
};

#endif /* VS_CORE_TASK_RING_H */
