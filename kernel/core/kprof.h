/*
 * A sampling profiler for kernel CPU time: prof=on on the command line.
 *
 * Every scheduler tick on every CPU (hz=, default 1000 a second) looks at
 * what the tick interrupted.  User mode and the idle thread are counted
 * as such; kernel code is counted by function: "self" for the function
 * the tick landed in, "total" for every function on the interrupted
 * thread's frame-pointer chain (each once per sample, so recursion does
 * not count twice).  kprof_reset() starts a window (the script runner:
 * one per run); kprof_json() writes the window's top functions.
 *
 * What it cannot see: a tick is taken only with interrupts on, so time
 * in a section with interrupts off is counted where they come back on
 * (spin_unlock_irqrestore, irq_restore), as Linux's timer-based profile
 * does without NMIs.  A function interrupted in its prologue, before it
 * set up its frame, hides its caller from "total" for that sample.
 *
 * Sizes: two 32-bit counters per kernel text symbol (a few thousand), so
 * 2^32 samples per symbol per window: 49 days at 1000 Hz on one CPU, or
 * 4.6 hours on 256.
 */
#ifndef KPROF_H
#define KPROF_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame;
struct json;

/* Allocate the counters and start sampling (before the tick starts).
 * False, with a line said, when there is no memory for them. */
bool kprof_init(void);
/* The tick handler, on every CPU, with the frame the tick interrupted. */
void kprof_tick(const struct trap_frame *f);
void kprof_reset(void);
/* A "prof" record: label, the counts, and the top functions by self and
 * by total samples.  Nothing when prof is off. */
void kprof_record(const char *label);
/* At halt: the window since the last reset, labelled "halt". */
void kprof_halt_report(void);

#endif
