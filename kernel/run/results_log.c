/*
 * The results file's layout (see results_log.h).  Pure: built into the
 * kernel and into the host tests, which replay writes into a fake disk.
 *
 * Invariants: off never exceeds file_bytes - RLOG_TRAILER_MAX (the
 * trailer always fits after the records); a write covers
 * [off - head, roundup(off + taken + trailer)) and never passes
 * file_bytes; stage[0..head) equals the file's bytes [off - head, off).
 */
#include <string.h>
#include "results_log.h"
#include "lib/json.h"

static size_t trailer(const struct rlog *l, char *at, uint64_t valid, bool final)
{
	struct json j;
	json_init(&j, at, RLOG_TRAILER_MAX - 1);
	json_obj_begin(&j, NULL);
	json_str(&j, "type", "results_file");
	json_str(&j, "file", l->name);
	json_u64(&j, "valid_bytes", valid);
	json_u64(&j, "file_bytes", l->file_bytes);
	json_u64(&j, "lost_records", l->lost);
	json_bool(&j, "final", final);
	json_obj_end(&j);
	if (j.overflow)
		return 0;       /* a name too long for the trailer: none (callers' names are short) */
	at[j.len] = '\n';
	return j.len + 1;
}

int rlog_prepare(struct rlog *l, rlog_take_fn take, void *ctx, bool final, struct rlog_write *w)
{
	uint64_t base = l->off - l->head;
	uint64_t room = l->file_bytes - base;
	size_t cap = room < l->stage_cap ? (size_t)room : l->stage_cap;
	w->base = base;
	w->len = 0;
	w->taken = 0;
	w->more = true;
	if (cap < l->head + RLOG_TRAILER_MAX)
		return RLOG_FULL;
	size_t n = take(ctx, l->stage + l->head, cap - l->head - RLOG_TRAILER_MAX, &w->more);
	if (w->more && !n)
		return RLOG_FULL;
	size_t end = l->head + n;
	end += trailer(l, l->stage + end, l->off + n, final && !w->more);
	size_t len = (end + l->bs - 1) / l->bs * l->bs;
	memset(l->stage + end, '\n', len - end);
	w->len = len;
	w->taken = n;
	return 0;
}

void rlog_commit(struct rlog *l, const struct rlog_write *w)
{
	size_t end = l->head + w->taken;
	size_t keep = end % l->bs;
	memmove(l->stage, l->stage + end - keep, keep);
	l->off += w->taken;
	l->head = keep;
}

uint64_t rlog_map(const struct boot_extent *runs, int nruns, uint32_t bs, uint64_t off, uint64_t *run_left)
{
	uint64_t blk = off / bs;
	for (int i = 0; i < nruns; i++) {
		if (blk < runs[i].blocks) {
			*run_left = (runs[i].blocks - blk) * bs - off % bs;
			return runs[i].lba + blk;
		}
		blk -= runs[i].blocks;
	}
	*run_left = 0;
	return 0;
}
