/* libFuzzer target: the kernel command-line parser on arbitrary bytes. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "lib/cmdline.h"

static void quiet(void *ctx, const char *msg) { (void)ctx; (void)msg; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[2048];
	uint64_t mem = 0, n = 0;
	bool b = false;
	char s[64];
	const struct cmdline_option opts[] = {
		{ "mem", CMDLINE_SIZE, &mem, 0, NULL, "" },
		{ "n", CMDLINE_U64, &n, 0, NULL, "" },
		{ "b", CMDLINE_BOOL, &b, 0, NULL, "" },
		{ "s", CMDLINE_STR, s, sizeof s, NULL, "" },
	};
	if (size >= sizeof line)
		size = sizeof line - 1;
	memcpy(line, data, size);
	line[size] = 0;
	s[0] = 0;
	cmdline_apply(line, opts, 4, quiet, NULL);
	if (strlen(s) >= sizeof s)
		__builtin_trap();
	return 0;
}
