/* SPDX-License-Identifier: MIT */
/*
 * symbols-int.h - what the ELF files and address spaces of symbols.c
 * share with the source lines of srcline.c: a file's symbols, segments
 * and DWARF.
 */
#ifndef VS_CORE_SYMBOLS_INT_H
#define VS_CORE_SYMBOLS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#include "core/symbols/symbols.h"

struct segment {
	uint64_t offset, vaddr, filesz;
};

struct fde_range;

struct vs_dso {
	char *path;
	int elf;			/* 0: not ELF, no symbols */
	struct vs_elf_symbol *syms;
	size_t nr_syms, alloc_syms;
	struct segment *segs;
	size_t nr_segs;
	uint8_t build_id[VS_BUILD_ID_MAX];
	size_t build_id_len;		/* 0: the file has none */
	/* source lines, read at the first vs_symbols_srcline() */
	bool dw_tried;
	int dw_fd;
	Dwarf *dw;			/* NULL: no debug info */
	char **srclines;		/* per symbol: "file.c:12", "", NULL */
	/* code ranges of the FDEs, read at the first vs_dso_func_start() */
	bool fdes_tried;
	struct fde_range *fdes;
	size_t nr_fdes, alloc_fdes;
	struct vs_dso *next;
};

/**
 * vs_dso_debug_file - the separate debug file of @d by its build-id
 * @d: the file
 * @buf: filled with "/usr/lib/debug/.build-id/ab/cdef....debug", or ""
 *	 when @d has no build-id
 * @size: size of @buf
 */
void vs_dso_debug_file(const struct vs_dso *d, char *buf, size_t size);

/**
 * vs_dso_free_srclines - free the source lines and DWARF of @d
 * @d: the file, freed next
 */
void vs_dso_free_srclines(struct vs_dso *d);

#endif
