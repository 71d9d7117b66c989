/*
 * ELF validation tests: synthetic executables for every rule, every
 * truncation of a good one (in an exactly sized heap buffer, so ASan sees
 * any over-read), and the real workload binaries when WORKLOAD_DIR is set.
 */
#include <stdlib.h>
#include "test.h"
#include "proc/elf.h"

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

enum { PT_LOAD = 1, PT_DYNAMIC = 2, PT_INTERP = 3, PT_PHDR = 6, PT_TLS = 7, PT_GNU_STACK = 0x6474e551 };
enum { R = 4, W = 2, X = 1 };

struct tph {
	uint32_t type, flags;
	uint64_t off, vaddr, filesz, memsz, align;
};

#define FILE_SIZE 0x3000
static uint8_t img[FILE_SIZE];
static struct elf_info ei;

static void mkelf(uint16_t type, uint64_t entry, const struct tph *ph, int n)
{
	memset(img, 0, sizeof img);
	memcpy(img, "\177ELF", 4);
	img[4] = 2;
	img[5] = 1;
	img[6] = 1;
	put16(img + 16, type);
	put16(img + 18, 62);
	put32(img + 20, 1);
	put64(img + 24, entry);
	put64(img + 32, 64);
	put16(img + 52, 64);
	put16(img + 54, 56);
	put16(img + 56, (uint16_t)n);
	for (int i = 0; i < n; i++) {
		uint8_t *p = img + 64 + 56 * i;
		put32(p, ph[i].type);
		put32(p + 4, ph[i].flags);
		put64(p + 8, ph[i].off);
		put64(p + 16, ph[i].vaddr);
		put64(p + 24, ph[i].vaddr);
		put64(p + 32, ph[i].filesz);
		put64(p + 40, ph[i].memsz);
		put64(p + 48, ph[i].align);
	}
}

/* Laid out like hello_musl: headers+R, RX, R, then RW starting mid-page. */
static const struct tph good[] = {
	{ PT_LOAD, R, 0, 0x400000, 0x190, 0x190, 0x1000 },
	{ PT_LOAD, R | X, 0x1000, 0x401000, 0x800, 0x800, 0x1000 },
	{ PT_LOAD, R, 0x2000, 0x402000, 0x300, 0x300, 0x1000 },
	{ PT_LOAD, R | W, 0x2fc0, 0x403fc0, 0x40, 0x7e8, 0x1000 },
	{ PT_GNU_STACK, R | W, 0, 0, 0, 0, 0x10 },
};
#define NGOOD 5

static int check_with(int idx, struct tph ph)
{
	struct tph v[NGOOD + 1];
	memcpy(v, good, sizeof good);
	v[idx] = ph;
	mkelf(2, 0x401000, v, idx == NGOOD ? NGOOD + 1 : NGOOD);
	return elf_check(img, sizeof img, &ei);
}

TEST(elf_good_static_exec)
{
	mkelf(2, 0x401010, good, NGOOD);
	CHECK_EQ(elf_check(img, sizeof img, &ei), 0);
	CHECK(!ei.is_pie);
	CHECK_EQ(ei.entry, 0x401010);
	CHECK_EQ(ei.nload, 4);
	CHECK_EQ(ei.load[0].prot, ELF_PROT_R);
	CHECK_EQ(ei.load[1].prot, ELF_PROT_R | ELF_PROT_X);
	CHECK_EQ(ei.load[3].prot, ELF_PROT_R | ELF_PROT_W);
	CHECK_EQ(ei.load[3].vaddr, 0x403fc0);
	CHECK_EQ(ei.load[3].offset, 0x2fc0);
	CHECK_EQ(ei.load[3].filesz, 0x40);
	CHECK_EQ(ei.load[3].memsz, 0x7e8);
	CHECK_EQ(ei.lo, 0x400000);
	CHECK_EQ(ei.hi, 0x405000);
	CHECK_EQ(ei.span, 0x5000);
	CHECK_EQ(ei.max_align, 0x1000);
	CHECK_EQ(ei.phoff, 64);
	CHECK_EQ(ei.phnum, NGOOD);
	CHECK_EQ(ei.phdr_vaddr, 0x400040);             /* from the first PT_LOAD */
	CHECK(ei.has_gnu_stack);
	CHECK(!ei.exec_stack);
	CHECK(!ei.has_tls);
	CHECK(!ei.wx);
}

TEST(elf_header_checks)
{
	struct { int off; uint8_t v; int err; } cases[] = {
		{ 0, 0x7e, ELF_EMAGIC }, { 3, 'f', ELF_EMAGIC }, { 4, 1, ELF_ECLASS }, { 5, 2, ELF_EDATA },
		{ 6, 0, ELF_EVERSION }, { 20, 2, ELF_EVERSION }, { 16, 1, ELF_ETYPE }, { 16, 4, ELF_ETYPE },
		{ 18, 3, ELF_EMACHINE }, { 54, 64, ELF_EPHENT }, { 56, 0, ELF_EPHNUM }, { 56, 74, ELF_EPHNUM },
		{ 33, 0x30, ELF_EPHOFF }, { 38, 1, ELF_EPHOFF },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mkelf(2, 0x401000, good, NGOOD);
		img[cases[i].off] = cases[i].v;
		int err = elf_check(img, sizeof img, &ei);
		if (err != cases[i].err)
			test_fail(__FILE__, __LINE__, "case %zu: %d (%s), want %d", i, err, elf_strerror(err), cases[i].err);
	}
	mkelf(2, 0x401000, good, NGOOD);
	CHECK_EQ(elf_check(img, 63, &ei), ELF_ETRUNC);
	CHECK_EQ(elf_check(img, 64 + 56 * NGOOD - 1, &ei), ELF_EPHOFF);
	put64(img + 32, UINT64_MAX - 8);                /* phoff + size wraps */
	CHECK_EQ(elf_check(img, sizeof img, &ei), ELF_EPHOFF);
}

TEST(elf_every_truncation_fails_cleanly)
{
	mkelf(2, 0x401000, good, NGOOD);
	for (size_t n = 0; n < sizeof img; n += (n < 400 ? 1 : 97)) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, img, n);
		CHECK(elf_check(copy, n, &ei) < 0);
		free(copy);
	}
}

TEST(elf_segment_checks)
{
	struct { int idx; struct tph ph; int err; } cases[] = {
		{ 1, { PT_LOAD, R | X, 0x1000, 0x401000, 0x2001, 0x2001, 0x1000 }, ELF_ESEGFILE },
		{ 1, { PT_LOAD, R | X, UINT64_MAX, 0x401000, 2, 2, 0x1000 }, ELF_ESEGFILE },
		{ 1, { PT_LOAD, R | X, 0x1000, 0x401000, 0x800, 0x7ff, 0x1000 }, ELF_ESEGSIZE },
		{ 3, { PT_LOAD, R | W, 0x2fc0, 0x7ffffffff000 + 0xfc0, 0x40, 0x41, 0x1000 }, ELF_ESEGADDR },
		/* Into the last page below 2^47, which is never mapped (a syscall
		 * in its last bytes would return to a non-canonical address). */
		{ 3, { PT_LOAD, R | W, 0x2fc0, 0x7fffffffefc0, 0x40, 0x41, 0x1000 }, ELF_ESEGADDR },
		{ 3, { PT_LOAD, R | W, 0x2fc0, 0xfffffffffffffc0, 0x40, UINT64_MAX, 0x1000 }, ELF_ESEGADDR },
		{ 3, { PT_LOAD, R | W, 0x2fc0, 0xffff800000000fc0, 0x40, 0x40, 0x1000 }, ELF_ESEGADDR },
		{ 1, { PT_LOAD, R | X, 0x1000, 0x401000, 0x800, 0x800, 0x1800 }, ELF_ESEGALIGN },
		{ 1, { PT_LOAD, R | X, 0x1000, 0x401800, 0x800, 0x800, 0x1000 }, ELF_ESEGOFF },
		{ 0, { PT_LOAD, R, 0, 0xf000, 0x190, 0x190, 0x1000 }, ELF_ESEGLOW },
		{ 2, { PT_LOAD, R, 0x1000, 0x401000, 0x300, 0x300, 0x1000 }, ELF_EOVERLAP },
		{ 3, { PT_LOAD, R | W, 0x12c0, 0x4022c0, 0x40, 0x100, 0x1000 }, ELF_EOVERLAP },
		{ 3, { PT_LOAD, R | W, 0xfc0, 0x400fc0, 0x40, 0x400000, 0x1000 }, ELF_EOVERLAP },
		{ 5, { PT_INTERP, R, 0x200, 0x400200, 0x1c, 0x1c, 1 }, ELF_EINTERP },
		/* Out of order, without overlapping. */
		{ 0, { PT_LOAD, R, 0x2000, 0x40a000, 0x190, 0x190, 0x1000 }, ELF_EORDER },
		{ 3, { PT_LOAD, R | W, 0x2fc0, 0x3fffc0, 0x40, 0x40, 0x1000 }, ELF_EORDER },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int err = check_with(cases[i].idx, cases[i].ph);
		if (err != cases[i].err)
			test_fail(__FILE__, __LINE__, "case %zu: %d (%s), want %d", i, err, elf_strerror(err), cases[i].err);
	}
	CHECK_STR(elf_strerror(ELF_EINTERP), "needs a dynamic loader, only static executables are supported");
	/* Alignments 0 and 1 are fine, as are large powers of two. */
	CHECK_EQ(check_with(1, (struct tph){ PT_LOAD, R | X, 0x1000, 0x401000, 0x800, 0x800, 0 }), 0);
	CHECK_EQ(check_with(1, (struct tph){ PT_LOAD, R | X, 0x1000, 0x401000, 0x800, 0x800, 1 }), 0);
	CHECK_EQ(check_with(1, (struct tph){ PT_LOAD, R | X, 0x1000, 0x401000, 0x800, 0x800, 0x200000 }), 0);
	CHECK_EQ(ei.max_align, 0x200000);
	/* Segment ending exactly at the top of user space. */
	CHECK_EQ(check_with(3, (struct tph){ PT_LOAD, R | W, 0x2fc0, 0x7ffffffffc0, 0x40, 0x40, 0x1000 }), 0);
	CHECK_EQ(ei.hi, 0x80000000000);
}

TEST(elf_shared_pages_allowed)
{
	/* RW starts right after the read-only data, in the same page. */
	CHECK_EQ(check_with(3, (struct tph){ PT_LOAD, R | W, 0x2300, 0x402300, 0x40, 0x100, 0x1000 }), 0);
	CHECK(!ei.wx);
	CHECK_EQ(ei.hi, 0x403000);
	/* Byte-adjacent to the code: legal, but that page is W and X. */
	CHECK_EQ(check_with(2, (struct tph){ PT_LOAD, R | W, 0x1800, 0x401800, 0x10, 0x10, 0x1000 }), 0);
	CHECK(ei.wx);
	/* A W+X segment on its own. */
	CHECK_EQ(check_with(1, (struct tph){ PT_LOAD, R | W | X, 0x1000, 0x401000, 0x800, 0x800, 0x1000 }), 0);
	CHECK(ei.wx);
	/* Empty segments are checked, then left out. */
	CHECK_EQ(check_with(2, (struct tph){ PT_LOAD, R, 0x1000, 0x401000, 0, 0, 0x1000 }), 0);
	CHECK_EQ(ei.nload, 3);
	CHECK_EQ(ei.load[2].vaddr, 0x403fc0);
	CHECK_EQ(check_with(2, (struct tph){ PT_LOAD, R, 0x1000, 0x401800, 0, 0, 0x1000 }), ELF_ESEGOFF);
}

TEST(elf_entry_checks)
{
	mkelf(2, 0x400100, good, NGOOD);                /* in the R segment */
	CHECK_EQ(elf_check(img, sizeof img, &ei), ELF_EENTRY);
	mkelf(2, 0x401800, good, NGOOD);                /* one past the code */
	CHECK_EQ(elf_check(img, sizeof img, &ei), ELF_EENTRY);
	mkelf(2, 0x4017ff, good, NGOOD);
	CHECK_EQ(elf_check(img, sizeof img, &ei), 0);
	mkelf(2, 0, good, NGOOD);
	CHECK_EQ(elf_check(img, sizeof img, &ei), ELF_EENTRY);
	struct tph none[] = { { PT_GNU_STACK, R | W, 0, 0, 0, 0, 0x10 } };
	mkelf(2, 0x401000, none, 1);
	CHECK_EQ(elf_check(img, sizeof img, &ei), ELF_ENOLOAD);
	struct tph many[ELF_MAX_LOAD + 1];
	for (int i = 0; i <= ELF_MAX_LOAD; i++)
		many[i] = (struct tph){ PT_LOAD, R | X, 0x1000, 0x401000 + 0x1000 * (uint64_t)i, 0x10, 0x10, 0x1000 };
	mkelf(2, 0x401000, many, ELF_MAX_LOAD);
	CHECK_EQ(elf_check(img, sizeof img, &ei), 0);
	mkelf(2, 0x401000, many, ELF_MAX_LOAD + 1);
	CHECK_EQ(elf_check(img, sizeof img, &ei), ELF_ETOOMANY);
}

TEST(elf_tls_stack_and_phdr)
{
	CHECK_EQ(check_with(NGOOD, (struct tph){ PT_TLS, R, 0x2fc0, 0x403fc0, 0x10, 0x30, 8 }), 0);
	CHECK(ei.has_tls);
	CHECK_EQ(ei.tls_vaddr, 0x403fc0);
	CHECK_EQ(ei.tls_filesz, 0x10);
	CHECK_EQ(ei.tls_memsz, 0x30);
	CHECK_EQ(ei.tls_align, 8);
	CHECK_EQ(check_with(NGOOD, (struct tph){ PT_TLS, R, 0x2fc0, 0x403fc0, 0x30, 0x10, 8 }), ELF_ETLS);
	CHECK_EQ(check_with(NGOOD, (struct tph){ PT_TLS, R, 0x2fc0, 0x403fc0, 0x10, 0x30, 12 }), ELF_ETLS);
	CHECK_EQ(check_with(NGOOD, (struct tph){ PT_TLS, R, 0x2fc0, 0x404fc0, 0x10, 0x30, 8 }), ELF_ETLS);
	CHECK_EQ(check_with(NGOOD, (struct tph){ PT_TLS, R, 0, 0x900000, 0, 0x30, 8 }), 0);     /* .tbss only */
	struct tph two[NGOOD + 2];
	memcpy(two, good, sizeof good);
	two[NGOOD] = two[NGOOD + 1] = (struct tph){ PT_TLS, R, 0x2fc0, 0x403fc0, 0x10, 0x30, 8 };
	mkelf(2, 0x401000, two, NGOOD + 2);
	CHECK_EQ(elf_check(img, sizeof img, &ei), ELF_ETLS);

	CHECK_EQ(check_with(4, (struct tph){ PT_GNU_STACK, R | W | X, 0, 0, 0, 0, 0x10 }), 0);
	CHECK(ei.exec_stack);
	CHECK_EQ(check_with(4, (struct tph){ PT_DYNAMIC, R | W, 0x2fc0, 0x403fc0, 0x10, 0x10, 8 }), 0);
	CHECK(!ei.has_gnu_stack);
	CHECK(!ei.exec_stack);

	CHECK_EQ(check_with(NGOOD, (struct tph){ PT_PHDR, R, 64, 0x400040, 56 * 6, 56 * 6, 8 }), 0);
	CHECK_EQ(ei.phdr_vaddr, 0x400040);
	CHECK_EQ(check_with(NGOOD, (struct tph){ PT_PHDR, R, 64, 0x401f00, 56 * 6, 56 * 6, 8 }), ELF_EPHDR);
	/* No PT_PHDR and the table not in any PT_LOAD: AT_PHDR unknown. */
	CHECK_EQ(check_with(0, (struct tph){ PT_LOAD, R, 0x1000, 0x400000, 0x10, 0x10, 0x1000 }), 0);
	CHECK_EQ(ei.phdr_vaddr, 0);
}

TEST(elf_static_pie)
{
	struct tph pie[] = {
		{ PT_PHDR, R, 64, 64, 56 * 5, 56 * 5, 8 },
		{ PT_LOAD, R, 0, 0, 0x400, 0x400, 0x1000 },
		{ PT_LOAD, R | X, 0x1000, 0x1000, 0x800, 0x800, 0x1000 },
		{ PT_LOAD, R | W, 0x1e00, 0x2e00, 0x200, 0x1400, 0x1000 },
		{ PT_GNU_STACK, R | W, 0, 0, 0, 0, 0x10 },
	};
	mkelf(3, 0x1040, pie, 5);
	CHECK_EQ(elf_check(img, sizeof img, &ei), 0);
	CHECK(ei.is_pie);
	CHECK_EQ(ei.lo, 0);
	CHECK_EQ(ei.hi, 0x5000);
	CHECK_EQ(ei.span, 0x5000);
	CHECK_EQ(ei.phdr_vaddr, 64);
	CHECK_EQ(ei.entry, 0x1040);
	/* A bias goes in later: the top still has to fit. */
	pie[3].vaddr = 0x7ffffffffe00;
	pie[3].off = 0x1e00;
	mkelf(3, 0x1040, pie, 5);
	CHECK_EQ(elf_check(img, sizeof img, &ei), ELF_ESEGADDR);
}

TEST(elf_strerror_distinct)
{
	for (int a = ELF_EORDER; a <= 0; a++)
		for (int b = a + 1; b <= 0; b++)
			if (!strcmp(elf_strerror(a), elf_strerror(b)))
				test_fail(__FILE__, __LINE__, "errors %d and %d share a message", a, b);
}

/* ------------------------------------------------ the real workloads */

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
	*size = fread(buf, 1, (size_t)n, f);
	fclose(f);
	return buf;
}

TEST(elf_workload_binaries)
{
	const char *dir = getenv("WORKLOAD_DIR");
	if (!dir) {
		printf("note: elf_workload_binaries skipped (WORKLOAD_DIR unset)\n");
		return;
	}
	static const char *const names[] = { "touch", "hello", "hogmem", "fill", "threads", "hello_musl", "touch_musl" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		size_t size;
		uint8_t *buf = slurp(path, &size);
		if (!buf) {
			test_fail(__FILE__, __LINE__, "cannot read %s", path);
			continue;
		}
		int err = elf_check(buf, size, &ei);
		if (err)
			test_fail(__FILE__, __LINE__, "%s: %s", names[i], elf_strerror(err));
		uint64_t entry;
		memcpy(&entry, buf + 24, 8);
		CHECK_EQ(ei.entry, entry);
		CHECK(!ei.is_pie);
		CHECK(ei.nload >= 2);
		CHECK_EQ(ei.phdr_vaddr, ei.lo + 64);            /* headers in the first PT_LOAD */
		CHECK(ei.has_gnu_stack);
		CHECK(!ei.exec_stack);
		CHECK(!ei.wx);
		CHECK(ei.lo >= 0x400000 && ei.hi > ei.lo);
		/* Truncated by one byte past the program headers: a clean error. */
		CHECK(elf_check(buf, 64 + 56 * (size_t)ei.phnum - 1, &ei) < 0);
		free(buf);
	}
}
