// SPDX-License-Identifier: MIT
/*
 * prog.c - the program of t4200-sample-symbols: 20 annotated tasks, each
 * spending its time where argv[1] says, for symbolization checks:
 *   app     app_hot() of this binary (PIE, or stripped with -rdynamic)
 *   lib     lib_hot() of libhot.so (lib.c)
 *   kernel  dup() and close(): kernel functions
 *   jit     a loop copied to anonymous executable memory and named
 *           jitted_loop in /tmp/perf-PID.map, as JIT compilers do
 * Built with -DVARIANT=2 it is another binary (another build-id) with the
 * same functions.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <varscope.h>

#ifndef VARIANT
#define VARIANT 1
#endif

extern void lib_hot(long n);

__attribute__((noinline)) void app_hot(long n)
{
	volatile double a = VARIANT;

	while (n--)
		a = a * 1.0000001 + 0.5;
}

/* dec %rdi; jnz .-3; ret : a loop of @n iterations */
static const unsigned char jit_code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "app";
	void (*jit)(long) = NULL;
	int i;

	if (!strcmp(mode, "jit")) {
		char path[64];
		FILE *f;
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		memcpy(p, jit_code, sizeof(jit_code));
		jit = (void (*)(long))p;
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
		f = fopen(path, "w");
		fprintf(f, "%lx %zx jitted_loop\n", (unsigned long)p,
			sizeof(jit_code));
		fclose(f);
	}
	for (i = 0; i < 20; i++) {
		vs_task_begin(1);
		if (jit)
			jit(20000000);
		else if (!strcmp(mode, "lib"))
			lib_hot(4000000);
		else if (!strcmp(mode, "kernel"))
			for (int k = 0; k < 20000; k++)
				close(dup(1));
		else
			app_hot(4000000);
		vs_task_end(1);
	}
	return 0;
}
