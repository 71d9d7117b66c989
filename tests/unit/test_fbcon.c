/*
 * The framebuffer console drawn into memory: whatever order its rows are
 * redrawn in after a scroll (a row per fbcon_poll, the rest at
 * fbcon_flush), the screen ends as the grid's text drawn whole.  The
 * oracle draws the text the console should show (the last lines, records
 * left out, scrolled by half a screen) with the same font.
 */
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "platform/fbcon.h"
#include "font8x16.h"

#define W 200           /* 25 columns */
#define H 160           /* 10 rows */
#define COLS (W / 8)
#define ROWS (H / 16)

static uint32_t fb[W * H], want[W * H];

static void oracle_draw(char grid[ROWS][COLS], uint32_t fg, uint32_t bg)
{
	for (int i = 0; i < W * H; i++)
		want[i] = bg;
	for (int y = 0; y < ROWS; y++)
		for (int x = 0; x < COLS; x++) {
			const uint8_t *g = font8x16[(unsigned char)grid[y][x]];
			if (grid[y][x] == ' ')
				continue;
			for (int r = 0; r < 16; r++)
				for (int c = 0; c < 8; c++)
					want[(y * 16 + r) * W + x * 8 + c] = (g[r] & (0x80 >> c)) ? fg : bg;
		}
}

TEST(fbcon_scroll_redraws_rows_to_the_grid)
{
	struct boot_framebuffer f = { 0 };
	f.width = W;
	f.height = H;
	f.pitch = W * 4;
	f.format = BOOT_FB_RGBX;
	fbcon_init(&f, fb);
	uint32_t fg = 0xcccccc, bg = 0x200000;          /* pack()'s RGBX of the console's colours */
	char grid[ROWS][COLS];
	memset(grid, ' ', sizeof grid);
	int y = 0;
	char line[64];
	for (int n = 0; n < 37; n++) {
		int len = snprintf(line, sizeof line, "line %d %.*s\n", n, n % 13, "abcdefghijklmnop");
		fbcon_write(line, (size_t)len);
		if (n % 5 == 0)
			fbcon_write("{\"type\":\"x\",\"n\":1}\n", 19);       /* records are not drawn */
		for (int i = 0; i < len - 1 && i < COLS; i++)
			grid[y][i] = line[i];
		if (++y == ROWS) {                      /* the console's jump: half a screen */
			memmove(grid[0], grid[ROWS / 2], (size_t)(ROWS - ROWS / 2) * COLS);
			memset(grid[ROWS - ROWS / 2], ' ', (size_t)(ROWS / 2) * COLS);
			y -= ROWS / 2;
		}
		if (n % 7 == 3)
			fbcon_poll();                   /* a tick: one row */
	}
	CHECK(fbcon_pending());                         /* the last scroll's rows wait */
	fbcon_poll();
	fbcon_flush();
	CHECK(!fbcon_pending());
	oracle_draw(grid, fg, bg);
	int bad = 0;
	for (int i = 0; i < W * H; i++)
		bad += fb[i] != want[i];
	CHECK_EQ(bad, 0);
}
