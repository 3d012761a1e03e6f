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

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <libelf.h>

struct vs_elf_symbol {
	uint64_t addr;		/* st_value: link-time virtual address */
	uint64_t size;
	const char *name;	/* without its symbol version ("@@GLIBC_2.17") */
	unsigned char binding;	/* STB_*: which of aliases names the code */
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

/* The GNU build-id of @d's file; *@len is 0 when it has none. */
const uint8_t *vs_dso_build_id(const struct vs_dso *d, size_t *len);

#define VS_BUILD_ID_MAX	20	/* bytes of a build-id kept (SHA-1's) */

/**
 * vs_open_regular - open @path for reading when it is a regular file
 *
 * The paths read here come from a traced program (its mappings) or a
 * trace: by then one may name a FIFO, a device or a leased file, whose
 * open blocks, or acts (a watchdog).  An O_PATH descriptor opens nothing;
 * only the regular file it names is then opened, through it, without
 * blocking.  Returns the descriptor (O_CLOEXEC), or -1 with errno set
 * (EINVAL: not a regular file).
 */
int vs_open_regular(const char *path);

/**
 * vs_open_elf - the ELF file at @path, opened for reading through
 * vs_open_regular(), its descriptor in @fd; NULL (nothing left open) when
 * it cannot be opened or is no ELF file
 */
Elf *vs_open_elf(const char *path, int *fd);

/**
 * vs_elf_build_id - the GNU build-id of the ELF file at @path, read from
 * its notes alone (not its symbols), into @id
 *
 * Returns its length, 0 when the file has none or is no readable ELF.
 */
size_t vs_elf_build_id(const char *path, uint8_t id[VS_BUILD_ID_MAX]);

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
 * vs_dso_func_start - where the function of @d holding link-time address
 * @vaddr begins, from the code ranges of its call frame information
 * (.eh_frame, .debug_frame): the start of a function that has no symbol
 *
 * Returns 0 with *@start set, or -1 when no FDE covers @vaddr.
 */
int vs_dso_func_start(struct vs_dso *d, uint64_t vaddr, uint64_t *start);

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
 * vs_symbols_add_map_build_id - vs_symbols_add_map() of a mapping whose
 * file had build-id @build_id when it was recorded (an MMAP record's)
 *
 * When the file now at @filename has another build-id (it was rebuilt or
 * replaced since), the mapping is remembered as stale: lookups in it
 * return -2 instead of symbols of the wrong file, and the path is listed
 * by vs_symbols_stale().  @build_id_len 0 checks nothing.
 */
int vs_symbols_add_map_build_id(struct vs_symbols *s, uint32_t pid,
				uint64_t start, uint64_t len, uint64_t pgoff,
				const char *filename, const uint8_t *build_id,
				size_t build_id_len);

/* The files whose build-id changed since the recording. */
const char *const *vs_symbols_stale(const struct vs_symbols *s, size_t *nr);

/**
 * vs_symbols_read_proc_maps - add the executable file mappings of
 * /proc/@pid/maps, those the kernel's MMAP records give; 0 or -1
 * (process gone)
 */
int vs_symbols_read_proc_maps(struct vs_symbols *s, uint32_t pid);

/**
 * vs_symbols_fork - @child starts with a copy of @parent's mappings
 *
 * (An exec needs no call: mappings added later win over older ones.)
 */
int vs_symbols_fork(struct vs_symbols *s, uint32_t parent, uint32_t child);

/**
 * vs_symbols_forget - drop what @s knows of process @pid: its mappings
 * and its JIT map (the files' symbols stay, for the other processes)
 *
 * For a process that ended, whose number the kernel may give to
 * another: that one's FORK or maps come anew.  The last process of
 * vs_symbols_pid()'s order takes its place.
 */
void vs_symbols_forget(struct vs_symbols *s, uint32_t pid);

/**
 * vs_symbols_pid - the @i-th process @s has mappings of, 0 past the last
 *
 * After vs_symbols_forget() of the @i-th, the @i-th is the one that was
 * last: look at @i again.
 */
uint32_t vs_symbols_pid(const struct vs_symbols *s, size_t i);

/**
 * vs_symbols_lookup - resolve user address @addr of process @pid
 *
 * Returns 0 with @hit filled when a mapped file holds @addr (hit->sym may
 * still be NULL), -1 when no known mapping does, -2 when the mapping's
 * file changed since the recording (vs_symbols_add_map_build_id()).
 */
int vs_symbols_lookup(struct vs_symbols *s, uint32_t pid, uint64_t addr,
		      struct vs_symbol_hit *hit);

/**
 * vs_symbols_srcline - where the function of @hit (from
 * vs_symbols_lookup() on @s) is in its source: "file.c:12" (the file's
 * base name), its declaration from the DWARF of its file or of its
 * /usr/lib/debug/.build-id file (else the line of its first
 * instruction); NULL without debug info
 *
 * Read once per function and kept with the file (libdw).
 */
const char *vs_symbols_srcline(struct vs_symbols *s,
			       const struct vs_symbol_hit *hit);

/**
 * vs_symbols_func_srcline - vs_symbols_srcline() of function @name of
 * ELF file @binary (a probed function); NULL when there is none
 */
const char *vs_symbols_func_srcline(struct vs_symbols *s, const char *binary,
				    const char *name);

/**
 * vs_symbols_kernel - the kernel function holding @addr, from
 * /proc/kallsyms (read at the first call; needs root for real addresses,
 * else there are none); NULL when none does
 */
const struct vs_elf_symbol *vs_symbols_kernel(struct vs_symbols *s,
					      uint64_t addr);

/**
 * vs_symbols_load_kallsyms - read the kernel's symbols from @path (a
 * /proc/kallsyms copy: "ADDR TYPE NAME [MODULE]" lines; text symbols
 * kept) instead of /proc/kallsyms; 0, or -1 when it has none
 */
int vs_symbols_load_kallsyms(struct vs_symbols *s, const char *path);

/**
 * vs_symbols_jit - the JIT-compiled function of process @pid holding
 * @addr, from perf's map convention /tmp/perf-PID.map ("START SIZE
 * name" lines, hexadecimal), read once per process; NULL when none
 */
const struct vs_elf_symbol *vs_symbols_jit(struct vs_symbols *s, uint32_t pid,
					   uint64_t addr);

/**
 * vs_symbols_load_jit_map - read the JIT map of @pid from @path instead
 * of /tmp/perf-PID.map; 0, or -1 when it cannot be read
 */
int vs_symbols_load_jit_map(struct vs_symbols *s, uint32_t pid,
			    const char *path);

/* A mapping of a file into a process. */
struct vs_map {
	uint64_t start, end, pgoff;
	struct vs_dso *dso;		/* NULL: not ELF, or stale */
	const char *stale;		/* the file's build-id changed: its path */
};

/**
 * vs_symbols_maps - the mappings of process @pid, in the order they were
 * added (where two overlap, the later one holds); *@nr of them, which
 * grows with every one added.  NULL when none.
 */
const struct vs_map *vs_symbols_maps(struct vs_symbols *s, uint32_t pid,
				     size_t *nr);

/**
 * vs_dso_vaddr - the link-time address of file offset @off of @d; -1
 * when no loadable segment holds it
 */
int vs_dso_vaddr(const struct vs_dso *d, uint64_t off, uint64_t *vaddr);

#endif /* VS_CORE_SYMBOLS_H */
