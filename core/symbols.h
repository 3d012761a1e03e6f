/* SPDX-License-Identifier: MIT */
/*
 * symbols.h - function symbols of ELF files and of the address spaces of
 * traced processes.
 *
 * A struct vs_dso is one ELF file: its function symbols (.symtab, else
 * .dynsym, or the .symtab of its /usr/lib/debug/.build-id file) sorted by
 * address, and its loadable segments to turn file offsets into symbol
 * addresses.  A struct vs_symbols caches the files and keeps, per
 * process, the mappings learnt from MMAP records or /proc/PID/maps, so
 * any user address of a process resolves to "function+offset in file".
 */
#ifndef VS_CORE_SYMBOLS_H
#define VS_CORE_SYMBOLS_H

#include <stdint.h>
#include <stddef.h>

struct vs_elf_symbol {
	uint64_t addr;		/* st_value: link-time virtual address */
	uint64_t size;
	const char *name;
};

struct vs_dso;
struct vs_symbols;

/* Where an address landed. */
struct vs_symbol_hit {
	const struct vs_dso *dso;
	const struct vs_elf_symbol *sym;	/* NULL: in the file, no symbol */
	uint64_t vaddr;				/* the address in the file's terms */
};

struct vs_symbols *vs_symbols_new(void);
void vs_symbols_free(struct vs_symbols *s);

/**
 * vs_symbols_dso - the file at @path, loaded once and cached; NULL when
 * it cannot be read as ELF
 */
struct vs_dso *vs_symbols_dso(struct vs_symbols *s, const char *path);

const char *vs_dso_path(const struct vs_dso *d);

/* The function symbols of @d, by address. */
const struct vs_elf_symbol *vs_dso_functions(const struct vs_dso *d,
					     size_t *nr);

/**
 * vs_dso_find - the function of @d containing link-time address @vaddr,
 * or NULL
 */
const struct vs_elf_symbol *vs_dso_find(const struct vs_dso *d,
					uint64_t vaddr);

/**
 * vs_dso_file_offset - the file offset of link-time address @vaddr (what
 * a uprobe is placed by); -1 when no loadable segment holds it
 */
int64_t vs_dso_file_offset(const struct vs_dso *d, uint64_t vaddr);

/**
 * vs_symbols_add_map - process @pid maps @len bytes of @filename at file
 * offset @pgoff to @start (an MMAP record, a /proc/PID/maps line)
 *
 * Mappings of files that are not ELF are remembered as such.  Returns 0,
 * or -1 when memory ran out.
 */
int vs_symbols_add_map(struct vs_symbols *s, uint32_t pid, uint64_t start,
		       uint64_t len, uint64_t pgoff, const char *filename);

/**
 * vs_symbols_read_proc_maps - add the file mappings of /proc/@pid/maps;
 * 0 or -1 (process gone)
 */
int vs_symbols_read_proc_maps(struct vs_symbols *s, uint32_t pid);

/**
 * vs_symbols_fork - @child starts with a copy of @parent's mappings
 *
 * (An exec needs no call: mappings added later win over older ones.)
 */
int vs_symbols_fork(struct vs_symbols *s, uint32_t parent, uint32_t child);

/**
 * vs_symbols_lookup - resolve user address @addr of process @pid
 *
 * Returns 0 with @hit filled when a mapped file holds @addr (hit->sym may
 * still be NULL), -1 when no known mapping does.
 */
int vs_symbols_lookup(struct vs_symbols *s, uint32_t pid, uint64_t addr,
		      struct vs_symbol_hit *hit);

/**
 * vs_symbols_leaf_return - the return address into the caller that a
 * frame-pointer walk misses
 * @pid: the process
 * @ip/@sp/@bp: its user registers when it was stopped
 * @stack/@size: the user stack from @sp up
 *
 * Code without frame pointers (a C library system-call wrapper) leaves
 * %rbp alone, so a frame-pointer walk from it goes on with its caller's
 * caller: the caller's return address sits on the stack, not in a frame
 * record.  This unwinds with the .eh_frame CFA rule of each address, from
 * @ip, while the return addresses stay in the file of @ip, and returns the
 * first one that leaves it; 0 when the rules or the stack bytes run out.
 * @caller_bp gets the caller's frame pointer: @bp, or the value the
 * unwound code saved before using %rbp for something else (then the
 * kernel's frame-pointer walk from @bp went astray).
 */
uint64_t vs_symbols_leaf_return(struct vs_symbols *s, uint32_t pid,
				uint64_t ip, uint64_t sp, uint64_t bp,
				const uint8_t *stack, size_t size,
				uint64_t *caller_bp);

#endif /* VS_CORE_SYMBOLS_H */
