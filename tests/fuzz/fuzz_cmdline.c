/* libFuzzer target: the kernel command-line parser on arbitrary bytes,
 * with a value check like config.c's, and its error recovery: after any
 * junk, a well-formed " mem=4K" at the end must still apply. */
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "lib/cmdline.h"

static void quiet(void *ctx, const char *msg) { (void)ctx; (void)msg; }

static bool check(const struct cmdline_option *o, const char *val, char *why, size_t n)
{
	if (o->name[0] != 'n')
		return true;
	snprintf(why, n, "'%.20s' refused", val);
	return val[0] == '1';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[2048 + 16];
	uint64_t mem = 0, n = 0;
	bool b = false;
	char s[64];
	const struct cmdline_option opts[] = {
		{ "mem", CMDLINE_SIZE, &mem, 0, NULL, "" },
		{ "n", CMDLINE_U64, &n, 0, NULL, "" },
		{ "b", CMDLINE_BOOL, &b, 0, NULL, "" },
		{ "s", CMDLINE_STR, s, sizeof s, NULL, "" },
	};
	if (size > 2048)
		size = 2048;
	memcpy(line, data, size);
	line[size] = 0;
	s[0] = 0;
	cmdline_apply(line, opts, 4, check, quiet, NULL);
	if (strlen(s) >= sizeof s)
		__builtin_trap();
	/* Recovery: whatever came before, a blank and a good option after
	 * it still apply (a quote never pairs with one beyond the input, as
	 * the appended text has none). */
	if (memchr(data, 0, size))
		return 0;
	memcpy(line + size, " mem=4K", 8);
	mem = 0;
	cmdline_apply(line, opts, 4, check, quiet, NULL);
	if (mem != 4096)
		__builtin_trap();
	return 0;
}
