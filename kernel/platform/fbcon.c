/*
 * Framebuffer console.
 *
 * Model: a character grid in RAM mirrors the screen.  Writing a character
 * draws one glyph.  At the bottom of the screen the grid jumps up by half a
 * screen and every row is marked for redrawing from the grid, so a scroll
 * costs one redraw per rows/2 lines and the framebuffer (uncached or
 * write-combined memory) is never read.  The console is written with
 * interrupts off, and a whole screen took 8.8 ms of guest instructions
 * under QEMU at 1280x800 (`-icount`): so the rows are redrawn one per tick
 * of the boot CPU (fbcon_poll), and all at once only when the machine
 * stops (fbcon_flush); a character written meanwhile on a row still due is
 * only put in the grid.
 *
 * Records ({"type":...} lines, kernel/core/record.c) are not drawn: they are
 * for machines and reach them through COM1; on the screen a few hundred
 * characters of JSON per record would scroll the human text away, above
 * all the final table, which halt=wait keeps on screen after the halt
 * hooks have printed their records.  A line is a record when it starts
 * with {"type": (record.c writes each one whole, in one call).
 *
 * Locking: called only under the console lock (see console.c).
 */
#include <stdbool.h>
#include <string.h>
#include "fbcon.h"
#include "font8x16.h"

#define GLYPH_W 8
#define GLYPH_H 16
#define MAX_COLS 256
#define MAX_ROWS 128

static struct {
	uint8_t *base;
	uint32_t width, height, pitch;
	uint32_t fg, bg;
	uint32_t cols, rows;
	uint32_t x, y;
	bool line_start;                /* the next character begins a line */
	bool in_record;                 /* skipping a record up to its newline */
	char grid[MAX_ROWS][MAX_COLS];
	bool dirty[MAX_ROWS];           /* the screen's row is not the grid's yet */
	uint32_t ndirty;
} con;

#define RECORD_PREFIX "{\"type\":"
#define FBCON_ROWS_PER_POLL 1           /* a row: 0.28 ms of guest instructions at 1280 wide */

static uint32_t pack(const struct boot_framebuffer *fb, uint8_t r, uint8_t g, uint8_t b)
{
	switch (fb->format) {
	case BOOT_FB_RGBX: return (uint32_t)r | (uint32_t)g << 8 | (uint32_t)b << 16;
	case BOOT_FB_BGRX: return (uint32_t)b | (uint32_t)g << 8 | (uint32_t)r << 16;
	default: {
		/* Bit-mask formats: scale each 8-bit channel into its mask. */
		uint32_t v = 0, masks[3] = { fb->red_mask, fb->green_mask, fb->blue_mask };
		uint8_t ch[3] = { r, g, b };
		for (int i = 0; i < 3; i++) {
			uint32_t m = masks[i];
			if (!m)
				continue;
			int shift = __builtin_ctz(m);
			uint32_t max = m >> shift;
			v |= ((ch[i] * max / 255) << shift) & m;
		}
		return v;
	}
	}
}

static void draw(uint32_t cx, uint32_t cy, unsigned char c)
{
	const uint8_t *g = font8x16[c];
	for (uint32_t row = 0; row < GLYPH_H; row++) {
		uint32_t *px = (uint32_t *)(con.base + (cy * GLYPH_H + row) * con.pitch) + cx * GLYPH_W;
		uint8_t bits = g[row];
		for (uint32_t col = 0; col < GLYPH_W; col++)
			px[col] = (bits & (0x80 >> col)) ? con.fg : con.bg;
	}
}

/* Scan lines [from, to) in the background colour. */
static void clear_lines(uint32_t from, uint32_t to)
{
	for (uint32_t y = from; y < to; y++) {
		uint32_t *px = (uint32_t *)(con.base + y * con.pitch);
		for (uint32_t x = 0; x < con.width; x++)
			px[x] = con.bg;
	}
}

static void redraw_row(uint32_t y)
{
	clear_lines(y * GLYPH_H, (y + 1) * GLYPH_H);
	for (uint32_t x = 0; x < con.cols; x++)
		if (con.grid[y][x] != ' ')
			draw(x, y, (unsigned char)con.grid[y][x]);
	con.dirty[y] = false;
	con.ndirty--;
}

/* Redraw up to max rows the grid has changed under (top first). */
static void redraw_dirty(uint32_t max)
{
	for (uint32_t y = 0; y < con.rows && con.ndirty && max; y++)
		if (con.dirty[y]) {
			redraw_row(y);
			max--;
		}
}

static void jump_scroll(void)
{
	uint32_t by = con.rows / 2 ? con.rows / 2 : 1;
	memmove(con.grid[0], con.grid[by], (size_t)(con.rows - by) * MAX_COLS);
	for (uint32_t y = con.rows - by; y < con.rows; y++)
		memset(con.grid[y], ' ', MAX_COLS);
	con.y -= by;
	for (uint32_t y = 0; y < con.rows; y++)
		con.dirty[y] = true;
	con.ndirty = con.rows;
}

bool fbcon_pending(void) { return __atomic_load_n(&con.ndirty, __ATOMIC_RELAXED) != 0; }

void fbcon_poll(void)
{
	if (con.base)
		redraw_dirty(FBCON_ROWS_PER_POLL);
}

void fbcon_flush(void)
{
	if (con.base)
		redraw_dirty(con.rows);
}

void fbcon_init(const struct boot_framebuffer *fb, void *virt)
{
	if (!virt || fb->format == BOOT_FB_NONE || fb->width < GLYPH_W || fb->height < GLYPH_H)
		return;
	con.base = virt;
	con.width = fb->width;
	con.height = fb->height;
	con.pitch = fb->pitch;
	con.fg = pack(fb, 0xcc, 0xcc, 0xcc);
	con.bg = pack(fb, 0x00, 0x00, 0x20);
	con.cols = fb->width / GLYPH_W < MAX_COLS ? fb->width / GLYPH_W : MAX_COLS;
	con.rows = fb->height / GLYPH_H < MAX_ROWS ? fb->height / GLYPH_H : MAX_ROWS;
	memset(con.grid, ' ', sizeof con.grid);
	con.line_start = true;
	clear_lines(0, con.height);
}

void fbcon_size(uint32_t *cols, uint32_t *rows)
{
	*cols = con.base ? con.cols : 0;
	*rows = con.base ? con.rows : 0;
}

static void newline(void)
{
	con.x = 0;
	if (++con.y == con.rows)
		jump_scroll();
}

void fbcon_write(const char *s, size_t n)
{
	if (!con.base)
		return;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (con.line_start && n - i >= sizeof RECORD_PREFIX - 1 &&
		    !memcmp(s + i, RECORD_PREFIX, sizeof RECORD_PREFIX - 1))
			con.in_record = true;
		con.line_start = c == '\n';
		if (con.in_record) {
			con.in_record = c != '\n';
			continue;
		}
		if (c == '\n') {
			newline();
		} else if (c == '\r') {
			con.x = 0;
		} else if (c == '\t') {
			do
				fbcon_write(" ", 1);
			while (con.x % 8);
		} else {
			if (c < 0x20)
				c = '?';
			con.grid[con.y][con.x] = (char)c;
			if (!con.dirty[con.y])
				draw(con.x, con.y, c);  /* else its row's redraw shows it */
			if (++con.x == con.cols)
				newline();
		}
	}
}
