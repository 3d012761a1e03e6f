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

#include <stdint.h>

/*
 * VARSCOPE_CTL=v1,rate=R,sock=NAME: set by "varscope record" for the
 * program it runs.  NAME is an abstract unix socket name (without the
 * leading NUL).  Absent or malformed: the library stays off.
 */
#define VS_CTL_ENV		"VARSCOPE_CTL"
#define VS_CTL_VERSION		"v1"

#define VS_RING_ENTRIES		4096	/* power of two */
#define VS_MAX_SW_COUNTERS	8

/* Registration: the library sends this, the recorder answers. */
#define VS_REG_MAGIC		0x76737265u	/* "vsre" */

struct vs_reg_request {
	uint32_t magic;
	uint32_t pid;
	uint32_t tid;
};

/* Order of the descriptors passed back with SCM_RIGHTS. */
enum vs_reg_fd {
	VS_REG_FD_RING,		/* owner of the per-thread perf ring: pause/resume */
	VS_REG_FD_COUNTERS,	/* software counter group leader */
	VS_REG_FD_TASKS,	/* memfd holding struct vs_task_ring */
	VS_REG_NR_FDS
};

struct vs_reg_reply {
	uint32_t magic;
	int32_t status;		/* 0, or a positive errno */
	uint32_t nr_counters;	/* values in one PERF_FORMAT_GROUP read */
};

/* One finished task, as the library saw it. */
struct vs_ring_task {
	uint64_t start, end;		/* CLOCK_MONOTONIC ns */
	uint32_t type;
	uint32_t flags;			/* VS_TASK_* of core/trace.h */
	uint32_t cpu;			/* cpu at begin */
	uint32_t seq;			/* 1, 2, ... per thread */
	uint32_t nr_counters;
	uint32_t pad;
	uint64_t attach_id;		/* VS_TASK_ATTACHED: the task worked for */
	uint64_t counters[VS_MAX_SW_COUNTERS];	/* deltas end - begin */
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
