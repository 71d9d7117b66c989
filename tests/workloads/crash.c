/*
 * crash: a program that dies on purpose, to test that the kernel kills only
 * it, reports why, and goes on.  crash null|kernel|ud|readonly|div0|stack
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
	rt_dprintf(2, "crash: unknown way to crash: %s\n", how);
	return 2;
}
