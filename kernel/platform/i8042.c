/*
 * i8042 PS/2 controller, polled (data port 0x60, status/command 0x64).
 *
 * Detection: the ACPI FADT's IAPC_BOOT_ARCH "8042" flag, when the FADT is
 * ACPI 2.0 or newer, says whether the ports are backed at all (as Linux
 * trusts it); then a status byte of 0xff means nothing answers on the
 * bus.  The controller is left as the firmware configured it (keyboard
 * port on, scan-code translation as it was): re-initialising a keyboard
 * controller is where real PCs differ most, and reading key bytes needs
 * none of it.  The keyboard interface is only re-enabled (command 0xae),
 * harmless when it already is.
 *
 * Key presses: with translation (set 1, the usual firmware setting) a
 * release has bit 7 set; untranslated set 2 sends 0xf0 before a release.
 * Either way a byte below 0x80 that does not follow 0xf0 and is not a
 * controller or keyboard reply is a key going down.  Bytes from the
 * auxiliary (mouse) port (status bit 5) are dropped.
 */
#include "i8042.h"
#include "acpi.h"
#include "core/console.h"
#include "arch/x86_64/x86.h"

#define I8042_DATA      0x60
#define I8042_STATUS    0x64    /* read */
#define I8042_CMD       0x64    /* write */
#define ST_OBF          0x01    /* output buffer full: a byte waits at 0x60 */
#define ST_IBF          0x02    /* input buffer full: the controller has not taken our last byte */
#define ST_AUX          0x20    /* the waiting byte came from the auxiliary port */
#define CMD_KBD_ENABLE  0xae
#define CMD_PULSE_RESET 0xfe
#define KBD_RELEASE_SET2 0xf0
#define DRAIN_MAX       64      /* a controller that never empties is broken */
#define IBF_SPINS       100000

static bool probed, present;
static bool after_release;      /* the last keyboard byte was set 2's release prefix */

static bool wait_input_empty(void)
{
	for (int i = 0; i < IBF_SPINS; i++) {
		if (!(inb(I8042_STATUS) & ST_IBF))
			return true;
		cpu_relax();
	}
	return false;
}

/* Drain the output buffer; false when it never empties. */
static bool drain(void)
{
	for (int i = 0; i < DRAIN_MAX; i++) {
		if (!(inb(I8042_STATUS) & ST_OBF))
			return true;
		(void)inb(I8042_DATA);
	}
	return false;
}

static bool probe(void)
{
	int fadt = acpi_has_8042();
	if (fadt == 0) {
		kprintf("i8042: the ACPI FADT says there is no PS/2 controller: no keyboard at halt\n");
		return false;
	}
	uint8_t st = inb(I8042_STATUS);
	if (st == 0xff || !drain()) {
		kprintf("i8042: no PS/2 controller answers at 0x64 (status %02x): no keyboard at halt\n", st);
		return false;
	}
	if (wait_input_empty())
		outb(I8042_CMD, CMD_KBD_ENABLE);
	return true;
}

bool i8042_init(void)
{
	if (!probed) {
		probed = true;
		present = probe();
	}
	if (present)
		(void)drain();
	after_release = false;
	return present;
}

/* A keyboard byte that means a key went down. */
static bool is_press(uint8_t b)
{
	bool prefixed = after_release;
	after_release = b == KBD_RELEASE_SET2;
	switch (b) {
	case 0x00: case 0xaa: case 0xe0: case 0xe1: case 0xee: case 0xf0: case 0xfa: case 0xfc: case 0xfd:
	case 0xfe: case 0xff:
		return false;   /* prefixes, self-test, echo, ack, resend, errors */
	}
	return b < 0x80 && !prefixed;
}

bool i8042_key_pressed(void)
{
	if (!present)
		return false;
	for (int i = 0; i < DRAIN_MAX; i++) {
		uint8_t st = inb(I8042_STATUS);
		if (!(st & ST_OBF))
			return false;
		uint8_t b = inb(I8042_DATA);
		if (!(st & ST_AUX) && is_press(b))
			return true;
	}
	return false;
}

void i8042_reset_pulse(void)
{
	if (inb(I8042_STATUS) == 0xff || !wait_input_empty())
		return;
	outb(I8042_CMD, CMD_PULSE_RESET);
	for (volatile int i = 0; i < 10000000; i++)
		cpu_relax();
}
