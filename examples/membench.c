// SPDX-License-Identifier: MIT
/*
 * membench - VarMRI's MemBench (section 6.2 of the paper): it fills memory
 * with pages, then each request (an AppTask, type 1) reads every byte of
 * one page chosen at random, to expose memory latency and NUMA effects.
 *
 * The paper occupied almost all of the machine's memory so that the pages
 * spread over both sockets: --memory 90% does that (the default, 256 MiB,
 * keeps a run short).  The pages are written once before the requests, as
 * the paper's "creates enough pages" implies; with --no-prefault they are
 * not, so the first request on a page takes that page's fault inside its
 * task.  The summary then says how many pages requests touched first
 * (first_touch_pages, a lower bound of the page faults inside tasks) and
 * how many minor faults the process took while the requests ran
 * (minor_faults, from getrusage).
 *
 * Pages are 4 KiB base pages (MADV_NOHUGEPAGE) unless --thp is given: one
 * fault per page, as with the paper's NUMA-balancing migrations.
 */
#include <sys/mman.h>
#include <sys/resource.h>

#include "workload.h"

enum { TYPE_PAGE = 1 };

static struct {
	uint64_t bytes;
	uint64_t seed;
	bool prefault;
	bool thp;
	char *mem;
	uint64_t nr_pages;
	size_t page_size;
	uint8_t *touched;	/* bitmap, only without prefault */
	uint64_t first_touches;
} bench = {
	.bytes = 256ULL << 20,
	.seed = 1,
	.prefault = true,
};

struct membench_thread {
	uint64_t rng;		/* xorshift64* state */
	uint64_t sink;		/* keeps the reads alive */
	uint64_t first_touches;
};

static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* True if this call is the first to claim page @n. */
static bool claim_page(uint64_t n)
{
	uint8_t bit = (uint8_t)(1u << (n & 7));

	return !(__atomic_fetch_or(&bench.touched[n >> 3], bit,
				   __ATOMIC_RELAXED) & bit);
}

/* One request: read all bytes of a random page. */
static void serve_page(struct wl_thread *t)
{
	struct membench_thread *mt = t->priv;
	uint64_t n = next_random(&mt->rng) % bench.nr_pages;
	const uint64_t *word = (const uint64_t *)(bench.mem + n * bench.page_size);
	uint64_t sum = 0;
	size_t i;

	if (bench.touched && claim_page(n))
		mt->first_touches++;
	for (i = 0; i < bench.page_size / sizeof(*word); i++)
		sum += word[i];
	mt->sink += sum;
}

static const struct wl_ops page_ops = { .type = TYPE_PAGE, .serve = serve_page };

static void map_memory(const struct wl_config *cfg)
{
	bench.page_size = (size_t)sysconf(_SC_PAGESIZE);
	bench.nr_pages = bench.bytes / bench.page_size;
	if (!bench.nr_pages)
		wl_option_error(cfg, "memory", "less than one page");
	bench.mem = mmap(NULL, bench.nr_pages * bench.page_size,
			 PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (bench.mem == MAP_FAILED) {
		fprintf(stderr, "membench: cannot map %llu bytes: %s\n",
			(unsigned long long)bench.bytes, strerror(errno));
		exit(1);
	}
	if (!bench.thp)
		madvise(bench.mem, bench.nr_pages * bench.page_size,
			MADV_NOHUGEPAGE);
	if (bench.prefault)
		wl_prefault(bench.mem, bench.nr_pages * bench.page_size);
	else
		bench.touched = wl_xcalloc(bench.nr_pages / 8 + 1, 1);
}

/* A size (k, M, G suffixes) or a share of the RAM ("90%", the paper's). */
static uint64_t parse_memory(const struct wl_config *cfg, const char *arg)
{
	size_t len = strlen(arg);
	uint64_t pct, ram;
	char num[32];

	if (!len || arg[len - 1] != '%')
		return wl_parse_u64(cfg, "memory", arg, true);
	if (len >= sizeof(num))
		wl_option_error(cfg, "memory", "'%s' is not a size", arg);
	memcpy(num, arg, len - 1);
	num[len - 1] = '\0';
	pct = wl_parse_u64(cfg, "memory", num, false);
	if (pct > 100)
		wl_option_error(cfg, "memory", "'%s' is more than the RAM", arg);
	ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	return ram / 100 * pct;
}

static uint64_t minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_minflt;
}

static void usage(const struct wl_config *cfg)
{
	printf("usage: membench [<options>]\n\n"
	       "Each request (an AppTask) reads all bytes of a random page of a large\n"
	       "memory area, as VarMRI's MemBench.\n\n"
	       "    -m, --memory <size>    memory area (default 256M; k, M, G suffixes,\n"
	       "                           or a share of the RAM: 90%% as in the paper)\n"
	       "        --no-prefault      do not write the pages first: a request that\n"
	       "                           touches a page first takes its page fault\n"
	       "        --thp              allow transparent huge pages (default 4 KiB)\n"
	       "        --seed <n>         random seed (default 1)\n");
	wl_usage_common(cfg);
}

enum {
	OPT_NO_PREFAULT = WL_OPT__WORKLOAD,
	OPT_THP,
	OPT_SEED,
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "memory", required_argument, NULL, 'm' },
		{ "no-prefault", no_argument, NULL, OPT_NO_PREFAULT },
		{ "thp", no_argument, NULL, OPT_THP },
		{ "seed", required_argument, NULL, OPT_SEED },
		WL_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct wl_config cfg = WL_CONFIG("membench", 100000);
	struct wl_extra extra[] = {
		{ "pages", 0 }, { "first_touch_pages", 0 }, { "minor_faults", 0 },
	};
	struct membench_thread *priv;
	struct wl_thread *threads;
	struct wl_run run;
	uint64_t faults;
	unsigned int i;
	int c;

	while ((c = wl_getopt(&cfg, argc, argv, "m:" WL_COMMON_SHORTOPTS,
			      longopts)) != -1) {
		switch (c) {
		case 'm':
			bench.bytes = parse_memory(&cfg, optarg);
			break;
		case OPT_NO_PREFAULT:
			bench.prefault = false;
			break;
		case OPT_THP:
			bench.thp = true;
			break;
		case OPT_SEED:
			bench.seed = wl_parse_u64(&cfg, "seed", optarg, false);
			break;
		case 'h':
			usage(&cfg);
			return 0;
		}
	}

	map_memory(&cfg);
	threads = wl_threads_new(&cfg, &page_ops);
	priv = wl_xcalloc(cfg.threads, sizeof(*priv));
	for (i = 0; i < cfg.threads; i++) {
		priv[i].rng = bench.seed * 0x9E3779B97F4A7C15ULL + i + 1;
		threads[i].priv = &priv[i];
	}

	faults = minor_faults();
	run = wl_threads_run(&cfg, threads);
	faults = minor_faults() - faults;
	for (i = 0; i < cfg.threads; i++)
		bench.first_touches += priv[i].first_touches;

	extra[0].value = bench.nr_pages;
	extra[1].value = bench.first_touches;
	extra[2].value = faults;
	wl_report(&cfg, threads, &run, extra, sizeof(extra) / sizeof(extra[0]));
	wl_threads_free(&cfg, threads);
	free(priv);
	free(bench.touched);
	munmap(bench.mem, bench.nr_pages * bench.page_size);
	return 0;
}
