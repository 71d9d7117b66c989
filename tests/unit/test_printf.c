#include "test.h"
#include "lib/printf.h"

static const char *fmt(const char *f, ...)
{
	static char buf[256];
	va_list ap;
	va_start(ap, f);
	kvsnprintf(buf, sizeof buf, f, ap);
	va_end(ap);
	return buf;
}

TEST(printf_integers)
{
	CHECK_STR(fmt("%d %i %u", -42, 7, 3000000000u), "-42 7 3000000000");
	CHECK_STR(fmt("%ld %lu", -9000000000l, 18446744073709551615ul), "-9000000000 18446744073709551615");
	CHECK_STR(fmt("%lld", (long long)-9223372036854775807ll - 1), "-9223372036854775808");
	CHECK_STR(fmt("%x %X %lx", 0xbeefu, 0xbeefu, 0xffffffff80000000ul), "beef BEEF ffffffff80000000");
	CHECK_STR(fmt("%zu %o", (size_t)12345, 8), "12345 10");
	CHECK_STR(fmt("%hhu %hd", 300, 70000), "44 4464");
}

TEST(printf_width_and_flags)
{
	CHECK_STR(fmt("[%5d][%-5d][%05d]", 42, 42, 42), "[   42][42   ][00042]");
	CHECK_STR(fmt("[%016lx]", 0x1234ul), "[0000000000001234]");
	CHECK_STR(fmt("[%+d][%05d]", 5, -42), "[+5][-0042]");
	CHECK_STR(fmt("[%.3d][%*d]", 7, 4, 9), "[007][   9]");
	CHECK_STR(fmt("[%8s][%-8s][%.2s]", "ab", "ab", "abcdef"), "[      ab][ab      ][ab]");
	CHECK_STR(fmt("[%.*s]", 3, "abcdef"), "[abc]");
	CHECK_STR(fmt("%c%c%%", 'o', 'k'), "ok%");
	CHECK_STR(fmt("%s", (char *)0), "(null)");
	CHECK_STR(fmt("%p", (void *)0x1000), "0x1000");
}

TEST(printf_truncates_and_counts)
{
	char buf[8];
	int n = ksnprintf(buf, sizeof buf, "%s", "0123456789");
	CHECK_EQ(n, 10);
	CHECK_STR(buf, "0123456");
	CHECK_EQ(ksnprintf(buf, 1, "abc"), 3);
	CHECK_STR(buf, "");
}
