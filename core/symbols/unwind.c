// SPDX-License-Identifier: MIT
/*
 * unwind.c - user call chains from stack copies with libdw (libdwfl), on
 * the model of perf's tools/perf/util/unwind-libdw.c: the mapped files
 * are reported as modules of a Dwfl, a thread's state comes from the
 * sample's registers, its memory from the sample's stack copy alone.
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/arch.h"
#include "core/array.h"
#include "core/symbols/symbols.h"
#include "core/symbols/unwind.h"

/* The libdw session of one process's mapped files. */
struct proc_dwfl {
	uint32_t pid;
	size_t nr_maps;		/* the mappings it was made from */
	Dwfl *dwfl;		/* NULL: none of them could be reported */
};

/* The thread being unwound: what the libdw callbacks read and fill. */
struct walk {
	const struct vs_user_stack *u;
	uint64_t copy_sp;	/* the copy's first byte is there */
	uint32_t pid, tid;
	uint64_t regs[VS_ARCH_DWARF_REGS];
	uint32_t have;		/* bit N: regs[N] was sampled */
	uint64_t *out;
	int n, max;
	bool past_copy;		/* a read above the copy's end */
	bool bp_known;		/* the last frame's %rbp: */
	uint64_t bp;
};

struct vs_unwinder {
	struct vs_symbols *syms;
	struct proc_dwfl *procs;
	size_t nr_procs, alloc_procs;
	struct walk *walk;	/* during vs_unwind() */
};

static char *debuginfo_path;	/* libdw's default search path */

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

struct vs_unwinder *vs_unwinder_new(struct vs_symbols *s)
{
	struct vs_unwinder *uw = calloc(1, sizeof(*uw));

	if (uw)
		uw->syms = s;
	return uw;
}

void vs_unwinder_free(struct vs_unwinder *uw)
{
	size_t i;

	if (!uw)
		return;
	for (i = 0; i < uw->nr_procs; i++)
		if (uw->procs[i].dwfl)
			dwfl_end(uw->procs[i].dwfl);
	free(uw->procs);
	free(uw);
}

void vs_unwinder_forget(struct vs_unwinder *uw, uint32_t pid)
{
	size_t i;

	for (i = 0; i < uw->nr_procs; i++) {
		if (uw->procs[i].pid != pid)
			continue;
		if (uw->procs[i].dwfl)
			dwfl_end(uw->procs[i].dwfl);
		uw->procs[i] = uw->procs[--uw->nr_procs];
		return;
	}
}

/* --- the thread callbacks: one thread, its state from the sample --- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct vs_unwinder *uw = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = uw;
	return uw->walk->tid;
}

/* The stack copy holds [sp, sp + size): nothing else is read. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct walk *w = ((struct vs_unwinder *)arg)->walk;
	uint64_t sp = w->copy_sp;
	size_t size = w->u->size;

	(void)dwfl;
	if (addr < sp || addr - sp > size || size - (addr - sp) < 8) {
		if (addr >= sp && addr - sp >= size)
			w->past_copy = true;
		return false;
	}
	memcpy(result, w->u->stack + (addr - sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct walk *w = ((struct vs_unwinder *)arg)->walk;
	unsigned int i;

	for (i = 0; i < VS_ARCH_DWARF_REGS; i++)
		if ((w->have & (1u << i)) &&
		    !dwfl_thread_state_registers(thread, i, 1, &w->regs[i]))
			return false;
	dwfl_thread_state_register_pc(thread, w->regs[vs_arch_dwarf_ip]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* --- the modules of a process --- */

/* Whether a mapping after @i overlaps mapping @i (which it replaced). */
static bool replaced(const struct vs_map *maps, size_t nr, size_t i)
{
	size_t j;

	for (j = i + 1; j < nr; j++)
		if (maps[j].start < maps[i].end && maps[i].start < maps[j].end)
			return true;
	return false;
}

/*
 * A Dwfl of the files @pid maps, each at the bias its mapping gives, and
 * attached to the one-thread callbacks; NULL when none could be reported.
 */
static Dwfl *make_dwfl(struct vs_unwinder *uw, uint32_t pid,
		       const struct vs_map *maps, size_t nr)
{
	Dwfl *dwfl = dwfl_begin(&dwfl_callbacks);
	bool any = false;
	uint64_t vaddr;
	size_t i;

	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	for (i = 0; i < nr; i++) {
		const char *path, *base;
		int fd;

		if (!maps[i].dso || replaced(maps, nr, i) ||
		    vs_dso_vaddr(maps[i].dso, maps[i].pgoff, &vaddr))
			continue;
		path = vs_dso_path(maps[i].dso);
		base = strrchr(path, '/');
		/* libdwfl keeps the descriptor of a module it takes */
		fd = vs_open_regular(path);
		if (fd < 0)
			continue;
		if (dwfl_report_elf(dwfl, base ? base + 1 : path, path, fd,
				    maps[i].start - vaddr, true))
			any = true;
		else
			close(fd);
	}
	dwfl_report_end(dwfl, NULL, NULL);
	if (!any || !dwfl_attach_state(dwfl, NULL, pid, &thread_callbacks,
				       uw)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

/* The Dwfl of @pid as its mappings are now; NULL when it has none. */
static Dwfl *proc_dwfl(struct vs_unwinder *uw, uint32_t pid)
{
	const struct vs_map *maps;
	struct proc_dwfl *p = NULL;
	size_t nr, i;

	maps = vs_symbols_maps(uw->syms, pid, &nr);
	for (i = 0; i < uw->nr_procs && !p; i++)
		if (uw->procs[i].pid == pid)
			p = &uw->procs[i];
	if (!p) {
		if (ALLOC_GROW(uw->procs, uw->nr_procs + 1, uw->alloc_procs))
			return NULL;
		p = &uw->procs[uw->nr_procs++];
		*p = (struct proc_dwfl){ .pid = pid };
	} else if (p->nr_maps == nr) {
		return p->dwfl;
	}
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->nr_maps = nr;
	p->dwfl = nr ? make_dwfl(uw, pid, maps, nr) : NULL;
	return p->dwfl;
}

/* --- unwinding --- */

static int frame_callback(Dwfl_Frame *state, void *arg)
{
	struct vs_unwinder *uw = arg;
	struct walk *w = uw->walk;
	struct vs_symbol_hit hit;
	Dwarf_Addr pc;
	Dwarf_Word bp;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/*
	 * A return address in no mapped file: no sane caller, or the
	 * trampoline of a uretprobe (--task-func, --probe), which replaced
	 * the return address on the stack; the chain ends at its function
	 */
	if (w->n && vs_symbols_lookup(uw->syms, w->pid,
				      activation ? pc : pc - 1, &hit) == -1)
		return DWARF_CB_ABORT;
	w->out[w->n++] = pc;
	w->bp_known = !dwfl_frame_reg(state, vs_arch_dwarf_fp, &bp);
	w->bp = bp;
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/*
 * The kernel's frame-pointer walk went from the sampled %rbp through the
 * frame records: fp_chain[j + 1] is the return address of the record at
 * the j-th frame pointer.  If @bp is one of those (as far as the copy
 * shows them), the rest of the kernel's chain from there is what walking
 * the records from @bp gives.  Returns the index of that rest, or 0.
 */
static size_t fp_chain_from(const struct walk *w, uint64_t bp)
{
	uint64_t fp = w->regs[vs_arch_dwarf_fp], sp = w->copy_sp;
	size_t j;

	for (j = 0; j + 1 < w->u->fp_len; j++) {
		if (fp == bp)
			return j + 1;
		if (fp < sp || fp - sp > w->u->size ||
		    w->u->size - (fp - sp) < 8)
			break;
		memcpy(&fp, w->u->stack + (fp - sp), 8);
	}
	return 0;
}

int vs_unwind(struct vs_unwinder *uw, uint32_t pid, uint32_t tid,
	      const struct vs_user_stack *u, uint64_t *out, int max,
	      bool *cut)
{
	struct walk w = { .u = u, .pid = pid, .tid = tid, .out = out,
			  .max = max };
	Dwfl *dwfl;
	size_t j;
	int ret;

	*cut = false;
	if (max <= 0 || vs_arch_regs_dwarf(u->regs_mask, u->regs, u->nr_regs,
					   w.regs, &w.have) ||
	    !(w.have & (1u << vs_arch_dwarf_ip)) ||
	    !(w.have & (1u << vs_arch_dwarf_sp)))
		return 0;
	dwfl = proc_dwfl(uw, pid);
	if (!dwfl) {
		out[0] = w.regs[vs_arch_dwarf_ip];
		return 1;
	}
	w.copy_sp = w.regs[vs_arch_dwarf_sp];
	uw->walk = &w;
	ret = dwfl_getthread_frames(dwfl, tid, frame_callback, uw);
	if (!w.n)
		out[w.n++] = w.regs[vs_arch_dwarf_ip];
	/*
	 * libdw failed past the first frame, no rule and no frame record
	 * covering it (not a caller refused above): a leaf
	 * that pushed nothing where it stopped (a system-call stub in
	 * assembly: glibc's clone3 ends its rules before the syscall).  Its
	 * return address is at the stack pointer; go on from its caller.
	 */
	if (ret == -1 && w.n == 1 && !w.past_copy && w.n < max &&
	    memory_read(dwfl, w.copy_sp, &w.regs[vs_arch_dwarf_ip], uw)) {
		w.regs[vs_arch_dwarf_sp] += 8;
		ret = dwfl_getthread_frames(dwfl, tid, frame_callback, uw);
	}
	uw->walk = NULL;
	/* libdw ends the chain where a read failed, as at the outermost frame */
	if (!w.past_copy || w.n == max)
		return w.n;
	j = w.bp_known ? fp_chain_from(&w, w.bp) : 0;
	*cut = !j;
	for (; j && j < u->fp_len && w.n < max; j++)
		out[w.n++] = u->fp_chain[j];
	return w.n;
}
