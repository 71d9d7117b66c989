/*
 * Fake of swap.c and the block layer under it: slot counts, areas with a
 * first-fit slot allocator, a "disk" that keeps one word per slot (the
 * frame's fake contents), the optional CRC, and page I/O that completes
 * only when the test (or a wait, see fake_kernel.c) lets it: requests
 * queue in submission order; a slot marked bad fails every request that
 * touches it with -EIO, as a bad sector fails its whole request.
 *
 * It checks the rules the code under test must keep: pages of a request
 * are locked; a read targets slots that hold data; a write targets slots
 * with a count; no request crosses its area's end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fake_kernel.h"
#include "mem/pmm.h"
#include "core/console.h"
#include "core/panic.h"
#include "lib/errno.h"
#include "swap/swap.h"

/* ---------------------------------------------------------------- slots */

struct slot {
	uint64_t entry;
	int count;
	bool retired, has_crc, bad_read, bad_write;
	bool fresh;             /* allocated, run not yet settled */
	uint64_t data, crc;
	int reads, writes;
};

#define SLOT_HASH (1 << 16)
static struct slot slots[SLOT_HASH];
static uint64_t nslots[FAKE_AREAS];     /* 0: no area */
static uint64_t used, retired;

static struct slot *slot_of(uint64_t entry)
{
	uint64_t h = (entry * 0x9e3779b97f4a7c15ull) >> 48;
	for (;; h = (h + 1) & (SLOT_HASH - 1)) {
		if (slots[h].entry == entry)
			return &slots[h];
		if (!slots[h].entry) {
			slots[h].entry = entry;
			return &slots[h];
		}
	}
}

void swap_dup(uint64_t entry)
{
	struct slot *s = slot_of(entry);
	if (s->count++ == 0)
		used++;
}

int swap_count(uint64_t entry) { return slot_of(entry)->count; }

bool swap_dup_if_data(uint64_t entry)
{
	if (!swap_holds_data(entry))
		return false;
	swap_dup(entry);
	return true;
}

void swap_free(uint64_t entry)
{
	struct slot *s = slot_of(entry);
	if (--s->count < 0)
		panic("swap_free: count of 0x%lx went negative", entry);
	if (!s->count)
		used--;
}

void swap_retire(uint64_t entry)
{
	struct slot *s = slot_of(entry);
	if (!s->retired)
		retired++;
	s->retired = true;
}

bool fake_swap_retired(uint64_t entry) { return slot_of(entry)->retired; }
uint64_t fake_swap_used(void) { return used; }
int fake_swap_reads(uint64_t entry) { return slot_of(entry)->reads; }
int fake_swap_writes(uint64_t entry) { return slot_of(entry)->writes; }
uint64_t fake_swap_data(uint64_t entry) { return slot_of(entry)->data; }
void fake_swap_corrupt(uint64_t entry) { slot_of(entry)->data ^= 1; }

void fake_swap_add_area(unsigned area, uint64_t n) { nslots[area] = n; }

void fake_swap_store(uint64_t entry, uint64_t data)
{
	swap_dup(entry);
	slot_of(entry)->data = data;
}

void fake_swap_bad(uint64_t entry, bool reads, bool writes)
{
	slot_of(entry)->bad_read = reads;
	slot_of(entry)->bad_write = writes;
}

bool swap_enabled(void)
{
	for (int a = 0; a < FAKE_AREAS; a++)
		if (nslots[a])
			return true;
	return false;
}

uint64_t swap_area_slots(unsigned area) { return area < FAKE_AREAS ? nslots[area] : 0; }

uint64_t swap_total_slots(void)
{
	uint64_t n = 0;
	for (int a = 0; a < FAKE_AREAS; a++)
		n += nslots[a] ? nslots[a] - 1 : 0;
	return n;
}

uint64_t swap_used_slots(void) { return used + retired; }

void swap_slot_counts(uint64_t *total, uint64_t *u)
{
	*total = swap_total_slots();
	*u = swap_used_slots();
}

/* First fit over the areas in order: runs of consecutive free slots. */
int swap_alloc(int want, struct swap_run *runs, int maxruns)
{
	int nr = 0;
	for (unsigned a = 0; a < FAKE_AREAS && want; a++)
		for (uint64_t off = 1; off < nslots[a] && want; off++) {
			struct slot *s = slot_of(swp_entry(a, off));
			if (s->count || s->retired)
				continue;
			bool extend = nr && runs[nr - 1].area == a && runs[nr - 1].off + runs[nr - 1].count == off;
			if (!extend) {
				if (nr == maxruns)
					return nr;
				runs[nr++] = (struct swap_run){ .area = a, .count = 0, .off = off };
			}
			runs[nr - 1].count++;
			swap_dup(s->entry);
			s->fresh = true;
			want--;
		}
	return nr;
}

void swap_settle(uint64_t entry) { slot_of(entry)->fresh = false; }

bool swap_holds_data(uint64_t entry)
{
	struct slot *s = slot_of(entry);
	return s->count > 0 && !s->fresh;
}

/* ---------------------------------------------------------------- CRC */

void swap_crc_store(uint64_t entry, const struct page *p)
{
	if (!fake.crc_on)
		return;
	struct slot *s = slot_of(entry);
	s->crc = *fake_page_data((struct page *)p);
	s->has_crc = true;
}

bool swap_crc_check(uint64_t entry, const struct page *p)
{
	struct slot *s = slot_of(entry);
	if (!fake.crc_on || !s->has_crc || s->crc == *fake_page_data((struct page *)p))
		return true;
	vmstat_inc(SWAP_CRC_MISMATCH);
	kprintf("swap: %s slot %lu: checksum mismatch\n", swap_dev_name(swp_area(entry)), swp_offset(entry));
	return false;
}

/* ---------------------------------------------------------------- I/O */

struct req {
	bool write;
	unsigned area;
	uint64_t off;
	uint32_t n;
	struct page *pages[FAKE_RUN_MAX];
	struct swap_io *io;
};

static struct req q[FAKE_IO_MAX];
static long q_head, q_tail;             /* ring: [head, tail) in flight */

#define LOG_MAX 4096
struct logged {
	bool write;
	unsigned area;
	uint64_t off;
	uint32_t n;
};
static struct logged io_log[LOG_MAX];
static long nlog;

const char *swap_dev_name(unsigned area)
{
	static const char *names[FAKE_AREAS] = { "fakeswap0", "fakeswap1", "fakeswap2", "fakeswap3" };
	return area < FAKE_AREAS ? names[area] : "fakeswap?";
}

uint32_t swap_max_run(unsigned area) { (void)area; return fake.max_run; }
uint32_t swap_read_max(unsigned area) { (void)area; return fake.read_max ? fake.read_max : fake.max_run; }

void swap_plug(unsigned area)
{
	fake.plugs++;
	fake.plugged[area] = true;
}

void swap_unplug(unsigned area)
{
	if (!fake.plugged[area])
		panic("swap_unplug(%u) without swap_plug", area);
	fake.unplugs++;
	fake.plugged[area] = false;
}

static int submit(bool write, unsigned area, uint64_t off, struct page **pages, uint32_t n, struct swap_io *io)
{
	if (area >= FAKE_AREAS || !nslots[area] || off < 1 || off + n > nslots[area] || n == 0 || n > fake.max_run || n > FAKE_RUN_MAX)
		panic("fake swap: %s of %u slots at %lu on area %u (of %lu slots, max run %u)", write ? "write" : "read",
		      n, off, area, area < FAKE_AREAS ? nslots[area] : 0, fake.max_run);
	if (write && fake.tlb_unflushed)
		fake.tlb_writes_unflushed++;
	for (uint32_t i = 0; i < n; i++) {
		struct slot *s = slot_of(swp_entry(area, off + i));
		if (!page_test(pages[i], PG_LOCKED) || s->count <= 0)
			panic("fake swap: %s of slot %lu: page %s, slot count %d", write ? "write" : "read", off + i,
			      page_test(pages[i], PG_LOCKED) ? "locked" : "NOT LOCKED", s->count);
	}
	if (fake.fail_submit && --fake.fail_submit == 0)
		return -EIO;
	if (q_tail - q_head == FAKE_IO_MAX)
		panic("fake swap: more than %d requests in flight", FAKE_IO_MAX);
	struct req *r = &q[q_tail++ % FAKE_IO_MAX];
	*r = (struct req){ .write = write, .area = area, .off = off, .n = n, .io = io };
	memcpy(r->pages, pages, n * sizeof *pages);
	if (nlog < LOG_MAX)
		io_log[nlog++] = (struct logged){ write, area, off, n };
	for (uint32_t i = 0; i < n; i++) {
		struct slot *s = slot_of(swp_entry(area, off + i));
		if (write)
			s->writes++;
		else
			s->reads++;
	}
	if (write) {
		fake.write_reqs++;
		fake.write_pages += n;
	} else {
		fake.read_reqs++;
		fake.read_pages += n;
	}
	return 0;
}

int swap_read_run(unsigned area, uint64_t off, struct page **pages, uint32_t n, struct swap_io *io)
{
	return submit(false, area, off, pages, n, io);
}

int swap_write_run(unsigned area, uint64_t off, struct page **pages, uint32_t n, struct swap_io *io)
{
	return submit(true, area, off, pages, n, io);
}

bool fake_io_complete_one(void)
{
	if (q_head == q_tail)
		return false;
	struct req r = q[q_head++ % FAKE_IO_MAX];
	int status = 0;
	for (uint32_t i = 0; i < r.n; i++) {
		struct slot *s = slot_of(swp_entry(r.area, r.off + i));
		if (r.write ? s->bad_write : s->bad_read)
			status = -EIO;
	}
	for (uint32_t i = 0; i < r.n && !status; i++) {
		struct slot *s = slot_of(swp_entry(r.area, r.off + i));
		if (r.write)
			s->data = *fake_page_data(r.pages[i]);
		else
			*fake_page_data(r.pages[i]) = s->data;
	}
	r.io->status = status;
	r.io->done(r.io);
	return true;
}

long fake_io_complete_all(void)
{
	long n = 0;
	while (fake_io_complete_one())
		n++;
	return n;
}

long fake_io_in_flight(void) { return q_tail - q_head; }

bool fake_io_req(long n, bool write, unsigned *area, uint64_t *off, uint32_t *pages)
{
	for (long i = 0; i < nlog; i++) {
		if (io_log[i].write != write || n--)
			continue;
		*area = io_log[i].area;
		*off = io_log[i].off;
		*pages = io_log[i].n;
		return true;
	}
	return false;
}

void fake_swap_reset(void)
{
	memset(slots, 0, sizeof slots);
	memset(nslots, 0, sizeof nslots);
	used = retired = 0;
	q_head = q_tail = 0;
	nlog = 0;
}
