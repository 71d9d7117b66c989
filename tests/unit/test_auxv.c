/*
 * Initial-stack builder tests: build a stack, then read it back the way a
 * libc _start does (argc at rsp, argv and envp pointer arrays, auxv pairs
 * up to AT_NULL), translating user addresses back into the buffer.
 */
#include <stdlib.h>
#include "test.h"
#include "proc/auxv.h"

#define TOP 0x00007ffffffff000ull

struct stk {
	uint8_t *buf;
	size_t size;
	uint64_t top;
};

/* The buffer byte at user address va, or NULL when va is outside it. */
static const uint8_t *at(const struct stk *s, uint64_t va, size_t len)
{
	uint64_t base = s->top - s->size;
	if (va < base || va > s->top || len > s->top - va)
		return NULL;
	return s->buf + (va - base);
}

static uint64_t word(const struct stk *s, uint64_t va)
{
	const uint8_t *p = at(s, va, 8);
	uint64_t v = 0;
	if (p)
		memcpy(&v, p, 8);
	else
		test_fail(__FILE__, __LINE__, "word at 0x%llx outside the stack", (unsigned long long)va);
	return v;
}

/* A string at va, checked to lie (with its NUL) inside the stack. */
static const char *str(const struct stk *s, uint64_t va)
{
	const uint8_t *p = at(s, va, 1);
	if (!p)
		return NULL;
	size_t room = (size_t)(s->top - va);
	return memchr(p, 0, room) ? (const char *)p : NULL;
}

static const uint8_t rnd[16] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

struct walked {
	int argc, envc, nauxv;
	const char *argv[16], *envp[16];
	struct auxv_pair auxv[32];
};

/* Walk the stack from rsp exactly as _start would. */
static void walk(const struct stk *s, uint64_t rsp, struct walked *w)
{
	memset(w, 0, sizeof *w);
	uint64_t p = rsp;
	w->argc = (int)word(s, p);
	p += 8;
	for (int i = 0; i < w->argc && i < 16; i++, p += 8)
		w->argv[i] = str(s, word(s, p));
	p = rsp + 8 + 8 * (uint64_t)w->argc;
	CHECK_EQ(word(s, p), 0);                        /* argv[argc] == NULL */
	p += 8;
	while (word(s, p) && w->envc < 16)
		w->envp[w->envc++] = str(s, word(s, p)), p += 8;
	CHECK_EQ(word(s, p), 0);
	p += 8;
	for (;;) {
		uint64_t t = word(s, p), v = word(s, p + 8);
		p += 16;
		if (w->nauxv < 32)
			w->auxv[w->nauxv++] = (struct auxv_pair){ t, v };
		if (t == AT_NULL || w->nauxv == 32)
			break;
	}
}

static uint64_t auxval(const struct walked *w, uint64_t type)
{
	for (int i = 0; i < w->nauxv; i++)
		if (w->auxv[i].type == type)
			return w->auxv[i].value;
	return 0;
}

TEST(auxv_stack_walks_like_libc)
{
	static uint8_t buf[8192];
	struct stk s = { buf, sizeof buf, TOP };
	const char *argv[] = { "/bin/touch", "-n", "1000", "" };
	const char *envp[] = { "HOME=/", "TERM=linux" };
	struct auxv_pair aux[] = { { AT_PAGESZ, 4096 }, { AT_PHDR, 0x400040 }, { AT_PHNUM, 5 }, { AT_ENTRY, 0x401000 } };
	struct auxv_args a = { 4, argv, 2, envp, aux, 4, rnd, "x86_64", "/bin/touch" };
	uint64_t rsp = 0;
	memset(buf, 0xcc, sizeof buf);
	CHECK_EQ(auxv_build_stack(&a, buf, sizeof buf, TOP, &rsp), 0);
	CHECK_EQ(rsp % 16, 0);
	CHECK(rsp >= TOP - sizeof buf && rsp < TOP);

	struct walked w;
	walk(&s, rsp, &w);
	CHECK_EQ(w.argc, 4);
	CHECK_STR(w.argv[0], "/bin/touch");
	CHECK_STR(w.argv[2], "1000");
	CHECK_STR(w.argv[3], "");
	CHECK_EQ(w.envc, 2);
	CHECK_STR(w.envp[0], "HOME=/");
	CHECK_STR(w.envp[1], "TERM=linux");
	CHECK_EQ(w.nauxv, 8);                           /* 4 given + RANDOM, EXECFN, PLATFORM, NULL */
	CHECK_EQ(w.auxv[0].type, AT_PAGESZ);
	CHECK_EQ(w.auxv[0].value, 4096);
	CHECK_EQ(auxval(&w, AT_PHDR), 0x400040);
	CHECK_EQ(auxval(&w, AT_ENTRY), 0x401000);
	CHECK_EQ(w.auxv[w.nauxv - 1].type, AT_NULL);
	CHECK_EQ(w.auxv[w.nauxv - 1].value, 0);
	const uint8_t *r = at(&s, auxval(&w, AT_RANDOM), 16);
	CHECK(r && !memcmp(r, rnd, 16));
	CHECK_STR(str(&s, auxval(&w, AT_PLATFORM)), "x86_64");
	CHECK_STR(str(&s, auxval(&w, AT_EXECFN)), "/bin/touch");

	/* Linux's order at the top: argv strings lowest, then envp, execfn, 8 zero bytes. */
	uint64_t a0 = word(&s, rsp + 8), e0 = word(&s, rsp + 8 * 6);
	CHECK(a0 < e0);
	CHECK(e0 < auxval(&w, AT_EXECFN));
	CHECK_EQ(auxval(&w, AT_EXECFN) + sizeof "/bin/touch", TOP - 8);
	CHECK_EQ(word(&s, TOP - 8), 0);
	/* Random bytes and platform sit between the strings and the tables. */
	CHECK(auxval(&w, AT_RANDOM) < auxval(&w, AT_PLATFORM));
	CHECK(auxval(&w, AT_PLATFORM) < a0);
	/* Nothing below rsp was touched. */
	for (uint64_t va = TOP - sizeof buf; va < rsp; va++)
		if (*at(&s, va, 1) != 0xcc) {
			test_fail(__FILE__, __LINE__, "byte below rsp written at 0x%llx", (unsigned long long)va);
			break;
		}
}

TEST(auxv_alignment_for_every_shape)
{
	static uint8_t buf[4096];
	struct stk s = { buf, sizeof buf, TOP };
	static const char *const words[] = { "a", "bb", "ccc", "dddd", "eeeee", "ffffff", "g", "hh" };
	struct auxv_pair aux[] = { { AT_PAGESZ, 4096 }, { AT_UID, 0 }, { AT_GID, 0 } };
	for (int argc = 0; argc <= 8; argc++)
		for (int envc = 0; envc <= 3; envc++)
			for (int nauxv = 0; nauxv <= 3; nauxv++)
				for (int plat = 0; plat < 2; plat++) {
					struct auxv_args a = { argc, words, envc, words + 5, aux, nauxv, rnd,
							       plat ? "x86_64" : NULL, plat ? NULL : "/x" };
					uint64_t rsp;
					CHECK_EQ(auxv_build_stack(&a, buf, sizeof buf, TOP - 8 * (uint64_t)argc, &rsp), 0);
					CHECK_EQ(rsp % 16, 0);
					s.top = TOP - 8 * (uint64_t)argc;
					struct walked w;
					walk(&s, rsp, &w);
					CHECK_EQ(w.argc, argc);
					CHECK_EQ(w.envc, envc);
					CHECK_EQ(w.nauxv, nauxv + 2 + 1);
					if (argc)
						CHECK_STR(w.argv[argc - 1], words[argc - 1]);
					CHECK_EQ(auxval(&w, AT_PLATFORM) != 0, plat);
					CHECK_EQ(auxval(&w, AT_EXECFN) != 0, !plat);
				}
}

TEST(auxv_too_small)
{
	static uint8_t buf[512];
	const char *argv[] = { "prog" };
	struct auxv_args a = { 1, argv, 0, NULL, NULL, 0, rnd, "x86_64", "prog" };
	uint64_t rsp = 0;
	/* Find the smallest size that fits; everything below must fail cleanly. */
	size_t need = 0;
	for (size_t n = 0; n <= sizeof buf; n++) {
		uint8_t *b = malloc(n ? n : 1);             /* exact size: ASan sees overruns */
		int err = auxv_build_stack(&a, b, n, TOP, &rsp);
		free(b);
		if (!err) {
			need = n;
			break;
		}
		CHECK_EQ(err, AUXV_E2BIG);
	}
	CHECK(need > 0);
	CHECK_EQ(auxv_build_stack(&a, buf, need, TOP, &rsp), 0);
	CHECK_EQ(rsp, TOP - need);                      /* the minimum leaves no slack */
	const char *big[200];
	for (int i = 0; i < 200; i++)
		big[i] = "0123456789";
	struct auxv_args b = { 200, big, 0, NULL, NULL, 0, rnd, NULL, NULL };
	CHECK_EQ(auxv_build_stack(&b, buf, sizeof buf, TOP, &rsp), AUXV_E2BIG);
	CHECK_CONTAINS(auxv_strerror(AUXV_E2BIG), "do not fit");
}

TEST(auxv_bad_arguments)
{
	static uint8_t buf[1024];
	uint64_t rsp;
	const char *argv[] = { "prog", NULL };
	struct auxv_pair dup[] = { { AT_RANDOM, 1 } }, nul[] = { { AT_NULL, 0 } };
	struct auxv_args a = { 2, argv, 0, NULL, NULL, 0, rnd, NULL, NULL };
	CHECK_EQ(auxv_build_stack(&a, buf, sizeof buf, TOP, &rsp), AUXV_EINVAL);
	a.argc = -1;
	CHECK_EQ(auxv_build_stack(&a, buf, sizeof buf, TOP, &rsp), AUXV_EINVAL);
	a.argc = 1;
	a.random = NULL;
	CHECK_EQ(auxv_build_stack(&a, buf, sizeof buf, TOP, &rsp), AUXV_EINVAL);
	a.random = rnd;
	CHECK_EQ(auxv_build_stack(&a, buf, sizeof buf, 512, &rsp), AUXV_EINVAL);
	a.auxv = dup;
	a.nauxv = 1;
	CHECK_EQ(auxv_build_stack(&a, buf, sizeof buf, TOP, &rsp), AUXV_ERESERVED);
	a.auxv = nul;
	CHECK_EQ(auxv_build_stack(&a, buf, sizeof buf, TOP, &rsp), AUXV_ERESERVED);
	a.nauxv = 0;
	CHECK_EQ(auxv_build_stack(&a, buf, sizeof buf, TOP, &rsp), 0);
	/* An unaligned top still gives an aligned rsp. */
	CHECK_EQ(auxv_build_stack(&a, buf, sizeof buf, TOP - 3, &rsp), 0);
	CHECK_EQ(rsp % 16, 0);
}
