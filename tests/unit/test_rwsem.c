/* The rwsem's state word (kernel/core/rwsem_word.h): readers share,
 * a writer excludes everyone, a waiting writer keeps new readers out
 * and the last reader out wakes it. */
#include "test.h"
#include "core/rwsem_word.h"

TEST(rwsem_word_readers_share)
{
	uint64_t c = 0, n;
	for (int i = 0; i < 3; i++) {
		CHECK(rwsem_word_read(c, &n));
		CHECK_EQ(n, c + 1);
		c = n;
	}
	CHECK_EQ(c & RWSEM_READERS, 3);
	CHECK(!rwsem_word_write(c, false, &n));         /* readers in: no writer */
	CHECK(!rwsem_word_wake_after_read(c - 1));       /* nobody waits */
	CHECK(!rwsem_word_read(RWSEM_READERS, &n));     /* the count is full */
}

TEST(rwsem_word_writer_excludes)
{
	uint64_t c = 0, n;
	CHECK(rwsem_word_write(c, false, &n));
	CHECK_EQ(n, RWSEM_WRITER);
	c = n;
	CHECK(!rwsem_word_read(c, &n));
	CHECK(!rwsem_word_write(c, false, &n));
	CHECK(!rwsem_word_write(c + RWSEM_WWAIT, true, &n));
}

TEST(rwsem_word_waiting_writer_goes_first)
{
	/* Two readers in, then a writer waits: no new reader gets in. */
	uint64_t c = 2 + RWSEM_WWAIT, n;
	CHECK(!rwsem_word_read(c, &n));
	CHECK(!rwsem_word_write(c, true, &n));
	c -= 1;                                         /* one reader leaves */
	CHECK(!rwsem_word_wake_after_read(c));
	c -= 1;                                         /* the last one */
	CHECK(rwsem_word_wake_after_read(c));
	CHECK(!rwsem_word_read(c, &n));                 /* still waiting: readers stay out */
	CHECK(rwsem_word_write(c, true, &n));
	CHECK_EQ(n, RWSEM_WRITER);                      /* in, and no longer waiting */
	/* A second waiting writer keeps its place and keeps readers out. */
	c = 1 + 2 * RWSEM_WWAIT - 1;
	CHECK(rwsem_word_write(c, true, &n));
	CHECK_EQ(n, RWSEM_WRITER + RWSEM_WWAIT);
	CHECK(!rwsem_word_read(n - RWSEM_WRITER, &n));
}
