/*
 * Built-in test scenarios, chosen with test=NAME on the command line.
 * tests/qemu boots them and checks the serial log and the exit status.
 * Some end in a deliberate exception (that is their point); the others
 * print {"type":"selftest",...} and return.
 */
#ifndef SELFTEST_H
#define SELFTEST_H

#include <stdbool.h>

struct json;

/* A named test that writes its measurements into r (a JSON object). */
struct selftest {
	const char *name;
	void (*fn)(struct json *r);
};

void selftest_run(const char *name);
/* Run the test called name from a suite's table and print its selftest
 * record ({"name","ok","failures","data"}: data is what the test wrote).
 * *failures is the suite's failure counter, zeroed first; "ok" is false
 * when the test incremented it.  Returns false when the table has no test
 * of that name. */
bool selftest_suite(const char *name, const struct selftest *tests, unsigned n, int *failures);

/* Per-subsystem suites: return false when they have no test of that name. */
bool sched_selftest(const char *name);
bool blk_selftest(const char *name);    /* tests/kernel/blk_selftest.c */
bool pci_selftest(const char *name);    /* tests/kernel/pci_selftest.c */
bool pmm_selftest(const char *name);    /* tests/kernel/pmm_selftest.c */
bool lockdep_selftest(const char *name);        /* tests/kernel/lockdep_selftest.c */

#endif
