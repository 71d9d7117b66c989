#include "test.h"
#include "vm/psi_avg.h"

TEST(psi_avg_steady_and_decay)
{
	uint64_t avg[3] = { 0, 0, 0 };
	unsigned w, h;
	/* Fully stalled for a minute: avg10 reaches 100%, avg60 about 63%,
	 * avg300 about 18% (1 - e^-t/T). */
	for (int i = 0; i < 30; i++)
		psi_avg_update(avg, PSI_AVG_PERIOD_NS, PSI_AVG_PERIOD_NS, 0);
	psi_avg_split(avg[0], &w, &h);
	CHECK(w >= 99);
	psi_avg_split(avg[1], &w, &h);
	CHECK(w >= 60 && w <= 66);
	psi_avg_split(avg[2], &w, &h);
	CHECK(w >= 16 && w <= 20);
	/* A quiet minute afterwards (29 missed periods and one empty one):
	 * avg10 falls to about 0, avg60 to about a third of what it was. */
	uint64_t before60 = avg[1];
	psi_avg_update(avg, 0, PSI_AVG_PERIOD_NS, 29);
	psi_avg_split(avg[0], &w, &h);
	CHECK_EQ(w, 0);
	CHECK(avg[1] < before60 / 2 && avg[1] > before60 / 4);
}

TEST(psi_avg_half_stalled)
{
	uint64_t avg[3] = { 0, 0, 0 };
	unsigned w, h;
	for (int i = 0; i < 200; i++)
		psi_avg_update(avg, PSI_AVG_PERIOD_NS / 2, PSI_AVG_PERIOD_NS, 0);
	psi_avg_split(avg[0], &w, &h);
	CHECK(w == 50 || (w == 49 && h >= 90));
	/* A sample larger than its period counts as 100%, no more. */
	uint64_t a[3] = { 0, 0, 0 };
	psi_avg_update(a, 5 * PSI_AVG_PERIOD_NS, PSI_AVG_PERIOD_NS, 0);
	CHECK(a[0] <= 100 * PSI_AVG_FIXED_1);
	psi_avg_update(a, 0, 0, 0);     /* no period: nothing folded in */
	CHECK(a[0] <= 100 * PSI_AVG_FIXED_1);
}
