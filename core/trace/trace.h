/* SPDX-License-Identifier: MIT */
/*
 * trace.h - the varscope trace format: records, writer and streaming reader.
 *
 * One format serves every command (record, report, tui, diff, segments,
 * signature, script).  The byte layout is specified in
 * Documentation/varscope-data-format.txt; this header is its C face.
 *
 * All times are nanoseconds of the clock named in the header (by default
 * CLOCK_MONOTONIC, the clock perf events are opened with).
 */
#ifndef VS_CORE_TRACE_H
#define VS_CORE_TRACE_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define VS_DEFAULT_FILE		"varscope.data"

#define VS_FORMAT_MAJOR		2	/* readers read majors 1 and 2 */
#define VS_FORMAT_MINOR		3

/* Event groups (VarMRI Table 1, plus kernel, software and function events). */
enum vs_event_group {
	VS_GROUP_KERNEL	= 0,	/* scheduling, interrupts, faults */
	VS_GROUP_SOFTWARE = 1,	/* perf software counters */
	VS_GROUP_CYCLE	= 2,
	VS_GROUP_INST	= 3,
	VS_GROUP_CACHE	= 4,
	VS_GROUP_UOP	= 5,
	VS_GROUP_OTHER	= 6,
	VS_GROUP_FUNC	= 7,	/* func:<symbol>.time from samples or probes */
	VS_GROUP__MAX
};

#define VS_EVENT_NO_PARENT	0xffffu
#define VS_EVENT_MAX		0xfffeu

/* Record kinds.  Readers skip kinds they do not know. */
enum vs_record_kind {
	VS_REC_EVENT_DEF	= 1,	/* an entry of the event catalog */
	VS_REC_TASK		= 2,	/* one AppTask with its cumulative values */
	VS_REC_SAMPLE		= 3,	/* a PEBS or software-clock sample */
	VS_REC_SYSCALL		= 4,	/* system call enter or exit */
	VS_REC_FUNC		= 5,	/* function enter or exit (uprobes) */
	VS_REC_SYMBOL_DEF	= 6,	/* id -> function name for VS_REC_FUNC */
	VS_REC_COMM		= 7,	/* thread name (and exec) */
	VS_REC_PROCESS		= 8,	/* fork or exit of a thread/process */
	VS_REC_MMAP		= 9,	/* executable mapping, with build-id */
	VS_REC_EPOCH		= 10,	/* which events are live from now on */
	VS_REC_LOST		= 11,	/* lost or dropped data */
	VS_REC_SEGMENT		= 12,	/* segment mark */
	VS_REC_META		= 13,	/* key = value note (command line, ...) */
	VS_REC_ATTACH		= 14,	/* thread attaches to / detaches from a task */
	VS_REC_WAKEUP		= 15,	/* waker -> wakee edge of a task's wait */
	VS_REC_SWITCH		= 16,	/* a thread left or regained its CPU */
	VS_REC_PACKED_TASK	= 17,	/* a task, packed (format 2): on disk
					   only, read back as VS_REC_TASK */
	VS_REC_TYPE_NAME	= 18,	/* a task type's name (format 2.1) */
	VS_REC_RAN_INSTEAD	= 19,	/* who ran while a task waited in the
					   run queue (format 2.3) */
	/* 32..47: signature files (varscope signature) */
	VS_REC_SIG_FUNC		= 32,	/* a profiled function */
	VS_REC_SIG_EPISODE	= 33,	/* a closed frequent episode of one */
	VS_REC__MAX		= 0xffff
};

/* Task flags. */
#define VS_TASK_LOST_EVENTS	(1u << 0)  /* kernel events lost inside it */
#define VS_TASK_NESTED_BEGIN	(1u << 1)  /* begin while a task was open */
#define VS_TASK_THREAD_EXIT	(1u << 2)  /* thread exited inside the task */
#define VS_TASK_MULTIPLEXED	(1u << 3)  /* a counter was multiplexed */
#define VS_TASK_DISTORTED	(1u << 4)  /* a counter read failed the DTE filter */
#define VS_TASK_UNMATCHED_END	(1u << 5)  /* type of end differs from begin */
#define VS_TASK_FUNC_PROBE	(1u << 6)  /* made by --task-func */
#define VS_TASK_TRUNCATED	(1u << 7)  /* recording stopped inside the task */
#define VS_TASK_ATTACHED	(1u << 8)  /* a thread's work for another task:
					      vs_task_attach() to detach */
#define VS_TASK_NO_RETURN	(1u << 9)  /* --task-func: the call was left
					      without returning (longjmp) */
#define VS_TASK_UNSEEN_SWITCH	(1u << 10) /* a switch in of its thread the
					      kernel left untraced: the wait
					      whole, who ran instead not */

/* Sample flags: which optional fields are present. */
#define VS_SAMPLE_ADDR		(1u << 0)
#define VS_SAMPLE_WEIGHT	(1u << 1)
#define VS_SAMPLE_DATA_SRC	(1u << 2)
#define VS_SAMPLE_PRECISE	(1u << 3)  /* PEBS */
#define VS_SAMPLE_KERNEL	(1u << 4)  /* ip is in the kernel */
#define VS_SAMPLE_USER_STACK	(1u << 5)  /* user registers and stack */
#define VS_SAMPLE_SYSCALL	(1u << 6)  /* ... of a long system call */

#define VS_LOST_KERNEL_RING	0	/* perf ring overflowed */
#define VS_LOST_TASKS		1	/* task records dropped in the library */
#define VS_LOST_SAMPLES		2	/* samples a CPU's sample ring lost */
#define VS_LOST_OUTPUT		3	/* output error (disk full) */

#define VS_SYSCALL_ENTER	0
#define VS_SYSCALL_EXIT		1
#define VS_FUNC_ENTER		0
#define VS_FUNC_EXIT		1
#define VS_PROCESS_FORK		0
#define VS_PROCESS_EXIT		1
#define VS_ATTACH		0
#define VS_DETACH		1

#define VS_SIG_WILDCARD		0xffffu	/* the '*' of an episode */

struct vs_value {
	uint16_t event;		/* event id in the catalog */
	uint64_t value;		/* ns, count, or as the event's unit says */
};

struct vs_event_def {
	uint16_t id;
	uint16_t parent;	/* VS_EVENT_NO_PARENT if none (Rule 2) */
	uint8_t group;		/* enum vs_event_group */
	const char *name;	/* "sched.blocked.time" */
	const char *unit;	/* "ns", "count", "kHz" */
};

struct vs_task {
	uint64_t id;		/* unique in the trace; vs_task_id() */
	uint32_t type;
	uint32_t pid, tid;
	uint32_t cpu;		/* cpu at begin */
	uint32_t epoch;
	uint32_t flags;		/* VS_TASK_* */
	uint64_t start, end;	/* latency = end - start */
	uint32_t nr_values;
	const struct vs_value *values;
};

struct vs_sample {
	uint64_t time;
	uint32_t pid, tid, cpu;
	uint32_t flags;		/* VS_SAMPLE_* */
	uint64_t ip;
	uint64_t period;
	uint64_t addr, weight, data_src;	/* per flags */
	uint32_t nr_callchain;
	const uint64_t *callchain;	/* innermost first, perf context markers kept */
	/* VS_SAMPLE_USER_STACK (record --call-graph dwarf): */
	uint64_t regs_mask;		/* perf's PERF_REG_* bits of @regs */
	uint32_t nr_regs;		/* the user registers, one per bit */
	const uint64_t *regs;
	uint32_t nr_stack;		/* the user stack from the stack */
	const uint64_t *stack;		/* pointer up, in 8-byte words */
};

struct vs_syscall {
	uint64_t time;
	uint32_t tid, cpu;
	uint16_t nr;
	uint8_t dir;		/* VS_SYSCALL_ENTER/EXIT */
	int64_t ret;		/* exit only */
};

struct vs_func {
	uint64_t time;
	uint32_t tid, cpu;
	uint32_t symbol;	/* VS_REC_SYMBOL_DEF id */
	uint8_t dir;		/* VS_FUNC_ENTER/EXIT */
};

struct vs_symbol_def {
	uint32_t id;
	uint64_t addr;
	const char *name;
	const char *binary;
};

struct vs_comm {
	uint64_t time;
	uint32_t pid, tid;
	uint8_t exec;
	const char *comm;
};

struct vs_process {
	uint64_t time;
	uint8_t what;		/* VS_PROCESS_FORK/EXIT */
	uint32_t pid, ppid, tid, ptid;
};

struct vs_mmap {
	uint64_t time;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;
	uint8_t build_id_len;
	uint8_t build_id[20];
	const char *filename;
};

struct vs_epoch {
	uint64_t time;
	uint32_t epoch;
	uint32_t nr_events;
	const uint16_t *events;
};

struct vs_lost {
	uint64_t time;
	uint32_t tid, cpu;
	uint32_t what;		/* VS_LOST_* */
	uint64_t count;
};

struct vs_segment {
	uint64_t time;
	uint32_t number;
	const char *label;
};

struct vs_meta {
	const char *key;
	const char *value;
};

struct vs_attach {
	uint64_t time;
	uint32_t tid;
	uint8_t what;		/* VS_ATTACH/DETACH */
	uint64_t task_id;
};

struct vs_wakeup {
	uint64_t time;
	uint32_t waker_tid, wakee_tid;
	uint32_t cpu;
};

/* From PERF_RECORD_SWITCH of a traced thread (record --syscalls). */
struct vs_switch {
	uint64_t time;
	uint32_t tid, cpu;
	uint8_t out;		/* 1: switched out, 0: switched in */
	uint8_t preempt;	/* switched out while still runnable */
};

/*
 * A thread that ran on a task's CPU while the task waited in its run
 * queue, and for how long: record writes the top 4 by time, then the rest
 * as one record of tid 0, before the task.
 */
struct vs_ran_instead {
	uint64_t task_id;
	uint32_t pid, tid;	/* tid 0: all the others */
	const char *comm;
	uint64_t time_ns;
};

/* vs_task_type_name(), or the function of a --task-func type. */
struct vs_type_name {
	uint32_t type;
	const char *name;
};

struct vs_sig_func {
	uint32_t id;
	uint32_t executions;	/* N, the number of calls profiled */
	uint64_t mean_ns;	/* mean execution time */
	const char *name;
};

struct vs_sig_episode {
	uint32_t func;		/* vs_sig_func.id */
	uint32_t support;
	uint32_t len;
	const uint16_t *syscalls;	/* syscall numbers, VS_SIG_WILDCARD = '*' */
};

/*
 * A decoded record.  Pointers inside point into the reader's buffer and
 * stay valid until the next vs_reader_next(); strings are NUL-terminated.
 */
struct vs_record {
	uint16_t kind;		/* enum vs_record_kind */
	union {
		struct vs_event_def event_def;
		struct vs_task task;
		struct vs_sample sample;
		struct vs_syscall syscall;
		struct vs_func func;
		struct vs_symbol_def symbol_def;
		struct vs_comm comm;
		struct vs_process process;
		struct vs_mmap mmap;
		struct vs_epoch epoch;
		struct vs_lost lost;
		struct vs_segment segment;
		struct vs_meta meta;
		struct vs_attach attach;
		struct vs_wakeup wakeup;
		struct vs_switch switch_;
		struct vs_type_name type_name;
		struct vs_ran_instead ran_instead;
		struct vs_sig_func sig_func;
		struct vs_sig_episode sig_episode;
	};
	/*
	 * In memory only, for a task (varscope script): the
	 * VS_REC_RAN_INSTEAD records of the task, which come before it
	 */
	uint32_t nr_ran;
	const struct vs_ran_instead *ran;
};

/* The file header. */
struct vs_header {
	uint16_t major, minor;
	uint32_t clockid;	/* CLOCK_MONOTONIC unless said otherwise */
	uint64_t start_time;	/* clock time when the recording started */
	uint64_t start_realtime; /* CLOCK_REALTIME ns at the same moment */
	const char *host;
	const char *kernel;	/* uname -r */
	const char *cpu_model;
	const char *tool;	/* "varscope 0.1 record" */
};

/* --- writer --- */

struct vs_writer;

/**
 * vs_writer_open - create a trace file (mode 0600) and write its header
 * @path: the file, made by vs_output_create() (core/output-file.h): an
 *        existing one is replaced, never opened, a link never followed;
 *        "-" is the standard output (a pipe will do: the writer only
 *        appends)
 * @hdr: header fields; host/kernel/cpu_model/tool may be NULL to fill from
 *       the running system; major 0 means this build's version; start
 *       times both 0 mean now (CLOCK_MONOTONIC)
 *
 * Returns NULL with errno set on failure.
 */
struct vs_writer *vs_writer_open(const char *path, const struct vs_header *hdr);

/**
 * vs_writer_fdopen - like vs_writer_open() on an open file descriptor
 */
struct vs_writer *vs_writer_fdopen(int fd, const struct vs_header *hdr);

/**
 * vs_writer_add - append one record; chunks are cut and written when full
 *
 * A VS_REC_TASK is written as a packed task (kind 17) in a file of major
 * version 2, as kind 2 in a file of major version 1; VS_REC_PACKED_TASK
 * itself has no in-memory form and is refused (EINVAL).
 *
 * Returns 0, or -1 with errno set when the chunk could not be written
 * (ENOSPC...); the file then stays readable up to the last whole chunk.
 */
int vs_writer_add(struct vs_writer *w, const struct vs_record *rec);

/**
 * vs_writer_add_raw - append a record of any @kind with a ready-made @body
 *
 * For tools that copy records they do not decode, and for tests that
 * write kinds this version does not know.  VS_REC_PACKED_TASK is refused
 * (EINVAL): its body is coded against the chunk's tasks before it.
 * Returns 0 or -1 with errno.
 */
int vs_writer_add_raw(struct vs_writer *w, uint16_t kind, const void *body,
		      size_t size);

/**
 * vs_writer_flush - write the pending chunk now (0 or -1 with errno)
 */
int vs_writer_flush(struct vs_writer *w);

/**
 * vs_writer_set_level - zlib level for chunks to come (0..9, default 1)
 */
void vs_writer_set_level(struct vs_writer *w, int level);

/**
 * vs_writer_bytes - bytes written to the file so far
 */
uint64_t vs_writer_bytes(const struct vs_writer *w);

/* The kinds vs_writer_nr_written() counts: those below this. */
#define VS_WRITER_KINDS		(VS_REC_PACKED_TASK + 1)

/**
 * vs_writer_nr_written - records of @kind in the chunks written so far
 *
 * Those of the chunk being filled, and of a chunk whose write failed (the
 * file is cut back before it), are not counted.  VS_REC_TASK counts the
 * packed tasks too; a kind from VS_WRITER_KINDS on counts 0.
 */
uint64_t vs_writer_nr_written(const struct vs_writer *w, uint16_t kind);

/**
 * vs_writer_close - flush, fsync and close; returns 0 or -1 with errno
 */
int vs_writer_close(struct vs_writer *w);

/* --- reader --- */

struct vs_reader;

/**
 * vs_trace_open_fd - open the trace file @path for reading: a descriptor,
 * or -1 with errno.  "-" is the standard input, which the first call of
 * the process copies into an unlinked temporary file (the reader seeks;
 * a command reads its trace in several passes): every call gets a new
 * descriptor of that copy.
 */
int vs_trace_open_fd(const char *path);

/**
 * vs_trace_can_open - whether vs_trace_open_fd(@path) would succeed (a
 * file is only checked, not opened); if not, "cannot open 'PATH': why" in
 * @err: a missing file, not a damaged one
 */
bool vs_trace_can_open(const char *path, char *err, size_t errlen);

/**
 * vs_reader_open - open a trace for streaming
 * @path: the file; "-" is the standard input (vs_trace_open_fd())
 * @err: on failure, a one-line message "FILE: what (at byte N)" is
 *       written here (may be NULL)
 * @errlen: size of @err
 */
struct vs_reader *vs_reader_open(const char *path, char *err, size_t errlen);

/**
 * vs_reader_fdopen - like vs_reader_open() on an open, seekable @fd that
 * the reader then owns; @name is the file name used in messages
 */
struct vs_reader *vs_reader_fdopen(int fd, const char *name, char *err,
				   size_t errlen);

/**
 * vs_reader_next - decode the next record
 *
 * Returns 1 with @rec filled, 0 at the end of the data, -1 on corruption
 * (vs_reader_error() says what and where).  A truncated last chunk is not
 * corruption: it ends the data with a warning (vs_reader_warning()).
 */
int vs_reader_next(struct vs_reader *r, struct vs_record *rec);

/**
 * vs_reader_seek_time - continue from the first chunk that may hold
 * records at or after @time (catalog records of earlier chunks are read)
 */
int vs_reader_seek_time(struct vs_reader *r, uint64_t time);

/**
 * vs_reader_offset_until - where the records before @time end: the byte
 * offset just past the last chunk holding a record time below @time (the
 * data's start when none does); reading a time range can stop there
 */
uint64_t vs_reader_offset_until(struct vs_reader *r, uint64_t time);

/**
 * vs_reader_time_range - earliest and latest record times of the data,
 * from the chunk index alone (no decompression)
 *
 * Returns 0, or -1 on corruption or when no chunk holds a timed record.
 */
int vs_reader_time_range(struct vs_reader *r, uint64_t *first, uint64_t *last);

/**
 * vs_reader_start_time - when the recording started, which the times
 * given relative to it count from (segments FILE@START..END, script
 * --time): the header's start time, or the earliest record time when the
 * header has none or a later one (an empty trace: the header's)
 */
uint64_t vs_reader_start_time(struct vs_reader *r);

/**
 * vs_reader_rewind - start again from the first record
 */
int vs_reader_rewind(struct vs_reader *r);

const struct vs_header *vs_reader_header(const struct vs_reader *r);

/**
 * vs_reader_event - the catalog entry of event @id seen so far, or NULL
 */
const struct vs_event_def *vs_reader_event(const struct vs_reader *r, uint16_t id);

/**
 * vs_reader_event_by_name - the catalog entry named @name, or NULL
 */
const struct vs_event_def *vs_reader_event_by_name(const struct vs_reader *r,
						   const char *name);

/* Number of catalog entries seen so far (ids are 0 .. n-1 when dense). */
unsigned int vs_reader_nr_events(const struct vs_reader *r);

/* Byte offset in the file of the chunk being read (for progress). */
uint64_t vs_reader_offset(const struct vs_reader *r);
uint64_t vs_reader_size(const struct vs_reader *r);

/* The error of the last -1, or NULL: "FILE: what at byte N". */
const char *vs_reader_error(const struct vs_reader *r);
/* A warning (truncation), or NULL. */
const char *vs_reader_warning(const struct vs_reader *r);

void vs_reader_close(struct vs_reader *r);

/* --- helpers --- */

const char *vs_record_kind_name(uint16_t kind);	/* "task", "sample", ... */
const char *vs_group_name(uint8_t group);		/* "KERNEL", "CYCLE", ... */
int vs_group_from_name(const char *name);		/* -1 if unknown */

#endif /* VS_CORE_TRACE_H */
