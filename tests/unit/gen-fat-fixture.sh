#!/bin/sh
# Make the FAT images tests/unit/test_fat.c walks: real volumes made by
# mkfs.fat and filled by mtools, with payloads of known bytes so the test
# can read each file back through the extents the parser found.
#   fat32.img      FAT32, results/0001.jsonl (50000 bytes), a long name
#   fat16-frag.img FAT16 filled up, two holes punched, then
#                  results/0001.jsonl written: it lands in pieces
#   fat12.img      FAT12, hello.txt
#   fat16-4k.img   FAT16 with 4096-byte logical sectors
# Payloads are fixed (a counter pattern), so the images differ only in
# timestamps and volume ids.  Usage: gen-fat-fixture.sh OUTDIR
set -eu
out=${1:?usage: gen-fat-fixture.sh OUTDIR}
mkdir -p "$out"
cd "$out"
rm -f fat*.img fat*.tmp pay-*

# pay NAME BYTES SEED: a payload whose bytes the test recomputes
pay() { python3 -c "import sys; n,s=int(sys.argv[1]),int(sys.argv[2]); sys.stdout.buffer.write(bytes((i*7+s)&255 for i in range(n)))" "$2" "$3" > "pay-$1"; }

pay big 50000 1
pay frag 9000 2
pay hello 700 3
pay small 6000 4
pay k4 20000 5
pay long 3000 6

img=fat32.tmp
truncate -s 40M $img
mkfs.fat -F 32 -n TESTFAT32 $img >/dev/null
mmd -i $img ::/results
mcopy -i $img pay-big ::/results/0001.jsonl
mcopy -i $img pay-long "::/A Long Name For A File.dat"
mcopy -i $img pay-small ::/SHORT.TXT
mv $img fat32.img

img=fat16-frag.tmp
truncate -s 16M $img
mkfs.fat -F 16 $img >/dev/null
for i in 1 2 3 4 5 6; do mcopy -i $img pay-small ::/f$i; done
free=$(mdir -i $img ::/ | awk '/bytes free/{n=$0; sub(/bytes free.*/,"",n); gsub(/ /,"",n); print n}')
head -c "$free" /dev/zero > pay-filler
mcopy -i $img pay-filler ::/filler
rm -f pay-filler
mdel -i $img ::/f2 ::/f4
mmd -i $img ::/results
mcopy -i $img pay-frag ::/results/0001.jsonl
mv $img fat16-frag.img

img=fat12.tmp
truncate -s 1M $img
mkfs.fat -F 12 $img >/dev/null
mcopy -i $img pay-hello ::/hello.txt
mv $img fat12.img

img=fat16-4k.tmp
truncate -s 64M $img
mkfs.fat -F 16 -S 4096 -s 1 $img >/dev/null
mmd -i $img ::/results
mcopy -i $img pay-k4 ::/results/0002.jsonl
mv $img fat16-4k.img
