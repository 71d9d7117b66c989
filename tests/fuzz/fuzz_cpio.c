/* libFuzzer target: the newc cpio reader (the PVH boot's initrd) on
 * arbitrary bytes.  Checks: every entry handed out lies inside the buffer
 * (name NUL-terminated there, data within it), entries come in increasing
 * offsets, and the walk ends. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "lib/cpio.h"

struct ctx {
	const uint8_t *buf;
	size_t len;
	uint64_t last;
	int n;
};

static bool check(void *p, const struct cpio_entry *e)
{
	struct ctx *c = p;
	const uint8_t *name = (const uint8_t *)e->name;
	if (name < c->buf || name >= c->buf + c->len)
		__builtin_trap();
	if (!memchr(name, 0, (size_t)(c->buf + c->len - name)))
		__builtin_trap();
	if (e->data < c->buf || e->size > (uint64_t)(c->buf + c->len - e->data))
		__builtin_trap();
	if (c->n++ && e->offset <= c->last)
		__builtin_trap();
	c->last = e->offset;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c = { data, size, 0, 0 };
	uint64_t off;
	enum cpio_error err = cpio_walk(data, size, check, &c, &off);
	if (err != CPIO_OK && off > size)
		__builtin_trap();
	return 0;
}
