// SPDX-License-Identifier: MIT
/*
 * loopbench - VarMRI's LoopBench (sections 3 and 6.1 of the paper): every
 * request executes an empty loop of --max iterations (25K by default).
 *
 * The paper disabled compiler optimisation so that the loop survives; its
 * Fig. 6 shows the -O0 code, with the counter kept on the stack.  Only the
 * two loop functions here are compiled that way (an attribute, not a
 * global flag), so they give the same instructions:
 *
 *   int  (task type 1):  addl $0x1,-0x4(%rbp); mov -0x4(%rbp),%eax;
 *                        cmp -0x14(%rbp),%eax; jl
 *   long (task type 2):  addq $0x1,-0x8(%rbp); mov -0x14(%rbp),%eax;
 *                        cltq; cmp %rax,-0x8(%rbp); jl
 *
 * In the int loop the load of i depends on the store just before it; the
 * paper found that this pipeline stall (STALLS_MEM_ANY) makes about half
 * of the requests 50% slower on Intel Xeons, and that the long variant
 * ("for (long i = 0; i < (int)max; i++)") removes most of that variance.
 */
#include "workload.h"

/*
 * Not instrumented by the SANITIZE=1 build either: UBSan's overflow check
 * would change the loop.  clang's -O0 code increments in a register and
 * stores it back to the slot (add $0x1,%eax; mov %eax,-0x4(%rbp)): the
 * same store and load back of the stack slot.
 */
#if defined(__clang__)
#define UNOPTIMIZED __attribute__((noinline, optnone, \
				       no_sanitize("address", "undefined")))
#else
#define UNOPTIMIZED __attribute__((noinline, optimize("O0"), \
				       no_sanitize("address", "undefined")))
#endif

enum { TYPE_INT = 1, TYPE_LONG = 2 };

static int loop_max = 25000;

static void UNOPTIMIZED loop_int(int max)
{
	for (int i = 0; i < max; i++) {
	}
}

static void UNOPTIMIZED loop_long(int max)
{
	for (long i = 0; i < (int)max; i++) {
	}
}

static void serve_int(struct wl_thread *t)
{
	loop_int(loop_max);
}

static void serve_long(struct wl_thread *t)
{
	loop_long(loop_max);
}

static const struct wl_ops int_ops = { .type = TYPE_INT, .serve = serve_int };
static const struct wl_ops long_ops = { .type = TYPE_LONG, .serve = serve_long };

static void usage(const struct wl_config *cfg)
{
	printf("usage: loopbench [<options>]\n\n"
	       "Each request (an AppTask) executes an empty loop, as VarMRI's LoopBench.\n\n"
	       "    -m, --max <n>          loop iterations per request (default %d)\n"
	       "        --long             use a long counter (task type 2) instead of\n"
	       "                           an int one (task type 1)\n",
	       loop_max);
	wl_usage_common(cfg);
}

enum { OPT_LONG = WL_OPT__WORKLOAD };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max", required_argument, NULL, 'm' },
		{ "long", no_argument, NULL, OPT_LONG },
		WL_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct wl_config cfg = WL_CONFIG("loopbench", 10000);
	const struct wl_ops *ops = &int_ops;
	struct wl_thread *threads;
	struct wl_run run;
	uint64_t max;
	int c;

	while ((c = wl_getopt(&cfg, argc, argv, "m:" WL_COMMON_SHORTOPTS,
			      longopts)) != -1) {
		switch (c) {
		case 'm':
			max = wl_parse_u64(&cfg, "max", optarg, false);
			if (max > INT32_MAX)
				wl_option_error(&cfg, "max", "at most %d",
						INT32_MAX);
			loop_max = (int)max;
			break;
		case OPT_LONG:
			ops = &long_ops;
			break;
		case 'h':
			usage(&cfg);
			return 0;
		}
	}

	threads = wl_threads_new(&cfg, ops);
	run = wl_threads_run(&cfg, threads);
	wl_report(&cfg, threads, &run, NULL, 0);
	wl_threads_free(&cfg, threads);
	return 0;
}
