/*
 * The lock-order checker's own tests (test=lockdep, test=lockdep3), for a
 * LOCKDEP=1 build: locks of classes no other code uses are nested in a
 * consistent order (nothing may be reported), then in an inverted one
 * (exactly one report, after which checking is off for the boot).  The
 * QEMU case reads the report's lines and record: both classes and both
 * acquisition sites, in the functions below.
 */
#include "selftest.h"
#include "core/console.h"
#include "core/spinlock.h"
#include "core/lockdep.h"
#include "lib/json.h"

static int failures;

static void check(bool ok, const char *what)
{
	if (!ok) {
		failures++;
		kprintf("selftest: FAILED: %s\n", what);
	}
}

static struct spinlock lock_a = SPINLOCK_INIT("lockdep_test_a");
static struct spinlock lock_b = SPINLOCK_INIT("lockdep_test_b");
static struct spinlock lock_c = SPINLOCK_INIT("lockdep_test_c");

/* Each nesting in a function of its own: the sites name them. */
static void __attribute__((noinline)) nest_a_then_b(void)
{
	bool on = spin_lock_irqsave(&lock_a);
	spin_lock(&lock_b);
	spin_unlock(&lock_b);
	spin_unlock_irqrestore(&lock_a, on);
}

static void __attribute__((noinline)) nest_b_then_c(void)
{
	spin_lock(&lock_b);
	spin_lock(&lock_c);
	spin_unlock(&lock_c);
	spin_unlock(&lock_b);
}

/* Out of order release, a trylock under a held lock: both legal. */
static void __attribute__((noinline)) nest_a_then_c_trylock_b(void)
{
	spin_lock(&lock_a);
	spin_lock(&lock_c);
	spin_unlock(&lock_a);
	if (spin_trylock(&lock_b))
		spin_unlock(&lock_b);
	spin_unlock(&lock_c);
}

static void __attribute__((noinline)) inverted_b_then_a(void)
{
	spin_lock(&lock_b);
	spin_lock(&lock_a);
	spin_unlock(&lock_a);
	spin_unlock(&lock_b);
}

static void __attribute__((noinline)) inverted_c_then_a(void)
{
	spin_lock(&lock_c);
	spin_lock(&lock_a);
	spin_unlock(&lock_a);
	spin_unlock(&lock_c);
}

static bool ready(struct json *r)
{
	json_bool(r, "built", lockdep_built());
	check(lockdep_built(), "the kernel was built without LOCKDEP=1");
	check(lockdep_checking() && !lockdep_reports(), "lockdep had stopped before the test");
	return lockdep_built() && lockdep_checking();
}

static void finish(struct json *r, unsigned before)
{
	json_u64(r, "reports", lockdep_reports() - before);
	check(lockdep_reports() == before + 1, "the inversion was not reported exactly once");
	check(!lockdep_checking(), "checking still on after a report");
}

/* a -> b recorded, then b -> a. */
static void test_lockdep(struct json *r)
{
	if (!ready(r))
		return;
	nest_a_then_b();
	nest_a_then_b();
	nest_a_then_c_trylock_b();
	check(lockdep_reports() == 0, "consistent nesting reported");
	inverted_b_then_a();
	finish(r, 0);
}

/* a -> b, b -> c recorded (a -> c too), then c -> a: a cycle through the
 * path the graph search must find. */
static void test_lockdep3(struct json *r)
{
	if (!ready(r))
		return;
	nest_a_then_b();
	nest_b_then_c();
	check(lockdep_reports() == 0, "consistent nesting reported");
	inverted_c_then_a();
	finish(r, 0);
}

static const struct selftest tests[] = {
	{ "lockdep", test_lockdep },
	{ "lockdep3", test_lockdep3 },
};

bool lockdep_selftest(const char *name)
{
	return selftest_suite(name, tests, sizeof tests / sizeof tests[0], &failures);
}
