// SPDX-License-Identifier: MIT
/*
 * symbols.c - ELF function symbols (libelf) and per-process mappings;
 * the source lines of functions (libdw) are srcline.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "core/array.h"
#include "core/sort.h"
#include "core/symbols/symbols.h"
#include "core/symbols/symbols-int.h"

#define DEBUG_DIR	"/usr/lib/debug/.build-id"

/* Symbols of a text file: /proc/kallsyms, /tmp/perf-PID.map. */
struct text_syms {
	uint32_t pid;			/* of a JIT map; 0 for the kernel */
	int loaded;
	struct vs_elf_symbol *syms;
	size_t nr, cap;
};

struct proc {
	uint32_t pid;
	struct vs_map *maps;		/* in the order they were added */
	size_t nr, cap;
};

struct vs_symbols {
	struct vs_dso *dsos;
	struct proc *procs;
	size_t nr_procs, cap_procs;
	size_t last_proc;
	struct text_syms kernel;
	struct text_syms *jits;		/* one per process asked about */
	size_t nr_jits, alloc_jits;
	char **stale;			/* paths whose build-id changed */
	size_t nr_stale, alloc_stale;
};

/* --- ELF files --- */

/*
 * By address, the largest first; of aliases (libc's clock_gettime,
 * __clock_gettime, __GI___clock_gettime, __clock_gettime_2), the one
 * tidy_symbols() keeps first: exported (global or weak), with the fewest
 * leading underscores (the name a program calls, and --probe finds in
 * .dynsym; a sanitizer's weak clock_gettime before its global
 * __interceptor_clock_gettime), then global before weak.
 */
static int cmp_sym(const void *a, const void *b)
{
	const struct vs_elf_symbol *x = a, *y = b;
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
	bool lx = x->binding == STB_LOCAL, ly = y->binding == STB_LOCAL;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return y->size < x->size ? -1 : 1;
	if (lx != ly)
		return lx ? 1 : -1;
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (x->binding != y->binding)
		return x->binding == STB_GLOBAL ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Append the function symbols of the symbol table @scn of @elf. */
static int read_symtab(struct vs_dso *d, Elf *elf, Elf_Scn *scn,
		       const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, i;
	GElf_Sym sym;

	if (!data || !n)
		return 0;
	if (ALLOC_GROW(d->syms, d->nr_syms + n, d->alloc_syms))
		return -1;
	for (i = 0; i < n; i++) {
		const char *name;
		int type;

		if (!gelf_getsym(data, i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    !sym.st_value || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || *name == '@')
			continue;
		name = strndup(name, strcspn(name, "@"));
		if (!name)
			return -1;
		d->syms[d->nr_syms++] = (struct vs_elf_symbol){
			.addr = sym.st_value, .size = sym.st_size,
			.name = name, .binding = GELF_ST_BIND(sym.st_info) };
	}
	return 0;
}

/* The symbols of @path's SHT_@type table; 1 if it has one. */
static int read_symbols(struct vs_dso *d, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		return read_symtab(d, elf, scn, &sh) < 0 ? -1 : 1;
	}
	return 0;
}

/* The GNU build-id note of @elf into @id; its length (0: none). */
static size_t elf_build_id(Elf *elf, uint8_t id[VS_BUILD_ID_MAX])
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t len;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nh, &name_off,
						   &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz < 2)
				continue;
			len = nh.n_descsz > VS_BUILD_ID_MAX ? VS_BUILD_ID_MAX :
							      nh.n_descsz;
			memcpy(id, (const char *)data->d_buf + desc_off, len);
			return len;
		}
	}
	return 0;
}

void vs_dso_debug_file(const struct vs_dso *d, char *buf, size_t size)
{
	size_t i, n;

	buf[0] = '\0';
	if (!d->build_id_len)
		return;
	n = snprintf(buf, size, DEBUG_DIR "/%02x/", d->build_id[0]);
	for (i = 1; i < d->build_id_len && n + 3 < size; i++)
		n += snprintf(buf + n, size - n, "%02x", d->build_id[i]);
	snprintf(buf + n, size - n, ".debug");
}

static int read_segments(struct vs_dso *d, Elf *elf)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) < 0)
		return 0;
	d->segs = calloc(n + 1, sizeof(*d->segs));
	if (!d->segs)
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nr_segs++] = (struct segment){
			.offset = ph.p_offset, .vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz };
	}
	return 0;
}

/* Sort, drop duplicates, give sizeless symbols the room to the next. */
static void tidy_symbols(struct vs_dso *d)
{
	size_t i, n = 0;

	if (!d->nr_syms)
		return;
	qsort(d->syms, d->nr_syms, sizeof(*d->syms), cmp_sym);
	for (i = 0; i < d->nr_syms; i++) {
		if (n && d->syms[n - 1].addr == d->syms[i].addr) {
			free((char *)d->syms[i].name);
			continue;
		}
		d->syms[n++] = d->syms[i];
	}
	d->nr_syms = n;
	for (i = 0; i + 1 < n; i++)
		if (!d->syms[i].size)
			d->syms[i].size = d->syms[i + 1].addr - d->syms[i].addr;
}

int vs_open_regular(const char *path)
{
	char through[64];
	struct stat st;
	int pfd, fd, err;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) || !S_ISREG(st.st_mode)) {
		close(pfd);
		errno = EINVAL;
		return -1;
	}
	snprintf(through, sizeof(through), "/proc/self/fd/%d", pfd);
	fd = open(through, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	err = errno;
	close(pfd);
	errno = err;
	return fd;
}

Elf *vs_open_elf(const char *path, int *fd)
{
	Elf *elf;

	*fd = vs_open_regular(path);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(*fd);
		return NULL;
	}
	return elf;
}

static int load_dso(struct vs_dso *d)
{
	char dbg[PATH_MAX];
	int fd, dfd, ret = 0, have;
	Elf *elf, *delf;

	elf_version(EV_CURRENT);
	elf = vs_open_elf(d->path, &fd);
	if (!elf)
		return 0;
	d->elf = 1;
	d->build_id_len = elf_build_id(elf, d->build_id);
	if (read_segments(d, elf) < 0)
		ret = -1;
	have = ret ? 0 : read_symbols(d, elf, SHT_SYMTAB);
	if (!have) {
		vs_dso_debug_file(d, dbg, sizeof(dbg));
		delf = dbg[0] ? vs_open_elf(dbg, &dfd) : NULL;
		if (delf) {
			have = read_symbols(d, delf, SHT_SYMTAB);
			elf_end(delf);
			close(dfd);
		}
	}
	if (!have)
		have = read_symbols(d, elf, SHT_DYNSYM);
	if (have < 0)
		ret = -1;
	tidy_symbols(d);
	elf_end(elf);
	close(fd);
	return ret;
}

struct vs_dso *vs_symbols_dso(struct vs_symbols *s, const char *path)
{
	struct vs_dso *d;

	for (d = s->dsos; d; d = d->next)
		if (!strcmp(d->path, path))
			return d->elf ? d : NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path || load_dso(d) < 0) {
		free(d->path);
		free(d);
		return NULL;
	}
	d->next = s->dsos;
	s->dsos = d;
	return d->elf ? d : NULL;
}

const char *vs_dso_path(const struct vs_dso *d)
{
	return d->path;
}

size_t vs_elf_build_id(const char *path, uint8_t id[VS_BUILD_ID_MAX])
{
	size_t len;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	elf = vs_open_elf(path, &fd);
	if (!elf)
		return 0;
	len = elf_build_id(elf, id);
	elf_end(elf);
	close(fd);
	return len;
}

const uint8_t *vs_dso_build_id(const struct vs_dso *d, size_t *len)
{
	*len = d->build_id_len;
	return d->build_id;
}

const struct vs_elf_symbol *vs_dso_functions(const struct vs_dso *d,
					     size_t *nr)
{
	*nr = d->nr_syms;
	return d->syms;
}

/* The symbol of @syms (sorted by address) holding @addr, or NULL. */
static const struct vs_elf_symbol *find_sym(const struct vs_elf_symbol *syms,
					    size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	return addr < syms[lo].addr + (syms[lo].size ?: 1) ? &syms[lo] : NULL;
}

const struct vs_elf_symbol *vs_dso_find(const struct vs_dso *d,
					uint64_t vaddr)
{
	return find_sym(d->syms, d->nr_syms, vaddr);
}

/*
 * The size of a pointer of DW_EH_PE encoding @enc (its low four bits); 0
 * for those this does not read (LEB128, the omitted pointer).
 */
static size_t eh_pointer_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	}
	return 0;
}

/*
 * The pointer of encoding @enc at @p (at link-time address @at), in
 * [@p, @end); 0 when it cannot be read.
 */
static int eh_pointer(uint8_t enc, const uint8_t *p, const uint8_t *end,
		      uint64_t at, bool relative, uint64_t *v)
{
	size_t n = eh_pointer_size(enc);
	int64_t x = 0;

	if (!n || (size_t)(end - p) < n)
		return -1;
	switch (enc & 0x0f) {
	case DW_EH_PE_sdata2: { int16_t y; memcpy(&y, p, 2); x = y; break; }
	case DW_EH_PE_udata2: { uint16_t y; memcpy(&y, p, 2); x = y; break; }
	case DW_EH_PE_sdata4: { int32_t y; memcpy(&y, p, 4); x = y; break; }
	case DW_EH_PE_udata4: { uint32_t y; memcpy(&y, p, 4); x = y; break; }
	default: memcpy(&x, p, 8); break;
	}
	*v = x;
	if (relative && (enc & 0x70) == DW_EH_PE_pcrel)
		*v += at;
	else if (relative && (enc & 0x70) != DW_EH_PE_absptr)
		return -1;	/* datarel, textrel: not in ELF files */
	return 0;
}

/* The FDE pointer encoding of CIE @c (its 'R' augmentation), or absptr. */
static uint8_t cie_fde_encoding(const Dwarf_CIE *c)
{
	const uint8_t *p = c->augmentation_data;
	const uint8_t *end = p + c->augmentation_data_size;
	const char *a;

	if (c->augmentation[0] != 'z')
		return DW_EH_PE_absptr;
	for (a = c->augmentation + 1; *a && p < end; a++) {
		if (*a == 'R')
			return *p;
		if (*a == 'L')
			p++;
		else if (*a == 'P' && eh_pointer_size(*p))
			p += 1 + eh_pointer_size(*p);
		else if (*a != 'S')
			break;
	}
	return DW_EH_PE_absptr;
}

struct fde_range {
	uint64_t start, end;
};

static int cmp_fde(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The code ranges of the FDEs of section @scn of @elf (.eh_frame if
 * @eh_frame, else .debug_frame), appended to @d's; entries are walked with
 * libdw, only their initial locations and ranges are read here: libdw
 * hands an FDE's as raw bytes in its CIE's pointer encoding
 * (dwarf_next_cfi()), and dwarf_cfi_addrframe() gives the range of one
 * row of the table, not the function's.
 */
static int read_fdes(struct vs_dso *d, Elf *elf, Elf_Scn *scn,
		     const GElf_Shdr *sh, bool eh_frame)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	Elf_Data *data = elf_getdata(scn, NULL);
	struct { Dwarf_Off off; uint8_t enc; } cies[64];
	size_t nr_cies = 0, i;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	int ret;

	if (!data || !ident)
		return 0;
	for (; (ret = dwarf_next_cfi(ident, data, eh_frame, off, &next,
				     &e)) != 1; off = next) {
		const uint8_t *p, *end = (const uint8_t *)data->d_buf +
					 data->d_size;
		uint64_t start, len;
		uint8_t enc = DW_EH_PE_absptr;

		if (ret < 0) {
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
			continue;
		}
		if (dwarf_cfi_cie_p(&e)) {
			if (nr_cies < sizeof(cies) / sizeof(cies[0]))
				cies[nr_cies++] = (typeof(cies[0])){
					off, cie_fde_encoding(&e.cie) };
			continue;
		}
		for (i = 0; i < nr_cies; i++)
			if (cies[i].off == e.fde.CIE_pointer)
				enc = cies[i].enc;
		p = e.fde.start;
		if (!eh_frame)
			enc = DW_EH_PE_absptr;
		if (eh_pointer(enc, p, end, sh->sh_addr + (p - (const uint8_t *)
			       data->d_buf), true, &start) ||
		    eh_pointer(enc & 0x0f, p + eh_pointer_size(enc), end, 0,
			       false, &len) || !len)
			continue;
		if (ALLOC_GROW(d->fdes, d->nr_fdes + 1, d->alloc_fdes))
			return -1;
		d->fdes[d->nr_fdes++] = (struct fde_range){ start, start + len };
	}
	return 0;
}

/*
 * The FDE ranges of @d's file, sorted, read at the first call: where a
 * function without a symbol begins.
 */
static void load_fdes(struct vs_dso *d)
{
	const char *name;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	Elf *elf;
	int fd;

	d->fdes_tried = true;
	elf = vs_open_elf(d->path, &fd);
	if (!elf)
		return;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if ((!strcmp(name, ".eh_frame") &&
		     read_fdes(d, elf, scn, &sh, true)) ||
		    (!strcmp(name, ".debug_frame") &&
		     read_fdes(d, elf, scn, &sh, false)))
			break;
	}
	qsort(d->fdes, d->nr_fdes, sizeof(*d->fdes), cmp_fde);
out:
	elf_end(elf);
	close(fd);
}

int vs_dso_func_start(struct vs_dso *d, uint64_t vaddr, uint64_t *start)
{
	size_t lo = 0, hi, mid;

	if (!d->fdes_tried)
		load_fdes(d);
	hi = d->nr_fdes;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (d->fdes[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= d->fdes[lo - 1].end)
		return -1;
	*start = d->fdes[lo - 1].start;
	return 0;
}

int64_t vs_dso_file_offset(const struct vs_dso *d, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < d->nr_segs; i++)
		if (vaddr >= d->segs[i].vaddr &&
		    vaddr < d->segs[i].vaddr + d->segs[i].filesz)
			return vaddr - d->segs[i].vaddr + d->segs[i].offset;
	return -1;
}

int vs_dso_vaddr(const struct vs_dso *d, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < d->nr_segs; i++) {
		if (off >= d->segs[i].offset &&
		    off < d->segs[i].offset + d->segs[i].filesz) {
			*vaddr = off - d->segs[i].offset + d->segs[i].vaddr;
			return 0;
		}
	}
	return -1;
}

/* --- processes --- */

struct vs_symbols *vs_symbols_new(void)
{
	return calloc(1, sizeof(struct vs_symbols));
}

static void free_text_syms(struct text_syms *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free((char *)t->syms[i].name);
	free(t->syms);
}

void vs_symbols_free(struct vs_symbols *s)
{
	struct vs_dso *d, *next;
	size_t i;

	if (!s)
		return;
	for (d = s->dsos; d; d = next) {
		next = d->next;
		for (i = 0; i < d->nr_syms; i++)
			free((char *)d->syms[i].name);
		free(d->syms);
		free(d->segs);
		vs_dso_free_srclines(d);
		free(d->fdes);
		free(d->path);
		free(d);
	}
	for (i = 0; i < s->nr_procs; i++)
		free(s->procs[i].maps);
	free(s->procs);
	free_text_syms(&s->kernel);
	for (i = 0; i < s->nr_jits; i++)
		free_text_syms(&s->jits[i]);
	free(s->jits);
	for (i = 0; i < s->nr_stale; i++)
		free(s->stale[i]);
	free(s->stale);
	free(s);
}

static struct proc *find_proc(struct vs_symbols *s, uint32_t pid, int create)
{
	size_t i;

	if (s->last_proc < s->nr_procs && s->procs[s->last_proc].pid == pid)
		return &s->procs[s->last_proc];
	for (i = 0; i < s->nr_procs; i++) {
		if (s->procs[i].pid == pid) {
			s->last_proc = i;
			return &s->procs[i];
		}
	}
	if (!create)
		return NULL;
	if (ALLOC_GROW(s->procs, s->nr_procs + 1, s->cap_procs))
		return NULL;
	s->procs[s->nr_procs] = (struct proc){ .pid = pid };
	s->last_proc = s->nr_procs;
	return &s->procs[s->nr_procs++];
}

static int proc_add(struct proc *p, const struct vs_map *m)
{
	if (ALLOC_GROW(p->maps, p->nr + 1, p->cap))
		return -1;
	p->maps[p->nr++] = *m;
	return 0;
}

int vs_symbols_add_map(struct vs_symbols *s, uint32_t pid, uint64_t start,
		       uint64_t len, uint64_t pgoff, const char *filename)
{
	return vs_symbols_add_map_build_id(s, pid, start, len, pgoff, filename,
					   NULL, 0);
}

/* Remember @path as changed since the recording; its copy, or NULL. */
static const char *add_stale(struct vs_symbols *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->nr_stale; i++)
		if (!strcmp(s->stale[i], path))
			return s->stale[i];
	if (ALLOC_GROW(s->stale, s->nr_stale + 1, s->alloc_stale))
		return NULL;
	s->stale[s->nr_stale] = strdup(path);
	return s->stale[s->nr_stale] ? s->stale[s->nr_stale++] : NULL;
}

int vs_symbols_add_map_build_id(struct vs_symbols *s, uint32_t pid,
				uint64_t start, uint64_t len, uint64_t pgoff,
				const char *filename, const uint8_t *build_id,
				size_t build_id_len)
{
	struct proc *p = find_proc(s, pid, 1);
	struct vs_map m = { .start = start, .end = start + len, .pgoff = pgoff };

	if (!p)
		return -1;
	if (filename[0] == '/')
		m.dso = vs_symbols_dso(s, filename);
	if (m.dso && build_id_len &&
	    (m.dso->build_id_len != build_id_len ||
	     memcmp(m.dso->build_id, build_id, build_id_len))) {
		m.dso = NULL;
		m.stale = add_stale(s, filename);
		if (!m.stale)
			return -1;
	}
	return proc_add(p, &m);
}

const char *const *vs_symbols_stale(const struct vs_symbols *s, size_t *nr)
{
	*nr = s->nr_stale;
	return (const char *const *)s->stale;
}

int vs_symbols_read_proc_maps(struct vs_symbols *s, uint32_t pid)
{
	char path[64], line[PATH_MAX + 128], file[PATH_MAX], perms[8];
	unsigned long long start, end, off;
	FILE *fp;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]",
			   &start, &end, perms, &off, file) < 4 ||
		    file[0] != '/' || perms[2] != 'x')
			continue;
		if (vs_symbols_add_map(s, pid, start, end - start, off,
				       file) < 0)
			ret = -1;
	}
	fclose(fp);
	return ret;
}

int vs_symbols_fork(struct vs_symbols *s, uint32_t parent, uint32_t child)
{
	struct proc *p, *c;
	size_t i;

	if (parent == child || !find_proc(s, parent, 0))
		return 0;
	c = find_proc(s, child, 1);	/* may move the processes */
	p = find_proc(s, parent, 0);
	if (!c)
		return -1;
	c->nr = 0;
	for (i = 0; i < p->nr; i++)
		if (proc_add(c, &p->maps[i]) < 0)
			return -1;
	return 0;
}

void vs_symbols_forget(struct vs_symbols *s, uint32_t pid)
{
	size_t i;

	for (i = 0; i < s->nr_procs; i++) {
		if (s->procs[i].pid != pid)
			continue;
		free(s->procs[i].maps);
		s->procs[i] = s->procs[--s->nr_procs];
		break;
	}
	s->last_proc = 0;
	for (i = 0; i < s->nr_jits; i++) {
		if (s->jits[i].pid != pid)
			continue;
		free_text_syms(&s->jits[i]);
		s->jits[i] = s->jits[--s->nr_jits];
		break;
	}
}

uint32_t vs_symbols_pid(const struct vs_symbols *s, size_t i)
{
	return i < s->nr_procs ? s->procs[i].pid : 0;
}

int vs_symbols_lookup(struct vs_symbols *s, uint32_t pid, uint64_t addr,
		      struct vs_symbol_hit *hit)
{
	struct proc *p = find_proc(s, pid, 0);
	size_t i;

	if (!p)
		return -1;
	for (i = p->nr; i-- > 0;) {
		const struct vs_map *m = &p->maps[i];

		if (addr < m->start || addr >= m->end)
			continue;
		if (m->stale)
			return -2;
		if (!m->dso)
			return -1;
		hit->dso = m->dso;
		if (vs_dso_vaddr(m->dso, addr - m->start + m->pgoff,
			       &hit->vaddr) < 0)
			return -1;
		hit->sym = vs_dso_find(m->dso, hit->vaddr);
		return 0;
	}
	return -1;
}

const struct vs_map *vs_symbols_maps(struct vs_symbols *s, uint32_t pid,
				     size_t *nr)
{
	struct proc *p = find_proc(s, pid, 0);

	*nr = p ? p->nr : 0;
	return p ? p->maps : NULL;
}

/* --- symbols of text files: the kernel's, JIT maps --- */

static int add_text_sym(struct text_syms *t, uint64_t addr, uint64_t size,
			const char *name)
{
	if (ALLOC_GROW(t->syms, t->nr + 1, t->cap))
		return -1;
	t->syms[t->nr] = (struct vs_elf_symbol){ addr, size, strdup(name),
						  STB_GLOBAL };
	if (!t->syms[t->nr].name)
		return -1;
	t->nr++;
	return 0;
}

/* Sort by address; a symbol without size reaches to the next one. */
static void finish_text_syms(struct text_syms *t)
{
	size_t i;

	vs_qsort(t->syms, t->nr, sizeof(*t->syms), cmp_sym);
	for (i = 0; i + 1 < t->nr; i++)
		if (!t->syms[i].size)
			t->syms[i].size = t->syms[i + 1].addr - t->syms[i].addr;
	t->loaded = 1;
}


int vs_symbols_load_kallsyms(struct vs_symbols *s, const char *path)
{
	char line[512], name[256], type;
	unsigned long long addr;
	struct text_syms *t = &s->kernel;
	FILE *f;

	free_text_syms(t);
	memset(t, 0, sizeof(*t));
	t->loaded = 1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    !addr || (type != 't' && type != 'T' && type != 'w' &&
			      type != 'W'))
			continue;
		if (add_text_sym(t, addr, 0, name)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	finish_text_syms(t);
	return t->nr ? 0 : -1;
}

const struct vs_elf_symbol *vs_symbols_kernel(struct vs_symbols *s,
					      uint64_t addr)
{
	if (!s->kernel.loaded)
		vs_symbols_load_kallsyms(s, "/proc/kallsyms");
	return find_sym(s->kernel.syms, s->kernel.nr, addr);
}

int vs_symbols_load_jit_map(struct vs_symbols *s, uint32_t pid,
			    const char *path)
{
	char line[1024], name[768];
	unsigned long long start, size;
	struct text_syms *t = NULL;
	size_t i;
	FILE *f;

	for (i = 0; i < s->nr_jits; i++)
		if (s->jits[i].pid == pid)
			t = &s->jits[i];
	if (!t) {
		if (ALLOC_GROW(s->jits, s->nr_jits + 1, s->alloc_jits))
			return -1;
		t = &s->jits[s->nr_jits++];
	} else {
		free_text_syms(t);
	}
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->loaded = 1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* perf's convention: "START SIZE name", hex without 0x, name to EOL */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %llx %767[^\n]", &start, &size, name) != 3)
			continue;
		if (add_text_sym(t, start, size ? size : 1, name)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	finish_text_syms(t);
	return 0;
}

const struct vs_elf_symbol *vs_symbols_jit(struct vs_symbols *s, uint32_t pid,
					   uint64_t addr)
{
	char path[64];
	size_t i;

	for (i = 0; i < s->nr_jits; i++)
		if (s->jits[i].pid == pid)
			return find_sym(s->jits[i].syms, s->jits[i].nr, addr);
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	vs_symbols_load_jit_map(s, pid, path);
	for (i = 0; i < s->nr_jits; i++)
		if (s->jits[i].pid == pid)
			return find_sym(s->jits[i].syms, s->jits[i].nr, addr);
	return NULL;
}
