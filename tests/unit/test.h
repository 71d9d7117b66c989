/*
 * A tiny unit-test harness for host-built tests of the kernel's pure code.
 * TEST(name) { ... } registers a test; CHECK* record a failure with file
 * and line and let the test go on.  tests/unit/main.c runs every test
 * (or those whose names contain argv[1]) and ends with "N passed, N failed".
 */
#ifndef TEST_H
#define TEST_H

#include <stdio.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);
void test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define TEST(name) \
	static void name(void); \
	__attribute__((constructor)) static void reg_##name(void) { test_register(#name, name); } \
	static void name(void)

#define CHECK(c) do { if (!(c)) test_fail(__FILE__, __LINE__, "CHECK(%s)", #c); } while (0)
#define CHECK_EQ(a, b) do { \
	unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
	if (_a != _b) test_fail(__FILE__, __LINE__, "%s == %s: %llu != %llu (0x%llx != 0x%llx)", #a, #b, _a, _b, _a, _b); \
} while (0)
#define CHECK_STR(a, b) do { \
	const char *_a = (a), *_b = (b); \
	if (!_a || !_b || strcmp(_a, _b)) test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); \
} while (0)
#define CHECK_CONTAINS(hay, needle) do { \
	const char *_h = (hay), *_n = (needle); \
	if (!_h || !strstr(_h, _n)) test_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", _h ? _h : "(null)", _n); \
} while (0)

#endif
