#include "test.h"
#include "vm/commit_policy.h"

#define MIB 256ull      /* pages */

TEST(commit_limit_ratio_and_kbytes)
{
	struct commit_knobs k = { OVERCOMMIT_NEVER, 50, 0, 0 };
	/* 64 MiB of RAM, 32 MiB of swap: 32 + 32 MiB. */
	CHECK_EQ(commit_limit(&k, 64 * MIB, 32 * MIB), 64 * MIB);
	/* Linux's (ram * ratio / 100), rounded down, without overflow at 1 TiB
	 * of RAM and a ratio past 100. */
	CHECK_EQ(commit_limit(&k, 199, 0), 99);
	k.ratio = 1000;
	CHECK_EQ(commit_limit(&k, 1ull << 28, 5), 10ull * (1ull << 28) + 5);
	k.ratio = 0;
	CHECK_EQ(commit_limit(&k, 64 * MIB, 32 * MIB), 32 * MIB);
	/* kbytes, when set, replaces the ratio. */
	k.ratio = 50;
	k.kbytes = 10 * 1024 + 3;
	CHECK_EQ(commit_limit(&k, 64 * MIB, 32 * MIB), 42 * MIB);
}

TEST(commit_modes_judge_what_linux_judges)
{
	struct commit_knobs k = { OVERCOMMIT_GUESS, 50, 0, 0 };
	/* Heuristic: one request against RAM and swap, whatever is committed. */
	CHECK(commit_allows(&k, ~0ull / 2, 96 * MIB, 64 * MIB, 32 * MIB, 0));
	CHECK(!commit_allows(&k, 0, 96 * MIB + 1, 64 * MIB, 32 * MIB, 0));
	k.mode = OVERCOMMIT_ALWAYS;
	CHECK(commit_allows(&k, ~0ull, ~0ull, 0, 0, 0));
	/* Strict: the count (the request in it) stays below the limit. */
	k.mode = OVERCOMMIT_NEVER;
	CHECK(commit_allows(&k, 64 * MIB - 1, 10, 64 * MIB, 32 * MIB, 0));
	CHECK(!commit_allows(&k, 64 * MIB, 10, 64 * MIB, 32 * MIB, 0));
	/* A small request refused once others committed the rest. */
	CHECK(!commit_allows(&k, 70 * MIB, 1, 64 * MIB, 32 * MIB, 0));
}

TEST(commit_user_reserve_is_total_vm_over_32_capped)
{
	struct commit_knobs k = { OVERCOMMIT_NEVER, 50, 0, 1024 };    /* 256 pages at most */
	uint64_t lim = 64 * MIB;
	/* total_vm 3200 pages: 100 kept back. */
	CHECK(commit_allows(&k, lim - 101, 1, 64 * MIB, 32 * MIB, 3200));
	CHECK(!commit_allows(&k, lim - 100, 1, 64 * MIB, 32 * MIB, 3200));
	/* A huge address space: the cap, 256 pages. */
	CHECK(commit_allows(&k, lim - 257, 1, 64 * MIB, 32 * MIB, 1ull << 40));
	CHECK(!commit_allows(&k, lim - 256, 1, 64 * MIB, 32 * MIB, 1ull << 40));
	/* A reserve past the whole limit refuses everything, as Linux's
	 * negative `allowed`. */
	k.user_reserve_kbytes = 1ull << 40;
	CHECK(!commit_allows(&k, 1, 1, 0, 8, 1ull << 20));
}

TEST(commit_default_user_reserve)
{
	/* 1/32 of free memory, at most 128 MiB. */
	CHECK_EQ(commit_default_user_reserve_kbytes(16 * MIB), 512);
	CHECK_EQ(commit_default_user_reserve_kbytes(16384 * MIB), 131072);
	CHECK_EQ(commit_default_user_reserve_kbytes(0), 0);
}
