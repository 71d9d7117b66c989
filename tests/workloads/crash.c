/*
 * crash: a program that dies on purpose, to test that the kernel kills only
 * it, reports why, and goes on.  crash null|kernel|ud|readonly|div0|stack|toppage|nt|sysenter
 *
 * toppage: a syscall instruction in the last two bytes below 2^47, whose
 * return address is then not canonical (the return would fault in the
 * kernel, after its swapgs).  The kernel must refuse to map that page, as
 * Linux does; the program then says so and exits 0.
 *
 * nt: sets RFLAGS.NT (user code may) and makes a system call.  An iretq
 * with NT set faults in 64-bit mode, so the kernel must clear NT on entry
 * (IA32_FMASK), as Linux does; the call then returns and the program
 * exits 0.
 */
#include "rt/rt.h"

/* Recurses until the stack runs out; the bound only quiets the compiler. */
static int deep(volatile int n)
{
	volatile char pad[4096];
	pad[0] = (char)n;
	if (n > 1 << 30)
		return 0;
	return deep(n + 1) + pad[0];
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "null";
	rt_dprintf(2, "crash: about to crash: %s\n", how);
	if (!rt_strcmp(how, "null"))
		return *(volatile int *)0;
	if (!rt_strcmp(how, "kernel"))
		return *(volatile int *)0xffffffff80000000ul;
	if (!rt_strcmp(how, "ud"))
		__asm__ volatile("ud2");
	if (!rt_strcmp(how, "readonly")) {
		char *p = rt_mmap(0, 4096, RT_PROT_READ, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
		*(volatile char *)p = 1;
	}
	if (!rt_strcmp(how, "div0")) {
		/* In assembly: gcc turns 1 / x into comparisons that never trap. */
		unsigned long zero = 0, hi = 0, lo = 1;
		__asm__ volatile("divq %2" : "+a"(lo), "+d"(hi) : "r"(zero));
		return (int)lo;
	}
	if (!rt_strcmp(how, "stack"))
		return deep(0);
	if (!rt_strcmp(how, "sysenter"))
		__asm__ volatile("sysenter");   /* #GP (IA32_SYSENTER_CS is 0) or, on AMD in 64-bit mode, #UD */
	if (!rt_strcmp(how, "nt")) {
		long r;
		__asm__ volatile("pushfq\n\torq $0x4000, (%%rsp)\n\tpopfq\n\tsyscall\n\t"
				 "pushfq\n\tandq $~0x4000, (%%rsp)\n\tpopfq"
				 : "=a"(r) : "0"(39L) : "rcx", "r11", "memory", "cc");
		rt_dprintf(2, "crash: a system call with NT set returned %ld\n", r);
		return 0;
	}
	if (!rt_strcmp(how, "toppage")) {
		char *top = (char *)0x7ffffffff000ul;
		char *p = rt_mmap(top, 4096, RT_PROT_READ | RT_PROT_WRITE | 0x4 /* PROT_EXEC */,
				  RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | 0x10 /* MAP_FIXED */, -1, 0);
		if (rt_mmap_failed(p)) {
			rt_dprintf(2, "crash: the top user page is not mappable (error %d): nothing to crash\n",
				   rt_mmap_error(p));
			return 0;
		}
		p[4094] = 0x0f;         /* syscall */
		p[4095] = 0x05;
		long r;
		__asm__ volatile("call *%1" : "=a"(r) : "r"(p + 4094), "0"(39L) : "rcx", "r11", "memory");
		return 3;               /* not reached: the return address is not canonical */
	}
	rt_dprintf(2, "crash: unknown way to crash: %s\n", how);
	return 2;
}
