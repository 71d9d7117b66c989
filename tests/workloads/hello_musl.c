/*
 * hello_musl.c - hello, but built against real libc (musl, static).
 *
 *   hello_musl [ARGS...]
 *
 * Same output as hello.c, through printf. It checks that our kernel gives a
 * libc's startup code what it expects: the auxiliary vector, arch_prctl for
 * TLS, set_tid_address, and ioctl/writev for stdio.
 */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	printf("hello from %s\n", argc > 0 ? argv[0] : "(no argv[0])");
	for (int i = 0; i < argc; i++)
		printf("argv[%d] = \"%s\"\n", i, argv[i]);
	printf("{\"type\":\"workload\",\"name\":\"hello_musl\",\"libc\":\"musl\","
	       "\"argc\":%d,\"pid\":%d,\"mismatches\":0}\n", argc, (int)getpid());
	return fflush(stdout) == 0 ? 0 : 3;
}
