# patterns.mm: access patterns no readahead policy was tuned for (issue
# 7): every 4th page; two interleaved sequential streams; sequential with
# a random jump every 2000 pages (8 MiB); random within an 8 MiB working
# set that moves every 2000 touches (so over 60000 touches it comes back to
# pages swapped out long before).  72 MiB in 48 MiB of RAM, under off,
# fixed:3 and fixed:4 (the best fixed settings for such patterns) and the
# own policy; 16 columns, three runs each, and a warm-up run.
#   tools/matrix tests/workloads/scripts/patterns.mm --profile ssd
# The columns interleave (each round runs every column of a pattern
# once) after a warm-up run of another workload, so what drifts over a
# boot weighs on all of them alike (README, "Column order").
mem 48M
swap nvme1n1

column "warm-up"
run touch 72 30000 random anon 2

repeat 3
    column "stride:4 off"
    set ra off
    run touch 72 24000 stride:4 anon
    column "stride:4 RA=3"
    set ra fixed:3
    run touch 72 24000 stride:4 anon
    column "stride:4 RA=4"
    set ra fixed:4
    run touch 72 24000 stride:4 anon
    column "stride:4 own"
    set ra own
    run touch 72 24000 stride:4 anon
end

repeat 3
    column "streams:2 off"
    set ra off
    run touch 72 40000 streams:2 anon
    column "streams:2 RA=3"
    set ra fixed:3
    run touch 72 40000 streams:2 anon
    column "streams:2 RA=4"
    set ra fixed:4
    run touch 72 40000 streams:2 anon
    column "streams:2 own"
    set ra own
    run touch 72 40000 streams:2 anon
end

repeat 3
    column "jumps:2000 off"
    set ra off
    run touch 72 40000 jumps:2000 anon
    column "jumps:2000 RA=3"
    set ra fixed:3
    run touch 72 40000 jumps:2000 anon
    column "jumps:2000 RA=4"
    set ra fixed:4
    run touch 72 40000 jumps:2000 anon
    column "jumps:2000 own"
    set ra own
    run touch 72 40000 jumps:2000 anon
end

repeat 3
    column "shift off"
    set ra off
    run touch 72 60000 shift:2048:2000 anon
    column "shift RA=3"
    set ra fixed:3
    run touch 72 60000 shift:2048:2000 anon
    column "shift RA=4"
    set ra fixed:4
    run touch 72 60000 shift:2048:2000 anon
    column "shift own"
    set ra own
    run touch 72 60000 shift:2048:2000 anon
end
