/*
 * The lock-order checker's own tests (test=lockdep, test=lockdep3,
 * test=lockdep_irq, test=lockdep_irq_chain, test=lockdep_mutex, test=lockdep_rwsem, test=lockdep_recursive), for a
 * LOCKDEP=1 build: locks (spinlocks, mutexes, rwsems) of classes no other code uses are nested in a consistent order (nothing may be reported),
 * then in an inverted one (exactly one report, after which checking is
 * off for the boot); a lock is taken in an interrupt handler (a ktimer's
 * function runs in the tick's) and then with interrupts enabled (one
 * report, checking goes on), while another taken in the handler and
 * only with interrupts off elsewhere is not reported.  The QEMU case
 * reads the report's lines and record: classes, acquisition sites in the
 * functions below, and their callers.
 */
#include "selftest.h"
#include "core/console.h"
#include "core/spinlock.h"
#include "core/lockdep.h"
#include "core/sched.h"
#include "core/time.h"
#include "core/wait.h"
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

static struct mutex mutex_a, mutex_b;

static void __attribute__((noinline)) nest_mutex_a_then_b(void)
{
	mutex_lock(&mutex_a);
	mutex_lock(&mutex_b);
	mutex_unlock(&mutex_b);
	mutex_unlock(&mutex_a);
}

/* The holder sleeps between the two: lockdep follows the thread. */
static void __attribute__((noinline)) inverted_mutex_b_then_a(void)
{
	mutex_lock(&mutex_b);
	sleep_ms(2);
	mutex_lock(&mutex_a);
	mutex_unlock(&mutex_a);
	mutex_unlock(&mutex_b);
}

/* An rwsem read, then a mutex; later the mutex, then the rwsem written:
 * a reader holding the mutex's order is still a cycle (a writer waiting
 * between would deadlock the two), so the read side is ordered too. */
static struct rwsem rwsem_a;

static void __attribute__((noinline)) nest_rwsem_read_then_mutex(void)
{
	down_read(&rwsem_a);
	mutex_lock(&mutex_b);
	mutex_unlock(&mutex_b);
	up_read(&rwsem_a);
}

static void __attribute__((noinline)) inverted_mutex_then_rwsem_write(void)
{
	mutex_lock(&mutex_b);
	down_write(&rwsem_a);
	up_write(&rwsem_a);
	mutex_unlock(&mutex_b);
}

static struct spinlock lock_irq = SPINLOCK_INIT("lockdep_test_irq");
static struct spinlock lock_irqsafe = SPINLOCK_INIT("lockdep_test_irqsafe");
static struct ktimer irq_timer;
static volatile bool irq_ran;

/* The tick's interrupt handler runs it (time.c: run_expired). */
static void __attribute__((noinline)) take_in_irq(void *arg)
{
	(void)arg;
	spin_lock(&lock_irqsafe);
	spin_unlock_nosched(&lock_irqsafe);
	spin_lock(&lock_irq);
	spin_unlock_nosched(&lock_irq);
	irq_ran = true;
}

static void __attribute__((noinline)) take_with_irqs_off(void)
{
	bool on = spin_lock_irqsave(&lock_irqsafe);
	spin_unlock_irqrestore(&lock_irqsafe, on);
}

/* The chain case: chain_safe is taken in the interrupt handler (only
 * with interrupts off elsewhere), chain_unsafe only in threads with
 * interrupts on - each fine alone - and then chain_unsafe is taken while
 * chain_safe is held. */
static struct spinlock lock_chain_safe = SPINLOCK_INIT("lockdep_test_chain_safe");
static struct spinlock lock_chain_mid = SPINLOCK_INIT("lockdep_test_chain_mid");
static struct spinlock lock_chain_unsafe = SPINLOCK_INIT("lockdep_test_chain_unsafe");

static void __attribute__((noinline)) take_chain_safe_in_irq(void *arg)
{
	(void)arg;
	spin_lock(&lock_chain_safe);
	spin_unlock_nosched(&lock_chain_safe);
	irq_ran = true;
}

static void __attribute__((noinline)) take_chain_unsafe_irqs_on(void)
{
	spin_lock(&lock_chain_unsafe);
	spin_unlock(&lock_chain_unsafe);
}

/* safe -> mid here, mid -> unsafe there, interrupts off all along: no
 * single place holds safe while taking unsafe; the graph does. */
static void __attribute__((noinline)) nest_safe_then_mid(void)
{
	bool on = spin_lock_irqsave(&lock_chain_safe);
	spin_lock(&lock_chain_mid);
	spin_unlock_nosched(&lock_chain_mid);
	spin_unlock_irqrestore(&lock_chain_safe, on);
}

static void __attribute__((noinline)) nest_mid_then_unsafe(void)
{
	bool on = spin_lock_irqsave(&lock_chain_mid);
	spin_lock(&lock_chain_unsafe);
	spin_unlock_nosched(&lock_chain_unsafe);
	spin_unlock_irqrestore(&lock_chain_mid, on);
}

/* The deliberate mistake: an interrupt on this CPU while lock_irq is
 * held here would spin for ever in take_in_irq. */
static void __attribute__((noinline)) take_with_irqs_on(void)
{
	spin_lock(&lock_irq);
	spin_unlock(&lock_irq);
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

/* Interrupt use first, then thread use: irqsafe with interrupts off
 * (fine), irq with them on (reported once, checking stays on). */
static void test_lockdep_irq(struct json *r)
{
	if (!ready(r))
		return;
	ktimer_init(&irq_timer, take_in_irq, NULL);
	ktimer_arm(&irq_timer, time_ns() + 2000000);
	for (int i = 0; i < 2000 && !irq_ran; i++)
		sleep_ms(1);
	ktimer_cancel(&irq_timer);
	json_bool(r, "irq_ran", irq_ran);
	check(irq_ran, "the timer's function never ran");
	take_with_irqs_off();
	check(lockdep_reports() == 0, "an interrupt-safe use was reported");
	take_with_irqs_on();
	take_with_irqs_on();
	json_u64(r, "reports", lockdep_reports());
	check(lockdep_reports() == 1, "the interrupt-unsafe use was not reported exactly once");
	check(lockdep_checking(), "checking stopped after an interrupt-safety report");
}

/* An interrupt-safe lock ordered, through a third, before one taken
 * with interrupts on: one report, checking stays on. */
static void test_lockdep_irq_chain(struct json *r)
{
	if (!ready(r))
		return;
	irq_ran = false;
	ktimer_init(&irq_timer, take_chain_safe_in_irq, NULL);
	ktimer_arm(&irq_timer, time_ns() + 2000000);
	for (int i = 0; i < 2000 && !irq_ran; i++)
		sleep_ms(1);
	ktimer_cancel(&irq_timer);
	json_bool(r, "irq_ran", irq_ran);
	check(irq_ran, "the timer's function never ran");
	take_chain_unsafe_irqs_on();
	check(lockdep_reports() == 0, "a lock used in one way only was reported");
	nest_safe_then_mid();
	check(lockdep_reports() == 0, "safe -> mid alone was reported");
	nest_mid_then_unsafe();
	nest_mid_then_unsafe();
	json_u64(r, "reports", lockdep_reports());
	check(lockdep_reports() == 1, "the chain was not reported exactly once");
	check(lockdep_checking(), "checking stopped after an interrupt-safety report");
}

/* Mutexes: a -> b, a trylock under b (no edge), then b -> a. */
static void test_lockdep_mutex(struct json *r)
{
	if (!ready(r))
		return;
	mutex_init(&mutex_a, "lockdep_test_ma");
	mutex_init(&mutex_b, "lockdep_test_mb");
	nest_mutex_a_then_b();
	mutex_lock(&mutex_b);
	if (mutex_trylock(&mutex_a))
		mutex_unlock(&mutex_a);
	mutex_unlock(&mutex_b);
	check(lockdep_reports() == 0, "consistent nesting reported");
	inverted_mutex_b_then_a();
	finish(r, 0);
}

/* rwsem: read a -> mutex b, trylocks (no edges), then b -> write a. */
static void test_lockdep_rwsem(struct json *r)
{
	if (!ready(r))
		return;
	rwsem_init(&rwsem_a, "lockdep_test_rwa");
	mutex_init(&mutex_b, "lockdep_test_mb");
	nest_rwsem_read_then_mutex();
	mutex_lock(&mutex_b);
	if (down_read_trylock(&rwsem_a))
		up_read(&rwsem_a);
	if (down_write_trylock(&rwsem_a))
		up_write(&rwsem_a);
	mutex_unlock(&mutex_b);
	check(lockdep_reports() == 0, "consistent nesting reported");
	inverted_mutex_then_rwsem_write();
	finish(r, 0);
}

/* The same rwsem read twice by one thread (no writer waits here, so it
 * does not deadlock this time). */
static void __attribute__((noinline)) read_twice(void)
{
	down_read(&rwsem_a);
	down_read(&rwsem_a);
	up_read(&rwsem_a);
	up_read(&rwsem_a);
}

static void test_lockdep_recursive(struct json *r)
{
	if (!ready(r))
		return;
	rwsem_init(&rwsem_a, "lockdep_test_rwa");
	down_read(&rwsem_a);
	if (down_read_trylock(&rwsem_a))        /* a trylock never waits: not reported */
		up_read(&rwsem_a);
	up_read(&rwsem_a);
	check(lockdep_reports() == 0, "a trylock under a read hold reported");
	read_twice();
	json_u64(r, "reports", lockdep_reports());
	check(lockdep_reports() == 1, "the second read of one rwsem was not reported exactly once");
	check(!lockdep_checking(), "checking still on after a report");
}

static const struct selftest tests[] = {
	{ "lockdep", test_lockdep },
	{ "lockdep3", test_lockdep3 },
	{ "lockdep_irq", test_lockdep_irq },
	{ "lockdep_irq_chain", test_lockdep_irq_chain },
	{ "lockdep_mutex", test_lockdep_mutex },
	{ "lockdep_rwsem", test_lockdep_rwsem },
	{ "lockdep_recursive", test_lockdep_recursive },
};

bool lockdep_selftest(const char *name)
{
	return selftest_suite(name, tests, sizeof tests / sizeof tests[0], &failures);
}
