/* libFuzzer target: the path normaliser of the task file tree
 * (procfs_path_norm) on arbitrary bytes and output sizes.  A result never
 * overflows, never starts or ends with '/', has no empty, "." or ".."
 * component, and normalising it again changes nothing. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "proc/procfs_text.h"

static void check_components(const char *p)
{
	if (p[0] == '/')
		__builtin_trap();
	while (*p) {
		const char *c = p;
		while (*p && *p != '/')
			p++;
		size_t n = (size_t)(p - c);
		if (!n || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			__builtin_trap();
		if (*p == '/' && !*++p)
			__builtin_trap();       /* trailing slash */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[600], out[300], again[300];
	if (!size)
		return 0;
	size_t cap = data[0] % sizeof out;      /* 0 too: must refuse */
	data++, size--;
	if (size >= sizeof in)
		size = sizeof in - 1;
	memcpy(in, data, size);
	in[size] = 0;
	memset(out, 0x55, sizeof out);
	if (!procfs_path_norm(in, out, cap))
		return 0;
	size_t len = strlen(out);
	if (len >= cap)
		__builtin_trap();
	for (size_t i = cap; i < sizeof out; i++)
		if (out[i] != 0x55)
			__builtin_trap();       /* wrote past cap */
	check_components(out);
	if (!procfs_path_norm(out, again, sizeof again) || strcmp(out, again))
		__builtin_trap();
	return 0;
}
