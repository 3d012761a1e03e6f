// SPDX-License-Identifier: MIT
/*
 * uprobe.c - symbol file offsets with libelf, uprobe trace events.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracefs.h>

#include "core/uprobe.h"

/*
 * The executable @name would run: itself if it has a '/', else PATH's
 * first regular file of that name that may be executed.
 */
static int find_in_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL;
	struct stat st;

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, R_OK);
	}
	dirs = strdup(path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", dir, name);
		if (!stat(out, &st) && S_ISREG(st.st_mode) &&
		    !access(out, X_OK)) {
			free(dirs);
			return 0;
		}
	}
	free(dirs);
	return -1;
}

typedef char *(*vs_demangle_fn)(const char *mangled, char *buf, size_t *len,
				int *status);

/*
 * libstdc++'s __cxa_demangle(), loaded at the first C++ lookup: a recorder
 * of C programs needs no C++ runtime.  NULL where it is missing.
 */
static vs_demangle_fn demangler(void)
{
	static vs_demangle_fn fn;
	static bool tried;
	void *lib;

	if (!tried) {
		tried = true;
		lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (lib)
			fn = (vs_demangle_fn)dlsym(lib, "__cxa_demangle");
	}
	return fn;
}

/* What a lookup asks for and finds. */
struct sym_match {
	const char *name;
	bool cxx;		/* @name is a demangled C++ name */
	uint64_t addr;		/* of the first function found, 0: none */
	unsigned int nr;	/* functions found (distinct addresses) */
	char found[200];	/* their symbols, for the error */
};

/*
 * Is @symbol the function @m asks for: the same symbol, or for a C++ name
 * the function whose demangled name is @m->name, with or without its
 * parameters ("app::Server::handle", "app::Server::handle(int)")?
 */
static bool sym_is(const struct sym_match *m, const char *symbol)
{
	vs_demangle_fn demangle = demangler();
	size_t len = strlen(m->name);
	char *name;
	bool is;
	int status;

	if (!m->cxx)
		return !strcmp(symbol, m->name);
	if (!demangle || strncmp(symbol, "_Z", 2))
		return false;
	name = demangle(symbol, NULL, NULL, &status);
	is = name && !strncmp(name, m->name, len) &&
	     (!name[len] || name[len] == '(');
	free(name);
	return is;
}

/* Look for @m's function in one symbol table section. */
static void lookup_in(Elf *elf, Elf_Scn *scn, struct sym_match *m)
{
	GElf_Shdr shdr;
	Elf_Data *data;
	GElf_Sym sym;
	size_t i, n, len;

	if (!gelf_getshdr(scn, &shdr) || !shdr.sh_entsize)
		return;
	data = elf_getdata(scn, NULL);
	if (!data)
		return;
	n = shdr.sh_size / shdr.sh_entsize;
	for (i = 0; i < n; i++) {
		const char *name;

		if (!gelf_getsym(data, i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, shdr.sh_link, sym.st_name);
		if (!name || !sym_is(m, name) || sym.st_value == m->addr)
			continue;
		if (!m->nr++)
			m->addr = sym.st_value;
		len = strlen(m->found);
		snprintf(m->found + len, sizeof(m->found) - len, "%s%s",
			 len ? ", " : "", name);
	}
}

/*
 * .symtab first, .dynsym for stripped binaries; a symbol of that name,
 * else a C++ function of that demangled name.
 */
static void lookup_symbol(Elf *elf, struct sym_match *m)
{
	static const uint32_t types[] = { SHT_SYMTAB, SHT_DYNSYM };
	Elf_Scn *scn;
	GElf_Shdr shdr;
	unsigned int cxx, t;

	for (cxx = 0; cxx < 2 && !m->nr; cxx++) {
		m->cxx = cxx;
		for (t = 0; t < 2 && !m->nr; t++)
			for (scn = NULL; (scn = elf_nextscn(elf, scn));)
				if (gelf_getshdr(scn, &shdr) &&
				    shdr.sh_type == types[t])
					lookup_in(elf, scn, m);
	}
}

/* Virtual address to file offset through the loadable segments. */
static int addr_to_offset(Elf *elf, uint64_t addr, uint64_t *offset)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*offset = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

int vs_uprobe_resolve(const char *spec, const char *default_binary,
		      struct vs_func_probe *p, char *err, size_t errlen)
{
	const char *at = strchr(spec, '@');
	size_t len = at ? (size_t)(at - spec) : strlen(spec);
	struct sym_match m = { .name = p->symbol };
	Elf *elf;
	int fd, ret = -1;

	memset(p, 0, sizeof(*p));
	if (!len || len >= sizeof(p->symbol)) {
		snprintf(err, errlen, "bad function '%s'", spec);
		return -1;
	}
	if (at && !at[1]) {
		snprintf(err, errlen, "'%s' names no binary after the '@'",
			 spec);
		return -1;
	}
	memcpy(p->symbol, spec, len);
	if (find_in_path(at ? at + 1 : default_binary, p->binary,
			 sizeof(p->binary))) {
		snprintf(err, errlen, "cannot find '%s'", at ? at + 1 : default_binary);
		return -1;
	}
	elf_version(EV_CURRENT);
	fd = open(p->binary, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", p->binary,
			 strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(err, errlen, "%s is not an ELF file", p->binary);
	} else if (lookup_symbol(elf, &m), !m.nr) {
		snprintf(err, errlen, "no function '%s' in %s%s", p->symbol,
			 p->binary, demangler() ? "" :
			 " (C++ names need libstdc++.so.6: give the mangled one)");
	} else if (m.nr > 1) {
		snprintf(err, errlen, "'%s' is %u functions in %s: %s; name "
			 "one with its parameters or its mangled symbol",
			 p->symbol, m.nr, p->binary, m.found);
	} else if (addr_to_offset(elf, m.addr, &p->offset)) {
		snprintf(err, errlen, "'%s' in %s is in no executable segment",
			 p->symbol, p->binary);
	} else {
		ret = 0;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int vs_uprobe_create(const struct vs_func_probe *p, bool ret,
		     const char *system, const char *event,
		     struct tracefs_dynevent **dyn, char *err, size_t errlen)
{
	char path[512];
	FILE *f;
	int id = -1;

	*dyn = ret ? tracefs_uretprobe_alloc(system, event, p->binary,
					     p->offset, NULL) :
		     tracefs_uprobe_alloc(system, event, p->binary, p->offset,
					  NULL);
	if (!*dyn || tracefs_dynevent_create(*dyn)) {
		snprintf(err, errlen, "cannot make a uprobe on %s in %s: %s "
			 "(a kernel with CONFIG_UPROBE_EVENTS is needed)",
			 p->symbol, p->binary, strerror(errno));
		tracefs_dynevent_free(*dyn);
		*dyn = NULL;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs_tracing_dir(),
		 system, event);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%d", &id) != 1) {
		snprintf(err, errlen, "cannot read %s", path);
		id = -1;
	}
	if (f)
		fclose(f);
	if (id < 0) {
		vs_uprobe_destroy(*dyn);
		*dyn = NULL;
	}
	return id;
}

void vs_uprobe_remove_stale(const char *prefix)
{
	struct tracefs_dynevent **all;
	size_t len = strlen(prefix);
	char *system, *end;
	long pid;
	int i;

	all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_UPROBE |
				       TRACEFS_DYNEVENT_URETPROBE, NULL);
	for (i = 0; all && all[i]; i++) {
		system = NULL;
		tracefs_dynevent_info(all[i], &system, NULL, NULL, NULL, NULL);
		if (system && !strncmp(system, prefix, len)) {
			pid = strtol(system + len, &end, 10);
			if (!*end && pid > 0 && kill(pid, 0) && errno == ESRCH)
				tracefs_dynevent_destroy(all[i], true);
		}
		free(system);
	}
	tracefs_dynevent_list_free(all);
}

void vs_uprobe_destroy(struct tracefs_dynevent *dyn)
{
	if (!dyn)
		return;
	tracefs_dynevent_destroy(dyn, true);
	tracefs_dynevent_free(dyn);
}
