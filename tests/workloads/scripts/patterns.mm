# patterns.mm: access patterns no readahead policy was tuned for (issue
# 7): every 4th page; two interleaved sequential streams; sequential with
# a random jump every 2000 pages (8 MiB); random within an 8 MiB working
# set that moves every 2000 touches (so over 60000 touches it comes back to
# pages swapped out long before).  72 MiB in 48 MiB of RAM, under off,
# fixed:3 and fixed:4 (the best fixed settings for such patterns) and the
# own policy; 16 columns, three runs each.
#   tools/matrix tests/workloads/scripts/patterns.mm --profile ssd
mem 48M
swap nvme1n1

column "stride:4 off"
set ra off
repeat 3
    run touch 72 24000 stride:4 anon
end

column "stride:4 RA=3"
set ra fixed:3
repeat 3
    run touch 72 24000 stride:4 anon
end

column "stride:4 RA=4"
set ra fixed:4
repeat 3
    run touch 72 24000 stride:4 anon
end

column "stride:4 own"
set ra own
repeat 3
    run touch 72 24000 stride:4 anon
end

column "streams:2 off"
set ra off
repeat 3
    run touch 72 40000 streams:2 anon
end

column "streams:2 RA=3"
set ra fixed:3
repeat 3
    run touch 72 40000 streams:2 anon
end

column "streams:2 RA=4"
set ra fixed:4
repeat 3
    run touch 72 40000 streams:2 anon
end

column "streams:2 own"
set ra own
repeat 3
    run touch 72 40000 streams:2 anon
end

column "jumps:2000 off"
set ra off
repeat 3
    run touch 72 40000 jumps:2000 anon
end

column "jumps:2000 RA=3"
set ra fixed:3
repeat 3
    run touch 72 40000 jumps:2000 anon
end

column "jumps:2000 RA=4"
set ra fixed:4
repeat 3
    run touch 72 40000 jumps:2000 anon
end

column "jumps:2000 own"
set ra own
repeat 3
    run touch 72 40000 jumps:2000 anon
end

column "shift off"
set ra off
repeat 3
    run touch 72 60000 shift:2048:2000 anon
end

column "shift RA=3"
set ra fixed:3
repeat 3
    run touch 72 60000 shift:2048:2000 anon
end

column "shift RA=4"
set ra fixed:4
repeat 3
    run touch 72 60000 shift:2048:2000 anon
end

column "shift own"
set ra own
repeat 3
    run touch 72 60000 shift:2048:2000 anon
end
