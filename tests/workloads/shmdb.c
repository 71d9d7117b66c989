/*
 * shmdb.c - seed 003's shmem-backed database: a table of rows in shared
 * memory, random transactions, transactions/s per second.
 *
 *   shmdb SIZE_MIB|P% SECONDS [ROWS [TPS]]
 *
 * The table is MAP_SHARED|MAP_ANONYMOUS, which is shmem both on Linux and
 * on our kernel (vm/shmem.c), so under pressure it goes to swap, as the
 * customer's database in Michal Hocko's 2012 mail did ("shmem backed
 * database (80% of RAM)"). SIZE may be a share of RAM, `80%`, read from
 * sysinfo(2) (1%..1000%: above 100% forces swapping). ROWS defaults to one
 * row per KiB (also when given as 0); a row is SIZE/ROWS bytes rounded down
 * to 8, at least 64.
 *
 * TPS (default 0: as fast as the CPU goes) caps the transaction rate: after
 * each batch shmdb sleeps off any lead over TPS transactions a second since
 * the run began, as stream paces its bytes.  A CPU-bound run touches every
 * page of the table several times a second, so each page is referenced
 * again long before reclaim looks at it twice; a capped one makes the
 * pages used more rarely than the LRU lists turn over, the case where
 * reclaim's used-once verdict on a shmem page decides whether it stays
 * (seed 003).  The record says the cap (tps_limit) and the sleeps.
 *
 * Each row is [id, version, balance, checksum, payload] (wlio.h). A
 * transaction reads two random rows and transfers part of one's balance to
 * another random row: four rows read and their checksums verified, two
 * rewritten whole. Afterwards every row is verified once more and the
 * balances must still add up. Transactions are counted per second of
 * guest time (a series on stderr and, for the first SHMDB_SERIES seconds,
 * in the record) and in total.
 *
 * Once a second the LRU list sizes are read from /proc/vmstat (Linux's
 * nr_inactive_anon, nr_active_anon, nr_inactive_file, nr_active_file;
 * shmem is on the anon lists on both kernels), and the record gives their
 * averages over the run, in pages: the seed's "average size of the LRU
 * lists", measured the same way on Linux and on ours. Without a readable
 * /proc/vmstat, one line says so and lru_samples is 0.
 *
 * Exit status: 0 clean, 1 a row failed its check or the balances moved,
 * 2 bad arguments, 3 a system call failed (mmap, sysinfo for P%).
 */
#include "rt/rt.h"
#include "wlio.h"

#define SHMDB_USAGE "shmdb SIZE_MIB|P% SECONDS [ROWS [TPS]]"
#define SHMDB_MAX_MIB (1ULL << 24)
#define SHMDB_MAX_PCT 1000
#define SHMDB_MAX_SECONDS 86400ULL
#define SHMDB_MAX_TPS 1000000000ULL
#define SHMDB_DEFAULT_ROW 1024ULL
#define SHMDB_BALANCE 1000ULL		/* every row's starting balance */
#define SHMDB_BATCH 8			/* transactions per clock read */
#define SHMDB_SERIES 48			/* seconds in the record (line < 1 KiB) */
#define SHMDB_REPORT_MAX 5
#define SHMDB_PROC_MAX 16384		/* /proc/vmstat is ~6 KiB on Linux 6.1 */

static const char *const shmdb_lru_names[] = {
	"nr_inactive_anon", "nr_active_anon", "nr_inactive_file", "nr_active_file",
};
#define SHMDB_NLRU 4

struct shmdb {
	uint64_t *table;
	uint64_t rows;
	uint64_t row_words;
	uint64_t mismatches;
	uint64_t transactions;
	uint64_t *per_second;		/* SECONDS + 1 buckets */
	struct rt_rng rng;
	int vmstat_fd;			/* /proc/vmstat, or < 0 */
	char *proc_text;		/* SHMDB_PROC_MAX bytes */
	uint64_t lru_samples;
	uint64_t lru_sum[SHMDB_NLRU];
	uint64_t tps_limit;		/* 0: none */
	uint64_t sleeps, sleep_ns;
};

/* Adds the LRU sizes now to the sums; on a failure, says so once and
 * samples no more. */
static void shmdb_sample_lru(struct shmdb *d)
{
	uint64_t v[SHMDB_NLRU];
	long len = 0;

	if (d->vmstat_fd < 0)
		return;
	for (;;) {
		long n = rt_syscall4(WLIO_SYS_pread64, d->vmstat_fd, (long)(d->proc_text + len),
				     SHMDB_PROC_MAX - 1 - len, len);
		if (n <= 0 || len + n >= SHMDB_PROC_MAX - 1) {
			len += n > 0 ? n : 0;
			if (n < 0) {
				rt_dprintf(2, "shmdb: pread64(/proc/vmstat) failed: %s (%ld); no LRU averages\n",
					   wlio_errno_name(n), -n);
				d->vmstat_fd = -1;
				return;
			}
			break;
		}
		len += n;
	}
	d->proc_text[len] = '\0';
	for (int i = 0; i < SHMDB_NLRU; i++)
		if (!wlio_proc_field(d->proc_text, shmdb_lru_names[i], ' ', &v[i])) {
			rt_dprintf(2, "shmdb: /proc/vmstat has no %s; no LRU averages\n", shmdb_lru_names[i]);
			d->vmstat_fd = -1;
			return;
		}
	for (int i = 0; i < SHMDB_NLRU; i++)
		d->lru_sum[i] += v[i];
	d->lru_samples++;
}

static uint64_t *shmdb_row(struct shmdb *d, uint64_t id)
{
	return d->table + id * d->row_words;
}

static void shmdb_mismatch(struct shmdb *d, uint64_t id, enum wlio_row_verdict v)
{
	if (d->mismatches++ >= SHMDB_REPORT_MAX)
		return;
	const uint64_t *r = shmdb_row(d, id);
	rt_dprintf(2, "shmdb: MISMATCH row %llu: %s (id word %llu, version %llu)\n",
		   (unsigned long long)id, v == WLIO_ROW_BAD_ID ? "wrong id" : "bad checksum",
		   (unsigned long long)r[WLIO_ROW_ID], (unsigned long long)r[WLIO_ROW_VERSION]);
}

/* Reads and verifies one row; false if it failed (counted). */
static bool shmdb_read(struct shmdb *d, uint64_t id)
{
	enum wlio_row_verdict v = wlio_row_check(shmdb_row(d, id), d->row_words, id);

	if (v != WLIO_ROW_OK)
		shmdb_mismatch(d, id, v);
	return v == WLIO_ROW_OK;
}

static void shmdb_populate(struct shmdb *d)
{
	for (uint64_t id = 0; id < d->rows; id++)
		wlio_row_write(shmdb_row(d, id), d->row_words, id, 0, SHMDB_BALANCE);
}

/* Two random reads, then a transfer between two distinct random rows. */
static void shmdb_transaction(struct shmdb *d)
{
	uint64_t a = rt_rng_below(&d->rng, d->rows);
	uint64_t b = (a + 1 + rt_rng_below(&d->rng, d->rows - 1)) % d->rows;

	shmdb_read(d, rt_rng_below(&d->rng, d->rows));
	shmdb_read(d, rt_rng_below(&d->rng, d->rows));
	if (!shmdb_read(d, a) || !shmdb_read(d, b))
		return;		/* a damaged row is not updated over */
	uint64_t *ra = shmdb_row(d, a), *rb = shmdb_row(d, b);
	uint64_t amount = rt_rng_below(&d->rng, ra[WLIO_ROW_BALANCE] / 2 + 1);
	wlio_row_write(ra, d->row_words, a, ra[WLIO_ROW_VERSION] + 1,
		       ra[WLIO_ROW_BALANCE] - amount);
	wlio_row_write(rb, d->row_words, b, rb[WLIO_ROW_VERSION] + 1,
		       rb[WLIO_ROW_BALANCE] + amount);
}

/* Under a TPS cap: sleep off the lead of the transactions done over
 * those due by `now` (all counted from `start`).  Returns the time after. */
static uint64_t shmdb_pace(struct shmdb *d, uint64_t start, uint64_t now)
{
	uint64_t us = wlio_pace_us(d->transactions, d->tps_limit, (now - start) / 1000);

	if (us == 0)
		return now;
	struct rt_timespec ts = { (int64_t)(us / 1000000), (int64_t)(us % 1000000 * 1000) };
	rt_nanosleep(&ts, NULL);
	d->sleeps++;
	d->sleep_ns += us * 1000;
	return rt_now_ns();
}

/* Transactions until `seconds` have passed; the per-second series. */
static void shmdb_run(struct shmdb *d, uint64_t seconds, uint64_t start)
{
	uint64_t end = start + seconds * 1000000000ULL, shown = 0;

	for (uint64_t now = start; now < end; now = shmdb_pace(d, start, now)) {
		for (int i = 0; i < SHMDB_BATCH; i++)
			shmdb_transaction(d);
		d->transactions += SHMDB_BATCH;
		now = rt_now_ns();
		uint64_t sec = (now - start) / 1000000000ULL;
		d->per_second[sec < seconds ? sec : seconds - 1] += SHMDB_BATCH;
		if (shown < sec && shown < seconds)
			shmdb_sample_lru(d);
		for (; shown < sec && shown < seconds; shown++)
			rt_dprintf(2, "shmdb: second %llu: %llu transactions\n",
				   (unsigned long long)shown + 1,
				   (unsigned long long)d->per_second[shown]);
	}
}

/* Every row once more, and the balances' total. */
static void shmdb_verify(struct shmdb *d)
{
	uint64_t total = 0;

	for (uint64_t id = 0; id < d->rows; id++)
		if (shmdb_read(d, id))
			total += shmdb_row(d, id)[WLIO_ROW_BALANCE];
	if (d->mismatches == 0 && total != d->rows * SHMDB_BALANCE) {
		rt_dprintf(2, "shmdb: MISMATCH balances add up to %llu, not %llu\n",
			   (unsigned long long)total, (unsigned long long)(d->rows * SHMDB_BALANCE));
		d->mismatches++;
	}
}

struct shmdb_args {
	struct wlio_share size;
	uint64_t size_mib;
	uint64_t seconds;
	uint64_t rows;
	uint64_t tps_limit;
};

static void shmdb_series(const struct shmdb *d, uint64_t seconds, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (uint64_t s = 0; s < seconds && s < SHMDB_SERIES; s++)
		len += (size_t)rt_snprintf(buf + len, cap - len, "%s%llu", s ? " " : "",
					   (unsigned long long)d->per_second[s]);
}

static void shmdb_report(const struct shmdb *d, const struct shmdb_args *a,
			 uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3)
{
	uint64_t run_us = (t2 - t1) / 1000 ? (t2 - t1) / 1000 : 1;
	uint64_t lo = UINT64_MAX, hi = 0, tps100 = d->transactions * 100000000ULL / run_us;
	char series[SHMDB_SERIES * 12];
	struct rt_json j;

	for (uint64_t s = 0; s < a->seconds; s++) {
		lo = d->per_second[s] < lo ? d->per_second[s] : lo;
		hi = d->per_second[s] > hi ? d->per_second[s] : hi;
	}
	shmdb_series(d, a->seconds, series, sizeof(series));
	rt_dprintf(2, "shmdb %llu MiB, %llu rows of %llu bytes: %llu transactions in %llu s, "
		   "%llu.%02llu/s (per second %llu..%llu), %llu mismatches\n",
		   (unsigned long long)a->size_mib, (unsigned long long)d->rows,
		   (unsigned long long)(d->row_words * 8), (unsigned long long)d->transactions,
		   (unsigned long long)a->seconds, (unsigned long long)(tps100 / 100),
		   (unsigned long long)(tps100 % 100), (unsigned long long)lo,
		   (unsigned long long)hi, (unsigned long long)d->mismatches);
	rt_report_begin(&j, "shmdb");
	rt_json_u64(&j, "size_mib", a->size_mib);
	rt_json_u64(&j, "ram_pct", a->size.percent ? a->size.value : 0);
	rt_json_u64(&j, "rows", d->rows);
	rt_json_u64(&j, "row_bytes", d->row_words * 8);
	rt_json_u64(&j, "seconds", a->seconds);
	rt_json_u64(&j, "transactions", d->transactions);
	rt_json_u64(&j, "tps", tps100 / 100);
	rt_json_u64(&j, "tps_x100", tps100);
	rt_json_u64(&j, "tps_min", lo);
	rt_json_u64(&j, "tps_max", hi);
	rt_json_u64(&j, "tps_limit", d->tps_limit);
	rt_json_u64(&j, "sleeps", d->sleeps);
	rt_json_u64(&j, "sleep_ns", d->sleep_ns);
	rt_json_str(&j, "tps_series", series);
	rt_json_u64(&j, "populate_ns", t1 - t0);
	rt_json_u64(&j, "run_ns", t2 - t1);
	rt_json_u64(&j, "verify_ns", t3 - t2);
	rt_json_u64(&j, "lru_samples", d->lru_samples);
	for (int i = 0; i < SHMDB_NLRU && d->lru_samples; i++) {
		char name[40];

		rt_snprintf(name, sizeof(name), "%s_avg", shmdb_lru_names[i]);
		rt_json_u64(&j, name, d->lru_sum[i] / d->lru_samples);
	}
	rt_report_usage(&j, t0, t3);
	rt_json_u64(&j, "mismatches", d->mismatches);
	rt_json_end(&j, 1);
}

static void shmdb_parse(int argc, char **argv, struct shmdb_args *a)
{
	if (argc < 3 || argc > 5)
		rt_usage_error(SHMDB_USAGE, "shmdb: expected 2 to 4 arguments, got %d", argc - 1);
	wlio_arg_share("shmdb", SHMDB_USAGE, "SIZE_MIB", argv[1], SHMDB_MAX_MIB, SHMDB_MAX_PCT,
		       &a->size);
	a->seconds = rt_arg_u64("shmdb", SHMDB_USAGE, "SECONDS", argv[2], 1, SHMDB_MAX_SECONDS);
	a->size_mib = a->size.value;
	if (a->size.percent) {
		long ram = wlio_ram_mib();
		if (ram < 0) {
			rt_dprintf(2, "shmdb: sysinfo failed: %s (%ld): give SIZE_MIB in MiB\n",
				   wlio_errno_name(ram), -ram);
			rt_exit_group(3);
		}
		a->size_mib = wlio_share_of(&a->size, (uint64_t)ram);
		if (a->size_mib == 0)
			rt_usage_error(SHMDB_USAGE, "shmdb: %s of %ld MiB of RAM is under 1 MiB",
				       argv[1], ram);
	}
	uint64_t max_rows = a->size_mib * RT_MIB / (WLIO_ROW_MIN_WORDS * 8);
	a->rows = argc > 3 ? rt_arg_u64("shmdb", SHMDB_USAGE, "ROWS", argv[3], 0, max_rows) : 0;
	if (a->rows == 1)
		rt_usage_error(SHMDB_USAGE, "shmdb: ROWS 1: need at least 2 (or 0 for one per KiB)");
	if (a->rows == 0)
		a->rows = a->size_mib * RT_MIB / SHMDB_DEFAULT_ROW;
	a->tps_limit = argc > 4 ? rt_arg_u64("shmdb", SHMDB_USAGE, "TPS", argv[4], 0, SHMDB_MAX_TPS) : 0;
}

int main(int argc, char **argv, char **envp)
{
	struct shmdb_args a;
	struct shmdb d = { 0 };

	(void)envp;
	shmdb_parse(argc, argv, &a);
	d.rows = a.rows;
	d.tps_limit = a.tps_limit;
	d.row_words = a.size_mib * RT_MIB / a.rows / 8;
	rt_rng_seed(&d.rng, 3);
	uint64_t bytes = a.size_mib * RT_MIB;
	uint64_t series_bytes = (a.seconds + 1) * sizeof(uint64_t);
	void *p = rt_mmap(NULL, bytes, RT_PROT_READ | RT_PROT_WRITE,
			  RT_MAP_SHARED | RT_MAP_ANONYMOUS, -1, 0);
	void *q = rt_mmap(NULL, series_bytes + SHMDB_PROC_MAX, RT_PROT_READ | RT_PROT_WRITE,
			  RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(p) || rt_mmap_failed(q)) {
		long err = rt_mmap_failed(p) ? rt_mmap_error(p) : rt_mmap_error(q);
		rt_dprintf(2, "shmdb: mmap of %llu MiB (MAP_SHARED|MAP_ANONYMOUS) failed: %s (%ld)\n",
			   (unsigned long long)a.size_mib, wlio_errno_name(err), err);
		return 3;
	}
	d.table = p;
	d.per_second = q;
	d.proc_text = (char *)q + series_bytes;
	d.vmstat_fd = (int)rt_syscall3(WLIO_SYS_openat, WLIO_AT_FDCWD, (long)"/proc/vmstat", WLIO_O_RDONLY);
	if (d.vmstat_fd < 0)
		rt_dprintf(2, "shmdb: openat(/proc/vmstat, O_RDONLY) failed: %s (%d); no LRU averages\n",
			   wlio_errno_name(d.vmstat_fd), -d.vmstat_fd);
	uint64_t t0 = rt_now_ns();
	shmdb_populate(&d);
	uint64_t t1 = rt_now_ns();
	shmdb_run(&d, a.seconds, t1);
	uint64_t t2 = rt_now_ns();
	shmdb_verify(&d);
	shmdb_report(&d, &a, t0, t1, t2, rt_now_ns());
	rt_munmap(p, bytes);
	rt_munmap(q, series_bytes + SHMDB_PROC_MAX);
	return d.mismatches != 0 ? 1 : 0;
}
