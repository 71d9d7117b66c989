# default.mm: what `make run` shows.  Hugh Dickins's touch test (seed 000 in docs/seeds.md)
# on 72 MiB in 48 MiB of RAM, sequential and random, with swap-in
# readahead off, at Linux's default page-cluster 3, and under this
# kernel's own policy; two runs each, then the table.  Swaps to every
# area with a mkswap header found at boot (make run attaches one).
mem 48M
swap auto

column "seq off"
set ra off
repeat 2
    run touch 72 40000 seq anon
end
column "seq RA=3"
set ra fixed:3
repeat 2
    run touch 72 40000 seq anon
end
column "seq own"
set ra own
repeat 2
    run touch 72 40000 seq anon
end

column "random off"
set ra off
repeat 2
    run touch 72 50000 random anon
end
column "random RA=3"
set ra fixed:3
repeat 2
    run touch 72 50000 random anon
end
column "random own"
set ra own
repeat 2
    run touch 72 50000 random anon
end
