// SPDX-License-Identifier: MIT
/*
 * symbols-text.c - the symbols core/symbols/symbols.c reads from text files (a
 * kallsyms copy, a perf JIT map) and its build-id check of mappings, on
 * files this test writes and on this very program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/symbols/symbols.h"
#include "t/unit/tap.h"

__attribute__((noinline)) int here(int x)
{
	return x + 1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

int main(void)
{
	struct vs_symbols *s = vs_symbols_new();
	const struct vs_elf_symbol *sym;
	struct vs_symbol_hit hit;
	char kall[] = "/tmp/vs-kallsyms-XXXXXX", jit[] = "/tmp/vs-jit-XXXXXX";
	char exe[4096];
	uint8_t wrong[20];
	const uint8_t *id;
	size_t len, nr;
	ssize_t n;
	uint64_t addr = (uint64_t)(uintptr_t)here;

	close(mkstemp(kall));
	write_file(kall, "ffffffff81000000 T _stext\n"
			 "ffffffff81001000 t do_one\n"
			 "ffffffff81002000 D some_data\n"
			 "ffffffff81003000 T do_two\t[module]\n"
			 "ffffffff81004000 T _etext\n"
			 "0000000000000000 T hidden\n");
	ok(!vs_symbols_load_kallsyms(s, kall), "a kallsyms file loads");
	sym = vs_symbols_kernel(s, 0xffffffff81001010);
	ok(sym && !strcmp(sym->name, "do_one"), "a text symbol holds its range");
	sym = vs_symbols_kernel(s, 0xffffffff81002010);
	ok(sym && !strcmp(sym->name, "do_one"),
	   "data symbols are not functions: the text before reaches on");
	sym = vs_symbols_kernel(s, 0xffffffff81003004);
	ok(sym && !strcmp(sym->name, "do_two"), "a module's symbol");
	ok(!vs_symbols_kernel(s, 0x1000), "below the first symbol: none");
	unlink(kall);

	close(mkstemp(jit));
	write_file(jit, "7f0000001000 40 LazyCompile:*handle js/app.js:10\n"
			"7f0000001040 20 stub\n");
	ok(!vs_symbols_load_jit_map(s, 4242, jit), "a JIT map loads");
	sym = vs_symbols_jit(s, 4242, 0x7f0000001010);
	ok(sym && !strcmp(sym->name, "LazyCompile:*handle js/app.js:10"),
	   "a name with spaces, to the end of the line");
	ok(!vs_symbols_jit(s, 4242, 0x7f0000001060),
	   "past the last entry's size: none");
	ok(!vs_symbols_jit(s, 4243, 0x7f0000001010),
	   "another process without a map file: none");
	unlink(jit);

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	ok(vs_symbols_dso(s, exe) != NULL, "this program loads");
	id = vs_dso_build_id(vs_symbols_dso(s, exe), &len);
	ok(len == 20, "it has a 20-byte build-id");
	ok(!vs_symbols_add_map_build_id(s, 77, addr & ~0xfffull, 4096, 0,
					exe, id, len) &&
	   vs_symbols_lookup(s, 77, addr, &hit) != -2,
	   "a mapping recorded with the same build-id is no stale one");
	memcpy(wrong, id, len);
	wrong[0] ^= 0xff;
	ok(!vs_symbols_add_map_build_id(s, 78, addr & ~0xfffull, 4096, 0, exe,
					wrong, len),
	   "a mapping recorded with another build-id");
	is_u64(vs_symbols_lookup(s, 78, addr, &hit), (uint64_t)-2,
	       "lookups in it say the file changed");
	vs_symbols_stale(s, &nr);
	ok(nr == 1 && !strcmp(vs_symbols_stale(s, &nr)[0], exe),
	   "the changed file is listed, once");
	vs_symbols_free(s);
	return done_testing();
}
