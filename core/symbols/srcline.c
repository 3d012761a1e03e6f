// SPDX-License-Identifier: MIT
/*
 * srcline.c - where a function is declared, "file.c:12", from the DWARF
 * of its file or of the file's separate debug file (libdw), read once
 * per symbol at the first question.
 */
#include <fcntl.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/symbols/symbols.h"
#include "core/symbols/symbols-int.h"

/* The DWARF of @d: its own, else its /usr/lib/debug/.build-id file's. */
static Dwarf *dso_dwarf(struct vs_dso *d)
{
	char dbg[PATH_MAX];
	const char *paths[2] = { d->path, dbg };
	int i;

	if (d->dw_tried)
		return d->dw;
	d->dw_tried = true;
	vs_dso_debug_file(d, dbg, sizeof(dbg));
	for (i = 0; i < 2 && !d->dw && paths[i][0]; i++) {
		d->dw_fd = vs_open_regular(paths[i]);
		if (d->dw_fd < 0)
			continue;
		d->dw = dwarf_begin(d->dw_fd, DWARF_C_READ);
		if (!d->dw)
			close(d->dw_fd);
	}
	if (d->dw)
		d->srclines = calloc(d->nr_syms + 1, sizeof(*d->srclines));
	if (d->dw && !d->srclines) {
		dwarf_end(d->dw);
		close(d->dw_fd);
		d->dw = NULL;
	}
	return d->dw;
}

void vs_dso_free_srclines(struct vs_dso *d)
{
	size_t i;

	if (!d->dw)
		return;
	for (i = 0; i < d->nr_syms; i++)
		free(d->srclines[i]);
	free(d->srclines);
	dwarf_end(d->dw);
	close(d->dw_fd);
}

/*
 * The compile unit holding @addr: by .debug_aranges, else (clang writes
 * none) by the units' own address ranges, one after the other.
 */
static bool cu_of(Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_CU *unit = NULL;
	uint8_t unit_type;

	if (dwarf_addrdie(dw, addr, cu))
		return true;
	while (!dwarf_get_units(dw, unit, &unit, NULL, &unit_type, cu, NULL))
		if ((unit_type == DW_UT_compile || unit_type == DW_UT_partial) &&
		    dwarf_haspc(cu, addr) > 0)
			return true;
	return false;
}

/*
 * The file declaring @die.  DWARF 5 numbers the unit's own file 0, which
 * libdw 0.188 does not resolve: that one is the unit's name.
 */
static const char *decl_file(Dwarf_Die *cu, Dwarf_Die *die)
{
	const char *file = dwarf_decl_file(die);
	Dwarf_Attribute attr;
	Dwarf_Word idx;

	if (!file && !dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file,
							   &attr), &idx) &&
	    idx == 0)
		file = dwarf_diename(cu);
	return file;
}

/*
 * "file.c:12" of the function at @addr: where it is declared (its
 * subprogram's DW_AT_decl_file and _line), else the line table's row of
 * its first instruction; "" when the DWARF has neither.
 */
static char *read_srcline(Dwarf *dw, uint64_t addr)
{
	const char *file = NULL, *base;
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Line *line;
	int i, n, lineno = 0;
	char *out;

	if (!cu_of(dw, addr, &cu))
		return strdup("");
	n = dwarf_getscopes(&cu, addr, &scopes);
	for (i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			file = decl_file(&cu, &scopes[i]);
			if (dwarf_decl_line(&scopes[i], &lineno))
				file = NULL;
			break;
		}
	free(scopes);
	if ((!file || lineno <= 0) &&
	    (!(line = dwarf_getsrc_die(&cu, addr)) ||
	     !(file = dwarf_linesrc(line, NULL, NULL)) ||
	     dwarf_lineno(line, &lineno)))
		return strdup("");
	if (lineno <= 0)
		return strdup("");
	base = strrchr(file, '/');
	if (asprintf(&out, "%s:%d", base ? base + 1 : file, lineno) < 0)
		return NULL;
	return out;
}

const char *vs_symbols_srcline(struct vs_symbols *s,
			       const struct vs_symbol_hit *hit)
{
	struct vs_dso *d = (struct vs_dso *)hit->dso;	/* owned by @s */
	size_t i;

	(void)s;
	if (!hit->sym || !d || !dso_dwarf(d))
		return NULL;
	i = hit->sym - d->syms;
	if (!d->srclines[i])
		d->srclines[i] = read_srcline(d->dw, hit->sym->addr);
	return d->srclines[i] && d->srclines[i][0] ? d->srclines[i] : NULL;
}

const char *vs_symbols_func_srcline(struct vs_symbols *s, const char *binary,
				    const char *name)
{
	struct vs_symbol_hit hit = { .dso = vs_symbols_dso(s, binary) };
	size_t i;

	for (i = 0; hit.dso && i < hit.dso->nr_syms; i++)
		if (!strcmp(hit.dso->syms[i].name, name)) {
			hit.sym = &hit.dso->syms[i];
			hit.vaddr = hit.sym->addr;
			return vs_symbols_srcline(s, &hit);
		}
	return NULL;
}
