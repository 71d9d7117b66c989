#!/bin/sh
# Make the swap-header fixtures tests/unit/test_swaphdr.c compares
# swaphdr_format against: files set up by util-linux mkswap with fixed
# UUIDs and labels.  Usage: gen-swap-fixture.sh OUTDIR
set -eu
out=${1:?usage: gen-swap-fixture.sh OUTDIR}
mkdir -p "$out"

# name size uuid label ("" = no -L)
mk() {
	f=$out/$1
	rm -f "$f" "$f.tmp"
	truncate -s "$2" "$f.tmp"
	chmod 600 "$f.tmp"
	if [ -n "$4" ]; then
		mkswap -U "$3" -L "$4" "$f.tmp" >/dev/null 2>&1
	else
		mkswap -U "$3" "$f.tmp" >/dev/null 2>&1
	fi
	mv "$f.tmp" "$f"
}

mk swap-1m.img 1048576 01234567-89ab-cdef-0123-456789abcdef mmswap
mk swap-odd.img 1049576 fedcba98-7654-3210-fedc-ba9876543210 a-very-long-label-xyz
mk swap-min.img 40960 00000000-0000-0000-0000-000000000001 ""
