# mtest01.mm: seed 002 in docs/seeds.md's memory fill ("mtest01 -w -p 80": allocate and
# write 80% of RAM + swap, then check it) with the latency probe standing
# in for the mp3 player that had to keep playing.  Here RAM is 48 MiB and
# the fill is 80% of 176 MiB (48 MiB + 128 MiB of swap; give the swap
# disk at least 128 MiB).  The probe's record says how many of its 10 ms
# deadlines it met and how late it was at worst.  Columns: readahead off,
# Linux's default page-cluster 3, this kernel's own policy (the check
# pass reads everything back in allocation order).
#   tools/matrix tests/workloads/scripts/mtest01.mm --profile ssd
mem 48M
swap nvme1n1
probe on

column "RA=0"
set ra off
repeat 3
    run fill 80 176
end

column "RA=3"
set ra fixed:3
repeat 3
    run fill 80 176
end

column "own"
set ra own
repeat 3
    run fill 80 176
end
