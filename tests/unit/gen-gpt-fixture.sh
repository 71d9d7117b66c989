#!/bin/sh
# Make the GPT fixture tests/unit/test_gpt.c (gpt_fixture_sgdisk) parses:
# an 8 MiB disk image partitioned by sgdisk, with fixed GUIDs so the test
# can check every field.  Usage: gen-gpt-fixture.sh OUTDIR
set -eu
out=${1:?usage: gen-gpt-fixture.sh OUTDIR}
mkdir -p "$out"
img=$out/gpt-sgdisk.img
rm -f "$img" "$img.tmp"
truncate -s 8M "$img.tmp"
sgdisk -o -U 11111111-2222-3333-4444-555555555555 \
	-n 1:2048:+1M -t 1:ef00 -c 1:"EFI system" -u 1:AAAAAAAA-BBBB-CCCC-DDDD-000000000001 \
	-n 2:4096:+2M -t 2:8200 -c 2:"mm swap" -u 2:AAAAAAAA-BBBB-CCCC-DDDD-000000000002 \
	-n 3:8192:0 -t 3:8300 -c 3:"data" -u 3:AAAAAAAA-BBBB-CCCC-DDDD-000000000003 -A 3:set:2 \
	"$img.tmp" >/dev/null
mv "$img.tmp" "$img"
