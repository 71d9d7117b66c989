#!/bin/sh
# host-test.sh - run every workload on this Linux host with small sizes.
#
#   tests/workloads/host-test.sh [--no-build] [WORKLOAD_DIR]
#
# Builds with the top-level Makefile (`make workloads`; WORKLOAD_DIR, default
# build/workloads, must then be BUILD/workloads) unless --no-build, then checks: each program exits 0 and its last stdout line is a
# JSON workload record with the right name and mismatches 0 (plus a few
# expected field values); bad arguments exit 2 with one line on stderr; the
# rt and musl builds of touch touch the same pages; the runtime's unit tests
# (selftest.c, under ASan/UBSan) pass. Last line: "N passed, N failed".
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=1
if [ "${1:-}" = "--no-build" ]; then
	BUILD=0
	shift
fi
OUT=${1:-$ROOT/build/workloads}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PASS=0
FAIL=0

pass() { PASS=$((PASS + 1)); echo "PASS: $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }

# check_json NAME "k=v ..." FILE: last line of FILE is our record.
check_json() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
name, expects, path = sys.argv[1], sys.argv[2].split(), sys.argv[3]
lines = open(path).read().splitlines()
if not lines:
    sys.exit("no output on stdout")
try:
    rec = json.loads(lines[-1])
except ValueError as e:
    sys.exit("last line is not JSON (%s): %r" % (e, lines[-1]))
want = {"type": "workload", "name": name, "mismatches": 0}
for kv in expects:
    k, v = kv.split("=", 1)
    # "_" stands for a blank: per-thread lists are space-separated strings
    want[k] = int(v) if v.isdigit() else {"true": True, "false": False}.get(v, v.replace("_", " "))
for k, v in want.items():
    if rec.get(k) != v:
        sys.exit("field %s is %r, want %r" % (k, rec.get(k), v))
PY
}

# run_ok NAME "k=v ..." CMD ARGS...: must exit 0 and end with a good record.
run_ok() {
	name=$1 expects=$2
	shift 2
	timeout 120 "$OUT/$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$* (exit $rc)"
		sed 's/^/    /' "$TMP/err" | tail -5
	elif why=$(check_json "$name" "$expects" "$TMP/out" 2>&1); then
		pass "$*"
	else
		fail "$* ($why)"
	fi
}

# run_usage CMD ARGS...: must exit 2, say one line on stderr, print no record.
run_usage() {
	timeout 20 "$OUT/$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	lines=$(wc -l <"$TMP/err")
	if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$TMP/out" ]; then
		pass "usage error: $*"
	else
		fail "usage error: $* (exit $rc, $lines stderr lines)"
	fi
}

# field NAME CMD ARGS...: prints one field of the command's record.
field() {
	key=$1
	shift
	timeout 120 "$OUT/$@" 2>/dev/null | tail -n 1 |
		python3 -c 'import json,sys; print(json.loads(sys.stdin.read())[sys.argv[1]])' "$key"
}

if [ $BUILD -eq 1 ]; then
	if [ "$(basename "$OUT")" != workloads ]; then
		echo "host-test.sh: $OUT: the Makefile builds workloads into BUILD/workloads"
		echo "0 passed, 1 failed"
		exit 1
	fi
	if ! make -C "$ROOT" BUILD="$(dirname "$OUT")" workloads >"$TMP/build.log" 2>&1; then
		cat "$TMP/build.log"
		echo "0 passed, 1 failed"
		exit 1
	fi
fi

run_ok hello "argc=3" hello one two
run_ok hello_musl "argc=2" hello_musl one
run_ok touch "touches=5000 pages=2048 pages_touched=2048 pattern=seq mapping=anon" \
	touch 8 5000 seq anon
run_ok touch "touches=5000 pages=2048 pattern=random mapping=shmem" touch 8 5000 random shmem
run_ok touch "touches=5000 pages=2048 pattern=random mapping=anon" touch 8 5000 random anon 7
run_ok touch "touches=1000 pages=256 pages_touched=256" touch 1 1000 seq shmem
run_ok touch "touches=2048 pages=2048 pages_touched=2048 pattern=stride:4" touch 8 2048 stride:4 anon
run_ok touch "touches=2048 pages=2048 pages_touched=2048 pattern=streams:4" touch 8 2048 streams:4 shmem
run_ok touch "touches=5000 pages=2048 pattern=jumps:100" touch 8 5000 jumps:100 anon
run_ok touch "touches=5000 pages=2048 pattern=shift:64:500" touch 8 5000 shift:64:500 anon
run_ok touch "touches=100 pages=2048 pages_touched=2048 pattern=fill+back" touch 8 100 fill+back anon
run_ok touch "touches=4096 pages=2048 pages_touched=2048 pattern=back" touch 8 4096 back shmem
run_ok touch "touches=500 pages=2048 pages_touched=2048 pattern=fill+random" touch 8 500 fill+random anon 5
run_ok touch "touches=5000 pages=2048 threads=4 sharing=slices thread_touches=1250_1250_1250_1250" \
	touch 8 5000 random anon 3 threads=4
run_ok touch "touches=20000 pages=2048 pages_touched=2048 threads=4 sharing=shared" \
	touch 8 20000 seq shmem threads=4 shared
run_ok touch "touches=5000 pages_touched=2048 threads=3 sharing=shared thread_touches=1667_1667_1666" \
	touch 8 5000 fill+random anon threads=3 shared
run_ok touch "touches=5000 pages_touched=2048 threads=3 sharing=slices" touch 8 5000 fill+back anon threads=3
run_ok touch "touches=5000 threads=2 sharing=slices" touch_musl 8 5000 random anon threads=2
run_ok touch "touches=5000 pattern=seq mapping=anon" touch_musl 8 5000 seq anon
# file:PATH maps a file MAP_SHARED; what it held before (random bytes
# here) is read on each page's first touch, not judged; every touch after
# is verified, also in a second run over what the first one left.
head -c $((8 << 20)) /dev/urandom >"$TMP/touchfile"
run_ok touch "touches=5000 pages=2048 pattern=random mapping=file mismatches=0" \
	touch 8 5000 random file:"$TMP/touchfile" 3
run_ok touch "touches=3000 pages=2048 pages_touched=2048 pattern=fill+hot:64:75 mapping=file mismatches=0" \
	touch 8 3000 fill+hot:64:75 file:"$TMP/touchfile"
run_ok touch "touches=5000 mapping=file mismatches=0" touch_musl 8 5000 seq file:"$TMP/touchfile"
head -c $((8 << 20)) /dev/urandom >"$TMP/touchfile"
run_ok touch "touches=5000 pages_touched=2048 threads=2 sharing=slices mapping=file mismatches=0" \
	touch 8 5000 fill+random file:"$TMP/touchfile" threads=2
run_ok touch "touches=5000 threads=2 sharing=shared mapping=file mismatches=0" \
	touch 8 5000 random file:"$TMP/touchfile" 9 threads=2 shared
run_usage touch 8 10 seq file:
run_usage touch 9 10 seq file:"$TMP/touchfile"
run_ok touch "touches=5000 pattern=random mapping=shmem" touch_musl 8 5000 random shmem
run_ok hogmem "size_mib=16 loops=2" hogmem 16 2
run_ok hogmem "size_mib=1 loops=1" hogmem 1 1
run_ok fill "percent=50 total_mib=64 chunks=32 bytes_allocated=33554432" fill 50 64
run_ok fill "chunks=8 bytes_allocated=33554432 enomem=false" fill 25 128 4

# mmap failing with ENOMEM ends fill's allocation early and is not an error.
why=""
sh -c 'ulimit -v 65536 && exec "$0" 100 1024' "$OUT/fill" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 0 ] && why=$(check_json fill "enomem=true" "$TMP/out" 2>&1); then
	pass "fill stops cleanly at ENOMEM (ulimit -v 64 MiB)"
else
	fail "fill at ENOMEM (exit $rc) ${why:-}"
fi
run_ok threads "threads=4 pages_per_thread=1024 tls_errors=0" threads 4 16 1
run_ok vmstat "samples=3 interval_ms=10" vmstat 10 3
run_ok threads "threads=3 pages_per_thread=85 tls_errors=0" threads 3 1 1
run_ok threads "threads=2 rounds=50 tls_errors=0" threads 2 4 60 50

# hold and its madvise modes (MADV_PAGEOUT, MADV_COLD and the control):
# on this host (maybe without swap) only the data and the record's shape
# are judged; tests/qemu/test_madvise.py judges what they move.
run_ok hold "size_mib=2" hold 2 0
run_ok hold "size_mib=2" hold 2 0 shmem
run_ok hold "mode=pageout mapping=anon" hold 8 0 anon pageout
run_ok hold "mode=pageout mapping=shmem" hold 8 0 shmem pageout
run_ok hold "mode=cold mapping=anon pressure_mib=4" hold 8 0 anon cold:4
run_ok hold "mode=nocold mapping=shmem pressure_mib=4" hold 8 0 shmem nocold:4
for f in verify_majflt pageout_pswpout; do
	if [ -n "$(field $f hold 2 0 anon pageout)" ]; then pass "hold pageout reports $f"; else fail "hold pageout: no $f"; fi
done
for f in hot_majflt cold_majflt cold_pgdeactivate; do
	if [ -n "$(field $f hold 2 0 anon cold:1)" ]; then pass "hold cold reports $f"; else fail "hold cold: no $f"; fi
done
run_usage hold 2 0 anon cold
run_usage hold 2 0 anon nocold:0
run_usage hold 2 0 anon cold:x
run_usage hold 2 0 anon paging
run_usage hold 2 0 heap
run_usage hold 2 0 anon pageout extra

# uperf verifies no data (no mismatches field): its record's shape only.
for a in "100" "1000 syscalls"; do
	# shellcheck disable=SC2086
	if [ -n "$(field getpid_ns uperf $a)" ]; then pass "uperf $a"; else fail "uperf $a: no getpid_ns"; fi
done
if [ "$(field mode uperf 1000 syscalls)" = syscalls ]; then pass "uperf syscalls: mode"; else fail "uperf syscalls: mode"; fi
run_usage uperf 100 sys
run_usage uperf 100 syscalls more

# systest checks every system call of the kernel's subset against Linux's
# documented results; here it runs against Linux itself.  Its stdout is a
# pipe, as the console is on our kernel (lseek on it: -ESPIPE).
{ timeout 120 "$OUT/systest" 2>"$TMP/err"; echo $? >"$TMP/rc"; } | cat >"$TMP/out"
rc=$(cat "$TMP/rc")
if [ $rc -eq 0 ] && [ "$(tail -n 1 "$TMP/out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["failed"])' 2>&1)" = 0 ]; then
	pass systest
else
	fail "systest (exit $rc): $(grep FAIL "$TMP/err" | head -n 3)"
fi

# touch threads=N on Linux: RUSAGE_THREAD counts each thread's own faults,
# so the per-thread lists add up to no more than the process's, and each
# thread (4 x 512 pages of its own slice, all touched) faulted.
timeout 120 "$OUT/touch" 8 20000 seq anon threads=4 >"$TMP/out" 2>"$TMP/err"
if why=$(python3 - "$TMP/out" <<'PY' 2>&1
import json, sys
w = json.loads(open(sys.argv[1]).read().splitlines()[-1])
per = [int(x) for x in w["thread_minflt"].split()]
if len(per) != 4 or min(per) < 512 or sum(per) > w["minflt"]:
    sys.exit("thread_minflt %r, process minflt %r" % (per, w["minflt"]))
PY
); then
	pass "touch threads=4: per-thread faults are the threads' own"
else
	fail "touch threads=4 per-thread faults: $why"
fi

# The same seed must pick the same pages under our runtime and under musl.
a=$(field pages_touched touch 8 5000 random anon 3)
b=$(field pages_touched touch_musl 8 5000 random anon 3)
if [ -n "$a" ] && [ "$a" = "$b" ]; then
	pass "touch random is reproducible across rt and musl ($a pages)"
else
	fail "touch random differs: rt '$a' musl '$b'"
fi

# MM_TRACE=FILE (wtrace.h): same record, a trace file; a file that cannot
# be created is one line on stderr and exit 3.  tools/tests/test_min.py
# checks the traces' contents.
export MM_TRACE="$TMP/trace"
run_ok touch "touches=5000 pages=2048 pages_touched=2048" touch 8 5000 seq anon
unset MM_TRACE
if [ -s "$TMP/trace" ] && [ "$(head -c 8 "$TMP/trace")" = MMTRACE1 ]; then
	pass "MM_TRACE writes a trace"
else
	fail "MM_TRACE wrote no trace"
fi
MM_TRACE="$TMP/no/such/dir" timeout 20 "$OUT/hogmem" 1 1 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 3 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q 'MM_TRACE=' "$TMP/err"; then
	pass "MM_TRACE to a bad path: exit 3, one line"
else
	fail "MM_TRACE to a bad path (exit $rc)"
fi

# The table and disk workloads: shmdb in shared memory (RAM share from
# sysinfo), stream and mmap001 on a regular file standing in for a device
# (/dev needs root here).  stream read on the file mmap001 left must find
# every block stamped; a missing device is one line naming openat, exit 3.
run_ok shmdb "size_mib=16 rows=16384 row_bytes=1024 seconds=1" shmdb 16 1
run_ok shmdb "size_mib=8 rows=100 seconds=2" shmdb 8 2 100
run_ok shmdb "ram_pct=1 seconds=1" shmdb 1% 1
# The LRU averages come from this host's /proc/vmstat, once a second.
n=$(field lru_samples shmdb 8 3)
if [ "${n:-0}" -ge 2 ] && [ -n "$(field nr_active_file_avg shmdb 8 2)" ]; then
	pass "shmdb samples the LRU sizes ($n samples in 3 s)"
else
	fail "shmdb LRU samples: '${n:-}' in 3 s"
fi
# TPS caps the rate: 2 s at 500/s is 1000 transactions, plus at most the
# batch of 8 started before the sleep that would have held it; ROWS 0 is
# the default row count.  Unpaced, the host does hundreds of thousands.
run_ok shmdb "size_mib=8 rows=8192 seconds=2 tps_limit=500" shmdb 8 2 0 500
n=$(field transactions shmdb 8 2 0 500)
if [ "${n:-0}" -ge 900 ] && [ "${n:-0}" -le 1016 ]; then
	pass "shmdb TPS 500 for 2 s: $n transactions"
else
	fail "shmdb TPS 500 for 2 s: '${n:-}' transactions, want 900..1016"
fi
DEV="$TMP/dev.img"
truncate -s 8M "$DEV"
run_ok stream "mode=read bytes_read=8388608 foreign_blocks=2048 stamped_blocks=0" stream "$DEV" 8 read
run_ok mmap001 "size_mib=8 loops=3 pages=2048" mmap001 "$DEV" 8 3
run_ok stream "mode=read stamped_blocks=2048 foreign_blocks=0" stream "$DEV" 8 read
# The same through a MAP_SHARED mapping; mmap-rw's passes must each find
# the previous pass's stamps, and read(2) must see what the mapping wrote.
run_ok stream "mode=mmap-read stamped_blocks=2048 foreign_blocks=0 bytes_read=8388608" stream "$DEV" 8 mmap-read
run_ok stream "mode=mmap-rw bytes_written=8388608 passes=1" stream "$DEV" 8 mmap-rw
run_ok stream "mode=mmap-rw seconds=1" stream "$DEV" 2 mmap-rw 0 1
run_ok stream "mode=read stamped_blocks=2048 foreign_blocks=0" stream "$DEV" 8 read
run_ok stream "mode=write bytes_written=4194304 passes=1" stream "$DEV" 4 write
run_ok stream "mode=rw limit_bytes_per_s=16777216 seconds=1" stream "$DEV" 4 rw 16 1
run_ok stream "mode=rw rate=50%" stream "$DEV" 2 rw 50% 2
# Damage one stamped block: read must call it a mismatch (exit 1).
printf 'garbage' | dd of="$DEV" bs=1 seek=41000 conv=notrunc 2>/dev/null
timeout 20 "$OUT/stream" "$DEV" 8 read >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'MISMATCH .* block at byte 40960: damaged' "$TMP/err"; then
	pass "stream read catches a damaged block"
else
	fail "stream read on a damaged block (exit $rc)"
fi
timeout 20 "$OUT/stream" "$DEV" 8 mmap-read >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'MISMATCH .* block at byte 40960: damaged' "$TMP/err"; then
	pass "stream mmap-read catches a damaged block"
else
	fail "stream mmap-read on a damaged block (exit $rc)"
fi
for cmd in "stream $TMP/no-such-dev 1 read" "mmap001 $TMP/no-such-dev 1 1"; do
	# shellcheck disable=SC2086
	timeout 20 "$OUT/"$cmd >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 3 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "openat($TMP/no-such-dev, O_R.*) failed: ENOENT" "$TMP/err"; then
		pass "missing device: exit 3, one line naming openat: $cmd"
	else
		fail "missing device: $cmd (exit $rc)"
	fi
done
run_usage stream "$DEV" 9 read
run_usage mmap001 "$DEV" 9 1

run_usage touch
run_usage touch 8 x seq anon
run_usage touch 8 10 sideways anon
run_usage touch 8 10 stride:0 anon
run_usage touch 8 10 streams:x anon
run_usage touch 8 10 shift:10 anon
run_usage touch 8 10 jumps: anon
run_usage touch 8 10 stride:4:2 anon
run_usage touch 8 10 back:2 anon
run_usage touch 8 10 fill+ anon
run_usage touch 8 10 seq anon threads=0
run_usage touch 8 10 seq anon threads=33
run_usage touch 8 10 seq anon threads=x
run_usage touch 8 10 seq anon threads=2 threads=2
run_usage touch 8 10 seq anon shared
run_usage touch 8 10 seq anon 1 2
run_usage touch 8 10 seq anon 1 threads=2 shared extra
run_usage touch 8 10 seq file
run_usage touch 0 10 seq anon
run_usage touch_musl 8 10 seq
run_usage hogmem abc 2
run_usage hogmem 16 0
run_usage fill
run_usage fill 150 64
run_usage fill 50 64 0
run_usage threads 0 16 1
run_usage threads 4 16
run_usage threads 4 16 -1
run_usage threads 4 16 1 0
run_usage shmdb
run_usage shmdb 16
run_usage shmdb 0 1
run_usage shmdb 16x 1
run_usage shmdb 0% 1
run_usage shmdb 1001% 1
run_usage shmdb 16 0
run_usage shmdb 16 1 1
run_usage shmdb 1 1 16385
run_usage shmdb 16 1 0 x
run_usage shmdb 16 1 0 1000000001
run_usage shmdb 16 1 0 10 5
run_usage stream "$DEV" 1
run_usage stream "$DEV" 1 sideways
run_usage stream "$DEV" 1 mmap
run_usage stream "$DEV" 9 mmap-read
run_usage stream "$DEV" 0 read
run_usage stream "$DEV" 1 read 0%
run_usage stream "$DEV" 1 read 101%
run_usage stream "$DEV" 1 read fast
run_usage stream "$DEV" 1 read 1 x
run_usage mmap001 "$DEV" 1
run_usage mmap001 "$DEV" 1 0

# The runtime's own unit tests, built against libc with sanitizers.
if gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Wall -Wextra -Werror \
	-fsanitize=address,undefined -fno-sanitize-recover=all -I"$HERE" \
	-o "$TMP/selftest" "$HERE/selftest.c" "$HERE/vpage.c" "$HERE/wtrace.c" "$HERE/wlio.c" \
	"$HERE/rt/rt_print.c" "$HERE/rt/rt_string.c" "$HERE/rt/rt_sys.c" \
	"$HERE/rt/rt_json.c" "$HERE/rt/rt_rand.c" "$HERE/rt/rt_time.c" \
	>"$TMP/cc.log" 2>&1 && "$TMP/selftest" >"$TMP/out" 2>/dev/null; then
	pass "selftest: $(tail -n 1 "$TMP/out")"
else
	fail "selftest"
	cat "$TMP/cc.log" "$TMP/out" | sed 's/^/    /'
fi

echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
