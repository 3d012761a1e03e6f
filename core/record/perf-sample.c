// SPDX-License-Identifier: MIT
/*
 * perf-sample.c - PERF_RECORD_SAMPLE of the sampling event -> vs_sample.
 */
#include <string.h>

#include "core/arch.h"
#include "core/record/perf-sample.h"

#define KNOWN_FIELDS	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |	\
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME |		\
			 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |		\
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |	\
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | \
			 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)

/* The next u64 of the record into @v; false past its end. */
static int take(const uint64_t **p, const uint64_t *end, uint64_t *v)
{
	if (*p >= end)
		return -1;
	*v = *(*p)++;
	return 0;
}

/*
 * REGS_USER: the ABI (0: none, a kernel thread), then a value per bit of
 * vs_arch_regs_user_mask, the registers the sampling event asks for
 */
static int user_regs(const uint64_t **p, const uint64_t *end,
		     struct vs_sample *out)
{
	uint64_t abi;
	uint32_t n = __builtin_popcountll(vs_arch_regs_user_mask);

	if (take(p, end, &abi))
		return -1;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return 0;
	if (n > (uint64_t)(end - *p))
		return -1;
	out->regs_mask = vs_arch_regs_user_mask;
	out->nr_regs = n;
	out->regs = *p;
	*p += n;
	return 0;
}

/*
 * STACK_USER: the size asked for, that many bytes, then the size the
 * kernel could copy (dyn_size); no bytes and no dyn_size when it copied
 * nothing.  The copy is kept in whole words, with the registers.
 */
static int user_stack(const uint64_t **p, const uint64_t *end,
		      struct vs_sample *out)
{
	uint64_t size, dyn;

	if (take(p, end, &size))
		return -1;
	if (!size)
		return 0;
	if (size % 8 || size / 8 >= (uint64_t)(end - *p))
		return -1;
	dyn = (*p)[size / 8];
	if (out->nr_regs) {
		out->flags |= VS_SAMPLE_USER_STACK;
		out->stack = *p;
		out->nr_stack = (dyn < size ? dyn : size) / 8;
	}
	*p += size / 8 + 1;
	return 0;
}

int vs_perf_sample_parse(const struct perf_event_header *h,
			 uint64_t sample_type, uint32_t flags,
			 struct vs_sample *out)
{
	const uint64_t *p = (const void *)(h + 1);
	const uint64_t *end = (const void *)((const char *)h + h->size);
	uint16_t mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	uint64_t v = 0, nr;
	int bad = 0;

	if (sample_type & ~KNOWN_FIELDS)
		return -1;
	memset(out, 0, sizeof(*out));
	out->flags = flags & VS_SAMPLE_PRECISE;
	if (mode == PERF_RECORD_MISC_KERNEL ||
	    mode == PERF_RECORD_MISC_GUEST_KERNEL)
		out->flags |= VS_SAMPLE_KERNEL;
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		bad |= take(&p, end, &v);
	if (sample_type & PERF_SAMPLE_IP)
		bad |= take(&p, end, &out->ip);
	if ((sample_type & PERF_SAMPLE_TID) && !take(&p, end, &v)) {
		out->pid = (uint32_t)v;
		out->tid = (uint32_t)(v >> 32);
	} else if (sample_type & PERF_SAMPLE_TID) {
		bad = 1;
	}
	if (sample_type & PERF_SAMPLE_TIME)
		bad |= take(&p, end, &out->time);
	if (sample_type & PERF_SAMPLE_ADDR) {
		bad |= take(&p, end, &out->addr);
		out->flags |= VS_SAMPLE_ADDR;
	}
	if (sample_type & PERF_SAMPLE_CPU) {
		bad |= take(&p, end, &v);
		out->cpu = (uint32_t)v;
	}
	if (sample_type & PERF_SAMPLE_PERIOD)
		bad |= take(&p, end, &out->period);
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (bad || take(&p, end, &nr) || nr > (uint64_t)(end - p))
			return -1;
		out->nr_callchain = nr;
		out->callchain = p;
		p += nr;
	}
	if ((sample_type & PERF_SAMPLE_REGS_USER) &&
	    user_regs(&p, end, out) < 0)
		return -1;
	if ((sample_type & PERF_SAMPLE_STACK_USER) &&
	    user_stack(&p, end, out) < 0)
		return -1;
	if (sample_type & PERF_SAMPLE_WEIGHT) {
		bad |= take(&p, end, &out->weight);
		out->flags |= VS_SAMPLE_WEIGHT;
	}
	if (sample_type & PERF_SAMPLE_DATA_SRC) {
		bad |= take(&p, end, &out->data_src);
		out->flags |= VS_SAMPLE_DATA_SRC;
	}
	return bad ? -1 : 0;
}
