/*
 * A sampling profiler for kernel CPU time: prof=on on the command line.
 *
 * About hz= times a second (default 1000) on every CPU a sample looks at
 * what the CPU was doing.  User mode and the idle thread are counted as
 * such, an interrupt handler as "kernel_irq" (whichever thread it
 * interrupted); kernel code is counted by function: "self" for the
 * function the sample landed in, "total" for every function on the
 * interrupted thread's frame-pointer chain (each once per sample, so
 * recursion does not count twice), and each caller-callee pair on that
 * chain ("edges", each once per sample).  kprof_reset() starts a window
 * (the script runner: one per run); kprof_record() writes the window's
 * top functions and, in a "prof_edges" record, its top edges.
 *
 * The samples come from an NMI (arch/x86_64/nmiclock.h: the PIT through
 * the I/O APIC, passed on to the other CPUs), so code running with
 * interrupts off is sampled where it runs, interrupt handlers included.
 * Without that clock (no PIT, or its NMIs never arrive: said at boot)
 * the scheduler tick samples, and a tick is taken only with interrupts
 * on, so time in a section with interrupts off is counted where they
 * come back on (spin_unlock_irqrestore, irq_restore), as Linux's
 * timer-based profile does without NMIs; handlers' time is not seen.
 * The record says which ("source") and the time a sample stands for
 * ("period_ns": the NMI clock's as it really fired, which a late NMI
 * stretches).  The caller of a function caught without a frame of its
 * own (a frameless leaf, a prologue, a ret) is taken from the stack
 * pointer; one that pushed registers without a frame hides its caller
 * from "total" for that sample.
 *
 * Sizes: two 32-bit counters per kernel text symbol (a few thousand), so
 * 2^32 samples per symbol per window: 49 days at 1000 Hz on one CPU, or
 * 4.6 hours on 256; a table of 4096 edges (32 KiB; a swapping run uses a
 * few hundred, an edge that finds no slot is counted as lost).  The NMI clock's boot CPU sends one NMI to each other
 * CPU per sample: at 256 CPUs, use a low hz=.
 */
#ifndef KPROF_H
#define KPROF_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame;
struct json;

/* Allocate the counters and start sampling about hz a second (before
 * the tick starts, on the boot CPU).  False, with a line said, when there
 * is no memory for them. */
bool kprof_init(unsigned hz);
/* The tick handler, on every CPU, with the frame the tick interrupted
 * (samples only when the NMI clock does not). */
void kprof_tick(const struct trap_frame *f);
void kprof_reset(void);
/* A "prof" record: label, the counts, and the top functions by self and
 * by total samples; then a "prof_edges" record: the top caller-callee
 * pairs.  Nothing when prof is off. */
void kprof_record(const char *label);
/* At halt: the window since the last reset, labelled "halt". */
void kprof_halt_report(void);

#endif
