/*
 * Swap-in readahead policies: the window logic, pure (no locks, no I/O,
 * no kernel headers), unit-tested on the host with synthetic fault
 * sequences.  readahead.c keeps the state, takes the locks, turns windows
 * into swap entries and reports hits back.
 *
 * Two kinds of window:
 *   slot windows     a 2^k-aligned block of swap slots around the faulting
 *                    slot (off, fixed:N, hugh, shaohua; and vma for shmem,
 *                    as Linux does);
 *   logical windows  pages of the faulting area by virtual page or shmem
 *                    index (vma, own), whose swap entries are looked up in
 *                    the page table or the object wherever they are on disk.
 *
 *   off      the faulting page only.
 *   fixed:N  2^N slots (Linux's page-cluster and swap_cluster_readahead).
 *   hugh     one global window, 2^page_cluster at most, sized from the
 *            readahead hits since the last decision (seed 000, Linux 3.8's
 *            swapin_nr_pages): no hits and no adjacent fault -> 1 page;
 *            hits + 2 rounded up to a power of two >= 4; never below half
 *            the previous window.
 *   shaohua  per VMA (anonymous memory only): a miss counter, up on each
 *            major fault and down on each readahead hit; above 100 the
 *            area reads no readahead (Shaohua Li's 2012 detector).  shmem
 *            faults get fixed:page_cluster, as they did with his patch.
 *   vma      per VMA, a window of virtual pages around the fault (Linux
 *            4.14 swap_vma_readahead): the hugh formula on the VMA's own
 *            hits, at most 2^min(page_cluster, 5), forward after a fault on
 *            the next page, backward after one on the previous page, else
 *            centred; clipped to the VMA and its 2 MiB page-table block.
 *            "Adjacent" looks at the VMA's last five faults, not only the
 *            last (RA_VMA_HIST: interleaved streams, see ra_vma_miss).
 *            shmem faults use hugh's global window, as Linux does.
 *   own      streams in the logical space of the area (virtual pages for
 *            anonymous memory, object indices for shmem, so both behave
 *            alike): up to RA_OWN_STREAMS (32, so the 16 threads of a
 *            parallel build keep theirs) per address space or object.
 *            Two equal steps between misses (next page, previous page, or
 *            a stride up to RA_OWN_MAX_STRIDE) confirm a stream; the
 *            stream then reads a window ahead of itself, 4 strides at
 *            first, doubling to the budget (but, once RA_OWN_RUN_LEARN
 *            streams of the space ended, reaching no further than a
 *            quarter past their mean run, or half again the stream's own
 *            run so far: run_cap; while that mean fits in the budget, a
 *            new stream's first window reaches as far: first_size); the
 *            fault that uses the page halfway through its last window
 *            issues the next one, so on a steady stream the next window
 *            is in flight before the stream reaches it and takes almost
 *            no major faults, and a stream that stops reads at most about
 *            one window past its end.  A
 *            stream owns its last window and the one before it (whose
 *            second half it is using), and only accesses within
 *            RA_OWN_SLACK steps after its last one are its progress.  The
 *            stream used last is looked at first, so
 *            a fault on a stream costs no scan of the table.  A miss inside a window the stream already
 *            issued means its pages were reclaimed before use: the window
 *            halves.
 *            Misses outside streams that are denser in the space than
 *            chance (ghost windows, RA_OWN_GHOST) read a 32-slot window.
 *            Other misses outside streams read their own page only, unless the
 *            recent ones cluster (RA_OWN_CLUSTER of the last RA_OWN_HIST such misses
 *            within RA_OWN_NEAR pages: a dense working set in random
 *            order): then an aligned block of RA_OWN_BLOCK_MAX logical
 *            pages around the fault.  Later blocks double while half a
 *            block's worth of their pages gets used between two misses,
 *            stay at a quarter, halve below.  Random access over a large area has no
 *            streams and no clusters, so it costs what `off` costs.
 */
#ifndef RA_POLICY_H
#define RA_POLICY_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

enum ra_kind { RA_OFF, RA_FIXED, RA_HUGH, RA_SHAOHUA, RA_VMA, RA_OWN };

struct ra_spec {
	enum ra_kind kind;
	unsigned order;         /* fixed:N's N */
};

#define RA_MAX_ORDER 8          /* 256 pages */

/* "off", "fixed:N" (N <= RA_MAX_ORDER), "hugh", "shaohua", "vma", "own". */
bool ra_parse(const char *s, struct ra_spec *out);
/* The canonical name; buf of n >= 12 bytes. */
void ra_format(const struct ra_spec *spec, char *buf, size_t n);
/* The policy name a mistyped s most likely meant (lib/suggest.h), or
 * NULL (then RA_POLICIES lists them). */
const char *ra_suggest(const char *s);
#define RA_POLICIES "off, fixed:0..fixed:8, hugh, shaohua, vma or own"
/* What to say of a mistyped s, in parentheses after the complaint:
 * "did you mean X?" (written into buf, n >= 32) or RA_POLICIES. */
const char *ra_unknown_hint(const char *s, char *buf, size_t n);

/* ---------------------------------------------------------------- slots */

struct ra_slots {
	uint64_t start;
	uint32_t count;         /* >= 1; always holds the faulting slot */
};

/* The `pages`-aligned block (pages a power of two) holding off, clipped
 * to [1, limit): slot 0 is the area's header. */
void ra_slot_window(uint64_t off, uint32_t pages, uint64_t limit, struct ra_slots *w);

/* The hugh formula (Linux's __swapin_nr_pages): window pages for a fault
 * at `off` given the previous fault's `prev`, the readahead hits since,
 * the maximum (a power of two) and the previous window. */
uint32_t ra_nr_pages(uint64_t prev, uint64_t off, uint32_t hits, uint32_t max_pages, uint32_t prev_win);

struct ra_hugh {
	uint32_t hits;          /* readahead hits since the last decision */
	uint32_t last;          /* the last window */
	uint64_t prev;          /* the last fault's slot when it had no hits */
};

uint32_t ra_hugh_pages(struct ra_hugh *h, uint64_t off, uint32_t max_pages);
void ra_hugh_hit(struct ra_hugh *h);

#define RA_SHAOHUA_THRESHOLD 100
#define RA_SHAOHUA_MAX_MISS 1000

/* Window pages for a major fault in an area with miss counter *state. */
uint32_t ra_shaohua_miss(uint64_t *state, uint32_t max_pages);
void ra_shaohua_hit(uint64_t *state);

/* ---------------------------------------------------------------- logical */

/* Pages start + k * stride for k < count (count 0: nothing to read). */
struct ra_lwin {
	uint64_t start;
	int64_t stride;
	uint32_t count;
	bool marker;            /* own: mark the first page read as the trigger */
	bool run;               /* own: a run's next pages (a stream's window or a run start's):
				 * the window ends where its slots jump (readahead.c's add_logical) */
};

#define RA_VMA_MAX_ORDER 5
#define RA_PMD_PAGES 512

/* The vma policy.  state[0] packs the last fault's page, the last window
 * and the hits since, as Linux's vma->swap_readahead_info does; state[1]
 * the low 16 bits of the RA_VMA_HIST faults before that one.  [lo, hi)
 * are the VMA's pages.  The window always holds fpfn; w->count >= 1.
 *
 * Linux's rule reads nothing ahead until two faults in a row are on
 * neighbouring pages, and hits keep the window open after that.  On
 * interleaved streams in one VMA (touch's streams:4) Linux 6.1 got there
 * (about a third of RA=0's major faults at page-cluster 3): its eviction
 * is coarse enough that one stream's pages sometimes fault twice in a
 * row.  Ours evicts the streams' pages in the exact order they were
 * touched, so the faults interleave strictly, no two in a row are
 * neighbours, and the window never opened: the same faults as `off`.  So
 * a fault next to any of the VMA's last RA_VMA_HIST + 1 faults counts as
 * adjacent (the direction and the window as Linux's for its previous
 * fault); hits and window sizes follow Linux's formula unchanged.
 * Random faults over a large area almost never land next to one of
 * five recent ones, so random access still reads nothing ahead. */
#define RA_VMA_HIST 4
#define RA_VSTATE_WORDS 2       /* a VMA's ra_state words (vma.h) */
void ra_vma_miss(uint64_t *state, uint64_t fpfn, uint64_t lo, uint64_t hi, uint32_t max_pages,
		 struct ra_lwin *w);
/* A fault found its page in the swap cache (readahead: a readahead page). */
void ra_vma_lookup(uint64_t *state, uint64_t fpfn, bool readahead);

/* Where each was tuned: RA_OWN_STREAMS and RA_OWN_INIT on the unit
 * simulator's BUILD shape and build16.mm (a18847b: 8 streams kept a 16-thread
 * build's bursts thrashing; 8-step first windows overran short bursts);
 * the cluster rule (RA_OWN_HIST, RA_OWN_NEAR, RA_OWN_CLUSTER) and
 * RA_OWN_BLOCK_MAX on the simulator's SHIFTING working set, all on its one
 * RNG seed (435533d); test_ra_policy.c now judges them on held-out seeds. */
#define RA_OWN_STREAMS 32      /* at most 32: ra_own.smask */
#define RA_OWN_MAX_STRIDE 32
#define RA_OWN_INIT 4
#define RA_OWN_MIN 4
#define RA_OWN_SLACK 4          /* a stream's miss: at most this many steps past its last access */
#define RA_OWN_HIST 16          /* recent misses outside streams */
#define RA_OWN_NEAR 32          /* "clustered": within this many pages */
#define RA_OWN_CLUSTER 3        /* ... this many of the recent misses: a cluster */
#define RA_OWN_BLOCK_MAX 16
/* Run starts (block in ra_policy.c): once RA_OWN_START_LEARN new
 * candidates were seen and at least half of them became streams of step
 * +-1, a miss outside streams reads the next pages from it (the mean run,
 * RA_OWN_INIT..RA_OWN_BLOCK_MAX).
 * Past RA_OWN_START_DECAY candidates the counts halve.  Not tuned: the
 * first values tried.  bench ra's jumps:64 (seeds 1, 31337, 20261201):
 * 402 -> 356 major faults with ghost_note's skip of a run's first steps
 * (the skip alone: about 840, three misses a run).  With 4-page starts
 * about 1220 pages were read this way, 25 of them wasted; with starts
 * of the mean run all read-ahead wasted 1477 pages instead of 1407, of
 * about 12100. */
#define RA_OWN_START_LEARN 16
#define RA_OWN_START_DECAY 256
#define RA_OWN_RUN_LEARN 2      /* streams ended before their runs cap windows (run_cap) */
#define RA_OWN_BUCKETS 128      /* hist's and ghost's per-bucket slot masks (ring_near in ra_policy.c) */
/* Ghost windows in the logical space (issue 12: decide per miss against
 * the logical window, not the slots).  For each miss outside streams:
 * would a window of RA_OWN_GNEAR pages either side of one of the last
 * RA_OWN_GHOST such misses have held it?  Misses spread at random over
 * the space would be held with probability about
 *     min(1, recent misses * (2 * RA_OWN_GNEAR - 1) / pages of the space)
 * (the chance baseline; the space's pages: the VMA's, or the object's).
 * A working set denser than the space - one that shifts, a hot region -
 * beats chance by far; random access over the space does not, however
 * its slots lie (the slot-space ghosts of c0379cd's history saw random
 * misses as near when the swap area had been used before).  While the
 * decayed count of held misses is at least RA_OWN_GRATIO times chance's
 * plus RA_OWN_GSLACK (and at least 1/RA_OWN_GMIN of the misses), every
 * miss outside streams reads the aligned block of RA_OWN_GPAGES slots
 * around it, as fixed:5 would: pages evicted together sit together in
 * swap and come back together when the set returns.  While the misses
 * are dense, a used page read ahead outside streams counts as a miss
 * here, or a set that read-ahead serves well would stop looking dense;
 * before, it does not: such a page lies near the miss that read it by
 * construction (a block), so it would vouch for itself.  No verdict
 * before RA_OWN_GLEARN misses: a process's first misses are its own few
 * pages, close together (bench ra's random touch: 8 misses within the
 * area's first 18 pages).  Counted from its 16th miss, with that block's
 * hits, that burst made random look dense for about a dozen misses,
 * each reading 32 slots: 2 of 3 runs of test_swap_readahead_policies on
 * main went over its read-ahead bound (majflt / 5).  Used pages per page
 * read cannot tell the cases apart (bench ra seed 1, ra_hits / ra_issued: hot 0.29, random
 * 0.32, shift 0.37), since what matters is what the page read pushes out
 * (a cold page on hot, one as likely to be used on random), so only the
 * density decides.  Per miss, the recent misses in its bucket of
 * RA_OWN_GNEAR pages and the two beside it are looked at (per-bucket
 * masks of the ring's slots), no others; no memory beyond struct ra_own. */
#define RA_OWN_GHOST 32
#define RA_OWN_GNEAR 32
#define RA_OWN_GRATIO 3
#define RA_OWN_GMIN 8
#define RA_OWN_GSLACK 4         /* held misses beyond RA_OWN_GRATIO x chance: a few lucky ones are no set */
#define RA_OWN_GLEARN 64        /* misses before the rate counts (16 let the startup burst through) */
#define RA_OWN_GFORGET 256      /* past this many misses, the counts halve */
#define RA_OWN_GSCALE 1024
/* The slot window while the misses are dense: tuned on bench ra seed 1
 * (16: shift 741-755 major faults, hot 1174-1181; 32: 467 and 1146). */
#define RA_OWN_GPAGES 32

enum ra_stream_state { RA_S_FREE, RA_S_CANDIDATE, RA_S_STREAM };

struct ra_stream {
	uint64_t pos;           /* candidate: its last miss; stream: first page of its last window */
	int64_t stride;         /* candidate: 0 after one miss, else the delta seen */
	uint64_t last;          /* stream: its last access (hit or miss) */
	uint64_t origin;        /* stream: where it was confirmed (or took its stride) */
	int64_t alt;            /* stream: a step other than stride seen last time, or 0 */
	uint32_t steps;         /* stream: pages in its last window */
	uint32_t back;          /* stream: steps before pos it still owns (the window its marker left) */
	uint32_t retry;         /* stream, last window cut to nothing: hits until it is issued again */
	uint32_t size;          /* stream: pages in its next window */
	uint32_t age;
	uint8_t state;          /* enum ra_stream_state */
};

/* Candidates by 32-page bucket (RA_OWN_MAX_STRIDE), hashed: a mask of
 * s[] entries per bucket (cand_add in ra_policy.c), so a miss looks only
 * at the candidates a step can reach. */
#define RA_OWN_CBUCKETS 64

/* Fast hits (ra_own_fast_hit): a hit on a stream's next page before its
 * window's halfway changes nothing but the stream's last page, its age
 * and the use order, which can be caught up with later.  Taking the
 * space's lock and the policy for each such hit cost about 0.6 us of the
 * 1 us a stream's hit cost under own (bench ra streams:4, -icount; fixed:4
 * does nothing on a hit).  Up to RA_OWN_FAST streams, recently used,
 * whose coming pages no other stream's windows hold. */
#define RA_OWN_FAST 4
#define RA_OWN_FAST_IDLE 16     /* events without a use: a slot's stream gives it up */

struct ra_own {
	struct ra_stream s[RA_OWN_STREAMS];
	uint32_t hint;          /* the stream used last: looked at first */
	uint32_t smask;         /* bit i: s[i] is in state RA_S_STREAM (stream_of looks at these only) */
	uint32_t cand[RA_OWN_CBUCKETS];         /* bit i: s[i] is a candidate in this bucket */
	/* s[] in order of use, so a new candidate takes the least recently
	 * used entry (or a free one) without a scan: a list through
	 * newer/older, built on first use (a zeroed table is a valid start). */
	uint8_t newer[RA_OWN_STREAMS], older[RA_OWN_STREAMS];
	uint8_t lru_new, lru_old;       /* the most and the least recently used */
	bool lru_ready;
	uint32_t clock;
	uint64_t hist[RA_OWN_HIST];
	uint32_t nhist;         /* misses recorded in hist (ring; < 2 * RA_OWN_HIST) */
	uint32_t hmask[RA_OWN_BUCKETS];        /* hist's slots per bucket of RA_OWN_NEAR pages */
	uint32_t bhits;         /* hits on block readahead since the last block */
	uint32_t blast;         /* the last block window */
	uint32_t sw_read;       /* slot windows: slots in use read over (decaying) */
	uint32_t sw_used;       /* hits outside streams: slot and block windows' (ra_own_hit says why) */
	uint32_t sw_probe;      /* misses since the last probe */
	uint64_t ghost[RA_OWN_GHOST];   /* the last misses outside streams (ring) */
	uint32_t nghost;        /* misses recorded in ghost */
	uint32_t gmask[RA_OWN_BUCKETS];        /* ghost's slots per bucket of RA_OWN_GNEAR pages */
	uint32_t g_hit;         /* of g_n misses, how many a ghost window held (decaying) */
	uint32_t g_n;
	uint32_t g_chance;      /* what chance alone would have held, 1/RA_OWN_GSCALE units */
	bool g_dense;           /* the last miss found the misses denser than chance */
	uint32_t starts;        /* new candidates (decaying: RA_OWN_START_*) */
	uint32_t started;       /* streams of step +-1 confirmed (decaying with starts) */
	int32_t start_dir;      /* the sum of those steps, within +-RA_OWN_START_DECAY (decaying) */
	uint32_t run_avg;       /* steps the space's ended streams ran (decaying mean) */
	uint32_t runs;          /* streams ended, up to RA_OWN_RUN_LEARN */
	uint64_t confirmed;     /* streams confirmed (statistics) */
	uint64_t shrunk;        /* windows halved after a miss inside one */
	uint64_t cut;           /* windows cut short for want of memory (ra_own_cut) */
	/* Hits that need no decision (ra_own_fast_hit): per slot, a stream's
	 * next page, its stride and how many more steps it may take before
	 * its window's halfway, in one word (fast_word in ra_policy.c; 0:
	 * none), taken without the lock; folded into the state above at the
	 * start of every locked call, set again at its end. */
	uint64_t fast[RA_OWN_FAST];             /* [A] */
	uint64_t fast_at[RA_OWN_FAST];          /* [A] fast_n after the slot's last hit */
	uint64_t fast_n;                        /* [A] fast hits since the last fold */
	uint32_t fast_left[RA_OWN_FAST];        /* steps the slot was set with */
	uint8_t fast_stream[RA_OWN_FAST];
	uint8_t fast_had;                       /* bit i: slot i was set (fast_arm keeps it if it can) */
	uint32_t moved;         /* during a call: streams whose windows it changed (bit per s[]) */
	uint32_t used_now;      /* during a call: streams it used */
};

/* Gap filling for logical windows: a window's pages sit in slots that
 * need not be adjacent (two streams evicted together interleave theirs),
 * and each run of adjacent slots costs one request.  Given the window's
 * slot offsets in one area, sorted, the slots between runs no more than
 * RA_FILL_GAP apart, at most max of them, go to out (ascending): reading
 * them too turns the runs into one request.  Returns how many. */
#define RA_FILL_GAP 3
uint32_t ra_fill_gaps(const uint64_t *sorted, uint32_t n, uint32_t max, uint64_t *out);

/* Whether gap filling pays: the gap slots hold other pages - another
 * stream's (two streams evicted together), which that stream then uses,
 * or a random task's, which mostly go unused.  Beside Linux 4.14's mixed
 * test's random task a stream read about 650 such pages per 40000 read
 * ahead, 1.6% that were mostly reclaimed unused (a CI run's stream hit
 * rate 0.9870 under test_swap_readahead_policies' 0.99).  So filling goes
 * on while at least 1/RA_FILL_USE of the fill pages read get used (by any
 * task: interleaved streams use nearly all); below that a window fills
 * only every RA_FILL_PROBE-th time, to notice a change.  Global: a fill
 * page is used by whichever task owns it. */
#define RA_FILL_USE 2
#define RA_FILL_LEARN 64        /* until this many fill pages were read: fill */
#define RA_FILL_FORGET 1024     /* past this many read, both counts halve */
#define RA_FILL_PROBE 16
struct ra_fill {
	uint32_t read;          /* fill pages read (decaying) */
	uint32_t used;          /* fill pages a fault found (decaying) */
	uint32_t windows;       /* windows refused filling since the last probe */
};
/* How many gap slots the next stream window may fill, at most room. */
uint32_t ra_fill_room(struct ra_fill *f, uint32_t room);
/* n fill pages were read; a fill page was used. */
void ra_fill_read(struct ra_fill *f, uint32_t n);
void ra_fill_used(struct ra_fill *f);

/* A major fault at page idx of the space [lo, hi); budget: the largest
 * window.  w gets the pages to read besides idx (count 0: none); the
 * caller marks the first page it reads of w as the window's marker. */
void ra_own_miss(struct ra_own *o, uint64_t idx, uint64_t lo, uint64_t hi, uint32_t budget, struct ra_lwin *w);
/* A miss for which ra_own_miss read nothing (no stream, no cluster): how
 * many pages of the aligned slot block around its slot to read.  Pages
 * evicted together sit together in swap, so a working set that comes back
 * (one that shifts, say, or a build's threads' scattered pages) is found
 * there even when it is too sparse in the address space for streams or
 * blocks.  16 while half the slot-window pages read get used (a
 * 16-thread build uses nearly all), or while the machine's verdict says
 * half of those whose fate is known were used (ra_loose_pays, below);
 * else one page, with a two-page probe every RA_OWN_PROBE misses to
 * notice a change.  Random access over a large area uses about a third,
 * and there a page read ahead is used about as often as the page it
 * pushed out would have been: no faults saved, only I/O spent. */
#define RA_OWN_PROBE 64
/* Tuned on patterns.mm's "shift own" column (a random working set of 8 MiB
 * moving every 2000 touches round 72 MiB in 48 MiB of RAM, QEMU, nvme) and
 * on build16.mm: one large window while a third (RA_OWN_SW_USE) of the pages
 * read get used took the shifting set from 2152 to about 1430 major faults,
 * where 16/8/4-slot steps at 1/2, 3/8 and 1/3 took 1932 (commits bceed8b,
 * d9c7608); the shifting set uses about 40% of them, the build nearly all.
 * Since ghost windows (RA_OWN_GHOST) read for a set that shifts, the mark
 * is a half: random touches use about 0.32 of what these windows read
 * (bench ra seed 1), and at a third they crossed the mark now and then,
 * each crossing 16-slot windows for nothing (up to 14 of them in a
 * random touch, and the unit simulator's KNOWN FAIL of ra_own_random:
 * 884 pages for 36907 faults).  bench ra seed 1 at a half: random read
 * 58 pages ahead instead of 242, task stime 1.00x off's; hot and shift
 * unchanged within run-to-run spread (1093 and 498 major faults). */
#define RA_OWN_SW_PAGES 16      /* the window while they get used */
#define RA_OWN_SW_USE 2         /* "used": at least 1/RA_OWN_SW_USE of the pages read */
#define RA_OWN_SW_LEARN 8       /* until this many pages were read: 2-page windows */
#define RA_OWN_SW_FORGET 1024   /* past this many pages read, both counts halve */
/* loose_pays: ra_loose_pays, the machine's verdict. */
uint32_t ra_own_slot_pages(struct ra_own *o, bool loose_pays);
/* The machine's verdict on pages read ahead outside streams (slot and
 * block windows, any policy's), from the pages whose fate is known: used
 * by a fault, or reclaimed or dropped unused.  A space's own counts
 * (sw_used against sw_read) take every page read as unused until a fault
 * finds it, and a build's scattered pages are found only tens of misses
 * after they were read: build16.mm's runs read one page on most slot
 * misses while fixed:4's 16-slot blocks were used almost whole (97-99%).
 * Pages still in the cache count for neither side here.  A slot miss
 * reads RA_OWN_SW_PAGES while half the pages resolved were used.  The
 * caller keeps this in one word for the machine (every task's pages
 * alike, as Linux keeps its swap read-ahead hits) and resets it with the
 * policy.  build16.mm at none under -icount, two boots of three runs:
 * own's major faults per page swapped in 0.099 and 0.089 against 0.177
 * and 0.268 before (fixed:4 0.064-0.073); the first run after the policy
 * is set still learns (0.16, then 0.074 and 0.069).  bench ra's patterns read too few pages outside
 * streams to move. */
#define RA_LOOSE_LEARN 64       /* until this many pages were resolved: no verdict */
#define RA_LOOSE_FORGET 1024    /* past this many, both counts halve */
struct ra_loose {
	uint32_t used;          /* used by a fault (decaying) */
	uint32_t wasted;        /* reclaimed or dropped unused (decaying) */
};
void ra_loose_used(struct ra_loose *l);
void ra_loose_wasted(struct ra_loose *l);
bool ra_loose_pays(const struct ra_loose *l);
/* How many pages such a slot window really read (slots in use besides the
 * fault's: the others - free slots - cost nothing and prove nothing). */
void ra_own_slot_read(struct ra_own *o, uint32_t read);
/* A fault used a readahead page at idx (marker: it carried the marker).
 * w: the next window to read, count 0 when none.  A stream issues its
 * next window when it uses the page halfway through its last one, so
 * the next is in flight while it uses the second half.  The kernel's
 * marker (on a window's first page read) is not needed for that: on the
 * first page, the next window went out while the whole last one was
 * still ahead, and a stream that stopped read up to two windows past its
 * end for nothing (ra_sim's BUILD shape: twice the pages). */
void ra_own_hit(struct ra_own *o, uint64_t idx, bool marker, uint64_t lo, uint64_t hi, uint32_t budget,
		struct ra_lwin *w);
/* The window a stream issued from start was read only up to step steps
 * (the rest trimmed for want of free memory): the stream's window ends
 * there, so a miss past it means the stream outran what was read, not
 * that its pages were reclaimed before use (no halving).  A window cut to
 * nothing is issued again at the stream's next hit on the window before
 * it, and then every RA_OWN_RETRY hits (meanwhile kswapd may have freed memory: the
 * kernel yields to it once per trimmed window).  Without that, the
 * stream took a major fault at its first page, and often at the next too,
 * as the fault's window was cut as well (QEMU, touch 72 40000 seq shmem,
 * profile none: 12-27 windows cut to nothing per run, most of the 11-22
 * major faults left). */
#define RA_OWN_RETRY 8
void ra_own_cut(struct ra_own *o, uint64_t start, uint32_t steps);
/* A hit at idx on a page read ahead, taken without the space's lock:
 * true when it was a stream's next page that needs no decision (then it
 * is accounted for, and ra_own_hit must not be called for it); false:
 * call ra_own_hit under the lock as usual.  The outcome is the same as
 * ra_own_hit's for every such hit (test_ra_policy checks), but with
 * several threads hitting one space at once the use order of streams
 * may come out slightly different. */
bool ra_own_fast_hit(struct ra_own *o, uint64_t idx);

/* ---------------------------------------------------------------- ops */

/*
 * One ops table per policy, the only dispatch over them: readahead.c (the
 * kernel) and tests/unit's simulator both call these, so the tests judge
 * the code the kernel runs.  The caller keeps every piece of state, takes
 * the locks and turns windows into reads; the ops are pure.
 */

/* A fault as a policy sees it. */
struct ra_event {
	uint64_t slot;          /* the faulting slot */
	uint64_t slots;         /* its area's size in slots (slot 0: the header) */
	uint64_t idx;           /* logical page: virtual page, or shmem object index */
	uint64_t lo, hi;        /* the logical space [lo, hi): the VMA's pages, or the object's */
};

/* Parameters and the caller's state for one decision.  vstate and space
 * are NULL where the fault has none: vstate is the VMA's word (anonymous
 * faults only; shmem faults have none, as in Linux); space is the address
 * space's or shmem object's ops->space_size bytes, present only for a
 * fault in a VMA or object (a miss, or a hit on a readahead page). */
struct ra_ctx {
	unsigned order;         /* fixed:N's N */
	uint32_t max_pages;     /* 2^page_cluster: the bound of hugh, shaohua and vma */
	uint32_t budget;        /* own: the largest window */
	struct ra_hugh *global; /* hugh's one window (vma's for shmem) */
	uint64_t *vstate;
	void *space;
	bool loose_pays;        /* ra_loose_pays for the machine */
};

/* A miss's decision: at most one of the two is set. */
struct ra_window {
	struct ra_slots slots;  /* count <= 1: no slot readahead */
	struct ra_lwin lwin;    /* count 0: no logical readahead */
};

/* Which state a policy's calls read and write (struct ra_ctx): the
 * caller guards each kind with its own lock, so faults on different
 * address spaces share none unless the policy's state is global. */
enum ra_scope {
	RA_SCOPE_NONE,                  /* none: no lock */
	RA_SCOPE_GLOBAL,                /* global: one window for the machine */
	RA_SCOPE_SPACE,                 /* space and vstate: the address space's or object's */
	RA_SCOPE_VSTATE_OR_GLOBAL,      /* vstate when the fault has one, else global */
};

struct ra_ops {
	/* Bytes of state per address space or shmem object (0: none), and
	 * its initial value. */
	size_t space_size;
	void (*space_init)(void *space);
	/* A major fault: the window to read (the fault's page is read anyway). */
	void (*miss)(const struct ra_ctx *c, const struct ra_event *e, struct ra_window *w);
	/* A fault found its page in memory (the swap cache): readahead: read
	 * ahead and not used before; marker: it carried the marker.  w: a
	 * logical window to start reading without waiting (count 0: none). */
	void (*found)(const struct ra_ctx *c, const struct ra_event *e, bool readahead, bool marker,
		      struct ra_lwin *w);
	/* After a miss's slot window (slots.count > 1) was read: in_use is
	 * how many of its slots besides the fault's hold data (swap count >
	 * 0), whether or not they were in memory already.  NULL: not wanted. */
	void (*slot_read)(const struct ra_ctx *c, uint32_t in_use);
	/* The pages of a confirmed stream's window (lwin.marker) never make
	 * the faulting task reclaim: taken only from free memory above the
	 * low watermark, the window trimmed when there is none (the own
	 * policy, whose streams read up to 64 pages per window from hits);
	 * all but its first RA_STREAM_NEXT (readahead.h), the stream's next
	 * accesses, which a fault would reclaim for anyway.
	 * Its guesses (blocks: 16 pages at most, slot windows: RA_OWN_GPAGES) and
	 * every page of the other policies are allocated like the fault's
	 * own page, reclaiming if need be, as Linux's swap readahead does (it
	 * passes the fault's GFP_HIGHUSER_MOVABLE): trimmed, own's slot
	 * windows learnt from slots they never read, and in Linux 4.14's
	 * mixed test the random task took 14322 major faults instead of
	 * 6339. */
	bool no_reclaim;
	/* A logical window the policy chose (space: its state; start: the
	 * window's first page) was read only up to step `steps`: no memory
	 * for the rest (no_reclaim).  NULL: not wanted. */
	void (*window_cut)(void *space, uint64_t start, uint32_t steps);
	enum ra_scope scope;
	/* A hit on a readahead page at logical page idx of the space whose
	 * state this is, taken before the lock and found: true when the
	 * policy accounted for it without the lock (found must then not be
	 * called, and no window follows).  NULL: never. */
	bool (*fast_hit)(void *space, uint64_t idx);
};

const struct ra_ops *ra_ops_of(enum ra_kind kind);

#endif
