// SPDX-License-Identifier: MIT
/*
 * symbols.c - unit test of ELF symbolization (core/symbols/symbols.c) on this
 * very test program (a PIE) and the C library it maps, with its build-id
 * debug file (libc6-dbg, from scripts/install-deps.sh).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/symbols/symbols.h"

#include "t/unit/tap.h"

enum { PROBE_TARGET_LINE = __LINE__ + 1 };	/* the next line */
__attribute__((noinline)) int probe_target(int x)
{
	return x * 3 + 1;
}

int main(void)
{
	struct vs_symbols *s = vs_symbols_new();
	struct vs_symbol_hit hit;
	uint64_t addr = (uint64_t)(uintptr_t)probe_target;
	const char *src;
	char want[64];
	int64_t off;
	const struct vs_elf_symbol *fns, *local;
	const struct vs_dso *libc;
	uint64_t bias;
	size_t nr, i;

	ok(!vs_symbols_read_proc_maps(s, getpid()), "reads /proc/self/maps");
	ok(!vs_symbols_lookup(s, getpid(), addr + 2, &hit) && hit.sym &&
	   !strcmp(hit.sym->name, "probe_target"),
	   "an address inside a function of this PIE resolves to it");
	ok(hit.dso && strstr(vs_dso_path(hit.dso), "symbols"),
	   "...in this program's file");
	snprintf(want, sizeof(want), "symbols.c:%d", PROBE_TARGET_LINE);
	src = vs_symbols_srcline(s, &hit);
	ok(src && !strcmp(src, want), "its source line from the DWARF: %s",
	   src ? src : "none");
	ok(vs_symbols_srcline(s, &hit) == src, "read once, kept");
	off = vs_dso_file_offset(hit.dso, hit.sym->addr);
	ok(off > 0 && (uint64_t)off < 16 << 20,
	   "the function has a file offset (for uprobes)");
	memset(&hit, 0, sizeof(hit));
	vs_symbols_lookup(s, getpid(), (uint64_t)(uintptr_t)getpid, &hit);
	ok(hit.dso && strstr(vs_dso_path(hit.dso), "libc") && hit.sym,
	   "a C library function resolves in libc (%s)",
	   hit.sym ? hit.sym->name : "?");
	/*
	 * libc.so.6 has no .symtab: _int_malloc, a static function of
	 * malloc.c, is in its build-id debug file's (libc6-dbg) alone
	 */
	libc = hit.dso;
	bias = (uint64_t)(uintptr_t)getpid - hit.vaddr;
	fns = libc ? vs_dso_functions(libc, &nr) : NULL;
	for (i = 0, local = NULL; fns && i < nr && !local; i++)
		if (!strcmp(fns[i].name, "_int_malloc"))
			local = &fns[i];
	ok(local && local->size > 16,
	   "libc's local functions, from its debug file by build-id");
	memset(&hit, 0, sizeof(hit));
	if (local)
		vs_symbols_lookup(s, getpid(), local->addr + bias + 16, &hit);
	ok(hit.sym && !strcmp(hit.sym->name, "_int_malloc"),
	   "an address inside one resolves to it, not a neighbour (%s)",
	   hit.sym ? hit.sym->name : "?");
	/* clock_gettime, __clock_gettime, and in libc's debug file the
	 * local __clock_gettime_2, __GI___clock_gettime and the versioned
	 * clock_gettime@@GLIBC_2.17 all name one function */
	memset(&hit, 0, sizeof(hit));
	vs_symbols_lookup(s, getpid(), (uint64_t)(uintptr_t)clock_gettime,
			  &hit);
	ok(hit.sym && !strcmp(hit.sym->name, "clock_gettime"),
	   "of aliases, the exported name without underscores (%s)",
	   hit.sym ? hit.sym->name : "?");
	ok(vs_symbols_lookup(s, getpid() + 1000000, addr, &hit) < 0,
	   "an unknown process resolves nothing");
	ok(!vs_symbols_fork(s, getpid(), 4000000) &&
	   !vs_symbols_lookup(s, 4000000, addr, &hit) && hit.sym &&
	   !strcmp(hit.sym->name, "probe_target"),
	   "a forked child inherits the mappings");
	ok(!vs_symbols_add_map(s, 4000000, addr & ~4095ull, 4096, 0,
			       "/proc/self/status") &&
	   vs_symbols_lookup(s, 4000000, addr, &hit) < 0,
	   "a later mapping hides an earlier one (exec)");
	ok(!vs_symbols_dso(s, "/proc/self/status"), "a non-ELF file has no dso");
	vs_symbols_forget(s, 4000000);
	ok(vs_symbols_lookup(s, 4000000, addr, &hit) < 0 &&
	   !vs_symbols_maps(s, 4000000, &nr),
	   "a process forgotten has no mappings left");
	ok(!vs_symbols_lookup(s, getpid(), addr, &hit) && hit.sym &&
	   !strcmp(hit.sym->name, "probe_target"),
	   "...and the others keep theirs, and the files' symbols");
	for (i = 0; vs_symbols_pid(s, i); i++)
		;
	ok(i == 1 && vs_symbols_pid(s, 0) == (uint32_t)getpid(),
	   "this process alone is left (%zu)", i);
	vs_symbols_free(s);
	return done_testing();
}
