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

#include "core/symbols/symbols.h"
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

/* The ELF machine of @path, EM_NONE if it is no ELF file. */
static GElf_Half elf_machine(const char *path)
{
	GElf_Ehdr eh;
	GElf_Half machine = EM_NONE;
	int fd;
	Elf *elf = vs_open_elf(path, &fd);

	if (!elf)
		return EM_NONE;
	if (gelf_getehdr(elf, &eh))
		machine = eh.e_machine;
	elf_end(elf);
	close(fd);
	return machine;
}

/*
 * The path the dynamic loader's cache (`ldconfig -p`) gives library
 * @name (no '/') of machine @machine: where a program that links @name
 * loads it from.  Returns 0 or -1.
 */
static int find_library(const char *name, GElf_Half machine, char *out,
			size_t len)
{
	size_t nlen = strlen(name);
	char line[PATH_MAX + 128];
	FILE *f = popen("/sbin/ldconfig -p 2>/dev/null", "re");
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		const char *entry = line + strspn(line, " \t");
		char *path = strstr(line, " => ");

		if (strncmp(entry, name, nlen) || entry[nlen] != ' ' || !path)
			continue;
		path += 4;
		path[strcspn(path, "\n")] = '\0';
		if (elf_machine(path) == machine) {
			snprintf(out, len, "%s", path);
			ret = 0;
		}
	}
	pclose(f);
	return ret;
}

/*
 * @m's function in a library @elf links (DT_NEEDED, in its order, as the
 * loader searches them): for a program's function that its own file only
 * calls (sqlite3's sqlite3_step, in libsqlite3.so.0).  The library's
 * ELF, its descriptor in @fd and its path in @path; NULL when none has it.
 */
static Elf *in_linked_library(Elf *elf, struct sym_match *m, int *fd,
			      char *path, size_t len, bool *searched)
{
	GElf_Ehdr eh;
	GElf_Shdr shdr;
	GElf_Dyn dyn;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	size_t i;

	if (!gelf_getehdr(elf, &eh))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNAMIC ||
		    !shdr.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < shdr.sh_size / shdr.sh_entsize; i++) {
			const char *name;
			Elf *lib;

			if (!gelf_getdyn(data, i, &dyn) ||
			    dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(elf, shdr.sh_link, dyn.d_un.d_val);
			if (!name || strchr(name, '/') ||
			    find_library(name, eh.e_machine, path, len))
				continue;
			lib = vs_open_elf(path, fd);
			if (!lib)
				continue;
			*searched = true;
			lookup_symbol(lib, m);
			if (m->nr)
				return lib;
			elf_end(lib);
			close(*fd);
		}
	}
	return NULL;
}

/*
 * The file @name names: find_in_path()'s, else for a library's name (no
 * '/'), the loader's (find_library(), of this program's machine).
 */
static int find_binary(const char *name, char *out, size_t len)
{
	if (!find_in_path(name, out, len))
		return 0;
	if (strchr(name, '/') || !strstr(name, ".so"))
		return -1;
	return find_library(name, elf_machine("/proc/self/exe"), out, len);
}

int vs_uprobe_resolve(const char *spec, const char *default_binary,
		      struct vs_func_probe *p, char *err, size_t errlen)
{
	const char *at = strchr(spec, '@');
	size_t len = at ? (size_t)(at - spec) : strlen(spec);
	struct sym_match m = { .name = p->symbol };
	char binary[PATH_MAX];
	bool linked = false;
	Elf *elf, *lib;
	int fd, lib_fd, ret = -1;

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
	elf_version(EV_CURRENT);
	if (find_binary(at ? at + 1 : default_binary, p->binary,
			sizeof(p->binary))) {
		snprintf(err, errlen, "cannot find '%s'", at ? at + 1 : default_binary);
		return -1;
	}
	elf = vs_open_elf(p->binary, &fd);
	if (!elf && access(p->binary, R_OK)) {
		snprintf(err, errlen, "cannot open %s: %s", p->binary,
			 strerror(errno));
		return -1;
	}
	if (!elf) {
		snprintf(err, errlen, "%s is not an ELF file", p->binary);
		return -1;
	}
	lookup_symbol(elf, &m);
	if (!m.nr && !at &&
	    (lib = in_linked_library(elf, &m, &lib_fd, binary,
				     sizeof(binary), &linked))) {
		elf_end(elf);
		close(fd);
		elf = lib;
		fd = lib_fd;
		snprintf(p->binary, sizeof(p->binary), "%s", binary);
	}
	if (!m.nr) {
		snprintf(err, errlen, "no function '%s' in %s%s%s", p->symbol,
			 p->binary, linked ? " nor in the libraries it links" :
			 "", demangler() ? "" :
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
