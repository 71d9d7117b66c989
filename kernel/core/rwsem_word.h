/*
 * The state word of a reader/writer sleeping lock (struct rwsem, wait.h)
 * and its transitions as pure functions: wait.c applies them with
 * compare-and-swap, tests/unit/test_rwsem.c checks them on the host.
 *
 *   bits 0..31   readers holding it
 *   bit 32       a writer holds it
 *   bits 33..63  writers waiting (each keeps new readers out)
 */
#ifndef RWSEM_WORD_H
#define RWSEM_WORD_H

#include <stdint.h>
#include <stdbool.h>

#define RWSEM_READERS 0xffffffffull
#define RWSEM_WRITER (1ull << 32)
#define RWSEM_WWAIT (1ull << 33)        /* one waiting writer */
#define RWSEM_WAITING (~(RWSEM_READERS | RWSEM_WRITER))

/* A reader gets in while no writer holds or waits (writer preference)
 * and the count has room: *next is the word with it in. */
static inline bool rwsem_word_read(uint64_t c, uint64_t *next)
{
	if ((c & (RWSEM_WRITER | RWSEM_WAITING)) || (c & RWSEM_READERS) == RWSEM_READERS)
		return false;
	*next = c + 1;
	return true;
}

/* A writer gets in when nobody holds it; `waiting`: it was counted
 * among the waiting writers, and stops being one. */
static inline bool rwsem_word_write(uint64_t c, bool waiting, uint64_t *next)
{
	if (c & (RWSEM_READERS | RWSEM_WRITER))
		return false;
	*next = c + RWSEM_WRITER - (waiting ? RWSEM_WWAIT : 0);
	return true;
}

/* c is the word just after a reader left: the sleepers must be woken
 * (the last reader out, with a writer waiting). */
static inline bool rwsem_word_wake_after_read(uint64_t c)
{
	return !(c & RWSEM_READERS) && (c & RWSEM_WAITING);
}

#endif
