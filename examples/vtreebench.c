// SPDX-License-Identifier: MIT
/*
 * vtreebench - a workload for the variance tree (VProfiler): every
 * request calls parse(), lookup() and render(), each spinning on the CPU.
 * parse() and render() always spin --unit ns; lookup() spins 1 or 12
 * units, chosen per request by a fixed pseudo-random sequence: lookup()'s
 * time is the one that varies, and it must come out as the top factor.
 *
 * With --covary, lookup() and render() both spin the same 1 or 12 units
 * of each request: they vary together, and their covariance must be the
 * top factor.
 */
#include "workload.h"

static uint64_t unit_ns = 100000;
static uint64_t unit_loops;	/* iterations of spin() per unit */
static bool covary;

/*
 * A counted loop without calls: the sampled ip is in the function that
 * spins, so a frame-pointer callchain names its caller.  The functions
 * stay apart: gcc's noipa keeps it from folding identical ones into one
 * or inlining them; clang (the SANITIZE=1 build) lacks noipa and folds
 * no functions, noinline is what it needs.
 */
#ifdef __clang__
#define STANDALONE __attribute__((noinline))
#else
#define STANDALONE __attribute__((noipa))
#endif

#define SPIN(loops) do {						\
	for (volatile uint64_t i = 0; i < (loops); i++)			\
		;							\
	__asm__ volatile("" ::: "memory");				\
} while (0)

static void STANDALONE parse(void)
{
	SPIN(unit_loops);
}

static void STANDALONE lookup(unsigned int units)
{
	SPIN(units * unit_loops);
}

static void STANDALONE render(unsigned int units)
{
	SPIN(units * unit_loops);
}

/* The fastest of a few runs: a preemption must not shrink the unit. */
static void calibrate(void)
{
	uint64_t loops = 1000000, best = UINT64_MAX, t;
	int r;

	for (r = 0; r < 5; r++) {
		t = wl_now_ns();
		SPIN(loops);
		t = wl_now_ns() - t;
		if (t < best)
			best = t;
	}
	unit_loops = best ? loops * unit_ns / best : loops;
	if (!unit_loops)
		unit_loops = 1;
}

static void serve(struct wl_thread *t)
{
	/* xorshift of the request number: the same sequence every run */
	uint64_t x = t->done * 0x9e3779b97f4a7c15ull + t->index + 1;
	unsigned int units;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 32;
	units = x % 2 ? 12 : 1;
	parse();
	lookup(units);
	render(covary ? units : 1);
	__asm__ volatile("" ::: "memory");	/* no tail call: serve stays */
}

static const struct wl_ops ops = { .type = 1, .serve = serve };

static void usage(const struct wl_config *cfg)
{
	printf("usage: vtreebench [<options>]\n\n"
	       "Each request (an AppTask) calls parse, lookup and render; "
	       "lookup's time varies.\n\n"
	       "    -u, --unit <ns>        spin unit (default %llu)\n"
	       "        --covary           lookup and render vary "
	       "together\n", (unsigned long long)unit_ns);
	wl_usage_common(cfg);
}

enum { OPT_COVARY = WL_OPT__WORKLOAD };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "unit", required_argument, NULL, 'u' },
		{ "covary", no_argument, NULL, OPT_COVARY },
		WL_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct wl_config cfg = WL_CONFIG("vtreebench", 300);
	struct wl_thread *threads;
	struct wl_run run;
	int c;

	while ((c = wl_getopt(&cfg, argc, argv, "u:" WL_COMMON_SHORTOPTS,
			      longopts)) != -1) {
		switch (c) {
		case 'u':
			unit_ns = wl_parse_u64(&cfg, "unit", optarg, false);
			break;
		case OPT_COVARY:
			covary = true;
			break;
		case 'h':
			usage(&cfg);
			return 0;
		}
	}
	calibrate();
	threads = wl_threads_new(&cfg, &ops);
	run = wl_threads_run(&cfg, threads);
	wl_report(&cfg, threads, &run, NULL, 0);
	wl_threads_free(&cfg, threads);
	return 0;
}
