/*
 * Running workloads named on the command line:
 *   run="touch 64 100000 seq anon"                  one program
 *   run="touch 8 1000 seq anon & hogmem 8 1"        concurrently
 *   run="hello ; touch 8 1000 seq anon"             one after the other
 *   run="@set ra off ; touch 8 1000 seq anon"       built-ins (@set, @sleep, @swapon, @swapoff, @vmstat, @probe)
 * ';' separates steps, '&' the parts of a step, which run at the same
 * time; each step waits for all its programs and gives one vmstat record.
 * The value compiles to a script program (script.h, script_compile_run).
 */
#ifndef RUNNER_H
#define RUNNER_H

/* Returns the number of steps in which a program did not start, exited
 * non-zero or was killed (negative errno when nothing ran). */
int runner_run(const char *spec);

#endif
