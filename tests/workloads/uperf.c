/*
 * uperf: micro-costs of the kernel seen from user space, to keep the
 * kernel's entry paths honest.  uperf [N]
 *   getpid_ns:   one system call round trip
 *   fault_ns:    first touch of an anonymous page (zero-fill fault)
 *   retouch_ns:  touching the same pages again (no fault)
 *   loop_ns:     an empty user loop iteration (the emulator's speed)
 * uperf N syscalls: only the N getpid round trips (mode "syscalls"): a
 * task that crosses the user/kernel boundary as often as it can, for
 * the CPU-time accounting checks (tests/qemu/test_cputime.py).
 * Runs unchanged on Linux for comparison.
 */
#include "rt/rt.h"

static uint64_t per(uint64_t t0, uint64_t t1, uint64_t n) { return n ? (t1 - t0) / n : 0; }

int main(int argc, char **argv)
{
	static const char usage[] = "uperf [N [syscalls]]";
	if (argc > 3 || (argc == 3 && rt_strcmp(argv[2], "syscalls")))
		rt_usage_error(usage, "uperf: expected at most N and the word syscalls");
	uint64_t n = argc > 1 ? rt_arg_u64("uperf", usage, "N", argv[1], 1, 1000000) : 2000;
	uint64_t t0 = rt_now_ns();
	if (argc == 3) {
		/* Each entry and return with rbp pointing at this stack: the
		 * kernel's instructions around swapgs run with the user's rbp,
		 * and an NMI there must not follow it (SMAP). */
		uint64_t frame[2] = { 0, 0 };
		for (uint64_t i = 0; i < n; i++) {
			long r;
			__asm__ volatile("push %%rbp\n\tmov %1, %%rbp\n\tsyscall\n\tpop %%rbp"
					 : "=a"(r) : "r"(frame), "0"(39L) : "rcx", "r11", "memory");
			(void)r;
		}
	} else {
		for (uint64_t i = 0; i < n; i++)
			rt_getpid();
	}
	uint64_t t1 = rt_now_ns();
	if (argc == 3) {
		struct rt_json j;
		rt_report_begin(&j, "uperf");
		rt_json_str(&j, "mode", "syscalls");
		rt_json_u64(&j, "n", n);
		rt_json_u64(&j, "getpid_ns", per(t0, t1, n));
		rt_report_usage(&j, t0, t1);
		return rt_json_end(&j, 1) < 0 ? 3 : 0;
	}
	volatile uint64_t sink = 0;
	for (uint64_t i = 0; i < n * 100; i++)
		sink += i;
	uint64_t t2 = rt_now_ns();
	char *p = rt_mmap(0, n * 4096, 3, 0x22, -1, 0);
	if (rt_mmap_failed(p)) {
		rt_dprintf(2, "uperf: mmap of %llu pages failed\n", (unsigned long long)n);
		return 3;
	}
	uint64_t t3 = rt_now_ns();
	for (uint64_t i = 0; i < n; i++)
		p[i * 4096] = 1;
	uint64_t t4 = rt_now_ns();
	for (uint64_t i = 0; i < n; i++)
		p[i * 4096] = 2;
	uint64_t t5 = rt_now_ns();
	struct rt_json j;
	rt_report_begin(&j, "uperf");
	rt_json_u64(&j, "n", n);
	rt_json_u64(&j, "getpid_ns", per(t0, t1, n));
	rt_json_u64(&j, "loop_ns_x100", per(t1, t2, n));
	rt_json_u64(&j, "fault_ns", per(t3, t4, n));
	rt_json_u64(&j, "retouch_ns", per(t4, t5, n));
	rt_report_usage(&j, t0, t5);
	return rt_json_end(&j, 1) < 0 ? 3 : 0;
}
