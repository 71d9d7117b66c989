/*
 * Unit-test runner: runs registered tests in order of registration, prints
 * one line per failure and a final "N passed, N failed" line.  Exit status
 * is 1 when anything failed.  Built with ASan/UBSan, so memory errors in the
 * code under test abort the run loudly.
 */
#include <stdarg.h>
#include <stdlib.h>
#include "test.h"

#define MAX_TESTS 1024

static struct { const char *name; test_fn fn; } tests[MAX_TESTS];
static int ntests, cur_failures;
static const char *cur_name;

void test_register(const char *name, test_fn fn)
{
	if (ntests == MAX_TESTS) {
		fprintf(stderr, "too many tests\n");
		exit(2);
	}
	tests[ntests].name = name;
	tests[ntests].fn = fn;
	ntests++;
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stdout, "FAIL %s (%s:%d): ", cur_name, file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	cur_failures++;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	for (int i = 0; i < ntests; i++) {
		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		cur_name = tests[i].name;
		cur_failures = 0;
		tests[i].fn();
		if (cur_failures)
			failed++;
		else
			passed++;
		if (getenv("UNIT_VERBOSE"))
			printf("%s %s\n", cur_failures ? "FAIL" : "ok  ", tests[i].name);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
