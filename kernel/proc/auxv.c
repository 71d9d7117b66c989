/*
 * Initial user stack builder.
 *
 * Works on positions inside buf (0 = lowest byte) and converts to user
 * addresses only when writing a pointer: uva(pos) = top_uva - size + pos.
 * Every step that moves pos down first checks there is room, so nothing is
 * ever written outside buf whatever the string lengths and counts.
 * Alignment is computed on user addresses, which is what user space sees.
 */
#include <stdbool.h>
#include <string.h>
#include "auxv.h"

struct sb {                     /* stack being built */
	uint8_t *buf;
	size_t pos;             /* lowest byte in use */
	uint64_t base;          /* user address of buf[0] */
};

const char *auxv_strerror(int err)
{
	switch (err) {
	case AUXV_OK: return "ok";
	case AUXV_E2BIG: return "arguments and environment do not fit on the stack";
	case AUXV_EINVAL: return "bad stack arguments";
	case AUXV_ERESERVED: return "auxv list holds an entry the stack builder places itself";
	default: return "unknown stack builder error";
	}
}

/* Move pos down by n bytes; false when that leaves the buffer. */
static bool take(struct sb *s, size_t n)
{
	if (n > s->pos)
		return false;
	s->pos -= n;
	return true;
}

static bool align16(struct sb *s)
{
	return take(s, (size_t)((s->base + s->pos) & 15));
}

static uint64_t uva(const struct sb *s, size_t pos)
{
	return s->base + pos;
}

static void put_word(struct sb *s, size_t *at, uint64_t v)
{
	memcpy(s->buf + *at, &v, 8);
	*at += 8;
}

/* Total bytes of the strings with their NULs, or SIZE_MAX on overflow. */
static size_t strings_size(const char *const *v, int n)
{
	size_t total = 0;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(v[i]) + 1;
		if (len > SIZE_MAX - total)
			return SIZE_MAX;
		total += len;
	}
	return total;
}

static int check_args(const struct auxv_args *a, size_t size, uint64_t top_uva)
{
	if (a->argc < 0 || a->envc < 0 || a->nauxv < 0 || !a->random || top_uva < size ||
	    (a->argc && !a->argv) || (a->envc && !a->envp) || (a->nauxv && !a->auxv))
		return AUXV_EINVAL;
	for (int i = 0; i < a->argc; i++)
		if (!a->argv[i])
			return AUXV_EINVAL;
	for (int i = 0; i < a->envc; i++)
		if (!a->envp[i])
			return AUXV_EINVAL;
	for (int i = 0; i < a->nauxv; i++) {
		uint64_t t = a->auxv[i].type;
		if (t == AT_NULL || t == AT_RANDOM || t == AT_EXECFN || t == AT_PLATFORM)
			return AUXV_ERESERVED;
	}
	return 0;
}

/* Copy n strings upward from *at; record each one's user address. */
static void place_strings(struct sb *s, size_t *at, const char *const *v, int n, uint64_t *uvas)
{
	for (int i = 0; i < n; i++) {
		size_t len = strlen(v[i]) + 1;
		memcpy(s->buf + *at, v[i], len);
		if (uvas)
			uvas[i] = uva(s, *at);
		*at += len;
	}
}

/* Place one string below pos; its user address in *where. */
static bool push_string(struct sb *s, const char *str, uint64_t *where)
{
	size_t len = strlen(str) + 1;
	if (!take(s, len))
		return false;
	memcpy(s->buf + s->pos, str, len);
	*where = uva(s, s->pos);
	return true;
}

/* argv, envp and execfn strings plus the end marker, at the very top. */
static bool place_top(struct sb *s, const struct auxv_args *a, uint64_t *execfn_uva)
{
	const char *const fn[1] = { a->execfn };
	size_t n = strings_size(a->argv, a->argc), e = strings_size(a->envp, a->envc);
	size_t f = a->execfn ? strlen(a->execfn) + 1 : 0;
	if (!take(s, 8) || !take(s, n) || !take(s, e) || !take(s, f))
		return false;
	memset(s->buf + s->pos + n + e + f, 0, 8);
	size_t at = s->pos;
	place_strings(s, &at, a->argv, a->argc, NULL);
	place_strings(s, &at, a->envp, a->envc, NULL);
	if (a->execfn)
		place_strings(s, &at, fn, 1, execfn_uva);
	return true;
}

/* Write argc, argv[], envp[] and auxv upward from the 16-aligned rsp. */
static void write_table(struct sb *s, const struct auxv_args *a, size_t strpos, const struct auxv_pair *extra, int nextra)
{
	size_t at = s->pos, str = strpos;
	put_word(s, &at, (uint64_t)a->argc);
	for (int i = 0; i < a->argc; i++) {
		put_word(s, &at, uva(s, str));
		str += strlen(a->argv[i]) + 1;
	}
	put_word(s, &at, 0);
	for (int i = 0; i < a->envc; i++) {
		put_word(s, &at, uva(s, str));
		str += strlen(a->envp[i]) + 1;
	}
	put_word(s, &at, 0);
	for (int i = 0; i < a->nauxv; i++) {
		put_word(s, &at, a->auxv[i].type);
		put_word(s, &at, a->auxv[i].value);
	}
	for (int i = 0; i < nextra; i++) {
		put_word(s, &at, extra[i].type);
		put_word(s, &at, extra[i].value);
	}
}

int auxv_build_stack(const struct auxv_args *a, void *buf, size_t size, uint64_t top_uva, uint64_t *rsp)
{
	int err = check_args(a, size, top_uva);
	if (err)
		return err;
	struct sb s = { buf, size, top_uva - size };
	struct auxv_pair extra[4];
	int nextra = 0;
	uint64_t where = 0;

	if (!place_top(&s, a, &where))
		return AUXV_E2BIG;
	size_t strpos = s.pos;
	if (!align16(&s))
		return AUXV_E2BIG;
	if (a->execfn)
		extra[nextra++] = (struct auxv_pair){ AT_EXECFN, where };
	if (a->platform) {
		if (!push_string(&s, a->platform, &where))
			return AUXV_E2BIG;
		extra[nextra++] = (struct auxv_pair){ AT_PLATFORM, where };
	}
	if (!take(&s, 16))
		return AUXV_E2BIG;
	memcpy(s.buf + s.pos, a->random, 16);
	extra[nextra++] = (struct auxv_pair){ AT_RANDOM, uva(&s, s.pos) };
	extra[nextra++] = (struct auxv_pair){ AT_NULL, 0 };

	uint64_t words = 1 + (uint64_t)a->argc + 1 + (uint64_t)a->envc + 1 + 2 * ((uint64_t)a->nauxv + (uint64_t)nextra);
	if (words > s.pos / 8 || !take(&s, (size_t)words * 8) || !align16(&s))
		return AUXV_E2BIG;
	write_table(&s, a, strpos, extra, nextra);
	*rsp = uva(&s, s.pos);
	return 0;
}
