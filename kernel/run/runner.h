/*
 * Running workloads named on the command line:
 *   run="touch 64 100000 seq anon"                  one program
 *   run="touch 8 1000 seq anon & hogmem 8 1"        concurrently
 *   run="hello ; touch 8 1000 seq anon"             one after the other
 * ';' separates steps, '&' separates programs that run at the same time
 * within a step.  Each step waits for all its programs.
 */
#ifndef RUNNER_H
#define RUNNER_H

/* Returns the number of programs that failed to start or exited non-zero. */
int runner_run(const char *spec);

#endif
