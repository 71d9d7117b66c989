#!/bin/sh
# build.sh - build the workload programs into a directory (default build/workloads).
#
#   tests/workloads/build.sh [OUT_DIR]
#
# Two toolchains, kept visibly apart (BUILD.md explains every flag):
#  - host gcc, freestanding, linked with our own runtime (rt/) and no libc;
#  - musl-gcc -static for the programs that run on a real libc.
# Always rebuilds everything: it takes about a second. The top-level Makefile
# uses the same lines.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/build/workloads}
CC=${CC:-gcc}
MUSL_CC=${MUSL_CC:-musl-gcc}
AR=${AR:-ar}

# Freestanding: no libc headers or startup, no SSE (no FPU state to worry
# about in the kernel's first context switches), nothing that needs %fs
# (stack protector) or a dynamic loader (PIE).
WL_CFLAGS="-std=c11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-builtin \
 -fno-pie -fno-stack-protector -fcf-protection=none -mgeneral-regs-only \
 -fno-tree-loop-distribute-patterns"
WL_LDFLAGS="-static -nostdlib -no-pie -Wl,-z,max-page-size=4096 -Wl,-z,noexecstack"
MUSL_CFLAGS="-std=c11 -O2 -g -Wall -Wextra -Werror"
MUSL_LDFLAGS="-static -no-pie"

RT_SRCS="rt_sys.c rt_time.c rt_string.c rt_print.c rt_rand.c rt_json.c rt_thread.c rt_clone.S"
RT_PROGS="touch hogmem fill threads hello"

OBJ="$OUT/obj"
mkdir -p "$OBJ/rt"

run() {
	echo "  $*"
	"$@"
}

# The runtime: librt.a (everything but startup and the libc shim), crt0.o,
# rt_libc_shim.o. The archive lets each program pull in only what it uses.
rt_objs=""
for src in $RT_SRCS; do
	o="$OBJ/rt/${src%.*}.o"
	run $CC $WL_CFLAGS -c "$HERE/rt/$src" -o "$o"
	rt_objs="$rt_objs $o"
done
rm -f "$OBJ/librt.a"
run $AR rcs "$OBJ/librt.a" $rt_objs
run $CC $WL_CFLAGS -c "$HERE/rt/crt0.c" -o "$OBJ/rt/crt0.o"
run $CC $WL_CFLAGS -c "$HERE/rt/rt_libc_shim.c" -o "$OBJ/rt/rt_libc_shim.o"

# Code shared between workloads (not runtime): libwl.a.
run $CC $WL_CFLAGS -c "$HERE/vpage.c" -o "$OBJ/vpage.o"
rm -f "$OBJ/libwl.a"
run $AR rcs "$OBJ/libwl.a" "$OBJ/vpage.o"

# Programs on our runtime. Order matters: libwl.a uses librt.a.
for prog in $RT_PROGS; do
	run $CC $WL_CFLAGS -c "$HERE/$prog.c" -o "$OBJ/$prog.o"
	run $CC $WL_LDFLAGS -o "$OUT/$prog" "$OBJ/rt/crt0.o" "$OBJ/$prog.o" \
		"$OBJ/libwl.a" "$OBJ/librt.a" "$OBJ/rt/rt_libc_shim.o"
done

# Programs on musl: musl's startup and string functions replace crt0.o and
# the shim; touch's own objects are the very ones linked above.
run $MUSL_CC $MUSL_CFLAGS $MUSL_LDFLAGS -o "$OUT/hello_musl" "$HERE/hello_musl.c"
run $MUSL_CC $MUSL_LDFLAGS -o "$OUT/touch_musl" "$OBJ/touch.o" "$OBJ/libwl.a" \
	"$OBJ/librt.a"

echo "workloads built in $OUT"
