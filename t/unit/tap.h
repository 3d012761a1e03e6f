/* SPDX-License-Identifier: MIT */
/*
 * tap.h - the TAP lines every C unit test in t/unit/ prints.
 *
 *	ok(cond, "what %d", n);		"ok 1 - what 3" or "not ok 1 - what 3"
 *	is_u64(got, want, "what");	ok() that prints both values on failure
 *	is_str(got, want, "what");
 *	skip_test("why", "what");	"ok 4 - what # skip why"
 *	return done_testing();		"1..N"; non-zero if anything failed
 *
 * t/run-tests.sh counts these lines; a unit test that crashes or exits
 * non-zero without a "not ok" line counts as one more failure.
 */
#ifndef VS_T_UNIT_TAP_H
#define VS_T_UNIT_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

static inline __attribute__((format(printf, 2, 3)))
int ok(int pass, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return pass;
}

static inline int is_u64(uint64_t got, uint64_t want, const char *what)
{
	if (ok(got == want, "%s", what))
		return 1;
	printf("#   got:  %" PRIu64 "\n#   want: %" PRIu64 "\n", got, want);
	return 0;
}

static inline int is_str(const char *got, const char *want, const char *what)
{
	int same = got && want ? !strcmp(got, want) : got == want;

	if (ok(same, "%s", what))
		return 1;
	printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)",
	       want ? want : "(null)");
	return 0;
}

static inline void skip_test(const char *why, const char *what)
{
	printf("ok %d - %s # skip %s\n", ++tap_count, what, why);
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* VS_T_UNIT_TAP_H */
