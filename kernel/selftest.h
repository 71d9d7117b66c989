/*
 * Built-in test scenarios, chosen with test=NAME on the command line.
 * tests/qemu boots them and checks the serial log and the exit status.
 * Some end in a deliberate exception (that is their point); the others
 * print {"type":"selftest",...} and return.
 */
#ifndef SELFTEST_H
#define SELFTEST_H

void selftest_run(const char *name);

#endif
