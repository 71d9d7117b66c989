/*
 * MC146818-compatible CMOS RTC at ports 0x70/0x71.  Read the time twice
 * until two reads agree (the chip may update between byte reads), honour
 * the BCD and 12-hour format bits of status register B.
 */
#include "rtc.h"
#include "arch/x86_64/x86.h"

static uint8_t cmos(uint8_t reg)
{
	outb(0x70, reg);
	return inb(0x71);
}

struct rtc_time { uint8_t s, m, h, d, mo, y, cen; };

static void read_raw(struct rtc_time *t)
{
	for (int i = 0; i < 100000 && (cmos(0x0a) & 0x80); i++)
		;                       /* update in progress */
	t->s = cmos(0x00);
	t->m = cmos(0x02);
	t->h = cmos(0x04);
	t->d = cmos(0x07);
	t->mo = cmos(0x08);
	t->y = cmos(0x09);
	t->cen = cmos(0x32);
}

static uint8_t bcd(uint8_t v) { return (uint8_t)((v & 0x0f) + (v >> 4) * 10); }

static uint64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	/* Howard Hinnant's algorithm: days since 1970-01-01. */
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (uint64_t)(era * 146097 + (int64_t)doe - 719468);
}

bool rtc_read_unix(uint64_t *secs)
{
	struct rtc_time a, b;
	read_raw(&a);
	for (int tries = 0; tries < 5; tries++) {
		read_raw(&b);
		if (a.s == b.s && a.m == b.m && a.h == b.h && a.d == b.d && a.mo == b.mo && a.y == b.y)
			break;
		a = b;
	}
	uint8_t regb = cmos(0x0b);
	bool pm = b.h & 0x80;
	b.h &= 0x7f;
	if (!(regb & 0x04)) {
		b.s = bcd(b.s); b.m = bcd(b.m); b.h = bcd(b.h);
		b.d = bcd(b.d); b.mo = bcd(b.mo); b.y = bcd(b.y); b.cen = bcd(b.cen);
	}
	if (!(regb & 0x02) && pm)
		b.h = (uint8_t)((b.h + 12) % 24);
	unsigned year = (b.cen >= 19 && b.cen <= 30 ? b.cen : 20) * 100u + b.y;
	if (b.mo < 1 || b.mo > 12 || b.d < 1 || b.d > 31 || b.h > 23 || b.m > 59 || b.s > 60)
		return false;
	*secs = days_from_civil(year, b.mo, b.d) * 86400ull + b.h * 3600ull + b.m * 60ull + b.s;
	return true;
}
