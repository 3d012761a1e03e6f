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
 * vs_symbols_fork - @child starts with a copy of @parent's mappings;
 * vs_symbols_exec - @pid's mappings are gone (a new program)
 */
int vs_symbols_fork(struct vs_symbols *s, uint32_t parent, uint32_t child);
void vs_symbols_exec(struct vs_symbols *s, uint32_t pid);

/**
 * vs_symbols_lookup - resolve user address @addr of process @pid
 *
 * Returns 0 with @hit filled when a mapped file holds @addr (hit->sym may
 * still be NULL), -1 when no known mapping does.
 */
int vs_symbols_lookup(struct vs_symbols *s, uint32_t pid, uint64_t addr,
		      struct vs_symbol_hit *hit);

/**
 * vs_symbols_stack_return - the return address a leaf without frame
 * pointer (a C library system-call wrapper) will go back to
 * @pid/@ip: the process and the address it is stopped at
 * @stack/@size: the user stack from the stack pointer up
 *
 * A frame-pointer walk from such a leaf skips its caller, whose return
 * address is on the stack above the stack pointer, not in any frame
 * record.  This returns the first word from the stack pointer up that
 * points inside a function (not at its first byte) of a mapped file other
 * than the one holding @ip, or 0 when there is none.
 */
uint64_t vs_symbols_stack_return(struct vs_symbols *s, uint32_t pid,
				 uint64_t ip, const uint8_t *stack,
				 size_t size);

#endif /* VS_CORE_SYMBOLS_H */
