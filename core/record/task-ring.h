/* SPDX-License-Identifier: MIT */
/*
 * task-ring.h - what libvarscope and "varscope record" share: the control
 * variable in the environment, the registration message on the recorder's
 * socket and its reply (the engine's slot of the thread), and the
 * per-thread shared-memory ring of finished tasks.
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

/*
 * Registration: the library sends this, the recorder answers.  The magic
 * changes with anything the two share (the request, the reply, the task
 * ring, the engine's slot: core/record/task-slot.h), so that a program
 * linked with an older library is refused, not read wrong.
 */
#define VS_REG_MAGIC		0x76737236u	/* "vsr6": the slots'
						 * fault time */

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
	VS_REG_FD_SLOTS,	/* the engine's slots map (core/record/
				 * task-slot.h): mmap VS_SLOTS slots
				 * read-write and close it */
	VS_REG_FD_TASKS,	/* memfd holding struct vs_task_ring */
	VS_REG_NR_FDS,
	/*
	 * With VS_REG_COUNTERS: the engine's program vs_counters_mark
	 * (task-acct.bpf.c), which the library runs (one BPF_PROG_TEST_RUN)
	 * right after a selected task's begin and right before its end:
	 * the counter values in flight there.
	 */
	VS_REG_FD_MARK = VS_REG_NR_FDS,
	VS_REG_MAX_FDS
};

struct vs_reg_reply {
	uint32_t magic;
	int32_t status;		/* 0, or a positive errno */
	uint32_t nr_fds;	/* VS_REG_NR_FDS, or VS_REG_MAX_FDS */
	uint32_t flags;		/* VS_REG_* */
	/*
	 * the thread's id in the recorder's pid namespace, which its task
	 * ids hold (its gettid() in a pid namespace of its own differs)
	 */
	uint32_t tid;
	uint32_t slot;		/* the thread's slot: 1 to VS_SLOTS - 1 */
};

/* The engine records counters: VS_REG_FD_MARK comes too. */
#define VS_REG_COUNTERS		1u

/* One finished task, as the library saw it. */
struct vs_ring_task {
	uint64_t start, end;		/* CLOCK_MONOTONIC ns */
	uint32_t type;
	uint32_t flags;			/* VS_TASK_* of core/trace/trace.h */
	uint32_t cpu;			/* cpu at begin */
	uint32_t seq;			/* 1, 2, ... per thread */
	uint64_t attach_id;		/* VS_TASK_ATTACHED: the task worked for */
	/* what the engine accounted in the task */
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
	uint32_t open_pad;
	uint64_t open_start;
	uint64_t open_attach_id;	/* attached: the task worked for, else 0 */
	char pad1[64 - 56];
	/* written by the recorder */
	uint64_t tail;			/* tasks consumed */
	char pad2[64 - 8];
	struct vs_ring_task slot[VS_RING_ENTRIES];
};

#endif /* VS_CORE_TASK_RING_H */
