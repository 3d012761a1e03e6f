/* SPDX-License-Identifier: MIT */
/*
 * signature-build.h - run a program and profile, per function, the
 * system calls made while it was active (PerfScope 3.1.1), and the gap
 * limit that cuts its executions into sequences.
 */
#ifndef VS_CORE_SIGNATURE_BUILD_H
#define VS_CORE_SIGNATURE_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arch.h"
#include "core/signature/signature.h"

enum vs_sig_method {
	VS_SIG_CALLCHAIN,	/* frame-pointer callchain at each sys_enter */
	VS_SIG_PROBES,		/* uprobes on entry and return of functions */
};

struct vs_sig_build_opts {
	enum vs_sig_method method;
	const char *functions;	/* globs over function names, comma
				 * separated, or NULL for all */
	unsigned int stack_size; /* callchain: bytes of user stack copied
				  * at each call, 0: VS_SC_STACK_SIZE */
};

struct vs_sig_build_stats {
	char program[4096];	/* the program's file, whose functions count */
	uint64_t calls;		/* system calls seen */
	uint64_t attributed;	/* ... made while a profiled function ran */
	uint64_t lost;		/* records the kernel dropped */
	uint64_t cut;		/* calls whose stack reached past its copy
				 * where no frame pointer went on */
	uint64_t probes;	/* functions probed (probes method) */
	uint64_t gap_limit;	/* ns, that cuts executions into sequences */
	uint64_t call_max_ns[VS_NR_SYSCALLS];	/* longest of each call */
};

/**
 * vs_signature_profile - run @argv to its end and fill @p
 *
 * Returns the program's exit status (0..255, 128+signal), or -1 with a
 * one-line reason in @err when it could not be run or traced.
 */
int vs_signature_profile(const char *const *argv,
			 const struct vs_sig_build_opts *opts,
			 struct vs_profile *p, struct vs_sig_build_stats *st,
			 char *err, size_t errlen);

struct vs_sc_opts;

/**
 * vs_signature_ring_pages - the pages of each CPU's ring for the system
 * calls of @sc: 8 MB at least, and room for 4096 stack copies
 */
unsigned int vs_signature_ring_pages(const struct vs_sc_opts *sc);

/**
 * vs_signature_find_program - the file @name runs (a path, or the first
 * hit in $PATH), made absolute, into @out; 0 or -1 with errno
 */
int vs_signature_find_program(const char *name, char *out, size_t size);

/**
 * vs_signature_file_write - the signature file @out: META records (the
 * command @argv, the program, @method, @functions, @support, the gap
 * limit and the longest duration of each call of @st), then @s
 * (vs_signatures_write()); 0 or -1 with errno
 */
int vs_signature_file_write(const char *out, const struct vs_signatures *s,
			    const char *const *argv, const char *method,
			    const char *functions, double support,
			    const struct vs_sig_build_stats *st);

#endif /* VS_CORE_SIGNATURE_BUILD_H */
